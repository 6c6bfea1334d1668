/* cli_match.c - command-line face of service/match. */
#include "service/cli/cli_match.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/cli/cli_args.h"
#include "service/match/match.h"
#include "proto/text.h"

static const char usage[] =
    "usage: ddz match --seat A=SPEC --seat B=SPEC --seat C=SPEC [--games N]\n"
    "                 [--seed HEX64] [--time SECONDS] [--log FILE] [--rotate]\n"
    "                 [--engine-logs DIR] [--maxscore N] [--rules NAME] [--quiet]\n"
    "\n"
    "Plays one turn of N games at one table and prints a results table.\n"
    "\n"
    "  --seat X=SPEC     the player at seat X (A = West, B = South, C = East):\n"
    "                      exec:COMMAND LINE  a CAAI 1.0 engine (run with /bin/sh)\n"
    "                      botzone:COMMAND LINE  a Botzone FightTheLandlord bot\n"
    "                                         (SPEC 11; one-shot or keep-running)\n"
    "                      ai:NAME            a hosted AI: random, greedy\n"
    "  --games N         deals to play (default 6)\n"
    "  --seed HEX64      master seed; game k is dealt from\n"
    "                    BLAKE2b(key=seed, \"ddz-deal\" || le32(k)) (default: random,\n"
    "                    printed so the match can be replayed)\n"
    "  --time SECONDS    time limit per interaction, decimals allowed (default 15,\n"
    "                    3 under the botzone-* rule sets)\n"
    "  --log FILE        write one JSON record per game (SPEC 10); check it with\n"
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
    "  --quiet           do not report faults and restarts on stderr\n";

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

int ddz_cli_match(int argc, char **argv)
{
    ddz_match_cfg cfg = {.games = 6, .diag = stderr};
    bool seeded = false;
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
