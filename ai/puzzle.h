/* puzzle.h - puzzles (残局): positions where the side to move wins with best
 * play and few of its first plays keep that win (spec §16).
 *
 * Given one position with every hand known, the finder lists the mover's
 * legal plays (rules/movegen.h, a pass included when passing is legal),
 * proves with the exact solver (ai/solver.h) which of them keep a win for
 * the mover's side, and calls the position a puzzle when that side wins
 * and fewer than half of the plays do. Every answer is exact or none: a
 * position the budget cannot decide is reported as such, never guessed.
 * No I/O: `ddz puzzles` (service/cli/cli_puzzles.c) reads the records and
 * prints; the server may call the same function on its own games.
 *
 * Difficulty. ddz_puzzle_difficulty ranks puzzles by how hard the first
 * play is to find: log2(moves / solutions), the bits of choice a solver
 * must get right: one winning play of three is 1.58, one of sixteen 4.0,
 * two of sixteen 3.0. A puzzle's (solutions < moves / 2) is always above
 * 1.0. It counts the first play only: how deep the win goes is not in it.
 */
#ifndef DDZ_AI_PUZZLE_H
#define DDZ_AI_PUZZLE_H

#include "ai/solver.h"

/* The default size of the positions examined, in cards in the three hands:
 * at this size a thousand games are examined in under a second with every
 * position decided; past it the solver's time grows fast
 * (docs/benchmarks.md, "Puzzles"). */
enum {
    DDZ_PUZZLE_MAX_CARDS = 20,
};

/* One position, examined. A value the caller allocates (some 100 KB: not
 * for a small stack). */
typedef struct ddz_puzzle {
    int side;                           /* the mover's side: DDZ_SIDE_LANDLORD or _FARMERS */
    int nmoves;                         /* the mover's legal plays, a pass included */
    ddz_move moves[DDZ_MOVES_MAX];      /* those plays, in ddz_movegen's order */
    int nsolutions;                     /* of them, the plays that keep the win (0: the
                                           mover's side loses) */
    ddz_ranks solutions[DDZ_MOVES_MAX]; /* those plays, as ranks (0: a pass), in
                                           ddz_movegen's order */
    long nodes;                         /* solver nodes the examination took */
} ddz_puzzle;

/* Returns the cards left in the three hands of `p`. */
int ddz_puzzle_cards(const ddz_solver_pos *p);

/* Examines position `p` under `rs` with solver `sv` within budget `b`
 * (NULL: none; it covers the whole call) and fills *out: the mover's legal
 * plays and exactly those that keep a win for its side. Returns 1 when `p`
 * is a puzzle (the mover's side wins and 2 * nsolutions < nmoves), 0 when
 * it is not (out filled all the same), or fails with DDZ_EBUDGET or
 * DDZ_ETIMEOUT when the budget ran out first (out->nsolutions is then
 * meaningless), DDZ_ENOSPC for a position too big for the move stack,
 * DDZ_EINVAL for one that cannot occur, DDZ_EPHASE when a hand is already
 * empty (the game is over: nobody moves). */
int ddz_puzzle_find(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                    const ddz_solver_budget *b, ddz_puzzle *out);

/* Returns the difficulty of a puzzle with `nsolutions` winning plays among
 * `nmoves`: log2(nmoves / nsolutions), rounded to 1/100 (0 when either is
 * below 1). Larger is harder. */
double ddz_puzzle_difficulty(int nmoves, int nsolutions);

#endif
