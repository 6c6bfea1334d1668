/* text.c - card-list and seed codecs. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>

#include "rules/error.h"

static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int ddz_text_parse_cards(const char *s, ddz_cards *out, char *err, size_t errlen)
{
    ddz_cards set = 0;
    const char *p = s;
    while (is_space(*p))
        p++;
    if (*p == '\0') {
        *out = 0;
        return 0;
    }
    for (int item = 1;; item++) {
        while (is_space(*p))
            p++;
        if (*p < '0' || *p > '9')
            return fail(DDZ_ESYNTAX, err, errlen, "item %d of the card list is not a number", item);
        long v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p++ - '0');
            if (v > 1000)
                break;
        }
        if (v >= DDZ_NCARDS)
            return fail(DDZ_ECARD, err, errlen, "card code %s%ld is outside 0..53",
                        v > 1000 ? ">" : "", v > 1000 ? 1000 : v);
        if (set & (1ULL << v))
            return fail(DDZ_EDUP, err, errlen, "card %ld appears twice", v);
        set |= 1ULL << v;
        while (is_space(*p))
            p++;
        if (*p == '\0')
            break;
        if (*p != ',')
            return fail(DDZ_ESYNTAX, err, errlen, "unexpected '%c' in card list", *p);
        p++;
    }
    *out = set;
    return 0;
}

int ddz_text_format_cards(ddz_cards c, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return DDZ_ENOSPC;
    buf[0] = '\0';
    while (c) {
        int code = __builtin_ctzll(c);
        c &= c - 1;
        int w = snprintf(buf + n, len - n, n ? ",%d" : "%d", code);
        if (w < 0 || (size_t)w >= len - n)
            return DDZ_ENOSPC;
        n += (size_t)w;
    }
    return (int)n;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int ddz_text_parse_seed(const char *s, uint8_t out[DDZ_SEED_BYTES])
{
    for (int i = 0; i < 2 * DDZ_SEED_BYTES; i++)
        if (hexval(s[i]) < 0)
            return DDZ_ESEED;
    if (s[2 * DDZ_SEED_BYTES] != '\0')
        return DDZ_ESEED;
    for (int i = 0; i < DDZ_SEED_BYTES; i++)
        out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
    return 0;
}

void ddz_text_format_seed(const uint8_t seed[DDZ_SEED_BYTES], char buf[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < DDZ_SEED_BYTES; i++) {
        buf[2 * i] = digits[seed[i] >> 4];
        buf[2 * i + 1] = digits[seed[i] & 15];
    }
    buf[64] = '\0';
}
