/* test_leader.c - service/cluster/leader.h: one node is a cluster of one
 * (every job held at once, for good, no database), several nodes follow
 * lead.h's advisory locks (against the ctest fixture's PostgreSQL,
 * DDZ_TEST_PG) with the node job kept out of the caller's numbering. Every
 * wait is bounded. */
#include <criterion/criterion.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/pg_test.h"
#include "test_clock.h"
#include "rules/error.h"
#include "service/cluster/leader.h"

TestSuite(leader, .fini = pg_db_drop);

/* What the lead thread's work saw last (leader.h: the caller's jobs only). */
static atomic_int work_njobs = -1;
static atomic_int work_held0 = 0;
static char work_name0[DDZ_LEAD_JOB_MAX];

static void work(void *ctx, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    (void)ctx;
    cr_assert_not_null(pg);
    if (njobs > 0) {
        snprintf(work_name0, sizeof work_name0, "%s", jobs[0].name);
        atomic_store(&work_held0, jobs[0].held);
    }
    atomic_store(&work_njobs, njobs);
}

/* Returns what ddz_leader_metrics() writes. */
static char *metrics(ddz_leader *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    ddz_leader_metrics(l, f);
    fclose(f);
    return buf;
}

Test(leader, clustered_needs_a_node_and_postgres)
{
    ddz_leader_cfg c = {.db = "ddz.db", .node = "n1"};
    cr_assert_not(ddz_leader_clustered(&c));
    c.db = "postgres://x@127.0.0.1/ddz";
    cr_assert(ddz_leader_clustered(&c));
    c.node = NULL;
    cr_assert_not(ddz_leader_clustered(&c));
}

/* One node: every job is held at once, in term 1, by this node, for good;
 * no metrics (no locks), no work (no session), and a bad index fails. */
Test(leader, one_node_holds_every_job_at_once)
{
    const char *jobs[] = {"ladder:caai", "tournament:spring"};
    ddz_leader_cfg c = {.db = "ddz.db", .public_url = "ws://here/ws", .work = work};
    char err[200];
    ddz_leader *l = ddz_leader_start(&c, jobs, 2, err, sizeof err);
    cr_assert_not_null(l, "%s", err);
    cr_assert(ddz_leader_solo(l));
    cr_assert_eq(ddz_leader_njobs(l), 2);
    for (int i = 0; i < 2; i++) {
        ddz_lead_job j;
        cr_assert_eq(ddz_leader_state(l, i, &j), 0);
        cr_assert_str_eq(j.name, jobs[i]);
        cr_assert(j.held);
        cr_assert(j.solo);
        cr_assert_eq(j.term, 1);
        cr_assert(j.holder_known);
        cr_assert_str_eq(j.holder_url, "ws://here/ws");
    }
    ddz_lead_job j;
    cr_assert_eq(ddz_leader_state(l, 2, &j), DDZ_EINVAL);
    cr_assert_eq(ddz_leader_state(l, -1, &j), DDZ_EINVAL);
    char *m = metrics(l);
    cr_assert_str_eq(m, "");
    free(m);
    poll(NULL, 0, 50);
    cr_assert_eq(atomic_load(&work_njobs), -1, "work ran on a cluster of one");
    ddz_leader_stop(l);
    ddz_leader_stop(NULL);
}

Test(leader, bad_arguments)
{
    char err[200];
    const char *jobs[DDZ_LEADER_JOBS + 1] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    ddz_leader_cfg c = {.db = "ddz.db"};
    cr_assert_null(ddz_leader_start(&c, jobs, DDZ_LEADER_JOBS + 1, err, sizeof err));
    cr_assert_null(ddz_leader_start(&c, jobs, -1, err, sizeof err));
    const char *empty[] = {""};
    cr_assert_null(ddz_leader_start(&c, empty, 1, err, sizeof err));
    ddz_leader *l = ddz_leader_start(&c, jobs, 0, err, sizeof err);
    cr_assert_not_null(l, "no jobs is a leader too: %s", err);
    ddz_leader_stop(l);
}

/* Several nodes: the caller's job 0 is its first job (the node job is the
 * leader's own), gained on the lock; the work sees the caller's jobs; the
 * metrics show the node job first. */
Test(leader, several_nodes_follow_the_locks)
{
    char url[600];
    pg_db_create(url, sizeof url);
    const char *jobs[] = {"ladder:caai"};
    ddz_leader_cfg c = {.db = url, .node = "a", .retry_ms = 100, .work = work};
    char err[200];
    ddz_leader *l = ddz_leader_start(&c, jobs, 1, err, sizeof err);
    cr_assert_not_null(l, "%s", err);
    cr_assert_not(ddz_leader_solo(l));
    cr_assert_eq(ddz_leader_njobs(l), 1);
    int64_t t0 = now_ms();
    ddz_lead_job j = {0};
    while (now_ms() - t0 < T(5000)) {
        cr_assert_eq(ddz_leader_state(l, 0, &j), 0);
        if (j.held && atomic_load(&work_held0))
            break;
        poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
    cr_assert(j.held, "the job was never gained");
    cr_assert_not(j.solo);
    cr_assert_str_eq(j.name, "ladder:caai");
    cr_assert_eq(j.term, 1);
    cr_assert_eq(atomic_load(&work_njobs), 1);
    cr_assert_str_eq(work_name0, "ladder:caai");
    cr_assert_eq(ddz_leader_state(l, 1, &j), DDZ_EINVAL);
    char *m = metrics(l);
    const char *node = strstr(m, "ddz_lead_held{job=\"node:a\"} 1");
    const char *ladder = strstr(m, "ddz_lead_held{job=\"ladder:caai\"} 1");
    cr_assert(node && ladder && node < ladder, "%s", m);
    cr_assert(strstr(m, "ddz_lead_terms_total{job=\"ladder:caai\"} 1"), "%s", m);
    free(m);
    ddz_leader_stop(l);
}
