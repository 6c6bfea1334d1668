/* fuzz.h - what every fuzz target shares: a check that reports and aborts
 * (libFuzzer then saves the input as crash-*), and an independent UTF-8
 * validator for the codecs' output. */
#ifndef DDZ_FUZZ_H
#define DDZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Aborts with file:line and a message when `cond` is false. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* True when s[0..n) is UTF-8 as RFC 3629 defines it (no overlong forms, no
 * surrogates, nothing above U+10FFFF) and, if `no_controls`, holds no C0,
 * DEL or C1 control character. Written from the RFC, not from proto/. */
static inline bool fuzz_utf8_ok(const unsigned char *s, size_t n, bool no_controls)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        uint32_t cp;
        size_t k;
        if (c < 0x80)
            cp = c, k = 1;
        else if ((c & 0xE0) == 0xC0)
            cp = c & 0x1F, k = 2;
        else if ((c & 0xF0) == 0xE0)
            cp = c & 0x0F, k = 3;
        else if ((c & 0xF8) == 0xF0)
            cp = c & 0x07, k = 4;
        else
            return false;
        if (i + k > n)
            return false;
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        if (no_controls && (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)))
            return false;
        i += k;
    }
    return true;
}

#endif
