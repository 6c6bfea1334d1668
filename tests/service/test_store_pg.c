/* test_store_pg.c - the store's tests (test_store.c, the same bodies)
 * against PostgreSQL: each test gets a database of its own (pg_test.h),
 * created on the server ctest starts for the run (the fixture "pg":
 * DDZ_TEST_PG names the file holding its URL) and dropped after. Without
 * that server the tests FAIL: they never skip. */
#define STORE_PG 1

#include "pg_test.h"
#include "test_store.c"
