/* test_ruleset.c - rule-set parameters (SPEC 3, 5, 6, 8). */
#include <criterion/criterion.h>
#include <limits.h>
#include <sodium.h>

#include "ai/random.h"
#include "rules/error.h"
#include "rules/game.h"
#include "rules/movegen.h"
#include "rules/view.h"

/* ---------------------------------------------------------------------- */
/* Numbers                                                                 */

Test(ruleset, caai_parameters)
{
    cr_assert_eq(ddz_rules_find("caai"), &ddz_rules_caai);
    cr_assert_eq(ddz_rules_caai.max_bid, 3);
    cr_assert_eq(ddz_rules_caai.deal_maxscore, 350);
    cr_assert_eq(ddz_rules_caai.fault_policy, DDZ_FAULTPOLICY_END);
    cr_assert_eq(ddz_rules_caai.allpass, DDZ_ALLPASS_NOGAME);
    cr_assert_not_null(ddz_rules_caai.multiplier);
    cr_assert_not_null(ddz_rules_caai.score);
    cr_assert_not_null(ddz_rules_caai.penalty);
}

Test(ruleset, early_penalty_is_maxscore_over_games)
{
    const ddz_rules *rs = &ddz_rules_caai;
    cr_assert_eq(ddz_rules_early_penalty(rs, 0, 0), 350, "nothing given: the default");
    cr_assert_eq(ddz_rules_early_penalty(rs, 2100, 6), 350, "SPEC 6: 2100 / 6");
    cr_assert_eq(ddz_rules_early_penalty(rs, 7000, 20), 350);
    cr_assert_eq(ddz_rules_early_penalty(rs, 350 * 20, 20), 350);
    cr_assert_eq(ddz_rules_early_penalty(rs, 1000, 3), 333, "rounded down");
    cr_assert_eq(ddz_rules_early_penalty(rs, 6000, 6), 1000);
    cr_assert_eq(ddz_rules_early_penalty(rs, 0, 6), 350);
    cr_assert_eq(ddz_rules_early_penalty(rs, -5, 6), 350);
    cr_assert_eq(ddz_rules_early_penalty(rs, 2100, 0), 350);
    cr_assert_eq(ddz_rules_early_penalty(rs, 2100, -1), 350);

    ddz_rules other = ddz_rules_caai;
    other.deal_maxscore = 500;
    cr_assert_eq(ddz_rules_early_penalty(&other, 0, 0), 500, "the default is the rule set's");
    cr_assert_eq(ddz_rules_early_penalty(&other, 2100, 6), 350);
}

Test(ruleset, maxscore_is_deal_maxscore_times_games)
{
    const ddz_rules *rs = &ddz_rules_caai;
    cr_assert_eq(ddz_rules_maxscore(rs, 6), 2100);
    cr_assert_eq(ddz_rules_maxscore(rs, 20), 7000);
    cr_assert_eq(ddz_rules_maxscore(rs, 1), 350);
    cr_assert_eq(ddz_rules_maxscore(rs, 0), 350);
    cr_assert_eq(ddz_rules_maxscore(rs, -3), 350);
    cr_assert_eq(ddz_rules_maxscore(rs, INT_MAX), INT_MAX, "saturates");
    for (int games = 1; games <= 50; games++)
        cr_assert_eq(ddz_rules_early_penalty(rs, ddz_rules_maxscore(rs, games), games), 350);
}

/* ---------------------------------------------------------------------- */
/* The bid ladder                                                          */

static const struct {
    int8_t bids[3];
    int n;
    int want[DDZ_NBIDS_MAX];
} ladder[] = {
    {{-1, -1, -1}, 4, {0, 1, 2, 3}}, /* West first */
    {{0, -1, -1}, 4, {0, 1, 2, 3}},
    {{0, 0, -1}, 4, {0, 1, 2, 3}}, /* two passes: East may still bid anything */
    {{0, 0, 0}, 4, {0, 1, 2, 3}},  /* all passed: the ladder does not know it is over */
    {{1, -1, -1}, 3, {0, 2, 3}},
    {{2, -1, -1}, 2, {0, 3}},
    {{1, 2, -1}, 2, {0, 3}},
    {{2, 0, -1}, 2, {0, 3}},
    {{0, 1, -1}, 3, {0, 2, 3}},
    {{3, -1, -1}, 1, {0}},
    {{0, 3, -1}, 1, {0}},
    {{-1, 2, -1}, 2, {0, 3}}, /* only made bids count, wherever they are */
};

Test(ruleset, legal_bids_after_earlier_bids)
{
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        int out[DDZ_NBIDS_MAX] = {-9, -9, -9, -9};
        int n = ddz_rules_legal_bids(&ddz_rules_caai, ladder[i].bids, out);
        cr_assert_eq(n, ladder[i].n, "case %zu: %d bids", i, n);
        for (int k = 0; k < n; k++)
            cr_assert_eq(out[k], ladder[i].want[k], "case %zu, value %d", i, k);
        for (int k = n; k < DDZ_NBIDS_MAX; k++)
            cr_assert_eq(out[k], -9, "case %zu writes past its count", i);
    }
}

Test(ruleset, legal_bids_follow_max_bid)
{
    ddz_rules low = ddz_rules_caai;
    low.max_bid = 2;
    int out[DDZ_NBIDS_MAX];
    int8_t none[3] = {-1, -1, -1}, one[3] = {1, -1, -1}, two[3] = {2, -1, -1};
    cr_assert_eq(ddz_rules_legal_bids(&low, none, out), 3);
    cr_assert_eq(out[2], 2);
    cr_assert_eq(ddz_rules_legal_bids(&low, one, out), 2);
    cr_assert_eq(out[1], 2);
    cr_assert_eq(ddz_rules_legal_bids(&low, two, out), 1);
    cr_assert_eq(out[0], 0);
}

static ddz_deal any_deal(uint32_t k)
{
    uint8_t master[32] = {3}, seed[32];
    ddz_deal d;
    ddz_deal_game_seed(master, k, seed);
    cr_assert_eq(ddz_deal_from_seed(seed, &d), 0);
    return d;
}

/* Walks every bid sequence; at every step ddz_game_bid accepts exactly the
 * values ddz_rules_legal_bids lists (one rule, not two copies), and a bid of
 * max_bid ends bidding. */
static void walk_bids(const ddz_game *g, int *states)
{
    if (g->phase != DDZ_PHASE_BID)
        return;
    ++*states;
    int legal[DDZ_NBIDS_MAX];
    int n = ddz_rules_legal_bids(g->rules, g->bids, legal);
    for (int bid = -1; bid <= 5; bid++) {
        bool listed = false;
        for (int i = 0; i < n; i++)
            listed |= legal[i] == bid;
        ddz_game h = *g;
        int rc = ddz_game_bid(&h, g->turn, bid);
        cr_assert_eq(rc, listed ? 0 : DDZ_EBID, "bid %d after %d,%d,%d", bid, g->bids[0],
                     g->bids[1], g->bids[2]);
        if (rc != 0) {
            cr_assert(memcmp(&h, g, sizeof h) == 0, "a refused bid changes nothing");
            continue;
        }
        if (bid == g->rules->max_bid) {
            cr_assert_eq(h.phase, DDZ_PHASE_PLAY, "max_bid ends bidding");
            cr_assert_eq(h.landlord, g->turn);
            cr_assert_eq(h.bid, bid);
        }
        walk_bids(&h, states);
    }
}

Test(ruleset, game_bid_accepts_exactly_the_legal_bids)
{
    cr_assert_geq(sodium_init(), 0);
    ddz_deal d = any_deal(0);
    ddz_game g;
    int states = 0;
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    walk_bids(&g, &states);
    cr_assert_eq(states, 10, "1 + 3 after West + 3 + 2 + 1 after South");

    ddz_rules low = ddz_rules_caai;
    low.max_bid = 2;
    ddz_game_start(&g, &low, &d, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 3), DDZ_EBID, "above max_bid");
    cr_assert_eq(ddz_game_bid(&g, 0, 2), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY, "a bid of max_bid ends bidding at once");
    cr_assert_eq(g.landlord, 0);
    states = 0;
    ddz_game_start(&g, &low, &d, 350);
    walk_bids(&g, &states);
    cr_assert_eq(states, 6, "1 + 2 after West + 2 + 1 after South");
}

/* ---------------------------------------------------------------------- */
/* The game calls the rule set's functions                                 */

static int32_t fake_multiplier(const ddz_game *g)
{
    return 7 + g->spring;
}

static void fake_score(const ddz_game *g, int32_t out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = g->multiplier * 10 + s;
}

static void fake_penalty(const ddz_game *g, int seat, int32_t out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = (g->phase == DDZ_PHASE_BID ? -1000 : 1000) - 10 * seat - s;
}

static void play_out(ddz_game *g, ddz_rng *r)
{
    static ddz_move moves[DDZ_MOVES_MAX];
    while (g->phase == DDZ_PHASE_PLAY) {
        ddz_view v;
        ddz_view_of(g, g->turn, &v);
        ddz_cards c = ddz_random_play(r, &v, moves, DDZ_MOVES_MAX);
        cr_assert_eq(ddz_game_play(g, g->turn, c), 0);
    }
}

Test(ruleset, game_scores_through_the_rule_set)
{
    cr_assert_geq(sodium_init(), 0);
    ddz_rules fake = ddz_rules_caai;
    fake.multiplier = fake_multiplier;
    fake.score = fake_score;
    fake.penalty = fake_penalty;
    ddz_rng r;
    ddz_rng_seed(&r, 5);
    ddz_deal d = any_deal(1);
    ddz_game g;

    ddz_game_start(&g, &fake, &d, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 2), 0);
    ddz_game saved = g;
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_TIMEOUT), 0);
    cr_assert_eq(g.score[0], -1010);
    cr_assert_eq(g.score[1], -1011);
    cr_assert_eq(g.score[2], -1012);

    g = saved;
    cr_assert_eq(ddz_game_bid(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 2, 0), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    saved = g;
    cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_CRASH), 0);
    cr_assert_eq(g.score[0], 980);
    cr_assert_eq(g.score[2], 978);

    g = saved;
    play_out(&g, &r);
    cr_assert_eq(g.multiplier, 7 + g.spring);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(g.score[s], g.multiplier * 10 + s);

    /* a fault policy the game does not implement is refused, nothing changes */
    ddz_rules odd = ddz_rules_caai;
    odd.fault_policy = DDZ_FAULTPOLICY_END + 1;
    ddz_game_start(&g, &odd, &d, 350);
    saved = g;
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_TIMEOUT), DDZ_EINVAL);
    cr_assert(memcmp(&g, &saved, sizeof g) == 0);
}
