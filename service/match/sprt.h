/* sprt.h - the sequential probability ratio test of `ddz match --sprt`.
 *
 * Pure arithmetic: no I/O, no allocation, no clock. The sample is a count
 * of deal sets won, drawn and lost by a candidate against a baseline (see
 * docs/decisions.md, "A/B testing"): a deal set is won when the
 * candidate's small-score total on the deal's three rotations beats the
 * baseline's on the same cards against the same opponents.
 *
 * The model is the logistic one of fishtest's GSPRT (M. Van den Bergh,
 * "A practical introduction to the GSPRT"; fishtest's stats/LLRcalc.py):
 * an Elo difference E stands for an expected deal-set score
 * s = P(win) + P(draw) / 2 = 1 / (1 + 10^(-E/400)), and nothing else about
 * the trinomial is assumed. H0 is s = s(elo0), H1 is s = s(elo1); the
 * log-likelihood ratio compares, for the counts seen, the most likely
 * trinomial whose expected score is s(elo1) with the most likely one whose
 * expected score is s(elo0) (the generalised SPRT). The test stops when
 * the ratio leaves Wald's bounds (ln(beta / (1 - alpha)),
 * ln((1 - beta) / alpha)).
 */
#ifndef DDZ_SPRT_H
#define DDZ_SPRT_H

#include <stddef.h>

typedef struct ddz_sprt {
    double elo0, elo1;  /* H0 and H1, elo0 < elo1, each within +-DDZ_SPRT_MAX_ELO */
    double alpha, beta; /* false-positive and false-negative rates, each in (0, 0.5) */
} ddz_sprt;

/* What the test says about the counts so far. */
enum ddz_sprt_verdict { DDZ_SPRT_CONTINUE = 0, DDZ_SPRT_H0 = 1, DDZ_SPRT_H1 = 2 };

/* Hypotheses past +-1000 Elo (an expected score beyond 0.997) say nothing a
 * run could tell apart from a sure thing. */
#define DDZ_SPRT_MAX_ELO 1000.0

/* Parses "ELO0,ELO1" or "ELO0,ELO1,ALPHA,BETA" (decimal numbers; alpha and
 * beta default to 0.05) into *out. Returns 0, or DDZ_EINVAL with a
 * one-line reason in `err` (not two or four numbers, elo0 not below elo1,
 * an Elo outside +-1000, alpha or beta outside (0, 0.5)); *out is then
 * unchanged. */
int ddz_sprt_parse(const char *text, ddz_sprt *out, char *err, size_t errlen);

/* Returns the expected score of Elo difference `elo`: 1 / (1 + 10^(-elo/400)). */
double ddz_sprt_score_of_elo(double elo);

/* Returns the Elo difference of expected score `s`: -400 log10(1/s - 1);
 * -INFINITY for s <= 0, +INFINITY for s >= 1. */
double ddz_sprt_elo_of_score(double s);

/* Writes Wald's bounds for `alpha` and `beta` (each in (0, 1), their sum
 * below 1): *lower = ln(beta / (1 - alpha)), *upper = ln((1 - beta) /
 * alpha). */
void ddz_sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* Returns the generalised log-likelihood ratio of H1 (expected score s1)
 * against H0 (s0) for `win`, `draw` and `loss` deal sets, s0 and s1 in
 * (0, 1). A count of 0 counts as 0.001, as fishtest regularises, so that
 * the ratio stays finite (all draws, all wins) and an all-draw run between
 * identical players still drifts towards H0. Returns 0 when no deal set has
 * been played, and for negative counts. */
double ddz_sprt_llr_score(long win, long draw, long loss, double s0, double s1);

/* Returns ddz_sprt_llr_score() for the hypotheses of `t`. */
double ddz_sprt_llr(const ddz_sprt *t, long win, long draw, long loss);

/* Returns DDZ_SPRT_H1 when the ratio reaches the upper bound, DDZ_SPRT_H0
 * when it reaches the lower, else DDZ_SPRT_CONTINUE. */
enum ddz_sprt_verdict ddz_sprt_verdict(const ddz_sprt *t, long win, long draw, long loss);

/* The Elo estimate of the counts, as cutechess-cli reports it. */
typedef struct ddz_sprt_elo {
    double score;      /* (win + draw / 2) / n; 0.5 when n = 0 */
    double elo;        /* ddz_sprt_elo_of_score(score): infinite at 0 and 1 */
    double margin;     /* half the width of the 95% interval of the Elo, the
                          interval being the Elo of score -+ 1.96 standard errors
                          (trinomial variance); INFINITY when an end of it
                          leaves (0, 1) or n < 2 */
    double los;        /* likelihood of superiority, 0.5 (1 + erf((W - L) /
                          sqrt(2 (W + L)))); 0.5 when W + L = 0 */
    double draw_ratio; /* draw / n; 0 when n = 0 */
} ddz_sprt_elo;

/* Returns the estimate for `win`, `draw`, `loss`. */
ddz_sprt_elo ddz_sprt_estimate(long win, long draw, long loss);

#endif
