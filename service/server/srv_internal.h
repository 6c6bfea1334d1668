/* srv_internal.h - what server.c, lobby.c and room.c share.
 *
 * The service's single context is `ddz_srv`; there is no other mutable
 * global state (the signal handler reaches the context through one pointer
 * in server.c). Connections, players and rooms are never freed inside
 * their own callbacks: they are marked and reaped from the loop.
 */
#ifndef DDZ_SRV_INTERNAL_H
#define DDZ_SRV_INTERNAL_H

#include <jansson.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdint.h>

#include "ai/ai.h"
#include "proto/event.h"
#include "proto/msg.h"
#include "service/net/lws_loop.h"
#include "service/table/seat.h"
#include "service/server/server.h"
#include "service/store/store.h"
#include "service/seats/think.h"

typedef struct ddz_srv ddz_srv;
typedef struct ddz_conn ddz_conn;
typedef struct ddz_player ddz_player;
typedef struct ddz_room ddz_room;

/* ---- connections (server.c) ---- */

/* Queues `msg` (a JSON object, reference stolen; usually a
 * ddz_event_print()) for `c`. A NULL `c`, a NULL `msg` (a print that
 * failed) or a closing connection drops it. A client that stops reading is
 * closed when its queue passes the limit. */
void ddz__conn_send(ddz_conn *c, json_t *msg);

/* Queues an already serialised frame (copied), so one event going to many
 * connections is serialised once. */
void ddz__conn_send_text(ddz_conn *c, const char *text, size_t len);

/* Sends an error event for request `r` (NULL if unparsed). */
void ddz__conn_error(ddz_conn *c, int code, const char *message, const ddz_req *r);

/* Closes `c` after what is queued, with WebSocket status `status`. */
void ddz__conn_close(ddz_conn *c, int status, const char *reason);

/* Stops (true) or resumes (false) reading frames from `c`: while held, what
 * the client sends stays in the socket and in lws's buffer, and is handed
 * to the lobby, in order, once resumed. NULL-safe. */
void ddz__conn_hold(ddz_conn *c, bool hold);

/* Monotonic microseconds: the loop's clock (ddz_lws_loop_now_us). */
int64_t ddz__now_us(void);

/* Structured log line on stderr (JSON), unless quiet. */
void ddz__log(ddz_srv *srv, const char *level, const char *room, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- players (lobby.c) ---- */

struct ddz_player {
    char id[16];      /* public id, "p17" */
    char name[129];   /* display name: 32 characters of UTF-8 */
    char resume[68];  /* secret resume token (hex) */
    bool bot;         /* identified with a bot token */
    ddz_conn *conn;   /* NULL while disconnected */
    ddz_room *room;   /* room joined or watched, NULL if none */
    int seat;         /* 0..2, or -1 when spectating / not in a room */
    bool autopass;    /* pass for me when I cannot beat */
    int64_t gone_us;  /* when the connection dropped, 0 if connected */
    ddz_player *next; /* in the lobby's list */
};

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

/* Frees players gone too long and rooms marked dead. Called from a timer. */
void ddz__lobby_reap(ddz_srv *srv);

/* Frees every room and player (shutdown); connections keep no pointers. */
void ddz__lobby_destroy(ddz_srv *srv);

/* Returns the player of a connection, NULL before hello. */
ddz_player *ddz__conn_player(ddz_conn *c);
void ddz__conn_set_player(ddz_conn *c, ddz_player *p);

/* ---- rooms (room.c) ---- */

/* Creates a room with `opts` (already range-checked). Returns the room or
 * NULL with *err set (DDZ_ERULESET, DDZ_ENOTFOUND for an unknown AI or
 * engine, DDZ_ENOMEM). */
ddz_room *ddz__room_create(ddz_srv *srv, const ddz_room_opts *opts, int *err);

/* Fills the open seats with the `fill` AI of the options (after the
 * creator sat). Returns 0 or DDZ_ENOTFOUND (unknown AI). */
int ddz__room_fill(ddz_room *r);

/* Seats player `p` (seat -1 = any free). Returns the seat, or DDZ_EFULL,
 * DDZ_EAUTH (bots not allowed), DDZ_EINVAL (seat taken). */
int ddz__room_sit(ddz_room *r, ddz_player *p, int seat);

/* Adds `p` as a spectator. */
int ddz__room_watch(ddz_room *r, ddz_player *p);

/* `p` leaves (seat or spectator). A seated player leaving mid-game is
 * handed to custody at once, as if the grace had run out. */
void ddz__room_leave(ddz_room *r, ddz_player *p);

/* `p` dropped (true) or came back (false). */
void ddz__room_connection(ddz_room *r, ddz_player *p, bool connected);

/* A bid, play, autopass or rematch request from a seated player. */
void ddz__room_request(ddz_room *r, ddz_player *p, const ddz_req *q);

/* Sends `p` the full state snapshot. */
void ddz__room_send_state(ddz_room *r, ddz_player *p);

/* Fills `out` with the lobby's view of a room (a `rooms` entry). Never
 * fails. */
void ddz__room_summary(const ddz_room *r, ddz_event_room *out);

/* Accessors the lobby needs. */
const char *ddz__room_id(const ddz_room *r);
bool ddz__room_listed(const ddz_room *r);
bool ddz__room_password_ok(const ddz_room *r, const char *password);
bool ddz__room_dead(const ddz_room *r);
ddz_room *ddz__room_next(ddz_room *r);
ddz_room **ddz__room_nextp(ddz_room *r); /* the lobby's list link */

/* Server shutting down: record a running game as aborted. */
void ddz__room_abort(ddz_room *r);

/* Frees a room: timers cancelled, engines stopped, seats and watchers
 * released (players keep no pointer to it: the caller clears them). */
void ddz__room_destroy(ddz_room *r);

/* ---- the player's seat (seat_player.c) ---- */

/* Returns a seat adapter for `p` (a person or a bot), or NULL when out of
 * memory. */
ddz_seat *ddz__seat_player_create(ddz_srv *srv, ddz_player *p);

/* Fills `out` with the `turn` event for `ask` (the deadline counted from
 * now), with the legal answers if `with_legal`: the bids, or the plays
 * (pass last when following) in an array allocated here. Returns that
 * array, for the caller to free() once the event is printed; NULL for a
 * bid, without legal, or when out of memory (the plays are then an empty
 * list). */
ddz_cards *ddz__turn_event(const ddz_table *t, const ddz_tev *ask, bool with_legal,
                           ddz_event_turn *out);

/* Fills `out` with the `game` event that starts `ev`'s game, with the hand
 * or null. Never fails. */
void ddz__game_event(const ddz_table *t, const ddz_tev *ev, bool with_hand, ddz_event *out);

/* ---- metrics ---- */
typedef struct ddz_metrics {
    long connections, connections_total;
    long games_started, games_finished, games_aborted;
    long faults[5]; /* by enum ddz_fault */
    long engines;   /* engine processes running */
    long frames_in, frames_out, errors_sent;
    long latency_buckets[12]; /* action -> broadcast, microseconds, log2 buckets */
    double latency_sum_s;
    long latency_count;
} ddz_metrics;

/* Records one action-to-broadcast latency. */
void ddz__metrics_latency(ddz_srv *srv, int64_t us);

/* ---- the context ---- */
struct ddz_srv {
    ddz_server_cfg cfg;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    ddz_store *store;
    ddz_think *think;  /* hosted AI decisions, off the loop */
    ddz_lws_loop loop; /* the lws loop as seats see it (loop.base) */
    ddz_lobby lobby;
    ddz_metrics m;
    volatile sig_atomic_t stopping;  /* set by the signal handler: stop the loop */
    lws_sorted_usec_list_t reap_sul; /* periodic reaping */
};

#endif
