/* test_serve_pg.c - `ddz serve --db postgres://...`: a server on a fresh
 * PostgreSQL database (pg_test.h; the ctest fixture "pg", DDZ_TEST_PG)
 * plays a game whose record /api/games/ID serves and `ddz export --db URL`
 * prints byte for byte, accepts a bot token made by `ddz token add --db
 * URL`; a second server on the same database (a second node) serves that
 * record and token too and numbers its own game apart; a URL it cannot
 * reach keeps it from starting, with a message that names the database
 * without its password; the database's connections and the clients'
 * sockets take each other's descriptor numbers unharmed. */
#include "serve_harness.h"
#include "bot_procs.h"
#include "pg_test.h"

#include <arpa/inet.h>
#include <dirent.h>

static void pg_setup(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
    server_start();
}

static void pg_teardown(void)
{
    teardown();
    pg_db_drop();
}

/* Runs the shell command `cmd`; returns its exit status, its standard
 * output (and error, if the command says 2>&1) in *out (malloc'd). */
static int shell(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if ((len += n) + 1 == cap)
            buf = realloc(buf, cap *= 2);
    buf[len] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A second `ddz serve` on the same database: its port, once /healthz
 * answers (bounded). */
static proc node2;

static int node2_start(void)
{
    int port = free_port();
    char ports[16], log[160];
    snprintf(ports, sizeof ports, "%d", port);
    snprintf(log, sizeof log, "%s/node2.log", srv.dir);
    char *argv[] = {DDZ_BIN,         "serve",
                    "--port",        ports,
                    "--bind",        "127.0.0.1",
                    "--db",          srv.db,
                    "--web",         DDZ_SOURCE_DIR "/web",
                    "--ai-delay-ms", "0",
                    "--ai",          "greedy",
                    "--quiet",       NULL};
    spawn(&node2, log, argv);
    int64_t deadline = now_ms() + T(10000);
    for (;;) {
        int status;
        char *body;
        if (ddz_wsc_http_get("127.0.0.1", port, "/healthz", 1000, &status, &body) == 0) {
            free(body);
            if (status == 200)
                return port;
        }
        cr_assert_lt(now_ms(), deadline, "node 2 did not answer /healthz: %s", slurp(log));
        poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
}

static void node2_stop(void)
{
    kill(node2.pid, SIGTERM);
    cr_assert(proc_wait(&node2, T(15000)), "node 2 did not stop on SIGTERM");
    cr_assert_eq(node2.code, 0, "node 2 exited with %d", node2.code);
}

/* A quick game against the hosted AIs on the server at srv.port: its
 * `over`, the record checked (served, verified). */
static ddz_event_over quick_game(const char *name)
{
    cli *c = cli_hello(name);
    c->bidder = true;
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    check_over(c->over);
    check_record(c->over); /* /api/games/ID, and `ddz verify` accepts it */
    return *c->over;
}

/* Cuts the `terms` the server adds to a served record (its last key),
 * leaving the record as stored. */
static void without_terms(char *json)
{
    char *t = strstr(json, ",\"terms\":");
    cr_assert_not_null(t, "a served record without terms: %s", json);
    strcpy(t, "}");
}

Test(serve_pg, a_game_a_record_an_export_and_a_token, .init = pg_setup, .fini = pg_teardown)
{
    /* A token made by the CLI against the URL, while the server runs. */
    char cmd[512], *tok;
    snprintf(cmd, sizeof cmd, "'%s' token add Robo --db '%s' 2>/dev/null", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &tok), 0, "ddz token add: %s", tok);
    tok[strcspn(tok, "\n")] = '\0';
    cr_assert_eq(strlen(tok), 64, "token: %s", tok);
    char *listed;
    snprintf(cmd, sizeof cmd, "'%s' token list --db '%s' 2>&1", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &listed), 0, "ddz token list: %s", listed);
    cr_assert(strncmp(listed, "Robo\t", 5) == 0 && strstr(listed, "\tactive\n"), "%s", listed);
    free(listed);

    /* A quick game against the hosted AIs: its record is served. */
    ddz_event_over o1 = quick_game("Lin");
    char path[160];
    snprintf(path, sizeof path, "/api/games/%lld-%s", (long long)o1.game_id, o1.game_key);
    int status;
    char *served = http_get(path, &status);
    cr_assert_eq(status, 200, "%s", served);

    /* Node 2 on the same database: it serves node 1's game, accepts the
     * token, and numbers its own game from a block of its own. */
    int ports[2] = {srv.port, node2_start()};
    srv.port = ports[1];
    char *there = http_get(path, &status);
    cr_assert_eq(status, 200, "%s", there);
    cr_assert_str_eq(there, served);
    free(there);
    for (int n = 0; n < 2; n++) {
        srv.port = ports[n];
        cli *bot = cli_connect();
        snprintf(bot->name, sizeof bot->name, "Robo");
        cli_send(bot, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name",
                                "ignored", "token", tok));
        const ddz_event *w = cli_expect(bot, DDZ_EVENT_WELCOME);
        cr_assert(w->welcome.bot, "node %d: %s", n + 1, show(w));
        cr_assert_str_eq(w->welcome.name, "Robo");
        cli_close(bot);
    }
    free(tok);
    srv.port = ports[1];
    ddz_event_over o2 = quick_game("Mei");
    cr_assert_neq((o2.game_id - 1) / 100, (o1.game_id - 1) / 100,
                  "ids %lld and %lld from one block of 100", (long long)o1.game_id,
                  (long long)o2.game_id);
    snprintf(path, sizeof path, "/api/games/%lld-%s", (long long)o2.game_id, o2.game_key);
    char *served2 = http_get(path, &status);
    cr_assert_eq(status, 200, "%s", served2);
    node2_stop();
    srv.port = ports[0];
    cr_assert_eq(server_stop(), 0);

    /* `ddz export --db URL`: both nodes' games in id order, the very bytes
     * stored, which are the bytes served less the `terms` the server adds
     * last (docs/decisions.md: records stay as stored). */
    char *out, want[16384];
    without_terms(served);
    without_terms(served2);
    snprintf(want, sizeof want, "%s\n%s\n", served, served2);
    snprintf(cmd, sizeof cmd, "'%s' export --db '%s'", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &out), 0, "ddz export: %s", out);
    cr_assert_str_eq(out, want);
    free(out);

    /* `ddz token revoke --db URL`. */
    snprintf(cmd, sizeof cmd, "'%s' token revoke Robo --db '%s' 2>&1", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &out), 0, "ddz token revoke: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' token list --db '%s' 2>&1", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &out), 0, "ddz token list: %s", out);
    cr_assert(strstr(out, "\trevoked\n"), "%s", out);
    free(served2);
    free(out);
    free(served);
}

Test(serve_pg, an_unreachable_database_is_refused, .init = pg_setup, .fini = pg_teardown)
{
    cr_assert_eq(server_stop(), 0);
    char *out;
    /* port 1 on loopback: nobody listens */
    const char *cmds[] = {
        "'" DDZ_BIN "' serve --port 1 --db 'postgres://ddz:sesame@127.0.0.1:1/x?password=sesame'"
        " 2>&1",
        "'" DDZ_BIN "' token list --db 'postgres://ddz:sesame@127.0.0.1:1/x' 2>&1",
        "'" DDZ_BIN "' export --db 'postgresql://ddz:sesame@127.0.0.1:1/x' 2>&1",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cr_assert_eq(shell(cmds[i], &out), 1, "%s: %s", cmds[i], out);
        cr_assert(strstr(out, "ddz@127.0.0.1:1/x: ") != NULL, "%s", out);
        cr_assert_null(strstr(out, "sesame"), "the password is shown: %s", out);
        cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
        free(out);
    }
}

/* The server's open descriptor numbers (from /proc): sets in[fd]. */
enum { FD_MAX = 4096 };
static void server_fds(bool in[FD_MAX])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)srv.pid);
    memset(in, 0, FD_MAX);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s: %s", path, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd >= 0 && fd < FD_MAX)
            in[fd] = true;
    }
    closedir(d);
}

/* A raw connection to the server, with `head` sent on it. */
static int raw_head(const char *head, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)srv.port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    for (size_t off = 0; off < len;) {
        ssize_t n = send(fd, head + off, len - off, MSG_NOSIGNAL);
        cr_assert_gt(n, 0, "send: %s", strerror(errno));
        off += (size_t)n;
    }
    return fd;
}

/* Reads `fd` until the server closes it (bounded); returns the first bytes
 * read, NUL-terminated, in `out`. */
static void read_to_close(int fd, char *out, size_t cap)
{
    size_t len = 0;
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        int64_t left = deadline - now_ms();
        cr_assert_gt(left, 0, "the server did not close: %.*s", (int)len, out);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) != 1)
            continue;
        char sink[4096];
        ssize_t n = recv(fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        size_t take = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;
        memcpy(out + len, sink, take);
        len += take;
    }
    out[len] = '\0';
}

/* The interposed recv() kept a state per descriptor number that outlived
 * the socket: a socket answered 431 left its number marked, and a database
 * connection that took that number when it reconnected read end-of-stream
 * for ever; every libpq read also went through the server's table. Here
 * the server's database sessions are ended from outside while the database
 * refuses new ones (the reader, asked for a game, fails), client sockets
 * are answered 431 or closed mid-head, the database lets connections in
 * again, and the store reconnects: games are read, played, stored and
 * served, and HTTP and WebSocket clients served. (libpq closes its broken
 * socket and opens the new one at once, so it takes a client's former
 * number only when one below its own is free; the test logs which numbers
 * the database holds afterwards rather than depend on it. That no libpq
 * read goes through the server at all is test_attack_http's
 * no_libc_or_openssl_function_is_defined.) */
Test(serve_pg, the_database_and_clients_reuse_descriptor_numbers, .init = pg_setup,
     .fini = pg_teardown)
{
    enum { K = 8 };
    static bool before[FD_MAX], during[FD_MAX], after[FD_MAX];
    char sql[256];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS false", pg_db);
    pg_admin_run(sql);
    PGconn *admin = pg_connect(pg_admin);
    snprintf(sql, sizeof sql,
             "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '%s'",
             pg_db);
    long long ended = pg_num(admin, sql);
    PQfinish(admin);
    cr_assert_geq(ended, 1, "no session of the server to end");
    /* the reader finds its connection gone and cannot open another */
    int status;
    free(http_get("/api/games/1", &status));
    cr_assert_eq(status, 503,
                 "the reader still reads (or answers other than 503 when the database is away)");
    server_fds(before);
    char *big = malloc(12000);
    cr_assert_not_null(big);
    int n = snprintf(big, 12000, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ");
    memset(big + n, 'a', 10000);
    memcpy(big + n + 10000, "\r\n\r\n", 5);
    int fds[K];
    for (int i = 0; i < K; i++)
        fds[i] = raw_head("", 0);
    /* the server's numbers for these sockets, for the log (it may not
     * have accepted them all yet; waiting longer would let their heads'
     * deadline pass) */
    server_fds(during);
    for (int i = 0; i < K; i++) {
        const char *head = i < K - 2 ? big : "GET / HTTP/1.1\r\nHo";
        for (size_t off = 0, len = strlen(head); off < len;) {
            ssize_t sent = send(fds[i], head + off, len - off, MSG_NOSIGNAL);
            cr_assert_gt(sent, 0, "send: %s", strerror(errno));
            off += (size_t)sent;
        }
    }
    char answer[256];
    for (int i = 0; i < K - 2; i++) {
        read_to_close(fds[i], answer, sizeof answer);
        cr_assert_eq(strncmp(answer, "HTTP/1.1 431 ", 13), 0, "%s", answer);
    }
    for (int i = 0; i < K; i++)
        close(fds[i]);
    free(big);
    char held[256] = "";
    for (int fd = 0, len = 0; fd < FD_MAX; fd++)
        if (during[fd] && !before[fd])
            len += snprintf(held + len, sizeof held - (size_t)len, " %d", fd);
    cr_log_info("the clients' numbers:%s", held);
    /* the database lets the server in again: the reader reconnects (the
     * request's own socket takes the lowest free number, the reader's
     * connection the next) */
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS true", pg_db);
    pg_admin_run(sql);
    free(http_get("/api/games/1", &status));
    cr_assert_eq(status, 404, "the reader did not read again after reconnecting");
    server_fds(after);
    char reused[256] = "";
    for (int fd = 0, len = 0; fd < FD_MAX; fd++)
        if (after[fd] && during[fd] && !before[fd])
            len += snprintf(reused + len, sizeof reused - (size_t)len, " %d", fd);
    cr_log_info("the clients' numbers held after the reconnection:%s", reused);
    for (int g = 0; g < 2; g++)
        quick_game("Reuse"); /* played, stored (check_record), served */
    cr_assert(healthy());
    cli *c = cli_hello("After");
    cli_send(c, json_pack("{s:s}", "type", "list"));
    cli_expect(c, DDZ_EVENT_ROOMS);
    cli_free(c);
}
