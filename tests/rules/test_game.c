/* test_game.c - bidding, play, scoring and penalties of spec §3-§6. */
#include <criterion/criterion.h>
#include <math.h>
#include <sodium.h>

#include "ai/random.h"
#include "proto/text.h"
#include "rules/error.h"
#include "rules/game.h"

static ddz_cards cards(const char *codes)
{
    ddz_cards c;
    cr_assert_eq(ddz_text_parse_cards(codes, &c, NULL, 0), 0, "%s", codes);
    return c;
}

/* West gets `west`, the leftover is `left`; the other 34 cards alternate
 * between South and East in ascending order, so neither holds a four. */
static ddz_deal deal_with(const char *west, const char *left)
{
    ddz_deal d = {{cards(west), 0, 0}, cards(left)};
    cr_assert_eq(ddz_cards_count(d.hand[0]), 17);
    cr_assert_eq(ddz_cards_count(d.leftover), 3);
    int i = 0;
    for (int c = 0; c < DDZ_NCARDS; c++) {
        ddz_cards bit = 1ULL << c;
        if ((d.hand[0] | d.leftover) & bit)
            continue;
        d.hand[1 + i++ % 2] |= bit;
    }
    return d;
}

/* bomb of 3s, rocket, 4..A singles (one each) */
static const char *west_rich = "0,1,2,3,52,53,4,8,12,16,20,24,28,32,36,40,44";

static void start(ddz_game *g, const ddz_deal *d, int b0, int b1, int b2)
{
    ddz_game_start(g, &ddz_rules_caai, d, 350);
    int bids[3] = {b0, b1, b2};
    for (int s = 0; s < 3 && g->phase == DDZ_PHASE_BID; s++)
        cr_assert_eq(ddz_game_bid(g, s, bids[s]), 0);
}

Test(game, all_pass_ends_with_zero_scores)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    start(&g, &d, 0, 0, 0);
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_eq(g.landlord, -1);
    cr_assert_eq(g.winner, -1);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(g.score[s], 0);
    cr_assert_eq(ddz_game_play(&g, 0, 0), DDZ_EPHASE);
}

Test(game, bidding_order_and_limits)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    cr_assert_eq(ddz_game_bid(&g, 1, 1), DDZ_ETURN, "West bids first");
    cr_assert_eq(ddz_game_bid(&g, 0, 4), DDZ_EBID);
    cr_assert_eq(ddz_game_bid(&g, 0, -1), DDZ_EBID);
    cr_assert_eq(ddz_game_play(&g, 0, 1), DDZ_EPHASE);
    cr_assert_eq(ddz_game_bid(&g, 0, 1), 0);
    cr_assert_eq(ddz_game_bid(&g, 1, 1), DDZ_EBID, "not higher");
    cr_assert_eq(g.turn, 1, "a rejected bid changes nothing");
    cr_assert_eq(ddz_game_bid(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 2, 2), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    cr_assert_eq(g.landlord, 2);
    cr_assert_eq(g.bid, 2);
    cr_assert_eq(g.turn, 2, "the landlord leads");
    cr_assert_eq(ddz_cards_count(g.hand[2]), 20);
    cr_assert_eq(g.hand[2] & d.leftover, d.leftover);

    /* a bid of 3 ends bidding at once */
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 1, 3), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    cr_assert_eq(g.landlord, 1);
    cr_assert_eq(ddz_game_bid(&g, 2, 0), DDZ_EPHASE);

    /* highest of the three wins when nobody says 3 */
    start(&g, &d, 1, 2, 0);
    cr_assert_eq(g.landlord, 1);
    cr_assert_eq(g.bid, 2);
    start(&g, &d, 1, 0, 0);
    cr_assert_eq(g.landlord, 0);
    cr_assert_eq(g.bid, 1);
}

Test(game, play_errors_leave_the_game_unchanged)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g, before;
    start(&g, &d, 2, 0, 0);
    before = g;
    cr_assert_eq(ddz_game_play(&g, 0, 0), DDZ_ELEADPASS);
    cr_assert_eq(ddz_game_play(&g, 1, cards("6")), DDZ_ETURN);
    cr_assert_eq(ddz_game_play(&g, 0, cards("6")), DDZ_ENOTHELD);
    cr_assert_eq(ddz_game_play(&g, 0, cards("4,8")), DDZ_ESHAPE);
    cr_assert(memcmp(&g, &before, sizeof g) == 0);
    cr_assert_eq(ddz_game_play(&g, 0, cards("8")), 0);         /* a 5 */
    cr_assert_eq(ddz_game_play(&g, 1, cards("6")), DDZ_EWEAK); /* a 4 */
    cr_assert_eq(ddz_game_play(&g, 1, cards("6,7")), DDZ_ENOTHELD);
    cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
    cr_assert(ddz_game_leading(&g), "two passes: the last player leads again");
    cr_assert_eq(g.turn, 0);
    cr_assert_eq(ddz_game_play(&g, 0, 0), DDZ_ELEADPASS);
    cr_assert_eq(ddz_game_play(&g, 0, cards("4,12,16,20,24")), DDZ_ESHAPE, "gap at 5");
    cr_assert_eq(ddz_game_play(&g, 0, cards("4")), 0, "any shape on lead");
}

/* The landlord (West) plays bomb, rocket and 15 singles while the farmers
 * pass: spring, one bomb, rocket: multiplier 2 * 2 * 2 = 8. */
Test(game, spring_with_bomb_and_rocket)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    start(&g, &d, 2, 0, 0);
    ddz_cards seq[20];
    int n = 0;
    seq[n++] = cards("0,1,2,3");
    seq[n++] = cards("52,53");
    ddz_cards rest = g.hand[0] & ~(seq[0] | seq[1]);
    while (rest) {
        seq[n++] = rest & (~rest + 1);
        rest &= rest - 1;
    }
    for (int i = 0; i < n; i++) {
        cr_assert_eq(ddz_game_play(&g, 0, seq[i]), 0, "play %d", i);
        if (g.phase == DDZ_PHASE_OVER)
            break;
        cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
        cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
    }
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_eq(g.winner, 0);
    cr_assert_eq(g.bombs, 1);
    cr_assert_eq(g.rocket, 1);
    cr_assert_eq(g.spring, 1);
    cr_assert_eq(g.anti_spring, 0);
    cr_assert_eq(g.multiplier, 8);
    cr_assert_eq(g.score[0], 2 * 100 * 2 * 8);
    cr_assert_eq(g.score[1], -100 * 2 * 8);
    cr_assert_eq(g.score[2], -100 * 2 * 8);
}

/* The landlord plays one card; South beats it and plays out with singles:
 * anti-spring doubles the multiplier. */
Test(game, anti_spring)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    start(&g, &d, 1, 0, 0);
    cr_assert_eq(ddz_game_play(&g, 0, cards("4")), 0); /* a 4 */
    for (int guard = 0; g.phase == DDZ_PHASE_PLAY && guard < 100; guard++) {
        if (g.turn == 1) {
            ddz_cards h = g.hand[1], pick = 0;
            /* the lowest card that beats the last single, or any on lead */
            for (ddz_cards c = h; c; c &= c - 1) {
                ddz_cards low = c & (~c + 1);
                ddz_combo cb = ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(low));
                if (ddz_game_leading(&g) || ddz_combo_beats(cb, g.last)) {
                    pick = low;
                    break;
                }
            }
            cr_assert_neq(pick, 0);
            cr_assert_eq(ddz_game_play(&g, 1, pick), 0);
        } else {
            cr_assert_eq(ddz_game_play(&g, g.turn, 0), 0);
        }
    }
    cr_assert_eq(g.winner, 1);
    cr_assert_eq(g.nplays[0], 1);
    cr_assert_eq(g.anti_spring, 1);
    cr_assert_eq(g.spring, 0);
    cr_assert_eq(g.multiplier, 2);
    cr_assert_eq(g.score[0], -2 * 100 * 1 * 2);
    cr_assert_eq(g.score[1], 100 * 2);
    cr_assert_eq(g.score[2], 100 * 2);
}

Test(game, two_bombs_multiply_by_three_not_four)
{
    /* West: bombs of 3s and 4s plus singles; farmers pass throughout */
    ddz_deal d = deal_with("0,1,2,3,4,5,6,7,8,12,16,20,24,28,32,36,40", "44,48,53");
    ddz_game g;
    start(&g, &d, 3, 0, 0);
    cr_assert_eq(g.held_bombs, 2);
    for (int guard = 0; g.phase == DDZ_PHASE_PLAY && guard < 100; guard++) {
        if (g.turn != 0) {
            cr_assert_eq(ddz_game_play(&g, g.turn, 0), 0);
            continue;
        }
        ddz_cards h = g.hand[0];
        ddz_cards four3 = cards("0,1,2,3"), four4 = cards("4,5,6,7");
        ddz_cards play = (h & four3) == four3 ? four3 : (h & four4) == four4 ? four4 : h & (~h + 1);
        cr_assert_eq(ddz_game_play(&g, 0, play), 0);
    }
    cr_assert_eq(g.bombs, 2);
    cr_assert_eq(g.multiplier, 3 * 2, "x(1+2) bombs, x2 spring");
    cr_assert_eq(g.score[0], 2 * 100 * 3 * 6);
}

Test(game, fault_before_leftover_pays_maxscore_over_games)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 1), 0);
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_TIMEOUT), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_eq(g.score[0], 350);
    cr_assert_eq(g.score[1], -700);
    cr_assert_eq(g.score[2], 350);
    cr_assert_eq(g.fault_seat, 1);
    cr_assert_eq(g.fault_kind, DDZ_FAULT_TIMEOUT);
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_TIMEOUT), DDZ_EPHASE);
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    cr_assert_eq(ddz_game_fault(&g, 3, DDZ_FAULT_TIMEOUT), DDZ_EINVAL);
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_NONE), DDZ_EINVAL);
}

Test(game, fault_after_leftover_counts_held_bombs_and_rocket)
{
    /* West holds a bomb and the rocket; no other hand holds a four. */
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    start(&g, &d, 2, 0, 0);
    cr_assert_eq(g.held_bombs, 1);
    cr_assert_eq(g.held_rocket, 1);
    int unit = (1 + 1) * 2 * 100 * 2;
    ddz_game saved = g;
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_ILLEGAL), 0); /* a farmer */
    cr_assert_eq(g.score[0], 2 * unit);
    cr_assert_eq(g.score[1], -3 * unit);
    cr_assert_eq(g.score[2], unit);
    g = saved;
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_CRASH), 0); /* the landlord */
    cr_assert_eq(g.score[0], -2 * unit);
    cr_assert_eq(g.score[1], unit);
    cr_assert_eq(g.score[2], unit);
    /* the bombs are counted as held after the leftover, even once played */
    g = saved;
    cr_assert_eq(ddz_game_play(&g, 0, cards("0,1,2,3")), 0);
    cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_PROTOCOL), 0);
    cr_assert_eq(g.score[2], -3 * unit);
}

Test(game, leftover_can_complete_a_bomb)
{
    /* West holds three 2s; the fourth is in the leftover */
    ddz_deal d = deal_with("48,49,50,0,4,8,12,16,20,24,28,32,36,40,44,1,5", "51,9,13");
    ddz_game g;
    start(&g, &d, 1, 0, 0);
    cr_assert_eq(g.held_bombs, 1);
    cr_assert_eq(g.held_rocket, 0);
}

Test(game, must_pass_when_nothing_beats)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    start(&g, &d, 2, 0, 0);
    cr_assert(!ddz_game_must_pass(&g), "the leader never must pass");
    cr_assert_eq(ddz_game_play(&g, 0, cards("52,53")), 0);
    cr_assert(ddz_game_must_pass(&g));
    cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
    cr_assert_eq(ddz_game_play(&g, 0, cards("4")), 0);
    cr_assert(!ddz_game_must_pass(&g), "South holds cards above a 4");
}

/* Random games: whatever happens, cards are conserved, scores sum to zero,
 * the multiplier matches its definition and the view hides other hands. */
Test(game, random_games_keep_invariants)
{
    cr_assert_geq(sodium_init(), 0);
    static ddz_move moves[DDZ_MOVES_MAX];
    ddz_rng r;
    ddz_rng_seed(&r, 11);
    uint8_t master[32] = {1}, seed[32];
    int springs = 0, antis = 0, bombs = 0, allpass = 0;
    for (uint32_t k = 0; k < 5000; k++) {
        ddz_deal d;
        ddz_deal_game_seed(master, k, seed);
        ddz_deal_from_seed(seed, &d);
        ddz_game g;
        ddz_game_start(&g, &ddz_rules_caai, &d, 350);
        ddz_view v;
        while (g.phase == DDZ_PHASE_BID) {
            ddz_view_of(&g, g.turn, &v);
            cr_assert_eq(ddz_game_bid(&g, g.turn, ddz_random_bid(&r, &v)), 0);
        }
        int plays = 0;
        while (g.phase == DDZ_PHASE_PLAY) {
            ddz_view_of(&g, g.turn, &v);
            cr_assert_eq(v.hand, g.hand[g.turn]);
            ddz_cards c = ddz_random_play(&r, &v, moves, DDZ_MOVES_MAX);
            cr_assert_eq(ddz_game_play(&g, g.turn, c), 0);
            plays += c != 0;
        }
        if (g.landlord < 0) {
            allpass++;
            continue;
        }
        ddz_cards all = g.hand[0] | g.hand[1] | g.hand[2] | g.played[0] | g.played[1] | g.played[2];
        cr_assert_eq(all, DDZ_CARDS_ALL);
        cr_assert_eq(g.hand[g.winner], 0);
        cr_assert_eq(g.score[0] + g.score[1] + g.score[2], 0);
        int mult = (g.bombs ? 1 + g.bombs : 1) * (g.rocket ? 2 : 1) * (g.spring ? 2 : 1) *
                   (g.anti_spring ? 2 : 1);
        cr_assert_eq(g.multiplier, mult);
        cr_assert_eq(fabs(g.score[g.landlord]), 200 * g.bid * mult);
        cr_assert_eq(g.nplays[0] + g.nplays[1] + g.nplays[2], plays);
        springs += g.spring;
        antis += g.anti_spring;
        bombs += g.bombs > 0;
    }
    cr_assert_gt(allpass, 0);
    cr_assert_gt(bombs, 0);
    cr_log_info("springs %d anti-springs %d games with bombs %d", springs, antis, bombs);
}

Test(game, fault_names)
{
    cr_assert_str_eq(ddz_fault_name(DDZ_FAULT_TIMEOUT), "timeout");
    cr_assert_eq(ddz_fault_from_name("crash"), DDZ_FAULT_CRASH);
    cr_assert_eq(ddz_fault_from_name("nope"), -1);
}

/* ---------------------------------------------------------------------- */
/* Botzone's rule sets (spec §8)                                            */

/* botzone-ftl: no bidding; West is the landlord at base 1 with the leftover
 * and leads at once. West plays bomb (10), rocket (16), the straight 4..A
 * (6) and three singles (1 each) while the farmers pass: 2 + 35 / 100 for
 * West, 0 for the farmers; no multiplier. */
Test(game, botzone_ftl_starts_with_west_and_scores_play_weights)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_botzone_ftl, &d, 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    cr_assert_eq(g.landlord, 0);
    cr_assert_eq(g.bid, 1);
    cr_assert_eq(g.turn, 0);
    cr_assert_eq(g.hand[0], d.hand[0] | d.leftover);
    cr_assert_eq(ddz_game_bid(&g, 0, 0), DDZ_EPHASE, "nobody bids");
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(ddz_game_play(&g, 0, cards(seq[i])), 0, "%s", seq[i]);
        if (g.phase == DDZ_PHASE_OVER)
            break;
        cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
        cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
    }
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_eq(g.winner, 0);
    cr_assert_eq(g.weight[0], 10 + 16 + 6 + 3);
    cr_assert_eq(g.multiplier, 1);
    cr_assert_eq(g.spring, 1, "noted, though it does not score");
    cr_assert_eq(g.score[0], 235 / 100.0);
    cr_assert_eq(g.score[1], 0.0);
    cr_assert_eq(g.score[2], 0.0);
}

/* botzone-ftl: a fault ends the game, -1 for the faulty side, 2.5 for the
 * other; the farmers are one side. */
Test(game, botzone_ftl_fault_is_minus_one_against_two_and_a_half)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    for (int seat = 0; seat < 3; seat++) {
        ddz_game_start(&g, &ddz_rules_botzone_ftl, &d, 0);
        cr_assert_eq(ddz_game_play(&g, 0, cards("5")), 0);
        cr_assert_eq(ddz_game_fault(&g, seat, DDZ_FAULT_TIMEOUT), 0);
        cr_assert_eq(g.phase, DDZ_PHASE_OVER);
        cr_assert_eq(g.winner, -1);
        cr_assert_eq(g.nfaults, 1);
        cr_assert_eq(g.faults[0].at, 1, "after one play");
        for (int s = 0; s < 3; s++)
            cr_assert_eq(g.score[s], (s == 0) == (seat == 0) ? -1.0 : 2.5, "seat %d faulted", seat);
    }
}

/* botzone-ftl2: all three pass: West is the landlord at bid 1. */
Test(game, botzone_ftl2_all_pass_makes_west_landlord_at_one)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_botzone_ftl2, &d, 0);
    cr_assert_eq(g.phase, DDZ_PHASE_BID);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(ddz_game_bid(&g, s, 0), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_PLAY);
    cr_assert_eq(g.landlord, 0);
    cr_assert_eq(g.bid, 1);
    cr_assert_eq(g.turn, 0);
    cr_assert_eq(ddz_cards_count(g.hand[0]), 20);
    /* and bid 2 by East after two passes is an ordinary landlord */
    ddz_game_start(&g, &ddz_rules_botzone_ftl2, &d, 0);
    cr_assert_eq(ddz_game_bid(&g, 0, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 2, 2), 0);
    cr_assert_eq(g.landlord, 2);
    cr_assert_eq(g.bid, 2);
}

/* botzone-ftl2: the multiplier is max(bid, 1) x 2^(bombs + rocket + spring
 * + anti-spring), the landlord scores 2m, each farmer m. The spring of
 * spring_with_bomb_and_rocket: 2 x 2^3 = 16. */
Test(game, botzone_ftl2_multiplier_doubles_per_bomb)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_botzone_ftl2, &d, 0);
    cr_assert_eq(ddz_game_bid(&g, 0, 2), 0);
    cr_assert_eq(ddz_game_bid(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_bid(&g, 2, 0), 0);
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    for (int i = 0; i < 6 && g.phase == DDZ_PHASE_PLAY; i++) {
        cr_assert_eq(ddz_game_play(&g, 0, cards(seq[i])), 0, "%s", seq[i]);
        if (g.phase == DDZ_PHASE_PLAY) {
            cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
            cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
        }
    }
    cr_assert_eq(g.winner, 0);
    cr_assert(g.spring && g.bombs == 1 && g.rocket);
    cr_assert_eq(g.multiplier, 2 << 3);
    cr_assert_eq(g.score[0], 32.0);
    cr_assert_eq(g.score[1], -16.0);
    cr_assert_eq(g.score[2], -16.0);
}

/* botzone-ftl2: after a fault the game goes on; the faulty seat may only
 * take its stand-in's action (bid 0; pass when following; its lowest card
 * on lead); it is charged once; the third faulty seat ends the game at -1
 * each. */
Test(game, botzone_ftl2_plays_on_after_faults)
{
    ddz_deal d = deal_with(west_rich, "48,5,9");
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_botzone_ftl2, &d, 0);
    cr_assert_eq(ddz_game_bid(&g, 0, 1), 0);
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_TIMEOUT), 0, "South, asked to bid, times out");
    cr_assert_eq(g.phase, DDZ_PHASE_BID, "the game goes on");
    cr_assert(ddz_game_standin_due(&g));
    cr_assert_eq(g.faults[0].at, -1);
    cr_assert_eq(g.faults[0].bids, 1);
    ddz_game before = g;
    cr_assert_eq(ddz_game_bid(&g, 1, 2), DDZ_ESTANDIN, "its stand-in bids 0");
    cr_assert(memcmp(&g, &before, sizeof g) == 0);
    cr_assert_eq(ddz_game_bid(&g, 1, ddz_game_standin_bid(&g)), 0);
    cr_assert_eq(ddz_game_bid(&g, 2, 0), 0);
    cr_assert_eq(g.landlord, 0);
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_CRASH), DDZ_EPHASE, "charged once a game");
    cr_assert_eq(ddz_game_play(&g, 0, cards("8")), 0); /* West: a 5 */
    cr_assert_eq(ddz_game_standin_play(&g), 0, "following: a pass");
    cr_assert_eq(ddz_game_play(&g, 1, cards("10")), DDZ_ESTANDIN);
    cr_assert_eq(ddz_game_play(&g, 1, 0), 0);
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_ILLEGAL), 0, "West, not to move, crashes");
    cr_assert_eq(g.faults[1].at, 2);
    cr_assert_eq(g.nfaults, 2);
    cr_assert_eq(g.fault_seat, 1, "the first fault");
    cr_assert_eq(ddz_game_play(&g, 2, 0), 0);
    /* West leads for itself now: its lowest card */
    cr_assert(ddz_game_standin_due(&g));
    ddz_cards low = g.hand[0] & (~g.hand[0] + 1);
    cr_assert_eq(ddz_game_standin_play(&g), low);
    cr_assert_eq(ddz_game_play(&g, 0, low), 0);
    cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_PROTOCOL), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_OVER, "three faulty seats end the game");
    cr_assert_eq(g.winner, -1);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(g.score[s], -1.0);
    cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_PROTOCOL), DDZ_EPHASE);

    /* under caai the fault ends the game, a second one is refused */
    ddz_game_start(&g, &ddz_rules_caai, &d, 350);
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_CRASH), 0);
    cr_assert_eq(g.phase, DDZ_PHASE_OVER);
    cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_CRASH), DDZ_EPHASE);
}
