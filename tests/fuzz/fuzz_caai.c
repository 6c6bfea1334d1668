/* fuzz_caai.c - any bytes as one CAAI line (proto/caai.h).
 *
 * Checks: ddz_caai_parse never crashes; what it accepts formats (the
 * length ddz_caai_format_len predicts, within DDZ_CAAI_FORMAT_MAX), and
 * the formatted line parses back to the same message and formats to the
 * same text (print(parse(x)) is a fixed point). ddz_caai_name_utf8 of the
 * bytes (up to the first NUL, as a C string) is valid UTF-8 without control
 * characters, within 3 * strlen + 1 bytes, and stays valid when cut short
 * by a small buffer; a parsed NAME converts within DDZ_CAAI_NAME_UTF8_MAX.
 */
#include <string.h>

#include "fuzz.h"
#include "proto/caai.h"
#include "rules/error.h"

static void same_msg(const ddz_caai_msg *a, const ddz_caai_msg *b, const char *line)
{
    FUZZ_CHECK(a->kind == b->kind, "kind %d vs %d for '%s'", a->kind, b->kind, line);
    FUZZ_CHECK(a->seat == b->seat, "seat %d vs %d for '%s'", a->seat, b->seat, line);
    FUZZ_CHECK(a->ok_of == b->ok_of, "ok_of %d vs %d for '%s'", a->ok_of, b->ok_of, line);
    FUZZ_CHECK(a->bid == b->bid, "bid %d vs %d for '%s'", a->bid, b->bid, line);
    FUZZ_CHECK(a->cards == b->cards, "cards %llx vs %llx for '%s'", (unsigned long long)a->cards,
               (unsigned long long)b->cards, line);
    FUZZ_CHECK(memcmp(&a->info, &b->info, sizeof a->info) == 0, "info differs for '%s'", line);
    FUZZ_CHECK(strcmp(a->version, b->version) == 0, "version differs for '%s'", line);
    FUZZ_CHECK(strcmp(a->name, b->name) == 0, "name differs for '%s'", line);
}

static void check_name_utf8(const char *raw)
{
    size_t n = strlen(raw);
    size_t cap = 3 * n + 1;
    char *out = malloc(cap);
    FUZZ_CHECK(out, "malloc");
    int rc = ddz_caai_name_utf8(raw, out, cap);
    FUZZ_CHECK(rc >= 0, "name_utf8 of %zu bytes failed in %zu: %d", n, cap, rc);
    FUZZ_CHECK((size_t)rc == strlen(out), "returned %d, wrote %zu", rc, strlen(out));
    FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)out, (size_t)rc, true),
               "name_utf8 wrote invalid UTF-8 or a control character");
    /* Cut short: whole characters only, still valid, DDZ_ENOSPC. */
    for (size_t small = 0; small < 8 && small < cap; small++) {
        char tiny[8];
        memset(tiny, 'x', sizeof tiny);
        int r = ddz_caai_name_utf8(raw, tiny, small);
        if (small == 0) {
            FUZZ_CHECK(r == DDZ_ENOSPC, "outlen 0 gave %d", r); /* not even the NUL fits */
            FUZZ_CHECK(tiny[0] == 'x', "outlen 0 wrote a byte");
            continue;
        }
        size_t len = strnlen(tiny, small);
        FUZZ_CHECK(len < small, "no NUL within outlen %zu", small);
        FUZZ_CHECK(r == DDZ_ENOSPC || (size_t)r == len, "outlen %zu gave %d", small, r);
        FUZZ_CHECK(r == DDZ_ENOSPC || r == rc, "outlen %zu gave %d, full %d", small, r, rc);
        FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)tiny, len, true),
                   "outlen %zu: invalid UTF-8", small);
        FUZZ_CHECK(memcmp(tiny, out, len) == 0, "outlen %zu: not a prefix of the full result",
                   small);
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A NUL-terminated copy, so that the name check and messages can use it;
     * the parser itself gets exactly `size` bytes. */
    char *raw = malloc(size + 1);
    FUZZ_CHECK(raw, "malloc");
    memcpy(raw, data, size);
    raw[size] = '\0';
    check_name_utf8(raw);

    ddz_caai_msg m, back;
    char err[128];
    int rc = ddz_caai_parse((const char *)data, size, &m, err, sizeof err);
    if (rc < 0) {
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", rc);
        free(raw);
        return 0;
    }
    FUZZ_CHECK(rc == 0, "parse returned %d", rc);
    FUZZ_CHECK(m.kind > DDZ_CAAI_NONE && m.kind < DDZ_CAAI_NKINDS, "kind %d", m.kind);

    char line[DDZ_CAAI_FORMAT_MAX], again[DDZ_CAAI_FORMAT_MAX];
    int n = ddz_caai_format(&m, line, sizeof line);
    FUZZ_CHECK(n > 0, "a parsed message does not format: %d (%s)", n, ddz_errname(n));
    FUZZ_CHECK((size_t)n == strlen(line), "format returned %d, wrote %zu", n, strlen(line));
    FUZZ_CHECK(ddz_caai_format_len(&m) == n, "format_len %d, format %d", ddz_caai_format_len(&m),
               n);
    FUZZ_CHECK(strcmp(ddz_caai_keyword(m.kind), "?") != 0, "no keyword for kind %d", m.kind);
    FUZZ_CHECK(strncmp(line, ddz_caai_keyword(m.kind), strlen(ddz_caai_keyword(m.kind))) == 0,
               "'%s' does not start with its keyword", line);

    rc = ddz_caai_parse(line, (size_t)n, &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "the formatted line '%s' does not parse: %s", line, err);
    same_msg(&m, &back, line);
    int n2 = ddz_caai_format(&back, again, sizeof again);
    FUZZ_CHECK(n2 == n && strcmp(line, again) == 0, "'%s' formats again as '%s'", line, again);

    /* With CRLF, as engines on Windows send it, the same message. */
    char crlf[DDZ_CAAI_FORMAT_MAX + 2];
    memcpy(crlf, line, (size_t)n);
    memcpy(crlf + n, "\r\n", 2);
    rc = ddz_caai_parse(crlf, (size_t)n + 2, &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "'%s' with CRLF does not parse: %s", line, err);
    same_msg(&m, &back, line);

    /* Too small a buffer: DDZ_ENOSPC, never an overrun (ASan watches). */
    char *cut = malloc((size_t)n);
    FUZZ_CHECK(cut, "malloc");
    FUZZ_CHECK(ddz_caai_format(&m, cut, (size_t)n) == DDZ_ENOSPC, "no ENOSPC for '%s'", line);
    free(cut);

    if (m.kind == DDZ_CAAI_NAME) {
        char name[DDZ_CAAI_NAME_UTF8_MAX];
        int k = ddz_caai_name_utf8(m.name, name, sizeof name);
        FUZZ_CHECK(k >= 0, "a parsed name does not fit DDZ_CAAI_NAME_UTF8_MAX: %d", k);
        FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)name, (size_t)k, true), "invalid name");
    }
    free(raw);
    return 0;
}
