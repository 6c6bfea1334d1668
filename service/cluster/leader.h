/* leader.h - the one leader interface of `ddz serve`: which node runs each
 * run-once job (the ladder's scheduling, a tournament), whether the server
 * is one node or several.
 *
 * One node is a cluster of one: no PostgreSQL, no thread, and its node
 * holds every job at once, for good (term 1, its own holder; `solo` is
 * set). Several nodes (a node id and a PostgreSQL URL) follow the advisory
 * locks of lead.h on the lead thread, with one more job this module adds
 * itself: "node:ID", held by every node for itself, so that the others see
 * it alive while it holds it. The caller's jobs are numbered 0.. in both
 * cases; the node job shows only in the metrics.
 *
 * So a competition asks the same questions on one node and on several
 * ("do I hold my job, in which term, who holds it"), and only what truly
 * needs other nodes (a lease in a shared directory, the cluster's presence
 * rows) looks at `solo`. */
#ifndef DDZ_LEADER_H
#define DDZ_LEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <libpq-fe.h>

#include "service/cluster/lead.h"

struct ddz_pg_stop; /* service/store/pg_conn.h */

/* The caller's jobs one leader follows: lead.h's, less the node job. */
#define DDZ_LEADER_JOBS (DDZ_LEAD_JOBS - 1)

typedef struct ddz_leader ddz_leader;

typedef struct ddz_leader_cfg {
    /* The database (--db) and this node's id (--node): several nodes when
     * both are given and `db` is a PostgreSQL URL, else a cluster of one. */
    const char *db;
    const char *node;
    const char *public_url; /* where clients of other nodes are sent, may be NULL */
    /* The rest is lead.h's ddz_lead_cfg, used on several nodes only: */
    int retry_ms;
    void (*wake)(void *ctx); /* any thread: a job moved */
    void *ctx;
    /* ON THE LEAD THREAD: the work of the leader with the session and the
     * state of the caller's jobs (numbered as given). Never called on a
     * cluster of one (it has no session). */
    void (*work)(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    void *work_ctx;
    int db_timeout_ms;
    struct ddz_pg_stop *stop;
} ddz_leader_cfg;

/* Returns whether `cfg` makes several nodes (a node id and a PostgreSQL
 * URL); false: a cluster of one. Pure; any thread. */
bool ddz_leader_clustered(const ddz_leader_cfg *cfg);

/* Starts the leader of jobs `jobs[0..njobs)` (0 to DDZ_LEADER_JOBS names,
 * each shorter than DDZ_LEAD_JOB_MAX): on several nodes the lead thread
 * (lead.h: it connects in the background), on one node nothing but the
 * jobs' state, every one held. Returns the leader, or NULL with a one-line
 * reason in `err` (bad arguments, out of memory, no thread). */
ddz_leader *ddz_leader_start(const ddz_leader_cfg *cfg, const char *const *jobs, int njobs,
                             char *err, size_t errlen);

/* Returns whether `l` is a cluster of one (its jobs held here for good). */
bool ddz_leader_solo(const ddz_leader *l);

/* Returns the number of the caller's jobs. Any thread. */
int ddz_leader_njobs(const ddz_leader *l);

/* Copies job `i`'s state (index into the `jobs` given to
 * ddz_leader_start()) to *out. Returns 0, or DDZ_EINVAL for a bad index.
 * Any thread; never waits for PostgreSQL. */
int ddz_leader_state(ddz_leader *l, int i, ddz_lead_job *out);

/* Writes the /metrics lines of the locks to `f`: ddz_lead_held{job} (1
 * while this node holds it) and ddz_lead_terms_total{job} (times gained),
 * the node job's first. Nothing on a cluster of one, which has no locks. */
void ddz_leader_metrics(ddz_leader *l, FILE *f);

/* Stops the leader: on several nodes the lead thread's last round of
 * `work` runs, then every lock this node held is freed at once (lead.h's
 * ddz_lead_stop()). NULL-safe. */
void ddz_leader_stop(ddz_leader *l);

#endif
