/* test_match_cli.c - `ddz match` as the real binary, end to end (spec §6, §7,
 * §10): the INFO numbers engines hear in a rotated turn, the early penalty,
 * engines that leave after their GAMEOVER, engines known only by their
 * command, the names on stderr, illegal answers charged without waiting
 * for the clock, the Botzone rule sets (no bidding, play on after a
 * fault), and the A/B test (--sprt: it stops, says so in its exit status,
 * and what it printed is what its records add up to). The engines are
 * tests/service/caai_testengine.c.
 *
 * Nothing sleeps: the binary is waited for on a pidfd with a bound, and
 * when the order of two engines' exits and answers matters, one engine
 * waits on a FIFO for the other's exit (--hold, --wait-eof).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/record_json.h"
#include "rules/error.h"
#include "test_clock.h"
#include "test_util.h"

#define TE DDZ_TESTENGINE
#define WAIT_MS T(30000) /* bound on one `ddz match` run */
#define SEED "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

extern char **environ;

static char dir[64];         /* this test's scratch directory */
static char logpath[128];    /* --log */
static char fifo[128];       /* for --hold / --wait-eof */
static ddz_record recs[200]; /* the records of the last run */
static int nrecs;            /* how many */
static char *out, *err;      /* the last run's stdout and stderr */
static int status;           /* its wait status */
static long elapsed_ms;      /* its wall time */
static const char *seat_name[] = {"west", "south", "east"};

static void init(void)
{
    snprintf(dir, sizeof dir, "/tmp/ddz-test-cli-match-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(logpath, sizeof logpath, "%s/games.jsonl", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
}

static void fini(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(out);
    free(err);
    out = err = NULL;
}

/* A path in the scratch directory. */
static const char *scratch(const char *name)
{
    static char buf[4][160];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* Runs `ddz match --seed SEED --log LOG ARGS...` (ARGS NULL-terminated),
 * waits for it within WAIT_MS, and reads back its output and records
 * (each replayed by ddz_record_verify). */
static void ddz_match(const char *const *args)
{
    const char *argv[40] = {DDZ_BIN, "match", "--seed", SEED, "--log", logpath};
    int argc = 6;
    for (; *args; args++) {
        cr_assert_lt(argc, 39);
        argv[argc++] = *args;
    }
    argv[argc] = NULL;
    const char *outpath = scratch("stdout"), *errpath = scratch("stderr");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    long t0 = now_ms();
    pid_t pid;
    int rc = posix_spawn(&pid, DDZ_BIN, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "spawn %s: %s", DDZ_BIN, strerror(rc));
    int pfd = pidfd_open(pid, 0);
    cr_assert_geq(pfd, 0, "pidfd_open: %s", strerror(errno));
    struct pollfd p = {.fd = pfd, .events = POLLIN};
    int r;
    while ((r = poll(&p, 1, WAIT_MS)) < 0 && errno == EINTR)
        ;
    if (r <= 0) {
        /* its engines die with it (PR_SET_PDEATHSIG) */
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        cr_assert_fail("ddz match did not end within %d ms", WAIT_MS);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    elapsed_ms = now_ms() - t0;
    close(pfd);
    free(out);
    free(err);
    out = slurp(outpath);
    err = slurp(errpath);

    FILE *f = fopen(logpath, "r");
    nrecs = 0;
    if (!f && WIFEXITED(status) && WEXITSTATUS(status) == 2)
        return; /* bad usage: stopped before the log was opened */
    cr_assert_not_null(f, "no records: %s", err);
    char *line = NULL, why[300];
    size_t cap = 0;
    nrecs = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        cr_assert_not_null(j, "record %d is not JSON: %s", nrecs + 1, je.text);
        cr_assert_lt(nrecs, (int)(sizeof recs / sizeof recs[0]));
        cr_assert_eq(ddz_record_from_json(j, &recs[nrecs], why, sizeof why), 0, "%s", why);
        json_decref(j);
        const ddz_rules *rs = ddz_rules_find(recs[nrecs].rules);
        cr_assert_not_null(rs, "record %d: rules %s", nrecs + 1, recs[nrecs].rules);
        cr_assert_eq(ddz_record_verify(&recs[nrecs], rs, why, sizeof why), 0,
                     "record %d does not verify: %s", nrecs + 1, why);
        nrecs++;
    }
    free(line);
    fclose(f);
}

/* The match ran to its end and exited 0. */
static void expect_success(int games)
{
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x, stderr:\n%s", status,
              err);
    cr_assert_eq(nrecs, games, "%d records, want %d; stderr:\n%s", nrecs, games, err);
}

/* The results table's row for player `p` (0..2), without its newline, in
 * `buf`. */
static void table_row(int p, char *buf, size_t len)
{
    char head[8];
    snprintf(head, sizeof head, "%c ", 'A' + p);
    for (const char *l = out; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        if (strncmp(l, head, 2) == 0) {
            cr_assert_lt(n, len);
            memcpy(buf, l, n);
            buf[n] = '\0';
            return;
        }
        l = nl ? nl + 1 : l + n;
    }
    cr_assert_fail("no row for player %c in:\n%s", 'A' + p, out);
}

/* The last whitespace-separated field of a results row: the faults. */
static long row_faults(const char *row)
{
    const char *sp = strrchr(row, ' ');
    cr_assert_not_null(sp);
    return strtol(sp + 1, NULL, 10);
}

/* Calls `each(line, ctx)` for every line of `text`, with its newline cut. */
static int each_line(const char *text, void (*each)(const char *line, void *ctx), void *ctx)
{
    int n = 0;
    char buf[1024];
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        snprintf(buf, sizeof buf, "%.*s", (int)len, l);
        each(buf, ctx);
        n++;
        l = nl ? nl + 1 : l + len;
    }
    return n;
}

/* ---- spec §6, §7: INFO in a rotated turn, and the early penalty ---- */

static void expect_info_lines(const char *path, int games, int maxscore, int time_s)
{
    char *text = slurp(path);
    int g = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        if (strncmp(l, "INFO ", 5) != 0)
            continue;
        g++;
        char want[80];
        snprintf(want, sizeof want, "INFO 1,1,%d,%d,0,%d,%d", g, games, maxscore, time_s);
        cr_assert_str_eq(l, want, "%s: INFO number %d is '%s', want '%s'", path, g, l, want);
        int turn, turns, game, ngames, up, ms, t;
        cr_assert_eq(
            sscanf(l, "INFO %d,%d,%d,%d,%d,%d,%d", &turn, &turns, &game, &ngames, &up, &ms, &t), 7);
        /* spec §6: what a fault before the leftover costs */
        cr_assert_eq(ms / ngames, 350, "%s: maxscore %d / games %d", path, ms, ngames);
    }
    cr_assert_eq(g, games, "%s: %d INFO lines, want %d", path, g, games);
    free(text);
}

/* 20 deals rotated are 60 games: every engine hears them numbered 1..60 of
 * 60, and maxscore 350 x 60 (the old match said 60 games but maxscore
 * 350 x 20 = 7000, so a fault before the leftover cost 116). */
Test(cli_match, rotated_turn_info_counts_every_game, .init = init, .fini = fini)
{
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "A=exec:" TE " --log %s", scratch("info-A"));
    snprintf(b, sizeof b, "B=exec:" TE " --log %s", scratch("info-B"));
    snprintf(c, sizeof c, "C=exec:" TE " --log %s", scratch("info-C"));
    const char *args[] = {"--seat",  a,    "--seat",   b,        "--seat", c,
                          "--games", "20", "--rotate", "--time", "15",     NULL};
    ddz_match(args);
    expect_success(60);
    expect_info_lines(scratch("info-A"), 60, 21000, 15);
    expect_info_lines(scratch("info-B"), 60, 21000, 15);
    expect_info_lines(scratch("info-C"), 60, 21000, 15);
}

/* A fault before the leftover in a rotated turn costs the faulty seat 350
 * per other seat (spec §6), whichever seat the player holds. The others
 * bid 0, so the crasher is always asked to bid. */
Test(cli_match, rotated_early_fault_costs_350_per_seat, .init = init, .fini = fini)
{
    const char *args[] = {"--seat",   "A=exec:" TE " --name crasher --crash-at 1",
                          "--seat",   "B=exec:" TE,
                          "--seat",   "C=exec:" TE,
                          "--games",  "2",
                          "--time",   "5",
                          "--rotate", NULL};
    ddz_match(args);
    expect_success(6);
    for (int i = 0; i < nrecs; i++) {
        const ddz_record *r = &recs[i];
        int s = (3 - i % 3) % 3; /* player A's seat in rotation i % 3 */
        cr_assert_str_eq(r->names[s], "crasher", "game %d: '%s'", i + 1, r->names[s]);
        cr_assert_eq(r->fault_seat, s, "game %d: fault at seat %d", i + 1, r->fault_seat);
        cr_assert_eq(r->fault_kind, DDZ_FAULT_CRASH, "game %d", i + 1);
        cr_assert_eq(r->landlord, -1, "game %d: before the leftover", i + 1);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(r->scores[k], k == s ? -700 : 350, "game %d: %s scores %d", i + 1,
                         seat_name[k], r->scores[k]);
    }
    char row[200];
    table_row(0, row, sizeof row);
    cr_assert(strstr(row, " -4200 "), "6 x -700 for A: %s", row);
}

/* ---- spec §7: an engine may exit after the last game of its turn ---- */

static void no_crash(const char *line, void *ctx)
{
    (void)ctx;
    cr_assert_null(strstr(line, "crash"), "stderr: %s", line);
    cr_assert_null(strstr(line, "timeout"), "stderr: %s", line);
    cr_assert_null(strstr(line, "timed out"), "stderr: %s", line);
}

/* The leaver acknowledges the last GAMEOVER and exits 0. South acknowledges
 * that GAMEOVER only once the leaver has exited (--wait-eof on the FIFO the
 * leaver holds), and the match waits for every acknowledgement, so the
 * referee always sees the exit before it ends: that is no crash, nothing is
 * charged, and the match exits 0. */
Test(cli_match, an_engine_may_exit_after_the_last_game, .init = init, .fini = fini)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "A=exec:" TE " --name leaver --bid 1 --exit-after-gameover --hold %s",
             fifo);
    snprintf(b, sizeof b, "B=exec:" TE " --wait-eof %s", fifo);
    const char *args[] = {"--seat",  a,   "--seat", b,   "--seat", "C=exec:" TE,
                          "--games", "3", "--time", "5", NULL};
    ddz_match(args);
    expect_success(3);
    each_line(err, no_crash, NULL);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].fault_seat, -1, "game %d: %s charged", i + 1,
                     ddz_fault_name(recs[i].fault_kind));
        cr_assert_geq(recs[i].winner, 0, "game %d was played to its GAMEOVER", i + 1);
        cr_assert_str_eq(recs[i].names[0], "leaver", "'%s'", recs[i].names[0]);
    }
    for (int p = 0; p < 3; p++) {
        char row[200];
        table_row(p, row, sizeof row);
        cr_assert_eq(row_faults(row), 0, "%s", row);
    }
}

/* spec §7: "An engine that exits early is started again for the next
 * game, and the game it left counts as its fault." The leaver exits 0 right after
 * acknowledging the GAMEOVER of game 1 of 3, which is early; South
 * acknowledges that GAMEOVER only once the leaver has exited, so the
 * referee always sees the exit before game 2 starts. The exit is charged
 * as a crash to the next game, game 2, and to no other. */
Test(cli_match, an_engine_that_exits_before_the_last_game_is_charged_the_next, .init = init,
     .fini = fini)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "A=exec:" TE " --name leaver --bid 1 --exit-after-gameover=1 --hold %s",
             fifo);
    snprintf(b, sizeof b, "B=exec:" TE " --wait-eof=1 %s", fifo);
    const char *args[] = {"--seat",  a,   "--seat", b,   "--seat", "C=exec:" TE,
                          "--games", "3", "--time", "5", NULL};
    ddz_match(args);
    expect_success(3);
    cr_assert_eq(recs[0].fault_seat, -1, "game 1 was played out: %s", err);
    cr_assert_geq(recs[0].winner, 0);
    cr_assert_eq(recs[1].fault_seat, 0, "game 2 is charged to the leaver; stderr:\n%s", err);
    cr_assert_eq(recs[1].fault_kind, DDZ_FAULT_CRASH, "%s", ddz_fault_name(recs[1].fault_kind));
    cr_assert_eq(recs[2].fault_seat, -1, "game 3: restarted, it plays: %s", err);
    char row[200];
    table_row(0, row, sizeof row);
    cr_assert_eq(row_faults(row), 1, "%s", row);
}

/* ---- spec §7, §10: names ---- */

typedef struct names_ctx {
    const char *names[3]; /* one of them must be on every line */
    int lines;
} names_ctx;

static void names_an_engine(const char *line, void *ctx)
{
    names_ctx *n = ctx;
    n->lines++;
    bool named = false;
    for (int i = 0; i < 3 && n->names[i]; i++)
        named |= strstr(line, n->names[i]) != NULL;
    cr_assert(named, "this diagnostic names no engine (want '%s'%s%s): %s", n->names[0],
              n->names[1] ? " or " : "", n->names[1] ? n->names[1] : "", line);
    cr_assert_null(strstr(line, ":engine"), "a placeholder name: %s", line);
}

/* Engines that fail before answering DOUDIZHUVER have no NAME: records,
 * the results table and stderr name them by their command, never by a
 * placeholder such as "A:engine". */
Test(cli_match, an_engine_without_a_name_goes_by_its_command, .init = init, .fini = fini)
{
    const char *args[] = {"--seat",  "A=exec:false",
                          "--seat",  "B=ai:random",
                          "--seat",  "C=exec:sh -c 'exit 0'",
                          "--games", "2",
                          "--time",  "5",
                          NULL};
    ddz_match(args);
    expect_success(2);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_str_eq(recs[i].names[0], "false", "game %d: '%s'", i + 1, recs[i].names[0]);
        cr_assert_str_eq(recs[i].names[1], "ai:random", "game %d: '%s'", i + 1, recs[i].names[1]);
        cr_assert_str_eq(recs[i].names[2], "sh -c 'exit 0'", "game %d: '%s'", i + 1,
                         recs[i].names[2]);
        cr_assert(recs[i].fault_seat == 0 || recs[i].fault_seat == 2, "game %d", i + 1);
        cr_assert_eq(recs[i].fault_kind, DDZ_FAULT_CRASH, "game %d", i + 1);
    }
    char row[200];
    table_row(0, row, sizeof row);
    cr_assert(strncmp(row, "A      false ", 13) == 0, "%s", row);
    table_row(2, row, sizeof row);
    cr_assert(strstr(row, " sh -c 'exit 0' "), "%s", row);
    names_ctx n = {{"false", "sh -c 'exit 0'"}, 0};
    each_line(err, names_an_engine, &n);
    cr_assert_gt(n.lines, 0, "the crashes are reported");
}

/* One game; South, named "beta", misbehaves as `how` after saying its
 * NAME. Every diagnostic on stderr is about beta and must say so by that
 * name. */
static void diagnostics_name(const char *how, const char *time_s, int kind)
{
    char b[300];
    snprintf(b, sizeof b, "B=exec:" TE " --name beta %s", how);
    const char *args[] = {"--seat",  "A=exec:" TE " --name west --bid 3",
                          "--seat",  b,
                          "--seat",  "C=ai:random",
                          "--games", "1",
                          "--time",  time_s,
                          NULL};
    ddz_match(args);
    expect_success(1);
    cr_assert_eq(recs[0].fault_seat, 1, "beta is charged: %s", err);
    cr_assert_eq(recs[0].fault_kind, kind, "%s", ddz_fault_name(recs[0].fault_kind));
    cr_assert_str_eq(recs[0].names[1], "beta", "'%s'", recs[0].names[1]);
    names_ctx n = {{"beta"}, 0};
    each_line(err, names_an_engine, &n);
    cr_assert_gt(n.lines, 0, "the fault is reported");
}

Test(cli_match, a_crash_is_reported_with_the_engines_name, .init = init, .fini = fini)
{
    diagnostics_name("--crash-at 1", "5", DDZ_FAULT_CRASH);
}

Test(cli_match, a_protocol_fault_is_reported_with_the_engines_name, .init = init, .fini = fini)
{
    diagnostics_name("--garbage-at 1", "5", DDZ_FAULT_PROTOCOL);
}

Test(cli_match, an_illegal_play_is_reported_with_the_engines_name, .init = init, .fini = fini)
{
    diagnostics_name("--play-missing-at 1", "5", DDZ_FAULT_ILLEGAL);
}

Test(cli_match, a_timeout_is_reported_with_the_engines_name, .init = init, .fini = fini)
{
    diagnostics_name("--timeout-at 1", "2", DDZ_FAULT_TIMEOUT);
}

/* ---- spec §6: an illegal answer is charged at once ---- */

/* Three games under a 30 s clock in which South answers badly at once
 * every time: each game ends at the bad answer, so the match takes a
 * fraction of one clock, and the record says `kind`. */
static void charged_at_once(const char *south, const char *west, int kind)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "A=exec:" TE " %s", west);
    snprintf(b, sizeof b, "B=exec:" TE " %s", south);
    const char *args[] = {"--seat",  a,   "--seat", b,    "--seat", "C=exec:" TE,
                          "--games", "3", "--time", "30", NULL};
    ddz_match(args);
    expect_success(3);
    cr_assert_lt(elapsed_ms, BELOW(10000, 30000), "%ld ms: the clock (30 s) was waited for",
                 elapsed_ms);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].fault_seat, 1, "game %d", i + 1);
        cr_assert_eq(recs[i].fault_kind, kind, "game %d: %s, want %s", i + 1,
                     ddz_fault_name(recs[i].fault_kind), ddz_fault_name(kind));
    }
}

Test(cli_match, cards_not_held_are_charged_at_once, .init = init, .fini = fini)
{
    charged_at_once("--play-missing-at 1", "--bid 3", DDZ_FAULT_ILLEGAL);
}

Test(cli_match, a_pass_on_lead_is_charged_at_once, .init = init, .fini = fini)
{
    charged_at_once("--bid 3 --pass-on-lead-at 1", "", DDZ_FAULT_ILLEGAL);
}

Test(cli_match, a_bid_not_higher_is_charged_at_once, .init = init, .fini = fini)
{
    charged_at_once("--bid 1", "--bid 2", DDZ_FAULT_ILLEGAL);
}

/* "BID B9" is not a CAAI bid at all (one digit 0..3): a protocol fault,
 * charged as soon as it is read. */
Test(cli_match, a_bid_out_of_range_is_charged_at_once, .init = init, .fini = fini)
{
    charged_at_once("--bid 9", "", DDZ_FAULT_PROTOCOL);
}

/* ---- spec §8: the Botzone rule sets ---- */

/* True when the file at `path` holds `text`. */
static bool file_has(const char *path, const char *text)
{
    char *s = slurp(path);
    bool has = s && strstr(s, text);
    free(s);
    return has;
}

/* botzone-ftl: nobody is asked to bid, West is the landlord every game, the
 * scores are 2/0 plus play weights / 100 and the table prints decimals. */
Test(cli_match, botzone_ftl_has_no_bidding, .init = init, .fini = fini)
{
    char a[300];
    snprintf(a, sizeof a, "A=exec:" TE " --log %s", scratch("ftl-A"));
    const char *args[] = {"--seat",  a,   "--seat",  "B=exec:" TE,  "--seat", "C=ai:random",
                          "--games", "3", "--rules", "botzone-ftl", NULL};
    ddz_match(args);
    expect_success(3);
    cr_assert(strstr(out, "rules botzone-ftl"), "%s", out);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_str_eq(recs[i].rules, "botzone-ftl");
        cr_assert_eq(recs[i].nbids, 0, "game %d", i + 1);
        cr_assert_eq(recs[i].landlord, 0, "game %d", i + 1);
        cr_assert_geq(recs[i].winner, 0, "game %d: %s", i + 1, err);
        cr_assert_eq(recs[i].scores[1], recs[i].scores[2], "the farmers share their mean");
    }
    cr_assert(!file_has(scratch("ftl-A"), "BID"), "no BID line reaches an engine");
    cr_assert(file_has(scratch("ftl-A"), "LEFTOVER A"));
    char row[200];
    table_row(1, row, sizeof row);
    cr_assert(strchr(row, '.'), "farmers' totals have decimals: %s", row);
}

/* botzone-ftl2: West times out at its second request and South crashes at
 * its third; the game goes on, the referee playing for both (marked auto),
 * East hears GAMEOVER, not ERROR, and both engines are back for game 2. */
Test(cli_match, botzone_ftl2_plays_on_after_faults, .init = init, .fini = fini)
{
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "A=exec:" TE " --name slow --timeout-at 2 --log %s", scratch("ftl2-A"));
    snprintf(b, sizeof b, "B=exec:" TE " --name crashy --crash-at 3");
    snprintf(c, sizeof c, "C=exec:" TE " --log %s", scratch("ftl2-C"));
    const char *args[] = {"--seat", a,        "--seat", b,         "--seat",       c,   "--games",
                          "2",      "--time", "1",      "--rules", "botzone-ftl2", NULL};
    ddz_match(args);
    expect_success(2);
    for (int i = 0; i < nrecs; i++) {
        const ddz_record *r = &recs[i];
        cr_assert_str_eq(r->rules, "botzone-ftl2");
        cr_assert_eq(r->nfaults, 2, "game %d: %d faults; stderr:\n%s", i + 1, r->nfaults, err);
        cr_assert_eq(r->faults[0].seat, 0, "game %d", i + 1);
        cr_assert_eq(r->faults[0].kind, DDZ_FAULT_TIMEOUT, "game %d", i + 1);
        cr_assert_eq(r->faults[1].seat, 1, "game %d", i + 1);
        cr_assert_eq(r->faults[1].kind, DDZ_FAULT_CRASH, "game %d", i + 1);
        cr_assert_eq(r->fault_seat, 0, "`fault` is the first");
        cr_assert_geq(r->winner, 0, "game %d went on to a winner", i + 1);
        int standins = 0;
        for (int k = 0; k < r->nplays; k++)
            standins += r->plays[k].seat != 2 && r->plays[k].autopass;
        cr_assert_gt(standins, 0, "game %d: the referee played for the faulty seats", i + 1);
    }
    cr_assert(file_has(scratch("ftl2-C"), "GAMEOVER"), "East hears how the game ended");
    cr_assert(!file_has(scratch("ftl2-C"), "ERROR"), "no ERROR: the games went on");
    char row[200];
    table_row(0, row, sizeof row);
    cr_assert_eq(row_faults(row), 2, "one fault a game: %s", row);
}

/* What an A/B run printed last and what its records add up to. */
typedef struct sprt_run {
    long w, l, d, n;    /* the last "Score of" line */
    double llr, lo, hi; /* the last "LLR:" line */
    int score_lines;    /* "Score of" lines printed */
    long rw, rl, rd;    /* wins, losses, draws recounted from the records */
} sprt_run;

static void sprt_line(const char *line, void *ctx)
{
    sprt_run *r = ctx;
    const char *p;
    if (strncmp(line, "Score of ", 9) == 0 && (p = strrchr(line, ':'))) {
        cr_assert_eq(sscanf(p, ": %ld - %ld - %ld [%*f] %ld", &r->w, &r->l, &r->d, &r->n), 4, "%s",
                     line);
        r->score_lines++;
    } else if (strncmp(line, "LLR: ", 5) == 0) {
        cr_assert_eq(sscanf(line, "LLR: %lf (%lf, %lf)", &r->llr, &r->lo, &r->hi), 3, "%s", line);
    }
}

/* Parses the last run's output, and recounts its deal sets from the raw
 * records: every set is the candidate's three games then the baseline's
 * three, on the same deal (same seeds, same rotation), and player A's
 * total decides it. Player A sits at seat (3 - game % 3) % 3 (the
 * rotation of service/table/table.c). */
static sprt_run sprt_check(void)
{
    sprt_run r = {0};
    each_line(out, sprt_line, &r);
    cr_assert_eq(nrecs % 6, 0, "%d records: whole deal sets only", nrecs);
    FILE *f = fopen(logpath, "r");
    cr_assert_not_null(f);
    char *line = NULL;
    size_t cap = 0;
    double total[2] = {0, 0};
    char seed[3][65];
    for (int i = 0; getline(&line, &cap, f) > 0; i++) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert_not_null(j);
        int set = 0, game = -1;
        const char *side = "", *sd = "";
        json_t *scores = NULL;
        cr_assert_eq(json_unpack(j, "{s:{s:i, s:s}, s:i, s:s, s:o}", "sprt", "set", &set, "side",
                                 &side, "game", &game, "seed", &sd, "scores", &scores),
                     0, "record %d: %s", i + 1, line);
        int h = i % 6 / 3; /* 0: the candidate's games, 1: the baseline's */
        cr_assert_eq(set, i / 6 + 1, "record %d", i + 1);
        cr_assert_str_eq(side, h ? "baseline" : "candidate", "record %d", i + 1);
        cr_assert_eq(game, (i / 6) * 3 + i % 3, "record %d", i + 1);
        if (h == 0)
            snprintf(seed[i % 3], sizeof seed[0], "%s", sd);
        else
            cr_assert_str_eq(sd, seed[i % 3], "record %d: the baseline plays the same deal", i + 1);
        total[h] += json_number_value(json_array_get(scores, (size_t)((3 - game % 3) % 3)));
        if (i % 6 == 5) {
            r.rw += total[0] > total[1];
            r.rl += total[0] < total[1];
            r.rd += total[0] == total[1];
            total[0] = total[1] = 0;
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    cr_assert_eq(r.n, nrecs / 6, "the last line counts every set:\n%s", out);
    cr_assert_eq(r.score_lines, nrecs / 6, "one report per set:\n%s", out);
    cr_assert(r.w == r.rw && r.l == r.rl && r.d == r.rd,
              "printed %ld - %ld - %ld, records say %ld - %ld - %ld", r.w, r.l, r.d, r.rw, r.rl,
              r.rd);
    cr_assert_null(strchr(out, '\033'), "not a terminal: plain lines");
    return r;
}

static void expect_exit(int code)
{
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code, "status %#x, want exit %d:\n%s%s",
              status, code, out, err);
}

/* greedy beats random by some 1000 points a deal: a wide hypothesis
 * accepts H1 within a few dozen deal sets, and exits 0. */
Test(cli_match, sprt_accepts_h1_for_a_better_candidate, .init = init, .fini = fini)
{
    const char *args[] = {"--sprt",     "0,200",     "--seat", "A=ai:greedy",
                          "--baseline", "ai:random", NULL};
    ddz_match(args);
    expect_exit(0);
    sprt_run r = sprt_check();
    cr_assert_geq(r.llr, r.hi, "%s", out);
    cr_assert_float_eq(r.hi, 2.94, 0.005);
    cr_assert_gt(r.w, r.l);
    cr_assert_leq(r.n, 40, "stops quickly: %ld sets", r.n);
    cr_assert(strstr(out, "H1 accepted after"), "%s", out);
    cr_assert(strstr(out, "Score of ai:greedy vs ai:random:"), "%s", out);
    cr_assert(strstr(out, "baseline's games"), "both tables are printed:\n%s", out);
}

/* The same program on both sides, with the same seeds, plays every set
 * alike: all draws, and H0 (Elo 0) is accepted after three (the hand
 * computation is in test_sprt.c), exit 3. */
Test(cli_match, sprt_accepts_h0_for_identical_players, .init = init, .fini = fini)
{
    const char *args[] = {"--sprt",     "0,300",     "--seat", "A=ai:random",
                          "--baseline", "ai:random", NULL};
    ddz_match(args);
    expect_exit(3);
    sprt_run r = sprt_check();
    cr_assert(r.n == 3 && r.d == 3, "%s", out);
    cr_assert_leq(r.llr, r.lo);
    cr_assert(strstr(out, "H0 accepted after 3 deal sets (18 games)"), "%s", out);
}

/* A worse candidate: H0 too, seats B and C given explicitly. */
Test(cli_match, sprt_accepts_h0_for_a_worse_candidate, .init = init, .fini = fini)
{
    const char *args[] = {"--sprt",     "0,100,0.1,0.1", "--seat", "A=ai:random",
                          "--seat",     "B=ai:greedy",   "--seat", "C=ai:greedy",
                          "--baseline", "ai:greedy",     NULL};
    ddz_match(args);
    expect_exit(3);
    sprt_run r = sprt_check();
    cr_assert_leq(r.llr, r.lo);
    cr_assert_float_eq(r.lo, log(0.1 / 0.9), 0.005);
    cr_assert_gt(r.l, r.w, "%s", out);
}

/* --games bounds the deal sets: undecided, exit 4. */
Test(cli_match, sprt_stops_undecided_at_the_games_limit, .init = init, .fini = fini)
{
    const char *args[] = {"--sprt",    "0,200",   "--seat", "A=ai:greedy", "--baseline",
                          "ai:random", "--games", "2",      NULL};
    ddz_match(args);
    expect_exit(4);
    sprt_run r = sprt_check();
    cr_assert_eq(r.n, 2);
    cr_assert(r.llr > r.lo && r.llr < r.hi);
    cr_assert(strstr(out, "Undecided after 2 deal sets (12 games, the --games limit)"), "%s", out);
}

/* Bad --sprt usage: one line naming the problem, exit 2, no game. */
Test(cli_match, sprt_rejects_bad_arguments, .init = init, .fini = fini)
{
    const struct {
        const char *sprt, *a, *baseline, *says;
    } bad[] = {
        {"50", "A=ai:greedy", "ai:random", "--sprt takes ELO0,ELO1"},
        {"0,50,0.05", "A=ai:greedy", "ai:random", "--sprt takes ELO0,ELO1"},
        {"x,50", "A=ai:greedy", "ai:random", "decimal numbers"},
        {"50,0", "A=ai:greedy", "ai:random", "ELO0 must be below ELO1"},
        {"0,50,0.5,0.05", "A=ai:greedy", "ai:random", "ALPHA and BETA"},
        {"0,5000", "A=ai:greedy", "ai:random", "within -1000..1000"},
        {"0,50", "B=ai:greedy", "ai:random", "needs the candidate"},
        {"0,50", "A=ai:greedy", NULL, "needs --baseline"},
        {NULL, "A=ai:greedy", "ai:random", "--baseline needs --sprt"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[10];
        int n = 0;
        if (bad[i].sprt) {
            args[n++] = "--sprt";
            args[n++] = bad[i].sprt;
        }
        args[n++] = "--seat";
        args[n++] = bad[i].a;
        if (bad[i].baseline) {
            args[n++] = "--baseline";
            args[n++] = bad[i].baseline;
        }
        if (!bad[i].sprt) {
            args[n++] = "--seat";
            args[n++] = "B=ai:random";
            args[n++] = "--seat";
            args[n++] = "C=ai:random";
        }
        args[n] = NULL;
        ddz_match(args);
        expect_exit(2);
        cr_assert_eq(nrecs, 0);
        cr_assert(strstr(err, bad[i].says), "case %zu: %s", i, err);
        cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
    }
}
