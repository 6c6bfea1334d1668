/* http_puzzles.h - the server's puzzles over HTTP (spec §16): GET
 * /api/puzzles/next?rules=R&recent=ID,ID... (a puzzle of rule set R, the
 * default one without it, 400 for an unknown one; picked near a rating of
 * 1500 among those not listed in `recent`, up to
 * DDZ_STORE_PUZZLE_RECENT_MAX ids, 400 for a list that is not one; 404
 * while the stock has none of R). The answer never holds the solutions
 * (ddz_store_puzzle_json). One store read on the store's reader thread
 * (http_routes.h). POST /api/puzzles/ID/attempt with {"plays": [[codes]
 * ...]}: the attempt checked on the puzzler's attempts worker
 * (puzzler.h, puzzle_check.h), answered when done: 200 with the result,
 * 400 for a bad body or an illegal play, 404 for no such puzzle, 503
 * when too many are being checked or the check ran out of budget.
 * proto/PROTOCOL.md ("Puzzles") describes the answers.
 */
#ifndef DDZ_HTTP_PUZZLES_H
#define DDZ_HTTP_PUZZLES_H

#include <stdbool.h>

typedef struct ddz_srv ddz_srv;

/* Registers /api/puzzles/next and POST /api/puzzles/ in srv's route
 * table. Returns 0 or what ddz__http_route_add() returns. */
int ddz__http_puzzles_routes(ddz_srv *srv);

/* Answers the attempts the puzzler has checked since the last call (the
 * loop, after a wake), or with `answer` false (the connections are gone:
 * the server's stop) only frees what waited for them. Never fails. */
void ddz__http_puzzles_collect(ddz_srv *srv, bool answer);

#endif
