/* loadtest.c - thousands of protocol clients in one libwebsockets loop.
 *
 * Everything lives in one context struct (`lt`): connections, tables, the
 * heap of actions waiting for their send time, the latency samples. Each
 * connection acts only on its own `turn`; the bookkeeping for latency is
 * per table, since the three broadcasts of one action arrive on three
 * connections in any order. Every frame received is parsed once by the
 * event codec (proto/event.h), which also checks it against the
 * protocol's rules: a frame it rejects is an error of the run.
 *
 * The soak test's faults (loadtest.h) are driven from one 20 ms tick in the
 * window: each kind owes events at its rate, and every client carries what
 * it is owed in answer (the bad frame sent, the drop under way), so an
 * answer the protocol does not promise is an error of the run.
 */
#include "service/loadtest/loadtest.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include "ai/rng.h"
#include "service/bridge/bridge.h"
#include "service/net/evloop.h"
#include "service/net/lws_loop.h"
#include "service/net/timer_heap.h"
#include "service/net/ws_conn.h"
#include "proto/event.h"
#include "proto/msg.h"
#include "rules/error.h"

enum { INFLIGHT = 8 };

enum cstate { C_IDLE = 0, C_CONNECTING, C_OPEN, C_WELCOMED, C_SEATED, C_CLOSED };

/* A queued message (ws_conn.h) flagged ACTION stamps the send time of the
 * table's action when written; its tag is its inflight slot.
 * DDZ_WSC_BINARY: a binary frame (a fault the soak sends). */
#define ACTION DDZ_WSC_OWNER

typedef struct table table;

typedef struct lconn {
    struct lws *wsi;
    table *t;
    int idx;              /* 0..2 within the table; 0 creates the room */
    int state;            /* enum cstate */
    int seat;             /* server seat, -1 before joined */
    bool join_sent;       /* join or create asked */
    ddz_wsc_queue q;      /* send queue */
    ddz_wsc_rx rx;        /* the current message, its fragments so far */
    uint32_t turn_seq[3]; /* latest `turn` seq seen per seat */
    uint64_t hand;        /* own cards, bit per code */
    char resume[72];      /* token from `welcome` (ddz_req.resume) */
    bool resuming;        /* reconnected: waits for `state` */
    bool dropping;        /* being dropped on purpose: reconnect, no error */
    bool close_now;       /* drop politely at the next writable */
    int bad;              /* bad frame kind awaiting its answer, -1 none */
    bool bad_error_seen;  /* ... its error frame came (kinds that close) */
    bool bad_overtaken;   /* ... the game it was aimed at ended under it */
    int close_code;       /* close code the server sent, 0 none */
    int64_t reconnect_at; /* when to reconnect, 0 = not waiting */
    bool in_flight;       /* an action queued or written, its broadcast not yet back */
    int stale_owed;       /* actions the end of a game overtook: ESTALE is their answer */
    /* the action waiting for its send time */
    json_t *pending; /* request to send, NULL if none */
    uint32_t pending_seq;
    /* its entry in the heap of actions waiting for their send time, armed
     * while there; pace.due_us: the earliest send time allowed */
    ddz_timer pace;
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
    int nclients; /* 3, or 1 at an engine table */
    char room[33];
    inflight fl[INFLIGHT];
    int next_fl;
    int64_t fault_us;  /* the latest fault at this table (drop, bad frame, reconnect), 0 = none */
    const char *fault; /* ... which */
    /* When a client of the table last went away or came back (0 = never):
     * an action in flight across that instant waited for the client's own
     * reconnection, not for the server, and is not sampled. */
    int64_t away_us;
};

typedef struct lt {
    const ddz_loadtest_cfg *cfg;
    ddz_url url;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    table *tables;
    int ntables;   /* load tables, then engine tables */
    lconn **conns; /* every client, in connection order */
    int nconns;
    lconn **waiting; /* dropped clients waiting to reconnect */
    int nwaiting;
    double drop_acc, bad_acc, kill_acc; /* fault events owed */
    int64_t chaos_last, next_sample;
    int next_connect, connecting; /* connection ramp */
    ddz_theap heap;               /* pending actions by due time: lconn.pace */
    int64_t next_global_us;       /* global pacing */
    /* Our timers are service/net/lws_loop.h's, not lws's own (sul): with a
     * foreign libev loop, lws 4.1.6 fires those late by up to a second. */
    ddz_evloop evl;            /* the context's loop: epoll (libev) or poll */
    ddz_lws_loop loop;         /* our timer */
    ddz_timer tick;            /* due at the earlier of pace_at and phase_at */
    int64_t pace_at, phase_at; /* when pace_tick / phase_tick are due, 0 = not */
    ddz_rng rng;
    int phase;               /* 0 setup, 1 window, 2 drain, 3 leaving, 4 done */
    int64_t warm_until;      /* in phase 0, once seated: play unmeasured until then */
    int64_t t_start, t0, t1; /* run start, window start and end */
    uint32_t *lat;           /* latencies in the window, microseconds */
    size_t nlat, caplat;
    ddz_loadtest_result *res;
    int seated_conns;
    double cpu0;
    ddz_signin_flood *flood; /* the window's sign-in flood, NULL = none */
} lt;

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

/* Open descriptors of `pid`, -1 if unknown. */
static long fd_count(int pid)
{
    if (pid <= 0)
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Child processes of `ppid` (engines; zombies too unless `live`): up to
 * `max` pids into `out`, and whether each leads its own process group.
 * Returns how many there are (may exceed max), -1 if /proc cannot be read. */
static int children_of(int ppid, bool live, int *out, bool *group, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int pid = atoi(e->d_name);
        if (pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        /* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')' */
        char *rp = strrchr(buf, ')');
        int parent, pgrp;
        char st;
        if (!rp || sscanf(rp + 1, " %c %d %d", &st, &parent, &pgrp) != 3 || parent != ppid ||
            (live && st == 'Z'))
            continue;
        if (n < max) {
            out[n] = pid;
            group[n] = pgrp == pid;
        }
        n++;
    }
    closedir(d);
    return n;
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

static void queue_frame(lconn *c, const char *s, size_t len, bool binary, bool action, int slot)
{
    if (!c->wsi || c->state == C_CLOSED)
        return;
    bool was_empty = ddz_wsc_queue_empty(&c->q);
    unsigned flags = (binary ? DDZ_WSC_BINARY : 0) | (action ? ACTION : 0);
    if (ddz_wsc_queue_push(&c->q, s, len, (uint64_t)slot, flags) < 0)
        return;
    if (was_empty) /* else asked for already */
        lws_callback_on_writable(c->wsi);
}

static void queue_text(lconn *c, const char *s, bool action, int slot)
{
    queue_frame(c, s, strlen(s), false, action, slot);
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

/* The connection whose pace entry is `t`. */
static lconn *paced(ddz_timer *t)
{
    return (lconn *)(void *)((char *)t - offsetof(lconn, pace));
}

static void pace_tick(lt *L);

static void on_tick(ddz_timer *t);

/* Arms the timer for the earliest of pace_at and phase_at. */
static void rearm(lt *L)
{
    int64_t at = L->pace_at;
    if (L->phase_at && (!at || L->phase_at < at))
        at = L->phase_at;
    if (at)
        ddz_loop_arm(&L->loop.base, &L->tick, on_tick, at - now_us());
    else
        ddz_loop_disarm(&L->loop.base, &L->tick);
}

#define WARMUP_US (2 * 1000000LL) /* play before the window, not measured */

/* Arms the pacer for the first action due. Not during the setup: tables
 * seated early wait until every table is seated rather than play while
 * the rest are still connecting, so the setup measures seating 3 x N
 * connections, not that and as much play as the rate allows beside it (at
 * 5,000 actions/s the play took more of both processes' CPU than the
 * seating did). Play then warms up, unmeasured, before the window. */
static void arm_pacer(lt *L)
{
    const ddz_timer *top = ddz_theap_top(&L->heap);
    if (!top || (L->phase == 0 && !L->warm_until))
        return;
    int64_t at = top->due_us;
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
    c->in_flight = true; /* from here the end of the game may overtake it */
    queue_json(c, c->pending, true, slot);
    c->pending = NULL;
    (void)L;
}

static void pace_tick(lt *L)
{
    int64_t now = now_us();
    double gap = L->cfg->rate > 0 ? 1e6 / L->cfg->rate : 0;
    ddz_timer *top;
    while ((top = ddz_theap_top(&L->heap)) && top->due_us <= now) {
        if (gap > 0) {
            if (L->next_global_us > now)
                break;
            /* evenly spaced; a late wakeup may catch up on at most 10 ms of
             * slots, so the rate holds without bursts after an idle moment */
            int64_t floor = now - 10000;
            L->next_global_us =
                (L->next_global_us > floor ? L->next_global_us : floor) + (int64_t)gap;
        }
        ddz_theap_remove(&L->heap, top);
        lconn *c = paced(top);
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
    /* armed or moved; never fails: the heap has a slot for every
     * connection (ddz_loadtest_run) */
    ddz_theap_push(&L->heap, &c->pace, c->last_send_us + (int64_t)(1e6 / cr));
    arm_pacer(L);
}

/* ---- bad frames: what a broken or hostile client sends ---- */

/* Each with what proto/PROTOCOL.md promises in answer. */
typedef struct bad_kind {
    const char *name;
    int codes[2];   /* the error code expected (either of them; 0 = unused), none if codes[0] = 0 */
    bool close;     /* the server then closes the connection ... */
    int close_code; /* ... with this status */
} bad_kind;

enum {
    BAD_NOT_JSON,
    BAD_ARRAY,
    BAD_NO_TYPE,
    BAD_UNKNOWN,
    BAD_FIELD,
    BAD_CARD,
    BAD_STALE,
    BAD_NOT_HELD,
    BAD_DEEP,
    BAD_HUGE,
    BAD_BINARY,
    BAD_UTF8,
    NBAD
};

_Static_assert((int)NBAD == (int)DDZ_LOADTEST_BAD_KINDS, "the report has a slot per kind");

static const bad_kind bad_kinds[NBAD] = {
    [BAD_NOT_JSON] = {"not JSON", {DDZ_ESYNTAX}, false, 0},
    [BAD_ARRAY] = {"a JSON array", {DDZ_ESYNTAX}, false, 0},
    [BAD_NO_TYPE] = {"an object without type", {DDZ_ESYNTAX}, false, 0},
    [BAD_UNKNOWN] = {"an unknown type", {DDZ_EUNKNOWN}, false, 0},
    [BAD_FIELD] = {"a field of the wrong type", {DDZ_EFIELD}, false, 0},
    [BAD_CARD] = {"a card out of range", {DDZ_EFIELD}, false, 0},
    /* between two games there is no turn to be stale against */
    [BAD_STALE] = {"a stale action", {DDZ_ESTALE, DDZ_EPHASE}, false, 0},
    [BAD_NOT_HELD] = {"a card not held", {DDZ_ENOTHELD}, false, 0},
    [BAD_DEEP] = {"deep nesting", {DDZ_ESYNTAX}, false, 0},
    [BAD_HUGE] = {"a frame over 16 KiB", {DDZ_ETOOLONG}, true, 1009},
    [BAD_BINARY] = {"a binary frame", {DDZ_ESYNTAX}, true, 1003},
    [BAD_UTF8] = {"invalid UTF-8", {0}, true, 1007},
};

/* Returns whether `b` calls for error `code`. */
static bool bad_expects(const bad_kind *b, int code)
{
    return code && (b->codes[0] == code || b->codes[1] == code);
}

/* Returns what `b` calls for, e.g. "ESTALE or EPHASE" or "a close", for
 * the report; written into buf (n bytes). */
static const char *bad_answer(const bad_kind *b, char *buf, size_t n)
{
    if (!b->codes[0])
        return "a close";
    snprintf(buf, n, "%s%s%s", ddz_errname(b->codes[0]), b->codes[1] ? " or " : "",
             b->codes[1] ? ddz_errname(b->codes[1]) : "");
    return buf;
}

/* Keeps what the slowest sample so far had around it: its table, when it
 * was sent, and the table's latest fault before it (a fault at the same
 * table just before says the fault made it slow, not the server). */
static void slowest(lt *L, const table *t, int64_t t_send, int64_t now)
{
    ddz_loadtest_result *r = L->res;
    double ms = (double)(now - t_send) / 1000.0;
    if (ms <= r->slowest.ms)
        return;
    r->slowest.ms = ms;
    r->slowest.table = (int)(t - L->tables);
    r->slowest.at_s = (double)(t_send - L->t0) / 1e6;
    r->slowest.fault_before_ms = t->fault_us ? (double)(t_send - t->fault_us) / 1000.0 : -1;
    snprintf(r->slowest.fault, sizeof r->slowest.fault, "%s", t->fault_us ? t->fault : "");
}

/* Marks a fault at `t` (slowest() reports the latest before a sample). */
static void table_fault(table *t, const char *what)
{
    t->fault_us = now_us();
    t->fault = what;
}

/* Writes a frame of `kind` on `c`. BAD_NOT_HELD needs `c`'s own play turn
 * with the action not yet written: the bad frame then goes first. */
static void send_bad(lt *L, lconn *c, int kind)
{
    char small[160];
    char *big = NULL;
    const char *text = small;
    size_t len = 0;
    switch (kind) {
    case BAD_NOT_JSON:
        text = "{\"type\": \"play\", \"seq\": ";
        break;
    case BAD_ARRAY:
        text = "[\"play\", 1]";
        break;
    case BAD_NO_TYPE:
        text = "{\"seq\": 1, \"cards\": []}";
        break;
    case BAD_UNKNOWN:
        text = "{\"type\": \"dance\"}";
        break;
    case BAD_FIELD:
        text = "{\"type\": \"play\", \"seq\": \"one\", \"cards\": \"3\"}";
        break;
    case BAD_CARD:
        text = "{\"type\": \"play\", \"seq\": 1, \"cards\": [54]}";
        break;
    case BAD_STALE:
        text = "{\"type\": \"play\", \"seq\": 0, \"cards\": []}";
        break;
    case BAD_NOT_HELD: {
        int k = 0;
        while (k < 53 && (c->hand >> k & 1))
            k++;
        snprintf(small, sizeof small, "{\"type\": \"play\", \"seq\": %u, \"cards\": [%d]}",
                 (unsigned)c->pending_seq, k);
        break;
    }
    case BAD_DEEP:
    case BAD_HUGE:
        len = kind == BAD_DEEP ? 6000 : 17 * 1024;
        big = malloc(len);
        if (!big)
            return;
        memset(big, kind == BAD_DEEP ? '[' : ' ', len);
        if (kind == BAD_HUGE)
            memcpy(big, "{\"type\":\"list\"}", 15); /* valid JSON padded with spaces */
        text = big;
        break;
    case BAD_BINARY:
        text = "\x01\x02\x03";
        len = 3;
        break;
    case BAD_UTF8:
        text = "{\"type\": \"hello\", \"name\": \"\xff\xfe\"}";
        break;
    }
    if (!len)
        len = strlen(text);
    c->bad = kind;
    c->bad_error_seen = c->bad_overtaken = false;
    c->close_code = 0;
    queue_frame(c, text, len, kind == BAD_BINARY, false, 0);
    free(big);
    L->res->bad_sent++;
    table_fault(c->t, "a bad frame");
    L->res->bad_kind_sent[kind]++;
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
        if (f->mask == (1u << t->nclients) - 1) {
            f->used = false;
            if (f->t_send >= L->t0 && f->t_send < L->t1 && L->phase >= 1) {
                if (t->away_us >= f->t_send) {
                    L->res->cut_samples++;
                } else {
                    record_latency(L, now - f->t_send);
                    slowest(L, t, f->t_send, now);
                }
            }
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

/* A `turn` event, or the `turn` of a `state` after a resume. */
static void on_turn(lt *L, lconn *c, const ddz_event_turn *turn)
{
    c->turn_seq[turn->seat] = turn->seq;
    if (turn->seat != c->seat)
        return;
    bool bid = turn->action == DDZ_EVENT_ACT_BID;
    if (!turn->has_legal || (bid ? !turn->legal_bids : !turn->nlegal)) {
        error_seen(L, "a turn without legal actions");
        return;
    }
    ddz_req q = {.type = bid ? DDZ_REQ_BID : DDZ_REQ_PLAY, .seq = turn->seq, .seat = -1};
    if (bid) /* seat 0 bids the highest legal value, the others 0 */
        q.bid = c->seat == 0 ? 31 - __builtin_clz(turn->legal_bids) : 0;
    else
        q.cards = turn->legal[ddz_rng_below(&L->rng, (uint32_t)turn->nlegal)];
    json_t *req = ddz_req_print(&q);
    if (req)
        want_action(L, c, req, turn->seq);
}

static void on_error_frame(lt *L, lconn *c, const ddz_event_error *ev)
{
    bool stale = ev->code == DDZ_ESTALE || ev->code == DDZ_EPHASE;
    /* An action the end of a game overtook: ESTALE, or EPHASE if no game
     * has started since. Taken first, since the server answers in the
     * order it read, and such an action may precede a bad frame. */
    if (stale && c->stale_owed > 0) {
        c->stale_owed--;
        L->res->overtaken++;
        return;
    }
    if (c->bad >= 0 && !c->bad_error_seen) {
        const bad_kind *b = &bad_kinds[c->bad];
        /* a play aimed at a turn that a fault's game end took away */
        bool overtaken = c->bad_overtaken && stale;
        if (!overtaken && !bad_expects(b, ev->code)) {
            char want[64];
            error_seen(L, "%s answered with %s, not %s", b->name, ddz_errname(ev->code),
                       bad_answer(b, want, sizeof want));
            c->bad = -1;
        } else if (b->close) {
            c->bad_error_seen = true; /* the close is yet to come */
        } else {
            L->res->bad_answered++;
            L->res->bad_kind_answered[c->bad]++;
            c->bad = -1;
        }
        return;
    }
    error_seen(L, "%s: %s (about %s)", ddz_errname(ev->code), ev->message,
               ev->about ? ddz_req_name(ev->about) : "no request");
}

/* The `state` that answers a resume: back to the seat, and to the turn. */
static void on_resumed(lt *L, lconn *c, const ddz_event_state *ev)
{
    c->resuming = false;
    if (ev->seat < 0) {
        error_seen(L, "a resumed client is no longer seated");
        return;
    }
    c->seat = ev->seat;
    c->state = C_SEATED;
    L->seated_conns++;
    L->res->resumed++;
    c->hand = ev->has_hand ? ev->hand : 0;
    if (ev->has_turn)
        on_turn(L, c, &ev->turn);
    else if (ev->phase == DDZ_EVENT_PH_TURN_OVER)
        queue_req(c, &(ddz_req){.type = DDZ_REQ_REMATCH, .seat = -1});
}

static void on_welcome(lt *L, lconn *c, const ddz_event_welcome *ev)
{
    table *t = c->t;
    c->state = C_WELCOMED;
    snprintf(c->resume, sizeof c->resume, "%s", ev->resume);
    if (c->resuming)
        return; /* the `state` follows */
    if (c->idx == 0) {
        ddz_req q = {.type = DDZ_REQ_CREATE, .seat = -1};
        ddz_room_opts_default(&q.opts);
        q.opts.games = 100;
        q.opts.pause = 0;
        q.opts.time = 60;
        q.opts.priv = true;
        snprintf(q.opts.name, sizeof q.opts.name, "loadtest %d", (int)(t - L->tables));
        if (t->nclients == 1) { /* an engine table */
            q.seat = 0;
            for (int s = 1; s < 3; s++)
                snprintf(q.opts.seats[s], sizeof q.opts.seats[s], "engine:%s", L->cfg->engine);
        }
        c->join_sent = true;
        queue_req(c, &q);
    } else {
        join_table(L, t);
    }
}

/* Client `c` heard `seat` bid or play (`cards`, 0 for a bid or a pass;
 * `autopass`: the server passed for the seat). */
static void on_action(lt *L, lconn *c, int seat, ddz_cards cards, bool autopass, int64_t now)
{
    if (seat == c->seat) {
        c->hand &= ~cards;
        c->in_flight = false;
    }
    if (!autopass)
        on_broadcast(L, c, seat, now);
}

static void on_over(lt *L, lconn *c, const ddz_event_over *ev)
{
    /* an engine's fault can end the game while our action is on its way:
     * the server then answers it ESTALE, as it should */
    c->stale_owed += c->in_flight;
    c->in_flight = false;
    c->bad_overtaken = c->bad == BAD_NOT_HELD;
    json_decref(c->pending); /* one not yet written is simply dropped */
    c->pending = NULL;
    if (c->idx == 0 && L->cfg->overs) {
        fprintf(L->cfg->overs, "%lld %s\n", (long long)ev->game_id,
                ev->game_key[0] ? ev->game_key : "-");
        fflush(L->cfg->overs);
    }
    if (c->idx != 0 || L->phase != 1)
        return;
    L->res->games++;
    if (ev->fault_seat >= 0 && c->t->nclients == 1 && ev->fault_seat != c->seat)
        L->res->engine_faults++;
    else if (ev->fault_seat >= 0)
        error_seen(L, "a fault charged to a client: %s", ddz_fault_name(ev->fault_kind));
}

/* One frame from the server, parsed once (the codec checks it against the
 * schemas' rules): a frame it rejects is an error of the run. */
static void on_frame(lt *L, lconn *c, const char *text, size_t len)
{
    int64_t now = now_us();
    ddz_event ev;
    char err[160];
    if (ddz_event_parse_text(text, len, &ev, err, sizeof err) < 0) {
        error_seen(L, "a frame that is not a protocol event: %s", err);
        return;
    }
    table *t = c->t;
    switch (ev.type) {
    case DDZ_EVENT_TURN:
        on_turn(L, c, &ev.turn);
        break;
    case DDZ_EVENT_BID_MADE:
        on_action(L, c, ev.bid_made.seat, 0, false, now);
        break;
    case DDZ_EVENT_PLAYED:
        on_action(L, c, ev.played.seat, ev.played.cards, ev.played.autopass, now);
        break;
    case DDZ_EVENT_GAME:
        c->hand = ev.game.has_hand ? ev.game.hand : 0;
        break;
    case DDZ_EVENT_LEFTOVER:
        if (ev.leftover.landlord == c->seat)
            c->hand |= ev.leftover.cards;
        break;
    case DDZ_EVENT_OVER:
        on_over(L, c, &ev.over);
        break;
    case DDZ_EVENT_TURN_OVER:
        queue_req(c, &(ddz_req){.type = DDZ_REQ_REMATCH, .seat = -1});
        break;
    case DDZ_EVENT_WELCOME:
        on_welcome(L, c, &ev.welcome);
        break;
    case DDZ_EVENT_STATE:
        if (c->resuming)
            on_resumed(L, c, &ev.state);
        break;
    case DDZ_EVENT_JOINED:
        if (ev.joined.room[0] && ev.joined.seat >= 0 && c->state != C_SEATED) {
            c->seat = ev.joined.seat;
            c->state = C_SEATED;
            L->seated_conns++;
            if (c->idx == 0) {
                snprintf(t->room, sizeof t->room, "%s", ev.joined.room);
                join_table(L, t);
            }
        }
        break;
    case DDZ_EVENT_ERROR:
        on_error_frame(L, c, &ev.error);
        break;
    case DDZ_EVENT_BYE:
        error_seen(L, "the server said bye");
        break;
    default: /* rooms, seat: nothing to do */
        break;
    }
    ddz_event_clear(&ev);
}

/* ---- connections ---- */

static void connect_one(lt *L, lconn *c);

static void ramp(lt *L)
{
    /* a bounded number of handshakes at once, so the listen queue holds */
    while (L->connecting < 64 && L->next_connect < L->nconns && L->phase == 0)
        connect_one(L, L->conns[L->next_connect++]);
}

/* `c` closed on purpose (a drop, or the server closing after a bad frame
 * that calls for it): it comes back in 0.2..1 s. */
static void plan_reconnect(lt *L, lconn *c)
{
    c->reconnect_at = now_us() + 200000 + ddz_rng_below(&L->rng, 800000);
    L->waiting[L->nwaiting++] = c;
}

static void conn_gone(lt *L, lconn *c, const char *why)
{
    if (c->state == C_CONNECTING)
        L->connecting--;
    bool planned = c->dropping;
    if (c->bad >= 0 && bad_kinds[c->bad].close && c->state != C_CONNECTING) {
        const bad_kind *b = &bad_kinds[c->bad];
        if ((b->codes[0] && !c->bad_error_seen) || c->close_code != b->close_code)
            error_seen(L, "%s: closed with %d%s, not %d", b->name, c->close_code,
                       b->codes[0] && !c->bad_error_seen ? " and no error frame" : "",
                       b->close_code);
        else {
            L->res->bad_answered++;
            L->res->bad_kind_answered[c->bad]++;
        }
        planned = true;
    } else if (!planned && c->state != C_CLOSED) {
        error_seen(L, "connection %s: %s", c->state == C_CONNECTING ? "failed" : "lost", why);
    }
    if (c->state == C_SEATED)
        L->seated_conns--;
    if (c->t)
        c->t->away_us = now_us();
    c->state = C_CLOSED;
    c->wsi = NULL;
    c->bad = -1;
    c->dropping = c->close_now = c->resuming = c->in_flight = false;
    c->stale_owed = 0;
    ddz_wsc_rx_reset(&c->rx);
    ddz_wsc_queue_clear(&c->q);
    json_decref(c->pending);
    c->pending = NULL;
    if (planned && (L->phase == 1 || L->phase == 2) && c->resume[0])
        plan_reconnect(L, c);
    ramp(L);
}

/* The writer's hook: an action's send time is when it was written. */
typedef struct sending {
    lt *L;
    lconn *c;
} sending;

static void action_sent(void *ctx, const ddz_wsc_msg *m, int n)
{
    (void)n;
    sending *sn = ctx;
    if (!(m->flags & ACTION))
        return;
    int64_t t = now_us();
    sn->c->last_send_us = t;
    sn->c->t->fl[m->tag].t_send = t;
    if (sn->L->phase == 1 && t >= sn->L->t0)
        sn->L->res->actions++;
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
            if (c->resuming)
                snprintf(q.resume, sizeof q.resume, "%s", c->resume);
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
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* the status is the first two bytes of the close payload */
        if (c && len >= 2)
            c->close_code = ((const unsigned char *)in)[0] << 8 | ((const unsigned char *)in)[1];
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (!c)
            return -1;
        switch (ddz_wsc_rx_take_lws(&c->rx, wsi, in, len)) {
        case DDZ_WSC_MORE:
            return 0;
        case DDZ_WSC_COMPLETE:
            on_frame(L, c, c->rx.buf, c->rx.len);
            return 0;
        default: /* no memory */
            return -1;
        }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (!c)
            return -1;
        if (c->close_now) { /* a reload: close frame, then gone */
            lws_close_reason(wsi, LWS_CLOSE_STATUS_GOINGAWAY, (unsigned char *)"reload", 6);
            return -1;
        }
        /* every queued frame the socket takes, as the server does */
        sending sn = {L, c};
        ddz_wsc_writer w = {.sent = action_sent, .ctx = &sn};
        return ddz_wsc_write(wsi, &c->q, &w) < 0 ? -1 : 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void phase_tick(lt *L);

static const struct lws_protocols protocols[] = {{"ddz-load", cb_client, 0, 4096, 0, NULL, 0},
                                                 DDZ_LWS_LOOP_PROTOCOL,
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

/* No lws idle pings, as in the server (server.c): lws 4.1.6's default
 * policy gives every connection a timer in its sorted list, inserted at
 * the far end as each connection opens and again as frames arrive,
 * O(connections) each; at 10,002 connections that list took 28% of the
 * client's CPU (perf) and the ramp slowed as it grew. The load test pings
 * nobody and needs no such timer. */
static const lws_retry_bo_t no_validity = {.secs_since_valid_ping = 0,
                                           .secs_since_valid_hangup = 0};

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
    ci.retry_and_idle_policy = &no_validity;
    ci.ssl_connection = L->url.tls ? LCCSCF_USE_SSL : 0;
    if (L->url.tls && L->cfg->insecure)
        ci.ssl_connection |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
    c->state = C_CONNECTING;
    L->connecting++;
    if (!lws_client_connect_via_info(&ci) && c->state == C_CONNECTING)
        conn_gone(L, c, "cannot start a connection");
}

/* ---- faults: drops, bad frames, killed engines ---- */

/* A random client in `want` state with nothing of a fault outstanding, or
 * NULL after a few misses (most are busy or gone only briefly). */
static lconn *pick_client(lt *L, int want)
{
    for (int tries = 0; tries < 16; tries++) {
        lconn *c = L->conns[ddz_rng_below(&L->rng, (uint32_t)L->nconns)];
        if (c->state == want && c->bad < 0 && !c->dropping && !c->resuming && c->resume[0])
            return c;
    }
    return NULL;
}

static void drop_one(lt *L)
{
    lconn *c = pick_client(L, C_SEATED);
    if (!c)
        return;
    c->dropping = true;
    L->res->drops++;
    table_fault(c->t, "a client dropped");
    if (ddz_rng_below(&L->rng, 2)) {
        c->close_now = true;
        lws_callback_on_writable(c->wsi);
    } else {
        /* no close frame: the server finds out from the socket */
        shutdown(lws_get_socket_fd(c->wsi), SHUT_RDWR);
    }
}

static void bad_one(lt *L)
{
    lconn *c = pick_client(L, C_SEATED);
    if (!c)
        return;
    int kind = (int)ddz_rng_below(&L->rng, NBAD);
    if (kind == BAD_NOT_HELD) {
        /* only on a client's own play turn, its action still waiting: the
         * bad play then reaches the server while the turn is current */
        int from = (int)ddz_rng_below(&L->rng, (uint32_t)L->nconns);
        c = NULL;
        for (int i = 0; i < L->nconns && !c; i++) {
            lconn *d = L->conns[(from + i) % L->nconns];
            const char *type = json_string_value(json_object_get(d->pending, "type"));
            if (type && strcmp(type, "play") == 0 && d->state == C_SEATED && d->bad < 0 &&
                !d->dropping)
                c = d;
        }
        if (!c)
            return;
    }
    send_bad(L, c, kind);
}

static void kill_one(lt *L)
{
    int pids[256];
    bool group[256];
    int n = children_of(L->cfg->pid, true, pids, group, 256);
    if (n <= 0)
        return;
    int k = (int)ddz_rng_below(&L->rng, (uint32_t)(n < 256 ? n : 256));
    /* an engine leads its own process group: take the whole of it */
    if (kill(group[k] ? -pids[k] : pids[k], SIGKILL) == 0)
        L->res->kills++;
}

static void sample(lt *L, int64_t now)
{
    ddz_loadtest_result *r = L->res;
    if (r->nsamples == DDZ_LOADTEST_MAX_SAMPLES)
        return;
    r->sample[r->nsamples++] = (ddz_loadtest_sample){(double)(now - L->t0) / 1e6,
                                                     rss_kb(L->cfg->pid), fd_count(L->cfg->pid)};
}

/* Every 20 ms of the window: the faults owed by their rates (`faults`),
 * reconnects due (in the drain too), a sample of the server if due. */
static void chaos_tick(lt *L, int64_t now, bool faults)
{
    const ddz_loadtest_cfg *cfg = L->cfg;
    double dt = (double)(now - L->chaos_last) / 1e6;
    L->chaos_last = now;
    if (faults) {
        L->drop_acc += cfg->reconnect_rate * dt;
        L->bad_acc += cfg->bad_rate * dt;
        L->kill_acc += cfg->kill_rate * dt;
        for (; L->drop_acc >= 1; L->drop_acc--)
            drop_one(L);
        for (; L->bad_acc >= 1; L->bad_acc--)
            bad_one(L);
        for (; L->kill_acc >= 1; L->kill_acc--)
            kill_one(L);
    }
    for (int i = 0; i < L->nwaiting;) {
        lconn *c = L->waiting[i];
        if (c->reconnect_at > now) {
            i++;
            continue;
        }
        L->waiting[i] = L->waiting[--L->nwaiting];
        c->reconnect_at = 0;
        c->resuming = true;
        L->res->reconnects++;
        table_fault(c->t, "a client reconnected");
        c->t->away_us = now_us();
        connect_one(L, c);
    }
    if (faults && cfg->sample_seconds > 0 && now >= L->next_sample) {
        sample(L, now);
        L->next_sample += (int64_t)(cfg->sample_seconds * 1e6);
    }
}

/* ---- phases ---- */

/* The window has ended: the server's figures at its end. */
/* Starts the window's sign-in flood at the URL's host and port; a flood
 * that cannot start is an error of the run, not a failure. */
static void start_flood(lt *L)
{
    const ddz_loadtest_cfg *cfg = L->cfg;
    char err[160];
    ddz_signin_flood_cfg fc = {
        .host = L->url.host,
        .port = L->url.port,
        .rate = cfg->signin_rate,
        .threads = cfg->signin_threads > 0 ? cfg->signin_threads : 64,
        .addrs = cfg->signin_addrs > 0 ? cfg->signin_addrs : 1000,
    };
    L->flood = ddz_signin_flood_start(&fc, err, sizeof err);
    if (!L->flood)
        error_seen(L, "%s", err);
}

static void window_end(lt *L, int64_t now)
{
    ddz_loadtest_result *r = L->res;
    r->window_s = (double)(now - L->t0) / 1e6;
    r->client_cpu_s = cpu_s() - L->cpu0;
    r->rss_kb_end = rss_kb(L->cfg->pid);
    r->fds_end = fd_count(L->cfg->pid);
    /* The flood is told to stop, not waited for: joining its threads
     * here would hold this loop for their last answers (seconds), and
     * the actions still in flight would count that wait as latency. */
    if (L->flood)
        ddz_signin_flood_halt(L->flood);
    int pids[1];
    bool group[1];
    r->children_end = L->cfg->pid > 0 ? children_of(L->cfg->pid, false, pids, group, 1) : -1;
    if (L->cfg->sample_seconds > 0)
        sample(L, now);
}

static void phase_tick(lt *L)
{
    int64_t now = now_us();
    /* with faults or samples the window ticks every 20 ms, else once */
    const ddz_loadtest_cfg *cfg = L->cfg;
    bool chaos = cfg->reconnect_rate > 0 || cfg->bad_rate > 0 || cfg->kill_rate > 0 ||
                 cfg->sample_seconds > 0;
    if (L->phase == 0 && !L->warm_until) {
        bool all = L->seated_conns == L->nconns;
        double setup = cfg->setup_seconds > 0 ? cfg->setup_seconds : 10 + L->ntables / 50.0;
        if (!all && now - L->t_start < (int64_t)(setup * 1e6)) {
            L->phase_at = now + 20000;
            return;
        }
        for (int i = 0; i < L->ntables; i++) {
            int n = 0;
            for (int k = 0; k < L->tables[i].nclients; k++)
                n += L->tables[i].c[k].state == C_SEATED;
            L->res->tables_seated += n == L->tables[i].nclients;
        }
        if (!all)
            error_seen(L, "setup: only %d of %d connections seated after %.0f s", L->seated_conns,
                       L->nconns, setup);
        L->res->setup_s = (double)(now - L->t_start) / 1e6;
        /* Seated: play begins, unmeasured, for WARMUP_US, so that the
         * window sees the tables in steady play, their games at every
         * stage, and not the burst of every table's first bid at once. */
        L->warm_until = now + WARMUP_US;
        arm_pacer(L);
        L->phase_at = L->warm_until;
    } else if (L->phase == 0) {
        if (now < L->warm_until) {
            L->phase_at = L->warm_until;
            return;
        }
        L->phase = 1;
        L->t0 = L->chaos_last = L->next_sample = now;
        L->t1 = now + (int64_t)(cfg->seconds * 1e6);
        L->cpu0 = cpu_s();
        L->res->rss_kb_start = rss_kb(cfg->pid);
        L->res->fds_start = fd_count(cfg->pid);
        if (cfg->signin_rate > 0)
            start_flood(L);
        if (chaos)
            chaos_tick(L, now, true);
        L->phase_at = chaos && now + 20000 < L->t1 ? now + 20000 : L->t1;
    } else if (L->phase == 1) {
        if (now < L->t1) {
            chaos_tick(L, now, true);
            L->phase_at = now + 20000 < L->t1 ? now + 20000 : L->t1;
            return;
        }
        window_end(L, now);
        L->phase = 2; /* drain: broadcasts of actions already written, reconnects */
        L->phase_at = now + 20000;
    } else if (L->phase == 2) {
        chaos_tick(L, now, false);
        bool settled = L->nwaiting == 0 && L->connecting == 0;
        for (int i = 0; settled && i < L->nconns; i++)
            settled = !L->conns[i]->resuming;
        /* at least 1 s; at most 5 s for the last reconnects */
        if (now < L->t1 + 1000000 || (!settled && now < L->t1 + 5000000)) {
            L->phase_at = now + 20000;
            return;
        }
        if (!settled)
            error_seen(L, "clients still reconnecting 5 s after the window");
        L->phase = 3;
        for (int i = 0; i < L->nconns; i++)
            if (L->conns[i]->state >= C_OPEN && L->conns[i]->state != C_CLOSED)
                queue_req(L->conns[i], &(ddz_req){.type = DDZ_REQ_LEAVE, .seat = -1});
        L->phase_at = now + 500000;
    } else {
        L->phase = 4;
        lws_cancel_service(L->ctx);
    }
}

static void on_tick(ddz_timer *t)
{
    lt *L = (lt *)((char *)t - offsetof(lt, tick));
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

static void free_all(lt *L)
{
    for (int i = 0; i < L->nconns; i++) {
        lconn *c = L->conns[i];
        ddz_wsc_queue_clear(&c->q);
        json_decref(c->pending);
        ddz_wsc_rx_free(&c->rx);
    }
    free(L->lat);
    /* The heap's entries are timers inside the tables: empty it first. */
    ddz_theap_free(&L->heap);
    free(L->tables);
    free(L->conns);
    free(L->waiting);
}

/* After the last connection closed: the server's descriptors, given up to
 * 5 s to come back down to where they were before the run. */
static long fds_settled(int pid, long before)
{
    long n = fd_count(pid);
    for (int i = 0; i < 100 && n > before; i++) {
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
        n = fd_count(pid);
    }
    return n;
}

int ddz_loadtest_run(const ddz_loadtest_cfg *cfg, ddz_loadtest_result *out)
{
    memset(out, 0, sizeof *out);
    out->tables = cfg->tables;
    out->engine_tables = cfg->engine ? cfg->engine_tables : 0;
    out->rate = cfg->rate;
    out->rss_kb_start = out->rss_kb_end = -1;
    out->fds_before = out->fds_start = out->fds_end = out->fds_after = out->children_end = -1;
    int ntables = cfg->tables + (cfg->engine ? cfg->engine_tables : 0);
    lt L = {.cfg = cfg, .res = out, .ntables = ntables};
    if (ddz_url_parse(cfg->url, &L.url) < 0) {
        fprintf(stderr, "ddz loadtest: '%s' is no ws:// or wss:// URL\n", cfg->url);
        return 2;
    }
    if (cfg->tables < 0 || ntables < 1 || cfg->seconds <= 0) {
        fprintf(stderr, "ddz loadtest: need at least one table and a positive duration\n");
        return 2;
    }
    if (cfg->engine_tables > 0 && !cfg->engine) {
        fprintf(stderr, "ddz loadtest: engine tables need an engine name\n");
        return 2;
    }
    if (cfg->signin_rate > 0 && L.url.tls) {
        fprintf(stderr, "ddz loadtest: the sign-in flood speaks plain HTTP: give a ws:// URL\n");
        return 2;
    }
    if ((cfg->kill_rate > 0 || cfg->sample_seconds > 0) && cfg->pid <= 0) {
        fprintf(stderr, "ddz loadtest: killing engines and sampling need the server's pid\n");
        return 2;
    }
    raise_nofile();
    ddz_rng_seed(&L.rng, cfg->seed ? cfg->seed : 1);
    L.tables = calloc((size_t)ntables, sizeof *L.tables);
    L.conns = calloc((size_t)ntables * 3, sizeof *L.conns);
    L.waiting = calloc((size_t)ntables * 3, sizeof *L.waiting);
    if (!L.tables || ddz_theap_reserve(&L.heap, (uint32_t)ntables * 3) < 0 || !L.conns ||
        !L.waiting) {
        free_all(&L);
        return 1;
    }
    for (int i = 0; i < ntables; i++) {
        table *t = &L.tables[i];
        t->nclients = i < cfg->tables ? 3 : 1;
        for (int k = 0; k < t->nclients; k++) {
            lconn *c = &t->c[k];
            c->t = t;
            c->idx = k;
            c->seat = -1;
            c->bad = -1;
            ddz_wsc_queue_init(&c->q, SIZE_MAX); /* the soak's own requests: a few at a time */
            ddz_wsc_rx_init(&c->rx, SIZE_MAX);   /* as the server sends them */
            L.conns[L.nconns++] = c;
        }
    }

    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.retry_and_idle_policy = &no_validity;
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = &L;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if (L.url.tls)
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    L.ctx = ddz_evloop_create(&L.evl, &info,
                              getenv("DDZ_LOADTEST_POLL") ? DDZ_EVLOOP_POLL : DDZ_EVLOOP_AUTO,
                              "ddz loadtest");
    out->epoll = L.evl.ev != NULL;
    if (L.ctx)
        L.vh = lws_create_vhost(L.ctx, &info);
    if (!L.vh || ddz_lws_loop_init(&L.loop, L.ctx, L.vh) < 0) {
        fprintf(stderr, "ddz loadtest: cannot create the event loop\n");
        ddz_evloop_destroy(&L.evl);
        free_all(&L);
        return 1;
    }
    out->fds_before = fd_count(cfg->pid);
    L.t_start = now_us();
    L.next_global_us = L.t_start;
    ramp(&L);
    L.phase_at = L.t_start + 20000;
    rearm(&L);
    while (L.phase < 4)
        if (ddz_evloop_run_once(&L.evl) < 0)
            break;
    if (L.flood) {
        ddz_signin_flood_stop(L.flood, &out->signins);
        out->signin = true;
    }
    ddz_loop_disarm(&L.loop.base, &L.tick);
    ddz_lws_loop_fini(&L.loop);
    ddz_evloop_destroy(&L.evl);
    out->fds_after = fds_settled(cfg->pid, out->fds_before);

    out->actions_per_s = out->window_s > 0 ? (double)out->actions / out->window_s : 0;
    qsort(L.lat, L.nlat, sizeof *L.lat, cmp_u32);
    out->samples = (long)L.nlat;
    out->p50 = pct(L.lat, L.nlat, 0.50);
    out->p90 = pct(L.lat, L.nlat, 0.90);
    out->p99 = pct(L.lat, L.nlat, 0.99);
    out->max = L.nlat ? L.lat[L.nlat - 1] / 1000.0 : 0;
    free_all(&L);
    return 0;
}

/* A figure read from /proc, or null when it could not be. */
static json_t *known(long v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static double per_s(long n, double s)
{
    return s > 0 ? (double)n / s : 0;
}

static json_t *signins_json(const ddz_signin_flood_result *g)
{
    json_t *j = json_pack(
        "{s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "sent", (json_int_t)g->sent, "per_s",
        per_s(g->sent, g->seconds), "ok", (json_int_t)g->ok, "refused", (json_int_t)g->refused,
        "limited", (json_int_t)g->limited, "busy", (json_int_t)g->busy, "other",
        (json_int_t)g->other, "failed", (json_int_t)g->failed, "hashed_p50_ms", g->hashed_p50);
    json_object_set_new(j, "latency_ms",
                        json_pack("{s:f, s:f, s:f}", "p50", g->p50, "p99", g->p99, "max", g->max));
    return j;
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
            "rss_kb_start", known(r->rss_kb_start), "rss_kb_end", known(r->rss_kb_end), "samples",
            (json_int_t)r->samples, "seconds", r->window_s, "setup_s", r->setup_s, "rate", r->rate,
            "tables_seated", r->tables_seated, "client_cpu_s", r->client_cpu_s, "first_error",
            r->first_error, "client_loop", r->epoll ? "epoll" : "poll");
        json_object_set_new(j, "cut_samples", json_integer(r->cut_samples));
        json_object_set_new(
            j, "faults",
            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "overtaken",
                      (json_int_t)r->overtaken, "drops", (json_int_t)r->drops, "reconnects",
                      (json_int_t)r->reconnects, "resumed", (json_int_t)r->resumed, "bad_sent",
                      (json_int_t)r->bad_sent, "bad_answered", (json_int_t)r->bad_answered, "kills",
                      (json_int_t)r->kills, "engine_faults", (json_int_t)r->engine_faults));
        json_t *kinds = json_object();
        for (int k = 0; k < NBAD; k++)
            json_object_set_new(kinds, bad_kinds[k].name,
                                json_pack("[I, I]", (json_int_t)r->bad_kind_sent[k],
                                          (json_int_t)r->bad_kind_answered[k]));
        json_object_set_new(j, "bad_frames", kinds);
        json_object_set_new(j, "fds",
                            json_pack("{s:o, s:o, s:o, s:o}", "before", known(r->fds_before),
                                      "start", known(r->fds_start), "end", known(r->fds_end),
                                      "after", known(r->fds_after)));
        json_object_set_new(j, "children_end", known(r->children_end));
        json_object_set_new(j, "engine_tables", json_integer(r->engine_tables));
        json_object_set_new(
            j, "slowest",
            json_pack("{s:f, s:i, s:f, s:o, s:s}", "ms", r->slowest.ms, "table", r->slowest.table,
                      "sent_s", r->slowest.at_s, "fault_before_ms",
                      r->slowest.fault_before_ms >= 0 ? json_real(r->slowest.fault_before_ms)
                                                      : json_null(),
                      "fault", r->slowest.fault));
        json_t *series = json_array();
        for (int i = 0; i < r->nsamples; i++)
            json_array_append_new(series,
                                  json_pack("[f, o, o]", r->sample[i].t, known(r->sample[i].rss_kb),
                                            known(r->sample[i].fds)));
        json_object_set_new(j, "series", series);
        if (r->signin)
            json_object_set_new(j, "sign_ins", signins_json(&r->signins));
        char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
        json_decref(j);
        if (s)
            fprintf(f, "%s\n", s);
        free(s);
        return;
    }
    fprintf(f, "tables          %d", r->tables);
    if (r->engine_tables)
        fprintf(f, " + %d with engines", r->engine_tables);
    fprintf(f, " (%d seated), %d connections, setup %.1f s\n", r->tables_seated, r->connections,
            r->setup_s);
    fprintf(f, "window          %.1f s, %s, client loop %s\n", r->window_s,
            r->rate > 0 ? "paced" : "unpaced", r->epoll ? "epoll (libev)" : "poll");
    if (r->rate > 0)
        fprintf(f, "target rate     %.0f actions/s\n", r->rate);
    fprintf(f, "actions         %ld (%.0f/s)\n", r->actions, r->actions_per_s);
    fprintf(f, "latency         p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms (%ld samples)\n",
            r->p50, r->p90, r->p99, r->max, r->samples);
    if (r->cut_samples)
        fprintf(f,
                "not sampled     %ld actions in flight while a client of their table was away "
                "(they waited for its reconnection)\n",
                r->cut_samples);
    if (r->samples && r->slowest.fault_before_ms >= 0)
        fprintf(f,
                "slowest         %.2f ms at table %d, sent %.1f s into the window, %.0f ms after "
                "%s there\n",
                r->slowest.ms, r->slowest.table, r->slowest.at_s, r->slowest.fault_before_ms,
                r->slowest.fault);
    else if (r->samples)
        fprintf(f,
                "slowest         %.2f ms at table %d, sent %.1f s into the window, no fault at "
                "that table before it\n",
                r->slowest.ms, r->slowest.table, r->slowest.at_s);
    fprintf(f, "games finished  %ld\n", r->games);
    fprintf(f, "errors          %ld%s%s\n", r->errors, r->errors ? ", first: " : "",
            r->errors ? r->first_error : "");
    if (r->rss_kb_start >= 0)
        fprintf(f, "server VmRSS    %ld kB -> %ld kB (window start -> end)\n", r->rss_kb_start,
                r->rss_kb_end);
    if (r->fds_before >= 0)
        fprintf(f,
                "server fds      %ld before, %ld -> %ld in the window, %ld after; %ld child "
                "processes at the end\n",
                r->fds_before, r->fds_start, r->fds_end, r->fds_after, r->children_end);
    if (r->drops || r->bad_sent || r->kills || r->engine_faults)
        fprintf(f,
                "faults          %ld drops, %ld bad frames (%ld answered as specified), %ld "
                "engines killed (%ld faults charged); %ld reconnects, %ld back in their seat\n",
                r->drops, r->bad_sent, r->bad_answered, r->kills, r->engine_faults, r->reconnects,
                r->resumed);
    if (r->signin) {
        const ddz_signin_flood_result *g = &r->signins;
        fprintf(f,
                "sign-ins        %ld sent (%.1f/s): %ld refused after a hash (p50 %.0f ms), %ld "
                "limited (429), %ld busy (503), %ld other, %ld unanswered, %ld signed in\n",
                g->sent, per_s(g->sent, g->seconds), g->refused, g->hashed_p50, g->limited, g->busy,
                g->other, g->failed, g->ok);
        fprintf(f, "                answered in p50 %.1f ms  p99 %.1f ms  max %.1f ms\n", g->p50,
                g->p99, g->max);
    }
    for (int i = 0; i < r->nsamples; i++)
        fprintf(f, "  at %6.0f s   VmRSS %ld kB, %ld fds\n", r->sample[i].t, r->sample[i].rss_kb,
                r->sample[i].fds);
    fprintf(f, "client CPU      %.1f s in the window (this process shares the machine)\n",
            r->client_cpu_s);
}
