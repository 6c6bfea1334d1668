/* test_referee.c - the referee alone: what the transcripts of test_table
 * do not single out. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/error.h"
#include "service/table/referee.h"

static const uint8_t seed[DDZ_SEED_BYTES] = {1, 2, 3};

static ddz_ev last_ask(ddz_referee *ref)
{
    ddz_ev ev, ask = {0};
    while (ddz_ref_next(ref, &ev))
        if (ev.kind == DDZ_EV_ASK_BID || ev.kind == DDZ_EV_ASK_PLAY)
            ask = ev;
    return ask;
}

Test(referee, rejected_actions_change_nothing)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){0});
    cr_assert_eq(ddz_ref_start(&ref, 0, seed, NULL), 0);
    ddz_ev ask = last_ask(&ref);
    cr_assert_eq(ask.kind, DDZ_EV_ASK_BID);
    ddz_referee before;
    memcpy(&before, &ref, sizeof ref);
    cr_assert_eq(ddz_ref_bid(&ref, 0, ask.seq + 1, 1), DDZ_ESTALE);
    cr_assert_eq(ddz_ref_bid(&ref, 1, ask.seq, 1), DDZ_ETURN);
    cr_assert_eq(ddz_ref_bid(&ref, 0, ask.seq, 4), DDZ_EBID);
    cr_assert_eq(ddz_ref_play(&ref, 0, ask.seq, 1), DDZ_EPHASE);
    cr_assert_eq(memcmp(&before, &ref, sizeof ref), 0, "a rejected action changed the referee");
    cr_assert_eq(ddz_ref_start(&ref, 1, seed, NULL), DDZ_EPHASE, "one game at a time");
}

Test(referee, answers_to_an_old_request_are_stale)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){0});
    ddz_ref_start(&ref, 0, seed, NULL);
    ddz_ev ask = last_ask(&ref);
    cr_assert_eq(ddz_ref_bid(&ref, 0, ask.seq, 1), 0);
    cr_assert_eq(ddz_ref_bid(&ref, 0, ask.seq, 2), DDZ_ESTALE, "a double click is harmless");
    ddz_ev next = last_ask(&ref);
    cr_assert_gt(next.seq, ask.seq);
    cr_assert_eq(next.seat, 1);
}

Test(referee, abort_ends_without_a_result)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){0});
    ddz_ref_start(&ref, 0, seed, NULL);
    ddz_ev ask = last_ask(&ref);
    cr_assert_eq(ddz_ref_abort(&ref), 0);
    cr_assert_not(ddz_ref_running(&ref));
    ddz_ev ev;
    cr_assert_not(ddz_ref_next(&ref, &ev), "an abort emits nothing");
    cr_assert_eq(ddz_ref_bid(&ref, 0, ask.seq, 1), DDZ_EPHASE);
    cr_assert_eq(ddz_ref_abort(&ref), DDZ_EPHASE);
    cr_assert_eq(ddz_ref_record(&ref)->winner, -1);
    cr_assert_eq(ddz_ref_start(&ref, 1, seed, NULL), 0, "the next game may start");
}

Test(referee, early_penalty_defaults_to_the_rule_set)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){0});
    cr_assert_eq(ref.cfg.early_penalty, ddz_rules_caai.deal_maxscore);
    ddz_ref_start(&ref, 0, seed, NULL);
    cr_assert_eq(ddz_ref_fault(&ref, 2, DDZ_FAULT_TIMEOUT), 0);
    cr_assert_eq(ddz_ref_record(&ref)->scores[2], -2 * ddz_rules_caai.deal_maxscore);
    cr_assert_eq(ddz_ref_fault(&ref, 2, DDZ_FAULT_TIMEOUT), DDZ_EPHASE, "charged once");
}
