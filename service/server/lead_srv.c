/* lead_srv.c - run-once work on one node of several (lead_srv.h). */
#include "service/server/lead_srv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "service/cluster/cluster.h"
#include "service/cluster/lead.h"
#include "service/server/context.h"

#define LEAD_RETRY_MS 500          /* lock tries, and the plug-ins' rounds (lead_work) */
#define LEAD_TICK_US (1000 * 1000) /* the loop looks at the locks at least this often */

static void wake(void *ctx)
{
    ddz_srv *srv = ctx;
    if (srv->ctx)
        lws_cancel_service(srv->ctx);
}

/* The lead thread's work: each plug-in's, with the jobs it wants. */
static void work(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    ddz_srv *srv = ctx;
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->lead_work && srv->lead_base <= njobs)
            srv->plugin[i]->lead_work(srv->plugin_self[i], pg, jobs + srv->lead_base,
                                      njobs - srv->lead_base);
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
    if (!cfg->node || !ddz_cluster_is_pg_url(cfg->db_path))
        return 0;
    char node_job[DDZ_LEAD_JOB_MAX];
    const char *jobs[DDZ_LEAD_JOBS];
    int n = 0;
    snprintf(node_job, sizeof node_job, "node:%s", cfg->node);
    jobs[n++] = node_job;
    /* the plug-ins' (ddz_host_lead_want()) */
    srv->lead_base = n;
    for (int i = 0; i < srv->nlead_want && n < DDZ_LEAD_JOBS; i++)
        jobs[n++] = srv->lead_want[i];
    ddz_lead_cfg lc = {.url = cfg->db_path,
                       .node = cfg->node,
                       .public_url = cfg->public_url,
                       .retry_ms = LEAD_RETRY_MS,
                       .wake = wake,
                       .ctx = srv,
                       .work = work,
                       .work_ctx = srv,
                       .db_timeout_ms = cfg->db_timeout_ms,
                       .stop = &srv->pg_stop};
    if (!(srv->lead = ddz_lead_start(&lc, jobs, n, err, errlen)))
        return -1;
    ddz_loop_arm(&srv->loop.base, &srv->lead_timer, lead_tick, LEAD_TICK_US);
    return 0;
}

void ddz__lead_poll(ddz_srv *srv)
{
    /* nothing new starts while the server drains its connections */
    if (!srv->lead || srv->stopping)
        return;
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->poll)
            srv->plugin[i]->poll(srv->plugin_self[i]);
}

void ddz__lead_metrics(ddz_srv *srv, FILE *f)
{
    if (!srv->lead)
        return;
    int n = ddz_lead_njobs(srv->lead);
    ddz_lead_job j[DDZ_LEAD_JOBS];
    for (int i = 0; i < n; i++)
        ddz_lead_state(srv->lead, i, &j[i]);
    fprintf(f, "# TYPE ddz_lead_held gauge\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "ddz_lead_held{job=\"%s\"} %d\n", j[i].name, j[i].held);
    fprintf(f, "# TYPE ddz_lead_terms_total counter\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "ddz_lead_terms_total{job=\"%s\"} %llu\n", j[i].name,
                (unsigned long long)j[i].term);
}

void ddz__lead_stop(ddz_srv *srv)
{
    if (!srv->lead)
        return;
    ddz_loop_disarm(&srv->loop.base, &srv->lead_timer);
    ddz_lead_stop(srv->lead);
    srv->lead = NULL;
}
