/* http_games.h - the finished games over HTTP: GET /api/games/ID (a
 * listed room's record), /api/games/ID-KEY (a private or password room's),
 * either with /analysis (its post-game analysis, computed off the loop by
 * the analyst on the first request, then cached in the store), and GET
 * /api/my-games (a browser's own recent games, `Authorization: Bearer
 * KEY`; with an account's session S as the bearer, the account's games,
 * from any device: store.h ddz_store_account_owner). Each is one store read on the store's reader
 * thread: the handler hands it to the transport (http_routes.h), which answers when it comes back,
 * with what this file makes of it. proto/PROTOCOL.md describes the answers.
 */
#ifndef DDZ_HTTP_GAMES_H
#define DDZ_HTTP_GAMES_H

typedef struct ddz_srv ddz_srv;

/* Registers /api/my-games and /api/games/ in srv's route table. Returns 0
 * or what ddz__http_route_add() returns. */
int ddz__http_games_routes(ddz_srv *srv);

#endif
