/* pwhash.h - password hashing off the event loop (SPEC §15, issue 40).
 *
 * An Argon2id hash (libsodium crypto_pwhash_str) takes tens of
 * milliseconds of one core and holds its memory limit (16 MiB with the
 * pool's parameters) while it runs, so the loop never runs one: it
 * hands the job to this pool's worker threads and answers the request when
 * the job comes back. Both costs are bounded: `threads` hashes run at once
 * (so at most threads x memlimit bytes are held for hashing), and at most
 * `max_jobs` jobs are queued or running; a submit past that is refused
 * DDZ_EBUSY (HTTP 503): a flood of sign-ins is turned away at the door
 * rather than queued for minutes.
 *
 * Use, on the loop thread:
 *
 *     p = ddz_pwhash_create(&opt, wake, ctx);
 *     ddz_pwhash_submit(p, job)          0, or DDZ_EBUSY past the bound
 *     wake(ctx) from a worker, then on the loop:
 *     while ((job = ddz_pwhash_done(p))) ... job->rc, job->hash ...
 *
 * A job is the CALLER'S MEMORY (embed it to carry context), the store's
 * reads' way (store.h): from submit until ddz_pwhash_done() returns it,
 * the pool owns every field but `owner`, which it never reads (the caller
 * may clear it when its object goes, and drop the answer). The password is
 * wiped (sodium_memzero) once hashed or verified, before the job comes
 * back.
 *
 * A verify of an unknown name: the caller submits DDZ_PWHASH_VERIFY with
 * hash "", and the worker verifies against the pool's dummy hash (made at
 * create time from random bytes, with the same parameters), so the answer
 * (DDZ_EAUTH) takes as long as a wrong password's.
 */
#ifndef DDZ_PWHASH_H
#define DDZ_PWHASH_H

#include <stddef.h>
#include <stdint.h>

#include "service/thread/mailbox.h"

#define DDZ_PWHASH_THREADS_MAX 4     /* default worker threads: half the cores, 1 to this */
#define DDZ_PWHASH_MAX_JOBS 32       /* default bound of jobs queued or running */
#define DDZ_PWHASH_PASSWORD_MAX 1024 /* a password's bytes, at most (SPEC §15) */
#define DDZ_PWHASH_PASSWORD_MIN 8    /* a password's characters, at least (SPEC §15) */
#define DDZ_PWHASH_STR_MAX 128       /* a hash string + NUL: crypto_pwhash_STRBYTES */
#define DDZ_PWHASH_MAX_WAIT_MS 10000 /* default: a job queued longer is not run */
/* The default Argon2id cost: 16 passes over 16 MiB. Twice the memory-time
 * of libsodium's INTERACTIVE (2 over 64 MiB) in about half the wall time,
 * and a quarter of the memory each: 64 MiB mapped and unmapped a hash
 * took a bystander's p99 from 1.2 to 2.5-4 ms under a flood, 16 MiB left
 * it where it was (docs/decisions.md, docs/benchmarks.md). */
#define DDZ_PWHASH_OPSLIMIT 16ULL
#define DDZ_PWHASH_MEMLIMIT ((size_t)16 << 20)

enum ddz_pwhash_op {
    DDZ_PWHASH_HASH = 1, /* hash `password` into `hash` */
    DDZ_PWHASH_VERIFY,   /* check `password` against `hash` ("" for no account) */
};

typedef struct ddz_pwhash_job {
    int op;                                     /* enum ddz_pwhash_op */
    char password[DDZ_PWHASH_PASSWORD_MAX + 1]; /* wiped before the job comes back */
    char hash[DDZ_PWHASH_STR_MAX];              /* VERIFY: in; HASH: the answer */
    void *owner;                                /* the caller's; never read by the pool */
    int rc;            /* answer: HASH 0 or DDZ_ENOMEM; VERIFY 0 (the password is right)
                          or DDZ_EAUTH (wrong, or no account); DDZ_EBUSY if the pool was
                          destroyed before the job ran, or it waited past max_wait_ms */
    int64_t queued_us; /* the pool's: when it was submitted (monotonic) */
    ddz_mail mail;     /* the pool's queue link */
} ddz_pwhash_job;

typedef struct ddz_pwhash_options {
    int threads;                 /* workers, 0 = half the online cores, 1..DDZ_PWHASH_THREADS_MAX */
    size_t max_jobs;             /* jobs queued or running at once, 0 = DDZ_PWHASH_MAX_JOBS */
    unsigned long long opslimit; /* Argon2id passes, 0 = DDZ_PWHASH_OPSLIMIT */
    size_t memlimit;             /* its memory in bytes, 0 = DDZ_PWHASH_MEMLIMIT */
    int max_wait_ms; /* a job that waited longer for a worker is answered DDZ_EBUSY without
                        being run, 0 = DDZ_PWHASH_MAX_WAIT_MS: on a machine too busy to
                        hash as fast as the queue assumes, its client gets a clear 503
                        within the request's deadline, not a silent close after it */
} ddz_pwhash_options;

typedef struct ddz_pwhash ddz_pwhash;

/* Starts the pool with `opt` (NULL: the defaults; docs/decisions.md says
 * why those) and makes its dummy hash (one hash's time, on the caller's
 * thread). `wake(ctx)` is called from a worker after each answer is
 * queued, with no lock of the pool held; it must be safe from any thread.
 * Returns the pool, or NULL if `wake` is NULL, an option is out of range
 * (threads over 64, opslimit or memlimit under libsodium's minimum,
 * max_wait_ms negative), or
 * memory or threads ran out. */
ddz_pwhash *ddz_pwhash_create(const ddz_pwhash_options *opt, void (*wake)(void *ctx), void *ctx);

/* Queues `job` (op, password and, to verify, hash set). Never waits.
 * Returns 0 (the answer comes through ddz_pwhash_done(), exactly once),
 * DDZ_EBUSY if max_jobs jobs are queued or running (then the password is
 * wiped and the job is the caller's again), or DDZ_EINVAL for an unknown op
 * or a password over DDZ_PWHASH_PASSWORD_MAX bytes. */
int ddz_pwhash_submit(ddz_pwhash *p, ddz_pwhash_job *job);

/* Pops the oldest answered job, or NULL. Any thread; the loop calls it
 * after `wake`. */
ddz_pwhash_job *ddz_pwhash_done(ddz_pwhash *p);

/* Returns the jobs queued or running now (what the bound counts). */
size_t ddz_pwhash_pending(ddz_pwhash *p);

/* Stops the workers after the hashes they are running; the jobs still
 * queued are answered DDZ_EBUSY without being run (their passwords
 * wiped), with no wake: every submitted job is waiting in
 * ddz_pwhash_done() when this returns, to be collected before
 * ddz_pwhash_destroy(). Stopping again changes nothing. NULL is allowed. */
void ddz_pwhash_stop(ddz_pwhash *p);

/* Stops the pool (ddz_pwhash_stop) and frees it. Answered jobs not yet
 * collected are forgotten, NOT freed (they are the caller's). NULL is
 * allowed. */
void ddz_pwhash_destroy(ddz_pwhash *p);

#endif
