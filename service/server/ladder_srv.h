/* ladder_srv.h - `ddz serve`'s continuous rated ladder (SPEC 12).
 *
 * Participants: bots enlisted with `ddz bridge --ladder` (the protocol's
 * `enlist` with competition "ladder"), operator engines (--ladder-engine
 * NAME: `engine:NAME`) and hosted AIs (--ladder-ai NAME[:MS]: `ai:NAME`,
 * MS the per-decision budget). A deal is played the seed's way (SPEC 12):
 * at 2..6 tables at once, seat s of every table holding hand s, each
 * program (a bot or an engine) once, hosted AIs in the seats left
 * (service/ladder/deal_plan.h says who sits where). Each table's game is
 * a room of its own (room.h, "tournament tables": the same borrowed-runner
 * room), so a bot is told its seat by `joined`. When every table has
 * played, each hand's holders are rated against each other (deal_plan.h,
 * rating.h), and the deal goes to the store in one write (the standings
 * and one history row per seat); the games were stored as every room's,
 * so /api/games/ID replays them.
 *
 * Faults. A fault costs what the rule set says, in the scores. A bot that
 * drops in a deal is charged at once (the room's grace is 0, custody
 * "fault") and, in the deal's later games, at its first request (a seat
 * that answers nothing but a fault); it is not seated again until it is
 * connected. A participant that faults in most of its recent games (more
 * than half of its last 12, at least 3 of them; games it was absent for do
 * not count) is suspended with the reason shown: a bot is told `released`
 * and enlisting again lifts it; an engine or an AI stays suspended until
 * the server starts again.
 *
 * Bounds: --ladder-max participants (default 100; those stored count too:
 * past the bound the rest are not loaded, and a new bot is refused),
 * --ladder-tables tables at once (default 4, at least 2: a deal needs two),
 * each holding a room, its seats and, for engines, processes counted
 * against --max-engines (hosted AIs against --max-ais); a deal that would
 * pass a budget waits. Each participant keeps its latest 100 seats (rows
 * of some 0.8 kB) in memory for GET /api/ladder/NAME.
 */
#ifndef DDZ_LADDER_SRV_H
#define DDZ_LADDER_SRV_H

#include <stddef.h>

#include "proto/msg.h"
#include "service/server/host.h"
#include "service/server/player.h"

typedef struct ddz_srv ddz_srv;

#define DDZ_LADDER_DEFAULT_MAX 100  /* --ladder-max */
#define DDZ_LADDER_DEFAULT_TABLES 4 /* --ladder-tables */
#define DDZ_LADDER_DEFAULT_TIME 10  /* --ladder-time, seconds per action */
#define DDZ_LADDER_HISTORY 100      /* deals kept per participant for the API */
#define DDZ_LADDER_MAX_FIXED 16     /* --ladder-engine and --ladder-ai options, each */

/* Starts the ladder of srv->cfg (after the loop, the think pool and the
 * store exist): loads the standings, histories and pair counts of its rule
 * set. Returns 0, or -1 with a one-line reason in `err` (an unknown rule
 * set, engine or AI, the database). */
int ddz__ladder_start(ddz_srv *srv, char *err, size_t errlen);

/* Bot `p` asked to enlist for the ladder (`q`, for error answers): it is
 * answered `enlisted`, or an error (ENOTFOUND without a ladder, EAUTH for
 * a connection without a bot token or a name the ladder cannot take,
 * EBUSY when --ladder-max participants are known). */
void ddz__ladder_enlist(ddz_srv *srv, ddz_player *p, const ddz_req *q);

/* Several nodes: the cluster side has news (lead_srv.h): look at once.
 * Nothing without a ladder. */
void ddz__ladder_wake(ddz_srv *srv);

/* Returns whether the server runs a ladder. */
bool ddz__ladder_running(const ddz_srv *srv);

/* The lobby frees player `p`: forget it. */
void ddz__ladder_forget(ddz_srv *srv, ddz_player *p);

/* Registers GET /api/ladder (the standings) and GET /api/ladder/NAME (one
 * participant's page) in srv's route table (http_routes.h), whether a
 * ladder runs or not (without one they say so). Returns 0 or what
 * ddz__http_route_add() returns. */
int ddz__ladder_routes(ddz_srv *srv);

/* Ends the ladder's tables (the games being played were recorded as
 * aborted by the rooms first; a deal cut short is not rated) and frees it.
 * NULL-safe. */
void ddz__ladder_destroy(ddz_srv *srv);

/* The ladder plug-in (kind "ladder"): runs the ladder when the host's
 * configuration has one; GET /api/ladder either way. */
extern const ddz_plugin ddz_ladder_plugin;

#endif
