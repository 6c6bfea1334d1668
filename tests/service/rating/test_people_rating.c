/* test_people_rating.c - one game's rating update: directions, sizes,
 * symmetry, the farmers never compared, all-pass, the AIs' ids. */
#include <criterion/criterion.h>
#include <math.h>

#include "service/rating/people_rating.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-9, "%.15f != %.15f", (double)(a), (double)(b))

static ddz_rating_cfg cfg(void)
{
    ddz_rating_cfg c;
    ddz_people_rating_cfg(&c);
    return c;
}

static void fresh(const ddz_rating_cfg *c, ddz_rating r[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = ddz_rating_new(c);
}

Test(people_rating, constants)
{
    ddz_rating_cfg c = cfg();
    NEAR(c.mu0, 25.0);
    NEAR(c.sigma0, 25.0 / 3.0);
    NEAR(c.beta, 25.0 / 3.0);
    NEAR(ddz_people_rating_shown(25.0), 1500.0);
    NEAR(ddz_people_rating_shown(26.0), 1540.0);
    NEAR(ddz_people_rating_deviation(25.0 / 3.0), 1000.0 / 3.0);
}

Test(people_rating, landlord_win_moves_landlord_up_farmers_down)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3];
    fresh(&c, r);
    cr_assert_eq(ddz_people_rating_game(&c, r, 1, true), 1);
    cr_expect_gt(r[1].mu, 25.0);
    cr_expect_lt(r[0].mu, 25.0);
    cr_expect_lt(r[2].mu, 25.0);
    NEAR(r[0].mu, r[2].mu);
    for (int i = 0; i < 3; i++)
        cr_expect_lt(r[i].sigma, 25.0 / 3.0, "seat %d", i);
    /* the landlord played two events, each farmer one: it learns more */
    cr_expect_lt(r[1].sigma, r[0].sigma);
    cr_expect_gt(fabs(r[1].mu - 25.0), fabs(r[0].mu - 25.0));
}

Test(people_rating, landlord_loss_moves_the_other_way)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3];
    fresh(&c, r);
    cr_assert_eq(ddz_people_rating_game(&c, r, 0, false), 1);
    cr_expect_lt(r[0].mu, 25.0);
    cr_expect_gt(r[1].mu, 25.0);
    cr_expect_gt(r[2].mu, 25.0);
}

/* A win and a loss of equal players mirror each other around mu0. */
Test(people_rating, symmetric)
{
    ddz_rating_cfg c = cfg();
    ddz_rating w[3], l[3];
    fresh(&c, w);
    fresh(&c, l);
    cr_assert_eq(ddz_people_rating_game(&c, w, 2, true), 1);
    cr_assert_eq(ddz_people_rating_game(&c, l, 2, false), 1);
    for (int i = 0; i < 3; i++) {
        NEAR(w[i].mu - 25.0, 25.0 - l[i].mu);
        NEAR(w[i].sigma, l[i].sigma);
    }
    /* the seat of the landlord does not matter */
    ddz_rating s[3];
    fresh(&c, s);
    cr_assert_eq(ddz_people_rating_game(&c, s, 0, true), 1);
    NEAR(s[0].mu, w[2].mu);
    NEAR(s[1].mu, w[0].mu);
    NEAR(s[2].mu, w[1].mu);
}

/* Beating a stronger side moves more than beating a weaker one. */
Test(people_rating, upset_moves_more)
{
    ddz_rating_cfg c = cfg();
    ddz_rating strong = {.mu = 32, .sigma = 3}, weak = {.mu = 18, .sigma = 3};
    ddz_rating up[3] = {weak, strong, strong};     /* the weak landlord beats strong farmers */
    ddz_rating expected[3] = {strong, weak, weak}; /* the strong landlord beats weak farmers */
    cr_assert_eq(ddz_people_rating_game(&c, up, 0, true), 1);
    cr_assert_eq(ddz_people_rating_game(&c, expected, 0, true), 1);
    double up_gain = up[0].mu - weak.mu, exp_gain = expected[0].mu - strong.mu;
    cr_expect_gt(exp_gain, 0);
    cr_expect_gt(up_gain, 2 * exp_gain, "upset %f, expected %f", up_gain, exp_gain);
    cr_expect_gt(strong.mu - up[1].mu, weak.mu - expected[1].mu);
}

/* Each farmer is rated against the landlord alone: a farmer's update does
 * not depend on its teammate (there is no farmer-farmer comparison), and
 * equals the pairwise Weng-Lin event against the landlord's pre-game
 * rating. */
Test(people_rating, farmers_not_compared)
{
    ddz_rating_cfg c = cfg();
    ddz_rating ll = {.mu = 27, .sigma = 5}, f = {.mu = 24, .sigma = 6};
    ddz_rating a[3] = {ll, f, (ddz_rating){.mu = 10, .sigma = 2}};
    ddz_rating b[3] = {ll, f, (ddz_rating){.mu = 40, .sigma = 8}};
    cr_assert_eq(ddz_people_rating_game(&c, a, 0, false), 1);
    cr_assert_eq(ddz_people_rating_game(&c, b, 0, false), 1);
    NEAR(a[1].mu, b[1].mu);
    NEAR(a[1].sigma, b[1].sigma);
    ddz_rating pair[2] = {ll, f};
    double score[2] = {0, 1};
    cr_assert_eq(ddz_rating_update(&c, pair, score, 2), 0);
    NEAR(a[1].mu, pair[1].mu);
    NEAR(a[1].sigma, pair[1].sigma);
    /* the landlord's change is the sum of its two pairwise changes */
    ddz_rating p1[2] = {ll, f}, p2[2] = {ll, a[2]};
    ddz_rating pre2 = {.mu = 10, .sigma = 2};
    p2[1] = pre2;
    cr_assert_eq(ddz_rating_update(&c, p1, score, 2), 0);
    cr_assert_eq(ddz_rating_update(&c, p2, score, 2), 0);
    NEAR(a[0].mu - ll.mu, (p1[0].mu - ll.mu) + (p2[0].mu - ll.mu));
}

Test(people_rating, all_pass_rates_nothing)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3];
    fresh(&c, r);
    cr_expect_eq(ddz_people_rating_game(&c, r, -1, true), 0);
    cr_expect_eq(ddz_people_rating_game(&c, r, -1, false), 0);
    for (int i = 0; i < 3; i++) {
        NEAR(r[i].mu, 25.0);
        NEAR(r[i].sigma, 25.0 / 3.0);
    }
}

Test(people_rating, bad_input_changes_nothing)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3];
    fresh(&c, r);
    cr_expect_eq(ddz_people_rating_game(&c, r, 3, true), -1);
    cr_expect_eq(ddz_people_rating_game(&c, r, -2, true), -1);
    r[2].sigma = 0;
    cr_expect_eq(ddz_people_rating_game(&c, r, 0, true), -1);
    NEAR(r[0].mu, 25.0);
    NEAR(r[1].mu, 25.0);
}

Test(people_rating, ai_ids)
{
    cr_expect_eq(ddz_people_rating_ai_id("ai:strong"), -1);
    cr_expect_eq(ddz_people_rating_ai_id("ai:greedy"), -2);
    cr_expect_eq(ddz_people_rating_ai_id("ai:random"), -3);
    cr_expect_eq(ddz_people_rating_ai_id("ai:other"), 0);
    cr_expect_eq(ddz_people_rating_ai_id(NULL), 0);
    for (int64_t id = -1; id >= -3; id--)
        cr_expect_eq(ddz_people_rating_ai_id(ddz_people_rating_ai_name(id)), id);
    cr_expect_null(ddz_people_rating_ai_name(0));
    cr_expect_null(ddz_people_rating_ai_name(-4));
    cr_expect_null(ddz_people_rating_ai_name(1));
}

/* Abandoning counts as a loss (SPEC §15): the one who left is rated as
 * having lost to every opponent, the others by the real result. */
Test(people_rating, forfeit_farmer_loses_though_his_side_won)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3], real[3];
    fresh(&c, r);
    fresh(&c, real);
    /* landlord 0 lost: farmers 1 and 2 won; farmer 2 had left */
    cr_assert_eq(ddz_people_rating_game_forfeit(&c, r, 0, false, 1u << 2), 1);
    cr_assert_eq(ddz_people_rating_game(&c, real, 0, false), 1);
    cr_expect_lt(r[2].mu, 25.0, "the leaver goes down");
    cr_expect_gt(r[1].mu, 25.0, "the farmer who stayed keeps the win");
    NEAR(r[1].mu, real[1].mu);
    NEAR(r[0].mu, real[0].mu); /* the landlord: the real result */
    /* the leaver loses exactly what a farmer who lost the same game loses */
    ddz_rating lost[3];
    fresh(&c, lost);
    cr_assert_eq(ddz_people_rating_game(&c, lost, 0, true), 1);
    NEAR(r[2].mu, lost[2].mu);
    NEAR(r[2].sigma, lost[2].sigma);
}

Test(people_rating, forfeit_landlord_loses_farmers_keep_real_result)
{
    ddz_rating_cfg c = cfg();
    ddz_rating r[3], real[3], lost[3];
    fresh(&c, r);
    fresh(&c, real);
    fresh(&c, lost);
    cr_assert_eq(ddz_people_rating_game_forfeit(&c, r, 1, true, 1u << 1), 1);
    cr_assert_eq(ddz_people_rating_game(&c, real, 1, true), 1);
    cr_assert_eq(ddz_people_rating_game(&c, lost, 1, false), 1);
    NEAR(r[1].mu, lost[1].mu); /* the landlord who left: a loss */
    cr_expect_lt(r[1].mu, 25.0);
    NEAR(r[0].mu, real[0].mu); /* the farmers: the game the stand-in won */
    NEAR(r[2].mu, real[2].mu);
    cr_expect_lt(r[0].mu, 25.0);
}

Test(people_rating, forfeit_none_is_the_plain_update_and_bad_masks_fail)
{
    ddz_rating_cfg c = cfg();
    ddz_rating a[3], b[3];
    fresh(&c, a);
    fresh(&c, b);
    cr_assert_eq(ddz_people_rating_game_forfeit(&c, a, 2, true, 0), 1);
    cr_assert_eq(ddz_people_rating_game(&c, b, 2, true), 1);
    for (int i = 0; i < 3; i++)
        NEAR(a[i].mu, b[i].mu);
    cr_expect_eq(ddz_people_rating_game_forfeit(&c, a, 0, true, 8), -1);
    cr_expect_eq(ddz_people_rating_game_forfeit(&c, a, -1, true, 1), 0);
}
