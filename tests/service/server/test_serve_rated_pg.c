/* test_serve_rated_pg.c - rated play on a served `ddz serve` (the bodies of
 * test_serve_rated.c) with its database on PostgreSQL: each test gets a
 * database of its own (pg_test.h) on the server ctest starts for the run.
 * Without that server the tests FAIL: they never skip. */
#define RATED_PG 1

#include <criterion/criterion.h>

#include "service/pg_test.h"
#include "service/server/test_serve_rated.c"
