/* test_caai_testengine.c - the scriptable CAAI engine (caai_testengine.c)
 * answers as spec §7 says, plays whole legal games against the rules, and
 * misbehaves exactly when told to, so that referee tests can rely on it.
 *
 * The engine runs as a child on two pipes. Nothing sleeps to synchronise:
 * every wait is a poll() on its stdout or on a pidfd for its exit, bounded
 * by WAIT_MS; "no answer" and "still running" are checked with a short
 * bounded poll (QUIET_MS) that a correct engine fails only by answering.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_clock.h"
#include "proto/caai.h"
#include "rules/error.h"
#include "rules/game.h"

#define WAIT_MS T(5000) /* bound on a wait for something that must happen */
#define QUIET_MS 300    /* how long "nothing happens" is watched for */

typedef struct child {
    pid_t pid;
    int pidfd; /* readable once the child exits */
    int to;    /* its stdin, -1 once closed */
    int from;  /* its stdout */
    char buf[1 << 16];
    size_t n; /* bytes buffered from its stdout */
    bool eof; /* its stdout reached end of file */
} child;

/* Starts the test engine with `args` (NULL-terminated, without argv[0]). */
static child *start(const char *const *args)
{
    signal(SIGPIPE, SIG_IGN); /* a dead engine must fail a test, not kill it */
    child *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    int in[2], out[2];
    cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
    const char *argv[32] = {DDZ_TESTENGINE};
    int argc = 1;
    for (; args && args[argc - 1]; argc++)
        argv[argc] = args[argc - 1];
    argv[argc] = NULL;
    pid_t parent = getpid();
    c->pid = fork();
    cr_assert_geq(c->pid, 0);
    if (c->pid == 0) {
        /* If a failed assertion ends the test process, take the engine
         * along: a spinning --ignore-eof engine would otherwise outlive it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        execv(DDZ_TESTENGINE, (char *const *)argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->to = in[1];
    c->from = out[0];
    c->pidfd = pidfd_open(c->pid, 0);
    cr_assert_geq(c->pidfd, 0, "pidfd_open: %s", strerror(errno));
    return c;
}

static void send_line(child *c, const char *line)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    cr_assert(n > 0 && (size_t)n < sizeof buf);
    /* Lines are short and the engine reads as it goes: the pipe never fills. */
    cr_assert_eq(write(c->to, buf, (size_t)n), n, "write to engine: %s", strerror(errno));
}

static void close_stdin(child *c)
{
    close(c->to);
    c->to = -1;
}

/* Reads what is available within `ms`. Returns false on timeout. */
static bool fill(child *c, int ms)
{
    struct pollfd p = {.fd = c->from, .events = POLLIN};
    int r = poll(&p, 1, ms);
    cr_assert(r >= 0 || errno == EINTR);
    if (r <= 0)
        return false;
    if (c->n == sizeof c->buf)
        c->n = 0; /* only flood tests get here: they count bytes, not lines */
    ssize_t k = read(c->from, c->buf + c->n, sizeof c->buf - c->n);
    cr_assert_geq(k, 0, "read: %s", strerror(errno));
    if (k == 0)
        c->eof = true;
    c->n += (size_t)k;
    return true;
}

/* Pops the next line (without "\n") into out. Returns 1, 0 at end of file,
 * or -1 if no whole line came within `ms`. */
static int read_line_within(child *c, char *out, size_t cap, int ms)
{
    long deadline = now_ms() + ms;
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->n);
        if (nl) {
            size_t len = (size_t)(nl - c->buf);
            cr_assert_lt(len, cap);
            memcpy(out, c->buf, len);
            out[len] = '\0';
            c->n -= len + 1;
            memmove(c->buf, nl + 1, c->n);
            return 1;
        }
        if (c->eof)
            return 0;
        long left = deadline - now_ms();
        if (left <= 0 || !fill(c, (int)left))
            return -1;
    }
}

static void read_line(child *c, char *out, size_t cap)
{
    int r = read_line_within(c, out, cap, WAIT_MS);
    cr_assert_eq(r, 1, "no line from the engine (%s)", r == 0 ? "end of file" : "timeout");
}

static void expect(child *c, const char *want)
{
    char got[512];
    read_line(c, got, sizeof got);
    cr_assert_str_eq(got, want);
}

/* Sends `line` and expects `answer`. */
static void ask(child *c, const char *line, const char *answer)
{
    send_line(c, line);
    expect(c, answer);
}

/* Waits up to `ms` for the child to exit. Returns its wait status, or -1
 * if it is still running. */
static int exit_within(child *c, int ms)
{
    struct pollfd p = {.fd = c->pidfd, .events = POLLIN};
    int r = poll(&p, 1, ms);
    cr_assert(r >= 0 || errno == EINTR);
    if (r <= 0)
        return -1;
    int status;
    cr_assert_eq(waitpid(c->pid, &status, 0), c->pid);
    c->pid = 0;
    return status;
}

/* Ends the child, whatever it is doing, and frees it. */
static void finish(child *c)
{
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
    }
    if (c->to >= 0)
        close(c->to);
    close(c->from);
    close(c->pidfd);
    free(c);
}

static ddz_caai_msg parse_answer(const char *line)
{
    ddz_caai_msg m;
    char err[200];
    int rc = ddz_caai_parse(line, strlen(line), &m, err, sizeof err);
    cr_assert_eq(rc, 0, "answer \"%s\": %s", line, err);
    return m;
}

static const char deal_b[] = "DEAL B0,4,5,7,9,10,17,21,25,33,34,39,41,43,44,45,46";

/* Takes an engine as seat B through the start of the seed's example game,
 * up to and including its answer to the first BID WHAT (ask 1). */
static void opening(child *c, const char *name_answer, char *bid_answer, size_t cap)
{
    ask(c, "DOUDIZHUVER 1.0", name_answer);
    ask(c, "INFO 1,4,1,6,9,2100,15", "OK INFO");
    ask(c, deal_b, "OK DEAL");
    ask(c, "BID A1", "OK BID");
    send_line(c, "BID WHAT");
    read_line(c, bid_answer, cap);
}

Test(testengine, answers_the_seed_transcript)
{
    child *c = start(NULL);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B0");
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER B27,48,53", "OK LEFTOVER");
    /* leading with 20 cards: some legal play of its own */
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    ddz_caai_msg m = parse_answer(line);
    cr_assert_eq(m.kind, DDZ_CAAI_PLAY);
    cr_assert_eq(m.seat, 1);
    cr_assert_neq(m.cards, 0, "no pass on lead");
    ddz_caai_msg dealt = parse_answer(deal_b);
    ddz_cards hand = dealt.cards | (1ULL << 27) | (1ULL << 48) | (1ULL << 53);
    cr_assert_eq(m.cards & ~hand, 0, "plays only cards it holds");
    cr_assert_neq(ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(m.cards)).type, DDZ_INVALID);
    ask(c, "PLAY C-1", "OK PLAY");
    ask(c, "PLAY A12,13,14,20", "OK PLAY");
    ask(c, "GAMEOVER C", "OK GAMEOVER");
    ask(c, "ERROR A", "OK ERROR");
    /* lines it cannot parse get no answer, and it keeps going */
    send_line(c, "HELLO");
    ask(c, "GAMEOVER A", "OK GAMEOVER");
    close_stdin(c);
    int st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    finish(c);
}

Test(testengine, follows_passes_and_takes_the_lead_back)
{
    child *c = start(NULL);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER A27,48,53", "OK LEFTOVER");
    /* A leads a single 3; B must beat it with a single */
    ask(c, "PLAY A1", "OK PLAY");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    ddz_caai_msg m = parse_answer(line);
    cr_assert_eq(m.seat, 1);
    ddz_combo k = ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(m.cards));
    cr_assert(k.type == DDZ_SINGLE || k.type == DDZ_BOMB || k.type == DDZ_ROCKET, "%s", line);
    /* C and A pass: B leads again and must not pass */
    ask(c, "PLAY C-1", "OK PLAY");
    ask(c, "PLAY A-1", "OK PLAY");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    m = parse_answer(line);
    cr_assert_neq(m.cards, 0, "the lead came back after two passes: %s", line);
    /* C plays the rocket: nothing beats it, B passes when asked */
    ask(c, "PLAY C52,53", "OK PLAY");
    ask(c, "PLAY WHAT", "PLAY B-1");
    finish(c);
}

Test(testengine, name_options)
{
    const char *const named[] = {"--name", "hrbust", NULL};
    child *c = start(named);
    ask(c, "DOUDIZHUVER 1.0", "NAME hrbust");
    finish(c);

    const char *const gbk[] = {"--gbk-name", NULL};
    c = start(gbk);
    send_line(c, "DOUDIZHUVER 1.0");
    char line[512];
    read_line(c, line, sizeof line);
    ddz_caai_msg m = parse_answer(line);
    cr_assert_eq(m.kind, DDZ_CAAI_NAME);
    cr_assert_str_eq(m.name, "\xB2\xE2\xCA\xD4\xD2\xFD\xC7\xE6", "raw GBK bytes");
    char utf8[DDZ_CAAI_NAME_UTF8_MAX];
    cr_assert_gt(ddz_caai_name_utf8(m.name, utf8, sizeof utf8), 0);
    cr_assert_str_eq(utf8, "测试引擎");
    finish(c);
}

Test(testengine, bid_option)
{
    const char *const args[] = {"--bid", "3", NULL};
    child *c = start(args);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B3");
    finish(c);
    const char *const bad[] = {"--bid", "7", NULL};
    c = start(bad);
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B7", "illegal bids are sent as asked");
    finish(c);
}

Test(testengine, garbage_at_the_kth_ask)
{
    const char *const first[] = {"--garbage-at", NULL};
    child *c = start(first);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    ddz_caai_msg m;
    cr_assert_eq(ddz_caai_parse(line, strlen(line), &m, NULL, 0), DDZ_EUNKNOWN, "%s", line);
    finish(c);

    /* K = 2: the bid is normal, the first PLAY WHAT gets garbage */
    const char *const second[] = {"--garbage-at=2", NULL};
    c = start(second);
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B0");
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER B27,48,53", "OK LEFTOVER");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    cr_assert_lt(ddz_caai_parse(line, strlen(line), &m, NULL, 0), 0, "%s", line);
    finish(c);
}

Test(testengine, wrong_seat_at_the_kth_ask)
{
    const char *const args[] = {"--wrong-seat-at", "2", NULL};
    child *c = start(args);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B0");
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER B27,48,53", "OK LEFTOVER");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    ddz_caai_msg m = parse_answer(line);
    cr_assert_eq(m.kind, DDZ_CAAI_PLAY);
    cr_assert_eq(m.seat, 2, "C instead of B: %s", line);
    cr_assert_neq(m.cards, 0);
    finish(c);

    const char *const bid[] = {"--wrong-seat-at", NULL};
    c = start(bid);
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID C0");
    finish(c);
}

Test(testengine, pass_on_lead)
{
    /* armed at ask 1 (a bid), fires at the first PLAY WHAT on lead */
    const char *const args[] = {"--pass-on-lead-at", "1", NULL};
    child *c = start(args);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    cr_assert_str_eq(line, "BID B0");
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER B27,48,53", "OK LEFTOVER");
    ask(c, "PLAY WHAT", "PLAY B-1");
    finish(c);

    /* not on lead at the K-th ask: it waits for the lead */
    c = start(args);
    opening(c, "NAME testengine", line, sizeof line);
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER A27,48,53", "OK LEFTOVER");
    ask(c, "PLAY A1", "OK PLAY");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    cr_assert_neq(parse_answer(line).cards, 0, "follows normally: %s", line);
    ask(c, "PLAY C-1", "OK PLAY");
    ask(c, "PLAY A-1", "OK PLAY");
    ask(c, "PLAY WHAT", "PLAY B-1");
    finish(c);
}

Test(testengine, play_missing)
{
    const char *const args[] = {"--play-missing-at", "2", NULL};
    child *c = start(args);
    char line[512];
    opening(c, "NAME testengine", line, sizeof line);
    ask(c, "BID C0", "OK BID");
    ask(c, "LEFTOVER B27,48,53", "OK LEFTOVER");
    send_line(c, "PLAY WHAT");
    read_line(c, line, sizeof line);
    ddz_caai_msg m = parse_answer(line);
    cr_assert_eq(m.seat, 1);
    ddz_cards hand = parse_answer(deal_b).cards | (1ULL << 27) | (1ULL << 48) | (1ULL << 53);
    cr_assert_neq(m.cards, 0);
    cr_assert_neq(m.cards & ~hand, 0, "a card it does not hold: %s", line);
    finish(c);
}

Test(testengine, crash_and_abort)
{
    const char *const crash[] = {"--crash-at", "1", NULL};
    child *c = start(crash);
    char line[512];
    ask(c, "DOUDIZHUVER 1.0", "NAME testengine");
    ask(c, deal_b, "OK DEAL");
    send_line(c, "BID WHAT");
    cr_assert_eq(read_line_within(c, line, sizeof line, WAIT_MS), 0, "end of file, no answer");
    int st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d", st);
    finish(c);

    const char *const ab[] = {"--abort-at", "1", NULL};
    c = start(ab);
    ask(c, deal_b, "OK DEAL");
    send_line(c, "BID WHAT");
    st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %d", st);
    finish(c);
}

Test(testengine, timeout_stops_answering)
{
    const char *const args[] = {"--timeout-at", "1", NULL};
    child *c = start(args);
    char line[512];
    ask(c, deal_b, "OK DEAL");
    send_line(c, "BID WHAT");
    cr_assert_eq(read_line_within(c, line, sizeof line, QUIET_MS), -1, "no answer");
    close_stdin(c);
    cr_assert_eq(exit_within(c, QUIET_MS), -1, "hangs even without input");
    finish(c);
}

Test(testengine, flood_writes_without_newlines)
{
    const char *const args[] = {"--flood-at", "1", NULL};
    child *c = start(args);
    ask(c, deal_b, "OK DEAL");
    send_line(c, "BID WHAT");
    size_t total = 0;
    long deadline = now_ms() + WAIT_MS;
    while (total < (4u << 20) && now_ms() < deadline) {
        c->n = 0;
        cr_assert(fill(c, WAIT_MS), "the flood stopped");
        cr_assert_null(memchr(c->buf, '\n', c->n));
        total += c->n;
    }
    cr_assert_geq(total, 4u << 20, "only %zu bytes", total);
    finish(c);
}

Test(testengine, ignore_eof_and_term)
{
    const char *const args[] = {"--ignore-eof", "--ignore-term", NULL};
    child *c = start(args);
    ask(c, "DOUDIZHUVER 1.0", "NAME testengine");
    close_stdin(c);
    cr_assert_eq(exit_within(c, QUIET_MS), -1, "spins after end of input");
    kill(c->pid, SIGTERM);
    cr_assert_eq(exit_within(c, QUIET_MS), -1, "survives SIGTERM");
    kill(c->pid, SIGKILL);
    int st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %d", st);
    finish(c);

    /* without --ignore-term, SIGTERM ends the spinning engine */
    const char *const eof_only[] = {"--ignore-eof", NULL};
    c = start(eof_only);
    close_stdin(c);
    cr_assert_eq(exit_within(c, QUIET_MS), -1, "spins after end of input");
    kill(c->pid, SIGTERM);
    st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
    finish(c);
}

Test(testengine, bad_ack_and_log)
{
    char path[] = "/tmp/ddz_testengine_logXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *const args[] = {"--bad-ack", "--log", path, NULL};
    child *c = start(args);
    ask(c, "DOUDIZHUVER 1.0\r", "NAME testengine");
    ask(c, "ERROR A", "ERROR A");
    ask(c, "GAMEOVER C", "OK GAMEOVER");
    send_line(c, "garbage");
    close_stdin(c);
    int st = exit_within(c, WAIT_MS);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    finish(c);

    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    cr_assert_str_eq(buf, "DOUDIZHUVER 1.0\r\nERROR A\nGAMEOVER C\ngarbage\n");
}

/* --exit-after-gameover exits 0 after the GAMEOVER of the game it names
 * (default: INFO's last game); --wait-eof holds that GAMEOVER's
 * acknowledgement until every --hold engine on the FIFO has exited. */
Test(testengine, exit_after_gameover_hold_and_wait_eof)
{
    char dir[] = "/tmp/ddz_testengine_fifoXXXXXX", fifo[64], line[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    const char *const leaver_args[] = {"--exit-after-gameover", "--hold", fifo, NULL};
    const char *const waiter_args[] = {"--wait-eof=1", fifo, NULL};
    child *x = start(leaver_args);
    ask(x, "DOUDIZHUVER 1.0", "NAME testengine"); /* it holds the FIFO by now */
    child *y = start(waiter_args);
    ask(x, "INFO 1,1,1,2,0,700,15", "OK INFO");
    ask(y, "INFO 1,1,1,2,0,700,15", "OK INFO");
    ask(x, "GAMEOVER A", "OK GAMEOVER");
    cr_assert_eq(exit_within(x, QUIET_MS), -1, "game 1 of 2 is not the last: it stays");
    send_line(y, "GAMEOVER A");
    cr_assert_eq(read_line_within(y, line, sizeof line, QUIET_MS), -1,
                 "no acknowledgement while the leaver runs");
    ask(x, "INFO 1,1,2,2,0,700,15", "OK INFO");
    ask(x, "GAMEOVER B", "OK GAMEOVER");
    int st = exit_within(x, WAIT_MS);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    expect(y, "OK GAMEOVER");
    /* it waited at game 1 only */
    ask(y, "INFO 1,1,2,2,0,700,15", "OK INFO");
    ask(y, "GAMEOVER B", "OK GAMEOVER");
    finish(x);
    finish(y);

    const char *const first[] = {"--exit-after-gameover=1", NULL};
    x = start(first);
    ask(x, "INFO 1,1,1,3,0,1050,15", "OK INFO");
    ask(x, "GAMEOVER C", "OK GAMEOVER");
    st = exit_within(x, WAIT_MS);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    finish(x);

    const char *const bad[][3] = {
        {"--exit-after-gameover=0", NULL}, {"--exit-after-gameover=x", NULL}, {"--wait-eof", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        x = start(bad[i]);
        st = exit_within(x, WAIT_MS);
        cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d", bad[i][0], st);
        finish(x);
    }
    unlink(fifo);
    rmdir(dir);
}

/* ---- whole games: three engines, the rules as referee ---- */

/* Plays one game with three default engines (A bids `bid_a`), relaying as
 * spec §7 says. With `autopass`, a seat that cannot beat the last play is
 * passed for (PLAY d-1 sent to all three) instead of being asked. Every
 * answer must be accepted by ddz_game. Returns the number of plays. */
static int play_game(uint32_t k, int bid_a, bool autopass)
{
    uint8_t master[DDZ_SEED_BYTES] = {7}, seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(master, k, seed);
    ddz_deal deal;
    cr_assert_eq(ddz_deal_from_seed(seed, &deal), 0);
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &deal, 350);

    char bidopt[8];
    snprintf(bidopt, sizeof bidopt, "%d", bid_a);
    const char *const args_a[] = {"--bid", bidopt, NULL};
    child *seat[3] = {start(args_a), start(NULL), start(NULL)};
    char line[512], buf[DDZ_CAAI_FORMAT_MAX];
    for (int s = 0; s < 3; s++) {
        ask(seat[s], "DOUDIZHUVER 1.0", "NAME testengine");
        ask(seat[s], "INFO 1,1,1,1,1,2100,15", "OK INFO");
        ddz_caai_msg d = {.kind = DDZ_CAAI_DEAL, .seat = (int8_t)s, .cards = deal.hand[s]};
        cr_assert_gt(ddz_caai_format(&d, buf, sizeof buf), 0);
        ask(seat[s], buf, "OK DEAL");
    }
    while (g.phase == DDZ_PHASE_BID) {
        int t = g.turn;
        send_line(seat[t], "BID WHAT");
        read_line(seat[t], line, sizeof line);
        ddz_caai_msg m = parse_answer(line);
        cr_assert_eq(m.kind, DDZ_CAAI_BID);
        cr_assert_eq(m.seat, t);
        cr_assert_eq(ddz_game_bid(&g, t, m.bid), 0, "bid %s", line);
        for (int s = 0; s < 3; s++)
            if (s != t)
                ask(seat[s], line, "OK BID");
    }
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    ddz_caai_msg lo = {.kind = DDZ_CAAI_LEFTOVER, .seat = g.landlord, .cards = deal.leftover};
    cr_assert_gt(ddz_caai_format(&lo, buf, sizeof buf), 0);
    for (int s = 0; s < 3; s++)
        ask(seat[s], buf, "OK LEFTOVER");

    int plays = 0;
    while (g.phase == DDZ_PHASE_PLAY) {
        cr_assert_lt(plays++, 200, "the game does not end");
        int t = g.turn;
        if (autopass && ddz_game_must_pass(&g)) {
            cr_assert_eq(ddz_game_play(&g, t, 0), 0);
            ddz_caai_msg p = {.kind = DDZ_CAAI_PLAY, .seat = (int8_t)t, .cards = 0};
            cr_assert_gt(ddz_caai_format(&p, buf, sizeof buf), 0);
            for (int s = 0; s < 3; s++)
                ask(seat[s], buf, "OK PLAY");
            continue;
        }
        send_line(seat[t], "PLAY WHAT");
        read_line(seat[t], line, sizeof line);
        ddz_caai_msg m = parse_answer(line);
        cr_assert_eq(m.kind, DDZ_CAAI_PLAY);
        cr_assert_eq(m.seat, t);
        int rc = ddz_game_play(&g, t, m.cards);
        cr_assert_eq(rc, 0, "game %u play %d \"%s\": %s", k, plays, line, ddz_errname(rc));
        for (int s = 0; s < 3; s++)
            if (s != t)
                ask(seat[s], line, "OK PLAY");
    }
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_geq(g.winner, 0);
    ddz_caai_msg over = {.kind = DDZ_CAAI_GAMEOVER, .seat = g.winner};
    cr_assert_gt(ddz_caai_format(&over, buf, sizeof buf), 0);
    for (int s = 0; s < 3; s++) {
        ask(seat[s], buf, "OK GAMEOVER");
        close_stdin(seat[s]);
        int st = exit_within(seat[s], WAIT_MS);
        cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
        finish(seat[s]);
    }
    return plays;
}

Test(testengine, plays_whole_legal_games)
{
    cr_assert_geq(sodium_init(), 0);
    int total = 0;
    for (uint32_t k = 0; k < 6; k++)
        total += play_game(k, 1 + (int)k % 3, k % 2 == 1);
    cr_log_info("6 games, %d plays", total);
    cr_assert_gt(total, 6 * 5);
}
