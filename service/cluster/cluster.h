/* cluster.h - several `ddz serve` nodes sharing one PostgreSQL database:
 * which nodes are alive and where clients reach them, and every node's
 * listed rooms, so that every node's lobby lists every room (docs/cluster.md,
 * "Many nodes"; PROTOCOL.md, "Many nodes").
 *
 * Two tables, made if missing (under an advisory lock, so that nodes
 * starting together do not race):
 *     cluster_nodes(id text primary key, public_url text, seen_at timestamptz)
 *     cluster_rooms(id text primary key, node text, summary jsonb, updated_at timestamptz)
 * A node writes its heartbeat (seen_at = now()) every heartbeat_ms; one not
 * seen for dead_ms is dead, and its rooms drop out of every view. Times are
 * the database's clock, so nodes' clocks need not agree. A node writes its
 * listed rooms (a room's `summary` is the object the `rooms` event lists)
 * when they change and says so with NOTIFY on the channel
 * DDZ_CLUSTER_CHANNEL (payload: its node id); every node LISTENs, and
 * re-reads the others' rooms on a notification and at every heartbeat
 * (which is also how it sees a node die).
 *
 * Nothing here blocks the caller's event loop: libpq runs on a thread of
 * its own with its own connection (every round trip bounded: pg_conn.h;
 * a database that does not answer is away, as a dead one), the
 * loop hands it the node's rooms (ddz_cluster_publish copies them) and takes
 * the latest view (ddz_cluster_view) under a mutex, without waiting on the
 * database.
 *
 * Bounds: a node publishes at most DDZ_CLUSTER_ROOMS_MAX rooms (the most a
 * `rooms` event lists anyway) and a view holds at most DDZ_CLUSTER_NODES_MAX
 * nodes and DDZ_CLUSTER_ROOMS_MAX rooms of each: with a room some 800 bytes
 * as a ddz_event_room, at most 64 x 100 x 800 = 5 MB, twice (the view in
 * use and the next one).
 */
#ifndef DDZ_CLUSTER_H
#define DDZ_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/event.h"

struct ddz_pg_stop; /* service/store/pg_conn.h */

#define DDZ_CLUSTER_CHANNEL "ddz_cluster_rooms"

enum {
    DDZ_CLUSTER_NODE_MAX = 17, /* a node id, [a-z0-9]{1,16}, with the NUL */
    DDZ_CLUSTER_ROOMS_MAX = 100,
    DDZ_CLUSTER_NODES_MAX = 64,
};

typedef struct ddz_cluster ddz_cluster;

typedef struct ddz_cluster_cfg {
    const char *db_url;     /* postgres:// or postgresql:// */
    const char *node;       /* this node's id, [a-z0-9]{1,16} */
    const char *public_url; /* ws(s)://.../ws: where other nodes send clients for our rooms */
    int heartbeat_ms;       /* 0 = 1000 */
    int dead_ms;            /* a node not seen for this long is dead; 0 = 5000 */
    /* Every round trip's bound (pg_conn.h), 0 = DDZ_PG_TIMEOUT_MS: a
     * database that does not answer by then counts as away (the view says
     * so: connected false) and the session is dropped and made again. */
    int db_timeout_ms;
    /* A stop shared with the other users of the database (the server's),
     * NULL for the cluster's own; ddz_cluster_stop() asks for it. */
    struct ddz_pg_stop *stop;
} ddz_cluster_cfg;

typedef struct ddz_cluster_node {
    char id[DDZ_CLUSTER_NODE_MAX];
    char url[DDZ_EVENT_URL_MAX];
} ddz_cluster_node;

/* What the other nodes hold, as last read from the database. */
typedef struct ddz_cluster_view {
    const ddz_event_room *rooms; /* other live nodes' listed rooms, the latest changed first */
    size_t nrooms;
    const ddz_cluster_node *nodes; /* live nodes, this one included */
    size_t nnodes;
    bool connected; /* the last round with the database succeeded */
} ddz_cluster_view;

/* True when `db` is a PostgreSQL URL (postgres:// or postgresql://). */
bool ddz_cluster_is_pg_url(const char *db);

/* True when `node` is a valid node id: 1..16 of [a-z0-9]. */
bool ddz_cluster_node_valid(const char *node);

/* The node a room id names: "n2-abcdefgh" -> "n2". Returns true and fills
 * `node`, or false for a room id with no node prefix (a single node's). */
bool ddz_cluster_room_node(const char *room, char node[DDZ_CLUSTER_NODE_MAX]);

/* Connects to the database, makes the tables, says this node is alive,
 * removes what an earlier life of this node left (its rooms are gone) and
 * starts the thread. Blocks (call it before the event loop runs). Returns a
 * cluster, or NULL with `err` saying why (bad node id or URL, the database
 * cannot be reached, a statement failed, out of memory). */
ddz_cluster *ddz_cluster_start(const ddz_cluster_cfg *cfg, char *err, size_t errlen);

/* The node's listed rooms now (copied; at most DDZ_CLUSTER_ROOMS_MAX are
 * taken). Returns at once: the thread writes what changed since the last
 * call and notifies the others. Cheap when nothing changed (compared here,
 * nothing handed over). Never fails (out of memory: the change is retried
 * at the next call). */
void ddz_cluster_publish(ddz_cluster *c, const ddz_event_room *rooms, size_t n);

/* The latest view of the others. Valid until the next call on the same
 * thread (one thread, the loop, may call it). Never fails; before the
 * first read it is empty. */
ddz_cluster_view ddz_cluster_view_get(ddz_cluster *c);

/* The public URL of live node `node`, or NULL when it is not alive (or
 * unknown) in the latest view. Same validity as ddz_cluster_view_get. */
const char *ddz_cluster_node_url(ddz_cluster *c, const char *node);

/* Asks for the stop, stops the thread, removes this node's rooms and its
 * node row (so that the others drop them at once, not after dead_ms) and
 * frees `c`. Blocks for at most the stop's grace (DDZ_PG_STOP_GRACE_MS)
 * whatever the database does. NULL is ignored. */
void ddz_cluster_stop(ddz_cluster *c);

#endif
