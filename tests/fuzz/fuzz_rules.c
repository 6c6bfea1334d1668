/* fuzz_rules.c - the classifier and the move generator (rules/combo.h,
 * rules/movegen.h) against the constructive reference (tests/rules/
 * combo_ref.h) and brute force, on hands and plays chosen by the fuzzer.
 *
 * Input layout (every byte string is some input; short ones leave the rest
 * empty):
 *   [0]      flags: bit 0 follow a play (else lead); bit 1 the Botzone
 *            rule set (botzone-ftl: distinct kickers, quad straights) and
 *            its own reference table; bit 2 follow reference table entry [1..2]
 *            instead of the decoded play
 *   [1..2]   little-endian index into the reference table (bit 2)
 *   [3..]    the hand: each byte up to the first 0xFF adds one card of rank
 *            byte % 15, skipped when the rank is full (4, a joker 1) or the
 *            hand holds DDZ_HAND_MAX cards
 *   after the 0xFF: the play, decoded the same way but up to all 54 cards;
 *            its first 8 bytes are also read raw as a ddz_ranks value
 *            (little-endian, top nibble cleared), any counts at all.
 *
 * Checks: ddz_combo_classify agrees with the reference on the play and on
 * the raw value (a count above 4 or a second joker is no combination); every
 * move ddz_movegen generates is in the hand, carries the reference's
 * classification, beats the play it follows, and appears once; when the
 * hand has at most BRUTE_MAX sub-multisets, the moves are exactly the legal
 * sub-multisets that lead or beat (as tests/rules/test_movegen.c checks);
 * ddz_movegen_can_beat agrees with the list, and a buffer one move short
 * gives DDZ_ENOSPC.
 */
#include <string.h>

#include "fuzz.h"
#include "rules/combo_ref.h"
#include "rules/error.h"
#include "rules/movegen.h"

#define BRUTE_MAX 20000 /* sub-multisets of the hand: above this, no brute force */

static ref_table table_caai, table_botzone;
static ddz_move out[DDZ_MOVES_MAX];
static ddz_ranks got[DDZ_MOVES_MAX];
static ddz_ranks want[BRUTE_MAX + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ref_build(&table_caai, &ddz_rules_caai);
    ref_build(&table_botzone, &ddz_rules_botzone_ftl);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    ddz_ranks x = *(const ddz_ranks *)a, y = *(const ddz_ranks *)b;
    return x < y ? -1 : x > y;
}

/* Adds one card of rank b % 15 unless that rank is full or max is reached. */
static ddz_ranks add_card(ddz_ranks m, uint8_t b, int max)
{
    int r = b % DDZ_NRANKS;
    int cap = r >= DDZ_RANK_SJ ? 1 : 4;
    if (ddz_ranks_get(m, r) >= cap || ddz_ranks_total(m) >= max)
        return m;
    return ddz_ranks_add(m, r, 1);
}

static void same_combo(ddz_combo got_c, ddz_combo want_c, ddz_ranks m, const char *what)
{
    if (want_c.type == DDZ_INVALID) {
        FUZZ_CHECK(got_c.type == DDZ_INVALID,
                   "%s %015llx: classify says %s r%d l%d, reference "
                   "invalid",
                   what, (unsigned long long)m, ddz_type_name(got_c.type), got_c.rank,
                   got_c.length);
        return;
    }
    FUZZ_CHECK(memcmp(&got_c, &want_c, sizeof got_c) == 0,
               "%s %015llx: classify says %s r%d l%d k%d s%d, reference %s r%d l%d k%d s%d", what,
               (unsigned long long)m, ddz_type_name(got_c.type), got_c.rank, got_c.length,
               got_c.kicker, got_c.size, ddz_type_name(want_c.type), want_c.rank, want_c.length,
               want_c.kicker, want_c.size);
}

static long submultisets(ddz_ranks hand)
{
    long p = 1;
    for (int r = 0; r < DDZ_NRANKS; r++)
        p *= ddz_ranks_get(hand, r) + 1;
    return p;
}

static void check_moves(const ddz_rules *rs, const ref_table *t, ddz_ranks hand,
                        const ddz_combo *last)
{
    int n = ddz_movegen(rs, hand, last, out, DDZ_MOVES_MAX);
    FUZZ_CHECK(n >= 0, "movegen of %015llx failed: %d", (unsigned long long)hand, n);
    for (int i = 0; i < n; i++) {
        ddz_ranks m = out[i].ranks;
        FUZZ_CHECK(ddz_ranks_within(m, hand), "move %015llx not in hand %015llx",
                   (unsigned long long)m, (unsigned long long)hand);
        if (!m) {
            FUZZ_CHECK(last && i == n - 1, "a pass that is not last of a follow list");
            FUZZ_CHECK(out[i].combo.type == DDZ_PASS, "the pass carries type %d",
                       out[i].combo.type);
        } else {
            ddz_combo ref = ref_classify(t, m);
            FUZZ_CHECK(ref.type != DDZ_INVALID, "move %015llx is no combination",
                       (unsigned long long)m);
            same_combo(out[i].combo, ref, m, "generated move");
            FUZZ_CHECK(!last || ddz_combo_beats(ref, *last), "move %015llx does not beat",
                       (unsigned long long)m);
        }
        got[i] = m;
    }
    if (last)
        FUZZ_CHECK(n >= 1 && got[n - 1] == 0, "a follow list must end with the pass");
    else
        FUZZ_CHECK(n > 0 || hand == 0, "no lead from a non-empty hand");
    qsort(got, (size_t)n, sizeof got[0], cmp_u64);
    for (int i = 1; i < n; i++)
        FUZZ_CHECK(got[i] != got[i - 1], "duplicate move %015llx", (unsigned long long)got[i]);
    if (last)
        FUZZ_CHECK(ddz_movegen_can_beat(rs, hand, *last) == (n > 1),
                   "can_beat disagrees with %d moves", n);
    if (n > 1)
        FUZZ_CHECK(ddz_movegen(rs, hand, last, out, (size_t)n - 1) == DDZ_ENOSPC,
                   "no ENOSPC with room for %d of %d moves", n - 1, n);

    if (submultisets(hand) > BRUTE_MAX)
        return;
    int m = ref_brute_moves(t, hand, last, want);
    qsort(want, (size_t)m, sizeof want[0], cmp_u64);
    if (n != m || memcmp(got, want, (size_t)n * sizeof got[0]) != 0) {
        int i = 0;
        while (i < n && i < m && got[i] == want[i])
            i++;
        FUZZ_CHECK(0,
                   "hand %015llx %s %s r%d l%d: %d moves, brute force %d; first difference "
                   "at %d: got %015llx want %015llx",
                   (unsigned long long)hand, last ? "follows" : "leads",
                   last ? ddz_type_name(last->type) : "-", last ? last->rank : 0,
                   last ? last->length : 0, n, m, i, (unsigned long long)(i < n ? got[i] : 0),
                   (unsigned long long)(i < m ? want[i] : 0));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    int flags = data[0];
    const ddz_rules *rs = flags & 2 ? &ddz_rules_botzone_ftl : &ddz_rules_caai;
    const ref_table *t = flags & 2 ? &table_botzone : &table_caai;

    size_t i = 3;
    ddz_ranks hand = 0, play = 0;
    for (; i < size && data[i] != 0xFF; i++)
        hand = add_card(hand, data[i], DDZ_HAND_MAX);
    uint64_t raw = 0;
    if (i < size) {
        i++; /* the separator */
        for (size_t j = 0; j < 8 && i + j < size; j++)
            raw |= (uint64_t)data[i + j] << (8 * j);
        for (; i < size; i++)
            play = add_card(play, data[i], DDZ_NCARDS);
    }

    /* The play, and the raw value with any counts. */
    ddz_combo pc = ddz_combo_classify(rs, play);
    if (play)
        same_combo(pc, ref_classify(t, play), play, "play");
    else
        FUZZ_CHECK(pc.type == DDZ_PASS, "the empty play is type %d", pc.type);
    raw &= (1ULL << (4 * DDZ_NRANKS)) - 1;
    if (raw)
        same_combo(ddz_combo_classify(rs, raw), ref_classify(t, raw), raw, "raw");

    /* What to follow: a valid non-pass combination, or nothing (lead). */
    const ddz_combo *last = NULL;
    ddz_combo lc;
    if (flags & 4) {
        lc = t->v[(data[1] | (size_t)data[2] << 8) % t->n].combo;
        last = &lc;
    } else if ((flags & 1) && pc.type != DDZ_INVALID && pc.type != DDZ_PASS) {
        lc = pc;
        last = &lc;
    }
    check_moves(rs, t, hand, last);
    return 0;
}
