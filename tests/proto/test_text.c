/* test_text.c - card-list and seed codecs: round trips and every error;
 * the display width of UTF-8 text and its truncation to a width. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "proto/text.h"
#include "rules/error.h"

Test(text, card_list_round_trip_and_tolerance)
{
    ddz_cards c;
    char buf[200], err[100];
    cr_assert_eq(ddz_text_parse_cards(" 53, 0 ,17\r\n", &c, err, sizeof err), 0);
    cr_assert_eq(c, (1ULL << 53) | 1ULL | (1ULL << 17));
    cr_assert_eq(ddz_text_format_cards(c, buf, sizeof buf), 7);
    cr_assert_str_eq(buf, "0,17,53");
    cr_assert_eq(ddz_text_parse_cards("", &c, err, sizeof err), 0);
    cr_assert_eq(c, 0);
    cr_assert_eq(ddz_text_format_cards(0, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    /* every card, the longest list */
    cr_assert_gt(ddz_text_format_cards(DDZ_CARDS_ALL, buf, sizeof buf), 100);
    cr_assert_eq(ddz_text_parse_cards(buf, &c, err, sizeof err), 0);
    cr_assert_eq(c, DDZ_CARDS_ALL);
    cr_assert_eq(ddz_text_format_cards(DDZ_CARDS_ALL, buf, 20), DDZ_ENOSPC);
}

Test(text, card_list_errors_name_the_problem)
{
    ddz_cards c = 123;
    char err[100];
    cr_assert_eq(ddz_text_parse_cards("1,54", &c, err, sizeof err), DDZ_ECARD);
    cr_assert(strstr(err, "54") != NULL, "%s", err);
    cr_assert_eq(ddz_text_parse_cards("1,99999999999999999999", &c, err, sizeof err), DDZ_ECARD);
    cr_assert_eq(ddz_text_parse_cards("3,4,3", &c, err, sizeof err), DDZ_EDUP);
    cr_assert(strstr(err, "3") != NULL, "%s", err);
    cr_assert_eq(ddz_text_parse_cards("a", &c, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_text_parse_cards("1,,2", &c, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_text_parse_cards("1,", &c, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_text_parse_cards("-1", &c, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_text_parse_cards("1 2", &c, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_text_parse_cards("1;2", NULL, NULL, 0) < 0, 1);
    cr_assert_eq(c, 123, "output untouched on error");
}

Test(text, seeds)
{
    uint8_t s[32];
    char hex[65];
    const char *ok = "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";
    cr_assert_eq(ddz_text_parse_seed(ok, s), 0);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(s[i], i);
    ddz_text_format_seed(s, hex);
    cr_assert_str_eq(hex, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    cr_assert_eq(ddz_text_parse_seed("00", s), DDZ_ESEED);
    cr_assert_eq(ddz_text_parse_seed("", s), DDZ_ESEED);
    char longer[70];
    snprintf(longer, sizeof longer, "%s00", ok);
    cr_assert_eq(ddz_text_parse_seed(longer, s), DDZ_ESEED);
    char bad[65];
    memcpy(bad, ok, 65);
    bad[10] = 'g';
    cr_assert_eq(ddz_text_parse_seed(bad, s), DDZ_ESEED);
}

Test(text, display_width_of_ascii_cjk_and_mixed)
{
    cr_assert_eq(ddz_text_display_width(""), 0);
    cr_assert_eq(ddz_text_display_width("hello, world"), 12);
    cr_assert_eq(ddz_text_display_width("测试引擎"), 8, "CJK ideographs are wide");
    cr_assert_eq(ddz_text_display_width("ＡＢ"), 4, "fullwidth forms are wide");
    cr_assert_eq(ddz_text_display_width("ｱｲ"), 2, "halfwidth katakana are not");
    cr_assert_eq(ddz_text_display_width("한국어"), 6, "Hangul syllables are wide");
    cr_assert_eq(ddz_text_display_width("かな"), 4);
    cr_assert_eq(ddz_text_display_width("\U0001F600"), 2, "an emoji is wide");
    cr_assert_eq(ddz_text_display_width("\U00020000"), 2, "CJK extension B is wide");
    cr_assert_eq(ddz_text_display_width("a中b文c"), 7);
    cr_assert_eq(ddz_text_display_width("Ünïcödé"), 7, "Latin letters are narrow");
    cr_assert_eq(ddz_text_display_width("e\u0301"), 1, "a combining mark takes no column");
    cr_assert_eq(ddz_text_display_width("中\u20dd"), 2, "an enclosing mark neither");
    cr_assert_eq(ddz_text_display_width("a\u200bb"), 2, "a zero-width space neither");
    cr_assert_eq(ddz_text_display_width("\u3099"), 0, "combining kana voicing: a mark first");
}

Test(text, invalid_utf8_counts_one_column_per_byte)
{
    cr_assert_eq(ddz_text_display_width("\xff"), 1);
    cr_assert_eq(ddz_text_display_width("\x80\xbf"), 2, "stray continuation bytes");
    cr_assert_eq(ddz_text_display_width("\xe4\xb8"), 2, "a character cut short");
    cr_assert_eq(ddz_text_display_width("\xe4\xb8x"), 3);
    cr_assert_eq(ddz_text_display_width("\xc0\xaf"), 2, "overlong '/'");
    cr_assert_eq(ddz_text_display_width("\xe0\x80\xaf"), 3, "overlong '/', three bytes");
    cr_assert_eq(ddz_text_display_width("\xed\xa0\x80"), 3, "a surrogate");
    cr_assert_eq(ddz_text_display_width("\xf4\x90\x80\x80"), 4, "above U+10FFFF");
    /* 测试 in GBK, not converted: 4 bytes, 4 columns */
    cr_assert_eq(ddz_text_display_width("\xb2\xe2\xca\xd4"), 4);
    cr_assert_eq(ddz_text_display_width("a\xff中"), 4, "valid text around a bad byte");
}

Test(text, fit_width_truncates_at_characters)
{
    size_t w = 99;
    cr_assert_eq(ddz_text_fit_width("测试引擎", 5, &w), 6, "two ideographs (6 bytes) fit in 5");
    cr_assert_eq(w, 4);
    cr_assert_eq(ddz_text_fit_width("测试引擎", 8, &w), 12);
    cr_assert_eq(w, 8);
    cr_assert_eq(ddz_text_fit_width("测试引擎", 100, &w), 12);
    cr_assert_eq(ddz_text_fit_width("a测试", 2, &w), 1, "a wide character does not half fit");
    cr_assert_eq(w, 1);
    cr_assert_eq(ddz_text_fit_width("abc", 0, &w), 0);
    cr_assert_eq(w, 0);
    cr_assert_eq(ddz_text_fit_width("ae\u0301b", 2, &w), 4, "the mark stays with its letter");
    cr_assert_eq(w, 2);
    cr_assert_eq(ddz_text_fit_width("a\xe4\xb8z", 2, &w), 2, "a bad byte is a character");
    cr_assert_eq(ddz_text_fit_width("", 5, NULL), 0);
}

/* Random strings of known characters, valid and invalid: the prefix that
 * fits is always made of whole characters, the longest that fits. */
Test(text, fit_width_never_splits_a_character)
{
    static const struct {
        const char *bytes;
        size_t width;
    } piece[] = {
        {"a", 1},    {" ", 1},    {"中", 2},     {"Ａ", 2},     {"ｱ", 1},
        {"한", 2},   {"é", 1},    {"\u0301", 0}, {"\u200b", 0}, {"\U0001F600", 2},
        {"\xff", 1}, {"\xc0", 1}, {"\xe4", 1},
    };
    const size_t npieces = sizeof piece / sizeof piece[0];
    uint32_t rng = 12345;
    for (int round = 0; round < 2000; round++) {
        char s[256] = "";
        size_t ends[40], widths[40], len = 0, total = 0; /* after each piece */
        int n = (int)(rng % 30);
        for (int i = 0; i < n; i++) {
            rng = rng * 1103515245u + 12345u;
            size_t k = (rng >> 16) % npieces;
            size_t bl = strlen(piece[k].bytes);
            memcpy(s + len, piece[k].bytes, bl + 1);
            len += bl;
            total += piece[k].width;
            ends[i] = len;
            widths[i] = total;
        }
        rng = rng * 1103515245u + 12345u;
        cr_assert_eq(ddz_text_display_width(s), total, "width of round %d", round);
        for (size_t cols = 0; cols <= 62; cols++) {
            size_t want = 0, want_w = 0;
            for (int i = 0; i < n && widths[i] <= cols; i++)
                want = ends[i], want_w = widths[i];
            size_t got_w = 999, got = ddz_text_fit_width(s, cols, &got_w);
            cr_assert_eq(got, want, "round %d, %zu columns: %zu bytes, want %zu", round, cols, got,
                         want);
            cr_assert_eq(got_w, want_w);
        }
    }
}

Test(errors, table_gives_names_and_messages)
{
    cr_assert_str_eq(ddz_errname(DDZ_EWEAK), "EWEAK");
    cr_assert_str_eq(ddz_strerror(DDZ_EWEAK), "play does not beat the last play");
    cr_assert_str_eq(ddz_errname(0), "OK");
    cr_assert_str_eq(ddz_strerror(-9999), "unknown error");
    cr_assert_str_eq(ddz_errname(-9999), "EUNKNOWNERR");
}
