/* room_life.c - a room's life: made (a casual room, or a competition's table
 * around the competition's runner), filled, freed, and what the lobby
 * reads of it. The room is one object for every table the server runs
 * (room_fields.h says how the kinds differ); room.h is the face of all
 * its files, room_fields.h their shared fields; its parts live one job a
 * file, called one way:
 *
 *     room_input.c   what a seated player asks (bids, plays, custody, hints)
 *     room_table.c   a competition's table: opened, re-seated, ended
 *     room_life.c    made and freed
 *     room_events.c  the runner's events and the end of each game
 *     room_series.c  starting games and the next series
 *     room_seats.c   who sits where: seating, leaving, dropping, custody
 *     room_ready.c   whether the room may deal, whom it waits for
 *     room_ai.c      hosted AIs and engines in seats, for good or in custody
 *     room_view.c    what the audience sees: seat views, broadcasts, state
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_events.h"
#include "service/server/room_ai.h"
#include "service/server/room_seats.h"
#include "service/server/room_ready.h"
#include "service/server/room_series.h"
#include "service/server/room_view.h"

const char *ddz__room_id(const ddz_room *r)
{
    return r->id;
}

bool ddz__room_listed(const ddz_room *r)
{
    return !r->opts.priv;
}

bool ddz__room_dead(const ddz_room *r)
{
    return r->dead;
}

bool ddz__room_has_password(const ddz_room *r)
{
    return r->opts.password[0] != '\0';
}

bool ddz__room_rated(const ddz_room *r)
{
    return r->opts.rated;
}

ddz_spawn_budget *ddz__room_spawns(ddz_room *r)
{
    return &r->spawns;
}

ddz_tries *ddz__room_tries(ddz_room *r)
{
    return &r->tries;
}

bool ddz__room_has_free_seat(const ddz_room *r)
{
    if (!r->run)
        return false;
    for (int i = 0; i < 3; i++)
        if (!ddz_runner_seat_of(r->run, i) || (r->seats[i].standin && !r->seats[i].player))
            return true; /* a stand-in gives way to a person (spec §14) */
    return false;
}

ddz_room *ddz__room_next(ddz_room *r)
{
    return r->next;
}

ddz_room **ddz__room_nextp(ddz_room *r)
{
    return &r->next;
}

bool ddz__room_password_ok(const ddz_room *r, const char *password)
{
    size_t a = strlen(r->opts.password), b = strlen(password);
    return a == 0 || (a == b && sodium_memcmp(r->opts.password, password, a) == 0);
}

/* A new room id: eight random characters (2^39: an unlisted room's id is
 * its only secret), after "NODE-" in a cluster, so that any node can tell
 * where the room lives (PROTOCOL.md, "Many nodes"). */
static void new_id(const ddz_srv *srv, char id[DDZ_EVENT_ROOM_ID_MAX])
{
    static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";
    size_t n = 0;
    if (srv->cluster)
        n = (size_t)snprintf(id, DDZ_EVENT_ROOM_ID_MAX, "%s-", srv->cfg.node);
    for (int i = 0; i < 8; i++)
        id[n++] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
    id[n] = '\0';
}

ddz_room *ddz__room_create(ddz_srv *srv, const ddz_room_opts *opts, ddz_addr *owner, int *err,
                           const char **why)
{
    *why = NULL;
    const ddz_rules *rules = ddz_rules_find(opts->rules);
    if (!rules) {
        *err = DDZ_ERULESET;
        return NULL;
    }
    /* Every engine seat is a process for as long as the room lives, so the
     * room reserves them all now, whether they run yet or not: counting
     * only running processes would let rooms waiting to start (or whose
     * engine crashed and will start again) overshoot the bound. */
    int engines = 0, ais = 0;
    for (int i = 0; i < 3; i++) {
        engines += strncmp(opts->seats[i], "engine:", 7) == 0;
        ais += strncmp(opts->seats[i], "ai:", 3) == 0;
    }
    if (opts->fill[0]) /* every seat left after the creator's */
        ais = 2 - engines;
    *err = DDZ_EBUSY;
    if (engines && srv->budget.engines + engines > ddz__budget_max_engines(srv)) {
        ddz__budget_refused(srv, DDZ_BUDGET_ENGINES);
        *why = "the server is at its limit for engine processes: try again later";
        return NULL;
    }
    if (ais && srv->budget.ais + ais > ddz__budget_max_ais(srv)) {
        ddz__budget_refused(srv, DDZ_BUDGET_AIS);
        *why = "the server is at its limit for hosted AIs: try again later";
        return NULL;
    }
    /* Its engines will start when its game does, and a CAAI engine's start
     * does not wait for the spawn budget (seat_engine.c): the room waits at
     * the door instead, while its address's budget or the server's is
     * spent. The address's first: one address making and dropping rooms
     * is told to slow down (ERATE) and does not spend the server's. */
    if (engines && !ddz_spawn_budget_has(ddz__budget_addr_spawns(srv, owner), ddz__now_us())) {
        ddz__budget_refused(srv, DDZ_BUDGET_SPAWNS_PER_IP);
        *err = DDZ_ERATE;
        *why = "your address is starting engines as fast as it may: try again in a second";
        return NULL;
    }
    if (engines && !ddz_spawn_budget_has(ddz__budget_spawns(srv), ddz__now_us())) {
        ddz__budget_refused(srv, DDZ_BUDGET_SPAWNS);
        *why = "the server is starting engines as fast as it may: try again in a second";
        return NULL;
    }
    if (!ddz__budget_room_allowed(srv, owner)) {
        *why = "too many rooms from your address: leave one first";
        return NULL;
    }
    ddz_room *r = calloc(1, sizeof *r);
    if (!r) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    r->srv = srv;
    r->on_deal_clock = ddz__room_on_pause;
    r->engines = engines;
    srv->budget.engines += engines;
    ddz__budget_room_spawns(srv, &r->spawns);
    r->owner = owner;
    ddz__budget_room_open(owner);
    r->opts = *opts;
    r->rules = rules;
    new_id(srv, r->id);
    if (!r->opts.name[0])
        snprintf(r->opts.name, sizeof r->opts.name, "Room %ld", ++srv->rooms.named);
    randombytes_buf(r->master, sizeof r->master);
    ddz_runner_cb cb = {.ctx = r,
                        .event = ddz__room_on_event,
                        .over = ddz__room_on_over,
                        .log = ddz__room_on_log,
                        .think_delay_us = ddz__room_think_delay,
                        .timeout = ddz__room_on_timeout};
    r->run = ddz_runner_create(&srv->loop.base, &cb);
    if (!r->run) {
        free(r);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    ddz__room_new_series(r);
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        s->room = r;
        s->index = i;
        const char *spec = opts->seats[i];
        if (!spec[0])
            continue;
        int rc = ddz__room_seat_ai(r, s, spec);
        if (rc < 0) {
            *err = rc == DDZ_ENOMEM || rc == DDZ_EBUSY ? rc : DDZ_ENOTFOUND;
            ddz__room_destroy(r);
            return NULL;
        }
        snprintf(s->spec, sizeof s->spec, "%s", spec);
    }
    ddz__log(srv, "info", r->id, "room created: %s", r->opts.name);
    return r;
}

int ddz__room_fill(ddz_room *r)
{
    if (!r->opts.fill[0])
        return 0;
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        if (s->player || ddz_runner_seat_of(r->run, i))
            continue;
        int rc = ddz__room_seat_ai(r, s, r->opts.fill);
        if (rc < 0)
            return rc;
        snprintf(s->spec, sizeof s->spec, "%s", r->opts.fill);
        ddz__room_seat_event(r, i);
    }
    ddz__room_maybe_start(r);
    return 0;
}

bool ddz__room_is_owned(const ddz_room *r)
{
    return r->owned;
}

ddz_room *ddz__room_create_table(ddz_srv *srv, const ddz_room_opts *opts, ddz_runner *run)
{
    ddz_room *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = srv;
    r->on_deal_clock = ddz__room_on_pause;
    r->opts = *opts;
    r->rules = ddz_rules_find(opts->rules);
    if (!r->rules)
        r->rules = &ddz_rules_caai;
    r->owned = true;
    r->run = run;
    new_id(srv, r->id);
    for (int i = 0; i < 3; i++) {
        r->seats[i].room = r;
        r->seats[i].index = i;
        const ddz_seat *st = ddz_runner_seat_of(run, i);
        snprintf(r->seats[i].spec, sizeof r->seats[i].spec, "%s",
                 st && st->ops->name(st)[0] ? st->ops->name(st) : "");
    }
    /* a table resumed mid-turn: the series' games so far */
    r->phase = PH_WAITING;
    ddz__log(srv, "info", r->id, "competition table: %s", r->opts.name);
    return r;
}

void ddz__room_destroy(ddz_room *r)
{
    ddz_loop_disarm(&r->srv->loop.base, &r->pause);
    ddz_loop_disarm(&r->srv->loop.base, &r->settle);
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        ddz_seat_close(s->away);
        if (s->player && s->player->room == r)
            s->player->room = NULL, s->player->seat = -1;
    }
    if (!r->owned)
        ddz_runner_destroy(r->run); /* engines stopped, AI decisions orphaned */
    r->srv->budget.engines -= r->engines;
    ddz__budget_room_close(r->srv, r->owner);
    ddz__room_idle_unlink(r);
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i]->room == r)
            r->watch[i]->room = NULL;
    free(r->watch);
    free(r);
}
