/* referee.c - the table's state machine: rules from rules/, history into a
 * ddz_record, events into a fixed ring. */
#include "service/table/referee.h"

#include <stdio.h>
#include <string.h>

#include "rules/error.h"

static void push(ddz_referee *ref, ddz_ev ev)
{
    /* The ring holds more than one step can emit (at most a fault, a play,
     * two auto-passes or stand-in actions, a leftover and a request, or a
     * game's opening three), and the caller drains it after every call:
     * overflowing is a caller bug we refuse to turn into memory
     * corruption. Every event is public: see referee.h. */
    if (ref->qlen == DDZ_REF_QUEUE)
        return;
    ev.to = DDZ_TO_ALL;
    ev.game = ref->rec.game;
    ref->q[(ref->qhead + ref->qlen++) % DDZ_REF_QUEUE] = ev;
}

bool ddz_ref_next(ddz_referee *ref, ddz_ev *ev)
{
    if (ref->qlen == 0)
        return false;
    *ev = ref->q[ref->qhead];
    ref->qhead = (ref->qhead + 1) % DDZ_REF_QUEUE;
    ref->qlen--;
    return true;
}

void ddz_ref_init(ddz_referee *ref, const ddz_ref_cfg *cfg)
{
    memset(ref, 0, sizeof *ref);
    ref->cfg = *cfg;
    if (!ref->cfg.rules)
        ref->cfg.rules = &ddz_rules_caai;
    if (ref->cfg.early_penalty <= 0)
        ref->cfg.early_penalty = ddz_rules_early_penalty(ref->cfg.rules, 0, 0);
}

static void finish(ddz_referee *ref)
{
    ddz_record_finish(&ref->rec, &ref->game);
    ref->running = false;
    ref->seq++; /* any answer still in flight is now stale */
    push(ref, (ddz_ev){.kind = DDZ_EV_OVER,
                       .seat = ref->game.winner,
                       .fault_seat = ref->game.fault_seat,
                       .fault_kind = ref->game.fault_kind});
}

static void leftover(ddz_referee *ref)
{
    push(ref, (ddz_ev){.kind = DDZ_EV_LEFTOVER,
                       .seat = ref->game.landlord,
                       .cards = ref->game.deal.leftover});
}

/* Records and announces a bid the rules accepted. */
static void bid_made(ddz_referee *ref, int seat, int bid)
{
    ref->rec.bids[ref->rec.nbids++] = (int8_t)bid;
    push(ref, (ddz_ev){.kind = DDZ_EV_BID, .seat = (int8_t)seat, .bid = (uint8_t)bid});
    if (ref->game.landlord >= 0)
        leftover(ref);
}

/* Records and announces a play the rules accepted. */
static void play_made(ddz_referee *ref, int seat, ddz_cards cards, int autopass)
{
    /* the rules classified it to accept it: g->last is the play (a pass
     * leaves it as it was) */
    uint8_t combo = (uint8_t)(cards ? ref->game.last.type : DDZ_PASS);
    ddz_record_play *p = &ref->rec.plays[ref->rec.nplays++];
    *p = (ddz_record_play){
        .seat = (uint8_t)seat, .autopass = (uint8_t)autopass, .combo = combo, .cards = cards};
    push(ref, (ddz_ev){.kind = DDZ_EV_PLAY,
                       .seat = (int8_t)seat,
                       .autopass = (uint8_t)autopass,
                       .combo = combo,
                       .cards = cards});
}

/* After every change: act for seats that faulted (DDZ_FAULTPOLICY_PLAY_ON)
 * and pass for seats that cannot beat (if they asked for it), then either
 * ask the next seat or announce the end. */
static void advance(ddz_referee *ref)
{
    ddz_game *g = &ref->game;
    for (;;) {
        int seat = g->turn;
        if (ddz_game_standin_due(g) && g->phase == DDZ_PHASE_BID) {
            int bid = ddz_game_standin_bid(g);
            ddz_game_bid(g, seat, bid); /* always legal: a pass */
            bid_made(ref, seat, bid);
        } else if (ddz_game_standin_due(g)) {
            ddz_cards cards = ddz_game_standin_play(g);
            ddz_game_play(g, seat, cards); /* a pass when following, a single on lead */
            play_made(ref, seat, cards, 1);
        } else if (g->phase == DDZ_PHASE_PLAY && ref->cfg.autopass[seat] && ddz_game_must_pass(g)) {
            ddz_game_play(g, seat, 0);
            play_made(ref, seat, 0, 1);
        } else {
            break;
        }
    }
    if (g->phase == DDZ_PHASE_OVER) {
        finish(ref);
        return;
    }
    ref->seq++;
    push(ref, (ddz_ev){.kind = g->phase == DDZ_PHASE_BID ? DDZ_EV_ASK_BID : DDZ_EV_ASK_PLAY,
                       .seat = (int8_t)g->turn,
                       .seq = ref->seq});
}

int ddz_ref_start(ddz_referee *ref, int game, const uint8_t seed[DDZ_SEED_BYTES],
                  const char *const names[3])
{
    if (ref->running)
        return DDZ_EPHASE;
    ddz_deal deal;
    int rc = ddz_deal_from_seed(seed, &deal);
    if (rc < 0)
        return rc;
    ddz_record *r = &ref->rec;
    memset(r, 0, sizeof *r);
    snprintf(r->rules, sizeof r->rules, "%s", ref->cfg.rules->name);
    r->game = game;
    memcpy(r->seed, seed, DDZ_SEED_BYTES);
    ddz_deal_commit(seed, r->commit);
    r->deal = deal;
    r->early_penalty = ref->cfg.early_penalty;
    r->landlord = r->winner = r->fault_seat = -1;
    for (int s = 0; s < 3; s++)
        snprintf(r->names[s], sizeof r->names[s], "%s", names && names[s] ? names[s] : "");

    ddz_game_start(&ref->game, ref->cfg.rules, &deal, ref->cfg.early_penalty);
    ref->running = true;
    push(ref, (ddz_ev){.kind = DDZ_EV_GAME, .seat = -1});
    if (ref->game.landlord >= 0) /* no bidding: the leftover goes at once */
        leftover(ref);
    advance(ref);
    return 0;
}

static int check(const ddz_referee *ref, int seat, uint32_t seq)
{
    if (!ref->running)
        return DDZ_EPHASE;
    if (seq != ref->seq)
        return DDZ_ESTALE;
    if (seat != ref->game.turn)
        return DDZ_ETURN;
    return 0;
}

int ddz_ref_bid(ddz_referee *ref, int seat, uint32_t seq, int bid)
{
    int rc = check(ref, seat, seq);
    if (rc < 0)
        return rc;
    rc = ddz_game_bid(&ref->game, seat, bid);
    if (rc < 0)
        return rc;
    bid_made(ref, seat, bid);
    advance(ref);
    return 0;
}

int ddz_ref_play(ddz_referee *ref, int seat, uint32_t seq, ddz_cards cards)
{
    int rc = check(ref, seat, seq);
    if (rc < 0)
        return rc;
    rc = ddz_game_play(&ref->game, seat, cards);
    if (rc < 0)
        return rc;
    play_made(ref, seat, cards, 0);
    advance(ref);
    return 0;
}

int ddz_ref_abort(ddz_referee *ref)
{
    if (!ref->running)
        return DDZ_EPHASE;
    ref->running = false;
    ref->seq++;
    ref->qlen = 0;
    return 0;
}

int ddz_ref_fault(ddz_referee *ref, int seat, int kind)
{
    if (!ref->running)
        return DDZ_EPHASE;
    ddz_game *g = &ref->game;
    int rc = ddz_game_fault(g, seat, kind);
    if (rc < 0)
        return rc;
    if (g->rules->fault_policy == DDZ_FAULTPOLICY_PLAY_ON)
        push(ref, (ddz_ev){.kind = DDZ_EV_FAULT,
                           .seat = (int8_t)seat,
                           .fault_seat = (int8_t)seat,
                           .fault_kind = (uint8_t)kind});
    if (g->phase == DDZ_PHASE_OVER)
        finish(ref);
    else if (g->turn == seat)
        advance(ref); /* its request is void: the referee acts for it */
    return 0;
}
