/* cluster_nodes.h - two `ddz serve` nodes of a cluster for the tests that
 * run them (test_cluster_rooms.c, test_cluster_lead.c): each started on a
 * free port with its public URL and the test's PostgreSQL (srv.db), waited
 * for (bounded) at /healthz, and reaped through a pidfd; and the suite
 * fixture of a test of two such nodes on a database of its own. Include
 * after serve_harness.h, bot_procs.h and pg_test.h. */
#ifndef DDZ_TEST_CLUSTER_NODES_H
#define DDZ_TEST_CLUSTER_NODES_H

#include <sys/syscall.h>

typedef struct node {
    const char *id;
    pid_t pid; /* 0 when not running */
    int pidfd;
    int status; /* of the last exit, as waitpid() gives it */
    int port;
    char url[64]; /* its public URL */
    char log[160];
} node;

static node N[2] = {{.id = "n1", .pidfd = -1}, {.id = "n2", .pidfd = -1}};

/* What the nodes run besides the cluster's options (NULL-terminated); a
 * test sets it before node_start(). */
static const char *node_extra[16];

static inline bool node_healthy(const node *n)
{
    int status;
    char *body;
    if (ddz_wsc_http_get("127.0.0.1", n->port, "/healthz", 1000, &status, &body) < 0)
        return false;
    bool ok = status == 200;
    free(body);
    return ok;
}

/* Waits up to `ms` for the node's process to exit and reaps it (its exit
 * in n->status). Returns whether it did. */
static inline bool node_reaped(node *n, int ms)
{
    struct pollfd p = {.fd = n->pidfd, .events = POLLIN};
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int status;
        if (waitpid(n->pid, &status, WNOHANG) == n->pid) {
            n->status = status;
            n->pid = 0;
            close(n->pidfd);
            n->pidfd = -1;
            return true;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        poll(&p, 1, (int)left);
    }
}

/* Starts node k on a free port with its public URL and node_extra, waits
 * (bounded) for /healthz; fails the test with its log otherwise. */
static inline void node_start(int k)
{
    node *n = &N[k];
    snprintf(n->log, sizeof n->log, "%s/%s.log", srv.dir, n->id);
    for (int attempt = 0; attempt < 5; attempt++) {
        n->port = free_port();
        char port[16];
        snprintf(port, sizeof port, "%d", n->port);
        snprintf(n->url, sizeof n->url, "ws://127.0.0.1:%d/ws", n->port);
        char *argv[40] = {DDZ_BIN,         "serve",
                          "--port",        port,
                          "--bind",        "127.0.0.1",
                          "--db",          srv.db,
                          "--node",        (char *)n->id,
                          "--public-url",  n->url,
                          "--web",         DDZ_SOURCE_DIR "/web",
                          "--ai-delay-ms", "0"};
        int argc = 16;
        for (int i = 0; node_extra[i]; i++)
            argv[argc++] = (char *)node_extra[i];
        argv[argc] = NULL;
        proc p;
        spawn(&p, n->log, argv);
        n->pid = p.pid;
        n->pidfd = (int)syscall(SYS_pidfd_open, n->pid, 0);
        cr_assert_geq(n->pidfd, 0);
        int64_t deadline = now_ms() + T(10000);
        while (now_ms() < deadline) {
            if (node_healthy(n))
                return;
            if (node_reaped(n, 5))
                break; /* the port was taken meanwhile, or it failed: see the log */
        }
        if (n->pid) {
            kill(n->pid, SIGKILL);
            node_reaped(n, T(5000));
            cr_assert_fail("node %s did not answer /healthz within %d ms", n->id, T(10000));
        }
    }
    char *log = slurp(n->log);
    cr_assert_fail("node %s would not start; its log:\n%s", n->id, log);
}

/* SIGKILLs node k (if it runs) and reaps it. */
static inline void node_kill(int k)
{
    if (N[k].pid) {
        kill(N[k].pid, SIGKILL);
        cr_assert(node_reaped(&N[k], T(5000)));
    }
}

/* A suite's .init: the test's own PostgreSQL database (its URL in
 * srv.db) and both nodes started with `--ai greedy`. */
static inline void two_nodes_init(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
    static const char *const extra[] = {"--ai", "greedy", NULL};
    memcpy(node_extra, extra, sizeof extra);
    node_start(0);
    node_start(1);
}

/* Its .fini: the nodes killed and reaped (bounded; a node that will not
 * go is left to the harness's teardown), the clients and the temporary
 * directory, the database. */
static inline void two_nodes_fini(void)
{
    for (int k = 0; k < 2; k++)
        if (N[k].pid) {
            kill(N[k].pid, SIGKILL);
            node_reaped(&N[k], T(5000));
        }
    teardown();
    pg_db_drop();
}

#endif
