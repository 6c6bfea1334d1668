/* caai_testengine.c - a scriptable CAAI 1.0 engine for referee tests.
 *
 * Reads CAAI lines on stdin and answers on stdout (spec §7), flushing after
 * every line. It tracks its own hand (DEAL, its LEFTOVER, its own plays) and
 * the play to beat (others' PLAY lines, passes, the lead returning after two
 * passes), and by default plays legally: the first move ddz_movegen() lists
 * (when following, the first play that beats the last one, else a pass) and
 * bids 0. Lines it cannot parse are reported on stderr and not answered.
 *
 * Misbehaviour is triggered at the K-th time the engine is asked to act
 * (each BID WHAT or PLAY WHAT counts as one "ask", from 1), so a test can
 * aim it at one precise moment. K is the next argument or "=K"; left out, it
 * is 1.
 *
 *   --name NAME          answer DOUDIZHUVER with NAME (default "testengine")
 *   --gbk-name           answer with a GBK-encoded name (测试引擎 in GBK)
 *   --bid N              always bid N, even when illegal (any integer)
 *   --timeout-at K       at ask K, stop answering and sleep forever
 *   --pass-on-lead-at K  at the first PLAY WHAT on lead from ask K on, pass
 *   --play-missing-at K  at the first PLAY WHAT from ask K on, play one card
 *                        it does not hold (the lowest such code)
 *   --garbage-at K       at ask K, answer "XYZZY 42" (no CAAI keyword)
 *   --wrong-seat-at K    at ask K, answer normally but with the next seat's
 *                        letter
 *   --crash-at K         at ask K, exit(3) without answering
 *   --abort-at K         at ask K, abort() (dies by SIGABRT)
 *   --flood-at K         at ask K, write output without newlines forever
 *   --ignore-eof         when stdin closes, spin in a busy loop instead of
 *                        exiting (the referee must kill it)
 *   --ignore-term        ignore SIGTERM (only SIGKILL ends it)
 *   --term-log FILE      on SIGTERM, append "TERM\n" to FILE and exit 0 (a
 *                        test sees that the referee asked before it killed)
 *   --ready-log FILE     once the options are in force (signals included),
 *                        append "READY\n" to FILE
 *   --bad-ack            answer "ERROR d" (echoing the faulty seat, like the
 *                        seed's 02.cpp engine) instead of "OK ERROR"
 *   --log FILE           append every line received, as received, to FILE
 *
 * Leaving between games, and ordering that in time without sleeping. G is a
 * game number as the last INFO gave it (from 1), written "=G"; left out, it
 * is that INFO's last game of the turn.
 *
 *   --exit-after-gameover[=G]  right after acknowledging the GAMEOVER of game
 *                        G, exit(0) (spec §7 allows it after the last game)
 *   --hold FIFO          open FIFO read-write at start and keep it open until
 *                        exit, so that its end of file tells a --wait-eof
 *                        engine that this one has exited
 *   --wait-eof[=G] FIFO  open FIFO at start (without waiting for a writer);
 *                        before acknowledging the GAMEOVER of game G, read
 *                        it until end of file: until every --hold engine on
 *                        it has exited (at once if they all have). A referee
 *                        that waits for every acknowledgement before the
 *                        next game, or the end, has then seen them exit.
 *
 * Exit status: 0 at end of input or --exit-after-gameover, 2 for bad usage,
 * 3 for --crash-at.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/caai.h"
#include "rules/error.h"
#include "rules/movegen.h"

enum fault {
    F_TIMEOUT,
    F_PASS_ON_LEAD,
    F_PLAY_MISSING,
    F_GARBAGE,
    F_WRONG_SEAT,
    F_CRASH,
    F_ABORT,
    F_FLOOD,
    NFAULTS
};

static const char *const fault_option[NFAULTS] = {
    "--timeout-at",    "--pass-on-lead-at", "--play-missing-at", "--garbage-at",
    "--wrong-seat-at", "--crash-at",        "--abort-at",        "--flood-at",
};

/* 测试引擎 ("test engine") in GBK, checked with iconv -f UTF-8 -t GBK. */
static const char gbk_name[] = "\xB2\xE2\xCA\xD4\xD2\xFD\xC7\xE6";

typedef struct engine {
    const char *name; /* what NAME answers */
    int bid;          /* what BID WHAT answers */
    bool ignore_eof;
    bool bad_ack;
    FILE *log;           /* --log, or NULL */
    bool exit_after;     /* --exit-after-gameover given */
    int exit_game;       /* its G, 0 = the last game */
    int wait_fd;         /* --wait-eof FIFO, -1 if not given */
    int wait_game;       /* its G, 0 = the last game */
    int game, games;     /* from the last INFO, 0 before */
    long at[NFAULTS];    /* ask number that triggers each fault, 0 = off */
    bool fired[NFAULTS]; /* the deferred faults fire once */
    long asked;          /* BID WHAT and PLAY WHAT seen so far */
    int seat;            /* own seat from DEAL, -1 before */
    ddz_cards hand;      /* cards held now */
    ddz_combo last;      /* play to beat, DDZ_PASS when leading */
    int last_seat;       /* who made it, -1 when leading */
    ddz_move moves[DDZ_MOVES_MAX];
} engine;

/* --term-log: the file SIGTERM is written to, -1 when not asked. */
static int term_log_fd = -1;
/* --ready-log: the file told when the options are in force, or NULL. */
static const char *ready_log;

static void on_term(int sig)
{
    (void)sig;
    ssize_t n = write(term_log_fd, "TERM\n", 5);
    (void)n;
    _exit(0);
}

static void usage(void)
{
    fputs("usage: caai_testengine [--name NAME] [--gbk-name] [--bid N] [--OPTION-at [K]]...\n"
          "       [--ignore-eof] [--ignore-term] [--term-log FILE]\n"
          "       [--ready-log FILE] [--bad-ack] [--log FILE]\n"
          "       [--exit-after-gameover[=G]] [--hold FIFO] [--wait-eof[=G] FIFO]\n"
          "(see the comment at the top of tests/service/caai_testengine.c)\n",
          stderr);
    exit(2);
}

static bool is_number(const char *s)
{
    if (*s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Parses the "=G" after an option's `n` leading bytes into *game (0 when
 * there is none). Returns false if what follows is neither nothing nor
 * "=G" with G >= 1. */
static bool game_suffix(const char *a, size_t n, int *game)
{
    *game = 0;
    if (a[n] == '\0')
        return true;
    if (a[n] != '=' || !is_number(a + n + 1) || atoi(a + n + 1) < 1)
        return false;
    *game = atoi(a + n + 1);
    return true;
}

static bool has_prefix(const char *a, const char *opt)
{
    size_t n = strlen(opt);
    return strncmp(a, opt, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static void parse_options(engine *e, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (has_prefix(a, "--exit-after-gameover")) {
            if (!game_suffix(a, strlen("--exit-after-gameover"), &e->exit_game))
                usage();
            e->exit_after = true;
        } else if (has_prefix(a, "--wait-eof")) {
            if (!game_suffix(a, strlen("--wait-eof"), &e->wait_game) || i + 1 >= argc)
                usage();
            /* non-blocking: a FIFO opened for reading does not wait for a
             * writer then; wait_eof() makes it blocking */
            e->wait_fd = open(argv[++i], O_RDONLY | O_NONBLOCK);
            if (e->wait_fd < 0) {
                perror(argv[i]);
                exit(2);
            }
        } else if (strcmp(a, "--hold") == 0 && i + 1 < argc) {
            /* read-write: opening a FIFO so never blocks, and the fd is never
             * read; it is closed by exit */
            if (open(argv[++i], O_RDWR) < 0) {
                perror(argv[i]);
                exit(2);
            }
        } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
            e->name = argv[++i];
        } else if (strcmp(a, "--gbk-name") == 0) {
            e->name = gbk_name;
        } else if (strcmp(a, "--bid") == 0 && i + 1 < argc && is_number(argv[i + 1])) {
            e->bid = atoi(argv[++i]);
        } else if (strcmp(a, "--ignore-eof") == 0) {
            e->ignore_eof = true;
        } else if (strcmp(a, "--ignore-term") == 0) {
            signal(SIGTERM, SIG_IGN);
        } else if (strcmp(a, "--term-log") == 0 && i + 1 < argc) {
            term_log_fd = open(argv[++i], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
            if (term_log_fd < 0) {
                perror(argv[i]);
                exit(2);
            }
            signal(SIGTERM, on_term);
        } else if (strcmp(a, "--ready-log") == 0 && i + 1 < argc) {
            ready_log = argv[++i];
        } else if (strcmp(a, "--bad-ack") == 0) {
            e->bad_ack = true;
        } else if (strcmp(a, "--log") == 0 && i + 1 < argc) {
            e->log = fopen(argv[++i], "a");
            if (!e->log) {
                perror(argv[i]);
                exit(2);
            }
        } else {
            int f = 0;
            size_t n = 0;
            for (; f < NFAULTS; f++) {
                n = strlen(fault_option[f]);
                if (strncmp(a, fault_option[f], n) == 0 && (a[n] == '\0' || a[n] == '='))
                    break;
            }
            if (f == NFAULTS)
                usage();
            const char *k = NULL;
            if (a[n] == '=')
                k = a + n + 1;
            else if (i + 1 < argc && is_number(argv[i + 1]))
                k = argv[++i];
            e->at[f] = k ? atol(k) : 1;
            if (e->at[f] < 1)
                usage();
        }
    }
}

/* Writes one line and flushes: the referee waits for whole lines. */
static void say(const char *line)
{
    printf("%s\n", line);
    fflush(stdout);
}

static void say_msg(const ddz_caai_msg *m)
{
    char buf[DDZ_CAAI_FORMAT_MAX];
    if (ddz_caai_format(m, buf, sizeof buf) < 0) {
        fputs("testengine: cannot format an answer\n", stderr);
        exit(4);
    }
    say(buf);
}

static void say_ok(int of)
{
    ddz_caai_msg m = {.kind = DDZ_CAAI_OK, .ok_of = (uint8_t)of};
    say_msg(&m);
}

static bool due(const engine *e, int f)
{
    return e->at[f] != 0 && e->asked == e->at[f];
}

static bool armed(const engine *e, int f)
{
    return e->at[f] != 0 && e->asked >= e->at[f] && !e->fired[f];
}

/* Records a play of `seat` (0 = pass) the way the rules do: a pass by the
 * seat before the last player hands the lead back to that player. Applying
 * the same line twice changes nothing, so an echo of its own play is
 * harmless. */
static void apply_play(engine *e, int seat, ddz_cards cards)
{
    if (cards == 0) {
        if (e->last_seat >= 0 && (seat + 1) % 3 == e->last_seat) {
            e->last.type = DDZ_PASS;
            e->last_seat = -1;
        }
        return;
    }
    e->last = ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(cards));
    e->last_seat = seat;
    if (seat == e->seat)
        e->hand &= ~cards;
}

static bool leading(const engine *e)
{
    return e->last.type == DDZ_PASS;
}

/* The default choice: the generator's first move. When following, the
 * pass comes last in its list, so the first move beats `last` if any does. */
static ddz_cards choose_play(engine *e)
{
    const ddz_combo *last = leading(e) ? NULL : &e->last;
    int n = ddz_movegen(&ddz_rules_caai, ddz_cards_ranks(e->hand), last, e->moves, DDZ_MOVES_MAX);
    if (n == DDZ_ENOSPC)
        n = DDZ_MOVES_MAX;
    if (n <= 0)
        return 0;
    return ddz_cards_pick(e->hand, e->moves[0].ranks);
}

/* Handles the misbehaviours that do not depend on the question asked.
 * Returns only if none fired. */
static void common_faults(engine *e)
{
    if (due(e, F_TIMEOUT))
        for (;;)
            pause();
    if (due(e, F_CRASH))
        exit(3);
    if (due(e, F_ABORT))
        abort();
    if (due(e, F_GARBAGE)) {
        say("XYZZY 42");
        return;
    }
    if (due(e, F_FLOOD)) {
        static char block[65536];
        memset(block, 'x', sizeof block);
        for (;;)
            if (write(STDOUT_FILENO, block, sizeof block) < 0)
                exit(5); /* the reader is gone */
    }
}

static int answer_seat(const engine *e)
{
    return due(e, F_WRONG_SEAT) ? (e->seat + 1) % 3 : e->seat;
}

static void on_bid_what(engine *e)
{
    e->asked++;
    if (due(e, F_GARBAGE) || due(e, F_TIMEOUT) || due(e, F_CRASH) || due(e, F_ABORT) ||
        due(e, F_FLOOD)) {
        common_faults(e);
        return;
    }
    /* printf, not ddz_caai_format: --bid may ask for a bid CAAI cannot hold */
    printf("BID %c%d\n", "ABC"[answer_seat(e)], e -> bid);
    fflush(stdout);
}

static void on_play_what(engine *e)
{
    e->asked++;
    if (due(e, F_GARBAGE) || due(e, F_TIMEOUT) || due(e, F_CRASH) || due(e, F_ABORT) ||
        due(e, F_FLOOD)) {
        common_faults(e);
        return;
    }
    ddz_cards play;
    if (armed(e, F_PLAY_MISSING)) {
        e->fired[F_PLAY_MISSING] = true;
        play = 1ULL << __builtin_ctzll(~e->hand); /* hands hold at most 20 of 54 */
        ddz_caai_msg m = {.kind = DDZ_CAAI_PLAY, .seat = (int8_t)answer_seat(e), .cards = play};
        say_msg(&m);
        return;
    }
    if (leading(e) && armed(e, F_PASS_ON_LEAD)) {
        e->fired[F_PASS_ON_LEAD] = true;
        play = 0;
    } else {
        play = choose_play(e);
    }
    apply_play(e, e->seat, play);
    ddz_caai_msg m = {.kind = DDZ_CAAI_PLAY, .seat = (int8_t)answer_seat(e), .cards = play};
    say_msg(&m);
}

/* Returns true if the current game is game `g` (0 = the last of the turn). */
static bool is_game(const engine *e, int g)
{
    return e->game > 0 && e->game == (g ? g : e->games);
}

/* Reads the FIFO `fd` until end of file: until no process holds it for
 * writing. */
static void wait_eof(int fd)
{
    char buf[64];
    if (fcntl(fd, F_SETFL, 0) < 0) {
        perror("fcntl");
        exit(4);
    }
    while (read(fd, buf, sizeof buf) > 0)
        ;
}

static void handle(engine *e, const ddz_caai_msg *m)
{
    char line[DDZ_CAAI_FORMAT_MAX + 8];
    switch (m->kind) {
    case DDZ_CAAI_VERSION:
        snprintf(line, sizeof line, "NAME %s", e->name);
        say(line);
        return;
    case DDZ_CAAI_INFO:
        e->game = m->info.game;
        e->games = m->info.games;
        say_ok(DDZ_CAAI_INFO);
        return;
    case DDZ_CAAI_DEAL:
        e->seat = m->seat;
        e->hand = m->cards;
        e->last.type = DDZ_PASS;
        e->last_seat = -1;
        say_ok(DDZ_CAAI_DEAL);
        return;
    case DDZ_CAAI_BID:
        say_ok(DDZ_CAAI_BID);
        return;
    case DDZ_CAAI_BID_WHAT:
        on_bid_what(e);
        return;
    case DDZ_CAAI_LEFTOVER:
        if (m->seat == e->seat)
            e->hand |= m->cards;
        e->last.type = DDZ_PASS; /* the landlord leads */
        e->last_seat = -1;
        say_ok(DDZ_CAAI_LEFTOVER);
        return;
    case DDZ_CAAI_PLAY_WHAT:
        on_play_what(e);
        return;
    case DDZ_CAAI_PLAY:
        apply_play(e, m->seat, m->cards);
        say_ok(DDZ_CAAI_PLAY);
        return;
    case DDZ_CAAI_GAMEOVER:
        if (e->wait_fd >= 0 && is_game(e, e->wait_game))
            wait_eof(e->wait_fd);
        say_ok(DDZ_CAAI_GAMEOVER);
        if (e->exit_after && is_game(e, e->exit_game))
            exit(0);
        return;
    case DDZ_CAAI_ERROR:
        if (e->bad_ack) {
            snprintf(line, sizeof line, "ERROR %c", "ABC"[m->seat]);
            say(line);
        } else {
            say_ok(DDZ_CAAI_ERROR);
        }
        return;
    default: /* NAME and OK are engine messages: a referee never sends them */
        fprintf(stderr, "testengine: ignoring %s line\n", ddz_caai_keyword(m->kind));
        return;
    }
}

int main(int argc, char **argv)
{
    static engine e = {.name = "testengine", .seat = -1, .last_seat = -1, .wait_fd = -1};
    e.last.type = DDZ_PASS;
    parse_options(&e, argc, argv);
    if (ready_log) {
        int fd = open(ready_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, "READY\n", 6) != 6) {
            perror(ready_log);
            exit(2);
        }
        close(fd);
    }

    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (e.log) {
            fwrite(line, 1, (size_t)n, e.log);
            if (n == 0 || line[n - 1] != '\n')
                fputc('\n', e.log);
            fflush(e.log);
        }
        ddz_caai_msg m;
        char err[200];
        if (ddz_caai_parse(line, (size_t)n, &m, err, sizeof err) < 0) {
            fprintf(stderr, "testengine: %s\n", err);
            continue;
        }
        handle(&e, &m);
    }
    free(line);
    if (e.ignore_eof) {
        /* volatile, so the compiler keeps the loop burning CPU as a buggy
         * engine would */
        volatile unsigned long spin = 0;
        for (;;)
            spin++;
    }
    return 0;
}
