/* test_lead.c - service/cluster/lead.h against a real PostgreSQL server
 * (the ctest fixture, DDZ_TEST_PG): one holder among sessions, handing
 * over when the holder stops, is killed (SIGKILL) or loses its session,
 * and the holder table. Every wait is bounded. */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "service/pg_test.h"
#include "test_clock.h"
#include "service/cluster/lead.h"

static ddz_lead *start(const char *url, const char *node, const char *job)
{
    char pub[80];
    snprintf(pub, sizeof pub, "ws://%s.example:8080/ws", node);
    ddz_lead_cfg cfg = {.url = url, .node = node, .public_url = pub, .retry_ms = 100};
    const char *jobs[] = {job};
    char err[200];
    ddz_lead *l = ddz_lead_start(&cfg, jobs, 1, err, sizeof err);
    cr_assert(l, "%s", err);
    return l;
}

static ddz_lead_job state(ddz_lead *l)
{
    ddz_lead_job j;
    cr_assert_eq(ddz_lead_state(l, 0, &j), 0);
    return j;
}

/* Waits up to `ms` for `l` to hold (or not) its job; returns the ms taken,
 * or -1 past the bound. */
static int64_t wait_held(ddz_lead *l, bool held, int ms)
{
    int64_t t0 = now_ms();
    while (now_ms() - t0 < ms) {
        if (state(l).held == held)
            return now_ms() - t0;
        poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
    return -1;
}

/* Waits up to `ms` for `l` to see `node` as the job's live holder. */
static bool wait_holder(ddz_lead *l, const char *node, int ms)
{
    int64_t t0 = now_ms();
    while (now_ms() - t0 < ms) {
        ddz_lead_job j = state(l);
        if (node ? j.holder_known && strcmp(j.holder, node) == 0 : !j.holder_known)
            return true;
        poll(NULL, 0, 10);
    }
    return false;
}

/* Each test's database (if it made one) is dropped after it. */
TestSuite(lead, .fini = pg_db_drop);

Test(lead, key_is_stable_and_per_job)
{
    cr_assert_eq(ddz_lead_key("ladder:caai"), ddz_lead_key("ladder:caai"));
    cr_assert_neq(ddz_lead_key("ladder:caai"), ddz_lead_key("ladder:botzone-ftl"));
    cr_assert_neq(ddz_lead_key("ladder:caai"), ddz_lead_key("tournament:caai"));
}

Test(lead, bad_arguments)
{
    char err[200];
    const char *jobs[] = {"x"};
    ddz_lead_cfg cfg = {.url = "postgres://nobody@127.0.0.1:1/x", .node = "n1"};
    cr_assert_null(ddz_lead_start(&cfg, jobs, 0, err, sizeof err));
    cr_assert_null(ddz_lead_start(&cfg, jobs, DDZ_LEAD_JOBS + 1, err, sizeof err));
    const char *empty[] = {""};
    cr_assert_null(ddz_lead_start(&cfg, empty, 1, err, sizeof err));
    cfg.node = NULL;
    cr_assert_null(ddz_lead_start(&cfg, jobs, 1, err, sizeof err));
}

/* A server that does not answer: nothing is held, the failure is said, and
 * stopping does not hang. */
Test(lead, unreachable_server_holds_nothing)
{
    ddz_lead *l = start("postgres://ddz@127.0.0.1:1/ddz", "n1", "ladder:caai");
    int64_t t0 = now_ms();
    char err[200] = "";
    while (!err[0] && now_ms() - t0 < T(5000)) {
        ddz_lead_last_error(l, err, sizeof err);
        poll(NULL, 0, 10);
    }
    cr_assert(err[0], "no failure reported");
    cr_assert_not(state(l).held);
    ddz_lead_stop(l);
}

/* Two sessions: one holder, both see it; the holder stops and the other
 * takes over within a few tries. A different job is independent. */
Test(lead, one_holder_and_handover_on_stop)
{
    char url[600];
    pg_db_create(url, sizeof url);
    ddz_lead *a = start(url, "a", "ladder:caai");
    cr_assert_geq(wait_held(a, true, T(5000)), 0, "a never held the lock");
    ddz_lead *b = start(url, "b", "ladder:caai");
    cr_assert(wait_holder(b, "a", T(5000)), "b does not see a as holder");
    ddz_lead_job jb = state(b);
    cr_assert_not(jb.held);
    cr_assert_str_eq(jb.holder_url, "ws://a.example:8080/ws");
    /* b keeps trying: still not the holder after many of its tries */
    poll(NULL, 0, 500);
    cr_assert_not(state(b).held);
    cr_assert(state(a).held);
    cr_assert_eq(state(a).term, 1);
    /* another job is another lock */
    ddz_lead *c = start(url, "c", "tournament:spring");
    cr_assert_geq(wait_held(c, true, T(5000)), 0);
    ddz_lead_stop(a);
    int64_t took = wait_held(b, true, T(5000));
    cr_assert_geq(took, 0, "b did not take over");
    cr_assert_eq(state(b).term, 1);
    cr_assert(wait_holder(b, "b", T(5000)));
    fprintf(stderr, "handover after a clean stop: %lld ms\n", (long long)took);
    ddz_lead_stop(b);
    ddz_lead_stop(c);
}

/* The holder is a process that is killed: its session ends with its
 * socket and the lock is free at once. */
Test(lead, handover_when_the_holder_is_killed)
{
    char url[600];
    pg_db_create(url, sizeof url);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork(); /* before this process starts any thread */
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(fds[0]);
        ddz_lead_cfg cfg = {.url = url, .node = "killed", .retry_ms = 100};
        const char *jobs[] = {"ladder:caai"};
        char err[200];
        ddz_lead *l = ddz_lead_start(&cfg, jobs, 1, err, sizeof err);
        ddz_lead_job j = {0};
        for (int i = 0; l && i < 500 && !j.held; i++) {
            ddz_lead_state(l, 0, &j);
            poll(NULL, 0, 10);
        }
        if (j.held && write(fds[1], "h", 1) == 1)
            for (;;)
                pause();
        _exit(1);
    }
    close(fds[1]);
    struct pollfd pf = {.fd = fds[0], .events = POLLIN};
    char c = 0;
    cr_assert_eq(poll(&pf, 1, T(10000)), 1, "the child never held the lock");
    cr_assert_eq(read(fds[0], &c, 1), 1, "the child failed");
    ddz_lead *b = start(url, "b", "ladder:caai");
    cr_assert(wait_holder(b, "killed", T(5000)));
    cr_assert_not(state(b).held);
    int64_t t0 = now_ms();
    kill(pid, SIGKILL);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    int64_t took = wait_held(b, true, T(5000));
    cr_assert_geq(took, 0, "the lock was not freed by the holder's death");
    fprintf(stderr, "handover after SIGKILL of the holder: %lld ms\n", (long long)(now_ms() - t0));
    cr_assert(wait_holder(b, "b", T(5000)));
    ddz_lead_stop(b);
    close(fds[0]);
}

/* The holder's session is ended under it (as a server restart or a cut
 * would): it notices, is no longer the holder, and gains the job again
 * with a new term. */
Test(lead, lost_session_is_noticed)
{
    char url[600];
    pg_db_create(url, sizeof url);
    ddz_lead *a = start(url, "a", "ladder:caai");
    cr_assert_geq(wait_held(a, true, T(5000)), 0);
    cr_assert_eq(state(a).term, 1);
    PGconn *c = pg_connect(url);
    PGresult *r = PQexec(c, "SELECT pg_terminate_backend(pid) FROM cluster_leaders"
                            " WHERE job = 'ladder:caai'");
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s", PQerrorMessage(c));
    cr_assert_eq(PQntuples(r), 1);
    PQclear(r);
    /* lost, then gained again: the term says it happened even if the
     * loss itself was too short to be seen here */
    int64_t t0 = now_ms();
    while (state(a).term < 2 && now_ms() - t0 < T(10000))
        poll(NULL, 0, 10);
    ddz_lead_job j = state(a);
    cr_assert_eq(j.term, 2, "the lost session was not noticed (term %llu)",
                 (unsigned long long)j.term);
    cr_assert(j.held);
    char err[200];
    ddz_lead_last_error(a, err, sizeof err);
    cr_assert(err[0], "the loss left no error");
    PQfinish(c);
    ddz_lead_stop(a);
}
