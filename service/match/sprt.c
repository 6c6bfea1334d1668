/* sprt.c - the GSPRT of `ddz match --sprt` (see sprt.h for the model). */
#include "service/match/sprt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/error.h"

/* What a count of zero counts as (fishtest's regularisation): the maximum
 * likelihood trinomial under H0 or H1 must be able to put weight on an
 * outcome not seen yet, or an all-draw sample would have no likelihood
 * under any expected score but 0.5. */
#define ZERO_COUNT 1e-3

/* The 97.5% quantile of the standard normal: a two-sided 95% interval. */
#define Z975 1.959963984540054

int ddz_sprt_parse(const char *text, ddz_sprt *out, char *err, size_t errlen)
{
    double v[4] = {0, 0, 0.05, 0.05};
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        if (n == 4) {
            snprintf(err, errlen, "--sprt takes ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA");
            return DDZ_EINVAL;
        }
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || (*end != ',' && *end != '\0')) {
            snprintf(err, errlen,
                     "--sprt takes ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA (decimal numbers)");
            return DDZ_EINVAL;
        }
        v[n++] = x;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    if (n != 2 && n != 4) {
        snprintf(err, errlen, "--sprt takes ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA");
        return DDZ_EINVAL;
    }
    if (fabs(v[0]) > DDZ_SPRT_MAX_ELO || fabs(v[1]) > DDZ_SPRT_MAX_ELO) {
        snprintf(err, errlen, "--sprt: ELO0 and ELO1 must be within -%g..%g", DDZ_SPRT_MAX_ELO,
                 DDZ_SPRT_MAX_ELO);
        return DDZ_EINVAL;
    }
    if (!(v[0] < v[1])) {
        snprintf(err, errlen, "--sprt: ELO0 must be below ELO1");
        return DDZ_EINVAL;
    }
    if (!(v[2] > 0 && v[2] < 0.5 && v[3] > 0 && v[3] < 0.5)) {
        snprintf(err, errlen, "--sprt: ALPHA and BETA must be between 0 and 0.5 (exclusive)");
        return DDZ_EINVAL;
    }
    *out = (ddz_sprt){.elo0 = v[0], .elo1 = v[1], .alpha = v[2], .beta = v[3]};
    return 0;
}

double ddz_sprt_score_of_elo(double elo)
{
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

double ddz_sprt_elo_of_score(double s)
{
    if (s <= 0)
        return -INFINITY;
    if (s >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

void ddz_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
}

/* The maximum-likelihood trinomial with expected score `s` given the
 * empirical frequencies `p` of the outcomes worth a[] = {0, 1/2, 1} (loss,
 * draw, win), written into `q`. By Lagrange (Van den Bergh, "computeLLR",
 * proposition 1.1) it is q_i = p_i / (1 + t x_i), x_i = a_i - s, where t
 * solves sum_i p_i x_i / (1 + t x_i) = 0 with every 1 + t x_i > 0, that is
 * t in (-1/(1 - s), 1/s). The sum falls strictly with t, from +inf at the
 * lower end to -inf at the upper, so bisection finds the one root; for
 * three outcomes it is a quadratic, which the tests solve by hand. */
static void mle(const double p[3], double s, double q[3])
{
    const double x[3] = {-s, 0.5 - s, 1.0 - s};
    double lo = -1.0 / (1.0 - s), hi = 1.0 / s;
    for (int it = 0; it < 200; it++) {
        double t = 0.5 * (lo + hi);
        if (t <= lo || t >= hi)
            break; /* the interval is down to adjacent doubles */
        double f = 0;
        for (int i = 0; i < 3; i++)
            f += p[i] * x[i] / (1.0 + t * x[i]);
        if (f > 0)
            lo = t;
        else
            hi = t;
    }
    double t = 0.5 * (lo + hi);
    for (int i = 0; i < 3; i++)
        q[i] = p[i] / (1.0 + t * x[i]);
}

double ddz_sprt_llr_score(long win, long draw, long loss, double s0, double s1)
{
    if (win < 0 || draw < 0 || loss < 0 || win + draw + loss == 0)
        return 0;
    double c[3] = {(double)loss, (double)draw, (double)win};
    double n = 0;
    for (int i = 0; i < 3; i++) {
        if (c[i] == 0)
            c[i] = ZERO_COUNT;
        n += c[i];
    }
    double p[3], q0[3], q1[3];
    for (int i = 0; i < 3; i++)
        p[i] = c[i] / n;
    mle(p, s0, q0);
    mle(p, s1, q1);
    double llr = 0;
    for (int i = 0; i < 3; i++)
        llr += c[i] * log(q1[i] / q0[i]);
    return llr;
}

double ddz_sprt_llr(const ddz_sprt *t, long win, long draw, long loss)
{
    return ddz_sprt_llr_score(win, draw, loss, ddz_sprt_score_of_elo(t->elo0),
                              ddz_sprt_score_of_elo(t->elo1));
}

enum ddz_sprt_verdict ddz_sprt_verdict(const ddz_sprt *t, long win, long draw, long loss)
{
    double lower, upper, llr = ddz_sprt_llr(t, win, draw, loss);
    ddz_sprt_bounds(t->alpha, t->beta, &lower, &upper);
    if (llr >= upper)
        return DDZ_SPRT_H1;
    if (llr <= lower)
        return DDZ_SPRT_H0;
    return DDZ_SPRT_CONTINUE;
}

ddz_sprt_elo ddz_sprt_estimate(long win, long draw, long loss)
{
    ddz_sprt_elo e = {.score = 0.5, .elo = 0, .margin = INFINITY, .los = 0.5};
    long n = win + draw + loss;
    if (n <= 0)
        return e;
    double w = (double)win / n, d = (double)draw / n, l = (double)loss / n;
    e.score = w + d / 2;
    e.elo = ddz_sprt_elo_of_score(e.score);
    e.draw_ratio = d;
    if (win + loss > 0)
        e.los = 0.5 * (1.0 + erf((double)(win - loss) / sqrt(2.0 * (double)(win + loss))));
    if (n >= 2) {
        /* the variance of one deal set's score, then of the mean of n */
        double s = e.score;
        double var = w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s;
        double se = sqrt(var / n), lo = s - Z975 * se, hi = s + Z975 * se;
        if (lo > 0 && hi < 1)
            e.margin = (ddz_sprt_elo_of_score(hi) - ddz_sprt_elo_of_score(lo)) / 2;
    }
    return e;
}
