/* http_head.h - an HTTP/1.x request head read as the gate (gate.h) reads
 * it: a strict grammar, the bytes in and a verdict out, no I/O.
 *
 * The gate hands a head to libwebsockets 4.1.6 only if this module accepts
 * it, and it accepts only what lws's own parser (lib/roles/http/parsers.c)
 * reads the same way: where the head ends, the method, the path, the
 * version and the Upgrade and Connection values (tests/fuzz/fuzz_gate.c
 * feeds both the same bytes and fails where they differ). Everything else
 * is refused, and the gate answers it 400 (431 when too large) and closes.
 *
 * Accepted (RFC 9112's request-line and field-line syntax, narrowed):
 *  - every line ends in CRLF: no bare CR, no bare LF, no empty line before
 *    the request line; no NUL or other control byte anywhere but HTAB
 *    inside a field value;
 *  - the request line is METHOD SP TARGET SP VERSION, single spaces;
 *    METHOD one of GET HEAD POST PUT DELETE OPTIONS (exactly, upper case:
 *    those the server serves or will serve; it answers 405 to those of
 *    them a route does not take); VERSION HTTP/1.0 or HTTP/1.1;
 *  - TARGET in origin form only: "/" path ["?" query], of RFC 3986's
 *    characters (pchar, and "/" "?" in the query) with valid %XX escapes;
 *    the path holds no "&", ";" or "+" (lws splits or rewrites at them),
 *    and once decoded no control byte, no empty segment but the last, and
 *    no "." or ".." segment (lws would rewrite it); the query at most
 *    DDZ_HTTP_QUERY_PARTS_MAX "&"/";" separators (lws's table of
 *    fragments is fixed) and once decoded no control byte. No absolute or
 *    authority form ("GET http://x/", "CONNECT host:22"), no "*";
 *  - each field line is NAME ":" SP* VALUE with NAME a token (no space
 *    before the colon, no obs-fold), VALUE visible bytes (and obs-text)
 *    with single spaces or tabs inside, none at its end; no NAME twice
 *    (Origin and Sec-WebSocket-Origin are one name to lws); no NAME that
 *    lws's table reads as a method (beginning with "put", "patch",
 *    "delete" or "uri-args");
 *  - HTTP/1.1 has exactly one Host; Content-Length is digits; no
 *    Transfer-Encoding (nothing here takes a chunked body); Upgrade, if
 *    any, is exactly "websocket" (any case); Connection a list of tokens;
 *    no HTTP2-Settings. An Upgrade naming h2c, or HTTP2-Settings, is told
 *    apart (DDZ_HTTP_H2C): nothing is served over HTTP/2 without TLS.
 *  - at most DDZ_HTTP_HEAD_MAX bytes and DDZ_HTTP_HEAD_LINES lines
 *    (request line included), else DDZ_HTTP_TOO_LARGE.
 */
#ifndef DDZ_HTTP_HEAD_H
#define DDZ_HTTP_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DDZ_HTTP_HEAD_MAX 8192      /* bytes of a request head, request line included */
#define DDZ_HTTP_HEAD_LINES 64      /* lines of a request head */
#define DDZ_HTTP_QUERY_PARTS_MAX 16 /* "&" and ";" in a query */

/* What a head is, or what is wrong with it. */
typedef enum ddz_http_verdict {
    DDZ_HTTP_PARTIAL = 0,     /* not whole yet, and nothing wrong so far */
    DDZ_HTTP_OK = 1,          /* whole and accepted: lws may have it */
    DDZ_HTTP_BAD = -1,        /* refused: 400 */
    DDZ_HTTP_TOO_LARGE = -2,  /* over DDZ_HTTP_HEAD_MAX or DDZ_HTTP_HEAD_LINES: 431 */
    DDZ_HTTP_H2C = -3,        /* an upgrade to HTTP/2 in clear: 400 */
    DDZ_HTTP_H2_PREFACE = -4, /* HTTP/2's prior-knowledge preface */
} ddz_http_verdict;

/* The methods accepted, in DDZ_HTTP_METHODS order. */
enum {
    DDZ_HTTP_GET = 1,
    DDZ_HTTP_HEAD,
    DDZ_HTTP_POST,
    DDZ_HTTP_PUT,
    DDZ_HTTP_DELETE,
    DDZ_HTTP_OPTIONS
};

/* A stretch of the head: `len` bytes at `off`; `present` tells an empty
 * value from an absent field. */
typedef struct ddz_http_span {
    uint32_t off, len;
    bool present;
} ddz_http_span;

/* The scanner's state, zeroed before the first byte: it finds the end of
 * the head as bytes come, whatever their chunks, and refuses a bad line
 * ending or a control byte at once. */
typedef struct ddz_http_scan {
    uint32_t scanned;  /* bytes looked at */
    uint32_t lines;    /* whole lines (the request line and fields) so far */
    uint32_t line_len; /* bytes of the current line, its CR excluded */
    uint32_t end;      /* once whole: the head's bytes, its blank line included */
    bool cr;           /* the last byte looked at was a CR */
} ddz_http_scan;

/* A whole head, as ddz_http_head_parse() read it. Spans index the bytes
 * given to it. */
typedef struct ddz_http_head {
    uint32_t end;         /* bytes of the head, its blank line included */
    int method;           /* DDZ_HTTP_GET, ... */
    int version;          /* 10 or 11 */
    ddz_http_span target; /* the request target as sent */
    ddz_http_span path;   /* of it, the path (before any "?"), still escaped */
    ddz_http_span query;  /* after the "?", which it excludes */
    ddz_http_span host;   /* field values, without the spaces before them */
    ddz_http_span upgrade;
    ddz_http_span connection;
    ddz_http_span content_length;
    const char *why; /* when refused: what was wrong (a static string) */
} ddz_http_head;

/* The name of method `m` (DDZ_HTTP_GET...), or NULL. */
const char *ddz_http_method_name(int m);

/* Looks at buf[st->scanned..len) (buf holds every byte so far, from the
 * first). Returns DDZ_HTTP_PARTIAL while the head is not whole;
 * DDZ_HTTP_OK once it is (st->end set; later calls return it again);
 * DDZ_HTTP_BAD at the first bare CR, bare LF, control byte other than HTAB,
 * or empty line before the request line (what was wrong in *why if not
 * NULL). Does not check the size limits (ddz_http_head_judge() does). */
int ddz_http_head_scan(ddz_http_scan *st, const char *buf, size_t len, const char **why);

/* Reads the whole head buf[0..end) (end from the scan: it ends in CRLF
 * CRLF) into *h. Returns DDZ_HTTP_OK, or DDZ_HTTP_BAD, DDZ_HTTP_H2C or
 * DDZ_HTTP_H2_PREFACE with h->why saying what was wrong. */
int ddz_http_head_parse(const char *buf, size_t end, ddz_http_head *h);

/* The gate's verdict on the len bytes received so far (buf), which `st`
 * has scanned: the prior-knowledge preface; then the scan's refusal; then
 * DDZ_HTTP_TOO_LARGE past the limits (the head so far, or the whole head,
 * over DDZ_HTTP_HEAD_MAX bytes or DDZ_HTTP_HEAD_LINES lines);
 * DDZ_HTTP_PARTIAL while not whole; else ddz_http_head_parse()'s. Never
 * fails otherwise. */
int ddz_http_head_judge(ddz_http_scan *st, const char *buf, size_t len, ddz_http_head *h);

/* ddz_http_head_judge() of len bytes received at once. */
int ddz_http_head_read(const char *buf, size_t len, ddz_http_head *h);

/* Writes the path of an accepted head (h->path of buf) decoded as lws
 * decodes it (%XX to its byte) into out (cap bytes, NUL-terminated).
 * Returns its length, or -1 if it does not fit. */
int ddz_http_head_path(const char *buf, const ddz_http_head *h, char *out, size_t cap);

#endif
