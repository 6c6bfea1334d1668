/* test_clock.h - time for the service tests' bounded waits: a monotonic
 * clock in ms, and bounds that grow in the sanitizer build. Every helper is
 * `static inline`, so a test need not use both. */
#ifndef DDZ_TEST_SERVICE_CLOCK_H
#define DDZ_TEST_SERVICE_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* `ms`, four times as long when DDZ_TEST_SCALE > 1 (the sanitizer build,
 * DDZ_TEST_SCALE=10, is slower). */
static inline int T(int ms)
{
    const char *s = getenv("DDZ_TEST_SCALE");
    return s && atoi(s) > 1 ? ms * 4 : ms;
}

/* CLOCK_MONOTONIC in ms. */
static inline int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
