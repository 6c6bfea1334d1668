/* game.c - the rules of one game as a state machine over ddz_game. */
#include "game.h"

#include <string.h>

#include "error.h"
#include "movegen.h"
#include "view.h"

/* Ranks 3..2 held four times. A suited rank holds at most 4 cards, so its
 * count is 4 exactly when the count's bit 2 is set; the multiply adds those
 * bits up in the top nibble (no popcount: a library call without -mpopcnt). */
static int count_fours(ddz_cards hand)
{
    uint64_t fours = ddz_cards_ranks(hand) >> 2 & 0x0001111111111111ULL; /* nibbles 0..12 */
    return (int)((fours * 0x1111111111111111ULL) >> 60);
}

/* Sets held_bombs and held_rocket from the hands as they stood once the
 * landlord took the leftover (spec §6). */
static void count_held(ddz_game *g, const ddz_cards held[3])
{
    ddz_cards jokers = (1ULL << DDZ_CARD_SJ) | (1ULL << DDZ_CARD_BJ);
    g->held_bombs = 0;
    g->held_rocket = 0;
    for (int s = 0; s < 3; s++) {
        g->held_bombs += (uint8_t)count_fours(held[s]);
        if ((held[s] & jokers) == jokers)
            g->held_rocket = 1;
    }
}

static void give_leftover(ddz_game *g, int landlord, int bid)
{
    g->landlord = (int8_t)landlord;
    g->bid = (uint8_t)bid;
    g->hand[landlord] |= g->deal.leftover;
    g->phase = DDZ_PHASE_PLAY;
    g->turn = (uint8_t)landlord;
    count_held(g, g->hand);
}

void ddz_game_start(ddz_game *g, const ddz_rules *rs, const ddz_deal *deal, int early_penalty)
{
    memset(g, 0, sizeof *g);
    g->rules = rs;
    g->deal = *deal;
    for (int s = 0; s < 3; s++) {
        g->hand[s] = deal->hand[s];
        g->bids[s] = -1;
    }
    g->phase = DDZ_PHASE_BID;
    g->landlord = -1;
    g->last.type = DDZ_PASS;
    g->last_seat = -1;
    g->winner = -1;
    g->fault_seat = -1;
    g->early_penalty = early_penalty;
    if (rs->bidding == DDZ_BIDDING_NONE)
        give_leftover(g, 0, 1);
}

int ddz_game_bid(ddz_game *g, int seat, int bid)
{
    if (g->phase != DDZ_PHASE_BID)
        return DDZ_EPHASE;
    if (seat != g->turn)
        return DDZ_ETURN;
    if (ddz_game_faulted(g, seat) && bid != ddz_game_standin_bid(g))
        return DDZ_ESTANDIN;
    int legal[DDZ_NBIDS_MAX];
    int n = ddz_rules_legal_bids(g->rules, g->bids, legal), i = 0;
    while (i < n && legal[i] != bid)
        i++;
    if (i == n)
        return DDZ_EBID;

    int high = 0, high_seat = -1;
    for (int s = 0; s < 3; s++)
        if (g->bids[s] > high)
            high = g->bids[s], high_seat = s;
    g->bids[seat] = (int8_t)bid;
    g->nbids++;
    if (bid > high)
        high = bid, high_seat = seat;
    if (bid == g->rules->max_bid) {
        give_leftover(g, seat, bid);
    } else if (g->nbids == 3) {
        if (high_seat >= 0)
            give_leftover(g, high_seat, high);
        else if (g->rules->allpass == DDZ_ALLPASS_WEST)
            give_leftover(g, 0, 1);
        else
            g->phase = DDZ_PHASE_OVER; /* all passed: every score stays 0 */
    } else {
        g->turn = (uint8_t)((seat + 1) % 3);
    }
    return 0;
}

void ddz_game_score_won(ddz_game *g, int winner)
{
    int ll = g->landlord;
    g->winner = (int8_t)winner;
    g->phase = DDZ_PHASE_OVER;
    if (winner == ll && g->nplays[(ll + 1) % 3] == 0 && g->nplays[(ll + 2) % 3] == 0)
        g->spring = 1;
    if (winner != ll && g->nplays[ll] == 1)
        g->anti_spring = 1;
    g->multiplier = g->rules->multiplier(g);
    g->rules->score(g, g->score);
}

int ddz_game_play(ddz_game *g, int seat, ddz_cards cards)
{
    if (g->phase != DDZ_PHASE_PLAY)
        return DDZ_EPHASE;
    if (seat != g->turn)
        return DDZ_ETURN;
    if (cards & ~g->hand[seat])
        return DDZ_ENOTHELD;
    if (ddz_game_faulted(g, seat) && cards != ddz_game_standin_play(g))
        return DDZ_ESTANDIN;
    if (cards == 0) {
        if (ddz_game_leading(g))
            return DDZ_ELEADPASS;
        g->nturns++;
        g->turn = (uint8_t)((seat + 1) % 3);
        if (g->turn == g->last_seat) { /* two passes: the last player leads */
            g->last.type = DDZ_PASS;
            g->last_seat = -1;
        }
        return 0;
    }
    ddz_combo c = ddz_combo_classify(g->rules, ddz_cards_ranks(cards));
    if (c.type == DDZ_INVALID)
        return DDZ_ESHAPE;
    if (!ddz_game_leading(g) && !ddz_combo_beats(c, g->last))
        return DDZ_EWEAK;

    g->hand[seat] &= ~cards;
    g->played[seat] |= cards;
    g->nplays[seat]++;
    g->nturns++;
    if (g->rules->play_weight)
        g->weight[seat] = (int16_t)(g->weight[seat] + g->rules->play_weight(&c));
    g->bombs += c.type == DDZ_BOMB;
    g->rocket |= c.type == DDZ_ROCKET;
    g->last = c;
    g->last_seat = (int8_t)seat;
    if (g->hand[seat] == 0)
        ddz_game_score_won(g, seat);
    else
        g->turn = (uint8_t)((seat + 1) % 3);
    return 0;
}

int ddz_game_fault(ddz_game *g, int seat, int kind)
{
    if (g->phase == DDZ_PHASE_OVER)
        return DDZ_EPHASE;
    if (seat < 0 || seat > 2 || kind <= DDZ_FAULT_NONE || kind >= DDZ_NFAULTS)
        return DDZ_EINVAL;
    int policy = g->rules->fault_policy;
    if (policy != DDZ_FAULTPOLICY_END && policy != DDZ_FAULTPOLICY_PLAY_ON)
        return DDZ_EINVAL;
    if (ddz_game_faulted(g, seat))
        return DDZ_EPHASE;
    g->faults[g->nfaults++] = (ddz_fault_entry){
        .seat = (int8_t)seat,
        .kind = (uint8_t)kind,
        .at = (int16_t)(g->phase == DDZ_PHASE_BID ? -1 : g->nturns),
        .bids = g->nbids,
    };
    g->faulted |= (uint8_t)(1u << seat);
    if (g->nfaults == 1) {
        g->fault_seat = (int8_t)seat;
        g->fault_kind = (uint8_t)kind;
    }
    if (policy == DDZ_FAULTPOLICY_END || g->faulted == 7) {
        g->rules->penalty(g, seat, g->score);
        g->phase = DDZ_PHASE_OVER;
    }
    return 0;
}

int ddz_game_standin_bid(const ddz_game *g)
{
    (void)g;
    return 0;
}

ddz_cards ddz_game_standin_play(const ddz_game *g)
{
    if (!ddz_game_leading(g))
        return 0;
    ddz_cards h = g->hand[g->turn];
    return h & (~h + 1);
}

/* Returns true when the view and hands[] cannot be the same game in play. */
static bool contradicts(const ddz_view *v, const ddz_cards hands[3])
{
    if (v->rules == NULL || v->phase != DDZ_PHASE_PLAY || v->seat > 2 || v->turn > 2 ||
        v->landlord < 0 || v->landlord > 2 || v->last_seat < -1 || v->last_seat > 2 ||
        (v->last_seat < 0) != (v->last.type == DDZ_PASS) || hands[v->seat] != v->hand)
        return true;
    ddz_cards seen = 0;
    for (int s = 0; s < 3; s++) {
        if (ddz_cards_count(hands[s]) != v->left[s] || (hands[s] & seen))
            return true;
        seen |= hands[s];
        if (v->played[s] & seen)
            return true;
        seen |= v->played[s];
    }
    int ll = v->landlord;
    return seen != DDZ_CARDS_ALL || (v->leftover & ~(hands[ll] | v->played[ll]));
}

int ddz_game_from_view(const ddz_view *v, const ddz_cards hands[3], ddz_game *g)
{
    if (contradicts(v, hands))
        return DDZ_EINVAL;
    int ll = v->landlord;
    ddz_cards held[3]; /* the hands once the landlord took the leftover */
    memset(g, 0, sizeof *g);
    g->rules = v->rules;
    g->deal.leftover = v->leftover;
    for (int s = 0; s < 3; s++) {
        held[s] = hands[s] | v->played[s];
        g->deal.hand[s] = held[s] & ~(s == ll ? v->leftover : 0);
        g->hand[s] = hands[s];
        g->played[s] = v->played[s];
        g->bids[s] = v->bids[s];
        g->nbids += v->bids[s] >= 0;
        /* the view does not count plays; the rules only ask whether the
         * farmers made none and whether the landlord made exactly one */
        if (v->played[s])
            g->nplays[s] = 1;
        if (s == ll && v->played[s] &&
            ddz_combo_classify(v->rules, ddz_cards_ranks(v->played[s])).type == DDZ_INVALID)
            g->nplays[s] = 2;
    }
    g->phase = DDZ_PHASE_PLAY;
    g->turn = v->turn;
    g->landlord = (int8_t)ll;
    g->bid = v->bid;
    g->last = v->last;
    g->last_seat = v->last_seat;
    g->bombs = v->bombs;
    g->rocket = v->rocket;
    count_held(g, held);
    g->winner = -1;
    g->fault_seat = -1;
    g->early_penalty = ddz_rules_early_penalty(v->rules, 0, 0);
    return 0;
}

bool ddz_game_must_pass(const ddz_game *g)
{
    if (g->phase != DDZ_PHASE_PLAY || ddz_game_leading(g))
        return false;
    return !ddz_movegen_can_beat(g->rules, ddz_cards_ranks(g->hand[g->turn]), g->last);
}

const char *ddz_fault_name(int kind)
{
    static const char *const names[DDZ_NFAULTS] = {"none", "timeout", "illegal", "protocol",
                                                   "crash"};
    return kind >= 0 && kind < DDZ_NFAULTS ? names[kind] : "none";
}

int ddz_fault_from_name(const char *name)
{
    for (int k = 1; k < DDZ_NFAULTS; k++)
        if (strcmp(name, ddz_fault_name(k)) == 0)
            return k;
    return -1;
}
