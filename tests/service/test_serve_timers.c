/* test_serve_timers.c - the server's timers fire on time on the epoll loop
 * (issue 16): with a foreign libev loop, lws 4.1.6's own timers (sul) fired
 * late by up to a second; ours are a heap behind a timerfd
 * (service/net/lws_loop.h). A hosted AI's pause (--ai-delay-ms) is such a
 * timer: every AI action of a quick game must come that long after its
 * turn, never sooner, and the server's own count of how late its timers
 * fired (ddz_timer_lateness_seconds) must show them on time. Seen from
 * this client the pause is also stretched by how late the client itself
 * ran, which on a loaded machine is the machine's doing, not the
 * server's: only the server's count decides "not late" (issue 27). */
#include "serve_harness.h"

#define AI_DELAY_MS 250

static void setup_epoll(void)
{
    setup_no_server();
    int n = 0;
    serve_extra[n++] = "--event-loop";
    serve_extra[n++] = "epoll";
    serve_extra[n++] = "--ai-delay-ms"; /* after the harness's own 0: the last counts */
    serve_extra[n++] = "250";
    serve_extra[n] = NULL;
    server_start();
}

TestSuite(timers, .init = setup_epoll, .fini = teardown, .timeout = HANG(120));

typedef struct delays {
    int64_t turn_at; /* when an AI's turn arrived, 0 if none is pending */
    int ai_seat;     /* whose */
    int n;
    int64_t ms[512]; /* turn → action, as this client saw them */
} delays;

static bool time_ais(cli *c, const ddz_event *e, void *ctx)
{
    delays *d = ctx;
    int64_t now = now_ms();
    if (e->type == DDZ_EVENT_TURN && e->turn.seat != c->seat) {
        d->turn_at = now;
        d->ai_seat = e->turn.seat;
    } else if (d->turn_at && ((e->type == DDZ_EVENT_BID_MADE && e->bid_made.seat == d->ai_seat) ||
                              (e->type == DDZ_EVENT_PLAYED && e->played.seat == d->ai_seat))) {
        if (d->n < 512)
            d->ms[d->n++] = now - d->turn_at;
        d->turn_at = 0;
    }
    return false;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The server's timers (the AI pauses among them) fired on time: at least
 * nine in ten within 100 ms of when they were due, as the server counted
 * (lws's sul on a foreign loop was late by up to a second, half of its
 * timers by more than 0.4 s). */
static void timers_on_time(void)
{
    double fired = metric_value("ddz_timer_lateness_seconds_count");
    double on_time = metric_value("ddz_timer_lateness_seconds_bucket{le=\"0.1\"}");
    double sum = metric_value("ddz_timer_lateness_seconds_sum");
    cr_log_info("%.0f timers fired, %.0f within 100 ms of due, %.1f ms late on average", fired,
                on_time, fired > 0 ? 1e3 * sum / fired : 0);
    cr_assert_gt(fired, 0, "no timer counted");
    cr_assert_geq(on_time, 0.9 * fired, "only %.0f of %.0f timers fired within 100 ms of due",
                  on_time, fired);
}

Test(timers, ai_delay_fires_on_time_on_epoll)
{
    int status;
    char *m = http_get("/metrics", &status);
    cr_assert(strstr(m, "ddz_event_loop_info{loop=\"epoll\"} 1"), "not on epoll:\n%s", m);
    free(m);

    cli *c = cli_hello("Clock");
    c->bidder = true;
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    delays d = {0};
    cr_assert_eq(run(&c, 1, time_ais, &d, T(60000)), -1);
    cr_assert_geq(d.n, 4, "only %d AI actions timed", d.n);
    qsort(d.ms, (size_t)d.n, sizeof d.ms[0], cmp_i64);
    /* Seen from this client, an interval is off by how late it read the
     * turn and the action (on a busy machine, tens of ms either way): the
     * median is the server's delay; the worst is bounded well below the
     * second lws's sul was late by. */
    int64_t median = d.ms[d.n / 2], worst = d.ms[d.n - 1];
    cr_log_info("%d AI actions: %lld / %lld / %lld ms after their turn (min / median / max)", d.n,
                (long long)d.ms[0], (long long)median, (long long)worst);
    /* the pause is there (without it the AIs act within a few ms); how
     * exactly it was kept is the server's count to say: this client reads
     * each turn and each action a little late, by as much as the machine
     * makes it, one more than the other */
    cr_assert_geq(median, AI_DELAY_MS * 4 / 5, "the median AI acted %lld ms after its turn",
                  (long long)median);
    timers_on_time();
}

/* ---- idle connections: our ping, not lws's (service/server/server.c) ---- */

/* A raw WebSocket connection that never answers: returns the socket after
 * the handshake (the 101 read). */
static int raw_ws(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)srv.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    static const char req[] =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n";
    cr_assert_eq(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    char buf[1024];
    size_t n = 0;
    while (n < sizeof buf - 1) { /* byte by byte: nothing past the head */
        struct pollfd p = {fd, POLLIN, 0};
        cr_assert_eq(poll(&p, 1, T(5000)), 1, "no handshake answer");
        cr_assert_eq(read(fd, buf + n, 1), 1);
        buf[++n] = 0;
        if (n >= 4 && strcmp(buf + n - 4, "\r\n\r\n") == 0)
            break;
    }
    cr_assert(strstr(buf, " 101 "), "handshake: %s", buf);
    return fd;
}

Test(timers, idle_connection_pinged_then_dropped)
{
    /* a server of its own with --idle 1 */
    kill(srv.pid, SIGKILL);
    reap_within(T(5000));
    serve_extra[4] = "--idle";
    serve_extra[5] = "1";
    serve_extra[6] = NULL;
    server_start();
    int fd = raw_ws();
    int64_t t0 = now_ms();
    struct pollfd p = {fd, POLLIN, 0};
    unsigned char f[5];
    cr_assert_eq(poll(&p, 1, T(5000)), 1, "no ping");
    cr_assert_eq(read(fd, f, 5), 5);
    int64_t ping_ms = now_ms() - t0;
    /* a payload: lws 4.1.6 tells the server of no pong to an empty ping */
    cr_assert(f[0] == 0x89 && f[1] == 3 && memcmp(f + 2, "ddz", 3) == 0,
              "not the ping \"ddz\": %02x %02x", f[0], f[1]);
    cr_assert(ping_ms >= 900 && ping_ms <= 1000 + T(300), "ping after %lld ms", (long long)ping_ms);
    timers_on_time();
    /* unanswered: cut 10 s later (no close frame: the peer may be gone) */
    cr_assert_eq(poll(&p, 1, T(15000)), 1, "not dropped");
    ssize_t n = read(fd, f, 2);
    int64_t drop_ms = now_ms() - t0;
    cr_assert_leq(n, 0, "a frame instead of the drop");
    cr_assert(drop_ms >= 10900 && drop_ms <= 11000 + T(500), "dropped after %lld ms",
              (long long)drop_ms);
    close(fd);

    /* a client that answers pings (lws answers them) stays, past the
     * moment an unanswered ping would have cut it (1 s idle + 10 s) */
    cli *c = cli_hello("Pong");
    int64_t until = now_ms() + 12500;
    while (now_ms() < until)
        (void)cli_next(c, 50);
    cr_assert(!ddz_wsc_closed(c->ws), "a client answering pings was dropped");
    cli_send(c, json_pack("{s:s}", "type", "list"));
    cli_expect(c, DDZ_EVENT_ROOMS);
}
