/* test_solver.c - ai/solver against a plain minimax, and its budget.
 *
 * The twin (solver_twin.h): a minimax with no table, no move ordering and no whole-hand
 * shortcut, which tries every legal play ddz_movegen lists, passes
 * included, and says the game is won by the side of the seat whose hand
 * empties. The only cut it makes is the one that defines the answer (a side
 * with a winning play wins). On thousands of random positions of 6 to 14
 * cards (random hands, landlord, seat to move, leading or following a
 * random legal play, every rule set) the solver must name the same winner,
 * and its list of keeping plays must be exactly the plays after which the
 * twin says the mover's side wins; its witness (ddz_solver_solve_witness:
 * the play that proved a win) must be one of those plays. Solvers with a
 * small table (entries
 * evicted and colliding) and a default one kept across positions and rule
 * sets are both checked.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>

#include "test_scale.h"
#include "ai/rng.h"
#include "ai/solver.h"
#include "rules/deal.h"
#include "rules/error.h"
#include "rules/ruleset.h"
#include "solver_twin.h"

static void show(const ddz_solver_pos *p, char *buf, size_t len)
{
    snprintf(buf, len, "hands %llx %llx %llx landlord %d turn %d last type %d rank %d len %d by %d",
             (unsigned long long)p->hand[0], (unsigned long long)p->hand[1],
             (unsigned long long)p->hand[2], p->landlord, p->turn, p->last.type, p->last.rank,
             p->last.length, p->last_seat);
}

/* Compares the solver with the twin on `count` random positions under each
 * rule set; `sv` keeps its table throughout. */
static void compare(ddz_solver *sv, uint64_t seed, int count)
{
    ddz_rng rng;
    ddz_rng_seed(&rng, seed);
    long plain_nodes = 0, solver_nodes = 0;
    int wins[3] = {0, 0, 0}, keeps_total = 0;
    static ddz_ranks want[DDZ_MOVES_MAX], got[DDZ_MOVES_MAX];
    for (int i = 0; i < count; i++) {
        const ddz_rules *rs = ddz_rules_at(i % 3);
        cr_assert_not_null(rs);
        ddz_solver_pos p;
        random_pos(rs, &rng, 6 + (int)ddz_rng_below(&rng, 9), &p);
        char what[256];
        show(&p, what, sizeof what);
        int w = plain_winner(rs, &p, &plain_nodes);
        int r = ddz_solver_solve(sv, rs, &p, NULL);
        solver_nodes += ddz_solver_last(sv)->nodes;
        cr_assert_eq(r, w, "%s: %s: solver says %d, minimax %d", rs->name, what, r, w);
        wins[w]++;
        int nw = plain_keeps(rs, &p, want, &plain_nodes);
        int ng = ddz_solver_keeps(sv, rs, &p, NULL, got, DDZ_MOVES_MAX);
        cr_assert_eq(ng, nw, "%s: %s: solver keeps %d plays, minimax %d", rs->name, what, ng, nw);
        for (int k = 0; k < nw; k++)
            cr_assert_eq(got[k], want[k], "%s: %s: keep %d is %llx, minimax %llx", rs->name, what,
                         k, (unsigned long long)got[k], (unsigned long long)want[k]);
        /* a side wins exactly when its mover has a keeping play */
        cr_assert_eq(nw > 0, w == ddz_solver_side(&p, p.turn), "%s: %s", rs->name, what);
        /* the witness: the same verdict, and one of the twin's keeping
         * plays (the table already holds this position: it is searched
         * again for its play, not taken from the entry) */
        ddz_ranks wit = ~(ddz_ranks)0;
        cr_assert_eq(ddz_solver_solve_witness(sv, rs, &p, NULL, &wit), w, "%s: %s", rs->name, what);
        bool found = false;
        for (int k = 0; k < nw; k++)
            found |= want[k] == wit;
        cr_assert_eq(found, nw > 0, "%s: %s: witness %llx", rs->name, what,
                     (unsigned long long)wit);
        if (nw == 0)
            cr_assert_eq(wit, ~(ddz_ranks)0, "%s: %s: no witness for a loss", rs->name, what);
        keeps_total += nw;
    }
    cr_log_info("%d positions: landlord wins %d, farmers %d; %d keeping plays; minimax %ld nodes, "
                "solver %ld",
                count, wins[DDZ_SIDE_LANDLORD], wins[DDZ_SIDE_FARMERS], keeps_total, plain_nodes,
                solver_nodes);
    /* both answers occur often, or the comparison proves little */
    cr_assert_gt(wins[DDZ_SIDE_LANDLORD], count / 10);
    cr_assert_gt(wins[DDZ_SIDE_FARMERS], count / 10);
}

Test(solver, agrees_with_plain_minimax_keeping_its_table)
{
    ddz_solver *sv = ddz_solver_create(0);
    cr_assert_not_null(sv);
    compare(sv, 0x501e, scaled(20000, 2000));
    ddz_solver_destroy(sv);
}

Test(solver, agrees_with_plain_minimax_in_a_small_table)
{
    /* 1024 entries: positions evict each other and share slots */
    ddz_solver *sv = ddz_solver_create(10);
    cr_assert_not_null(sv);
    compare(sv, 0x7ab1e, scaled(10000, 1000));
    ddz_solver_destroy(sv);
}

/* A full deal after the bidding: 54 cards, far too many to solve. */
static void full_deal(ddz_solver_pos *p)
{
    ddz_deal d;
    uint8_t seed[DDZ_SEED_BYTES] = {1, 2, 3};
    ddz_deal_from_seed(seed, &d);
    for (int s = 0; s < 3; s++)
        p->hand[s] = ddz_cards_ranks(d.hand[s] | (s == 0 ? d.leftover : 0));
    p->landlord = 0;
    p->turn = 0;
    p->last = (ddz_combo){.type = DDZ_PASS};
    p->last_seat = -1;
}

Test(solver, stops_at_its_node_budget)
{
    ddz_solver *sv = ddz_solver_create(0);
    ddz_solver_pos p;
    full_deal(&p);
    ddz_solver_budget b = {.nodes = 5000};
    cr_assert_eq(ddz_solver_solve(sv, &ddz_rules_caai, &p, &b), DDZ_EBUDGET);
    cr_assert_eq(ddz_solver_last(sv)->nodes, 5001, "the refused node is counted");
    static ddz_ranks out[DDZ_MOVES_MAX];
    cr_assert_eq(ddz_solver_keeps(sv, &ddz_rules_caai, &p, &b, out, DDZ_MOVES_MAX), DDZ_EBUDGET);
    cr_assert_eq(ddz_solver_last(sv)->nodes, 5001, "the budget covers the whole call");
    /* a small position fits the same budget: West (a farmer) leads a 7
     * or an 8, nobody beats it, and West plays out */
    ddz_solver_pos q = {.hand = {0x110000, 0x1, 0x3000},
                        .last = {.type = DDZ_PASS},
                        .last_seat = -1,
                        .turn = 0,
                        .landlord = 1};
    cr_assert_eq(ddz_solver_solve(sv, &ddz_rules_caai, &q, &b), DDZ_SIDE_FARMERS);
    cr_assert_lt(ddz_solver_last(sv)->nodes, 100);
    ddz_solver_destroy(sv);
}

/* A clock that advances 1 ns a read. */
static int64_t counting_clock(void *ctx)
{
    return ++*(int64_t *)ctx;
}

Test(solver, stops_at_its_deadline)
{
    ddz_solver *sv = ddz_solver_create(0);
    ddz_solver_pos p;
    full_deal(&p);
    int64_t now = 0;
    ddz_solver_budget b = {.clock = counting_clock, .clock_ctx = &now, .deadline = 4};
    cr_assert_eq(ddz_solver_solve(sv, &ddz_rules_caai, &p, &b), DDZ_ETIMEOUT);
    cr_assert_eq(now, 4, "read %lld times", (long long)now);
    cr_assert_eq(ddz_solver_last(sv)->nodes, 4 * DDZ_SOLVER_CLOCK_EVERY,
                 "the clock is read every %d nodes", DDZ_SOLVER_CLOCK_EVERY);
    /* the node cap and the clock together: whichever comes first */
    now = 0;
    b.nodes = 300;
    cr_assert_eq(ddz_solver_solve(sv, &ddz_rules_caai, &p, &b), DDZ_EBUDGET);
    cr_assert_eq(now, 1);
    ddz_solver_destroy(sv);
}

Test(solver, refuses_impossible_positions)
{
    ddz_solver *sv = ddz_solver_create(0);
    const ddz_rules *rs = &ddz_rules_caai;
    ddz_solver_pos ok = {.hand = {0x11, 0x100, 0x3000},
                         .last = {.type = DDZ_PASS},
                         .last_seat = -1,
                         .turn = 0,
                         .landlord = 1};
    ddz_solver_pos p = ok;
    p.turn = 3;
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_EINVAL);
    p = ok;
    p.last_seat = 2; /* a play to beat of type pass */
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_EINVAL);
    p = ok;
    p.last = ddz_combo_classify(rs, 0x1);
    p.last_seat = 0; /* made by the mover itself */
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_EINVAL);
    p = ok;
    p.hand[1] = 0x5; /* five threes */
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_EINVAL);
    p = ok;
    p.hand[2] = (ddz_ranks)2 << (4 * DDZ_RANK_BJ); /* two big jokers */
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_EINVAL);
    /* a hand already empty: that seat's side has won, nobody moves */
    p = ok;
    p.hand[2] = 0;
    cr_assert_eq(ddz_solver_solve(sv, rs, &p, NULL), DDZ_SIDE_FARMERS);
    ddz_ranks out[8];
    cr_assert_eq(ddz_solver_keeps(sv, rs, &p, NULL, out, 8), DDZ_EPHASE);
    cr_assert_eq(ddz_solver_solve_witness(sv, rs, &p, NULL, out), DDZ_EPHASE);
    p.hand[2] = (ddz_ranks)2 << (4 * DDZ_RANK_BJ);
    cr_assert_eq(ddz_solver_solve_witness(sv, rs, &p, NULL, out), DDZ_EINVAL);
    /* West (a farmer) holding 3 4 leads; the landlord's 5 beats either:
     * no keeping play */
    cr_assert_eq(ddz_solver_solve(sv, rs, &ok, NULL), DDZ_SIDE_LANDLORD);
    cr_assert_eq(ddz_solver_keeps(sv, rs, &ok, NULL, out, 8), 0);
    /* West holding 7 8 against the landlord's 3: both singles keep the win;
     * too little room for them */
    p = ok;
    p.hand[0] = 0x110000;
    p.hand[1] = 0x1;
    cr_assert_eq(ddz_solver_keeps(sv, rs, &p, NULL, out, 8), 2);
    cr_assert_eq(out[0] | out[1], 0x110000);
    cr_assert_eq(ddz_solver_keeps(sv, rs, &p, NULL, out, 1), DDZ_ENOSPC);
    ddz_solver_destroy(sv);
    cr_assert_null(ddz_solver_create(9));
    cr_assert_null(ddz_solver_create(DDZ_SOLVER_TT_BITS_MAX + 1));
}

Test(solver, position_of_a_game)
{
    ddz_deal d;
    uint8_t seed[DDZ_SEED_BYTES] = {7};
    ddz_deal_from_seed(seed, &d);
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    ddz_solver_pos p = {.turn = 9};
    cr_assert_eq(ddz_solver_pos_of_game(&g, &p), DDZ_EPHASE, "bidding");
    cr_assert_eq(p.turn, 9, "unchanged");
    cr_assert_eq(ddz_game_bid(&g, 0, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 1, 3), 0);
    cr_assert_eq(ddz_solver_pos_of_game(&g, &p), 0);
    cr_assert_eq(p.landlord, 1);
    cr_assert_eq(p.turn, 1);
    cr_assert_eq(p.last_seat, -1);
    cr_assert_eq(p.last.type, DDZ_PASS);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(p.hand[s], ddz_cards_ranks(g.hand[s]));
    ddz_cards low = g.hand[1] & (~g.hand[1] + 1);
    cr_assert_eq(ddz_game_play(&g, 1, low), 0);
    cr_assert_eq(ddz_solver_pos_of_game(&g, &p), 0);
    cr_assert_eq(p.turn, 2);
    cr_assert_eq(p.last_seat, 1);
    cr_assert_eq(p.last.type, DDZ_SINGLE);
    cr_assert_eq(p.hand[1], ddz_cards_ranks(g.hand[1]));
}
