/* ladder_srv.h - `ddz serve`'s continuous rated ladder (spec §12).
 *
 * Participants: bots enlisted with `ddz bridge --ladder` (the protocol's
 * `enlist` with competition "ladder"), operator engines (--ladder-engine
 * NAME: `engine:NAME`) and hosted AIs (--ladder-ai NAME[:MS]: `ai:NAME`,
 * MS the per-decision budget). A deal is played the seed's way (spec §12):
 * at 2..6 tables at once, seat s of every table holding hand s, each
 * program (a bot or an engine) once, hosted AIs in the seats left
 * (service/ladder/deal_plan.h says who sits where). Each table's game is
 * a table of the host's (host.h: a room around the ladder's runner), so a bot is told its seat by
 * `joined`. When every table has played, each hand's holders are rated against each other
 * (deal_plan.h, rating.h), and the deal goes to the store in one write (the standings and one
 * history row per seat); the games were stored as every room's, so /api/games/ID replays them.
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

#include "service/server/host.h"

#define DDZ_LADDER_DEFAULT_MAX 100  /* --ladder-max */
#define DDZ_LADDER_DEFAULT_TABLES 4 /* --ladder-tables */
#define DDZ_LADDER_DEFAULT_TIME 10  /* --ladder-time, seconds per action */
#define DDZ_LADDER_HISTORY 100      /* deals kept per participant for the API */
#define DDZ_LADDER_MAX_FIXED 16     /* --ladder-engine and --ladder-ai options, each */

/* The ladder plug-in (kind "ladder") of the table host (host.h): runs the
 * ladder when the host's configuration has one (--ladder or any ladder
 * option), and on several nodes (--node with PostgreSQL) its cluster side
 * (ladder_net.h) on the host's lead thread, the lock "ladder:RULES"
 * saying which node schedules; GET /api/ladder and /api/ladder/NAME
 * either way (without a ladder they say so). An `enlist` naming no
 * competition is the ladder's while it runs (and no tournament is
 * configured before it). */
extern const ddz_plugin ddz_ladder_plugin;

#endif
