/* test_referee.c - the referee alone: what the transcripts of test_table
 * do not single out. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/error.h"
#include "rules/movegen.h"
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

/* Random games through the referee under every rule set, with random
 * faults of any seat at any time and random auto-pass settings: no faulty
 * seat is asked again, each fault is announced under botzone-ftl2 (and
 * nowhere else), and every record verifies under its rule set. */
Test(referee, records_of_random_games_verify)
{
    static const ddz_rules *const sets[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl,
                                            &ddz_rules_botzone_ftl2};
    static ddz_move moves[DDZ_MOVES_MAX];
    static ddz_referee ref;
    uint64_t x = 88172645463325252ULL;
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17)
    int games[3] = {0}, announced = 0, standins = 0, multi = 0;
    for (int k = 0; k < 1500; k++) {
        const ddz_rules *rs = sets[k % 3];
        ddz_ref_cfg cfg = {.rules = rs, .autopass = {k & 1, (k >> 1) & 1, (k >> 2) & 1}};
        ddz_ref_init(&ref, &cfg);
        uint8_t sd[DDZ_SEED_BYTES] = {(uint8_t)k, (uint8_t)(k >> 8), 7};
        cr_assert_eq(ddz_ref_start(&ref, k, sd, NULL), 0);
        int faults = 0;
        bool over = false;
        ddz_ev ask = {0}; /* the open request (a fault of another seat leaves it open) */
        while (!over) {
            ddz_ev ev;
            while (ddz_ref_next(&ref, &ev)) {
                if (ev.kind == DDZ_EV_ASK_BID || ev.kind == DDZ_EV_ASK_PLAY) {
                    ask = ev;
                    cr_assert(!ddz_game_faulted(&ref.game, ev.seat), "a faulty seat is asked");
                }
                if (ev.kind == DDZ_EV_FAULT) {
                    cr_assert_eq(rs->fault_policy, DDZ_FAULTPOLICY_PLAY_ON);
                    announced++;
                }
                if (ev.kind == DDZ_EV_PLAY && ddz_game_faulted(&ref.game, ev.seat)) {
                    cr_assert(ev.autopass, "a stand-in's play is marked auto");
                    standins++;
                }
                over |= ev.kind == DDZ_EV_OVER;
            }
            if (over)
                break;
            NEXT();
            if (x % 61 == 0) {
                int seat = (int)((x >> 8) % 3);
                int rc = ddz_ref_fault(&ref, seat, 1 + (int)((x >> 16) % 4));
                cr_assert(rc == 0 || (rc == DDZ_EPHASE && ddz_game_faulted(&ref.game, seat)));
                faults += rc == 0;
                continue;
            }
            const ddz_game *g = &ref.game;
            cr_assert(ask.kind, "the referee waits for nobody");
            if (ask.kind == DDZ_EV_ASK_BID) {
                int bids[DDZ_NBIDS_MAX];
                int n = ddz_rules_legal_bids(rs, g->bids, bids);
                cr_assert_eq(ddz_ref_bid(&ref, ask.seat, ask.seq, bids[(x >> 8) % n]), 0);
            } else {
                int n = ddz_movegen(rs, ddz_cards_ranks(g->hand[g->turn]),
                                    ddz_game_leading(g) ? NULL : &g->last, moves, DDZ_MOVES_MAX);
                cr_assert_gt(n, 0);
                ddz_cards c = ddz_cards_pick(g->hand[g->turn], moves[(x >> 8) % n].ranks);
                cr_assert_eq(ddz_ref_play(&ref, ask.seat, ask.seq, c), 0);
            }
        }
        const ddz_record *r = ddz_ref_record(&ref);
        char err[256];
        cr_assert_eq(ddz_record_verify(r, rs, err, sizeof err), 0, "%s game %d: %s", rs->name, k,
                     err);
        cr_assert_eq(r->nfaults, faults);
        multi += faults > 1;
        games[k % 3]++;
    }
#undef NEXT
    cr_log_info("%d announced faults, %d stand-in plays, %d games with several faults", announced,
                standins, multi);
    cr_assert_gt(announced, 100);
    cr_assert_gt(standins, 100);
    cr_assert_gt(multi, 10);
}

/* Without bidding (botzone-ftl) the game opens with the leftover for West
 * and West asked to play. */
Test(referee, botzone_ftl_opens_with_west_playing)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){.rules = &ddz_rules_botzone_ftl});
    cr_assert_eq(ddz_ref_start(&ref, 0, seed, NULL), 0);
    int kinds[8] = {0}, n = 0;
    ddz_ev ev;
    while (ddz_ref_next(&ref, &ev))
        kinds[n++] = ev.kind;
    int want[] = {DDZ_EV_GAME, DDZ_EV_LEFTOVER, DDZ_EV_ASK_PLAY};
    cr_assert_eq(n, 3);
    for (int i = 0; i < n; i++)
        cr_assert_eq(kinds[i], want[i], "event %d", i);
    cr_assert_eq(ref.game.landlord, 0);
    cr_assert_eq(ddz_ref_record(&ref)->nbids, 0);
}

/* The referee's events are public: the game's start names no seat and
 * carries no hand (the table gives each player its own, from the record),
 * and every event is addressed to everyone. */
Test(referee, events_are_public)
{
    ddz_referee ref;
    ddz_ref_init(&ref, &(ddz_ref_cfg){0});
    cr_assert_eq(ddz_ref_start(&ref, 4, seed, NULL), 0);
    ddz_ev ev;
    cr_assert(ddz_ref_next(&ref, &ev));
    cr_assert_eq(ev.kind, DDZ_EV_GAME);
    cr_assert_eq(ev.seat, -1);
    cr_assert_eq(ev.cards, 0);
    cr_assert_eq(ev.game, 4);
    cr_assert_eq(ev.to, DDZ_TO_ALL);
    cr_assert(ddz_ref_next(&ref, &ev));
    cr_assert_eq(ev.kind, DDZ_EV_ASK_BID);
    cr_assert_eq(ev.to, DDZ_TO_ALL);
    cr_assert_eq(ev.deadline_ms, 0, "the referee knows no clock");
    cr_assert(!ddz_ref_next(&ref, &ev));
    cr_assert_neq(ddz_ref_record(&ref)->deal.hand[0], 0, "the hands are in the record");
}
