/* test_ruleset.c - rule-set parameters (spec §3, §5, §6, §8) and rebuilding a
 * game from one seat's view (ddz_game_from_view). */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
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

Test(ruleset, botzone_parameters)
{
    const ddz_rules *ftl = ddz_rules_find("botzone-ftl"), *ftl2 = ddz_rules_find("botzone-ftl2");
    cr_assert_eq(ftl, &ddz_rules_botzone_ftl);
    cr_assert_eq(ftl2, &ddz_rules_botzone_ftl2);
    cr_assert_null(ddz_rules_find("botzone"));
    cr_assert_null(ddz_rules_find(""));
    cr_assert_eq(ftl->bidding, DDZ_BIDDING_NONE);
    cr_assert_eq(ftl2->bidding, DDZ_BIDDING_LADDER);
    cr_assert_eq(ddz_rules_caai.bidding, DDZ_BIDDING_LADDER);
    cr_assert_eq(ftl2->allpass, DDZ_ALLPASS_WEST);
    cr_assert_eq(ftl->fault_policy, DDZ_FAULTPOLICY_END);
    cr_assert_eq(ftl2->fault_policy, DDZ_FAULTPOLICY_PLAY_ON);
    for (int i = 0; i < 2; i++) {
        const ddz_rules *rs = i ? ftl2 : ftl;
        cr_assert_eq(rs->kickers_may_repeat, 0);
        cr_assert_eq(rs->quad_straight, 1);
        cr_assert_eq(rs->default_time_ms, 3000, "spec §8: 3 s per action");
        cr_assert_eq(rs->max_bid, 3);
        cr_assert_not_null(rs->multiplier);
        cr_assert_not_null(rs->score);
        cr_assert_not_null(rs->penalty);
    }
    cr_assert_not_null(ftl->play_weight);
    cr_assert_null(ftl2->play_weight);
    cr_assert_eq(ddz_rules_caai.quad_straight, 0);
    cr_assert_eq(ddz_rules_caai.default_time_ms, 15000);
    /* the names listed for usage messages are the ones found */
    char names[128];
    snprintf(names, sizeof names, "%s", ddz_rules_names());
    int n = 0;
    for (char *tok = strtok(names, ", "); tok; tok = strtok(NULL, ", "), n++)
        cr_assert_not_null(ddz_rules_find(tok), "%s", tok);
    cr_assert_eq(n, 3);
}

Test(ruleset, score_sums_stay_on_the_grid)
{
    double t = 0;
    for (int i = 0; i < 100000; i++)
        t = ddz_score_add(t, (i % 7 - 3) / 200.0 + 0.035);
    /* (i % 7 - 3) sums to 0 over each whole cycle of 7 and to -5 over the
     * last, partial one (i % 7 = 0..4): 100000 x 0.035 - 5 / 200 */
    cr_assert_eq(t, 3500 - 0.025);
    cr_assert_eq(ddz_score_add(-700, 350), -350.0);
    cr_assert_eq(ddz_score_add(0.1, 0.2), 0.3, "not 0.30000000000000004");
    cr_assert_eq(ddz_score_add(-0.005, -0.0025), -0.008, "half away from zero");
}

/* score_unit is what each rule set's own score function gives a landlord
 * who wins at bid 1 with no bomb, no spring and no play weights, halved:
 * hosted AIs divide by it, so it must agree with the scores. */
Test(ruleset, score_unit_agrees_with_the_scores)
{
    static const int want[] = {100, 1, 1};
    for (int i = 0; ddz_rules_at(i); i++) {
        const ddz_rules *rs = ddz_rules_at(i);
        cr_assert_eq(rs->score_unit, want[i], "%s", rs->name);
        for (int bid = 1; bid <= rs->max_bid; bid++) {
            ddz_game g;
            memset(&g, 0, sizeof g);
            g.rules = rs;
            g.landlord = 1;
            g.bid = (uint8_t)bid;
            g.last_seat = -1;
            for (int won = 0; won < 2; won++) {
                g.winner = (int8_t)(won ? 1 : 2);
                g.multiplier = rs->multiplier(&g);
                double out[3];
                rs->score(&g, out);
                /* botzone-ftl's losing side scores 0, not minus the stake */
                double lost = rs->play_weight ? 0 : -2.0 * rs->score_unit * bid;
                cr_assert_eq(out[1],
                             won ? 2.0 * rs->score_unit * (rs->play_weight ? 1 : bid) : lost,
                             "%s bid %d won %d: %g", rs->name, bid, won, out[1]);
            }
        }
    }
}

/* The weights of seed 002's table, by type name: the slow twin of
 * botzone-ftl's play_weight. */
static int seed_weight(const ddz_combo *c)
{
    static const struct {
        const char *type;
        int weight;
    } table[] = {{"single", 1},   {"pair", 2},          {"trio", 4},   {"trio_kicker", 4},
                 {"straight", 6}, {"pair_straight", 6}, {"plane", 8},  {"trio_straight", 8},
                 {"four_two", 8}, {"bomb", 10},         {"rocket", 16}};
    const char *name = ddz_type_name(c->type);
    if (strcmp(name, "quad_straight") == 0)
        return c->length == 2 ? 10 : 20;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].type, name) == 0)
            return table[i].weight;
    cr_assert_fail("no weight for %s", name);
    return 0;
}

/* Random botzone-ftl games: each player's score is 2 (won) or 0 plus the
 * weights of the plays it made / 100, and the farmers both get the mean
 * of theirs (seed 002). */
Test(ruleset, botzone_ftl_scores_count_the_plays)
{
    cr_assert_geq(sodium_init(), 0);
    static ddz_move moves[DDZ_MOVES_MAX];
    ddz_rng r;
    ddz_rng_seed(&r, 31);
    for (uint32_t k = 0; k < 2000; k++) {
        uint8_t master[32] = {9}, seed[32];
        ddz_deal d;
        ddz_deal_game_seed(master, k, seed);
        cr_assert_eq(ddz_deal_from_seed(seed, &d), 0);
        ddz_game g;
        ddz_game_start(&g, &ddz_rules_botzone_ftl, &d, 0);
        int w[3] = {0};
        while (g.phase == DDZ_PHASE_PLAY) {
            ddz_view v;
            ddz_view_of(&g, g.turn, &v);
            ddz_cards c = ddz_random_play(&r, &v, moves, DDZ_MOVES_MAX);
            if (c) {
                ddz_combo cb = ddz_combo_classify(g.rules, ddz_cards_ranks(c));
                w[g.turn] += seed_weight(&cb);
            }
            cr_assert_eq(ddz_game_play(&g, g.turn, c), 0);
        }
        double s[3];
        for (int p = 0; p < 3; p++)
            s[p] = ((g.winner == 0) == (p == 0) ? 2 : 0) + w[p] / 100.0;
        cr_assert_lt(fabs(g.score[0] - s[0]), 1e-9, "game %u: %g, want %g", k, g.score[0], s[0]);
        for (int p = 1; p < 3; p++)
            cr_assert_lt(fabs(g.score[p] - (s[1] + s[2]) / 2), 1e-9, "game %u seat %d", k, p);
    }
}

/* What a table shows during a game: the bombs and the rocket so far, no
 * bid, no spring; nothing where scores count plays. */
Test(ruleset, multiplier_so_far_counts_bombs_and_rocket)
{
    ddz_game g = {0};
    g.bid = 3;
    g.spring = 1; /* not known during a game: never counted */
    cr_assert_eq(ddz_rules_caai.multiplier_so_far(&g), 1);
    cr_assert_eq(ddz_rules_botzone_ftl2.multiplier_so_far(&g), 1);
    cr_assert_eq(ddz_rules_botzone_ftl.multiplier_so_far(&g), 0);
    g.bombs = 2;
    cr_assert_eq(ddz_rules_caai.multiplier_so_far(&g), 3);
    cr_assert_eq(ddz_rules_botzone_ftl2.multiplier_so_far(&g), 4);
    g.rocket = 1;
    cr_assert_eq(ddz_rules_caai.multiplier_so_far(&g), 6);
    cr_assert_eq(ddz_rules_botzone_ftl2.multiplier_so_far(&g), 8);
    cr_assert_eq(ddz_rules_botzone_ftl.multiplier_so_far(&g), 0);
}

Test(ruleset, early_penalty_is_maxscore_over_games)
{
    const ddz_rules *rs = &ddz_rules_caai;
    cr_assert_eq(ddz_rules_early_penalty(rs, 0, 0), 350, "nothing given: the default");
    cr_assert_eq(ddz_rules_early_penalty(rs, 2100, 6), 350, "spec §6: 2100 / 6");
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

static void fake_score(const ddz_game *g, double out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = g->multiplier * 10 + s;
}

static void fake_penalty(const ddz_game *g, int seat, double out[3])
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
    odd.fault_policy = 99;
    ddz_game_start(&g, &odd, &d, 350);
    saved = g;
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_TIMEOUT), DDZ_EINVAL);
    cr_assert(memcmp(&g, &saved, sizeof g) == 0);
}

/* ---------------------------------------------------------------------- */
/* ddz_game_from_view                                                      */

enum { PLAY_RANDOM, PLAY_FARMERS_PASS, PLAY_LANDLORD_PASSES, NMODES };

/* A move for the seat to move in `g`: uniformly random (PLAY_RANDOM), or
 * one side passes whenever it may and the other never passes when it can
 * play (PLAY_FARMERS_PASS makes springs, PLAY_LANDLORD_PASSES anti-springs). */
static ddz_cards pick(ddz_rng *r, const ddz_game *g, int mode)
{
    static ddz_move moves[DDZ_MOVES_MAX];
    ddz_view v;
    ddz_view_of(g, g->turn, &v);
    bool farmer = g->turn != g->landlord;
    bool passer =
        (mode == PLAY_FARMERS_PASS && farmer) || (mode == PLAY_LANDLORD_PASSES && !farmer);
    if (passer && !ddz_game_leading(g))
        return 0;
    if (mode == PLAY_RANDOM || passer)
        return ddz_random_play(r, &v, moves, DDZ_MOVES_MAX);
    bool leading = ddz_game_leading(g);
    int n = ddz_movegen(g->rules, ddz_cards_ranks(v.hand), leading ? NULL : &g->last, moves,
                        DDZ_MOVES_MAX);
    if (n < 0)
        n = DDZ_MOVES_MAX;
    int plays = leading ? n : n - 1; /* the pass comes last */
    if (plays == 0)
        return 0;
    return ddz_cards_pick(v.hand, moves[ddz_rng_below(r, (uint32_t)plays)].ranks);
}

/* A random game under caai, bid by ai:random and played by `mode`, stopped
 * in the play phase after `steps` actions of play. Returns false when all
 * passed or the game ended before. */
static bool game_at(ddz_rng *r, uint32_t k, int mode, int steps, ddz_game *g)
{
    ddz_deal d = any_deal(k);
    ddz_game_start(g, &ddz_rules_caai, &d, 350);
    ddz_view v;
    while (g->phase == DDZ_PHASE_BID) {
        ddz_view_of(g, g->turn, &v);
        cr_assert_eq(ddz_game_bid(g, g->turn, ddz_random_bid(r, &v)), 0);
    }
    for (int i = 0; i < steps && g->phase == DDZ_PHASE_PLAY; i++)
        cr_assert_eq(ddz_game_play(g, g->turn, pick(r, g, mode)), 0);
    return g->phase == DDZ_PHASE_PLAY;
}

static void same_combo(ddz_combo a, ddz_combo b, const char *what)
{
    cr_assert(a.type == b.type && a.rank == b.rank && a.length == b.length &&
                  a.kicker == b.kicker && a.size == b.size,
              "%s", what);
}

/* Every field the rules read, except nplays (see the caller). */
static void same_game(const ddz_game *a, const ddz_game *b)
{
    cr_assert_eq(a->rules, b->rules);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(a->deal.hand[s], b->deal.hand[s], "dealt hand %d", s);
        cr_assert_eq(a->hand[s], b->hand[s], "hand %d", s);
        cr_assert_eq(a->played[s], b->played[s], "played %d", s);
        cr_assert_eq(a->bids[s], b->bids[s], "bid %d", s);
        cr_assert_eq(a->score[s], b->score[s], "score %d", s);
    }
    cr_assert_eq(a->deal.leftover, b->deal.leftover);
    cr_assert_eq(a->phase, b->phase);
    cr_assert_eq(a->turn, b->turn);
    cr_assert_eq(a->nbids, b->nbids);
    cr_assert_eq(a->landlord, b->landlord);
    cr_assert_eq(a->bid, b->bid);
    same_combo(a->last, b->last, "last");
    cr_assert_eq(a->last_seat, b->last_seat);
    cr_assert_eq(a->bombs, b->bombs);
    cr_assert_eq(a->rocket, b->rocket);
    cr_assert_eq(a->held_bombs, b->held_bombs);
    cr_assert_eq(a->held_rocket, b->held_rocket);
    cr_assert_eq(a->winner, b->winner);
    cr_assert_eq(a->fault_seat, b->fault_seat);
    cr_assert_eq(a->fault_kind, b->fault_kind);
    cr_assert_eq(a->spring, b->spring);
    cr_assert_eq(a->anti_spring, b->anti_spring);
    cr_assert_eq(a->multiplier, b->multiplier);
    cr_assert_eq(a->early_penalty, b->early_penalty);
}

/* Rebuilds random games at random points from the view of the seat to move
 * and the real hands; the rebuilt game must be the real one and, continued
 * with the same moves (or the same fault), end the same way. The one
 * documented exception: a landlord whose several plays together form one
 * combination is read as having played once, which can add anti-spring. */
Test(ruleset, game_from_view_continues_like_the_real_game)
{
    cr_assert_geq(sodium_init(), 0);
    ddz_rng r;
    ddz_rng_seed(&r, 17);
    int checked = 0, springs = 0, antis = 0, bombs = 0, rockets = 0, guessed = 0, misread = 0;
    for (uint32_t k = 0; k < 4000; k++) {
        ddz_game real, rebuilt;
        int steps =
            (int)ddz_rng_below(&r, 4) == 0 ? (int)ddz_rng_below(&r, 40) : (int)ddz_rng_below(&r, 6);
        int mode = (int)(k % NMODES);
        if (!game_at(&r, k, mode, steps, &real))
            continue;
        int ll = real.landlord;
        ddz_view v;
        ddz_view_of(&real, real.turn, &v);
        cr_assert_eq(ddz_game_from_view(&v, real.hand, &rebuilt), 0, "game %u", k);
        same_game(&real, &rebuilt);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(rebuilt.nplays[s] == 0, real.nplays[s] == 0, "game %u seat %d", k, s);
        /* the documented guess: a landlord whose plays together make one
         * combination is read as having played once */
        bool guess = real.nplays[ll] >= 2 &&
                     ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(real.played[ll])).type !=
                         DDZ_INVALID;
        cr_assert_eq(rebuilt.nplays[ll] == 1, real.nplays[ll] == 1 || guess, "game %u", k);
        guessed += guess;
        checked++;

        /* any other seat's view rebuilds the same game */
        int other = (real.turn + 1 + (int)ddz_rng_below(&r, 2)) % 3;
        ddz_game again;
        ddz_view w;
        ddz_view_of(&real, other, &w);
        cr_assert_eq(ddz_game_from_view(&w, real.hand, &again), 0);
        same_game(&real, &again);

        /* a fault now costs the same */
        int seat = (int)ddz_rng_below(&r, 3);
        ddz_game fr = real, fb = rebuilt;
        cr_assert_eq(ddz_game_fault(&fr, seat, DDZ_FAULT_ILLEGAL), 0);
        cr_assert_eq(ddz_game_fault(&fb, seat, DDZ_FAULT_ILLEGAL), 0);
        same_game(&fr, &fb);

        /* so does playing on */
        while (real.phase == DDZ_PHASE_PLAY) {
            ddz_cards c = pick(&r, &real, mode);
            int turn = real.turn;
            cr_assert_eq(ddz_game_play(&real, turn, c), 0);
            cr_assert_eq(ddz_game_play(&rebuilt, turn, c), 0);
        }
        cr_assert_eq(rebuilt.phase, DDZ_PHASE_OVER);
        if (guess && rebuilt.anti_spring != real.anti_spring) {
            cr_assert(rebuilt.anti_spring && !real.anti_spring);
            cr_assert_eq(rebuilt.multiplier, 2 * real.multiplier);
            for (int s = 0; s < 3; s++)
                cr_assert_eq(rebuilt.score[s], 2 * real.score[s]);
            misread++;
            continue;
        }
        same_game(&real, &rebuilt);
        springs += real.spring;
        antis += real.anti_spring;
        bombs += real.bombs > 0;
        rockets += real.rocket;
    }
    cr_log_info("checked %d: springs %d anti-springs %d bombs %d rockets %d; landlord's plays "
                "guessed as one %d, anti-spring misread %d",
                checked, springs, antis, bombs, rockets, guessed, misread);
    cr_assert_gt(checked, 2000);
    cr_assert_gt(springs, 0);
    cr_assert_gt(antis, 0);
    cr_assert_gt(bombs, 0);
    cr_assert_gt(rockets, 0);
}

/* A game in play, the view of the seat to move and the real hands. */
static void position(ddz_game *g, ddz_view *v, ddz_cards hands[3])
{
    ddz_rng r;
    ddz_rng_seed(&r, 23);
    for (uint32_t k = 0;; k++) {
        /* wanted: a few plays made, the landlord still holding leftover
         * cards, and the seat to move a farmer */
        if (!game_at(&r, k, PLAY_RANDOM, 4, g) || g->turn == g->landlord ||
            g->played[g->landlord] == 0 || (g->hand[g->landlord] & g->deal.leftover) == 0)
            continue;
        ddz_view_of(g, g->turn, v);
        for (int s = 0; s < 3; s++)
            hands[s] = g->hand[s];
        return;
    }
}

static ddz_cards lowest(ddz_cards c)
{
    return c & (~c + 1);
}

static void refused(const ddz_view *v, const ddz_cards hands[3], const char *what)
{
    ddz_game g;
    memset(&g, 0xA5, sizeof g);
    ddz_game before = g;
    cr_assert_eq(ddz_game_from_view(v, hands, &g), DDZ_EINVAL, "%s", what);
    cr_assert(memcmp(&g, &before, sizeof g) == 0, "%s: the game is unchanged", what);
}

Test(ruleset, game_from_view_refuses_contradictions)
{
    cr_assert_geq(sodium_init(), 0);
    ddz_game real, g;
    ddz_view v0, v;
    ddz_cards h0[3], h[3];
    position(&real, &v0, h0);
    int me = v0.seat, ll = v0.landlord, farmer = 3 - me - ll;
    cr_assert_eq(ddz_game_from_view(&v0, h0, &g), 0);

    v = v0;
    v.phase = DDZ_PHASE_BID;
    refused(&v, h0, "bidding");
    v.phase = DDZ_PHASE_OVER;
    refused(&v, h0, "over");
    v = v0;
    v.landlord = -1;
    refused(&v, h0, "no landlord");
    v = v0;
    v.seat = 3;
    refused(&v, h0, "seat out of range");
    v = v0;
    v.turn = 3;
    refused(&v, h0, "turn out of range");
    v = v0;
    v.last_seat = 5;
    refused(&v, h0, "last seat out of range");
    v = v0;
    v.last.type = DDZ_PASS;
    v.last_seat = (int8_t)ll;
    refused(&v, h0, "a player without a play to beat");
    v = v0;
    v.last.type = DDZ_SINGLE;
    v.last_seat = -1;
    refused(&v, h0, "a play to beat without its player");

    /* own hand differs from the view's (counts still right) */
    memcpy(h, h0, sizeof h);
    ddz_cards a = lowest(h[me]), b = lowest(h[farmer]);
    h[me] ^= a | b;
    h[farmer] ^= a | b;
    refused(&v0, h, "own hand swapped a card");

    /* a seat holds one card more or less than the view says */
    memcpy(h, h0, sizeof h);
    b = lowest(h[farmer]);
    h[farmer] &= ~b;
    h[ll] |= b;
    refused(&v0, h, "counts differ");

    /* a card in two hands (the card it replaces counted as played, so
     * that no card is missing) */
    memcpy(h, h0, sizeof h);
    v = v0;
    b = lowest(h[farmer]);
    h[farmer] = (h[farmer] & ~b) | lowest(h[me]);
    v.played[farmer] |= b;
    refused(&v, h, "a card in two hands");

    /* a hand holds a played card */
    memcpy(h, h0, sizeof h);
    v = v0;
    b = lowest(h[farmer]);
    h[farmer] = (h[farmer] & ~b) | lowest(v0.played[ll]);
    v.played[ll] |= b;
    refused(&v, h, "a played card held");

    /* a card is nowhere (and the view agrees on the count) */
    memcpy(h, h0, sizeof h);
    v = v0;
    h[farmer] &= ~lowest(h[farmer]);
    v.left[farmer]--;
    refused(&v, h, "a card missing");

    /* a leftover card the landlord still holds is given to a farmer */
    memcpy(h, h0, sizeof h);
    a = lowest(h[ll] & v0.leftover);
    b = lowest(h[farmer]);
    h[ll] ^= a | b;
    h[farmer] ^= a | b;
    refused(&v0, h, "a leftover card with a farmer");

    /* cards outside the deck */
    memcpy(h, h0, sizeof h);
    h[farmer] = (h[farmer] & ~lowest(h[farmer])) | (1ULL << 60);
    refused(&v0, h, "a card code above 53");

    /* and the untouched position is still fine */
    cr_assert_eq(ddz_game_from_view(&v0, h0, &g), 0);
    same_game(&real, &g);
}
