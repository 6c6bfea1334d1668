/* test_pg_conn.c - service/store/pg_conn: a server that never answers.
 *
 * ddz_pg_connect bounds its own connection loop (libpq's connect_timeout
 * does not apply to PQconnectPoll). A listening socket that accepts
 * nothing makes the kernel complete the TCP handshake while no startup
 * reply ever comes: the call must give up after its 5 s, and say why in
 * words, not with libpq's empty message. No PostgreSQL is needed.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "service/store/pg_conn.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

Test(pg_conn, a_server_that_never_answers_is_given_up_with_a_reason, .timeout = 60)
{
    /* a free port of our own: bound to port 0, listening, never accepting */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(s, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s, 4), 0);
    socklen_t len = sizeof a;
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    char url[128];
    snprintf(url, sizeof url, "postgresql://ddz@127.0.0.1:%d/ddz?sslmode=disable",
             ntohs(a.sin_port));

    double t0 = now_s();
    PGconn *c = ddz_pg_connect(url, "ddz-test", 0, 0, NULL);
    double took = now_s() - t0;
    cr_assert_not_null(c);
    cr_assert_neq(PQstatus(c), CONNECTION_OK);
    /* the bound is 5 s; a loaded machine may add, never take away */
    cr_assert_geq(took, 4.9, "gave up after %.2f s", took);
    cr_assert_lt(took, 30, "took %.2f s", took);
    const char *why = ddz_pg_connect_error(c);
    cr_assert(why && *why, "an empty reason");
    cr_assert(strstr(why, "5 s"), "the reason: %s", why);
    PQfinish(c);
    close(s);
    cr_assert_str_eq(ddz_pg_connect_error(NULL), "out of memory");
}
