/* rated_queue.h - who waits for a rated game of one rule set, and who
 * plays whom (SPEC §15: rated quick play seats signed-in people by rating,
 * widening the range as they wait, and fills with rated hosted AIs).
 *
 * A waiting person accepts opponents within a window of their own rating
 * that widens with the wait: w(t) = w0 + growth * t, at most wmax. Three
 * people make a game when the spread of their ratings (highest minus
 * lowest) is within every one's window; the longest waiter is served
 * first. Someone who has waited `fill_us` is seated at once: with the
 * people nearest in rating within their window (one, or none), and hosted
 * AIs for the rest, the AIs nearest in rating first. Why these numbers:
 * docs/decisions.md ("Rated quick play").
 *
 * One queue per rule set. Pure bookkeeping: no I/O, no clock (the caller
 * passes the time), no allocation after create. Players are the caller's
 * numbers (never 0); the queue holds no pointer of theirs. */
#ifndef DDZ_RATED_QUEUE_H
#define DDZ_RATED_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ddz_rated_queue ddz_rated_queue;

#define DDZ_RATED_QUEUE_AIS 3 /* hosted AIs a queue may fill with */

typedef struct ddz_rated_queue_cfg {
    double w0;                             /* the window at once, in shown rating points (100) */
    double growth;                         /* its widening, points per second waited (10) */
    double wmax;                           /* the widest it gets (500) */
    int64_t fill_us;                       /* a wait after which AIs fill the table (20 s) */
    int nais;                              /* hosted AIs to fill with (0..DDZ_RATED_QUEUE_AIS) */
    int64_t ai[DDZ_RATED_QUEUE_AIS];       /* their player numbers (the caller's) */
    double ai_rating[DDZ_RATED_QUEUE_AIS]; /* and ratings, as shown */
} ddz_rated_queue_cfg;

/* One game found: three seats, each a person of the queue or an AI. */
typedef struct ddz_rated_match {
    int64_t player[3]; /* the players, people first (longest waiter first), then AIs */
    bool ai[3];        /* whether player[i] is a hosted AI */
    int people;        /* how many are people: 1..3 */
} ddz_rated_match;

/* Fills `c` with the documented defaults (w0 100, growth 10/s, wmax 500,
 * fill 20 s) and no AIs. */
void ddz_rated_queue_cfg_default(ddz_rated_queue_cfg *c);

/* Returns a queue for at most `cap` (1..100000) waiting people under `c`
 * (copied), or NULL for a bad argument or out of memory. */
ddz_rated_queue *ddz_rated_queue_create(const ddz_rated_queue_cfg *c, int cap);

/* Frees `q` (NULL is fine). */
void ddz_rated_queue_destroy(ddz_rated_queue *q);

/* Adds `player` (not 0) of shown rating `rating` (finite), waiting from
 * `now_us`. Returns 0, DDZ_EEXIST (already waiting: its wait goes on),
 * DDZ_ENOSPC (the queue is full) or DDZ_EINVAL. */
int ddz_rated_queue_add(ddz_rated_queue *q, int64_t player, double rating, int64_t now_us);

/* Takes `player` out of the queue. Returns whether it was waiting. */
bool ddz_rated_queue_remove(ddz_rated_queue *q, int64_t player);

/* Sets the rating of the queue's hosted AI `player` (one of cfg.ai) to
 * `rating` (finite): AIs' ratings move with their games. Returns 0, or
 * DDZ_ENOTFOUND (no such AI) or DDZ_EINVAL. */
int ddz_rated_queue_set_ai_rating(ddz_rated_queue *q, int64_t player, double rating);

/* Returns how many people wait. */
int ddz_rated_queue_len(const ddz_rated_queue *q);

/* Returns the window of someone who has waited `waited_us` under `c`. */
double ddz_rated_queue_window(const ddz_rated_queue_cfg *c, int64_t waited_us);

/* Finds the next game due at `now_us` and takes its people out of the
 * queue. Returns 1 (one game in *out), 0 (none is due: call again when
 * someone joins or a second has passed). Call until it returns 0. */
int ddz_rated_queue_match(ddz_rated_queue *q, int64_t now_us, ddz_rated_match *out);

#endif
