/* listener.c - the listening socket, the descriptor budget, shedding and
 * pausing at descriptor exhaustion (see listener.h). */
#include "service/net/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BACKOFF_MIN_US 50000LL
#define BACKOFF_MAX_US 1000000LL
#define WARN_EVERY_US (60 * 1000000LL)
#define ACCEPTS_PER_WAKEUP 64 /* then back to the loop, so others get served too */

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- the budget ---- */

static long reserve_of(long nofile)
{
    long r = 64 + nofile / 16;
    return r > nofile / 2 ? nofile / 2 : r; /* a tiny limit still admits some */
}

ddz_fd_budget ddz_listener_budget(long conns)
{
    /* WebSocket connections, plus HTTP ones alongside (an eighth more),
     * plus the reserve, which is itself 1/16 of the limit */
    long want = (conns + conns / 8 + 64) * 16 / 15 + 1;
    long nofile = 1024;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)want) {
            struct rlimit up = rl;
            up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)want ? (rlim_t)want
                                                                                     : rl.rlim_max;
            if (up.rlim_cur > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &up) == 0)
                rl = up;
        }
        /* lws sizes a table by the limit: an unlimited one is read as 1M */
        nofile =
            rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1 << 20) ? (1 << 20) : (long)rl.rlim_cur;
    }
    ddz_fd_budget b = {.nofile = nofile, .reserve = reserve_of(nofile)};
    b.cap = nofile - b.reserve;
    return b;
}

/* ---- logging ---- */

static void say(ddz_listener *l, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(ddz_listener *l, const char *level, const char *fmt, ...)
{
    if (!l->log)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    l->log(l->ctx, level, msg);
}

/* Connections are being shed: an episode starts (one warning, at most one
 * a minute) or goes on. */
static void begin_episode(ddz_listener *l, const char *why)
{
    if (l->episode)
        return;
    l->episode = true;
    int64_t now = now_us();
    if (l->warned_us && now - l->warned_us < WARN_EVERY_US)
        return;
    l->warned_us = now;
    say(l, "warn",
        "%s: new connections are shed until descriptors free up (limit %ld, %ld kept in "
        "reserve)",
        why, l->budget.nofile, l->budget.reserve);
}

/* Closes an accepted connection at once: its client sees the close rather
 * than a hang. */
static void shed_fd(ddz_listener *l, int fd, const char *why)
{
    close(fd);
    l->shed++;
    l->episode_shed++;
    begin_episode(l, why);
}

/* A connection fitted: an episode of shedding is over. */
static void episode_over(ddz_listener *l)
{
    l->backoff_us = BACKOFF_MIN_US;
    if (!l->episode)
        return;
    l->episode = false;
    say(l, "info", "accepting connections again (%ld shed)", l->episode_shed);
    l->episode_shed = 0;
}

/* ---- pausing ---- */

static void resume_cb(ddz_timer *t)
{
    ddz_listener *l = (ddz_listener *)((char *)t - offsetof(ddz_listener, resume));
    l->paused = false;
    if (!l->stopped && l->wsi)
        lws_rx_flow_control(l->wsi, 1);
}

/* Stops polling the listening socket for a backoff: without this, a socket
 * that stays readable while accept() cannot succeed wakes the loop at once,
 * forever. */
static void pause_accepting(ddz_listener *l)
{
    if (l->paused || !l->wsi)
        return;
    l->paused = true;
    l->pauses++;
    lws_rx_flow_control(l->wsi, 0);
    ddz_loop_arm(l->loop, &l->resume, resume_cb, l->backoff_us);
    l->backoff_us = l->backoff_us * 2 > BACKOFF_MAX_US ? BACKOFF_MAX_US : l->backoff_us * 2;
}

/* ---- accepting ---- */

/* accept() failed for want of descriptors: one waiting connection is taken
 * with the spare's descriptor and closed, so its client is told at once,
 * and the spare is opened again. */
static void shed_with_spare(ddz_listener *l)
{
    if (l->spare >= 0) {
        close(l->spare);
        int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0)
            shed_fd(l, fd, "out of descriptors");
        l->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    begin_episode(l, "out of descriptors");
}

static void admit(ddz_listener *l, int fd, const struct sockaddr *peer, socklen_t len)
{
    int one = 1;
    /* what lws sets on the sockets it accepts itself: small WebSocket
     * frames must not wait for Nagle */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* On failure the gate or lws has closed the descriptor; nothing to
     * undo. */
    if (l->gate ? ddz_gate_admit(l->gate, fd, peer, len) == 0
                : lws_adopt_socket_vhost(l->vh, fd) != NULL)
        episode_over(l);
}

static void accept_some(ddz_listener *l)
{
    for (int i = 0; i < ACCEPTS_PER_WAKEUP && !l->paused && !l->stopped; i++) {
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        int fd = accept4(l->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue; /* that connection is gone; the next may be fine */
            if (errno == EMFILE || errno == ENFILE)
                shed_with_spare(l);
            /* EMFILE, ENFILE, ENOBUFS, ENOMEM or anything unforeseen: no
             * accept can succeed right now, so polling again would spin */
            pause_accepting(l);
            return;
        }
        /* within the reserve (kept for the database and the engines): a
         * crowd's socket makes room for it, or it is shed at the door */
        if (fd >= l->budget.cap && !(l->gate && ddz_gate_shed_heaviest(l->gate))) {
            shed_fd(l, fd, "descriptor budget reached");
            continue;
        }
        admit(l, fd, (struct sockaddr *)&peer, plen);
    }
}

int ddz_listener_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len)
{
    ddz_listener *l = lws_get_opaque_user_data(wsi);
    (void)user, (void)in, (void)len;
    switch (reason) {
    case LWS_CALLBACK_RAW_RX_FILE:
        if (l && l->wsi == wsi)
            accept_some(l);
        return 0;
    case LWS_CALLBACK_RAW_CLOSE_FILE: /* lws closes the descriptor it adopted */
        if (l && l->wsi == wsi) {
            l->wsi = NULL;
            l->fd = -1;
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- life ---- */

int ddz_listener_open(ddz_listener *l, const char *bind_addr, int port, ddz_fd_budget budget,
                      char *err, size_t errlen)
{
    *l = (ddz_listener){.fd = -1, .spare = -1, .budget = budget, .backoff_us = BACKOFF_MIN_US};
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    /* every interface: IPv6 with IPv4 mapped in, else IPv4 alone */
    const char *tries[2] = {bind_addr, NULL};
    if (!bind_addr) {
        tries[0] = "::";
        tries[1] = "0.0.0.0";
    }
    int last_errno = 0;
    const char *last_what = "no address";
    for (int t = 0; t < 2 && tries[t] && l->fd < 0; t++) {
        struct addrinfo *res = NULL;
        int gai = getaddrinfo(tries[t], service, &hints, &res);
        if (gai != 0) {
            snprintf(err, errlen, "cannot listen on %s:%d: %s", tries[t], port, gai_strerror(gai));
            last_what = NULL;
            continue;
        }
        for (struct addrinfo *ai = res; ai && l->fd < 0; ai = ai->ai_next) {
            int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                            ai->ai_protocol);
            if (fd < 0) {
                last_errno = errno, last_what = "socket";
                continue;
            }
            int one = 1, zero = 0;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (ai->ai_family == AF_INET6 && !bind_addr)
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
                last_errno = errno, last_what = "bind";
            } else if (listen(fd, SOMAXCONN) < 0) {
                last_errno = errno, last_what = "listen";
            } else {
                l->fd = fd;
                break;
            }
            close(fd);
        }
        freeaddrinfo(res);
        if (l->fd < 0 && last_what)
            snprintf(err, errlen, "cannot listen on %s:%d: %s: %s", bind_addr ? bind_addr : "*",
                     port, last_what, strerror(last_errno));
    }
    if (l->fd < 0)
        return -1;
    l->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return 0;
}

int ddz_listener_start(ddz_listener *l, struct lws_vhost *vh, ddz_loop *loop)
{
    l->vh = vh;
    l->loop = loop;
    lws_adopt_desc_t desc = {
        .vh = vh, .type = LWS_ADOPT_RAW_FILE_DESC, .vh_prot_name = "ddz-listen", .opaque = l};
    desc.fd.filefd = l->fd;
    l->wsi = lws_adopt_descriptor_vhost_via_info(&desc);
    return l->wsi ? 0 : -1;
}

void ddz_listener_stop(ddz_listener *l)
{
    l->stopped = true;
    if (l->loop)
        ddz_loop_disarm(l->loop, &l->resume);
    if (l->wsi && !l->paused)
        lws_rx_flow_control(l->wsi, 0);
    l->paused = true;
}

void ddz_listener_close(ddz_listener *l)
{
    if (!l->wsi && l->fd >= 0)
        close(l->fd); /* never adopted: still ours */
    l->fd = -1;
    if (l->spare >= 0)
        close(l->spare);
    l->spare = -1;
}
