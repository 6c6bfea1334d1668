/* test_http_head.c - the gate's grammar of request heads
 * (service/net/http_head.h), case by case: what it accepts and reads
 * (method, version, path, query, the field values it keeps), what it
 * refuses and as what, the same verdict whatever the reads the bytes come
 * in, and the decoded path. tests/fuzz/fuzz_gate.c compares it with
 * libwebsockets' own parser on any bytes; this pins the cases by name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "service/net/http_head.h"

typedef struct {
    const char *head;
    size_t len; /* 0: strlen */
    int verdict;
} head_case;

#define C(s, v)                                                                                    \
    {                                                                                              \
        s, sizeof s - 1, v                                                                         \
    }

static const head_case cases[] = {
    /* accepted */
    C("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", DDZ_HTTP_OK),
    C("GET / HTTP/1.0\r\n\r\n", DDZ_HTTP_OK),
    C("HEAD /metrics HTTP/1.1\r\nHost: h:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
      DDZ_HTTP_OK),
    C("POST /api HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n{\"a\":1}", DDZ_HTTP_OK),
    C("PUT /a HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_OK),
    C("DELETE /a HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_OK),
    C("OPTIONS /a HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_OK),
    C("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      DDZ_HTTP_OK),
    C("GET /a/%E4%B8%AD/.well-known/b.c?key=a%20b&x=+;y HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_OK),
    C("GET /dir/ HTTP/1.1\r\nHost: h\r\nX-Pad: a\tb \xe4\xb8\xad\r\nCookie: a=b\r\n\r\n",
      DDZ_HTTP_OK),
    C("GET /... HTTP/1.1\r\nHost: [::1]:80\r\nX-Empty:\r\n\r\n", DDZ_HTTP_OK),
    /* the request line */
    C("CONNECT host:22 HTTP/1.1\r\nHost: host:22\r\n\r\n", DDZ_HTTP_BAD),
    C("PATCH /a HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("get / HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.2\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/2\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /\r\n\r\n", DDZ_HTTP_BAD),
    C("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a/../b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a/. HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a/..?x HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a/%2E%2e/b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a//b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a%2f/b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a;b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a+b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a%0ab HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a?b%00 HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a% HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET /?a&b&c&d&e&f&g&h&i&j&k&l&m&n&o&p&q&r HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    /* line endings and bytes */
    C("GET / HTTP/1.1\r\nHost: h\r\n\r\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\nHost: h\n\n", DDZ_HTTP_BAD),
    C("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: a\0b\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: a\x7f\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: a\r\n b\r\n\r\n", DDZ_HTTP_BAD),
    /* field lines */
    C("GET / HTTP/1.1\r\nHost : h\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nNo colon\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-Pad:\tx\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: x \r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nOrigin: a\r\nSec-WebSocket-Origin: b\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nConnection: close\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nContent: 1\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nPut-It: 1\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nDeleted: 1\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nUri-Args: 1\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", DDZ_HTTP_BAD),
    C("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\n", DDZ_HTTP_BAD),
    C("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: foo\r\n\r\n", DDZ_HTTP_BAD),
    C("GET / HTTP/1.1\r\nHost: h\r\nConnection: a,,b\r\n\r\n", DDZ_HTTP_BAD),
    /* HTTP/2 in clear */
    C("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: h2c\r\n\r\n", DDZ_HTTP_H2C),
    C("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket, H2C\r\n\r\n", DDZ_HTTP_H2C),
    C("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: foo/2,h2c/1\r\n\r\n", DDZ_HTTP_H2C),
    C("GET / HTTP/1.1\r\nHost: h\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
      DDZ_HTTP_H2C),
    C("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", DDZ_HTTP_H2_PREFACE),
    C("PRI * HTTP/2.0\r\n", DDZ_HTTP_H2_PREFACE),
    /* not whole yet */
    C("GET /healthz HTTP/1.1\r\nHo", DDZ_HTTP_PARTIAL),
    C("GET / HTTP/1.1\r\nHost: h\r\n\r", DDZ_HTTP_PARTIAL),
    C("", DDZ_HTTP_PARTIAL),
};

Test(http_head, each_case_gets_its_verdict_whatever_the_reads)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const head_case *c = &cases[i];
        ddz_http_head h;
        int v = ddz_http_head_read(c->head, c->len, &h);
        cr_assert_eq(v, c->verdict, "case %zu (%.60s): %d, not %d (%s)", i, c->head, v, c->verdict,
                     h.why ? h.why : "");
        if (v < 0)
            cr_assert(h.why && *h.why, "case %zu: refused without a reason", i);
        /* byte by byte, and in two reads cut anywhere: the same verdict */
        for (size_t cut = 0; cut <= c->len; cut++) {
            ddz_http_scan st = {0};
            ddz_http_head h2;
            int first = ddz_http_head_judge(&st, c->head, cut, &h2);
            int second =
                first == DDZ_HTTP_PARTIAL ? ddz_http_head_judge(&st, c->head, c->len, &h2) : first;
            cr_assert_eq(second, v, "case %zu cut at %zu: %d, not %d", i, cut, second, v);
        }
        ddz_http_scan st = {0};
        int last = DDZ_HTTP_PARTIAL;
        for (size_t n = 1; n <= c->len && last == DDZ_HTTP_PARTIAL; n++)
            last = ddz_http_head_judge(&st, c->head, n, &h);
        cr_assert_eq(last, v, "case %zu byte by byte: %d, not %d", i, last, v);
    }
}

/* The value of span `s` of `buf`. */
static char *span(const char *buf, ddz_http_span s, char *out, size_t n)
{
    snprintf(out, n, "%.*s", s.present ? (int)s.len : 0, s.present ? buf + s.off : "");
    return out;
}

Test(http_head, an_accepted_head_is_read_whole)
{
    static const char head[] = "GET /api/games/42/analysis?key=ab%20c HTTP/1.1\r\n"
                               "Host: ddz.example:8080\r\n"
                               "Upgrade:   websocket\r\n"
                               "Connection: Upgrade\r\n"
                               "Content-Length: 0\r\n\r\n"
                               "GET /next HTTP/1.1\r\n\r\n";
    ddz_http_head h;
    cr_assert_eq(ddz_http_head_read(head, sizeof head - 1, &h), DDZ_HTTP_OK, "%s", h.why);
    char b[128];
    cr_assert_eq(h.end, (uint32_t)(strstr(head, "\r\n\r\n") + 4 - head));
    cr_assert_eq(h.method, DDZ_HTTP_GET);
    cr_assert_str_eq(ddz_http_method_name(h.method), "GET");
    cr_assert_eq(h.version, 11);
    cr_assert_str_eq(span(head, h.target, b, sizeof b), "/api/games/42/analysis?key=ab%20c");
    cr_assert_str_eq(span(head, h.path, b, sizeof b), "/api/games/42/analysis");
    cr_assert_str_eq(span(head, h.query, b, sizeof b), "key=ab%20c");
    cr_assert_str_eq(span(head, h.host, b, sizeof b), "ddz.example:8080");
    cr_assert_str_eq(span(head, h.upgrade, b, sizeof b), "websocket");
    cr_assert_str_eq(span(head, h.connection, b, sizeof b), "Upgrade");
    cr_assert_str_eq(span(head, h.content_length, b, sizeof b), "0");
}

Test(http_head, the_path_decodes_as_lws_reads_it)
{
    static const char head[] = "GET /a%20b/%E4%B8%AD/%3F%25x?q=%41 HTTP/1.0\r\n\r\n";
    ddz_http_head h;
    cr_assert_eq(ddz_http_head_read(head, sizeof head - 1, &h), DDZ_HTTP_OK, "%s", h.why);
    char out[64];
    cr_assert_eq(ddz_http_head_path(head, &h, out, sizeof out), 12);
    cr_assert_str_eq(out, "/a b/\xe4\xb8\xad/?%x");
    cr_assert_eq(ddz_http_head_path(head, &h, out, 5), -1, "a path that does not fit");
}

Test(http_head, the_bounds_are_431)
{
    static char big[DDZ_HTTP_HEAD_MAX + 64];
    int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: ");
    /* a head of exactly DDZ_HTTP_HEAD_MAX bytes is taken, one more is not */
    size_t pad = DDZ_HTTP_HEAD_MAX - (size_t)n - 4;
    memset(big + n, 'a', pad);
    memcpy(big + n + pad, "\r\n\r\n", 4);
    ddz_http_head h;
    cr_assert_eq(ddz_http_head_read(big, DDZ_HTTP_HEAD_MAX, &h), DDZ_HTTP_OK, "%s", h.why);
    memset(big + n, 'a', pad + 1);
    memcpy(big + n + pad + 1, "\r\n\r\n", 4);
    cr_assert_eq(ddz_http_head_read(big, DDZ_HTTP_HEAD_MAX + 1, &h), DDZ_HTTP_TOO_LARGE);
    /* 64 lines are taken, 65 are not */
    char lines[2048];
    size_t len = (size_t)snprintf(lines, sizeof lines, "GET / HTTP/1.1\r\nHost: h\r\n");
    for (int i = 0; i < DDZ_HTTP_HEAD_LINES - 2; i++)
        len += (size_t)snprintf(lines + len, sizeof lines - len, "X-P%d: 1\r\n", i);
    memcpy(lines + len, "\r\n", 3);
    cr_assert_eq(ddz_http_head_read(lines, len + 2, &h), DDZ_HTTP_OK, "%s", h.why);
    len += (size_t)snprintf(lines + len, sizeof lines - len, "X-Q: 1\r\n\r\n");
    cr_assert_eq(ddz_http_head_read(lines, len, &h), DDZ_HTTP_TOO_LARGE);
}
