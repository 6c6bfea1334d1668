/* gate.c - sockets from their accept to their first request head, and their
 * count until their close (see gate.h). */
#include "service/net/gate.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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
    bool answered;              /* S_HANDED: lws has answered (or TLS: never watched) */
    bool waiting;               /* on g->waiting */
    void *tag;                  /* what admit() counted it under */
    struct lws *wsi;            /* once S_HANDED */
    ddz_timer deadline;         /* the head's and its answer's, or the lingering's */
    ddz_gate_sock *prev, *next; /* on g->held while held, on g->waiting while waiting */
    uint32_t len;               /* bytes in buf */
    ddz_http_scan scan;         /* the head so far (http_head.h) */
    uint32_t drained;           /* bytes dropped while lingering */
    int64_t extend_us;          /* taken up in the handover's call: its answer's time */
    char *buf;                  /* DDZ_GATE_HEAD_BUF bytes while reading the head, else NULL */
    /* A body read after the head (ddz_gate_body()): the head's bytes and
     * the body's, once the head is whole; 0 while there is none. */
    uint32_t head_end, body_len;
};

/* One more than a head may have: a head that fills it is too large. */
#define DDZ_GATE_HEAD_BUF (DDZ_GATE_HEAD_MAX + 1)

static const char answer_431[] = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 32\r\n"
                                 "Connection: close\r\n\r\n"
                                 "request header fields too large\n";

static const char answer_400[] = "HTTP/1.1 400 Bad Request\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 12\r\n"
                                 "Connection: close\r\n\r\n"
                                 "bad request\n";

/* HTTP/2 in clear: the answer to its preface is the server's own preface
 * (an empty SETTINGS frame) and GOAWAY with HTTP_1_1_REQUIRED (RFC 9113
 * 3.4, 7): a client of prior knowledge learns to use HTTP/1.1. */
static const unsigned char answer_h2[] = {
    0, 0, 0, 4, 0, 0, 0, 0, 0,                           /* SETTINGS, empty */
    0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d /* GOAWAY, last stream 0, code 0xd */
};
static const char answer_h2c[] = "HTTP/1.1 400 Bad Request\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 35\r\n"
                                 "Connection: close\r\n\r\n"
                                 "HTTP/2 is served only through TLS\n";

/* ---- the lists: held sockets, and handed ones waiting for an answer ---- */

static void link_to(ddz_gate_sock **head, ddz_gate_sock **tail, long *n, ddz_gate_sock *s)
{
    s->prev = *tail;
    s->next = NULL;
    *(*tail ? &(*tail)->next : head) = s;
    *tail = s;
    ++*n;
}

static void unlink_from(ddz_gate_sock **head, ddz_gate_sock **tail, long *n, ddz_gate_sock *s)
{
    *(s->prev ? &s->prev->next : head) = s->next;
    *(s->next ? &s->next->prev : tail) = s->prev;
    s->prev = s->next = NULL;
    --*n;
}

static void link_held(ddz_gate *g, ddz_gate_sock *s)
{
    link_to(&g->held, &g->held_tail, &g->nheld, s);
}

static void unlink_held(ddz_gate *g, ddz_gate_sock *s)
{
    unlink_from(&g->held, &g->held_tail, &g->nheld, s);
}

/* A handed socket is no longer waiting for its answer (answered, closed,
 * or the gate going away): off the list, its deadline stopped. */
static void stop_waiting(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    ddz_loop_disarm(g->loop, &s->deadline);
    if (s->waiting)
        unlink_from(&g->waiting, &g->waiting_tail, &g->nwaiting, s);
    s->waiting = false;
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

/* A handed socket lws has not answered by its deadline: lws is told to
 * close it now (ddz_gate_wsi_destroyed() then releases and frees it). */
static void kill_handed(ddz_gate_sock *s)
{
    stop_waiting(s);
    lws_set_timeout(s->wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_SYNC);
}

static void handed_late(ddz_timer *t)
{
    ddz_gate_sock *s = (ddz_gate_sock *)((char *)t - offsetof(ddz_gate_sock, deadline));
    s->g->late++;
    kill_handed(s);
}

/* The head is whole and accepted: the socket goes to lws with every byte
 * read, and stays bound by its deadline until lws answers. */
static void hand_over(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    int64_t left = s->deadline.due_us - ddz_loop_now_us(g->loop);
    ddz_loop_disarm(g->loop, &s->deadline);
    epoll_ctl(g->epfd, EPOLL_CTL_DEL, s->fd, NULL);
    unlink_held(g, s);
    s->state = S_HANDED;
    /* lws services the bytes before it returns: the answer may be written
     * (ddz_gate_answered() finds the socket through g->handing), and the
     * wsi closed, in this call (NULL; lws closed the socket) */
    g->handing = s;
    /* with a body read here, lws gets the head alone (see read_body()) */
    struct lws *wsi =
        lws_adopt_socket_vhost_readbuf(g->vh, s->fd, s->buf, s->body_len ? s->head_end : s->len);
    g->handing = NULL;
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
    if (s->answered)
        return;
    s->waiting = true;
    link_to(&g->waiting, &g->waiting_tail, &g->nwaiting, s);
    ddz_loop_arm(g->loop, &s->deadline, handed_late, left > s->extend_us ? left : s->extend_us);
}

/* The head `h` of `s` is whole and accepted. A POST, PUT or DELETE with a
 * Content-Length of 1 to DDZ_GATE_BODY_MAX bytes has its body read here
 * too, before the handover: lws 4.1.6 reads the body of a request it was
 * handed with its head (lws_adopt_socket_vhost_readbuf) from the head's
 * own buffer again (lws_http_action's loop over the wsi's buflist feeds
 * it the head as the body, then calls the body's end forever). So lws
 * gets the head alone with its Content-Length's digits made zeros (the
 * same bytes' count: "Content-Length: 00", read by lws as an explicit 0),
 * and the body is the server's through ddz_gate_body() during the
 * handover. Returns true when the body is whole (or there is none), false
 * while more must be read. Sets up the buffer for it (false, and the
 * socket dropped, when out of memory: *gone). */
static bool read_body(ddz_gate_sock *s, const ddz_http_head *h, bool *gone)
{
    *gone = false;
    if (!s->body_len) {
        uint64_t cl = 0;
        bool digits =
            h->content_length.present && h->content_length.len > 0 && h->content_length.len <= 6;
        for (uint32_t i = 0; digits && i < h->content_length.len; i++)
            cl = cl * 10 + (uint64_t)(s->buf[h->content_length.off + i] - '0');
        if (!digits || cl == 0 || cl > DDZ_GATE_BODY_MAX ||
            (h->method != DDZ_HTTP_POST && h->method != DDZ_HTTP_PUT &&
             h->method != DDZ_HTTP_DELETE))
            return true; /* no body, or one lws refuses before reading it (413, 405) */
        size_t size = h->end + cl > s->len ? h->end + cl : s->len;
        char *more = realloc(s->buf, size + 1);
        if (!more) {
            drop(s);
            *gone = true;
            return false;
        }
        s->buf = more;
        s->head_end = h->end;
        s->body_len = (uint32_t)cl;
        memset(s->buf + h->content_length.off, '0', h->content_length.len);
    }
    return s->len >= s->head_end + s->body_len;
}

/* The rest of a body after a whole head (read_body()). */
static void body_read(ddz_gate_sock *s)
{
    uint32_t want = s->head_end + s->body_len;
    ssize_t n = recv(s->fd, s->buf + s->len, want - s->len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        drop(s);
        return;
    }
    s->len += (uint32_t)n;
    if (s->len >= want)
        hand_over(s);
}

const char *ddz_gate_body(ddz_gate *g, struct lws *wsi, size_t *len)
{
    (void)wsi; /* the request is the one handed over in this call */
    ddz_gate_sock *s = g->handing;
    if (!s || !s->body_len) {
        *len = 0;
        return NULL;
    }
    *len = s->body_len;
    return s->buf + s->head_end;
}

static void head_read(ddz_gate_sock *s)
{
    ddz_gate *g = s->g;
    if (s->body_len) {
        body_read(s);
        return;
    }
    ssize_t n = recv(s->fd, s->buf + s->len, DDZ_GATE_HEAD_BUF - s->len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        drop(s); /* closed (or failed) before its head was whole */
        return;
    }
    s->len += (uint32_t)n;
    ddz_http_head h;
    switch (ddz_http_head_judge(&s->scan, s->buf, s->len, &h)) {
    case DDZ_HTTP_PARTIAL:
        return;
    case DDZ_HTTP_OK: {
        bool gone;
        if (read_body(s, &h, &gone))
            hand_over(s);
        (void)gone; /* else the body's rest is read as it comes (body_read) */
        return;
    }
    case DDZ_HTTP_TOO_LARGE:
        g->too_large++;
        refuse(s, answer_431, sizeof answer_431 - 1);
        return;
    case DDZ_HTTP_H2_PREFACE:
        g->h2c++;
        refuse(s, answer_h2, sizeof answer_h2);
        return;
    case DDZ_HTTP_H2C:
        g->h2c++;
        refuse(s, answer_h2c, sizeof answer_h2c - 1);
        return;
    default: /* what lws might read otherwise, or nothing served here */
        g->bad++;
        refuse(s, answer_400, sizeof answer_400 - 1);
        return;
    }
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

/* How expendable a pending socket is, among those of one tag: a refused
 * one lingering (answered already) first, then a head still being read,
 * then a request handed to lws and not yet answered. */
static int rank(const ddz_gate_sock *s)
{
    return s->state == S_LINGER ? 2 : s->state == S_HEAD ? 1 : 0;
}

/* The process nears its socket cap: a pending socket of the heaviest tag
 * (the one holding the most sockets; of its sockets, the most expendable,
 * then the oldest) is closed, so that one address's silent heads and
 * unanswered requests go before anyone else's. */
bool ddz_gate_shed_heaviest(ddz_gate *g)
{
    ddz_gate_sock *worst = NULL;
    long most = -1;
    int worst_rank = -1;
    ddz_gate_sock *const lists[] = {g->held, g->waiting};
    for (int l = 0; l < 2; l++)
        for (ddz_gate_sock *s = lists[l]; s; s = s->next) {
            long w = g->ops.weight ? g->ops.weight(g->ctx, s->tag) : 0;
            if (w > most || (w == most && rank(s) > worst_rank)) {
                most = w;
                worst = s;
                worst_rank = rank(s);
            }
        }
    /* an address with one socket is nobody's crowd: its head waits for
     * its (short) deadline */
    if (!worst || most <= 1)
        return false;
    g->shed++;
    if (worst->state == S_HANDED)
        kill_handed(worst);
    else
        drop(worst);
    return true;
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
 * when lws destroys its wsi. It stays bound by a deadline of `deadline_us`
 * from now (the handshake, the head and its answer: lws alone reads them)
 * until lws answers, and sheddable meanwhile. Returns 0, or -1 (lws
 * closed it). */
static int hand_now(ddz_gate *g, int fd, void *tag, int64_t deadline_us)
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
    /* lws does the handshake and reads the head, so the gate cannot judge
     * it; a CONNECT or anything else lws never answers is closed at the
     * deadline all the same (an HTTP/2 connection is answered once its
     * first stream is: ddz_gate_answered()) */
    *s = (ddz_gate_sock){.g = g, .fd = fd, .state = S_HANDED, .tag = tag, .wsi = wsi};
    lws_set_opaque_user_data(wsi, s);
    s->waiting = true;
    link_to(&g->waiting, &g->waiting_tail, &g->nwaiting, s);
    ddz_loop_arm(g->loop, &s->deadline, handed_late, deadline_us);
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
        ddz_gate_shed_heaviest(g);
    int64_t deadline_us = busy || crowded ? DDZ_GATE_BUSY_DEADLINE_US : DDZ_GATE_DEADLINE_US;
    if (g->tls || g->epfd < 0)
        return hand_now(g, fd, tag, deadline_us);
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
    ddz_loop_arm(g->loop, &s->deadline, head_late, deadline_us);
    return 0;
}

void ddz_gate_answered(ddz_gate *g, struct lws *wsi)
{
    /* an HTTP/2 stream answers for its connection (TLS with ALPN h2) */
    struct lws *conn = lws_get_network_wsi(wsi);
    ddz_gate_sock *s = lws_get_opaque_user_data(conn ? conn : wsi);
    /* inside lws_adopt_socket_vhost_readbuf() the new wsi has no opaque
     * pointer yet: the socket being handed over is the one answered */
    if (!s)
        s = g->handing;
    if (s && s->wsi && s->wsi != wsi && s->wsi != conn)
        return;
    if (!s || s->g != g || s->state != S_HANDED || s->answered)
        return;
    s->answered = true;
    stop_waiting(s);
}

void ddz_gate_extend(ddz_gate *g, struct lws *wsi, int64_t within_us)
{
    ddz_gate_sock *s = lws_get_opaque_user_data(wsi);
    if (!s && g->handing) { /* taken up inside the handover's own call */
        g->handing->extend_us = within_us;
        return;
    }
    if (!s || s->g != g || s->state != S_HANDED || s->wsi != wsi || !s->waiting)
        return;
    if (s->deadline.due_us - ddz_loop_now_us(g->loop) < within_us)
        ddz_loop_arm(g->loop, &s->deadline, handed_late, within_us);
}

void ddz_gate_wsi_destroyed(ddz_gate *g, struct lws *wsi)
{
    ddz_gate_sock *s = lws_get_opaque_user_data(wsi);
    /* h2 streams may carry their connection's opaque pointer: only the
     * connection's own wsi releases */
    if (!s || s->state != S_HANDED || s->wsi != wsi || s->g != g)
        return;
    stop_waiting(s);
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
    while (g->waiting) /* lws closes them with its context */
        stop_waiting(g->waiting);
    if (g->wsi) {
        lws_set_opaque_user_data(g->wsi, NULL);
        g->wsi = NULL; /* the context closes it with the others */
    } else if (g->epfd >= 0) {
        close(g->epfd);
    }
    g->epfd = -1;
}
