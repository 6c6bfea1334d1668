/* rating.h - ratings of programs (the ladder) and of people (people_rating.h):
 * Weng and Lin's Bayesian approximation for online ranking (R. C. Weng,
 * C.-J. Lin, "A Bayesian Approximation Method for Online Ranking", JMLR 12,
 * 2011), the Bradley-Terry model with full pairing (the paper's
 * Algorithm 1), one player a team.
 *
 * A rating is a normal belief about a player's skill: mean `mu` and
 * standard deviation `sigma` (the uncertainty). A result is a ranking of
 * the players of one event (ties allowed): on the ladder, one duplicate
 * deal of three players ranked by their small-score totals over its three
 * games. Each player is compared with every other (win 1, tie 1/2, loss 0
 * against the Bradley-Terry probability of winning), so a three-player
 * deal counts as the three pairwise duplicate comparisons it contains.
 *
 * Pure computation: no I/O, no allocation, no globals. Why this system and
 * these constants: docs/decisions.md ("The ladder: ratings").
 */
#ifndef DDZ_RATING_H
#define DDZ_RATING_H

#include <stdbool.h>

#define DDZ_RATING_MAX_PLAYERS 8 /* players ranked in one event, at most */

typedef struct ddz_rating {
    double mu;    /* mean skill */
    double sigma; /* its standard deviation: the uncertainty */
} ddz_rating;

typedef struct ddz_rating_cfg {
    double mu0;    /* a new player's mu (the paper: 25) */
    double sigma0; /* a new player's sigma (25/3) */
    double beta;   /* the performance spread of one event (sigma0 / 2) */
    double kappa;  /* the smallest factor sigma^2 may shrink by in one event (1e-4) */
    double tau;    /* added to sigma (in quadrature) before each event: skills drift,
                      programs get replaced; 0 = a static skill (sigma0 / 100) */
} ddz_rating_cfg;

/* Fills `c` with the paper's constants (mu0 25, sigma0 25/3, beta 25/6,
 * kappa 1e-4) and tau = sigma0 / 100. */
void ddz_rating_cfg_default(ddz_rating_cfg *c);

/* Returns a new player's rating under `c`. */
ddz_rating ddz_rating_new(const ddz_rating_cfg *c);

/* Updates the ratings `r` of `n` players (2..DDZ_RATING_MAX_PLAYERS) after
 * one event where player i scored `score[i]` (higher is better; equal
 * scores within 1e-9 tie). Returns 0, or -1 (nothing changed) for a bad
 * `n` or a rating that is not finite or has sigma <= 0. */
int ddz_rating_update(const ddz_rating_cfg *c, ddz_rating *r, const double *score, int n);

/* Returns the Bradley-Terry probability that `a` beats `b` in one event
 * under `c` (ties counting half). */
double ddz_rating_p_win(const ddz_rating_cfg *c, ddz_rating a, ddz_rating b);

#endif
