/* test_combo.c - the classifier against its constructive twin (combo_ref.h)
 * under every rule set, against the examples and decisions of spec §4, and
 * against the seed 002 examples of spec §8 in combos.txt. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "ai/rng.h"
#include "combo_ref.h"
#include "movegen_ref.h"
#include "proto/text.h"
#include "rules/combo.h"

static ref_table table;

static void setup(void)
{
    if (!table.n)
        ref_build(&table, &ddz_rules_caai);
}

static const ddz_rules *const all_rules[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl,
                                             &ddz_rules_botzone_ftl2};

static ddz_combo classify_codes(const char *codes)
{
    ddz_cards c;
    cr_assert_eq(ddz_text_parse_cards(codes, &c, NULL, 0), 0, "bad codes %s", codes);
    return ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(c));
}

static void expect(const char *codes, int type, int rank, int length, int kicker)
{
    ddz_combo c = classify_codes(codes);
    cr_expect_eq(c.type, type, "%s: type %s, want %s", codes, ddz_type_name(c.type),
                 ddz_type_name(type));
    if (type == DDZ_INVALID)
        return;
    cr_expect_eq(c.rank, rank, "%s: rank %d, want %d", codes, c.rank, rank);
    cr_expect_eq(c.length, length, "%s: length %d, want %d", codes, c.length, length);
    cr_expect_eq(c.kicker, kicker, "%s: kicker %d, want %d", codes, c.kicker, kicker);
}

/* Rank r's codes start at 4r: "0,1,2" is three 3s, "4,5,6" three 4s. */
Test(combo, each_type_from_the_seed_table)
{
    expect("52,53", DDZ_ROCKET, 14, 1, DDZ_KICK_NONE);
    expect("0,1,2,3", DDZ_BOMB, 0, 1, DDZ_KICK_NONE);
    expect("48,49,50,51", DDZ_BOMB, 12, 1, DDZ_KICK_NONE);
    expect("53", DDZ_SINGLE, 14, 1, DDZ_KICK_NONE);
    expect("8", DDZ_SINGLE, 2, 1, DDZ_KICK_NONE);
    expect("8,9", DDZ_PAIR, 2, 1, DDZ_KICK_NONE);
    expect("8,9,10", DDZ_TRIO, 2, 1, DDZ_KICK_NONE);
    expect("8,9,10,52", DDZ_TRIO_KICKER, 2, 1, DDZ_KICK_SINGLE);
    expect("8,9,10,0,1", DDZ_TRIO_KICKER, 2, 1, DDZ_KICK_PAIR);
    expect("0,4,8,12,16", DDZ_STRAIGHT, 4, 5, DDZ_KICK_NONE);
    expect("0,4,8,12,16,20,24,28,32,36,40,44", DDZ_STRAIGHT, 11, 12, DDZ_KICK_NONE);
    expect("0,1,4,5,8,9", DDZ_PAIR_STRAIGHT, 2, 3, DDZ_KICK_NONE);
    expect("0,1,2,4,5,6", DDZ_TRIO_STRAIGHT, 1, 2, DDZ_KICK_NONE);
    expect("0,1,2,4,5,6,8,12", DDZ_PLANE, 1, 2, DDZ_KICK_SINGLE);
    expect("0,1,2,4,5,6,8,9,12,13", DDZ_PLANE, 1, 2, DDZ_KICK_PAIR);
    expect("0,1,2,3,8,12", DDZ_FOUR_TWO, 0, 1, DDZ_KICK_SINGLE);
    expect("0,1,2,3,8,9,12,13", DDZ_FOUR_TWO, 0, 1, DDZ_KICK_PAIR);
}

Test(combo, chains_stop_at_ace_and_have_length_limits)
{
    expect("32,36,40,44,48", DDZ_INVALID, 0, 0, 0);           /* 10 J Q K 2 */
    expect("28,32,36,40,44", DDZ_STRAIGHT, 11, 5, 0);         /* 9..A */
    expect("0,4,8,12", DDZ_INVALID, 0, 0, 0);                 /* 4 in a row is too short */
    expect("0,1,4,5", DDZ_INVALID, 0, 0, 0);                  /* 2 pairs */
    expect("40,41,42,44,45,46", DDZ_TRIO_STRAIGHT, 11, 2, 0); /* KKKAAA */
    expect("44,45,46,48,49,50", DDZ_INVALID, 0, 0, 0);        /* AAA222 */
    expect("0,4,8,16,20", DDZ_INVALID, 0, 0, 0);              /* gap */
    expect("48,52,53,0,4", DDZ_INVALID, 0, 0, 0);
}

Test(combo, kicker_rules_of_seed_and_decisions)
{
    expect("4,5,6,8,9,10,20,21", DDZ_PLANE, 2, 2, DDZ_KICK_SINGLE);        /* 444555+7+7 */
    expect("8,9,10,12,13,14,24,25,26,27", DDZ_PLANE, 3, 2, DDZ_KICK_PAIR); /* 555666+99+99 */
    expect("0,1,2,3,8,9", DDZ_FOUR_TWO, 0, 1, DDZ_KICK_SINGLE);            /* 3333+5+5 */
    /* 4444+99+99 is legal, and read as 9999+44+44: the highest main rank */
    expect("4,5,6,7,24,25,26,27", DDZ_FOUR_TWO, 6, 1, DDZ_KICK_PAIR);
    expect("0,1,2,3,52,53", DDZ_FOUR_TWO, 0, 1, DDZ_KICK_SINGLE);   /* 3333+SJ+BJ */
    expect("4,5,6,7,24,25,8,9", DDZ_FOUR_TWO, 1, 1, DDZ_KICK_PAIR); /* 4444+99+55 */
    /* a kicker never shares a rank with its trios or four */
    expect("0,1,2,4,5,6,3,8", DDZ_INVALID, 0, 0, 0);              /* 333444+3+5 */
    expect("0,1,2,3,4,5,6,7", DDZ_FOUR_TWO, 1, 1, DDZ_KICK_PAIR); /* 33334444 = 4444+33+33 */
    expect("0,1,2,3,4", DDZ_INVALID, 0, 0, 0);                    /* 3333+4 */
    expect("0,1,2,3,4,5,6", DDZ_INVALID, 0, 0, 0);                /* 3333+444 */
    /* jokers are never a pair, but may be single kickers */
    expect("0,1,2,52,53", DDZ_INVALID, 0, 0, 0); /* 333 + "pair" of jokers */
    expect("0,1,2,52", DDZ_TRIO_KICKER, 0, 1, DDZ_KICK_SINGLE);
    expect("0,1,2,4,5,6,52,53", DDZ_PLANE, 1, 2, DDZ_KICK_SINGLE);
    expect("0,1,2,3,4,5,52,53", DDZ_INVALID, 0, 0, 0); /* 3333 + 44 + jokers */
    expect("0,1,2,4,5,6,8,9,52,53", DDZ_INVALID, 0, 0, 0);
}

Test(combo, ambiguous_readings_take_the_highest_main_rank)
{
    /* 333444555+666 would be a plane of 3 with kickers 666, but four trios
     * in a row are a trio straight, which comes first in the order. */
    expect("0,1,2,4,5,6,8,9,10,12,13,14", DDZ_TRIO_STRAIGHT, 3, 4, 0);
    /* 333 555666777: chain 5..7, kickers 333 */
    expect("0,1,2,8,9,10,12,13,14,16,17,18", DDZ_PLANE, 4, 3, DDZ_KICK_SINGLE);
    /* 333444555666 + 888 + 9: planes 3..6 (kickers 8889) */
    expect("0,1,2,4,5,6,8,9,10,12,13,14,20,21,22,24", DDZ_PLANE, 3, 4, DDZ_KICK_SINGLE);
    /* 333444555666 777 8: 4 trios + 4 singles: chain 4..7 beats chain 3..6 */
    expect("0,1,2,4,5,6,8,9,10,12,13,14,16,17,18,20", DDZ_PLANE, 4, 4, DDZ_KICK_SINGLE);
    /* 20 cards, five trios + five singles */
    expect("0,1,2,4,5,6,8,9,10,12,13,14,16,17,18,20,24,28,32,36", DDZ_PLANE, 4, 5, DDZ_KICK_SINGLE);
    /* 20 cards, four trios + four pairs */
    expect("0,1,2,4,5,6,8,9,10,12,13,14,20,21,24,25,28,29,32,33", DDZ_PLANE, 3, 4, DDZ_KICK_PAIR);
}

Test(combo, pass_and_impossible_multisets)
{
    cr_assert_eq(ddz_combo_classify(&ddz_rules_caai, 0).type, DDZ_PASS);
    /* two small jokers do not exist */
    cr_assert_eq(ddz_combo_classify(&ddz_rules_caai, ddz_ranks_add(0, 13, 2)).type, DDZ_INVALID);
    /* five 3s do not exist */
    cr_assert_eq(ddz_combo_classify(&ddz_rules_caai, ddz_ranks_add(0, 0, 5)).type, DDZ_INVALID);
}

/* Every play the twin builds under `rs` is read as the twin reads it. */
static size_t twin_agrees(const ddz_rules *rs, const ref_table *t)
{
    size_t quads = 0;
    for (size_t i = 0; i < t->n; i++) {
        ddz_combo got = ddz_combo_classify(rs, t->v[i].ranks);
        ddz_combo want = t->v[i].combo;
        cr_assert(memcmp(&got, &want, sizeof got) == 0,
                  "%s: ranks %015llx: got %s r%d l%d k%d s%d, want %s r%d l%d k%d s%d", rs->name,
                  (unsigned long long)t->v[i].ranks, ddz_type_name(got.type), got.rank, got.length,
                  got.kicker, got.size, ddz_type_name(want.type), want.rank, want.length,
                  want.kicker, want.size);
        quads += want.type == DDZ_QUAD_STRAIGHT;
    }
    return quads;
}

Test(combo, every_legal_play_matches_the_constructive_twin, .init = setup)
{
    cr_assert_gt(table.n, 30000, "reference table too small: %zu", table.n);
    cr_assert_eq(twin_agrees(&ddz_rules_caai, &table), 0, "caai has no quad straights");
    for (int k = 1; k < 3; k++) {
        ref_table t;
        ref_build(&t, all_rules[k]);
        size_t quads = twin_agrees(all_rules[k], &t);
        cr_log_info("%s: %zu legal plays, %zu quad straights", all_rules[k]->name, t.n, quads);
        cr_assert_gt(t.n, 10000);
        cr_assert_gt(quads, 1000);
        free(t.v);
    }
}

/* Random multisets under `rs`, read by the classifier and by the twin. */
static void random_multisets(const ddz_rules *rs, const ref_table *t, int n)
{
    ddz_rng r;
    ddz_rng_seed(&r, 99);
    for (int i = 0; i < n; i++) {
        /* Random counts, biased towards trios and fours so that the rare
         * shapes (planes, four_two) come up. */
        ddz_ranks m = 0;
        int size = 0, want = 1 + (int)ddz_rng_below(&r, DDZ_HAND_MAX);
        while (size < want) {
            int rank = (int)ddz_rng_below(&r, DDZ_NRANKS);
            int max = rank >= DDZ_RANK_SJ ? 1 : 4, have = ddz_ranks_get(m, rank);
            int add = 1 + (int)ddz_rng_below(&r, 4);
            if (add > max - have)
                add = max - have;
            if (add > want - size)
                add = want - size;
            m = ddz_ranks_add(m, rank, add);
            size += add;
        }
        ddz_combo got = ddz_combo_classify(rs, m);
        ddz_combo ref = ref_classify(t, m);
        cr_assert_eq(got.type, ref.type, "%s: ranks %015llx: %s vs %s", rs->name,
                     (unsigned long long)m, ddz_type_name(got.type), ddz_type_name(ref.type));
        if (ref.type != DDZ_INVALID)
            cr_assert(memcmp(&got, &ref, sizeof got) == 0, "%s: ranks %015llx", rs->name,
                      (unsigned long long)m);
    }
}

Test(combo, random_multisets_match_the_twin, .init = setup)
{
    random_multisets(&ddz_rules_caai, &table, 300000);
    for (int k = 1; k < 3; k++) {
        ref_table t;
        ref_build(&t, all_rules[k]);
        random_multisets(all_rules[k], &t, 300000);
        free(t.v);
    }
}

/* ---- combos.txt: the seed 002 examples --------------------------------- */

/* Rank index of a rank letter (3..9, T, J, Q, K, A, 2, X small joker, D big
 * joker), or -1. */
static int rank_of(char c)
{
    static const char letters[] = "3456789TJQKA2XD";
    const char *p = c ? strchr(letters, c) : NULL;
    return p ? (int)(p - letters) : -1;
}

/* Checks one line of combos.txt under `rs`; returns 1 if it was a case. */
static int combo_case(const ddz_rules *rs, const char *cards, const char *type, const char *rank,
                      int length, const char *kicker, int line)
{
    ddz_ranks m = 0;
    for (const char *c = cards; *c; c++) {
        int r = rank_of(*c);
        cr_assert_geq(r, 0, "combos.txt:%d: bad rank letter '%c'", line, *c);
        m = ddz_ranks_add(m, r, 1);
    }
    ddz_combo got = ddz_combo_classify(rs, m);
    cr_expect_str_eq(ddz_type_name(got.type), type, "combos.txt:%d: %s %s: %s, want %s", line,
                     rs->name, cards, ddz_type_name(got.type), type);
    if (rank[0])
        cr_expect_eq(got.rank, rank_of(rank[0]), "combos.txt:%d: %s %s: rank %d, want %s", line,
                     rs->name, cards, got.rank, rank);
    if (length > 0)
        cr_expect_eq(got.length, length, "combos.txt:%d: %s %s: length %d, want %d", line, rs->name,
                     cards, got.length, length);
    if (kicker[0])
        cr_expect_str_eq(ddz_kicker_name(got.kicker), kicker,
                         "combos.txt:%d: %s %s: kicker %s, want %s", line, rs->name, cards,
                         ddz_kicker_name(got.kicker), kicker);
    if (got.type != DDZ_INVALID)
        cr_expect_eq(got.size, (int)strlen(cards), "combos.txt:%d: size", line);
    return 1;
}

/* The classifier against its version before issue 26 (frozen in
 * movegen_ref.h) on any multiset at all: plays drawn from a deck, and any
 * nibbles (counts above 4, two of a joker, more than 20 cards), under every
 * rule set and the two kicker/quad combinations no rule set has yet. */
Test(combo, same_readings_as_before)
{
    ddz_rules distinct = ddz_rules_caai, both = ddz_rules_caai;
    distinct.kickers_may_repeat = 0;
    both.quad_straight = 1;
    const ddz_rules *sets[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl, &ddz_rules_botzone_ftl2,
                               &distinct, &both};
    ddz_rng r;
    ddz_rng_seed(&r, 26);
    for (int i = 0; i < 2000000; i++) {
        const ddz_rules *rs = sets[i % 5];
        ddz_ranks m;
        if (i % 3 == 0) {
            m = ddz_rng_next(&r) & ddz_rng_next(&r) & ddz_rng_next(&r);
        } else {
            /* a few ranks of a deck, often whole, so that chains and fours come up */
            m = 0;
            int ranks = 1 + (int)ddz_rng_below(&r, 8);
            for (int k = 0; k < ranks; k++) {
                int rank = (int)ddz_rng_below(&r, DDZ_NRANKS);
                int most = rank >= DDZ_RANK_SJ ? 1 : 4;
                m = (m & ~(0xFULL << (4 * rank))) |
                    (ddz_ranks)(1 + ddz_rng_below(&r, (uint32_t)most)) << (4 * rank);
            }
        }
        ddz_combo a = ddz_combo_classify(rs, m), b = mref_classify(rs, m);
        cr_assert(a.type == b.type && a.rank == b.rank && a.length == b.length &&
                      a.kicker == b.kicker && a.size == b.size,
                  "%s: %016llx reads as type %d rank %d, before type %d rank %d", rs->name,
                  (unsigned long long)m, a.type, a.rank, b.type, b.rank);
    }
}

Test(combo, seed_002_examples)
{
    char path[512], buf[256];
    snprintf(path, sizeof path, "%s/tests/rules/combos.txt", DDZ_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int line = 0, cases[3] = {0}, invalid = 0, quads = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char rules[32], cards[64], type[32], rank[8] = "", kicker[16] = "";
        int length = 0;
        if (buf[0] == '#' || sscanf(buf, "%31s", rules) != 1)
            continue;
        int n =
            sscanf(buf, "%31s %63s %31s %7s %d %15s", rules, cards, type, rank, &length, kicker);
        cr_assert(n == 3 || n == 6, "combos.txt:%d: want RULES CARDS TYPE [RANK LENGTH KICKER]",
                  line);
        bool any = false;
        for (int k = 0; k < 3; k++) {
            const char *name = all_rules[k]->name;
            if (strcmp(rules, name) != 0 &&
                !(strcmp(rules, "botzone-*") == 0 && strncmp(name, "botzone-", 8) == 0))
                continue;
            cases[k] += combo_case(all_rules[k], cards, type, rank, length, kicker, line);
            any = true;
        }
        cr_assert(any, "combos.txt:%d: unknown rule set %s", line, rules);
        invalid += strcmp(type, "invalid") == 0;
        quads += strcmp(type, "quad_straight") == 0;
    }
    fclose(f);
    cr_log_info("combos.txt: %d caai, %d botzone-ftl, %d botzone-ftl2 cases (%d invalid, %d "
                "quad straights)",
                cases[0], cases[1], cases[2], invalid, quads);
    cr_assert_gt(cases[1], 70);
    cr_assert_eq(cases[1], cases[2]);
    cr_assert_gt(invalid, 20);
    cr_assert_gt(quads, 8);
}

/* A quad straight compares like a plane: same shape, higher top; it is no
 * bomb, and bombs and the rocket beat it. */
Test(combo, quad_straights_compare_like_planes)
{
    const ddz_rules *rs = &ddz_rules_botzone_ftl;
    ddz_ranks q34 = ddz_ranks_add(ddz_ranks_add(0, 0, 4), 1, 4);    /* 33334444 */
    ddz_ranks q45 = ddz_ranks_add(ddz_ranks_add(0, 1, 4), 2, 4);    /* 44445555 */
    ddz_ranks q345 = ddz_ranks_add(q34, 2, 4);                      /* 333344445555 */
    ddz_ranks q45s = ddz_ranks_add(ddz_ranks_add(q45, 5, 1), 6, 1); /* + 8 9 */
    q45s = ddz_ranks_add(ddz_ranks_add(q45s, 7, 1), 8, 1);          /* + T J */
    ddz_combo a = ddz_combo_classify(rs, q34), b = ddz_combo_classify(rs, q45),
              c = ddz_combo_classify(rs, q345), d = ddz_combo_classify(rs, q45s);
    ddz_combo bomb = ddz_combo_classify(rs, ddz_ranks_add(0, 0, 4));
    ddz_combo rocket = ddz_combo_classify(rs, ddz_ranks_add(ddz_ranks_add(0, 13, 1), 14, 1));
    cr_assert_eq(d.type, DDZ_QUAD_STRAIGHT);
    cr_assert(ddz_combo_beats(b, a));
    cr_assert(!ddz_combo_beats(a, b));
    cr_assert(!ddz_combo_beats(c, a), "another length");
    cr_assert(!ddz_combo_beats(d, a), "other wings");
    cr_assert(ddz_combo_beats(bomb, a), "the lowest bomb beats a quad straight");
    cr_assert(!ddz_combo_beats(a, bomb), "a quad straight is no bomb");
    cr_assert(ddz_combo_beats(rocket, c));
    cr_assert_str_eq(ddz_type_name(DDZ_QUAD_STRAIGHT), "quad_straight");
}

Test(combo, kicker_policy_is_a_rule_set_parameter)
{
    /* A rule set with distinct kickers (Botzone's policy) against its own
     * constructive twin: the classifier takes the rule set, not a constant. */
    ddz_rules distinct = ddz_rules_caai;
    distinct.kickers_may_repeat = 0;
    ref_table t;
    ref_build(&t, &distinct);
    for (size_t i = 0; i < t.n; i++) {
        ddz_combo got = ddz_combo_classify(&distinct, t.v[i].ranks);
        cr_assert(memcmp(&got, &t.v[i].combo, sizeof got) == 0, "ranks %015llx",
                  (unsigned long long)t.v[i].ranks);
    }
    /* 444555+7+7 is a plane under caai only */
    ddz_ranks m = ddz_cards_ranks((1ULL << 4) | (1ULL << 5) | (1ULL << 6) | (1ULL << 8) |
                                  (1ULL << 9) | (1ULL << 10) | (1ULL << 20) | (1ULL << 21));
    cr_assert_eq(ddz_combo_classify(&ddz_rules_caai, m).type, DDZ_PLANE);
    cr_assert_eq(ddz_combo_classify(&distinct, m).type, DDZ_INVALID);
    free(t.v);
}

static ddz_combo C(int type, int rank, int length, int kicker, int size)
{
    return (ddz_combo){(uint8_t)type, (uint8_t)rank, (uint8_t)length, (uint8_t)kicker,
                       (uint8_t)size};
}

Test(combo, comparison)
{
    ddz_combo rocket = C(DDZ_ROCKET, 14, 1, 0, 2), bomb3 = C(DDZ_BOMB, 0, 1, 0, 4),
              bomb2 = C(DDZ_BOMB, 12, 1, 0, 4), single2 = C(DDZ_SINGLE, 12, 1, 0, 1),
              singleA = C(DDZ_SINGLE, 11, 1, 0, 1), pairA = C(DDZ_PAIR, 11, 1, 0, 2),
              st5 = C(DDZ_STRAIGHT, 6, 5, 0, 5), st5hi = C(DDZ_STRAIGHT, 7, 5, 0, 5),
              st6 = C(DDZ_STRAIGHT, 8, 6, 0, 6), tk1 = C(DDZ_TRIO_KICKER, 3, 1, 1, 4),
              tk2 = C(DDZ_TRIO_KICKER, 5, 1, 2, 5), tk1hi = C(DDZ_TRIO_KICKER, 5, 1, 1, 4);
    cr_assert(ddz_combo_beats(rocket, bomb2));
    cr_assert(ddz_combo_beats(rocket, single2));
    cr_assert(!ddz_combo_beats(bomb2, rocket));
    cr_assert(ddz_combo_beats(bomb3, single2));
    cr_assert(ddz_combo_beats(bomb3, st6));
    cr_assert(ddz_combo_beats(bomb2, bomb3));
    cr_assert(!ddz_combo_beats(bomb3, bomb2));
    cr_assert(!ddz_combo_beats(bomb3, bomb3));
    cr_assert(!ddz_combo_beats(single2, bomb3));
    cr_assert(ddz_combo_beats(single2, singleA));
    cr_assert(!ddz_combo_beats(singleA, singleA));
    cr_assert(!ddz_combo_beats(singleA, single2));
    cr_assert(!ddz_combo_beats(pairA, singleA)); /* type differs */
    cr_assert(ddz_combo_beats(st5hi, st5));
    cr_assert(!ddz_combo_beats(st6, st5)); /* length differs */
    cr_assert(!ddz_combo_beats(tk2, tk1)); /* kicker kind differs */
    cr_assert(ddz_combo_beats(tk1hi, tk1));
}

Test(combo, names)
{
    cr_assert_str_eq(ddz_type_name(DDZ_TRIO_KICKER), "trio_kicker");
    cr_assert_str_eq(ddz_type_name(DDZ_FOUR_TWO), "four_two");
    cr_assert_str_eq(ddz_type_name(99), "invalid");
    cr_assert_str_eq(ddz_kicker_name(DDZ_KICK_PAIR), "pair");
}
