/* test_pwhash.c - the password-hashing pool (service/server/pwhash.h):
 * hashes and verifies right, wipes the passwords, answers an unknown name
 * as a wrong password, refuses past its bound with DDZ_EBUSY, and answers
 * every job once, the queued ones too when stopped. The tests use
 * libsodium's smallest Argon2id parameters where the cost does not matter,
 * and the server's own (16 passes over 16 MiB) to hold the workers busy. */
#include <criterion/criterion.h>

#include <pthread.h>
#include <sodium.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "service/server/pwhash.h"
#include "test_clock.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void wake(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&lock);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Waits (bounded) for the next answer. */
static ddz_pwhash_job *next(ddz_pwhash *p)
{
    struct timespec due;
    clock_gettime(CLOCK_REALTIME, &due);
    due.tv_sec += T(20000) / 1000;
    ddz_pwhash_job *j;
    pthread_mutex_lock(&lock);
    while (!(j = ddz_pwhash_done(p)))
        cr_assert_eq(pthread_cond_timedwait(&cond, &lock, &due), 0, "no answer in time");
    pthread_mutex_unlock(&lock);
    return j;
}

static const ddz_pwhash_options small = {
    .threads = 2,
    .max_jobs = 4,
    .opslimit = crypto_pwhash_OPSLIMIT_MIN,
    .memlimit = crypto_pwhash_MEMLIMIT_MIN,
};

static bool zero(const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

Test(pwhash, hashes_and_verifies)
{
    ddz_pwhash *p = ddz_pwhash_create(&small, wake, NULL);
    cr_assert_not_null(p);
    ddz_pwhash_job h = {.op = DDZ_PWHASH_HASH};
    strcpy(h.password, "correct horse");
    cr_assert_eq(ddz_pwhash_submit(p, &h), 0);
    cr_assert_eq(next(p), &h);
    cr_expect_eq(h.rc, 0);
    cr_expect(zero(h.password, sizeof h.password), "the password is wiped");
    cr_expect_eq(strncmp(h.hash, "$argon2id$", 10), 0, "%s", h.hash);
    cr_expect_eq(crypto_pwhash_str_verify(h.hash, "correct horse", 13), 0);

    ddz_pwhash_job good = {.op = DDZ_PWHASH_VERIFY}, bad = good, none = good;
    strcpy(good.password, "correct horse");
    strcpy(good.hash, h.hash);
    strcpy(bad.password, "correct horsE");
    strcpy(bad.hash, h.hash);
    strcpy(none.password, "correct horse"); /* no account: hash "" */
    cr_assert_eq(ddz_pwhash_submit(p, &good), 0);
    cr_assert_eq(ddz_pwhash_submit(p, &bad), 0);
    cr_assert_eq(ddz_pwhash_submit(p, &none), 0);
    for (int i = 0; i < 3; i++)
        next(p);
    cr_expect_eq(good.rc, 0);
    cr_expect_eq(bad.rc, DDZ_EAUTH);
    cr_expect_eq(none.rc, DDZ_EAUTH, "an unknown name is a wrong password");
    cr_expect(zero(bad.password, sizeof bad.password));

    ddz_pwhash_job odd = {.op = 7};
    cr_expect_eq(ddz_pwhash_submit(p, &odd), DDZ_EINVAL);
    cr_expect_null(ddz_pwhash_done(p));
    ddz_pwhash_destroy(p);
}

/* Past max_jobs queued or running, a submit is refused at once; each
 * answer frees a slot. With the default parameters a hash takes tens
 * of milliseconds, so the two workers are still busy when the fifth job
 * comes. */
Test(pwhash, the_bound_is_enforced)
{
    ddz_pwhash_options o = {.threads = 2, .max_jobs = 4};
    ddz_pwhash *p = ddz_pwhash_create(&o, wake, NULL);
    cr_assert_not_null(p);
    ddz_pwhash_job j[6];
    for (int i = 0; i < 6; i++) {
        j[i] = (ddz_pwhash_job){.op = DDZ_PWHASH_HASH};
        snprintf(j[i].password, sizeof j[i].password, "password %d", i);
    }
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_pwhash_submit(p, &j[i]), 0, "job %d", i);
    cr_expect_eq(ddz_pwhash_submit(p, &j[4]), DDZ_EBUSY);
    cr_expect(zero(j[4].password, sizeof j[4].password), "a refused password is wiped too");
    cr_expect_leq(ddz_pwhash_pending(p), 4);
    ddz_pwhash_job *first = next(p);
    cr_expect_eq(first->rc, 0);
    cr_expect_eq(ddz_pwhash_submit(p, &j[5]), 0, "an answer frees a slot");
    for (int i = 0; i < 4; i++)
        cr_expect_eq(next(p)->rc, 0);
    cr_expect_eq(ddz_pwhash_pending(p), 0);
    ddz_pwhash_destroy(p);
}

/* A job that waited longer than max_wait_ms for a worker is answered
 * DDZ_EBUSY unrun, its password wiped: the third of three behind one
 * worker waits two whole hashes (tens of milliseconds each with the
 * default parameters on any machine), past a 20 ms bound. */
Test(pwhash, a_job_that_waited_too_long_is_not_run)
{
    ddz_pwhash_options o = {.threads = 1, .max_jobs = 8, .max_wait_ms = 20};
    ddz_pwhash *p = ddz_pwhash_create(&o, wake, NULL);
    cr_assert_not_null(p);
    ddz_pwhash_job j[3];
    for (int i = 0; i < 3; i++) {
        j[i] = (ddz_pwhash_job){.op = DDZ_PWHASH_HASH};
        snprintf(j[i].password, sizeof j[i].password, "password %d", i);
        cr_assert_eq(ddz_pwhash_submit(p, &j[i]), 0);
    }
    int answered[3] = {0};
    for (int i = 0; i < 3; i++) {
        ddz_pwhash_job *d = next(p);
        answered[d - j]++;
        cr_expect(zero(d->password, sizeof d->password), "the password is wiped either way");
    }
    cr_expect(answered[0] == 1 && answered[1] == 1 && answered[2] == 1, "each answered once");
    cr_expect_eq(j[2].rc, DDZ_EBUSY, "the last waited two hashes: not run");
    cr_expect_eq(j[2].hash[0], '\0', "no hash made");
    ddz_pwhash_destroy(p);
    o.max_wait_ms = -1;
    cr_expect_null(ddz_pwhash_create(&o, wake, NULL), "a negative wait is refused");
}

/* A stop answers every queued job DDZ_EBUSY, unrun, its password wiped. */
Test(pwhash, stop_answers_every_job_once)
{
    ddz_pwhash_options o = {.threads = 1, .max_jobs = 8};
    ddz_pwhash *p = ddz_pwhash_create(&o, wake, NULL);
    cr_assert_not_null(p);
    ddz_pwhash_job j[8];
    for (int i = 0; i < 8; i++) {
        j[i] = (ddz_pwhash_job){.op = DDZ_PWHASH_HASH};
        snprintf(j[i].password, sizeof j[i].password, "password %d", i);
        cr_assert_eq(ddz_pwhash_submit(p, &j[i]), 0);
    }
    ddz_pwhash_stop(p);
    int got = 0, refused = 0;
    ddz_pwhash_job *a;
    while ((a = ddz_pwhash_done(p))) {
        got++;
        refused += a->rc == DDZ_EBUSY;
        cr_expect(zero(a->password, sizeof a->password));
    }
    cr_expect_eq(got, 8);
    cr_expect_geq(refused, 1, "the last ones never ran");
    ddz_pwhash_job late = {.op = DDZ_PWHASH_HASH};
    cr_expect_eq(ddz_pwhash_submit(p, &late), DDZ_EBUSY);
    ddz_pwhash_destroy(p);
}

Test(pwhash, bad_options_are_refused)
{
    ddz_pwhash_options o = {.threads = 65};
    cr_expect_null(ddz_pwhash_create(&o, wake, NULL));
    cr_expect_null(ddz_pwhash_create(NULL, NULL, NULL));
    o = (ddz_pwhash_options){.memlimit = 1};
    cr_expect_null(ddz_pwhash_create(&o, wake, NULL));
}

/* The default cost is the documented one (docs/decisions.md): a hash
 * string says its parameters, and a server's says 16 passes over 16 MiB,
 * not libsodium's INTERACTIVE (2 over 64 MiB, which under a flood of
 * sign-ins slowed the games' loop). */
Test(pwhash, the_default_cost_is_16_passes_over_16_mib)
{
    ddz_pwhash *p = ddz_pwhash_create(NULL, wake, NULL);
    cr_assert_not_null(p);
    ddz_pwhash_job j = {.op = DDZ_PWHASH_HASH};
    snprintf(j.password, sizeof j.password, "correct horse");
    cr_assert_eq(ddz_pwhash_submit(p, &j), 0);
    cr_assert_eq(next(p), &j);
    cr_assert_eq(j.rc, 0);
    cr_expect(strstr(j.hash, "$argon2id$") == j.hash, "%s", j.hash);
    cr_expect_not_null(strstr(j.hash, "$m=16384,t=16,"), "%s", j.hash);
    ddz_pwhash_destroy(p);
}
