/* test_gate.c - the gate (service/net/gate.h) on a real libwebsockets
 * context, after the handover: a socket lws does not answer is closed at
 * the deadline it had from its accept, one lws answered is left alone, and
 * near the socket cap an unanswered one of the heaviest address is shed
 * for a newcomer. The vhost's protocol answers GET /answer (and tells the
 * gate so) and leaves every other request unanswered, as a route waiting
 * for a store that hangs would. Clients are socket pairs. */
#include <criterion/criterion.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/net/gate.h"
#include "service/net/lws_loop.h"
#include "test_clock.h"

static ddz_gate gate;
static ddz_lws_loop loop;
static struct lws_context *ctx;

/* an address, as the owner's table would count it */
typedef struct tag {
    long socks;
} tag;
static tag addr_a, addr_b;
static tag *next_tag; /* what admit() counts the next socket under */

static void *t_admit(void *c, const struct sockaddr *peer, socklen_t len, bool *busy)
{
    (void)c, (void)peer, (void)len;
    next_tag->socks++;
    *busy = true; /* the short deadline: DDZ_GATE_BUSY_DEADLINE_US */
    return next_tag;
}

static long t_weight(void *c, void *t)
{
    (void)c;
    return ((tag *)t)->socks;
}

static void t_release(void *c, void *t)
{
    (void)c;
    ((tag *)t)->socks--;
}

static int cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        char uri[64] = "";
        lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI);
        if (strcmp(uri, "/later") == 0) /* taken up: answered within 4 s (never, here) */
            ddz_gate_extend(&gate, wsi, 4000000);
        if (strcmp(uri, "/answer") != 0)
            return 0; /* left unanswered */
        unsigned char buf[LWS_PRE + 256], *start = buf + LWS_PRE, *p = start,
                                          *end = buf + sizeof buf;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/plain", 0, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        ddz_gate_answered(&gate, wsi);
        /* the connection stays for another request (keep-alive) */
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_WSI_DESTROY: {
        const struct lws_protocols *pr = lws_get_protocol(wsi);
        if (pr && pr->callback == cb) /* a client's, not the loop's or the gate's */
            ddz_gate_wsi_destroyed(&gate, wsi);
        return 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {{"test-http", cb, 0, 0, 0, NULL, 0},
                                                 DDZ_LWS_LOOP_PROTOCOL,
                                                 DDZ_GATE_PROTOCOL,
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

/* The gate with room for `cap` client sockets; `tls`: as under TLS, each
 * socket is handed to lws at once (this vhost has no TLS: lws reads the
 * head in clear). */
static void start_as(long cap, bool tls)
{
    lws_set_log_level(LLL_ERR, ddz_gate_lws_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.max_http_header_data = DDZ_GATE_HEAD_MAX + 1024;
    ctx = lws_create_context(&info);
    cr_assert_not_null(ctx);
    struct lws_vhost *vh = lws_get_vhost_by_name(ctx, "default");
    cr_assert_not_null(vh);
    cr_assert_eq(ddz_lws_loop_init(&loop, ctx, vh), 0);
    static const ddz_gate_ops ops = {t_admit, t_weight, t_release};
    cr_assert_eq(ddz_gate_init(&gate, vh, &loop.base, tls, cap, &ops, NULL), 0);
    addr_a = addr_b = (tag){0};
}

static void start(long cap)
{
    start_as(cap, false);
}

static void stop(void)
{
    ddz_gate_fini(&gate);
    ddz_lws_loop_fini(&loop);
    lws_context_destroy(ctx);
}

/* A client from address `t` that sends `head`; returns its end. */
static int client(tag *t, const char *head)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
    cr_assert_eq(send(sv[0], head, strlen(head), MSG_NOSIGNAL), (ssize_t)strlen(head));
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    next_tag = t;
    cr_assert_eq(ddz_gate_admit(&gate, sv[1], (struct sockaddr *)&un, sizeof un), 0);
    return sv[0];
}

/* Whether the server closed `fd` (what it sent first is dropped). */
static bool closed(int fd)
{
    char buf[512];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
        ;
    return n == 0;
}

/* Turns the loop until `cond` holds or `ms` pass. Returns `cond` (as last
 * evaluated: once). */
#define SERVE_UNTIL(cond, ms)                                                                      \
    ({                                                                                             \
        int64_t until_ = now_ms() + (ms);                                                          \
        bool ok_;                                                                                  \
        while (!(ok_ = (cond)) && now_ms() < until_)                                               \
            lws_service(ctx, 10);                                                                  \
        ok_;                                                                                       \
    })

Test(gate, unanswered_after_the_handover_closed_at_the_deadline)
{
    start(1000);
    int64_t t0 = now_ms();
    int silent = client(&addr_a, "GET /silent HTTP/1.1\r\nHost: h\r\n\r\n");
    int answered = client(&addr_a, "GET /answer HTTP/1.1\r\nHost: h\r\n\r\n");
    cr_assert(SERVE_UNTIL(gate.nheld == 0 && gate.nwaiting == 1, T(1000)), "held %ld, waiting %ld",
              gate.nheld, gate.nwaiting);
    cr_assert_eq(gate.open, 2);
    /* the silent one goes at the deadline it had from its accept (2 s: its
     * address was busy), the answered one stays */
    cr_assert(SERVE_UNTIL(closed(silent), T(4000)), "an unanswered request is held past %d ms",
              T(4000));
    int64_t took = now_ms() - t0;
    cr_log_info("closed after %lld ms", (long long)took);
    cr_assert_geq(took, DDZ_GATE_BUSY_DEADLINE_US / 1000 - 50, "closed after %lld ms only",
                  (long long)took);
    cr_assert_eq(gate.late, 1);
    cr_assert_eq(gate.nwaiting, 0);
    cr_assert_eq(gate.open, 1, "the closed socket's count is released");
    cr_assert_eq(addr_a.socks, 1);
    char buf[256] = "";
    recv(answered, buf, sizeof buf - 1, MSG_DONTWAIT);
    cr_assert_eq(strncmp(buf, "HTTP/1.1 200 ", 13), 0, "%s", buf);
    cr_assert_not(closed(answered), "an answered connection was closed at the deadline");
    /* once its client goes, its count goes */
    close(answered);
    cr_assert(SERVE_UNTIL(gate.open == 0, T(1000)));
    cr_assert_eq(addr_a.socks, 0);
    close(silent);
    stop();
}

Test(gate, unanswered_requests_of_the_heaviest_address_are_shed_near_the_cap)
{
    start(8); /* crowded past 7 */
    int a[7];
    for (int i = 0; i < 7; i++)
        a[i] = client(&addr_a, "GET /silent HTTP/1.1\r\nHost: h\r\n\r\n");
    cr_assert(SERVE_UNTIL(gate.nwaiting == 7, T(1000)), "waiting %ld", gate.nwaiting);
    /* a newcomer from another address: the heaviest's oldest unanswered
     * request is closed for it */
    int b = client(&addr_b, "GET /answer HTTP/1.1\r\nHost: h\r\n\r\n");
    cr_assert_eq(gate.shed, 1);
    cr_assert(SERVE_UNTIL(closed(a[0]), T(1000)), "the oldest was not shed");
    for (int i = 1; i < 7; i++)
        cr_assert_not(closed(a[i]), "request %d shed too", i);
    cr_assert_eq(addr_a.socks, 6);
    cr_assert(SERVE_UNTIL(addr_b.socks == 1 && gate.nwaiting == 6, T(1000)));
    char buf[256] = "";
    cr_assert(SERVE_UNTIL(recv(b, buf, sizeof buf - 1, MSG_DONTWAIT) > 0, T(1000)));
    cr_assert_eq(strncmp(buf, "HTTP/1.1 200 ", 13), 0, "%s", buf);
    for (int i = 0; i < 7; i++)
        close(a[i]);
    close(b);
    cr_assert(SERVE_UNTIL(gate.open == 0, T(1000)), "open %ld (a %ld, b %ld, waiting %ld)",
              gate.open, addr_a.socks, addr_b.socks, gate.nwaiting);
    stop();
}

/* A request the owner took up (a store read, bounded by its own timeout)
 * is left that long past the gate's deadline, not cut off at it. */
/* Wakes the loop every 20 ms, so that the test looks at a socket between
 * the gate's own timers (lws_service() sleeps until the next one). */
static ddz_timer ticker;
static void tick(ddz_timer *t)
{
    ddz_loop_arm(&loop.base, t, tick, 20000);
}

Test(gate, a_request_taken_up_gets_the_time_its_answer_needs)
{
    start(1000);
    tick(&ticker);
    int64_t t0 = now_ms();
    int later = client(&addr_a, "GET /later HTTP/1.1\r\nHost: h\r\n\r\n");
    cr_assert(SERVE_UNTIL(gate.nwaiting == 1, T(1000)));
    /* past the 2 s deadline it had from its accept, it is still open */
    SERVE_UNTIL(false, DDZ_GATE_BUSY_DEADLINE_US / 1000 + 500);
    cr_assert_not(closed(later), "closed at the deadline although taken up");
    cr_assert_eq(gate.nwaiting, 1, "still bound, and sheddable");
    /* and closed at the end of the time it was given */
    cr_assert(SERVE_UNTIL(closed(later), T(4000)));
    int64_t took = now_ms() - t0;
    cr_assert_geq(took, 4000 - 50, "closed after %lld ms", (long long)took);
    ddz_loop_disarm(&loop.base, &ticker);
    close(later);
    cr_assert(SERVE_UNTIL(gate.open == 0, T(1000)));
    stop();
}

/* Under TLS the socket goes to lws at once (lws reads the head), and is
 * bound by the same deadline until lws answers: a head lws never answers
 * (CONNECT over TLS) is closed then, an answered one is left alone. */
Test(gate, handed_at_once_and_still_bound_until_answered)
{
    start_as(1000, true);
    int silent = client(&addr_a, "GET /silent HTTP/1.1\r\nHost: h\r\n\r\n");
    int answered = client(&addr_a, "GET /answer HTTP/1.1\r\nHost: h\r\n\r\n");
    cr_assert_eq(gate.nheld, 0, "nothing is held: lws has them");
    cr_assert(SERVE_UNTIL(gate.nwaiting == 1, T(1000)), "waiting %ld", gate.nwaiting);
    cr_assert(SERVE_UNTIL(closed(silent), T(4000)), "an unanswered request is held past %d ms",
              T(4000));
    cr_assert_eq(gate.late, 1);
    cr_assert_not(closed(answered), "an answered connection was closed at the deadline");
    close(answered);
    close(silent);
    cr_assert(SERVE_UNTIL(gate.open == 0, T(1000)));
    stop();
}
