/* view.h - what one seat may know of a game.
 *
 * Hosted AIs decide from a ddz_view, never from a ddz_game, so they cannot
 * see a card their seat could not see at a real table: their own hand, the
 * bids, the leftover once revealed, every card played, and the number of
 * cards each opponent holds.
 */
#ifndef DDZ_VIEW_H
#define DDZ_VIEW_H

#include "game.h"

typedef struct ddz_view {
    const ddz_rules *rules;
    uint8_t seat;        /* the seat this view belongs to */
    uint8_t phase;       /* enum ddz_phase */
    uint8_t turn;        /* seat to act */
    ddz_cards hand;      /* own cards */
    int8_t bids[3];      /* bids so far, -1 if not made */
    int8_t landlord;     /* -1 while bidding */
    uint8_t bid;         /* base score once bidding is over */
    ddz_cards leftover;  /* 0 until given to the landlord */
    ddz_cards played[3]; /* cards each seat has played */
    uint8_t left[3];     /* cards each seat holds */
    ddz_combo last;      /* play to beat; DDZ_PASS when leading */
    int8_t last_seat;    /* who made it, -1 when leading */
    uint8_t bombs;       /* bombs played so far */
    uint8_t rocket;      /* rocket played */
} ddz_view;

/* Fills `v` with what `seat` may know of `g`. Never fails. */
void ddz_view_of(const ddz_game *g, int seat, ddz_view *v);

/* Returns the highest bid made so far (0 if none). */
int ddz_view_high_bid(const ddz_view *v);

/* A seat that learns the game only from messages (a CAAI engine, a remote
 * bot) keeps its view up to date with these. Each returns 0, or DDZ_EINVAL
 * when the message contradicts the view (a card it cannot have, a seat out
 * of range); the view is then unchanged. */

/* A new game: own seat and hand, everything else reset. */
int ddz_view_deal(ddz_view *v, const ddz_rules *rs, int seat, ddz_cards hand);

/* Seat `seat` bid `bid`. */
int ddz_view_bid(ddz_view *v, int seat, int bid);

/* `landlord` took the leftover `cards`; play begins with the landlord. */
int ddz_view_leftover(ddz_view *v, int landlord, ddz_cards cards);

/* Seat `seat` played `cards` (0 = pass); the lead returns to the last
 * player after two passes. */
int ddz_view_play(ddz_view *v, int seat, ddz_cards cards);

#endif
