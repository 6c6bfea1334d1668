/* view.c - projecting a game onto one seat's knowledge. */
#include "view.h"

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
