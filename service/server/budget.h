/* budget.h - the server's budgets: every thing an anonymous client can make
 * the server hold has a bound (docs/operations.md, "Budgets"). The counts live in the
 * context (ddz_budget, context.h) and are kept where the thing is made and
 * freed (room_life.c, lobby.c, conn.c, server.c); this module holds the limits
 * with their defaults, the table of client addresses (connections and rooms
 * per address) and the budgets' metrics. */
#ifndef DDZ_BUDGET_H
#define DDZ_BUDGET_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "service/engine/spawn_budget.h"
#include "service/seats/think.h"

typedef struct ddz_srv ddz_srv;

/* Defaults for one node (docs/operations.md, "Budgets", has the arithmetic). */
#define DDZ_BUDGET_ENGINES_DEFAULT 64
#define DDZ_BUDGET_AIS_DEFAULT 2000
#define DDZ_BUDGET_IDLE_ROOMS_DEFAULT 1000
#define DDZ_BUDGET_ROOMS_PER_IP_DEFAULT 50
#define DDZ_BUDGET_CONNS_PER_IP_DEFAULT 100
#define DDZ_BUDGET_QUEUED_BYTES_DEFAULT (64 * 1024 * 1024)
#define DDZ_BUDGET_QUEUE_PER_CONN_DEFAULT (256 * 1024)
#define DDZ_BUDGET_PASSWORD_TRIES_DEFAULT 5
#define DDZ_BUDGET_AI_THINK_PER_IP_DEFAULT 1000 /* ms a second: one of the two think workers */
#define DDZ_BUDGET_AI_THINK_BURST_S 10          /* seconds' worth of it at once */
#define DDZ_BUDGET_AI_LEAN_MS 50                /* a decision's budget past it */
#define DDZ_ADDRS_MAX 100000 /* address entries (about 10 MB): see ddz__budget_conn_open */

/* Wrong passwords sent to one room or from one address: `tries` wrong ones
 * a minute are answered EAUTH, then every password is refused (ERATE,
 * without being checked) for a lockout that starts at a minute and doubles
 * with each lockout, up to an hour; ten quiet minutes forget it. */
typedef struct ddz_tries {
    int fails;          /* wrong passwords in the current window */
    int64_t window_us;  /* when the window (a minute) began */
    int64_t locked_us;  /* refused until then */
    int64_t penalty_us; /* the next lockout's length, 0 = a minute */
    int64_t last_us;    /* the last wrong password, 0 = none */
} ddz_tries;

/* Returns 0 if a password may be tried at `now` (µs), else the µs left of
 * the lockout. */
int64_t ddz__tries_locked(const ddz_tries *t, int64_t now);

/* Records a wrong password at `now`, `per_minute` allowed. Returns true if
 * it started a lockout. */
bool ddz__tries_fail(ddz_tries *t, int64_t now, int per_minute);

/* Returns true while `t` still matters at `now` (locked, or remembered). */
bool ddz__tries_active(const ddz_tries *t, int64_t now);

/* A client address as counted: an IPv4 address, or an IPv6 address's /64
 * (one host's usual allocation: counting single IPv6 addresses would let
 * one client be millions of them). */
#define DDZ_ADDR_MAX 48
#define DDZ_ADDR_BUCKETS 1024

/* One client address and what it holds. Entries are freed when they hold
 * nothing. */
typedef struct ddz_addr {
    struct ddz_addr *next;   /* hash chain */
    int socks;               /* sockets accepted from it, not yet closed (counted at accept) */
    int conns;               /* WebSocket connections open from it (its forwarded address too) */
    int rooms;               /* live rooms created from it */
    ddz_tries tries;         /* wrong passwords sent from it */
    ddz_spawn_budget spawns; /* engine starts for its rooms (set up at first use) */
    bool spawns_ready;       /* `spawns` was set up */
    char key[DDZ_ADDR_MAX];
} ddz_addr;

typedef struct ddz_addrs {
    ddz_addr *bucket[DDZ_ADDR_BUCKETS];
    long n; /* entries */
} ddz_addrs;

/* The limits in force (the option, else the default). */
long ddz__budget_max_engines(const ddz_srv *srv);
long ddz__budget_max_ais(const ddz_srv *srv);
long ddz__budget_max_idle_rooms(const ddz_srv *srv);
size_t ddz__budget_max_queued(const ddz_srv *srv);
size_t ddz__budget_max_queue_per_conn(const ddz_srv *srv);

/* The think pool's budget of thinking time per client address
 * (--ai-think-per-ip, think_sched.h). */
ddz_think_budget ddz__budget_think(const ddz_srv *srv);

/* The engine starts budget of the server (--spawn-rate), set up at its
 * first use; never NULL. */
ddz_spawn_budget *ddz__budget_spawns(ddz_srv *srv);

/* The starts a second one room may make (--spawn-rate-room). */
int ddz__budget_spawn_rate_room(const ddz_srv *srv);

/* Fills a new room's start budget `room` (--spawn-rate-room), counting
 * what it puts off as refused{spawns_per_room}. */
void ddz__budget_room_spawns(ddz_srv *srv, ddz_spawn_budget *room);

/* The engine start budget of address `a` (--spawn-rate-ip), set up at its
 * first use, counting what it puts off as refused{spawns_per_ip}; NULL
 * if `a` is NULL (no address: not bounded per address). An entry whose
 * budget is not full again is kept (ddz__budget_sweep), so that closing
 * every connection does not refill it. */
ddz_spawn_budget *ddz__budget_addr_spawns(ddz_srv *srv, ddz_addr *a);

/* The starts a second one address may make (--spawn-rate-ip). */
int ddz__budget_spawn_rate_ip(const ddz_srv *srv);

/* Counts a request refused because budget `kind` (enum ddz_budget_kind)
 * was spent. */
void ddz__budget_refused(ddz_srv *srv, int kind);

/* Writes the client address of `wsi` as counted to `out`: the peer's, or,
 * when the peer is the --trusted-proxy, the last hop of its
 * X-Forwarded-For header (the address the proxy itself saw; earlier hops
 * are the client's word), read whole whatever its length. Returns true,
 * or false when the proxy sent a header whose last hop cannot be read
 * (not an address, or no memory): refuse the request, which is never
 * charged to the proxy itself. "?" if the peer's address is unknown. */
bool ddz__budget_client_addr(const ddz_srv *srv, struct lws *wsi, char out[DDZ_ADDR_MAX]);

/* A socket was accepted from `peer` (the TCP peer: the forwarded address
 * is not known before the request head). Counts it against its address
 * and returns the address's entry, or NULL (the socket is to be closed at
 * once) when the address holds --max-conns-per-ip sockets already (a
 * refusal counted), or no memory or room in the table. The --trusted-proxy
 * is counted but never refused here: it carries many clients, each
 * counted at its WebSocket handshake under its forwarded address. Sets
 * *busy when the address holds more than half its budget. */
ddz_addr *ddz__budget_sock_open(ddz_srv *srv, const struct sockaddr *peer, socklen_t len,
                                bool *busy);

/* Counts the socket of `a` closed (NULL-safe); frees the entry once it
 * holds nothing. */
void ddz__budget_sock_close(ddz_srv *srv, ddz_addr *a);

/* Returns true if address `key` may open one more connection
 * (--max-conns-per-ip); counts a refusal otherwise. */
bool ddz__budget_conn_allowed(ddz_srv *srv, const char *key);

/* Counts a connection opened from `key`. Returns its address entry, or
 * NULL (the connection should be refused) if no memory, or if the table
 * is full (DDZ_ADDRS_MAX) even after forgetting every address that only
 * remembers wrong passwords. */
ddz_addr *ddz__budget_conn_open(ddz_srv *srv, const char *key);

/* Counts the connection of `a` closed (NULL-safe); frees the entry once it
 * holds nothing. */
void ddz__budget_conn_close(ddz_srv *srv, ddz_addr *a);

/* Returns true if address `a` (NULL: unknown, always true) may create one
 * more room (--max-rooms-per-ip); counts a refusal otherwise. */
bool ddz__budget_room_allowed(ddz_srv *srv, const ddz_addr *a);

/* Counts a room created from `a` made (open) or freed (close). NULL-safe;
 * close frees the entry once it holds nothing. */
void ddz__budget_room_open(ddz_addr *a);
void ddz__budget_room_close(ddz_srv *srv, ddz_addr *a);

/* Returns the most wrong passwords a minute (--password-tries). */
int ddz__budget_password_tries(const ddz_srv *srv);

/* Forgets addresses that hold nothing and remember no wrong password nor
 * engine starts still being paid for (from the reaping timer). */
void ddz__budget_sweep(ddz_srv *srv);

/* Frees the address table (shutdown, after every connection and room). */
void ddz__budget_destroy(ddz_srv *srv);

/* Writes the budgets' gauges to `f` in Prometheus text (with the
 * password limiter's: ddz_password_failures_total, _lockouts_total,
 * _refused_total and the gauge ddz_password_locked):
 * ddz_budget_used{budget=...}, ddz_budget_limit{budget=...} and the
 * counter ddz_budget_refused_total{budget=...}. `locked_rooms`: the rooms
 * refusing passwords now and `room_spawns_used` the most starts of the
 * last second's burst one room used (the caller walks the rooms; the
 * budgets know none), `biggest_queue` the longest send queue (the caller
 * walks the connections). Never fails (a write error shows in `f`). */
void ddz__budget_metrics(ddz_srv *srv, FILE *f, long locked_rooms, long room_spawns_used,
                         size_t biggest_queue);

#endif
