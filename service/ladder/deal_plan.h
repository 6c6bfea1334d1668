/* deal_plan.h - the ladder's deals: who plays a deal at which table and
 * hand, and how its results are rated. Pure functions (no I/O, no
 * allocation, no clock).
 *
 * A ladder deal is played the seed's way (同场牌, spec §12): one deal at
 * `tables` tables at once, seat s of every table holding hand s (West,
 * South, East: the same cards at every table). A result is compared only
 * with the results of those who held the same hand at the other tables.
 * No program (a bot or an operator engine) plays a deal twice: after its
 * game it knows every hand of the deal. Hosted AIs are the server's own:
 * they may fill any number of seats of a deal, and are the reference the
 * programs are compared with when the field is small.
 *
 * The plan, from the available participants:
 *   1. programs first, fewest deals first (ties: the lower index), as many
 *      as fit: 3 x min(max_tables, DDZ_DEAL_TABLES) seats;
 *   2. tables = max(2, ceil(programs / 3)): every hand then has two
 *      holders at least, so every result is compared with another;
 *   3. the programs, ordered by rating (highest first), fill the hands one
 *      after another, each hand's seats at every table before the next
 *      hand (so a hand's holders have close ratings: a comparison between
 *      equals is the one the ratings learn most from); which hand comes
 *      first turns with `spin`;
 *   4. the seats left go to hosted AIs in turn (from `spin`), never the
 *      same AI twice in one hand while another is free;
 *   5. without a hosted AI, the programs fill whole tables: a multiple of
 *      three, six at least (the rest wait for the next deal);
 *   6. without a program, a deal of hosted AIs alone (when `ais_alone`):
 *      min(max_tables, AIs) tables, two at least, the AIs in a Latin
 *      square (table t, hand s: AI (t + s + spin) mod AIs);
 *   7. (with programs) each hand's holders are turned round the tables
 *      by an offset of their own, drawn from `spin`: a result is compared
 *      across tables whose other seats differ, and without this the
 *      layout of rule 3 put the lowest-rated program at the highest-rated
 *      one's table in every deal, its comparison against a holder facing
 *      weaker players; the bias kept a greedy engine below a random bot
 *      for 345 deals. Turned, each program meets every table's company
 *      alike over the deals.
 *
 * So a field of N programs needs 3 x max(2, ceil(N / 3)) seats, of which
 * the hosted AIs fill the rest: 3 programs, two tables (one program-vs-
 * program hand, two hands against AIs); 4 or 5, two tables; 6, two tables
 * of programs only; 9, three. docs/decisions.md ("The ladder: one deal at
 * several tables").
 */
#ifndef DDZ_DEAL_PLAN_H
#define DDZ_DEAL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "service/rating/rating.h"

#define DDZ_DEAL_TABLES 6       /* tables of one deal, at most */
#define DDZ_DEAL_CANDIDATES 256 /* participants a plan considers, at most */

typedef struct ddz_deal_cand {
    double mu;      /* rating */
    long deals;     /* deals played */
    bool available; /* connected, idle and not suspended */
    bool ai;        /* a hosted AI: may hold several seats of one deal */
} ddz_deal_cand;

typedef struct ddz_deal_in {
    const ddz_deal_cand *c; /* [n] */
    int n;                  /* 0..DDZ_DEAL_CANDIDATES */
    int max_tables;         /* free tables (a plan needs 2) */
    bool ais_alone;         /* a deal of hosted AIs alone may be planned */
    uint32_t spin;          /* turns the first hand and the AIs' order */
} ddz_deal_in;

typedef struct ddz_deal_plan {
    int tables;                  /* 2..DDZ_DEAL_TABLES */
    int who[DDZ_DEAL_TABLES][3]; /* candidate index at table t, hand (seat) s */
} ddz_deal_plan;

/* Plans a deal from in->c by the rules above into `out`. Returns the
 * number of tables (2..DDZ_DEAL_TABLES), 0 when no deal can be planned
 * now (too few available, fewer than two free tables), or -1 for a bad
 * input (n out of range, c NULL with n > 0, max_tables < 0). */
int ddz_deal_plan_make(const ddz_deal_in *in, ddz_deal_plan *out);

/* Rates a played deal: plan `p` over participants whose ratings are
 * r[0..n) (updated in place), score[t][s] the score of table t's seat s.
 * Each hand is one event (rating.h) among its holders, the repeated
 * holders of a hand (one hosted AI twice) counted once (their first
 * seat); the hands are rated one after another, West first. Returns the
 * number of hands rated (0..3: a hand with fewer than two distinct
 * holders is not), or -1 (nothing changed) for a bad plan (tables out of
 * range, an index outside 0..n) or a rating that is not finite. */
int ddz_deal_rate(const ddz_rating_cfg *cfg, const ddz_deal_plan *p, ddz_rating *r, int n,
                  const double score[DDZ_DEAL_TABLES][3]);

#endif
