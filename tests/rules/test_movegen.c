/* test_movegen.c - the generator against brute force, under every rule set.
 *
 * The reference enumerates every sub-multiset of the hand, classifies it with
 * the constructive twin (combo_ref.h, independent of rules/combo.c) and keeps
 * the ones that lead or beat the last play. The generator must produce
 * exactly that set, each play once, each with its correct classification.
 * DDZ_TEST_SCALE=k divides the number of positions by k (the sanitizer
 * build uses it; the plain build runs the full 100,000+ under caai and
 * 40,000 under each Botzone rule set).
 *
 * Since issue 26 the generator is also compared with its own earlier
 * version (movegen_ref.h): the same moves, with the same combos, in the same
 * order, the same count and the same DDZ_ENOSPC for small buffers, on
 * millions of positions (same_moves_in_the_same_order_as_before).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "test_scale.h"
#include "test_clock.h"
#include "ai/rng.h"
#include "combo_ref.h"
#include "movegen_ref.h"
#include "rules/error.h"
#include "rules/movegen.h"

static ref_table table;
static const ddz_rules *rules = &ddz_rules_caai; /* the rule set `table` was built for */
static ddz_move out[DDZ_MOVES_MAX];
static ddz_ranks ref_moves[1 << 18];

static void setup(void)
{
    if (!table.n)
        ref_build(&table, &ddz_rules_caai);
}

/* Rebuilds `table` for `rs`. */
static void use_rules(const ddz_rules *rs)
{
    free(table.v);
    ref_build(&table, rs);
    rules = rs;
}

static int cmp_u64(const void *a, const void *b)
{
    ddz_ranks x = *(const ddz_ranks *)a, y = *(const ddz_ranks *)b;
    return x < y ? -1 : x > y;
}

static void check(ddz_ranks hand, const ddz_combo *last, long *total)
{
    int n = ddz_movegen(rules, hand, last, out, DDZ_MOVES_MAX);
    cr_assert_geq(n, 0, "movegen failed: %d", n);
    int m = ref_brute_moves(&table, hand, last, ref_moves);
    static ddz_ranks got[DDZ_MOVES_MAX];
    for (int i = 0; i < n; i++) {
        got[i] = out[i].ranks;
        ddz_combo want =
            out[i].ranks ? ref_classify(&table, out[i].ranks) : (ddz_combo){.type = DDZ_PASS};
        cr_assert(memcmp(&want, &out[i].combo, sizeof want) == 0,
                  "move %015llx carries the wrong combo", (unsigned long long)out[i].ranks);
    }
    qsort(got, (size_t)n, sizeof got[0], cmp_u64);
    qsort(ref_moves, (size_t)m, sizeof ref_moves[0], cmp_u64);
    for (int i = 1; i < n; i++)
        cr_assert_neq(got[i], got[i - 1], "duplicate move %015llx for hand %015llx",
                      (unsigned long long)got[i], (unsigned long long)hand);
    if (n != m || memcmp(got, ref_moves, (size_t)n * sizeof got[0]) != 0) {
        int i = 0;
        while (i < n && i < m && got[i] == ref_moves[i])
            i++;
        cr_assert_fail("%s: hand %015llx last %s r%d l%d: %d moves, brute force %d; first "
                       "difference at %d: got %015llx want %015llx",
                       rules->name, (unsigned long long)hand,
                       last ? ddz_type_name(last->type) : "lead", last ? last->rank : 0,
                       last ? last->length : 0, n, m, i, (unsigned long long)(i < n ? got[i] : 0),
                       (unsigned long long)(i < m ? ref_moves[i] : 0));
    }
    if (n == 0 && !last)
        cr_assert_eq(hand, 0);
    *total += n;
}

/* A random hand: either uniform over the deck, or built from ranks with
 * counts 3 and 4 favoured (planes, four_two, bombs) and the jokers often. */
static ddz_ranks random_hand(ddz_rng *r)
{
    int size = 1 + (int)ddz_rng_below(r, DDZ_HAND_MAX);
    ddz_ranks m = 0;
    int n = 0;
    if (ddz_rng_below(r, 2)) {
        ddz_cards c = 0;
        while (n < size) {
            int code = (int)ddz_rng_below(r, DDZ_NCARDS);
            if (!(c >> code & 1))
                c |= 1ULL << code, n++;
        }
        return ddz_cards_ranks(c);
    }
    if (ddz_rng_below(r, 2) && size >= 2) {
        m = ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1);
        n = 2;
    }
    while (n < size) {
        int rank = (int)ddz_rng_below(r, 13);
        int want = 2 + (int)ddz_rng_below(r, 3), have = ddz_ranks_get(m, rank);
        if (want > 4 - have)
            want = 4 - have;
        if (want > size - n)
            want = size - n;
        m = ddz_ranks_add(m, rank, want);
        n += want;
    }
    return m;
}

/* `positions` random positions under the rule set of `table`; returns the
 * number of moves generated. */
static long random_positions(int positions, uint64_t seed)
{
    ddz_rng r;
    ddz_rng_seed(&r, seed);
    long total = 0;
    for (int i = 0; i < positions; i++) {
        ddz_ranks hand = random_hand(&r);
        if (i % 3 == 0) {
            check(hand, NULL, &total);
        } else {
            /* follow a random legal combination (any type, any rank) */
            ddz_combo last = table.v[ddz_rng_below(&r, (uint32_t)table.n)].combo;
            if (i % 3 == 2) {
                /* or a play another random hand could lead: common shapes */
                ddz_ranks other = random_hand(&r);
                int k = ddz_movegen(rules, other, NULL, out, DDZ_MOVES_MAX);
                if (k > 0)
                    last = out[ddz_rng_below(&r, (uint32_t)k)].combo;
            }
            check(hand, &last, &total);
        }
    }
    cr_log_info("%s: %d positions, %ld moves", rules->name, positions, total);
    cr_assert_gt(total, positions);
    return total;
}

Test(movegen, matches_brute_force_on_random_positions, .init = setup, .timeout = HANG(900))
{
    random_positions(100000 / test_scale(), 2024);
}

Test(movegen, botzone_matches_brute_force_on_random_positions, .timeout = HANG(900))
{
    use_rules(&ddz_rules_botzone_ftl);
    random_positions(40000 / test_scale(), 2025);
    use_rules(&ddz_rules_botzone_ftl2);
    random_positions(40000 / test_scale(), 2026);
}

/* Hands of fours in a row with wings around: every quad straight, led and
 * followed, against brute force. */
Test(movegen, botzone_quad_straights, .timeout = HANG(300))
{
    use_rules(&ddz_rules_botzone_ftl);
    ddz_rng r;
    ddz_rng_seed(&r, 44);
    long total = 0;
    int quads = 0;
    for (int i = 0; i < 2000 / test_scale() + 20; i++) {
        int len = 2 + (int)ddz_rng_below(&r, 2), lo = (int)ddz_rng_below(&r, 12 - len);
        ddz_ranks hand = 0;
        for (int q = lo; q < lo + len; q++)
            hand = ddz_ranks_add(hand, q, 4);
        while (ddz_ranks_total(hand) < DDZ_HAND_MAX) {
            int rank = (int)ddz_rng_below(&r, DDZ_NRANKS);
            if (ddz_ranks_get(hand, rank) < (rank >= DDZ_RANK_SJ ? 1 : 2))
                hand = ddz_ranks_add(hand, rank, 1);
        }
        int n = ddz_movegen(rules, hand, NULL, out, DDZ_MOVES_MAX);
        cr_assert_gt(n, 0);
        int k = 0;
        ddz_combo last = {.type = DDZ_INVALID};
        for (int j = 0; j < n; j++)
            if (out[j].combo.type == DDZ_QUAD_STRAIGHT && ddz_rng_below(&r, ++k) == 0)
                last = out[j].combo;
        quads += k;
        check(hand, NULL, &total);
        if (last.type == DDZ_QUAD_STRAIGHT) {
            last.rank = (uint8_t)(last.rank - 1 - ddz_rng_below(&r, 2)); /* something to beat */
            check(hand, &last, &total);
        }
    }
    cr_log_info("%d quad straights among %ld moves", quads, total);
    cr_assert_gt(quads, 1000);
}

Test(movegen, known_positions, .init = setup)
{
    long total = 0;
    /* full house of trios and fours, both jokers: the richest leads */
    ddz_ranks rich = 0;
    for (int r = 0; r < 6; r++)
        rich = ddz_ranks_add(rich, r, r % 2 ? 4 : 3);
    rich = ddz_ranks_add(ddz_ranks_add(rich, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1);
    check(rich, NULL, &total);
    ddz_combo plane = {DDZ_PLANE, 1, 2, DDZ_KICK_SINGLE, 8};
    check(rich, &plane, &total);
    /* a rocket can only be passed */
    ddz_combo rocket = {DDZ_ROCKET, 14, 1, 0, 2};
    int n = ddz_movegen(&ddz_rules_caai, rich, &rocket, out, DDZ_MOVES_MAX);
    cr_assert_eq(n, 1);
    cr_assert_eq(out[0].ranks, 0);
    /* a single card leads exactly itself */
    n = ddz_movegen(&ddz_rules_caai, ddz_ranks_add(0, 5, 1), NULL, out, DDZ_MOVES_MAX);
    cr_assert_eq(n, 1);
    cr_assert_eq(out[0].combo.type, DDZ_SINGLE);
}

Test(movegen, reports_a_full_buffer)
{
    ddz_ranks hand = 0;
    for (int r = 0; r < 10; r++)
        hand = ddz_ranks_add(hand, r, 2);
    int all = ddz_movegen(&ddz_rules_caai, hand, NULL, out, DDZ_MOVES_MAX);
    cr_assert_gt(all, 3);
    cr_assert_eq(ddz_movegen(&ddz_rules_caai, hand, NULL, out, 3), DDZ_ENOSPC);
}

static void can_beat_agrees(void)
{
    ddz_rng r;
    ddz_rng_seed(&r, 5);
    for (int i = 0; i < 20000; i++) {
        ddz_ranks hand = random_hand(&r);
        ddz_combo last = table.v[ddz_rng_below(&r, (uint32_t)table.n)].combo;
        int n = ddz_movegen(rules, hand, &last, out, DDZ_MOVES_MAX);
        cr_assert_eq(ddz_movegen_can_beat(rules, hand, last), n > 1, "%s", rules->name);
    }
}

Test(movegen, can_beat_agrees_with_the_list, .init = setup)
{
    can_beat_agrees();
    use_rules(&ddz_rules_botzone_ftl2);
    can_beat_agrees();
}

Test(movegen, distinct_kicker_rule_set_matches_its_brute_force)
{
    ddz_rules distinct = ddz_rules_caai;
    distinct.kickers_may_repeat = 0;
    ref_table t;
    ref_build(&t, &distinct);
    ddz_rng r;
    ddz_rng_seed(&r, 77);
    for (int i = 0; i < 5000 / test_scale() + 50; i++) {
        ddz_ranks hand = random_hand(&r);
        int n = ddz_movegen(&distinct, hand, NULL, out, DDZ_MOVES_MAX);
        int m = 0;
        int c[DDZ_NRANKS], k[DDZ_NRANKS] = {0};
        for (int q = 0; q < DDZ_NRANKS; q++)
            c[q] = ddz_ranks_get(hand, q);
        for (;;) {
            ddz_ranks x = 0;
            for (int q = 0; q < DDZ_NRANKS; q++)
                x = ddz_ranks_add(x, q, k[q]);
            if (x && ref_classify(&t, x).type != DDZ_INVALID)
                m++;
            int q = 0;
            while (q < DDZ_NRANKS && k[q] == c[q])
                k[q++] = 0;
            if (q == DDZ_NRANKS)
                break;
            k[q]++;
        }
        cr_assert_eq(n, m, "hand %015llx", (unsigned long long)hand);
    }
    free(t.v);
}

/* ---------------------------------------------------------------------- */
/* The generator against the one before issue 26 (movegen_ref.h).          */

static ddz_move ref_out[DDZ_MOVES_MAX];

static bool same_move(const ddz_move *a, const ddz_move *b)
{
    return a->ranks == b->ranks && a->combo.type == b->combo.type &&
           a->combo.rank == b->combo.rank && a->combo.length == b->combo.length &&
           a->combo.kicker == b->combo.kicker && a->combo.size == b->combo.size;
}

/* Both generators on one position, with the full buffer and with `cap`;
 * returns the number of moves (the full list stays in out[]). */
static int same_as_before(const ddz_rules *rs, ddz_ranks hand, const ddz_combo *last, size_t cap)
{
    int n = ddz_movegen(rs, hand, last, out, DDZ_MOVES_MAX);
    int m = mref_movegen(rs, hand, last, ref_out, DDZ_MOVES_MAX);
    if (n != m) {
        cr_assert_fail("%s: hand %015llx %s type %d r%d l%d k%d: %d moves, before %d", rs->name,
                       (unsigned long long)hand, last ? "follows" : "leads", last ? last->type : 0,
                       last ? last->rank : 0, last ? last->length : 0, last ? last->kicker : 0, n,
                       m);
    }
    for (int i = 0; i < n; i++)
        if (!same_move(&out[i], &ref_out[i]))
            cr_assert_fail("%s: hand %015llx %s type %d r%d: move %d is %015llx (type %d), "
                           "before %015llx (type %d)",
                           rs->name, (unsigned long long)hand, last ? "follows" : "leads",
                           last ? last->type : 0, last ? last->rank : 0, i,
                           (unsigned long long)out[i].ranks, out[i].combo.type,
                           (unsigned long long)ref_out[i].ranks, ref_out[i].combo.type);
    if (last && last->type != DDZ_PASS)
        cr_assert_eq(ddz_movegen_can_beat(rs, hand, *last), mref_can_beat(rs, hand, *last),
                     "%s: can_beat differs for hand %015llx", rs->name, (unsigned long long)hand);
    if (cap < (size_t)n) {
        static ddz_move few[DDZ_MOVES_MAX], ref_few[DDZ_MOVES_MAX];
        int a = ddz_movegen(rs, hand, last, few, cap);
        int b = mref_movegen(rs, hand, last, ref_few, cap);
        cr_assert_eq(a, b, "%s: with room for %zu moves: %d, before %d", rs->name, cap, a, b);
        for (size_t i = 0; i < cap; i++)
            cr_assert(same_move(&few[i], &ref_few[i]), "%s: move %zu of %zu differs", rs->name, i,
                      cap);
    }
    return n;
}

/* `last` with its main rank lowered by 0..2 (not below the lowest its shape
 * allows), so that the hand that led it has something to beat it with. */
static ddz_combo lowered(ddz_rng *r, ddz_combo c)
{
    int floor = c.length > 1 ? c.length - 1 : 0, down = (int)ddz_rng_below(r, 3);
    c.rank = (uint8_t)(c.rank - down < floor ? floor : c.rank - down);
    return c;
}

/* `positions` random hands under `rs`: each leads, then follows a play of
 * its own lead list lowered (every shape it holds), a play another random
 * hand leads, a bomb and, sometimes, a rocket; each comparison also with a
 * random small buffer. Returns the number of positions compared. */
static long same_positions(const ddz_rules *rs, int positions, uint64_t seed)
{
    static ddz_move lead_moves[DDZ_MOVES_MAX];
    ddz_rng r;
    ddz_rng_seed(&r, seed);
    long compared = 0, moves = 0;
    for (int i = 0; i < positions; i++) {
        ddz_ranks hand = random_hand(&r);
        int n = same_as_before(rs, hand, NULL, ddz_rng_below(&r, 64));
        compared++;
        moves += n;
        memcpy(lead_moves, out, (size_t)n * sizeof out[0]);
        for (int f = 0; f < 2 && n > 0; f++) {
            ddz_combo last = lowered(&r, lead_moves[ddz_rng_below(&r, (uint32_t)n)].combo);
            moves += same_as_before(rs, hand, &last, ddz_rng_below(&r, 16));
            compared++;
        }
        ddz_ranks other = random_hand(&r);
        int k = ddz_movegen(rs, other, NULL, lead_moves, DDZ_MOVES_MAX);
        if (k > 0) {
            ddz_combo last = lead_moves[ddz_rng_below(&r, (uint32_t)k)].combo;
            moves += same_as_before(rs, hand, &last, ddz_rng_below(&r, 16));
            compared++;
        }
        if (i % 8 == 0) {
            ddz_combo bomb = {DDZ_BOMB, (uint8_t)ddz_rng_below(&r, 13), 1, DDZ_KICK_NONE, 4};
            ddz_combo rocket = {DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2};
            moves += same_as_before(rs, hand, i % 16 ? &bomb : &rocket, 2);
            compared++;
        }
    }
    cr_log_info("%s: %ld positions, %ld moves, the same as before", rs->name, compared, moves);
    return compared;
}

/* Any 15 nibbles: more than four of a rank, two of a joker, 21+ cards. No
 * deck deals these, but the generator takes any ddz_ranks and must still
 * answer as before. */
static ddz_ranks odd_hand(ddz_rng *r)
{
    ddz_ranks m = 0;
    int ranks = 1 + (int)ddz_rng_below(r, 8);
    for (int i = 0; i < ranks; i++) {
        int rank = (int)ddz_rng_below(r, DDZ_NRANKS);
        m = (m & ~(0xFULL << (4 * rank))) | ((ddz_ranks)ddz_rng_below(r, 16) << (4 * rank));
    }
    return m;
}

Test(movegen, same_moves_in_the_same_order_as_before, .init = setup, .timeout = HANG(900))
{
    ddz_rules distinct = ddz_rules_caai, both = ddz_rules_caai;
    distinct.kickers_may_repeat = 0; /* caai's shapes with Botzone's kicker rule */
    both.quad_straight = 1;          /* quad straights whose kickers may repeat */
    distinct.name = "caai, distinct kickers";
    both.name = "caai, quad straights";
    long compared = 0;
    compared += same_positions(&ddz_rules_caai, scaled(1000000, 20000), 1);
    compared += same_positions(&ddz_rules_botzone_ftl, scaled(300000, 10000), 2);
    compared += same_positions(&ddz_rules_botzone_ftl2, scaled(100000, 5000), 3);
    compared += same_positions(&distinct, scaled(100000, 5000), 4);
    compared += same_positions(&both, scaled(100000, 5000), 5);

    /* every shape any table of combinations holds, as the play to beat */
    ddz_rng r;
    ddz_rng_seed(&r, 6);
    for (int i = 0; i < scaled(200000, 5000); i++) {
        ddz_ranks hand = random_hand(&r);
        ddz_combo last = table.v[ddz_rng_below(&r, (uint32_t)table.n)].combo;
        same_as_before(&ddz_rules_caai, hand, &last, ddz_rng_below(&r, 8));
        compared++;
    }
    for (int i = 0; i < scaled(50000, 2000); i++) {
        const ddz_rules *rs = i % 2 ? &ddz_rules_caai : &both;
        ddz_ranks hand = odd_hand(&r);
        same_as_before(rs, hand, NULL, DDZ_MOVES_MAX);
        ddz_combo last = table.v[ddz_rng_below(&r, (uint32_t)table.n)].combo;
        same_as_before(rs, hand, &last, DDZ_MOVES_MAX);
        compared += 2;
    }
    cr_log_info("%ld positions compared", compared);
}
