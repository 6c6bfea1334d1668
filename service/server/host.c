/* host.c - the table host as a competition sees it (host.h): each call is
 * the server's own (rooms, seating, connections, routes, locks), so that
 * a competition never reaches past this file. */
#include "service/server/host.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules/error.h"
#include "service/cluster/leader.h"
#include "service/server/accounts.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/room.h"
#include "service/server/rooms.h"
#include "service/server/seating.h"

ddz_room *ddz_host_table_open(ddz_host *h, const ddz_room_opts *opts, ddz_runner *run,
                              const char *const labels[3], ddz_player *const bots[3])
{
    ddz_room *r = ddz__room_open_table(h, opts, run, labels, bots);
    if (r)
        ddz__rooms_add(h, r);
    return r;
}

void ddz_host_table_event(ddz_room *t, const ddz_ev *ev)
{
    ddz__room_table_event(t, ev);
}

int64_t ddz_host_table_over(ddz_room *t, const ddz_record *rec)
{
    return ddz__room_table_over(t, rec);
}

bool ddz_host_table_reseat(ddz_room *t, int seat, ddz_player *p)
{
    return ddz__room_reseat(t, seat, p);
}

void ddz_host_table_close(ddz_room *t)
{
    ddz__room_detach(t);
}

void ddz_host_table_abort(ddz_room *t)
{
    ddz__room_abort(t);
}

const char *ddz_host_table_id(const ddz_room *t)
{
    return ddz__room_id(t);
}

bool ddz_host_table_gone(const ddz_room *t)
{
    return ddz__room_dead(t);
}

ddz_seat *ddz_host_seat_make(ddz_host *h, const ddz_seat_want *w, int *err, char *msg,
                             size_t msglen)
{
    return ddz__seat_make(h, w, err, msg, msglen);
}

void ddz_host_send(ddz_player *p, json_t *msg)
{
    ddz__conn_send(p->conn, msg);
}

void ddz_host_error(ddz_player *p, int code, const char *message, const ddz_req *q)
{
    ddz__conn_error(p->conn, code, message, q);
}

void ddz_host_close(ddz_player *p, int status, const char *reason)
{
    if (p->conn)
        ddz__conn_close(p->conn, status, reason);
}

bool ddz_host_settled(const ddz_player *p)
{
    return ddz__conn_settled(p->conn);
}

int ddz_host_route_add(ddz_host *h, const char *path, bool prefix, ddz_http_handler fn)
{
    return ddz__http_route_add(&h->routes, path, prefix, fn);
}

int ddz_host_route_add_methods(ddz_host *h, const char *path, unsigned methods, ddz_http_handler fn)
{
    return ddz__http_route_add_methods(&h->routes, path, methods, fn);
}

int ddz_host_bearer(ddz_http_req *req, char out[65])
{
    return ddz__accounts_bearer(req, out);
}

void *ddz_host_plugin_self(ddz_host *h, const char *kind)
{
    for (int i = 0; i < h->nplugins; i++)
        if (strcmp(h->plugin[i]->kind, kind) == 0)
            return h->plugin_self[i];
    return NULL;
}

ddz_loop *ddz_host_loop(ddz_host *h)
{
    return &h->loop.base;
}

ddz_store *ddz_host_store(ddz_host *h)
{
    return h->store;
}

const ddz_server_cfg *ddz_host_cfg(const ddz_host *h)
{
    return &h->cfg;
}

int64_t ddz_host_now_us(void)
{
    return ddz__now_us();
}

int ddz_host_reserve(ddz_host *h, int engines, int ais)
{
    if (engines && h->budget.engines + engines > ddz__budget_max_engines(h)) {
        ddz__budget_refused(h, DDZ_BUDGET_ENGINES);
        return DDZ_EBUSY;
    }
    if (ais && h->budget.ais + ais > ddz__budget_max_ais(h)) {
        ddz__budget_refused(h, DDZ_BUDGET_AIS);
        return DDZ_EBUSY;
    }
    h->budget.engines += engines;
    return 0;
}

void ddz_host_release(ddz_host *h, int engines)
{
    h->budget.engines -= engines;
}

void ddz_host_wake(ddz_host *h)
{
    if (h->ctx)
        lws_cancel_service(h->ctx);
}

struct ddz_pg_stop *ddz_host_pg_stop(ddz_host *h)
{
    return &h->pg_stop;
}

void ddz_host_log(ddz_host *h, const char *level, const char *room, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddz__vlog(h, level, room, fmt, ap);
    va_end(ap);
}

int ddz_host_lead_want(ddz_host *h, const char *name)
{
    /* one node or several alike: the leader (lead_srv.c) holds every job
     * on a cluster of one */
    if (h->nlead_want >= DDZ_LEADER_JOBS)
        return DDZ_ENOMEM;
    snprintf(h->lead_want[h->nlead_want], sizeof h->lead_want[0], "%s", name);
    return h->nlead_want++;
}

bool ddz_host_clustered(const ddz_host *h)
{
    ddz_leader_cfg lc = {.db = h->cfg.db_path, .node = h->cfg.node};
    return ddz_leader_clustered(&lc);
}

bool ddz_host_lead_state(ddz_host *h, int job, ddz_lead_job *out)
{
    return h->leader && ddz_leader_state(h->leader, job, out) == 0;
}
