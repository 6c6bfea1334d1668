/* record_same.h - a Criterion assertion that two game records are equal,
 * for tests that round-trip records (JSON, storage). Naming the first
 * field that differs makes a failure readable. */
#ifndef DDZ_TEST_RECORD_SAME_H
#define DDZ_TEST_RECORD_SAME_H

#include <criterion/criterion.h>
#include <string.h>

#include "rules/record.h"

/* Asserts a == b field by field, naming the first difference. */
static void assert_same(const ddz_record *a, const ddz_record *b)
{
    int g = a->game;
    cr_assert_str_eq(a->rules, b->rules, "game %d: rules", g);
    cr_assert_eq(a->game, b->game);
    cr_assert_eq(memcmp(a->seed, b->seed, DDZ_SEED_BYTES), 0, "game %d: seed", g);
    cr_assert_eq(memcmp(a->commit, b->commit, DDZ_SEED_BYTES), 0, "game %d: commit", g);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(a->deal.hand[s], b->deal.hand[s], "game %d: hands[%d]", g, s);
    cr_assert_eq(a->deal.leftover, b->deal.leftover, "game %d: leftover", g);
    cr_assert_eq(a->early_penalty, b->early_penalty, "game %d: early_penalty", g);
    cr_assert_eq(a->nbids, b->nbids, "game %d: nbids", g);
    for (int i = 0; i < a->nbids; i++)
        cr_assert_eq(a->bids[i], b->bids[i], "game %d: bids[%d]", g, i);
    cr_assert_eq(a->landlord, b->landlord, "game %d: landlord", g);
    cr_assert_eq(a->nplays, b->nplays, "game %d: nplays", g);
    for (int i = 0; i < a->nplays; i++) {
        cr_assert_eq(a->plays[i].seat, b->plays[i].seat, "game %d: plays[%d].seat", g, i);
        cr_assert_eq(a->plays[i].cards, b->plays[i].cards, "game %d: plays[%d].cards", g, i);
        cr_assert_eq(a->plays[i].autopass, b->plays[i].autopass, "game %d: plays[%d].auto", g, i);
    }
    cr_assert_eq(a->winner, b->winner, "game %d: winner", g);
    cr_assert_eq(a->fault_seat, b->fault_seat, "game %d: fault seat", g);
    cr_assert_eq(a->fault_kind, b->fault_kind, "game %d: fault kind", g);
    cr_assert_eq(a->nfaults, b->nfaults, "game %d: nfaults", g);
    for (int i = 0; i < a->nfaults; i++) {
        cr_assert_eq(a->faults[i].seat, b->faults[i].seat, "game %d: faults[%d].seat", g, i);
        cr_assert_eq(a->faults[i].kind, b->faults[i].kind, "game %d: faults[%d].kind", g, i);
        cr_assert_eq(a->faults[i].at, b->faults[i].at, "game %d: faults[%d].at", g, i);
        cr_assert_eq(a->faults[i].bids, b->faults[i].bids, "game %d: faults[%d].bids", g, i);
    }
    cr_assert_eq(a->bombs, b->bombs, "game %d: bombs", g);
    cr_assert_eq(a->rocket, b->rocket, "game %d: rocket", g);
    cr_assert_eq(a->spring, b->spring, "game %d: spring", g);
    cr_assert_eq(a->anti_spring, b->anti_spring, "game %d: anti_spring", g);
    cr_assert_eq(a->multiplier, b->multiplier, "game %d: multiplier", g);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(a->scores[s], b->scores[s], "game %d: scores[%d]", g, s);
        cr_assert_str_eq(a->names[s], b->names[s], "game %d: names[%d]", g, s);
    }
}

#endif
