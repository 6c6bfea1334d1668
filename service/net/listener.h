/* listener.h - the server's listening socket, accepted by ddz rather than by
 * libwebsockets, so that running out of descriptors never spins the loop.
 *
 * lws 4.1's own listener retries accept() at once when it fails: with every
 * descriptor in use (EMFILE), the listening socket stays readable, each
 * poll() returns at once and each failure logs a line (one core at 100% and
 * megabytes of log for as long as the descriptors stay taken). lws only
 * pauses its listener when its own table of sockets is full, and that table
 * does not count the database, the engines' pipes or a static file being
 * sent, so the process runs out first. The vhost is therefore created with
 * CONTEXT_PORT_NO_LISTEN_SERVER and this module owns the listening socket:
 * it is adopted into the loop as a raw descriptor, and each connection it
 * accepts and keeps goes to the gate (gate.h: counted against its address,
 * its first request head read by ddz), which hands it to lws (HTTP, TLS,
 * the WebSocket upgrade: all as if lws had accepted it).
 *
 * The descriptor budget (ddz_listener_budget()): the soft RLIMIT_NOFILE is
 * raised towards the hard limit (as far as the connection cap needs), and a
 * reserve is kept below it for everything that is not a client socket.
 * Descriptors are numbered lowest-first, so an accepted socket whose number
 * is at or above `cap` means the process is within the reserve of its limit:
 * the gate closes a pending socket of the address holding the most
 * (ddz_gate_shed_heaviest()) to make room for it, or, when no address holds
 * more than one, that connection is shed (closed at once, the client sees
 * the close rather than a hang). When accept() itself fails for want of descriptors, a spare
 * descriptor kept open for that purpose is closed so that one waiting
 * connection can be accepted and shed, and the spare is opened again. In
 * both cases the listener is paused (no POLLIN) for a backoff of 50 ms
 * doubling to 1 s, so the loop sleeps instead of spinning, and accepting
 * resumes by itself when the backoff ends; a connection that fits ends the
 * episode. One warning is logged per episode (at most one a minute).
 */
#ifndef DDZ_LISTENER_H
#define DDZ_LISTENER_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/net/gate.h"
#include "service/table/loop.h"

/* The lws_protocols entry (an initializer) the listening socket is adopted
 * under; list it in the vhost's protocols. */
int ddz_listener_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len);
#define DDZ_LISTENER_PROTOCOL                                                                      \
    {                                                                                              \
        "ddz-listen", ddz_listener_callback, 0, 0, 0, NULL, 0                                      \
    }

typedef struct ddz_fd_budget {
    long nofile;  /* the soft RLIMIT_NOFILE after raising it */
    long reserve; /* descriptors kept for what is not a client socket */
    long cap;     /* accepted sockets must be numbered below this */
} ddz_fd_budget;

/* Raises the soft RLIMIT_NOFILE towards the hard limit, as far as `conns`
 * client sockets and the reserve need (never lowers it), and returns the
 * budget: the reserve is 64 descriptors plus 1/16 of the limit (stdio, the
 * database's two connections, lws's event pipe, engines' pipes, static files
 * being sent, the spare). Never fails: if the limit cannot be raised, the
 * budget is computed from the limit as it is. */
ddz_fd_budget ddz_listener_budget(long conns);

/* Called for each log-worthy event: `level` "warn" or "info", `msg` a
 * sentence. */
typedef void (*ddz_listener_log_fn)(void *ctx, const char *level, const char *msg);

typedef struct ddz_listener {
    int fd;               /* the listening socket, -1 when none */
    int spare;            /* kept open to shed a connection at EMFILE, -1 if none */
    ddz_fd_budget budget; /* see ddz_listener_budget() */
    struct lws_vhost *vh; /* connections are adopted here */
    struct lws *wsi;      /* the listening socket in the loop, NULL if not adopted */
    ddz_loop *loop;       /* where `resume` is armed */
    ddz_timer resume;     /* ends a pause */
    int64_t backoff_us;   /* the next pause's length */
    bool paused, stopped;
    bool episode;      /* shedding since the last connection that fit */
    int64_t warned_us; /* when the last warning was logged, 0 never */
    long episode_shed; /* connections shed in this episode */
    long shed, pauses; /* totals, for /metrics */
    ddz_listener_log_fn log;
    ddz_gate *gate; /* takes each socket kept (counts it, reads its head); NULL: lws at once */
    void *ctx;
} ddz_listener;

/* Opens the listening socket on `bind` (an IPv4 or IPv6 address or a host
 * name; NULL: every interface, IPv6 and IPv4) and `port`, and the spare
 * descriptor; connections are then admitted within `budget`. Returns 0, or -1 with the reason in
 * `err` (address in use, no permission, no such address). */
int ddz_listener_open(ddz_listener *l, const char *bind, int port, ddz_fd_budget budget, char *err,
                      size_t errlen);

/* Adopts the listening socket into `vh`'s loop (whose protocols include
 * DDZ_LISTENER_PROTOCOL) and starts accepting into `vh`; pauses are timed
 * on `loop` (the same loop, as service/net/lws_loop.h sees it). Returns 0,
 * or -1 if lws would not adopt it. */
int ddz_listener_start(ddz_listener *l, struct lws_vhost *vh, ddz_loop *loop);

/* Stops accepting for good and cancels the pause timer; call before
 * lws_context_destroy(). Connections still in the kernel's queue are reset
 * when the socket closes with the context. Never fails. */
void ddz_listener_stop(ddz_listener *l);

/* Closes what lws does not own (the spare; the listening socket too if it
 * was never adopted). Call after lws_context_destroy(). */
void ddz_listener_close(ddz_listener *l);

#endif
