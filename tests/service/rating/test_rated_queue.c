/* test_rated_queue.c - rated quick play's pairing: three people close in
 * rating play at once, far ones only once their windows have widened, the
 * longest waiter first, AIs (the nearest, distinct) fill after the wait,
 * and the bounds. */
#include <criterion/criterion.h>
#include <math.h>

#include "rules/error.h"
#include "service/rating/rated_queue.h"

#define S INT64_C(1000000) /* a second, in µs */

static ddz_rated_queue *queue(int nais, int cap)
{
    ddz_rated_queue_cfg c;
    ddz_rated_queue_cfg_default(&c);
    c.nais = nais;
    const double r[3] = {1800, 1500, 1200};
    for (int i = 0; i < nais; i++) {
        c.ai[i] = -1 - i;
        c.ai_rating[i] = r[i];
    }
    ddz_rated_queue *q = ddz_rated_queue_create(&c, cap);
    cr_assert_not_null(q);
    return q;
}

static bool has(const ddz_rated_match *m, int64_t who)
{
    for (int i = 0; i < 3; i++)
        if (m->player[i] == who)
            return true;
    return false;
}

Test(rated_queue, window_widens_to_its_cap)
{
    ddz_rated_queue_cfg c;
    ddz_rated_queue_cfg_default(&c);
    cr_expect_float_eq(ddz_rated_queue_window(&c, 0), 100.0, 1e-9);
    cr_expect_float_eq(ddz_rated_queue_window(&c, 10 * S), 200.0, 1e-9);
    cr_expect_float_eq(ddz_rated_queue_window(&c, 3600 * S), 500.0, 1e-9);
}

Test(rated_queue, three_close_people_play_at_once)
{
    ddz_rated_queue *q = queue(3, 16);
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 2, 1560, 0), 0);
    ddz_rated_match m;
    cr_expect_eq(ddz_rated_queue_match(q, 0, &m), 0, "two people are no game");
    cr_assert_eq(ddz_rated_queue_add(q, 3, 1480, 0), 0);
    cr_assert_eq(ddz_rated_queue_match(q, 0, &m), 1);
    cr_expect_eq(m.people, 3);
    cr_expect_eq(m.player[0], 1, "the longest waiter first");
    cr_expect(has(&m, 2) && has(&m, 3));
    cr_expect(!m.ai[0] && !m.ai[1] && !m.ai[2]);
    cr_expect_eq(ddz_rated_queue_len(q), 0);
    cr_expect_eq(ddz_rated_queue_match(q, 0, &m), 0);
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, far_ratings_wait_until_windows_widen)
{
    ddz_rated_queue *q = queue(0, 16); /* no AIs: only people */
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 2, 1700, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 3, 1600, 0), 0);
    ddz_rated_match m;
    /* spread 200: windows of 100 refuse it; at 10 s they are 200 wide */
    cr_expect_eq(ddz_rated_queue_match(q, 9 * S, &m), 0);
    cr_assert_eq(ddz_rated_queue_match(q, 10 * S, &m), 1);
    cr_expect_eq(m.people, 3);
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, a_newcomer_narrows_the_match_of_the_others)
{
    /* the window is each one's own: someone who just came does not accept
     * a distant rating however long the others have waited */
    ddz_rated_queue *q = queue(0, 16);
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 2, 1500, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 3, 1900, 60 * S), 0);
    ddz_rated_match m;
    cr_expect_eq(ddz_rated_queue_match(q, 60 * S, &m), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 4, 1540, 60 * S), 0);
    cr_assert_eq(ddz_rated_queue_match(q, 60 * S, &m), 1);
    cr_expect(has(&m, 1) && has(&m, 2) && has(&m, 4));
    cr_expect_eq(ddz_rated_queue_len(q), 1);
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, ais_fill_after_the_wait_nearest_and_distinct)
{
    ddz_rated_queue *q = queue(3, 16);
    cr_assert_eq(ddz_rated_queue_add(q, 7, 1750, 0), 0);
    ddz_rated_match m;
    cr_expect_eq(ddz_rated_queue_match(q, 19 * S, &m), 0, "not before the fill wait");
    cr_assert_eq(ddz_rated_queue_match(q, 20 * S, &m), 1);
    cr_expect_eq(m.people, 1);
    cr_expect_eq(m.player[0], 7);
    cr_expect(m.ai[1] && m.ai[2]);
    /* 1750: nearest 1800 (-1), then 1500 (-2) */
    cr_expect_eq(m.player[1], -1);
    cr_expect_eq(m.player[2], -2);
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, two_people_and_one_ai_after_the_wait)
{
    ddz_rated_queue *q = queue(3, 16);
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1200, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 2, 1250, 0), 0);
    ddz_rated_match m;
    cr_assert_eq(ddz_rated_queue_match(q, 20 * S, &m), 1);
    cr_expect_eq(m.people, 2);
    cr_expect(has(&m, 1) && has(&m, 2));
    cr_expect(m.ai[2]);
    cr_expect_eq(m.player[2], -3, "the AI nearest 1200");
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, no_ais_no_fill)
{
    ddz_rated_queue *q = queue(1, 16); /* one AI cannot fill two seats */
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    ddz_rated_match m;
    cr_expect_eq(ddz_rated_queue_match(q, 3600 * S, &m), 0);
    cr_expect_eq(ddz_rated_queue_len(q), 1);
    ddz_rated_queue_destroy(q);
}

Test(rated_queue, bounds_and_bad_arguments)
{
    ddz_rated_queue *q = queue(3, 2);
    cr_expect_eq(ddz_rated_queue_add(q, 0, 1500, 0), DDZ_EINVAL);
    cr_expect_eq(ddz_rated_queue_add(q, 1, NAN, 0), DDZ_EINVAL);
    cr_expect_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    cr_expect_eq(ddz_rated_queue_add(q, 1, 1500, 5 * S), DDZ_EEXIST);
    cr_expect_eq(ddz_rated_queue_add(q, 2, 1500, 0), 0);
    cr_expect_eq(ddz_rated_queue_add(q, 3, 1500, 0), DDZ_ENOSPC);
    cr_expect(ddz_rated_queue_remove(q, 1));
    cr_expect(!ddz_rated_queue_remove(q, 1));
    cr_expect_eq(ddz_rated_queue_len(q), 1);
    cr_expect_eq(ddz_rated_queue_add(q, 3, 1500, 0), 0);
    ddz_rated_queue_destroy(q);
    ddz_rated_queue_cfg c;
    ddz_rated_queue_cfg_default(&c);
    cr_expect_null(ddz_rated_queue_create(&c, 0));
    c.nais = 4;
    cr_expect_null(ddz_rated_queue_create(&c, 8));
}

Test(rated_queue, the_longest_waiter_is_served_first)
{
    /* two possible games share person 2; the older waiter 1's is made */
    ddz_rated_queue *q = queue(0, 16);
    cr_assert_eq(ddz_rated_queue_add(q, 1, 1500, 0), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 2, 1560, 1 * S), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 3, 1620, 2 * S), 0);
    cr_assert_eq(ddz_rated_queue_add(q, 4, 1530, 3 * S), 0);
    ddz_rated_match m;
    cr_assert_eq(ddz_rated_queue_match(q, 3 * S, &m), 1);
    cr_expect_eq(m.player[0], 1);
    cr_expect(has(&m, 4) && has(&m, 2), "1's nearest: 1530 and 1560");
    cr_expect_eq(ddz_rated_queue_len(q), 1);
    ddz_rated_queue_destroy(q);
}

/* The AIs' ratings move with their games: the filler follows them. */
Test(rated_queue, ai_ratings_may_move)
{
    ddz_rated_queue *q = queue(3, 16);
    /* ai:random (-3) now the strongest: 1750 is nearest it, then 1800 */
    cr_assert_eq(ddz_rated_queue_set_ai_rating(q, -3, 1760), 0);
    cr_expect_eq(ddz_rated_queue_set_ai_rating(q, -4, 1760), DDZ_ENOTFOUND);
    cr_expect_eq(ddz_rated_queue_set_ai_rating(q, -1, NAN), DDZ_EINVAL);
    cr_assert_eq(ddz_rated_queue_add(q, 7, 1750, 0), 0);
    ddz_rated_match m;
    cr_assert_eq(ddz_rated_queue_match(q, 20 * S, &m), 1);
    cr_expect_eq(m.player[1], -3);
    cr_expect_eq(m.player[2], -1);
    ddz_rated_queue_destroy(q);
}
