/* test_clock.h - time in the tests: a monotonic clock in ms, and the bounds
 * of waits, which grow with how slow the run may be.
 *
 * A test waits on a condition, never for a time; the bound of such a wait
 * only decides how long a broken test takes to fail, so it is generous:
 * what takes `ms` on an idle 2-core machine with the Release build gets
 * T(ms) = ms x the slowdown. The slowdown is DDZ_TEST_SLOWDOWN from the
 * environment if set (a number >= 1: a machine slower than any seen), else
 * the build's (tests/CMakeLists.txt: 4 for Release, 10 for the sanitizer
 * build), which covers a machine twice as slow as the fast one with a
 * parallel build beside it (issue 27).
 *
 * A time that tells two behaviours apart ("auto-play came at once, not at
 * the 60 s grace") is not such a bound: BELOW(ms, limit) grows the same way
 * but stays under `limit`, the time of the behaviour it must not be.
 *
 * Every helper is `static inline` or a macro, so a test need not use all. */
#ifndef DDZ_TEST_CLOCK_H
#define DDZ_TEST_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef DDZ_TEST_SLOWDOWN
#define DDZ_TEST_SLOWDOWN 1 /* a test built outside tests/CMakeLists.txt */
#endif

/* A Criterion timeout (.timeout = HANG(s)): `s` seconds on an idle machine,
 * times the build's slowdown. A compile-time constant, as Criterion needs. */
#define HANG(s) ((double)(s) * DDZ_TEST_SLOWDOWN)

/* The slowdown of this run (see above). */
static inline double test_slowdown(void)
{
    const char *s = getenv("DDZ_TEST_SLOWDOWN");
    double v = s ? atof(s) : 0;
    return v >= 1 ? v : DDZ_TEST_SLOWDOWN;
}

/* The bound of a wait for what takes `ms` on an idle machine. */
static inline int T(int ms)
{
    return (int)(ms * test_slowdown());
}

/* T(ms), but at most 90% of `limit`. */
static inline int BELOW(int ms, int limit)
{
    int t = T(ms), cap = limit / 10 * 9;
    return t < cap ? t : cap;
}

/* CLOCK_MONOTONIC in ms. */
static inline int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
