/* loadtest.c - thousands of protocol clients in one libwebsockets loop.
 *
 * Everything lives in one context struct (`lt`): connections, tables, the
 * heap of actions waiting for their send time, the latency samples. Each
 * connection acts only on its own `turn`; the bookkeeping for latency is
 * per table, since the three broadcasts of one action arrive on three
 * connections in any order.
 */
#include "loadtest.h"

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "ai/rng.h"
#include "bridge.h"
#include "proto/msg.h"
#include "rules/error.h"

enum { INFLIGHT = 8 };

enum cstate { C_IDLE = 0, C_CONNECTING, C_OPEN, C_WELCOMED, C_SEATED, C_CLOSED };

typedef struct outmsg {
    struct outmsg *next;
    bool action; /* stamp the send time of the table's action when written */
    int slot;    /* its inflight slot */
    size_t len;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the text */
} outmsg;

typedef struct table table;

typedef struct lconn {
    struct lws *wsi;
    table *t;
    int idx;             /* 0..2 within the table; 0 creates the room */
    int state;           /* enum cstate */
    int seat;            /* server seat, -1 before joined */
    bool join_sent;      /* join or create asked */
    outmsg *head, *tail; /* send queue */
    char *rx;            /* fragments of the current frame */
    size_t rxlen, rxcap;
    uint32_t turn_seq[3]; /* latest `turn` seq seen per seat */
    /* the action waiting for its send time */
    json_t *pending; /* request to send, NULL if none */
    uint32_t pending_seq;
    int heap_pos;   /* index in the heap, -1 if not there */
    int64_t due_us; /* earliest send time allowed for this connection */
    int64_t last_send_us;
} lconn;

typedef struct inflight {
    bool used;
    int seat;
    uint32_t seq;
    int64_t t_send; /* 0 until written */
    unsigned mask;  /* clients that received the broadcast */
} inflight;

struct table {
    lconn c[3];
    char room[24];
    inflight fl[INFLIGHT];
    int next_fl;
};

typedef struct lt {
    const ddz_loadtest_cfg *cfg;
    ddz_url url;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    table *tables;
    int ntables;
    int next_connect, connecting; /* connection ramp */
    lconn **heap;                 /* pending actions by due time */
    int nheap;
    int64_t next_global_us; /* global pacing */
    /* Our timers are one timerfd in the loop, not lws's own (sul): with a
     * foreign libev loop, lws 4.1.6 fires those late by up to a second. */
    int tfd;                   /* timerfd, adopted into the loop */
    int64_t pace_at, phase_at; /* when pace_tick / phase_tick are due, 0 = not */
    ddz_rng rng;
    int phase;               /* 0 setup, 1 window, 2 drain, 3 leaving, 4 done */
    int64_t t_start, t0, t1; /* run start, window start and end */
    uint32_t *lat;           /* latencies in the window, microseconds */
    size_t nlat, caplat;
    ddz_loadtest_result *res;
    int seated_conns;
    double cpu0;
} lt;

/* libev, reached through dlopen so that building needs neither its header
 * nor its library: lws's own poll() loop costs O(connections) per wakeup,
 * which with thousands of connections is most of this process's CPU. lws
 * 4.1 drives a foreign libev loop (epoll) that we run one turn at a time;
 * without libev.so.4 the run falls back to poll(). */
enum { EV_BACKEND_EPOLL = 0x4, EV_FLAG_NOSIGMASK = 0x400000, EV_RUN_ONCE = 2 };

typedef struct ev_api {
    void *lib;
    void *(*loop_new)(unsigned int flags);
    int (*run)(void *loop, int flags);
    void (*loop_destroy)(void *loop);
} ev_api;

static bool ev_open(ev_api *ev)
{
    memset(ev, 0, sizeof *ev);
    if (getenv("DDZ_LOADTEST_POLL"))
        return false;
    ev->lib = dlopen("libev.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (!ev->lib)
        return false;
    *(void **)&ev->loop_new = dlsym(ev->lib, "ev_loop_new");
    *(void **)&ev->run = dlsym(ev->lib, "ev_run");
    *(void **)&ev->loop_destroy = dlsym(ev->lib, "ev_loop_destroy");
    return ev->loop_new && ev->run && ev->loop_destroy;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_kb(int pid)
{
    if (pid <= 0)
        return -1;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

static void error_seen(lt *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void error_seen(lt *L, const char *fmt, ...)
{
    if (L->phase >= 3)
        return; /* closing down: whatever happens now is ours */
    if (L->res->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->res->first_error, sizeof L->res->first_error, fmt, ap);
        va_end(ap);
    }
}

/* ---- sending ---- */

static void queue_text(lconn *c, const char *s, bool action, int slot)
{
    if (!c->wsi || c->state == C_CLOSED)
        return;
    size_t len = strlen(s);
    outmsg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return;
    m->next = NULL;
    m->action = action;
    m->slot = slot;
    m->len = len;
    memcpy(m->buf + LWS_PRE, s, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    lws_callback_on_writable(c->wsi);
}

static void queue_json(lconn *c, json_t *j, bool action, int slot)
{
    char *s = ddz_msg_dump(j);
    if (s)
        queue_text(c, s, action, slot);
    free(s);
}

static void queue_req(lconn *c, const ddz_req *q)
{
    json_t *j = ddz_req_print(q);
    if (j)
        queue_json(c, j, false, 0);
}

/* ---- the heap of actions waiting for their send time ---- */

static bool earlier(const lconn *a, const lconn *b)
{
    return a->due_us < b->due_us;
}

static void heap_swap(lt *L, int i, int j)
{
    lconn *t = L->heap[i];
    L->heap[i] = L->heap[j];
    L->heap[j] = t;
    L->heap[i]->heap_pos = i;
    L->heap[j]->heap_pos = j;
}

static void heap_up(lt *L, int i)
{
    while (i > 0 && earlier(L->heap[i], L->heap[(i - 1) / 2])) {
        heap_swap(L, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(lt *L, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < L->nheap && earlier(L->heap[l], L->heap[m]))
            m = l;
        if (r < L->nheap && earlier(L->heap[r], L->heap[m]))
            m = r;
        if (m == i)
            return;
        heap_swap(L, i, m);
        i = m;
    }
}

static lconn *heap_pop(lt *L)
{
    lconn *top = L->heap[0];
    heap_swap(L, 0, --L->nheap);
    heap_down(L, 0);
    top->heap_pos = -1;
    return top;
}

static void pace_tick(lt *L);

/* Arms the timerfd for the earliest of pace_at and phase_at. */
static void rearm(lt *L)
{
    int64_t at = L->pace_at;
    if (L->phase_at && (!at || L->phase_at < at))
        at = L->phase_at;
    struct itimerspec its = {0};
    if (at) {
        if (at < 1)
            at = 1;
        its.it_value.tv_sec = at / 1000000;
        its.it_value.tv_nsec = (at % 1000000) * 1000 + 1; /* never 0: that disarms */
    }
    timerfd_settime(L->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void arm_pacer(lt *L)
{
    if (!L->nheap)
        return;
    int64_t at = L->heap[0]->due_us;
    if (L->cfg->rate > 0 && L->next_global_us > at)
        at = L->next_global_us;
    L->pace_at = at;
    rearm(L);
}

/* Writes `c`'s pending action now. */
static void send_action(lt *L, lconn *c)
{
    table *t = c->t;
    inflight *f = &t->fl[t->next_fl];
    int slot = t->next_fl;
    t->next_fl = (t->next_fl + 1) % INFLIGHT;
    *f = (inflight){.used = true, .seat = c->seat, .seq = c->pending_seq};
    queue_json(c, c->pending, true, slot);
    c->pending = NULL;
    (void)L;
}

static void pace_tick(lt *L)
{
    int64_t now = now_us();
    double gap = L->cfg->rate > 0 ? 1e6 / L->cfg->rate : 0;
    while (L->nheap && L->heap[0]->due_us <= now) {
        if (gap > 0) {
            if (L->next_global_us > now)
                break;
            /* evenly spaced; a late wakeup may catch up on at most 10 ms of
             * slots, so the rate holds without bursts after an idle moment */
            int64_t floor = now - 10000;
            L->next_global_us =
                (L->next_global_us > floor ? L->next_global_us : floor) + (int64_t)gap;
        }
        lconn *c = heap_pop(L);
        if (c->pending)
            send_action(L, c);
    }
    arm_pacer(L);
}

/* `c` must act: the action waits for the connection's and the global pace. */
static void want_action(lt *L, lconn *c, json_t *req, uint32_t seq)
{
    json_decref(c->pending);
    c->pending = req;
    c->pending_seq = seq;
    if (L->phase >= 2) { /* no new actions after the window */
        json_decref(c->pending);
        c->pending = NULL;
        return;
    }
    double cr = L->cfg->client_rate > 0 ? L->cfg->client_rate : 10;
    c->due_us = c->last_send_us + (int64_t)(1e6 / cr);
    if (c->heap_pos < 0) {
        c->heap_pos = L->nheap;
        L->heap[L->nheap++] = c;
        heap_up(L, c->heap_pos);
    } else {
        heap_up(L, c->heap_pos);
        heap_down(L, c->heap_pos);
    }
    arm_pacer(L);
}

/* ---- receiving ---- */

static void record_latency(lt *L, int64_t us)
{
    if (L->nlat == L->caplat) {
        size_t cap = L->caplat ? 2 * L->caplat : 65536;
        uint32_t *n = realloc(L->lat, cap * sizeof *n);
        if (!n)
            return;
        L->lat = n;
        L->caplat = cap;
    }
    L->lat[L->nlat++] = (uint32_t)(us > 0 ? us : 0);
}

/* Client `c` received the broadcast of `seat`'s action. */
static void on_broadcast(lt *L, lconn *c, int seat, int64_t now)
{
    table *t = c->t;
    uint32_t seq = c->turn_seq[seat];
    for (int i = 0; i < INFLIGHT; i++) {
        inflight *f = &t->fl[i];
        if (!f->used || f->seat != seat || f->seq != seq)
            continue;
        f->mask |= 1u << c->idx;
        if (f->mask == 7) {
            f->used = false;
            if (f->t_send >= L->t0 && f->t_send < L->t1 && L->phase >= 1)
                record_latency(L, now - f->t_send);
        }
        return;
    }
}

static void join_table(lt *L, table *t)
{
    (void)L;
    for (int i = 1; i < 3; i++) {
        lconn *c = &t->c[i];
        if (c->state == C_WELCOMED && t->room[0] && !c->join_sent) {
            c->join_sent = true;
            ddz_req q = {.type = DDZ_REQ_JOIN, .seat = -1};
            snprintf(q.room, sizeof q.room, "%s", t->room);
            queue_req(c, &q);
        }
    }
}

static void on_frame(lt *L, lconn *c, const char *text, size_t len)
{
    int64_t now = now_us();
    json_t *ev = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    if (!type) {
        error_seen(L, "a frame that is not a protocol event");
        json_decref(ev);
        return;
    }
    table *t = c->t;
    if (strcmp(type, "turn") == 0) {
        json_int_t seat = json_integer_value(json_object_get(ev, "seat"));
        json_int_t seq = json_integer_value(json_object_get(ev, "seq"));
        if (seat >= 0 && seat < 3)
            c->turn_seq[seat] = (uint32_t)seq;
        if (seat == c->seat) {
            json_t *legal = json_object_get(ev, "legal");
            size_t n = json_array_size(legal);
            bool bid = strcmp(json_string_value(json_object_get(ev, "action")), "bid") == 0;
            json_t *req;
            if (n == 0) {
                error_seen(L, "a turn without legal actions");
                req = NULL;
            } else if (bid) {
                json_int_t v = c->seat == 0 ? json_integer_value(json_array_get(legal, n - 1)) : 0;
                req = json_pack("{s:s, s:I, s:I}", "type", "bid", "seq", seq, "bid", v);
            } else {
                size_t k = ddz_rng_below(&L->rng, (uint32_t)n);
                req = json_pack("{s:s, s:I, s:O}", "type", "play", "seq", seq, "cards",
                                json_array_get(legal, k));
            }
            if (req)
                want_action(L, c, req, (uint32_t)seq);
        }
    } else if (strcmp(type, "bid_made") == 0 || strcmp(type, "played") == 0) {
        json_int_t seat = json_integer_value(json_object_get(ev, "seat"));
        if (seat >= 0 && seat < 3 && !json_is_true(json_object_get(ev, "auto")))
            on_broadcast(L, c, (int)seat, now);
    } else if (strcmp(type, "over") == 0) {
        if (c->idx == 0 && L->phase == 1)
            L->res->games++;
    } else if (strcmp(type, "turn_over") == 0) {
        queue_req(c, &(ddz_req){.type = DDZ_REQ_REMATCH, .seat = -1});
    } else if (strcmp(type, "welcome") == 0) {
        c->state = C_WELCOMED;
        if (c->idx == 0) {
            ddz_req q = {.type = DDZ_REQ_CREATE, .seat = -1};
            ddz_room_opts_default(&q.opts);
            q.opts.games = 100;
            q.opts.pause = 0;
            q.opts.time = 60;
            q.opts.priv = true;
            snprintf(q.opts.name, sizeof q.opts.name, "loadtest %d", (int)(t - L->tables));
            c->join_sent = true;
            queue_req(c, &q);
        } else {
            join_table(L, t);
        }
    } else if (strcmp(type, "joined") == 0) {
        const char *room = json_string_value(json_object_get(ev, "room"));
        json_t *seat = json_object_get(ev, "seat");
        if (room && json_is_integer(seat) && c->state != C_SEATED) {
            c->seat = (int)json_integer_value(seat);
            c->state = C_SEATED;
            L->seated_conns++;
            if (c->idx == 0) {
                snprintf(t->room, sizeof t->room, "%s", room);
                join_table(L, t);
            }
        }
    } else if (strcmp(type, "error") == 0) {
        error_seen(L, "%s: %s (about %s)", json_string_value(json_object_get(ev, "code")),
                   json_string_value(json_object_get(ev, "message")),
                   json_string_value(json_object_get(ev, "about")));
    } else if (strcmp(type, "bye") == 0) {
        error_seen(L, "the server said bye");
    }
    json_decref(ev);
}

/* ---- connections ---- */

static void connect_one(lt *L, lconn *c);

static void ramp(lt *L)
{
    /* a bounded number of handshakes at once, so the listen queue holds */
    while (L->connecting < 64 && L->next_connect < 3 * L->ntables && L->phase == 0) {
        int i = L->next_connect++;
        connect_one(L, &L->tables[i / 3].c[i % 3]);
    }
}

static void conn_gone(lt *L, lconn *c, const char *why)
{
    if (c->state == C_CONNECTING)
        L->connecting--;
    if (c->state != C_CLOSED)
        error_seen(L, "connection %s: %s", c->state == C_CONNECTING ? "failed" : "lost", why);
    if (c->state == C_SEATED)
        L->seated_conns--;
    c->state = C_CLOSED;
    c->wsi = NULL;
    while (c->head) {
        outmsg *n = c->head->next;
        free(c->head);
        c->head = n;
    }
    c->tail = NULL;
    json_decref(c->pending);
    c->pending = NULL;
    ramp(L);
}

static int cb_client(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                     size_t len)
{
    lt *L = lws_context_user(lws_get_context(wsi));
    lconn *c = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (!c)
            return -1;
        c->wsi = wsi;
        L->connecting--;
        c->state = C_OPEN;
        L->res->connections++;
        {
            ddz_req q = {.type = DDZ_REQ_HELLO, .version = DDZ_PROTOCOL_VERSION, .seat = -1};
            snprintf(q.name, sizeof q.name, "load%d.%d", (int)(c->t - L->tables), c->idx);
            queue_req(c, &q);
        }
        ramp(L);
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (c)
            conn_gone(L, c, in ? (const char *)in : "connection error");
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (c)
            conn_gone(L, c, "closed by the server");
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (!c)
            return -1;
        if (c->rxlen + len > c->rxcap) {
            size_t cap = (c->rxlen + len) * 2;
            char *nb = realloc(c->rx, cap);
            if (!nb)
                return -1;
            c->rx = nb;
            c->rxcap = cap;
        }
        memcpy(c->rx + c->rxlen, in, len);
        c->rxlen += len;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
            return 0;
        on_frame(L, c, c->rx, c->rxlen);
        c->rxlen = 0;
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (!c)
            return -1;
        outmsg *m = c->head;
        if (!m)
            return 0;
        c->head = m->next;
        if (!c->head)
            c->tail = NULL;
        int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
        if (m->action) {
            int64_t t = now_us();
            c->last_send_us = t;
            c->t->fl[m->slot].t_send = t;
            if (L->phase == 1 && t >= L->t0)
                L->res->actions++;
        }
        free(m);
        if (n < 0)
            return -1;
        if (c->head)
            lws_callback_on_writable(wsi);
        return 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void phase_tick(lt *L);
static int cb_timer(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len);

static const struct lws_protocols protocols[] = {{"ddz-load", cb_client, 0, 4096, 0, NULL, 0},
                                                 {"ddz-load-timer", cb_timer, 0, 0, 0, NULL, 0},
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

static void connect_one(lt *L, lconn *c)
{
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = L->ctx;
    ci.vhost = L->vh;
    ci.address = L->url.host;
    ci.port = L->url.port;
    ci.path = L->url.path;
    ci.host = L->url.hostport;
    ci.origin = L->url.hostport;
    ci.local_protocol_name = "ddz-load";
    ci.opaque_user_data = c;
    ci.ssl_connection = L->url.tls ? LCCSCF_USE_SSL : 0;
    if (L->url.tls && L->cfg->insecure)
        ci.ssl_connection |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
    c->state = C_CONNECTING;
    L->connecting++;
    if (!lws_client_connect_via_info(&ci) && c->state == C_CONNECTING)
        conn_gone(L, c, "cannot start a connection");
}

/* ---- phases ---- */

static void phase_tick(lt *L)
{
    int64_t now = now_us();
    if (L->phase == 0) {
        bool all = L->seated_conns == 3 * L->ntables;
        double setup = L->cfg->setup_seconds > 0 ? L->cfg->setup_seconds : 10 + L->ntables / 50.0;
        if (!all && now - L->t_start < (int64_t)(setup * 1e6)) {
            L->phase_at = now + 20000;
            return;
        }
        for (int i = 0; i < L->ntables; i++) {
            int n = 0;
            for (int k = 0; k < 3; k++)
                n += L->tables[i].c[k].state == C_SEATED;
            L->res->tables_seated += n == 3;
        }
        if (!all)
            error_seen(L, "setup: only %d of %d connections seated after %.0f s", L->seated_conns,
                       3 * L->ntables, setup);
        L->res->setup_s = (double)(now - L->t_start) / 1e6;
        L->phase = 1;
        L->t0 = now;
        L->t1 = now + (int64_t)(L->cfg->seconds * 1e6);
        L->cpu0 = cpu_s();
        L->phase_at = L->t1;
    } else if (L->phase == 1) {
        L->res->window_s = (double)(now - L->t0) / 1e6;
        L->res->client_cpu_s = cpu_s() - L->cpu0;
        L->res->rss_kb_end = rss_kb(L->cfg->pid);
        L->phase = 2; /* drain: broadcasts of actions already written */
        L->phase_at = now + 1000000;
    } else if (L->phase == 2) {
        L->phase = 3;
        for (int i = 0; i < L->ntables; i++)
            for (int k = 0; k < 3; k++)
                if (L->tables[i].c[k].state >= C_OPEN && L->tables[i].c[k].state != C_CLOSED)
                    queue_req(&L->tables[i].c[k], &(ddz_req){.type = DDZ_REQ_LEAVE, .seat = -1});
        L->phase_at = now + 500000;
    } else {
        L->phase = 4;
        lws_cancel_service(L->ctx);
    }
}

static int cb_timer(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    lt *L = lws_context_user(lws_get_context(wsi));
    if (reason != LWS_CALLBACK_RAW_RX_FILE)
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    uint64_t n;
    if (read(L->tfd, &n, sizeof n) < 0 && errno != EAGAIN)
        return 0;
    int64_t now = now_us();
    if (L->pace_at && L->pace_at <= now) {
        L->pace_at = 0;
        pace_tick(L);
    }
    if (L->phase_at && L->phase_at <= now) {
        L->phase_at = 0;
        phase_tick(L);
    }
    rearm(L);
    return 0;
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double pct(const uint32_t *v, size_t n, double p)
{
    if (!n)
        return 0;
    size_t i = (size_t)ceil(p * (double)n) - 1;
    if (i >= n)
        i = n - 1;
    return v[i] / 1000.0;
}

int ddz_loadtest_run(const ddz_loadtest_cfg *cfg, ddz_loadtest_result *out)
{
    memset(out, 0, sizeof *out);
    out->tables = cfg->tables;
    out->rate = cfg->rate;
    out->rss_kb_start = out->rss_kb_end = -1;
    lt L = {.cfg = cfg, .res = out, .ntables = cfg->tables};
    if (ddz_url_parse(cfg->url, &L.url) < 0) {
        fprintf(stderr, "ddz loadtest: '%s' is no ws:// or wss:// URL\n", cfg->url);
        return 2;
    }
    if (cfg->tables < 1 || cfg->seconds <= 0) {
        fprintf(stderr, "ddz loadtest: need at least one table and a positive duration\n");
        return 2;
    }
    raise_nofile();
    ddz_rng_seed(&L.rng, cfg->seed ? cfg->seed : 1);
    L.tables = calloc((size_t)cfg->tables, sizeof *L.tables);
    L.heap = calloc((size_t)cfg->tables * 3, sizeof *L.heap);
    if (!L.tables || !L.heap) {
        free(L.tables);
        free(L.heap);
        return 1;
    }
    for (int i = 0; i < cfg->tables; i++)
        for (int k = 0; k < 3; k++) {
            lconn *c = &L.tables[i].c[k];
            c->t = &L.tables[i];
            c->idx = k;
            c->seat = -1;
            c->heap_pos = -1;
        }

    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = &L;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if (L.url.tls)
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    ev_api ev;
    void *loop = ev_open(&ev) ? ev.loop_new(EV_BACKEND_EPOLL | EV_FLAG_NOSIGMASK) : NULL;
    if (loop) {
        void *loops[1] = {loop};
        info.options |= LWS_SERVER_OPTION_LIBEV;
        info.foreign_loops = loops;
        L.ctx = lws_create_context(&info);
        info.foreign_loops = NULL;
        info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
        if (!L.ctx) {
            ev.loop_destroy(loop);
            loop = NULL;
        }
    }
    out->epoll = loop != NULL;
    if (!L.ctx)
        L.ctx = lws_create_context(&info);
    if (L.ctx)
        L.vh = lws_create_vhost(L.ctx, &info);
    if (!L.ctx || !L.vh) {
        fprintf(stderr, "ddz loadtest: cannot create the event loop\n");
        if (L.ctx)
            lws_context_destroy(L.ctx);
        free(L.tables);
        free(L.heap);
        return 1;
    }
    L.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    lws_adopt_desc_t ad = {.vh = L.vh,
                           .type = LWS_ADOPT_RAW_FILE_DESC,
                           .fd = {.filefd = L.tfd},
                           .vh_prot_name = "ddz-load-timer"};
    if (L.tfd < 0 || !lws_adopt_descriptor_vhost_via_info(&ad)) {
        fprintf(stderr, "ddz loadtest: cannot set up a timer\n");
        if (L.tfd >= 0)
            close(L.tfd);
        lws_context_destroy(L.ctx);
        if (loop)
            ev.loop_destroy(loop);
        free(L.tables);
        free(L.heap);
        return 1;
    }
    out->rss_kb_start = rss_kb(cfg->pid);
    L.t_start = now_us();
    L.next_global_us = L.t_start;
    ramp(&L);
    L.phase_at = L.t_start + 20000;
    rearm(&L);
    while (L.phase < 4) {
        if (loop)
            ev.run(loop, EV_RUN_ONCE);
        else if (lws_service(L.ctx, 0) < 0)
            break;
    }
    lws_context_destroy(L.ctx); /* closes the timerfd too */
    if (loop)
        ev.loop_destroy(loop);

    out->actions_per_s = out->window_s > 0 ? (double)out->actions / out->window_s : 0;
    qsort(L.lat, L.nlat, sizeof *L.lat, cmp_u32);
    out->samples = (long)L.nlat;
    out->p50 = pct(L.lat, L.nlat, 0.50);
    out->p90 = pct(L.lat, L.nlat, 0.90);
    out->p99 = pct(L.lat, L.nlat, 0.99);
    out->max = L.nlat ? L.lat[L.nlat - 1] / 1000.0 : 0;
    for (int i = 0; i < cfg->tables; i++)
        for (int k = 0; k < 3; k++) {
            lconn *c = &L.tables[i].c[k];
            while (c->head) {
                outmsg *n = c->head->next;
                free(c->head);
                c->head = n;
            }
            json_decref(c->pending);
            free(c->rx);
        }
    free(L.lat);
    free(L.tables);
    free(L.heap);
    return 0;
}

void ddz_loadtest_print(const ddz_loadtest_result *r, bool json, FILE *f)
{
    if (json) {
        json_t *j = json_pack(
            "{s:i, s:i, s:I, s:f, s:{s:f, s:f, s:f, s:f}, s:I, s:I, s:o, s:o, s:I, s:f, s:f, "
            "s:f, s:i, s:f, s:s, s:s}",
            "tables", r->tables, "connections", r->connections, "actions", (json_int_t)r->actions,
            "actions_per_s", r->actions_per_s, "latency_ms", "p50", r->p50, "p90", r->p90, "p99",
            r->p99, "max", r->max, "games", (json_int_t)r->games, "errors", (json_int_t)r->errors,
            "rss_kb_start", r->rss_kb_start >= 0 ? json_integer(r->rss_kb_start) : json_null(),
            "rss_kb_end", r->rss_kb_end >= 0 ? json_integer(r->rss_kb_end) : json_null(), "samples",
            (json_int_t)r->samples, "seconds", r->window_s, "setup_s", r->setup_s, "rate", r->rate,
            "tables_seated", r->tables_seated, "client_cpu_s", r->client_cpu_s, "first_error",
            r->first_error, "client_loop", r->epoll ? "epoll" : "poll");
        char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
        json_decref(j);
        if (s)
            fprintf(f, "%s\n", s);
        free(s);
        return;
    }
    fprintf(f, "tables          %d (%d seated), %d connections, setup %.1f s\n", r->tables,
            r->tables_seated, r->connections, r->setup_s);
    fprintf(f, "window          %.1f s, %s, client loop %s\n", r->window_s,
            r->rate > 0 ? "paced" : "unpaced", r->epoll ? "epoll (libev)" : "poll");
    if (r->rate > 0)
        fprintf(f, "target rate     %.0f actions/s\n", r->rate);
    fprintf(f, "actions         %ld (%.0f/s)\n", r->actions, r->actions_per_s);
    fprintf(f, "latency         p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms (%ld samples)\n",
            r->p50, r->p90, r->p99, r->max, r->samples);
    fprintf(f, "games finished  %ld\n", r->games);
    fprintf(f, "errors          %ld%s%s\n", r->errors, r->errors ? ", first: " : "",
            r->errors ? r->first_error : "");
    if (r->rss_kb_start >= 0)
        fprintf(f, "server VmRSS    %ld kB -> %ld kB\n", r->rss_kb_start, r->rss_kb_end);
    fprintf(f, "client CPU      %.1f s in the window (this process shares the machine)\n",
            r->client_cpu_s);
}
