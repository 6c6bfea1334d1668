/* puzzles_srv.h - puzzles (残局, spec §16) as a plug-in of the table host
 * (host.h, plugin.h): the server's stock built from its own games, and
 * the HTTP that serves it. It reaches the server through host.h only.
 *
 *   GET  /api/puzzles/next?rules=R&recent=ID,...  a puzzle of rule set R
 *        (the default one without it; 400 ERULESET for an unknown one),
 *        picked among the DDZ_STORE_PUZZLE_NEAR nearest a rating (the
 *        person's with "Authorization: Bearer S", else 1500) and not one
 *        of `recent` (up to DDZ_STORE_PUZZLE_RECENT_MAX ids; 400 EFIELD
 *        for a list that is not one); 404 while the stock has none of R.
 *        Signed in, the answer says where the person stands ("you").
 *   GET  /api/puzzles/ID                         that puzzle (404 if none)
 *   POST /api/puzzles/ID/attempt {"plays": [[codes]...]}  the line
 *        checked on the puzzler's attempts worker (puzzler.h,
 *        puzzle_check.h) and answered when done: 200 with the result
 *        (continue / solved / failed; a signed-in person's first ended
 *        attempt at the puzzle rated), 400 for a bad body or an illegal
 *        play, 401 for a session not live, 404 for no such puzzle, 503
 *        with Retry-After when too many are being checked or the check ran
 *        out of budget.
 *   GET  /puzzles                                302 to the page, /#/puzzles
 *
 * No answer ever holds a puzzle's solutions before the line fails there,
 * nor the game it comes from before the line ends. proto/PROTOCOL.md
 * ("Puzzles") describes the answers; docs/operations.md the budgets.
 *
 * The stock: each game anyone may read (a listed room's, not redealt),
 * once stored, is handed to the puzzler's worker (the plug-in's game_over).
 */
#ifndef DDZ_PUZZLES_SRV_H
#define DDZ_PUZZLES_SRV_H

#include "service/server/plugin.h"

/* The plug-in: `ddz serve` hosts it with the competitions. */
extern const ddz_plugin ddz_puzzles_plugin;

#endif
