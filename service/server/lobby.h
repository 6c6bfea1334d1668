/* lobby.h - every player and room: hello and resume, the room list,
 * create, join, quick play, spectate, leave. Requests inside a room go to
 * room.h. */
#ifndef DDZ_LOBBY_H
#define DDZ_LOBBY_H

#include "service/server/conn.h"
#include "service/store/store.h"

typedef struct ddz_srv ddz_srv;

typedef struct ddz_hello_check ddz_hello_check; /* lobby.c */

/* The lobby: every player and room. */
typedef struct ddz_lobby {
    ddz_player *players;
    ddz_room *rooms;
    ddz_hello_check *checks; /* hellos whose bot token the store is checking */
    long next_player, next_room;
} ddz_lobby;

/* A client frame arrived on `c` (already size- and rate-checked). */
void ddz__lobby_on_frame(ddz_srv *srv, ddz_conn *c, const char *text, size_t len);

/* `c` closed; its player (if any) is now disconnected, and a bot-token
 * check it waits for is orphaned. */
void ddz__lobby_on_close(ddz_srv *srv, ddz_conn *c);

/* The store's reader thread answered a hello's token check (`rd`, which
 * the lobby submitted). With `answer` false (shutdown: the loop is gone)
 * it is only freed. */
void ddz__lobby_token_checked(ddz_srv *srv, ddz_store_read *rd, bool answer);

/* Adds `r` to the room list (a tournament table). */
void ddz__lobby_add_room(ddz_srv *srv, ddz_room *r);

/* A cluster runs: hands it our listed rooms (the cluster writes only a
 * change) and logs when the database is lost or found again. Called from a
 * timer. */
void ddz__lobby_cluster_publish(ddz_srv *srv);

/* Frees players gone too long and rooms marked dead. Called from a timer. */
void ddz__lobby_reap(ddz_srv *srv);

/* Frees every room and player (shutdown); connections keep no pointers. */
void ddz__lobby_destroy(ddz_srv *srv);

#endif
