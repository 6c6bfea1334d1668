/* gate.c - sockets from their accept to their first request head, and their
 * count until their close (see gate.h). */
#include "service/net/gate.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <unistd.h>

#define LINGER_US (2 * 1000000LL) /* a refused socket's excess is read and dropped this long */
#define LINGER_BYTES (256 * 1024) /* or up to this much */
#define EVENTS_PER_WAKEUP 64      /* then back to the loop, so others get served too */

enum { S_HEAD, S_LINGER, S_HANDED }; /* what a socket is to the gate */

struct ddz_gate_sock {
    ddz_gate *g;
    int fd;
    int state;                  /* S_* */
    void *tag;                  /* what admit() counted it under */
    struct lws *wsi;            /* once S_HANDED */
    ddz_timer deadline;         /* the head's, or the lingering's */
    ddz_gate_sock *prev, *next; /* on g->held, while held */
    uint32_t len;               /* bytes in buf */
    uint32_t scanned;           /* of them, looked at */
    uint32_t line_len, lines;   /* the head so far: its current line, its whole lines */
    uint32_t blank_at;          /* where the head ends (after its blank line), 0 not yet */
    uint32_t drained;           /* bytes dropped while lingering */
    char *buf;                  /* DDZ_GATE_HEAD_BUF bytes while reading the head, else NULL */
};

/* One more than a head may have: a head that fills it is too large. */
#define DDZ_GATE_HEAD_BUF (DDZ_GATE_HEAD_MAX + 1)

static const char answer_431[] = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 32\r\n"
                                 "Connection: close\r\n\r\n"
                                 "request header fields too large\n";

/* HTTP/2 in clear: the answer to its preface is the server's own preface
 * (an empty SETTINGS frame) and GOAWAY with HTTP_1_1_REQUIRED (RFC 9113
 * 3.4, 7): a client of prior knowledge learns to use HTTP/1.1. */
static const char h2_preface[] = "PRI * HTTP/2.0\r\n";
static const unsigned char answer_h2[] = {
    0, 0, 0, 4, 0, 0, 0, 0, 0,                           /* SETTINGS, empty */
    0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d /* GOAWAY, last stream 0, code 0xd */
};
static const char answer_h2c[] = "HTTP/1.1 400 Bad Request\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 35\r\n"
                                 "Connection: close\r\n\r\n"
                                 "HTTP/2 is served only through TLS\n";

/* ---- the list of held sockets ---- */

static void link_held(ddz_gate *g, ddz_gate_sock *s)
{
    s->prev = g->held_tail;
    s->next = NULL;
    *(g->held_tail ? &g->held_tail->next : &g->held) = s;
    g->held_tail = s;
    g->nheld++;
}

static void unlink_held(ddz_gate *g, ddz_gate_sock *s)
{
    *(s->prev ? &s->prev->next : &g->held) = s->next;
    *(s->next ? &s->next->prev : &g->held_tail) = s->prev;
    s->prev = s->next = NULL;
    g->nheld--;
}

/* The one exit of a held socket: out of the set and the list, its timer
 * disarmed, closed, its count released, freed. */
static void drop(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    ddz_loop_disarm(g->loop, &s->deadline);
    if (g->epfd >= 0)
        epoll_ctl(g->epfd, EPOLL_CTL_DEL, s->fd, NULL);
    unlink_held(g, s);
    close(s->fd);
    g->open--;
    if (g->ops.release)
        g->ops.release(g->ctx, s->tag);
    free(s->buf);
    free(s);
}

/* ---- refusing ---- */

static void linger_end(ddz_timer *t)
{
    drop((ddz_gate_sock *)((char *)t - offsetof(ddz_gate_sock, deadline)));
}

/* Writes `answer` and ends the socket's output; its input is then read
 * and dropped until the client closes, for LINGER_US at most. */
static void refuse(ddz_gate_sock *s, const void *answer, size_t len)
{
    send(s->fd, answer, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(s->fd, SHUT_WR);
    s->state = S_LINGER;
    ddz_loop_arm(s->g->loop, &s->deadline, linger_end, LINGER_US);
}

static void linger_read(ddz_gate_sock *s)
{
    char sink[4096];
    for (int i = 0; i < 4; i++) {
        ssize_t n = recv(s->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n > 0 && (s->drained += (uint32_t)n) < LINGER_BYTES)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        drop(s); /* the client closed, failed, or sent too much */
        return;
    }
}

/* ---- the head ---- */

static void head_late(ddz_timer *t)
{
    ddz_gate_sock *s = (ddz_gate_sock *)((char *)t - offsetof(ddz_gate_sock, deadline));
    s->g->timed_out++;
    drop(s);
}

/* Scans the bytes of buf not yet seen; returns true once the head is
 * whole (blank_at set), false while it is not. Sets nothing else: the
 * caller compares the figures with the limits. */
static bool scan(ddz_gate_sock *s)
{
    while (s->scanned < s->len) {
        char c = s->buf[s->scanned++];
        if (c == '\r')
            continue;
        if (c != '\n') {
            s->line_len++;
            continue;
        }
        if (s->line_len || !s->lines) {
            /* empty lines before the request line are allowed (RFC 9112
             * 2.2), and do not count */
            s->lines += s->line_len != 0;
            s->line_len = 0;
            continue;
        }
        s->blank_at = s->scanned;
        return true;
    }
    return false;
}

/* Whether the head (its first blank_at bytes) asks for HTTP/2 in clear:
 * an Upgrade header naming h2c. */
static bool asks_h2c(const ddz_gate_sock *s)
{
    static const char name[] = "\nupgrade:";
    const char *p = s->buf, *end = s->buf + s->blank_at;
    while ((p = memchr(p, '\n', (size_t)(end - p)))) {
        if ((size_t)(end - p) < sizeof name - 1 || strncasecmp(p, name, sizeof name - 1) != 0) {
            p++;
            continue;
        }
        p += sizeof name - 1;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        /* the token h2c in the header's comma-separated list */
        for (const char *q = p; q + 3 <= eol; q++)
            if (strncasecmp(q, "h2c", 3) == 0 && (q == p || memchr(" \t,", q[-1], 3)) &&
                (q + 3 == eol || memchr(" \t,\r", q[3], 4)))
                return true;
        p = eol;
    }
    return false;
}

/* The head is whole: the socket goes to lws with every byte read. */
static void hand_over(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    ddz_loop_disarm(g->loop, &s->deadline);
    epoll_ctl(g->epfd, EPOLL_CTL_DEL, s->fd, NULL);
    unlink_held(g, s);
    s->state = S_HANDED;
    /* lws services the bytes before it returns: the answer may be written,
     * and the wsi closed, in this call (NULL; lws closed the socket) */
    struct lws *wsi = lws_adopt_socket_vhost_readbuf(g->vh, s->fd, s->buf, s->len);
    free(s->buf); /* lws copied it */
    s->buf = NULL;
    if (!wsi) {
        g->open--;
        if (g->ops.release)
            g->ops.release(g->ctx, s->tag);
        free(s);
        return;
    }
    s->wsi = wsi;
    lws_set_opaque_user_data(wsi, s);
}

static void head_read(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    ssize_t n = recv(s->fd, s->buf + s->len, DDZ_GATE_HEAD_BUF - s->len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        drop(s); /* closed (or failed) before its head was whole */
        return;
    }
    s->len += (uint32_t)n;
    bool whole = scan(s);
    uint32_t head = whole ? s->blank_at : s->len;
    if (head > DDZ_GATE_HEAD_MAX || s->lines > DDZ_GATE_HEAD_LINES) {
        g->too_large++;
        refuse(s, answer_431, sizeof answer_431 - 1);
        return;
    }
    size_t pri = s->len < sizeof h2_preface - 1 ? s->len : sizeof h2_preface - 1;
    if (memcmp(s->buf, h2_preface, pri) == 0 && pri == sizeof h2_preface - 1) {
        g->h2c++;
        refuse(s, answer_h2, sizeof answer_h2);
        return;
    }
    if (!whole)
        return;
    if (asks_h2c(s)) {
        g->h2c++;
        refuse(s, answer_h2c, sizeof answer_h2c - 1);
        return;
    }
    hand_over(s);
}

int ddz_gate_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                      size_t len)
{
    ddz_gate *g = lws_get_opaque_user_data(wsi);
    (void)user, (void)in, (void)len;
    if (!g || g->wsi != wsi)
        return 0;
    if (reason == LWS_CALLBACK_RAW_CLOSE_FILE) {
        g->wsi = NULL;
        g->epfd = -1; /* lws closed it */
        return 0;
    }
    if (reason != LWS_CALLBACK_RAW_RX_FILE)
        return 0;
    struct epoll_event ev[EVENTS_PER_WAKEUP];
    int n = epoll_wait(g->epfd, ev, EVENTS_PER_WAKEUP, 0);
    /* each socket comes once in a batch, and handling one touches no
     * other held socket (shedding happens at accept, not here) */
    for (int i = 0; i < n; i++) {
        ddz_gate_sock *s = ev[i].data.ptr;
        if (s->state == S_LINGER)
            linger_read(s);
        else if (s->state == S_HEAD)
            head_read(s);
    }
    return 0;
}

/* ---- pressure ---- */

/* The process nears its socket cap: the held head of the heaviest tag (the
 * one holding the most sockets; the oldest of its heads) is closed, so
 * that one address's silent heads go before anyone else's. */
static void shed_heaviest(ddz_gate *g)
{
    ddz_gate_sock *worst = NULL;
    long most = -1;
    for (ddz_gate_sock *s = g->held; s; s = s->next) {
        if (s->state != S_HEAD)
            continue;
        long w = g->ops.weight ? g->ops.weight(g->ctx, s->tag) : 0;
        if (w > most) {
            most = w;
            worst = s;
        }
    }
    /* an address with one socket is nobody's crowd: its head waits for
     * its (short) deadline */
    if (worst && most > 1) {
        g->shed++;
        drop(worst);
    }
}

/* ---- life ---- */

int ddz_gate_init(ddz_gate *g, struct lws_vhost *vh, ddz_loop *loop, bool tls, long cap,
                  const ddz_gate_ops *ops, void *ctx)
{
    *g = (ddz_gate){
        .epfd = -1, .vh = vh, .loop = loop, .tls = tls, .cap = cap, .ops = *ops, .ctx = ctx};
    if (tls)
        return 0;
    g->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (g->epfd < 0)
        return -1;
    lws_adopt_desc_t desc = {
        .vh = vh, .type = LWS_ADOPT_RAW_FILE_DESC, .vh_prot_name = "ddz-gate", .opaque = g};
    desc.fd.filefd = g->epfd;
    g->wsi = lws_adopt_descriptor_vhost_via_info(&desc);
    if (!g->wsi) {
        close(g->epfd); /* lws does not close a file descriptor it failed to adopt */
        g->epfd = -1;
        return -1;
    }
    return 0;
}

/* Hands `fd` to lws at once (TLS, or no epoll set); its count is released
 * when lws destroys its wsi. Returns 0, or -1 (lws closed it). */
static int hand_now(ddz_gate *g, int fd, void *tag)
{
    ddz_gate_sock *s = malloc(sizeof *s);
    struct lws *wsi = s ? lws_adopt_socket_vhost(g->vh, fd) : NULL;
    if (!s)
        close(fd);
    if (!wsi) {
        free(s);
        g->open--;
        if (g->ops.release)
            g->ops.release(g->ctx, tag);
        return -1;
    }
    *s = (ddz_gate_sock){.g = g, .fd = fd, .state = S_HANDED, .tag = tag, .wsi = wsi};
    lws_set_opaque_user_data(wsi, s);
    return 0;
}

int ddz_gate_admit(ddz_gate *g, int fd, const struct sockaddr *peer, socklen_t len)
{
    bool busy = false;
    void *tag = g->ops.admit ? g->ops.admit(g->ctx, peer, len, &busy) : NULL;
    if (!tag) {
        g->refused++;
        close(fd);
        return -1;
    }
    g->open++;
    /* near the cap (the last eighth): heads get the short deadline, and
     * each new socket first sheds the heaviest address's oldest head */
    bool crowded = g->open > g->cap - g->cap / 8;
    if (crowded)
        shed_heaviest(g);
    if (g->tls || g->epfd < 0)
        return hand_now(g, fd, tag);
    ddz_gate_sock *s = calloc(1, sizeof *s);
    char *buf = s ? malloc(DDZ_GATE_HEAD_BUF) : NULL;
    if (!buf) {
        free(s);
        close(fd);
        g->open--;
        if (g->ops.release)
            g->ops.release(g->ctx, tag);
        return -1;
    }
    s->buf = buf;
    s->g = g;
    s->fd = fd;
    s->state = S_HEAD;
    s->tag = tag;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = s};
    link_held(g, s);
    if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        drop(s);
        return -1;
    }
    ddz_loop_arm(g->loop, &s->deadline, head_late,
                 busy || crowded ? DDZ_GATE_BUSY_DEADLINE_US : DDZ_GATE_DEADLINE_US);
    return 0;
}

void ddz_gate_wsi_destroyed(ddz_gate *g, struct lws *wsi)
{
    ddz_gate_sock *s = lws_get_opaque_user_data(wsi);
    /* h2 streams may carry their connection's opaque pointer: only the
     * connection's own wsi releases */
    if (!s || s->state != S_HANDED || s->wsi != wsi || s->g != g)
        return;
    lws_set_opaque_user_data(wsi, NULL);
    g->open--;
    if (g->ops.release)
        g->ops.release(g->ctx, s->tag);
    free(s);
}

void ddz_gate_lws_log(int level, const char *line)
{
    if (!strstr(line, "adopt_socket_readbuf:"))
        lwsl_emit_stderr(level, line);
}

void ddz_gate_fini(ddz_gate *g)
{
    if (!g->vh)
        return; /* never prepared */
    while (g->held)
        drop(g->held);
    if (g->wsi) {
        lws_set_opaque_user_data(g->wsi, NULL);
        g->wsi = NULL; /* the context closes it with the others */
    } else if (g->epfd >= 0) {
        close(g->epfd);
    }
    g->epfd = -1;
}
