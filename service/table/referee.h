/* referee.h - one table's referee: a state machine fed actions, emitting
 * events.
 *
 * It knows nothing of pipes, sockets or clocks. A seat adapter (a CAAI
 * engine, a hosted AI, a browser, a remote bot) turns its transport into
 * calls here, and turns the events drained with ddz_ref_next() back into its
 * transport. The caller owns the clock: when a seat's time runs out it calls
 * ddz_ref_fault(seat, DDZ_FAULT_TIMEOUT).
 *
 * Its events are the one type every layer above passes on (ev.h), and every
 * one is public (`to` is DDZ_TO_ALL): the game's start says no hand (the
 * hands are in the record, ddz_ref_record()), so who may see which hand is
 * decided once, by the table that knows the players.
 *
 * Actions carry the sequence number of the request they answer (the `seq`
 * of the DDZ_EV_ASK_* event), so a stale or duplicate action is rejected
 * with DDZ_ESTALE and changes nothing. A rejected action is never charged
 * here: whether an illegal action is a fault (engines, competition rooms) or
 * a harmless error (a browser's misclick) is the adapter's policy, applied
 * with ddz_ref_fault().
 *
 * What a fault does is the rule set's (ruleset.h): under
 * DDZ_FAULTPOLICY_END it ends the game; under DDZ_FAULTPOLICY_PLAY_ON
 * (botzone-ftl2) it is announced (DDZ_EV_FAULT) and the game goes on, the
 * referee bidding and playing for that seat itself (ddz_game_standin_bid,
 * ddz_game_standin_play) whenever its turn comes: the seat is not asked
 * again that game, and its stand-in's actions are emitted and recorded like
 * any other, plays marked `autopass` (the record's "auto": the referee made
 * them). Without bidding (botzone-ftl) a game starts with the leftover
 * going to West and West asked to play.
 */
#ifndef DDZ_REFEREE_H
#define DDZ_REFEREE_H

#include <stdbool.h>

#include "rules/game.h"
#include "rules/record.h"
#include "service/table/ev.h"

typedef struct ddz_ref_cfg {
    const ddz_rules *rules; /* NULL = caai */
    int early_penalty;      /* spec §6 before the leftover: maxscore / games; 0 = the
                               rule set's (ddz_rules_early_penalty) */
    uint8_t autopass[3];    /* per seat: pass for it when it cannot beat (spec §4) */
} ddz_ref_cfg;

enum { DDZ_REF_QUEUE = 64 };

typedef struct ddz_referee {
    ddz_ref_cfg cfg;
    ddz_game game;  /* the rules' state */
    ddz_record rec; /* the history, complete once DDZ_EV_OVER is emitted */
    uint32_t seq;   /* number of the current request */
    bool running;   /* a game is in progress */
    ddz_ev q[DDZ_REF_QUEUE];
    unsigned qhead, qlen;
} ddz_referee;

/* Prepares `ref` with `cfg`. No game runs until ddz_ref_start(). */
void ddz_ref_init(ddz_referee *ref, const ddz_ref_cfg *cfg);

/* Starts game `game` dealt from `seed`, with the players' `names` (NULL
 * entries allowed) written into the record. Emits DDZ_EV_GAME (the public
 * start: no hand) and the first DDZ_EV_ASK_BID (without bidding:
 * DDZ_EV_LEFTOVER and the first DDZ_EV_ASK_PLAY). Returns 0, DDZ_EPHASE if a game is still
 * running, or DDZ_ESEED if the seed yields no deal. */
int ddz_ref_start(ddz_referee *ref, int game, const uint8_t seed[DDZ_SEED_BYTES],
                  const char *const names[3]);

/* `seat` bids `bid` answering request `seq`. Returns 0, DDZ_ESTALE (seq is
 * not the current request), DDZ_ETURN, DDZ_EPHASE or DDZ_EBID; on error
 * nothing changes and nothing is charged. */
int ddz_ref_bid(ddz_referee *ref, int seat, uint32_t seq, int bid);

/* `seat` plays `cards` (0 = pass) answering request `seq`. Returns 0, or
 * DDZ_ESTALE, DDZ_ETURN, DDZ_EPHASE, DDZ_ENOTHELD, DDZ_ESHAPE,
 * DDZ_ELEADPASS, DDZ_EWEAK; on error nothing changes. */
int ddz_ref_play(ddz_referee *ref, int seat, uint32_t seq, ddz_cards cards);

/* Charges `seat` with a fault of `kind` (enum ddz_fault). Under
 * DDZ_FAULTPOLICY_END it ends the game with the rule set's penalty (spec §6
 * for caai), emitting DDZ_EV_OVER. Under DDZ_FAULTPOLICY_PLAY_ON it emits
 * DDZ_EV_FAULT and, if the seat was the one asked, plays for it and asks the
 * next seat (the request it was asked is void); a third faulty seat ends
 * the game (DDZ_EV_OVER). Returns 0, DDZ_EPHASE if no game is running or the
 * seat has already faulted in this game (nothing changes), DDZ_EINVAL for a
 * bad seat or kind. */
int ddz_ref_fault(ddz_referee *ref, int seat, int kind);

/* Abandons the running game without scoring it: no event is emitted, the
 * record stays as it was, and any answer still in flight becomes stale.
 * Returns 0, or DDZ_EPHASE if no game is running. */
int ddz_ref_abort(ddz_referee *ref);

/* Pops the next event into *ev. Returns false when there is none. */
bool ddz_ref_next(ddz_referee *ref, ddz_ev *ev);

/* Returns true while a game runs (until its DDZ_EV_OVER is emitted). */
static inline bool ddz_ref_running(const ddz_referee *ref)
{
    return ref->running;
}

/* Returns the record of the current or last game. */
static inline const ddz_record *ddz_ref_record(const ddz_referee *ref)
{
    return &ref->rec;
}

#endif
