/* lead_srv.c - the host's side of the leader (lead_srv.h). */
#include "service/server/lead_srv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/cluster/leader.h"
#include "service/server/context.h"

#define LEAD_RETRY_MS 500          /* lock tries, and the plug-ins' rounds (lead_work) */
#define LEAD_TICK_US (1000 * 1000) /* the loop looks at the jobs at least this often */

static void wake(void *ctx)
{
    ddz_srv *srv = ctx;
    if (srv->ctx)
        lws_cancel_service(srv->ctx);
}

/* The lead thread's work: each plug-in's, with the jobs it wants (numbered
 * as ddz_host_lead_want() gave them). */
static void work(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    ddz_srv *srv = ctx;
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->lead_work)
            srv->plugin[i]->lead_work(srv->plugin_self[i], pg, jobs, njobs);
}

static void lead_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, lead_timer));
    ddz__lead_poll(srv);
    ddz_loop_arm(&srv->loop.base, &srv->lead_timer, lead_tick, LEAD_TICK_US);
}

int ddz__lead_start(ddz_srv *srv, char *err, size_t errlen)
{
    const ddz_server_cfg *cfg = &srv->cfg;
    const char *jobs[DDZ_LEADER_JOBS];
    for (int i = 0; i < srv->nlead_want; i++)
        jobs[i] = srv->lead_want[i];
    ddz_leader_cfg lc = {.db = cfg->db_path,
                         .node = cfg->node,
                         .public_url = cfg->public_url,
                         .retry_ms = LEAD_RETRY_MS,
                         .wake = wake,
                         .ctx = srv,
                         .work = work,
                         .work_ctx = srv,
                         .db_timeout_ms = cfg->db_timeout_ms,
                         .stop = &srv->pg_stop};
    if (!(srv->leader = ddz_leader_start(&lc, jobs, srv->nlead_want, err, errlen)))
        return -1;
    /* a cluster of one has nothing that moves: no tick */
    if (!ddz_leader_solo(srv->leader))
        ddz_loop_arm(&srv->loop.base, &srv->lead_timer, lead_tick, LEAD_TICK_US);
    return 0;
}

void ddz__lead_poll(ddz_srv *srv)
{
    /* nothing new starts while the server drains its connections */
    if (!srv->leader || srv->stopping)
        return;
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->poll)
            srv->plugin[i]->poll(srv->plugin_self[i]);
}

void ddz__lead_metrics(ddz_srv *srv, FILE *f)
{
    if (srv->leader)
        ddz_leader_metrics(srv->leader, f);
}

void ddz__lead_stop(ddz_srv *srv)
{
    if (!srv->leader)
        return;
    ddz_loop_disarm(&srv->loop.base, &srv->lead_timer);
    ddz_leader_stop(srv->leader);
    srv->leader = NULL;
}
