/* context.c - the service context's clock, log and metrics. */
#include "service/server/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <jansson.h>

#include "proto/msg.h"

int64_t ddz__now_us(void)
{
    return ddz_lws_loop_now_us();
}

void ddz__log(ddz_srv *srv, const char *level, const char *room, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddz__vlog(srv, level, room, fmt, ap);
    va_end(ap);
}

void ddz__vlog(ddz_srv *srv, const char *level, const char *room, const char *fmt, va_list ap)
{
    if (srv->cfg.quiet)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    json_t *j =
        json_pack("{s:I, s:s, s:s}", "ts_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                  "level", level, "msg", msg);
    if (room)
        json_object_set_new(j, "room", json_string(room));
    char *s = ddz_msg_dump(j);
    if (s)
        fprintf(stderr, "%s\n", s);
    free(s);
}

void ddz__reap_soon(ddz_srv *srv)
{
    if (srv->ctx && srv->reap_fn)
        ddz_loop_arm(&srv->loop.base, &srv->reap_timer, srv->reap_fn, 0);
}

void ddz__metrics_latency(ddz_srv *srv, int64_t us)
{
    int b = 0;
    while (b < 11 && us >= (int64_t)(100LL << b)) /* 100us, 200us, ... 102ms, +inf */
        b++;
    srv->m.latency_buckets[b]++;
    srv->m.latency_sum_s += (double)us / 1e6;
    srv->m.latency_count++;
}
