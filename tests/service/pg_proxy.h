/* pg_proxy.h - a TCP proxy a test owns between the processes it starts and
 * the fixture's PostgreSQL server (pg_test.h), so that the test can take
 * "the database" away and bring it back without touching the server the
 * other tests share: pg_proxy_cut() closes every connection through it and
 * answers new ones by closing them at once (what a client sees of a
 * database that was stopped: "server closed the connection unexpectedly"),
 * pg_proxy_hang() stops forwarding while it keeps accepting and holding
 * connections (what a client sees of a database stopped with SIGSTOP, a
 * full disk, a stuck failover: the kernel answers TCP, nothing else does),
 * pg_proxy_restore() lets them through again (a held connection goes on
 * where it stopped, as a SIGCONT server's would). A hang ends by itself
 * after PG_PROXY_HANG_MAX_MS, so that a server that wrongly waits for the
 * database fails a test by seconds instead of hanging it. One thread, poll(2), on
 * a free loopback port; stopped and joined by pg_proxy_stop(). Include
 * after Criterion and pg_test.h. */
#ifndef DDZ_PG_PROXY_H
#define DDZ_PG_PROXY_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test_clock.h"

#define PG_PROXY_PAIRS 256         /* connections through it at once (a hang holds many) */
#define PG_PROXY_HANG_MAX_MS 10000 /* a hang's end at the latest */

typedef struct pg_proxy {
    int lfd;                   /* the listening socket */
    int port;                  /* its port */
    int to_port;               /* the database server's (on 127.0.0.1) */
    int wake[2];               /* tells the thread to look at `cut` and `stop` */
    int fd[PG_PROXY_PAIRS][2]; /* client, server; -1 when free (a server's -1 too while a
                                  connection accepted during a hang waits for it) */
    atomic_bool cut, hang, stop;
    int64_t hang_until;  /* now_ms() at which a hang ends by itself (set before `hang`) */
    atomic_int open;     /* pairs open now */
    atomic_long refused; /* connections closed on arrival while cut */
    pthread_t th;
} pg_proxy;

static void pg_proxy_close_pair(pg_proxy *p, int i)
{
    close(p->fd[i][0]);
    if (p->fd[i][1] >= 0)
        close(p->fd[i][1]);
    p->fd[i][0] = p->fd[i][1] = -1;
    atomic_fetch_sub(&p->open, 1);
}

/* Copies what waits on `from` to `to`. Returns false at the end or an error. */
static bool pg_proxy_pump(int from, int to)
{
    char buf[16384];
    ssize_t n = read(from, buf, sizeof buf);
    if (n <= 0)
        return false;
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, buf + off, (size_t)(n - off));
        if (w <= 0)
            return false;
        off += w;
    }
    return true;
}

/* A connection to the server, or -1. */
static int pg_proxy_upstream(pg_proxy *p)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(p->to_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        close(s);
        s = -1;
    }
    return s;
}

static void *pg_proxy_main(void *arg)
{
    pg_proxy *p = arg;
    while (!atomic_load(&p->stop)) {
        bool hang = atomic_load(&p->hang);
        int wait_ms = -1;
        if (hang && now_ms() >= p->hang_until)
            atomic_store(&p->hang, hang = false);
        else if (hang)
            wait_ms = (int)(p->hang_until - now_ms());
        if (!hang) /* connections held during a hang reach the server now */
            for (int i = 0; i < PG_PROXY_PAIRS; i++)
                if (p->fd[i][0] >= 0 && p->fd[i][1] < 0 && (p->fd[i][1] = pg_proxy_upstream(p)) < 0)
                    pg_proxy_close_pair(p, i);
        struct pollfd pf[2 + 2 * PG_PROXY_PAIRS];
        int idx[2 + 2 * PG_PROXY_PAIRS], n = 0;
        pf[n] = (struct pollfd){.fd = p->wake[0], .events = POLLIN}, idx[n++] = -1;
        pf[n] = (struct pollfd){.fd = p->lfd, .events = POLLIN}, idx[n++] = -2;
        /* hung: nothing is read, but a side that closes is seen (its pair
         * freed): POLLRDHUP, not POLLIN */
        for (int i = 0; i < PG_PROXY_PAIRS; i++)
            for (int k = 0; k < 2 && p->fd[i][0] >= 0; k++)
                if (p->fd[i][k] >= 0)
                    pf[n] = (struct pollfd){.fd = p->fd[i][k], .events = hang ? POLLRDHUP : POLLIN},
                    idx[n++] = 2 * i + k;
        if (poll(pf, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
            break;
        if (pf[0].revents) {
            char b[64];
            while (read(p->wake[0], b, sizeof b) > 0)
                ;
        }
        if (atomic_load(&p->cut))
            for (int i = 0; i < PG_PROXY_PAIRS; i++)
                if (p->fd[i][0] >= 0)
                    pg_proxy_close_pair(p, i);
        if (pf[1].revents & POLLIN) {
            int c = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC);
            int slot = -1;
            for (int i = 0; i < PG_PROXY_PAIRS && slot < 0; i++)
                if (p->fd[i][0] < 0)
                    slot = i;
            int s = -1;
            bool held = c >= 0 && !atomic_load(&p->cut) && slot >= 0 && atomic_load(&p->hang);
            if (c >= 0 && !atomic_load(&p->cut) && slot >= 0 && !held)
                s = pg_proxy_upstream(p);
            if (c >= 0 && (s >= 0 || held)) {
                p->fd[slot][0] = c, p->fd[slot][1] = s;
                atomic_fetch_add(&p->open, 1);
            } else if (c >= 0) {
                close(c);
                atomic_fetch_add(&p->refused, 1);
            }
        }
        for (int k = 2; k < n; k++) {
            int i = idx[k] / 2, side = idx[k] % 2;
            if (!pf[k].revents || p->fd[i][0] < 0 || p->fd[i][side] != pf[k].fd)
                continue;
            if (hang || !pg_proxy_pump(p->fd[i][side], p->fd[i][!side]))
                pg_proxy_close_pair(p, i); /* hung: the side closed */
        }
    }
    for (int i = 0; i < PG_PROXY_PAIRS; i++)
        if (p->fd[i][0] >= 0)
            pg_proxy_close_pair(p, i);
    return NULL;
}

/* Starts a proxy to the PostgreSQL server of `url` (postgres://USER@HOST:
 * PORT/DB, HOST being 127.0.0.1 as the fixture's is); writes the same URL
 * through the proxy to `out`. Fails the test if it cannot. */
static void pg_proxy_start(pg_proxy *p, const char *url, char *out, size_t outlen)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < PG_PROXY_PAIRS; i++)
        p->fd[i][0] = p->fd[i][1] = -1;
    const char *at = strchr(url, '@'), *colon = at ? strchr(at, ':') : NULL;
    const char *slash = colon ? strchr(colon, '/') : NULL;
    cr_assert(at && colon && slash, "%s: not postgres://USER@HOST:PORT/DB", url);
    p->to_port = atoi(colon + 1);
    p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert(p->lfd >= 0 && bind(p->lfd, (struct sockaddr *)&a, sizeof a) == 0 &&
                  listen(p->lfd, 64) == 0 && getsockname(p->lfd, (struct sockaddr *)&a, &len) == 0,
              "proxy: %s", strerror(errno));
    p->port = ntohs(a.sin_port);
    cr_assert_eq(pipe2(p->wake, O_CLOEXEC | O_NONBLOCK), 0);
    cr_assert_eq(pthread_create(&p->th, NULL, pg_proxy_main, p), 0);
    int n = snprintf(out, outlen, "%.*s@127.0.0.1:%d%s", (int)(at - url), url, p->port, slash);
    cr_assert(n > 0 && (size_t)n < outlen);
}

static void pg_proxy_poke(pg_proxy *p)
{
    ssize_t w = write(p->wake[1], "x", 1);
    (void)w;
}

/* Takes the database away: every connection through the proxy closed
 * (bounded wait), new ones closed on arrival. */
static void pg_proxy_cut(pg_proxy *p)
{
    atomic_store(&p->cut, true);
    pg_proxy_poke(p);
    int64_t deadline = now_ms() + T(2000);
    while (atomic_load(&p->open) > 0) {
        cr_assert_lt(now_ms(), deadline, "the proxy did not close its connections");
        poll(NULL, 0, 5); /* the interval of a bounded wait */
    }
}

/* Makes the database hang: connections stay open and new ones are
 * accepted, but nothing goes through either way until pg_proxy_restore()
 * (or PG_PROXY_HANG_MAX_MS). */
static void pg_proxy_hang(pg_proxy *p)
{
    p->hang_until = now_ms() + PG_PROXY_HANG_MAX_MS;
    atomic_store(&p->hang, true);
    pg_proxy_poke(p);
}

/* Brings it back (from a cut or a hang). */
static void pg_proxy_restore(pg_proxy *p)
{
    atomic_store(&p->cut, false);
    atomic_store(&p->hang, false);
    pg_proxy_poke(p);
}

/* Stops the thread and closes everything. Safe on a proxy never started. */
static void pg_proxy_stop(pg_proxy *p)
{
    if (!p->port)
        return;
    atomic_store(&p->stop, true);
    pg_proxy_poke(p);
    pthread_join(p->th, NULL);
    close(p->lfd);
    close(p->wake[0]);
    close(p->wake[1]);
    p->port = 0;
}

#endif
