/* puzzler.h - the server's stock of puzzles, built off the event loop
 * (issue 42, spec §16).
 *
 * After a game of a listed room is recorded, the loop hands its record to
 * this module's worker thread, which examines its positions as `ddz
 * puzzles` does (ai/puzzle.h: every position of at most `max_cards` cards
 * in the three hands, solved exactly, every hand known) and queues the
 * puzzles it proves to the store (ddz_store_add_puzzle: one row per game
 * and ply). Nothing comes back to the loop: the loop only hands records
 * over. The worker is the puzzler's own rather than the analyst's
 * (analyst.h): a queue of games to examine in front of the analyses would
 * keep people waiting for theirs, and the examinations are the
 * background's, which may be dropped.
 *
 * Bounds: at most `max_games` games queued or being examined (a game past
 * it is not examined, counted in `dropped`); at most `share` percent of
 * one core, at a lower priority than the loop (nice 10, as the password
 * hashes): after a game that took t, the worker rests t * (100 - share) /
 * share, so a busy server's games past what that share examines are
 * dropped rather than searched (the stock is a sample: the loop and the
 * players come first); each position within
 * `nodes` and `position_ms`, a whole game within `game_ms` (the positions
 * left after it are not examined: counted in `cut`). A position the budget
 * cannot decide is no puzzle (counted in `undecided`): the stock holds only
 * proved puzzles.
 *
 * ATTEMPTS. A person's answer to a puzzle (POST /api/puzzles/ID/attempt)
 * is checked on a second worker thread of the puzzler's, with a solver of
 * its own, so that an attempt never waits behind the stock's games: the
 * worker reads the puzzle from the store and replays the attempt
 * (puzzle_check.h) within DDZ_PUZZLER_ATTEMPT_NODES and _MS; at most
 * DDZ_PUZZLER_ATTEMPTS are queued or being checked (past it: DDZ_EBUSY).
 *
 * Use, on the loop thread:
 *
 *     pz = ddz_puzzler_create(&opt, store);
 *     ddz_puzzler_examine(pz, game_id, record)    queued, or DDZ_EBUSY
 *     ddz_puzzler_attempts_start(pz, wake, ctx)   once
 *     ddz_puzzler_attempt(pz, id, body, owner)    queued, or DDZ_EBUSY
 *     wake(ctx) from the worker, then on the loop:
 *     ddz_puzzler_collect(pz, done, ctx)          each attempt checked, once
 *     ddz_puzzler_stop(pz)                        the jobs running stop
 *     ddz_puzzler_collect(pz, done, ctx)          the owners of attempts left
 *     ddz_puzzler_destroy(pz)
 */
#ifndef DDZ_PUZZLER_H
#define DDZ_PUZZLER_H

#include <stdint.h>

#include "rules/record.h"
#include "service/store/store.h"

enum {
    DDZ_PUZZLER_GAMES = 16,              /* default max_games */
    DDZ_PUZZLER_GAMES_MAX = 256,         /* largest max_games */
    DDZ_PUZZLER_NODES = 500000,          /* default node cap of one position */
    DDZ_PUZZLER_POSITION_MS = 200,       /* default clock of one position */
    DDZ_PUZZLER_GAME_MS = 1000,          /* default clock of a whole game */
    DDZ_PUZZLER_SHARE = 25,              /* default share of one core, in percent */
    DDZ_PUZZLER_TT_BITS = 20,            /* the worker's solver table: 2^20 entries */
    DDZ_PUZZLER_ATTEMPTS = 8,            /* attempts queued or being checked, at most */
    DDZ_PUZZLER_ATTEMPT_NODES = 5000000, /* node cap of one attempt's check */
    DDZ_PUZZLER_ATTEMPT_MS = 2000,       /* clock of one attempt's check */
};

typedef struct ddz_puzzler_options {
    int max_games;   /* games queued or being examined, 0..DDZ_PUZZLER_GAMES_MAX; 0
                        examines none; negative: DDZ_PUZZLER_GAMES */
    long nodes;      /* node cap per position; <= 0: DDZ_PUZZLER_NODES */
    int position_ms; /* clock per position; <= 0: DDZ_PUZZLER_POSITION_MS */
    int game_ms;     /* clock per game; <= 0: DDZ_PUZZLER_GAME_MS */
    int max_cards;   /* positions of at most this many cards; <= 0: DDZ_PUZZLE_MAX_CARDS */
    int share;       /* percent of one core the stock may take, 1..100 (100: no rest);
                        <= 0: DDZ_PUZZLER_SHARE */
} ddz_puzzler_options;

/* What the worker did so far. */
typedef struct ddz_puzzler_stats {
    long offered;   /* games handed to ddz_puzzler_examine (counted at once, on its thread) */
    long games;     /* games examined */
    long positions; /* positions examined */
    long found;     /* puzzles found (and queued to the store) */
    long undecided; /* positions the budget could not decide */
    long cut;       /* games whose clock ran out before their last position */
    long dropped;   /* games not examined: the queue was full */
    long unstored;  /* puzzles the store did not take (its queue full, a field too long) */
    long busy_ms;   /* time spent examining games */
    long rests;     /* rests taken after a game (share below 100) */
    long rested_ms; /* time those rests took */
    long rated;     /* attempts rated (a signed-in person's first at a puzzle) */
} ddz_puzzler_stats;

typedef struct ddz_puzzler ddz_puzzler;

/* Starts the worker thread (with its solver) under `opt` (NULL: the
 * defaults), writing to `store` (which must outlive the puzzler). Returns
 * NULL when out of memory or when no thread could be started. */
ddz_puzzler *ddz_puzzler_create(const ddz_puzzler_options *opt, ddz_store *store);

/* Stops both workers (the game examined stops at its next position, an
 * attempt being checked within its budget); the attempts never checked
 * come back through ddz_puzzler_collect with DDZ_EINVAL, so that their
 * owners, which a transport may still reach, are freed by the caller
 * after it. Idempotent; NULL is fine. Loop thread. */
void ddz_puzzler_stop(ddz_puzzler *p);

/* Stops the workers (ddz_puzzler_stop) and frees the games still queued
 * and the attempts not collected, their owners with free(). NULL is fine. */
void ddz_puzzler_destroy(ddz_puzzler *p);

/* Queues record `r` (copied) of stored game `game` (its store id, > 0) for
 * examination. Returns 0, DDZ_EINVAL (game < 1), DDZ_EBUSY (max_games are
 * queued or being examined: dropped, counted) or DDZ_ENOMEM. Any one
 * thread at a time; never waits. */
int ddz_puzzler_examine(ddz_puzzler *p, int64_t game, const ddz_record *r);

/* Blocks until every game queued before the call is examined (its
 * puzzles queued to the store). For tests and the stop. */
void ddz_puzzler_flush(ddz_puzzler *p);

/* Fills *out with the counters. Any thread; never fails. */
void ddz_puzzler_stats_get(ddz_puzzler *p, ddz_puzzler_stats *out);

/* Starts the attempts' worker (with its solver). `wake(ctx)` is called
 * from it after each attempt is checked, with no lock held; it must be
 * safe from any thread. Returns 0, DDZ_EINVAL (started already, or wake
 * NULL) or DDZ_ENOMEM (no memory or no thread). */
int ddz_puzzler_attempts_start(ddz_puzzler *p, void (*wake)(void *ctx), void *ctx);

/* Queues the check of attempt `body` (copied; puzzle_check.h's form) at
 * puzzle `id` for the caller's `owner` (malloc'd memory: handed back by
 * ddz_puzzler_collect, or freed with free() by ddz_puzzler_destroy if
 * never collected), made by the person of `session` (its 64 hex digits,
 * copied and wiped once checked; NULL for a guest). The worker checks the
 * session first (a session not live: DDZ_EAUTH at the collect); a line
 * that ends (solved or failed) is answered with "game" and "ply" (where
 * the puzzle comes from) and, for a person's first ended attempt at the
 * puzzle, "rated": {"before", "after", "deviation", "puzzle_before",
 * "puzzle_after"} (ddz_store_puzzle_rate). Returns 0, DDZ_EBUSY
 * (DDZ_PUZZLER_ATTEMPTS are queued or being checked), DDZ_EINVAL (the
 * worker not started, a session not of 64 characters) or DDZ_ENOMEM.
 * Loop thread; never waits. */
int ddz_puzzler_attempt(ddz_puzzler *p, int64_t id, const char *body, const char *session,
                        void *owner);

/* Hands every attempt checked since the last call to done(ctx, owner, rc,
 * json): rc 0 with the answer in json, DDZ_EFIELD with an error object
 * (the attempt is bad), DDZ_EAUTH (its session is not live),
 * DDZ_ENOTFOUND (no such puzzle), DDZ_EDB (the
 * store could not read it), DDZ_EBUDGET or DDZ_ETIMEOUT (the check ran
 * out of budget), DDZ_EINVAL or DDZ_ENOMEM (json NULL then). json is the
 * puzzler's, valid during the call. Returns how many. Loop thread. */
int ddz_puzzler_collect(ddz_puzzler *p,
                        void (*done)(void *ctx, void *owner, int rc, const char *json), void *ctx);

/* Returns the options in force (the defaults filled in). Never fails. */
ddz_puzzler_options ddz_puzzler_limits(const ddz_puzzler *p);

#endif
