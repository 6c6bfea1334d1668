/* caai.c - CAAI 1.0 line codec (grammar in caai.h). */
#include "caai.h"

#include <errno.h>
#include <iconv.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proto/fail.h"
#include "proto/utf8.h"
#include "rules/error.h"
#include "text.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p)
{
    while (is_blank(*p))
        p++;
    return p;
}

/* Copies at most 24 bytes of `s` into dst for an error message, escaping
 * everything outside printable ASCII, so a hostile engine cannot put a line
 * break or invalid UTF-8 into our logs through the message. */
static void quote(const char *s, size_t n, char *dst, size_t dstlen)
{
    size_t o = 0;
    size_t lim = n > 24 ? 24 : n;
    for (size_t i = 0; i < lim && o + 5 < dstlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            dst[o++] = (char)c;
        else
            o += (size_t)snprintf(dst + o, dstlen - o, "\\x%02X", c);
    }
    if (lim < n && o + 4 < dstlen) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
}

/* The keyword of each kind; WHAT kinds share their keyword with the kind
 * they ask for and are told apart by the argument. */
static const char *const keywords[DDZ_CAAI_NKINDS] = {
    [DDZ_CAAI_VERSION] = "DOUDIZHUVER", [DDZ_CAAI_NAME] = "NAME",   [DDZ_CAAI_INFO] = "INFO",
    [DDZ_CAAI_DEAL] = "DEAL",           [DDZ_CAAI_BID] = "BID",     [DDZ_CAAI_BID_WHAT] = "BID",
    [DDZ_CAAI_LEFTOVER] = "LEFTOVER",   [DDZ_CAAI_PLAY] = "PLAY",   [DDZ_CAAI_PLAY_WHAT] = "PLAY",
    [DDZ_CAAI_GAMEOVER] = "GAMEOVER",   [DDZ_CAAI_ERROR] = "ERROR", [DDZ_CAAI_OK] = "OK",
};

const char *ddz_caai_keyword(int kind)
{
    if (kind <= DDZ_CAAI_NONE || kind >= DDZ_CAAI_NKINDS)
        return "?";
    return keywords[kind];
}

/* Returns the kind whose keyword is the `n` bytes at `s` (BID and PLAY give
 * their relay kinds), or DDZ_CAAI_NONE. */
static int kind_of_word(const char *s, size_t n)
{
    for (int k = DDZ_CAAI_NONE + 1; k < DDZ_CAAI_NKINDS; k++)
        if (k != DDZ_CAAI_BID_WHAT && k != DDZ_CAAI_PLAY_WHAT && strlen(keywords[k]) == n &&
            memcmp(keywords[k], s, n) == 0)
            return k;
    return DDZ_CAAI_NONE;
}

/* The words an OK may acknowledge: the referee's messages that expect an
 * OK, as in spec §7's table. */
static bool ackable(int kind)
{
    switch (kind) {
    case DDZ_CAAI_INFO:
    case DDZ_CAAI_DEAL:
    case DDZ_CAAI_BID:
    case DDZ_CAAI_LEFTOVER:
    case DDZ_CAAI_PLAY:
    case DDZ_CAAI_GAMEOVER:
    case DDZ_CAAI_ERROR:
        return true;
    }
    return false;
}

static bool has_seat(int kind)
{
    switch (kind) {
    case DDZ_CAAI_DEAL:
    case DDZ_CAAI_BID:
    case DDZ_CAAI_LEFTOVER:
    case DDZ_CAAI_PLAY:
    case DDZ_CAAI_GAMEOVER:
    case DDZ_CAAI_ERROR:
        return true;
    }
    return false;
}

/* Reads the seat letter at *pp and the blanks after it. */
static int parse_seat(const char **pp, const char *what, int8_t *seat, char *err, size_t errlen)
{
    const char *p = *pp;
    if (*p == '\0')
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s: missing seat letter", what);
    if (*p < 'A' || *p > 'C') {
        char q[32];
        quote(p, 1, q, sizeof q);
        return ddz_fail(DDZ_ESEAT, err, errlen, "%s: seat letter '%s' is not A, B or C", what, q);
    }
    *seat = (int8_t)(*p - 'A');
    *pp = skip_blanks(p + 1);
    return 0;
}

/* Parses a card list that must hold `want` cards (0 = any number >= 1). */
static int parse_list(const char *p, const char *what, int want, ddz_cards *out, char *err,
                      size_t errlen)
{
    if (*p == '\0')
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s: empty card list", what);
    char why[128];
    int rc = ddz_text_parse_cards(p, out, why, sizeof why);
    if (rc < 0)
        return ddz_fail(rc, err, errlen, "%s: %s", what, why);
    int n = ddz_cards_count(*out);
    if (want && n != want)
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s: %d cards, expected %d", what, n, want);
    return 0;
}

static int parse_info(const char *p, ddz_caai_info *info, char *err, size_t errlen)
{
    int v[7];
    for (int i = 0; i < 7; i++) {
        p = skip_blanks(p);
        if (*p < '0' || *p > '9')
            return ddz_fail(DDZ_ESYNTAX, err, errlen,
                            "INFO: field %d is not a non-negative integer (need 7 fields)", i + 1);
        long x = 0;
        while (*p >= '0' && *p <= '9') {
            x = x * 10 + (*p++ - '0');
            if (x > INT_MAX)
                return ddz_fail(DDZ_ESYNTAX, err, errlen, "INFO: field %d is too large", i + 1);
        }
        v[i] = (int)x;
        p = skip_blanks(p);
        if (i < 6 && *p != ',')
            return ddz_fail(DDZ_ESYNTAX, err, errlen,
                            "INFO: %d fields, expected 7 separated by ','", i + 1);
        if (i < 6)
            p++;
    }
    if (*p != '\0')
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "INFO: unexpected text after the 7th field");
    *info = (ddz_caai_info){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    return 0;
}

/* Returns 1 when the argument is WHAT, 0 when it does not start with WHAT
 * (a seat letter should follow), or DDZ_ESYNTAX for WHAT with more text
 * ("WHAT now", "WHATEVER"): a seat letter W would only confuse the reason. */
static int parse_what(const char *arg, const char *what, char *err, size_t errlen)
{
    if (strncmp(arg, "WHAT", 4) != 0)
        return 0;
    if (arg[4] == '\0')
        return 1;
    return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s WHAT: unexpected text after WHAT", what);
}

static int parse_args(int kind, const char *arg, ddz_caai_msg *m, char *err, size_t errlen)
{
    const char *kw = keywords[kind];
    int rc;
    switch (kind) {
    case DDZ_CAAI_VERSION: {
        size_t n = strlen(arg);
        if (n >= sizeof m->version || strspn(arg, "0123456789.") != n)
            return ddz_fail(DDZ_ESYNTAX, err, errlen,
                            "DOUDIZHUVER: version must be digits and dots, at most %zu bytes",
                            sizeof m->version - 1);
        memcpy(m->version, arg, n + 1);
        return 0;
    }
    case DDZ_CAAI_NAME: {
        /* Raw bytes, not checked for any encoding: the display side converts
         * them (ddz_caai_name_utf8). Truncation may leave blanks at the end,
         * which the line's own trimming would have removed. */
        size_t n = strlen(arg);
        if (n >= sizeof m->name)
            n = sizeof m->name - 1;
        while (n > 0 && is_blank(arg[n - 1]))
            n--;
        memcpy(m->name, arg, n);
        m->name[n] = '\0';
        return 0;
    }
    case DDZ_CAAI_INFO:
        return parse_info(arg, &m->info, err, errlen);
    case DDZ_CAAI_DEAL:
    case DDZ_CAAI_LEFTOVER:
        if ((rc = parse_seat(&arg, kw, &m->seat, err, errlen)) < 0)
            return rc;
        return parse_list(arg, kw, kind == DDZ_CAAI_DEAL ? 17 : 3, &m->cards, err, errlen);
    case DDZ_CAAI_BID:
        if ((rc = parse_what(arg, kw, err, errlen)) != 0) {
            m->kind = DDZ_CAAI_BID_WHAT;
            return rc < 0 ? rc : 0;
        }
        if ((rc = parse_seat(&arg, kw, &m->seat, err, errlen)) < 0)
            return rc;
        if (arg[0] < '0' || arg[0] > '3' || arg[1] != '\0')
            return ddz_fail(DDZ_ESYNTAX, err, errlen, "BID: the bid must be one digit 0..3");
        m->bid = (int8_t)(arg[0] - '0');
        return 0;
    case DDZ_CAAI_PLAY:
        if ((rc = parse_what(arg, kw, err, errlen)) != 0) {
            m->kind = DDZ_CAAI_PLAY_WHAT;
            return rc < 0 ? rc : 0;
        }
        if ((rc = parse_seat(&arg, kw, &m->seat, err, errlen)) < 0)
            return rc;
        if (arg[0] == '-') {
            if (strcmp(arg, "-1") != 0)
                return ddz_fail(DDZ_ESYNTAX, err, errlen,
                                "PLAY: a pass is written -1 and nothing else");
            m->cards = 0;
            return 0;
        }
        return parse_list(arg, kw, 0, &m->cards, err, errlen);
    case DDZ_CAAI_GAMEOVER:
    case DDZ_CAAI_ERROR:
        if ((rc = parse_seat(&arg, kw, &m->seat, err, errlen)) < 0)
            return rc;
        if (*arg != '\0')
            return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s: unexpected text after the seat letter",
                            kw);
        return 0;
    case DDZ_CAAI_OK: {
        int of = kind_of_word(arg, strlen(arg));
        if (!ackable(of)) {
            char q[128];
            quote(arg, strlen(arg), q, sizeof q);
            return ddz_fail(DDZ_ESYNTAX, err, errlen, "OK: '%s' is not a message one acknowledges",
                            q);
        }
        m->ok_of = (uint8_t)of;
        return 0;
    }
    }
    return ddz_fail(DDZ_ESYNTAX, err, errlen, "internal: unhandled kind %d", kind);
}

int ddz_caai_parse(const char *line, size_t len, ddz_caai_msg *out, char *err, size_t errlen)
{
    /* Strip the line end first, so the limit counts only the line's text. */
    size_t n = len;
    if (n > 0 && line[n - 1] == '\n')
        n--;
    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (n > DDZ_CAAI_LINE_MAX)
        return ddz_fail(DDZ_ETOOLONG, err, errlen, "line of %zu bytes, the limit is %d", n,
                        DDZ_CAAI_LINE_MAX);
    /* A NUL or line break inside means the caller framed lines wrongly or
     * the engine is sending binary: never guess which part was meant. */
    for (size_t i = 0; i < n; i++)
        if (line[i] == '\0' || line[i] == '\r' || line[i] == '\n')
            return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s at byte %zu inside the line",
                            line[i] ? "line break" : "NUL byte", i);
    size_t a = 0;
    while (a < n && is_blank(line[a]))
        a++;
    while (n > a && is_blank(line[n - 1]))
        n--;
    if (a == n)
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "empty line");

    char buf[DDZ_CAAI_LINE_MAX + 1];
    memcpy(buf, line + a, n - a);
    buf[n - a] = '\0';

    size_t wlen = strcspn(buf, " \t");
    int kind = kind_of_word(buf, wlen);
    if (kind == DDZ_CAAI_NONE) {
        char q[128];
        quote(buf, wlen, q, sizeof q);
        return ddz_fail(DDZ_EUNKNOWN, err, errlen, "unknown keyword '%s'", q);
    }
    const char *arg = skip_blanks(buf + wlen);
    if (*arg == '\0')
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "%s: missing argument", keywords[kind]);

    memset(out, 0, sizeof *out);
    out->kind = (uint8_t)kind;
    out->seat = -1;
    return parse_args(kind, arg, out, err, errlen);
}

static const char seat_letters[] = "ABC";

/* Renders `m` into tmp (DDZ_CAAI_FORMAT_MAX bytes, always enough for a
 * valid message). Returns the length or DDZ_EINVAL. */
static int render(const ddz_caai_msg *m, char tmp[DDZ_CAAI_FORMAT_MAX])
{
    const size_t cap = DDZ_CAAI_FORMAT_MAX;
    int kind = m->kind;
    if (kind <= DDZ_CAAI_NONE || kind >= DDZ_CAAI_NKINDS)
        return DDZ_EINVAL;
    if (has_seat(kind) && (m->seat < 0 || m->seat > 2))
        return DDZ_EINVAL;
    const char *kw = keywords[kind];
    char seat = has_seat(kind) ? seat_letters[m->seat] : '?';
    char list[DDZ_CAAI_FORMAT_MAX];
    int w;

    switch (kind) {
    case DDZ_CAAI_VERSION: {
        size_t n = strnlen(m->version, sizeof m->version);
        if (n == 0 || n == sizeof m->version || strspn(m->version, "0123456789.") != n)
            return DDZ_EINVAL;
        w = snprintf(tmp, cap, "%s %s", kw, m->version);
        break;
    }
    case DDZ_CAAI_NAME: {
        size_t n = strnlen(m->name, sizeof m->name);
        if (n == 0 || n == sizeof m->name || strpbrk(m->name, "\r\n") || is_blank(m->name[0]) ||
            is_blank(m->name[n - 1]))
            return DDZ_EINVAL;
        w = snprintf(tmp, cap, "%s %s", kw, m->name);
        break;
    }
    case DDZ_CAAI_INFO: {
        const ddz_caai_info *i = &m->info;
        if (i->turn < 0 || i->turns < 0 || i->game < 0 || i->games < 0 || i->up < 0 ||
            i->maxscore < 0 || i->time < 0)
            return DDZ_EINVAL;
        w = snprintf(tmp, cap, "%s %d,%d,%d,%d,%d,%d,%d", kw, i->turn, i->turns, i->game, i->games,
                     i->up, i->maxscore, i->time);
        break;
    }
    case DDZ_CAAI_DEAL:
    case DDZ_CAAI_LEFTOVER:
    case DDZ_CAAI_PLAY: {
        int want = kind == DDZ_CAAI_DEAL ? 17 : kind == DDZ_CAAI_LEFTOVER ? 3 : -1;
        if ((m->cards & ~DDZ_CARDS_ALL) || (want >= 0 && ddz_cards_count(m->cards) != want))
            return DDZ_EINVAL;
        if (kind == DDZ_CAAI_PLAY && m->cards == 0) {
            w = snprintf(tmp, cap, "%s %c-1", kw, seat);
            break;
        }
        if (ddz_text_format_cards(m->cards, list, sizeof list) < 0)
            return DDZ_EINVAL; /* cannot happen: 54 codes take 157 bytes */
        w = snprintf(tmp, cap, "%s %c%s", kw, seat, list);
        break;
    }
    case DDZ_CAAI_BID:
        if (m->bid < 0 || m->bid > 3)
            return DDZ_EINVAL;
        w = snprintf(tmp, cap, "%s %c%d", kw, seat, m->bid);
        break;
    case DDZ_CAAI_BID_WHAT:
    case DDZ_CAAI_PLAY_WHAT:
        w = snprintf(tmp, cap, "%s WHAT", kw);
        break;
    case DDZ_CAAI_GAMEOVER:
    case DDZ_CAAI_ERROR:
        w = snprintf(tmp, cap, "%s %c", kw, seat);
        break;
    case DDZ_CAAI_OK:
        if (!ackable(m->ok_of))
            return DDZ_EINVAL;
        w = snprintf(tmp, cap, "OK %s", keywords[m->ok_of]);
        break;
    default:
        return DDZ_EINVAL;
    }
    if (w < 0 || (size_t)w >= cap)
        return DDZ_EINVAL; /* cannot happen for the sizes above */
    return w;
}

int ddz_caai_format(const ddz_caai_msg *m, char *buf, size_t len)
{
    char tmp[DDZ_CAAI_FORMAT_MAX];
    int n = render(m, tmp);
    if (n < 0)
        return n;
    if ((size_t)n >= len) {
        if (len > 0) {
            memcpy(buf, tmp, len - 1);
            buf[len - 1] = '\0';
        }
        return DDZ_ENOSPC;
    }
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}

int ddz_caai_format_len(const ddz_caai_msg *m)
{
    char tmp[DDZ_CAAI_FORMAT_MAX];
    return render(m, tmp);
}

/* ---- names: UTF-8 validation, GB18030 conversion, replacement ---- */

typedef struct sink {
    char *out;
    size_t cap; /* bytes of out, including room for the NUL */
    size_t n;   /* bytes written so far */
    bool full;  /* a character did not fit; nothing more is written */
} sink;

static void sink_put(sink *s, uint32_t cp)
{
    /* Control characters could break a log line or a terminal; show that
     * something was there instead of dropping it silently. */
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
        cp = 0xFFFD;
    char b[4];
    size_t k = ddz_utf8_encode(cp, b);
    if (s->full || s->n + k + 1 > s->cap) {
        s->full = true;
        return;
    }
    memcpy(s->out + s->n, b, k);
    s->n += k;
    s->out[s->n] = '\0';
}

/* Feeds n bytes of text to the sink as UTF-8, each invalid byte becoming
 * U+FFFD. Returns false if any byte was invalid. */
static bool sink_utf8(sink *s, const char *text, size_t n)
{
    bool clean = true;
    while (n > 0) {
        uint32_t cp;
        size_t k = ddz_utf8_next(text, n, &cp);
        if (k == 0) {
            cp = 0xFFFD, k = 1, clean = false;
        }
        sink_put(s, cp);
        text += k, n -= k;
    }
    return clean;
}

/* Converts raw from GB18030 into the sink. Returns false (sink contents
 * then meaningless) when raw holds a byte sequence GB18030 does not define
 * or iconv lacks the encoding. */
static bool sink_gb18030(sink *s, const char *raw, size_t n)
{
    iconv_t cd = iconv_open("UTF-8", "GB18030");
    if (cd == (iconv_t)-1)
        return false;
    /* iconv's prototype takes char ** for historical reasons; it only
     * reads the input. */
    char *in = (char *)raw;
    size_t inleft = n;
    bool ok = true;
    while (inleft > 0) {
        char chunk[256];
        char *o = chunk;
        size_t oleft = sizeof chunk;
        size_t r = iconv(cd, &in, &inleft, &o, &oleft);
        int e = errno;
        /* iconv writes whole characters only, so each chunk is valid UTF-8. */
        sink_utf8(s, chunk, (size_t)(o - chunk));
        if (r != (size_t)-1 || e == E2BIG)
            continue;
        if (e == EINVAL) { /* a character cut at the end, as by truncation */
            sink_put(s, 0xFFFD);
            break;
        }
        ok = false; /* EILSEQ: not GB18030 */
        break;
    }
    iconv_close(cd);
    return ok;
}

int ddz_caai_name_utf8(const char *raw, char *out, size_t outlen)
{
    size_t n = strlen(raw);
    sink s = {out, outlen, 0, outlen == 0};
    if (outlen > 0)
        out[0] = '\0';
    if (ddz_utf8_valid(raw, n)) {
        sink_utf8(&s, raw, n);
    } else if (!sink_gb18030(&s, raw, n)) {
        s = (sink){out, outlen, 0, outlen == 0};
        if (outlen > 0)
            out[0] = '\0';
        sink_utf8(&s, raw, n);
    }
    return s.full ? DDZ_ENOSPC : (int)s.n;
}
