/* movegen.h - every legal play, written into the caller's buffer.
 *
 * Plays are rank multisets (suits never matter, spec §10). Generation goes
 * shape by shape; candidates whose shape can be read more than one way
 * (planes, four_two with a four as kickers) are kept only when the
 * classifier's canonical reading is the one being generated, so every play
 * appears exactly once. tests/rules/test_movegen.c compares the result with
 * a brute-force enumeration of all sub-multisets on random positions.
 */
#ifndef DDZ_MOVEGEN_H
#define DDZ_MOVEGEN_H

#include <stddef.h>

#include "combo.h"

/* Comfortably above the most plays any 20-card hand has (the tests check the
 * largest hands they meet); callers may pass a smaller buffer. */
#define DDZ_MOVES_MAX 4096

typedef struct ddz_move {
    ddz_ranks ranks; /* the play's ranks; 0 for a pass */
    ddz_combo combo; /* its classification (type DDZ_PASS for a pass) */
} ddz_move;

/* Generates the legal plays of `hand` under `rs`. When `last` is NULL or a
 * pass the player leads: every legal combination, no pass. Otherwise the
 * player follows `last`: every play that beats it, plus the pass (last in the
 * list). Writes at most `cap` moves to `out`. Returns the number of moves, or
 * DDZ_ENOSPC when they do not fit (out then holds the first `cap`). */
int ddz_movegen(const ddz_rules *rs, ddz_ranks hand, const ddz_combo *last, ddz_move *out,
                size_t cap);

/* Returns true when `hand` holds some play that beats `last` (a valid,
 * non-pass combo): false means the referee may auto-pass (spec §4). */
bool ddz_movegen_can_beat(const ddz_rules *rs, ddz_ranks hand, ddz_combo last);

#endif
