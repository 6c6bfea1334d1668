/* random.h - ai:random, a uniformly random legal bid or play.
 *
 * The baseline every other player is measured against, and the move policy
 * of the self-play benchmark.
 */
#ifndef DDZ_AI_RANDOM_H
#define DDZ_AI_RANDOM_H

#include "ai/rng.h"
#include "rules/movegen.h"
#include "rules/view.h"

/* Returns a uniformly random legal bid (one of ddz_rules_legal_bids: 0, or
 * above every earlier bid up to the rule set's max_bid) for the seat of `v`.
 * DOES NOT CHECK that it is the seat's turn. Never fails. */
int ddz_random_bid(ddz_rng *r, const ddz_view *v);

/* Returns the cards of a uniformly random legal play (0 = pass) for the
 * seat of `v`, chosen among plays identified by ranks. `moves` is scratch
 * space for `cap` moves (DDZ_MOVES_MAX always suffices). */
ddz_cards ddz_random_play(ddz_rng *r, const ddz_view *v, ddz_move *moves, size_t cap);

#endif
