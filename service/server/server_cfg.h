/* server_cfg.h - what `ddz serve` is configured with (cli_serve.c fills
 * it from flags and the environment; docs/operations.md lists them). Its
 * own header so that the server's files read their configuration without
 * depending on the file that runs the server (server.c). */
#ifndef DDZ_SERVER_CFG_H
#define DDZ_SERVER_CFG_H

#include <stdbool.h>

#define DDZ_SERVER_MAX_ENGINES 16

typedef struct ddz_server_cfg {
    int port;               /* 0 = 8080 */
    const char *bind;       /* interface address, NULL = all */
    const char *db_path;    /* a SQLite path or a PostgreSQL URL (postgres://, postgresql://) */
    int db_queue;           /* store writes held before new ones drop, 0 = DDZ_STORE_QUEUE_MAX */
    const char *db_journal; /* the store's journal (PostgreSQL), NULL = ddz-journal-HASH.db */
    int db_journal_max;     /* its bound in writes, 0 = DDZ_JOURNAL_MAX_ENTRIES */
    int db_journal_mb;      /* its bound in MiB, 0 = DDZ_JOURNAL_MAX_BYTES */
    int db_timeout_ms;      /* every round trip with PostgreSQL, 0 = DDZ_PG_TIMEOUT_MS */
    const char *web_dir;    /* static client */
    const char *tls_cert;   /* PEM; with tls_key, serve HTTPS/WSS */
    const char *tls_key;
    const char *engine_name[DDZ_SERVER_MAX_ENGINES]; /* --engine NAME=[exec:|botzone:]COMMAND */
    const char *engine_cmd[DDZ_SERVER_MAX_ENGINES];  /* COMMAND */
    int engine_protocol[DDZ_SERVER_MAX_ENGINES];     /* enum ddz_seat_protocol (seats.h) */
    int nengines;
    const char *engine_log_dir; /* engines' stderr, NULL = discard */
    int max_conns;              /* 0 = 5000 */
    const char *origins;        /* comma-separated allowed Origins, NULL = any */
    int ai_delay_ms;            /* pause before a hosted AI acts in rooms with humans */
    int ready_s;                /* casual rooms' ready (继续) clock between games, 0 = 20 */
    int rated_fill_s;           /* rated quick play: seconds before hosted AIs fill a table,
                                   0 = 20 (rated.h) */
    int idle_s;                 /* ping after this many idle seconds, 0 = 20 */
    int rate;                   /* frames per second a client may send, 0 = 20 */
    int resume_keep_s;          /* a dropped player at no table is kept for a resume, 0 = 120 */
    int signups_per_hour;       /* accounts an address may make in an hour, 0 = 5 (accounts.h) */
    const char *default_ai;     /* hosted AI for quick play and custody, NULL = best known */
    bool quiet;                 /* no log lines */
    int event_loop;             /* enum ddz_evloop_kind (service/net/evloop.h), 0 = auto */
    /* Budgets: what anonymous clients can make the server hold (docs/operations.md,
     * "Budgets"). 0 = the default given. */
    int max_engines;            /* engine seats reserved by rooms (processes), 0 = 64 */
    int max_ais;                /* hosted AI objects alive, 0 = 2000 */
    int max_idle_rooms;         /* rooms nobody is connected to, 0 = 1000 */
    int max_rooms_per_ip;       /* live rooms created from one address, 0 = 50 */
    int max_conns_per_ip;       /* connections from one address, 0 = 100 */
    const char *trusted_proxy;  /* peer whose X-Forwarded-For names the client, NULL = none */
    int max_queued_bytes;       /* unsent output over all connections, 0 = 64 MiB */
    int max_queue_per_conn;     /* unsent output of one connection, 0 = 256 KiB */
    int spawn_rate;             /* engine starts a second in all, 0 = 50 */
    int spawn_rate_room;        /* engine starts a second per room, 0 = 10 */
    int spawn_rate_ip;          /* engine starts a second per client address, 0 = 20 */
    int password_tries;         /* wrong passwords per minute for a room or an address, 0 = 5 */
    int ai_think_per_ip;        /* ms of hosted-AI thinking a second for the rooms of one
                                   address at full strength, 0 = 1000 */
    int analysis_jobs;          /* post-game analyses queued or running at once (analyst.h),
                                   0 = DDZ_ANALYST_JOBS, -1 = none (every one refused) */
    const char *tournament_dir; /* --tournament DIR: run its tournament, NULL = none */
    int tournament_late_s;      /* seconds a table waits for an absent bot */
    /* The ladder (service/ladder/ladder_srv.h): on with `ladder` or any ladder option. */
    bool ladder;                   /* --ladder */
    const char *ladder_rules;      /* --ladder-rules NAME, NULL = caai */
    const char *ladder_engine[16]; /* --ladder-engine NAME (an --engine) */
    int nladder_engines;
    const char *ladder_ai[16]; /* --ladder-ai NAME[:MS] */
    int nladder_ais;
    int ladder_max;    /* participants, 0 = 100 */
    int ladder_tables; /* tables at once, 0 = 4 */
    int ladder_time_s; /* seconds per action, 0 = 10 */
    /* A cluster (service/cluster/cluster.h): on when db_path is a
     * PostgreSQL URL and node is set; public_url is then required. */
    const char *node;       /* --node ID: [a-z0-9]{1,16}, the prefix of our room ids */
    const char *public_url; /* --public-url: ws(s)://.../ws, where other nodes send clients */
    int cluster_beat_ms;    /* heartbeat, 0 = 1000 (tests make it faster) */
    int cluster_dead_ms;    /* a node unseen this long is dead, 0 = 5000 */
    /* The competitions it hosts (host.h), in the order they are asked: an
     * `enlist` naming none goes to the first that takes it. */
    const struct ddz_plugin *const *plugins;
    int nplugins;
} ddz_server_cfg;

#endif
