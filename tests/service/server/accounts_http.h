/* accounts_http.h - what the accounts' serve tests share
 * (test_serve_accounts.c, test_cluster_accounts.c): plain HTTP/1.1
 * requests on a socket of the test's own to the server at srv.port (a
 * cluster test aims srv.port at a node first), the server closing each
 * connection after its answer; a sign-up and a sign-in; a guest's hello
 * that returns whatever it was answered. Include after serve_harness.h;
 * every function is static. */
#ifndef DDZ_TEST_ACCOUNTS_HTTP_H
#define DDZ_TEST_ACCOUNTS_HTTP_H

#include <arpa/inet.h>

typedef struct reply {
    int status;
    char head[2048]; /* the status line and headers */
    char *body;      /* malloc'd, NUL-terminated */
} reply;

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)srv.port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Sends `method path` with `body` (NULL: none, no Content-Length) and
 * `bearer` (NULL: none) on a new connection. Returns its socket. */
static int send_req(const char *method, const char *path, const char *body, const char *bearer)
{
    char req[8192];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path);
    if (bearer)
        n += snprintf(req + n, sizeof req - (size_t)n, "Authorization: Bearer %s\r\n", bearer);
    if (body)
        n += snprintf(req + n, sizeof req - (size_t)n, "Content-Length: %zu\r\n", strlen(body));
    n += snprintf(req + n, sizeof req - (size_t)n, "\r\n%s", body ? body : "");
    cr_assert_lt(n, (int)sizeof req);
    int fd = dial();
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    return fd;
}

/* Reads the answer on `fd` until the server closes it, and closes fd. */
static reply get_reply(int fd)
{
    reply r = {0};
    char *buf = malloc(65536);
    size_t len = 0;
    cr_assert_not_null(buf);
    int64_t deadline = now_ms() + T(20000);
    while (now_ms() < deadline && len < 65535) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) != 1)
            continue;
        ssize_t n = recv(fd, buf + len, 65535 - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    cr_assert_not_null(end, "no answer: %s", buf);
    snprintf(r.head, sizeof r.head, "%.*s", (int)(end - buf), buf);
    cr_assert_eq(sscanf(buf, "HTTP/1.1 %d", &r.status), 1, "%s", buf);
    r.body = strdup(end + 4);
    free(buf);
    return r;
}

static reply call(const char *method, const char *path, const char *body, const char *bearer)
{
    return get_reply(send_req(method, path, body, bearer));
}

/* The value of the header `name` (lower case) of `r`, "" if absent. */
static const char *header(const reply *r, const char *name, char *out, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *p = strcasestr(r->head, key);
    out[0] = '\0';
    if (p) {
        p += strlen(key);
        p += strspn(p, " ");
        snprintf(out, cap, "%.*s", (int)strcspn(p, "\r\n"), p);
    }
    return out;
}

/* The string member `key` of r's JSON body into out ("" if none). */
static const char *field(const reply *r, const char *key, char *out, size_t cap)
{
    json_t *o = json_loads(r->body, 0, NULL);
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(out, cap, "%s", s ? s : "");
    json_decref(o);
    return out;
}

static void expect(reply *r, int status, const char *error)
{
    char e[32];
    cr_expect_eq(r->status, status, "%d %s", r->status, r->body);
    if (error)
        cr_expect_str_eq(field(r, "error", e, sizeof e), error, "%s", r->body);
    free(r->body);
    r->body = NULL;
}

/* Signs up `name` and returns its session (static storage per call). */
static void sign_up(const char *name, const char *pw, char session[65])
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"password\":\"%s\"}", name, pw);
    reply r = call("POST", "/api/accounts", body, NULL);
    cr_assert_eq(r.status, 201, "%d %s", r.status, r.body);
    char got[64];
    cr_expect_str_eq(field(&r, "name", got, sizeof got), name);
    field(&r, "session", session, 65);
    cr_assert_eq(strlen(session), 64);
    free(r.body);
}

static reply sign_in(const char *name, const char *pw)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"password\":\"%s\"}", name, pw);
    return call("POST", "/api/sessions", body, NULL);
}

/* Says hello as guest `name` on a new connection: returns it after the
 * answer, `welcome` or an error (which is returned in *code, else 0). */
static cli *guest_hello(const char *name, int *code)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "guest");
    cli_send(c, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "name", name));
    for (;;) {
        const ddz_event *e = cli_next(c, T(5000));
        cr_assert_not_null(e, "no answer to hello %s", name);
        if (e->type == DDZ_EVENT_WELCOME || e->type == DDZ_EVENT_ERROR) {
            *code = e->type == DDZ_EVENT_ERROR ? e->error.code : 0;
            return c;
        }
    }
}

#endif
