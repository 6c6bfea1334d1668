/* test_text.c - card-list and seed codecs: round trips and every error. */
#include <criterion/criterion.h>
#include <stdio.h>

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

Test(errors, table_gives_names_and_messages)
{
    cr_assert_str_eq(ddz_errname(DDZ_EWEAK), "EWEAK");
    cr_assert_str_eq(ddz_strerror(DDZ_EWEAK), "play does not beat the last play");
    cr_assert_str_eq(ddz_errname(0), "OK");
    cr_assert_str_eq(ddz_strerror(-9999), "unknown error");
    cr_assert_str_eq(ddz_errname(-9999), "EUNKNOWNERR");
}
