/* rated.c - rated quick play: the queues, the tick, the tables found
 * (rated.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "ai/ai.h"
#include "rules/ruleset.h"
#include "service/rating/people_rating.h"
#include "service/rating/rated_queue.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/host.h"
#include "service/server/rated.h"
#include "service/server/room.h"
#include "service/server/rooms.h"

#define RULES_MAX 8                       /* rule sets with a queue */
#define TICK_US 1000000                   /* the queues are looked at every second */
#define AI_READ_TICKS 60                  /* the AIs' ratings are read again every minute */
#define NEW_RATING DDZ_PEOPLE_RATING_BASE /* a rating that cannot be read */

/* A store read of ours: a waiting person's rating (`p`, NULL once it
 * stopped waiting), or a hosted AI's (`ai`). */
typedef struct rated_read {
    ddz_store_read rd; /* kind RATING_GET; rd.owner is the read itself */
    ddz_player *p;
    bool ai;
    int rules; /* the queue's index */
} rated_read;

struct ddz_rated {
    int nrules;
    const ddz_rules *rules[RULES_MAX];
    ddz_rated_queue *q[RULES_MAX];
    int waiting;  /* people waiting or whose rating is read: at most DDZ_RATED_WAIT_MAX */
    int ticks;    /* since the AIs' ratings were read */
    int ai_reads; /* AI reads with the store */
    ddz_timer tick;
};

static int64_t fill_us(const ddz_srv *srv)
{
    return (int64_t)(srv->cfg.rated_fill_s > 0 ? srv->cfg.rated_fill_s : DDZ_RATED_FILL_S) *
           1000000;
}

static int submit(ddz_srv *srv, rated_read *rr, int64_t player)
{
    rr->rd.kind = DDZ_STORE_READ_RATING_GET;
    rr->rd.owner = rr;
    snprintf(rr->rd.rating.rules, sizeof rr->rd.rating.rules, "%s",
             srv->rated->rules[rr->rules]->name);
    rr->rd.rating.player[0] = player;
    return srv->store && ddz_store_read_submit(srv->store, &rr->rd) == 0 ? 0 : DDZ_EDB;
}

/* Reads the AIs' ratings of every rule set (their games move them, on
 * every node). A read already out is not repeated. */
static void read_ais(ddz_srv *srv)
{
    ddz_rated *rt = srv->rated;
    if (rt->ai_reads > 0)
        return;
    for (int k = 0; k < rt->nrules; k++)
        for (int a = 1; a <= DDZ_PEOPLE_RATING_AIS; a++) {
            if (!ddz_ai_exists(ddz_people_rating_ai_name(-a) + 3))
                continue;
            rated_read *rr = calloc(1, sizeof *rr);
            if (!rr)
                return;
            rr->ai = true;
            rr->rules = k;
            if (submit(srv, rr, -a) < 0) {
                free(rr);
                return;
            }
            rt->ai_reads++;
        }
}

static void send_error(ddz_player *p, int code, const char *msg)
{
    if (!p->conn)
        return;
    ddz_event e = {.type = DDZ_EVENT_ERROR, .error = {.code = code, .about = DDZ_REQ_QUICK}};
    snprintf(e.error.message, sizeof e.error.message, "%s", msg);
    ddz__conn_send(p->conn, ddz_event_print(&e));
}

/* The person of account `account` who waits in queue `k`, or NULL. */
static ddz_player *waiter(ddz_srv *srv, int64_t account, int k)
{
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (p->account == account && p->rated_rules == k + 1 && !p->rated_read)
            return p;
    return NULL;
}

/* A table found in queue `k`: a rated room with its people and AIs, one
 * game, every person seated and told. */
static void make_table(ddz_srv *srv, int k, const ddz_rated_match *m)
{
    ddz_rated *rt = srv->rated;
    ddz_player *who[3] = {NULL, NULL, NULL};
    ddz_room_opts o;
    ddz_room_opts_default(&o);
    o.rated = true;
    o.priv = true;   /* not in the lobby: the queue seats it */
    o.redeal = true; /* nobody wants an all-pass deal counted */
    o.games = 1;     /* the queue pairs people again for the next game */
    snprintf(o.rules, sizeof o.rules, "%s", rt->rules[k]->name);
    snprintf(o.name, sizeof o.name, "Rated");
    for (int i = 0; i < 3; i++) {
        if (m->ai[i]) {
            snprintf(o.seats[i], sizeof o.seats[i], "%s", ddz_people_rating_ai_name(m->player[i]));
            continue;
        }
        who[i] = waiter(srv, m->player[i], k);
        if (who[i]) {
            who[i]->rated_rules = 0;
            rt->waiting--;
        }
    }
    int err = 0;
    const char *why = NULL;
    ddz_room *r = NULL;
    bool everyone = true;
    for (int i = 0; i < 3; i++)
        everyone &= m->ai[i] || who[i] != NULL;
    /* the room counts as its first person's (rooms per address, the AIs'
     * share of thinking), as a quick-play room does */
    ddz_addr *owner = who[0] && who[0]->conn ? who[0]->conn->addr : NULL;
    if (everyone)
        r = ddz__room_create(srv, &o, owner, &err, &why);
    if (!r) {
        /* nobody seated: each is told and may ask again (a person gone
         * without its cancel is a bug, logged) */
        if (!everyone)
            ddz__log(srv, "error", NULL, "rated quick play: a person of a table was not found");
        for (int i = 0; i < 3; i++)
            if (who[i])
                send_error(who[i], everyone ? err : DDZ_EINVAL,
                           why ? why : "no rated table could be made: try again");
        return;
    }
    int seated = 0;
    for (int i = 0; i < 3; i++) {
        if (!who[i])
            continue;
        int rc = ddz__room_sit(r, who[i], i);
        if (rc < 0) {
            send_error(who[i], rc, "no seat at the rated table: try again");
            continue;
        }
        seated++;
        if (who[i]->conn) {
            ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = who[i]->seat}};
            snprintf(e.joined.room, sizeof e.joined.room, "%s", ddz__room_id(r));
            ddz__conn_send(who[i]->conn, ddz_event_print(&e));
            ddz__room_send_state(r, who[i]);
        }
    }
    if (seated == 0) {
        ddz__room_destroy(r);
        return;
    }
    ddz__rooms_add(srv, r);
    ddz__log(srv, "info", ddz__room_id(r), "rated table of %s: %d people, %d hosted AIs",
             rt->rules[k]->name, m->people, 3 - m->people);
}

/* Seats whoever can be seated in queue `k` now. */
static void match(ddz_srv *srv, int k)
{
    ddz_rated_match m;
    int64_t now = ddz__now_us();
    while (ddz_rated_queue_match(srv->rated->q[k], now, &m) == 1)
        make_table(srv, k, &m);
}

static void on_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, rated_tick));
    ddz_rated *rt = srv->rated;
    for (int k = 0; k < rt->nrules; k++)
        match(srv, k);
    if (++rt->ticks >= AI_READ_TICKS) {
        rt->ticks = 0;
        read_ais(srv);
    }
    ddz_loop_arm(&srv->loop.base, &srv->rated_tick, on_tick, TICK_US);
}

int ddz__rated_want(ddz_srv *srv)
{
    int rc = ddz_host_lead_want(srv, DDZ_RATED_JOB);
    srv->rated_job = rc < 0 ? -1 : rc;
    return rc < 0 ? rc : 0;
}

/* Whether a rated `quick` here goes to another node: the live holder of
 * DDZ_RATED_JOB (its state in *j). False, played here, when this node
 * holds the job, when no node does (none yet, or the database is lost:
 * nobody should wait for a node that may never come) and on one node; and
 * when the holder's public URL is ours (two nodes given one URL: a
 * redirect there would come back here). */
static bool elsewhere(ddz_srv *srv, ddz_lead_job *j)
{
    if (srv->rated_job < 0 || !ddz_host_lead_state(srv, srv->rated_job, j) || j->solo || j->held ||
        !j->holder_known || !j->holder_url[0])
        return false;
    return !srv->cfg.public_url || strcmp(j->holder_url, srv->cfg.public_url) != 0;
}

/* `p`'s rated `quick` (`q`) is answered `redirect` to the holder `j`. */
static void redirect(ddz_player *p, const ddz_req *q, const ddz_lead_job *j)
{
    ddz_event e = {.type = DDZ_EVENT_REDIRECT, .redirect = {.about = q->type}};
    snprintf(e.redirect.url, sizeof e.redirect.url, "%s", j->holder_url);
    snprintf(e.redirect.id, sizeof e.redirect.id, "%s", q->id);
    snprintf(e.redirect.reason, sizeof e.redirect.reason, "rated quick play is on node %s",
             j->holder);
    ddz__conn_send(p->conn, ddz_event_print(&e));
}

int ddz__rated_start(ddz_srv *srv)
{
    ddz_rated *rt = calloc(1, sizeof *rt);
    if (!rt)
        return DDZ_ENOMEM;
    srv->rated = rt;
    ddz_rated_queue_cfg c;
    ddz_rated_queue_cfg_default(&c);
    c.fill_us = fill_us(srv);
    for (int a = 1; a <= DDZ_PEOPLE_RATING_AIS; a++)
        if (ddz_ai_exists(ddz_people_rating_ai_name(-a) + 3)) {
            c.ai[c.nais] = -a;
            c.ai_rating[c.nais++] = NEW_RATING; /* until the store says */
        }
    for (const ddz_rules *rs; rt->nrules < RULES_MAX && (rs = ddz_rules_at(rt->nrules));) {
        rt->rules[rt->nrules] = rs;
        if (!(rt->q[rt->nrules++] = ddz_rated_queue_create(&c, DDZ_RATED_WAIT_MAX))) {
            ddz__rated_stop(srv);
            return DDZ_ENOMEM;
        }
    }
    read_ais(srv);
    ddz_loop_arm(&srv->loop.base, &srv->rated_tick, on_tick, TICK_US);
    return 0;
}

void ddz__rated_stop(ddz_srv *srv)
{
    ddz_rated *rt = srv->rated;
    if (!rt)
        return;
    ddz_loop_disarm(&srv->loop.base, &srv->rated_tick);
    for (ddz_player *p = srv->players.list; p; p = p->next)
        ddz__rated_cancel(srv, p);
    for (int k = 0; k < rt->nrules; k++)
        ddz_rated_queue_destroy(rt->q[k]);
    free(rt);
    srv->rated = NULL;
}

/* `p` waits in queue `k` with `rating`. */
static void enqueue(ddz_srv *srv, ddz_player *p, int k, double rating)
{
    ddz_rated *rt = srv->rated;
    int rc = ddz_rated_queue_add(rt->q[k], p->account, rating, ddz__now_us());
    if (rc < 0) {
        p->rated_rules = 0;
        rt->waiting--;
        if (rc == DDZ_EEXIST) /* the account waits already, from another connection */
            send_error(p, DDZ_EPHASE, "your account is waiting for a rated table already");
        else
            send_error(p, rc == DDZ_ENOSPC ? DDZ_EBUSY : rc,
                       "rated quick play is full: try again later");
        return;
    }
    if (p->conn) {
        ddz_event e = {.type = DDZ_EVENT_QUEUED,
                       .queued = {.rating = rating, .fill_s = (int)(fill_us(srv) / 1000000)}};
        snprintf(e.queued.rules, sizeof e.queued.rules, "%s", rt->rules[k]->name);
        ddz__conn_send(p->conn, ddz_event_print(&e));
    }
    match(srv, k);
}

void ddz__rated_quick(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    ddz_rated *rt = srv->rated;
    if (p->bot || p->account <= 0) {
        ddz__conn_error(p->conn, DDZ_EAUTH, "rated play needs an account", q);
        return;
    }
    const char *name = q->opts.rules[0] ? q->opts.rules : "caai";
    int k = 0;
    while (rt && k < rt->nrules && strcmp(rt->rules[k]->name, name) != 0)
        k++;
    if (!rt || k == rt->nrules) {
        ddz__conn_error(p->conn, DDZ_ERULESET, "unknown rule set", q);
        return;
    }
    ddz__rated_cancel(srv, p); /* asked again: the wait starts again */
    ddz_lead_job holder;
    bool away = elsewhere(srv, &holder);
    if (!away && rt->waiting >= DDZ_RATED_WAIT_MAX) {
        ddz__conn_error(p->conn, DDZ_EBUSY, "rated quick play is full: try again later", q);
        return;
    }
    /* one place at a time: the queue is one, here or at the holder (a
     * seat kept here would wait for a player who went to play there) */
    if (p->room) {
        ddz__player_leave(p);
        ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = -1}};
        ddz__conn_send(p->conn, ddz_event_print(&e));
    }
    if (away) {
        redirect(p, q, &holder);
        return;
    }
    rt->waiting++;
    p->rated_rules = k + 1;
    rated_read *rr = calloc(1, sizeof *rr);
    if (rr) {
        rr->p = p;
        rr->rules = k;
        if (submit(srv, rr, p->account) == 0) {
            p->rated_read = rr;
            return; /* queued when the rating comes */
        }
        free(rr);
    }
    ddz__log(srv, "warn", NULL, "rated quick play: %s's rating cannot be read: 1500", p->id);
    enqueue(srv, p, k, NEW_RATING);
}

bool ddz__rated_cancel(ddz_srv *srv, ddz_player *p)
{
    ddz_rated *rt = srv->rated;
    if (!rt || !p->rated_rules)
        return false;
    if (p->rated_read)
        p->rated_read->p = NULL; /* its answer is dropped when it comes */
    else
        ddz_rated_queue_remove(rt->q[p->rated_rules - 1], p->account);
    p->rated_read = NULL;
    p->rated_rules = 0;
    rt->waiting--;
    return true;
}

int ddz__rated_room_check(const ddz_room_opts *o, const char **why)
{
    *why = NULL;
    if (o->bots)
        *why = "a rated room seats no remote bots (\"bots\": false)";
    else if (o->custody != DDZ_CUSTODY_AI)
        *why = "a rated room's custody is \"ai\"";
    else if (o->time < DDZ_RATED_TIME_MIN)
        *why = "a rated room's clock is at least 10 s";
    else if (o->fill[0])
        *why = "a rated room names its hosted AIs in seats, each once (no fill)";
    for (int i = 0; i < 3 && !*why; i++) {
        if (!o->seats[i][0])
            continue;
        if (ddz_people_rating_ai_id(o->seats[i]) == 0)
            *why = "a rated room seats only people signed in and the rated hosted AIs "
                   "(ai:strong, ai:greedy, ai:random)";
        for (int j = 0; j < i && !*why; j++)
            if (strcmp(o->seats[i], o->seats[j]) == 0)
                *why = "a rated room seats each hosted AI once";
    }
    return *why ? DDZ_EFIELD : 0;
}

bool ddz__rated_owns_read(const ddz_store_read *rd)
{
    return rd->kind == DDZ_STORE_READ_RATING_GET;
}

void ddz__rated_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    rated_read *rr = rd->owner;
    ddz_rated *rt = srv->rated;
    double rating = rd->rc >= 0 ? ddz_people_rating_shown(rd->rating.out[0].mu) : NEW_RATING;
    if (rr->ai) {
        if (rt)
            rt->ai_reads--;
        if (answer && rt && rd->rc >= 0)
            (void)ddz_rated_queue_set_ai_rating(rt->q[rr->rules], rd->rating.player[0], rating);
    } else if (answer && rt && rr->p) {
        ddz_player *p = rr->p;
        p->rated_read = NULL;
        if (rd->rc < 0) /* a database away or hung must not keep anyone out */
            ddz__log(srv, "warn", NULL, "rated quick play: %s's rating cannot be read (%s): 1500",
                     p->id, ddz_strerror(rd->rc));
        enqueue(srv, p, rr->rules, rating);
    }
    free(rr);
}
