/* conn.c - a connection's send queue (the shared ws_conn.h queue, with
 * the server's store tickets and budgets around it), close, rate limiter
 * and player. */
#include "service/server/conn.h"

#include <stdlib.h>
#include <string.h>

#include "proto/event.h"
#include "rules/error.h"
#include "service/server/budget.h"
#include "service/server/context.h"

/* ---- the connections and their queues ---- */

void ddz__conn_link(ddz_conn *c)
{
    ddz_budget *b = &c->srv->budget;
    ddz_wsc_queue_init(&c->q, ddz__budget_max_queue_per_conn(c->srv));
    ddz_wsc_rx_init(&c->rx, DDZ_MSG_MAX);
    c->prev = NULL;
    c->next = b->conns;
    if (b->conns)
        b->conns->prev = c;
    b->conns = c;
}

/* ---- frames that wait for a durable write ---- */

static uint64_t durable(const ddz_srv *srv)
{
    return srv->store ? ddz_store_durable(srv->store) : UINT64_MAX;
}

/* ---- plain connections that queued this turn ---- */

static void dirty_mark(ddz_conn *c)
{
    if (c->dirty)
        return;
    c->dirty = true;
    c->dirty_prev = NULL;
    c->dirty_next = c->srv->dirty;
    if (c->dirty_next)
        c->dirty_next->dirty_prev = c;
    c->srv->dirty = c;
}

static void dirty_unlink(ddz_conn *c)
{
    if (!c->dirty)
        return;
    *(c->dirty_prev ? &c->dirty_prev->dirty_next : &c->srv->dirty) = c->dirty_next;
    if (c->dirty_next)
        c->dirty_next->dirty_prev = c->dirty_prev;
    c->dirty_prev = c->dirty_next = NULL;
    c->dirty = false;
}

/* Asks for `c` to be written: at the end of this turn if plain, on
 * WRITEABLE if TLS. */
static void want_write(ddz_conn *c)
{
    if (c->raw)
        dirty_mark(c);
    else
        lws_callback_on_writable(c->wsi);
}

static void held_unlink(ddz_conn *c)
{
    if (!c->held)
        return;
    *(c->held_prev ? &c->held_prev->held_next : &c->srv->held) = c->held_next;
    if (c->held_next)
        c->held_next->held_prev = c->held_prev;
    c->held_prev = c->held_next = NULL;
    c->held = 0;
}

bool ddz__conn_head_held(const ddz_conn *c)
{
    const ddz_wsc_msg *m = ddz_wsc_queue_peek(&c->q);
    return m && m->tag && m->tag > durable(c->srv);
}

bool ddz__conn_settled(const ddz_conn *c)
{
    return !c || !c->held || c->held <= durable(c->srv);
}

void ddz__conn_release_held(ddz_srv *srv)
{
    if (!srv->held)
        return;
    uint64_t done = durable(srv);
    for (ddz_conn *c = srv->held, *next; c; c = next) {
        next = c->held_next;
        if (!ddz_wsc_queue_empty(&c->q) && ddz_wsc_queue_peek(&c->q)->tag <= done)
            want_write(c); /* what waited goes, up to the next that waits */
        if (c->held <= done)
            held_unlink(c);
    }
}

static void drop_queue(ddz_conn *c)
{
    held_unlink(c);
    dirty_unlink(c);
    c->srv->budget.queued -= c->q.bytes;
    ddz_wsc_queue_clear(&c->q);
}

/* Cuts `c` now: its queue is freed and lws closes the connection on its
 * next turn, without a close frame (a client that does not read would
 * never take one, and its queue would stay until the ping gave up). */
static void cut(ddz_conn *c, int kind, const char *why)
{
    drop_queue(c);
    c->closing = true;
    c->close_status = LWS_CLOSE_STATUS_POLICY_VIOLATION;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", why);
    ddz__budget_refused(c->srv, kind);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    ddz__log(c->srv, "info", NULL, "connection cut: %s", why);
}

/* While all the queues together are over their budget, cuts the
 * connection with the most queued: the clients that read the least. */
static void within_budget(ddz_srv *srv)
{
    size_t max = ddz__budget_max_queued(srv);
    while (srv->budget.queued > max) {
        ddz_conn *big = NULL;
        for (ddz_conn *c = srv->budget.conns; c; c = c->next)
            if (!big || c->q.bytes > big->q.bytes)
                big = c;
        if (!big || big->q.bytes == 0)
            return;
        cut(big, DDZ_BUDGET_QUEUED_BYTES, "the server's output queues are full");
    }
}

/* The writer's hooks: a message goes once its ticket is durable, and
 * leaves the budget once written. */
static bool may_go(void *ctx, const ddz_wsc_msg *m)
{
    const ddz_conn *c = ctx;
    return !m->tag || m->tag <= durable(c->srv);
}

static void sent(void *ctx, const ddz_wsc_msg *m, int n)
{
    (void)n;
    ddz_conn *c = ctx;
    c->srv->budget.queued -= m->len;
}

int ddz__conn_write(ddz_conn *c)
{
    ddz_wsc_writer w = {.cork = true, .may_go = may_go, .sent = sent, .ctx = c};
    if (!c->raw)
        return ddz_wsc_write(c->wsi, &c->q, &w) < 0 ? -1 : 0;
    dirty_unlink(c); /* written now: nothing left for the turn's end */
    int rc = ddz_wsc_write_raw((int)lws_get_socket_fd(c->wsi), &c->q, &w);
    if (rc == DDZ_WSC_RAW_BLOCKED)
        lws_callback_on_writable(c->wsi);
    return rc < 0 ? -1 : 0;
}

void ddz__conn_flush(ddz_srv *srv)
{
    while (srv->dirty) {
        ddz_conn *c = srv->dirty;
        dirty_unlink(c);
        /* what lws holds of its own (the handshake's rest, a ping) goes
         * first, on WRITEABLE, as do a ping due and a close */
        if (c->closing || c->ping_due || lws_partial_buffered(c->wsi)) {
            lws_callback_on_writable(c->wsi);
            continue;
        }
        if (ddz__conn_write(c) < 0) { /* the peer is gone: lws closes it on its next turn */
            drop_queue(c);
            c->closing = true;
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        }
    }
}

/* ---- sending ---- */

void ddz__conn_send_text(ddz_conn *c, const char *text, size_t len)
{
    ddz__conn_send_text_held(c, text, len, 0);
}

void ddz__conn_send_text_held(ddz_conn *c, const char *text, size_t len, uint64_t ticket)
{
    if (!c || c->closing)
        return;
    bool was_empty = ddz_wsc_queue_empty(&c->q);
    if (ticket && ticket <= durable(c->srv))
        ticket = 0;
    int rc = ddz_wsc_queue_push(&c->q, text, len, ticket, 0);
    if (rc == DDZ_ENOSPC) { /* past --max-queue-per-conn */
        cut(c, DDZ_BUDGET_QUEUE_PER_CONN, "not reading");
        return;
    }
    if (rc < 0)
        return;
    c->srv->budget.queued += len;
    c->srv->m.frames_out++;
    if (ticket) { /* let go by ddz__conn_release_held() */
        if (!c->held) {
            c->held_prev = NULL;
            c->held_next = c->srv->held;
            if (c->held_next)
                c->held_next->held_prev = c;
            c->srv->held = c;
        }
        c->held = ticket;
    }
    /* A queue that was not empty has its writeable callback asked for
     * already (here, or by the callback that left messages behind); a
     * frame that waits is asked for when it may go. */
    if (was_empty && !ticket)
        want_write(c);
    within_budget(c->srv);
}

void ddz__conn_send(ddz_conn *c, json_t *msg)
{
    ddz__conn_send_held(c, msg, 0);
}

void ddz__conn_send_held(ddz_conn *c, json_t *msg, uint64_t ticket)
{
    if (!c || c->closing || !msg) {
        json_decref(msg);
        return;
    }
    char *s = ddz_msg_dump(msg);
    if (!s)
        return;
    ddz__conn_send_text_held(c, s, strlen(s), ticket);
    free(s);
}

void ddz__conn_error(ddz_conn *c, int code, const char *message, const ddz_req *r)
{
    if (c)
        c->srv->m.errors_sent++;
    ddz_event e = {.type = DDZ_EVENT_ERROR, .error = {.code = code, .about = r ? r->type : 0}};
    snprintf(e.error.message, sizeof e.error.message, "%s", message ? message : "");
    if (r)
        snprintf(e.error.id, sizeof e.error.id, "%s", r->id);
    ddz__conn_send(c, ddz_event_print(&e));
}

void ddz__conn_close(ddz_conn *c, int status, const char *reason)
{
    if (!c || c->closing)
        return;
    c->closing = true;
    c->close_status = status;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    dirty_unlink(c); /* the queue goes on WRITEABLE, then the close */
    lws_callback_on_writable(c->wsi);
}

void ddz__conn_hold(ddz_conn *c, bool hold)
{
    if (c)
        lws_rx_flow_control(c->wsi, hold ? 0 : 1);
}

ddz_player *ddz__conn_player(ddz_conn *c)
{
    return c ? c->player : NULL;
}

void ddz__conn_set_player(ddz_conn *c, ddz_player *p)
{
    c->player = p;
}

void ddz__conn_free(ddz_conn *c)
{
    drop_queue(c);
    ddz_budget *b = &c->srv->budget;
    *(c->prev ? &c->prev->next : &b->conns) = c->next;
    if (c->next)
        c->next->prev = c->prev;
    ddz_wsc_rx_free(&c->rx);
    free(c);
}

bool ddz__conn_rate_ok(ddz_conn *c)
{
    double rate = c->srv->cfg.rate > 0 ? c->srv->cfg.rate : 20;
    return ddz_wsc_rate_take(&c->rate, rate, 2 * rate, ddz__now_us()) == 0;
}
