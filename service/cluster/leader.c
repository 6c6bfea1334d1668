/* leader.c - one node or several behind one leader (leader.h). */
#include "service/cluster/leader.h"

#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/cluster/cluster.h"

struct ddz_leader {
    ddz_lead *lead; /* several nodes: the locks, job 0 the node's; NULL: a cluster of one */
    int njobs;      /* the caller's */
    ddz_lead_job solo[DDZ_LEADER_JOBS]; /* a cluster of one: every job's (fixed) state */
    void (*work)(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    void *work_ctx;
};

bool ddz_leader_clustered(const ddz_leader_cfg *cfg)
{
    return cfg->node && ddz_cluster_is_pg_url(cfg->db);
}

/* The lead thread's round: the caller's work sees its own jobs only (the
 * node job, index 0, is this module's). */
static void work(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    ddz_leader *l = ctx;
    if (l->work && njobs >= 1)
        l->work(l->work_ctx, pg, jobs + 1, njobs - 1);
}

ddz_leader *ddz_leader_start(const ddz_leader_cfg *cfg, const char *const *jobs, int njobs,
                             char *err, size_t errlen)
{
    if (njobs < 0 || njobs > DDZ_LEADER_JOBS || (njobs > 0 && !jobs)) {
        snprintf(err, errlen, "leader: %d jobs (at most %d)", njobs, DDZ_LEADER_JOBS);
        return NULL;
    }
    for (int i = 0; i < njobs; i++)
        if (!jobs[i] || !jobs[i][0] || strlen(jobs[i]) >= DDZ_LEAD_JOB_MAX) {
            snprintf(err, errlen, "leader: job %d has no name or a name too long", i);
            return NULL;
        }
    ddz_leader *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->njobs = njobs;
    l->work = cfg->work;
    l->work_ctx = cfg->work_ctx;
    if (!ddz_leader_clustered(cfg)) {
        /* a cluster of one: nobody else can hold a job, so this node holds
         * them all from the start and never loses them (one term) */
        for (int i = 0; i < njobs; i++) {
            ddz_lead_job *j = &l->solo[i];
            snprintf(j->name, sizeof j->name, "%s", jobs[i]);
            j->held = true;
            j->term = 1;
            j->holder_known = true;
            j->solo = true;
            snprintf(j->holder, sizeof j->holder, "%s", cfg->node ? cfg->node : "");
            snprintf(j->holder_url, sizeof j->holder_url, "%s",
                     cfg->public_url ? cfg->public_url : "");
        }
        return l;
    }
    char node_job[DDZ_LEAD_JOB_MAX];
    const char *all[DDZ_LEAD_JOBS];
    snprintf(node_job, sizeof node_job, "node:%s", cfg->node);
    all[0] = node_job;
    for (int i = 0; i < njobs; i++)
        all[1 + i] = jobs[i];
    ddz_lead_cfg lc = {.url = cfg->db,
                       .node = cfg->node,
                       .public_url = cfg->public_url,
                       .retry_ms = cfg->retry_ms,
                       .wake = cfg->wake,
                       .ctx = cfg->ctx,
                       .work = work,
                       .work_ctx = l,
                       .db_timeout_ms = cfg->db_timeout_ms,
                       .stop = cfg->stop};
    if (!(l->lead = ddz_lead_start(&lc, all, 1 + njobs, err, errlen))) {
        free(l);
        return NULL;
    }
    return l;
}

bool ddz_leader_solo(const ddz_leader *l)
{
    return !l->lead;
}

int ddz_leader_njobs(const ddz_leader *l)
{
    return l->njobs;
}

int ddz_leader_state(ddz_leader *l, int i, ddz_lead_job *out)
{
    if (i < 0 || i >= l->njobs)
        return DDZ_EINVAL;
    if (!l->lead) {
        *out = l->solo[i];
        return 0;
    }
    return ddz_lead_state(l->lead, 1 + i, out);
}

void ddz_leader_metrics(ddz_leader *l, FILE *f)
{
    if (!l->lead)
        return;
    int n = ddz_lead_njobs(l->lead);
    ddz_lead_job j[DDZ_LEAD_JOBS];
    for (int i = 0; i < n; i++)
        ddz_lead_state(l->lead, i, &j[i]);
    fprintf(f, "# TYPE ddz_lead_held gauge\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "ddz_lead_held{job=\"%s\"} %d\n", j[i].name, j[i].held);
    fprintf(f, "# TYPE ddz_lead_terms_total counter\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "ddz_lead_terms_total{job=\"%s\"} %llu\n", j[i].name,
                (unsigned long long)j[i].term);
}

void ddz_leader_stop(ddz_leader *l)
{
    if (!l)
        return;
    ddz_lead_stop(l->lead);
    free(l);
}
