/* test_attack_http.c - anonymous clients against a real `ddz serve`, at the
 * HTTP, WebSocket and TLS layer: what each attack did before it was fixed,
 * asserted not to happen any more.
 *
 * Every wait is bounded. Clients are raw sockets where the attack is in the
 * bytes (a WebSocket library would not send them), and the harness's
 * clients (serve_harness.h) to check that the server still serves. A test
 * that needs server options sets serve_extra or serve_nofile, then starts
 * the server itself.
 */
#include <arpa/inet.h>
#include <netinet/tcp.h>

#include "serve_harness.h"

TestSuite(attack, .init = setup_no_server, .fini = teardown, .timeout = HANG(120));

/* ---- raw sockets ---- */

/* A blocking TCP connection to the server (loopback). */
static int raw_connect(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)srv.port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    return fd;
}

static void raw_send(int fd, const void *data, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = send(fd, (const char *)data + off, len - off, MSG_NOSIGNAL);
        cr_assert_gt(n, 0, "send: %s", strerror(errno));
        off += (size_t)n;
    }
}

typedef struct raw_reply {
    char *buf; /* everything read, NUL-terminated */
    size_t len;
    bool eof; /* the server closed (FIN or reset), rather than the wait ending */
} raw_reply;

/* Reads from `fd` until the server closes it or `ms` pass, whichever is
 * first. Returns what came. */
static raw_reply raw_read(int fd, int ms)
{
    raw_reply r = {.buf = malloc(4096)};
    size_t cap = 4096;
    cr_assert_not_null(r.buf);
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) != 1)
            continue;
        if (r.len + 1024 >= cap)
            cr_assert_not_null(r.buf = realloc(r.buf, cap *= 2));
        ssize_t n = recv(fd, r.buf + r.len, cap - r.len - 1, 0);
        if (n <= 0) {
            r.eof = true;
            break;
        }
        r.len += (size_t)n;
    }
    r.buf[r.len] = '\0';
    return r;
}

/* Whether `r` holds `needle` (frames hold NUL bytes: no strstr). */
static bool has(const raw_reply *r, const char *needle)
{
    return memmem(r->buf, r->len, needle, strlen(needle)) != NULL;
}

/* How many times `needle` occurs in `hay`. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The server's CPU time so far (user + system), in milliseconds, from
 * /proc/PID/stat. */
static long server_cpu_ms(void)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)srv.pid);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "the server is gone");
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* after "PID (COMM) ": state, ppid, pgrp, session, tty, tpgid, flags,
     * minflt, cminflt, majflt, cmajflt, utime, stime */
    char *p = strrchr(buf, ')');
    unsigned long ut, st;
    cr_assert(p &&
              sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2);
    return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* The number of lines the server has written to its log. */
static long server_log_lines(void)
{
    char *log = slurp(srv.log);
    long n = count_of(log, "\n");
    free(log);
    return n;
}

/* Waits (bounded) until /healthz answers again. */
static void wait_healthy(int ms)
{
    int64_t deadline = now_ms() + ms;
    while (!healthy()) {
        cr_assert_lt(now_ms(), deadline, "/healthz did not answer again within %d ms", ms);
        poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
}

/* ---- item 2: descriptor exhaustion ---- */

/* With RLIMIT_NOFILE at 256, 400 idle connections used to put the server's
 * loop in a busy spin: lws retried accept() on EMFILE at once, forever,
 * logging each failure (one core at 100%, 142,879 lines in 3 s, --quiet or
 * not). Now the connections past the descriptor budget are shed, nothing
 * spins, one warning at most is logged, and once the connections close the
 * server serves HTTP and WebSocket clients again. */
Test(attack, descriptor_exhaustion)
{
    serve_nofile = 256;
    server_start();
    enum { N = 400 };
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        cr_assert_geq(fds[i], 0);
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)srv.port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int rc = connect(fds[i], (struct sockaddr *)&a, sizeof a);
        cr_assert(rc == 0 || errno == EINPROGRESS, "connect %d: %s", i, strerror(errno));
    }
    /* every connection is established (the kernel's queue takes them
     * whether or not the server accepts) */
    int64_t deadline = now_ms() + T(5000);
    for (int i = 0; i < N; i++) {
        struct pollfd p = {.fd = fds[i], .events = POLLOUT};
        int64_t left = deadline - now_ms();
        cr_assert_eq(poll(&p, 1, left > 0 ? (int)left : 0), 1, "connection %d not established", i);
    }
    long lines0 = server_log_lines(), cpu0 = server_cpu_ms();
    int64_t t0 = now_ms();
    /* The measurement window itself: how much CPU the server burns while
     * the connections sit idle. */
    poll(NULL, 0, 1500);
    long cpu = server_cpu_ms() - cpu0, window = (long)(now_ms() - t0);
    long lines = server_log_lines() - lines0;
    cr_log_info("server CPU %ld ms in %ld ms, %ld log lines, with %d idle connections", cpu, window,
                lines, N);
    cr_assert_lt(cpu, window / 10, "the server burned %ld ms of CPU in %ld ms", cpu, window);
    cr_assert_lt(lines, 10, "the server logged %ld lines in %ld ms", lines, window);

    /* the connections past the budget were shed: closed, not left hanging */
    int shed = 0;
    for (int i = 0; i < N; i++) {
        struct pollfd p = {.fd = fds[i], .events = POLLIN};
        shed += poll(&p, 1, 0) == 1;
    }
    cr_assert_geq(shed, N - 256, "only %d of %d connections were closed", shed, N);

    for (int i = 0; i < N; i++)
        close(fds[i]);
    wait_healthy(T(5000));
    cli *c = cli_hello("After");
    cli_send(c, json_pack("{s:s}", "type", "list"));
    cli_expect(c, DDZ_EVENT_ROOMS);
    cr_assert_geq(metric("ddz_connections_shed_total"), N - 256);
    cr_assert_eq(metric("ddz_descriptor_limit"), 256);
}

/* ---- item 7: HTTP pipelining ---- */

/* Sends `n` copies of `request` in one write and reads (bounded) until the
 * server closes. */
static raw_reply pipelined(const char *request, int n)
{
    size_t len = strlen(request);
    char *all = malloc(len * (size_t)n + 1);
    cr_assert_not_null(all);
    for (int i = 0; i < n; i++)
        memcpy(all + len * (size_t)i, request, len);
    int fd = raw_connect();
    raw_send(fd, all, len * (size_t)n);
    free(all);
    raw_reply r = raw_read(fd, T(3000));
    close(fd);
    return r;
}

/* Five pipelined GET /healthz in one write used to get two answers, then
 * the connection hung, and each such connection leaked (a body strdup'ed
 * by route() and wiped by the next request's memset). lws 4.1 mishandles
 * pipelining, so every HTTP/1.x answer says "Connection: close" and the
 * connection ends after it: one whole answer, then the close, for every
 * kind of route (a callback, the store's read, a static file, a 404). The
 * server must then stop cleanly: under ASan (the sanitizer build) a leak
 * makes its exit status non-zero. */
Test(attack, http_pipelining)
{
    server_start();
    static const struct {
        const char *path, *status, *body;
    } routes[] = {
        {"/healthz", "HTTP/1.1 200 ", "\r\n\r\nok\n"},
        {"/metrics", "HTTP/1.1 200 ", "ddz_connections "},
        {"/api/games/1", "HTTP/1.1 404 ", "no such game"},
        {"/", "HTTP/1.1 200 ", "<html"},
        {"/js/app.js", "HTTP/1.1 200 ", "import"},
        {"/no/such/file", "HTTP/1.1 404 ", "no such resource"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        char req[256];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", routes[i].path);
        raw_reply r = pipelined(req, 5);
        cr_assert(r.eof, "%s: the connection hangs after %d answers:\n%.600s", routes[i].path,
                  count_of(r.buf, "HTTP/1.1 "), r.buf);
        cr_assert_eq(count_of(r.buf, "HTTP/1.1 "), 1, "%s: %.600s", routes[i].path, r.buf);
        cr_assert_eq(strncmp(r.buf, routes[i].status, strlen(routes[i].status)), 0, "%s: %.300s",
                     routes[i].path, r.buf);
        cr_assert_not_null(strstr(r.buf, "\r\nconnection: close\r\n"), "%s: %.600s", routes[i].path,
                           r.buf);
        cr_assert_not_null(strstr(r.buf, routes[i].body), "%s: %.600s", routes[i].path, r.buf);
        /* the whole body came: its length is the one announced */
        const char *cl = strstr(r.buf, "\r\ncontent-length: "), *end = strstr(r.buf, "\r\n\r\n");
        cr_assert(cl && end, "%s: %.600s", routes[i].path, r.buf);
        cr_assert_eq((size_t)atol(cl + 18), r.len - (size_t)(end + 4 - r.buf), "%s: %.600s",
                     routes[i].path, r.buf);
        free(r.buf);
    }
    /* many such connections, then a clean stop (a leak fails it under ASan) */
    for (int i = 0; i < 50; i++)
        free(pipelined("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 5).buf);
    cr_assert(healthy());
    cr_assert_eq(server_stop(), 0, "the server's exit (under ASan: a leak?)");
}

/* ---- item 8: unmasked client frames ---- */

static const char ws_upgrade[] =
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n";

/* A text frame of `text` as a client sends it (masked with `key`), or
 * unmasked if `key` is NULL, into `out`. Returns its length. */
static size_t ws_frame(const char *text, const unsigned char *key, unsigned char *out)
{
    size_t n = strlen(text), len = 0;
    cr_assert_lt(n, 126);
    out[len++] = 0x81; /* FIN, text */
    out[len++] = (unsigned char)((key ? 0x80 : 0) | n);
    if (key) {
        memcpy(out + len, key, 4);
        len += 4;
    }
    for (size_t i = 0; i < n; i++)
        out[len++] = (unsigned char)text[i] ^ (key ? key[i % 4] : 0);
    return len;
}

/* The status of the close frame among the frames of `r` (after the
 * handshake's answer if `r` starts with it), or -1 if there is none
 * (frames from the server are never masked). */
static int close_status(const raw_reply *r)
{
    const unsigned char *p = (const unsigned char *)r->buf,
                        *lim = (const unsigned char *)r->buf + r->len;
    if (strncmp(r->buf, "HTTP/", 5) == 0) {
        const char *end = strstr(r->buf, "\r\n\r\n");
        if (!end)
            return -1;
        p = (const unsigned char *)end + 4;
    }
    while (lim - p >= 2) {
        size_t n = p[1] & 0x7f, hdr = 2;
        if (n == 126) {
            if (lim - p < 4)
                return -1;
            n = (size_t)p[2] << 8 | p[3];
            hdr = 4;
        }
        if ((p[0] & 0x0f) == 0x8)
            return n >= 2 && (size_t)(lim - p) >= hdr + 2 ? p[hdr] << 8 | p[hdr + 1] : 1005;
        if ((size_t)(lim - p) < hdr + n)
            return -1;
        p += hdr + n;
    }
    return -1;
}

/* RFC 6455 5.1: a server MUST close the connection on an unmasked client
 * frame. lws 4.1 does not check; the server (service/net/wire.h) does,
 * on the bytes as lws reads them: a raw client that completes the
 * handshake and sends an unmasked hello is closed with 1002 and gets no
 * welcome, whether the frame comes after the handshake's answer or in the
 * same write as the handshake; the same hello masked is welcomed. */
Test(attack, unmasked_client_frame)
{
    server_start();
    static const char hello[] = "{\"type\":\"hello\",\"version\":1,\"name\":\"Raw\"}";
    static const unsigned char key[4] = {0x37, 0xfa, 0x21, 0x3d};
    unsigned char frame[256];
    for (int masked = 1; masked >= 0; masked--) {
        for (int together = 0; together < 2; together++) {
            int fd = raw_connect();
            size_t n = ws_frame(hello, masked ? key : NULL, frame);
            if (together) {
                unsigned char both[512];
                memcpy(both, ws_upgrade, sizeof ws_upgrade - 1);
                memcpy(both + sizeof ws_upgrade - 1, frame, n);
                raw_send(fd, both, sizeof ws_upgrade - 1 + n);
            } else {
                raw_send(fd, ws_upgrade, sizeof ws_upgrade - 1);
                /* the handshake's answer first, as a client must wait */
                raw_reply hs = raw_read(fd, 300);
                cr_assert_not_null(strstr(hs.buf, "101 Switching Protocols"), "%s", hs.buf);
                free(hs.buf);
                raw_send(fd, frame, n);
            }
            raw_reply r = raw_read(fd, T(masked ? 1000 : 3000));
            close(fd);
            const char *how = together ? "with the handshake" : "after the handshake";
            if (masked) {
                cr_assert(has(&r, "\"type\":\"welcome\""),
                          "a masked hello (%s) is not welcomed: %.300s", how, r.buf);
                cr_assert_not(r.eof);
            } else {
                cr_assert_not(has(&r, "welcome"), "an unmasked hello (%s) is welcomed", how);
                cr_assert_eq(close_status(&r), 1002, "unmasked hello (%s): close status %d", how,
                             close_status(&r));
                cr_assert(r.eof, "unmasked hello (%s): the connection stays open", how);
            }
            free(r.buf);
        }
    }
    cr_assert_eq(metric("ddz_ws_unmasked_frames_total"), 2);
    /* a ping is a frame too */
    int fd = raw_connect();
    raw_send(fd, ws_upgrade, sizeof ws_upgrade - 1);
    free(raw_read(fd, 300).buf);
    static const unsigned char ping[] = {0x89, 0x02, 'h', 'i'};
    raw_send(fd, ping, sizeof ping);
    raw_reply r = raw_read(fd, T(3000));
    close(fd);
    cr_assert_eq(close_status(&r), 1002, "unmasked ping: close status %d", close_status(&r));
    cr_assert(r.eof);
    free(r.buf);
}

/* ---- item 9: methods, HEAD, oversized request heads ---- */

/* Sends `request` on a new connection; returns everything until the close
 * (bounded). */
static raw_reply exchange(const char *request)
{
    int fd = raw_connect();
    raw_send(fd, request, strlen(request));
    raw_reply r = raw_read(fd, T(3000));
    close(fd);
    cr_assert(r.eof, "no close after: %.200s\nanswer: %.300s", request, r.buf);
    return r;
}

/* The value of header `name` (lower case) in the answer `r`, or "". */
static const char *header_of(const raw_reply *r, const char *name, char *out, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "\r\n%s: ", name);
    const char *p = strstr(r->buf, key), *end = strstr(r->buf, "\r\n\r\n");
    out[0] = '\0';
    if (p && end && p < end)
        snprintf(out, n, "%.*s", (int)strcspn(p + strlen(key), "\r"), p + strlen(key));
    return out;
}

/* `POST /` returned the index page; methods other than GET and HEAD are now
 * answered 405 with "Allow: GET, HEAD", on the static files and the
 * routes alike. A POST carrying the WebSocket upgrade is not upgraded. */
Test(attack, methods_other_than_get_and_head)
{
    server_start();
    static const char *const methods[] = {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"};
    static const char *const paths[] = {"/",        "/index.html", "/js/app.js",   "/api/games/1",
                                        "/healthz", "/metrics",    "/no/such/file"};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            char req[256], allow[64];
            snprintf(req, sizeof req,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nx=1",
                     methods[m], paths[p]);
            raw_reply r = exchange(req);
            cr_assert_eq(strncmp(r.buf, "HTTP/1.1 405 ", 13), 0, "%s %s: %.300s", methods[m],
                         paths[p], r.buf);
            cr_assert_str_eq(header_of(&r, "allow", allow, sizeof allow), "GET, HEAD", "%s %s",
                             methods[m], paths[p]);
            cr_assert_null(strstr(r.buf, "<html"), "%s %s served the page", methods[m], paths[p]);
            free(r.buf);
        }
    char req[512];
    snprintf(req, sizeof req, "POST%s", ws_upgrade + 3);
    raw_reply r = exchange(req);
    cr_assert_null(strstr(r.buf, "101 Switching"), "a POST was upgraded: %.300s", r.buf);
    free(r.buf);
}

/* `HEAD /metrics` was 404 (the route read the GET URI only). HEAD now works
 * wherever GET does: the same status, type and length, and no body. */
Test(attack, head_where_get_works)
{
    server_start();
    static const char *const paths[] = {"/healthz",   "/metrics",     "/",
                                        "/js/app.js", "/api/games/1", "/no/such/file"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char req[256], a[128], b[128];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", paths[i]);
        raw_reply get = exchange(req);
        snprintf(req, sizeof req, "HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", paths[i]);
        raw_reply head = exchange(req);
        cr_assert_eq(strncmp(get.buf, head.buf, 13), 0, "%s: GET %.12s, HEAD %.12s", paths[i],
                     get.buf, head.buf);
        cr_assert_str_eq(header_of(&head, "content-type", a, sizeof a),
                         header_of(&get, "content-type", b, sizeof b), "%s", paths[i]);
        if (strcmp(paths[i], "/metrics") != 0) /* the figures move between the two */
            cr_assert_str_eq(header_of(&head, "content-length", a, sizeof a),
                             header_of(&get, "content-length", b, sizeof b), "%s", paths[i]);
        const char *end = strstr(head.buf, "\r\n\r\n");
        cr_assert(end && (size_t)(end + 4 - head.buf) == head.len, "HEAD %s sent a body: %.400s",
                  paths[i], head.buf);
        free(get.buf);
        free(head.buf);
    }
}

/* A request head over ~4-5 KB got no answer at all (lws's header table was
 * full: it dropped the connection). Heads up to 8 KiB and 64 lines are
 * served; a larger one, or one with more lines, gets 431 and the close. */
Test(attack, oversized_request_head)
{
    server_start();
    static const struct {
        int bytes, lines, status;
    } cases[] = {{6000, 3, 200}, {7800, 60, 200}, {9000, 1, 431}, {64000, 8, 431}, {2000, 80, 431}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t cap = (size_t)cases[i].bytes + 256 * (size_t)cases[i].lines + 256;
        char *req = malloc(cap);
        cr_assert_not_null(req);
        size_t len = (size_t)snprintf(req, cap, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        int per = cases[i].bytes / cases[i].lines;
        for (int l = 0; l < cases[i].lines; l++)
            len += (size_t)snprintf(req + len, cap - len, "X-Pad-%d: %0*d\r\n", l, per - 12, 0);
        len += (size_t)snprintf(req + len, cap - len, "\r\n");
        raw_reply r = exchange(req);
        free(req);
        char want[32];
        snprintf(want, sizeof want, "HTTP/1.1 %d ", cases[i].status);
        cr_assert_eq(strncmp(r.buf, want, strlen(want)), 0, "%d bytes in %d lines: %.200s",
                     cases[i].bytes, cases[i].lines, r.len ? r.buf : "(no answer)");
        free(r.buf);
    }
    cr_assert_eq(metric("ddz_http_431_total"), 3);
    cr_assert(healthy());
}

/* ---- item 10: who may read a finished game ---- */

/* GET `path`: its status (the body dropped). */
static int status_of(const char *path)
{
    int status;
    char *body = NULL;
    int rc = ddz_wsc_http_get("127.0.0.1", srv.port, path, T(5000), &status, &body);
    cr_assert_eq(rc, 0, "GET %s failed (%d)", path, rc);
    free(body);
    return status;
}

/* Finished games of private and password rooms were public at
 * /api/games/ID, ids being sequential (the seed, every hand, the names).
 * Now a listed room's game stays public by id (its over has game_key
 * null); a private room's (quick play's too) or a password room's game
 * has a random game_key, which its players get in `over`, and is served at
 * /api/games/ID-KEY only: its plain id, or another key, is 404 as for no
 * game at all. */
Test(attack, private_games_need_their_link)
{
    server_start();
    static const struct {
        const char *what, *extra, *value;
    } rooms[] = {{"listed", NULL, NULL},
                 {"private", "private", NULL},
                 {"password", "password", "pw"},
                 {"quick play", NULL, NULL}};
    for (size_t i = 0; i < sizeof rooms / sizeof rooms[0]; i++) {
        cli *c = cli_hello("Owner");
        c->bidder = true;
        if (i == 3) {
            cli_send(c, json_pack("{s:s}", "type", "quick"));
            cli_expect(c, DDZ_EVENT_JOINED);
        } else {
            json_t *o = opts(1, 0, 10);
            json_object_set_new(o, "fill", json_string("ai:greedy"));
            if (rooms[i].extra)
                json_object_set_new(o, rooms[i].extra,
                                    rooms[i].value ? json_string(rooms[i].value) : json_true());
            cli_create(c, o, 0);
        }
        cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
        const ddz_event_over *over = c->over;
        char plain[64], linked[128], wrong[128];
        snprintf(plain, sizeof plain, "/api/games/%lld", (long long)over->game_id);
        if (i == 0) {
            cr_assert_str_eq(over->game_key, "", "a listed room's game has a key: %s",
                             show_over(over));
            check_record(over); /* served at its plain id, and verified */
            snprintf(wrong, sizeof wrong, "%s-%032d", plain, 0);
            cr_assert_eq(status_of(wrong), 404, "a listed game under a key");
        } else {
            cr_assert_eq(strlen(over->game_key), 32, "%s: no key: %s", rooms[i].what,
                         show_over(over));
            check_record(over); /* served at ID-KEY (once stored), and verified */
            cr_assert_eq(status_of(plain), 404, "the %s room's game is served at %s", rooms[i].what,
                         plain);
            snprintf(linked, sizeof linked, "%s-%s", plain, over->game_key);
            strcpy(wrong, linked);
            wrong[strlen(wrong) - 1] = wrong[strlen(wrong) - 1] == '0' ? '1' : '0';
            cr_assert_eq(status_of(wrong), 404, "served under another key");
            snprintf(wrong, sizeof wrong, "%s-%.31s", plain, over->game_key);
            cr_assert_eq(status_of(wrong), 404, "served under a short key");
            cr_assert_eq(status_of(linked), 200);
        }
        cli_free(c);
    }
}
