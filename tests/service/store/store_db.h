/* store_db.h - what the store tests that run on both backends share: a
 * database of the test's own (a SQLite file in a fresh directory, or,
 * with STORE_PG 1, a fresh PostgreSQL database of the server ctest starts:
 * pg_test.h, included first), a store opened on it, and the test's own
 * connection to look at the rows or move them (a clock 31 days on).
 *
 * Included once by a test file, after STORE_PG is set; every function is
 * static. Each failure is the test's (cr_assert). */
#ifndef DDZ_TEST_STORE_DB_H
#define DDZ_TEST_STORE_DB_H

#include <criterion/criterion.h>

#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/store/store.h"
#include "test_clock.h"

static char dir[64];
static char db_path[256];

/* Makes the test's database: a directory named from `prefix`
 * ("/tmp/ddz-NAME-"), and in it the SQLite file, or a PostgreSQL
 * database. For a TestSuite's .init. */
static void store_db_setup(const char *prefix)
{
    cr_assert_geq(sodium_init(), 0);
    cr_assert_lt(snprintf(dir, sizeof dir, "%sXXXXXX", prefix), (int)sizeof dir);
    cr_assert_not_null(mkdtemp(dir));
#if STORE_PG
    pg_db_create(db_path, sizeof db_path);
#else
    snprintf(db_path, sizeof db_path, "%s/ddz.db", dir);
#endif
}

/* Removes what store_db_setup() made. For a TestSuite's .fini. */
static void store_db_teardown(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
#if STORE_PG
    pg_db_drop();
#endif
}

/* Opens the store on the test's database (the test fails if it cannot). */
static ddz_store *open_ok(void)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(db_path, NULL, err, sizeof err);
    cr_assert_not_null(s, "open: %s", err);
    return s;
}

/* Runs `sql` on the database with a connection of the test's own. */
static void db_exec(const char *sql)
{
#if STORE_PG
    PGconn *c = pg_connect(db_path);
    pg_exec(c, sql);
    PQfinish(c);
#else
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg);
    sqlite3_close(db);
#endif
}

/* The number the first column of `sql`'s first row holds (-1 for none). */
static long long db_num(const char *sql)
{
#if STORE_PG
    PGconn *c = pg_connect(db_path);
    long long v = pg_num(c, sql);
    PQfinish(c);
    return v;
#else
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
    long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
#endif
}

/* ---- the store's reader thread: start it with store_db_wake, and
 * store_db_run() submits a read and waits (bounded) for its answer ---- */

static pthread_mutex_t store_db_wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t store_db_wcond = PTHREAD_COND_INITIALIZER;

/* The reader's wake: ddz_store_reader_start(s, store_db_wake, NULL). */
static inline void store_db_wake(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&store_db_wlock);
    pthread_cond_broadcast(&store_db_wcond);
    pthread_mutex_unlock(&store_db_wlock);
}

/* Submits `r` and waits, at most T(10 s), for its answer. */
static inline void store_db_run(ddz_store *s, ddz_store_read *r)
{
    cr_assert_eq(ddz_store_read_submit(s, r), 0);
    struct timespec due;
    clock_gettime(CLOCK_REALTIME, &due);
    due.tv_sec += T(10000) / 1000;
    ddz_store_read *got = NULL;
    pthread_mutex_lock(&store_db_wlock);
    while (!(got = ddz_store_read_done(s)))
        cr_assert_eq(pthread_cond_timedwait(&store_db_wcond, &store_db_wlock, &due), 0,
                     "no answer in time");
    pthread_mutex_unlock(&store_db_wlock);
    cr_assert_eq(got, r);
}

#endif
