/* test_sprt.c - the SPRT of `ddz match --sprt` (service/match/sprt.c)
 * against values worked out by hand, shown in the comments, and against a
 * published example. Hand values are rounded to 6 places; the tolerances
 * say so. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rules/error.h"
#include "service/match/sprt.h"

#define ELO_075 190.84850188786498 /* 400 log10(3): the Elo of score 3/4 */

Test(sprt, bounds_are_walds)
{
    double lo, hi;
    /* alpha = beta = 0.05: ln(0.05 / 0.95) = ln(1/19) = -2.944439,
     * ln(0.95 / 0.05) = ln 19 = 2.944439 */
    ddz_sprt_bounds(0.05, 0.05, &lo, &hi);
    cr_assert_float_eq(lo, -2.944439, 1e-6);
    cr_assert_float_eq(hi, 2.944439, 1e-6);
    /* alpha = 0.05, beta = 0.1: ln(0.1 / 0.95) = -2.251292,
     * ln(0.9 / 0.05) = ln 18 = 2.890372 */
    ddz_sprt_bounds(0.05, 0.1, &lo, &hi);
    cr_assert_float_eq(lo, -2.251292, 1e-6);
    cr_assert_float_eq(hi, 2.890372, 1e-6);
}

Test(sprt, elo_and_score_are_the_logistic_curve)
{
    cr_assert_float_eq(ddz_sprt_score_of_elo(0), 0.5, 1e-15);
    /* 1 / (1 + 10^(-log10 3)) = 1 / (1 + 1/3) = 3/4 */
    cr_assert_float_eq(ddz_sprt_score_of_elo(ELO_075), 0.75, 1e-12);
    cr_assert_float_eq(ddz_sprt_score_of_elo(-ELO_075), 0.25, 1e-12);
    /* 400: 1 / (1 + 1/10) = 10/11 */
    cr_assert_float_eq(ddz_sprt_score_of_elo(400), 10.0 / 11, 1e-12);
    cr_assert_float_eq(ddz_sprt_elo_of_score(0.75), ELO_075, 1e-9);
    cr_assert_float_eq(ddz_sprt_elo_of_score(2.0 / 3), 400 * log10(2), 1e-9);
    cr_assert(isinf(ddz_sprt_elo_of_score(0)) && ddz_sprt_elo_of_score(0) < 0);
    cr_assert(isinf(ddz_sprt_elo_of_score(1)) && ddz_sprt_elo_of_score(1) > 0);
}

/* 2 wins, 1 draw, 1 loss; H0: s = 1/2 (Elo 0), H1: s = 3/4 (Elo 190.85).
 *
 * Empirical frequencies over the outcomes worth (0, 1/2, 1) = (L, D, W):
 * p = (1/4, 1/4, 1/2), mean 5/8. The most likely trinomial with mean s is
 * q_i = p_i / (1 + t x_i), x_i = a_i - s, with t solving
 * sum_i p_i x_i / (1 + t x_i) = 0.
 *
 * H0, s = 1/2: x = (-1/2, 0, 1/2):
 *   -(1/8) / (1 - t/2) + (1/4) / (1 + t/2) = 0
 *   -(1/8)(1 + t/2) + (1/4)(1 - t/2) = 0  =>  1/8 = (3/16) t  =>  t = 2/3
 *   q0 = (1/4 / (2/3), 1/4, 1/2 / (4/3)) = (3/8, 1/4, 3/8)  (mean 1/2)
 * H1, s = 3/4: x = (-3/4, -1/4, 1/4); times 16, denominators times 4:
 *   -3 / (4 - 3t) - 1 / (4 - t) + 2 / (4 + t) = 0
 *   -3(16 - t^2) - (16 - 8t - 3t^2) + 2(16 - 16t + 3t^2) = 0
 *   12 t^2 - 24 t - 32 = 0  =>  t = 1 -+ sqrt(11/3)
 *   every 1 + t x_i > 0 needs -4 < t < 4/3: t = 1 - sqrt(11/3) = -0.914854
 *   q1 = (1/4 / 1.686141, 1/4 / 1.228714, 1/2 / 0.771286)
 *      = (0.148268, 0.203465, 0.648268)  (sum 1, mean 3/4)
 * LLR = 1 ln(q1_L / q0_L) + 1 ln(q1_D / q0_D) + 2 ln(q1_W / q0_W)
 *     = ln(0.148268 / 0.375) + ln(0.203465 / 0.25) + 2 ln(0.648268 / 0.375)
 *     = -0.927907 - 0.205968 + 2 (0.547378) = -0.039120
 * (a plain 5/8 is closer to 1/2 than to 3/4 only just: the ratio is near 0). */
Test(sprt, llr_of_a_small_sample_by_hand)
{
    cr_assert_float_eq(ddz_sprt_llr_score(2, 1, 1, 0.5, 0.75), -0.039120, 2e-6);
    ddz_sprt t = {.elo0 = 0, .elo1 = ELO_075, .alpha = 0.05, .beta = 0.05};
    cr_assert_float_eq(ddz_sprt_llr(&t, 2, 1, 1), -0.039120, 2e-6);
}

/* When the sample's mean is s0 itself, the H0 fit is the sample: t = 0,
 * q0 = p. 1 win, 2 draws, 1 loss (p = (1/4, 1/2, 1/4), mean 1/2) against
 * H1: s = 3/4, x = (-3/4, -1/4, 1/4); times 16, denominators times 4:
 *   -3 / (4 - 3t) - 2 / (4 - t) + 1 / (4 + t) = 0
 *   -3(16 - t^2) - 2(16 - 8t - 3t^2) + (16 - 16t + 3t^2) = 0
 *   12 t^2 - 64 = 0  =>  t = -sqrt(16/3) = -2.309401  (in (-4, 4/3))
 *   q1 = (1/4 / (1 + 0.75 * 2.309401), 1/2 / (1 + 0.25 * 2.309401),
 *         1/4 / (1 - 0.25 * 2.309401))
 *      = (0.25 / 2.732051, 0.5 / 1.577350, 0.25 / 0.422650)
 *      = (0.091506, 0.316987, 0.591506)
 * LLR = ln(0.091506 / 0.25) + 2 ln(0.316987 / 0.5) + ln(0.591506 / 0.25)
 *     = -1.005053 + 2 (-0.455746) + 0.861212 = -1.055333 */
Test(sprt, llr_when_the_sample_sits_on_h0)
{
    cr_assert_float_eq(ddz_sprt_llr_score(1, 2, 1, 0.5, 0.75), -1.055333, 2e-6);
}

/* Published: jw1912/SPRT's README gives, for 4307 wins, 4063 losses and
 * 8620 draws with elo0 = 0, elo1 = 3, "LLR: 2.99 (-2.94, 2.94)" for its
 * GSPRT (and 2.47 for cutechess-cli's BayesElo SPRT, a different model). */
Test(sprt, llr_matches_a_published_gsprt_example)
{
    ddz_sprt t = {.elo0 = 0, .elo1 = 3, .alpha = 0.05, .beta = 0.05};
    cr_assert_float_eq(ddz_sprt_llr(&t, 4307, 8620, 4063), 2.99, 0.005);
    cr_assert_eq(ddz_sprt_verdict(&t, 4307, 8620, 4063), DDZ_SPRT_H1);
    /* the same counts do not reach alpha = beta = 0.04's ln 24 = 3.178 */
    t.alpha = t.beta = 0.04;
    cr_assert_eq(ddz_sprt_verdict(&t, 4307, 8620, 4063), DDZ_SPRT_CONTINUE);
}

/* Swapping wins and losses mirrors the scores: s -> 1 - s. */
Test(sprt, llr_is_symmetric_under_swapping_sides)
{
    const long c[][3] = {{5, 3, 2}, {40, 0, 31}, {0, 7, 0}, {1, 0, 0}, {120, 77, 101}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double a = ddz_sprt_llr_score(c[i][0], c[i][1], c[i][2], 0.5, 0.6);
        double b = ddz_sprt_llr_score(c[i][2], c[i][1], c[i][0], 0.5, 0.4);
        cr_assert_float_eq(a, b, 1e-9, "case %zu: %f vs %f", i, a, b);
    }
}

/* Zero counts count as 0.001 (fishtest), so that identical players, who
 * draw every set, are told apart from a better one. 3 draws, H0 = Elo 0,
 * H1 = Elo 300 (s1 = 1 / (1 + 10^-0.75) = 0.849020): the sample (0.001,
 * 3, 0.001) has mean 1/2, so q0 = p = (0.000333, 0.999334, 0.000333). An
 * H1 fit must carry its mean on wins nearly alone: the fit puts
 * q_L = 0.000050 on losses, and q_W + q_D + q_L = 1, q_W + q_D / 2 = s1
 * give q_D = 2 (1 - s1 - q_L) = 0.301859, q_W = 0.698091.
 * LLR = 3 ln(0.301859 / 0.999334) + 0.001 ln(0.698091 / 0.000333)
 *       + 0.001 ln(0.000050 / 0.000333)
 *     = -3.591343 + 0.007648 - 0.001890 = -3.585585: H0 after three draws
 * (ln(1/19) = -2.944), not after two (two thirds of it, -2.39). */
Test(sprt, all_draws_drift_to_h0)
{
    double s1 = ddz_sprt_score_of_elo(300);
    cr_assert_float_eq(s1, 0.849020, 1e-6);
    double llr = ddz_sprt_llr_score(0, 3, 0, 0.5, s1);
    cr_assert_float_eq(llr, -3.585585, 1e-4);
    ddz_sprt t = {.elo0 = 0, .elo1 = 300, .alpha = 0.05, .beta = 0.05};
    cr_assert_eq(ddz_sprt_verdict(&t, 0, 2, 0), DDZ_SPRT_CONTINUE);
    cr_assert_eq(ddz_sprt_verdict(&t, 0, 3, 0), DDZ_SPRT_H0);
}

/* One win, H0 Elo 0, H1 Elo 200 (s1 = 0.759747): the H0 fit of (0.001,
 * 0.001, 1) moves weight to losses, the outcome that lowers the mean
 * most for the least weight: q0 ~ (1/2, 0, 1/2); the H1 fit likewise
 * q1 ~ (1 - s1, 0, s1). LLR ~ ln(0.759747 / 0.5) = 0.418378 (the
 * regularised counts move it by about 0.0003). */
Test(sprt, one_win_is_not_enough)
{
    double llr = ddz_sprt_llr_score(1, 0, 0, 0.5, ddz_sprt_score_of_elo(200));
    cr_assert_float_eq(llr, 0.418378, 0.001);
    cr_assert_float_eq(ddz_sprt_llr_score(0, 0, 0, 0.5, 0.6), 0, 0);
    cr_assert_float_eq(ddz_sprt_llr_score(-1, 2, 0, 0.5, 0.6), 0, 0);
}

/* The LLR only grows with more wins at a fixed number of sets. */
Test(sprt, llr_grows_with_wins)
{
    double prev = -INFINITY;
    for (long w = 0; w <= 20; w++) {
        double llr = ddz_sprt_llr_score(w, 0, 20 - w, 0.5, 0.55);
        cr_assert_gt(llr, prev, "w = %ld", w);
        prev = llr;
    }
}

/* 30 wins, 20 draws, 10 losses (n = 60):
 *   score s = (30 + 10) / 60 = 2/3, Elo = -400 log10(1/2) = 120.412
 *   variance of one set: (30 (1/3)^2 + 20 (1/6)^2 + 10 (2/3)^2) / 60
 *                      = (3.333333 + 0.555556 + 4.444444) / 60 = 0.138889
 *   standard error sqrt(0.138889 / 60) = 0.048113; 1.959964 of them = 0.094300
 *   interval of s: (0.572367, 0.760967) -> Elo (50.61, 201.13)
 *   margin (201.13 - 50.61) / 2 = 75.26
 *   LOS 0.5 (1 + erf(20 / sqrt(80))) = 0.5 (1 + erf(2.236068)) = 0.999217 */
Test(sprt, estimate_by_hand)
{
    ddz_sprt_elo e = ddz_sprt_estimate(30, 20, 10);
    cr_assert_float_eq(e.score, 2.0 / 3, 1e-12);
    cr_assert_float_eq(e.elo, 120.412, 0.001);
    cr_assert_float_eq(e.margin, 75.26, 0.01);
    cr_assert_float_eq(e.los, 0.999217, 1e-6);
    cr_assert_float_eq(e.draw_ratio, 1.0 / 3, 1e-12);

    e = ddz_sprt_estimate(0, 0, 0);
    cr_assert_float_eq(e.score, 0.5, 0);
    cr_assert_float_eq(e.los, 0.5, 0);
    cr_assert(isinf(e.margin));
    e = ddz_sprt_estimate(3, 0, 0); /* all won: no finite Elo */
    cr_assert(isinf(e.elo) && e.elo > 0);
    cr_assert(isinf(e.margin));
    e = ddz_sprt_estimate(0, 4, 0); /* all drawn: Elo 0, no spread */
    cr_assert_float_eq(e.elo, 0, 1e-12);
    cr_assert_float_eq(e.margin, 0, 1e-12);
}

Test(sprt, parse_takes_two_or_four_numbers)
{
    ddz_sprt t;
    char err[200];
    cr_assert_eq(ddz_sprt_parse("0,50", &t, err, sizeof err), 0, "%s", err);
    cr_assert(t.elo0 == 0 && t.elo1 == 50 && t.alpha == 0.05 && t.beta == 0.05);
    cr_assert_eq(ddz_sprt_parse("-5.5,2.5,0.1,0.2", &t, err, sizeof err), 0, "%s", err);
    cr_assert(t.elo0 == -5.5 && t.elo1 == 2.5 && t.alpha == 0.1 && t.beta == 0.2);

    const struct {
        const char *text, *says;
    } bad[] = {
        {"", "ELO0,ELO1"},           {"50", "ELO0,ELO1"},
        {"0,50,0.05", "ELO0,ELO1"},  {"0,50,0.05,0.05,1", "ELO0,ELO1"},
        {"0,", "ELO0,ELO1"},         {",50", "ELO0,ELO1"},
        {"a,b", "decimal"},          {"0,50x", "decimal"},
        {"nan,5", "decimal"},        {"0,inf", "decimal"},
        {"50,0", "below"},           {"5,5", "below"},
        {"0,1001", "1000"},          {"-1500,0", "1000"},
        {"0,50,0,0.05", "ALPHA"},    {"0,50,0.05,0.5", "ALPHA"},
        {"0,50,-0.1,0.05", "ALPHA"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddz_sprt keep = {1, 2, 0.1, 0.1}, u = keep;
        err[0] = '\0';
        cr_assert_eq(ddz_sprt_parse(bad[i].text, &u, err, sizeof err), DDZ_EINVAL, "'%s'",
                     bad[i].text);
        cr_assert_not_null(strstr(err, bad[i].says), "'%s': %s", bad[i].text, err);
        cr_assert(u.elo0 == keep.elo0 && u.elo1 == keep.elo1, "'%s' changed *out", bad[i].text);
    }
}
