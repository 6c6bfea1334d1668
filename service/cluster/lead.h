/* lead.h - work that must run on one node at a time (the ladder's
 * scheduler, a tournament), chosen with PostgreSQL advisory locks.
 *
 * A ddz_lead is one PostgreSQL SESSION of its own (not the store's) and a
 * thread that owns it. The session holds the advisory locks of the jobs
 * this node leads: a job is named by a string ("ladder:caai",
 * "tournament:spring") whose lock key is lead_key() below. While a job is
 * not held the thread tries `pg_try_advisory_lock` about every retry_ms
 * (never waiting for a lock); while any is held it checks that the session
 * still answers. When the session ends, however it ends, PostgreSQL frees
 * its locks at once: a node that is killed (SIGKILL closes its socket)
 * hands its jobs over on the next try of another node. A node whose session
 * fails (the server restarted, the network cut: TCP keepalives and
 * tcp_user_timeout bound how long that takes to notice; a server that does
 * not answer within db_timeout_ms: the session is dropped) loses every job
 * at once, counts a new `term` for each job it later gains, and connects
 * again.
 *
 * The event loop never waits for PostgreSQL: it asks ddz_lead_state()
 * (a mutex and a copy) when `wake` says something changed, and on its own
 * ticks. A job's owner compares terms: a different term since it last
 * looked means the job was lost (and maybe gained again) in between, so
 * what it was doing as leader must stop.
 *
 * The holder of every job is recorded in the table
 *
 *   cluster_leaders(job TEXT PRIMARY KEY, lock_key BIGINT, node TEXT,
 *                   public_url TEXT, pid INTEGER, since TIMESTAMPTZ)
 *
 * (created if missing), written by the holder when it gains the lock; a
 * row is believed only while its `pid` (the holder session's backend)
 * still holds the lock in pg_locks, so a dead holder's row is ignored at
 * once. ddz_lead_holder() reads the thread's latest copy.
 */
#ifndef DDZ_LEAD_H
#define DDZ_LEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

struct ddz_pg_stop; /* service/store/pg_conn.h */

#define DDZ_LEAD_JOBS 8        /* jobs one ddz_lead contends for */
#define DDZ_LEAD_JOB_MAX 96    /* a job's name: at most 95 bytes + NUL */
#define DDZ_LEAD_NODE_MAX 32   /* a node id, as `--node` (at most 16) + room */
#define DDZ_LEAD_URL_MAX 256   /* a public URL */
#define DDZ_LEAD_RETRY_MS 1000 /* default ddz_lead_cfg.retry_ms */

typedef struct ddz_lead ddz_lead;

/* What the loop sees of one job. */
typedef struct ddz_lead_job {
    char name[DDZ_LEAD_JOB_MAX];       /* the job, as given to ddz_lead_start() */
    bool held;                         /* this node holds the job's lock now */
    uint64_t term;                     /* times this node gained it (0: never) */
    bool holder_known;                 /* a live holder is recorded (this node or another) */
    char holder[DDZ_LEAD_NODE_MAX];    /* its node id */
    char holder_url[DDZ_LEAD_URL_MAX]; /* its public_url, "" if it has none */
    /* No other node can hold it: a cluster of one (leader.h), which holds
     * every job from the start, for good. Never set by this module. */
    bool solo;
} ddz_lead_job;

typedef struct ddz_lead_cfg {
    const char *url;        /* PostgreSQL connection URL (postgres://...) */
    const char *node;       /* this node's id (recorded as holder) */
    const char *public_url; /* where clients of other nodes are sent, may be NULL */
    int retry_ms;           /* tries and checks, 0 = DDZ_LEAD_RETRY_MS */
    /* Called from the lead thread (no lock held) after a job is gained or
     * lost, or a holder changes; must be safe from any thread (the server's
     * lws_cancel_service). May be NULL. */
    void (*wake)(void *ctx);
    void *ctx;
    /* Work for the leader, run ON THE LEAD THREAD after every look while
     * the session is up, with the session itself and every job's state:
     * a transaction run on `pg` while jobs[i].held cannot commit once the
     * lock is lost (the lock goes only with the session), so a node that
     * lost a job without noticing yet can never act as its leader. It must
     * not keep `pg`, nor leave a transaction open; a failure on a broken
     * session is seen by the next look. ddz_lead_stop() runs it a last
     * time with no job held, before the locks go. May be NULL. */
    void (*work)(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    void *work_ctx;
    /* Every round trip's bound (pg_conn.h), 0 = DDZ_PG_TIMEOUT_MS: a
     * database that does not answer by then drops the session, and with it
     * every job, as one that is gone. */
    int db_timeout_ms;
    /* A stop shared with the other users of the database (the server's),
     * NULL for the lead's own; ddz_lead_stop() asks for it. */
    struct ddz_pg_stop *stop;
} ddz_lead_cfg;

/* Returns the advisory lock key of job `name`: the first 8 bytes of
 * BLAKE2b-128 of "ddz:" + name (big-endian), as a signed 64-bit number (the type of
 * pg_try_advisory_lock(bigint)). Pure; any thread. */
int64_t ddz_lead_key(const char *name);

/* Starts the lead thread for the jobs `jobs[0..njobs)` (1 to DDZ_LEAD_JOBS
 * names, each shorter than DDZ_LEAD_JOB_MAX). It connects in the
 * background: a server that is down is retried, not an error. Returns the
 * lead, or NULL with a one-line reason in `err` (bad arguments, out of
 * memory, no thread). */
ddz_lead *ddz_lead_start(const ddz_lead_cfg *cfg, const char *const *jobs, int njobs, char *err,
                         size_t errlen);

/* Copies job `i`'s state (index into the `jobs` given to
 * ddz_lead_start()) to *out. Returns 0, or DDZ_EINVAL for a bad index.
 * Any thread; never waits for PostgreSQL. */
int ddz_lead_state(ddz_lead *l, int i, ddz_lead_job *out);

/* Returns the number of jobs `l` contends for. Any thread. */
int ddz_lead_njobs(const ddz_lead *l);

/* Makes the thread look (and run `work`) now instead of at its next
 * retry. Never fails; any thread. */
void ddz_lead_poke(ddz_lead *l);

/* Copies the latest failure of the session to `out` ("" if none), for
 * logs. Never fails; any thread. */
void ddz_lead_last_error(ddz_lead *l, char *out, size_t outlen);

/* Asks for the stop, stops the thread and closes the session: every lock
 * it held is freed (PostgreSQL releases a session's advisory locks when it
 * ends) and its rows in cluster_leaders are deleted first, so other nodes
 * take over on their next try. Bounded by the stop's grace
 * (DDZ_PG_STOP_GRACE_MS) whatever the database does. NULL-safe. */
void ddz_lead_stop(ddz_lead *l);

#endif
