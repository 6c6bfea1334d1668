/* director.h - runs a tournament's tables on an event loop.
 *
 * The director owns the competition state (tourney.h) and one runner
 * (service/table/runner.h) per table it plays at once; the game flow is
 * the runner's, the seats are the caller's. Everything that touches the
 * outside is a callback, so `ddz tournament` (a poll(2) loop, a records
 * file) and `ddz serve` (the lws loop, bridge bots) drive the same engine:
 *
 *   seat        make the seat of a player, at the start of each of its
 *               tables and, for hosted AIs (seat kind "ai"), again before
 *               every game with that game's AI seed, so that a resumed
 *               tournament plays the games an uninterrupted one would;
 *   game_over   a game ended: store its record (before the director counts
 *               it: a record stored is a game played);
 *   turn_over   a turn ended: the standings are in the state;
 *   present     (optional) is a player there to be seated? A table whose
 *               players are not all present waits for them up to late_ms,
 *               then the absent ones forfeit it (seed 000 六, the lateness
 *               rule: ddz_tourney_forfeit), which `forfeit` stores; a table
 *               resumed with games already played cannot be forfeited and
 *               starts after the wait with whoever came (the clock charges
 *               an absent seat);
 *   event, table_end  (optional) every event of a table, and the end of a
 *               table, for a driver that shows tables (ddz serve's rooms).
 *
 * Deals. Turn T (1-based) of stage S (0 Swiss, 1 finals) has the master
 * seed BLAKE2b-256(key = --seed, message = "ddz-tourney" || u8(S) ||
 * le32(T)); game k (0-based) of that turn, at every table, is dealt from
 * ddz_deal_game_seed(master, k) (spec §2). A hosted AI seat of player ID
 * in game k is seeded with the first 8 bytes (little-endian) of
 * BLAKE2b-128(key = the game's seed, message = "ddz-ai" || ID).
 *
 * Resuming. Before ddz_director_start(), the caller hands back every game
 * already stored (ddz_director_replay, in the order stored); the director
 * checks each against the schedule it recomputes, and then plays only the
 * games missing: a table cut short plays on from its first missing game.
 */
#ifndef DDZ_DIRECTOR_H
#define DDZ_DIRECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/record.h"
#include "rules/ruleset.h"
#include "service/table/runner.h"
#include "service/table/seat.h"
#include "service/tourney/tourney.h"

/* Where a game belongs (the records' `tournament` field). */
typedef struct ddz_tgame {
    int stage;          /* enum ddz_tourney_stage */
    int turn;           /* 1-based within the stage */
    int table;          /* 1-based */
    int game;           /* 1-based */
    int player[3];      /* player indices by seat */
    long long store_id; /* ddz serve: the game's id in its store (/api/games/ID), 0 = none */
} ddz_tgame;

typedef struct ddz_director_cb {
    void *ctx;
    /* Returns a new seat for player `player`, hosted AIs seeded with
     * `ai_seed`; NULL (with a reason in `err`) stops the tournament. */
    ddz_seat *(*seat)(void *ctx, int player, uint64_t ai_seed, char *err, size_t errlen);
    /* A table starts (or resumes) at game `where->game`. NULL = none. */
    void (*table_start)(void *ctx, const ddz_tgame *where);
    /* A game ended. Returns 0, or a negative DDZ_E... code (it could not
     * be stored), which stops the tournament. */
    int (*game_over)(void *ctx, const ddz_tgame *where, const ddz_record *rec);
    /* A turn ended (`replayed`: it was finished from stored games only);
     * the standings are in `t` (last_stage, last_turn, order). */
    void (*turn_over)(void *ctx, const ddz_tourney *t, bool replayed);
    /* A diagnostic line (faults, restarts). NULL = none. */
    void (*log)(void *ctx, const char *msg);
    /* Returns whether `player` is there to be seated now. NULL = always. */
    bool (*present)(void *ctx, int player);
    /* The players at `absent` (bits by seat) of the table `where` (game 0)
     * forfeit it. Returns 0, or a negative DDZ_E... code (it could not be
     * stored), which stops the tournament. Required with `present`. */
    int (*forfeit)(void *ctx, const ddz_tgame *where, unsigned absent);
    /* Every event of a table (after its seats had it), `where->game` the
     * game being played. NULL = none. */
    void (*event)(void *ctx, const ddz_tgame *where, const ddz_ev *ev);
    /* A table stops (its games are played, or the tournament stopped):
     * its seats are closed right after. NULL = none. */
    void (*table_end)(void *ctx, const ddz_tgame *where);
} ddz_director_cb;

typedef struct ddz_director_cfg {
    ddz_tourney_opts opts;        /* the competition */
    const ddz_rules *rules;       /* NULL = caai */
    int time_ms;                  /* per action */
    int tables;                   /* tables played at once (>= 1) */
    uint8_t seed[DDZ_SEED_BYTES]; /* the tournament's seed */
    const char *const *ids;       /* player IDs [opts.nplayers] (kept, not copied) */
    int late_ms;                  /* how long a table waits for absent players (`present`) */
} ddz_director_cfg;

typedef struct ddz_director ddz_director;

/* Progress of the turn being played. */
typedef struct ddz_director_progress {
    int stage, turn;         /* the turn being played */
    int tables_done, tables; /* its tables finished / in all */
    long games_played;       /* games played by this process */
    long games_left;         /* games still to play, later turns estimated */
} ddz_director_progress;

/* Creates a director on `loop`. Returns it, or NULL with *err =
 * DDZ_EINVAL (bad options: ddz_tourney_init refused them, or tables < 1)
 * or DDZ_ENOMEM. */
ddz_director *ddz_director_create(ddz_loop *loop, const ddz_director_cfg *cfg,
                                  const ddz_director_cb *cb, int *err);

/* Writes the master seed of turn `turn` of `stage` into `out`. */
void ddz_director_turn_seed(const uint8_t seed[DDZ_SEED_BYTES], int stage, int turn,
                            uint8_t out[DDZ_SEED_BYTES]);

/* Hands back a stored game (before ddz_director_start). Returns 0, or
 * DDZ_EINVAL with the reason in `err` when it does not fit the schedule
 * (another stage, turn, table, players or seed than the options give, a
 * game out of order or twice). */
int ddz_director_replay(ddz_director *d, const ddz_tgame *where, const ddz_record *rec, char *err,
                        size_t errlen);

/* Hands back a stored forfeit (before ddz_director_start, in any order
 * with the games): the players at `absent` (bits by seat) forfeited the
 * table `where` (game ignored). It is applied when its turn comes up in the
 * replay. Returns 0, DDZ_ENOMEM, or DDZ_EPHASE once started. */
int ddz_director_replay_forfeit(ddz_director *d, const ddz_tgame *where, unsigned absent);

/* Returns the runner playing table `table` (0-based) of the current turn,
 * or NULL if that table is not being played now (for a driver that lets
 * people act at it: ddz serve's rooms). */
ddz_runner *ddz_director_runner(const ddz_director *d, int table);

/* Returns how long (microseconds, from now) table `table` of the current
 * turn still waits for absent players, or -1 if it does not wait. */
int64_t ddz_director_waiting(const ddz_director *d, int table);

/* Finishes the turns the stored games complete and starts the tables of
 * the current turn. Returns 0 or the first error (see ddz_director_error). */
int ddz_director_start(ddz_director *d);

/* Moves on: starts the next game of tables whose seats are idle, the next
 * tables, the next turn. The loop's owner calls it after each pass of the
 * loop (a timer also calls it every 10 ms while a table waits). */
void ddz_director_step(ddz_director *d);

/* Returns true once the tournament is over or stopped by an error. */
bool ddz_director_done(const ddz_director *d);

/* Returns 0, or the error that stopped the tournament with its message. */
int ddz_director_error(const ddz_director *d, const char **msg);

/* Returns the competition state (read only). */
const ddz_tourney *ddz_director_state(const ddz_director *d);

/* Fills `p`. Never fails. */
void ddz_director_progress_of(const ddz_director *d, ddz_director_progress *p);

/* Closes every seat (engines are stopped) and frees `d`; NULL is fine. */
void ddz_director_destroy(ddz_director *d);

#endif
