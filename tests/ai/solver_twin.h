/* solver_twin.h - the solver's twin for the tests: a plain minimax over
 * rules/movegen.h, and random small positions to compare it on.
 *
 * The twin has no table, no move ordering and no whole-hand shortcut: it
 * tries every legal play ddz_movegen lists, passes included, and says the
 * game is won by the side of the seat whose hand empties. The only cut it
 * makes is the one that defines the answer (a side with a winning play
 * wins). tests/ai/test_solver.c compares ai/solver with it,
 * tests/ai/test_puzzle.c and tests/service/test_cli_puzzles.c the puzzles
 * ai/puzzle and `ddz puzzles` find. Static functions for Criterion tests
 * (they assert with cr_assert), each marked unused: a test need not use
 * them all.
 */
#ifndef DDZ_TEST_SOLVER_TWIN_H
#define DDZ_TEST_SOLVER_TWIN_H

#include <criterion/criterion.h>

#include "ai/rng.h"
#include "ai/solver.h"
#include "rules/movegen.h"

enum { PLAIN_MOVES = 1024 }; /* plays of a hand of at most 12 cards: far fewer */

/* The twin: returns the side (DDZ_SIDE_...) that wins `p` with best play. */
__attribute__((unused)) static int plain_winner(const ddz_rules *rs, const ddz_solver_pos *p,
                                                long *nodes)
{
    ++*nodes;
    int me = p->turn, mine = ddz_solver_side(p, me);
    ddz_move mv[PLAIN_MOVES];
    int n = ddz_movegen(rs, p->hand[me], p->last_seat < 0 ? NULL : &p->last, mv, PLAIN_MOVES);
    cr_assert_geq(n, 0, "movegen: %d", n);
    for (int i = 0; i < n; i++) {
        ddz_solver_pos c = *p;
        c.turn = (uint8_t)((me + 1) % 3);
        if (mv[i].ranks == 0) {
            if (c.turn == p->last_seat) { /* both others passed: its player leads */
                c.last.type = DDZ_PASS;
                c.last_seat = -1;
            }
        } else {
            c.hand[me] -= mv[i].ranks;
            if (c.hand[me] == 0)
                return mine;
            c.last = mv[i].combo;
            c.last_seat = (int8_t)me;
        }
        if (plain_winner(rs, &c, nodes) == mine)
            return mine;
    }
    return DDZ_SIDE_LANDLORD + DDZ_SIDE_FARMERS - mine;
}

/* The twin's keeps: every play of the mover after which its side wins, in
 * movegen's order. Returns how many. */
__attribute__((unused)) static int plain_keeps(const ddz_rules *rs, const ddz_solver_pos *p,
                                               ddz_ranks *out, long *nodes)
{
    int me = p->turn, mine = ddz_solver_side(p, me), k = 0;
    ddz_move mv[PLAIN_MOVES];
    int n = ddz_movegen(rs, p->hand[me], p->last_seat < 0 ? NULL : &p->last, mv, PLAIN_MOVES);
    cr_assert_geq(n, 0);
    for (int i = 0; i < n; i++) {
        ddz_solver_pos c = *p;
        c.turn = (uint8_t)((me + 1) % 3);
        if (mv[i].ranks == 0) {
            if (c.turn == p->last_seat) {
                c.last.type = DDZ_PASS;
                c.last_seat = -1;
            }
        } else {
            c.hand[me] -= mv[i].ranks;
            c.last = mv[i].combo;
            c.last_seat = (int8_t)me;
        }
        if (c.hand[me] == 0 || plain_winner(rs, &c, nodes) == mine)
            out[k++] = mv[i].ranks;
    }
    return k;
}

/* Deals a random position of `total` cards (each hand at least one) into
 * `p`: random landlord and mover; a third of the time the mover leads, else
 * it follows a random legal play made from cards nobody holds, by a random
 * other seat. */
__attribute__((unused)) static void random_pos(const ddz_rules *rs, ddz_rng *rng, int total,
                                               ddz_solver_pos *p)
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
    ddz_cards hands[3] = {0, 0, 0};
    for (int i = 0; i < total; i++) /* the first three cards one to each seat */
        hands[i < 3 ? i : (int)ddz_rng_below(rng, 3)] |= 1ULL << deck[i];
    for (int s = 0; s < 3; s++)
        p->hand[s] = ddz_cards_ranks(hands[s]);
    p->landlord = (uint8_t)ddz_rng_below(rng, 3);
    p->turn = (uint8_t)ddz_rng_below(rng, 3);
    p->last = (ddz_combo){.type = DDZ_PASS};
    p->last_seat = -1;
    if (ddz_rng_below(rng, 3) == 0)
        return;
    /* the play to beat: one of the plays of up to 8 cards nobody holds */
    ddz_cards rest = 0;
    for (int i = total; i < total + 2 + (int)ddz_rng_below(rng, 7); i++)
        rest |= 1ULL << deck[i];
    static ddz_move mv[DDZ_MOVES_MAX];
    int n = ddz_movegen(rs, ddz_cards_ranks(rest), NULL, mv, DDZ_MOVES_MAX);
    cr_assert_gt(n, 0);
    ddz_move m = mv[ddz_rng_below(rng, (uint32_t)n)];
    p->last = m.combo;
    p->last_seat = (int8_t)((p->turn + 1 + ddz_rng_below(rng, 2)) % 3);
}

#endif
