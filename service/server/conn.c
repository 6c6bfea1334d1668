/* conn.c - a connection's send queue, close, rate limiter and player. */
#include "service/server/conn.h"

#include <stdlib.h>
#include <string.h>

#include "proto/event.h"
#include "service/server/context.h"

/* ---- sending ---- */

void ddz__conn_send_text(ddz_conn *c, const char *text, size_t len)
{
    if (!c || c->closing)
        return;
    if (c->queued + len > DDZ_SEND_QUEUE_MAX) {
        ddz__conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "not reading");
        return;
    }
    ddz_outmsg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return;
    m->next = NULL;
    m->len = len;
    memcpy(m->buf + LWS_PRE, text, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued += len;
    c->srv->m.frames_out++;
    lws_callback_on_writable(c->wsi);
}

void ddz__conn_send(ddz_conn *c, json_t *msg)
{
    if (!c || c->closing || !msg) {
        json_decref(msg);
        return;
    }
    char *s = ddz_msg_dump(msg);
    if (!s)
        return;
    ddz__conn_send_text(c, s, strlen(s));
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
    ddz_outmsg *m = c->head;
    while (m) {
        ddz_outmsg *n = m->next;
        free(m);
        m = n;
    }
    free(c->rx);
    free(c);
}

bool ddz__conn_rate_ok(ddz_conn *c)
{
    double rate = c->srv->cfg.rate > 0 ? c->srv->cfg.rate : 20;
    int64_t now = ddz__now_us();
    c->tokens += (double)(now - c->tokens_us) / 1e6 * rate;
    if (c->tokens > 2 * rate)
        c->tokens = 2 * rate;
    c->tokens_us = now;
    if (c->tokens < 1)
        return false;
    c->tokens -= 1;
    return true;
}
