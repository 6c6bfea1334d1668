/* test_record.c - ddz_record_finish and ddz_record_verify on thousands of
 * played games, and on every kind of single alteration of them. */
#include <criterion/criterion.h>
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

static void expect_ok(const ddz_record *r, const char *what)
{
    char err[256] = "";
    int rc = ddz_record_verify(r, &ddz_rules_caai, err, sizeof err);
    cr_assert_eq(rc, 0, "game %d, %s: %s", r->game, what, err);
}

/* Verification fails and the message starts with `prefix`. */
static void expect_fail(const ddz_record *m, const char *prefix, const char *what)
{
    char err[256] = "";
    int rc = ddz_record_verify(m, &ddz_rules_caai, err, sizeof err);
    cr_assert_eq(rc, DDZ_EVERIFY, "game %d, %s: verified", m->game, what);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "game %d, %s: error '%s', want '%s...'",
              m->game, what, err, prefix);
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

/* The known-answer deal of SPEC 2: West bids 3, then crashes before its
 * first play. East holds the four 3s and the jokers are split, so the unit
 * is (1 + 1) x 3 x 100 and the faulty landlord pays each farmer 600.
 * tests/service/test_cli_verify.sh uses the same record. */
Test(record, known_answer_fault_after_the_leftover)
{
    static ddz_record r;
    memset(&r, 0, sizeof r);
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
 * of a lead, or -1. */
static void find_passes(const ddz_record *r, int *free_pass, int *lead)
{
    ddz_game g;
    ddz_game_start(&g, &ddz_rules_caai, &r->deal, r->early_penalty);
    for (int i = 0; i < r->nbids; i++)
        cr_assert_eq(ddz_game_bid(&g, i, r->bids[i]), 0);
    *free_pass = *lead = -1;
    for (int i = 0; i < r->nplays; i++) {
        const ddz_record_play *p = &r->plays[i];
        if (p->cards == 0 && !p->autopass && !ddz_game_must_pass(&g))
            *free_pass = i;
        if (ddz_game_leading(&g))
            *lead = i;
        cr_assert_eq(ddz_game_play(&g, p->seat, p->cards), 0);
    }
}

Test(record, every_single_alteration_is_caught)
{
    static ddz_record r, m;
    char want[32];
    int caught_free_pass = 0, kind_changes = 0;
    for (uint32_t k = 0; k < NALTERED; k++) {
        gen_record(k, &r);
        ddz_rng rng;
        ddz_rng_seed(&rng, k);
        int ll = r.landlord, nplays = r.nplays;
        int faulted = r.fault_seat >= 0;

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
        if (ll >= 0 && r.bids[ll] < 3 && (r.bids[ll] + 1 < 3 || ll == r.nbids - 1)) {
            m = r;
            m.bids[ll]++;
            expect_fail(&m, "scores[0]:", "the landlord's bid");
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

            m = r;
            m.plays[i].autopass = 1;
            expect_fail(&m, want, "a play marked auto");

            int free_pass, lead;
            find_passes(&r, &free_pass, &lead);
            cr_assert_geq(lead, 0);
            m = r;
            m.plays[lead].cards = 0;
            snprintf(want, sizeof want, "plays[%d]:", lead);
            expect_fail(&m, want, "a pass on lead");
            if (free_pass >= 0) {
                m = r;
                m.plays[free_pass].autopass = 1;
                snprintf(want, sizeof want, "plays[%d]:", free_pass);
                expect_fail(&m, want, "an auto-pass where the seat could beat");
                caught_free_pass++;
            }
        }

        /* Removing the last action of a game that ended by itself. (After
         * a fault the penalty does not depend on the plays, so the record
         * would still verify: the fault is taken at face value.) */
        if (!faulted && nplays > 0) {
            m = r;
            m.nplays--;
            expect_fail(&m, "plays:", "the last play removed");
        } else if (!faulted) {
            m = r;
            m.nbids--;
            expect_fail(&m, "plays:", "the last bid removed");
        }
        if (!faulted) {
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

        if (faulted) {
            /* Moving the fault moves the penalty. */
            m = r;
            m.fault_seat = (int8_t)((r.fault_seat + 1 + ddz_rng_below(&rng, 2)) % 3);
            expect_fail(&m, "scores[", "the fault seat");
            m = r;
            m.fault_seat = -1;
            expect_fail(&m, "plays:", "the fault removed");
            /* The kind of a fault changes no score: a record cannot prove it. */
            m = r;
            m.fault_kind = (uint8_t)(r.fault_kind % (DDZ_NFAULTS - 1) + 1);
            expect_ok(&m, "another fault kind");
            kind_changes++;
            if (ll < 0) {
                m = r;
                m.early_penalty += 50;
                expect_fail(&m, "scores[", "early_penalty");
            }
        } else {
            m = r;
            m.fault_seat = (int8_t)s;
            m.fault_kind = DDZ_FAULT_TIMEOUT;
            expect_fail(&m, "fault:", "a fault after the end");
        }
    }
    cr_assert_gt(caught_free_pass, NALTERED / 2);
    cr_assert_gt(kind_changes, 100);
}
