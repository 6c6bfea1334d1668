/* plugin.h - what a competition (or another part of the service that
 * lives beside the server: puzzles) gives the table host (host.h): a
 * `ddz_plugin`, callbacks the server calls where a player enlists or is
 * forgotten, a game ends, /metrics is written, a lead lock moves and the
 * server stops.
 * A type the server's context holds (context.h), nothing to run. */
#ifndef DDZ_PLUGIN_H
#define DDZ_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "proto/msg.h"
#include "rules/record.h"
#include "service/cluster/lead.h"
#include "service/server/player.h"

/* The host: the server's context, opaque to a competition. */
typedef struct ddz_srv ddz_host;

/* A competition the host runs. Every callback but create may be NULL and
 * gets create()'s result as `self`. */
typedef struct ddz_plugin {
    const char *kind; /* what `enlist` names ("tournament", "ladder") */
    /* Before the loop: its state, its routes and lead jobs. Returns the
     * state, or NULL with a one-line reason in `err`. */
    void *(*create)(ddz_host *h, char *err, size_t errlen);
    /* After the loop, the store and the locks exist. Returns 0, or -1
     * with a one-line reason in `err` (the server does not start). */
    int (*start)(void *self, char *err, size_t errlen);
    /* Whether an `enlist` naming no competition is this one's. */
    bool (*takes_default)(void *self);
    /* `p` asked to enlist (`q`, for answers): answered here. */
    void (*enlist)(void *self, ddz_player *p, const ddz_req *q);
    /* The host frees enlisted player `p`: forget it. */
    void (*forget)(void *self, ddz_player *p);
    /* A lead job moved, a wake (ddz_host_wake()), or a tick (several
     * nodes): look again. */
    void (*poll)(void *self);
    /* ON THE LEAD THREAD, several nodes only: work for the jobs it wants,
     * with the lead session (lead.h's ddz_lead_cfg.work: nothing kept, no
     * transaction left open); jobs[i] is ddz_host_lead_want()'s i. */
    void (*lead_work)(void *self, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    /* A game anyone may read (a listed room's, not redealt) ended and was
     * queued to the store as game `game`, its record `rec` (the caller's:
     * copy what is kept). */
    void (*game_over)(void *self, int64_t game, const ddz_record *rec);
    /* Its lines of /metrics (Prometheus text). */
    void (*metrics)(void *self, FILE *f);
    /* The server stops: end its tables (their games were recorded as
     * aborted first). */
    void (*stop)(void *self);
    /* Frees it (after stop). */
    void (*destroy)(void *self);
} ddz_plugin;

#define DDZ_HOST_PLUGINS 6 /* plug-ins one server runs */

#endif
