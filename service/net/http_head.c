/* http_head.c - a request head read strictly (see http_head.h). The
 * narrowings beyond RFC 9112 each name the lws 4.1.6 behaviour that makes
 * them needed. */
#include "service/net/http_head.h"

#include <string.h>
#include <strings.h>

static const char *const method_names[] = {NULL, "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"};

const char *ddz_http_method_name(int m)
{
    return m >= DDZ_HTTP_GET && m <= DDZ_HTTP_OPTIONS ? method_names[m] : NULL;
}

/* ---- the scanner: where the head ends ---- */

static int refused(const char **why, const char *what, int verdict)
{
    if (why)
        *why = what;
    return verdict;
}

int ddz_http_head_scan(ddz_http_scan *st, const char *buf, size_t len, const char **why)
{
    if (st->end)
        return DDZ_HTTP_OK;
    while (st->scanned < len) {
        /* the byte that would make the head longer than its bound */
        if (st->scanned >= DDZ_HTTP_HEAD_MAX)
            return refused(why, "a head over 8 KiB", DDZ_HTTP_TOO_LARGE);
        unsigned char c = (unsigned char)buf[st->scanned++];
        if (st->cr) {
            st->cr = false;
            /* lws ends no line at a bare CR: "\r\r\n" was a blank line to
             * the gate and a header name to lws */
            if (c != '\n')
                return refused(why, "a CR not followed by LF", DDZ_HTTP_BAD);
            if (st->line_len) {
                st->line_len = 0;
                if (++st->lines > DDZ_HTTP_HEAD_LINES)
                    return refused(why, "a head over 64 lines", DDZ_HTTP_TOO_LARGE);
                continue;
            }
            /* lws ends the head at an empty line, even before the request
             * line (RFC 9112 2.2 lets a server skip it: lws does not) */
            if (!st->lines)
                return refused(why, "an empty line before the request line", DDZ_HTTP_BAD);
            st->end = st->scanned;
            return DDZ_HTTP_OK;
        }
        if (c == '\r') {
            st->cr = true;
            continue;
        }
        if (c == '\n')
            return refused(why, "a LF without its CR", DDZ_HTTP_BAD);
        /* lws stores a NUL and counts it nowhere: "h2c\0x" read as "h2c" */
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return refused(why, "a control byte", DDZ_HTTP_BAD);
        st->line_len++;
    }
    return DDZ_HTTP_PARTIAL;
}

/* ---- characters ---- */

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* RFC 9110 5.6.2 */
static bool is_tchar(unsigned char c)
{
    return is_alnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* RFC 3986's unreserved, sub-delims, ":" and "@": pchar less pct-encoded */
static bool is_pchar(unsigned char c)
{
    return is_alnum(c) || (c && strchr("-._~!$&'()*+,;=:@", c));
}

static int hex(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Whether s[0..n) is a token. */
static bool is_token(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

/* Whether s[0..n) is `lit` in any case. */
static bool same(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* ---- the request target ---- */

/* Checks target t[0..n) (origin form, see http_head.h) and sets the path
 * and query of h (offsets from `off`). Returns NULL, or what is wrong. */
static const char *check_target(const char *t, size_t n, uint32_t off, ddz_http_head *h)
{
    if (!n || t[0] != '/')
        return "a target not in origin form";
    bool query = false;
    int parts = 0;
    /* the current path segment, decoded: its length and whether it is all
     * dots so far; the first "/" opens the first segment */
    size_t seg = 0, dots = 0;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i], d = c;
        bool escaped = false;
        if (c == '?' && !query) {
            if (dots && dots == seg && seg <= 2)
                return "a \".\" or \"..\" segment";
            query = true;
            h->path = (ddz_http_span){off, (uint32_t)i, true};
            h->query = (ddz_http_span){off + (uint32_t)i + 1, (uint32_t)(n - i - 1), true};
            continue;
        }
        if (c == '%') {
            /* lws forbids (403) a bad escape */
            if (i + 2 >= n || hex((unsigned char)t[i + 1]) < 0 || hex((unsigned char)t[i + 2]) < 0)
                return "a bad %-escape";
            d = (unsigned char)(hex((unsigned char)t[i + 1]) << 4 | hex((unsigned char)t[i + 2]));
            escaped = true;
            i += 2;
        } else if (!is_pchar(c) && !(query && (c == '/' || c == '?')) && c != '/') {
            return "a byte a target may not hold";
        }
        /* lws reads a decoded NUL, CR or LF as the end of the target or of
         * its line */
        if (is_control(d))
            return "a control byte in the target, escaped";
        if (query) {
            /* each "&" or ";" takes one of lws's 95 fragments */
            if (!escaped && (c == '&' || c == ';') && ++parts > DDZ_HTTP_QUERY_PARTS_MAX)
                return "a query of too many parts";
            continue;
        }
        /* in the path, lws splits at "&" and ";" and reads "+" as a space */
        if (!escaped && (c == '&' || c == ';' || c == '+'))
            return "a \"&\", \";\" or \"+\" in the path";
        if (d == '/') {
            /* lws drops an empty segment and resolves "." and "..", on the
             * decoded bytes ("%2e%2e", "%2f"): such a path would reach the
             * routes other than sent */
            if (!first && !seg)
                return "an empty segment";
            if (dots && dots == seg && seg <= 2)
                return "a \".\" or \"..\" segment";
            first = false;
            seg = dots = 0;
            continue;
        }
        seg++;
        dots += d == '.';
    }
    if (!query) {
        if (dots && dots == seg && seg <= 2)
            return "a \".\" or \"..\" segment";
        h->path = (ddz_http_span){off, (uint32_t)n, true};
    }
    return NULL;
}

/* ---- the field values the gate reads ---- */

/* Whether the Upgrade value v[0..n) names h2c among its protocols. */
static bool names_h2c(const char *v, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t b = i;
        while (i < n && v[i] != ',' && v[i] != '/' && v[i] != ' ' && v[i] != '\t')
            i++;
        if (same(v + b, i - b, "h2c"))
            return true;
        while (i < n && v[i] != ',')
            i++;
    }
    return false;
}

/* Whether v[0..n) is a list of tokens: token *( OWS "," OWS token ). */
static bool is_token_list(const char *v, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t b = i;
        while (i < n && is_tchar((unsigned char)v[i]))
            i++;
        if (i == b)
            return false;
        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
        if (i == n)
            return true;
        if (v[i++] != ',')
            return false;
        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
    }
}

/* Whether v[0..n) is a Host value: an authority's characters. */
static bool is_host(const char *v, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (!is_alnum(c) && !strchr("-._~!$&'()*+,;=:[]%", c))
            return false;
    }
    return true;
}

/* ---- the names lws knows ---- */

/* The strings of lws 4.1.6's header table (lib/roles/http/lextable-strings.h,
 * every one: Debian builds it with HTTP/2, WebSocket and the uncommon
 * headers), lower case, as its parser matches the start of each line of a
 * head against them, byte by byte. */
static const char *const lws_names[] = {"get ",
                                        "post ",
                                        "options ",
                                        "host:",
                                        "connection:",
                                        "upgrade:",
                                        "origin:",
                                        "sec-websocket-draft:",
                                        "sec-websocket-extensions:",
                                        "sec-websocket-key1:",
                                        "sec-websocket-key2:",
                                        "sec-websocket-protocol:",
                                        "sec-websocket-accept:",
                                        "sec-websocket-nonce:",
                                        "http/1.1 ",
                                        "http2-settings:",
                                        "accept:",
                                        "access-control-request-headers:",
                                        "if-modified-since:",
                                        "if-none-match:",
                                        "accept-encoding:",
                                        "accept-language:",
                                        "pragma:",
                                        "cache-control:",
                                        "authorization:",
                                        "cookie:",
                                        "content-length:",
                                        "content-type:",
                                        "date:",
                                        "range:",
                                        "referer:",
                                        "sec-websocket-key:",
                                        "sec-websocket-version:",
                                        "sec-websocket-origin:",
                                        "accept-charset:",
                                        "accept-ranges:",
                                        "access-control-allow-origin:",
                                        "age:",
                                        "allow:",
                                        "content-disposition:",
                                        "content-encoding:",
                                        "content-language:",
                                        "content-location:",
                                        "content-range:",
                                        "etag:",
                                        "expect:",
                                        "expires:",
                                        "from:",
                                        "if-match:",
                                        "if-range:",
                                        "if-unmodified-since:",
                                        "last-modified:",
                                        "link:",
                                        "location:",
                                        "max-forwards:",
                                        "proxy-authenticate:",
                                        "proxy-authorization:",
                                        "refresh:",
                                        "retry-after:",
                                        "server:",
                                        "set-cookie:",
                                        "strict-transport-security:",
                                        "transfer-encoding:",
                                        "user-agent:",
                                        "vary:",
                                        "via:",
                                        "www-authenticate:",
                                        "patch",
                                        "put",
                                        "delete",
                                        "uri-args",
                                        "proxy ",
                                        "x-real-ip:",
                                        "http/1.0 ",
                                        "x-forwarded-for:",
                                        "connect ",
                                        "head ",
                                        "te:",
                                        "replay-nonce:",
                                        "x-auth-token:"};

/* Whether lws reads the field name s[0..n) (a token) other than as a name
 * of its own: its table walk is still on a string when the colon comes and
 * no string goes on with the colon ("x-a", "content": the colon is swallowed
 * with the walk, and lws then reads the rest of the line and the next ones
 * as one long name, losing the fields in them, or never finding the blank
 * line), or a string without a colon is the name's start ("put...": read
 * as a second method). */
static bool misread_name(const char *s, size_t n)
{
    bool known = false, walking = false;
    for (size_t k = 0; k < sizeof lws_names / sizeof lws_names[0]; k++) {
        const char *x = lws_names[k];
        size_t xl = strlen(x);
        if (n < xl && strncasecmp(s, x, n) == 0) {
            known |= x[n] == ':' && xl == n + 1;
            walking |= x[n] != ':';
        }
        if (n >= xl && x[xl - 1] != ':' && x[xl - 1] != ' ' && strncasecmp(s, x, xl) == 0)
            return true;
    }
    return walking && !known;
}

/* ---- the head ---- */

static int bad(ddz_http_head *h, const char *why, int verdict)
{
    h->why = why;
    return verdict;
}

/* The name lws files field `name` under, for telling duplicates: lws reads
 * Sec-WebSocket-Origin as Origin. */
static bool same_field(const char *a, size_t an, const char *b, size_t bn)
{
    bool ao = same(a, an, "origin") || same(a, an, "sec-websocket-origin");
    bool bo = same(b, bn, "origin") || same(b, bn, "sec-websocket-origin");
    return ao || bo ? ao && bo : an == bn && strncasecmp(a, b, an) == 0;
}

int ddz_http_head_parse(const char *buf, size_t end, ddz_http_head *h)
{
    *h = (ddz_http_head){.end = (uint32_t)end};
    if (end < 4 || memcmp(buf + end - 4, "\r\n\r\n", 4) != 0)
        return bad(h, "no blank line", DDZ_HTTP_BAD);
    /* the request line */
    const char *eol = memchr(buf, '\r', end);
    size_t n = (size_t)(eol - buf);
    const char *sp1 = memchr(buf, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - buf)) : NULL;
    if (!sp2)
        return bad(h, "a request line without its three parts", DDZ_HTTP_BAD);
    size_t mlen = (size_t)(sp1 - buf);
    const char *ver = sp2 + 1;
    size_t vlen = (size_t)(eol - ver);
    if (mlen == 3 && memcmp(buf, "PRI", 3) == 0 && vlen == 8 && memcmp(ver, "HTTP/2.0", 8) == 0)
        return bad(h, "HTTP/2's preface", DDZ_HTTP_H2_PREFACE);
    for (int m = DDZ_HTTP_GET; m <= DDZ_HTTP_OPTIONS; m++)
        if (strlen(method_names[m]) == mlen && memcmp(buf, method_names[m], mlen) == 0)
            h->method = m;
    if (!h->method)
        return bad(h, "a method not served", DDZ_HTTP_BAD);
    if (vlen == 8 && memcmp(ver, "HTTP/1.1", 8) == 0)
        h->version = 11;
    else if (vlen == 8 && memcmp(ver, "HTTP/1.0", 8) == 0)
        h->version = 10;
    else
        return bad(h, "a version other than HTTP/1.0 or HTTP/1.1", DDZ_HTTP_BAD);
    const char *t = sp1 + 1;
    size_t tlen = (size_t)(sp2 - t);
    h->target = (ddz_http_span){(uint32_t)(t - buf), (uint32_t)tlen, true};
    const char *why = check_target(t, tlen, h->target.off, h);
    if (why)
        return bad(h, why, DDZ_HTTP_BAD);

    /* the field lines, up to the blank line */
    struct {
        uint32_t off, len;
    } names[DDZ_HTTP_HEAD_LINES];
    int nnames = 0;
    bool h2_settings = false;
    for (const char *line = eol + 2; line < buf + end - 2; line = eol + 2) {
        eol = memchr(line, '\r', (size_t)(buf + end - line));
        n = (size_t)(eol - line);
        const char *colon = memchr(line, ':', n);
        if (line[0] == ' ' || line[0] == '\t')
            return bad(h, "a folded line (obs-fold)", DDZ_HTTP_BAD);
        if (!colon || !is_token(line, (size_t)(colon - line)))
            return bad(h, "a field line without a token and its colon", DDZ_HTTP_BAD);
        size_t nlen = (size_t)(colon - line);
        if (misread_name(line, nlen))
            return bad(h, "a field name lws's table misreads", DDZ_HTTP_BAD);
        for (int k = 0; k < nnames; k++)
            if (same_field(buf + names[k].off, names[k].len, line, nlen))
                return bad(h, "a field given twice", DDZ_HTTP_BAD);
        if (nnames < DDZ_HTTP_HEAD_LINES) {
            names[nnames].off = (uint32_t)(line - buf);
            names[nnames++].len = (uint32_t)nlen;
        }
        /* lws skips the spaces before a value, not tabs, and keeps what
         * ends it */
        const char *v = colon + 1;
        while (v < eol && *v == ' ')
            v++;
        size_t vl = (size_t)(eol - v);
        if (vl && v[0] == '\t')
            return bad(h, "a tab before a field value", DDZ_HTTP_BAD);
        if (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
            return bad(h, "a space or tab after a field value", DDZ_HTTP_BAD);
        ddz_http_span val = {(uint32_t)(v - buf), (uint32_t)vl, true};
        if (same(line, nlen, "host"))
            h->host = val;
        else if (same(line, nlen, "upgrade"))
            h->upgrade = val;
        else if (same(line, nlen, "connection"))
            h->connection = val;
        else if (same(line, nlen, "content-length"))
            h->content_length = val;
        else if (same(line, nlen, "transfer-encoding"))
            return bad(h, "a Transfer-Encoding (no chunked body is taken)", DDZ_HTTP_BAD);
        else if (same(line, nlen, "http2-settings"))
            h2_settings = true;
    }
    if (h2_settings || (h->upgrade.present && names_h2c(buf + h->upgrade.off, h->upgrade.len)))
        return bad(h, "an upgrade to HTTP/2 in clear", DDZ_HTTP_H2C);
    if (h->upgrade.present && !same(buf + h->upgrade.off, h->upgrade.len, "websocket"))
        return bad(h, "an Upgrade other than websocket", DDZ_HTTP_BAD);
    if (h->connection.present && !is_token_list(buf + h->connection.off, h->connection.len))
        return bad(h, "a Connection other than a list of tokens", DDZ_HTTP_BAD);
    if (h->version == 11 && !h->host.present)
        return bad(h, "HTTP/1.1 without Host", DDZ_HTTP_BAD);
    if (h->host.present && !is_host(buf + h->host.off, h->host.len))
        return bad(h, "a Host that is no authority", DDZ_HTTP_BAD);
    if (h->content_length.present) {
        size_t k = h->content_length.len;
        const char *d = buf + h->content_length.off;
        bool digits = k > 0 && k <= 15;
        for (size_t i = 0; digits && i < k; i++)
            digits = d[i] >= '0' && d[i] <= '9';
        if (!digits)
            return bad(h, "a Content-Length other than digits", DDZ_HTTP_BAD);
    }
    return DDZ_HTTP_OK;
}

int ddz_http_head_judge(ddz_http_scan *st, const char *buf, size_t len, ddz_http_head *h)
{
    static const char preface[] = "PRI * HTTP/2.0\r\n";
    *h = (ddz_http_head){0};
    /* answered as soon as its first line is in: a client of prior
     * knowledge sends its SETTINGS without waiting */
    if (len >= sizeof preface - 1 && memcmp(buf, preface, sizeof preface - 1) == 0)
        return bad(h, "HTTP/2's preface", DDZ_HTTP_H2_PREFACE);
    int v = ddz_http_head_scan(st, buf, len, &h->why);
    if (v != DDZ_HTTP_OK)
        return v;
    return ddz_http_head_parse(buf, st->end, h);
}

int ddz_http_head_read(const char *buf, size_t len, ddz_http_head *h)
{
    ddz_http_scan st = {0};
    return ddz_http_head_judge(&st, buf, len, h);
}

int ddz_http_head_path(const char *buf, const ddz_http_head *h, char *out, size_t cap)
{
    const char *p = buf + h->path.off;
    size_t n = 0;
    for (uint32_t i = 0; i < h->path.len; i++) {
        if (n + 1 >= cap)
            return -1;
        /* an accepted path's escapes are whole */
        if (p[i] == '%' && i + 2 < h->path.len) {
            out[n++] = (char)(hex((unsigned char)p[i + 1]) << 4 | hex((unsigned char)p[i + 2]));
            i += 2;
        } else {
            out[n++] = p[i];
        }
    }
    out[n] = '\0';
    return (int)n;
}
