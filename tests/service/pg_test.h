/* pg_test.h - a PostgreSQL database of its own for a test, on the server
 * ctest starts for the run (the fixture "pg", tests/CMakeLists.txt): the
 * file named by the environment variable DDZ_TEST_PG holds the server's
 * URL. Without it the test FAILS: it never skips. A test that includes this
 * header is wired to the fixture by tests/CMakeLists.txt. Include once,
 * after Criterion. */
#ifndef DDZ_PG_TEST_H
#define DDZ_PG_TEST_H

#include <criterion/criterion.h>

#include <libpq-fe.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char pg_admin[256]; /* the fixture's database, for what a test does to its own */
static char pg_db[64];     /* the test's own database ("" until pg_db_create) */

/* A session on `url`; fails the test if it cannot connect. */
static inline PGconn *pg_connect(const char *url)
{
    PGconn *c = PQconnectdb(url);
    cr_assert(c && PQstatus(c) == CONNECTION_OK, "cannot connect to %s: %s", url,
              c ? PQerrorMessage(c) : "");
    return c;
}

/* Runs `sql` on `c`; fails the test unless it succeeds. */
static inline void pg_exec(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
}

/* The first column of the first row of `sql` on `c` as a number; -1 when
 * the query fails or has no row (a table not made yet, in a bounded wait). */
static inline long long pg_num(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    long long v = -1;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
        v = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
}

/* Runs `sql` on the fixture's database (not the test's). */
static inline void pg_admin_run(const char *sql)
{
    PGconn *c = pg_connect(pg_admin);
    pg_exec(c, sql);
    PQfinish(c);
}

/* Creates the test's database t_<random> on the fixture's server (the
 * tests share the server, never tables); writes its URL to url. */
static inline void pg_db_create(char *url, size_t len)
{
    const char *file = getenv("DDZ_TEST_PG");
    cr_assert(file && *file, "DDZ_TEST_PG is not set: run this test through ctest (fixture pg)");
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f, "%s: no PostgreSQL URL (did the fixture pg start?)", file);
    cr_assert_not_null(fgets(pg_admin, sizeof pg_admin, f), "%s is empty", file);
    fclose(f);
    pg_admin[strcspn(pg_admin, "\r\n")] = '\0';
    const char *slash = strrchr(pg_admin, '/');
    cr_assert(slash && strstr(pg_admin, "://") && slash > strstr(pg_admin, "://") + 2,
              "%s: no database in the URL", pg_admin);
    char name[sizeof pg_db];
    snprintf(name, sizeof name, "t_%08x%08x", randombytes_random(), randombytes_random());
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    pg_admin_run(sql);
    snprintf(pg_db, sizeof pg_db, "%s", name); /* only now is there one to drop */
    int n = snprintf(url, len, "%.*s/%s", (int)(slash - pg_admin), pg_admin, pg_db);
    cr_assert(n > 0 && (size_t)n < len, "the test database's URL is too long");
}

/* Drops the test's database (its sessions cut), if pg_db_create made one. */
static inline void pg_db_drop(void)
{
    if (!pg_db[0])
        return;
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", pg_db);
    pg_db[0] = '\0';
    pg_admin_run(sql);
}

#endif
