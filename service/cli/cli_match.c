/* cli_match.c - command-line face of service/match. */
#include "service/cli/cli_match.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto/text.h"
#include "rules/error.h"
#include "service/cli/cli_args.h"
#include "service/match/match.h"
#include "service/match/sprt.h"

/* Exit statuses of `ddz match --sprt` besides 0 (H1 accepted), 1 (an
 * error) and 2 (bad usage). */
enum { EXIT_H0 = 3, EXIT_UNDECIDED = 4 };

/* Deal sets an SPRT plays at most without --games. */
enum { SPRT_DEFAULT_SETS = 10000 };

static const char usage[] =
    "usage: ddz match --seat A=SPEC --seat B=SPEC --seat C=SPEC [--games N]\n"
    "                 [--seed HEX64] [--time SECONDS] [--log FILE] [--rotate]\n"
    "                 [--engine-logs DIR] [--maxscore N] [--rules NAME] [--quiet]\n"
    "       ddz match --sprt ELO0,ELO1[,ALPHA,BETA] --seat A=SPEC --baseline SPEC\n"
    "                 [--seat B=SPEC] [--seat C=SPEC] [--games N] [other options]\n"
    "\n"
    "Plays one turn of N games at one table and prints a results table.\n"
    "\n"
    "With --sprt, an A/B test: the candidate (seat A) and the baseline play\n"
    "duplicate deal sets until a sequential probability ratio test decides.\n"
    "A deal set is one deal played three times (rotated) with the candidate as\n"
    "player A and three times with the baseline in its place, against the same\n"
    "players B and C (default: the baseline); the candidate wins the set when\n"
    "its small-score total beats the baseline's. Elo E means an expected\n"
    "set score (wins + draws / 2) of 1 / (1 + 10^(-E/400)); H0 is Elo = ELO0,\n"
    "H1 is Elo = ELO1 (fishtest's GSPRT; docs/decisions.md). The score, the Elo\n"
    "estimate and the LLR are printed after every set (in place on a terminal).\n"
    "Exit status: 0 H1 accepted, 3 H0 accepted, 4 undecided after --games deal\n"
    "sets, 1 error, 2 bad usage.\n"
    "\n"
    "  --seat X=SPEC     the player at seat X (A = West, B = South, C = East):\n"
    "                      exec:COMMAND LINE  a CAAI 1.0 engine (run with /bin/sh)\n"
    "                      botzone:COMMAND LINE  a Botzone FightTheLandlord bot\n"
    "                                         (spec §11; one-shot or keep-running)\n"
    "                      ai:NAME            a hosted AI: random, greedy, strong\n"
    "  --games N         deals to play (default 6)\n"
    "  --seed HEX64      master seed; game k is dealt from\n"
    "                    BLAKE2b(key=seed, \"ddz-deal\" || le32(k)) (default: random,\n"
    "                    printed so the match can be replayed)\n"
    "  --time SECONDS    time limit per interaction, decimals allowed (default 15,\n"
    "                    3 under the botzone-* rule sets)\n"
    "  --log FILE        write one JSON record per game (spec §10); check it with\n"
    "                    'ddz verify FILE'\n"
    "  --rotate          play every deal three times with the players rotated, so\n"
    "                    each holds every hand (duplicate); totals are per player\n"
    "  --engine-logs DIR append each engine's stderr to DIR/player-X.stderr.log\n"
    "                    (default: discarded)\n"
    "  --maxscore N      INFO maxscore; a fault before the leftover costs N / G,\n"
    "                    G = the games played (N deals, 3 x N with --rotate);\n"
    "                    default 350 x G, so that it costs 350\n"
    "  --rules NAME      rule set: caai (default), botzone-ftl (no bidding, West is\n"
    "                    landlord, scores 2/0 + play weights), botzone-ftl2 (bidding;\n"
    "                    after a fault the referee plays for the faulty seat)\n"
    "  --quiet           do not report faults and restarts on stderr\n"
    "  --sprt ELO0,ELO1[,ALPHA,BETA]\n"
    "                    A/B test (above); ALPHA and BETA, the error rates,\n"
    "                    default to 0.05; --games N is then the most deal sets\n"
    "                    to play (default 10000)\n"
    "  --baseline SPEC   the player the candidate is compared with (default:\n"
    "                    seat B's SPEC)\n";

/* Checks that `dir` is a directory this process may create files in, as
 * the engines' logs need. Returns 0, or ddz_cli_usage()'s 2 after one line
 * naming the option, the directory and what is wrong with it: a bad
 * directory must stop the match before its first game, or every engine
 * would fail to start and each game be charged to seat A as a crash. */
static int check_log_dir(const char *dir)
{
    const char *why = NULL;
    struct stat st;
    if (stat(dir, &st) < 0)
        why = errno == ENOENT ? "no such directory" : strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a directory";
    else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
        why = errno == EROFS ? "read-only file system" : "not writable";
    if (!why)
        return 0;
    char shown[256], what[400];
    snprintf(shown, sizeof shown, "%s", dir);
    for (char *p = shown; *p; p++) /* the message stays one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    snprintf(what, sizeof what, "--engine-logs %s: %s", shown, why);
    return ddz_cli_usage("match", what);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Writes `x` as "%.1f", or "inf" / "-inf". */
static const char *num1(double x, char *buf, size_t len)
{
    if (isinf(x))
        snprintf(buf, len, "%s", x > 0 ? "inf" : "-inf");
    else
        snprintf(buf, len, "%.1f", fabs(x) < 0.05 ? 0.0 : x); /* never "-0.0" */
    return buf;
}

/* Prints the running report of an SPRT: three lines, as cutechess-cli and
 * fishtest show them. On a terminal every report after the first
 * overwrites the one before (`again`). */
static void sprt_report(const ddz_match *m, const ddz_sprt *t, long w, long d, long l, bool again,
                        bool tty)
{
    enum { NAME_COLS = 32 };
    const char *name[2] = {ddz_match_stats_of(m, 0)->name, ddz_match_stats_of(m, 3)->name};
    int cut[2];
    for (int i = 0; i < 2; i++) {
        size_t width;
        cut[i] = (int)ddz_text_fit_width(name[i], NAME_COLS, &width);
    }
    ddz_sprt_elo e = ddz_sprt_estimate(w, d, l);
    double lower, upper, llr = ddz_sprt_llr(t, w, d, l);
    ddz_sprt_bounds(t->alpha, t->beta, &lower, &upper);
    char elo[32], margin[32];
    const char *eol = tty ? "\033[K\n" : "\n"; /* a shorter line clears the longer one */
    if (again && tty)
        fputs("\033[3F", stdout); /* back to the first of the three lines */
    printf("Score of %.*s vs %.*s: %ld - %ld - %ld  [%.3f] %ld%s", cut[0], name[0], cut[1], name[1],
           w, l, d, e.score, w + d + l, eol);
    printf("Elo difference: %s +/- %s, LOS: %.1f %%, DrawRatio: %.1f %%%s",
           num1(e.elo, elo, sizeof elo), num1(e.margin, margin, sizeof margin), e.los * 100,
           e.draw_ratio * 100, eol);
    printf("LLR: %.2f (%.2f, %.2f) [%.2f, %.2f]%s", llr, lower, upper, t->elo0, t->elo1, eol);
    fflush(stdout);
}

/* Plays deal sets until the test decides or --games sets are played.
 * Returns the exit status. */
static int run_sprt(ddz_match *m, const ddz_match_cfg *cfg, const ddz_sprt *t)
{
    bool tty = isatty(STDOUT_FILENO);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long w = 0, d = 0, l = 0;
    enum ddz_sprt_verdict v = DDZ_SPRT_CONTINUE;
    int rc;
    double cand, base;
    while (v == DDZ_SPRT_CONTINUE && (rc = ddz_match_play_set(m, &cand, &base)) == 1) {
        w += cand > base;
        l += cand < base;
        d += cand == base;
        sprt_report(m, t, w, d, l, w + d + l > 1, tty);
        v = ddz_sprt_verdict(t, w, d, l);
    }
    ddz_match_stop(m);
    double secs = seconds_since(&t0);
    if (v == DDZ_SPRT_CONTINUE && rc < 0) {
        ddz_match_print(m, stdout);
        fprintf(stderr, "ddz match: cannot write %s\n", cfg->log_path);
        return 1;
    }
    const char *what = v == DDZ_SPRT_H1   ? "H1 accepted"
                       : v == DDZ_SPRT_H0 ? "H0 accepted"
                                          : "Undecided";
    printf("%s after %ld deal set%s (%ld games%s) in %.1f s\n", what, w + d + l,
           w + d + l == 1 ? "" : "s", ddz_match_games_played(m),
           v == DDZ_SPRT_CONTINUE ? ", the --games limit" : "", secs);
    ddz_match_print(m, stdout);
    return v == DDZ_SPRT_H1 ? 0 : v == DDZ_SPRT_H0 ? EXIT_H0 : EXIT_UNDECIDED;
}

int ddz_cli_match(int argc, char **argv)
{
    ddz_match_cfg cfg = {.games = 6, .diag = stderr};
    bool seeded = false, sprt_on = false, games_given = false;
    ddz_sprt sprt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--rotate") == 0) {
            cfg.rotate = true;
        } else if (strcmp(a, "--quiet") == 0) {
            cfg.diag = NULL;
        } else if (!v) {
            return ddz_cli_usage("match", "missing value or unknown option");
        } else if (strcmp(a, "--seat") == 0) {
            if (!((v[0] >= 'A' && v[0] <= 'C') || (v[0] >= 'a' && v[0] <= 'c')) || v[1] != '=')
                return ddz_cli_usage("match", "--seat takes A=SPEC, B=SPEC or C=SPEC");
            cfg.spec[(v[0] | 0x20) - 'a'] = v + 2;
            i++;
        } else if (strcmp(a, "--games") == 0) {
            if (ddz_cli_int(v, 1, 10000000, &cfg.games) < 0)
                return ddz_cli_usage("match", "--games must be a whole number from 1");
            games_given = true;
            i++;
        } else if (strcmp(a, "--sprt") == 0) {
            char why[200];
            if (ddz_sprt_parse(v, &sprt, why, sizeof why) < 0)
                return ddz_cli_usage("match", why);
            sprt_on = true;
            i++;
        } else if (strcmp(a, "--baseline") == 0) {
            cfg.baseline = v;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (ddz_text_parse_seed(v, cfg.master) < 0)
                return ddz_cli_usage("match", "--seed must be 64 hexadecimal characters");
            seeded = true;
            i++;
        } else if (strcmp(a, "--time") == 0) {
            if (ddz_cli_double(v, 0, 86400, &cfg.time_s) < 0 || cfg.time_s == 0)
                return ddz_cli_usage("match", "--time must be a positive number of seconds");
            i++;
        } else if (strcmp(a, "--log") == 0) {
            cfg.log_path = v;
            i++;
        } else if (strcmp(a, "--engine-logs") == 0) {
            cfg.engine_log_dir = v;
            i++;
        } else if (strcmp(a, "--rules") == 0) {
            if (!(cfg.rules = ddz_rules_find(v))) {
                char what[200];
                snprintf(what, sizeof what, "--rules: unknown rule set (known: %s)",
                         ddz_rules_names());
                return ddz_cli_usage("match", what);
            }
            i++;
        } else if (strcmp(a, "--maxscore") == 0) {
            if (ddz_cli_int(v, 1, 100000000, &cfg.maxscore) < 0)
                return ddz_cli_usage("match", "--maxscore must be a positive whole number");
            i++;
        } else {
            return ddz_cli_usage("match", "unknown option");
        }
    }
    if (cfg.baseline && !sprt_on)
        return ddz_cli_usage("match", "--baseline needs --sprt");
    if (sprt_on) {
        if (!cfg.spec[0])
            return ddz_cli_usage("match", "--sprt needs the candidate: --seat A=SPEC");
        if (!cfg.baseline && !(cfg.baseline = cfg.spec[1]))
            return ddz_cli_usage("match", "--sprt needs --baseline SPEC (or --seat B=SPEC)");
        for (int s = 1; s < 3; s++)
            if (!cfg.spec[s])
                cfg.spec[s] = cfg.baseline;
        if (!games_given)
            cfg.games = SPRT_DEFAULT_SETS;
    }
    for (int s = 0; s < 3; s++)
        if (!cfg.spec[s])
            return ddz_cli_usage("match",
                                 "all three seats are required: --seat A=… --seat B=… --seat C=…");
    if (cfg.engine_log_dir && check_log_dir(cfg.engine_log_dir) != 0)
        return 2;
    if (!seeded)
        randombytes_buf(cfg.master, sizeof cfg.master);
    cfg.ai_seed = (uint64_t)cfg.master[0] | (uint64_t)cfg.master[1] << 8 |
                  (uint64_t)cfg.master[2] << 16 | (uint64_t)cfg.master[3] << 24;

    char err[300], hex[65];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    if (!m) {
        fprintf(stderr, "ddz match: %s\n", err);
        return 1;
    }
    ddz_text_format_seed(cfg.master, hex);
    if (sprt_on) {
        printf("seed %s, SPRT [%.2f, %.2f] alpha %g beta %g, at most %d deal set%s (6 games "
               "each)%s%s\n",
               hex, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, cfg.games,
               cfg.games == 1 ? "" : "s", cfg.rules ? ", rules " : "",
               cfg.rules ? cfg.rules->name : "");
        fflush(stdout);
        int st = run_sprt(m, &cfg, &sprt);
        ddz_match_destroy(m);
        return st;
    }
    printf("seed %s, %d game%s%s%s%s\n", hex, cfg.games * (cfg.rotate ? 3 : 1),
           cfg.games * (cfg.rotate ? 3 : 1) == 1 ? "" : "s", cfg.rotate ? " (rotated)" : "",
           cfg.rules ? ", rules " : "", cfg.rules ? cfg.rules->name : "");
    int rc = ddz_match_run(m);
    ddz_match_print(m, stdout);
    if (rc < 0)
        fprintf(stderr, "ddz match: cannot write %s\n", cfg.log_path);
    ddz_match_destroy(m);
    return rc < 0 ? 1 : 0;
}
