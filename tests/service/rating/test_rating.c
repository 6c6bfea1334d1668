/* test_rating.c - the ladder's Weng-Lin ratings against values published
 * with the system's implementations and computed by hand. */
#include <criterion/criterion.h>
#include <math.h>

#include "service/rating/rating.h"

static ddz_rating_cfg paper(void)
{
    ddz_rating_cfg c;
    ddz_rating_cfg_default(&c);
    c.tau = 0; /* the paper's static model: the published values have no drift */
    return c;
}

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-9, "%.15f != %.15f", (double)(a), (double)(b))

Test(rating, defaults_are_the_papers)
{
    ddz_rating_cfg c;
    ddz_rating_cfg_default(&c);
    NEAR(c.mu0, 25.0);
    NEAR(c.sigma0, 25.0 / 3.0);
    NEAR(c.beta, 25.0 / 6.0);
    NEAR(c.kappa, 1e-4);
    NEAR(c.tau, 25.0 / 300.0);
}

/* Two new players, one wins: by hand, c = sqrt(2 (25/3)^2 + 2 (25/6)^2)
 * = 13.176..., p = 1/2, Omega = sigma^2 / c * 1/2 = 2.6352..., Delta =
 * (sigma / c)^3 / 4 = 0.063245...; the same numbers openskill publishes
 * for BradleyTerryFull, "2p FFA": 27.63523138347365, 8.065506316323548. */
Test(rating, two_players_one_win)
{
    ddz_rating_cfg c = paper();
    ddz_rating r[2] = {ddz_rating_new(&c), ddz_rating_new(&c)};
    double s[2] = {1, 0};
    cr_assert_eq(ddz_rating_update(&c, r, s, 2), 0);
    double cc = sqrt(2 * (25.0 / 3) * (25.0 / 3) + 2 * (25.0 / 6) * (25.0 / 6));
    NEAR(r[0].mu, 25 + (625.0 / 9) / cc * 0.5);
    NEAR(r[0].mu, 27.63523138347365);
    NEAR(r[1].mu, 22.36476861652635);
    NEAR(r[0].sigma, 8.065506316323548);
    NEAR(r[1].sigma, 8.065506316323548);
}

/* Three new players ranked 1, 2, 3 (openskill's BradleyTerryFull "3p FFA"). */
Test(rating, three_players_ranked)
{
    ddz_rating_cfg c = paper();
    ddz_rating r[3] = {ddz_rating_new(&c), ddz_rating_new(&c), ddz_rating_new(&c)};
    double s[3] = {12, 0, -12};
    cr_assert_eq(ddz_rating_update(&c, r, s, 3), 0);
    NEAR(r[0].mu, 30.2704627669473);
    NEAR(r[1].mu, 25.0);
    NEAR(r[2].mu, 19.7295372330527);
    for (int i = 0; i < 3; i++)
        NEAR(r[i].sigma, 7.788474807872566);
}

/* A tie moves nobody's mean and shrinks sigma as a decided game does (the
 * variance term does not depend on the outcome). */
Test(rating, tie_keeps_the_means)
{
    ddz_rating_cfg c = paper();
    ddz_rating r[2] = {ddz_rating_new(&c), ddz_rating_new(&c)};
    double s[2] = {3, 3};
    cr_assert_eq(ddz_rating_update(&c, r, s, 2), 0);
    NEAR(r[0].mu, 25.0);
    NEAR(r[1].mu, 25.0);
    NEAR(r[0].sigma, 8.065506316323548);
}

/* Unequal ratings by hand: a = (30, 4), b = (20, 6), b wins. c^2 = 16 + 36
 * + 2 (25/6)^2, p_ab = 1 / (1 + e^{-10/c}); a loses Omega = 16/c (0 - p). */
Test(rating, upset_by_hand)
{
    ddz_rating_cfg c = paper();
    ddz_rating r[2] = {{30, 4}, {20, 6}};
    double s[2] = {-1, 1};
    cr_assert_eq(ddz_rating_update(&c, r, s, 2), 0);
    double cc = sqrt(16 + 36 + 2 * (25.0 / 6) * (25.0 / 6));
    double p = 1 / (1 + exp(-10 / cc));
    NEAR(r[0].mu, 30 - 16 / cc * p);
    NEAR(r[1].mu, 20 + 36 / cc * p);
    NEAR(r[0].sigma, sqrt(16 * (1 - (4 / cc) * (16 / (cc * cc)) * p * (1 - p))));
    NEAR(r[1].sigma, sqrt(36 * (1 - (6 / cc) * (36 / (cc * cc)) * p * (1 - p))));
    cr_expect_lt(ddz_rating_p_win(&c, r[0], r[1]), 1 / (1 + exp(-10 / cc)));
}

/* tau widens sigma before the update: sigma'^2 = sigma^2 + tau^2. */
Test(rating, dynamics)
{
    ddz_rating_cfg c = paper();
    c.tau = 1;
    ddz_rating r[2] = {{25, 3}, {25, 3}}, q[2] = {{25, sqrt(10)}, {25, sqrt(10)}};
    double s[2] = {1, 0};
    c.tau = 1;
    cr_assert_eq(ddz_rating_update(&c, r, s, 2), 0);
    c.tau = 0;
    cr_assert_eq(ddz_rating_update(&c, q, s, 2), 0);
    NEAR(r[0].mu, q[0].mu);
    NEAR(r[0].sigma, q[0].sigma);
}

Test(rating, refuses_bad_input)
{
    ddz_rating_cfg c = paper();
    ddz_rating r[3] = {{25, 8}, {25, 0}, {25, 8}};
    double s[3] = {1, 0, -1};
    cr_expect_eq(ddz_rating_update(&c, r, s, 3), -1);
    cr_expect_eq(ddz_rating_update(&c, r, s, 1), -1);
    cr_expect_eq(r[0].mu, 25);
    r[1].sigma = 8;
    s[0] = NAN;
    cr_expect_eq(ddz_rating_update(&c, r, s, 3), -1);
}

/* Many events between a stronger and a weaker player: the ranking comes
 * out right and the uncertainty falls. */
Test(rating, converges)
{
    ddz_rating_cfg c;
    ddz_rating_cfg_default(&c);
    ddz_rating r[3] = {ddz_rating_new(&c), ddz_rating_new(&c), ddz_rating_new(&c)};
    for (int k = 0; k < 40; k++) {
        /* 0 beats 1 beats 2, except every fifth deal where luck wins */
        double s[3] = {2, 1, 0};
        if (k % 5 == 4)
            s[0] = -1;
        cr_assert_eq(ddz_rating_update(&c, r, s, 3), 0);
    }
    cr_expect_gt(r[0].mu, r[1].mu);
    cr_expect_gt(r[1].mu, r[2].mu);
    for (int i = 0; i < 3; i++)
        cr_expect_lt(r[i].sigma, 4.0);
}
