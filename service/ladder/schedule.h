/* schedule.h - which ladder tables to start now, given the participants'
 * state: a pure function (no I/O, no allocation, no clock).
 *
 * The ladder wants its ratings to converge fast and every participant
 * busy. Tables are formed one at a time among the participants that are
 * available (connected, idle, not suspended):
 *
 *   1. fewest deals first: the table is built around the available
 *      participant with the fewest deals (ties: the lower index);
 *   2. no pair over-played: a pair of participants that has shared more
 *      deals than `pair_slack` above the least-played pair among the
 *      available ones is not put together while another choice exists
 *      (when none does, the least over-played triple is taken);
 *   3. close ratings: among those triples, the one whose three ratings
 *      lie closest together (the spread max mu - min mu, in sigma0 units
 *      of the rating scale, is what counts), then the one with fewer
 *      deals, then lower indices.
 *
 * Close ratings make a deal informative (a duplicate deal between players
 * of equal strength is a coin the rating system learns most from); fewest
 * deals first gets newcomers rated; the pair bound keeps two programs
 * from meeting each other deal after deal (their duplicate comparison
 * says nothing new, and the rest of the field would stay unrated against
 * them). docs/decisions.md ("The ladder: scheduling").
 */
#ifndef DDZ_SCHEDULE_H
#define DDZ_SCHEDULE_H

#include <stdbool.h>

#define DDZ_SCHEDULE_MAX 256 /* participants the scheduler considers, at most */

typedef struct ddz_sched_player {
    double mu;      /* rating */
    long deals;     /* deals played */
    bool available; /* connected, idle and not suspended */
} ddz_sched_player;

typedef struct ddz_sched_in {
    const ddz_sched_player *p; /* [n] */
    int n;                     /* 0..DDZ_SCHEDULE_MAX */
    /* deals players i and j have shared: pairs[i * n + j] (symmetric) */
    const long *pairs;
    int max_tables;  /* tables to form at most */
    long pair_slack; /* see rule 2 (>= 0) */
} ddz_sched_in;

/* Forms up to in->max_tables tables from the available players by the
 * rules above, writing each as three player indices to `out` (ascending
 * within a table). Returns the number of tables written (0 when fewer than
 * three are available), or -1 for a bad input (n out of range, NULL
 * arrays with n > 0, max_tables < 0, pair_slack < 0). */
int ddz_schedule(const ddz_sched_in *in, int (*out)[3]);

#endif
