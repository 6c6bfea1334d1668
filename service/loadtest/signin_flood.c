/* signin_flood.c - see signin_flood.h. */
#include "service/loadtest/signin_flood.h"

#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define IO_TIMEOUT_S 10 /* a request not answered by then counts as failed */

typedef struct worker {
    struct ddz_signin_flood *f;
    int index;
    pthread_t thread;
    bool started;
} worker;

struct ddz_signin_flood {
    ddz_signin_flood_cfg cfg;
    struct sockaddr_in to;
    bool loopback; /* the server is on 127.0.0.0/8: vary the source address */
    atomic_bool stop;
    atomic_long next;   /* requests numbered: the name, the source address */
    int64_t t0, t_halt; /* started, told to stop (its caller's thread) */
    pthread_mutex_t mu; /* guards the counts and samples below */
    ddz_signin_flood_result res;
    uint32_t *lat, *hashed; /* microseconds */
    size_t nlat, nhashed;
    worker w[MAX_THREADS];
    int nworkers;
};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Sleeps until `at` (monotonic µs) or the flood stops, in 50 ms steps so
 * that stop is seen soon. */
static void sleep_until(ddz_signin_flood *f, int64_t at)
{
    for (int64_t now = now_us(); now < at && !atomic_load(&f->stop); now = now_us()) {
        int64_t d = at - now < 50000 ? at - now : 50000;
        struct timespec ts = {0, (long)d * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Sends one request numbered `n` and reads its answer. Returns the HTTP
 * status, or -1 if none came. */
static int request(ddz_signin_flood *f, long n)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {IO_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (f->loopback) {
        /* 127.0.1.1 onwards: a..b of 127.0.a.b, b in 1..250 */
        long a = n % f->cfg.addrs;
        struct sockaddr_in from = {.sin_family = AF_INET};
        from.sin_addr.s_addr =
            htonl(0x7f000000u | (uint32_t)((1 + a / 250) << 8) | (uint32_t)(1 + a % 250));
        if (bind(fd, (struct sockaddr *)&from, sizeof from) < 0) {
            close(fd);
            return -1;
        }
    }
    int status = -1;
    if (connect(fd, (struct sockaddr *)&f->to, sizeof f->to) == 0) {
        char body[128], req[512];
        int blen = snprintf(body, sizeof body,
                            "{\"name\":\"flood%ld\",\"password\":\"not-the-password-%ld\"}", n, n);
        int len = snprintf(req, sizeof req,
                           "POST /api/sessions HTTP/1.1\r\nHost: %s:%d\r\n"
                           "Content-Type: application/json\r\nContent-Length: %d\r\n"
                           "Connection: close\r\n\r\n%s",
                           f->cfg.host, f->cfg.port, blen, body);
        char buf[2048];
        size_t got = 0;
        if (send(fd, req, (size_t)len, MSG_NOSIGNAL) == len) {
            /* the status line is all we need: read until it is whole */
            while (got < sizeof buf - 1 && !memchr(buf, '\n', got)) {
                ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
                if (r <= 0)
                    break;
                got += (size_t)r;
            }
            buf[got] = '\0';
            int code;
            if (sscanf(buf, "HTTP/1.%*d %d", &code) == 1)
                status = code;
        }
    }
    close(fd);
    return status;
}

static void count(ddz_signin_flood *f, int status, int64_t us)
{
    pthread_mutex_lock(&f->mu);
    ddz_signin_flood_result *r = &f->res;
    r->sent++;
    if (status < 0)
        r->failed++;
    else if (status == 200)
        r->ok++;
    else if (status == 401)
        r->refused++;
    else if (status == 429)
        r->limited++;
    else if (status == 503)
        r->busy++;
    else
        r->other++;
    uint32_t v = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    if (status >= 0 && f->nlat < DDZ_SIGNIN_FLOOD_SAMPLES)
        f->lat[f->nlat++] = v;
    if (status == 401 && f->nhashed < DDZ_SIGNIN_FLOOD_SAMPLES)
        f->hashed[f->nhashed++] = v;
    pthread_mutex_unlock(&f->mu);
}

/* Each worker sends every `threads / rate` seconds, its start offset by
 * its index, so that together they keep the rate while the server keeps
 * up; a worker whose answer is late sends at once, never a burst to
 * catch up. */
static void *work(void *arg)
{
    worker *w = arg;
    ddz_signin_flood *f = w->f;
    int64_t every = (int64_t)(1e6 * f->nworkers / f->cfg.rate);
    int64_t at = f->t0 + every * w->index / f->nworkers;
    while (!atomic_load(&f->stop)) {
        sleep_until(f, at);
        if (atomic_load(&f->stop))
            break;
        int64_t t = now_us();
        int status = request(f, atomic_fetch_add(&f->next, 1));
        count(f, status, now_us() - t);
        at += every;
        if (at < now_us())
            at = now_us();
    }
    return NULL;
}

ddz_signin_flood *ddz_signin_flood_start(const ddz_signin_flood_cfg *cfg, char *err, size_t errlen)
{
    if (!cfg->host || cfg->port <= 0 || cfg->port > 65535 || !(cfg->rate > 0) || cfg->threads < 1 ||
        cfg->threads > MAX_THREADS || cfg->addrs < 1 || cfg->addrs > 65000) {
        snprintf(err, errlen, "sign-in flood: bad rate, threads or addresses");
        return NULL;
    }
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo(cfg->host, NULL, &hints, &ai) != 0 || !ai) {
        snprintf(err, errlen, "sign-in flood: cannot resolve %s", cfg->host);
        return NULL;
    }
    ddz_signin_flood *f = calloc(1, sizeof *f);
    if (f) {
        f->lat = malloc(DDZ_SIGNIN_FLOOD_SAMPLES * sizeof *f->lat);
        f->hashed = malloc(DDZ_SIGNIN_FLOOD_SAMPLES * sizeof *f->hashed);
    }
    if (!f || !f->lat || !f->hashed) {
        freeaddrinfo(ai);
        if (f) {
            free(f->lat);
            free(f->hashed);
        }
        free(f);
        snprintf(err, errlen, "sign-in flood: out of memory");
        return NULL;
    }
    f->cfg = *cfg;
    memcpy(&f->to, ai->ai_addr, sizeof f->to);
    freeaddrinfo(ai);
    f->to.sin_port = htons((uint16_t)cfg->port);
    f->loopback = (ntohl(f->to.sin_addr.s_addr) >> 24) == 127;
    pthread_mutex_init(&f->mu, NULL);
    atomic_init(&f->stop, false);
    atomic_init(&f->next, 0);
    f->t0 = now_us();
    f->nworkers = cfg->threads;
    for (int i = 0; i < f->nworkers; i++) {
        f->w[i] = (worker){.f = f, .index = i};
        f->w[i].started = pthread_create(&f->w[i].thread, NULL, work, &f->w[i]) == 0;
        if (!f->w[i].started) {
            ddz_signin_flood_result ignored;
            ddz_signin_flood_stop(f, &ignored);
            snprintf(err, errlen, "sign-in flood: cannot start a thread");
            return NULL;
        }
    }
    return f;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double pct_ms(uint32_t *v, size_t n, double p)
{
    if (!n)
        return 0;
    size_t i = (size_t)ceil(p * (double)n);
    i = i ? i - 1 : 0;
    return (i < n ? v[i] : v[n - 1]) / 1000.0;
}

void ddz_signin_flood_halt(ddz_signin_flood *f)
{
    if (!f->t_halt)
        f->t_halt = now_us();
    atomic_store(&f->stop, true);
}

void ddz_signin_flood_stop(ddz_signin_flood *f, ddz_signin_flood_result *out)
{
    ddz_signin_flood_halt(f);
    for (int i = 0; i < f->nworkers; i++)
        if (f->w[i].started)
            pthread_join(f->w[i].thread, NULL);
    *out = f->res;
    out->seconds = (double)(f->t_halt - f->t0) / 1e6;
    qsort(f->lat, f->nlat, sizeof *f->lat, cmp_u32);
    qsort(f->hashed, f->nhashed, sizeof *f->hashed, cmp_u32);
    out->p50 = pct_ms(f->lat, f->nlat, 0.5);
    out->p99 = pct_ms(f->lat, f->nlat, 0.99);
    out->max = pct_ms(f->lat, f->nlat, 1.0);
    out->hashed_p50 = pct_ms(f->hashed, f->nhashed, 0.5);
    pthread_mutex_destroy(&f->mu);
    free(f->lat);
    free(f->hashed);
    free(f);
}
