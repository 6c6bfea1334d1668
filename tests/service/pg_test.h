/* pg_test.h - a PostgreSQL database of its own for a test, on the server
 * ctest starts for the run (the fixture "pg", tests/CMakeLists.txt): the
 * file named by the environment variable the fixture sets holds the
 * server's URL. Without it the test FAILS: it never skips. Include once. */
#ifndef DDZ_PG_TEST_H
#define DDZ_PG_TEST_H

#include <criterion/criterion.h>

#include <libpq-fe.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char pg_url[256]; /* the fixture's database, for what a test does to its own */
static char pg_db[64];   /* the test's own database */

/* Runs `sql` on the fixture's database (not the test's). */
static void pg_admin_run(const char *sql)
{
    PGconn *c = PQconnectdb(pg_url);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s: %s", pg_url, PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* Creates the test's database; writes its URL to url. */
static void pg_db_create(char *url, size_t len)
{
    const char *file = getenv("DDZ_TEST_PG");
    cr_assert(file && *file, "DDZ_TEST_PG is not set: run this test through ctest (fixture pg)");
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f, "%s: no PostgreSQL URL (did the fixture pg start?)", file);
    cr_assert_not_null(fgets(pg_url, sizeof pg_url, f));
    fclose(f);
    pg_url[strcspn(pg_url, "\r\n")] = '\0';
    snprintf(pg_db, sizeof pg_db, "t_%08x%08x", randombytes_random(), randombytes_random());
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", pg_db);
    pg_admin_run(sql);
    const char *slash = strrchr(pg_url, '/');
    cr_assert(slash && slash > strstr(pg_url, "://") + 2, "%s: no database in the URL", pg_url);
    snprintf(url, len, "%.*s/%s", (int)(slash - pg_url), pg_url, pg_db);
}

static void pg_db_drop(void)
{
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", pg_db);
    pg_admin_run(sql);
}

#endif
