/* table.h - one table playing a series of games: the referee plus the
 * series around it.
 *
 * A ddz_table is a value (ACPC's game.c is the model): it knows the rules
 * (through the referee), the series (games per turn, duplicate rotation,
 * totals, the INFO numbers, the early penalty from the rule set) and the
 * clock of the open request, and nothing else. It does no I/O, reads no
 * clock and allocates nothing: the driver feeds it actions, faults and the
 * time, and drains the events it emits.
 *
 * Players and seats. The table has three players (0..2), each behind one
 * seat adapter of the driver. Player p sits at seat (p - rotation) mod 3 in
 * a game whose rotation is `rotation` (0 without --rotate), so with rotation
 * every player holds every hand of a deal once (duplicate). Inputs name the
 * player; events say seats, as the protocols do, and are addressed to a
 * player (`to`), to everyone, or to the spectators.
 *
 * Events are the referee's own values (ev.h), queued again with their
 * address and filtered to what their audience may know: a player's own
 * hand reaches that player only (the table copies the referee's public
 * start once per player, with that player's seat and hand), spectators get
 * the game's start without any hand, and everything else (bids, the
 * leftover, plays, the end with every hand and the seed) is public. The
 * table adds a request's deadline and the series' end (DDZ_EV_SERIES); it
 * converts nothing.
 */
#ifndef DDZ_TABLE_H
#define DDZ_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/table/referee.h"

typedef struct ddz_table_cfg {
    const ddz_rules *rules;         /* NULL = caai */
    int deals;                      /* deals in the series (>= 1) */
    bool rotate;                    /* every deal three times, players rotated */
    int maxscore;                   /* INFO maxscore; <= 0: the rule set's
                                       per-game maximum x games */
    int time_ms;                    /* per bid or play (> 0) */
    int turn, turns;                /* INFO's turn numbers (1-based; 0 = 1) */
    uint8_t master[DDZ_SEED_BYTES]; /* deal k is dealt from ddz_deal_game_seed(master, k) */
    uint32_t first_deal;            /* index k of the series' first deal */
    int played;                     /* games of this series played before (a resumed
                                       tournament table): INFO counts them, and
                                       maxscore's default covers them; events still
                                       number games from the series' first */
    uint8_t autopass[3];            /* per player: pass for it when it cannot beat */
    bool redeal;                    /* a game everyone passed (no fault) is dealt again: it
                                       does not count, the series gets one more game, up to
                                       DDZ_TABLE_GAMES_MAX (casual rooms; never with rotate) */
} ddz_table_cfg;

/* The numbers of a CAAI INFO line for the current game (spec §7). */
typedef struct ddz_table_info {
    int turn, turns, game, games, up, maxscore, time_s; /* game is 1-based */
} ddz_table_info;

enum { DDZ_TABLE_QUEUE = 128 }; /* a power of two: the ring's index is a mask */

/* Games a series grows to with redeals at most: the protocol's games per
 * turn (proto/PROTOCOL.md, `games`), so a game's number stays in range;
 * past it an all-pass game counts, as it does in competitions. */
enum { DDZ_TABLE_GAMES_MAX = 100 };

typedef struct ddz_table {
    ddz_table_cfg cfg;
    ddz_referee ref;
    int games;           /* games in the series: deals, x3 with rotate */
    int next;            /* index of the next game to start */
    bool redealt;        /* the last game ended with every seat passing and is dealt
                            again (cfg.redeal): it added a game to the series */
    int player_at[3];    /* seat -> player in the current game */
    int seat_of[3];      /* player -> seat in the current game */
    double totals[3];    /* small scores per player in this series (ddz_score_add) */
    int64_t deadline_ms; /* when the open request is due, -1 if none */
    ddz_ev q[DDZ_TABLE_QUEUE];
    unsigned qhead, qlen;
} ddz_table;

/* Prepares a series under `cfg`. Returns 0, or DDZ_EINVAL when `deals` or
 * `time_ms` is not positive. No game starts until ddz_table_start(). */
int ddz_table_init(ddz_table *t, const ddz_table_cfg *cfg);

/* Starts the next game of the series at time `now_ms`, with the players'
 * `names` (by PLAYER, NULL entries allowed) in its record. Emits the game's
 * start to each player and to the spectators and the first request.
 * Returns 0, DDZ_EPHASE if a game is running or the series is over, or
 * DDZ_ESEED. */
int ddz_table_start(ddz_table *t, int64_t now_ms, const char *const names[3]);

/* `player` bids `bid` (0..3) answering request `seq` at `now_ms`. Returns
 * 0, or the referee's verdict (DDZ_ESTALE, DDZ_ETURN, DDZ_EPHASE, DDZ_EBID,
 * DDZ_EINVAL for a bad player); on error nothing changes and nothing is
 * charged: charging is the driver's policy (ddz_table_fault). */
int ddz_table_bid(ddz_table *t, int player, uint32_t seq, int bid, int64_t now_ms);

/* `player` plays `cards` (0 = pass) answering `seq` at `now_ms`. Returns 0
 * or the referee's verdict (DDZ_ESTALE, DDZ_ETURN, DDZ_EPHASE, DDZ_ENOTHELD,
 * DDZ_ESHAPE, DDZ_ELEADPASS, DDZ_EWEAK, DDZ_EINVAL); nothing is charged. */
int ddz_table_play(ddz_table *t, int player, uint32_t seq, ddz_cards cards, int64_t now_ms);

/* Charges `player` with a fault of `kind` (enum ddz_fault) at `now_ms`: the
 * game ends with the rule set's penalty, or (DDZ_FAULTPOLICY_PLAY_ON) goes on
 * with the table acting for that seat, which is not asked again that game
 * (see referee.h; a request that follows is timed from `now_ms`). Returns 0,
 * DDZ_EPHASE if no game is running or the player has already faulted in
 * it, DDZ_EINVAL for a bad player or kind. */
int ddz_table_fault(ddz_table *t, int player, int kind, int64_t now_ms);

/* The clock: charges a timeout to the seat whose request is overdue at
 * `now_ms` (which, under DDZ_FAULTPOLICY_PLAY_ON, the table then acts for:
 * the next request is timed from `now_ms`). Returns 1 if it charged one,
 * else 0. */
int ddz_table_time(ddz_table *t, int64_t now_ms);

/* Gives the open request a fresh time limit from `now_ms` (a hosted AI took
 * the seat over instead of the clock charging it). Returns the new deadline,
 * or -1 if no request is open. */
int64_t ddz_table_extend(ddz_table *t, int64_t now_ms);

/* Sets whether the referee passes for `player` when it cannot beat (from
 * the next request on). Ignores a bad player. */
void ddz_table_set_autopass(ddz_table *t, int player, bool on);

/* Pops the next event into *ev. Returns false when there is none. */
bool ddz_table_next(ddz_table *t, ddz_ev *ev);

/* Returns true while a game runs. */
static inline bool ddz_table_running(const ddz_table *t)
{
    return ddz_ref_running(&t->ref);
}

/* Returns true when every game of the series has been played. */
static inline bool ddz_table_done(const ddz_table *t)
{
    return t->next >= t->games && !ddz_ref_running(&t->ref);
}

/* Returns when the open request is due, or -1 if there is none. */
static inline int64_t ddz_table_deadline(const ddz_table *t)
{
    return ddz_ref_running(&t->ref) ? t->deadline_ms : -1;
}

/* Returns the seat `player` holds in the current (or last) game. */
static inline int ddz_table_seat_of(const ddz_table *t, int player)
{
    return t->seat_of[player];
}

/* Returns the player at `seat` in the current (or last) game. */
static inline int ddz_table_player_at(const ddz_table *t, int seat)
{
    return t->player_at[seat];
}

/* Returns the index (0-based) of the current game, or of the last one
 * between games. */
static inline int ddz_table_game(const ddz_table *t)
{
    return t->next > 0 ? t->next - 1 : 0;
}

/* Returns `player`'s small-score total in this series. */
static inline double ddz_table_total(const ddz_table *t, int player)
{
    return t->totals[player];
}

/* Returns the record of the current or last game (names by seat). */
static inline const ddz_record *ddz_table_record(const ddz_table *t)
{
    return ddz_ref_record(&t->ref);
}

/* Returns the rules' state of the current or last game. */
static inline const ddz_game *ddz_table_state(const ddz_table *t)
{
    return &t->ref.game;
}

/* Fills the INFO numbers of the current game (spec §7). Never fails. */
void ddz_table_info_of(const ddz_table *t, ddz_table_info *info);

/* Abandons a running game without scoring it (the server shuts down or the
 * room closes); the game still counts as played. Returns 0, or DDZ_EPHASE
 * if no game runs. Emits nothing. */
int ddz_table_abort(ddz_table *t);

#endif
