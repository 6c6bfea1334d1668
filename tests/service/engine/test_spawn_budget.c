/* test_spawn_budget.c - the engine start budget (service/engine/spawn_budget.c):
 * token buckets on the test's own clock, so every case is exact. */
#include <criterion/criterion.h>

#include "service/engine/spawn_budget.h"

#define S 1000000 /* a second, in microseconds */

/* A full bucket allows `rate` starts at once, then puts the next off by
 * one token's time, and counts each refusal. */
Test(spawn_budget, a_second_of_burst_then_one_token_at_a_time)
{
    long refused = 0;
    ddz_spawn_budget b;
    ddz_spawn_budget_init(&b, 10, 0, &refused);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(ddz_spawn_budget_take(NULL, NULL, &b, 0), 0, "start %d", i);
    int64_t wait = ddz_spawn_budget_take(NULL, NULL, &b, 0);
    cr_assert_gt(wait, 0);
    cr_assert_leq(wait, S / 10 + 1, "waits %lld us for one token", (long long)wait);
    cr_assert_eq(refused, 1);
    cr_assert_eq(ddz_spawn_budget_used(&b, 0), 10);
    /* after the wait it was told, the start is allowed */
    cr_assert_eq(ddz_spawn_budget_take(NULL, NULL, &b, wait), 0);
    cr_assert_eq(b.taken, 11);
    cr_assert_eq(refused, 1);
}

/* A start takes from the room and the server together or from neither:
 * a room at its rate does not spend the server's tokens, and the refusal
 * is counted against the bucket that lacked one. */
Test(spawn_budget, room_and_total_are_taken_together_or_not_at_all)
{
    long room_refused = 0, total_refused = 0;
    ddz_spawn_budget room, total;
    ddz_spawn_budget_init(&room, 2, 0, &room_refused);
    ddz_spawn_budget_init(&total, 3, 0, &total_refused);
    cr_assert_eq(ddz_spawn_budget_take(&room, NULL, &total, 0), 0);
    cr_assert_eq(ddz_spawn_budget_take(&room, NULL, &total, 0), 0);
    cr_assert_gt(ddz_spawn_budget_take(&room, NULL, &total, 0), 0);
    cr_assert_eq(room_refused, 1);
    cr_assert_eq(total_refused, 0);
    cr_assert_eq(total.taken, 2, "the server's token was spent on a refused start");
    /* another room still has the server's last token */
    long other_refused = 0;
    ddz_spawn_budget other;
    ddz_spawn_budget_init(&other, 2, 0, &other_refused);
    cr_assert_eq(ddz_spawn_budget_take(&other, NULL, &total, 0), 0);
    cr_assert_gt(ddz_spawn_budget_take(&other, NULL, &total, 0), 0);
    cr_assert_eq(total_refused, 1);
    cr_assert_eq(other_refused, 0);
    cr_assert_eq(other.taken, 1);
}

/* A charged start (a CAAI engine's) is never refused, but its debt is paid
 * by the starts that wait, and a bucket owes at most a second's worth. */
Test(spawn_budget, charges_are_never_refused_and_owe_at_most_a_second)
{
    ddz_spawn_budget b;
    ddz_spawn_budget_init(&b, 5, 0, NULL);
    for (int i = 0; i < 100; i++)
        ddz_spawn_budget_charge(NULL, NULL, &b, 0);
    cr_assert_eq(b.taken, 100);
    cr_assert_not(ddz_spawn_budget_has(&b, 0));
    int64_t wait = ddz_spawn_budget_take(NULL, NULL, &b, 0);
    cr_assert_gt(wait, S, "the debt is not paid by the next start");
    cr_assert_leq(wait, 2 * S / 5 * 5 + 1, "owes more than a second's worth");
    cr_assert(ddz_spawn_budget_has(&b, wait));
}

/* Rate 0 is no bound; a clock that goes back adds no tokens. */
Test(spawn_budget, unbounded_and_a_clock_going_back)
{
    ddz_spawn_budget free_, b;
    ddz_spawn_budget_init(&free_, 0, 0, NULL);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(ddz_spawn_budget_take(&free_, NULL, NULL, 0), 0);
    cr_assert_eq(ddz_spawn_budget_used(&free_, 0), 0);
    ddz_spawn_budget_init(&b, 1, 10 * S, NULL);
    cr_assert_eq(ddz_spawn_budget_take(NULL, NULL, &b, 10 * S), 0);
    cr_assert_gt(ddz_spawn_budget_take(NULL, NULL, &b, 5 * S), 0);
    cr_assert_eq(ddz_spawn_budget_take(NULL, NULL, &b, 11 * S), 0);
}

/* A start from an address at its rate is refused, whatever its room and
 * the server hold: another address still starts, and the refusal counts
 * against the address's bucket only. */
Test(spawn_budget, an_address_at_its_rate_waits_and_others_do_not)
{
    long addr_refused = 0, total_refused = 0, room_refused = 0;
    ddz_spawn_budget a, other, total, room;
    ddz_spawn_budget_init(&a, 2, 0, &addr_refused);
    ddz_spawn_budget_init(&other, 2, 0, &addr_refused);
    ddz_spawn_budget_init(&total, 50, 0, &total_refused);
    ddz_spawn_budget_init(&room, 10, 0, &room_refused);
    ddz_spawn_budget_charge(&room, &a, &total, 0); /* a room's two CAAI engines */
    ddz_spawn_budget_charge(&room, &a, &total, 0);
    cr_assert_not(ddz_spawn_budget_has(&a, 0));
    int64_t wait = ddz_spawn_budget_take(&room, &a, &total, 0);
    cr_assert_gt(wait, 0);
    cr_assert_leq(wait, S / 2 + 1, "waits %lld us for the address's token", (long long)wait);
    cr_assert_eq(addr_refused, 1);
    cr_assert_eq(total_refused + room_refused, 0);
    cr_assert_eq(total.taken, 2, "a refused start spent the server's token");
    cr_assert_eq(ddz_spawn_budget_take(&room, &other, &total, 0), 0, "another address waits");
    cr_assert_eq(ddz_spawn_budget_take(&room, &a, &total, wait), 0);
    cr_assert_eq(a.taken, 3);
}
