/* test_attack_budgets.c - anonymous clients must not be able to exhaust
 * the server: each test replays an attack against a real `ddz serve` and
 * checks that what the attacker made the server hold stays within its
 * budget (README, "Budgets"), that the refusal is the one PROTOCOL.md
 * promises, and that /metrics shows the use.
 *
 * Attackers are raw WebSocket clients (a socket, a handshake, masked text
 * frames, never more than they need to read), so a test can open more of
 * them than the harness's clients and hold them without reading, like a
 * real attacker. Every wait has a bound; the attacks are small versions of
 * the ones in the issue, sized so that the limits given to the server are
 * crossed several times over.
 */
#include <arpa/inet.h>

#include "serve_harness.h"

/* Starts the server with `opts` (NULL-terminated) after the harness's. */
static void start_with(const char *const *opts)
{
    size_t n = 0;
    for (; opts[n]; n++)
        serve_extra[n] = opts[n];
    serve_extra[n] = NULL;
    setup();
}

/* ---- raw attackers ---- */

/* Connects to the server's /ws and completes the handshake, with an
 * X-Forwarded-For header when `xff` is not NULL and a small receive buffer
 * when `rcvbuf` > 0 (a client that will not read). Returns the socket, or
 * -1 if the server refused the handshake or closed (bounded: 5 s). */
static int raw_connect(const char *xff, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(fd, 0);
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)srv.port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                     xff ? "X-Forwarded-For: " : "", xff ? xff : "", xff ? "\r\n" : "");
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    /* the response headers, byte by byte so that no frame is read past them */
    char resp[1024];
    size_t len = 0;
    int64_t deadline = now_ms() + T(5000);
    while (len < sizeof resp - 1 && !(len >= 4 && memcmp(resp + len - 4, "\r\n\r\n", 4) == 0)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int64_t left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0 || recv(fd, resp + len, 1, 0) != 1)
            break;
        len++;
    }
    resp[len] = '\0';
    if (strncmp(resp, "HTTP/1.1 101", 12) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends `text` as one masked text frame (the mask is zero: the bytes go as
 * they are). Returns false if the socket would not take it in 5 s. */
static bool raw_send(int fd, const char *text)
{
    size_t len = strlen(text);
    unsigned char hdr[8] = {0x81};
    size_t h;
    if (len < 126) {
        hdr[1] = (unsigned char)(0x80 | len);
        h = 2;
    } else {
        hdr[1] = 0x80 | 126;
        hdr[2] = (unsigned char)(len >> 8);
        hdr[3] = (unsigned char)len;
        h = 4;
    }
    memset(hdr + h, 0, 4); /* mask key */
    h += 4;
    struct iovec iov[2] = {{hdr, h}, {(void *)text, len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
    size_t total = h + len;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, T(5000)) <= 0)
        return false;
    return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)total;
}

/* Reads what the server sent until one of `needles` appears in it (the
 * server's frames are unmasked text, so a JSON fragment can be searched
 * for), within 5 s. Returns the index of the needle found, or -1 on
 * timeout or close. */
static int raw_wait(int fd, const char *const *needles)
{
    static char buf[1 << 16];
    size_t len = 0;
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        for (int i = 0; needles[i]; i++)
            if (memmem(buf, len, needles[i], strlen(needles[i])))
                return i;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int64_t left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return -1;
        if (len == sizeof buf) { /* keep the tail: a needle may straddle */
            memmove(buf, buf + len / 2, len / 2);
            len /= 2;
        }
        ssize_t n = recv(fd, buf + len, sizeof buf - len, 0);
        if (n <= 0)
            return -1;
        len += (size_t)n;
    }
}

/* A raw client that said hello and was welcomed; -1 if refused. */
static int raw_hello(const char *xff)
{
    int fd = raw_connect(xff, 0);
    if (fd < 0)
        return -1;
    cr_assert(raw_send(fd, "{\"type\":\"hello\",\"version\":1,\"name\":\"attacker\"}"));
    static const char *const welcome[] = {"\"type\":\"welcome\"", NULL};
    cr_assert_eq(raw_wait(fd, welcome), 0, "no welcome");
    return fd;
}

/* Sends `request` and waits for its answer: 0 for `joined`, else the
 * error code found (DDZ_E...), asserting that one of them came. */
static int raw_request(int fd, const char *request)
{
    cr_assert(raw_send(fd, request));
    static const char *const answers[] = {"\"type\":\"joined\"", "\"code\":\"EBUSY\"",
                                          "\"code\":\"ERATE\"",  "\"code\":\"EAUTH\"",
                                          "\"code\":\"EFULL\"",  NULL};
    static const int codes[] = {0, DDZ_EBUSY, DDZ_ERATE, DDZ_EAUTH, DDZ_EFULL};
    int i = raw_wait(fd, answers);
    cr_assert_geq(i, 0, "no answer to %s", request);
    return codes[i];
}

/* ---- the server's view ---- */

/* The value of the sample `name` (with its labels, as printed) at
 * /metrics; -1 if absent. */
static long metric(const char *name)
{
    int status;
    char *body = http_get("/metrics", &status);
    cr_assert_eq(status, 200);
    long v = -1;
    size_t n = strlen(name);
    for (char *line = body; line && *line;) {
        if (strncmp(line, name, n) == 0 && line[n] == ' ') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    free(body);
    return v;
}

/* Waits (bounded) until metric `name` is `want`; returns the last value. */
static long metric_becomes(const char *name, long want, int ms)
{
    int64_t deadline = now_ms() + ms;
    long v;
    while ((v = metric(name)) != want && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    return v;
}

/* Counts this test's descendant processes running `program` (their
 * argv[0]): a shell about to exec it does not count, a zombie neither. */
static int count_running(const char *program)
{
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], argv0[512];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(argv0, 1, sizeof argv0 - 1, f);
        fclose(f);
        argv0[len] = '\0'; /* argv[0] ends at its NUL */
        if (strcmp(argv0, program) == 0 && proc_descends_from((pid_t)pid, getpid()))
            n++;
    }
    closedir(d);
    return n;
}

/* ---- 1. engine processes ---- */

/* The engine is the scriptable test engine (the server execs it from its
 * shell: one process per engine seat to count). */
#define ENGINE_OPT "rnd=" DDZ_TESTENGINE

static void start_engines(void)
{
    static const char *const o[] = {"--engine", ENGINE_OPT, "--max-engines", "6", NULL};
    start_with(o);
}

static const char engine_room[] =
    "{\"type\":\"create\",\"seat\":2,\"options\":{\"seats\":[\"engine:rnd\",\"engine:rnd\",null],"
    "\"grace\":600,\"time\":300}}";

/* The attack: hello, a room with two engine seats, drop the
 * connection, again and again. Each such room kept two processes for the
 * client-chosen grace (150 connections: 300 processes). Now the engine
 * seats of live rooms are a budget (--max-engines 6 here): three rooms,
 * then EBUSY, and never more than six processes. */
Test(attack, engine_processes_are_bounded, .init = start_engines, .fini = teardown, .timeout = 120)
{
    /* a room whose player stays, to free its engines later */
    cli *host = cli_hello("Host");
    json_t *o = opts(6, 0, 300);
    json_object_set_new(o, "seats", json_pack("[s, s, n]", "engine:rnd", "engine:rnd"));
    cli_create(host, o, 2);

    int made = 0, busy = 0;
    for (int i = 0; i < 12; i++) {
        int fd = raw_hello(NULL);
        cr_assert_geq(fd, 0);
        int rc = raw_request(fd, engine_room);
        made += rc == 0;
        busy += rc == DDZ_EBUSY;
        close(fd); /* the attacker drops at once */
        cr_assert_leq(count_running(DDZ_TESTENGINE), 6, "after %d rooms", i + 1);
    }
    cr_assert_eq(made, 2, "rooms with engines made: %d (2 fit beside the host's)", made);
    cr_assert_eq(busy, 10, "EBUSY answers: %d", busy);
    cr_assert_eq(metric("ddz_budget_used{budget=\"engines\"}"), 6);
    cr_assert_eq(metric("ddz_budget_limit{budget=\"engines\"}"), 6);
    cr_assert_eq(metric("ddz_budget_refused_total{budget=\"engines\"}"), 10);

    /* the processes run (the games started), within the budget */
    int64_t deadline = now_ms() + T(5000);
    while (count_running(DDZ_TESTENGINE) < 6 && now_ms() < deadline)
        poll(NULL, 0, 20);
    cr_assert_eq(count_running(DDZ_TESTENGINE), 6, "engine processes: %d",
                 count_running(DDZ_TESTENGINE));

    /* a room that closes gives its engines back at once */
    cli_send(host, json_pack("{s:s}", "type", "leave"));
    cli_expect(host, DDZ_EVENT_JOINED);
    cr_assert_eq(metric_becomes("ddz_budget_used{budget=\"engines\"}", 4, T(3000)), 4);
    int fd = raw_hello(NULL);
    cr_assert_eq(raw_request(fd, engine_room), 0, "no room once engines were freed");
    close(fd);
    cr_assert_leq(count_running(DDZ_TESTENGINE), 6);
    cr_assert(healthy());
}
