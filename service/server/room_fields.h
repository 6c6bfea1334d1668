/* room_fields.h - the fields of a room, shared by its files
 * (room_*.c); everyone else goes through room.h.
 *
 * One object for every table the server runs: a casual room owns its
 * runner and decides its series (rematch, pause, custody by a hosted AI
 * for a person away); a table run by its owner (`owned`: a
 * competition's, through host.h) borrows the competition's runner, which starts its games,
 * and a seat its bot leaves is held by an absent seat, charged when asked.
 */
#ifndef DDZ_ROOM_FIELDS_H
#define DDZ_ROOM_FIELDS_H

#include "service/seats/seats.h"
#include "service/server/budget.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/room.h"
#include "service/server/seat_player.h"
#include "service/server/seating.h"
#include "service/table/runner.h"

enum room_phase { PH_WAITING = 0, PH_PLAYING, PH_BETWEEN, PH_TURN_OVER };

typedef struct rseat {
    ddz_room *room;
    int index;
    ddz_player *player; /* the person or bot holding the seat; NULL for programs */
    ddz_seat *away;     /* the player's own seat while an AI plays for it */
    char spec[48];      /* program seats: "ai:NAME" or "engine:NAME" */
    bool custody;       /* a hosted AI plays for the absent player */
    bool rematch;       /* voted for another turn */
    bool ready;         /* between games, while the room waits (readying): ready for the next */
    char label[48];  /* an owned table: the participant's label, shown instead of the seat's name */
    ddz_timer grace; /* custody timer of a dropped player */
    int missed;      /* its person's clocks run out in a row (spec §14): 1 = the server made
                        the smallest move for them, 2 = custody */
    bool standin;    /* a hosted AI keeps the seat for a person who left or was stood up: it
                        gives way to a person who joins before the next deal (spec §14) */
    char standin_for[129]; /* that person's name, shown on the seat */
    char last_id[16];      /* the id of the last person who held the seat: they get it first when
                              they come back (spec §14: a seat is given back) */
} rseat;

struct ddz_room {
    ddz_room *next;
    ddz_srv *srv;
    char id[DDZ_EVENT_ROOM_ID_MAX]; /* NODE-XXXXXXXX in a cluster, else XXXXXXXX */
    ddz_room_opts opts;
    const ddz_rules *rules;
    rseat seats[3];
    ddz_player **watch; /* spectators */
    size_t nwatch, capwatch;
    ddz_runner *run;
    int phase; /* enum room_phase */
    int turn_no;
    uint8_t master[DDZ_SEED_BYTES];
    uint32_t dealt;   /* games dealt from the master seed before this turn */
    int64_t game_id;  /* store id of the current game */
    ddz_ev ask;       /* the open request, while `asking` */
    bool asking;      /* a request is open */
    ddz_timer settle; /* after a game: stand-ins give way, people waiting sit down */
    ddz_timer pause;  /* between games (the ready clock while readying), and the start
                         after seating */
    /* What `pause` runs when it rings: the next deal (room_series.c's
     * ddz__room_on_pause, set where the room is made). The files below
     * the series (room_ready.c) arm the clock without naming the series. */
    void (*on_deal_clock)(ddz_timer *t);
    bool readying;            /* between games: waiting for every person's `ready` */
    int64_t ready_until_us;   /* when the ready clock runs out, while readying */
    ddz_event_over last_over; /* the last `over` event, for players who come back */
    bool has_last_over;       /* a game of the room has ended */
    bool dead;
    int engines;             /* engine seats it reserved (the engines budget) */
    ddz_spawn_budget spawns; /* its engines' starts a second (the spawns_per_room budget) */
    ddz_addr *owner;         /* the address that created it (rooms per address), or NULL */
    bool idle;               /* nobody is connected to it: in the idle list */
    ddz_room *idle_prev;     /* the idle list (context's budget), longest idle first */
    ddz_room *idle_next;
    ddz_tries tries;                      /* wrong passwords sent to it */
    char game_key[DDZ_STORE_KEY_HEX + 1]; /* the current game's link key; "" in a listed room */
    bool owned; /* a table run by its owner (a competition): the runner is the
                   owner's, which starts the games */
    /* The store's ticket of the room's latest game record or turn result:
     * what the room says from then on (its `over` first) waits in each
     * connection's queue until that write is durable (conn.h). */
    uint64_t hold;
    /* A rated room's game (room_rated.c): who plays it as the store rates
     * them (account ids, hosted AIs' ids), taken at the deal, and whether
     * it is rated (three different rated players; cleared once submitted). */
    int64_t rated_player[3];
    bool rated_game;
};

/* Returns the room's table (its runner's). */
static inline const ddz_table *room_table(const ddz_room *r)
{
    return ddz_runner_table(r->run);
}

/* The key the room's current game is stored under (ddz_store_add_game()):
 * a held game's (opts.held) is a fresh one written to `buf` and told to
 * nobody, so that nobody reads the game before the competition publishes
 * it (ddz_store_publish_games()); else the room's link key, or NULL for a
 * listed room's game. */
static inline const char *room_store_key(const ddz_room *r, char buf[DDZ_STORE_KEY_HEX + 1])
{
    if (r->opts.held) {
        ddz_store_new_game_key(buf);
        return buf;
    }
    return r->game_key[0] ? r->game_key : NULL;
}

/* Returns whether a game of the room is being played. */
static inline bool room_live(const ddz_room *r)
{
    return r->run && r->phase == PH_PLAYING && ddz_table_running(room_table(r));
}

/* Seconds a casual room waits between games for a person's `ready`
 * before it stands up whoever did not answer and starts the next game
 * without them (spec §14; docs/decisions.md), unless --ready-clock says. */
#define DDZ_READY_S 20

/* Returns the seconds of `r`'s ready clock. */
static inline int room_ready_s(const ddz_room *r)
{
    return r->srv->cfg.ready_s > 0 ? r->srv->cfg.ready_s : DDZ_READY_S;
}

/* Returns whether `r` follows spec §14 for a person who is away: a casual
 * room (custody "ai") that waits for its people between games (a pause;
 * a room made with no pause, for scripts and load tests, and a
 * competition's tables keep the automatic start and custody). */
static inline bool room_absence(const ddz_room *r)
{
    return !r->owned && r->opts.custody == DDZ_CUSTODY_AI && r->opts.pause > 0 && !r->opts.held;
}

/* Milliseconds between a deal everyone passed and the new one, in a room
 * that deals again (opts.redeal) and has a pause: enough to see that
 * nobody bid, short enough that nobody waits. */
#define DDZ_REDEAL_MS 1500

#endif
