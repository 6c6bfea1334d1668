/* test_login_limit.c - failed sign-ins per key (service/server/login_limit.h):
 * the tenth failure in a window refuses the key until the window ends,
 * with the seconds left; other keys are untouched; a full table forgets
 * its oldest window first. */
#include <criterion/criterion.h>

#include <stdio.h>

#include "service/server/login_limit.h"

Test(login_limit, ten_failures_refuse_until_the_window_ends)
{
    ddz_login_limit *l = ddz_login_limit_create();
    cr_assert_not_null(l);
    int64_t t0 = 1000000;
    for (int i = 0; i < DDZ_LOGIN_LIMIT_FAILS - 1; i++) {
        ddz_login_limit_fail(l, "a:10.0.0.1", t0 + i);
        cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.1", t0 + i), 0, "after %d", i + 1);
    }
    ddz_login_limit_fail(l, "a:10.0.0.1", t0 + 100);
    cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.1", t0 + 100),
                 (DDZ_LOGIN_LIMIT_WINDOW_MS - 100 + 999) / 1000);
    cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.2", t0 + 100), 0, "another key");
    cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.1", t0 + DDZ_LOGIN_LIMIT_WINDOW_MS - 1), 1);
    cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.1", t0 + DDZ_LOGIN_LIMIT_WINDOW_MS), 0);
    /* a failure after the window starts a new one */
    ddz_login_limit_fail(l, "a:10.0.0.1", t0 + DDZ_LOGIN_LIMIT_WINDOW_MS);
    cr_expect_eq(ddz_login_limit_check(l, "a:10.0.0.1", t0 + DDZ_LOGIN_LIMIT_WINDOW_MS), 0);
    ddz_login_limit_destroy(l);
}

Test(login_limit, a_full_table_forgets_the_oldest_window)
{
    ddz_login_limit *l = ddz_login_limit_create();
    for (int i = 0; i < DDZ_LOGIN_LIMIT_FAILS; i++)
        ddz_login_limit_fail(l, "n:old", 0);
    cr_expect_gt(ddz_login_limit_check(l, "n:old", 1), 0);
    char key[32];
    for (int i = 0; i < DDZ_LOGIN_LIMIT_KEYS; i++) {
        snprintf(key, sizeof key, "a:%d", i);
        ddz_login_limit_fail(l, key, 10 + i);
    }
    cr_expect_eq(ddz_login_limit_check(l, "n:old", 20000), 0, "the oldest gave way");
    ddz_login_limit_destroy(l);
}

/* Another limit in the same table (sign-ups: 5 an hour); a count given
 * back (a sign-up that made nothing) makes room for one more. */
Test(login_limit, another_limit_and_a_count_given_back)
{
    ddz_login_limit *l = ddz_login_limit_create_for(5, 3600 * 1000);
    cr_assert_not_null(l);
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(ddz_login_limit_check(l, "s:1.2.3.4", 1000 + i), 0);
        ddz_login_limit_fail(l, "s:1.2.3.4", 1000 + i);
    }
    cr_expect_eq(ddz_login_limit_check(l, "s:1.2.3.4", 2000), 3599, "until the hour ends");
    cr_expect_eq(ddz_login_limit_check(l, "s:5.6.7.8", 2000), 0);
    ddz_login_limit_forgive(l, "s:1.2.3.4");
    cr_expect_eq(ddz_login_limit_check(l, "s:1.2.3.4", 2000), 0);
    ddz_login_limit_fail(l, "s:1.2.3.4", 2000);
    cr_expect_gt(ddz_login_limit_check(l, "s:1.2.3.4", 2000), 0);
    ddz_login_limit_forgive(l, "s:9.9.9.9"); /* absent: nothing */
    cr_expect_eq(ddz_login_limit_check(l, "s:1.2.3.4", 1000 + 3600 * 1000), 0, "a new hour");
    ddz_login_limit_destroy(l);
}
