/* rated_games.h - after a rated game (SPEC §15): its ratings applied in
 * the store on the store's reader thread (never on the loop), tried again
 * while the database does not take them, and every person of the game
 * who is connected told `rated` (before, after, deviation, games).
 *
 * Below the room (room_events.c and room_seats.c submit), above the
 * store and the connections; it names no room. How a leaver counts and
 * why the retries: docs/decisions.md, "Rated play". */
#ifndef DDZ_RATED_GAMES_H
#define DDZ_RATED_GAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "service/store/store.h"

typedef struct ddz_srv ddz_srv;

/* Tries of one game's update, the first included, and the wait before
 * the second (doubled each time: 4 + 8 + 16 + 32 s). */
#define DDZ_RATED_GAME_TRIES 5
#define DDZ_RATED_GAME_RETRY_US (4 * 1000000LL)
/* Games a node holds whose ratings wait for the store, at most: past it a
 * game's rating is logged as lost (a database away for long, many games
 * ending). */
#define DDZ_RATED_GAMES_MAX 10000

/* One rated game, as the store rates it (ddz_store_rating_game_forfeit). */
typedef struct ddz_rated_game {
    char rules[DDZ_STORE_RULES_MAX]; /* its rule set */
    int64_t game;                    /* its id in the store (> 0) */
    int64_t player[3];               /* seat order: account ids, or hosted AIs' ids (-1..-3) */
    int landlord;                    /* 0..2 (-1: everyone passed, nothing to rate) */
    bool landlord_won;               /* the game's result */
    unsigned forfeit;                /* the seats that left: each rated as having lost */
    uint64_t hold;                   /* the store ticket `rated` waits behind (the game's
                                        record and its `over`: conn.h), 0 for none */
} ddz_rated_game;

/* Queues game `g`'s update for the store's reader thread. Returns 0, or
 * DDZ_EBUSY (DDZ_RATED_GAMES_MAX wait already), DDZ_ENOMEM or DDZ_EDB (no
 * store): then the loss is logged. */
int ddz__rated_games_submit(ddz_srv *srv, const ddz_rated_game *g);

/* Returns whether store read `rd` is one of ours. */
bool ddz__rated_games_owns_read(const ddz_store_read *rd);

/* Our read `rd` came back: the people are told, or it is tried again
 * later, or the loss logged. With `answer` false (the loop is gone) it is
 * only freed. */
void ddz__rated_games_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer);

/* Lets go of the games waiting to be tried again (each loss logged); those
 * with the store come back through ddz__rated_games_read_done. Call before
 * the loop goes. */
void ddz__rated_games_stop(ddz_srv *srv);

#endif
