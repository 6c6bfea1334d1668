/* record.h - the history of one game, as a value, and its verification.
 *
 * The referee fills a ddz_record as the game goes; proto/record_json turns
 * it into the JSON line of spec §10 and back; ddz_record_verify() replays it
 * through the rules and checks every derived field. Verification needs no
 * trust in whoever wrote the record: the seed is checked against the
 * commitment, the hands against the seed, each bid and play against the
 * rules and the turn order, and the result against the scoring.
 */
#ifndef DDZ_RECORD_H
#define DDZ_RECORD_H

#include <stddef.h>

#include "game.h"

/* A game has at most 54 non-pass plays, each followed by at most two passes. */
#define DDZ_RECORD_MAX_PLAYS 170
#define DDZ_NAME_MAX 64

typedef struct ddz_record_play {
    uint8_t seat;     /* who played */
    uint8_t autopass; /* 1 if the referee made the play: a pass for a seat that could
                         not beat, or the stand-in of a seat that faulted (botzone-ftl2) */
    uint8_t combo;    /* enum ddz_type as the referee classified it (DDZ_PASS for a
                         pass); records read from text leave it DDZ_INVALID (0): it is
                         no part of a record's text, and ddz_record_verify classifies */
    ddz_cards cards;  /* 0 for a pass */
} ddz_record_play;

typedef struct ddz_record {
    char rules[16];                 /* rule set name, e.g. "caai" */
    int game;                       /* 0-based index within the match or tournament */
    uint8_t seed[DDZ_SEED_BYTES];   /* revealed after the game */
    uint8_t commit[DDZ_SEED_BYTES]; /* published before the deal */
    ddz_deal deal;                  /* hands as dealt and the leftover */
    int early_penalty;              /* maxscore / games: spec §6 before the leftover */
    int nbids;
    int8_t bids[3];  /* bids[s] of seat s, for s < nbids (West bids first) */
    int8_t landlord; /* -1 if all passed (or a fault came first) */
    int nplays;
    ddz_record_play plays[DDZ_RECORD_MAX_PLAYS];
    int8_t winner;      /* seat that emptied its hand, -1 if none */
    int8_t fault_seat;  /* the first fault's seat, -1 if none (`fault`) */
    uint8_t fault_kind; /* its kind: enum ddz_fault */
    int nfaults;        /* every fault, in the order charged (`faults`) */
    ddz_fault_entry faults[DDZ_FAULTS_MAX];
    int bombs, rocket, spring, anti_spring, multiplier;
    double scores[3];            /* West, South, East (see DDZ_SCORE_DENOM) */
    char names[3][DDZ_NAME_MAX]; /* players' names by seat, UTF-8 */
} ddz_record;

/* Fills the result fields of `r` (landlord, winner, fault, faults, bombs,
 * rocket, spring, anti_spring, multiplier, scores) from the finished game
 * `g`. Never fails. */
void ddz_record_finish(ddz_record *r, const ddz_game *g);

/* Replays the actions of `r` (its bids, plays and faults) under rule set
 * `rs` into `g`, checking each as ddz_record_verify() does, but neither the
 * deal against the seed nor the recorded result. Returns 0 with `g` the game
 * at its end (phase DDZ_PHASE_OVER), or DDZ_EVERIFY with `err` (errlen
 * bytes, may be NULL) naming the first action that does not replay; `g` is
 * then the game up to it. */
int ddz_record_replay(const ddz_record *r, const ddz_rules *rs, ddz_game *g, char *err,
                      size_t errlen);

/* Writes to out[] the terms that say how the scores of `g` came about
 * (ddz_rules.explain of g->rules, spec §5, §6, §8), `g` being the game of `r`
 * at its end: the game the referee played, or ddz_record_replay()'s.
 * Returns how many (0..DDZ_TERMS_MAX); 0 when `g` is not over or nothing
 * was scored (all passed). */
int ddz_record_explain(const ddz_record *r, const ddz_game *g, ddz_term out[DDZ_TERMS_MAX]);

/* Replays `r` under rule set `rs` and checks every field: the faults are
 * charged where they say they were (`at`, or `bids` while bidding), every
 * play of a seat after its fault is its stand-in's and marked auto, and
 * every other play marked auto is a pass the seat could not avoid. Returns 0
 * if the record is consistent, else DDZ_EVERIFY with `err` (errlen bytes)
 * naming the first wrong field, e.g. "plays[12]: cards not in hand". */
int ddz_record_verify(const ddz_record *r, const ddz_rules *rs, char *err, size_t errlen);

#endif
