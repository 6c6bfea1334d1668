/* http_puzzles.h - the server's puzzles over HTTP (spec §16): GET
 * /api/puzzles/next?rules=R&recent=ID,ID... (a puzzle of rule set R, the
 * default one without it, 400 for an unknown one; picked near a rating of
 * 1500 among those not listed in `recent`, up to
 * DDZ_STORE_PUZZLE_RECENT_MAX ids, 400 for a list that is not one; 404
 * while the stock has none of R). The answer never holds the solutions
 * (ddz_store_puzzle_json). One store read on the store's reader thread
 * (http_routes.h). proto/PROTOCOL.md ("Puzzles") describes the answer.
 */
#ifndef DDZ_HTTP_PUZZLES_H
#define DDZ_HTTP_PUZZLES_H

typedef struct ddz_srv ddz_srv;

/* Registers /api/puzzles/next in srv's route table. Returns 0 or what
 * ddz__http_route_add() returns. */
int ddz__http_puzzles_routes(ddz_srv *srv);

#endif
