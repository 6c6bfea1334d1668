/* game.h - one game as a value: bidding, play, end, scores, faults.
 *
 * ddz_game is a fixed-size struct owned by the caller; copying it is a
 * memcpy and replaying a game is feeding the same actions again. It holds
 * no history list (the referee records that); it holds what the rules need:
 * hands, the last play to beat, counters for the multiplier. What differs
 * between rule sets (the bid ladder, the multiplier, the scores, the fault
 * penalty) it asks g->rules (ruleset.h).
 *
 * Seats are 0 (West, A), 1 (South, B), 2 (East, C). Bidding starts at seat 0;
 * a rule set without bidding (botzone-ftl) starts in the play phase.
 *
 * Faults (ddz_game_fault) are kept in the game, at most one per seat. Under
 * DDZ_FAULTPOLICY_END the first ends the game. Under
 * DDZ_FAULTPOLICY_PLAY_ON (botzone-ftl2) the game goes on, and a seat that
 * faulted may only take its stand-in action (ddz_game_standin_bid/play),
 * which the referee takes for it; a third faulty seat ends the game.
 */
#ifndef DDZ_GAME_H
#define DDZ_GAME_H

#include <stdbool.h>

#include "combo.h"
#include "deal.h"

struct ddz_view; /* view.h */

enum ddz_phase { DDZ_PHASE_BID = 0, DDZ_PHASE_PLAY, DDZ_PHASE_OVER };

enum ddz_fault {
    DDZ_FAULT_NONE = 0,
    DDZ_FAULT_TIMEOUT,  /* no answer within the time limit */
    DDZ_FAULT_ILLEGAL,  /* an action the rules forbid */
    DDZ_FAULT_PROTOCOL, /* a malformed or unexpected message */
    DDZ_FAULT_CRASH,    /* the engine or connection died */
    DDZ_NFAULTS
};

enum { DDZ_FAULTS_MAX = 3 }; /* a seat is charged once per game */

/* One fault as the record keeps it (spec §8 `faults`). */
typedef struct ddz_fault_entry {
    int8_t seat;  /* the faulty seat */
    uint8_t kind; /* enum ddz_fault */
    int16_t at;   /* plays made before it (its index in a record's plays), -1 while bidding */
    uint8_t bids; /* bids made before it */
} ddz_fault_entry;

typedef struct ddz_game {
    const ddz_rules *rules;
    ddz_deal deal;         /* the cards as dealt */
    ddz_cards hand[3];     /* cards each seat holds now */
    ddz_cards played[3];   /* cards each seat has played */
    int8_t bids[3];        /* each seat's bid, -1 until made */
    uint8_t phase;         /* enum ddz_phase */
    uint8_t turn;          /* seat to act (bid or play) */
    uint8_t nbids;         /* bids made so far */
    int8_t landlord;       /* seat, -1 while bidding or if all passed */
    uint8_t bid;           /* base score: the landlord's bid */
    ddz_combo last;        /* the play to beat; type DDZ_PASS when leading */
    int8_t last_seat;      /* who made `last`, -1 when leading */
    uint8_t nplays[3];     /* non-pass plays per seat (spring, anti-spring) */
    uint8_t bombs;         /* bombs played */
    uint8_t rocket;        /* 1 if the rocket was played */
    uint8_t held_bombs;    /* fours in all hands after the leftover (spec §6) */
    uint8_t held_rocket;   /* 1 if one hand held both jokers then */
    int8_t winner;         /* seat that emptied its hand, -1 if none */
    int8_t fault_seat;     /* seat charged with the first fault, -1 if none */
    uint8_t fault_kind;    /* its kind: enum ddz_fault */
    uint8_t spring;        /* 1 if spring (spec §5) */
    uint8_t anti_spring;   /* 1 if anti-spring */
    int32_t multiplier;    /* final multiplier; 0 until the game is won */
    int32_t early_penalty; /* what a seat faulting before the leftover pays each other seat */
    double score[3];       /* small scores, valid once phase is DDZ_PHASE_OVER */

    uint8_t nfaults;                        /* faults charged, in faults[] */
    uint8_t faulted;                        /* bit s set: seat s has faulted */
    ddz_fault_entry faults[DDZ_FAULTS_MAX]; /* in the order charged */
    uint16_t nturns;   /* plays made, passes included (a record's plays index) */
    int16_t weight[3]; /* sum of rules->play_weight over each seat's plays */
} ddz_game;

/* Starts a game on `deal` under `rs`, seat 0 to bid; without bidding
 * (DDZ_BIDDING_NONE) West is the landlord at bid 1, holds the leftover and
 * is to play. `early_penalty` is what a seat faulting before the leftover
 * pays each other seat (spec §6): get it from ddz_rules_early_penalty(rs,
 * maxscore, games), which knows the default (rs->deal_maxscore, 350 for
 * caai). Never fails. */
void ddz_game_start(ddz_game *g, const ddz_rules *rs, const ddz_deal *deal, int early_penalty);

/* Seat `seat` bids `bid` (0 = pass, 1..rules->max_bid). Returns 0, or
 * DDZ_EPHASE when not bidding, DDZ_ETURN when it is not that seat's turn,
 * DDZ_EBID when the bid is not one of ddz_rules_legal_bids() (not 0 and not
 * higher than every earlier bid, or above max_bid), DDZ_ESTANDIN when the
 * seat has faulted and `bid` is not ddz_game_standin_bid(). A bid of max_bid
 * ends bidding at once; all three passing ends the game (DDZ_ALLPASS_NOGAME)
 * or makes West the landlord at bid 1 (DDZ_ALLPASS_WEST). On error the game
 * is unchanged (charging a fault is the caller's decision). */
int ddz_game_bid(ddz_game *g, int seat, int bid);

/* Seat `seat` plays `cards` (0 = pass). Returns 0, or DDZ_EPHASE, DDZ_ETURN,
 * DDZ_ENOTHELD (cards not in hand), DDZ_ESHAPE (no legal combination),
 * DDZ_ELEADPASS (pass on lead), DDZ_EWEAK (does not beat the last play),
 * DDZ_ESTANDIN (the seat has faulted and `cards` is not
 * ddz_game_standin_play()). On error the game is unchanged. */
int ddz_game_play(ddz_game *g, int seat, ddz_cards cards);

/* Charges `seat` with a fault of `kind`, noted in faults[]. Under
 * DDZ_FAULTPOLICY_END it ends the game with the rule set's penalty (spec §6
 * for caai); under DDZ_FAULTPOLICY_PLAY_ON the game goes on (the seat's
 * actions are its stand-in's from now on) unless all three seats have now
 * faulted, which ends it with the penalty. Returns 0, or DDZ_EPHASE if the
 * game is already over or the seat has already faulted in it, DDZ_EINVAL for
 * a bad seat or kind or a fault policy this function does not implement; on
 * error the game is unchanged. */
int ddz_game_fault(ddz_game *g, int seat, int kind);

/* Ends `g` as won by `winner` (the seat whose hand just emptied): sets
 * winner, phase, spring and anti-spring (from nplays), the multiplier and
 * the scores, by g->rules. ddz_game_play calls it; the score search of
 * ai/solver.h calls it on a game of which only rules, landlord, bid,
 * nplays, bombs, rocket and weight are set (spring and anti_spring 0), so
 * a rule set's multiplier and score read nothing else. Never fails. */
void ddz_game_score_won(ddz_game *g, int winner);

/* Returns true when `seat` has faulted in this game. */
static inline bool ddz_game_faulted(const ddz_game *g, int seat)
{
    return (g->faulted >> seat) & 1;
}

/* Returns true when the seat to act has faulted and the game goes on
 * (DDZ_FAULTPOLICY_PLAY_ON): the referee takes its stand-in action. */
static inline bool ddz_game_standin_due(const ddz_game *g)
{
    return g->phase != DDZ_PHASE_OVER && ddz_game_faulted(g, g->turn);
}

/* Returns the bid the referee makes for a seat that faulted: 0 (spec §8). */
int ddz_game_standin_bid(const ddz_game *g);

/* Returns the play the referee makes for the seat to move when it has
 * faulted (spec §8): a pass when following, else the single card of its
 * lowest code. DOES NOT CHECK that the seat has faulted. */
ddz_cards ddz_game_standin_play(const ddz_game *g);

/* Fills `g` with a game in the play phase that seat v->seat, seeing `v`,
 * cannot tell from the real one, where hands[s] are the cards seat s holds
 * now (a full assignment: hands[v->seat] is v->hand; a hosted AI samples
 * the others). Every field the rules read is set: hands, played cards,
 * bids, landlord, bid, turn, the play to beat, bombs and rocket played, the
 * held bombs and rocket of the fault penalty (counted on hand | played),
 * early_penalty = ddz_rules_early_penalty(rules, 0, 0), no winner, no fault.
 * The deal is what can be reconstructed: dealt = hand | played, less the
 * leftover for the landlord (exact when hands[] are the real hands).
 *
 * nplays[] is a GUESS, since a view does not count plays: 0 for a seat that
 * played nothing, else 1, and 2 for a landlord whose played cards are no one
 * combination. Spring is therefore exact; anti-spring is scored wrongly when
 * the landlord made several plays that together form one combination
 * (34567 then 89TJQ) and a farmer then wins. The view knows no faults (nobody
 * has faulted in the rebuilt game), no count of plays (nturns is 0) and no
 * play weights (weight[] is 0: botzone-ftl's scores count from here on).
 *
 * Returns 0, or DDZ_EINVAL (g unchanged) when `hands` contradicts `v`: the
 * view is not in the play phase, has a seat out of range or a play to beat
 * without its player (or the reverse), hands[s] does not hold v->left[s]
 * cards, hands[v->seat] differs from v->hand, a card is in two hands or in a
 * hand and among played cards, some card is nowhere, or a leftover card is
 * neither held nor played by the landlord. */
int ddz_game_from_view(const struct ddz_view *v, const ddz_cards hands[3], ddz_game *g);

/* Returns true when the seat to move leads (may play anything, may not pass). */
static inline bool ddz_game_leading(const ddz_game *g)
{
    return g->last.type == DDZ_PASS;
}

/* Returns true when the seat to move in the play phase cannot beat the last
 * play, so the referee may pass for it (spec §4 auto-pass). False when
 * leading or not in the play phase. */
bool ddz_game_must_pass(const ddz_game *g);

/* Returns the play a fault-free game needs next: DDZ_PHASE_BID or
 * DDZ_PHASE_PLAY with g->turn to act, or DDZ_PHASE_OVER. */
static inline int ddz_game_phase(const ddz_game *g)
{
    return g->phase;
}

/* Returns the name of fault kind `kind` as used in records ("timeout",
 * "illegal", "protocol", "crash"), "none" for DDZ_FAULT_NONE. */
const char *ddz_fault_name(int kind);

/* Returns the fault kind named `name`, or -1. */
int ddz_fault_from_name(const char *name);

#endif
