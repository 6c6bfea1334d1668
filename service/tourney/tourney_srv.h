/* tourney_srv.h - `ddz serve --tournament DIR`: the tournament engine of
 * `ddz tournament` (this folder) on the server's loop, a plug-in of the
 * table host (service/server/host.h) that `ddz serve` registers.
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
 *
 * Several nodes: the tournament has a lock ("tournament:NAME", NAME DIR's
 * last component) and runs on its holder only, started when the lock is
 * gained (resuming from DIR, which every node must see: a shared mount)
 * and ended when it is lost; a bot enlisting at another node is sent a
 * `redirect` to the holder. A node that gains the lock after another held
 * it waits out a grace first, and writes its lease to DIR/lease, which
 * the former holder checks before every append.
 */
#ifndef DDZ_TOURNEY_SRV_H
#define DDZ_TOURNEY_SRV_H

#include "service/server/host.h"

/* The tournament plug-in (kind "tournament"): runs the tournament of the
 * host's --tournament DIR, if any; GET /api/tournament either way
 * ({"running":false} without one). */
extern const ddz_plugin ddz_tourney_plugin;

#endif
