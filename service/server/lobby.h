/* lobby.h - a client's requests: `hello` (players.h), list, create, join,
 * quick play, spectate, leave and enlist; requests inside a room go to
 * room.h. */
#ifndef DDZ_LOBBY_H
#define DDZ_LOBBY_H

#include "service/server/conn.h"

typedef struct ddz_srv ddz_srv;

/* A client frame arrived on `c` (already size- and rate-checked). */
void ddz__lobby_on_frame(ddz_srv *srv, ddz_conn *c, const char *text, size_t len);

/* A cluster runs: hands it our listed rooms (the cluster writes only a
 * change) and logs when the database is lost or found again. Called from a
 * timer. */
void ddz__lobby_cluster_publish(ddz_srv *srv);

#endif
