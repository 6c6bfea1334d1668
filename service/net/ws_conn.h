/* ws_conn.h - what every WebSocket connection of ours needs, written once
 * for the three programs that speak WebSocket: the server
 * (service/server/conn.c, server.c), `ddz bridge` and `ddz loadtest`.
 *
 *  - The outgoing queue (ddz_wsc_queue): messages in order, each stored
 *    with LWS_PRE bytes of headroom in front of its text, so that
 *    lws_write() puts the frame header there without a copy; bounded in
 *    bytes, a push past the bound is refused and the owner decides what
 *    that means (the server cuts a client that does not read).
 *  - The writer for LWS_CALLBACK_{SERVER,CLIENT}_WRITEABLE
 *    (ddz_wsc_write): writes what the socket takes now, stops where lws
 *    buffers (lws_partial_buffered(), the check lws documents for several
 *    writes in one callback) and asks for writable again for the rest.
 *  - The raw writer (ddz_wsc_write_raw): a server's plain connection
 *    writes its frames itself, all that wait in one sendmsg(), where
 *    and when its owner likes (the server: at the end of a turn of its
 *    loop), with no writable round trip.
 *  - Reassembly (ddz_wsc_rx): a message from the chunks lws hands over
 *    (a frame may come in several, a message in several frames), bounded
 *    in bytes as they arrive, not at the message's end (which a peer need
 *    never send).
 *  - A frame rate (ddz_wsc_rate): the token bucket with which the server
 *    limits what a client sends, and with which the bridge paces what it
 *    sends to stay below that limit.
 *
 * What stays its owner's policy, since only one program has it: the
 * server's store tickets (a message held until its write is durable: the
 * message's tag and the writer's may_go), its queued-bytes budget across
 * every connection and the shedding of the biggest queue (conn.c); what
 * the server does at a limit (ETOOLONG and close 1009, the flood close
 * 1008 past 200 frames over --rate, the ws_* metrics), its
 * unfinished-message deadline and idle pings (server.c); the bridge's
 * pacing below the server's rate (one message a callback, figures of its
 * own); the load test's send-time stamps (the writer's sent hook).
 *
 * Nothing here allocates but a push and a chunk taken; nothing here is
 * thread-safe (each connection lives on its loop's thread).
 */
#ifndef DDZ_WS_CONN_H
#define DDZ_WS_CONN_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the outgoing queue ---- */

#define DDZ_WSC_BINARY 1u  /* a message written as a binary frame (text otherwise) */
#define DDZ_WSC_OWNER 256u /* the first flag bit the queue's owner may use for itself */

typedef struct ddz_wsc_msg {
    struct ddz_wsc_msg *next;
    size_t len;          /* bytes of the message */
    uint64_t tag;        /* the owner's (the server's store ticket, the load test's slot) */
    unsigned flags;      /* DDZ_WSC_BINARY, and the owner's bits from DDZ_WSC_OWNER */
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the message */
} ddz_wsc_msg;

typedef struct ddz_wsc_queue {
    ddz_wsc_msg *head, *tail;
    size_t bytes;     /* of the messages queued (their headroom not counted) */
    size_t max_bytes; /* a push that would pass it is refused; SIZE_MAX: no bound */
    size_t off;       /* bytes of the head's frame ddz_wsc_write_raw() sent already */
} ddz_wsc_queue;

/* An empty queue of at most `max_bytes` bytes (SIZE_MAX: no bound). */
void ddz_wsc_queue_init(ddz_wsc_queue *q, size_t max_bytes);

/* Copies the `len` bytes at `data` to the end of `q`, with `tag` and
 * `flags` (kept for the owner, DDZ_WSC_BINARY read by ddz_wsc_write()).
 * Returns 0; DDZ_ENOSPC if the queue would then hold more than its bound,
 * DDZ_ENOMEM if no memory: then nothing is queued. */
int ddz_wsc_queue_push(ddz_wsc_queue *q, const void *data, size_t len, uint64_t tag,
                       unsigned flags);

/* Returns the first message of `q` (it stays queued), NULL if empty. */
static inline const ddz_wsc_msg *ddz_wsc_queue_peek(const ddz_wsc_queue *q)
{
    return q->head;
}

static inline bool ddz_wsc_queue_empty(const ddz_wsc_queue *q)
{
    return !q->head;
}

/* Takes the first message off `q`; the caller frees it (free()). Returns
 * NULL if the queue is empty. */
ddz_wsc_msg *ddz_wsc_queue_pop(ddz_wsc_queue *q);

/* Frees every message of `q`; it stays usable, empty, with its bound. */
void ddz_wsc_queue_clear(ddz_wsc_queue *q);

/* ---- writing on WRITEABLE ---- */

typedef struct ddz_wsc_writer {
    unsigned max; /* messages a call at most; 0: as many as the socket takes */
    bool cork;    /* two or more queued go out under TCP_CORK: one segment for the burst */
    /* Whether `m`, first in the queue, may be written now; NULL: all may.
     * One that may not ends the call, and nothing asks for writable for
     * it: its owner does once it may go. */
    bool (*may_go)(void *ctx, const ddz_wsc_msg *m);
    /* Told of each message taken off the queue once lws_write() was called
     * on it (`n`: what that returned, negative if it failed), before it is
     * freed; NULL: nobody is. */
    void (*sent)(void *ctx, const ddz_wsc_msg *m, int n);
    void *ctx; /* for may_go and sent */
} ddz_wsc_writer;

/* Writes the messages at the head of `q` on `wsi` (call it from the
 * WRITEABLE callback), as `w` says: until the queue is empty, a message
 * may not go yet, `w->max` were written, or lws holds back what the
 * socket did not take (lws_partial_buffered()); in the last two cases, if
 * messages remain, asks lws for writable again. Every message written is
 * freed. Returns how many were written, or DDZ_EIO when lws_write()
 * failed (the connection is to close: return -1 from the callback). */
int ddz_wsc_write(struct lws *wsi, ddz_wsc_queue *q, const ddz_wsc_writer *w);

/* ---- writing on the socket itself (a server's plain connections) ---- */

enum {
    DDZ_WSC_RAW_DONE = 0,    /* nothing left that may go: the queue is empty or its head waits */
    DDZ_WSC_RAW_BLOCKED = 1, /* the socket took what it could: ask for writable for the rest */
};

/* Writes the messages at the head of `q` that may go (`w->may_go`) as a
 * server's WebSocket frames (FIN, unmasked, no extension) straight to the
 * socket `fd`, many in one sendmsg(): at a table's move each recipient's
 * two or three frames leave in one system call, with no round trip
 * through the event loop for writable and no cork. A frame the socket
 * took in part is finished first by the next call (q->off), so nothing
 * else may be written on the connection between (lws_write() of a ping or
 * a close only while q->off is 0). Only for a connection without TLS
 * whose lws has nothing buffered of its own (lws_partial_buffered() 0):
 * lws does not see these bytes. Each message sent whole is taken off,
 * told to `w->sent` with its length, and freed; `w->max` and `w->cork`
 * are not used. Returns DDZ_WSC_RAW_DONE, DDZ_WSC_RAW_BLOCKED, or DDZ_EIO
 * when the socket failed (the peer is gone: close the connection). */
int ddz_wsc_write_raw(int fd, ddz_wsc_queue *q, const ddz_wsc_writer *w);

/* ---- reassembly ---- */

enum {
    DDZ_WSC_MORE = 0,     /* the message goes on: wait for its next chunk */
    DDZ_WSC_COMPLETE = 1, /* the message is whole in rx->buf, rx->len */
};

typedef struct ddz_wsc_rx {
    char *buf;     /* the message so far; NUL-terminated once complete */
    size_t len;    /* its bytes */
    size_t cap;    /* buf's size */
    size_t max;    /* the largest message taken, bytes; SIZE_MAX: no bound */
    bool in_frame; /* lws has more of the current frame to hand over */
    bool complete; /* buf holds a whole message: the next chunk begins another */
} ddz_wsc_rx;

/* An empty reassembly of messages of at most `max` bytes. */
void ddz_wsc_rx_init(ddz_wsc_rx *rx, size_t max);

/* Whether the next chunk is the first of a frame (a fragment or a whole
 * message): the server's rate is counted in frames. */
static inline bool ddz_wsc_rx_frame_starts(const ddz_wsc_rx *rx)
{
    return !rx->in_frame;
}

/* Takes the next `len` bytes at `in` of the message being received:
 * `frame_ends` when they end their frame (lws_remaining_packet_payload()
 * is 0), `final` when that frame is its message's last (lws_is_final_fragment()).
 * Returns DDZ_WSC_COMPLETE when the message is whole (rx->buf, rx->len,
 * valid until the next call), DDZ_WSC_MORE when it goes on, DDZ_ETOOLONG
 * when it would pass rx->max bytes, DDZ_ENOMEM if no memory (in both the
 * chunk is not taken: close the connection). */
int ddz_wsc_rx_take(ddz_wsc_rx *rx, const void *in, size_t len, bool frame_ends, bool final);

/* ddz_wsc_rx_take() with the flags as lws reports them for the chunk a
 * RECEIVE callback of `wsi` hands over. Returns as that does. */
int ddz_wsc_rx_take_lws(ddz_wsc_rx *rx, struct lws *wsi, const void *in, size_t len);

/* Forgets a message begun (the connection it came on is gone); the buffer
 * is kept for the next. */
void ddz_wsc_rx_reset(ddz_wsc_rx *rx);

/* Frees the buffer; `rx` is then as ddz_wsc_rx_init() left it. */
void ddz_wsc_rx_free(ddz_wsc_rx *rx);

/* ---- a frame rate ---- */

typedef struct ddz_wsc_rate {
    double tokens; /* frames that may go (or come) at `at_us` */
    int64_t at_us; /* when `tokens` was last brought up to date */
} ddz_wsc_rate;

/* A full bucket of `burst` frames as of `now_us`. */
void ddz_wsc_rate_init(ddz_wsc_rate *r, double burst, int64_t now_us);

/* Takes one frame at `now_us` from `r`, which gains `rate` frames a second
 * (> 0) and holds `burst` at most. Returns 0 if taken, or the
 * microseconds until one will be there (> 0: nothing taken). */
int64_t ddz_wsc_rate_take(ddz_wsc_rate *r, double rate, double burst, int64_t now_us);

#endif
