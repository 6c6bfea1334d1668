/* lead_srv.c - run-once work on one node of several (lead_srv.h). */
#include "service/server/lead_srv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/event.h"
#include "rules/error.h"
#include "service/cluster/cluster.h"
#include "service/cluster/ladder_net.h"
#include "service/cluster/lead.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/ladder_srv.h"
#include "service/server/tourney_srv.h"

#define LEAD_RETRY_MS 500          /* lock tries, and the ladder's rounds */
#define LEAD_TICK_US (1000 * 1000) /* the loop looks at the locks at least this often */
/* A node that gains a tournament's lock after ANOTHER node held it waits
 * this long before it writes to DIR: PostgreSQL may have freed the old
 * holder's lock before the old holder knows (the server restarted, its
 * backend was terminated, the network was cut), and the old holder stops
 * only once its lead thread notices. A cut network is noticed within
 * some 11 s (service/store/pg_conn.c: tcp_user_timeout 10 s; keepalives
 * probe an idle session after 5 s, three times 2 s apart), then up to one
 * lead round (LEAD_RETRY_MS) and one loop tick (LEAD_TICK_US) pass before
 * it stops: 12.5 s, which 15 s covers with room (a URL that sets its own
 * keepalives or tcp_user_timeout changes that bound). DIR/lease fences what is left (a holder
 * that is slower still finds another's lease before its next append). */
#define TOURNEY_GRACE_MS 15000

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

/* The tournament's name: DIR's last component. */
static void tourney_job(const char *dir, char *out, size_t outlen)
{
    char d[DDZ_LEAD_JOB_MAX];
    snprintf(d, sizeof d, "%s", dir);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    const char *base = strrchr(d, '/');
    snprintf(out, outlen, "tournament:%.80s", base && base[1] ? base + 1 : d);
}

int ddz__lead_start(ddz_srv *srv, char *err, size_t errlen)
{
    const ddz_server_cfg *cfg = &srv->cfg;
    srv->lead_ladder = srv->lead_tourney = -1;
    if (!cfg->node || !ddz_cluster_is_pg_url(cfg->db_path))
        return 0;
    char node_job[DDZ_LEAD_JOB_MAX], ladder_job[DDZ_LEAD_JOB_MAX], tourney[DDZ_LEAD_JOB_MAX];
    const char *jobs[3];
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
    if (cfg->tournament_dir) {
        tourney_job(cfg->tournament_dir, tourney, sizeof tourney);
        srv->lead_tourney = n;
        jobs[n++] = tourney;
    }
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
    if (srv->lnet)
        ddz__ladder_wake(srv);
    if (srv->lead_tourney < 0)
        return;
    ddz_lead_job j;
    ddz_lead_state(srv->lead, srv->lead_tourney, &j);
    if (srv->tsrv && (!j.held || j.term != srv->tourney_term)) {
        /* lost (maybe gained again since): another node may be resuming it
         * already, so this one stops at once; its tables' games are
         * recorded as aborted, the director's state is DIR's */
        ddz__log(srv, "warn", NULL, "tournament: the lock is lost: stopping here");
        ddz__tsrv_abort(srv, "the tournament moved to another node: enlist again");
        ddz__tsrv_destroy(srv);
        srv->tourney_term = 0;
    }
    if (srv->tsrv && ddz__tsrv_fenced(srv)) {
        /* another node wrote its lease in DIR: this one's session is gone
         * without its lead thread knowing yet; not run again in this term */
        ddz__tsrv_abort(srv, "the tournament moved to another node: enlist again");
        ddz__tsrv_destroy(srv);
        srv->tourney_fenced_term = srv->tourney_term;
        srv->tourney_term = 0;
    }
    if (!srv->tsrv && j.held && j.term == srv->tourney_fenced_term)
        return;
    if (!srv->tsrv && j.held && j.term != srv->tourney_gain_term) {
        /* a new term: did another node hold DIR last? */
        char holder[DDZ_LEAD_NODE_MAX] = "";
        srv->tourney_gain_term = j.term;
        srv->tourney_gain_us = ddz__now_us();
        srv->tourney_grace =
            ddz__tsrv_lease_other(srv->cfg.tournament_dir, srv->cfg.node, holder, sizeof holder);
        if (srv->tourney_grace)
            ddz__log(srv, "info", NULL,
                     "tournament: this node holds its lock; node %s held it last: waiting %d s"
                     " for it to notice",
                     holder, TOURNEY_GRACE_MS / 1000);
    }
    if (!srv->tsrv && j.held && srv->tourney_grace &&
        ddz__now_us() - srv->tourney_gain_us < (int64_t)TOURNEY_GRACE_MS * 1000)
        return; /* the lead tick looks again */
    if (!srv->tsrv && j.held) {
        char err[300];
        /* the lease: who writes DIR, in which term (unique: a node's terms
         * count up while it runs, and a restarted node starts later) */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(srv->tourney_lease, sizeof srv->tourney_lease, "%s %llu %lld", srv->cfg.node,
                 (unsigned long long)j.term, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        if (ddz__tsrv_start(srv, err, sizeof err) < 0) {
            if (srv->tourney_term != j.term) /* once per term */
                ddz__log(srv, "error", NULL, "tournament: %s", err);
            srv->tourney_term = j.term;
            return;
        }
        srv->tourney_term = j.term;
        ddz__log(srv, "info", NULL, "tournament: this node holds its lock: running it");
    }
}

bool ddz__lead_tourney_elsewhere(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    if (!srv->lead || srv->lead_tourney < 0 || srv->tsrv || !p->conn)
        return false;
    ddz_lead_job j;
    ddz_lead_state(srv->lead, srv->lead_tourney, &j);
    if (!j.holder_known || !j.holder_url[0] || j.held ||
        (srv->cfg.public_url && strcmp(j.holder_url, srv->cfg.public_url) == 0)) {
        /* between nodes (just started, or its node died and no other
         * took it yet): not an error a bot should give up on; closed,
         * so that it reconnects and enlists again (ddz bridge does) */
        ddz__conn_close(p->conn, LWS_CLOSE_STATUS_GOINGAWAY,
                        "the tournament is between nodes: reconnect");
        return true;
    }
    ddz_event e = {.type = DDZ_EVENT_REDIRECT, .redirect = {.about = q->type}};
    snprintf(e.redirect.url, sizeof e.redirect.url, "%s", j.holder_url);
    snprintf(e.redirect.id, sizeof e.redirect.id, "%s", q->id);
    snprintf(e.redirect.reason, sizeof e.redirect.reason, "the tournament runs on node %s",
             j.holder);
    ddz__conn_send(p->conn, ddz_event_print(&e));
    return true;
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
