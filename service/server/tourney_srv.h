/* tourney_srv.h - `ddz serve --tournament DIR`: the tournament engine of
 * `ddz tournament` (service/tourney/) on the server's loop.
 *
 * DIR holds `players` (the players file of ddz tournament, plus
 * bot:TOKENNAME for a remote bot and engine:NAME for an operator engine)
 * and `options` (ddz tournament's options); the server writes there what
 * the command writes (games.jsonl, forfeits.jsonl, standings.json,
 * standings.html, tournament.json) with the same code, and resumes the
 * same way after a restart. Each table being played is a room (room.h,
 * "tournament tables") that people can watch.
 *
 * HELD GAMES. Every table of a turn plays the same deals, so a game is
 * published only when every table of its turn has finished that game (a
 * forfeited table plays none), or the turn is over: until then its room
 * (opened with ddz_room_opts.held) has stored it under a key told to
 * nobody (/api/games/ID: 404) and shown its spectators nothing of its
 * cards, and GET /api/tournament does not list it (it says how many it
 * holds back). Publishing clears the key (ddz_store_publish_games()), so
 * that /api/games/ID replays it; it is checked after each step of the
 * director and after a resume, which publishes again what its state
 * allows (docs/decisions.md, "Held games"). Remote bots say `enlist`
 * (proto/PROTOCOL.md) and are seated table after table; a bot not
 * connected when its table starts is waited for --tournament-late seconds,
 * then forfeits the table (seed 000 六).
 *
 * Durability: games.jsonl is written a line per game on the loop (one
 * small write(2)) and synced (fdatasync) at most once a second and at the
 * end of every turn, not per game: a SIGKILL loses nothing (the kernel has
 * the lines), a power cut at most the last second's games, which the
 * resume then plays again. Forfeits (one a table at most) and the reports
 * (once a turn) are synced when written.
 */
#ifndef DDZ_TOURNEY_SRV_H
#define DDZ_TOURNEY_SRV_H

#include <stdbool.h>

#include "service/server/player.h"
#include "service/store/store.h"

typedef struct ddz_srv ddz_srv;
typedef struct ddz_req ddz_req;
typedef struct ddz_tsrv ddz_tsrv;

/* Starts the tournament of srv->cfg.tournament_dir on the server's loop
 * (after the loop and the think pool exist), replaying what DIR holds.
 * With srv->tourney_lease set (several nodes) it first writes it to
 * DIR/lease, and checks it is still there before every append: a node
 * that finds another's stops writing (ddz__tsrv_fenced()).
 * Returns 0, or -1 with a one-line reason in `err` (a bad players or
 * options file, another tournament in DIR, an unknown engine, a records
 * file that does not fit). */
int ddz__tsrv_start(ddz_srv *srv, char *err, size_t errlen);

/* Several nodes (lead_srv.c): whether DIR/lease names a node other than
 * `node` (copied to `holder`); false when there is none or it cannot be
 * read. Reads a small file, on the loop. */
bool ddz__tsrv_lease_other(const char *dir, const char *node, char *holder, size_t holderlen);

/* Whether the running tournament found DIR/lease taken by another node
 * (then it has stopped writing to DIR; lead_srv.c ends it here). */
bool ddz__tsrv_fenced(ddz_srv *srv);

/* `p` (a bot) asked to enlist (`q`, for error answers): it is answered
 * `enlisted` and seated when its tables start, or an error. */
void ddz__tsrv_enlist(ddz_srv *srv, ddz_player *p, const ddz_req *q);

/* The lobby frees enlisted player `p`: forget it. */
void ddz__tsrv_forget(ddz_srv *srv, ddz_player *p);

/* Registers GET /api/tournament in srv's route table (http_routes.h),
 * whether a tournament runs or not ({"running":false} without one).
 * Returns 0 or what ddz__http_route_add() returns. */
int ddz__tsrv_routes(ddz_srv *srv);

/* The tournament stops on this node while the server goes on (its lock
 * was lost: lead_srv.h): the games being played are recorded as aborted
 * and its enlisted bots are told `released` with `reason`. Call
 * ddz__tsrv_destroy() next. Nothing without a tournament. */
void ddz__tsrv_abort(ddz_srv *srv, const char *reason);

/* Ends the tournament's tables (shutdown: the games being played are
 * recorded as aborted by the rooms first) and frees it. NULL-safe. */
void ddz__tsrv_destroy(ddz_srv *srv);

#endif
