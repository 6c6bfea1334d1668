/* ws_conn.c - a WebSocket connection's queue, writer and reassembly
 * (ws_conn.h). */
#include "service/net/ws_conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "rules/error.h"

/* ---- the outgoing queue ---- */

void ddz_wsc_queue_init(ddz_wsc_queue *q, size_t max_bytes)
{
    q->head = q->tail = NULL;
    q->bytes = 0;
    q->max_bytes = max_bytes;
    q->off = 0;
}

int ddz_wsc_queue_push(ddz_wsc_queue *q, const void *data, size_t len, uint64_t tag, unsigned flags)
{
    if (len > q->max_bytes - q->bytes) /* bytes <= max_bytes always: no wrap */
        return DDZ_ENOSPC;
    if (len > SIZE_MAX - sizeof(ddz_wsc_msg) - LWS_PRE)
        return DDZ_ENOMEM;
    ddz_wsc_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return DDZ_ENOMEM;
    m->next = NULL;
    m->len = len;
    m->tag = tag;
    m->flags = flags;
    if (len)
        memcpy(m->buf + LWS_PRE, data, len);
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    q->bytes += len;
    return 0;
}

ddz_wsc_msg *ddz_wsc_queue_pop(ddz_wsc_queue *q)
{
    ddz_wsc_msg *m = q->head;
    if (!m)
        return NULL;
    q->head = m->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= m->len;
    q->off = 0; /* a new head: none of it written */
    m->next = NULL;
    return m;
}

void ddz_wsc_queue_clear(ddz_wsc_queue *q)
{
    for (ddz_wsc_msg *m = q->head, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    q->head = q->tail = NULL;
    q->bytes = 0;
    q->off = 0;
}

/* ---- writing on WRITEABLE ---- */

int ddz_wsc_write(struct lws *wsi, ddz_wsc_queue *q, const ddz_wsc_writer *w)
{
    /* Corked, a burst of frames leaves as one segment instead of one per
     * frame: at 10,000 connections that halved the server's sends and the
     * clients' reads (a move sends each player two or three frames). */
    int fd = w->cork && q->head && q->head->next ? (int)lws_get_socket_fd(wsi) : -1;
    int on = 1, off = 0;
    bool corked = fd >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on) == 0;
    int written = 0, rc = 0;
    while (q->head && (!w->may_go || w->may_go(w->ctx, q->head))) {
        ddz_wsc_msg *m = ddz_wsc_queue_pop(q);
        int n = lws_write(wsi, m->buf + LWS_PRE, m->len,
                          m->flags & DDZ_WSC_BINARY ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
        if (w->sent)
            w->sent(w->ctx, m, n);
        free(m);
        if (n < 0) {
            rc = DDZ_EIO;
            break;
        }
        written++;
        /* lws keeps what the kernel did not take and says so with a flag
         * (lws_send_pipe_choked() would cost a poll() a message): the rest
         * waits for the next callback */
        if (q->head && (lws_partial_buffered(wsi) || (w->max && (unsigned)written >= w->max))) {
            lws_callback_on_writable(wsi);
            break;
        }
    }
    if (corked) /* sends what the cork holds at once */
        setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    return rc < 0 ? rc : written;
}

/* ---- writing on the socket itself ---- */

/* The most frames one sendmsg() is given (each its own iovec). */
#define RAW_IOV 64

_Static_assert(LWS_PRE >= 10, "a frame's header fits in a message's headroom");

/* Writes the header of `m`'s frame as a server sends it (FIN, text or
 * binary, no mask: RFC 6455 5.2) into the headroom just before its text,
 * as lws_write() would. Returns where the frame starts; its length in
 * *len. */
static unsigned char *frame_of(ddz_wsc_msg *m, size_t *len)
{
    unsigned char *text = m->buf + LWS_PRE, *p;
    size_t n = m->len;
    if (n < 126) {
        p = text - 2;
        p[1] = (unsigned char)n;
    } else if (n <= 0xffff) {
        p = text - 4;
        p[1] = 126;
        p[2] = (unsigned char)(n >> 8);
        p[3] = (unsigned char)n;
    } else {
        p = text - 10;
        p[1] = 127;
        for (int i = 0; i < 8; i++)
            p[2 + i] = (unsigned char)((uint64_t)n >> (56 - 8 * i));
    }
    p[0] = 0x80 | (m->flags & DDZ_WSC_BINARY ? 0x2 : 0x1);
    *len = (size_t)(text - p) + n;
    return p;
}

int ddz_wsc_write_raw(int fd, ddz_wsc_queue *q, const ddz_wsc_writer *w)
{
    for (;;) {
        struct iovec iov[RAW_IOV];
        int n = 0;
        for (ddz_wsc_msg *m = q->head; m && n < RAW_IOV; m = m->next) {
            /* a frame begun goes on whatever may_go says: the stream is
             * in the middle of it */
            if (!(m == q->head && q->off) && w->may_go && !w->may_go(w->ctx, m))
                break;
            size_t len;
            unsigned char *f = frame_of(m, &len);
            size_t skip = m == q->head ? q->off : 0;
            iov[n].iov_base = f + skip;
            iov[n].iov_len = len - skip;
            n++;
        }
        if (!n)
            return DDZ_WSC_RAW_DONE;
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t put = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? DDZ_WSC_RAW_BLOCKED : DDZ_EIO;
        }
        size_t left = (size_t)put;
        for (int i = 0; i < n; i++) {
            if (left < iov[i].iov_len) { /* the rest of this frame waits */
                q->off += left;
                return DDZ_WSC_RAW_BLOCKED;
            }
            left -= iov[i].iov_len;
            ddz_wsc_msg *m = ddz_wsc_queue_pop(q);
            if (w->sent)
                w->sent(w->ctx, m, (int)m->len);
            free(m);
        }
    }
}

/* ---- reassembly ---- */

void ddz_wsc_rx_init(ddz_wsc_rx *rx, size_t max)
{
    memset(rx, 0, sizeof *rx);
    rx->max = max;
}

int ddz_wsc_rx_take(ddz_wsc_rx *rx, const void *in, size_t len, bool frame_ends, bool final)
{
    if (rx->complete) { /* the last message was handed over: this begins the next */
        rx->len = 0;
        rx->complete = false;
    }
    rx->in_frame = !frame_ends;
    if (len > rx->max - rx->len) /* len <= max always: no wrap */
        return DDZ_ETOOLONG;
    if (len >= SIZE_MAX - rx->len)
        return DDZ_ENOMEM;
    size_t need = rx->len + len + 1; /* and the NUL */
    if (need > rx->cap) {
        /* doubling, so that a message of many small chunks is not copied
         * once a chunk, but never past what the bound can use */
        size_t limit = rx->max < SIZE_MAX - 1 ? rx->max + 1 : SIZE_MAX;
        size_t cap = rx->cap > limit / 2 ? limit : 2 * rx->cap;
        if (cap < need)
            cap = need;
        char *nb = realloc(rx->buf, cap);
        if (!nb)
            return DDZ_ENOMEM;
        rx->buf = nb;
        rx->cap = cap;
    }
    if (len)
        memcpy(rx->buf + rx->len, in, len);
    rx->len += len;
    rx->buf[rx->len] = '\0';
    if (!frame_ends || !final)
        return DDZ_WSC_MORE;
    rx->complete = true;
    return DDZ_WSC_COMPLETE;
}

int ddz_wsc_rx_take_lws(ddz_wsc_rx *rx, struct lws *wsi, const void *in, size_t len)
{
    return ddz_wsc_rx_take(rx, in, len, lws_remaining_packet_payload(wsi) == 0,
                           lws_is_final_fragment(wsi) != 0);
}

void ddz_wsc_rx_reset(ddz_wsc_rx *rx)
{
    rx->len = 0;
    rx->in_frame = false;
    rx->complete = false;
}

void ddz_wsc_rx_free(ddz_wsc_rx *rx)
{
    free(rx->buf);
    ddz_wsc_rx_init(rx, rx->max);
}

/* ---- a frame rate ---- */

void ddz_wsc_rate_init(ddz_wsc_rate *r, double burst, int64_t now_us)
{
    r->tokens = burst;
    r->at_us = now_us;
}

int64_t ddz_wsc_rate_take(ddz_wsc_rate *r, double rate, double burst, int64_t now_us)
{
    r->tokens += (double)(now_us - r->at_us) / 1e6 * rate;
    if (r->tokens > burst)
        r->tokens = burst;
    r->at_us = now_us;
    if (r->tokens < 1)
        return (int64_t)((1 - r->tokens) / rate * 1e6) + 1;
    r->tokens -= 1;
    return 0;
}
