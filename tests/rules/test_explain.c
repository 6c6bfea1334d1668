/* test_explain.c - the terms each rule set writes to say how a game's
 * scores came about (ddz_rules.explain, ddz_record_explain), and replaying
 * a record to its end (ddz_record_replay). */
#include <criterion/criterion.h>
#include <math.h>
#include <sodium.h>

#include "proto/text.h"
#include "record_gen.h"
#include "rules/error.h"
#include "rules/record.h"

static ddz_cards cards(const char *codes)
{
    ddz_cards c;
    cr_assert_eq(ddz_text_parse_cards(codes, &c, NULL, 0), 0, "%s", codes);
    return c;
}

/* West gets `west`, the leftover is `left`; the other 34 cards alternate
 * between South and East in ascending order, so neither holds a four (as
 * test_game.c's deals). */
static ddz_deal deal_with(const char *west, const char *left)
{
    ddz_deal d = {{cards(west), 0, 0}, cards(left)};
    int i = 0;
    for (int c = 0; c < DDZ_NCARDS; c++) {
        ddz_cards bit = 1ULL << c;
        if (!((d.hand[0] | d.leftover) & bit))
            d.hand[1 + i++ % 2] |= bit;
    }
    return d;
}

/* bomb of 3s, rocket, 4..A singles (one each) */
static const char *west_rich = "0,1,2,3,52,53,4,8,12,16,20,24,28,32,36,40,44";

/* A game and its plays, as the referee keeps them: the record's plays are
 * what `explain` reads. */
typedef struct played {
    ddz_game g;
    ddz_record r;
} played;

/* Starts p's game under `rs` on the deal of deal_with(west, left), with no
 * plays yet. */
static void start(played *p, const ddz_rules *rs, const char *west, const char *left, int early)
{
    memset(&p->r, 0, sizeof p->r);
    p->r.deal = deal_with(west, left);
    ddz_game_start(&p->g, rs, &p->r.deal, early);
}

static void bid(played *p, int seat, int b)
{
    cr_assert_eq(ddz_game_bid(&p->g, seat, b), 0, "seat %d bids %d", seat, b);
}

static void play(played *p, int seat, ddz_cards c)
{
    cr_assert_eq(ddz_game_play(&p->g, seat, c), 0, "seat %d plays %llx", seat,
                 (unsigned long long)c);
    p->r.plays[p->r.nplays++] = (ddz_record_play){.seat = (uint8_t)seat, .cards = c};
}

/* West leads `seq` (codes per play) while South and East pass, to the end. */
static void west_plays_out(played *p, const char *const *seq, int n)
{
    for (int i = 0; i < n && p->g.phase == DDZ_PHASE_PLAY; i++) {
        play(p, 0, cards(seq[i]));
        if (p->g.phase == DDZ_PHASE_PLAY) {
            play(p, 1, 0);
            play(p, 2, 0);
        }
    }
    cr_assert_eq(p->g.phase, DDZ_PHASE_OVER);
}

/* The terms `want` (a string: "kind[seat][/combo][xCOUNT][!fault][=value];
 * ...") are exactly what the rules write for p's game. */
static void expect_terms(const played *p, const char *want)
{
    ddz_term t[DDZ_TERMS_MAX];
    int n = ddz_record_explain(&p->r, &p->g, t);
    char got[2048] = "";
    for (int i = 0; i < n; i++) {
        unsigned f = ddz_term_fields(t[i].kind);
        char one[96];
        snprintf(one, sizeof one, "%s%s", i ? ";" : "", ddz_term_name(t[i].kind));
        if (f & DDZ_TERM_HAS_SEAT)
            snprintf(one + strlen(one), sizeof one - strlen(one), "%d", t[i].seat);
        if (f & DDZ_TERM_HAS_COMBO)
            snprintf(one + strlen(one), sizeof one - strlen(one), "/%s", ddz_type_name(t[i].combo));
        if (f & DDZ_TERM_HAS_COUNT)
            snprintf(one + strlen(one), sizeof one - strlen(one), "x%d", t[i].count);
        if (f & DDZ_TERM_HAS_FAULT)
            snprintf(one + strlen(one), sizeof one - strlen(one), "!%s",
                     ddz_fault_name(t[i].fault));
        if (f & DDZ_TERM_HAS_VALUE)
            snprintf(one + strlen(one), sizeof one - strlen(one), "=%.15g", t[i].value);
        strncat(got, one, sizeof got - strlen(got) - 1);
    }
    cr_assert_str_eq(got, want);
}

/* ---- caai (spec §5, §6) ---- */

/* test_game.c's spring with a bomb and the rocket, bid 2: multiplier
 * (1 + 1) x 2 x 2 = 8, each farmer 100 x 2 x 8 = 1600, the landlord twice. */
Test(explain, caai_spring_with_bomb_and_rocket)
{
    played p;
    start(&p, &ddz_rules_caai, west_rich, "48,5,9", 350);
    bid(&p, 0, 2), bid(&p, 1, 0), bid(&p, 2, 0);
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    west_plays_out(&p, seq, 6);
    cr_assert_eq(p.g.score[0], 3200);
    expect_terms(&p, "bid=2;start=1;bombsx1=2;rocket=2;spring=2;multiplier=8;unit=16;"
                     "farmer=1600;landlord=3200");
}

/* Two bombs multiply by 1 + 2 = 3, not 4: the bombs' term says so. */
Test(explain, caai_two_bombs_give_three)
{
    played p;
    start(&p, &ddz_rules_caai, "0,1,2,3,4,5,6,7,8,12,16,20,24,28,32,36,40", "44,48,53", 350);
    bid(&p, 0, 3);
    const char *seq[] = {"0,1,2,3", "4,5,6,7", "8",  "12", "16", "20", "24",
                         "28",      "32",      "36", "40", "44", "48", "53"};
    west_plays_out(&p, seq, 14);
    cr_assert_eq(p.g.multiplier, 6);
    expect_terms(&p, "bid=3;start=1;bombsx2=3;spring=2;multiplier=6;unit=18;farmer=1800;"
                     "landlord=3600");
}

/* A fault after the leftover: the penalty's unit, (held bombs + 1) x bid x
 * 100, x2 for a held rocket; before the leftover: the early penalty. */
Test(explain, caai_fault_penalty)
{
    played p;
    start(&p, &ddz_rules_caai, west_rich, "48,5,9", 350);
    for (int seat = 0; seat < 3; seat++) {
        ddz_game_start(&p.g, &ddz_rules_caai, &p.r.deal, 350);
        bid(&p, 0, 2), bid(&p, 1, 0), bid(&p, 2, 0);
        cr_assert_eq(ddz_game_fault(&p.g, seat, DDZ_FAULT_ILLEGAL), 0);
        char want[64];
        snprintf(want, sizeof want, "penalty%d!illegal=800", seat);
        expect_terms(&p, want);
    }
    ddz_game_start(&p.g, &ddz_rules_caai, &p.r.deal, 350);
    bid(&p, 0, 1);
    cr_assert_eq(ddz_game_fault(&p.g, 1, DDZ_FAULT_TIMEOUT), 0);
    expect_terms(&p, "penalty1!timeout=350");
}

Test(explain, caai_all_pass_explains_nothing)
{
    played p;
    start(&p, &ddz_rules_caai, west_rich, "48,5,9", 350);
    bid(&p, 0, 0), bid(&p, 1, 0), bid(&p, 2, 0);
    expect_terms(&p, "");
    /* nor does a game that is not over */
    ddz_game_start(&p.g, &ddz_rules_caai, &p.r.deal, 350);
    expect_terms(&p, "");
}

/* ---- botzone-ftl (spec §8) ---- */

/* West plays bomb (10), rocket (16), the straight 4..A (6) and three
 * singles while the farmers pass: West 2 + 0.35, the farmers 0 + the mean
 * of nothing. The plays are listed by type in the type order. */
Test(explain, ftl_win_points_and_plays_by_type)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl, west_rich, "48,5,9", 0);
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    west_plays_out(&p, seq, 6);
    expect_terms(&p, "win0=2;plays0/rocketx1=0.16;plays0/bombx1=0.1;plays0/singlex3=0.03;"
                     "plays0/straightx1=0.06;points0=0.35;win1=0;points1=0;win2=0;points2=0;"
                     "mean=0");
}

/* The farmers win: each scores 2 + the mean of the two farmers' points. */
Test(explain, ftl_farmers_share_the_mean)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl, west_rich, "48,5,9", 0);
    /* West leads its lowest single each time; South beats it with its
     * lowest higher single, East passes, until South is out (it holds 17
     * singles and pairs: it plays singles only) */
    while (p.g.phase == DDZ_PHASE_PLAY) {
        int s = p.g.turn;
        ddz_cards h = p.g.hand[s], pick = 0;
        if (s == 0 && ddz_game_leading(&p.g)) {
            pick = h & (~h + 1);
        } else if (s == 1) {
            for (ddz_cards c = h; c; c &= c - 1) {
                ddz_cards low = c & (~c + 1);
                ddz_combo cb = ddz_combo_classify(p.g.rules, ddz_cards_ranks(low));
                if (ddz_game_leading(&p.g) || ddz_combo_beats(cb, p.g.last)) {
                    pick = low;
                    break;
                }
            }
        }
        play(&p, s, pick);
    }
    cr_assert_eq(p.g.winner, 1, "South played out");
    double w1 = p.g.weight[1] / 100.0, w2 = p.g.weight[2] / 100.0, w0 = p.g.weight[0] / 100.0;
    char want[256];
    snprintf(want, sizeof want,
             "win0=0;plays0/singlex%d=%.15g;points0=%.15g;win1=2;plays1/singlex%d=%.15g;"
             "points1=%.15g;win2=2;points2=0;mean=%.15g",
             p.g.nplays[0], w0, w0, p.g.nplays[1], w1, w1, (w1 + w2) / 2);
    expect_terms(&p, want);
    cr_assert_lt(fabs(p.g.score[1] - (2 + (w1 + w2) / 2)), 1e-12);
}

/* A fault: the faulty side's -1, the other side's 2.5. */
Test(explain, ftl_fault_forfeits)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl, west_rich, "48,5,9", 0);
    for (int seat = 0; seat < 3; seat++) {
        ddz_game_start(&p.g, &ddz_rules_botzone_ftl, &p.r.deal, 0);
        cr_assert_eq(ddz_game_fault(&p.g, seat, DDZ_FAULT_CRASH), 0);
        char want[64];
        snprintf(want, sizeof want, "forfeit%d!crash=-1;award=2.5", seat);
        expect_terms(&p, want);
    }
}

/* ---- botzone-ftl2 (spec §8) ---- */

/* The spring of caai_spring_with_bomb_and_rocket: m = 2 x 2 x 2 x 2 = 16. */
Test(explain, ftl2_stake_doubles)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl2, west_rich, "48,5,9", 0);
    bid(&p, 0, 2), bid(&p, 1, 0), bid(&p, 2, 0);
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    west_plays_out(&p, seq, 6);
    expect_terms(&p, "base=2;bombsx1=2;rocket=2;spring=2;stake=16;farmer=16;landlord=32");
}

/* All pass: West at bid 1, the base is 1. A fault: the referee plays on
 * for the seat, which the terms name first; the stake as usual. */
Test(explain, ftl2_fault_and_play_on)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl2, west_rich, "48,5,9", 0);
    bid(&p, 0, 0);
    cr_assert_eq(ddz_game_fault(&p.g, 2, DDZ_FAULT_TIMEOUT), 0); /* East, not yet asked */
    bid(&p, 1, 0), bid(&p, 2, ddz_game_standin_bid(&p.g));
    cr_assert_eq(p.g.landlord, 0);
    const char *seq[] = {"0,1,2,3", "52,53", "4,8,12,16,20,24,28,32,36,40,44", "5", "9", "48"};
    west_plays_out(&p, seq, 6);
    expect_terms(&p, "standin2!timeout;base=1;bombsx1=2;rocket=2;spring=2;stake=8;farmer=8;"
                     "landlord=16");
}

Test(explain, ftl2_all_three_faulted)
{
    played p;
    start(&p, &ddz_rules_botzone_ftl2, west_rich, "48,5,9", 0);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(ddz_game_fault(&p.g, s, DDZ_FAULT_PROTOCOL), 0);
    expect_terms(&p, "all_faulted=-1");
}

/* ---- every game: the terms add up to the scores ---- */

static double term_value(const ddz_term *t, int n, int kind, int seat)
{
    for (int i = 0; i < n; i++)
        if (t[i].kind == kind && (seat < 0 || t[i].seat == seat))
            return t[i].value;
    cr_assert_fail("no term %s (seat %d)", ddz_term_name(kind), seat);
    return NAN;
}

/* The product of the factor terms from `from` to the product term. */
static double product(const ddz_term *t, int n, int from, int until)
{
    double x = 1;
    bool on = false;
    for (int i = 0; i < n && t[i].kind != until; i++)
        if ((on = on || t[i].kind == from))
            x *= t[i].value;
    return x;
}

/* Checks that the terms of the finished game `g` (record `r`) compute its
 * scores. */
static void check_adds_up(const ddz_record *r, const ddz_game *g, uint32_t k)
{
    ddz_term t[DDZ_TERMS_MAX];
    int n = ddz_record_explain(r, g, t), ll = g->landlord;
    const char *rs = g->rules->name;
    for (int i = 0; i < n; i++)
        cr_assert(ddz_term_fields(t[i].kind), "%s game %u: term %d", rs, k, i);
    if (g->winner < 0 && g->fault_seat < 0) {
        cr_assert_eq(n, 0, "%s game %u: all passed", rs, k);
        return;
    }
    if (g->rules == &ddz_rules_caai && g->fault_seat >= 0) {
        int f = g->fault_seat;
        double unit = term_value(t, n, DDZ_TERM_PENALTY, f);
        cr_assert_eq(n, 1);
        cr_assert_eq(g->score[f], -(ll < 0 ? 2 : ll == f ? 2 : 3) * unit, "%s game %u", rs, k);
    } else if (g->rules == &ddz_rules_caai) {
        double m = term_value(t, n, DDZ_TERM_MULTIPLIER, -1);
        cr_assert_eq(product(t, n, DDZ_TERM_START, DDZ_TERM_MULTIPLIER), m, "%s game %u", rs, k);
        cr_assert_eq(term_value(t, n, DDZ_TERM_UNIT, -1), term_value(t, n, DDZ_TERM_BID, -1) * m);
        double f = term_value(t, n, DDZ_TERM_FARMER, -1);
        cr_assert_eq(f, 100 * term_value(t, n, DDZ_TERM_UNIT, -1), "%s game %u", rs, k);
        cr_assert_eq(term_value(t, n, DDZ_TERM_LANDLORD, -1), 2 * f);
        cr_assert_eq(fabs(g->score[(ll + 1) % 3]), f, "%s game %u", rs, k);
        cr_assert_eq(fabs(g->score[ll]), 2 * f, "%s game %u", rs, k);
    } else if (g->rules == &ddz_rules_botzone_ftl && g->fault_seat >= 0) {
        int f = g->fault_seat;
        cr_assert_eq(g->score[f], term_value(t, n, DDZ_TERM_FORFEIT, f));
        cr_assert_eq(g->score[f == ll ? (ll + 1) % 3 : ll], term_value(t, n, DDZ_TERM_AWARD, -1));
    } else if (g->rules == &ddz_rules_botzone_ftl) {
        double pts[3] = {0};
        for (int i = 0; i < n; i++)
            if (t[i].kind == DDZ_TERM_PLAYS)
                pts[t[i].seat] = ddz_score_add(pts[t[i].seat], t[i].value);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(pts[s], term_value(t, n, DDZ_TERM_POINTS, s), "%s game %u seat %d", rs, k,
                         s);
        double mean = term_value(t, n, DDZ_TERM_MEAN, -1);
        cr_assert_eq(ddz_score_add(pts[(ll + 1) % 3], pts[(ll + 2) % 3]) / 2, mean);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(g->score[s],
                         ddz_score_add(term_value(t, n, DDZ_TERM_WIN, s), s == ll ? pts[s] : mean),
                         "%s game %u seat %d", rs, k, s);
    } else if (g->nfaults == 3) {
        cr_assert_eq(n, 1);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(g->score[s], term_value(t, n, DDZ_TERM_ALL_FAULTED, -1));
    } else {
        int standins = 0;
        for (int i = 0; i < n; i++)
            standins += t[i].kind == DDZ_TERM_STANDIN;
        cr_assert_eq(standins, g->nfaults, "%s game %u", rs, k);
        double m = term_value(t, n, DDZ_TERM_STAKE, -1);
        cr_assert_eq(product(t, n, DDZ_TERM_BASE, DDZ_TERM_STAKE), m, "%s game %u", rs, k);
        cr_assert_eq(term_value(t, n, DDZ_TERM_FARMER, -1), m);
        cr_assert_eq(term_value(t, n, DDZ_TERM_LANDLORD, -1), 2 * m);
        cr_assert_eq(fabs(g->score[ll]), 2 * m, "%s game %u", rs, k);
    }
}

/* Random records of every kind (won, all passed, faults, springs) under
 * each rule set: replayed, their terms compute their scores. */
Test(explain, terms_add_up_to_the_scores_of_every_game)
{
    cr_assert_geq(sodium_init(), 0);
    const ddz_rules *sets[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl, &ddz_rules_botzone_ftl2};
    static ddz_record r;
    for (int i = 0; i < 3; i++) {
        int seen[DDZ_NTERM_KINDS] = {0};
        for (uint32_t k = 0; k < 400; k++) {
            gen_record_rules(k, sets[i], &r);
            ddz_game g;
            char err[128];
            cr_assert_eq(ddz_record_replay(&r, sets[i], &g, err, sizeof err), 0, "%s game %u: %s",
                         sets[i]->name, k, err);
            for (int s = 0; s < 3; s++)
                cr_assert_eq(g.score[s], r.scores[s], "replayed to the recorded scores");
            check_adds_up(&r, &g, k);
            ddz_term t[DDZ_TERMS_MAX];
            int n = ddz_record_explain(&r, &g, t);
            for (int j = 0; j < n; j++)
                seen[t[j].kind]++;
        }
        /* the generator's games have springs, bombs and faults of each
         * kind the rule set knows */
        if (sets[i] == &ddz_rules_caai)
            cr_assert(seen[DDZ_TERM_PENALTY] && seen[DDZ_TERM_SPRING] &&
                      seen[DDZ_TERM_ANTI_SPRING] && seen[DDZ_TERM_BOMBS]);
        else if (sets[i] == &ddz_rules_botzone_ftl)
            cr_assert(seen[DDZ_TERM_FORFEIT] && seen[DDZ_TERM_PLAYS] && seen[DDZ_TERM_MEAN]);
        else
            cr_assert(seen[DDZ_TERM_STANDIN] && seen[DDZ_TERM_ALL_FAULTED] &&
                      seen[DDZ_TERM_STAKE] && seen[DDZ_TERM_SPRING]);
    }
}

/* A record that does not replay says where; one cut short is not over. */
Test(explain, replay_refuses_what_does_not_replay)
{
    cr_assert_geq(sodium_init(), 0);
    static ddz_record r;
    uint32_t k = 3;
    while (gen_record(k, &r) != GEN_PLAYED || r.winner < 0)
        k++;
    ddz_game g;
    char err[128];
    r.nplays--;
    cr_assert_eq(ddz_record_replay(&r, &ddz_rules_caai, &g, err, sizeof err), DDZ_EVERIFY);
    cr_assert_str_eq(err, "plays: the game is not over and no fault ended it");
    cr_assert_eq(ddz_record_explain(&r, &g, (ddz_term[DDZ_TERMS_MAX]){0}), 0);
    r.nplays++;
    r.plays[0].seat = (uint8_t)((r.plays[0].seat + 1) % 3);
    cr_assert_eq(ddz_record_replay(&r, &ddz_rules_caai, &g, err, sizeof err), DDZ_EVERIFY);
    cr_assert(strstr(err, "plays[0]:"), "%s", err);
}

Test(explain, term_names_and_fields)
{
    for (int k = 1; k < DDZ_NTERM_KINDS; k++) {
        cr_assert_eq(ddz_term_from_name(ddz_term_name(k)), k, "%s", ddz_term_name(k));
        cr_assert_neq(ddz_term_fields(k), 0, "%s", ddz_term_name(k));
    }
    cr_assert_str_eq(ddz_term_name(0), "invalid");
    cr_assert_str_eq(ddz_term_name(DDZ_NTERM_KINDS), "invalid");
    cr_assert_eq(ddz_term_from_name("invalid"), -1);
    cr_assert_eq(ddz_term_fields(0), 0);
    cr_assert_eq(ddz_term_fields(DDZ_TERM_PLAYS),
                 DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_COMBO | DDZ_TERM_HAS_COUNT | DDZ_TERM_HAS_VALUE);
    cr_assert_eq(ddz_term_fields(DDZ_TERM_STANDIN), DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_FAULT);
}
