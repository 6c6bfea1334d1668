/* ladder_net.h - the rated ladder across several nodes sharing one
 * PostgreSQL database (docs/decisions.md, "The ladder on several nodes").
 *
 * Who does what:
 *   - every node publishes the bots connected to it and enlisted in the
 *     ladder (presence rows), and plays the deals assigned to it;
 *   - the LEADER (the node holding the advisory lock "ladder:RULES",
 *     lead.h) schedules, with the scheduler one node uses too
 *     (deal_sched.h; this is its cluster side): it plans deals
 *     (service/ladder/deal_plan.h: one deal at 2..6 tables at once, each
 *     program once, hosted AIs filling the seats left) whose participants
 *     are all at ONE node, the host:
 *     that node's bots with the hosted AIs and operator engines (which
 *     every node hosts: every node is given the same --ladder-ai/
 *     --ladder-engine options), in at most the host's free tables (its
 *     `tables` less those of its deals being played). A deal of hosted
 *     AIs alone (planned only while no program is present anywhere) and
 *     one of fixed participants only go to the leader's node;
 *   - so that every bot can meet every other, the leader GATHERS the bots
 *     on one node, HOME (the node with the most bots present; on a tie the
 *     home it chose before, else the lowest id): an idle bot elsewhere is
 *     ordered to move (cluster_ladder_moves), its node sends it `redirect`
 *     to HOME's public URL (MOVE), and it is left out of deals for
 *     move_wait_ms meanwhile. A bot that does not get there (or comes
 *     back) plays where it is, with that node's bots, and is not asked
 *     again for DDZ_LADDER_NET_COOLDOWN move waits. A new leader keeps
 *     the home the orders point to;
 *   - the HOST plays the deal as on one node and records it in ONE
 *     transaction, one recording at a time (DDZ_LADDER_NET_HIST_LOCK,
 *     taken first): the deal's row (still assigned to it, with the same
 *     plan), the standings of its distinct participants (rows locked in
 *     name order, read, rated with ddz_deal_rate, written: two hosts may
 *     finish deals sharing an AI at once) and one history row per seat
 *     (its hand, its table mates and the same hand's holders at the other
 *     tables). A deal whose host died (its "node:ID" lock is gone) is
 *     dropped by the leader: no result is recorded and its participants
 *     are free again; a host that finishes a deal dropped meanwhile
 *     records nothing, and one that cannot be rated is dropped. So a deal
 *     is recorded once or not at all;
 *   - every node copies, each round, who is present where and the deals
 *     being played at every node (ddz_ladder_net_where/_deals), so that
 *     /api/ladder says the same at every node.
 *
 * Everything here runs on the lead thread, with the lead session (lead.h,
 * ddz_lead_cfg.work): the leader's scheduling commits only while its
 * session holds the lock. The event loop talks to it through two queues
 * and never waits for PostgreSQL.
 *
 * Tables (the cluster_* ones created if missing; the ladder_* ones are
 * the store's, store.h, made by its PostgreSQL backend, which must have
 * opened the database first):
 *
 *   cluster_ladder_presence(rules, name, node, since, PRIMARY KEY(rules, name))
 *   cluster_ladder_moves(rules, name, from_node, to_node, url (to_node's
 *       public URL), at, PRIMARY KEY(rules, name)): the leader's orders
 *   cluster_ladder_deals(id BIGSERIAL PRIMARY KEY, rules, node (the host),
 *       scheduled_by (the leader's node), state ('assigned' | 'done' |
 *       'dropped'), created_at, done_at, tables (2..6), names TEXT[] (the
 *       plan: 3 x tables names, table-major: names[3t + s + 1] holds hand
 *       s at table t), games BIGINT[] (table t's game, once done)). The
 *       columns p1, p2, p3, game1, game2, game3 of the old format (one
 *       table, three games) are left nullable in a table made before.
 *   ladder_players, ladder_history (store.h)
 */
#ifndef DDZ_LADDER_NET_H
#define DDZ_LADDER_NET_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/rating/rating.h"
#include "service/store/store.h"
#include "service/thread/mailbox.h"

#define DDZ_LADDER_NET_FIXED 32 /* fixed participants (AIs, engines) at most */
#define DDZ_LADDER_NET_URL 256  /* a node's public URL (lead.h's DDZ_LEAD_URL_MAX) */
/* How long a bot ordered to move to the ladder's home node is left out of
 * deals (it reconnects within a second or two; one that has not moved by
 * then plays where it is). */
#define DDZ_LADDER_NET_MOVE_WAIT_MS 30000
/* A bot ordered home is not ordered again for this many move waits (5 min
 * by default): one that could not get there, or came back, plays where it
 * is meanwhile instead of being sent away at every round. */
#define DDZ_LADDER_NET_COOLDOWN 10

/* The advisory transaction lock every recording takes first, so that the
 * history's ids are committed in id order and the nodes' tail of it, which
 * reads past the last id it told, misses no row. Anything else that
 * writes ladder_history in a cluster must take it too. */
#define DDZ_LADDER_NET_HIST_LOCK 7205759403792793602

typedef struct ddz_ladder_net ddz_ladder_net;

typedef struct ddz_ladder_net_cfg {
    const char *rules;                       /* the ladder's rule set */
    const char *node;                        /* this node's id */
    const char *fixed[DDZ_LADDER_NET_FIXED]; /* "ai:NAME[:MS]", "engine:NAME" */
    int nfixed;
    int tables;        /* deals a host plays at once (the leader's own setting counts) */
    ddz_rating_cfg rc; /* the ratings' constants (the same on every node) */
    int move_wait_ms;  /* a bot ordered to move sits out deals so long; 0 =
                          DDZ_LADDER_NET_MOVE_WAIT_MS */
    /* Called from the lead thread when messages wait (lws_cancel_service). */
    void (*wake)(void *ctx);
    void *ctx;
    /* Every round trip's bound on the lead's session (pg_conn.h), 0 =
     * DDZ_PG_TIMEOUT_MS, and the stop that ends them (NULL: none): the
     * lead's own (ddz_lead_cfg), so that its session's work is bounded as
     * the rest of it. */
    int db_timeout_ms;
    const struct ddz_pg_stop *stop;
} ddz_ladder_net_cfg;

/* What the loop is told (ddz_ladder_net_next()). */
enum ddz_ladder_net_kind {
    DDZ_LADDER_NET_PLAY = 1, /* play deal `deal` at `tables` tables: names[t][s] */
    DDZ_LADDER_NET_STANDING, /* participant `standing` changed (or is new) */
    DDZ_LADDER_NET_HIST,     /* a history row (hist.name's, any node's), oldest first */
    DDZ_LADDER_NET_NOTE,     /* something to log: `note` */
    DDZ_LADDER_NET_MOVE,     /* bot names[0][0], connected here, is to go to `url` (node `home`) */
};

typedef struct ddz_ladder_net_msg {
    int kind;     /* enum ddz_ladder_net_kind */
    int64_t deal; /* PLAY */
    int tables;   /* PLAY: 2..DDZ_STORE_LADDER_TABLES */
    /* PLAY: the participant at table t, hand s (deal_plan.h); MOVE: names[0][0] */
    char names[DDZ_STORE_LADDER_TABLES][3][DDZ_LADDER_NAME_MAX];
    ddz_store_ladder_player standing; /* STANDING */
    ddz_store_ladder_hist hist;       /* HIST (hist.name: whose) */
    char note[200];                   /* NOTE */
    char url[DDZ_LADDER_NET_URL];     /* MOVE */
    char home[32];                    /* MOVE */
    ddz_mail mail;                    /* the queue's link */
} ddz_ladder_net_msg;

/* A deal played to the end: the PLAY's plan and each seat's result. */
typedef struct ddz_ladder_net_result {
    int64_t deal;
    int tables;
    char names[DDZ_STORE_LADDER_TABLES][3][DDZ_LADDER_NAME_MAX];
    double score[DDZ_STORE_LADDER_TABLES][3]; /* table t, hand s: its game's score */
    int faults[DDZ_STORE_LADDER_TABLES][3];   /* ... 1 if it faulted */
    int64_t games[DDZ_STORE_LADDER_TABLES];   /* table t's game id */
} ddz_ladder_net_result;

/* A deal being played at some node, as of the latest round. */
typedef struct ddz_ladder_net_live {
    int64_t deal;
    char node[32]; /* its host */
    int tables;
    char names[DDZ_STORE_LADDER_TABLES][3][DDZ_LADDER_NAME_MAX];
} ddz_ladder_net_live;

/* Makes the ladder's cluster side. Touches no database (the lead thread
 * does, in ddz_ladder_net_work()). Returns it, or NULL with a reason in
 * `err` (bad configuration, out of memory). */
ddz_ladder_net *ddz_ladder_net_create(const ddz_ladder_net_cfg *cfg, char *err, size_t errlen);

/* One round, ON THE LEAD THREAD with its session `pg` (lead.h's work):
 * writes what the loop queued (presence, results, suspensions, drops),
 * schedules (and orders moves home) if `leader`, hands this node's new
 * deals and move orders to the loop (each once) and tails the standings
 * and the history. Failures are told as NOTEs; a
 * result that could not be written on a broken session is tried again
 * next round, 20 rounds at most: then, as when it cannot be rated, the
 * deal is dropped instead (tried every round until written), so that its
 * participants are free again. A deal handed to the loop is never handed
 * again. */
void ddz_ladder_net_work(ddz_ladder_net *n, PGconn *pg, bool leader);

/* Sets the bots enlisted and connected here (names[0..count)): what the
 * next round publishes. Any thread; never waits for the database. */
void ddz_ladder_net_present(ddz_ladder_net *n, const char *const *names, int count);

/* Queues deal r->deal's result for recording. Returns 0 or DDZ_ENOMEM. */
int ddz_ladder_net_done(ddz_ladder_net *n, const ddz_ladder_net_result *r);

/* Queues that deal `deal` was not played out here (a table that could not
 * start or was cut short): dropped, nothing recorded. Returns 0 or
 * DDZ_ENOMEM. */
int ddz_ladder_net_drop(ddz_ladder_net *n, int64_t deal);

/* Queues participant `name`'s suspension `reason` ("" lifts it). Returns 0
 * or DDZ_ENOMEM. */
int ddz_ladder_net_suspend(ddz_ladder_net *n, const char *name, const char *reason);

/* What the cluster knew at the latest round (any thread; copies under a
 * lock, never waits for the database): whether bot `name` is enlisted and
 * connected at some node (its id to `node`, may be NULL; "" when it is
 * present nowhere) and whether it is in a deal being played at any node
 * (*playing, may be NULL; set for a hosted AI or an engine too, which is
 * present nowhere). Returns false for a bot present nowhere. A round
 * that could not read the database leaves the view of the one before. */
bool ddz_ladder_net_where(ddz_ladder_net *n, const char *name, bool *playing, char *node,
                          size_t nodelen);

/* Copies up to `max` of the deals being played at any node (as of the
 * latest round, oldest first) to `out`. Returns how many. */
int ddz_ladder_net_deals(ddz_ladder_net *n, ddz_ladder_net_live *out, int max);

/* Pops the oldest message for the loop (malloc'd: free() it), or NULL. */
ddz_ladder_net_msg *ddz_ladder_net_next(ddz_ladder_net *n);

/* Frees `n` and what is queued. The lead thread must be stopped first.
 * NULL-safe. */
void ddz_ladder_net_destroy(ddz_ladder_net *n);

#endif
