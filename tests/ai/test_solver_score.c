/* test_solver_score.c - the score search of ai/solver against a plain
 * minimax played through the referee.
 *
 * The twin: the position is made a ddz_game (hands as cards, the stake's
 * counters as the game so far), and every legal play ddz_movegen lists is
 * made with ddz_game_play; a game that ends is scored by the referee
 * (ddz_game.score). The side whose score is sought takes the best of its
 * plays, the other side the worst for it; no table, no cut, no ordering.
 * So the twin shares nothing with the solver's own stake counting,
 * ordering, bounds or table. On random positions of 6 to 10 cards under
 * every rule set, with random stakes so far (bid, bombs, rocket, plays
 * made: spring and anti-spring both reachable; weights under botzone-ftl),
 * and on every position of a random playout from each (a kept table then
 * serves later searches with bounds earlier ones found in narrower
 * windows), the solver's landlord and farmer scores must equal the twin's;
 * under the zero-sum rule sets the sign of the landlord's score must be
 * the win/loss search's winner. Hands get a bomb a third of the time and
 * the rocket a fifth, so that the stake's growth is often at stake. Broken
 * on purpose in eleven ways (a play, a bomb or the rocket not counted; a
 * fail-low or fail-high bound stored as exact; no cut-off window; the
 * farmers' score taken as the landlord's loss under botzone-ftl; the
 * static bound forgetting fours in hand, the rocket in hand, or a
 * landlord's anti-spring still to come), it fails each time.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_scale.h"
#include "ai/rng.h"
#include "ai/solver.h"
#include "rules/deal.h"
#include "rules/error.h"
#include "rules/game.h"
#include "rules/ruleset.h"

enum { PLAIN_MOVES = 1024 };

/* The twin: the best score `seat`'s side can force in `g`. */
static double plain_score(const ddz_game *g, int seat, long *nodes)
{
    ++*nodes;
    if (g->phase == DDZ_PHASE_OVER)
        return g->score[seat];
    int me = g->turn, ll = g->landlord;
    bool maxing = (me == ll) == (seat == ll);
    ddz_move mv[PLAIN_MOVES];
    int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[me]), g->last_seat < 0 ? NULL : &g->last,
                        mv, PLAIN_MOVES);
    cr_assert_gt(n, 0, "movegen: %d", n);
    double best = maxing ? -INFINITY : INFINITY;
    for (int i = 0; i < n; i++) {
        ddz_game c = *g;
        int rc = ddz_game_play(&c, me, ddz_cards_pick(c.hand[me], mv[i].ranks));
        cr_assert_eq(rc, 0, "the referee refuses a generated play: %d", rc);
        double v = plain_score(&c, seat, nodes);
        best = maxing ? fmax(best, v) : fmin(best, v);
    }
    return best;
}

/* A random position of `total` cards with a random stake so far, as the
 * solver's position `p` and the same as the referee's game `g`. */
static void random_game(const ddz_rules *rs, ddz_rng *rng, int total, ddz_solver_pos *p,
                        ddz_game *g)
{
    uint8_t deck[DDZ_NCARDS];
    for (int i = 0; i < DDZ_NCARDS; i++)
        deck[i] = (uint8_t)i;
    for (int i = 0; i < DDZ_NCARDS - 1; i++) {
        int j = i + (int)ddz_rng_below(rng, (uint32_t)(DDZ_NCARDS - i));
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    memset(g, 0, sizeof *g);
    g->rules = rs;
    g->phase = DDZ_PHASE_PLAY;
    g->winner = -1;
    g->fault_seat = -1;
    /* a bomb in one hand a third of the time, the rocket a fifth: random
     * hands of a few cards seldom hold either, and the stake's bound
     * counts them */
    ddz_cards placed = 0;
    if (ddz_rng_below(rng, 3) == 0) {
        int r = (int)ddz_rng_below(rng, 13);
        placed = (ddz_cards)0xF << (4 * r);
        g->hand[ddz_rng_below(rng, 3)] |= placed;
    }
    if (ddz_rng_below(rng, 5) == 0) {
        ddz_cards rocket = 1ULL << DDZ_CARD_SJ | 1ULL << DDZ_CARD_BJ;
        g->hand[ddz_rng_below(rng, 3)] |= rocket;
        placed |= rocket;
    }
    int next = 0;
    for (int i = ddz_cards_count(placed); i < total || !g->hand[0] || !g->hand[1] || !g->hand[2];
         i++) {
        while (placed >> deck[next] & 1)
            next++;
        int s = !g->hand[0] ? 0 : !g->hand[1] ? 1 : !g->hand[2] ? 2 : (int)ddz_rng_below(rng, 3);
        g->hand[s] |= 1ULL << deck[next++];
    }
    g->landlord = (int8_t)ddz_rng_below(rng, 3);
    g->turn = (uint8_t)ddz_rng_below(rng, 3);
    g->bid = (uint8_t)(1 + ddz_rng_below(rng, (uint32_t)rs->max_bid));
    g->bombs = (uint8_t)(ddz_rng_below(rng, 4) == 0 ? 1 + ddz_rng_below(rng, 2) : 0);
    g->rocket = ddz_rng_below(rng, 5) == 0;
    for (int s = 0; s < 3; s++) {
        /* the landlord has not played or played once two times in three
         * (anti-spring open), a farmer not at all a third of the time
         * (spring open) */
        int k = (int)ddz_rng_below(rng, 3);
        g->nplays[s] = (uint8_t)(s == g->landlord ? k : k == 0 ? 0 : k + 1);
        if (rs->play_weight)
            g->weight[s] = (int16_t)ddz_rng_below(rng, 40);
    }
    g->last = (ddz_combo){.type = DDZ_PASS};
    g->last_seat = -1;
    if (ddz_rng_below(rng, 3) != 0) {
        ddz_cards rest = 0;
        for (int k = 2 + (int)ddz_rng_below(rng, 6); k > 0; next++)
            if (!(placed >> deck[next] & 1))
                rest |= 1ULL << deck[next], k--;
        static ddz_move mv[DDZ_MOVES_MAX];
        int n = ddz_movegen(rs, ddz_cards_ranks(rest), NULL, mv, DDZ_MOVES_MAX);
        cr_assert_gt(n, 0);
        g->last = mv[ddz_rng_below(rng, (uint32_t)n)].combo;
        g->last_seat = (int8_t)((g->turn + 1 + ddz_rng_below(rng, 2)) % 3);
    }
    cr_assert_eq(ddz_solver_pos_of_game(g, p), 0);
}

/* Checks the solver against the twin on `g` (the same position as `p`). */
static void check(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p, const ddz_game *g,
                  long nodes[2], int counts[3])
{
    int ll = g->landlord, f = (ll + 1) % 3;
    char what[256];
    snprintf(what, sizeof what,
             "%s: hands %llx %llx %llx landlord %d turn %d last %d/%d by %d; bid %d bombs %d "
             "rocket %d plays %d %d %d weights %d %d %d",
             rs->name, (unsigned long long)g->hand[0], (unsigned long long)g->hand[1],
             (unsigned long long)g->hand[2], ll, g->turn, g->last.type, g->last.rank, g->last_seat,
             g->bid, g->bombs, g->rocket, g->nplays[0], g->nplays[1], g->nplays[2], g->weight[0],
             g->weight[1], g->weight[2]);
    double want_ll = plain_score(g, ll, &nodes[0]);
    double want_f = plain_score(g, f, &nodes[0]);
    ddz_solver_score got = {NAN, NAN};
    int rc = ddz_solver_forced_score(sv, rs, p, NULL, &got);
    cr_assert_eq(rc, 0, "%s: %d", what, rc);
    nodes[1] += ddz_solver_last(sv)->nodes;
    cr_assert(fabs(got.landlord - want_ll) < 1e-9, "%s: landlord %g, minimax %g", what,
              got.landlord, want_ll);
    cr_assert(fabs(got.farmer - want_f) < 1e-9, "%s: farmer %g, minimax %g", what, got.farmer,
              want_f);
    if (!rs->play_weight) {
        int w = ddz_solver_solve(sv, rs, p, NULL);
        cr_assert_eq(got.landlord > 0, w == DDZ_SIDE_LANDLORD, "%s: score %g, winner %d", what,
                     got.landlord, w);
        /* the stake grew beyond the bid and what was played before: a
         * bomb, the rocket or spring still to come */
        int32_t so_far = rs->multiplier_so_far(g) * (rs == &ddz_rules_caai ? 100 : 1);
        counts[2] += fabs(got.landlord) > 2.0 * (g->bid ? g->bid : 1) * so_far;
    }
    counts[got.landlord > 0]++;
}

/* Compares the solver with the twin on `count` random positions under each
 * rule set, and on every position of a random playout from each (so that
 * a kept table serves later searches with what earlier ones found within
 * narrower bounds). */
static void compare(ddz_solver *sv, uint64_t seed, int count)
{
    ddz_rng rng;
    ddz_rng_seed(&rng, seed);
    long nodes[2] = {0, 0};
    int counts[3] = {0, 0, 0}, positions = 0;
    static ddz_move mv[DDZ_MOVES_MAX];
    for (int i = 0; i < count; i++) {
        const ddz_rules *rs = ddz_rules_at(i % 3);
        ddz_solver_pos p;
        ddz_game g;
        random_game(rs, &rng, 6 + (int)ddz_rng_below(&rng, 5), &p, &g);
        while (g.phase == DDZ_PHASE_PLAY) {
            check(sv, rs, &p, &g, nodes, counts);
            positions++;
            int n = ddz_movegen(rs, ddz_cards_ranks(g.hand[g.turn]),
                                g.last_seat < 0 ? NULL : &g.last, mv, DDZ_MOVES_MAX);
            cr_assert_gt(n, 0);
            ddz_ranks m = mv[ddz_rng_below(&rng, (uint32_t)n)].ranks;
            cr_assert_eq(ddz_game_play(&g, g.turn, ddz_cards_pick(g.hand[g.turn], m)), 0);
            if (g.phase == DDZ_PHASE_PLAY)
                cr_assert_eq(ddz_solver_pos_of_game(&g, &p), 0);
        }
    }
    cr_log_info("%d positions: landlord ahead %d, not %d, stake grown in %d; minimax %ld nodes, "
                "solver %ld",
                positions, counts[1], counts[0], counts[2], nodes[0], nodes[1]);
    /* both outcomes, and stakes raised by the play, occur often enough
     * for the comparison to prove something */
    cr_assert_gt(counts[1], positions / 10);
    cr_assert_gt(counts[0], positions / 10);
    cr_assert_gt(counts[2], positions / 50);
}

Test(solver_score, agrees_with_plain_minimax_keeping_its_table)
{
    ddz_solver *sv = ddz_solver_create(0);
    cr_assert_not_null(sv);
    compare(sv, 0x5c0e, scaled(4000, 400));
    ddz_solver_destroy(sv);
}

Test(solver_score, agrees_with_plain_minimax_in_a_small_table)
{
    ddz_solver *sv = ddz_solver_create(10);
    cr_assert_not_null(sv);
    compare(sv, 0x5c0f, scaled(2000, 200));
    ddz_solver_destroy(sv);
}

/* Hand-checked: the landlord (South) holds a bomb of 3s and a 4, each
 * farmer one card above the 4. Leading the 4 loses (East beats it and
 * goes out); the bomb first, then the 4 as its last card, wins with the
 * stake doubled (caai: x(1 + 1)), and nobody else played: spring, x2
 * again. Going out by three 3s with the 4, then the last 3, wins at x2. */
Test(solver_score, a_bomb_and_spring_are_found)
{
    ddz_solver *sv = ddz_solver_create(0);
    ddz_solver_pos p = {.hand = {0x100000, 0x14, 0x1000000},
                        .last = {.type = DDZ_PASS},
                        .last_seat = -1,
                        .turn = 1,
                        .landlord = 1,
                        .stake = {.bid = 3}};
    ddz_solver_score s;
    cr_assert_eq(ddz_solver_forced_score(sv, &ddz_rules_caai, &p, NULL, &s), 0);
    /* 2 x 100 x bid 3 x (1 + 1 bomb) x 2 spring */
    cr_assert_float_eq(s.landlord, 2400.0, 1e-9);
    cr_assert_float_eq(s.farmer, -1200.0, 1e-9);
    /* once a farmer has played, no spring: 1200 */
    p.stake.nplays[0] = 1;
    cr_assert_eq(ddz_solver_forced_score(sv, &ddz_rules_caai, &p, NULL, &s), 0);
    cr_assert_float_eq(s.landlord, 1200.0, 1e-9);
    /* botzone-ftl2: max(bid, 1) x 2^(bomb), 2x for the landlord */
    cr_assert_eq(ddz_solver_forced_score(sv, &ddz_rules_botzone_ftl2, &p, NULL, &s), 0);
    cr_assert_float_eq(s.landlord, 12.0, 1e-9);
    cr_assert_float_eq(s.farmer, -6.0, 1e-9);
    ddz_solver_destroy(sv);
}

Test(solver_score, keeps_to_its_budget_and_checks_the_stake)
{
    ddz_solver *sv = ddz_solver_create(0);
    ddz_deal d;
    uint8_t seed[DDZ_SEED_BYTES] = {1, 2, 3};
    ddz_deal_from_seed(seed, &d);
    ddz_solver_pos p = {.last = {.type = DDZ_PASS}, .last_seat = -1, .stake = {.bid = 1}};
    for (int s = 0; s < 3; s++)
        p.hand[s] = ddz_cards_ranks(d.hand[s] | (s == 0 ? d.leftover : 0));
    ddz_solver_score out = {7, 7};
    ddz_solver_budget b = {.nodes = 3000};
    cr_assert_eq(ddz_solver_forced_score(sv, &ddz_rules_caai, &p, &b, &out), DDZ_EBUDGET);
    cr_assert_eq(ddz_solver_last(sv)->nodes, 3001);
    cr_assert_float_eq(out.landlord, 7, 0, "unchanged");
    p.stake.bid = 4;
    cr_assert_eq(ddz_solver_forced_score(sv, &ddz_rules_caai, &p, &b, &out), DDZ_EINVAL);
    ddz_solver_destroy(sv);
}
