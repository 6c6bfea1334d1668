/* greedy.h - ai:greedy, a rule-based player (see greedy.c for the rules). */
#ifndef DDZ_AI_GREEDY_H
#define DDZ_AI_GREEDY_H

#include "ai/hand.h"
#include "rules/movegen.h"
#include "rules/view.h"

/* Returns a legal bid for the seat of `v` from a count of its strong cards. */
int ddz_greedy_bid(const ddz_view *v);

/* Returns the cards of a legal play for the seat of `v` (0 = pass, only when
 * following). `moves` is scratch space for `cap` moves. Deterministic. */
ddz_cards ddz_greedy_play(const ddz_view *v, ddz_move *moves, size_t cap);

/* The same decision, with hand scores memoised in `cache` (NULL = none):
 * the playout policy of ai:strong, which meets the same hands again and
 * again. Returns exactly what ddz_greedy_play returns. */
ddz_cards ddz_greedy_play_cached(const ddz_view *v, ddz_move *moves, size_t cap,
                                 ddz_hand_cache *cache);

/* Plays to suggest to the seat of `v` when it is asked to play (the Hint
 * button, pressed again for the next). Bombs and the rocket stay whole: no
 * play that spends part of a four, a four with kickers, or a joker of the
 * rocket is offered. First ai:greedy's own choice, unless it is such a
 * play or a bomb; then one play of each other shape (a kind of
 * combination on a main rank and length, with a kind of kicker: of its
 * kicker choices the one greedy scores best as a lead, so an airplane is
 * not offered once per kicker), from the smallest; the bombs and the
 * rocket last, whole; when `max` is too small for every shape, the
 * largest other shapes are left out before any bomb. Writes up to `max`
 * plays to `out`, never a pass;
 * every one is cards of v->hand. `moves` is scratch space for `cap` moves.
 * Deterministic. Returns how many it wrote (0: passing is all the seat
 * can do, or max <= 0). */
int ddz_greedy_hints(const ddz_view *v, ddz_move *moves, size_t cap, ddz_cards *out, int max);

#endif
