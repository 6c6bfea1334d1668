/* ruleset.c - the table of known rule sets, and what differs between them. */
#include "ruleset.h"

#include <limits.h>
#include <string.h>

#include "combo.h"
#include "game.h"

/* SPEC 5: x(1 + bombs) if any bomb, x2 rocket, x2 spring, x2 anti-spring. */
static int32_t caai_multiplier(const ddz_game *g)
{
    int32_t mult = 1;
    if (g->bombs)
        mult *= 1 + g->bombs;
    if (g->rocket)
        mult *= 2;
    if (g->spring)
        mult *= 2;
    if (g->anti_spring)
        mult *= 2;
    return mult;
}

/* SPEC 5 during a game: x(1 + bombs) if any bomb, x2 rocket. */
static int32_t caai_so_far(const ddz_game *g)
{
    return (g->bombs ? 1 + g->bombs : 1) * (g->rocket ? 2 : 1);
}

/* SPEC 5: the landlord wins or loses 2 x 100 x bid x multiplier, each
 * farmer half that with the other sign. */
static void caai_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord;
    int outcome = g->winner == ll ? 1 : -1;
    int32_t unit = outcome * 100 * g->bid * g->multiplier;
    for (int s = 0; s < 3; s++)
        out[s] = s == ll ? 2 * unit : -unit;
}

/* SPEC 6: before the leftover the faulty seat pays each other seat the
 * early penalty; after it, one unit of (held bombs + 1) x bid x 100,
 * doubled for a held rocket, to each farmer and two to the landlord. */
static void caai_penalty(const ddz_game *g, int seat, double out[3])
{
    if (g->phase == DDZ_PHASE_BID) {
        for (int s = 0; s < 3; s++)
            out[s] = s == seat ? -2 * g->early_penalty : g->early_penalty;
        return;
    }
    int32_t unit = (g->held_bombs + 1) * g->bid * 100 * (g->held_rocket ? 2 : 1);
    int ll = g->landlord;
    for (int s = 0; s < 3; s++) {
        if (seat == ll)
            out[s] = s == ll ? -2 * unit : unit;
        else if (s == seat)
            out[s] = -3 * unit;
        else
            out[s] = s == ll ? 2 * unit : unit;
    }
}

const ddz_rules ddz_rules_caai = {
    .name = "caai",
    .version = 1,
    .bidding = DDZ_BIDDING_LADDER,
    .allpass = DDZ_ALLPASS_NOGAME,
    .kickers_may_repeat = 1,
    .quad_straight = 0,
    .max_bid = 3,
    .deal_maxscore = 350, /* SPEC 6: 2100 / 6 */
    .default_time_ms = 15000,
    .fault_policy = DDZ_FAULTPOLICY_END,
    .score_unit = 100,
    .play_weight = NULL,
    .multiplier = caai_multiplier,
    .multiplier_so_far = caai_so_far,
    .score = caai_score,
    .penalty = caai_penalty,
};

/* ---- Botzone (SPEC 8, seed 002) ---- */

/* Seed 002's table: single 1, pair 2, trio (with or without a kicker) 4,
 * straight and pair straight 6, plane (with or without wings) and four_two 8,
 * bomb 10, quad straight of two fours 10, rocket 16, of three or more 20. */
static int ftl_weight(const ddz_combo *c)
{
    switch (c->type) {
    case DDZ_SINGLE:
        return 1;
    case DDZ_PAIR:
        return 2;
    case DDZ_TRIO:
    case DDZ_TRIO_KICKER:
        return 4;
    case DDZ_STRAIGHT:
    case DDZ_PAIR_STRAIGHT:
        return 6;
    case DDZ_TRIO_STRAIGHT:
    case DDZ_PLANE:
    case DDZ_FOUR_TWO:
        return 8;
    case DDZ_BOMB:
        return 10;
    case DDZ_QUAD_STRAIGHT:
        return c->length >= 3 ? 20 : 10;
    case DDZ_ROCKET:
        return 16;
    default:
        return 0;
    }
}

/* FightTheLandlord has no multiplier: the scores count plays instead. */
static int32_t ftl_multiplier(const ddz_game *g)
{
    (void)g;
    return 1;
}

static int32_t ftl_so_far(const ddz_game *g)
{
    (void)g;
    return 0;
}

/* 2 for the winning side, 0 for the other, plus weight / 100; the farmers
 * get the mean of their two: (400 x won + w1 + w2) / 200. Each score is one
 * division of whole numbers (see DDZ_SCORE_DENOM). */
static void ftl_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord, f1 = (ll + 1) % 3, f2 = (ll + 2) % 3;
    int ll_won = g->winner == ll;
    out[ll] = (400 * ll_won + 2 * g->weight[ll]) / 200.0;
    out[f1] = out[f2] = (400 * !ll_won + g->weight[f1] + g->weight[f2]) / 200.0;
}

/* The faulty side -1, the other side 2.5. */
static void ftl_penalty(const ddz_game *g, int seat, double out[3])
{
    int ll = g->landlord;
    for (int s = 0; s < 3; s++)
        out[s] = (seat == ll) == (s == ll) ? -1.0 : 2.5;
}

/* max(bid, 1) x 2^(bombs + rocket + spring + anti-spring). */
static int32_t ftl2_multiplier(const ddz_game *g)
{
    int32_t base = g->bid > 1 ? g->bid : 1;
    return base << (g->bombs + g->rocket + g->spring + g->anti_spring);
}

/* x2 for every bomb and the rocket, so far (the bid is the stake's base). */
static int32_t ftl2_so_far(const ddz_game *g)
{
    return (int32_t)1 << (g->bombs + g->rocket);
}

/* The landlord wins or loses 2m, each farmer m with the other sign. */
static void ftl2_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord;
    int32_t m = g->winner == ll ? g->multiplier : -g->multiplier;
    for (int s = 0; s < 3; s++)
        out[s] = s == ll ? 2 * m : -m;
}

/* Only three faulty seats end a game: every score -1. */
static void ftl2_penalty(const ddz_game *g, int seat, double out[3])
{
    (void)g, (void)seat;
    for (int s = 0; s < 3; s++)
        out[s] = -1.0;
}

const ddz_rules ddz_rules_botzone_ftl = {
    .name = "botzone-ftl",
    .version = 1,
    .bidding = DDZ_BIDDING_NONE,
    .allpass = DDZ_ALLPASS_NOGAME, /* never asked: nobody bids */
    .kickers_may_repeat = 0,
    .quad_straight = 1,
    .max_bid = 3,
    .deal_maxscore = 0,
    .default_time_ms = 3000, /* SPEC 8: a bot's process start-up fits */
    .fault_policy = DDZ_FAULTPOLICY_END,
    .score_unit = 1,
    .play_weight = ftl_weight,
    .multiplier = ftl_multiplier,
    .multiplier_so_far = ftl_so_far,
    .score = ftl_score,
    .penalty = ftl_penalty,
};

const ddz_rules ddz_rules_botzone_ftl2 = {
    .name = "botzone-ftl2",
    .version = 1,
    .bidding = DDZ_BIDDING_LADDER,
    .allpass = DDZ_ALLPASS_WEST,
    .kickers_may_repeat = 0,
    .quad_straight = 1,
    .max_bid = 3,
    .deal_maxscore = 0,
    .default_time_ms = 3000,
    .fault_policy = DDZ_FAULTPOLICY_PLAY_ON,
    .score_unit = 1,
    .play_weight = NULL,
    .multiplier = ftl2_multiplier,
    .multiplier_so_far = ftl2_so_far,
    .score = ftl2_score,
    .penalty = ftl2_penalty,
};

static const ddz_rules *const known[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl,
                                         &ddz_rules_botzone_ftl2};

const ddz_rules *ddz_rules_at(int i)
{
    return i >= 0 && (unsigned)i < sizeof known / sizeof known[0] ? known[i] : NULL;
}

const ddz_rules *ddz_rules_find(const char *name)
{
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i]->name, name) == 0)
            return known[i];
    return NULL;
}

const char *ddz_rules_names(void)
{
    return "caai, botzone-ftl, botzone-ftl2";
}

double ddz_score_add(double a, double b)
{
    /* no libm in rules/: round half away from zero by hand; |x| stays far
     * below 2^63 for any series */
    double x = (a + b) * DDZ_SCORE_DENOM;
    long long k = (long long)(x < 0 ? x - 0.5 : x + 0.5);
    return (double)k / DDZ_SCORE_DENOM;
}

int ddz_rules_maxscore(const ddz_rules *rs, int games)
{
    if (games <= 0)
        games = 1;
    if (rs->deal_maxscore > 0 && games > INT_MAX / rs->deal_maxscore)
        return INT_MAX;
    return rs->deal_maxscore * games;
}

int ddz_rules_early_penalty(const ddz_rules *rs, int maxscore, int games)
{
    if (maxscore <= 0 || games <= 0)
        return rs->deal_maxscore;
    return maxscore / games;
}

int ddz_rules_legal_bids(const ddz_rules *rs, const int8_t bids[3], int out[DDZ_NBIDS_MAX])
{
    int high = 0;
    for (int s = 0; s < 3; s++)
        if (bids[s] > high)
            high = bids[s];
    int top = rs->max_bid < DDZ_NBIDS_MAX - 1 ? rs->max_bid : DDZ_NBIDS_MAX - 1;
    int n = 0;
    out[n++] = 0;
    for (int b = high + 1; b <= top; b++)
        out[n++] = b;
    return n;
}
