/* pwhash.c - Argon2id on worker threads, bounded (pwhash.h). */
#include "service/server/pwhash.h"

#include <pthread.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rules/error.h"

_Static_assert(DDZ_PWHASH_STR_MAX == crypto_pwhash_STRBYTES, "a hash string's room");

#define MAX_THREADS 64

struct ddz_pwhash {
    ddz_mailbox *jobs;    /* bounded by max_jobs: queued plus running */
    ddz_mailbox *answers; /* unbounded, never closed: the loop takes from it */
    pthread_t thread[MAX_THREADS];
    int nthreads; /* started */
    bool stopped; /* ddz_pwhash_stop() ran (loop thread only) */
    unsigned long long opslimit;
    size_t memlimit;
    int64_t max_wait_us;            /* a job queued longer is answered DDZ_EBUSY unrun */
    char dummy[DDZ_PWHASH_STR_MAX]; /* verified against for a name with no account */
    void (*wake)(void *ctx);
    void *wake_ctx;
};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void run_job(ddz_pwhash *p, ddz_pwhash_job *j)
{
    size_t len = strlen(j->password);
    if (now_us() - j->queued_us > p->max_wait_us) {
        j->rc = DDZ_EBUSY; /* its client is better told at once than after its deadline */
    } else if (j->op == DDZ_PWHASH_HASH) {
        j->rc = crypto_pwhash_str(j->hash, j->password, len, p->opslimit, p->memlimit) == 0
                    ? 0
                    : DDZ_ENOMEM; /* libsodium's one failure here: the memory */
    } else {
        /* no account: the same work against the dummy, and a refusal
         * whatever it says */
        bool known = j->hash[0] != '\0';
        int ok = crypto_pwhash_str_verify(known ? j->hash : p->dummy, j->password, len);
        j->rc = known && ok == 0 ? 0 : DDZ_EAUTH;
    }
    sodium_memzero(j->password, sizeof j->password);
}

/* How much lower than the loop a hash runs (a nice value). A flood keeps
 * both workers busy without a pause: at the loop's priority, on two
 * cores, they took its time from the people playing (a bystander's
 * actions' p99 from 1.2 to 13 ms, docs/benchmarks.md); lower, the loop is
 * served first, and on a machine with time to spare the hashes lose
 * nothing. On one too busy, they slow down: a job that then waits too
 * long is answered EBUSY (max_wait_ms), not left to its deadline. */
#define WORKER_NICE 10

static void *worker(void *arg)
{
    ddz_pwhash *p = arg;
    ddz_mail *m;
    /* Linux: each thread has its own nice value, named by its thread id.
     * Should it fail, the thread runs as before: no error to report. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE);
    while ((m = ddz_mailbox_take(p->jobs, 1, NULL))) {
        ddz_pwhash_job *j = DDZ_MAIL_ITEM(m, ddz_pwhash_job, mail);
        run_job(p, j);
        /* the slot is free before the answer is seen: a loop that submits
         * again when it has the answer finds room */
        ddz_mailbox_done(p->jobs, 1);
        ddz_mailbox_put(p->answers, &j->mail);
        p->wake(p->wake_ctx);
    }
    return NULL;
}

ddz_pwhash *ddz_pwhash_create(const ddz_pwhash_options *opt, void (*wake)(void *ctx), void *ctx)
{
    ddz_pwhash_options o = opt ? *opt : (ddz_pwhash_options){0};
    if (!o.threads) {
        /* Half the cores: the others stay the loop's and the AIs'. On
         * two, one worker hashed more than two did under a flood (the
         * second fought the loop and the memory bus: 7 against 6 a
         * second) and held one hash's memory less; docs/benchmarks.md. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = cores >= 2 ? (int)(cores / 2) : 1;
        if (o.threads > DDZ_PWHASH_THREADS_MAX)
            o.threads = DDZ_PWHASH_THREADS_MAX;
    }
    if (!o.max_jobs)
        o.max_jobs = DDZ_PWHASH_MAX_JOBS;
    if (!o.opslimit)
        o.opslimit = DDZ_PWHASH_OPSLIMIT;
    if (!o.memlimit)
        o.memlimit = DDZ_PWHASH_MEMLIMIT;
    if (!o.max_wait_ms)
        o.max_wait_ms = DDZ_PWHASH_MAX_WAIT_MS;
    if (!wake || o.max_wait_ms < 0 || o.threads < 1 || o.threads > MAX_THREADS ||
        o.opslimit < crypto_pwhash_OPSLIMIT_MIN || o.memlimit < crypto_pwhash_MEMLIMIT_MIN ||
        sodium_init() < 0)
        return NULL;
    ddz_pwhash *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->opslimit = o.opslimit;
    p->memlimit = o.memlimit;
    p->max_wait_us = (int64_t)o.max_wait_ms * 1000;
    p->wake = wake;
    p->wake_ctx = ctx;
    /* The dummy: a hash of random bytes nobody knows, with the pool's
     * parameters, so that verifying against it costs what a real one does. */
    unsigned char secret[32];
    randombytes_buf(secret, sizeof secret);
    int made =
        crypto_pwhash_str(p->dummy, (const char *)secret, sizeof secret, p->opslimit, p->memlimit);
    sodium_memzero(secret, sizeof secret);
    if (made != 0 || !(p->jobs = ddz_mailbox_create(o.max_jobs, false)) ||
        !(p->answers = ddz_mailbox_create(0, false))) {
        ddz_mailbox_destroy(p->jobs);
        free(p);
        return NULL;
    }
    for (; p->nthreads < o.threads; p->nthreads++)
        if (pthread_create(&p->thread[p->nthreads], NULL, worker, p) != 0) {
            ddz_pwhash_destroy(p);
            return NULL;
        }
    return p;
}

int ddz_pwhash_submit(ddz_pwhash *p, ddz_pwhash_job *job)
{
    int rc = DDZ_EINVAL;
    if (job->op == DDZ_PWHASH_HASH || job->op == DDZ_PWHASH_VERIFY) {
        if (strnlen(job->password, sizeof job->password) <= DDZ_PWHASH_PASSWORD_MAX &&
            strnlen(job->hash, sizeof job->hash) < sizeof job->hash) {
            job->rc = 0;
            job->queued_us = now_us();
            rc = ddz_mailbox_put(p->jobs, &job->mail);
            if (rc == DDZ_EINVAL) /* closed: stopping */
                rc = DDZ_EBUSY;
        }
    }
    if (rc < 0)
        sodium_memzero(job->password, sizeof job->password);
    return rc;
}

ddz_pwhash_job *ddz_pwhash_done(ddz_pwhash *p)
{
    return DDZ_MAIL_ITEM(ddz_mailbox_get(p->answers), ddz_pwhash_job, mail);
}

size_t ddz_pwhash_pending(ddz_pwhash *p)
{
    return ddz_mailbox_count(p->jobs);
}

void ddz_pwhash_stop(ddz_pwhash *p)
{
    if (!p || p->stopped)
        return;
    p->stopped = true;
    ddz_mailbox_close(p->jobs, DDZ_MAILBOX_DROP); /* after the hashes running */
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->thread[i], NULL);
    for (ddz_mail *m = ddz_mailbox_get_all(p->jobs), *next; m; m = next) {
        next = m->next;
        ddz_pwhash_job *j = DDZ_MAIL_ITEM(m, ddz_pwhash_job, mail);
        sodium_memzero(j->password, sizeof j->password);
        j->rc = DDZ_EBUSY;
        ddz_mailbox_put(p->answers, &j->mail);
    }
}

void ddz_pwhash_destroy(ddz_pwhash *p)
{
    if (!p)
        return;
    ddz_pwhash_stop(p);
    ddz_mailbox_destroy(p->jobs);
    ddz_mailbox_destroy(p->answers);
    sodium_memzero(p, sizeof *p);
    free(p);
}
