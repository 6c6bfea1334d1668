/* analyst.h - post-game analyses off the event loop (issue 26).
 *
 * GET /api/games/ID/analysis asks for the analysis of a finished game
 * (ai/analysis.h: who wins with best play, play by play). A game costs up
 * to a couple of seconds of search, so the loop never runs one: it hands
 * the record to this pool's worker thread and answers "pending" until the
 * worker is done. The pool is the server's own rather than a kind of job
 * on the think pool (service/seats/think.h): the think workers answer
 * hosted AIs whose players wait at a table, and a queue of analyses in
 * front of them would stall those games by seconds; the worker also keeps
 * a solver table of its own (4 MB) rather than sharing ai:strong's.
 *
 * Use, on the loop thread (everything but the worker is the loop's):
 *
 *     a = ddz_analyst_create(&opt, wake, ctx);
 *     ddz_analyst_request(a, id, record, &json)   PENDING, or READY with the
 *                                                 answer, or DDZ_EBUSY
 *     wake(ctx) from the worker, then on the loop:
 *     ddz_analyst_collect(a, done, ctx)           each finished job, once
 *
 * Bounds: at most `max_jobs` games queued or running at once (the request
 * past it is refused DDZ_EBUSY); one job per game (a request for a game
 * already queued is PENDING, not a second job); the last
 * DDZ_ANALYST_RECENT answers are kept in memory (so that a game is not
 * analysed twice while its analysis waits to be written to the store, or
 * when the database is away), each at most one game's analysis (some
 * 10 kB). Each position is searched within `nodes` and `position_ms`, and
 * a whole game within `game_ms`: past it the positions left are given only
 * a few hundred nodes each (their verdicts mostly "unknown").
 *
 * The access rule is NOT the analyst's: the caller asks only for a game
 * whose record it was allowed to read (store.h, DDZ_STORE_READ_ANALYSIS).
 */
#ifndef DDZ_ANALYST_H
#define DDZ_ANALYST_H

#include <stdbool.h>
#include <stdint.h>

enum {
    DDZ_ANALYST_JOBS = 8,         /* default max_jobs */
    DDZ_ANALYST_JOBS_MAX = 64,    /* largest max_jobs */
    DDZ_ANALYST_RECENT = 16,      /* finished answers kept in memory */
    DDZ_ANALYST_NODES = 200000,   /* default node cap of one position */
    DDZ_ANALYST_POSITION_MS = 50, /* default clock of one position */
    DDZ_ANALYST_GAME_MS = 2000,   /* default clock of a whole game */
    /* The form of the answers computed now, their "version": 2 added each
     * win given away's "witness". A cached answer of an older form (1:
     * none says a version) is computed again (ddz_analyst_current). */
    DDZ_ANALYST_VERSION = 2,
};

/* What a request found. */
enum ddz_analyst_state {
    DDZ_ANALYST_QUEUED = 0,  /* a job was queued now */
    DDZ_ANALYST_PENDING = 1, /* the game's job was queued or running already */
    DDZ_ANALYST_READY = 2,   /* done: the answer is in *json */
    DDZ_ANALYST_FAILED = 3,  /* done, but the record could not be analysed (*json: why) */
};

typedef struct ddz_analyst_options {
    int max_jobs;    /* games queued or running at once, 0..DDZ_ANALYST_JOBS_MAX; 0 refuses
                        every request (no analyses); negative: DDZ_ANALYST_JOBS */
    long nodes;      /* node cap per position; <= 0: DDZ_ANALYST_NODES */
    int position_ms; /* clock per position; <= 0: DDZ_ANALYST_POSITION_MS */
    int game_ms;     /* clock per game; <= 0: DDZ_ANALYST_GAME_MS */
} ddz_analyst_options;

typedef struct ddz_analyst ddz_analyst;

/* Starts the worker thread (with its solver) under `opt` (NULL: the
 * defaults). `wake(ctx)` is called from the worker after each job is done,
 * with no lock held; it must be safe from any thread. Returns NULL when
 * out of memory or when no thread could be started. */
ddz_analyst *ddz_analyst_create(const ddz_analyst_options *opt, void (*wake)(void *ctx), void *ctx);

/* Stops the worker (the job it runs stops at its next ply) and frees every
 * job and answer. NULL is fine. Loop thread. */
void ddz_analyst_destroy(ddz_analyst *a);

/* Asks for the analysis of game `id`, whose stored record is `record`
 * (the spec §10 JSON line; copied when a job is queued). Returns
 * DDZ_ANALYST_READY or DDZ_ANALYST_FAILED with *json set (malloc'd, the
 * caller frees it: the analysis as JSON, or a JSON error object), or
 * DDZ_ANALYST_QUEUED / DDZ_ANALYST_PENDING (*json NULL), or DDZ_EBUSY when
 * max_jobs games are queued or running already, or DDZ_ENOMEM. Loop
 * thread; never waits. */
int ddz_analyst_request(ddz_analyst *a, int64_t id, const char *record, char **json);

/* Hands every job finished since the last call to done(ctx, id, json, ok)
 * (json: the answer, owned by the analyst, valid during the call; ok:
 * false for a record that could not be analysed), and keeps its answer
 * among the recent ones. Returns how many. Loop thread. */
int ddz_analyst_collect(ddz_analyst *a,
                        void (*done)(void *ctx, int64_t id, const char *json, bool ok), void *ctx);

/* Returns whether `json` (a cached answer, NULL-safe) is an analysis of
 * DDZ_ANALYST_VERSION or later: false for one of an older form (its
 * "version" below, or none), or text that is no JSON object, which the
 * caller then asks for again. Parses it: some 10 kB, tens of
 * microseconds. Any thread. */
bool ddz_analyst_current(const char *json);

/* Returns how many games are queued or running now. Never fails. Loop
 * thread. */
int ddz_analyst_pending(const ddz_analyst *a);

/* Returns the options in force (the defaults filled in). Never fails. */
ddz_analyst_options ddz_analyst_limits(const ddz_analyst *a);

#endif
