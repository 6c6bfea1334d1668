/* lead_srv.c - run-once work on one node of several (lead_srv.h). */
#include "service/server/lead_srv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "service/cluster/cluster.h"
#include "service/cluster/ladder_net.h"
#include "service/cluster/lead.h"
#include "service/server/context.h"
#include "service/server/ladder_srv.h"

#define LEAD_RETRY_MS 500          /* lock tries, and the ladder's rounds */
#define LEAD_TICK_US (1000 * 1000) /* the loop looks at the locks at least this often */

static void wake(void *ctx)
{
    ddz_srv *srv = ctx;
    if (srv->ctx)
        lws_cancel_service(srv->ctx);
}

/* The lead thread's work: the ladder's round, as leader or not. */
static void work(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    ddz_srv *srv = ctx;
    if (srv->lnet && srv->lead_ladder >= 0 && srv->lead_ladder < njobs)
        ddz_ladder_net_work(srv->lnet, pg, jobs[srv->lead_ladder].held);
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
    srv->lead_ladder = -1;
    if (!cfg->node || !ddz_cluster_is_pg_url(cfg->db_path))
        return 0;
    char node_job[DDZ_LEAD_JOB_MAX], ladder_job[DDZ_LEAD_JOB_MAX];
    const char *jobs[DDZ_LEAD_JOBS];
    int n = 0;
    snprintf(node_job, sizeof node_job, "node:%s", cfg->node);
    jobs[n++] = node_job;
    bool ladder = cfg->ladder || cfg->ladder_rules || cfg->nladder_engines || cfg->nladder_ais;
    if (ladder) {
        const char *rules = cfg->ladder_rules ? cfg->ladder_rules : "caai";
        snprintf(ladder_job, sizeof ladder_job, "ladder:%.80s", rules);
        srv->lead_ladder = n;
        jobs[n++] = ladder_job;
        ddz_ladder_net_cfg lc = {.rules = rules,
                                 .node = cfg->node,
                                 .tables = cfg->ladder_tables > 0 ? cfg->ladder_tables
                                                                  : DDZ_LADDER_DEFAULT_TABLES,
                                 .wake = wake,
                                 .ctx = srv,
                                 .db_timeout_ms = cfg->db_timeout_ms,
                                 .stop = &srv->pg_stop};
        ddz_rating_cfg_default(&lc.rc);
        static char fixed[DDZ_LADDER_NET_FIXED][DDZ_LADDER_NAME_MAX];
        for (int i = 0; i < cfg->nladder_engines && lc.nfixed < DDZ_LADDER_NET_FIXED; i++) {
            snprintf(fixed[lc.nfixed], sizeof fixed[0], "engine:%s", cfg->ladder_engine[i]);
            lc.fixed[lc.nfixed] = fixed[lc.nfixed];
            lc.nfixed++;
        }
        for (int i = 0; i < cfg->nladder_ais && lc.nfixed < DDZ_LADDER_NET_FIXED; i++) {
            snprintf(fixed[lc.nfixed], sizeof fixed[0], "ai:%s", cfg->ladder_ai[i]);
            lc.fixed[lc.nfixed] = fixed[lc.nfixed];
            lc.nfixed++;
        }
        if (!(srv->lnet = ddz_ladder_net_create(&lc, err, errlen)))
            return -1;
    }
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
    if (!(srv->lead = ddz_lead_start(&lc, jobs, n, err, errlen))) {
        ddz_ladder_net_destroy(srv->lnet);
        srv->lnet = NULL;
        return -1;
    }
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

void ddz__lead_free(ddz_srv *srv)
{
    ddz_ladder_net_destroy(srv->lnet);
    srv->lnet = NULL;
}
