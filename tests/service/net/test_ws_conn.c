/* test_ws_conn.c - the pure parts of the WebSocket connection module
 * (service/net/ws_conn.h), without a socket: the queue's order, bytes,
 * headroom and bound (a push past it refused, nothing queued), and the
 * reassembly of a message from many chunks and frames, its size limit at
 * the exact byte, and a message after a complete one or a reset.
 * ddz_wsc_write() needs a live lws connection: the service tests
 * (test_serve*, the bridge's and the load test's) drive it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

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
        char frame[8];
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
