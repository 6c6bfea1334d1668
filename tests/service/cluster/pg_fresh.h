/* pg_fresh.h - a database of its own on the tests' PostgreSQL server (the
 * ctest fixture "pg": DDZ_TEST_PG names a file holding the server's URL).
 * A test FAILS, never skips, without the fixture. Include after Criterion. */
#ifndef DDZ_TEST_PG_FRESH_H
#define DDZ_TEST_PG_FRESH_H

#include <libpq-fe.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* Writes to `out` the URL of a new empty database t_<random> created on
 * the fixture's server (left there: the fixture's server goes away with
 * the run). */
static void pg_fresh(char *out, size_t outlen)
{
    const char *file = getenv("DDZ_TEST_PG");
    cr_assert(file && file[0], "DDZ_TEST_PG is not set: run through ctest (fixture pg)");
    FILE *f = fopen(file, "r");
    cr_assert(f, "DDZ_TEST_PG: cannot open %s", file);
    char base[512] = "";
    cr_assert(fgets(base, sizeof base, f), "DDZ_TEST_PG: %s is empty", file);
    fclose(f);
    base[strcspn(base, "\r\n")] = '\0';
    PGconn *c = PQconnectdb(base);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s: %s", base, PQerrorMessage(c));
    char name[40];
    snprintf(name, sizeof name, "t_%08x%08x", randombytes_random(), randombytes_random());
    char sql[80];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    PGresult *r = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    /* the URL ends in /ddz: the same server, another database */
    char *slash = strrchr(base, '/');
    cr_assert(slash);
    *slash = '\0';
    snprintf(out, outlen, "%s/%s", base, name);
}

#endif
