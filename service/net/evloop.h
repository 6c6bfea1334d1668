/* evloop.h - which event loop a libwebsockets context runs on, for every
 * program of ours whose loop is lws's: `ddz serve`, `ddz bridge` and
 * `ddz loadtest`.
 *
 * lws 4.1's default loop is poll(): every wakeup scans every descriptor,
 * which at 3,000 connections was 40% of the server's CPU. Debian's lws
 * ships event-library plugins; the libev one (libwebsockets-evlib_ev.so,
 * which lws dlopen()s itself when asked for LWS_SERVER_OPTION_LIBEV) runs
 * on epoll. We link libev and hand lws a loop of our own ("foreign loop",
 * lws's supported API for it) so that we run it one turn at a time and
 * keep our own shutdown; if the plugin cannot be loaded the context is
 * made again on poll(), and the program says so once on stderr.
 *
 * lws 4.1.6 caveat: with a foreign libev loop, lws's own timers (sul) fire
 * late, by a second or more, and on a quiet loop not at all (evloop.c
 * says why). So none of ours are sul (service/net/lws_loop.h keeps them
 * in a heap behind a timerfd), and lws is woken every 100 ms to look at
 * its own (docs/decisions.md).
 */
#ifndef DDZ_EVLOOP_H
#define DDZ_EVLOOP_H

#include <libwebsockets.h>
#include <stdbool.h>

typedef enum ddz_evloop_kind {
    DDZ_EVLOOP_AUTO,  /* epoll if the plugin loads, else poll (said on stderr) */
    DDZ_EVLOOP_EPOLL, /* epoll or nothing */
    DDZ_EVLOOP_POLL,  /* lws's own poll() loop */
} ddz_evloop_kind;

typedef struct ddz_evloop {
    struct lws_context *ctx; /* the context, NULL before create */
    void *ev;                /* the libev loop (struct ev_loop *), NULL on poll */
    void *kick;              /* on libev: what makes lws look at its own timers */
} ddz_evloop;

/* Parses "auto", "epoll" or "poll" into *out. Returns 0, or -1 for
 * anything else. */
int ddz_evloop_parse(const char *s, ddz_evloop_kind *out);

/* Creates the lws context for `info` (its `options` and `foreign_loops`
 * are used and given back unchanged) on the loop `kind` asks for. With
 * AUTO, a context that cannot be made on libev is made on poll() and
 * "WHO: ..." is written once on stderr. Returns the context (also in
 * e->ctx), or NULL if none could be made (e.g. a bad TLS certificate, or
 * EPOLL without the plugin). */
struct lws_context *ddz_evloop_create(ddz_evloop *e, struct lws_context_creation_info *info,
                                      ddz_evloop_kind kind, const char *who);

/* Runs one turn of the loop: waits for at least one event (a descriptor,
 * lws's own timer, lws_cancel_service()) and handles what is ready.
 * Returns 0, or -1 if the loop cannot go on. */
int ddz_evloop_run_once(ddz_evloop *e);

/* "epoll" or "poll": what runs, for /metrics and the load test's report. */
const char *ddz_evloop_name(const ddz_evloop *e);

/* Destroys the context and then the libev loop. Never fails; a zeroed or
 * destroyed e is fine. */
void ddz_evloop_destroy(ddz_evloop *e);

#endif
