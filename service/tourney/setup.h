/* setup.h - what a tournament is made of before it runs: the players file,
 * the options, the settings kept in DIR/tournament.json, the draw. One
 * parser for `ddz tournament`'s command line and `ddz serve --tournament
 * DIR`'s DIR/options file, so both run the same tournament from the same
 * words.
 *
 * Players file: one player a line, ID=SPEC ('#' starts a comment line);
 * ID: letters, digits, '_', '-', '.' (1..32); SPEC: exec:COMMAND LINE,
 * botzone:COMMAND LINE, ai:NAME and, where the caller allows them (ddz
 * serve), engine:NAME (an operator engine) and bot:TOKENNAME (a remote bot
 * connected with that token's name through `ddz bridge --enlist`).
 *
 * Options: --format caai|swiss|finals, --turns N, --games N, --seed HEX64,
 * --time S, --tables N, --rules NAME, --cuts LIST (as `ddz tournament
 * --help` says), and --players FILE, --dir DIR, --quiet where the caller
 * allows them.
 */
#ifndef DDZ_TSETUP_H
#define DDZ_TSETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "service/tourney/director.h"

/* What a players file may hold beyond exec:, botzone: and ai:. */
enum { DDZ_TSETUP_REMOTE = 1 /* bot:NAME and engine:NAME (ddz serve) */ };

/* Options the command line has and DIR/options has not. */
enum { DDZ_TSETUP_CLI = 1 /* --players, --dir, --quiet */ };

typedef struct ddz_tsetup {
    /* the players */
    int n;
    char **ids;   /* [n] */
    char **specs; /* [n] */
    /* the options as given */
    const char *players, *dir; /* --players, --dir (CLI) */
    bool quiet;
    char format[8]; /* caai, swiss, finals */
    int turns, games, tables;
    double time_s; /* 0 = the rule set's default */
    bool seeded;   /* --seed given */
    char cuts[128];
    const ddz_rules *rules;
    /* the result (ddz_tsetup_finish) */
    ddz_director_cfg dc;
    char seed_hex[65];
} ddz_tsetup;

/* Sets the defaults. Never fails. */
void ddz_tsetup_init(ddz_tsetup *s);

/* Parses argv[0..argc) (argv[0] is an option, not a program name) under
 * `flags` (DDZ_TSETUP_CLI). Returns 0, or -1 with a one-line reason in
 * `err`. */
int ddz_tsetup_args(ddz_tsetup *s, int argc, char **argv, int flags, char *err, size_t errlen);

/* Reads an options file: the same options, any number a line, words split
 * on blanks, '#' lines are comments (no --players, --dir, --quiet). A
 * missing file is no options. Returns 0 or -1 with the reason in `err`. */
int ddz_tsetup_options_file(ddz_tsetup *s, const char *path, char *err, size_t errlen);

/* Reads the players file under `flags` (DDZ_TSETUP_REMOTE). Returns 0, -1
 * with "FILE:LINE: what is wrong" in `err`, or -2 when out of memory. */
int ddz_tsetup_players(ddz_tsetup *s, const char *path, int flags, char *err, size_t errlen);

/* Builds s->dc (options, rules, time, tables, seed, lots) and checks it
 * against DIR/tournament.json, or writes that file (a first run); the
 * seed comes from there when none was given. Returns 0 or -1 with the
 * reason in `err` (another tournament in DIR, a file that cannot be
 * written, --format finals with more than nine players). */
int ddz_tsetup_finish(ddz_tsetup *s, const char *dir, char *err, size_t errlen);

/* Frees the players. */
void ddz_tsetup_free(ddz_tsetup *s);

#endif
