/* ai.h - hosted players behind one interface.
 *
 * A hosted AI decides from a ddz_view (what its seat may know) and returns a
 * bid or the cards of a play. Each AI is an opaque object with its own
 * random stream, so a seeded AI replays the same decisions. The service
 * adapts an AI to a seat; nothing here does I/O.
 *
 * Known names: "random" (uniformly random legal move), "greedy"
 * (rule-based), "strong" (determinized Monte Carlo search with greedy
 * playouts and exact endgame search, ai/strong.h).
 */
#ifndef DDZ_AI_H
#define DDZ_AI_H

#include <stdint.h>

#include "rules/view.h"

typedef struct ddz_ai ddz_ai;

/* Creates the AI called `name` with random seed `seed` and a time budget per
 * decision of `budget_ms` (0 = the AI's default; only searching AIs use it).
 * Returns the AI, or NULL with *err set to DDZ_ENOTFOUND (unknown name) or
 * DDZ_ENOMEM. */
ddz_ai *ddz_ai_create(const char *name, uint64_t seed, int budget_ms, int *err);

/* Sets the budget per decision of a searching AI (others ignore it): at
 * most `ms` milliseconds of wall clock (0 = no clock limit) and at most
 * `units` units of search work (ai:strong: one unit = one playout or one
 * bounded endgame search; 0 = no unit limit). Both 0 means the AI's
 * default (ai:strong: 1000 ms). A unit budget without a clock budget makes
 * a seeded AI's decisions reproducible. */
void ddz_ai_set_budget(ddz_ai *ai, int ms, long units);

/* Returns the units of search work the last decision spent (0 for AIs that
 * do not search). */
long ddz_ai_last_units(const ddz_ai *ai);

/* Frees `ai`; NULL is fine. */
void ddz_ai_destroy(ddz_ai *ai);

/* Returns the AI's name as given to ddz_ai_create (e.g. "greedy"). */
const char *ddz_ai_name(const ddz_ai *ai);

/* Returns a legal bid (0 or above every earlier bid, at most max_bid) for the
 * seat of `v`, whose turn it is to bid. */
int ddz_ai_bid(ddz_ai *ai, const ddz_view *v);

/* Returns the cards of a legal play for the seat of `v`, whose turn it is
 * to play: 0 (pass) only when following. */
ddz_cards ddz_ai_play(ddz_ai *ai, const ddz_view *v);

/* Returns true when `name` is a known AI. */
int ddz_ai_exists(const char *name);

#endif
