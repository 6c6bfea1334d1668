/* conn.h - one WebSocket connection of the server: its send queue (the
 * shared one of service/net/ws_conn.h, bounded: a client that stops
 * reading is cut; and the server's budget of all the queues together),
 * its close, its rate limiter, its player.
 *
 * DURABLE BEFORE TOLD: a message may carry a store ticket
 * (ddz_store_ticket(): a game's `over` carries its record's); it is not
 * written before ddz_store_durable() reaches it, and neither is anything
 * queued behind it on that connection (the queue is in order), so nobody
 * hears of a finished game that a killed server could lose. The writer's
 * wake (ddz_store_on_durable) reaches the loop, which lets them go
 * (ddz__conn_release_held). A live database holds them for a commit
 * (milliseconds); one that stops answering, for --db-timeout at most.
 *
 * server.c's lws callback owns the connection's life (created on
 * ESTABLISHED, written on WRITEABLE, freed on CLOSED); everything else only
 * queues frames and asks for a close, never frees it. */
#ifndef DDZ_CONN_H
#define DDZ_CONN_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "service/net/ws_conn.h"
#include "service/server/player.h"
#include "service/table/loop.h"

typedef struct ddz_srv ddz_srv;
typedef struct ddz_addr ddz_addr;

struct ddz_conn {
    struct lws *wsi;
    ddz_srv *srv;
    ddz_player *player;
    ddz_addr *addr;       /* the client's address and what it holds (budget.h) */
    ddz_wsc_rx rx;        /* the current message, its frames (fragments) so far */
    bool rx_open;         /* a message has begun and not ended (its deadline runs) */
    bool rx_dropped;      /* a frame of the current message was over the rate */
    int64_t rx_start_us;  /* when the current message began */
    long next_rate_error; /* `dropped` at which the next ERATE is sent */
    /* send queue; a message's tag is its store ticket: not written before
     * the store's durable ticket reaches it, 0: at once */
    ddz_wsc_queue q;
    bool closing; /* close once the queue is sent */
    int close_status;
    char close_reason[64];
    ddz_wsc_rate rate;     /* frames a second (--rate), bursts of twice that */
    long dropped;          /* frames over the rate (their messages dropped) */
    ddz_conn *prev, *next; /* every connection (the context's budget) */
    /* The newest ticket in the queue not durable when queued, 0 if none;
     * while set, the connection is in the server's list of held ones. */
    uint64_t held;
    ddz_conn *held_prev, *held_next;
    /* idle checks (server.c): pinged after --idle seconds without a frame,
     * dropped 10 s after an unanswered ping */
    ddz_timer idle;  /* due at the next check */
    int64_t rx_us;   /* when the last frame (or pong) arrived */
    int64_t ping_us; /* when the ping went out, 0 if none is unanswered */
    bool ping_due;   /* a ping waits for WRITEABLE */
    /* A plain (not TLS) connection: its frames go out with
     * ddz_wsc_write_raw(), at the end of the loop's turn (ddz__conn_flush). */
    bool raw;
    bool dirty; /* ... queued this turn: in the server's list of those to flush */
    ddz_conn *dirty_prev, *dirty_next;
};

/* Counts `c` (set up by server.c) among the connections, and readies its
 * queue (bounded by --max-queue-per-conn) and its reassembly (messages of
 * DDZ_MSG_MAX bytes at most). */
void ddz__conn_link(ddz_conn *c);

/* Queues `msg` (a JSON object, reference stolen; usually a
 * ddz_event_print()) for `c`. A NULL `c`, a NULL `msg` (a print that
 * failed) or a closing connection drops it. The queues are a budget
 * (docs/operations.md, "Budgets"): a client whose queue passes --max-queue-per-conn is
 * cut, and while all the queues together pass --max-queued-bytes the
 * connections with the most queued are cut, first the biggest. A cut
 * connection's queue is freed at once and lws closes it on its next turn
 * (a client that does not read would never take a close frame). */
void ddz__conn_send(ddz_conn *c, json_t *msg);

/* Queues an already serialised frame (copied), so one event going to many
 * connections is serialised once. */
void ddz__conn_send_text(ddz_conn *c, const char *text, size_t len);

/* ddz__conn_send and ddz__conn_send_text for what may not be written
 * before the store's write of ticket `ticket` is durable (0, or a ticket
 * durable already: at once): the frame, and whatever is queued behind it,
 * waits in the queue (see above). */
void ddz__conn_send_held(ddz_conn *c, json_t *msg, uint64_t ticket);
void ddz__conn_send_text_held(ddz_conn *c, const char *text, size_t len, uint64_t ticket);

/* The store made more writes durable: every held connection whose first
 * waiting frame may go now is asked to write. Cheap when none is held.
 * The loop calls it when the store's writer wakes it. */
void ddz__conn_release_held(ddz_srv *srv);

/* Whether the frame at the head of `c`'s queue waits for a write to be
 * durable (a closing connection is closed only once it went). */
bool ddz__conn_head_held(const ddz_conn *c);

/* Returns whether everything queued for `c` may be written (no frame of
 * its waits for a durable write). NULL is settled. A table deals no game
 * to a player who is not (room_series.c, the competitions): its first
 * `turn` would wait behind the last `over` while the clock ran. */
bool ddz__conn_settled(const ddz_conn *c);

/* Sends an error event for request `r` (NULL if unparsed). */
void ddz__conn_error(ddz_conn *c, int code, const char *message, const ddz_req *r);

/* Closes `c` after what is queued, with WebSocket status `status`. */
void ddz__conn_close(ddz_conn *c, int status, const char *reason);

/* Stops (true) or resumes (false) reading frames from `c`: while held, what
 * the client sends stays in the socket and in lws's buffer, and is handed
 * to the lobby, in order, once resumed. NULL-safe. */
void ddz__conn_hold(ddz_conn *c, bool hold);

/* Returns the player of a connection, NULL before hello. */
ddz_player *ddz__conn_player(ddz_conn *c);
void ddz__conn_set_player(ddz_conn *c, ddz_player *p);

/* Takes one frame from the client's token bucket (--rate frames per
 * second, bursts of twice that). Returns false when the client is over. */
bool ddz__conn_rate_ok(ddz_conn *c);

/* Writes what `c`'s queue holds on its socket (server.c, on WRITEABLE):
 * every message the socket takes now, not one a callback (a move sends
 * each player two or three frames, and a writeable round trip per frame
 * was most of the loop's cost per message at 10,000 connections), up to
 * the first that waits for a durable write; a plain connection's in one
 * sendmsg() (ddz_wsc_write_raw()), a TLS one's through lws_write(), two or
 * more corked. Returns 0, or -1 when the connection is to close (the write
 * failed). */
int ddz__conn_write(ddz_conn *c);

/* Writes, at the end of a turn of the loop, what each plain connection
 * queued during it: one sendmsg() for all of a connection's frames of
 * the turn (at a move, the `played` and the `turn` to each player of the
 * table), at once rather than a writable callback later, which cost two
 * epoll_ctl() and a wakeup per recipient. What the socket does not take
 * waits for WRITEABLE, as before; a connection whose socket failed is
 * closed. The server's loop calls it after every turn. Cheap when nothing
 * was queued. */
void ddz__conn_flush(ddz_srv *srv);

/* Frees `c` and its queue, and stops counting it (server.c, once lws
 * closed it). */
void ddz__conn_free(ddz_conn *c);

#endif
