/* lobby.c - a client's requests: hello goes to players.c, list, create,
 * join, quick play, spectate, leave and enlist are answered here, requests
 * inside a room go to the room (room.h). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/cluster/cluster.h"
#include "service/server/budget.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/players.h"
#include "service/server/rooms.h"
#include "service/server/lobby.h"
#include "service/server/rated.h"
#include "service/server/room.h"

static ddz_room *find_room(ddz_srv *srv, const char *id)
{
    return ddz__rooms_find(srv, id);
}

static void send_joined(ddz_player *p)
{
    ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = p->seat}};
    if (p->room)
        snprintf(e.joined.room, sizeof e.joined.room, "%s", ddz__room_id(p->room));
    ddz__conn_send(p->conn, ddz_event_print(&e));
}

static void leave_room(ddz_player *p)
{
    ddz__player_leave(p);
}

/* The most rooms one `rooms` event lists (PROTOCOL.md): a list grows with
 * the server, and 200 clients asking for a list of 300 rooms without
 * reading it were 400 MB of queued output. */
#define ROOMS_LIST_MAX 100

/* Our listed rooms with a free seat (full false) or without, newest first,
 * appended to rooms[*n..max). */
static void local_rooms(ddz_srv *srv, bool full, ddz_event_room *rooms, size_t *n, size_t max)
{
    for (ddz_room *r = srv->rooms.list; r && *n < max; r = ddz__room_next(r))
        if (!ddz__room_dead(r) && ddz__room_listed(r) && ddz__room_has_free_seat(r) == !full)
            ddz__room_summary(r, &rooms[(*n)++]);
}

static bool free_seat(const ddz_event_room *r)
{
    return !r->seats[0].seated || !r->seats[1].seated || !r->seats[2].seated;
}

void ddz__lobby_cluster_publish(ddz_srv *srv)
{
    if (!srv->cluster)
        return;
    ddz_event_room *rooms = calloc(DDZ_CLUSTER_ROOMS_MAX, sizeof *rooms);
    if (!rooms)
        return; /* out of memory: the next tick tries again */
    size_t n = 0;
    for (int full = 0; full < 2; full++)
        local_rooms(srv, full, rooms, &n, DDZ_CLUSTER_ROOMS_MAX);
    ddz_cluster_publish(srv->cluster, rooms, n);
    free(rooms);
    ddz_cluster_view v = ddz_cluster_view_get(srv->cluster);
    if (v.connected != srv->cluster_up) {
        srv->cluster_up = v.connected;
        ddz__log(srv, v.connected ? "info" : "warn", NULL,
                 v.connected ? "cluster: %zu live nodes, %zu rooms of the others"
                             : "cluster: the database cannot be reached (%zu nodes, %zu rooms "
                               "of the others as last read)",
                 v.nnodes, v.nrooms);
    }
}

static void on_list(ddz_srv *srv, ddz_conn *c)
{
    ddz_event_room *rooms = malloc(ROOMS_LIST_MAX * sizeof *rooms);
    if (!rooms) {
        ddz__conn_error(c, DDZ_ENOMEM, NULL, NULL);
        return;
    }
    /* rooms with a free seat first (what a client lists rooms for), each
     * group newest first; in a cluster, each group ours and then the other
     * nodes' (the latest changed first) */
    ddz_cluster_view v = {0};
    if (srv->cluster)
        v = ddz_cluster_view_get(srv->cluster);
    size_t n = 0;
    for (int full = 0; full < 2; full++) {
        local_rooms(srv, full, rooms, &n, ROOMS_LIST_MAX);
        for (size_t i = 0; i < v.nrooms && n < ROOMS_LIST_MAX; i++)
            if (free_seat(&v.rooms[i]) == !full)
                rooms[n++] = v.rooms[i];
    }
    /* What a room may seat, so clients need not hard-code it. */
    static const char *const ai_names[] = {"strong", "greedy", "random"};
    const char *rules[8];
    size_t nrules = 0;
    for (const ddz_rules *rs; nrules < 8 && (rs = ddz_rules_at((int)nrules));)
        rules[nrules++] = rs->name;
    const char *ais[sizeof ai_names / sizeof ai_names[0]];
    size_t nais = 0;
    for (size_t i = 0; i < sizeof ai_names / sizeof ai_names[0]; i++)
        if (ddz_ai_exists(ai_names[i]))
            ais[nais++] = ai_names[i];
    ddz_event e = {.type = DDZ_EVENT_ROOMS,
                   .rooms = {.rooms = rooms,
                             .nrooms = n,
                             .ais = ais,
                             .nais = nais,
                             .engines = (const char *const *)srv->cfg.engine_name,
                             .nengines = (size_t)srv->cfg.nengines,
                             .rules = rules,
                             .nrules = nrules}};
    ddz__conn_send(c, ddz_event_print(&e));
    free(rooms);
}

/* Sits `p` in `r` (leaving any room it was in) and tells it. Returns the
 * seat or the error sent. */
static int sit(ddz_room *r, ddz_player *p, int seat, const ddz_req *q)
{
    int rc = ddz__room_sit(r, p, seat); /* DDZ_ROOM_SEAT_NEXT: it watches, told so */
    if (rc < 0) {
        bool rated = ddz__room_rated(r);
        ddz__conn_error(p->conn, rc,
                        rc == DDZ_EFULL             ? "no free seat"
                        : rc == DDZ_EAUTH && rated  ? "rated play needs an account"
                        : rc == DDZ_EAUTH           ? "this room does not allow bots"
                        : rc == DDZ_EPHASE && rated ? "your account sits at this table already"
                        : rc == DDZ_EINVAL          ? "that seat is taken"
                                                    : NULL,
                        q);
        return rc;
    }
    send_joined(p);
    ddz__room_send_state(r, p);
    return rc;
}

static const char *best_ai(ddz_srv *srv)
{
    if (srv->cfg.default_ai)
        return srv->cfg.default_ai;
    return ddz_ai_exists("strong") ? "strong" : "greedy";
}

static void on_create(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    int err = 0;
    const char *why;
    if (q->opts.rated && (p->bot || p->account <= 0)) {
        ddz__conn_error(p->conn, DDZ_EAUTH, "rated play needs an account", q);
        return;
    }
    if (q->opts.rated && (err = ddz__rated_room_check(&q->opts, &why)) < 0) {
        ddz__conn_error(p->conn, err, why, q);
        return;
    }
    ddz_room *r = ddz__room_create(srv, &q->opts, p->conn ? p->conn->addr : NULL, &err, &why);
    if (!r) {
        ddz__conn_error(p->conn, err,
                        why                    ? why
                        : err == DDZ_ERULESET  ? "unknown rule set"
                        : err == DDZ_ENOTFOUND ? "unknown AI or engine in the seats"
                                               : NULL,
                        q);
        return;
    }
    if (q->opts.fill[0] && !ddz_ai_exists(q->opts.fill + 3)) {
        ddz__conn_error(p->conn, DDZ_ENOTFOUND, "unknown AI in fill", q);
        ddz__room_destroy(r);
        return;
    }
    /* A room whose creator cannot sit in it is not created at all. */
    if (sit(r, p, q->seat, q) < 0) {
        ddz__room_destroy(r);
        return;
    }
    ddz__rooms_add(srv, r);
    ddz__room_fill(r);
}

static void on_quick(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    ddz_room_opts o;
    ddz_room_opts_default(&o);
    char ai[48];
    snprintf(ai, sizeof ai, "ai:%s", q->ai[0] ? q->ai : best_ai(srv));
    snprintf(o.name, sizeof o.name, "%.30s vs AI", p->name);
    o.priv = true;
    o.redeal = true; /* a casual game: nobody wants an all-pass deal counted */
    snprintf(o.seats[1], sizeof o.seats[1], "%s", ai);
    snprintf(o.seats[2], sizeof o.seats[2], "%s", ai);
    ddz_req create = *q;
    create.opts = o;
    create.seat = 0;
    on_create(srv, p, &create);
}

/* Checks the password of a join or spectate `q` for `r`, unless the room
 * or the client's address is locked out for guessing (3,600 wrong
 * passwords a second from 200 connections found one). Returns true if it
 * may go in; otherwise the error is sent (EAUTH, or ERATE during a
 * lockout, when the password is not even checked). */
static bool password_check(ddz_srv *srv, ddz_conn *c, ddz_room *r, const ddz_req *q)
{
    if (!ddz__room_has_password(r))
        return true;
    int64_t now = ddz__now_us();
    ddz_tries *room = ddz__room_tries(r), *addr = c->addr ? &c->addr->tries : NULL;
    int64_t wait = ddz__tries_locked(room, now);
    if (addr && ddz__tries_locked(addr, now) > wait)
        wait = ddz__tries_locked(addr, now);
    if (wait > 0) {
        char msg[120];
        snprintf(msg, sizeof msg, "too many wrong passwords: try again in %lld s",
                 (long long)((wait + 999999) / 1000000));
        srv->budget.password_refused++;
        ddz__conn_error(c, DDZ_ERATE, msg, q);
        return false;
    }
    if (ddz__room_password_ok(r, q->password))
        return true;
    int per_minute = ddz__budget_password_tries(srv);
    srv->budget.password_failures++;
    srv->budget.password_lockouts += ddz__tries_fail(room, now, per_minute);
    if (addr)
        srv->budget.password_lockouts += ddz__tries_fail(addr, now, per_minute);
    ddz__conn_error(c, DDZ_EAUTH, "wrong password", q);
    return false;
}

/* A join or spectate naming a room another live node of the cluster
 * serves is answered with `redirect` to that node (PROTOCOL.md, "Many
 * nodes"). Returns true if it was. */
static bool redirect(ddz_srv *srv, ddz_conn *c, const ddz_req *q)
{
    char node[DDZ_CLUSTER_NODE_MAX];
    if (!srv->cluster || !ddz_cluster_room_node(q->room, node) || strcmp(node, srv->cfg.node) == 0)
        return false;
    const char *url = ddz_cluster_node_url(srv->cluster, node);
    if (!url || strcmp(url, srv->cfg.public_url) == 0)
        return false; /* its node is gone (or says it is us): no such room */
    ddz_event e = {.type = DDZ_EVENT_REDIRECT, .redirect = {.about = q->type}};
    snprintf(e.redirect.url, sizeof e.redirect.url, "%s", url);
    snprintf(e.redirect.id, sizeof e.redirect.id, "%s", q->id);
    snprintf(e.redirect.room, sizeof e.redirect.room, "%s", q->room);
    snprintf(e.redirect.reason, sizeof e.redirect.reason, "room %s is on node %s", q->room, node);
    ddz__conn_send(c, ddz_event_print(&e));
    return true;
}

/* Returns the competition (index in srv->plugin) an `enlist` naming
 * `name` goes to: the one of that kind; naming none, the first that takes
 * it (the tournament if one is configured, else the ladder if it runs),
 * else the first (which answers that it is not running); -1 with none. */
static int enlist_target(ddz_srv *srv, const char *name)
{
    for (int i = 0; name[0] && i < srv->nplugins; i++)
        if (strcmp(srv->plugin[i]->kind, name) == 0)
            return i;
    for (int i = 0; !name[0] && i < srv->nplugins; i++)
        if (srv->plugin[i]->takes_default && srv->plugin[i]->takes_default(srv->plugin_self[i]))
            return i;
    return srv->nplugins > 0 ? 0 : -1;
}

/* `enlist`: a competition plug-in's (host.h). A bot is in one competition
 * at a time, and leaves the room it is in (a casual room, seat or
 * audience) first: one table at a time. */
static void on_enlist(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    int i = enlist_target(srv, q->competition);
    if (i < 0 || !srv->plugin[i]->enlist) {
        ddz__conn_error(p->conn, DDZ_ENOTFOUND, "no competition is running on this server", q);
        return;
    }
    if (p->enlisted && p->enlisted_in != i) {
        char msg[96];
        snprintf(msg, sizeof msg, "you are enlisted in the %s: one competition at a time",
                 srv->plugin[p->enlisted_in]->kind);
        ddz__conn_error(p->conn, DDZ_EPHASE, msg, q);
        return;
    }
    if (!p->enlisted && p->room && p->bot) {
        ddz__player_leave(p);
        send_joined(p);
    }
    /* the competition sets p->enlisted when it takes it */
    p->enlisted_in = i;
    srv->plugin[i]->enlist(srv->plugin_self[i], p, q);
}

void ddz__lobby_on_frame(ddz_srv *srv, ddz_conn *c, const char *text, size_t len)
{
    ddz_req q;
    char err[160];
    int rc = ddz_req_parse(text, len, &q, err, sizeof err);
    if (rc < 0) {
        ddz__conn_error(c, rc, err, &q);
        return;
    }
    ddz_player *p = ddz__conn_player(c);
    if (q.type == DDZ_REQ_HELLO) {
        ddz__players_hello(srv, c, &q);
        return;
    }
    if (!p) {
        ddz__conn_error(c, DDZ_EPHASE, "say hello first", &q);
        return;
    }
    ddz_room *r;
    bool lobby_request = q.type == DDZ_REQ_CREATE || q.type == DDZ_REQ_QUICK ||
                         q.type == DDZ_REQ_JOIN || q.type == DDZ_REQ_SPECTATE ||
                         q.type == DDZ_REQ_LEAVE;
    if (p->enlisted && lobby_request) {
        /* one table at a time (spec §13): an enlisted bot sits where its
         * competition seats it, for as long as its connection lasts */
        ddz__conn_error(c, DDZ_EPHASE,
                        "you are enlisted in a competition: it seats you, until you disconnect",
                        &q);
        return;
    }
    /* one place at a time: a person who asks for a room, or leaves, stops
     * waiting for a rated table (a rated `quick` starts its wait again) */
    if (lobby_request)
        ddz__rated_cancel(srv, p);
    switch (q.type) {
    case DDZ_REQ_ENLIST:
        on_enlist(srv, p, &q);
        break;
    case DDZ_REQ_LIST:
        on_list(srv, c);
        break;
    case DDZ_REQ_CREATE:
        on_create(srv, p, &q);
        break;
    case DDZ_REQ_QUICK:
        if (q.opts.rated)
            ddz__rated_quick(srv, p, &q);
        else
            on_quick(srv, p, &q);
        break;
    case DDZ_REQ_JOIN:
    case DDZ_REQ_SPECTATE:
        r = find_room(srv, q.room);
        if (!r) {
            if (!redirect(srv, c, &q))
                ddz__conn_error(c, DDZ_ENOTFOUND, "no such room", &q);
        } else if (!password_check(srv, c, r, &q)) {
            /* answered */
        } else if (p->room == r && p->seat >= 0) {
            /* Already seated here: a repeated join changes nothing (leaving
             * first would hand the seat away), and watching one's own table
             * would empty the seat. */
            if (q.type == DDZ_REQ_JOIN) {
                send_joined(p);
                ddz__room_send_state(r, p);
            } else {
                ddz__conn_error(c, DDZ_EPHASE, "you sit in this room: leave it to watch", &q);
            }
        } else if (q.type == DDZ_REQ_JOIN) {
            sit(r, p, q.seat, &q);
        } else if (ddz__room_watch(r, p) < 0) {
            ddz__conn_error(c, DDZ_ENOMEM, NULL, &q);
        } else {
            send_joined(p);
            ddz__room_send_state(r, p);
        }
        break;
    case DDZ_REQ_LEAVE:
        leave_room(p);
        send_joined(p);
        break;
    default:
        if (!p->room)
            ddz__conn_error(c, DDZ_EPHASE, "not in a room", &q);
        else
            ddz__room_request(p->room, p, &q);
    }
}
