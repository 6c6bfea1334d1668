/* http_people.h - people's ratings over HTTP (SPEC §15): GET
 * /api/players/NAME (an account's profile: its ratings per rule set,
 * their history and its newest rated games, 404 for no live account of
 * that name), GET /@/NAME (a profile's address to share: 302 to the
 * browser client's /#/@/NAME) and GET
 * /api/leaderboard?rules=R (the top accounts by rating under R, the
 * default rule set without it, 400 for an unknown one). Each is one store
 * read on the store's reader thread (http_routes.h). proto/PROTOCOL.md
 * ("Ratings and the leaderboard") describes the answers.
 */
#ifndef DDZ_HTTP_PEOPLE_H
#define DDZ_HTTP_PEOPLE_H

typedef struct ddz_srv ddz_srv;

#define DDZ_HTTP_BOARD_ROWS 50 /* players a leaderboard lists */

/* Registers /api/players/, /@/ and /api/leaderboard in srv's route table.
 * Returns 0 or what ddz__http_route_add() returns. */
int ddz__http_people_routes(ddz_srv *srv);

#endif
