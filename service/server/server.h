/* server.h - `ddz serve`: the online service (see proto/PROTOCOL.md).
 *
 * One libwebsockets event loop serves the static client from the web
 * directory, the JSON protocol at /ws, records at /api/games/ID, and
 * /healthz and /metrics. Nothing blocks the loop: clients and engines are
 * non-blocking, storage writes go to the store's writer thread, clocks are
 * lws timers embedded in the rooms.
 */
#ifndef DDZ_SERVER_H
#define DDZ_SERVER_H

#include "service/server/server_cfg.h"

/* Runs the service until SIGTERM or SIGINT, then stops accepting, tells
 * clients (`bye`), records games cut short as aborted, flushes the store
 * and returns 0. Returns 1 if it could not start (the reason on stderr). */
int ddz_server_run(const ddz_server_cfg *cfg);

#endif
