/* ai.h - hosted players behind one interface.
 *
 * A hosted AI decides from a ddz_view (what its seat may know) and returns a
 * bid or the cards of a play. Each AI is an opaque object with its own
 * random stream, so a seeded AI replays the same decisions. The service
 * adapts an AI to a seat; nothing here does I/O.
 *
 * Memory. An AI object is small (a few hundred bytes: its seed, random
 * stream, budget and statistics). The scratch memory of a decision (about
 * 10 MB for ai:strong's search tables, move buffers for the others) is a
 * ddz_ai_workspace, owned by whoever runs decisions and passed to each: one
 * per thread that decides (each worker of the server's think pool; an
 * in-line loop such as `ddz match`, `ddz bench ai` or `ddz engine`), shared
 * by all the AIs that thread serves. A decision does not depend on the
 * workspace it is given nor on what the workspace did before. Neither an
 * AI nor a workspace may be used by two threads at once.
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
typedef struct ddz_ai_workspace ddz_ai_workspace;

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

/* Sets how ai:strong's endgame search values its candidates (enum
 * ddz_strong_endgame in ai/strong.h: the score a side can force, the
 * default, or who wins); other AIs ignore it. */
void ddz_ai_set_endgame(ddz_ai *ai, int mode);

/* Returns the units of search work the last decision spent (0 for AIs that
 * do not search). */
long ddz_ai_last_units(const ddz_ai *ai);

/* Frees `ai`; NULL is fine. Workspaces it used are not affected. */
void ddz_ai_destroy(ddz_ai *ai);

/* Returns the AI's name as given to ddz_ai_create (e.g. "greedy"). */
const char *ddz_ai_name(const ddz_ai *ai);

/* Creates the scratch memory for decisions of any AI (about 10 MB of
 * virtual memory, zero-filled: pages are committed as searches touch
 * them). Returns it, or NULL when out of memory. */
ddz_ai_workspace *ddz_ai_workspace_create(void);

/* Frees `ws`; NULL is fine. No decision may be running in it. */
void ddz_ai_workspace_destroy(ddz_ai_workspace *ws);

/* Returns a legal bid (0 or above every earlier bid, at most max_bid) for the
 * seat of `v`, whose turn it is to bid, deciding in workspace `ws`
 * (required). Never fails. */
int ddz_ai_bid(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws);

/* Returns the cards of a legal play for the seat of `v`, whose turn it is
 * to play: 0 (pass) only when following. Decides in workspace `ws`
 * (required). Never fails. */
ddz_cards ddz_ai_play(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws);

/* Returns true when `name` is a known AI. */
int ddz_ai_exists(const char *name);

#endif
