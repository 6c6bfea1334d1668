/* test_record.c - ddz_record_finish and ddz_record_verify on thousands of
 * played games under each rule set, and on every kind of single alteration
 * of them. */
#include <criterion/criterion.h>
#include <math.h>
#include <sodium.h>

#include "record_gen.h"
#include "rules/error.h"

#define NGAMES 10000
#define NALTERED 5000

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
}

TestSuite(record, .init = init);

/* The rule set a record names. */
static const ddz_rules *rules_of(const ddz_record *r)
{
    const ddz_rules *rs = ddz_rules_find(r->rules);
    cr_assert_not_null(rs, "rules %s", r->rules);
    return rs;
}

static void expect_ok(const ddz_record *r, const char *what)
{
    char err[256] = "";
    int rc = ddz_record_verify(r, rules_of(r), err, sizeof err);
    cr_assert_eq(rc, 0, "%s game %d, %s: %s", r->rules, r->game, what, err);
}

/* Verification fails and the message starts with `prefix`. */
static void expect_fail(const ddz_record *m, const char *prefix, const char *what)
{
    char err[256] = "";
    int rc = ddz_record_verify(m, rules_of(m), err, sizeof err);
    cr_assert_eq(rc, DDZ_EVERIFY, "%s game %d, %s: verified", m->rules, m->game, what);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s game %d, %s: error '%s', want '%s...'",
              m->rules, m->game, what, err, prefix);
}

static int pick_card(ddz_rng *rng, ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    cr_assert_gt(n, 0);
    return codes[ddz_rng_below(rng, (uint32_t)n)];
}

Test(record, every_generated_game_verifies)
{
    int allpass = 0, won = 0, early_fault = 0, late_fault = 0, autopass = 0, spring = 0;
    int anti_spring = 0, bombs = 0, rocket = 0, kinds[DDZ_NFAULTS] = {0};
    static ddz_record r;
    for (uint32_t k = 0; k < NGAMES; k++) {
        gen_record(k, &r);
        expect_ok(&r, "as played");
        if (r.fault_seat >= 0) {
            kinds[r.fault_kind]++;
            if (r.landlord < 0)
                early_fault++;
            else
                late_fault++;
        } else if (r.winner >= 0) {
            won++;
        } else {
            cr_assert_eq(r.nbids, 3);
            cr_assert(r.scores[0] == 0 && r.scores[1] == 0 && r.scores[2] == 0);
            allpass++;
        }
        for (int i = 0; i < r.nplays; i++)
            autopass += r.plays[i].autopass;
        spring += r.spring;
        anti_spring += r.anti_spring;
        bombs += r.bombs > 0;
        rocket += r.rocket;
        cr_assert_eq(r.scores[0] + r.scores[1] + r.scores[2], 0, "game %u: scores sum", k);
    }
    cr_log_info("%d won, %d all-pass, %d faults before and %d after the leftover, %d auto-passes, "
                "%d springs, %d anti-springs, %d with bombs, %d with the rocket",
                won, allpass, early_fault, late_fault, autopass, spring, anti_spring, bombs,
                rocket);
    cr_assert_gt(won, NGAMES / 2);
    cr_assert_gt(allpass, 50);
    cr_assert_gt(early_fault, 50);
    cr_assert_gt(late_fault, 50);
    cr_assert_gt(autopass, 1000);
    cr_assert_gt(spring, 0);
    cr_assert_gt(anti_spring, 0);
    cr_assert_gt(bombs, 100);
    cr_assert_gt(rocket, 100);
    for (int kind = 1; kind < DDZ_NFAULTS; kind++)
        cr_assert_gt(kinds[kind], 10, "fault kind %s", ddz_fault_name(kind));
}

/* Botzone's FightTheLandlord: no bidding, West is the landlord; scores are
 * 2 or 0 plus play weights / 100, the farmers averaged; a fault ends the
 * game at -1 for the faulty side and 2.5 for the other. */
Test(record, botzone_ftl_games_verify)
{
    int won = 0, faults = 0, quads = 0;
    static ddz_record r;
    for (uint32_t k = 0; k < NGAMES / 2; k++) {
        gen_record_rules(k, &ddz_rules_botzone_ftl, &r);
        expect_ok(&r, "as played");
        cr_assert_eq(r.nbids, 0, "game %u: nobody bids", k);
        cr_assert_eq(r.landlord, 0, "game %u: West is the landlord", k);
        int ll = r.landlord, f1 = (ll + 1) % 3, f2 = (ll + 2) % 3;
        cr_assert_eq(r.scores[f1], r.scores[f2], "game %u: the farmers get their mean", k);
        for (int s = 0; s < 3; s++) {
            double units = r.scores[s] * 200;
            cr_assert_lt(fabs(units - round(units)), 1e-9, "game %u: %g not a multiple of 1/200", k,
                         r.scores[s]);
            cr_assert_eq(r.scores[s], round(units) / 200, "game %u: %.17g is not k / 200.0", k,
                         r.scores[s]);
        }
        if (r.fault_seat >= 0) {
            faults++;
            cr_assert_eq(r.nfaults, 1);
            cr_assert_eq(r.winner, -1);
            bool ll_faulty = r.fault_seat == ll;
            cr_assert_eq(r.scores[ll], ll_faulty ? -1.0 : 2.5, "game %u", k);
            cr_assert_eq(r.scores[f1], ll_faulty ? 2.5 : -1.0, "game %u", k);
            continue;
        }
        won++;
        cr_assert_eq(r.multiplier, 1);
        bool ll_won = r.winner == ll;
        cr_assert_geq(r.scores[ll], ll_won ? 2.0 : 0.0, "game %u", k);
        cr_assert_lt(r.scores[ll], ll_won ? 4.0 : 2.0, "game %u", k);
        cr_assert_geq(r.scores[f1], ll_won ? 0.0 : 2.0, "game %u", k);
        for (int i = 0; i < r.nplays; i++)
            quads += ddz_combo_classify(&ddz_rules_botzone_ftl, ddz_cards_ranks(r.plays[i].cards))
                         .type == DDZ_QUAD_STRAIGHT;
    }
    cr_log_info("botzone-ftl: %d won, %d faults, %d quad straights played", won, faults, quads);
    cr_assert_gt(won, NGAMES / 4);
    cr_assert_gt(faults, 50);
}

/* Botzone's FightTheLandlord2: all passing makes West the landlord at bid
 * 1; after a fault the game goes on with the faulty seat's stand-in (bid 0,
 * pass when following, else its lowest card), marked auto; three faulty
 * seats end the game at -1 each; otherwise the landlord scores +-2m and
 * each farmer -+m, m = max(bid, 1) x 2^(bombs + rocket + spring +
 * anti-spring). */
Test(record, botzone_ftl2_games_verify)
{
    int won = 0, allpass = 0, faulty[4] = {0}, standins = 0, standin_leads = 0;
    static ddz_record r;
    for (uint32_t k = 0; k < NGAMES / 2; k++) {
        gen_record_rules(k, &ddz_rules_botzone_ftl2, &r);
        expect_ok(&r, "as played");
        faulty[r.nfaults]++;
        cr_assert_eq(r.fault_seat, r.nfaults ? r.faults[0].seat : -1);
        if (r.nbids == 3 && !r.bids[0] && !r.bids[1] && !r.bids[2] && r.nfaults == 0) {
            allpass++;
            cr_assert_eq(r.landlord, 0, "game %u: all passed, West is the landlord", k);
        }
        for (int i = 0; i < r.nplays; i++) {
            const ddz_record_play *p = &r.plays[i];
            bool after = false;
            for (int f = 0; f < r.nfaults; f++)
                after |= r.faults[f].seat == p->seat && r.faults[f].at <= i;
            if (after) {
                cr_assert(p->autopass, "game %u play %d: a stand-in is marked auto", k, i);
                standins++;
                standin_leads += p->cards != 0;
                cr_assert_leq(ddz_cards_count(p->cards), 1);
            }
        }
        if (r.nfaults == 3) {
            cr_assert_eq(r.winner, -1);
            for (int s = 0; s < 3; s++)
                cr_assert_eq(r.scores[s], -1.0, "game %u", k);
            continue;
        }
        cr_assert_geq(r.winner, 0, "game %u: the game goes on to a winner", k);
        won++;
        int ll = r.landlord, bid = 0;
        for (int i = 0; i < r.nbids; i++)
            bid = r.bids[i] > bid ? r.bids[i] : bid;
        int m = (bid > 1 ? bid : 1) << (r.bombs + r.rocket + r.spring + r.anti_spring);
        cr_assert_eq(r.multiplier, m, "game %u", k);
        int sign = r.winner == ll ? 1 : -1;
        for (int s = 0; s < 3; s++)
            cr_assert_eq(r.scores[s], s == ll ? 2.0 * sign * m : -1.0 * sign * m, "game %u", k);
    }
    cr_log_info("botzone-ftl2: %d won, %d all-pass; games with 0..3 faults %d %d %d %d; %d "
                "stand-in plays, %d of them leads",
                won, allpass, faulty[0], faulty[1], faulty[2], faulty[3], standins, standin_leads);
    cr_assert_gt(allpass, 50);
    for (int n = 1; n <= 3; n++)
        cr_assert_gt(faulty[n], 10, "games with %d faults", n);
    cr_assert_gt(standin_leads, 100);
}

/* The known-answer deal of spec §2: West bids 3, then crashes before its
 * first play. East holds the four 3s and the jokers are split, so the unit
 * is (1 + 1) x 3 x 100 and the faulty landlord pays each farmer 600.
 * tests/service/test_cli_verify.sh uses the same record. */
Test(record, known_answer_fault_after_the_leftover)
{
    static ddz_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.rules, "caai");
    for (int i = 0; i < DDZ_SEED_BYTES; i++)
        r.seed[i] = (uint8_t)i;
    ddz_deal_commit(r.seed, r.commit);
    cr_assert_eq(ddz_deal_from_seed(r.seed, &r.deal), 0);
    r.early_penalty = 350;
    r.nbids = 1;
    r.bids[0] = 3;
    r.landlord = 0;
    r.winner = -1;
    r.fault_seat = 0;
    r.fault_kind = DDZ_FAULT_CRASH;
    r.nfaults = 1;
    r.faults[0] = (ddz_fault_entry){.seat = 0, .kind = DDZ_FAULT_CRASH, .at = 0, .bids = 1};
    r.scores[0] = -1200;
    r.scores[1] = r.scores[2] = 600;
    expect_ok(&r, "known answer");

    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &r.deal, 350);
    cr_assert_eq(ddz_game_bid(&g, 0, 3), 0);
    cr_assert_eq(ddz_game_fault(&g, 0, DDZ_FAULT_CRASH), 0);
    static ddz_record f;
    f = r;
    ddz_record_finish(&f, &g);
    cr_assert_eq(memcmp(&f, &r, sizeof r), 0, "ddz_record_finish fills what verify expects");
}

/* For each record, the index of a pass that was not forced (the seat could
 * have beaten the last play) and is not marked auto, or -1; and the index
 * of a lead by a seat that had not faulted, or -1. (Replayed without the
 * faults: every stand-in action is a legal action of a free seat too.) */
static void find_passes(const ddz_record *r, int *free_pass, int *lead)
{
    ddz_game g;
    ddz_game_start(&g, rules_of(r), &r->deal, r->early_penalty);
    for (int i = 0; i < r->nbids; i++)
        cr_assert_eq(ddz_game_bid(&g, i, r->bids[i]), 0);
    *free_pass = *lead = -1;
    for (int i = 0; i < r->nplays && g.phase == DDZ_PHASE_PLAY; i++) {
        const ddz_record_play *p = &r->plays[i];
        if (p->cards == 0 && !p->autopass && !ddz_game_must_pass(&g))
            *free_pass = i;
        if (ddz_game_leading(&g) && !p->autopass)
            *lead = i;
        cr_assert_eq(ddz_game_play(&g, p->seat, p->cards), 0);
    }
}

/* The index of a play with cards made by the seat itself (not auto), or -1. */
static int own_play(ddz_rng *rng, const ddz_record *r)
{
    if (r->nplays == 0)
        return -1;
    int i = (int)ddz_rng_below(rng, (uint32_t)r->nplays);
    for (int n = 0; n < r->nplays; n++, i = (i + 1) % r->nplays)
        if (r->plays[i].cards && !r->plays[i].autopass)
            return i;
    return -1;
}

/* `r` without fault f (the first fault follows the list). */
static void drop_fault(ddz_record *r, int f)
{
    for (int i = f; i + 1 < r->nfaults && i + 1 < DDZ_FAULTS_MAX; i++)
        r->faults[i] = r->faults[i + 1];
    r->nfaults--;
    r->fault_seat = r->nfaults ? r->faults[0].seat : -1;
    r->fault_kind = r->nfaults ? r->faults[0].kind : DDZ_FAULT_NONE;
}

typedef struct tally {
    int free_pass, kind_changes, farmer_moves, play_on_drops, play_on_moves;
} tally;

/* Every single alteration of game k under `rs` that verification must catch
 * (and the few it cannot, which must still verify). */
static void alter(uint32_t k, const ddz_rules *rs, tally *t)
{
    static ddz_record r, m;
    char want[32];
    gen_record_rules(k, rs, &r);
    ddz_rng rng;
    ddz_rng_seed(&rng, k);
    int ll = r.landlord, nplays = r.nplays;
    int faulted = r.fault_seat >= 0, ended_by_fault = r.winner < 0 && faulted;

    m = r;
    m.seed[ddz_rng_below(&rng, DDZ_SEED_BYTES)] ^= (uint8_t)(1u << ddz_rng_below(&rng, 8));
    expect_fail(&m, "seed:", "seed");

    m = r;
    m.commit[ddz_rng_below(&rng, DDZ_SEED_BYTES)] ^= (uint8_t)(1u << ddz_rng_below(&rng, 8));
    expect_fail(&m, "commit:", "commit");

    int s = (int)(k % 3);
    m = r;
    m.deal.hand[s] &= ~(1ULL << pick_card(&rng, r.deal.hand[s]));
    m.deal.hand[s] |= 1ULL << pick_card(&rng, r.deal.leftover);
    snprintf(want, sizeof want, "hands[%d]:", s);
    expect_fail(&m, want, "a hand card");

    m = r;
    m.deal.leftover &= ~(1ULL << pick_card(&rng, r.deal.leftover));
    m.deal.leftover |= 1ULL << pick_card(&rng, r.deal.hand[s]);
    expect_fail(&m, "leftover:", "a leftover card");

    /* A bid no higher than an earlier one. */
    int high = 0;
    for (int i = 0; i < r.nbids; i++) {
        if (high > 0) {
            m = r;
            m.bids[i] = (int8_t)high;
            snprintf(want, sizeof want, "bids[%d]:", i);
            expect_fail(&m, want, "a bid no higher than an earlier one");
            break;
        }
        high = r.bids[i] > high ? r.bids[i] : high;
    }
    /* A higher bid that keeps the landlord and the bidding: the base
     * score, so every score, changes. */
    if (ll >= 0 && r.nbids > ll && r.bids[ll] > 0 && r.bids[ll] < 3 &&
        (r.bids[ll] + 1 < 3 || ll == r.nbids - 1) && !ended_by_fault) {
        m = r;
        m.bids[ll]++;
        /* caai's multiplier leaves the bid out, botzone-ftl2's holds it */
        expect_fail(&m, rs == &ddz_rules_caai ? "scores[0]:" : "multiplier:", "the landlord's bid");
    }
    /* Without bidding, any bid is one too many. */
    if (rs->bidding == DDZ_BIDDING_NONE) {
        m = r;
        m.nbids = 1;
        m.bids[0] = 0;
        expect_fail(&m, "bids[0]:", "a bid without bidding");
    }

    m = r;
    m.landlord = (int8_t)(ll >= 0 ? (ll + 1) % 3 : 1);
    expect_fail(&m, "landlord:", "landlord");

    if (nplays > 0) {
        int i = (int)ddz_rng_below(&rng, (uint32_t)nplays);
        m = r;
        m.plays[i].seat = (uint8_t)((r.plays[i].seat + 1) % 3);
        snprintf(want, sizeof want, "plays[%d]:", i);
        expect_fail(&m, want, "a play's seat");

        /* A card the seat never held: one dealt to the next seat. */
        while (r.plays[i].cards == 0)
            i = (i + 1) % nplays;
        m = r;
        m.plays[i].cards |= 1ULL << pick_card(&rng, r.deal.hand[(r.plays[i].seat + 1) % 3]);
        snprintf(want, sizeof want, "plays[%d]:", i);
        expect_fail(&m, want, "a play's cards");

        if ((i = own_play(&rng, &r)) >= 0) {
            m = r;
            m.plays[i].autopass = 1;
            snprintf(want, sizeof want, "plays[%d]:", i);
            expect_fail(&m, want, "a play marked auto");
        }

        int free_pass, lead;
        find_passes(&r, &free_pass, &lead);
        if (lead >= 0) {
            m = r;
            m.plays[lead].cards = 0;
            snprintf(want, sizeof want, "plays[%d]:", lead);
            expect_fail(&m, want, "a pass on lead");
        }
        if (free_pass >= 0) {
            m = r;
            m.plays[free_pass].autopass = 1;
            snprintf(want, sizeof want, "plays[%d]:", free_pass);
            expect_fail(&m, want, "an auto-pass where the seat could beat");
            t->free_pass++;
        }
    }

    /* Removing the last action of a game that ended by itself. (After a
     * fault that ended it the penalty does not depend on the plays, so the
     * record would still verify: the fault is taken at face value.) */
    if (!ended_by_fault && nplays > 0) {
        m = r;
        m.nplays--;
        expect_fail(&m, "plays:", "the last play removed");
    } else if (!ended_by_fault) {
        m = r;
        m.nbids--;
        expect_fail(&m, "plays:", "the last bid removed");
    }
    if (!ended_by_fault) {
        m = r;
        m.plays[m.nplays++] = (ddz_record_play){.seat = 0};
        snprintf(want, sizeof want, "plays[%d]:", nplays);
        expect_fail(&m, want, "a play after the end");
    }

    m = r;
    m.winner = (int8_t)(r.winner >= 0 ? (r.winner + 1) % 3 : 0);
    expect_fail(&m, "winner:", "winner");

    m = r;
    m.bombs++;
    expect_fail(&m, "bombs:", "bombs");
    m = r;
    m.rocket ^= 1;
    expect_fail(&m, "rocket:", "rocket");
    m = r;
    m.spring ^= 1;
    expect_fail(&m, "spring:", "spring");
    m = r;
    m.anti_spring ^= 1;
    expect_fail(&m, "anti_spring:", "anti_spring");
    m = r;
    m.multiplier++;
    expect_fail(&m, "multiplier:", "multiplier");

    m = r;
    m.scores[s] += 100;
    snprintf(want, sizeof want, "scores[%d]:", s);
    expect_fail(&m, want, "a score");
    m = r;
    m.scores[s] += 0.005; /* the finest step of botzone-ftl */
    expect_fail(&m, want, "a score by 0.005");

    if (!faulted) {
        m = r;
        m.fault_seat = (int8_t)s;
        m.fault_kind = DDZ_FAULT_TIMEOUT;
        expect_fail(&m, "fault:", "a fault after the end");
        m = r;
        m.nfaults = 1;
        m.faults[0] =
            (ddz_fault_entry){(int8_t)s, DDZ_FAULT_TIMEOUT, (int16_t)nplays, (uint8_t)r.nbids};
        expect_fail(&m, "faults[0]:", "a fault in the list after the end");
        return;
    }

    m = r;
    m.fault_seat = -1;
    expect_fail(&m, "fault:", "the first fault taken from `fault` only");
    m = r;
    m.fault_seat = (int8_t)((r.fault_seat + 1) % 3);
    expect_fail(&m, "fault:", "`fault` names another seat than faults[0]");
    /* The kind of a fault changes no score: a record cannot prove it. */
    m = r;
    m.fault_kind = m.faults[0].kind = (uint8_t)(r.fault_kind % (DDZ_NFAULTS - 1) + 1);
    expect_ok(&m, "another fault kind");
    t->kind_changes++;

    if (rs->fault_policy == DDZ_FAULTPOLICY_END) {
        /* Moving the fault to the other side moves the penalty. */
        m = r;
        int to = (r.fault_seat + 1 + (int)ddz_rng_below(&rng, 2)) % 3;
        if (rs == &ddz_rules_botzone_ftl && ll >= 0 && (r.fault_seat == ll) == (to == ll)) {
            /* Botzone: both farmers score -1 whichever faulted, so a record
             * cannot prove which one it was */
            m.fault_seat = m.faults[0].seat = (int8_t)to;
            expect_ok(&m, "the other farmer's fault");
            t->farmer_moves++;
            to = r.fault_seat == ll ? (ll + 1) % 3 : ll;
            m = r;
        }
        m.fault_seat = m.faults[0].seat = (int8_t)to;
        expect_fail(&m, "scores[", "the fault seat");
        m = r;
        drop_fault(&m, 0);
        expect_fail(&m, "plays:", "the fault removed");
        if (ll < 0 && rs == &ddz_rules_caai) {
            m = r;
            m.early_penalty += 50;
            expect_fail(&m, "scores[", "early_penalty");
        }
        return;
    }

    /* DDZ_FAULTPOLICY_PLAY_ON: a fault shows in what was played after it. */
    for (int f = 0; f < r.nfaults; f++) {
        const ddz_fault_entry *fe = &r.faults[f];
        if (f == 2) {
            m = r;
            drop_fault(&m, f);
            expect_fail(&m, "plays:", "the fault that ended the game removed");
            continue;
        }
        /* the faulty seat's first stand-in lead: without the fault it is an
         * auto play with cards */
        int lead = -1;
        for (int i = fe->at < 0 ? 0 : fe->at; i < r.nplays && lead < 0; i++)
            if (r.plays[i].seat == fe->seat && r.plays[i].cards)
                lead = i;
        if (lead >= 0) {
            m = r;
            drop_fault(&m, f);
            expect_fail(&m, "plays[", "a fault removed");
            t->play_on_drops++;
        }
        /* charged before the seat's last own play: that play was its
         * stand-in's then */
        int own = -1;
        for (int i = 0; i < (fe->at < 0 ? 0 : fe->at); i++)
            if (r.plays[i].seat == fe->seat && !r.plays[i].autopass)
                own = i;
        if (own >= 0 && (f == 0 || r.faults[f - 1].at <= own)) {
            m = r;
            m.faults[f].at = (int16_t)own;
            snprintf(want, sizeof want, "plays[%d]:", own);
            expect_fail(&m, want, "a fault moved before the seat's own play");
            t->play_on_moves++;
        }
        /* an at past the end, or out of order */
        m = r;
        m.faults[f].at = (int16_t)(r.nplays + 1);
        expect_fail(&m, "faults[", "a fault after the last play");
    }
}

Test(record, every_single_alteration_is_caught)
{
    tally t = {0};
    for (uint32_t k = 0; k < NALTERED; k++)
        alter(k, &ddz_rules_caai, &t);
    cr_assert_gt(t.free_pass, NALTERED / 2);
    cr_assert_gt(t.kind_changes, 100);
}

Test(record, every_single_alteration_is_caught_botzone_ftl)
{
    tally t = {0};
    for (uint32_t k = 0; k < NALTERED / 2; k++)
        alter(k, &ddz_rules_botzone_ftl, &t);
    cr_log_info("botzone-ftl: %d unforced passes marked auto, %d farmer moves", t.free_pass,
                t.farmer_moves);
    cr_assert_gt(t.free_pass, NALTERED / 4);
    cr_assert_gt(t.kind_changes, 50);
    cr_assert_gt(t.farmer_moves, 10);
}

Test(record, every_single_alteration_is_caught_botzone_ftl2)
{
    tally t = {0};
    for (uint32_t k = 0; k < NALTERED / 2; k++)
        alter(k, &ddz_rules_botzone_ftl2, &t);
    cr_log_info("botzone-ftl2: %d unforced passes marked auto, %d faults removed, %d moved",
                t.free_pass, t.play_on_drops, t.play_on_moves);
    cr_assert_gt(t.free_pass, NALTERED / 4);
    cr_assert_gt(t.kind_changes, 50);
    cr_assert_gt(t.play_on_drops, 50);
    cr_assert_gt(t.play_on_moves, 10);
}
