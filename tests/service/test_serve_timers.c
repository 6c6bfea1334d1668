/* test_serve_timers.c - the server's timers fire on time on the epoll loop
 * (issue 16): with a foreign libev loop, lws 4.1.6's own timers (sul) fired
 * late by up to a second; ours are a heap behind a timerfd
 * (service/net/lws_loop.h). A hosted AI's pause (--ai-delay-ms) is such a
 * timer: every AI action of a quick game must come that long after its
 * turn, and not much later. */
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

TestSuite(timers, .init = setup_epoll, .fini = teardown, .timeout = 120);

typedef struct delays {
    int64_t turn_at; /* when an AI's turn arrived, 0 if none is pending */
    int ai_seat;     /* whose */
    int n;
    int64_t min, max;
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
        int64_t ms = now - d->turn_at;
        if (!d->n || ms < d->min)
            d->min = ms;
        if (!d->n || ms > d->max)
            d->max = ms;
        d->n++;
        d->turn_at = 0;
    }
    return false;
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
    /* never early; late by at most what a busy 2-core machine explains
     * (lws's sul was late by up to a second) */
    cr_assert_geq(d.min, AI_DELAY_MS - 2, "an AI acted after %lld ms", (long long)d.min);
    cr_assert_leq(d.max, AI_DELAY_MS + T(300), "an AI acted after %lld ms", (long long)d.max);
    cr_log_info("%d AI actions, %lld..%lld ms after their turn", d.n, (long long)d.min,
                (long long)d.max);
}
