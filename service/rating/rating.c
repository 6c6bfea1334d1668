/* rating.c - Weng-Lin Bradley-Terry full pairing (rating.h). */
#include "service/rating/rating.h"

#include <math.h>

void ddz_rating_cfg_default(ddz_rating_cfg *c)
{
    c->mu0 = 25.0;
    c->sigma0 = 25.0 / 3.0;
    c->beta = c->sigma0 / 2.0;
    c->kappa = 1e-4;
    c->tau = c->sigma0 / 100.0;
}

ddz_rating ddz_rating_new(const ddz_rating_cfg *c)
{
    return (ddz_rating){.mu = c->mu0, .sigma = c->sigma0};
}

/* c_iq of the paper: the spread of the difference of two performances. */
static double spread(const ddz_rating_cfg *c, ddz_rating a, ddz_rating b)
{
    return sqrt(a.sigma * a.sigma + b.sigma * b.sigma + 2.0 * c->beta * c->beta);
}

/* exp(x / s) / (exp(x / s) + exp(y / s)), computed without overflow. */
static double logistic(double x, double y, double s)
{
    return 1.0 / (1.0 + exp((y - x) / s));
}

double ddz_rating_p_win(const ddz_rating_cfg *c, ddz_rating a, ddz_rating b)
{
    return logistic(a.mu, b.mu, spread(c, a, b));
}

static bool valid(ddz_rating r)
{
    return isfinite(r.mu) && isfinite(r.sigma) && r.sigma > 0;
}

int ddz_rating_update(const ddz_rating_cfg *c, ddz_rating *r, const double *score, int n)
{
    if (n < 2 || n > DDZ_RATING_MAX_PLAYERS)
        return -1;
    ddz_rating prior[DDZ_RATING_MAX_PLAYERS];
    for (int i = 0; i < n; i++) {
        if (!valid(r[i]) || !isfinite(score[i]))
            return -1;
        prior[i] = r[i];
        /* the dynamics: the skill may have moved since the last event */
        prior[i].sigma = sqrt(r[i].sigma * r[i].sigma + c->tau * c->tau);
    }
    for (int i = 0; i < n; i++) {
        double var = prior[i].sigma * prior[i].sigma;
        double omega = 0, delta = 0;
        for (int q = 0; q < n; q++) {
            if (q == i)
                continue;
            double ciq = spread(c, prior[i], prior[q]);
            double p = logistic(prior[i].mu, prior[q].mu, ciq); /* p_iq */
            double d = score[i] - score[q];
            double s = fabs(d) <= 1e-9 ? 0.5 : d > 0 ? 1.0 : 0.0;
            omega += var / ciq * (s - p);
            /* gamma_q = sigma_i / c_iq, the paper's choice for Algorithm 1 */
            double gamma = prior[i].sigma / ciq;
            delta += gamma * var / (ciq * ciq) * p * (1.0 - p);
        }
        double shrink = 1.0 - delta;
        if (shrink < c->kappa)
            shrink = c->kappa;
        r[i].mu = prior[i].mu + omega;
        r[i].sigma = sqrt(var * shrink);
    }
    return 0;
}
