/* match.h - one table playing a turn of games locally: `ddz match`.
 *
 * Seats are CAAI engine processes (`exec:COMMAND LINE`), Botzone-protocol
 * bots (`botzone:COMMAND LINE`, spec §11) or hosted AIs (`ai:NAME`). The
 * match drives one referee with a poll(2) loop: engines are
 * spoken to in lock-step (one line out, its reply back, spec §7), every
 * interaction has the time limit, and any fault ends the game with its
 * penalty while the match goes on; a faulty engine is stopped and started
 * afresh for the next game.
 *
 * An A/B match (`cfg.baseline`, `ddz match --sprt`) compares two players
 * on duplicate deal sets: two tables play the same deals in the same order,
 * one with the candidate (cfg.spec[0]) as player A, the other with the
 * baseline in its place, each with its own seats for players B and C
 * (cfg.spec[1], cfg.spec[2]); every deal is played three times on each,
 * rotated, so a deal set is six games. The caller plays one set at a time
 * and decides when to stop (service/match/sprt.h).
 */
#ifndef DDZ_MATCH_H
#define DDZ_MATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "rules/deal.h"
#include "rules/ruleset.h"

typedef struct ddz_match_cfg {
    const char *spec[3];            /* players A, B, C: "exec:...", "botzone:...", "ai:..." */
    const char *baseline;           /* A/B match: player A's stand-in on the second table
                                       (a SPEC as above); NULL = a plain match */
    int games;                      /* deals to play (each three times with rotate; an A/B
                                       match's deal sets at most) */
    bool rotate;                    /* duplicate: every deal with the players rotated */
    uint8_t master[DDZ_SEED_BYTES]; /* game k is dealt from ddz_deal_game_seed(master, k) */
    double time_s;                  /* seconds per interaction; 0 = the rule set's
                                       default (15 caai, 3 botzone-*) */
    int maxscore;                   /* INFO maxscore; 0 = the rule set's per-game maximum
                                       x the games played (x3 with rotate), so a fault
                                       before the leftover costs that maximum (spec §6) */
    const char *log_path;           /* JSONL game records (spec §10), NULL = none */
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
 * (the games already logged are flushed), or DDZ_EPHASE for an A/B match.
 * Engines are stopped on return. */
int ddz_match_run(ddz_match *m);

/* A/B match: plays the next deal set (six games) and writes player A's
 * small-score total on the deal's three rotations into *candidate (the
 * candidate's table) and *baseline (the baseline's). Records carry
 * "sprt": {"set": K (from 1), "side": "candidate"|"baseline"}. Returns 1,
 * 0 when `games` deal sets have been played (nothing is written), DDZ_EIO
 * when the log could not be written, or DDZ_EPHASE for a plain match. */
int ddz_match_play_set(ddz_match *m, double *candidate, double *baseline);

/* Stops every engine (an A/B match that the caller has decided). */
void ddz_match_stop(ddz_match *m);

/* Returns player `i`'s (0..2 = A..C) totals so far; in an A/B match 0..2
 * are the candidate's table and 3..5 the baseline's (3 = the baseline). */
const ddz_match_stats *ddz_match_stats_of(const ddz_match *m, int i);

/* Returns the number of games played so far. */
long ddz_match_games_played(const ddz_match *m);

/* Prints the results table: per player name, games, wins as landlord and as
 * farmer, small-score total, faults; an A/B match prints one table per
 * side, each under a heading line. */
void ddz_match_print(const ddz_match *m, FILE *out);

/* Stops any engine still running and frees `m`; NULL is fine. */
void ddz_match_destroy(ddz_match *m);

#endif
