/* context.h - the service's single context, `ddz_srv`, with its metrics
 * and log. There is no other mutable global state (the signal handler
 * reaches the context through one pointer in server.c). Connections,
 * players and rooms are never freed inside their own callbacks: they are
 * marked and reaped from the loop.
 *
 * Who uses whom, one way: server.c (the lws callbacks) -> lobby.c ->
 * players.c, the competitions (plug-ins through host.h) -> rooms.c,
 * the room (room_*.c) -> seat_player.c, and all of them -> conn.c (connections) and
 * context.c (log, clock, metrics). The HTTP routes are a table
 * (http_routes.h) the modules that answer them register into at start. */
#ifndef DDZ_CONTEXT_H
#define DDZ_CONTEXT_H

#include <libwebsockets.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>

#include "service/cluster/leader.h"
#include "service/engine/spawn_budget.h"
#include "service/net/evloop.h"
#include "service/net/listener.h"
#include "service/net/lws_loop.h"
#include "service/server/budget.h"
#include "service/server/http_routes.h"
#include "service/seats/think.h"
#include "service/server/player.h"
#include "service/server/plugin.h"
#include "service/server/server_cfg.h"
#include "service/store/pg_conn.h"
#include "service/store/store.h"

/* Monotonic microseconds: the loop's clock (ddz_lws_loop_now_us). */
int64_t ddz__now_us(void);

/* Structured log line on stderr (JSON), unless quiet. */
void ddz__log(ddz_srv *srv, const char *level, const char *room, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ddz__log with the arguments as a va_list (host.h's ddz_host_log). */
void ddz__vlog(ddz_srv *srv, const char *level, const char *room, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

typedef struct ddz_metrics {
    long connections, connections_total;
    long games_started, games_finished, games_aborted;
    long faults[5]; /* by enum ddz_fault */
    long engines;   /* engine processes running */
    long frames_in, frames_out, errors_sent;
    /* WebSocket connections closed by the receive limits (server.c): a
     * message over 16 KiB (1009), one unfinished in time, too many frames
     * over the rate (1008) */
    long ws_too_large, ws_unfinished, ws_flooding;
    long latency_buckets[12]; /* action -> broadcast, microseconds, log2 buckets */
    double latency_sum_s;
    long latency_count;
    /* GET /api/games/ID/analysis (http_games.c): answers by result */
    long analyses_computed; /* jobs done (the analysis then served from the cache) */
    long analyses_failed;   /* jobs whose record could not be analysed */
    long analyses_cached;   /* 200s: from the store's cache or the analyst's recent ones */
    long analyses_pending;  /* 202s: a job queued now or before */
    long analyses_refused;  /* 503s: --analysis-jobs games in hand already */
} ddz_metrics;

/* Records one action-to-broadcast latency. */
void ddz__metrics_latency(ddz_srv *srv, int64_t us);

/* The budgets: what clients can make the server hold, counted where it is
 * created and released (docs/operations.md, "Budgets"; budget.c prints them). */
enum ddz_budget_kind {
    DDZ_BUDGET_ENGINES,
    DDZ_BUDGET_AIS,
    DDZ_BUDGET_IDLE_ROOMS,
    DDZ_BUDGET_ROOMS_PER_IP,
    DDZ_BUDGET_CONNS_PER_IP,
    DDZ_BUDGET_QUEUED_BYTES,
    DDZ_BUDGET_QUEUE_PER_CONN,
    DDZ_BUDGET_SPAWNS,          /* engine starts a second, in all */
    DDZ_BUDGET_SPAWNS_PER_ROOM, /* engine starts a second, per room */
    DDZ_BUDGET_AI_THINK_PER_IP, /* hosted AIs' thinking a second, per address (lean past it) */
    DDZ_BUDGET_SPAWNS_PER_IP,   /* engine starts a second, per client address */
    DDZ_BUDGET_N
};

typedef struct ddz_budget {
    long engines;               /* engine seats reserved by rooms not yet freed */
    long ais;                   /* hosted AI objects alive (seats, and AIs still thinking) */
    long ais_created;           /* hosted AIs made since the start */
    long idle_rooms;            /* live rooms nobody is connected to */
    ddz_room *idle_head;        /* those rooms, the longest idle first (room_life.c) */
    ddz_room *idle_tail;        /* ... and the latest */
    ddz_addrs addrs;            /* client addresses: connections and rooms each */
    size_t queued;              /* bytes in every connection's send queue */
    ddz_conn *conns;            /* every connection (conn.c), to find the biggest queue */
    long password_failures;     /* wrong passwords (EAUTH) */
    long password_lockouts;     /* lockouts of a room or an address they started */
    long password_refused;      /* passwords refused unchecked during a lockout (ERATE) */
    long refused[DDZ_BUDGET_N]; /* requests refused because a budget was spent */
    ddz_spawn_budget spawns;    /* engine starts (ddz__budget_spawns() sets it up) */
    bool spawns_ready;          /* `spawns` was set up */
} ddz_budget;

/* The registries the context holds and their files run: the players
 * (players.c) and the rooms (rooms.c). Defined here, as the budgets are,
 * so that what includes the context does not depend on those files. */
typedef struct ddz_hello_check ddz_hello_check; /* players.c */
/* Every player the server holds: connected, seated, or gone but still
 * resumable (--resume-keep). */
typedef struct ddz_players {
    ddz_player *list;
    ddz_hello_check *checks; /* hellos whose bot token the store is checking */
    long next_id;
    ddz_store_read ids;  /* the active tokens' ids, read for revocations */
    bool ids_pending;    /* `ids` is with the store */
    ddz_timer ids_timer; /* the next read */
    /* several nodes: whether the sessions of the people here were ended
     * on another node (players.c, DDZ_SESSION_POLL_US) */
    ddz_store_read sessions;  /* kind SESSIONS_LIVE, its arrays malloc'd */
    bool sessions_pending;    /* `sessions` is with the store */
    ddz_timer sessions_timer; /* the next read */
} ddz_players;

/* The rooms and tables this node runs (rooms.c). */
typedef struct ddz_rooms {
    ddz_room *list; /* newest first */
    long named;     /* rooms named "Room N" so far */
} ddz_rooms;

typedef struct ddz_rated ddz_rated; /* rated.c */

/* ---- the context ---- */
struct ddz_srv {
    ddz_server_cfg cfg;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    ddz_evloop evl; /* the loop ctx runs on: epoll (libev) or poll */
    ddz_store *store;
    /* Ends every wait on the database (the store's, the cluster's, the
     * lead's threads) once the server stops (pg_conn.h). */
    ddz_pg_stop pg_stop;
    ddz_conn *held;                /* connections whose queue waits for a durable write (conn.h) */
    ddz_conn *dirty;               /* plain connections that queued this turn (ddz__conn_flush) */
    struct http_pss *held_http;    /* HTTP answers that wait for one (server.c) */
    ddz_http_routes routes;        /* what HTTP paths the modules answer (http_routes.h) */
    ddz_think *think;              /* hosted AI decisions, off the loop */
    struct ddz_analyst *analyst;   /* post-game analyses, off the loop (analyst.h) */
    struct ddz_accounts *accounts; /* people's accounts: hashing, limits (accounts.h) */
    struct ddz_names *names;       /* the account names no guest may use (names.h; accounts.c
                                      keeps it, players.c asks it) */
    ddz_lws_loop loop;             /* the lws loop as seats see it (loop.base) */
    ddz_listener listener;         /* the listening socket and the descriptor budget */
    ddz_gate gate;                 /* every client socket counted; plain HTTP heads read (gate.h) */
    ddz_players players;           /* who each client is (players.c) */
    ddz_rooms rooms;               /* the rooms and tables this node runs (rooms.c) */
    ddz_metrics m;
    ddz_budget budget;
    volatile sig_atomic_t stopping; /* set by the signal handler: stop the loop */
    ddz_timer reap_timer;           /* periodic reaping */
    void (*reap_fn)(ddz_timer *t);  /* what reap_timer runs (server.c), NULL before the loop */
    ddz_timer drain_timer;          /* wakes the loop while connections drain at shutdown */
    /* the competitions (host.h), made from cfg.plugins at the start */
    const ddz_plugin *plugin[DDZ_HOST_PLUGINS];
    void *plugin_self[DDZ_HOST_PLUGINS]; /* what each one's create() returned */
    int nplugins;
    struct ddz_cluster *cluster; /* the other nodes (service/cluster), or NULL: one node */
    ddz_timer cluster_timer;     /* publishes our rooms to the cluster */
    bool cluster_up;             /* the cluster's last view was read (logged on change) */
    /* run-once jobs (lead_srv.h; service/cluster/leader.h): a cluster of
     * one or the locks of several nodes; NULL before the start */
    struct ddz_leader *leader;
    /* the jobs the plug-ins asked for (ddz_host_lead_want()), in order */
    char lead_want[DDZ_LEADER_JOBS][DDZ_LEAD_JOB_MAX];
    int nlead_want;
    ddz_timer lead_timer; /* several nodes: looks at the locks (lead_srv.c) */
    /* rated play (SPEC §15) */
    struct ddz_rated *rated;      /* rated quick play's queues (rated.c), NULL when not started */
    int rated_job;                /* ... the lead job whose holder runs them (rated.h), or -1 */
    ddz_timer rated_tick;         /* ... looked at every second */
    struct rated_job *rated_jobs; /* rated games whose ratings wait for the store
                                     (rated_games.c) */
    int nrated_jobs;              /* ... how many */
};

/* Runs the reaping (reap_fn) on the loop's next turn instead of at its
 * next tick, so what a closed room held (engine processes, AIs, budgets)
 * is let go at once. Never fails; does nothing before the loop runs. */
void ddz__reap_soon(ddz_srv *srv);

#endif
