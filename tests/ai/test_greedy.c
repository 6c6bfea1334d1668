/* test_greedy.c - ai:greedy plays legally, beats random, and follows its rules.
 *
 * Legality: thousands of seeded games with greedy in every seat and mixed
 * with ai:random, each bid and play checked by the game state machine.
 * Strength: duplicate deals (every deal played three times, the tested
 * side in each seat once) against ai:random, with a 95% confidence
 * interval on the mean score per deal. Behaviour: hand-built views for the
 * rules greedy.c documents. DDZ_TEST_SCALE=k divides the game counts by k
 * (the sanitizer build), never below a floor that keeps them meaningful.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "test_scale.h"
#include "ai/greedy.h"
#include "ai/random.h"
#include "rules/game.h"
#include "view_fixture.h"

static ddz_move moves[DDZ_MOVES_MAX];

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
}

/* ---------------------------------------------------------------------- */
/* Whole games                                                             */

enum { RANDOM = 0, GREEDY = 1 };

static void deal_k(uint32_t k, ddz_deal *d)
{
    static const uint8_t master[DDZ_SEED_BYTES] = {0x67, 0x72, 0x65, 0x65, 0x64, 0x79};
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(master, k, seed);
    cr_assert_eq(ddz_deal_from_seed(seed, d), 0);
}

/* Plays `d` to the end with kind[s] in seat s, asserting that the game
 * accepts every decision and that greedy's are deterministic. */
static void play_game(const ddz_deal *d, const int kind[3], ddz_rng *rng, ddz_game *g)
{
    ddz_game_start(g, &ddz_rules_caai, d, 350);
    for (int step = 0; g->phase != DDZ_PHASE_OVER; step++) {
        cr_assert_lt(step, 3 + 3 * 54, "the game must end");
        int s = g->turn;
        ddz_view v;
        ddz_view_of(g, s, &v);
        if (g->phase == DDZ_PHASE_BID) {
            int b = kind[s] == GREEDY ? ddz_greedy_bid(&v) : ddz_random_bid(rng, &v);
            int rc = ddz_game_bid(g, s, b);
            cr_assert_eq(rc, 0, "seat %d (%s) bid %d rejected: %d", s,
                         kind[s] == GREEDY ? "greedy" : "random", b, rc);
        } else {
            ddz_cards c;
            if (kind[s] == GREEDY) {
                c = ddz_greedy_play(&v, moves, DDZ_MOVES_MAX);
                cr_assert_eq(ddz_greedy_play(&v, moves, DDZ_MOVES_MAX), c, "deterministic");
            } else {
                c = ddz_random_play(rng, &v, moves, DDZ_MOVES_MAX);
            }
            int rc = ddz_game_play(g, s, c);
            cr_assert_eq(rc, 0, "seat %d (%s) play %#llx rejected: %d", s,
                         kind[s] == GREEDY ? "greedy" : "random", (unsigned long long)c, rc);
        }
    }
}

Test(greedy, every_bid_and_play_is_legal, .init = init)
{
    int n = scaled(3600, 360);
    ddz_rng rng;
    ddz_rng_seed(&rng, 11);
    int games[8] = {0};
    for (int k = 0; k < n; k++) {
        /* seats as bits: 7 = greedy everywhere, 1..6 mixed with random */
        int mask = k % 2 == 0 ? 7 : 1 + (k / 2) % 6;
        int kind[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
        ddz_deal d;
        ddz_game g;
        deal_k((uint32_t)k, &d);
        play_game(&d, kind, &rng, &g);
        games[mask]++;
    }
    cr_log_info("greedy legality: %d games, %d all greedy", n, games[7]);
}

/* Plays `deals` duplicate deals: for each, three games with the tested kind
 * `tested` in the seats of each rotation of `pattern` (a seat mask, bit s
 * = seat s tested) and the other kind elsewhere. Returns the mean of the
 * tested side's total score per deal and its standard error in *se; writes
 * the tested seats' game win rate to *win. */
static double duplicate(int deals, int pattern, int tested, double *se, double *win)
{
    ddz_rng rng;
    ddz_rng_seed(&rng, 2024);
    double sum = 0, sum2 = 0;
    long seats = 0, wins = 0;
    for (int k = 0; k < deals; k++) {
        ddz_deal d;
        deal_k(100000u + (uint32_t)k, &d);
        double total = 0;
        for (int rot = 0; rot < 3; rot++) {
            int mask = ((pattern << rot) | (pattern >> (3 - rot))) & 7, kind[3];
            for (int s = 0; s < 3; s++)
                kind[s] = (mask >> s) & 1 ? tested : !tested;
            ddz_game g;
            play_game(&d, kind, &rng, &g);
            for (int s = 0; s < 3; s++) {
                if (!((mask >> s) & 1))
                    continue;
                total += g.score[s];
                if (g.landlord >= 0) {
                    seats++;
                    wins += g.score[s] > 0;
                }
            }
        }
        sum += total;
        sum2 += total * total;
    }
    double mean = sum / deals, var = (sum2 - deals * mean * mean) / (deals - 1);
    *se = sqrt(var / deals);
    *win = seats ? (double)wins / (double)seats : 0;
    return mean;
}

Test(greedy, beats_random_in_duplicate, .init = init)
{
    int deals = scaled(1500, 300);
    double se, win;
    double mean = duplicate(deals, 1, GREEDY, &se, &win);
    cr_log_info("greedy vs 2 random, %d deals x 3 seats: greedy %.1f +- %.1f per deal "
                "(%.1f per game), wins %.1f%% of its games",
                deals, mean, 1.96 * se, mean / 3, 100 * win);
    cr_assert_gt(mean - 1.96 * se, 0, "greedy %.1f +- %.1f per deal", mean, 1.96 * se);

    mean = duplicate(deals, 1, RANDOM, &se, &win);
    cr_log_info("random vs 2 greedy, %d deals x 3 seats: random %.1f +- %.1f per deal "
                "(%.1f per game), wins %.1f%% of its games",
                deals, mean, 1.96 * se, mean / 3, 100 * win);
    cr_assert_lt(mean + 1.96 * se, 0, "random %.1f +- %.1f per deal", mean, 1.96 * se);
}

/* ---------------------------------------------------------------------- */
/* Hand-built views                                                        */

static ddz_cards play(const ddz_view *v)
{
    ddz_cards c = ddz_greedy_play(v, moves, DDZ_MOVES_MAX);
    assert_legal_play(v, c);
    return c;
}

Test(greedy, plays_out_when_one_play_empties_the_hand)
{
    /* leading: a plane with its kickers */
    ddz_view v = table(0, 0, "33344456", "", (int[]){8, 17, 17});
    cr_assert_eq(play(&v), v.hand);

    /* leading: a straight rather than its lowest card */
    v = table(1, 0, "3456789", "", (int[]){15, 7, 17});
    cr_assert_eq(play(&v), v.hand);

    /* leading a four with two kickers, though it spends a bomb */
    v = table(0, 0, "359999", "", (int[]){6, 17, 17});
    cr_assert_eq(play(&v), v.hand);

    /* bombing a small single, though the landlord has many cards */
    v = table(1, 0, "7777", "", (int[]){15, 4, 17});
    opp_plays(&v, 0, "3");
    cr_assert_eq(play(&v), v.hand);

    /* following an opponent's trio with a kicker */
    v = table(2, 0, "5556", "", (int[]){15, 17, 4});
    opp_plays(&v, 0, "3334");
    cr_assert_eq(play(&v), v.hand);

    /* following the partner too: winning is winning */
    v = table(2, 0, "QQ", "", (int[]){15, 10, 2});
    opp_plays(&v, 0, "4");
    opp_plays(&v, 1, "99");
    cr_assert_eq(play(&v), v.hand);
}

Test(greedy, farmer_passes_over_a_winning_partner)
{
    /* seat 2 moves right before the landlord (seat 0); the partner led a K
     * and the landlord has many cards: greedy holds A and 2 but passes */
    ddz_view v = table(2, 0, "34567TTJQA2", "", (int[]){16, 12, 11});
    opp_plays(&v, 1, "K");
    cr_assert_eq(play(&v), 0);

    /* the partner's straight is not overtaken either */
    v = table(2, 0, "3368899TJQKA2", "", (int[]){16, 12, 13});
    opp_plays(&v, 1, "34567");
    cr_assert_eq(play(&v), 0);

    /* seat 1 moves right after the landlord: when the partner's play comes
     * back to it, the landlord has passed already */
    v = table(1, 0, "33578TJQKA22", "", (int[]){16, 12, 11});
    opp_plays(&v, 2, "4");
    opp_plays(&v, 0, "");
    cr_assert_eq(play(&v), 0);

    /* but over an opponent's play the same hand follows */
    v = table(1, 0, "33578TJQKA22", "", (int[]){16, 12, 11});
    opp_plays(&v, 0, "4");
    ddz_cards c = play(&v);
    cr_assert_eq(ddz_cards_count(c), 1, "beats the landlord's single");
}

Test(greedy, tops_the_partner_when_the_landlord_is_about_to_win)
{
    /* the landlord (seat 0) has one card; the partner's low single would
     * let it out: seat 2 plays its highest single */
    ddz_view v = table(2, 0, "3357TJJQA2", "", (int[]){1, 12, 10});
    opp_plays(&v, 1, "6");
    cr_assert_eq(play(&v), ranks_in(&v, "2"));
}

Test(greedy, keeps_bombs_for_when_they_matter)
{
    /* the landlord has many cards: no bomb on its small single, and the
     * bomb is not broken into singles either */
    ddz_view v = table(1, 0, "3344459999", "", (int[]){15, 10, 17});
    opp_plays(&v, 0, "5");
    cr_assert_eq(play(&v), 0);

    /* the landlord is down to two cards and leads an A: bomb it */
    v = table(1, 0, "3344459999", "", (int[]){2, 10, 17});
    opp_plays(&v, 0, "A");
    cr_assert_eq(play(&v), ranks_in(&v, "9999"));

    /* on lead, the bomb stays in the hand while anything else is left */
    v = table(0, 0, "3599992", "", (int[]){7, 17, 17});
    ddz_cards c = play(&v);
    cr_assert_eq(c & ranks_in(&v, "9999"), 0, "neither led nor broken");
    cr_assert_neq(c, 0);
}

Test(greedy, guards_against_an_opponent_with_one_card)
{
    /* following the landlord's single with one card left: the highest */
    ddz_view v = table(1, 0, "33447899TKA2", "", (int[]){1, 12, 17});
    opp_plays(&v, 0, "5");
    cr_assert_eq(play(&v), ranks_in(&v, "2"));

    /* on lead, a farmer does not feed the landlord a single */
    v = table(1, 0, "345889JJQ", "", (int[]){1, 9, 17});
    ddz_combo cb = ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(play(&v)));
    cr_assert_neq(cb.type, DDZ_SINGLE, "led a %s", ddz_type_name(cb.type));
}

/* ---------------------------------------------------------------------- */
/* Rule sets that count plays (botzone-ftl)                                */

/* The landlord (seat 0) under `rs` holds 3333, a 7 and a 2; the other
 * players hold 44556677 88 between them, everything else is gone. The
 * bomb and the 2 cannot be beaten, so the hand is won either way: at once
 * as a four_two (botzone-ftl weight 8), or as bomb, 2, 7 (10 + 1 + 1). */
static ddz_view won_with_a_bomb(const ddz_rules *rs)
{
    ddz_view v = table_in(rs, 0, 0, "333372", "", (int[]){6, 5, 5});
    v.played[1] = DDZ_CARDS_ALL & ~v.hand & ~hand_of("4455667788", v.hand);
    return v;
}

/* Plays the landlord's hand in `v` out with greedy, the others passing (as
 * they must: every play but the last is safe). Returns the plays' total
 * botzone-ftl weight; *bomb tells whether one was a bomb. */
static int play_out_alone(ddz_view v, bool *bomb)
{
    int weight = 0;
    *bomb = false;
    for (int step = 0; v.left[0] > 0; step++) {
        cr_assert_lt(step, 6, "the hand must run out");
        ddz_cards c = play(&v);
        ddz_combo cb = ddz_combo_classify(v.rules, ddz_cards_ranks(c));
        weight += ddz_rules_botzone_ftl.play_weight(&cb);
        *bomb |= cb.type == DDZ_BOMB;
        cr_assert_eq(ddz_view_play(&v, 0, c), 0);
        if (v.left[0] > 0) {
            cr_assert_eq(ddz_view_play(&v, 1, 0), 0);
            cr_assert_eq(ddz_view_play(&v, 2, 0), 0);
            cr_assert_eq(v.last_seat, -1, "the landlord leads again");
        }
    }
    return weight;
}

Test(greedy, botzone_ftl_plays_a_won_hand_by_its_heaviest_line)
{
    bool bomb;
    ddz_view v = won_with_a_bomb(&ddz_rules_botzone_ftl);
    cr_assert_neq(play(&v), v.hand, "not the four_two that empties the hand");
    cr_assert_eq(play_out_alone(v, &bomb), 12);
    cr_assert(bomb, "the four played as a bomb, not split");

    /* where plays are not scored, the hand goes at once, as always */
    v = won_with_a_bomb(&ddz_rules_caai);
    cr_assert_eq(play(&v), v.hand);

    /* the rule comes from the rule set's play_weight, not from its name */
    ddz_rules weighted = ddz_rules_caai, blind = ddz_rules_botzone_ftl;
    weighted.play_weight = ddz_rules_botzone_ftl.play_weight;
    blind.play_weight = NULL;
    v = won_with_a_bomb(&weighted);
    cr_assert_eq(play_out_alone(v, &bomb), 12);
    cr_assert(bomb);
    v = won_with_a_bomb(&blind);
    cr_assert_eq(play(&v), v.hand);
}

Test(greedy, botzone_ftl_leads_the_heavier_of_two_close_plays)
{
    /* early in the game, a farmer: leading the 8 alone or with KKK leaves
     * hands of about the same strength; KKK8 weighs 4, the 8 alone 1 */
    ddz_view v = table_in(&ddz_rules_botzone_ftl, 1, 0, "8JQKKKAA", "", (int[]){15, 8, 17});
    cr_assert_eq(play(&v), ranks_in(&v, "8KKK"));

    ddz_rules blind = ddz_rules_botzone_ftl;
    blind.play_weight = NULL;
    v = table_in(&blind, 1, 0, "8JQKKKAA", "", (int[]){15, 8, 17});
    cr_assert_eq(play(&v), ranks_in(&v, "8"), "without weights, the lone 8");
    v = table(1, 0, "8JQKKKAA", "", (int[]){15, 8, 17});
    cr_assert_eq(play(&v), ranks_in(&v, "8"), "and under caai");
}

Test(greedy, bids_by_hand_strength)
{
    ddz_view v;
    /* weak: no 2, no joker, no A, scattered */
    cr_assert_eq(ddz_view_deal(&v, &ddz_rules_caai, 0, hand_of("3345678899TJQQKK4", 0)), 0);
    cr_assert_eq(ddz_greedy_bid(&v), 0);

    /* very strong: rocket, four 2s, A's */
    ddz_cards strong = hand_of("wW2222AAKQJT98543", 0);
    cr_assert_eq(ddz_view_deal(&v, &ddz_rules_caai, 0, strong), 0);
    cr_assert_eq(ddz_greedy_bid(&v), 3);

    /* still 3 after someone bid 2; a weak hand never bids above 0 */
    cr_assert_eq(ddz_view_deal(&v, &ddz_rules_caai, 1, strong), 0);
    cr_assert_eq(ddz_view_bid(&v, 0, 2), 0);
    cr_assert_eq(ddz_greedy_bid(&v), 3);
    cr_assert_eq(ddz_view_deal(&v, &ddz_rules_caai, 2, hand_of("3345678899TJQQKK4", 0)), 0);
    cr_assert_eq(ddz_view_bid(&v, 0, 0), 0);
    cr_assert_eq(ddz_view_bid(&v, 1, 1), 0);
    cr_assert_eq(ddz_greedy_bid(&v), 0);
}

/* ---------------------------------------------------------------------- */
/* Hints (the Hint button: ddz_greedy_hints)                               */

/* Asserts what every hint list must be: legal plays of the seat's own
 * cards, none a pass, none twice, at most `max`. */
static void assert_hints(const ddz_view *v, const ddz_cards *h, int n, int max)
{
    cr_assert_leq(n, max);
    for (int i = 0; i < n; i++) {
        cr_assert_neq(h[i], 0, "hint %d is a pass", i);
        assert_legal_play(v, h[i]);
        for (int j = 0; j < i; j++)
            cr_assert_neq(h[i], h[j], "hint %d repeats hint %d", i, j);
    }
}

/* Returns the position of `c` in the hints, or n if absent. */
static int hint_at(const ddz_cards *h, int n, ddz_cards c)
{
    int i = 0;
    while (i < n && h[i] != c)
        i++;
    return i;
}

/* Leading with a straight in hand: the straight comes first, before any
 * single or pair broken out of it (the old client offered 13 singles and
 * pairs before it). */
Test(greedy, hints_keep_a_straight_whole)
{
    const int left[3] = {17, 8, 17};
    ddz_view v = table(1, 0, "34567 99 J", "", left);
    ddz_cards h[8];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8);
    assert_hints(&v, h, n, 8);
    cr_assert_geq(n, 5);
    ddz_cards straight = ranks_in(&v, "34567");
    cr_assert_eq(h[0], straight, "the straight first, got %#llx", (unsigned long long)h[0]);
    /* and every play from inside the straight comes after it */
    for (int i = 1; i < n; i++)
        cr_assert(hint_at(h, n, straight) < i, "hint %d before the straight", i);
}

/* Following a single: greedy's own choice, a card that breaks nothing (K,
 * A), comes first; the rest from the smallest up (issue 25: the Hint
 * button cycles plays from the smallest). */
Test(greedy, hints_follow_greedy_first_then_from_the_smallest)
{
    const int left[3] = {17, 9, 17};
    ddz_view v = table(1, 0, "56789 JJ K A", "", left);
    opp_plays(&v, 0, "4");
    ddz_cards h[8];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8);
    assert_hints(&v, h, n, 8);
    cr_assert_eq(n, 8);
    int r0 = ddz_combo_classify(v.rules, ddz_cards_ranks(h[0])).rank;
    cr_assert(r0 == DDZ_RANK_A || r0 == 10, "hint 0: rank %d breaks a combination", r0);
    int prev = -1;
    for (int i = 1; i < n; i++) {
        ddz_combo c = ddz_combo_classify(v.rules, ddz_cards_ranks(h[i]));
        cr_assert_eq(c.type, DDZ_SINGLE);
        cr_assert_gt(c.rank, prev, "hint %d (rank %d) after rank %d", i, c.rank, prev);
        cr_assert_neq(c.rank, r0, "hint %d repeats the first hint's rank", i);
        prev = c.rank;
    }
    cr_assert_eq(ddz_combo_classify(v.rules, ddz_cards_ranks(h[1])).rank, 2, "the 5 second");
}

/* An airplane with kickers: its shape is offered once, whatever the
 * kickers (the tester saw the same 666555 airplane five times in a row);
 * no two hints are the same shape, and bombs come after every other play. */
Test(greedy, hints_one_play_per_shape)
{
    const int left[3] = {20, 17, 17};
    ddz_view v = table(0, 0, "555666 3 4 8 9 T J 7777 QQ K A", "", left);
    ddz_cards h[64];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 64);
    assert_hints(&v, h, n, 64);
    int planes = 0;
    bool bomb_seen = false;
    for (int i = 0; i < n; i++) {
        ddz_combo c = ddz_combo_classify(v.rules, ddz_cards_ranks(h[i]));
        if (c.type == DDZ_PLANE && c.kicker == DDZ_KICK_SINGLE && c.length == 2 && c.rank == 3)
            planes++; /* 555666 + two singles */
        if (i > 0) {
            cr_assert(!(bomb_seen && c.type != DDZ_BOMB && c.type != DDZ_ROCKET),
                      "hint %d: a play that is no bomb after a bomb", i);
            bomb_seen |= c.type == DDZ_BOMB;
        }
        for (int j = 0; j < i; j++) {
            ddz_combo d = ddz_combo_classify(v.rules, ddz_cards_ranks(h[j]));
            cr_assert(!(c.type == d.type && c.rank == d.rank && c.length == d.length &&
                        c.kicker == d.kicker),
                      "hints %d and %d are the same shape", j, i);
        }
    }
    cr_assert_eq(planes, 1, "the 555666 airplane with two singles offered %d times", planes);
}

/* A forced play (only the rocket beats QQQQ): it is the one hint, and the
 * client pre-selects a play that is the only one. */
Test(greedy, hints_a_forced_play_alone)
{
    const int left[3] = {17, 6, 13};
    ddz_view v = table(1, 0, "345 8 wW", "", left);
    opp_plays(&v, 0, "QQQQ");
    ddz_cards h[8];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8);
    cr_assert_eq(n, 1);
    cr_assert_eq(h[0], ranks_in(&v, "wW"));
}

/* Nothing beats the last play: no hint (the client offers the pass). */
Test(greedy, hints_empty_when_only_passing)
{
    const int left[3] = {17, 3, 17};
    ddz_view v = table(1, 0, "345", "", left);
    opp_plays(&v, 0, "W");
    ddz_cards h[8];
    cr_assert_eq(ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8), 0);
}

/* Whether `c`, played from `hand`, spends a bomb or the rocket as
 * something else, counted the slow way, rank by rank: some of a four
 * held, or all of it with other cards; one joker of the two held, or both
 * with other cards. */
static bool spends_bomb_slow(ddz_cards hand, ddz_cards c)
{
    int size = ddz_cards_count(c);
    for (int r = 0; r <= DDZ_RANK_2; r++) {
        int held = ddz_cards_count(ddz_cards_of_rank(hand, r));
        int used = ddz_cards_count(ddz_cards_of_rank(c, r));
        if (held == 4 && used > 0 && (used < 4 || size != 4))
            return true;
    }
    ddz_cards jokers = ddz_cards_of_rank(hand, DDZ_RANK_SJ) | ddz_cards_of_rank(hand, DDZ_RANK_BJ);
    int used = ddz_cards_count(c & jokers);
    return ddz_cards_count(jokers) == 2 && used > 0 && (used < 2 || size != 2);
}

static bool bomb_or_rocket(const ddz_view *v, ddz_cards c)
{
    ddz_combo k = ddz_combo_classify(v->rules, ddz_cards_ranks(c));
    return k.type == DDZ_BOMB || k.type == DDZ_ROCKET;
}

/* Asserts what every hint list of `v` must be with room for all (`n` of
 * them): legal, no bomb nor the rocket spent as anything else, every bomb
 * and the rocket after every other play (the rocket last), one play per
 * shape, and every shape of the legal plays that spend none offered,
 * every bomb and the rocket among them. */
static void assert_bombs_whole(const ddz_view *v, const ddz_cards *h, int n)
{
    static ddz_cards all[DDZ_MOVES_MAX];
    assert_hints(v, h, n, DDZ_MOVES_MAX);
    bool bombs = false;
    for (int i = 0; i < n; i++) {
        ddz_combo c = ddz_combo_classify(v->rules, ddz_cards_ranks(h[i]));
        cr_assert(!spends_bomb_slow(v->hand, h[i]), "hint %d (%#llx) spends a bomb", i,
                  (unsigned long long)h[i]);
        cr_assert(!bombs || bomb_or_rocket(v, h[i]), "hint %d: a play that is no bomb after a bomb",
                  i);
        bombs |= bomb_or_rocket(v, h[i]);
        if (c.type == DDZ_ROCKET)
            cr_assert_eq(i, n - 1, "the rocket last");
        for (int j = 0; j < i; j++) {
            ddz_combo d = ddz_combo_classify(v->rules, ddz_cards_ranks(h[j]));
            cr_assert(!(c.type == d.type && c.rank == d.rank && c.length == d.length &&
                        c.kicker == d.kicker),
                      "hints %d and %d are the same shape", j, i);
        }
    }
    /* every shape offered: each legal play that spends no bomb has a hint
     * of its shape */
    int m = ddz_movegen(v->rules, ddz_cards_ranks(v->hand), v->last_seat < 0 ? NULL : &v->last,
                        moves, DDZ_MOVES_MAX);
    cr_assert_geq(m, 0);
    int k = 0;
    for (int i = 0; i < m; i++)
        if (moves[i].ranks && !spends_bomb_slow(v->hand, ddz_cards_pick(v->hand, moves[i].ranks)))
            all[k++] = ddz_cards_pick(v->hand, moves[i].ranks);
    for (int i = 0; i < k; i++) {
        ddz_combo c = ddz_combo_classify(v->rules, ddz_cards_ranks(all[i]));
        bool found = false;
        for (int j = 0; j < n && !found; j++) {
            ddz_combo d = ddz_combo_classify(v->rules, ddz_cards_ranks(h[j]));
            found = c.type == d.type && c.rank == d.rank && c.length == d.length &&
                    c.kicker == d.kicker;
        }
        cr_assert(found, "the play %#llx that spends no bomb has no hint of its shape",
                  (unsigned long long)all[i]);
    }
}

/* Holding QQQQ over a pair: the tester's hints were QQ, KK, QQQQ, and
 * following them spent the bomb as a pair. Now the KK, then the bomb
 * whole; never QQ or QQQ. */
Test(greedy, hints_keep_a_bomb_whole_when_following)
{
    const int left[3] = {17, 8, 17};
    ddz_view v = table(1, 0, "QQQQ KK 3 5", "", left);
    opp_plays(&v, 0, "JJ");
    ddz_cards h[8];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8);
    assert_bombs_whole(&v, h, n);
    cr_assert_eq(n, 2, "KK and the bomb: %d hints", n);
    cr_assert_eq(h[0], ranks_in(&v, "KK"));
    cr_assert_eq(h[1], ranks_in(&v, "QQQQ"));
}

/* Leading with QQQQ among a long straight's cards: no single Q, no QQ or
 * QQQ, no straight through a Q, no four with kickers; every other shape
 * first, then QQQQ. */
Test(greedy, hints_keep_a_bomb_whole_when_leading)
{
    const int left[3] = {17, 16, 17};
    ddz_view v = table(1, 0, "3456789TJ QQQQ KK A", "", left);
    static ddz_cards h[DDZ_MOVES_MAX];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, DDZ_MOVES_MAX);
    assert_bombs_whole(&v, h, n);
    cr_assert_gt(n, 10);
    cr_assert_eq(h[n - 1], ranks_in(&v, "QQQQ"), "the bomb last");
    for (int i = 0; i < n - 1; i++)
        cr_assert_eq(h[i] & ranks_in(&v, "QQQQ"), 0, "hint %d holds a Q", i);
    /* the longest straight (3 to J) is offered, as greedy's choice or a shape */
    cr_assert_lt(hint_at(h, n, ranks_in(&v, "3456789TJ")), n);
    /* room for four: three others, from the smallest after greedy's
     * choice, and the bomb still last */
    ddz_cards few[4];
    cr_assert_eq(ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, few, 4), 4);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(few[i], h[i], "hint %d as in the whole list", i);
    cr_assert_eq(few[3], ranks_in(&v, "QQQQ"), "the bomb is never cut");
}

/* The rocket held: over an A, the 2 and then the rocket, never a joker
 * alone; leading with a bomb too, the bomb after every other play and the
 * rocket after the bomb. */
Test(greedy, hints_keep_the_rocket_whole)
{
    const int left[3] = {17, 5, 17};
    ddz_view v = table(1, 0, "wW 2 3 4", "", left);
    opp_plays(&v, 0, "A");
    ddz_cards h[8];
    int n = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, 8);
    assert_bombs_whole(&v, h, n);
    cr_assert_eq(n, 2);
    cr_assert_eq(h[0], ranks_in(&v, "2"));
    cr_assert_eq(h[1], ranks_in(&v, "wW"));

    const int left2[3] = {17, 10, 17};
    ddz_view w = table(1, 0, "wW 9999 3 4 55", "", left2);
    static ddz_cards all[DDZ_MOVES_MAX];
    n = ddz_greedy_hints(&w, moves, DDZ_MOVES_MAX, all, DDZ_MOVES_MAX);
    assert_bombs_whole(&w, all, n);
    cr_assert_geq(n, 5);
    cr_assert_eq(all[n - 2], ranks_in(&w, "9999"));
    cr_assert_eq(all[n - 1], ranks_in(&w, "wW"));
}

/* On random deals, leading and following: every hint list keeps the
 * bombs and the rocket whole and offers every other shape once. */
Test(greedy, hints_keep_bombs_whole_on_random_deals, .init = init)
{
    int bombs = 0, n = scaled(400, 100);
    for (int k = 0; k < n; k++) {
        ddz_deal d;
        deal_k(50000u + (uint32_t)k, &d);
        ddz_game g;
        ddz_game_start(&g, &ddz_rules_caai, &d, 350);
        cr_assert_eq(ddz_game_bid(&g, g.turn, 3), 0);
        /* the landlord leads, then each seat follows greedy's play */
        for (int step = 0; step < 3 && g.phase == DDZ_PHASE_PLAY; step++) {
            ddz_view v;
            ddz_view_of(&g, g.turn, &v);
            static ddz_cards h[DDZ_MOVES_MAX];
            int m = ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, h, DDZ_MOVES_MAX);
            assert_bombs_whole(&v, h, m);
            for (int i = 0; i < m; i++)
                bombs += bomb_or_rocket(&v, h[i]);
            ddz_cards c = ddz_greedy_play(&v, moves, DDZ_MOVES_MAX);
            cr_assert_eq(ddz_game_play(&g, g.turn, c), 0);
        }
    }
    cr_log_info("%d deals: %d bombs and rockets hinted whole", n, bombs);
    cr_assert_gt(bombs, n / 10, "few hands with a bomb: the test proves little");
}
