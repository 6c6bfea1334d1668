/* utf8.c - the one UTF-8 decoder and its checks (utf8.h). */
#include "proto/utf8.h"

#include <string.h>

size_t ddz_utf8_next(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    if (n == 0)
        return 0;
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    /* The lead bytes RFC 3629 allows: C0 and C1 could only start overlong
     * forms, F5..FF only code points above U+10FFFF. */
    size_t k;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        k = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        k = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return k;
}

bool ddz_utf8_valid(const char *s, size_t n)
{
    uint32_t cp;
    while (n > 0) {
        size_t k = ddz_utf8_next(s, n, &cp);
        if (k == 0)
            return false;
        s += k, n -= k;
    }
    return true;
}

size_t ddz_utf8_encode(uint32_t cp, char out[4])
{
    unsigned char *b = (unsigned char *)out;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (unsigned char)(0xF0 | cp >> 18);
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t ddz_utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

bool ddz_utf8_has_controls(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f ||
            (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
             (unsigned char)s[i + 1] <= 0x9F))
            return true;
    }
    return false;
}

/* ---- names people read ---- */

typedef struct cp_range {
    uint32_t lo, hi;
} cp_range;

static bool in_ranges(uint32_t cp, const cp_range *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cp >= r[i].lo && cp <= r[i].hi)
            return true;
    return false;
}

#define NRANGES(a) (sizeof(a) / sizeof(a)[0])

/* can reorder the text around them (UTS #55) */
static const cp_range bidi_controls[] = {
    {0x061C, 0x061C}, {0x200E, 0x200F}, {0x202A, 0x202E}, {0x2066, 0x2069}};

/* show nothing, or nothing of their own: Default_Ignorable_Code_Point and
 * the format characters (Cf) that are not bidirectional controls, with
 * U+2800 (a blank braille pattern, a favourite invisible name) */
static const cp_range invisible[] = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x0600, 0x0605},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x115F, 0x1160},
    {0x17B4, 0x17B5},   {0x180B, 0x180F},   {0x200B, 0x200D},   {0x2060, 0x2065},
    {0x206A, 0x206F},   {0x2800, 0x2800},   {0x3164, 0x3164},   {0xFE00, 0xFE0F},
    {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFB},   {0x110BD, 0x110BD},
    {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
    {0xE0000, 0xE0FFF}};

/* White_Space but U+0020 and the controls (which are refused as such) */
static const cp_range other_spaces[] = {{0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200A},
                                        {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}};

/* the blocks of combining diacritical marks */
static const cp_range combining[] = {
    {0x0300, 0x036F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF}, {0xFE20, 0xFE2F}};

const char *ddz_utf8_name_flaw(const char *s, size_t len, uint32_t *cp)
{
    int marks = 0; /* combining marks in a row so far */
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t k = ddz_utf8_next(s + i, len - i, &c);
        if (!k) { /* not the caller's promise: refuse rather than guess */
            *cp = (unsigned char)s[i];
            return "invalid UTF-8";
        }
        *cp = c;
        if (c < 0x20 || (c >= 0x7F && c <= 0x9F))
            return "a control character";
        if (in_ranges(c, bidi_controls, NRANGES(bidi_controls)))
            return "a bidirectional control";
        if (c == 0x2028 || c == 0x2029)
            return "a line or paragraph separator";
        if (in_ranges(c, invisible, NRANGES(invisible)))
            return "an invisible or formatting character";
        if (in_ranges(c, other_spaces, NRANGES(other_spaces)))
            return "a space other than U+0020";
        if (c == 0x20 && (i == 0 || i + 1 == len))
            return "a space at either end";
        if ((c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000)
            return "a private-use character";
        if ((c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE)
            return "a noncharacter";
        if (in_ranges(c, combining, NRANGES(combining))) {
            if (i == 0)
                return "a combining mark with nothing to combine with";
            if (++marks > 3)
                return "more than 3 combining marks in a row";
        } else {
            marks = 0;
        }
        i += k;
    }
    return NULL;
}

/* The small letter of capital `cp`, or cp itself: the simple one-to-one
 * mappings of UnicodeData.txt in the ranges utf8.h names (each fold keeps
 * the character's UTF-8 length, so the key is never longer than the name). */
static uint32_t fold_cp(uint32_t cp)
{
    if (cp >= 'A' && cp <= 'Z')
        return cp + 0x20;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) /* Latin-1: U+00D7 is the multiplication sign */
        return cp + 0x20;
    if (cp >= 0x100 && cp <= 0x137 && !(cp & 1)) /* Latin Extended-A, pairs from even */
        return cp == 0x130 ? cp : cp + 1; /* U+0130 (dotted I) folds to two characters: kept */
    if (cp >= 0x139 && cp <= 0x148 && (cp & 1)) /* pairs from odd */
        return cp + 1;
    if (cp >= 0x14A && cp <= 0x177 && !(cp & 1))
        return cp + 1;
    if (cp == 0x178) /* Y with diaeresis: its small letter is Latin-1's U+00FF (2 bytes both) */
        return 0xFF;
    if (cp >= 0x179 && cp <= 0x17E && (cp & 1))
        return cp + 1;
    if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) /* Greek capitals */
        return cp + 0x20;
    if (cp >= 0x400 && cp <= 0x40F) /* Cyrillic with a mark */
        return cp + 0x50;
    if (cp >= 0x410 && cp <= 0x42F) /* basic Cyrillic */
        return cp + 0x20;
    if (cp >= 0xFF21 && cp <= 0xFF3A) /* fullwidth Latin */
        return cp + 0x20;
    return cp;
}

size_t ddz_utf8_fold(const char *s, char *out, size_t outlen)
{
    size_t n = strlen(s), at = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = ddz_utf8_next(s + i, n - i, &cp);
        if (len == 0) { /* not UTF-8 (the caller's to check): the byte as it is */
            if (at + 1 >= outlen)
                goto small;
            out[at++] = s[i++];
            continue;
        }
        char buf[4];
        size_t w = ddz_utf8_encode(fold_cp(cp), buf);
        if (at + w >= outlen)
            goto small;
        memcpy(out + at, buf, w);
        at += w;
        i += len;
    }
    out[at] = '\0';
    return at;
small:
    if (outlen)
        out[at < outlen ? at : outlen - 1] = '\0';
    return (size_t)-1;
}
