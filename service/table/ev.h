/* ev.h - the one event type that flows from the referee to the seats.
 *
 * One move used to be copied from the referee's event into the table's and,
 * for engines, back into the referee's: every field had to be carried over
 * twice. Now the referee (referee.h) emits a ddz_ev, the table (table.h)
 * addresses that same value and queues it, the runner (runner.h) hands it
 * to the seats (seat.h) and its driver (a room, a tournament's director,
 * `ddz match`), and an engine's session (service/engine/caai_seat.h) turns
 * it into CAAI lines. `ddz bridge` makes them from a server's frames.
 *
 * Who fills what: the referee fills the kind, `seat`, `game` and the fields
 * its kind names; it knows seats, not players, and knows no clock. The
 * table addresses every event (`to`), stamps a request's `deadline_ms`,
 * gives each player its own copy of DDZ_EV_GAME with that player's seat and
 * hand (the referee's is the public one, which spectators get), and adds
 * DDZ_EV_SERIES. Everything else passes through unchanged.
 */
#ifndef DDZ_EV_H
#define DDZ_EV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/cards.h"

/* Audiences of an event, besides a player index 0..2. */
enum { DDZ_TO_ALL = -1, DDZ_TO_WATCHERS = -2 };

enum ddz_ev_kind {
    DDZ_EV_GAME = 1, /* a game begins. From the referee: the public start (`seat` -1, no
                        hand; the hands are in its record). From the table: `seat` is
                        the receiver's seat (-1 for spectators), `cards` its hand
                        (0 for spectators) */
    DDZ_EV_ASK_BID,  /* `seat` must bid, answering `seq` before `deadline_ms` */
    DDZ_EV_ASK_PLAY, /* `seat` must play, answering `seq` before `deadline_ms`.
                        The two request kinds are also what an answer says it
                        answers (seat.h's `act`) */
    DDZ_EV_BID,      /* `seat` bid `bid` */
    DDZ_EV_LEFTOVER, /* landlord `seat` takes `cards` */
    DDZ_EV_PLAY,     /* `seat` played `cards` (0 = pass; `autopass` if the referee made
                        the play: an auto-pass, or a faulty seat's stand-in) */
    DDZ_EV_OVER,     /* the game is over: winner `seat` (-1 if none), the first fault
                        in `fault_seat`/`fault_kind` (-1 if none); the record is
                        complete */
    DDZ_EV_FAULT,    /* `seat` faulted (`fault_kind`; also in `fault_seat`) and the game
                        goes on with the referee acting for it
                        (DDZ_FAULTPOLICY_PLAY_ON, botzone-ftl2). Under that policy
                        every fault is announced, the one that ends the game too,
                        before DDZ_EV_OVER */
    DDZ_EV_SERIES,   /* the table's: every game of the series is played (see
                        ddz_table_total()) */
};

typedef struct ddz_ev {
    uint8_t kind;        /* enum ddz_ev_kind */
    int8_t to;           /* the table's address: player 0..2, DDZ_TO_ALL or
                            DDZ_TO_WATCHERS (0 as the referee emits it) */
    int8_t seat;         /* the seat the event is about (see the kinds) */
    uint8_t bid;         /* DDZ_EV_BID */
    uint8_t autopass;    /* DDZ_EV_PLAY: the referee made the play */
    uint8_t combo;       /* DDZ_EV_PLAY: enum ddz_type as the rules classified it
                            (DDZ_PASS) */
    int8_t fault_seat;   /* DDZ_EV_OVER (-1 if none), DDZ_EV_FAULT */
    uint8_t fault_kind;  /* DDZ_EV_OVER, DDZ_EV_FAULT: enum ddz_fault */
    uint32_t seq;        /* DDZ_EV_ASK_*: the number the answer must carry */
    int game;            /* 0-based index of the game (in the table's series) */
    int64_t deadline_ms; /* DDZ_EV_ASK_*: when the answer is due (the driver's
                            clock; set by the table) */
    ddz_cards cards;     /* DDZ_EV_GAME, DDZ_EV_LEFTOVER, DDZ_EV_PLAY */
} ddz_ev;

/* Returns true if `ev` is a request (DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY). */
static inline bool ddz_ev_is_ask(const ddz_ev *ev)
{
    return ev->kind == DDZ_EV_ASK_BID || ev->kind == DDZ_EV_ASK_PLAY;
}

/* Returns true if an event the table addressed reaches `player` (-1 for a
 * spectator). */
static inline bool ddz_ev_reaches(const ddz_ev *ev, int player)
{
    return ev->to == DDZ_TO_ALL || (player < 0 ? ev->to == DDZ_TO_WATCHERS : ev->to == player);
}

/* Writes one line describing an addressed `ev` (no newline) into `buf`: the
 * transcript format of tests/service/table/. Returns the length snprintf
 * would have written. */
int ddz_ev_format(const ddz_ev *ev, char *buf, size_t len);

#endif
