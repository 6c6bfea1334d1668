/* server.c - libwebsockets glue: the WebSocket protocol, the HTTP
 * transport (the routes' answers written, held for the store, a HEAD of a
 * file; which route answers is http_routes.c's table), connection limits,
 * timers, signals and shutdown.
 *
 * Each WebSocket connection gets a ddz_conn holding its receive buffer (a
 * message may arrive in fragments, each counted as it comes: rx_chunk),
 * its send queue (a plain connection's written in one sendmsg() at the
 * end of the loop's turn, ddz__conn_flush(); a TLS one's a burst per
 * WRITEABLE callback; both are service/net/ws_conn.h's, shared with the
 * bridge and the load test), its rate limiter and its player. Messages go to the lobby as whole
 * texts; everything game-related happens there and in rooms.
 */
#include "service/server/server.h"

#include <netinet/in.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/cluster/cluster.h"
#include "service/engine/engine.h"
#include "service/server/lead_srv.h"
#include "service/seats/seats.h"
#include "service/server/accounts.h"
#include "service/server/analyst.h"
#include "service/server/budget.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/http_games.h"
#include "service/server/http_people.h"
#include "service/server/http_routes.h"
#include "service/server/lobby.h"
#include "service/server/metrics.h"
#include "service/server/players.h"
#include "service/server/rated.h"
#include "service/server/rated_games.h"
#include "service/server/rooms.h"
#include "service/server/room.h"

typedef struct ws_pss {
    ddz_conn *conn;
} ws_pss;

/* The only way a signal reaches the context. volatile: the handler reads it
 * while the loop thread may be setting it to NULL. */
static ddz_srv *volatile signal_srv;

static void store_reads_done(ddz_srv *srv, bool answer);
static void http_release_held(ddz_srv *srv);
static int filter_request(struct lws *wsi);
static int cb_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len);

static bool origin_ok(ddz_srv *srv, struct lws *wsi)
{
    if (!srv->cfg.origins)
        return true;
    char origin[256];
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
        return false;
    size_t n = strlen(origin);
    for (const char *p = srv->cfg.origins; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, origin, n) == 0)
            return true;
        p += len + (e != NULL);
    }
    return false;
}

/* ---- idle connections ----
 *
 * lws 4.1.6's own idle pings (the retry policy's secs_since_valid_ping)
 * are per-connection lws timers in its sorted list: each ping and each
 * pong re-inserts one at the far end, O(connections) each, and since
 * connections opened together are pinged together, 10,002 of them stalled
 * the loop for up to two seconds every 20 s (p99 1.8 s instead of 2 ms).
 * Here one ddz_timer per connection is checked lazily: a frame only
 * stamps rx_us, and the timer, when due, pings, waits, drops or moves
 * itself to the next deadline. */
#define PONG_WAIT_US (10 * 1000000LL)

static int64_t idle_us(const ddz_srv *srv)
{
    return (int64_t)(srv->cfg.idle_s > 0 ? srv->cfg.idle_s : 20) * 1000000;
}

static void idle_check(ddz_timer *t);

/* how long a message may stay unfinished (rx_chunk, below) */
#define RX_MSG_TIME_US (10 * 1000000LL)

/* Arms `c`'s idle timer `delay_us` from now, or sooner if a message is
 * open and its time runs out first. */
static void arm_idle(ddz_conn *c, int64_t delay_us)
{
    if (c->rx_open) {
        int64_t left = c->rx_start_us + RX_MSG_TIME_US - ddz__now_us();
        if (left < delay_us)
            delay_us = left;
    }
    ddz_loop_arm(&c->srv->loop.base, &c->idle, idle_check, delay_us);
}

/* Closes `c` for a message left unfinished too long. A client that still
 * reads gets the close frame; lws's own timeout ends one that does not. */
static void rx_too_slow(ddz_conn *c)
{
    c->srv->m.ws_unfinished++;
    ddz__conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "message unfinished");
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, 5);
}

static void idle_check(ddz_timer *t)
{
    ddz_conn *c = (ddz_conn *)((char *)t - offsetof(ddz_conn, idle));
    ddz_srv *srv = c->srv;
    int64_t now = ddz__now_us();
    if (c->rx_open && !c->closing && now - c->rx_start_us >= RX_MSG_TIME_US) {
        rx_too_slow(c); /* a message begun, then nothing more of it */
        return;
    }
    if (c->ping_us && c->rx_us < c->ping_us) {
        if (now - c->ping_us >= PONG_WAIT_US) {
            /* no answer: the peer is gone (a close frame would wait for
             * a socket that takes nothing); CLOSED frees c */
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_SYNC);
            return;
        }
        arm_idle(c, c->ping_us + PONG_WAIT_US - now);
        return;
    }
    c->ping_us = 0;
    if (now - c->rx_us < idle_us(srv)) {
        arm_idle(c, c->rx_us + idle_us(srv) - now);
        return;
    }
    c->ping_us = now;
    c->ping_due = true;
    lws_callback_on_writable(c->wsi);
    arm_idle(c, PONG_WAIT_US);
}

/* ERATE for the message in c->rx, dropped unread: it is parsed (it is
 * within DDZ_MSG_MAX, as every message read) only so that the error names
 * it, with `about` and `id` like every other error; one that does not
 * parse gets an error without them, as it would have anyway. Only the
 * errors sent (one per 20 frames dropped) pay for a parse, so a flood
 * costs no more. */
static void rate_error(ddz_conn *c)
{
    ddz_req q;
    char err[160];
    ddz_req_parse(c->rx.buf, c->rx.len, &q, err, sizeof err);
    ddz__conn_error(c, DDZ_ERATE, "too many frames: this one was dropped", &q);
}

/* ---- messages as their frames arrive ----
 *
 * A message may come as many frames (fragments), and lws hands a frame
 * over in chunks as it reads them. Every limit applies as the bytes come,
 * not at the message's end (which an attacker need never send):
 * - each frame, a fragment as much as a whole message, takes one token of
 *   the --rate bucket when it begins; a message with a frame over the rate
 *   is dropped whole at its end (ERATE), and past 200 frames over the rate
 *   the connection is closed (1008). The rate is in frames because that is
 *   what a client spends our work on: a frame's bytes are bounded anyway,
 *   since no frame is larger than the message that holds it;
 * - a message's bytes are counted as they arrive: past DDZ_MSG_MAX it is
 *   ETOOLONG and the connection is closed (1009) at once;
 * - a message must end within RX_MSG_TIME_US of its first byte, whether
 *   its frames keep coming (checked here) or stop (checked by the idle
 *   timer, idle_check); past it the connection is closed (1008).
 * Browsers send every message as one frame, so none of this costs them. */

/* Takes the `len` bytes at `in`, the next chunk of the current frame of
 * `c`'s current message; `frame_starts` when it is a new frame's first.
 * Hands a complete message to the lobby, or drops it, or closes `c`. */
static void rx_chunk(ddz_conn *c, const void *in, size_t len, bool frame_starts)
{
    ddz_srv *srv = c->srv;
    struct lws *wsi = c->wsi;
    int64_t now = c->rx_us;
    bool opens = !c->rx_open;
    if (opens) {
        c->rx_open = true;
        c->rx_start_us = now;
    }
    if (frame_starts && !ddz__conn_rate_ok(c)) {
        c->rx_dropped = true;
        if (++c->dropped > 200) {
            srv->m.ws_flooding++;
            ddz__conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "flooding");
            return;
        }
    }
    int st = ddz_wsc_rx_take_lws(&c->rx, wsi, in, len); /* counted against DDZ_MSG_MAX */
    if (st == DDZ_ETOOLONG) {
        srv->m.ws_too_large++;
        ddz__conn_error(c, DDZ_ETOOLONG, "message over 16 KiB", NULL);
        ddz__conn_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
        return;
    }
    if (st < 0) {
        ddz__conn_close(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "out of memory");
        return;
    }
    if (st == DDZ_WSC_MORE) {
        if (now - c->rx_start_us >= RX_MSG_TIME_US)
            rx_too_slow(c);
        else if (opens && c->idle.armed) /* due no later than the message's time */
            arm_idle(c, c->idle.due_us - ddz_loop_now_us(&srv->loop.base));
        return;
    }
    if (c->rx_dropped) {
        if (c->dropped >= c->next_rate_error) { /* one ERATE per 20 frames dropped */
            rate_error(c);
            c->next_rate_error = c->dropped + 20;
        }
    } else {
        srv->m.frames_in++;
        ddz__lobby_on_frame(srv, c, c->rx.buf, c->rx.len);
    }
    c->rx_open = false;
    c->rx_dropped = false;
}

/* Where a finished post-game analysis goes (defined with the routes). */
static void analysis_done(void *ctx, int64_t id, const char *json, bool ok);

static int cb_ws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                 size_t len)
{
    ddz_srv *srv = lws_context_user(lws_get_context(wsi));
    ws_pss *pss = user;
    ddz_conn *c = pss ? pss->conn : NULL;
    int max_conns = srv->cfg.max_conns > 0 ? srv->cfg.max_conns : 5000;

    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0)
            return -1;
        if (srv->stopping || srv->m.connections >= max_conns || !origin_ok(srv, wsi))
            return -1;
        char addr[DDZ_ADDR_MAX];
        if (!ddz__budget_client_addr(srv, wsi, addr))
            return -1;
        return ddz__budget_conn_allowed(srv, addr) ? 0 : -1;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        /* the 101 is written: the gate's deadline is done with it */
        ddz_gate_answered(&srv->gate, wsi);
        c = calloc(1, sizeof *c);
        if (!c)
            return -1;
        char addr[DDZ_ADDR_MAX];
        c->addr = ddz__budget_client_addr(srv, wsi, addr) ? ddz__budget_conn_open(srv, addr) : NULL;
        if (!c->addr) {
            free(c);
            return -1;
        }
        c->wsi = wsi;
        c->srv = srv;
        c->raw = !lws_is_ssl(wsi);
        ddz_wsc_rate_init(&c->rate, 2 * (srv->cfg.rate > 0 ? srv->cfg.rate : 20), ddz__now_us());
        pss->conn = c;
        ddz__conn_link(c);
        c->rx_us = ddz__now_us();
        ddz_loop_arm(&srv->loop.base, &c->idle, idle_check, idle_us(srv));
        srv->m.connections++;
        srv->m.connections_total++;
        return 0;
    }
    case LWS_CALLBACK_RECEIVE_PONG:
        if (c)
            c->rx_us = ddz__now_us();
        return 0;
    case LWS_CALLBACK_RECEIVE: {
        if (!c || c->closing)
            return 0;
        int64_t now = ddz__now_us();
        c->rx_us = now;
        if (lws_frame_is_binary(wsi)) {
            ddz__conn_error(c, DDZ_ESYNTAX, "frames must be text (JSON)", NULL);
            ddz__conn_close(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary frame");
            return 0;
        }
        rx_chunk(c, in, len, ddz_wsc_rx_frame_starts(&c->rx));
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        if (!c)
            return 0;
        if (c->ping_due && !c->closing && !c->q.off) { /* never inside one of our frames */
            /* not empty: lws 4.1.6 calls no RECEIVE_PONG for a pong
             * without payload, and every client would look dead */
            unsigned char ping[LWS_PRE + 4];
            memcpy(ping + LWS_PRE, "ddz", 4);
            c->ping_due = false;
            if (lws_write(wsi, ping + LWS_PRE, 3, LWS_WRITE_PING) < 0)
                return -1;
            if (!ddz_wsc_queue_empty(&c->q) || c->closing)
                lws_callback_on_writable(wsi);
            return 0;
        }
        if (ddz__conn_write(c) < 0)
            return -1;
        if (c->ping_due && !c->closing) /* it waited for the end of a frame */
            lws_callback_on_writable(wsi);
        /* what waits goes first; lws sends on what it holds of a TLS
         * connection's last write itself, our plain writer does not */
        if (c->closing && (c->raw ? ddz_wsc_queue_empty(&c->q) : !ddz__conn_head_held(c))) {
            lws_close_reason(wsi, (enum lws_close_status)c->close_status,
                             (unsigned char *)c->close_reason, strlen(c->close_reason));
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        /* the first request of a connection, before any mount's protocol
         * is bound (protocols[0] hears it) */
        return filter_request(wsi);
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        /* the store's writer made writes durable (what waited for them
         * goes), its reader answered a read, or a worker finished a
         * hosted AI's decision */
        ddz__conn_release_held(srv);
        if (srv->held_http)
            http_release_held(srv);
        store_reads_done(srv, true);
        ddz_think_job *j;
        while (srv->think && (j = ddz_think_done(srv->think)))
            ddz_seat_ai_done(j);
        if (srv->analyst) /* a post-game analysis finished */
            ddz_analyst_collect(srv->analyst, analysis_done, srv);
        ddz__accounts_collect(srv, true); /* a password hashed or verified */
        ddz__lead_poll(srv);              /* a lock gained or lost, the ladder's news */
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        if (c) {
            ddz_loop_disarm(&srv->loop.base, &c->idle);
            if (ddz__conn_player(c)) /* a closed tab waits for no rated table */
                ddz__rated_cancel(srv, ddz__conn_player(c));
            ddz__players_on_close(srv, c);
            ddz__budget_conn_close(srv, c->addr);
            srv->m.connections--;
            ddz__conn_free(c);
            pss->conn = NULL;
        }
        return 0;
    case LWS_CALLBACK_WSI_DESTROY: {
        /* every wsi of the vhost, to protocols[0]: a client socket's (a
         * WebSocket, or an HTTP request's, bound or not) gives its count
         * back to the gate, whatever it became */
        const struct lws_protocols *p = lws_get_protocol(wsi);
        if (p && (p->callback == cb_ws || p->callback == cb_http))
            ddz_gate_wsi_destroyed(&srv->gate, wsi);
        return 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

/* ---- HTTP routes: /api/games/ID, /healthz, /metrics ---- */

/* One HTTP request per connection. libwebsockets 4.1 mishandles pipelined
 * HTTP/1.1 requests: it starts on the next request as soon as the callback
 * of the current one returns, before its body is written (the answer's
 * state is dropped with the protocol binding, and the connection hangs),
 * and after a file it misreads the next request (403). So every HTTP/1.x
 * answer says "Connection: close", is written whole in the callback that
 * produces it (the headers and the body: lws buffers what the socket does
 * not take and flushes it before closing), and the connection is closed
 * once it is sent; a request pipelined behind it is never answered, and its
 * client sends it again on a new connection (RFC 9112 9.3.2). An answer
 * that waits for the store holds the connection's input meanwhile, so lws
 * starts on nothing else. HTTP/2 streams (TLS with ALPN h2) are one request
 * each already: there the stream just ends. */
typedef struct http_pss {
    struct lws *wsi;
    ddz_store_read *rd; /* the store read this answer waits for, NULL if none */
    /* what answers it when it comes back (ddz_http_req.done) */
    void (*done)(ddz_srv *srv, ddz_store_read *rd, ddz_http_req *req);
    bool ready; /* the answer below is complete, not yet written */
    bool head;  /* a HEAD request: the headers only */
    char *body;
    size_t len;
    const char *type;
    const char *extra; /* more header lines (CRLF-ended): extra_buf, or NULL */
    char extra_buf[DDZ_HTTP_EXTRA_MAX];
    int status;
    /* Not written before the store's write of this ticket is durable
     * (what it tells of, the ladder's standings, must not be lost to a
     * kill after it was read), 0: at once; while set, on srv->held_http. */
    uint64_t hold;
    struct http_pss *held_prev, *held_next;
    /* A POST or DELETE with a body (a body route's): its path, kept from
     * LWS_CALLBACK_HTTP until the body is whole, and the body itself. */
    int method;
    char path[128];
    char *in;               /* malloc'd, in_want + 1 bytes; NULL while none is read */
    size_t in_len, in_want; /* bytes read, bytes the Content-Length said */
    bool lws_body;          /* lws reads the body (TLS), not the gate (gate.h) */
    /* the handler's own work this answer waits for (ddz_http_req.later) */
    void *later;
    void (*forget)(void *later);
} http_pss;

/* True on an HTTP/1.x connection, false on an HTTP/2 stream. */
static bool is_h1(struct lws *wsi)
{
    return lws_get_network_wsi(wsi) == wsi;
}

/* A read the store's reader thread could not take: as when the database is
 * away, ask again. */
static const char db_away[] = "{\"error\":\"EDB\",\"message\":\"database unavailable\"}";

/* Hands `rd` (may be NULL: out of memory) to the store's reader thread;
 * the answer to `h` then waits for it. Returns false (rd freed) when it
 * could not be submitted: the caller answers at once. */
static bool submit_read(ddz_srv *srv, http_pss *h, ddz_store_read *rd)
{
    if (rd)
        rd->owner = h; /* before the reader thread has it */
    if (rd && ddz_store_read_submit(srv->store, rd) == 0) {
        h->rd = rd;
        h->ready = false;
        return true;
    }
    free(rd);
    return false;
}

/* GET /healthz: 200 "ok", or 503 "stopping" once shutdown began (a load
 * balancer sends no one new here meanwhile). */
static void healthz_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    req->type = "text/plain";
    req->body = strdup(srv->stopping ? "stopping\n" : "ok\n");
    req->status = srv->stopping ? HTTP_STATUS_SERVICE_UNAVAILABLE : HTTP_STATUS_OK;
}

/* Sets the answer of `h` from what a handler (or a read's `done`) said. */
static void take_answer(http_pss *h, const ddz_http_req *req)
{
    h->ready = true;
    h->status = req->status;
    h->type = req->type;
    h->body = req->body;
    h->len = req->body ? strlen(req->body) : 0;
    h->extra = NULL;
    if (req->extra) { /* copied: a handler's lines may be its own buffer's */
        snprintf(h->extra_buf, sizeof h->extra_buf, "%s", req->extra);
        h->extra = h->extra_buf;
    }
}

static void answer_later(ddz_srv *srv, void *conn, ddz_http_req *answer);

/* Answers `path` into `h` as the route table says: at once, once a store
 * read it hands over comes back (h->rd, http_read_done()), or when the
 * handler's own work calls answer_later(). */
static void route(ddz_srv *srv, const char *path, http_pss *h)
{
    ddz_http_req req = {.wsi = h->wsi,
                        .method = h->method,
                        .in = h->in ? h->in : "",
                        .in_len = h->in_len,
                        .conn = h,
                        .answer = answer_later};
    ddz__http_route(srv, &srv->routes, path, &req);
    if (h->in) { /* a password may be in it: wiped as soon as it is read */
        sodium_memzero(h->in, h->in_want + 1);
        free(h->in);
        h->in = NULL;
    }
    if (req.later) {
        free(req.body);
        h->later = req.later;
        h->forget = req.forget;
        h->ready = false;
        return;
    }
    if (req.read) {
        free(req.body);
        h->type = req.type;
        h->done = req.done;
        if (submit_read(srv, h, req.read))
            return;
        req.status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        req.body = strdup(db_away);
    }
    take_answer(h, &req);
    h->hold = req.hold;
}

/* Writes a whole answer: the headers (with `extra`, lines of "name: value"
 * ending in CRLF, or NULL), then the body unless `head` (a HEAD request:
 * the headers say the length the body would have). Returns what the
 * callback returns: on HTTP/1.x -1, so that lws closes the connection once
 * the answer is flushed (it says "Connection: close"); on HTTP/2 0, the
 * stream having ended, or -1 if a write failed. */
static int write_answer(struct lws *wsi, int status, const char *type, const char *body, size_t len,
                        bool head, const char *extra)
{
    unsigned char hdr[LWS_PRE + 1024], *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr;
    bool h1 = is_h1(wsi), with_body = len && !head;
    if (lws_add_http_common_headers(wsi, (unsigned)status, type, len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        (h1 && lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                            (const unsigned char *)"close", 5, &p, end)))
        return -1;
    if (extra) {
        size_t n = strlen(extra);
        if ((size_t)(end - p) < n)
            return -1;
        memcpy(p, extra, n);
        p += n;
    }
    if (lws_finalize_http_header(wsi, &p, end))
        return -1;
    int flags = LWS_WRITE_HTTP_HEADERS | (with_body ? 0 : LWS_WRITE_H2_STREAM_END);
    if (lws_write(wsi, start, (size_t)(p - start), (enum lws_write_protocol)flags) < 0)
        return -1;
    /* answered: the gate's deadline on the socket ends (service/net/gate.h) */
    ddz_srv *srv = lws_context_user(lws_get_context(wsi));
    ddz_gate_answered(&srv->gate, wsi);
    if (with_body) {
        unsigned char *buf = malloc(LWS_PRE + len);
        if (!buf)
            return -1;
        memcpy(buf + LWS_PRE, body, len);
        int n = lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_HTTP_FINAL);
        free(buf);
        if (n < 0)
            return -1;
    }
    return h1 ? -1 : (lws_http_transaction_completed(wsi) ? -1 : 0);
}

/* Writes the answer of `h` (write_answer()) and frees its body. */
static int send_answer(struct lws *wsi, http_pss *h)
{
    h->ready = false;
    int rc = write_answer(wsi, h->status, h->type, h->body, h->len, h->head, h->extra);
    free(h->body);
    h->body = NULL;
    return rc;
}

/* Every route and file answers GET and HEAD, and only those (POST used to
 * get the index page), but the body routes (the accounts'), which answer
 * the POST or DELETE they name and nothing else (ddz__http_route_takes).
 * Returns the method's LWSHUMETH_ (GET, HEAD, POST or DELETE), or -1 for
 * another, and sets `uri` (n bytes, "" if none) to the path. */
static int request_method(struct lws *wsi, char *uri, size_t n)
{
    char *p = NULL, meth[16] = "";
    int len = 0, m = lws_http_get_uri_and_method(wsi, &p, &len);
    snprintf(uri, n, "%.*s", p && len > 0 ? len : 0, p ? p : "");
    if (m == LWSHUMETH_COLON_PATH) { /* HTTP/2: the method is a header */
        if (lws_hdr_copy(wsi, meth, sizeof meth, WSI_TOKEN_HTTP_COLON_METHOD) < 0)
            return -1;
        return strcmp(meth, "GET") == 0      ? LWSHUMETH_GET
               : strcmp(meth, "HEAD") == 0   ? LWSHUMETH_HEAD
               : strcmp(meth, "POST") == 0   ? LWSHUMETH_POST
               : strcmp(meth, "DELETE") == 0 ? LWSHUMETH_DELETE
                                             : -1;
    }
    return m == LWSHUMETH_GET || m == LWSHUMETH_HEAD || m == LWSHUMETH_POST || m == LWSHUMETH_DELETE
               ? m
               : -1;
}

/* HEAD of a static file, answered here: lws 4.1 answers it itself but then
 * keeps the connection and misreads a request pipelined behind it (403),
 * so the headers it would send (type, length) are sent from the file's
 * stat, and the connection closes. Returns what the callback returns. */
static int head_static(ddz_srv *srv, struct lws *wsi, const char *uri)
{
    char path[1024];
    struct stat st;
    size_t n = strlen(uri);
    /* lws has resolved "." and ".." segments already; this is a guard */
    bool ok = uri[0] == '/' && !strstr(uri, "/..") &&
              snprintf(path, sizeof path, "%s%s%s", srv->cfg.web_dir, uri,
                       uri[n - 1] == '/' ? "index.html" : "") < (int)sizeof path &&
              stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (!ok)
        return write_answer(wsi, HTTP_STATUS_NOT_FOUND, "application/json", ddz__http_no_resource,
                            strlen(ddz__http_no_resource), true, NULL);
    const char *type = lws_get_mimetype(path, NULL);
    return write_answer(wsi, HTTP_STATUS_OK, type ? type : "application/octet-stream", NULL,
                        (size_t)st.st_size, true, NULL);
}

/* LWS_CALLBACK_FILTER_HTTP_CONNECTION, for every HTTP request before lws
 * serves it (a file or a route): a method other than GET or HEAD is
 * answered 405, HEAD of a static file as head_static() says, and the
 * connection closed. Returns what the callback returns: 0 to go on,
 * nonzero to close. */
static int filter_request(struct lws *wsi)
{
    ddz_srv *srv = lws_context_user(lws_get_context(wsi));
    char uri[512];
    static const char not_allowed[] = "method not allowed\n";
    int method = request_method(wsi, uri, sizeof uri);
    const char *allow = "GET, HEAD";
    bool takes = method >= 0 && ddz__http_route_takes(&srv->routes, uri, method, &allow);
    if (takes && method != LWSHUMETH_HEAD)
        return 0;
    if (takes && ddz__http_is_route(&srv->routes, uri))
        return 0;
    if (takes) { /* HEAD of a static file */
        head_static(srv, wsi, uri);
    } else {
        char extra[64];
        snprintf(extra, sizeof extra, "allow: %s\x0d\x0a", allow);
        write_answer(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                     sizeof not_allowed - 1, method == LWSHUMETH_HEAD, extra);
    }
    return 1; /* answered: lws serves nothing more */
}

/* Takes `h` off the answers waiting for a durable write. */
static void http_unhold(ddz_srv *srv, http_pss *h)
{
    if (!h->hold)
        return;
    *(h->held_prev ? &h->held_prev->held_next : &srv->held_http) = h->held_next;
    if (h->held_next)
        h->held_next->held_prev = h->held_prev;
    h->held_prev = h->held_next = NULL;
    h->hold = 0;
}

/* The store made more writes durable: the answers that waited for them
 * go. */
static void http_release_held(ddz_srv *srv)
{
    uint64_t done = ddz_store_durable(srv->store);
    for (http_pss *h = srv->held_http, *next; h; h = next) {
        next = h->held_next;
        if (h->hold <= done) {
            http_unhold(srv, h);
            /* input flows again: lws does not call WRITEABLE on an HTTP
             * connection whose input is held (see http_read_done) */
            lws_rx_flow_control(h->wsi, 1);
            lws_callback_on_writable(h->wsi);
        }
    }
}

/* The connection of `h` is going away: a read it waits for is orphaned (its
 * answer is dropped when it comes back), the body freed. */
static void http_forget(http_pss *h)
{
    if (h->hold)
        http_unhold(lws_context_user(lws_get_context(h->wsi)), h);
    if (h->rd)
        h->rd->owner = NULL;
    h->rd = NULL;
    if (h->later)
        h->forget(h->later);
    h->later = NULL;
    if (h->in) {
        sodium_memzero(h->in, h->in_want + 1);
        free(h->in);
        h->in = NULL;
    }
    free(h->body);
    h->body = NULL;
}

/* ddz_http_req.answer: answers the request `conn`, whose handler set
 * `later`, with `answer`. */
static void answer_later(ddz_srv *srv, void *conn, ddz_http_req *answer)
{
    (void)srv;
    http_pss *h = conn;
    h->later = NULL;
    take_answer(h, answer);
    answer->body = NULL; /* taken */
    /* input flows again, and the answer goes on WRITEABLE (see
     * http_read_done) */
    if (!h->lws_body)
        lws_rx_flow_control(h->wsi, 1);
    lws_callback_on_writable(h->wsi);
}

/* A job of the analyst finished (on the loop): its analysis goes to the
 * store's cache, so that later requests (on any node) read it there. */
static void analysis_done(void *ctx, int64_t id, const char *json, bool ok)
{
    ddz_srv *srv = ctx;
    if (!ok) {
        srv->m.analyses_failed++;
        return;
    }
    srv->m.analyses_computed++;
    if (srv->store)
        ddz_store_add_analysis(srv->store, id, json); /* a cache: a write lost is no harm */
}

/* A route's store read came back from the store's reader thread. Its
 * connection, if still open (`answer`), now gets the answer the route's
 * `done` makes of it; what `done` did not take of the read is freed. */
static void http_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    http_pss *h = rd->owner;
    if (answer && h) {
        h->rd = NULL;
        ddz_http_req req = {.wsi = h->wsi, .status = HTTP_STATUS_OK, .type = h->type};
        h->done(srv, rd, &req); /* takes what it serves of rd */
        take_answer(h, &req);
        /* Input flows again (lws does not call WRITEABLE on an HTTP
         * connection whose input is held); a request pipelined behind is
         * met in FILTER_HTTP_CONNECTION. */
        lws_rx_flow_control(h->wsi, 1);
        lws_callback_on_writable(h->wsi);
    }
    free(rd->json);
    free(rd->analysis);
    free(rd);
}

/* Hands the answered store reads to whoever waits for them; with `answer`
 * false (the loop is gone) only frees them. */
static void store_reads_done(ddz_srv *srv, bool answer)
{
    ddz_store_read *rd;
    while (srv->store && (rd = ddz_store_read_done(srv->store))) {
        if (ddz__players_owns_read(srv, rd))
            ddz__players_read_done(srv, rd, answer);
        else if (ddz__accounts_owns_read(rd))
            ddz__accounts_read_done(srv, rd, answer);
        else if (ddz__rated_owns_read(rd))
            ddz__rated_read_done(srv, rd, answer);
        else if (ddz__rated_games_owns_read(rd))
            ddz__rated_games_read_done(srv, rd, answer);
        else
            http_read_done(srv, rd, answer);
    }
}

/* The request of `h` was routed (route()): it waits for a store read,
 * for the handler's own work or for a durable write, or its answer goes
 * now. Returns what the callback returns. */
static int routed(ddz_srv *srv, struct lws *wsi, http_pss *h)
{
    if (h->rd || h->later) {
        /* lws must not start on a request pipelined behind this one
         * while the store reads: see http_pss. After a body, lws 4.1
         * keeps the request in its body state and, with its input held,
         * tells of the body's end again at every turn of the loop: its
         * input stays open, and a request pipelined behind it is met in
         * FILTER_HTTP_CONNECTION (closed after this answer) */
        if (!h->lws_body)
            lws_rx_flow_control(wsi, 0);
        /* lws's own timeout of the request (its context's timeout_secs,
         * 5 s) would close one whose answer takes longer (a sign-in
         * queued behind others): the gate's deadline, extended below,
         * bounds it instead */
        if (h->later)
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
        /* the read answers within the store's bound (a 503 at worst):
         * the gate's deadline leaves it that long, and a second; the
         * handler's own work (the accounts': a password hash queued
         * behind at most DDZ_PWHASH_MAX_JOBS others, some 3 s on an idle
         * 2-core machine, and up to three store reads) is given
         * DDZ_HTTP_LATER_MS more */
        int ms = srv->cfg.db_timeout_ms > 0 ? srv->cfg.db_timeout_ms : DDZ_PG_TIMEOUT_MS;
        ddz_gate_extend(&srv->gate, wsi,
                        (int64_t)(ms * (h->later ? 3 : 1) + (h->later ? DDZ_HTTP_LATER_MS : 0)) *
                                1000 +
                            1000000);
        return 0;
    }
    if (h->hold && h->hold > ddz_store_durable(srv->store)) {
        /* what it tells of is not durable yet: a commit's time, or
         * --db-timeout once when the database stops answering */
        h->held_prev = NULL;
        h->held_next = srv->held_http;
        if (h->held_next)
            h->held_next->held_prev = h;
        srv->held_http = h;
        lws_rx_flow_control(wsi, 0);
        int ms = srv->cfg.db_timeout_ms > 0 ? srv->cfg.db_timeout_ms : DDZ_PG_TIMEOUT_MS;
        ddz_gate_extend(&srv->gate, wsi, (int64_t)ms * 1000 + 1000000);
        return 0;
    }
    h->hold = 0;
    return send_answer(wsi, h);
}

/* A POST or DELETE to a body route: its Content-Length says how much body
 * comes (none for a DELETE without one, or for 0), at most
 * DDZ_HTTP_BODY_MAX bytes (else 413, before any is read), and a POST must
 * say it (411: no chunked body is taken, the gate refuses one). Returns 1
 * to route at once (no body), 0 when the body is awaited (routed at
 * LWS_CALLBACK_HTTP_BODY_COMPLETION), or what the callback returns once
 * refused. */
static int body_start(ddz_srv *srv, struct lws *wsi, http_pss *h, const char *path)
{
    static const char too_large[] =
        "{\"error\":\"ETOOLONG\",\"message\":\"a request body holds at most 4096 bytes\"}";
    static const char no_length[] =
        "{\"error\":\"EFIELD\",\"message\":\"send Content-Length with the body\"}";
    size_t blen = 0;
    const char *body = ddz_gate_body(&srv->gate, wsi, &blen);
    if (body) { /* read by the gate with the head (gate.h): whole already */
        if (!(h->in = malloc(blen + 1)))
            return -1;
        memcpy(h->in, body, blen);
        h->in[blen] = '\0';
        h->in_len = h->in_want = blen;
        return 1;
    }
    char cl[32] = "";
    int n = lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    if (n <= 0 && h->method == LWSHUMETH_DELETE)
        return 1;
    if (n <= 0 || strspn(cl, "0123456789") != (size_t)n)
        return write_answer(wsi, HTTP_STATUS_LENGTH_REQUIRED, "application/json", no_length,
                            sizeof no_length - 1, false, NULL);
    if (n > 6 || atol(cl) > DDZ_HTTP_BODY_MAX)
        return write_answer(wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "application/json", too_large,
                            sizeof too_large - 1, false, NULL);
    size_t want = (size_t)atol(cl);
    if (want == 0)
        return 1;
    /* under TLS lws reads the body itself (LWS_CALLBACK_HTTP_BODY) */
    if (!(h->in = malloc(want + 1)))
        return -1;
    h->in_want = want;
    h->in_len = 0;
    h->lws_body = true;
    snprintf(h->path, sizeof h->path, "%s", path);
    return 0;
}

static int cb_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    ddz_srv *srv = lws_context_user(lws_get_context(wsi));
    http_pss *h = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        char path[128];
        int method = request_method(wsi, path, sizeof path);
        http_forget(h); /* nothing, but whatever a reused pss held is freed */
        memset(h, 0, sizeof *h);
        h->wsi = wsi;
        h->head = method == LWSHUMETH_HEAD;
        h->method = method;
        if (method < 0) /* filtered already; never served */
            return filter_request(wsi);
        if (method == LWSHUMETH_POST || method == LWSHUMETH_DELETE) {
            /* a body route's (filter_request let no other through): the
             * body is read first, bounded, then routed */
            int rc = body_start(srv, wsi, h, path);
            if (rc <= 0)
                return rc;
        }
        route(srv, path, h);
        return routed(srv, wsi, h);
    }
    case LWS_CALLBACK_HTTP_BODY:
        if (len == 0) /* lws's empty body of a POST whose Content-Length is 0 */
            return 0;
        if (h && h->in && h->in_len < h->in_want && len <= h->in_want - h->in_len) {
            memcpy(h->in + h->in_len, in, len);
            h->in_len += len;
            return 0;
        }
        return -1; /* more than its Content-Length said: lws never gives it */
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        /* a body lws did not read (the gate's, or none: lws tells of a
         * Content-Length of 0 too) was routed at LWS_CALLBACK_HTTP */
        if (h && (!h->in || h->in_len < h->in_want))
            return h->in ? -1 : 0;
        h->in[h->in_len] = '\0';
        route(srv, h->path, h);
        if (h->ready) {
            /* answered at once: written on WRITEABLE, not from inside the
             * body's callback */
            lws_callback_on_writable(wsi);
            return 0;
        }
        return routed(srv, wsi, h);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return h && h->ready && !h->hold ? send_answer(wsi, h) : 0;
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        /* A request pipelined behind one that waited for the store: lws
         * parsed it once the input was let go, before the WRITEABLE that
         * was to write the waiting answer. That answer goes now, and the
         * connection closes after it (nonzero) without this request. */
        if (h && (h->ready || h->rd || h->later || h->in)) {
            if (h->ready && !h->hold)
                send_answer(wsi, h);
            return 1;
        }
        return filter_request(wsi);
    case LWS_CALLBACK_ADD_HEADERS: {
        /* a static file (the "/" mount is bound to this protocol): it too
         * is the connection's only answer (HEAD never gets here: see
         * head_static()) */
        struct lws_process_html_args *a = in;
        unsigned char *p = (unsigned char *)a->p;
        ddz_gate_answered(&srv->gate, wsi); /* the file's head goes now */
        if (is_h1(wsi) &&
            lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close",
                                         5, &p, p + a->max_len))
            return -1;
        a->p = (char *)p;
        return 0;
    }
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return is_h1(wsi) ? -1 : 0; /* close once the file is flushed */
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL: /* the last call with `h`, closing or not */
        if (h)
            http_forget(h);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

/* lws hands a WebSocket message over in chunks of at most WS_RX_CHUNK
 * bytes from a buffer of that size it keeps per connection; conn.c's
 * reassembly (bounded at DDZ_MSG_MAX) joins them. A client's frames are
 * some 30 to 300 bytes, so 2 KiB takes nearly every one whole, where a
 * DDZ_MSG_MAX-sized buffer held 16 KiB of address space and its first
 * pages a connection. */
#define WS_RX_CHUNK 2048

static const struct lws_protocols protocols[] = {
    {"ddz", cb_ws, sizeof(ws_pss), WS_RX_CHUNK, 0, NULL, 0},
    {"ddz-http", cb_http, sizeof(http_pss), 0, 0, NULL, 0},
    DDZ_LWS_LOOP_PROTOCOL,
    DDZ_LISTENER_PROTOCOL,
    DDZ_GATE_PROTOCOL,
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static void on_signal(int sig)
{
    (void)sig;
    ddz_srv *srv = signal_srv; /* read once: the loop may clear it */
    if (srv) {
        srv->stopping = 1;
        lws_cancel_service(srv->ctx);
    }
}

static void wake_loop(void *ctx)
{
    ddz_srv *srv = ctx;
    if (srv->ctx)
        lws_cancel_service(srv->ctx);
}

static void listener_log(void *ctx, const char *level, const char *msg)
{
    ddz__log(ctx, level, NULL, "%s", msg);
}

/* The gate's view of the address table (service/net/gate.h): each socket
 * is counted against its peer's address from its accept to its close. */
static void *gate_admit(void *ctx, const struct sockaddr *peer, socklen_t len, bool *busy)
{
    return ddz__budget_sock_open(ctx, peer, len, busy);
}

static long gate_weight(void *ctx, void *tag)
{
    (void)ctx;
    return ((ddz_addr *)tag)->socks;
}

static void gate_release(void *ctx, void *tag)
{
    ddz__budget_sock_close(ctx, tag);
}

static void reap_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, reap_timer));
    ddz__budget_sweep(srv);
    ddz__players_reap(srv);
    ddz__rooms_reap(srv);
    ddz_loop_arm(&srv->loop.base, &srv->reap_timer, reap_tick, 5 * LWS_US_PER_SEC);
}

/* Only wakes the loop while the connections drain at shutdown: a turn of
 * the epoll loop waits for an event, with no timeout of its own. */
static void drain_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, drain_timer));
    ddz_loop_arm(&srv->loop.base, &srv->drain_timer, drain_tick, 50000);
}

/* How often our listed rooms are compared with what the cluster last got
 * (ddz_cluster_publish hands over only a change): a room's seat taken
 * shows in other nodes' lobbies within this plus their next read. */
#define CLUSTER_TICK_US (500 * LWS_US_PER_MS)

static void cluster_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, cluster_timer));
    ddz__lobby_cluster_publish(srv);
    ddz_loop_arm(&srv->loop.base, &srv->cluster_timer, cluster_tick, CLUSTER_TICK_US);
}

/* The competitions end their tables (the rooms recorded the games being
 * played as aborted first), in the order they were made. */
static void plugins_stop(ddz_srv *srv)
{
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->stop)
            srv->plugin[i]->stop(srv->plugin_self[i]);
}

/* ... and are freed, after the locks they followed were let go. */
static void plugins_destroy(ddz_srv *srv)
{
    for (int i = srv->nplugins - 1; i >= 0; i--) {
        if (srv->plugin[i]->destroy)
            srv->plugin[i]->destroy(srv->plugin_self[i]);
        srv->plugin_self[i] = NULL;
    }
    srv->nplugins = 0;
}

/* Makes the competitions of cfg.plugins (host.h): each registers its
 * routes and lead jobs now, before the lws mounts are made. Returns 0, or
 * -1 with the reason on stderr (those made are freed). */
static int plugins_create(ddz_srv *srv)
{
    for (int i = 0; i < srv->cfg.nplugins; i++) {
        if (srv->nplugins >= DDZ_HOST_PLUGINS) {
            fprintf(stderr, "ddz serve: more than %d competitions\n", DDZ_HOST_PLUGINS);
            plugins_destroy(srv);
            return -1;
        }
        const ddz_plugin *pl = srv->cfg.plugins[i];
        char err[256] = "";
        void *self = pl->create(srv, err, sizeof err);
        if (!self) {
            fprintf(stderr, "ddz serve: the %s: %s\n", pl->kind, err);
            plugins_destroy(srv);
            return -1;
        }
        srv->plugin[srv->nplugins] = pl;
        srv->plugin_self[srv->nplugins++] = self;
    }
    return 0;
}

/* ddz_server_run's failures once the loop and its threads exist: tears
 * down whatever started (each step does nothing for what did not) in the
 * reverse order of the start. Returns 1, the exit code. */
static int start_failed(ddz_srv *srv)
{
    ddz_pg_stop_now(&srv->pg_stop); /* nothing below waits on the database */
    ddz__rated_stop(srv);
    plugins_stop(srv);
    ddz__lead_stop(srv);
    ddz_cluster_stop(srv->cluster);
    srv->cluster = NULL;
    plugins_destroy(srv);
    ddz__rooms_destroy(srv);
    ddz__players_destroy(srv);
    ddz_think_destroy(srv->think);
    ddz_analyst_destroy(srv->analyst);
    srv->analyst = NULL;
    ddz__accounts_stop(srv);
    ddz_store_reader_stop(srv->store);
    ddz_store_on_durable(srv->store, NULL, NULL); /* the writer wakes the loop no more */
    ddz_gate_fini(&srv->gate);
    ddz_lws_loop_fini(&srv->loop);
    ddz_evloop_destroy(&srv->evl);
    ddz_listener_close(&srv->listener);
    store_reads_done(srv, false);
    ddz__accounts_collect(srv, false);
    ddz__accounts_destroy(srv);
    ddz__budget_destroy(srv);
    ddz_store_close(srv->store);
    ddz_pg_stop_fini(&srv->pg_stop);
    return 1;
}

int ddz_server_run(const ddz_server_cfg *cfg)
{
    static ddz_srv srv_storage;
    ddz_srv *srv = &srv_storage;
    memset(srv, 0, sizeof *srv);
    srv->cfg = *cfg;
    char err[256];
    /* Every HTTP route, registered by the module that answers it, before
     * the lws mounts are made from them (http_routes.h). They are the
     * code's: one failing is a bug, told as such. */
    int rc = ddz__http_route_add(&srv->routes, "/healthz", false, healthz_get);
    if (rc == 0)
        rc = ddz__http_games_routes(srv);
    if (rc == 0)
        rc = ddz__http_people_routes(srv);
    if (rc == 0)
        rc = ddz__metrics_routes(srv);
    if (rc == 0)
        rc = ddz__accounts_routes(srv);
    if (rc < 0) {
        fprintf(stderr, "ddz serve: the HTTP routes: %s\n", ddz_strerror(rc));
        return 1;
    }
    if (plugins_create(srv) < 0)
        return 1;
    /* a job of the leader as the plug-ins' are, asked for before it starts */
    if ((rc = ddz__rated_want(srv)) < 0) {
        fprintf(stderr, "ddz serve: rated quick play's lead job: %s\n", ddz_strerror(rc));
        plugins_destroy(srv);
        return 1;
    }
    /* with PostgreSQL only (a SQLite file has no round trips to end);
     * without an eventfd a stop is seen when a wait ends */
    srv->pg_stop = (ddz_pg_stop){.fd = -1};
    if (ddz_store_is_url(cfg->db_path))
        ddz_pg_stop_init(&srv->pg_stop);
    /* A PostgreSQL store keeps what the database cannot take meanwhile in
     * a journal: one per database and node, so the default's name says
     * which (a node restarted with the same --db and --node finds it). */
    char journal[64];
    char shown[256];
    ddz_store_shown(cfg->db_path, shown, sizeof shown);
    uint8_t h[4];
    crypto_generichash_state hs;
    crypto_generichash_init(&hs, NULL, 0, sizeof h);
    crypto_generichash_update(&hs, (const uint8_t *)shown, strlen(shown) + 1);
    if (cfg->node)
        crypto_generichash_update(&hs, (const uint8_t *)cfg->node, strlen(cfg->node));
    crypto_generichash_final(&hs, h, sizeof h);
    snprintf(journal, sizeof journal, "ddz-journal-%02x%02x%02x%02x.db", h[0], h[1], h[2], h[3]);
    ddz_store_options so = {
        .max_queue = cfg->db_queue > 0 ? (size_t)cfg->db_queue : 0,
        .journal = cfg->db_journal ? cfg->db_journal : journal,
        .journal_max = cfg->db_journal_max > 0 ? (size_t)cfg->db_journal_max : 0,
        .journal_max_bytes = cfg->db_journal_mb > 0 ? (int64_t)cfg->db_journal_mb << 20 : 0,
        .timeout_ms = cfg->db_timeout_ms,
        .stop = &srv->pg_stop,
    };
    srv->store = ddz_store_open(cfg->db_path, &so, err, sizeof err);
    if (!srv->store) {
        fprintf(stderr, "ddz serve: %s\n", err);
        ddz_pg_stop_fini(&srv->pg_stop);
        plugins_destroy(srv);
        return 1;
    }
    lws_set_log_level(LLL_ERR, ddz_gate_lws_log);

    /* Before the context: lws sizes its tables by the descriptor limit. */
    int max_conns = cfg->max_conns > 0 ? cfg->max_conns : 5000;
    ddz_fd_budget budget = ddz_listener_budget(max_conns);
    int port = cfg->port > 0 ? cfg->port : 8080;
    if (ddz_listener_open(&srv->listener, cfg->bind, port, budget, err, sizeof err) < 0) {
        fprintf(stderr, "ddz serve: %s\n", err);
        ddz_store_close(srv->store);
        ddz_pg_stop_fini(&srv->pg_stop);
        plugins_destroy(srv);
        return 1;
    }
    srv->listener.log = listener_log;
    srv->listener.ctx = srv;

    static struct lws_http_mount m_web;
    /* ddz-http sees the static files too (their headers, their end, and
     * the answer when there is no such file) */
    m_web = (struct lws_http_mount){.mount_next = ddz__http_mounts(&srv->routes, "ddz-http", NULL),
                                    .mountpoint = "/",
                                    .origin = cfg->web_dir,
                                    .def = "index.html",
                                    .protocol = "ddz-http",
                                    .origin_protocol = LWSMPRO_FILE,
                                    .mountpoint_len = 1};

    /* No lws idle pings (ours are in idle_check): without a policy lws
     * applies its default one (a ping after 300 s), whose timer is inserted
     * into its sorted list as each connection opens, O(connections) each. */
    static const lws_retry_bo_t no_validity = {.secs_since_valid_ping = 0,
                                               .secs_since_valid_hangup = 0};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.retry_and_idle_policy = &no_validity;
    /* ddz accepts connections itself (service/net/listener.h) */
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.mounts = &m_web;
    info.user = srv;
    /* Room for any head the gate lets through (lws stores less than the
     * raw bytes), so that on plain HTTP it is the gate that refuses, with
     * 431; under TLS, where the gate cannot read heads, this is the limit
     * (lws closes without an answer past it: docs/decisions.md). */
    info.max_http_header_data = DDZ_GATE_HEAD_MAX + 1024;
    info.options = LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE |
                   LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (cfg->tls_cert && cfg->tls_key) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
        /* TLS 1.2: forward secrecy (ECDHE) and AEAD only, as Mozilla's
         * "intermediate" profile less DHE; OpenSSL's default list let in
         * RSA key exchange and CBC with SHA-1. TLS 1.3: OpenSSL's default
         * suites (all AEAD with forward secrecy). Nothing before 1.2, no
         * renegotiation, no compression. */
        info.ssl_cipher_list = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                               "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                               "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
        info.ssl_options_set = (long)(SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 |
                                      SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    }
    /* HEADERS_SECURITY_BEST_PRACTICES sets a strict CSP; the client is
     * same-origin modules only, which it allows. */
    srv->ctx = ddz_evloop_create(&srv->evl, &info, (ddz_evloop_kind)cfg->event_loop, "ddz serve");
    if (srv->ctx)
        srv->vhost = lws_get_vhost_by_name(srv->ctx, "default");
    bool loop_ok = srv->vhost && ddz_lws_loop_init(&srv->loop, srv->ctx, srv->vhost) == 0;
    static const ddz_gate_ops gate_ops = {gate_admit, gate_weight, gate_release};
    if (loop_ok && ddz_gate_init(&srv->gate, srv->vhost, &srv->loop.base,
                                 cfg->tls_cert && cfg->tls_key, budget.cap, &gate_ops, srv) < 0)
        fprintf(stderr, "ddz serve: the gate's epoll set cannot be made: request heads go to "
                        "lws unread\n");
    srv->listener.gate = &srv->gate;
    if (!loop_ok || ddz_listener_start(&srv->listener, srv->vhost, &srv->loop.base) < 0) {
        fprintf(stderr, "ddz serve: cannot start the event loop (TLS certificate or key?)\n");
        if (loop_ok)
            ddz_lws_loop_fini(&srv->loop);
        ddz_gate_fini(&srv->gate);
        ddz_evloop_destroy(&srv->evl);
        ddz_listener_close(&srv->listener);
        ddz__budget_destroy(srv);
        ddz_store_close(srv->store);
        ddz_pg_stop_fini(&srv->pg_stop);
        plugins_destroy(srv);
        return 1;
    }
    /* a finished game's `over` waits for its record to be durable
     * (conn.h): the writer wakes the loop when it is */
    ddz_store_on_durable(srv->store, wake_loop, srv);
    ddz_think_budget think_budget = ddz__budget_think(srv);
    srv->think = ddz_think_create(2, &think_budget, wake_loop, srv);
    /* the engines' spawner thread now rather than at the first engine's
     * start: its thread and its mailbox's pipe are the server's from the
     * beginning, not a loop's turn's cost nor a descriptor count's jump */
    if (ddz_engine_prepare() < 0) {
        fprintf(stderr, "ddz serve: cannot start the engine spawner thread\n");
        return start_failed(srv);
    }
    ddz_analyst_options aopt = {.max_jobs = cfg->analysis_jobs == 0  ? DDZ_ANALYST_JOBS
                                            : cfg->analysis_jobs < 0 ? 0
                                                                     : cfg->analysis_jobs};
    srv->analyst = srv->think ? ddz_analyst_create(&aopt, wake_loop, srv) : NULL;
    if (!srv->think || !srv->analyst || ddz_store_reader_start(srv->store, wake_loop, srv) < 0) {
        fprintf(stderr, "ddz serve: cannot start the %s threads\n",
                !srv->think     ? "AI worker"
                : !srv->analyst ? "analysis"
                                : "database reader");
        return start_failed(srv);
    }
    if (ddz__accounts_start(srv, wake_loop) < 0) {
        fprintf(stderr, "ddz serve: cannot start the password hashing threads\n");
        return start_failed(srv);
    }
    if (cfg->node && ddz_cluster_is_pg_url(cfg->db_path)) {
        ddz_cluster_cfg cc = {.db_url = cfg->db_path,
                              .node = cfg->node,
                              .public_url = cfg->public_url,
                              .heartbeat_ms = cfg->cluster_beat_ms,
                              .dead_ms = cfg->cluster_dead_ms,
                              .db_timeout_ms = cfg->db_timeout_ms,
                              .stop = &srv->pg_stop};
        srv->cluster = ddz_cluster_start(&cc, err, sizeof err);
        if (!srv->cluster) {
            fprintf(stderr, "ddz serve: %s\n", err);
            return start_failed(srv);
        }
    }
    if (ddz__lead_start(srv, err, sizeof err) < 0) {
        fprintf(stderr, "ddz serve: %s\n", err);
        return start_failed(srv);
    }
    /* the competitions (several nodes: a tournament starts where its lock
     * is, service/tourney/tourney_srv.c) */
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->start &&
            srv->plugin[i]->start(srv->plugin_self[i], err, sizeof err) < 0) {
            fprintf(stderr, "ddz serve: %s\n", err);
            return start_failed(srv);
        }
    signal_srv = srv;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    srv->reap_fn = reap_tick;
    ddz_loop_arm(&srv->loop.base, &srv->reap_timer, reap_tick, 5 * LWS_US_PER_SEC);
    ddz__players_start(srv); /* revoked tokens are looked for */
    if (ddz__rated_start(srv) < 0) {
        fprintf(stderr, "ddz serve: out of memory for rated quick play's queues\n");
        return start_failed(srv);
    }
    if (srv->cluster) {
        ddz_loop_arm(&srv->loop.base, &srv->cluster_timer, cluster_tick, CLUSTER_TICK_US);
        ddz__log(srv, "info", NULL, "cluster node %s, reached at %s", cfg->node, cfg->public_url);
    }
    ddz__log(srv, "info", NULL, "listening on %s://%s:%d/ (WebSocket at /ws, %s loop)",
             cfg->tls_cert ? "https" : "http", cfg->bind ? cfg->bind : "0.0.0.0", port,
             ddz_evloop_name(&srv->evl));
    if (budget.cap < max_conns)
        ddz__log(srv, "warn", NULL,
                 "the descriptor limit (%ld) leaves room for %ld sockets, fewer than the "
                 "connection cap (%d): raise the hard limit (ulimit -Hn, LimitNOFILE=)",
                 budget.nofile, budget.cap, max_conns);

    while (!srv->stopping) {
        if (ddz_evloop_run_once(&srv->evl) < 0)
            break;
        ddz__conn_flush(srv);
    }

    /* From here on a second signal must not touch the context being torn
     * down: the handler finds no server and does nothing. */
    signal_srv = NULL;
    /* Within 2 s whatever the database does: from now on no thread waits
     * on it past DDZ_PG_STOP_GRACE_MS (1 s). A live database takes the
     * last writes as usual; one that does not answer has them in the
     * journal by then (the next start replays it), and the `over`s that
     * waited for them go out before the connections close. */
    ddz_pg_stop_now(&srv->pg_stop);

    /* Shutdown: tell everyone, record cut games as aborted, drain. Run-once
     * work is not looked at again (a lock gained now starts nothing). */
    ddz_loop_disarm(&srv->loop.base, &srv->lead_timer);
    ddz__log(srv, "info", NULL, "shutting down");
    for (ddz_room *r = srv->rooms.list; r; r = ddz__room_next(r))
        ddz__room_abort(r);
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (p->conn) {
            ddz_event bye = {.type = DDZ_EVENT_BYE,
                             .bye = {.reason = "the server is shutting down"}};
            ddz__conn_send(p->conn, ddz_event_print(&bye));
            ddz__conn_close(p->conn, LWS_CLOSE_STATUS_GOINGAWAY, "shutting down");
        }
    int64_t until = ddz__now_us() + 2000000;
    drain_tick(&srv->drain_timer);
    while (srv->m.connections > 0 && ddz__now_us() < until) {
        if (ddz_evloop_run_once(&srv->evl) < 0)
            break;
        ddz__conn_flush(srv);
    }
    ddz_loop_disarm(&srv->loop.base, &srv->drain_timer);
    ddz_loop_disarm(&srv->loop.base, &srv->reap_timer);
    ddz_loop_disarm(&srv->loop.base, &srv->cluster_timer);
    /* the others drop our rooms at once rather than when our heartbeat
     * stops counting */
    ddz_cluster_stop(srv->cluster);
    srv->cluster = NULL;
    plugins_stop(srv); /* their rooms let the competitions' runners go first */
    /* after the ladder queued its last results and drops: the lead thread
     * writes them in a last round, then frees this node's locks */
    ddz__lead_stop(srv);
    plugins_destroy(srv);
    ddz__rated_stop(srv);
    ddz__rooms_destroy(srv);
    ddz__rated_games_stop(srv); /* after the rooms, whose closing may rate a game */
    /* The rooms' engines were asked to stop; their process groups are
     * killed within the grace (engine.h), which shutdown waits out: a
     * child that ignores SIGTERM must not outlive the server. */
    if (ddz_engine_settle(DDZ_ENGINE_KILL_GRACE_MS + 800) < 0)
        ddz__log(srv, "warn", NULL, "%ld engine processes still stopping at exit",
                 ddz_engine_stopping());
    ddz__players_destroy(srv);
    ddz_think_destroy(srv->think); /* after the rooms orphaned their jobs */
    srv->think = NULL;
    ddz_analyst_destroy(srv->analyst); /* a job running stops at its next ply */
    srv->analyst = NULL;
    /* The reader wakes the loop: stopped before the loop goes. The reads
     * it answered meanwhile are freed once the connections that waited
     * for them are closed. So does the hash pool. */
    ddz__accounts_stop(srv);
    ddz_store_reader_stop(srv->store);
    /* Nor does the writer, whose wake is the loop's (what it makes
     * durable now is told to nobody: the connections are closed). */
    ddz_store_on_durable(srv->store, NULL, NULL);
    /* Accepting went on through the drain (a new request is answered 503
     * "stopping", a WebSocket refused); it ends with the context. */
    ddz_listener_stop(&srv->listener);
    ddz_gate_fini(&srv->gate); /* the heads still held; lws's sockets release as they go */
    srv->reap_fn = NULL;
    ddz_lws_loop_fini(&srv->loop);
    ddz_evloop_destroy(&srv->evl);
    srv->ctx = NULL;
    ddz_listener_close(&srv->listener);
    store_reads_done(srv, false);
    ddz__accounts_collect(srv, false);
    ddz__accounts_destroy(srv);
    ddz__budget_destroy(srv); /* after the connections and rooms that counted */
    ddz_store_close(srv->store);
    ddz_pg_stop_fini(&srv->pg_stop);
    ddz__log(srv, "info", NULL, "stopped");
    signal_srv = NULL;
    return 0;
}
