/* rated_games.c - a rated game's ratings: to the store, again while it
 * does not take them, and told (rated_games.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/event.h"
#include "rules/error.h"
#include "service/rating/people_rating.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/rated_games.h"

/* One game whose update is with the store or waits to be tried again. */
typedef struct rated_job {
    ddz_store_read rd; /* the update: kind RATING_GAME, owner the job */
    ddz_timer retry;   /* the next try, while not with the store */
    ddz_srv *srv;
    int tries;                     /* made so far */
    uint64_t hold;                 /* as ddz_rated_game.hold */
    bool waiting;                  /* on `retry` (not with the store) */
    struct rated_job *prev, *next; /* srv->rated_jobs */
} rated_job;

static void unlink_job(ddz_srv *srv, rated_job *j)
{
    *(j->prev ? &j->prev->next : &srv->rated_jobs) = j->next;
    if (j->next)
        j->next->prev = j->prev;
    srv->nrated_jobs--;
    free(j);
}

static void lost(ddz_srv *srv, const ddz_store_rating_req *q, int rc)
{
    ddz__log(srv, "error", NULL, "the rating of rated game %lld (%s) is lost: %s",
             (long long)q->game, q->rules, ddz_strerror(rc));
}

static int to_store(rated_job *j)
{
    j->tries++;
    j->waiting = false;
    return ddz_store_read_submit(j->srv->store, &j->rd) == 0 ? 0 : DDZ_EDB;
}

static void on_retry(ddz_timer *t)
{
    rated_job *j = (rated_job *)((char *)t - offsetof(rated_job, retry));
    int rc = to_store(j);
    if (rc < 0) {
        lost(j->srv, &j->rd.rating, rc);
        unlink_job(j->srv, j);
    }
}

int ddz__rated_games_submit(ddz_srv *srv, const ddz_rated_game *g)
{
    ddz_store_rating_req q = {.game = g->game,
                              .landlord = g->landlord,
                              .landlord_won = g->landlord_won,
                              .forfeit = g->forfeit};
    snprintf(q.rules, sizeof q.rules, "%s", g->rules);
    memcpy(q.player, g->player, sizeof q.player);
    int rc = !srv->store ? DDZ_EDB : srv->nrated_jobs >= DDZ_RATED_GAMES_MAX ? DDZ_EBUSY : 0;
    rated_job *j = rc == 0 ? calloc(1, sizeof *j) : NULL;
    if (rc == 0 && !j)
        rc = DDZ_ENOMEM;
    if (rc < 0) {
        lost(srv, &q, rc);
        return rc;
    }
    j->srv = srv;
    j->hold = g->hold;
    j->rd.kind = DDZ_STORE_READ_RATING_GAME;
    j->rd.owner = j;
    j->rd.rating = q;
    j->next = srv->rated_jobs;
    if (j->next)
        j->next->prev = j;
    srv->rated_jobs = j;
    srv->nrated_jobs++;
    if ((rc = to_store(j)) < 0) {
        lost(srv, &q, rc);
        unlink_job(srv, j);
    }
    return rc;
}

bool ddz__rated_games_owns_read(const ddz_store_read *rd)
{
    return rd->kind == DDZ_STORE_READ_RATING_GAME;
}

/* Tells every connection of the account of seat `i` its new rating. */
static void tell(ddz_srv *srv, const rated_job *j, int i)
{
    const ddz_store_rating_req *q = &j->rd.rating;
    ddz_event e = {.type = DDZ_EVENT_RATED,
                   .rated = {.game = q->game,
                             .before = ddz_people_rating_shown(q->before[i].mu),
                             .rating = ddz_people_rating_shown(q->out[i].mu),
                             .deviation = ddz_people_rating_deviation(q->out[i].sigma),
                             .games = q->out[i].games,
                             .forfeit = q->forfeit >> i & 1}};
    snprintf(e.rated.rules, sizeof e.rated.rules, "%.15s", q->rules); /* a rule set: 15 at most */
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (p->account == q->player[i] && p->conn)
            ddz__conn_send_held(p->conn, ddz_event_print(&e), j->hold);
}

void ddz__rated_games_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    rated_job *j = rd->owner;
    if (!answer) {
        unlink_job(srv, j);
        return;
    }
    const ddz_store_rating_req *q = &rd->rating;
    if (rd->rc >= 0) /* 0: applied before (another try, another node), or everyone passed */
        ddz__log(srv, "info", NULL, "rated game %lld (%s): %s", (long long)q->game, q->rules,
                 rd->rc == 1 ? "ratings applied" : "nothing to apply");
    if (rd->rc == 1) {
        for (int i = 0; i < 3; i++)
            if (q->player[i] > 0)
                tell(srv, j, i);
    } else if (rd->rc == DDZ_EDB && j->tries < DDZ_RATED_GAME_TRIES) {
        /* the database did not answer in time, or is away: the update is
         * idempotent per game, so trying again is harmless */
        ddz__log(srv, "warn", NULL, "rated game %lld: the store did not take its rating (try %d)",
                 (long long)q->game, j->tries);
        j->waiting = true;
        ddz_loop_arm(&srv->loop.base, &j->retry, on_retry,
                     DDZ_RATED_GAME_RETRY_US << (j->tries - 1));
        return;
    } else if (rd->rc < 0) {
        lost(srv, q, rd->rc);
    }
    unlink_job(srv, j); /* 0: applied before, or everyone passed */
}

void ddz__rated_games_stop(ddz_srv *srv)
{
    for (rated_job *j = srv->rated_jobs, *next; j; j = next) {
        next = j->next;
        if (!j->waiting)
            continue; /* with the store: it comes back */
        ddz_loop_disarm(&srv->loop.base, &j->retry);
        lost(srv, &j->rd.rating, DDZ_EDB);
        unlink_job(srv, j);
    }
}
