/* test_utf8.c - the one UTF-8 decoder (proto/utf8.h): every 2- and 3-byte
 * sequence against the counts RFC 3629 gives, the 4-byte range, the
 * invalid forms one by one, and the checks built on it. */
#include <criterion/criterion.h>
#include <string.h>

#include "proto/utf8.h"

/* Decodes the n bytes of `b` as one character. */
static size_t next(const char *b, size_t n, uint32_t *cp)
{
    *cp = 0xDEADBEEF;
    return ddz_utf8_next(b, n, cp);
}

Test(utf8, one_character_of_each_length)
{
    uint32_t cp;
    cr_assert_eq(next("A", 1, &cp), 1);
    cr_assert_eq(cp, 'A');
    cr_assert_eq(next("\x7F", 1, &cp), 1);
    cr_assert_eq(cp, 0x7F);
    cr_assert_eq(next("\xC2\x80", 2, &cp), 2);
    cr_assert_eq(cp, 0x80);
    cr_assert_eq(next("\xDF\xBF", 2, &cp), 2);
    cr_assert_eq(cp, 0x7FF);
    cr_assert_eq(next("\xE4\xB8\xAD", 3, &cp), 3); /* 中 */
    cr_assert_eq(cp, 0x4E2D);
    cr_assert_eq(next("\xEF\xBF\xBF", 3, &cp), 3);
    cr_assert_eq(cp, 0xFFFF);
    cr_assert_eq(next("\xF0\x9F\x82\xA1", 4, &cp), 4); /* a playing card */
    cr_assert_eq(cp, 0x1F0A1);
    cr_assert_eq(next("\xF4\x8F\xBF\xBF", 4, &cp), 4);
    cr_assert_eq(cp, 0x10FFFF);
    /* a NUL is a character of its own when it is within n */
    cr_assert_eq(next("\0x", 2, &cp), 1);
    cr_assert_eq(cp, 0);
    /* only the first character is read */
    cr_assert_eq(next("ab", 2, &cp), 1);
}

Test(utf8, invalid_forms_are_refused_and_leave_cp)
{
    static const struct {
        const char *b;
        size_t n;
        const char *why;
    } bad[] = {
        {"\xC0\x80", 2, "overlong NUL"},
        {"\xC1\xBF", 2, "overlong 2-byte"},
        {"\xE0\x80\x80", 3, "overlong 3-byte"},
        {"\xE0\x9F\xBF", 3, "overlong U+07FF"},
        {"\xF0\x80\x80\x80", 4, "overlong 4-byte"},
        {"\xF0\x8F\xBF\xBF", 4, "overlong U+FFFF"},
        {"\xED\xA0\x80", 3, "surrogate U+D800"},
        {"\xED\xBF\xBF", 3, "surrogate U+DFFF"},
        {"\xF4\x90\x80\x80", 4, "U+110000"},
        {"\xF5\x80\x80\x80", 4, "lead F5"},
        {"\xFF", 1, "lead FF"},
        {"\x80", 1, "lone continuation"},
        {"\xBF", 1, "lone continuation"},
        {"\xC2\x41", 2, "continuation missing"},
        {"\xE4\xB8\x41", 3, "third byte not a continuation"},
        {"\xC2\x80", 1, "cut by n"},
        {"\xE4\xB8\xAD", 2, "cut by n"},
        {"\xF0\x9F\x82\xA1", 3, "cut by n"},
        {"\xE4\xB8", 3, "cut by the NUL"},
        {"", 0, "nothing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t cp = 77;
        cr_assert_eq(ddz_utf8_next(bad[i].b, bad[i].n, &cp), 0, "%s", bad[i].why);
        cr_assert_eq(cp, 77, "%s: cp untouched", bad[i].why);
        cr_assert(!ddz_utf8_valid(bad[i].b, bad[i].n) || bad[i].n == 0, "%s", bad[i].why);
    }
}

/* Every 2- and 3-byte sequence: exactly the encodings of U+0080..U+FFFF
 * but the surrogates are valid (RFC 3629), and each decodes to the code
 * point whose encoding it is. */
Test(utf8, every_two_and_three_byte_sequence)
{
    size_t valid2 = 0, valid3 = 0;
    char b[4], e[4];
    uint32_t cp;
    for (unsigned x = 0; x < 0x10000; x++) {
        b[0] = (char)(x >> 8), b[1] = (char)x;
        if (ddz_utf8_next(b, 2, &cp) != 2)
            continue;
        valid2++;
        cr_assert(cp >= 0x80 && cp < 0x800);
        cr_assert_eq(ddz_utf8_encode(cp, e), 2);
        cr_assert_eq(memcmp(b, e, 2), 0);
    }
    cr_assert_eq(valid2, 0x800 - 0x80);
    for (unsigned x = 0; x < 0x1000000; x++) {
        b[0] = (char)(x >> 16), b[1] = (char)(x >> 8), b[2] = (char)x;
        if (ddz_utf8_next(b, 3, &cp) != 3)
            continue;
        valid3++;
        cr_assert(cp >= 0x800 && cp <= 0xFFFF && (cp < 0xD800 || cp > 0xDFFF));
        cr_assert_eq(ddz_utf8_encode(cp, e), 3);
        cr_assert_eq(memcmp(b, e, 3), 0);
    }
    cr_assert_eq(valid3, 0x10000 - 0x800 - 0x800);
}

/* Every pair of first two bytes of a 4-byte sequence, with the last two
 * continuations at their ends or just outside: 256 pairs start a valid
 * character (F0 90..BF, F1..F3 80..BF, F4 80..8F). */
Test(utf8, four_byte_range)
{
    static const unsigned char tail[] = {0x80, 0xBF, 0x7F, 0xC0};
    size_t valid = 0;
    char b[4];
    uint32_t cp;
    for (unsigned x = 0; x < 0x10000; x++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                b[0] = (char)(x >> 8), b[1] = (char)x;
                b[2] = (char)tail[i], b[3] = (char)tail[j];
                size_t k = ddz_utf8_next(b, 4, &cp);
                if (k != 4)
                    continue;
                valid++;
                cr_assert(i < 2 && j < 2);
                cr_assert(cp >= 0x10000 && cp <= 0x10FFFF);
            }
    cr_assert_eq(valid, 256 * 4);
}

Test(utf8, encode_decode_round_trip_of_every_code_point)
{
    char e[4];
    uint32_t cp;
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        if (c >= 0xD800 && c <= 0xDFFF)
            continue;
        size_t k = ddz_utf8_encode(c, e);
        cr_assert_eq(k, c < 0x80 ? 1u : c < 0x800 ? 2u : c < 0x10000 ? 3u : 4u);
        cr_assert_eq(ddz_utf8_next(e, k, &cp), k);
        cr_assert_eq(cp, c);
    }
}

Test(utf8, valid_walks_the_whole_text)
{
    const char *s = "ab\xE4\xB8\xAD\xC3\xA9\xF0\x9F\x82\xA1z";
    cr_assert(ddz_utf8_valid(s, strlen(s)));
    cr_assert(ddz_utf8_valid("", 0));
    cr_assert(!ddz_utf8_valid(s, strlen(s) - 2), "cut inside the last 4-byte character");
    cr_assert(!ddz_utf8_valid("ok\xED\xA0\x80ok", 7), "a surrogate in the middle");
    cr_assert(!ddz_utf8_valid("abc\x80", 4), "a stray byte at the end");
}

Test(utf8, chars_counts_characters_not_bytes)
{
    cr_assert_eq(ddz_utf8_chars(""), 0);
    cr_assert_eq(ddz_utf8_chars("abc"), 3);
    cr_assert_eq(ddz_utf8_chars("\xE4\xB8\xAD\xE6\x96\x87"), 2);
    cr_assert_eq(ddz_utf8_chars("a\xC3\xA9\xF0\x9F\x82\xA1"), 3);
}

Test(utf8, controls_are_c0_del_and_c1)
{
    cr_assert(!ddz_utf8_has_controls("plain text ~", 12));
    cr_assert(ddz_utf8_has_controls("a\tb", 3));
    cr_assert(ddz_utf8_has_controls("\x1F", 1));
    cr_assert(!ddz_utf8_has_controls(" ", 1));
    cr_assert(ddz_utf8_has_controls("\x7F", 1));
    cr_assert(ddz_utf8_has_controls("x\xC2\x80", 3), "U+0080");
    cr_assert(ddz_utf8_has_controls("\xC2\x9F", 2), "U+009F");
    cr_assert(!ddz_utf8_has_controls("\xC2\xA0", 2), "U+00A0 is not one");
    cr_assert(!ddz_utf8_has_controls("\xC2\x80", 1), "C2 cut by len");
    cr_assert(!ddz_utf8_has_controls("\xE4\xB8\x80", 3), "80 after another lead");
    cr_assert(ddz_utf8_has_controls("a\0b", 3), "a NUL within len");
    cr_assert(!ddz_utf8_has_controls("a\0b", 1));
}

/* Names people read (ddz_utf8_name_flaw): each character refused, alone
 * and inside a name, with the code point it reports; and names that pass. */
Test(utf8, names_refuse_what_reads_other_than_written)
{
    static const struct {
        uint32_t cp;
        const char *why;
    } bad[] = {
        {0x0000, "control"},       {0x0009, "control"},       {0x007F, "control"},
        {0x0085, "control"},       {0x009F, "control"},       {0x061C, "bidirectional"},
        {0x200E, "bidirectional"}, {0x200F, "bidirectional"}, {0x202A, "bidirectional"},
        {0x202E, "bidirectional"}, {0x2066, "bidirectional"}, {0x2069, "bidirectional"},
        {0x2028, "separator"},     {0x2029, "separator"},     {0x200B, "invisible"},
        {0x200C, "invisible"},     {0x200D, "invisible"},     {0x2060, "invisible"},
        {0x2064, "invisible"},     {0xFEFF, "invisible"},     {0x00AD, "invisible"},
        {0x034F, "invisible"},     {0x115F, "invisible"},     {0x3164, "invisible"},
        {0xFFA0, "invisible"},     {0x2800, "invisible"},     {0xFE0F, "invisible"},
        {0xE0041, "invisible"},    {0x180E, "invisible"},     {0x0600, "invisible"},
        {0x00A0, "space"},         {0x2003, "space"},         {0x3000, "space"},
        {0x202F, "space"},         {0xE000, "private"},       {0xF8FF, "private"},
        {0xF0000, "private"},      {0x10FFFD, "private"},     {0xFDD0, "noncharacter"},
        {0xFFFE, "noncharacter"},  {0x1FFFF, "noncharacter"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char s[16] = "ab";
        size_t n = 2 + ddz_utf8_encode(bad[i].cp, s + 2);
        s[n++] = 'c';
        uint32_t cp = 0;
        const char *why = ddz_utf8_name_flaw(s, n, &cp);
        cr_assert_not_null(why, "U+%04X passed", (unsigned)bad[i].cp);
        cr_assert(strstr(why, bad[i].why), "U+%04X: %s", (unsigned)bad[i].cp, why);
        cr_assert_eq(cp, bad[i].cp);
        /* alone too */
        n = ddz_utf8_encode(bad[i].cp, s);
        cr_assert_not_null(ddz_utf8_name_flaw(s, n, &cp), "U+%04X alone", (unsigned)bad[i].cp);
    }
    uint32_t cp;
    /* the room: a bidi override that turns the rest around */
    const char *rlo = "Room \xE2\x80\xAE"
                      "elbat ,1 lanif :tnemanruoT";
    cr_assert_str_eq(ddz_utf8_name_flaw(rlo, strlen(rlo), &cp), "a bidirectional control");
    cr_assert_eq(cp, 0x202E);
    cr_assert_not_null(ddz_utf8_name_flaw(" Mei", 4, &cp), "a space in front");
    cr_assert_not_null(ddz_utf8_name_flaw("Mei ", 4, &cp), "a space behind");
    cr_assert_not_null(ddz_utf8_name_flaw("\xCC\x81"
                                          "a",
                                          3, &cp),
                       "a mark on nothing");
    cr_assert_null(ddz_utf8_name_flaw("e\xCC\x81\xCC\x82\xCC\x83", 7, &cp), "3 marks");
    cr_assert_not_null(ddz_utf8_name_flaw("e\xCC\x81\xCC\x82\xCC\x83\xCC\x84", 9, &cp), "4 marks");
    cr_assert_not_null(ddz_utf8_name_flaw("a\xFF", 2, &cp), "invalid UTF-8 is refused too");
    /* what people are called */
    static const char *const good[] = {
        "Mei",
        "Ann Lee",
        "\xE5\xB0\x8F\xE6\x98\x8E",                         /* 小明 */
        "Jos\xC3\xA9",                                      /* José */
        "Jose\xCC\x81",                                     /* José, decomposed */
        "\xD0\x9C\xD0\xB0\xD1\x88\xD0\xB0",                 /* Маша */
        "\xD8\xB9\xD9\x84\xD9\x8A",                         /* علي: right to left, no control */
        "\xF0\x9F\x83\x8F joker",                           /* 🃏 joker */
        "\xE0\xA4\xA8\xE0\xA4\xBF\xE0\xA4\xA4\xE0\xA4\xBF", /* निति: Devanagari marks */
        "a  b",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        cr_assert_null(ddz_utf8_name_flaw(good[i], strlen(good[i]), &cp), "%s refused: %s", good[i],
                       ddz_utf8_name_flaw(good[i], strlen(good[i]), &cp));
}

/* An account's key (SPEC §15): names differing only in case are one. */
Test(utf8, fold_makes_capitals_small_and_keeps_lengths)
{
    static const char *const pairs[][2] = {
        {"Alice", "alice"},           {"ÀÉÎÕÜ", "àéîõü"}, {"×", "×"}, /* the multiplication sign is
                                                                         no letter */
        {"ĀĆŁŽŸ", "āćłžÿ"},           {"ΣΩΑ", "σωα"},     {"ЖЁЯ", "жёя"}, {"ＡＢＣ", "ａｂｃ"},
        {"斗地主 Bob", "斗地主 bob"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char out[64];
        size_t n = ddz_utf8_fold(pairs[i][0], out, sizeof out);
        cr_expect_str_eq(out, pairs[i][1], "%s", pairs[i][0]);
        cr_expect_eq(n, strlen(pairs[i][0]), "%s keeps its length", pairs[i][0]);
    }
    char small[4];
    cr_expect_eq(ddz_utf8_fold("Alice", small, sizeof small), (size_t)-1);
    cr_expect_eq(strlen(small), 3);
}
