/* view.c - projecting a game onto one seat's knowledge. */
#include "view.h"

#include <string.h>

#include "error.h"

void ddz_view_of(const ddz_game *g, int seat, ddz_view *v)
{
    v->rules = g->rules;
    v->seat = (uint8_t)seat;
    v->phase = g->phase;
    v->turn = g->turn;
    v->hand = g->hand[seat];
    v->landlord = g->landlord;
    v->bid = g->bid;
    v->leftover = g->landlord >= 0 ? g->deal.leftover : 0;
    for (int s = 0; s < 3; s++) {
        v->bids[s] = g->bids[s];
        v->played[s] = g->played[s];
        v->left[s] = (uint8_t)ddz_cards_count(g->hand[s]);
    }
    v->last = g->last;
    v->last_seat = g->last_seat;
    v->bombs = g->bombs;
    v->rocket = g->rocket;
}

int ddz_view_high_bid(const ddz_view *v)
{
    int high = 0;
    for (int s = 0; s < 3; s++)
        if (v->bids[s] > high)
            high = v->bids[s];
    return high;
}

int ddz_view_deal(ddz_view *v, const ddz_rules *rs, int seat, ddz_cards hand)
{
    if (seat < 0 || seat > 2 || (hand & ~DDZ_CARDS_ALL))
        return DDZ_EINVAL;
    memset(v, 0, sizeof *v);
    v->rules = rs;
    v->seat = (uint8_t)seat;
    v->phase = DDZ_PHASE_BID;
    v->hand = hand;
    for (int s = 0; s < 3; s++) {
        v->bids[s] = -1;
        v->left[s] = 17;
    }
    v->landlord = -1;
    v->last.type = DDZ_PASS;
    v->last_seat = -1;
    return 0;
}

int ddz_view_bid(ddz_view *v, int seat, int bid)
{
    if (seat < 0 || seat > 2 || bid < 0 || bid > 3)
        return DDZ_EINVAL;
    v->bids[seat] = (int8_t)bid;
    v->turn = (uint8_t)((seat + 1) % 3);
    return 0;
}

int ddz_view_leftover(ddz_view *v, int landlord, ddz_cards cards)
{
    if (landlord < 0 || landlord > 2 || (cards & ~DDZ_CARDS_ALL) || ddz_cards_count(cards) != 3)
        return DDZ_EINVAL;
    if (landlord != v->seat && (cards & v->hand))
        return DDZ_EINVAL;
    v->landlord = (int8_t)landlord;
    v->bid = (uint8_t)(v->bids[landlord] > 0 ? v->bids[landlord] : 1);
    v->leftover = cards;
    v->left[landlord] += 3;
    if (landlord == v->seat)
        v->hand |= cards;
    v->phase = DDZ_PHASE_PLAY;
    v->turn = (uint8_t)landlord;
    return 0;
}

int ddz_view_play(ddz_view *v, int seat, ddz_cards cards)
{
    if (seat < 0 || seat > 2 || (cards & ~DDZ_CARDS_ALL))
        return DDZ_EINVAL;
    if (seat == v->seat ? (cards & ~v->hand) != 0 : (cards & v->hand) != 0)
        return DDZ_EINVAL;
    if (ddz_cards_count(cards) > v->left[seat])
        return DDZ_EINVAL;
    v->turn = (uint8_t)((seat + 1) % 3);
    if (cards == 0) {
        if (v->turn == v->last_seat) {
            v->last.type = DDZ_PASS;
            v->last_seat = -1;
        }
        return 0;
    }
    ddz_combo c = ddz_combo_classify(v->rules, ddz_cards_ranks(cards));
    if (c.type == DDZ_INVALID)
        return DDZ_EINVAL;
    if (seat == v->seat)
        v->hand &= ~cards;
    v->played[seat] |= cards;
    v->left[seat] = (uint8_t)(v->left[seat] - ddz_cards_count(cards));
    v->last = c;
    v->last_seat = (int8_t)seat;
    v->bombs += c.type == DDZ_BOMB;
    v->rocket |= c.type == DDZ_ROCKET;
    if (v->left[seat] == 0)
        v->phase = DDZ_PHASE_OVER;
    return 0;
}
