/* test_puzzle.c - ai/puzzle against the plain minimax twin
 * (solver_twin.h).
 *
 * On random positions of 6 to 10 cards under every rule set the finder's
 * verdict (puzzle or not), its count of legal plays and its exact list of
 * winning first plays must be the twin's; positions where most plays win,
 * and lost ones, are never puzzles; the difficulty is the documented
 * formula.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>

#include "test_scale.h"
#include "ai/puzzle.h"
#include "ai/rng.h"
#include "rules/ruleset.h"
#include "solver_twin.h"

static ddz_puzzle pz; /* some 100 KB: not on the stack */

/* The ranks of the cards listed in codes[0..n). */
static ddz_ranks ranks_of(const int *codes, int n)
{
    ddz_cards c = 0;
    for (int i = 0; i < n; i++)
        c |= 1ULL << codes[i];
    return ddz_cards_ranks(c);
}

/* How many legal plays the mover of `p` has. */
static int legal_plays(const ddz_rules *rs, const ddz_solver_pos *p)
{
    static ddz_move mv[DDZ_MOVES_MAX];
    int n =
        ddz_movegen(rs, p->hand[p->turn], p->last_seat < 0 ? NULL : &p->last, mv, DDZ_MOVES_MAX);
    cr_assert_geq(n, 0);
    return n;
}

Test(puzzle, agrees_with_plain_minimax)
{
    ddz_solver *sv = ddz_solver_create(0);
    cr_assert_not_null(sv);
    ddz_rng rng;
    ddz_rng_seed(&rng, 0x90221e);
    static ddz_ranks want[DDZ_MOVES_MAX];
    int count = scaled(6000, 600), puzzles = 0, lost = 0, easy = 0;
    long nodes = 0;
    for (int i = 0; i < count; i++) {
        const ddz_rules *rs = ddz_rules_at(i % 3);
        cr_assert_not_null(rs);
        ddz_solver_pos p;
        random_pos(rs, &rng, 6 + (int)ddz_rng_below(&rng, 5), &p);
        int n = legal_plays(rs, &p);
        int nw = plain_keeps(rs, &p, want, &nodes);
        int rc = ddz_puzzle_find(sv, rs, &p, NULL, &pz);
        bool is = nw > 0 && 2 * nw < n;
        cr_assert_eq(rc, is, "%s position %d: finder says %d, twin %d of %d plays win", rs->name, i,
                     rc, nw, n);
        cr_assert_eq(pz.nmoves, n, "%s position %d", rs->name, i);
        cr_assert_eq(pz.side, ddz_solver_side(&p, p.turn));
        cr_assert_eq(pz.nsolutions, nw, "%s position %d: %d solutions, twin %d", rs->name, i,
                     pz.nsolutions, nw);
        for (int k = 0; k < nw; k++)
            cr_assert_eq(pz.solutions[k], want[k], "%s position %d: solution %d", rs->name, i, k);
        puzzles += is;
        lost += nw == 0;
        easy += nw > 0 && !is;
    }
    cr_log_info("%d positions: %d puzzles, %d lost, %d won by half the plays or more", count,
                puzzles, lost, easy);
    /* every kind occurs, or the comparison proves little */
    cr_assert_gt(puzzles, count / 100); /* some 2.5% of these positions */
    cr_assert_gt(lost, count / 20);
    cr_assert_gt(easy, count / 20);
    ddz_solver_destroy(sv);
}

Test(puzzle, most_plays_winning_is_no_puzzle)
{
    /* the landlord leads K K A; each farmer holds one 3, which beats
     * nothing: every play wins */
    const ddz_rules *rs = ddz_rules_find("caai");
    ddz_solver *sv = ddz_solver_create(0);
    cr_assert_not_null(sv);
    ddz_solver_pos p = {.last = {.type = DDZ_PASS}, .last_seat = -1, .turn = 0, .landlord = 0};
    p.hand[0] = ranks_of((int[]){40, 41, 44}, 3);
    p.hand[1] = ranks_of((int[]){0}, 1);
    p.hand[2] = ranks_of((int[]){1}, 1);
    cr_assert_eq(ddz_puzzle_find(sv, rs, &p, NULL, &pz), 0);
    cr_assert_eq(pz.nmoves, 3); /* K, A, K K */
    cr_assert_eq(pz.nsolutions, 3);
    cr_assert_eq(pz.side, DDZ_SIDE_LANDLORD);

    /* and the twin agrees that all three win */
    static ddz_ranks want[DDZ_MOVES_MAX];
    long nodes = 0;
    int nw = plain_keeps(rs, &p, want, &nodes);
    cr_assert_eq(nw, 3);
    ddz_solver_destroy(sv);
}

Test(puzzle, a_lost_position_is_no_puzzle)
{
    /* a farmer leads 3 or 4; the landlord, next, holds the big joker
     * alone and beats either to win */
    const ddz_rules *rs = ddz_rules_find("caai");
    ddz_solver *sv = ddz_solver_create(0);
    cr_assert_not_null(sv);
    ddz_solver_pos p = {.last = {.type = DDZ_PASS}, .last_seat = -1, .turn = 1, .landlord = 2};
    p.hand[1] = ranks_of((int[]){0, 4}, 2);
    p.hand[2] = ranks_of((int[]){53}, 1);
    p.hand[0] = ranks_of((int[]){1}, 1);
    cr_assert_eq(ddz_puzzle_find(sv, rs, &p, NULL, &pz), 0);
    cr_assert_eq(pz.nmoves, 2);
    cr_assert_eq(pz.nsolutions, 0);
    cr_assert_eq(pz.side, DDZ_SIDE_FARMERS);
    ddz_solver_destroy(sv);
}

Test(puzzle, difficulty_is_log2_of_plays_over_solutions)
{
    cr_assert_float_eq(ddz_puzzle_difficulty(16, 1), 4.0, 1e-9);
    cr_assert_float_eq(ddz_puzzle_difficulty(16, 2), 3.0, 1e-9);
    cr_assert_float_eq(ddz_puzzle_difficulty(3, 1), 1.58, 1e-9);
    cr_assert_float_eq(ddz_puzzle_difficulty(0, 1), 0.0, 1e-9);
    cr_assert_float_eq(ddz_puzzle_difficulty(5, 0), 0.0, 1e-9);
    cr_assert(ddz_puzzle_difficulty(7, 3) > 1.0); /* every puzzle's is above 1 */
}
