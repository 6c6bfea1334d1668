/* strong.h - ai:strong, a searching player (see strong.c for the method).
 *
 * It decides only from a ddz_view: the hidden cards are sampled, never
 * looked at. Each decision is a function of (seed, view, budget) alone: the
 * random stream of a decision is derived from the AI's seed and the view,
 * so the same view asked twice, in any order, gets the same answer as long
 * as the work budget, not the clock, ends the search.
 *
 * Budget. Every decision does at most `units` units of work (one unit =
 * one playout of one candidate on one sampled deal, or DDZ_STRONG_UNIT_NODES
 * nodes of exact endgame search, at least one unit per search; either is a
 * few hundred microseconds) and stops early when its clock budget runs out. The clock is
 * clock_gettime(CLOCK_MONOTONIC) unless the caller supplies another (ddz_strong_set_clock); it is
 * the only clock read in ai/, and only to stop searching: the search aims to end at 85% of the
 * budget and looks at the clock before every move of a playout, every 256 endgame-search nodes and
 * every 16 candidate scores, so it overruns that aim by at most one such step (microseconds in an
 * optimised build). A unit budget without a clock budget makes decisions reproducible; a clock
 * budget caps them on top.
 *
 * Memory. The player object is small (its seed, budget, clock and the last
 * decision's statistics). The search's scratch memory (about 10 MB: a
 * transposition table, move stacks, candidate values, a memo of hand
 * scores) is a ddz_strong_workspace that the caller passes to each
 * decision: whoever runs decisions owns one (a worker thread, a CLI loop),
 * and any number of players may take turns with it. A decision's result
 * (and its statistics) do not depend on which workspace it gets nor on what
 * that workspace was used for before: the transposition table's entries
 * count only in the decision that wrote them, the other buffers are written
 * before they are read, and the memo of hand scores only saves time.
 *
 * Neither a player nor a workspace may be used by two threads at once;
 * separate ones are independent (no globals).
 */
#ifndef DDZ_AI_STRONG_H
#define DDZ_AI_STRONG_H

#include <stdint.h>

#include "rules/view.h"

enum {
    DDZ_STRONG_DEFAULT_MS = 1000,   /* clock budget when none is given */
    DDZ_STRONG_SOLVE_NODES = 20000, /* node cap of one exact endgame search */
    DDZ_STRONG_UNIT_NODES = 256,    /* endgame-search nodes per unit of budget */
};

typedef struct ddz_strong ddz_strong;
typedef struct ddz_strong_workspace ddz_strong_workspace;

/* What the last decision did, for tests and benchmarks. */
typedef struct ddz_strong_stats {
    long units;      /* work units spent (playouts, endgame-search nodes / 256) */
    long playouts;   /* playouts run */
    long solves;     /* endgame searches that finished */
    long nodes;      /* endgame-search nodes visited */
    int samples;     /* sampled (or enumerated) deals completed */
    int candidates;  /* candidate plays searched (0 = decided without search) */
    int enumerated;  /* 1 when every possible split of the hidden cards was used */
    int clock_ended; /* 1 when the clock, not the unit budget, ended the search */
    double value;    /* mean value of the chosen play (score / (rules->score_unit x bid)) */
} ddz_strong_stats;

/* Creates the player with random seed `seed` and the default budget.
 * Returns NULL when out of memory (it takes a few hundred bytes). */
ddz_strong *ddz_strong_create(uint64_t seed);

/* Frees `s`; NULL is fine. */
void ddz_strong_destroy(ddz_strong *s);

/* Sets the budget per decision: at most `ms` milliseconds of wall clock
 * (0 = no clock limit) and at most `units` work units (0 = no unit limit).
 * Both 0 means the default: DDZ_STRONG_DEFAULT_MS and no unit limit.
 * Negative values count as 0. */
void ddz_strong_set_budget(ddz_strong *s, int ms, long units);

/* How the endgame's exact search values a candidate on a sampled deal. */
enum ddz_strong_endgame {
    DDZ_STRONG_ENDGAME_WIN = 0,   /* who wins, at the stake as it stood before the
                                     candidate, no spring (the first solver's way) */
    DDZ_STRONG_ENDGAME_SCORE = 1, /* the score `me`'s side can force
                                     (ddz_solver_forced_score): bombs, the rocket and
                                     spring still to come count; where that search
                                     runs out of nodes, who wins as above */
};

/* Sets how the endgame values candidates (enum ddz_strong_endgame; other
 * values count as the default, DDZ_STRONG_ENDGAME_SCORE). */
void ddz_strong_set_endgame(ddz_strong *s, int mode);

/* Makes `now_ns(ctx)` the clock of the clock budget (nanoseconds, any
 * origin, never decreasing); NULL restores CLOCK_MONOTONIC. Tests pass a
 * CPU-time clock to check the budget logic on a loaded machine. */
void ddz_strong_set_clock(ddz_strong *s, int64_t (*now_ns)(void *ctx), void *ctx);

/* Creates the scratch memory of decisions (about 10 MB, zero-filled: pages
 * are committed as the search touches them). Returns NULL when out of
 * memory. */
ddz_strong_workspace *ddz_strong_workspace_create(void);

/* Frees `w`; NULL is fine. */
void ddz_strong_workspace_destroy(ddz_strong_workspace *w);

/* Returns a legal bid for the seat of `v`, whose turn it is to bid, searching
 * in workspace `w` (required). Never fails. */
int ddz_strong_bid(ddz_strong *s, const ddz_view *v, ddz_strong_workspace *w);

/* Returns the bid ai:strong makes under `rs` for a hand whose value as
 * landlord (mean result per unit of bid, ddz_strong_stats.value) is
 * `value`, after earlier bids whose highest is `high`: 0 when it would not
 * be above `high`, else up to rs->max_bid. The thresholds are per all-pass
 * rule (rs->allpass), calibrated where strong's real result as landlord
 * crosses zero. Never fails. */
int ddz_strong_bid_of_value(const ddz_rules *rs, int high, double value);

/* Returns the cards of a legal play for the seat of `v`, whose turn it is to
 * play: 0 (pass) only when following. Searches in workspace `w` (required).
 * Never fails. */
ddz_cards ddz_strong_play(ddz_strong *s, const ddz_view *v, ddz_strong_workspace *w);

/* Returns what the last ddz_strong_bid or ddz_strong_play did. */
const ddz_strong_stats *ddz_strong_last(const ddz_strong *s);

#endif
