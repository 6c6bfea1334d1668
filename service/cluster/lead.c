/* lead.c - leadership of run-once jobs by PostgreSQL advisory locks
 * (lead.h): one session, one thread, the loop reads copies. */
#include "service/cluster/lead.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/store/pg_conn.h"
#include "service/thread/mailbox.h"

typedef struct job {
    char name[DDZ_LEAD_JOB_MAX];
    int64_t key;
    ddz_lead_job st; /* guarded by mu: what ddz_lead_state() copies */
} job;

struct ddz_lead {
    char *url;
    char node[DDZ_LEAD_NODE_MAX];
    char public_url[DDZ_LEAD_URL_MAX];
    int retry_ms;
    void (*wake)(void *ctx);
    void *ctx;
    void (*work)(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    void *work_ctx;
    job jobs[DDZ_LEAD_JOBS];
    int njobs;
    /* the thread's doorbell: poked to look again at once, closed to stop */
    ddz_mailbox *bell;
    pthread_mutex_t mu;
    char err[200];        /* guarded by mu: the latest failure */
    PGconn *pg;           /* the thread's only */
    int timeout_ms;       /* a round trip's bound */
    ddz_pg_stop own_stop; /* when the cfg gives none */
    ddz_pg_stop *stop;    /* the stop in use */
    pthread_t thread;
};

int64_t ddz_lead_key(const char *name)
{
    unsigned char h[crypto_generichash_BYTES_MIN];
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof h);
    crypto_generichash_update(&st, (const unsigned char *)"ddz:", 4);
    crypto_generichash_update(&st, (const unsigned char *)name, strlen(name));
    crypto_generichash_final(&st, h, sizeof h);
    uint64_t k = 0;
    for (int i = 0; i < 8; i++)
        k = k << 8 | h[i];
    int64_t s;
    memcpy(&s, &k, sizeof s); /* two's complement, without an out-of-range conversion */
    return s;
}

static void set_err(ddz_lead *l, const char *what, const char *msg)
{
    pthread_mutex_lock(&l->mu);
    snprintf(l->err, sizeof l->err, "%s: %.*s", what, 150, msg ? msg : "");
    /* libpq's messages end in a newline: one log line */
    char *nl = strchr(l->err, '\n');
    if (nl)
        *nl = '\0';
    pthread_mutex_unlock(&l->mu);
}

/* The session is gone: every job is lost. Returns whether one was held. */
static bool lose_all(ddz_lead *l)
{
    bool changed = false;
    pthread_mutex_lock(&l->mu);
    for (int i = 0; i < l->njobs; i++) {
        changed |= l->jobs[i].st.held;
        l->jobs[i].st.held = false;
    }
    pthread_mutex_unlock(&l->mu);
    if (l->pg)
        PQfinish(l->pg);
    l->pg = NULL;
    return changed;
}

/* Runs `sql` with text parameters, by the bound (pg_conn.h: past it the
 * session is dropped, and every job with it). Returns the result (PQclear
 * it) or NULL after a failure (recorded; the session dropped if it is
 * broken). */
static PGresult *run(ddz_lead *l, const char *sql, int n, const char *const *params,
                     ExecStatusType want)
{
    PGresult *r = ddz_pg_exec(l->pg, sql, n, params, ddz_pg_now_ms() + l->timeout_ms, l->stop);
    if (r && PQresultStatus(r) == want)
        return r;
    set_err(l, "postgresql",
            r               ? PQresultErrorMessage(r)
            : ddz_pg_hung() ? "no answer from the database server in time"
                            : PQerrorMessage(l->pg));
    PQclear(r);
    return NULL;
}

/* Two nodes starting at once would race on CREATE TABLE IF NOT EXISTS
 * (it is not atomic against itself): a transaction-level advisory lock of
 * its own serialises them. */
static const char *const schema_sql =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(7205759403792793601);"
    "CREATE TABLE IF NOT EXISTS cluster_leaders(job TEXT PRIMARY KEY, lock_key BIGINT NOT NULL,"
    " node TEXT NOT NULL, public_url TEXT NOT NULL, pid INTEGER NOT NULL,"
    " since TIMESTAMPTZ NOT NULL);"
    "COMMIT;";

static bool connect_pg(ddz_lead *l)
{
    /* pg_conn.h: a cut network is noticed in some 10 s, and a session
     * stuck inside a transaction ends after 15 s (its locks with it);
     * a leader's statement never waits on a row lock for long */
    l->pg = ddz_pg_connect(l->url, "ddz-lead", 2000, 10000, l->stop);
    if (!l->pg || PQstatus(l->pg) != CONNECTION_OK) {
        set_err(l, "connect", ddz_pg_connect_error(l->pg));
        lose_all(l);
        return false;
    }
    PGresult *r = run(l, schema_sql, 0, NULL, PGRES_COMMAND_OK);
    PQclear(r);
    if (!r)
        lose_all(l);
    return r != NULL;
}

/* Records this session as job `j`'s holder (cluster_leaders). Returns
 * whether the row was written. */
static bool write_holder(ddz_lead *l, job *j)
{
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)j->key);
    const char *p[] = {j->name, key, l->node, l->public_url};
    PGresult *r = run(l,
                      "INSERT INTO cluster_leaders(job, lock_key, node, public_url, pid, since)"
                      " VALUES($1, $2::bigint, $3, $4, pg_backend_pid(), now())"
                      " ON CONFLICT(job) DO UPDATE SET lock_key = EXCLUDED.lock_key,"
                      " node = EXCLUDED.node, public_url = EXCLUDED.public_url,"
                      " pid = EXCLUDED.pid, since = EXCLUDED.since",
                      4, p, PGRES_COMMAND_OK);
    bool ok = r != NULL;
    PQclear(r);
    return ok;
}

/* Tries job `j`'s lock. Returns 1 gained, 0 not, -1 on failure. */
static int try_job(ddz_lead *l, job *j)
{
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)j->key);
    const char *p1[] = {key};
    PGresult *r = run(l, "SELECT pg_try_advisory_lock($1::bigint)", 1, p1, PGRES_TUPLES_OK);
    if (!r)
        return -1;
    bool got = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (!got)
        return 0;
    /* the lock is ours even if the row could not be written: others then
     * know no holder, and look() writes it again */
    write_holder(l, j);
    return 1;
}

/* Reads the live holder of `j` into *st. Returns 0 or -1 on failure. */
static int read_holder(ddz_lead *l, job *j, ddz_lead_job *st)
{
    const char *p[] = {j->name};
    PGresult *r = run(l,
                      "SELECT c.node, c.public_url FROM cluster_leaders c WHERE c.job = $1"
                      " AND EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory'"
                      " AND k.granted AND k.objsubid = 1 AND k.pid = c.pid"
                      " AND k.classid::bigint = (c.lock_key >> 32) & 4294967295"
                      " AND k.objid::bigint = c.lock_key & 4294967295)",
                      1, p, PGRES_TUPLES_OK);
    if (!r)
        return -1;
    st->holder_known = PQntuples(r) == 1;
    st->holder[0] = st->holder_url[0] = '\0';
    if (st->holder_known) {
        snprintf(st->holder, sizeof st->holder, "%s", PQgetvalue(r, 0, 0));
        snprintf(st->holder_url, sizeof st->holder_url, "%s", PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    return 0;
}

/* One look: try what is not held, read every holder (which also proves
 * the session alive). Returns whether anything the loop sees changed. */
static bool look(ddz_lead *l)
{
    bool changed = false;
    for (int i = 0; i < l->njobs && l->pg; i++) {
        job *j = &l->jobs[i];
        pthread_mutex_lock(&l->mu);
        ddz_lead_job st = j->st;
        pthread_mutex_unlock(&l->mu);
        if (!st.held) {
            int rc = try_job(l, j);
            if (rc > 0)
                st.held = true, st.term++;
        }
        if (PQstatus(l->pg) != CONNECTION_OK || read_holder(l, j, &st) < 0) {
            if (PQstatus(l->pg) != CONNECTION_OK) {
                changed |= lose_all(l);
                break;
            }
            continue; /* a statement failed on a live session: locks stay held */
        }
        /* held, but the row does not name us (its write failed): the
         * others would think nobody holds the job, so write it again */
        if (st.held && (!st.holder_known || strcmp(st.holder, l->node) != 0) &&
            write_holder(l, j) && read_holder(l, j, &st) < 0 && PQstatus(l->pg) != CONNECTION_OK) {
            changed |= lose_all(l);
            break;
        }
        pthread_mutex_lock(&l->mu);
        changed |= st.held != j->st.held || st.term != j->st.term ||
                   st.holder_known != j->st.holder_known || strcmp(st.holder, j->st.holder) != 0 ||
                   strcmp(st.holder_url, j->st.holder_url) != 0;
        j->st = st;
        pthread_mutex_unlock(&l->mu);
    }
    return changed;
}

static void *thread_main(void *arg)
{
    ddz_lead *l = arg;
    while (!ddz_mailbox_closed(l->bell)) {
        bool changed = false;
        if (!l->pg)
            connect_pg(l);
        if (l->pg)
            changed = look(l);
        else
            changed = lose_all(l);
        if (changed && l->wake)
            l->wake(l->ctx);
        if (l->pg && l->work) {
            ddz_lead_job st[DDZ_LEAD_JOBS];
            pthread_mutex_lock(&l->mu);
            for (int i = 0; i < l->njobs; i++)
                st[i] = l->jobs[i].st;
            pthread_mutex_unlock(&l->mu);
            l->work(l->work_ctx, l->pg, st, l->njobs);
        }
        ddz_mailbox_wait(l->bell, l->retry_ms);
    }
    if (l->pg && PQstatus(l->pg) == CONNECTION_OK && l->work) {
        /* a last round of work as no job's holder: what the loop queued
         * before it stopped is written, nothing is led any more */
        ddz_lead_job st[DDZ_LEAD_JOBS];
        memset(st, 0, sizeof st);
        l->work(l->work_ctx, l->pg, st, l->njobs);
    }
    if (l->pg && PQstatus(l->pg) == CONNECTION_OK) {
        /* hand over now rather than on the session's end alone (one round
         * trip, within the stop's grace) */
        PQclear(run(l,
                    "DELETE FROM cluster_leaders WHERE pid = pg_backend_pid();"
                    "SELECT pg_advisory_unlock_all()",
                    0, NULL, PGRES_TUPLES_OK));
    }
    lose_all(l);
    return NULL;
}

ddz_lead *ddz_lead_start(const ddz_lead_cfg *cfg, const char *const *jobs, int njobs, char *err,
                         size_t errlen)
{
    if (!cfg || !cfg->url || !cfg->node || njobs < 1 || njobs > DDZ_LEAD_JOBS ||
        strlen(cfg->node) >= DDZ_LEAD_NODE_MAX ||
        (cfg->public_url && strlen(cfg->public_url) >= DDZ_LEAD_URL_MAX) || cfg->retry_ms < 0) {
        snprintf(err, errlen, "lead: bad arguments");
        return NULL;
    }
    for (int i = 0; i < njobs; i++)
        if (!jobs[i] || !jobs[i][0] || strlen(jobs[i]) >= DDZ_LEAD_JOB_MAX) {
            snprintf(err, errlen, "lead: bad job name");
            return NULL;
        }
    ddz_lead *l = calloc(1, sizeof *l);
    if (!l || !(l->url = strdup(cfg->url))) {
        free(l);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(l->node, sizeof l->node, "%s", cfg->node);
    snprintf(l->public_url, sizeof l->public_url, "%s", cfg->public_url ? cfg->public_url : "");
    l->retry_ms = cfg->retry_ms ? cfg->retry_ms : DDZ_LEAD_RETRY_MS;
    l->wake = cfg->wake;
    l->ctx = cfg->ctx;
    l->work = cfg->work;
    l->work_ctx = cfg->work_ctx;
    l->timeout_ms = cfg->db_timeout_ms > 0 ? cfg->db_timeout_ms : DDZ_PG_TIMEOUT_MS;
    ddz_pg_stop_init(&l->own_stop);
    l->stop = cfg->stop ? cfg->stop : &l->own_stop;
    l->njobs = njobs;
    for (int i = 0; i < njobs; i++) {
        snprintf(l->jobs[i].name, sizeof l->jobs[i].name, "%s", jobs[i]);
        snprintf(l->jobs[i].st.name, sizeof l->jobs[i].st.name, "%s", jobs[i]);
        l->jobs[i].key = ddz_lead_key(jobs[i]);
    }
    if (!(l->bell = ddz_mailbox_create(0, false))) {
        ddz_pg_stop_fini(&l->own_stop);
        free(l->url);
        free(l);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    if (pthread_create(&l->thread, NULL, thread_main, l) != 0) {
        ddz_mailbox_destroy(l->bell);
        pthread_mutex_destroy(&l->mu);
        ddz_pg_stop_fini(&l->own_stop);
        free(l->url);
        free(l);
        snprintf(err, errlen, "lead: cannot start a thread");
        return NULL;
    }
    return l;
}

int ddz_lead_state(ddz_lead *l, int i, ddz_lead_job *out)
{
    if (!l || i < 0 || i >= l->njobs)
        return DDZ_EINVAL;
    pthread_mutex_lock(&l->mu);
    *out = l->jobs[i].st;
    pthread_mutex_unlock(&l->mu);
    return 0;
}

int ddz_lead_njobs(const ddz_lead *l)
{
    return l->njobs;
}

void ddz_lead_poke(ddz_lead *l)
{
    ddz_mailbox_poke(l->bell);
}

void ddz_lead_last_error(ddz_lead *l, char *out, size_t outlen)
{
    pthread_mutex_lock(&l->mu);
    snprintf(out, outlen, "%s", l->err);
    pthread_mutex_unlock(&l->mu);
}

void ddz_lead_stop(ddz_lead *l)
{
    if (!l)
        return;
    /* the round under way, the last one of work and the hand-over end
     * within the grace, whatever the database does */
    ddz_pg_stop_now(l->stop);
    ddz_mailbox_close(l->bell, DDZ_MAILBOX_DROP); /* after the round under way */
    pthread_join(l->thread, NULL);
    ddz_mailbox_destroy(l->bell);
    pthread_mutex_destroy(&l->mu);
    ddz_pg_stop_fini(&l->own_stop);
    free(l->url);
    free(l);
}
