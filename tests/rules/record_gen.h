/* record_gen.h - random complete game records, for the record tests.
 *
 * Plays game `k` of a fixed master seed in-process with ai:random bids and
 * plays, driving ddz_game and writing every action into a ddz_record the
 * way the referee does. Some games are all-pass, some end with a fault of a
 * random kind and seat at a random point (during bidding or during play),
 * and some are played timidly by one side so that springs and anti-springs
 * occur; about half of the forced passes are recorded as auto-passes. Everything
 * is determined by `k`, so a failing record can be regenerated.
 *
 * gen_record_rules() plays under another rule set: without bidding under
 * botzone-ftl, and under botzone-ftl2 (the game goes on after a fault) with
 * one to three faults of distinct seats, the faulty seats' actions taken by
 * their stand-ins and marked auto, as the referee does.
 *
 * Used by tests/rules/test_record.c and tests/proto/test_record_json.c.
 * The caller must have called sodium_init().
 */
#ifndef DDZ_TEST_RECORD_GEN_H
#define DDZ_TEST_RECORD_GEN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ai/random.h"
#include "ai/rng.h"
#include "rules/record.h"
#include "rules/view.h"

enum gen_kind {
    GEN_PLAYED,  /* bid and played to a winner (or a fault came by chance) */
    GEN_ALLPASS, /* all three pass */
    GEN_FAULT,   /* a fault at a random action */
    GEN_SPRING,  /* the farmers pass whenever they may: a spring, unless a fault */
    GEN_ANTI,    /* the landlord passes whenever it may, the farmers rarely pass */
};

static const uint8_t gen_master[DDZ_SEED_BYTES] = {
    0x64, 0x64, 0x7a, 0x2d, 0x72, 0x65, 0x63, 0x6f, 0x72, 0x64, 0x2d, 0x74, 0x65, 0x73, 0x74, 0x73,
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

/* Names exercising JSON escapes, multi-byte UTF-8 and the length limit. */
static void gen_names(ddz_record *r, uint32_t k)
{
    static const char *const base[3] = {"west", "south", "east"};
    for (int s = 0; s < 3; s++) {
        char *n = r->names[s];
        switch ((k + (uint32_t)s) % 5) {
        case 0:
            snprintf(n, DDZ_NAME_MAX, "%s-%u", base[s], k);
            break;
        case 1:
            snprintf(n, DDZ_NAME_MAX, "\"quoted\" \\ tab\t%s", base[s]);
            break;
        case 2: /* 21 three-byte characters: exactly DDZ_NAME_MAX - 1 bytes */
            n[0] = '\0';
            for (int i = 0; i < 21; i++)
                strcat(n, "\xe6\x96\x97");
            break;
        case 3:
            memset(n, 'x', DDZ_NAME_MAX - 1);
            n[DDZ_NAME_MAX - 1] = '\0';
            break;
        default:
            n[0] = '\0';
        }
    }
}

/* Charges a fault of a random kind to a random seat that has not faulted. */
static void gen_fault(ddz_rng *rng, ddz_game *g)
{
    int seat = (int)ddz_rng_below(rng, 3);
    while (ddz_game_faulted(g, seat))
        seat = (seat + 1) % 3;
    cr_assert_eq(ddz_game_fault(g, seat, 1 + (int)ddz_rng_below(rng, DDZ_NFAULTS - 1)), 0);
}

/* Fills `r` with game `k` under `rs`; returns which kind of game it is. */
static enum gen_kind gen_record_rules(uint32_t k, const ddz_rules *rs, ddz_record *r)
{
    static ddz_move moves[DDZ_MOVES_MAX];
    ddz_rng rng;
    ddz_rng_seed(&rng, 0x5eed0000ULL + k);
    memset(r, 0, sizeof *r);
    snprintf(r->rules, sizeof r->rules, "%s", rs->name);
    r->game = (int)k;
    r->early_penalty = rs == &ddz_rules_caai ? 350 : ddz_rules_early_penalty(rs, 0, 0);
    ddz_deal_game_seed(gen_master, k, r->seed);
    ddz_deal_commit(r->seed, r->commit);
    cr_assert_eq(ddz_deal_from_seed(r->seed, &r->deal), 0);
    gen_names(r, k);

    enum gen_kind kind = k % 16 == 0    ? GEN_ALLPASS
                         : k % 16 == 6  ? GEN_SPRING
                         : k % 16 == 10 ? GEN_ANTI
                         : k % 4 == 1   ? GEN_FAULT
                                        : GEN_PLAYED;
    int fault_at[DDZ_FAULTS_MAX] = {-1, -1, -1}; /* number of actions before each fault */
    if (kind == GEN_FAULT)
        fault_at[0] = (int)(k % 8 == 1 ? ddz_rng_below(&rng, 3) : 3 + ddz_rng_below(&rng, 60));
    if (kind == GEN_FAULT && rs->fault_policy == DDZ_FAULTPOLICY_PLAY_ON)
        for (int i = 1; i < DDZ_FAULTS_MAX && ddz_rng_below(&rng, 2); i++)
            fault_at[i] = fault_at[i - 1] + (int)ddz_rng_below(&rng, 30);

    ddz_game g;
    ddz_game_start(&g, rs, &r->deal, r->early_penalty);
    for (int action = 0; g.phase != DDZ_PHASE_OVER; action++) {
        int seat = g.turn;
        for (int i = 0; i < DDZ_FAULTS_MAX && g.phase != DDZ_PHASE_OVER; i++)
            if (fault_at[i] == action)
                gen_fault(&rng, &g);
        if (g.phase == DDZ_PHASE_OVER)
            break;
        seat = g.turn;
        if (ddz_game_standin_due(&g) && g.phase == DDZ_PHASE_BID) {
            cr_assert_eq(ddz_game_bid(&g, seat, ddz_game_standin_bid(&g)), 0);
            r->bids[r->nbids++] = (int8_t)ddz_game_standin_bid(&g);
            continue;
        }
        if (ddz_game_standin_due(&g)) {
            ddz_record_play *p = &r->plays[r->nplays++];
            *p = (ddz_record_play){.seat = (uint8_t)seat, .autopass = 1};
            p->cards = ddz_game_standin_play(&g);
            cr_assert_eq(ddz_game_play(&g, seat, p->cards), 0, "game %u", k);
            continue;
        }
        ddz_view v;
        ddz_view_of(&g, seat, &v);
        if (g.phase == DDZ_PHASE_BID) {
            int bid = kind == GEN_ALLPASS ? 0 : ddz_random_bid(&rng, &v);
            cr_assert_eq(ddz_game_bid(&g, seat, bid), 0, "game %u", k);
            r->bids[r->nbids++] = (int8_t)bid;
            continue;
        }
        cr_assert_lt(r->nplays, DDZ_RECORD_MAX_PLAYS, "game %u", k);
        ddz_record_play *p = &r->plays[r->nplays++];
        p->seat = (uint8_t)seat;
        int farmer = seat != g.landlord;
        int timid = (kind == GEN_SPRING && farmer) || (kind == GEN_ANTI && !farmer);
        if (ddz_game_must_pass(&g) && ddz_rng_below(&rng, 2))
            p->autopass = 1;
        else if (!timid || ddz_game_leading(&g))
            p->cards = ddz_random_play(&rng, &v, moves, DDZ_MOVES_MAX);
        /* Eager farmers try a few times for something other than a pass. */
        for (int i = 0; kind == GEN_ANTI && farmer && !p->autopass && !p->cards && i < 8; i++)
            p->cards = ddz_random_play(&rng, &v, moves, DDZ_MOVES_MAX);
        cr_assert_eq(ddz_game_play(&g, seat, p->cards), 0, "game %u play %d", k, r->nplays - 1);
    }
    ddz_record_finish(r, &g);
    return kind;
}

/* Fills `r` with game `k` under caai; returns which kind of game it is. */
static enum gen_kind gen_record(uint32_t k, ddz_record *r)
{
    return gen_record_rules(k, &ddz_rules_caai, r);
}

#endif
