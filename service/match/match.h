/* match.h - one table playing a turn of games locally: `ddz match`.
 *
 * Seats are CAAI engine processes (`exec:COMMAND LINE`), Botzone-protocol
 * bots (`botzone:COMMAND LINE`, SPEC 11) or hosted AIs (`ai:NAME`). The
 * match drives one referee with a poll(2) loop: engines are
 * spoken to in lock-step (one line out, its reply back, SPEC 7), every
 * interaction has the time limit, and any fault ends the game with its
 * penalty while the match goes on; a faulty engine is stopped and started
 * afresh for the next game.
 */
#ifndef DDZ_MATCH_H
#define DDZ_MATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "rules/deal.h"
#include "rules/ruleset.h"

typedef struct ddz_match_cfg {
    const char *spec[3];            /* players A, B, C: "exec:...", "botzone:...", "ai:..." */
    int games;                      /* deals to play (each three times with rotate) */
    bool rotate;                    /* duplicate: every deal with the players rotated */
    uint8_t master[DDZ_SEED_BYTES]; /* game k is dealt from ddz_deal_game_seed(master, k) */
    double time_s;                  /* seconds per interaction; 0 = the rule set's
                                       default (15 caai, 3 botzone-*) */
    int maxscore;                   /* INFO maxscore; 0 = the rule set's per-game maximum
                                       x the games played (x3 with rotate), so a fault
                                       before the leftover costs that maximum (SPEC 6) */
    const char *log_path;           /* JSONL game records (SPEC 10), NULL = none */
    const char *engine_log_dir;     /* engines' stderr files, NULL = discarded */
    const ddz_rules *rules;         /* NULL = caai */
    uint64_t ai_seed;               /* seed of the hosted AIs' random streams */
    FILE *diag;                     /* one line per fault and restart; NULL = silent */
} ddz_match_cfg;

typedef struct ddz_match_stats {
    char name[64]; /* the engine's NAME (UTF-8) or "ai:NAME" */
    long games;    /* games played */
    long landlord; /* games as landlord */
    long wins_landlord, wins_farmer;
    double score;  /* small-score total (ddz_score_add) */
    long faults;   /* games this player was charged with a fault */
    long restarts; /* times its engine was started again */
} ddz_match_stats;

typedef struct ddz_match ddz_match;

/* Checks `cfg` and starts nothing yet. Returns the match, or NULL with a
 * one-line reason in `err` (a bad seat spec, an unknown AI, a log file that
 * cannot be opened). */
ddz_match *ddz_match_create(const ddz_match_cfg *cfg, char *err, size_t errlen);

/* Plays every game. Returns 0, or DDZ_EIO if the log could not be written
 * (the games already logged are flushed). Engines are stopped on return. */
int ddz_match_run(ddz_match *m);

/* Returns player `i`'s (0..2 = A..C) totals so far. */
const ddz_match_stats *ddz_match_stats_of(const ddz_match *m, int i);

/* Returns the number of games played so far. */
long ddz_match_games_played(const ddz_match *m);

/* Prints the results table: per player name, games, wins as landlord and as
 * farmer, small-score total, faults. */
void ddz_match_print(const ddz_match *m, FILE *out);

/* Stops any engine still running and frees `m`; NULL is fine. */
void ddz_match_destroy(ddz_match *m);

#endif
