/* test_ws_conn.c - the WebSocket connection module (service/net/ws_conn.h).
 * Without a socket: the queue's order, bytes, headroom and bound (a push
 * past it refused, nothing queued); the reassembly of a message from many
 * chunks and frames, its size limit at the exact byte, a message after a
 * complete one or a reset; the frame rate. Over a loopback connection:
 * the writer (below), and the raw writer (a server's frames written on
 * the socket itself) read by lws's client and byte by byte. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/net/ws_conn.h"

static void push_text(ddz_wsc_queue *q, const char *s, uint64_t tag)
{
    cr_assert_eq(ddz_wsc_queue_push(q, s, strlen(s), tag, 0), 0, "push %s", s);
}

Test(ws_conn, queue_keeps_order_tags_and_bytes)
{
    ddz_wsc_queue q;
    ddz_wsc_queue_init(&q, SIZE_MAX);
    cr_assert(ddz_wsc_queue_empty(&q));
    cr_assert_null(ddz_wsc_queue_peek(&q));
    cr_assert_null(ddz_wsc_queue_pop(&q));
    char text[16];
    size_t bytes = 0;
    for (int i = 0; i < 100; i++) {
        snprintf(text, sizeof text, "m%d", i);
        push_text(&q, text, (uint64_t)i + 1);
        bytes += strlen(text);
        cr_assert_eq(q.bytes, bytes);
    }
    cr_assert_eq(ddz_wsc_queue_push(&q, "bin", 3, 7, DDZ_WSC_BINARY | DDZ_WSC_OWNER), 0);
    bytes += 3;
    for (int i = 0; i < 100; i++) {
        const ddz_wsc_msg *p = ddz_wsc_queue_peek(&q);
        cr_assert_not_null(p);
        ddz_wsc_msg *m = ddz_wsc_queue_pop(&q);
        cr_assert_eq(m, p, "peek shows what pop takes");
        snprintf(text, sizeof text, "m%d", i);
        cr_assert_eq(m->len, strlen(text));
        /* the text sits after LWS_PRE bytes of headroom */
        cr_assert(memcmp(m->buf + LWS_PRE, text, m->len) == 0, "message %d", i);
        cr_assert_eq(m->tag, (uint64_t)i + 1);
        cr_assert_eq(m->flags, 0u);
        bytes -= m->len;
        cr_assert_eq(q.bytes, bytes);
        free(m);
    }
    ddz_wsc_msg *m = ddz_wsc_queue_pop(&q);
    cr_assert_eq(m->flags, DDZ_WSC_BINARY | DDZ_WSC_OWNER);
    cr_assert_eq(m->tag, 7);
    free(m);
    cr_assert(ddz_wsc_queue_empty(&q));
    cr_assert_eq(q.bytes, 0);
    cr_assert_null(q.tail);
    /* usable again once emptied */
    push_text(&q, "again", 0);
    cr_assert_eq(q.head, q.tail);
    ddz_wsc_queue_clear(&q);
}

Test(ws_conn, queue_refuses_past_its_bound)
{
    ddz_wsc_queue q;
    ddz_wsc_queue_init(&q, 10);
    push_text(&q, "abcd", 1);
    push_text(&q, "efgh", 2);
    /* 8 + 3 > 10: refused, and the queue is as it was */
    cr_assert_eq(ddz_wsc_queue_push(&q, "ijk", 3, 3, 0), DDZ_ENOSPC);
    cr_assert_eq(q.bytes, 8);
    cr_assert_eq(q.tail->tag, 2);
    /* exactly to the bound is within it */
    cr_assert_eq(ddz_wsc_queue_push(&q, "ij", 2, 4, 0), 0);
    cr_assert_eq(q.bytes, 10);
    cr_assert_eq(ddz_wsc_queue_push(&q, "k", 1, 5, 0), DDZ_ENOSPC);
    /* a message larger than the bound never goes in, even when empty */
    ddz_wsc_queue_clear(&q);
    cr_assert_eq(q.bytes, 0);
    cr_assert(ddz_wsc_queue_empty(&q));
    cr_assert_eq(ddz_wsc_queue_push(&q, "0123456789x", 11, 0, 0), DDZ_ENOSPC);
    cr_assert(ddz_wsc_queue_empty(&q));
    /* popping makes room again */
    push_text(&q, "01234", 0);
    push_text(&q, "56789", 0);
    cr_assert_eq(ddz_wsc_queue_push(&q, "x", 1, 0, 0), DDZ_ENOSPC);
    free(ddz_wsc_queue_pop(&q));
    cr_assert_eq(ddz_wsc_queue_push(&q, "x", 1, 0, 0), 0);
    cr_assert_eq(q.bytes, 6);
    ddz_wsc_queue_clear(&q);
    cr_assert_eq(q.max_bytes, 10, "the bound stays");
}

Test(ws_conn, one_frame_one_chunk)
{
    ddz_wsc_rx rx;
    ddz_wsc_rx_init(&rx, 100);
    cr_assert(ddz_wsc_rx_frame_starts(&rx));
    cr_assert_eq(ddz_wsc_rx_take(&rx, "{\"a\":1}", 7, true, true), DDZ_WSC_COMPLETE);
    cr_assert_eq(rx.len, 7);
    cr_assert_str_eq(rx.buf, "{\"a\":1}");
    /* the next chunk begins a new message */
    cr_assert_eq(ddz_wsc_rx_take(&rx, "xy", 2, true, true), DDZ_WSC_COMPLETE);
    cr_assert_str_eq(rx.buf, "xy");
    /* an empty message is a message */
    cr_assert_eq(ddz_wsc_rx_take(&rx, "", 0, true, true), DDZ_WSC_COMPLETE);
    cr_assert_eq(rx.len, 0);
    cr_assert_str_eq(rx.buf, "");
    ddz_wsc_rx_free(&rx);
    cr_assert_null(rx.buf);
    cr_assert_eq(rx.max, 100);
}

/* A message of 1,000 frames, each handed over in three chunks, as lws
 * does a frame larger than what it reads at once. */
Test(ws_conn, many_fragments_make_one_message)
{
    ddz_wsc_rx rx;
    ddz_wsc_rx_init(&rx, 1 << 20);
    char want[8000], *w = want;
    for (int f = 0; f < 1000; f++) {
        char frame[16]; /* 7 digits; room for what -O1 cannot rule out */
        snprintf(frame, sizeof frame, "%07d", f * 7 % 10000000);
        bool last = f == 999;
        for (int c = 0; c < 3; c++) {
            const char *part = frame + (c == 0 ? 0 : c == 1 ? 2 : 5);
            size_t n = c == 0 ? 2 : c == 1 ? 3 : 2;
            cr_assert_eq(ddz_wsc_rx_frame_starts(&rx), c == 0, "frame %d chunk %d", f, c);
            int st = ddz_wsc_rx_take(&rx, part, n, c == 2, last);
            if (last && c == 2)
                cr_assert_eq(st, DDZ_WSC_COMPLETE);
            else
                cr_assert_eq(st, DDZ_WSC_MORE, "frame %d chunk %d", f, c);
        }
        memcpy(w, frame, 7);
        w += 7;
    }
    cr_assert_eq(rx.len, 7000);
    cr_assert(memcmp(rx.buf, want, 7000) == 0);
    cr_assert_eq(rx.buf[7000], '\0');
    /* the buffer grows by doubling, never past the bound's use */
    cr_assert_leq(rx.cap, 2 * 7001);
    ddz_wsc_rx_free(&rx);
}

Test(ws_conn, size_limit_at_the_exact_byte)
{
    ddz_wsc_rx rx;
    ddz_wsc_rx_init(&rx, 10);
    char ten[10];
    memset(ten, 'x', sizeof ten);
    /* exactly the bound, in two frames */
    cr_assert_eq(ddz_wsc_rx_take(&rx, ten, 6, true, false), DDZ_WSC_MORE);
    cr_assert_eq(ddz_wsc_rx_take(&rx, ten, 4, true, true), DDZ_WSC_COMPLETE);
    cr_assert_eq(rx.len, 10);
    cr_assert_leq(rx.cap, 11, "no more than the bound and its NUL");
    /* one byte over, counted as the bytes come: the chunk is not taken */
    cr_assert_eq(ddz_wsc_rx_take(&rx, ten, 6, false, false), DDZ_WSC_MORE);
    cr_assert_eq(ddz_wsc_rx_take(&rx, ten, 5, true, true), DDZ_ETOOLONG);
    cr_assert_eq(rx.len, 6);
    /* a single chunk over the bound */
    ddz_wsc_rx_reset(&rx);
    cr_assert_eq(rx.len, 0);
    cr_assert(ddz_wsc_rx_frame_starts(&rx));
    char big[11];
    memset(big, 'y', sizeof big);
    cr_assert_eq(ddz_wsc_rx_take(&rx, big, 11, true, true), DDZ_ETOOLONG);
    ddz_wsc_rx_free(&rx);
}

Test(ws_conn, reset_forgets_a_message_begun)
{
    ddz_wsc_rx rx;
    ddz_wsc_rx_init(&rx, SIZE_MAX);
    cr_assert_eq(ddz_wsc_rx_take(&rx, "half", 4, false, false), DDZ_WSC_MORE);
    cr_assert_not(ddz_wsc_rx_frame_starts(&rx));
    ddz_wsc_rx_reset(&rx); /* the connection was lost */
    cr_assert(ddz_wsc_rx_frame_starts(&rx));
    cr_assert_eq(ddz_wsc_rx_take(&rx, "new", 3, true, true), DDZ_WSC_COMPLETE);
    cr_assert_str_eq(rx.buf, "new");
    ddz_wsc_rx_free(&rx);
}

Test(ws_conn, rate_bursts_then_refills)
{
    ddz_wsc_rate r;
    ddz_wsc_rate_init(&r, 4, 1000000);
    /* a full burst at once, then nothing */
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_wsc_rate_take(&r, 2, 4, 1000000), 0, "frame %d of the burst", i);
    int64_t wait = ddz_wsc_rate_take(&r, 2, 4, 1000000);
    /* two frames a second: the next one in half a second */
    cr_assert_geq(wait, 500000);
    cr_assert_leq(wait, 500001);
    cr_assert_gt(ddz_wsc_rate_take(&r, 2, 4, 1000000 + 499000), 0, "not yet");
    cr_assert_eq(ddz_wsc_rate_take(&r, 2, 4, 1000000 + wait), 0, "when it said");
    /* a long pause refills no more than the burst */
    int64_t later = 100 * 1000000LL;
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_wsc_rate_take(&r, 2, 4, later), 0, "frame %d after the pause", i);
    cr_assert_gt(ddz_wsc_rate_take(&r, 2, 4, later), 0);
}

/* A steady sender at the rate is never refused; one twice as fast is
 * refused about half the time once its burst is spent. */
Test(ws_conn, rate_holds_its_rate)
{
    ddz_wsc_rate r;
    ddz_wsc_rate_init(&r, 40, 0);
    int64_t t = 0;
    for (int i = 0; i < 1000; i++, t += 50000) /* 20 a second */
        cr_assert_eq(ddz_wsc_rate_take(&r, 20, 40, t), 0, "frame %d", i);
    int refused = 0;
    for (int i = 0; i < 2000; i++, t += 25000) /* 40 a second */
        refused += ddz_wsc_rate_take(&r, 20, 40, t) > 0;
    cr_assert(refused >= 960 && refused <= 1000, "refused %d of 2000", refused);
}

/* ---- the writer, over a real connection ----
 *
 * One lws context is both ends, on loopback: the server's side writes its
 * queue with ddz_wsc_write(), the client's reassembles with
 * ddz_wsc_rx_take_lws() (lws's own flags, and a message large enough to
 * come in many chunks). The writer must keep the order, write a binary
 * message as binary, stop at a message may_go holds, write one a call
 * under max = 1 (asking for writable itself for the rest), and tell its
 * sent hook of each message written. */

#define BIG (100 * 1000) /* more than lws's rx buffer (4096): many chunks */

typedef struct wpair {
    ddz_wsc_queue q;     /* the server's side */
    bool raw;            /* ... written with ddz_wsc_write_raw() */
    struct lws *srv_wsi; /* the server's side of the connection */
    bool released;       /* may_go lets the held message (tag 1) go */
    unsigned max;        /* the writer's max once released */
    int sent;            /* messages the sent hook was told of */
    int sent_at_release; /* ... when the held one was let go */
    uint64_t sent_tags[8];
    int writes_after; /* WRITEABLE callbacks that wrote something once released */
    ddz_wsc_rx rx;    /* the client's side */
    char got[8][16];  /* the first bytes of each message received */
    size_t got_len[8];
    bool got_binary[8];
    int ngot;
    bool failed;
} wpair;

static wpair *pair_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

static bool test_may_go(void *ctx, const ddz_wsc_msg *m)
{
    wpair *p = ctx;
    return m->tag != 1 || p->released;
}

static void test_sent(void *ctx, const ddz_wsc_msg *m, int n)
{
    wpair *p = ctx;
    if (n < 0)
        p->failed = true;
    if (p->sent < 8)
        p->sent_tags[p->sent] = m->tag;
    p->sent++;
}

static int test_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    wpair *p = pair_of(wsi);
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        p->srv_wsi = wsi;
        if (p->raw) { /* a small send buffer: the big frame goes in many writes */
            int small = 4096;
            setsockopt((int)lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
        }
        static char big[BIG];
        memset(big, 'b', sizeof big);
        ddz_wsc_queue_push(&p->q, "first", 5, 0, 0);
        ddz_wsc_queue_push(&p->q, "\x01\x02", 2, 0, DDZ_WSC_BINARY);
        ddz_wsc_queue_push(&p->q, "held", 4, 1, 0);
        ddz_wsc_queue_push(&p->q, "after", 5, 2, 0);
        ddz_wsc_queue_push(&p->q, big, sizeof big, 3, 0);
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        bool released = p->released;
        ddz_wsc_writer w = {
            .max = released ? p->max : 0, .may_go = test_may_go, .sent = test_sent, .ctx = p};
        int before = p->sent, n;
        if (p->raw) {
            n = ddz_wsc_write_raw((int)lws_get_socket_fd(wsi), &p->q, &w);
            if (n == DDZ_WSC_RAW_BLOCKED)
                lws_callback_on_writable(wsi);
        } else {
            n = ddz_wsc_write(wsi, &p->q, &w);
        }
        if (n < 0)
            return -1;
        if (released && p->sent > before)
            p->writes_after++;
        return 0;
    }
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        int st = ddz_wsc_rx_take_lws(&p->rx, wsi, in, len);
        if (st < 0)
            p->failed = true;
        if (st != DDZ_WSC_COMPLETE || p->ngot >= 8)
            return 0;
        int i = p->ngot++;
        p->got_len[i] = p->rx.len;
        p->got_binary[i] = lws_frame_is_binary(wsi);
        memcpy(p->got[i], p->rx.buf, p->rx.len < 15 ? p->rx.len : 15);
        if (p->ngot == 2) { /* all that may go has come: let the held one go */
            p->sent_at_release = p->sent;
            p->released = true;
            lws_callback_on_writable(p->srv_wsi);
        }
        return 0;
    }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        p->failed = true;
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void run_pair(wpair *p)
{
    static const struct lws_protocols protocols[] = {{"wsc-test", test_cb, 0, 4096, 0, NULL, 0},
                                                     {NULL, NULL, 0, 0, 0, NULL, 0}};
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = 0; /* any free port */
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.user = p;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    struct lws_context *ctx = lws_create_context(&info);
    cr_assert_not_null(ctx);
    struct lws_vhost *vh = lws_create_vhost(ctx, &info);
    cr_assert_not_null(vh);
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = ctx;
    ci.vhost = vh;
    ci.address = "127.0.0.1";
    ci.port = lws_get_vhost_listen_port(vh);
    ci.path = "/";
    ci.host = "127.0.0.1";
    ci.origin = "127.0.0.1";
    ci.protocol = "wsc-test";
    ci.local_protocol_name = "wsc-test";
    cr_assert_not_null(lws_client_connect_via_info(&ci));
    /* bounded: a hang is a failure */
    for (int i = 0; i < 2000 && p->ngot < 5 && !p->failed; i++)
        lws_service(ctx, 10);
    lws_context_destroy(ctx);
}

static void check_pair(const wpair *p)
{
    cr_assert_not(p->failed);
    cr_assert_eq(p->ngot, 5, "messages received: %d", p->ngot);
    cr_assert_eq(p->got_len[0], 5);
    cr_assert(memcmp(p->got[0], "first", 5) == 0);
    cr_assert_not(p->got_binary[0]);
    cr_assert_eq(p->got_len[1], 2);
    cr_assert(p->got_binary[1], "DDZ_WSC_BINARY goes as a binary frame");
    cr_assert_eq(p->sent_at_release, 2,
                 "nothing from the held message on went before it was let go");
    cr_assert(memcmp(p->got[2], "held", 4) == 0, "the held message, once let go, first");
    cr_assert(memcmp(p->got[3], "after", 5) == 0);
    cr_assert_eq(p->got_len[4], BIG, "the large message whole: %zu", p->got_len[4]);
    cr_assert(memcmp(p->got[4], "bbbbbbbbbbbbbbb", 15) == 0);
    cr_assert_eq(p->sent, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(p->sent_tags[i], i < 2 ? 0 : (uint64_t)i - 1, "the sent hook in order");
    cr_assert(ddz_wsc_queue_empty(&p->q));
}

Test(ws_conn, writer_holds_then_writes_in_order)
{
    wpair *p = calloc(1, sizeof *p);
    ddz_wsc_queue_init(&p->q, SIZE_MAX);
    ddz_wsc_rx_init(&p->rx, 2 * BIG);
    run_pair(p);
    check_pair(p);
    /* no max: what was let go went in the one callback asked for */
    cr_assert_eq(p->writes_after, 1);
    ddz_wsc_queue_clear(&p->q);
    ddz_wsc_rx_free(&p->rx);
    free(p);
}

Test(ws_conn, writer_max_one_asks_for_writable_again)
{
    wpair *p = calloc(1, sizeof *p);
    ddz_wsc_queue_init(&p->q, SIZE_MAX);
    ddz_wsc_rx_init(&p->rx, 2 * BIG);
    p->max = 1;
    run_pair(p);
    check_pair(p);
    /* one a callback: the writer asked for the next itself */
    cr_assert_eq(p->writes_after, 3);
    ddz_wsc_queue_clear(&p->q);
    ddz_wsc_rx_free(&p->rx);
    free(p);
}

Test(ws_conn, raw_writer_frames_read_by_lws)
{
    wpair *p = calloc(1, sizeof *p);
    ddz_wsc_queue_init(&p->q, SIZE_MAX);
    ddz_wsc_rx_init(&p->rx, 2 * BIG);
    p->raw = true;
    run_pair(p);
    check_pair(p);
    cr_assert_eq(p->q.off, 0);
    ddz_wsc_queue_clear(&p->q);
    ddz_wsc_rx_free(&p->rx);
    free(p);
}

/* ---- the raw writer, byte by byte ---- */

static void raw_sent(void *ctx, const ddz_wsc_msg *m, int n)
{
    (void)m;
    cr_assert_geq(n, 0);
    (*(int *)ctx)++;
}

/* Reads one frame from buf[*at..len): its opcode byte and payload. */
static size_t frame_at(const unsigned char *buf, size_t len, size_t *at, unsigned char *op,
                       const unsigned char **payload)
{
    cr_assert_leq(*at + 2, len);
    const unsigned char *f = buf + *at;
    *op = f[0];
    cr_assert_eq(f[1] & 0x80, 0, "a server's frame is not masked");
    size_t n = f[1] & 0x7f, h = 2;
    if (n == 126) {
        n = (size_t)f[2] << 8 | f[3];
        h = 4;
    } else if (n == 127) {
        n = 0;
        for (int i = 0; i < 8; i++)
            n = n << 8 | f[2 + i];
        h = 10;
    }
    cr_assert_leq(*at + h + n, len);
    *payload = f + h;
    *at += h + n;
    return n;
}

/* Three sizes (each length encoding of RFC 6455), a binary one, a message
 * held by may_go, through a socket that takes a few kilobytes at a time:
 * BLOCKED with the rest kept (q->off), every byte once, in order. */
Test(ws_conn, raw_writer_partial_writes_keep_every_frame_whole)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 2048;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    static const size_t sizes[] = {5, 200, 70000, 125, 126, 65535, 65536};
    enum { N = sizeof sizes / sizeof sizes[0] };
    ddz_wsc_queue q;
    ddz_wsc_queue_init(&q, SIZE_MAX);
    static char body[70000];
    for (size_t i = 0; i < N; i++) {
        memset(body, 'a' + (int)i, sizes[i]);
        cr_assert_eq(ddz_wsc_queue_push(&q, body, sizes[i], 0, i == 1 ? DDZ_WSC_BINARY : 0), 0);
    }
    int sent = 0;
    ddz_wsc_writer w = {.sent = raw_sent, .ctx = &sent};
    size_t cap = 400000, len = 0;
    unsigned char *got = malloc(cap);
    int blocked = 0, rc;
    for (int round = 0; round < 100000; round++) {
        rc = ddz_wsc_write_raw(sv[0], &q, &w);
        cr_assert_geq(rc, 0, "write_raw: %d", rc);
        if (rc == DDZ_WSC_RAW_DONE)
            break;
        blocked++;
        ssize_t n = read(sv[1], got + len, 1500); /* the peer reads a little */
        cr_assert_gt(n, 0);
        len += (size_t)n;
    }
    cr_assert_eq(rc, DDZ_WSC_RAW_DONE);
    cr_assert_gt(blocked, 10, "the socket took it in parts (%d)", blocked);
    cr_assert(ddz_wsc_queue_empty(&q));
    cr_assert_eq(q.off, 0);
    cr_assert_eq(sent, N);
    shutdown(sv[0], SHUT_WR);
    for (ssize_t n; (n = read(sv[1], got + len, cap - len)) > 0;)
        len += (size_t)n;
    size_t at = 0;
    for (size_t i = 0; i < N; i++) {
        unsigned char op;
        const unsigned char *pl;
        size_t n = frame_at(got, len, &at, &op, &pl);
        cr_assert_eq(op, i == 1 ? 0x82 : 0x81, "frame %zu: FIN and its opcode (%#x)", i, op);
        cr_assert_eq(n, sizes[i], "frame %zu: %zu bytes", i, n);
        for (size_t k = 0; k < n; k++)
            cr_assert_eq(pl[k], 'a' + (int)i, "frame %zu byte %zu", i, k);
    }
    cr_assert_eq(at, len, "nothing after the last frame");
    free(got);
    close(sv[0]);
    close(sv[1]);
}

static bool hold_tag_1(void *ctx, const ddz_wsc_msg *m)
{
    return m->tag != 1 || *(bool *)ctx;
}

/* A message may_go holds stops the write there, until it may go; a
 * closed peer is DDZ_EIO. */
Test(ws_conn, raw_writer_stops_at_a_held_message_and_fails_on_a_closed_peer)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ddz_wsc_queue q;
    ddz_wsc_queue_init(&q, SIZE_MAX);
    push_text(&q, "one", 0);
    push_text(&q, "two", 1);
    bool release = false;
    ddz_wsc_writer w = {.may_go = hold_tag_1, .ctx = &release};
    cr_assert_eq(ddz_wsc_write_raw(sv[0], &q, &w), DDZ_WSC_RAW_DONE);
    unsigned char buf[64];
    cr_assert_eq(read(sv[1], buf, sizeof buf), 5);
    cr_assert(memcmp(buf, "\x81\x03one", 5) == 0);
    cr_assert_eq(q.head->tag, 1, "the held one stays");
    release = true;
    cr_assert_eq(ddz_wsc_write_raw(sv[0], &q, &w), DDZ_WSC_RAW_DONE);
    cr_assert_eq(read(sv[1], buf, sizeof buf), 5);
    cr_assert(memcmp(buf, "\x81\x03two", 5) == 0);
    push_text(&q, "three", 0);
    close(sv[1]);
    cr_assert_eq(ddz_wsc_write_raw(sv[0], &q, &w), DDZ_EIO);
    ddz_wsc_queue_clear(&q);
    close(sv[0]);
}
