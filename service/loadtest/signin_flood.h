/* signin_flood.h - `ddz loadtest --sign-ins`: a flood of sign-ins
 * (POST /api/sessions, SPEC §15) from many addresses while the load
 * test's tables play, to measure what a flood costs the people playing
 * (their actions' p99) and the server (VmRSS), and how the server answers
 * it (200/401 hashed, 429 limited, 503 past the hashing queue).
 *
 * Worker threads, each a loop of blocking HTTP/1.1 requests, one
 * connection each ("Connection: close"), paced so that together they send
 * `rate` a second. Every request names a name never used before with a
 * wrong password: an unknown name is verified against a dummy hash, so it
 * costs the server what a wrong password for a real account costs, and no
 * account's failure limit cuts the flood short. Against a loopback URL
 * each connection is made from its own address of 127.0.0.0/8, round
 * robin over `addrs` of them, so the per-address limit is met as a flood
 * from many machines would meet it; against any other host, from the one
 * address the system chooses.
 *
 * The flood holds at most `threads` connections. Nothing is kept but
 * counts and at most DDZ_SIGNIN_FLOOD_SAMPLES latencies. */
#ifndef DDZ_SIGNIN_FLOOD_H
#define DDZ_SIGNIN_FLOOD_H

#include <stddef.h>
#include <stdint.h>

#define DDZ_SIGNIN_FLOOD_SAMPLES 200000 /* latencies kept, the first ones */

typedef struct ddz_signin_flood ddz_signin_flood;

typedef struct ddz_signin_flood_cfg {
    const char *host; /* the server's host (an IPv4 address or a name) */
    int port;         /* and port (HTTP, no TLS) */
    double rate;      /* requests a second, all threads together (> 0) */
    int threads;      /* connections at once, 1..256 */
    int addrs;        /* loopback source addresses to go round, 1..65000 */
} ddz_signin_flood_cfg;

typedef struct ddz_signin_flood_result {
    long sent;            /* requests written */
    long ok;              /* 200 (not expected: every password is wrong) */
    long refused;         /* 401 EAUTH: hashed and refused */
    long limited;         /* 429 ERATE: the per-address or per-name limit */
    long busy;            /* 503 EBUSY: past the hashing queue */
    long other;           /* any other status */
    long failed;          /* no answer: connect, write or read failed or timed out */
    double seconds;       /* from start to stop */
    double p50, p99, max; /* answer latency of the answered, milliseconds */
    double hashed_p50;    /* ... of the 401s alone: the ones that waited for a hash */
} ddz_signin_flood_result;

/* Starts the flood. Returns it, or NULL with a one-line reason in `err`
 * (a bad argument, a host that does not resolve, no thread). */
ddz_signin_flood *ddz_signin_flood_start(const ddz_signin_flood_cfg *cfg, char *err, size_t errlen);

/* Tells `f`'s threads to send nothing more, and returns at once. */
void ddz_signin_flood_halt(ddz_signin_flood *f);

/* Stops `f` and waits for its threads (the requests in flight end within
 * their 10 s timeout), fills
 * *out and frees `f`. */
void ddz_signin_flood_stop(ddz_signin_flood *f, ddz_signin_flood_result *out);

#endif
