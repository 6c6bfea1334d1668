/* seat.h - one interface for every kind of seat at a table.
 *
 * A seat adapter turns its transport into table inputs and the table's
 * events into its transport: a person's WebSocket (service/server/
 * seat_player.c), a hosted AI (service/seats/seat_ai.c), a CAAI engine
 * process (service/seats/seat_engine.c), a Botzone-protocol bot
 * (service/seats/seat_botzone.c). The table's driver
 * (service/table/runner.h) delivers every event the seat may know, asks it
 * to act when its turn comes, and cancels the request when the table moves
 * on without its answer; the seat answers through its host. A new kind of
 * seat is one new file plus a line in service/seats/registry.c: the table,
 * the runner, rooms and `ddz match` do not change.
 */
#ifndef DDZ_SEAT_H
#define DDZ_SEAT_H

#include <stdbool.h>

#include "service/table/loop.h"
#include "service/table/table.h"

typedef struct ddz_seat ddz_seat;

/* How a seat answers: implemented by the table's driver. */
typedef struct ddz_seat_host {
    void *ctx;
    /* The seat's player answers request `seq` (`action`: the request's kind,
     * DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY) with `bid` or `cards`. Returns the table's verdict:
     * 0, or a DDZ_E... code (a program's illegal answer is then already
     * charged as a fault; a person may try again). */
    int (*act)(void *ctx, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards);
    /* The seat failed (fault `kind`, enum ddz_fault) while in game `game`
     * (0-based; -1: whatever game is running). The driver charges it if that
     * game is still being played. */
    void (*fault)(void *ctx, ddz_seat *s, int kind, int game, const char *why);
    /* A log line about the seat that is not a fault. */
    void (*note)(void *ctx, ddz_seat *s, const char *msg);
    /* How long a hosted AI should wait before acting (people like to see
     * the cards land); NULL = no wait. */
    int64_t (*think_delay_us)(void *ctx);
    /* The INFO numbers of the current game (spec §7), for engines. */
    void (*info)(void *ctx, ddz_table_info *out);
} ddz_seat_host;

typedef struct ddz_seat_ops {
    const char *kind; /* "human", "bot", "ai", "engine": the protocol's names (a
                         program the operator runs is an "engine", whatever
                         protocol it speaks) */
    const char *what; /* what plays the seat, for log lines ("engine", "bot");
                         NULL = `kind` */
    /* An event the seat's player may know (the table filtered it), with the
     * table for context (the seat's view). `t` is NULL where the seat plays
     * a table it only hears of (ddz bridge): seats that need the table
     * (hosted AIs, people) are not used there. NULL op: the seat reads
     * what it needs from the table when asked. */
    void (*deliver)(ddz_seat *s, const ddz_ev *ev, const ddz_table *t);
    /* The seat must answer `ev` (a DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY for its
     * own seat) before ev->deadline_ms; the answer goes to host.act, later
     * or at once, with the request's kind as its `action`. */
    void (*ask)(ddz_seat *s, const ddz_ev *ev, const ddz_table *t);
    /* The open request is void (the game ended, the clock ran out, the seat
     * was handed to someone else): drop any answer being prepared. */
    void (*cancel)(ddz_seat *s);
    /* Returns false while the seat still has work of the last game in
     * flight (an engine acknowledging GAMEOVER); NULL = always idle. */
    bool (*idle)(const ddz_seat *s);
    /* Returns the name written into records ("" if unknown yet). */
    const char *(*name)(const ddz_seat *s);
    /* Returns whether the seat is reachable now (a connected person, a
     * running engine). NULL = always. */
    bool (*connected)(const ddz_seat *s);
    /* Frees the adapter and everything it holds: processes ended, work in
     * flight orphaned. */
    void (*close)(ddz_seat *s);
} ddz_seat_ops;

struct ddz_seat {
    const ddz_seat_ops *ops;
    ddz_seat_host host; /* set by the driver when the seat is placed */
    ddz_loop *loop;     /* the loop the adapter runs on */
    int player;         /* the table's player index (0..2), set by the driver */
    bool program;       /* a program answers for what it sends: an illegal
                           answer is a fault (spec §6); a person may retry */
};

/* Shorthands that tolerate the optional operations being NULL. */
static inline bool ddz_seat_idle(const ddz_seat *s)
{
    return !s->ops->idle || s->ops->idle(s);
}

static inline bool ddz_seat_connected(const ddz_seat *s)
{
    return !s->ops->connected || s->ops->connected(s);
}

/* Returns what plays `s`, for log lines (ops->what, else ops->kind). */
static inline const char *ddz_seat_what(const ddz_seat *s)
{
    return s->ops->what ? s->ops->what : s->ops->kind;
}

static inline void ddz_seat_close(ddz_seat *s)
{
    if (s)
        s->ops->close(s);
}

#endif
