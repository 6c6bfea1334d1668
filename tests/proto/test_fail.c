/* test_fail.c - a parser's error message (proto/fail.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "proto/fail.h"
#include "rules/error.h"

Test(fail, writes_the_message_and_returns_the_code)
{
    char err[64] = "old";
    cr_assert_eq(ddz_fail(DDZ_EFIELD, err, sizeof err, "%s: at most %d", "name", 16), DDZ_EFIELD);
    cr_assert_str_eq(err, "name: at most 16");
}

Test(fail, truncates_to_the_buffer)
{
    char err[8];
    memset(err, 'x', sizeof err);
    cr_assert_eq(ddz_fail(DDZ_ESYNTAX, err, 5, "%s", "abcdefgh"), DDZ_ESYNTAX);
    cr_assert_str_eq(err, "abcd");
    cr_assert_eq(err[5], 'x', "nothing past errlen");
}

Test(fail, no_buffer_is_fine)
{
    cr_assert_eq(ddz_fail(DDZ_ECARD, NULL, 100, "card %d", 54), DDZ_ECARD);
    char err[4] = "abc";
    cr_assert_eq(ddz_fail(DDZ_ECARD, err, 0, "card %d", 54), DDZ_ECARD);
    cr_assert_str_eq(err, "abc", "errlen 0 writes nothing");
}
