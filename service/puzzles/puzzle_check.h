/* puzzle_check.h - the answer check of a puzzle (spec §16, issue 42):
 * replays a person's line against the solver, off the event loop (the
 * caller's worker thread: each call may search for a second or two).
 *
 * The person plays the mover's seat of the stored position; the two other
 * seats are the server's: after each of the person's plays that keeps the
 * win, each other seat moves in turn until the mover's seat is to play
 * again or the game is over. A partner (the mover's side) plays the first
 * play, in ddz_movegen's order, that keeps the side's win. A defender has
 * none that wins (the mover's side wins), so it plays its best defence:
 * the play that leaves the person the fewest winning plays at their next
 * turn (looking through the seat between, a partner playing as above, the
 * other defender its own best defence), the first in ddz_movegen's order
 * among equals. The solver's verdicts are exact, so the same line gets
 * the same replies on every call and every machine: the check keeps no
 * state between a person's requests. Each play shown is the lowest suits
 * of its ranks (ddz_cards_pick), as the solutions are.
 */
#ifndef DDZ_PUZZLE_CHECK_H
#define DDZ_PUZZLE_CHECK_H

#include "ai/solver.h"
#include "service/store/store.h"

enum {
    DDZ_PUZZLE_CHECK_PLAYS = 30, /* the person's plays in one attempt, at most */
};

/* Checks attempt `body` ({"plays": [[codes]...]}: the mover's plays so far,
 * the first the answer to the position, each later one to the server's
 * replies) at puzzle `p` with solver `sv` within budget `b` (it covers
 * the whole call; NULL: none). Sets *json (malloc'd) to the answer:
 *   {"result":"continue","replies":[[codes]...]} the line goes on: the
 *       other seats' plays after the last play, the mover to play again;
 *   {"result":"solved","line":[{"seat","cards"}...]} the mover's side
 *       has won (a hand of it is empty);
 *   {"result":"failed","solutions":[...],"at":K,"line":[...]} at the
 *       first of the person's plays that gives the win away (plays[K]; the
 *       line ends with it): the plays that kept the win there, told only
 *       then (at K 0, the puzzle's solutions).
 * Returns 0 with such an answer, DDZ_EFIELD with *json an error object
 * ({"error":"EFIELD"|"EILLEGAL","message"}) for a body that is not such
 * JSON, a play not held or not legal there, or plays after the line's
 * end, or DDZ_EBUDGET / DDZ_ETIMEOUT (the budget ran out: *json NULL),
 * DDZ_EINVAL (the stored puzzle does not parse), DDZ_ENOMEM. */
int ddz_puzzle_check(ddz_solver *sv, const ddz_store_puzzle *p, const char *body,
                     const ddz_solver_budget *b, char **json);

#endif
