/* test_scale.h - how much of a long test to run: DDZ_TEST_SCALE=k (ctest
 * sets 10 in the sanitizer build: tests/CMakeLists.txt) divides the games,
 * positions and deals of the long runs by k, never below a floor that
 * still covers every code path the test is there for. */
#ifndef DDZ_TEST_SCALE_H
#define DDZ_TEST_SCALE_H

#include <stdlib.h>

/* The divisor k (1 when unset or not a positive number). */
static inline int test_scale(void)
{
    const char *s = getenv("DDZ_TEST_SCALE");
    int k = s ? atoi(s) : 1;
    return k > 0 ? k : 1;
}

/* `n` divided by the scale, at least `floor`. */
static inline int scaled(int n, int floor)
{
    n /= test_scale();
    return n < floor ? floor : n;
}

#endif
