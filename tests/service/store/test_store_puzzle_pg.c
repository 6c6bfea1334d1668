/* test_store_puzzle_pg.c - the puzzles' store tests (test_store_puzzle.c,
 * the same bodies) against PostgreSQL: each test gets a database of its
 * own (pg_test.h) on the server ctest starts for the run. Without that
 * server the tests FAIL: they never skip. */
#define STORE_PG 1

#include <criterion/criterion.h>

#include "service/pg_test.h"
#include "service/store/test_store_puzzle.c"
