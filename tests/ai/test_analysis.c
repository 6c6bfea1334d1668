/* test_analysis.c - ai/analysis on hand-made records.
 *
 * The main record is a caai game scripted so that its end is known by
 * hand: West, the landlord, comes to lead holding a 2 and a 3 while South
 * holds 4 Q A 2 and East a 5, jokers and bombs gone. Leading the 2 wins
 * (nobody beats it; the 3 follows); West leads the 3, South passes and
 * East plays out. The analysis must call that play a win given away and
 * list the 2, and only the 2, as the play that kept it.
 *
 * The witness: every play reported as giving a win away names the play
 * that proved the position won, whatever the budget. Games of ai:random
 * are analysed under node budgets from tiny to ample; each witness is
 * played on the position and the result decided again by a fresh solver
 * with a large budget, and when the keeping plays were listed, it is one
 * of them.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <string.h>

#include "ai/analysis.h"
#include "ai/random.h"
#include "rules/error.h"
#include "view_fixture.h"

/* West (landlord, the leftover KKK included), South, East. */
static const char *const deal_of[3] = {
    "6789TJJJQQQ33KKKK2AA",
    "w445566789TJ43QA2",
    "W34567889 9TT22 7A5",
};

/* The plays in order (seat 0 leads first), "" for a pass. */
static const char *const script[] = {
    "6789T",  "",  "",      /* West's straight; South could beat it, East cannot */
    "JJJQQQ", "",  "",      /* a trio chain nobody can answer */
    "3",      "w", "",  "", /* South takes the lead with the small joker */
    "445566", "",  "",      /* South dumps a pair chain... */
    "789TJ",  "",  "",      /* ...and a straight */
    "3",      "W", "",  "", /* East takes the lead with the big joker */
    "34567",  "",  "",      /* East dumps */
    "8899TT", "",  "",  "22", "", "", "7", "", "", "A", "KKKK", "", "", /* West bombs East's ace */
    "AA",     "",  "",  /* and leads its pair: West 2 3, South 4 Q A 2, East 5 */
    "3",      "",  "5", /* ply 39: the 3 gives the win away; East plays out */
};
enum { NSCRIPT = sizeof script / sizeof script[0], BLUNDER = 39 };

static ddz_ranks ranks_of(const char *s)
{
    return ddz_cards_ranks(hand_of(s, 0));
}

/* Plays `nplays` plays of the script into `r` (caai, West bids 3) and,
 * when fault_at >= 0, charges East a timeout before play fault_at. */
static void scripted(ddz_record *r, int nplays, int fault_at)
{
    memset(r, 0, sizeof *r);
    strcpy(r->rules, "caai");
    ddz_cards west = hand_of(deal_of[0], 0);
    ddz_cards south = hand_of(deal_of[1], west);
    ddz_cards east = hand_of(deal_of[2], west | south);
    cr_assert_eq(ddz_cards_count(west), 20);
    cr_assert_eq(ddz_cards_count(south), 17);
    cr_assert_eq(ddz_cards_count(east), 17);
    cr_assert_eq(west | south | east, DDZ_CARDS_ALL);
    r->deal.leftover = hand_of("KKK", 0);
    r->deal.hand[0] = west & ~r->deal.leftover;
    r->deal.hand[1] = south;
    r->deal.hand[2] = east;
    r->early_penalty = 350;
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &r->deal, r->early_penalty);
    cr_assert_eq(ddz_game_bid(&g, 0, 3), 0);
    r->nbids = 1;
    r->bids[0] = 3;
    for (int i = 0; i < nplays; i++) {
        int seat = g.turn;
        ddz_cards c = ddz_cards_pick(g.hand[seat], ranks_of(script[i]));
        cr_assert(c || !script[i][0], "play %d: %s not held", i, script[i]);
        bool forced = !c && ddz_game_must_pass(&g);
        cr_assert_eq(ddz_game_play(&g, seat, c), 0, "play %d: %s", i, script[i]);
        r->plays[r->nplays++] =
            (ddz_record_play){.seat = (uint8_t)seat, .autopass = forced, .cards = c};
    }
    if (fault_at >= 0)
        cr_assert_eq(ddz_game_fault(&g, 2, DDZ_FAULT_TIMEOUT), 0);
    ddz_record_finish(r, &g);
    for (int s = 0; s < 3; s++)
        snprintf(r->names[s], sizeof r->names[s], "seat%d", s);
    char err[128];
    cr_assert_eq(ddz_record_replay(r, &ddz_rules_caai, &g, err, sizeof err), 0, "%s", err);
}

static ddz_analysis_ply ply;

Test(analysis, reports_a_forced_win_given_away_with_its_keeps)
{
    static ddz_record r;
    scripted(&r, NSCRIPT, -1);
    cr_assert_eq(r.winner, 2, "East won");
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), NSCRIPT);
    ddz_analysis_budget b = {.nodes = 200000};
    int n = 0, last_after = -1, known = 0;
    while (ddz_analysis_next(&a, sv, &b, &ply) == 1) {
        cr_assert_eq(ply.ply, n);
        cr_assert_eq(ply.seat, r.plays[n].seat);
        cr_assert_eq(ply.cards, r.plays[n].cards);
        cr_assert_eq(ply.autopass, r.plays[n].autopass);
        if (n > 0)
            cr_assert_eq(ply.before, last_after, "ply %d: before is the last ply's after", n);
        cr_assert_eq(ply.took, 0, "ply %d: exact verdicts never swing to the mover", n);
        known += ply.before != DDZ_VERDICT_UNKNOWN;
        if (ply.gave) {
            cr_assert_geq(ply.nkeeps, 1, "ply %d: a won position has a keeping play", n);
            for (int k = 0; k < ply.nkeeps; k++)
                cr_assert_neq(ddz_cards_pick(ply.hand, ply.keeps[k]), 0);
            cr_assert_eq(ply.witnessed, 1, "ply %d: a win given away names its witness", n);
        } else {
            cr_assert_eq(ply.nkeeps, -1);
        }
        if (n == BLUNDER) {
            cr_assert_eq(ply.seat, 0);
            cr_assert_eq(ply.before, DDZ_VERDICT_LANDLORD);
            cr_assert_eq(ply.after, DDZ_VERDICT_FARMERS);
            cr_assert_eq(ply.gave, 1);
            cr_assert_eq(ply.nkeeps, 1, "only the 2 keeps the win: %d listed", ply.nkeeps);
            cr_assert_eq(ply.keeps[0], ranks_of("2"));
            cr_assert_eq(ddz_cards_pick(ply.hand, ply.keeps[0]), ply.hand & hand_of("2222", 0));
            cr_assert_eq(ply.witness, ranks_of("2"), "the 2 proved the position won");
        }
        if (n == BLUNDER - 3) /* West's AA: a won position kept */
            cr_assert(ply.before == DDZ_VERDICT_LANDLORD && ply.after == DDZ_VERDICT_LANDLORD);
        if (n == NSCRIPT - 1)
            cr_assert_eq(ply.after, DDZ_VERDICT_FARMERS, "the game is over: East won");
        last_after = ply.after;
        n++;
    }
    cr_assert_eq(n, NSCRIPT);
    cr_assert_eq(ddz_analysis_next(&a, sv, &b, &ply), 0, "and stays done");
    cr_log_info("%d of %d positions decided within %ld nodes", known, n, b.nodes);
    /* the tally counts each seat's own plays, not the referee's passes */
    int own[3] = {0, 0, 0};
    for (int i = 0; i < r.nplays; i++)
        own[r.plays[i].seat] += !r.plays[i].autopass;
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(a.tally[s].positions, own[s], "seat %d", s);
        cr_assert_eq(a.tally[s].took, 0);
    }
    cr_assert_geq(a.tally[0].gave, 1);
    ddz_solver_destroy(sv);
}

/* Plays a caai game of three ai:random from `rng` into `r`, with the
 * referee's forced passes marked as scripted() marks them. Returns 1, or 0
 * when all passed (no play to analyse). */
static int random_game(ddz_record *r, ddz_rng *rng)
{
    static ddz_move mv[DDZ_MOVES_MAX];
    memset(r, 0, sizeof *r);
    strcpy(r->rules, "caai");
    uint8_t seed[DDZ_SEED_BYTES];
    for (int i = 0; i < DDZ_SEED_BYTES; i++)
        seed[i] = (uint8_t)ddz_rng_below(rng, 256);
    cr_assert_eq(ddz_deal_from_seed(seed, &r->deal), 0);
    r->early_penalty = 350;
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &r->deal, r->early_penalty);
    while (g.phase == DDZ_PHASE_BID) {
        ddz_view v;
        ddz_view_of(&g, g.turn, &v);
        int b = ddz_random_bid(rng, &v);
        cr_assert_eq(ddz_game_bid(&g, g.turn, b), 0);
        r->bids[r->nbids++] = (uint8_t)b;
    }
    while (g.phase == DDZ_PHASE_PLAY) {
        int seat = g.turn;
        ddz_view v;
        ddz_view_of(&g, seat, &v);
        bool forced = ddz_game_must_pass(&g);
        ddz_cards c = ddz_random_play(rng, &v, mv, DDZ_MOVES_MAX);
        cr_assert_eq(ddz_game_play(&g, seat, c), 0);
        r->plays[r->nplays++] =
            (ddz_record_play){.seat = (uint8_t)seat, .autopass = forced, .cards = c};
    }
    ddz_record_finish(r, &g);
    for (int s = 0; s < 3; s++)
        snprintf(r->names[s], sizeof r->names[s], "seat%d", s);
    return r->nplays > 0;
}

/* Checks that `w` (cards) keeps the win for the mover of `g`: it is legal,
 * and after it the mover's side wins, decided by `check` (a solver of its
 * own) within a large budget. */
static void assert_keeps(ddz_solver *check, const ddz_game *g, ddz_cards w, const char *what)
{
    ddz_game c = *g;
    int seat = g->turn;
    int mine = seat == g->landlord ? DDZ_SIDE_LANDLORD : DDZ_SIDE_FARMERS;
    cr_assert_eq(ddz_game_play(&c, seat, w), 0, "%s: the witness is a legal play", what);
    if (c.phase == DDZ_PHASE_OVER) {
        int won = c.winner == c.landlord ? DDZ_SIDE_LANDLORD : DDZ_SIDE_FARMERS;
        cr_assert_eq(won, mine, "%s: the witness ends the game won", what);
        return;
    }
    ddz_solver_pos p;
    cr_assert_eq(ddz_solver_pos_of_game(&c, &p), 0);
    ddz_solver_budget b = {.nodes = 50000000};
    ddz_solver_forget(check);
    cr_assert_eq(ddz_solver_solve(check, &ddz_rules_caai, &p, &b), mine,
                 "%s: after the witness the mover's side wins", what);
}

Test(analysis, every_win_given_away_names_a_keeping_play_under_any_budget)
{
    static ddz_record r;
    ddz_solver *sv = ddz_solver_create(0), *check = ddz_solver_create(20);
    cr_assert(sv && check);
    ddz_rng rng;
    ddz_rng_seed(&rng, 0xa11ce);
    static const long budgets[] = {200, 2000, 20000, 200000};
    int gave = 0, unlisted = 0, games = 0;
    while (games < 12) {
        if (!random_game(&r, &rng))
            continue;
        games++;
        for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
            ddz_analysis a;
            cr_assert_gt(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), 0);
            ddz_analysis_budget b = {.nodes = budgets[k]};
            ddz_game g = a.game; /* the position before the next ply, beside the analysis */
            while (ddz_analysis_next(&a, sv, &b, &ply) == 1) {
                char what[96];
                snprintf(what, sizeof what, "game %d ply %d at %ld nodes", games, ply.ply,
                         budgets[k]);
                cr_assert_eq(ply.witnessed,
                             ply.before == (g.turn == g.landlord ? DDZ_VERDICT_LANDLORD
                                                                 : DDZ_VERDICT_FARMERS),
                             "%s: a witness exactly for the mover's won positions", what);
                if (ply.gave) {
                    gave++;
                    unlisted += ply.nkeeps < 0;
                    cr_assert_eq(ply.witnessed, 1, "%s", what);
                    ddz_cards w = ddz_cards_pick(ply.hand, ply.witness);
                    cr_assert_eq(ddz_cards_ranks(w), ply.witness, "%s: held", what);
                    assert_keeps(check, &g, w, what);
                    bool listed = ply.nkeeps < 0;
                    for (int i = 0; i < ply.nkeeps; i++)
                        listed |= ply.keeps[i] == ply.witness;
                    cr_assert(listed, "%s: the witness is one of the keeping plays", what);
                }
                cr_assert_eq(ddz_game_play(&g, ply.seat, ply.cards), 0);
            }
        }
    }
    cr_log_info("%d games: %d wins given away, %d with the keeping plays not listed", games, gave,
                unlisted);
    /* the point of the witness: marks whose list ran out of budget */
    cr_assert_gt(unlisted, 0, "no mark ran out listing: the test proves nothing");
    cr_assert_gt(gave, unlisted);
    ddz_solver_destroy(check);
    ddz_solver_destroy(sv);
}

Test(analysis, a_spent_budget_is_unknown_not_an_error)
{
    static ddz_record r;
    scripted(&r, NSCRIPT, -1);
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), NSCRIPT);
    ddz_analysis_budget b = {.nodes = 1};
    int n = 0;
    while (ddz_analysis_next(&a, sv, &b, &ply) == 1) {
        /* one node decides only a mover who can play out at once: East
         * after South's pass at the end */
        if (n < NSCRIPT - 1)
            cr_assert_eq(ply.before, DDZ_VERDICT_UNKNOWN, "ply %d", n);
        if (n < NSCRIPT - 2)
            cr_assert_eq(ply.after, DDZ_VERDICT_UNKNOWN, "ply %d", n);
        else
            cr_assert_eq(ply.after, DDZ_VERDICT_FARMERS, "ply %d", n);
        cr_assert_eq(ply.gave, 0);
        n++;
    }
    cr_assert_eq(n, NSCRIPT);
    int own = 0;
    for (int i = 0; i < r.nplays; i++)
        own += r.plays[i].seat == 0 && !r.plays[i].autopass;
    cr_assert_eq(a.tally[0].unknown, own, "every one of West's plays is unknown");
    ddz_solver_destroy(sv);
}

Test(analysis, stops_at_a_fault_that_ended_the_game)
{
    static ddz_record r;
    scripted(&r, 20, 20);
    cr_assert_eq(r.fault_seat, 2);
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), 20);
    ddz_analysis_budget b = {.nodes = 1000};
    int n = 0;
    while (ddz_analysis_next(&a, sv, &b, &ply) == 1)
        n++;
    cr_assert_eq(n, 20, "the plays before the fault, none after");
    ddz_solver_destroy(sv);
}

Test(analysis, no_plies_when_all_pass_or_before_the_first_play)
{
    static ddz_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.rules, "caai");
    uint8_t seed[DDZ_SEED_BYTES] = {9};
    ddz_deal_from_seed(seed, &r.deal);
    r.early_penalty = 350;
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &r.deal, 350);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(ddz_game_bid(&g, s, 0), 0);
        r.bids[r.nbids++] = 0;
    }
    ddz_record_finish(&r, &g);
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), 0, "all passed");
    cr_assert_eq(ddz_analysis_next(&a, sv, NULL, &ply), 0);

    /* a fault while bidding ends the game before any play */
    memset(&r, 0, sizeof r);
    strcpy(r.rules, "caai");
    ddz_deal_from_seed(seed, &r.deal);
    r.early_penalty = 350;
    ddz_game_start(&g, &ddz_rules_caai, &r.deal, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 1), 0);
    r.bids[r.nbids++] = 1;
    cr_assert_eq(ddz_game_fault(&g, 1, DDZ_FAULT_CRASH), 0);
    ddz_record_finish(&r, &g);
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), 0, "fault while bidding");
    cr_assert_eq(ddz_analysis_next(&a, sv, NULL, &ply), 0);
    ddz_solver_destroy(sv);
}

Test(analysis, refuses_a_record_that_does_not_replay)
{
    static ddz_record r;
    scripted(&r, NSCRIPT, -1);
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    r.plays[5].cards = hand_of("3", 0); /* East plays a 3 on West's trio chain */
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), DDZ_EVERIFY);
    cr_assert_eq(ddz_analysis_next(&a, sv, NULL, &ply), 0, "nothing to analyse");
    scripted(&r, NSCRIPT, -1);
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_botzone_ftl, sv), DDZ_EVERIFY,
                 "bids under a rule set without bidding");
    ddz_solver_destroy(sv);
}

Test(analysis, verdict_names)
{
    cr_assert_str_eq(ddz_verdict_name(DDZ_VERDICT_LANDLORD), "landlord");
    cr_assert_str_eq(ddz_verdict_name(DDZ_VERDICT_FARMERS), "farmers");
    cr_assert_str_eq(ddz_verdict_name(DDZ_VERDICT_UNKNOWN), "unknown");
    cr_assert_str_eq(ddz_verdict_name(7), "unknown");
}

/* ddz_analysis_position and ddz_analysis_skip walk the same positions as
 * ddz_analysis_next, and a ply decided after a skip is decided afresh, not
 * given the verdict carried from before the skip. */
Test(analysis, skipping_walks_the_same_positions_and_decides_afresh)
{
    static ddz_record r;
    static ddz_game seen[DDZ_RECORD_MAX_PLAYS];
    ddz_solver *sv = ddz_solver_create(0), *check = ddz_solver_create(0);
    cr_assert(sv && check);
    ddz_rng rng;
    ddz_rng_seed(&rng, 0x5c1b);
    ddz_analysis_budget b = {.nodes = 2000};
    int games = 0, fresh = 0;
    while (games < 12) {
        if (!random_game(&r, &rng))
            continue;
        games++;
        ddz_analysis a;
        int n = ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv);
        cr_assert_gt(n, 0);
        for (int i = 0; i < n; i++) {
            const ddz_game *g = ddz_analysis_position(&a);
            cr_assert_not_null(g);
            seen[i] = *g;
            cr_assert_eq(ddz_analysis_next(&a, sv, &b, &ply), 1);
        }
        cr_assert_null(ddz_analysis_position(&a));

        /* skipping: the same positions, then nothing */
        cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), n);
        for (int i = 0; i < n; i++) {
            const ddz_game *g = ddz_analysis_position(&a);
            cr_assert_not_null(g);
            for (int s = 0; s < 3; s++)
                cr_assert_eq(g->hand[s], seen[i].hand[s], "game %d ply %d", games, i);
            cr_assert_eq(g->turn, seen[i].turn);
            cr_assert_eq(g->last_seat, seen[i].last_seat);
            cr_assert_eq(g->last.type, seen[i].last.type);
            cr_assert_eq(g->last.rank, seen[i].last.rank);
            cr_assert_eq(g->last.length, seen[i].last.length);
            cr_assert_eq(g->phase, DDZ_PHASE_PLAY);
            cr_assert_eq(a.next, i);
            cr_assert_eq(ddz_analysis_skip(&a), 1);
        }
        cr_assert_null(ddz_analysis_position(&a));
        cr_assert_eq(ddz_analysis_skip(&a), 0);

        /* next, skip, next in the endgame: the last next decides its own
         * position (all decided: they are small), not the skipped one's */
        if (n < 3)
            continue;
        cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), n);
        for (int i = 0; i < n - 3; i++)
            cr_assert_eq(ddz_analysis_skip(&a), 1);
        cr_assert_eq(ddz_analysis_next(&a, sv, NULL, &ply), 1);
        cr_assert_eq(ddz_analysis_skip(&a), 1);
        cr_assert_eq(ddz_analysis_next(&a, sv, NULL, &ply), 1);
        cr_assert_eq(ply.ply, n - 1);
        ddz_solver_pos p;
        cr_assert_eq(ddz_solver_pos_of_game(&seen[n - 1], &p), 0);
        cr_assert_eq(ply.before, ddz_solver_solve(check, &ddz_rules_caai, &p, NULL), "game %d",
                     games);
        /* its witness is a play of this mover's, when its side wins */
        cr_assert_eq(ply.witnessed, ply.before == ddz_solver_side(&p, p.turn), "game %d", games);
        if (ply.witnessed)
            cr_assert(ddz_ranks_within(ply.witness, p.hand[p.turn]), "game %d", games);
        fresh++;
    }
    cr_assert_gt(fresh, 6);
    ddz_solver_destroy(sv);
    ddz_solver_destroy(check);
}

Test(analysis, skipping_stops_at_a_fault_that_ended_the_game)
{
    static ddz_record r;
    scripted(&r, 20, 20);
    ddz_solver *sv = ddz_solver_create(0);
    ddz_analysis a;
    cr_assert_eq(ddz_analysis_begin(&a, &r, &ddz_rules_caai, sv), 20);
    int n = 0;
    while (ddz_analysis_skip(&a) == 1)
        n++;
    cr_assert_eq(n, 20, "the plays before the fault, none after");
    cr_assert_null(ddz_analysis_position(&a));
    ddz_solver_destroy(sv);
}
