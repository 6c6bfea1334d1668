/* ladder_srv.c - the continuous rated ladder inside `ddz serve`, a
 * plug-in of the table host (service/server/host.h, and nothing else of
 * the server; ladder_srv.h): participants, deals played at several tables
 * at once, ratings, the store, GET /api/ladder, and on several nodes its
 * cluster side (ladder_net.h) on the host's lead thread. */
#include "service/ladder/ladder_srv.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai/ai.h"
#include "proto/event.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/ladder/ladder_net.h"
#include "service/ladder/deal_plan.h"
#include "service/ladder/deal_sched.h"
#include "service/rating/rating.h"
#include "service/seats/seats.h"
#include "service/server/host.h"

#define RECENT 12      /* games looked at for a suspension */
#define RECENT_MIN 3   /* ... at least this many */
#define TICK_US 500000 /* the scheduler looks again (bots come back unannounced) */
#define DDZ_SCHEDULE_MAX DDZ_DEAL_CANDIDATES /* participants, at most */

_Static_assert(DDZ_DEAL_TABLES == DDZ_STORE_LADDER_TABLES, "a deal's tables, two modules");

enum kind { K_BOT, K_ENGINE, K_AI };

typedef struct part {
    ddz_store_ladder_player s; /* name and standing, as stored */
    int kind;                  /* enum kind */
    char spec[64];             /* K_ENGINE, K_AI: the seat spec ("engine:NAME", "ai:NAME") */
    int budget_ms;             /* K_AI: per decision, 0 = the AI's default */
    bool configured;           /* K_ENGINE, K_AI: named by this server's options */
    ddz_rating r;
    ddz_player *bot;        /* K_BOT: the enlisted player, NULL if none */
    int deal;               /* a program: the deal it plays (index into l->d), -1 if idle */
    int seats;              /* K_AI: seats it holds at deals being played */
    uint8_t recent[RECENT]; /* faulted (1) or not, the latest games, a ring */
    int nrecent, recent_at;
    int last_fault;      /* enum ddz_fault of its latest fault */
    bool tell_suspended; /* a bot to be told `released` when its deal ends */
    ddz_store_ladder_hist hist[DDZ_LADDER_HISTORY]; /* a ring, its latest seats */
    int nhist, hist_at;
} part;

typedef struct ldeal ldeal;

/* One table of a deal: seat s holds hand s. */
typedef struct ltab {
    ldeal *d;
    int index; /* table index in the deal */
    ddz_runner *run;
    ddz_room *room;
    bool pending;    /* its game ended: close it once the runner is idle */
    bool done;       /* ... closed */
    double score[3]; /* by seat */
    int faulted[3];  /* 1 if the seat faulted */
    bool absent[3];  /* the seat's bot was not connected when the game began */
    int64_t id;      /* its game's store id */
} ltab;

/* One deal, played at plan.tables tables at once. */
struct ldeal {
    struct ddz_ladder *lad;
    bool used;
    ddz_deal_plan plan; /* participant indices */
    uint8_t master[DDZ_SEED_BYTES];
    ltab tab[DDZ_DEAL_TABLES];
    long number;   /* shown in the rooms' names and /api/ladder */
    int engines;   /* engine seats reserved in the engines budget */
    int64_t net;   /* several nodes: the deal's id (cluster_ladder_deals), else 0 */
    bool recorded; /* several nodes: its result went to be recorded */
    bool rated;    /* played at every table: the TV may show it once published */
};

/* What the ladder's TV shows (GET /api/ladder's `tv`): one game of the
 * deal published last, for a delayed broadcast (docs/decisions.md,
 * "Watching a competition"). game 0: none yet. */
typedef struct ltv {
    int64_t game;                       /* its store id, published */
    long deal;                          /* the deal's number */
    int table, tables;                  /* the table shown (from 1), of the deal's */
    char names[3][DDZ_LADDER_NAME_MAX]; /* by seat */
    double rating[3], uncertainty[3];   /* by seat, as the deal left them */
} ltv;

typedef struct ddz_ladder {
    ddz_host *h;
    const ddz_rules *rules;
    ddz_rating_cfg rc;
    int time_ms;
    part *p; /* [max] */
    int n, max;
    ldeal *d; /* [ndeals]: ntables / 2, a deal having two tables at least */
    int ndeals;
    int ntables, tables_used;
    long deals;          /* rated since the start (several nodes: deals seen in the history) */
    long numbered;       /* deals started here */
    long hist_rows;      /* history rows made or seen */
    int64_t last_deal;   /* several nodes: the deal of the latest history row seen */
    ddz_ladder_net *net; /* several nodes (ladder_net.h), else NULL */
    ddz_timer kick, tick;
    uint64_t ticket; /* the store's ticket of its latest deal's rows and
                        publication (ladder_ticket) */
    ltv tv;          /* the TV's game: written when a rated deal is published */
} ddz_ladder;

/* The ladder as the host's plug-in: the ladder when one runs, and on
 * several nodes its cluster side and the lock of its scheduling. */
typedef struct lplug {
    ddz_host *h;
    ddz_ladder *l;       /* the ladder running here, or NULL */
    ddz_ladder_net *net; /* several nodes: its cluster side, else NULL */
    int job;             /* "ladder:RULES" (ddz_host_lead_want()), -1 without a ladder */
} lplug;

/* ---- participants ---- */

/* A program plays one deal at a time (and each deal once); a hosted AI
 * holds any number of seats at once (deal_plan.h). */
static bool is_program(const part *q)
{
    return q->kind != K_AI;
}

static bool connected_here(const part *q)
{
    return q->kind == K_BOT ? q->bot && q->bot->conn : q->configured;
}

static int find(const ddz_ladder *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->p[i].s.name, name) == 0)
            return i;
    return -1;
}

static int kind_of(const char *name)
{
    return strncmp(name, "ai:", 3) == 0       ? K_AI
           : strncmp(name, "engine:", 7) == 0 ? K_ENGINE
                                              : K_BOT;
}

/* Adds participant `name` with a new rating. Returns its index or -1 (full). */
static int add(ddz_ladder *l, const char *name)
{
    if (l->n == l->max)
        return -1;
    part *q = &l->p[l->n];
    memset(q, 0, sizeof *q);
    snprintf(q->s.name, sizeof q->s.name, "%s", name);
    q->kind = kind_of(name);
    q->r = ddz_rating_new(&l->rc);
    q->s.mu = q->r.mu, q->s.sigma = q->r.sigma;
    q->deal = -1;
    return l->n++;
}

static void hist_push(part *q, const ddz_store_ladder_hist *h)
{
    q->hist[q->hist_at] = *h;
    q->hist_at = (q->hist_at + 1) % DDZ_LADDER_HISTORY;
    if (q->nhist < DDZ_LADDER_HISTORY)
        q->nhist++;
}

static void recent_push(part *q, bool faulted)
{
    q->recent[q->recent_at] = faulted;
    q->recent_at = (q->recent_at + 1) % RECENT;
    if (q->nrecent < RECENT)
        q->nrecent++;
}

static void put(ddz_ladder *l, const part *q)
{
    if (l->net) {
        /* the rest of the standing is the database's: only the suspension */
        if (ddz_ladder_net_suspend(l->net, q->s.name, q->s.suspended) < 0)
            ddz_host_log(l->h, "error", NULL, "ladder: cannot store %s", q->s.name);
        return;
    }
    if (ddz_store_ladder_put(ddz_host_store(l->h), l->rules->name, &q->s) < 0)
        ddz_host_log(l->h, "error", NULL, "ladder: cannot store %s", q->s.name);
}

/* Suspends `q` if it faulted in most of its recent games. */
static void check_suspension(ddz_ladder *l, part *q)
{
    if (q->s.suspended[0] || q->nrecent < RECENT_MIN)
        return;
    int bad = 0;
    for (int i = 0; i < q->nrecent; i++)
        bad += q->recent[i];
    if (2 * bad <= q->nrecent)
        return;
    snprintf(q->s.suspended, sizeof q->s.suspended, "faulted in %d of its last %d games (last: %s)",
             bad, q->nrecent, ddz_fault_name(q->last_fault));
    q->tell_suspended = q->kind == K_BOT;
    ddz_host_log(l->h, "warn", NULL, "ladder: %s suspended: %s", q->s.name, q->s.suspended);
    put(l, q);
}

static void release(ddz_player *p, const char *fmt, const char *arg)
{
    if (!p || !p->conn)
        return;
    ddz_event e = {.type = DDZ_EVENT_RELEASED};
    snprintf(e.released.reason, sizeof e.released.reason, fmt, arg);
    ddz_host_send(p, ddz_event_print(&e));
}

/* ---- a deal's tables ---- */

static void kick(ddz_ladder *l);
static void net_round(ddz_ladder *l);

/* The participant at seat `s` of table `t`. */
static part *at(const ltab *t, int s)
{
    return &t->d->lad->p[t->d->plan.who[t->index][s]];
}

static ddz_seat *make_seat(ltab *t, int s, char *err, size_t errlen)
{
    ddz_ladder *l = t->d->lad;
    part *q = at(t, s);
    char log_name[300];
    snprintf(log_name, sizeof log_name, "ladder-%s", q->kind == K_ENGINE ? q->spec + 7 : "");
    ddz_seat_want w = {
        .spec = q->kind == K_BOT ? NULL : q->spec,
        .player = q->bot,
        .name = q->s.name,
        .charge_at_once = true, /* a deal does not wait for a bot that left */
        .time_ms = l->time_ms,
        .ai_budget_ms = q->budget_ms,
        .think_key = "(ladder)", /* a share of the think pool of its own */
        .log_name = q->kind == K_ENGINE ? log_name : NULL,
    };
    int e = 0;
    ddz_seat *st = ddz_host_seat_make(l->h, &w, &e, err, errlen);
    t->absent[s] = st && ddz_seat_is_absent(st);
    return st;
}

/* Room and seats of table `t`, and its game's start. Returns 0 or -1
 * (the deal is given up: logged). */
static int start_game(ltab *t)
{
    ldeal *d = t->d;
    ddz_ladder *l = d->lad;
    ddz_table_cfg tc = {
        .rules = l->rules, .deals = 1, .time_ms = l->time_ms, .turn = 1, .turns = 1};
    memcpy(tc.master, d->master, sizeof tc.master); /* one deal at every table */
    for (int s = 0; s < 3; s++)
        tc.autopass[s] = 1; /* as on the CAAI platform */
    int rc = ddz_runner_series(t->run, &tc);
    char why[300] = "";
    for (int s = 0; s < 3 && rc == 0; s++) {
        ddz_seat *st = make_seat(t, s, why, sizeof why);
        if (!st)
            rc = DDZ_ENOMEM;
        else
            ddz_runner_seat(t->run, s, st);
    }
    if (rc < 0) {
        ddz_host_log(l->h, "error", NULL, "ladder: cannot seat a table: %s",
                     why[0] ? why : ddz_strerror(rc));
        return -1;
    }
    ddz_room_opts o;
    ddz_room_opts_default(&o);
    snprintf(o.name, sizeof o.name, "Ladder deal %ld, table %d/%d", d->number, t->index + 1,
             d->plan.tables);
    snprintf(o.rules, sizeof o.rules, "%s", l->rules->name);
    o.time = (l->time_ms + 999) / 1000;
    o.games = 1;
    o.bots = true;
    o.custody = DDZ_CUSTODY_FAULT;
    o.grace = 0; /* a bot that drops is charged at once (ladder_srv.h) */
    o.pause = 0;
    o.redeal = false; /* spec §13: every table plays the deal; an all-pass counts */
    o.held = true;    /* nothing of the deal shown before every table has played it (spec §13) */
    const char *labels[3];
    ddz_player *bots[3];
    for (int s = 0; s < 3; s++) {
        part *q = at(t, s);
        labels[s] = q->s.name;
        bots[s] = q->kind == K_BOT ? q->bot : NULL;
    }
    t->room = ddz_host_table_open(l->h, &o, t->run, labels, bots);
    if (!t->room) {
        ddz_host_log(l->h, "error", NULL, "ladder: out of memory for a room");
        return -1;
    }
    rc = ddz_runner_start(t->run);
    if (rc < 0) {
        ddz_host_log(l->h, "error", NULL, "ladder: cannot start a game: %s", ddz_strerror(rc));
        return -1;
    }
    return 0;
}

static void end_room(ltab *t)
{
    if (t->room)
        ddz_host_table_close(t->room);
    t->room = NULL;
    for (int s = 0; t->run && s < 3; s++)
        ddz_runner_seat(t->run, s, NULL); /* engines stop */
}

/* Publishes the games of deal `d` that were played to the end: held until
 * now (spec §13), as every table has played the deal, or none ever will
 * (a deal given up is never dealt again: each deal has a fresh seed).
 * GET /api/ladder is not served before the publication is durable (the
 * ticket), so a game its `tv` names is readable by its id at once.
 * Returns whether any game was queued for publication. */
static bool publish(ldeal *d)
{
    int64_t ids[DDZ_DEAL_TABLES];
    size_t n = 0;
    for (int k = 0; k < d->plan.tables; k++)
        if (d->tab[k].id > 0)
            ids[n++] = d->tab[k].id;
    if (!n)
        return false;
    if (ddz_store_publish_games(ddz_host_store(d->lad->h), ids, n) < 0) {
        ddz_host_log(d->lad->h, "error", NULL, "ladder: deal %ld: its games could not be published",
                     d->number);
        return false;
    }
    d->lad->ticket = ddz_store_ticket(ddz_host_store(d->lad->h));
    return true;
}

/* Points the TV at a table of deal `d`, rated and just published: the
 * one whose players have the highest ratings together (the game the most
 * is expected of, as lichess TV picks), the first such on a tie. Only a
 * published deal is ever named: nobody may still play it (spec §13). */
static void tune(ldeal *d)
{
    ddz_ladder *l = d->lad;
    int best = -1;
    double top = 0;
    for (int k = 0; k < d->plan.tables; k++) {
        if (d->tab[k].id <= 0)
            continue;
        double sum = 0;
        for (int s = 0; s < 3; s++)
            sum += at(&d->tab[k], s)->r.mu;
        if (best < 0 || sum > top)
            best = k, top = sum;
    }
    if (best < 0)
        return;
    ltv *tv = &l->tv;
    tv->game = d->tab[best].id;
    tv->deal = d->number;
    tv->table = best + 1;
    tv->tables = d->plan.tables;
    for (int s = 0; s < 3; s++) {
        const part *q = at(&d->tab[best], s);
        snprintf(tv->names[s], sizeof tv->names[s], "%s", q->s.name);
        tv->rating[s] = q->r.mu;
        tv->uncertainty[s] = q->r.sigma;
    }
}

/* Frees deal `d` (rated, or given up: then nothing is rated). */
static void free_deal(ldeal *d)
{
    ddz_ladder *l = d->lad;
    if (publish(d) && d->rated)
        tune(d);
    for (int k = 0; k < d->plan.tables; k++) {
        ltab *t = &d->tab[k];
        end_room(t);
        ddz_runner_destroy(t->run);
        t->run = NULL;
    }
    ddz_host_release(l->h, d->engines);
    l->tables_used -= d->plan.tables;
    /* cut short (or its result could not be queued): no result, its
     * players free again */
    if (l->net && d->net && !d->recorded && ddz_ladder_net_drop(l->net, d->net) < 0)
        ddz_host_log(l->h, "error", NULL,
                     "ladder: out of memory: deal %lld stays assigned until this node stops",
                     (long long)d->net);
    for (int k = 0; k < d->plan.tables; k++)
        for (int s = 0; s < 3; s++) {
            part *q = &l->p[d->plan.who[k][s]];
            if (q->kind == K_AI)
                q->seats--;
            else
                q->deal = -1;
            if (q->tell_suspended) {
                q->tell_suspended = false;
                release(q->bot, "suspended: %s", q->s.suspended);
                if (q->bot)
                    q->bot->enlisted = false, q->bot = NULL;
            }
        }
    d->used = false;
}

/* Row `h` of table k's seat s, with its comparisons (the same hand at the
 * other tables) and its table mates. */
static void seat_row(const ldeal *d, int k, int s, ddz_store_ladder_hist *h)
{
    const ddz_ladder *l = d->lad;
    const ddz_deal_plan *p = &d->plan;
    memset(h, 0, sizeof *h);
    const part *q = &l->p[p->who[k][s]];
    snprintf(h->name, sizeof h->name, "%s", q->s.name);
    h->mu = q->r.mu, h->sigma = q->r.sigma;
    h->score = d->tab[k].score[s];
    h->faults = d->tab[k].faulted[s];
    h->deal = d->tab[0].id;
    h->hand = s;
    h->games[0] = d->tab[k].id;
    snprintf(h->opp[0], sizeof h->opp[0], "%s", l->p[p->who[k][(s + 1) % 3]].s.name);
    snprintf(h->opp[1], sizeof h->opp[1], "%s", l->p[p->who[k][(s + 2) % 3]].s.name);
    for (int o = 0; o < p->tables; o++) {
        if (o == k || p->who[o][s] == p->who[k][s])
            continue; /* itself, or a hosted AI holding the hand twice */
        ddz_store_ladder_cmp *c = &h->cmp[h->ncmp++];
        snprintf(c->name, sizeof c->name, "%s", l->p[p->who[o][s]].s.name);
        c->score = d->tab[o].score[s];
        c->game = d->tab[o].id;
    }
}

/* The deal is played at every table: rate it, store it, remember it. */
static void rate_deal(ldeal *d)
{
    ddz_ladder *l = d->lad;
    const ddz_deal_plan *p = &d->plan;
    if (l->net) {
        /* rated where every node's deals are: in the database, in one
         * transaction with the result (ladder_net.h) */
        ddz_ladder_net_result res = {.deal = d->net, .tables = p->tables};
        for (int k = 0; k < p->tables; k++) {
            res.games[k] = d->tab[k].id;
            for (int s = 0; s < 3; s++) {
                snprintf(res.names[k][s], sizeof res.names[k][s], "%s", l->p[p->who[k][s]].s.name);
                res.score[k][s] = d->tab[k].score[s];
                res.faults[k][s] = d->tab[k].faulted[s];
            }
        }
        /* recorded only once queued: otherwise free_deal() drops the
         * deal, so that it does not stay assigned (its players busy on
         * every node) */
        if (ddz_ladder_net_done(l->net, &res) < 0)
            ddz_host_log(l->h, "error", NULL, "ladder: out of memory: deal %lld dropped",
                         (long long)d->net);
        else
            d->recorded = true;
        return;
    }
    ddz_rating r[DDZ_SCHEDULE_MAX];
    double score[DDZ_DEAL_TABLES][3];
    for (int i = 0; i < l->n; i++)
        r[i] = l->p[i].r;
    for (int k = 0; k < p->tables; k++)
        for (int s = 0; s < 3; s++)
            score[k][s] = d->tab[k].score[s];
    if (ddz_deal_rate(&l->rc, p, r, l->n, score) < 0) {
        ddz_host_log(l->h, "error", NULL, "ladder: a deal could not be rated");
        return;
    }
    ddz_store_ladder_deal *sd = calloc(1, sizeof *sd);
    if (!sd) {
        ddz_host_log(l->h, "error", NULL, "ladder: out of memory: a deal not stored");
        return;
    }
    bool seen[DDZ_SCHEDULE_MAX] = {0};
    for (int k = 0; k < p->tables; k++)
        for (int s = 0; s < 3; s++) {
            int i = p->who[k][s];
            part *q = &l->p[i];
            q->r = r[i];
            q->s.mu = r[i].mu, q->s.sigma = r[i].sigma;
            q->s.deals++;
            q->s.score = ddz_score_add(q->s.score, d->tab[k].score[s]);
            seen[i] = true;
        }
    for (int i = 0; i < l->n; i++)
        if (seen[i])
            sd->p[sd->nplayers++] = l->p[i].s;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    l->deals++;
    for (int k = 0; k < p->tables; k++)
        for (int s = 0; s < 3; s++) {
            ddz_store_ladder_hist *h = &sd->rows[sd->nrows++];
            seat_row(d, k, s, h);
            h->id = ++l->hist_rows;
            h->finished_ms = now;
            hist_push(&l->p[p->who[k][s]], h);
        }
    if (ddz_store_ladder_add_deal(ddz_host_store(l->h), l->rules->name, sd) < 0)
        ddz_host_log(l->h, "error", NULL, "ladder: cannot store a deal");
    else
        l->ticket = ddz_store_ticket(ddz_host_store(l->h));
    free(sd);
}

/* Goes on with deal `d`: closes the tables whose game ended (once their
 * runner is idle) and, when every table has, rates the deal. */
static void step_deal(ldeal *d)
{
    int done = 0;
    for (int k = 0; k < d->plan.tables; k++) {
        ltab *t = &d->tab[k];
        if (t->pending && ddz_runner_idle(t->run)) {
            t->pending = false;
            t->done = true;
            end_room(t);
        }
        done += t->done;
    }
    if (done < d->plan.tables)
        return;
    rate_deal(d);
    d->rated = true;
    free_deal(d);
}

static void on_over(void *ctx, const ddz_record *rec)
{
    ltab *t = ctx;
    ddz_ladder *l = t->d->lad;
    t->id = t->room ? ddz_host_table_over(t->room, rec) : 0;
    unsigned faulted = 0;
    int kind[3] = {0};
    for (int i = 0; i < rec->nfaults; i++)
        faulted |= 1u << (rec->faults[i].seat % 3),
            kind[rec->faults[i].seat % 3] = rec->faults[i].kind;
    if (rec->fault_seat >= 0)
        faulted |= 1u << (rec->fault_seat % 3), kind[rec->fault_seat % 3] = rec->fault_kind;
    for (int s = 0; s < 3; s++) {
        part *q = at(t, s);
        bool f = faulted >> s & 1;
        t->score[s] = rec->scores[s];
        t->faulted[s] = f;
        q->s.games++;
        q->s.faults += f;
        if (f)
            q->last_fault = kind[s];
        if (!t->absent[s]) {
            recent_push(q, f);
            check_suspension(l, q);
        }
    }
    t->pending = true;
    kick(l);
}

static void on_event(void *ctx, const ddz_ev *ev)
{
    ltab *t = ctx;
    if (t->room)
        ddz_host_table_event(t->room, ev);
}

static void on_log(void *ctx, int player, bool warn, const char *msg)
{
    ltab *t = ctx;
    const char *who = player >= 0 && player < 3 ? at(t, player)->s.name : "";
    ddz_host_log(t->d->lad->h, warn ? "warn" : "info", t->room ? ddz_host_table_id(t->room) : NULL,
                 "ladder %s: %s", who, msg);
}

/* Starts deal `plan` (participant indices; `net`: its id on several
 * nodes, else 0). Returns 0, or -1 (a budget is spent: try later; or it
 * could not start: logged). */
static int start_deal(ddz_ladder *l, const ddz_deal_plan *plan, int64_t net)
{
    ldeal *d = NULL;
    for (int k = 0; k < l->ndeals && !d; k++)
        if (!l->d[k].used)
            d = &l->d[k];
    if (!d || l->tables_used + plan->tables > l->ntables)
        return -1;
    int engines = 0, ais = 0;
    for (int k = 0; k < plan->tables; k++)
        for (int s = 0; s < 3; s++) {
            engines += l->p[plan->who[k][s]].kind == K_ENGINE;
            ais += l->p[plan->who[k][s]].kind == K_AI;
        }
    if (ddz_host_reserve(l->h, engines, ais) < 0)
        return -1; /* a budget is spent: the deal waits */
    memset(d, 0, sizeof *d);
    d->lad = l;
    d->plan = *plan;
    d->used = true;
    d->net = net;
    d->number = ++l->numbered;
    d->engines = engines;
    l->tables_used += plan->tables;
    randombytes_buf(d->master, sizeof d->master);
    for (int k = 0; k < plan->tables; k++)
        for (int s = 0; s < 3; s++) {
            part *q = &l->p[plan->who[k][s]];
            if (q->kind == K_AI)
                q->seats++;
            else
                q->deal = (int)(d - l->d);
        }
    for (int k = 0; k < plan->tables; k++) {
        ltab *t = &d->tab[k];
        t->d = d;
        t->index = k;
        ddz_runner_cb cb = {.ctx = t, .event = on_event, .over = on_over, .log = on_log};
        if (!(t->run = ddz_runner_create(ddz_host_loop(l->h), &cb)) || start_game(t) < 0) {
            free_deal(d);
            return -1;
        }
    }
    return 0;
}

/* Whether a program is connected at some node (several nodes: the
 * cluster's latest round) and, into *playing, whether it plays there. */
static bool connected_anywhere(const ddz_ladder *l, const part *q, bool *playing)
{
    bool here = connected_here(q);
    *playing = q->kind == K_AI ? q->seats > 0 : q->deal >= 0;
    if (l->net && q->kind == K_BOT && !here) {
        bool there = false;
        here = ddz_ladder_net_where(l->net, q->s.name, &there, NULL, 0);
        *playing |= there;
    }
    return here;
}

static void kick_cb(ddz_timer *tm);

/* The one-node side of the scheduler (deal_sched.h): this node's
 * participants in memory, a deal started here. */
typedef struct local_side {
    ddz_ladder *l;
    bool unsettled; /* a bot sat out, not yet told its last game's end */
} local_side;

static int local_gather(void *ctx, ddz_deal_cand *c, int max, int *max_tables, bool *ais_alone)
{
    local_side *ls = ctx;
    ddz_ladder *l = ls->l;
    bool programs = false;
    int n = l->n < max ? l->n : max;
    for (int i = 0; i < n; i++) {
        const part *q = &l->p[i];
        /* a bot not yet told its last game's end (it waits to be
         * durable: conn.h) sits this deal out for a moment: its `turn`
         * would wait behind it while the clock ran */
        bool here = connected_here(q); /* a bot that has gone has no conn */
        bool settled = !here || q->kind != K_BOT || ddz_host_settled(q->bot);
        bool live = here && !q->s.suspended[0] && settled;
        ls->unsettled |= !settled;
        c[i] = (ddz_deal_cand){.mu = q->r.mu,
                               .deals = q->s.deals,
                               .available = live && (q->kind == K_AI || q->deal < 0),
                               .ai = q->kind == K_AI};
        programs |= live && is_program(q);
    }
    *max_tables = l->ntables - l->tables_used;
    /* hosted AIs play alone only while no program is here to play */
    *ais_alone = !programs;
    return n;
}

static int local_assign(void *ctx, const ddz_deal_plan *plan, ddz_deal_cand *c)
{
    local_side *ls = ctx;
    if (start_deal(ls->l, plan, 0) < 0)
        return 1; /* a budget is spent, or it could not start (logged) */
    /* a hosted AI may take seats of another deal at once */
    for (int k = 0; k < plan->tables; k++)
        for (int s = 0; s < 3; s++)
            if (!c[plan->who[k][s]].ai)
                c[plan->who[k][s]].available = false;
    return 0;
}

static void schedule(ddz_ladder *l)
{
    if (l->net)
        return; /* the leader node schedules (ladder_net.h) */
    local_side ls = {.l = l};
    ddz_deal_side side = {.ctx = &ls, .gather = local_gather, .assign = local_assign};
    ddz_deal_sched_round(&side);
    if (ls.unsettled)
        ddz_loop_arm(ddz_host_loop(l->h), &l->kick, kick_cb, DDZ_SETTLE_POLL_US);
}

static void kick_cb(ddz_timer *tm)
{
    ddz_ladder *l = (ddz_ladder *)((char *)tm - offsetof(ddz_ladder, kick));
    bool waiting = false;
    if (l->net)
        net_round(l);
    for (int k = 0; k < l->ndeals; k++)
        if (l->d[k].used) {
            step_deal(&l->d[k]);
            for (int t = 0; l->d[k].used && t < l->d[k].plan.tables; t++)
                waiting |= l->d[k].tab[t].pending;
        }
    schedule(l);
    if (waiting) /* an engine still acknowledging the end */
        ddz_loop_arm(ddz_host_loop(l->h), &l->kick, kick_cb, 10000);
}

static void kick(ddz_ladder *l)
{
    ddz_loop_arm(ddz_host_loop(l->h), &l->kick, kick_cb, 0);
}

/* ---- several nodes (ladder_net.h) ---- */

/* Plays deal m->deal here, or gives it back (dropped). */
static void net_play(ddz_ladder *l, const ddz_ladder_net_msg *m)
{
    ddz_deal_plan plan = {.tables = m->tables};
    const char *why = m->tables < 2 || m->tables > DDZ_DEAL_TABLES ? "a bad plan" : NULL;
    for (int k = 0; k < m->tables && !why; k++)
        for (int s = 0; s < 3 && !why; s++) {
            int i = find(l, m->names[k][s]);
            if (i < 0)
                i = add(l, m->names[k][s]);
            if (i < 0)
                why = "more participants than --ladder-max";
            else if (l->p[i].kind != K_AI && l->p[i].deal >= 0)
                why = "a program is at a deal here already";
            else if (l->p[i].kind != K_BOT && !l->p[i].configured)
                why = "a fixed participant this node is not given (--ladder-ai, --ladder-engine)";
            else if (l->p[i].kind == K_BOT && !connected_here(&l->p[i]))
                why = "its bot left this node"; /* not charged: as one node, not seated when gone */
            else
                plan.who[k][s] = i;
            /* a program twice in one plan would be at two tables at once */
            for (int o = 0; o < k * 3 + s && !why; o++)
                if (l->p[i].kind != K_AI && plan.who[o / 3][o % 3] == i)
                    why = "a program twice in one deal";
        }
    if (!why && start_deal(l, &plan, m->deal) < 0)
        why = "no free table or budget";
    if (why) {
        ddz_host_log(l->h, "warn", NULL, "ladder: deal %lld not played here: %s",
                     (long long)m->deal, why);
        ddz_ladder_net_drop(l->net, m->deal);
    }
}

static void net_standing(ddz_ladder *l, const ddz_store_ladder_player *sp)
{
    int i = find(l, sp->name);
    if (i < 0 && (i = add(l, sp->name)) < 0)
        return;
    part *q = &l->p[i];
    bool lifted = q->s.suspended[0] && !sp->suspended[0];
    q->s = *sp;
    q->r = (ddz_rating){.mu = sp->mu, .sigma = sp->sigma};
    if (!(q->r.sigma > 0))
        q->r = ddz_rating_new(&l->rc);
    if (lifted)
        q->nrecent = q->recent_at = 0;
}

/* The leader gathers the ladder's bots on one node (ladder_net.h): bot
 * m->names[0][0], if it is connected here and idle, is sent `redirect` to
 * that node; ddz bridge reconnects there and enlists again. A client that
 * does not follow stays and plays here. */
static void net_move(ddz_ladder *l, const ddz_ladder_net_msg *m)
{
    int i = find(l, m->names[0][0]);
    part *q = i >= 0 ? &l->p[i] : NULL;
    if (!q || q->kind != K_BOT || !connected_here(q) || q->deal >= 0)
        return;
    if (ddz_host_cfg(l->h)->public_url && strcmp(m->url, ddz_host_cfg(l->h)->public_url) == 0) {
        /* two nodes given one --public-url: the bot would be sent where it is */
        ddz_host_log(l->h, "warn", NULL, "ladder: %s not sent to node %s: its public URL is ours",
                     q->s.name, m->home);
        return;
    }
    ddz_event e = {.type = DDZ_EVENT_REDIRECT, .redirect = {.about = DDZ_REQ_ENLIST}};
    snprintf(e.redirect.url, sizeof e.redirect.url, "%s", m->url);
    snprintf(e.redirect.reason, sizeof e.redirect.reason, "the ladder gathers its bots on node %s",
             m->home);
    ddz_host_send(q->bot, ddz_event_print(&e));
    ddz_host_log(l->h, "info", NULL, "ladder: %s sent to node %s, where the ladder's bots are",
                 q->s.name, m->home);
}

/* A history row of any node's: kept for /api/ladder/NAME; the deals are
 * counted as their rows come (a deal's rows are consecutive). */
static void net_hist(ddz_ladder *l, const ddz_store_ladder_hist *h)
{
    int i = find(l, h->name);
    if (i < 0)
        i = add(l, h->name);
    if (i >= 0)
        hist_push(&l->p[i], h);
    l->hist_rows++;
    if (h->deal ? h->deal != l->last_deal : l->hist_rows % 3 == 0) /* old rows: three a deal */
        l->deals++;
    l->last_deal = h->deal;
}

/* Publishes the bots connected here and takes what the cluster says. */
static void net_round(ddz_ladder *l)
{
    const char *names[DDZ_SCHEDULE_MAX];
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (l->p[i].kind == K_BOT && connected_here(&l->p[i]) && !l->p[i].s.suspended[0])
            names[n++] = l->p[i].s.name;
    ddz_ladder_net_present(l->net, names, n);
    ddz_ladder_net_msg *m;
    while ((m = ddz_ladder_net_next(l->net))) {
        if (m->kind == DDZ_LADDER_NET_PLAY)
            net_play(l, m);
        else if (m->kind == DDZ_LADDER_NET_STANDING)
            net_standing(l, &m->standing);
        else if (m->kind == DDZ_LADDER_NET_MOVE)
            net_move(l, m);
        else if (m->kind == DDZ_LADDER_NET_HIST)
            net_hist(l, &m->hist);
        else
            ddz_host_log(l->h, "warn", NULL, "%s", m->note);
        free(m);
    }
}

/* Several nodes: the cluster side has news: look at once. */
static void ladder_wake(lplug *lp)
{
    if (lp->l)
        kick(lp->l);
}

static void tick_cb(ddz_timer *tm)
{
    ddz_ladder *l = (ddz_ladder *)((char *)tm - offsetof(ddz_ladder, tick));
    kick(l);
    ddz_loop_arm(ddz_host_loop(l->h), &l->tick, tick_cb, TICK_US);
}

/* ---- start ---- */

static void load_player(void *ctx, const ddz_store_ladder_player *sp)
{
    ddz_ladder *l = ctx;
    int i = find(l, sp->name);
    if (i < 0 && (i = add(l, sp->name)) < 0)
        return; /* past --ladder-max: not loaded */
    part *q = &l->p[i];
    q->s = *sp;
    if (q->configured)
        q->s.suspended[0] = '\0'; /* the operator started the server again */
    q->r = (ddz_rating){.mu = sp->mu, .sigma = sp->sigma};
    if (!(q->r.sigma > 0))
        q->r = ddz_rating_new(&l->rc);
}

typedef struct hist_load {
    part *q;
    ddz_store_ladder_hist h[DDZ_LADDER_HISTORY];
    int n;
} hist_load;

static void load_hist(void *ctx, const ddz_store_ladder_hist *h)
{
    hist_load *hl = ctx;
    if (hl->n < DDZ_LADDER_HISTORY)
        hl->h[hl->n++] = *h;
}

/* Adds the fixed participant `spec` ("engine:NAME" or "ai:NAME[:MS]"). */
static int add_fixed(ddz_ladder *l, const char *spec, char *err, size_t errlen)
{
    char name[DDZ_LADDER_NAME_MAX];
    snprintf(name, sizeof name, "%s", spec);
    int i = find(l, name);
    if (i < 0 && (i = add(l, name)) < 0) {
        snprintf(err, errlen, "ladder: more participants than --ladder-max");
        return -1;
    }
    part *q = &l->p[i];
    q->configured = true;
    q->s.suspended[0] = '\0'; /* the operator started the server again */
    if (q->kind == K_AI) {
        const char *ai = spec + 3, *colon = strchr(ai, ':');
        snprintf(q->spec, sizeof q->spec, "ai:%.*s", colon ? (int)(colon - ai) : (int)strlen(ai),
                 ai);
        q->budget_ms = colon ? atoi(colon + 1) : 0;
        if (!ddz_ai_exists(q->spec + 3) || (colon && q->budget_ms <= 0)) {
            snprintf(err, errlen, "ladder: --ladder-ai %s: no such hosted AI (NAME[:MS])", ai);
            return -1;
        }
    } else {
        snprintf(q->spec, sizeof q->spec, "%s", spec);
        bool known = false;
        for (int e = 0; e < ddz_host_cfg(l->h)->nengines && !known; e++)
            known = strcmp(ddz_host_cfg(l->h)->engine_name[e], spec + 7) == 0;
        if (!known) {
            snprintf(err, errlen, "ladder: --ladder-engine %s: no --engine %s=COMMAND", spec + 7,
                     spec + 7);
            return -1;
        }
    }
    return 0;
}

static void ladder_free(ddz_ladder *l)
{
    if (!l)
        return;
    ddz_loop_disarm(ddz_host_loop(l->h), &l->kick);
    ddz_loop_disarm(ddz_host_loop(l->h), &l->tick);
    for (int k = 0; l->d && k < l->ndeals; k++)
        if (l->d[k].used)
            free_deal(&l->d[k]);
    for (int i = 0; i < l->n; i++)
        if (l->p[i].bot)
            l->p[i].bot->enlisted = false;
    free(l->d);
    free(l->p);
    free(l);
}

/* Starts the ladder of the host's configuration (after the loop, the
 * think pool and the store exist): loads the standings, histories and
 * pair counts of its rule set. Returns 0, or -1 with a one-line reason in
 * `err` (an unknown rule set, engine or AI, the database). */
static int ladder_start(lplug *lp, char *err, size_t errlen)
{
    ddz_host *srv = lp->h;
    const ddz_server_cfg *cfg = ddz_host_cfg(srv);
    ddz_ladder *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    l->h = srv;
    l->rules = ddz_rules_find(cfg->ladder_rules ? cfg->ladder_rules : "caai");
    if (!l->rules) {
        snprintf(err, errlen, "ladder: --ladder-rules %s: no such rule set", cfg->ladder_rules);
        free(l);
        return -1;
    }
    ddz_rating_cfg_default(&l->rc);
    l->time_ms = (cfg->ladder_time_s > 0 ? cfg->ladder_time_s : DDZ_LADDER_DEFAULT_TIME) * 1000;
    l->max = cfg->ladder_max > 0 ? cfg->ladder_max : DDZ_LADDER_DEFAULT_MAX;
    if (l->max > DDZ_SCHEDULE_MAX)
        l->max = DDZ_SCHEDULE_MAX;
    l->ntables = cfg->ladder_tables > 0 ? cfg->ladder_tables : DDZ_LADDER_DEFAULT_TABLES;
    if (l->ntables < 2) {
        snprintf(err, errlen,
                 "ladder: --ladder-tables must be 2 or more (a deal is played at two "
                 "tables at least)");
        free(l);
        return -1;
    }
    l->ndeals = l->ntables / 2;
    l->p = calloc((size_t)l->max, sizeof *l->p);
    l->d = calloc((size_t)l->ndeals, sizeof *l->d);
    if (!l->p || !l->d) {
        snprintf(err, errlen, "out of memory");
        ladder_free(l);
        return -1;
    }
    /* the operator's participants first: they always fit */
    for (int i = 0; i < cfg->nladder_engines; i++) {
        char spec[DDZ_LADDER_NAME_MAX];
        snprintf(spec, sizeof spec, "engine:%s", cfg->ladder_engine[i]);
        if (add_fixed(l, spec, err, errlen) < 0) {
            ladder_free(l);
            return -1;
        }
    }
    for (int i = 0; i < cfg->nladder_ais; i++) {
        char spec[DDZ_LADDER_NAME_MAX];
        snprintf(spec, sizeof spec, "ai:%s", cfg->ladder_ai[i]);
        if (add_fixed(l, spec, err, errlen) < 0) {
            ladder_free(l);
            return -1;
        }
    }
    l->net = lp->net;
    /* then what the database knows (standings; fixed ones keep theirs);
     * several nodes: the cluster side reads it and tells the loop */
    if (!l->net &&
        ddz_store_ladder_players(ddz_host_store(srv), l->rules->name, load_player, l) < 0) {
        snprintf(err, errlen, "ladder: cannot read the standings from the database");
        ladder_free(l);
        return -1;
    }
    hist_load *hl = l->net ? NULL : malloc(sizeof *hl);
    for (int i = 0; hl && i < l->n; i++) {
        hl->n = 0;
        hl->q = &l->p[i];
        ddz_store_ladder_history(ddz_host_store(srv), l->rules->name, l->p[i].s.name,
                                 DDZ_LADDER_HISTORY, load_hist, hl);
        for (int k = hl->n - 1; k >= 0; k--) /* oldest first into the ring */
            hist_push(&l->p[i], &hl->h[k]);
        for (int k = 0; k < hl->n; k++)
            if (hl->h[k].id > l->hist_rows)
                l->hist_rows = hl->h[k].id;
    }
    free(hl);
    lp->l = l;
    ddz_host_log(srv, "info", NULL,
                 "ladder: rules %s, %d participant%s known, %d tables at once, %d s per action",
                 l->rules->name, l->n, l->n == 1 ? "" : "s", l->ntables, l->time_ms / 1000);
    ddz_loop_arm(ddz_host_loop(srv), &l->tick, tick_cb, 0);
    return 0;
}

/* Bot `p` asked to enlist for the ladder (`q`, for error answers): it is
 * answered `enlisted`, or an error (ENOTFOUND without a ladder, EAUTH for
 * a connection without a bot token or a name the ladder cannot take,
 * EBUSY when --ladder-max participants are known). */
static void ladder_enlist(void *self, ddz_player *p, const ddz_req *q)
{
    ddz_ladder *l = ((lplug *)self)->l;
    if (!l) {
        ddz_host_error(p, DDZ_ENOTFOUND, "no ladder is running on this server", q);
        return;
    }
    if (!p->bot) {
        ddz_host_error(p, DDZ_EAUTH, "only bots (a hello with a token) enlist", q);
        return;
    }
    if (kind_of(p->name) != K_BOT || strlen(p->name) >= DDZ_LADDER_NAME_MAX) {
        ddz_host_error(p, DDZ_EAUTH, "a ladder bot's name cannot start with ai: or engine:", q);
        return;
    }
    int i = find(l, p->name);
    if (i < 0 && (i = add(l, p->name)) < 0) {
        ddz_host_error(p, DDZ_EBUSY, "the ladder is full (--ladder-max)", q);
        return;
    }
    part *me = &l->p[i];
    me->bot = p; /* one token, one player (players.h): no other to release */
    p->enlisted = true;
    if (me->s.suspended[0]) {
        /* its author started it again: a new chance */
        ddz_host_log(l->h, "info", NULL, "ladder: %s enlisted again: suspension lifted",
                     me->s.name);
        me->s.suspended[0] = '\0';
        me->nrecent = me->recent_at = 0;
        me->tell_suspended = false;
        put(l, me);
    }
    ddz_event e = {.type = DDZ_EVENT_ENLISTED};
    snprintf(e.enlisted.competition, sizeof e.enlisted.competition, "ladder");
    snprintf(e.enlisted.player, sizeof e.enlisted.player, "%.32s", me->s.name);
    ddz_host_send(p, ddz_event_print(&e));
    /* at a table being played, where a `gone` seat holds its place: it
     * takes the seat back */
    if (me->deal >= 0) {
        ldeal *d = &l->d[me->deal];
        for (int k = 0; k < d->plan.tables; k++) {
            ltab *t = &d->tab[k];
            for (int s = 0; s < 3 && t->room && !t->pending; s++)
                if (d->plan.who[k][s] == i && ddz_host_table_reseat(t->room, s, p))
                    t->absent[s] = false;
        }
    }
    kick(l);
}

/* The host frees player `p`: forget it. */
static void ladder_forget(void *self, ddz_player *p)
{
    ddz_ladder *l = ((lplug *)self)->l;
    for (int i = 0; l && i < l->n; i++)
        if (l->p[i].bot == p)
            l->p[i].bot = NULL;
}

/* ---- the API ---- */

static json_t *player_json(const ddz_ladder *l, const part *q)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(q->s.name));
    json_object_set_new(o, "kind",
                        json_string(q->kind == K_BOT      ? "bot"
                                    : q->kind == K_ENGINE ? "engine"
                                                          : "ai"));
    json_object_set_new(o, "rating", json_real(q->r.mu));
    json_object_set_new(o, "uncertainty", json_real(q->r.sigma));
    json_object_set_new(o, "games", json_integer(q->s.games));
    json_object_set_new(o, "deals", json_integer(q->s.deals));
    json_object_set_new(o, "score_per_deal",
                        json_real(q->s.deals ? q->s.score / (double)q->s.deals : 0.0));
    json_object_set_new(o, "faults", json_integer(q->s.faults));
    bool playing = false;
    json_object_set_new(o, "connected", json_boolean(connected_anywhere(l, q, &playing)));
    json_object_set_new(o, "playing", json_boolean(playing));
    json_object_set_new(o, "suspended",
                        q->s.suspended[0] ? json_string(q->s.suspended) : json_null());
    return o;
}

static const char *const hand_names[3] = {"west", "south", "east"};

/* A deal's tables being played here, into `tables`. */
static void deal_tables(const ddz_ladder *l, const ldeal *d, json_t *tables)
{
    for (int k = 0; k < d->plan.tables; k++) {
        const ltab *t = &d->tab[k];
        json_t *e = json_object(), *who = json_array();
        for (int s = 0; s < 3; s++)
            json_array_append_new(who, json_string(l->p[d->plan.who[k][s]].s.name));
        json_object_set_new(e, "players", who);
        json_object_set_new(e, "deal", json_integer(d->number));
        json_object_set_new(e, "table", json_integer(k + 1));
        json_object_set_new(e, "tables", json_integer(d->plan.tables));
        json_object_set_new(e, "over", json_boolean(t->pending || t->done));
        json_object_set_new(e, "room",
                            t->room && !ddz_host_table_gone(t->room)
                                ? json_string(ddz_host_table_id(t->room))
                                : json_null());
        if (l->net)
            json_object_set_new(e, "node", json_string(ddz_host_cfg(l->h)->node));
        json_array_append_new(tables, e);
    }
}

/* Several nodes: the deals the other nodes play (the cluster's latest
 * round), into `tables`; their rooms are theirs (no room id here). */
static void net_tables(const ddz_ladder *l, json_t *tables)
{
    ddz_ladder_net_live *live = calloc(16, sizeof *live);
    int n = live ? ddz_ladder_net_deals(l->net, live, 16) : 0;
    for (int i = 0; i < n; i++) {
        bool ours = false;
        for (int k = 0; k < l->ndeals && !ours; k++)
            ours = l->d[k].used && l->d[k].net == live[i].deal;
        if (ours)
            continue;
        for (int k = 0; k < live[i].tables && k < DDZ_DEAL_TABLES; k++) {
            json_t *e = json_object(), *who = json_array();
            for (int s = 0; s < 3; s++)
                json_array_append_new(who, json_string(live[i].names[k][s]));
            json_object_set_new(e, "players", who);
            json_object_set_new(e, "deal", json_null());
            json_object_set_new(e, "table", json_integer(k + 1));
            json_object_set_new(e, "tables", json_integer(live[i].tables));
            json_object_set_new(e, "over", json_false());
            json_object_set_new(e, "room", json_null());
            json_object_set_new(e, "node", json_string(live[i].node));
            json_array_append_new(tables, e);
        }
    }
    free(live);
}

/* One row of /api/ladder/NAME's history: a seat of a deal (or, from
 * before schema 5, a deal played three times at one table). */
static json_t *hist_json(const ddz_store_ladder_hist *h)
{
    json_t *e = json_object(), *games = json_array(), *mates = json_array(), *cmp = json_array();
    for (int g = 0; g < 3; g++)
        if (h->games[g] > 0)
            json_array_append_new(games, json_integer(h->games[g]));
    json_array_append_new(mates, json_string(h->opp[0]));
    json_array_append_new(mates, json_string(h->opp[1]));
    for (int c = 0; c < h->ncmp; c++)
        json_array_append_new(
            cmp, json_pack("{s:s, s:o, s:o}", "name", h->cmp[c].name, "score",
                           ddz_score_json(h->cmp[c].score), "game",
                           h->cmp[c].game > 0 ? json_integer(h->cmp[c].game) : json_null()));
    json_object_set_new(e, "at", json_integer(h->finished_ms));
    json_object_set_new(e, "rating", json_real(h->mu));
    json_object_set_new(e, "uncertainty", json_real(h->sigma));
    json_object_set_new(e, "score", ddz_score_json(h->score));
    json_object_set_new(e, "faults", json_integer(h->faults));
    json_object_set_new(e, "deal", h->deal > 0 ? json_integer(h->deal) : json_null());
    json_object_set_new(
        e, "hand", h->hand >= 0 && h->hand < 3 ? json_string(hand_names[h->hand]) : json_null());
    json_object_set_new(e, "games", games);
    json_object_set_new(e, "opponents", mates);
    json_object_set_new(e, "compared", cmp);
    return e;
}

/* GET /api/ladder's `tv`: the game of the deal published last that the
 * watch page replays (tune()), or null before the first. */
static json_t *tv_json(const ddz_ladder *l)
{
    const ltv *tv = &l->tv;
    if (tv->game <= 0)
        return json_null();
    json_t *o = json_object(), *names = json_array(), *ratings = json_array(), *unc = json_array();
    for (int s = 0; s < 3; s++) {
        json_array_append_new(names, json_string(tv->names[s]));
        json_array_append_new(ratings, json_real(tv->rating[s]));
        json_array_append_new(unc, json_real(tv->uncertainty[s]));
    }
    json_object_set_new(o, "game", json_integer(tv->game));
    json_object_set_new(o, "deal", json_integer(tv->deal));
    json_object_set_new(o, "table", json_integer(tv->table));
    json_object_set_new(o, "tables", json_integer(tv->tables));
    json_object_set_new(o, "players", names);
    json_object_set_new(o, "ratings", ratings);
    json_object_set_new(o, "uncertainties", unc);
    return o;
}

static int by_rating(const void *a, const void *b)
{
    const part *x = *(const part *const *)a, *y = *(const part *const *)b;
    if (x->r.mu != y->r.mu)
        return x->r.mu > y->r.mu ? -1 : 1;
    return strcmp(x->s.name, y->s.name);
}

static char *dump(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(o);
    return s;
}

/* The store's ticket (ddz_store_ticket()) of the latest deal's standings
 * and history rows, or of the latest publication of a deal's games if
 * later (so that a game `tv` names is served by its id), 0 if none: the
 * ladder's pages are not served before it is durable, as a game's `over`
 * is not sent before its record is (conn.h). */
static uint64_t ladder_ticket(const lplug *lp)
{
    return lp && lp->l ? lp->l->ticket : 0;
}

/* GET /api/ladder's body (malloc'd JSON; {"running": false, ...} without
 * a ladder), or NULL when out of memory. At most --ladder-max players of
 * some 250 bytes each, the tables being played (several nodes: at every
 * node, as of the cluster's latest round, and each player's `connected`
 * and `playing` at any node), and `tv`: a game of the deal this node
 * published last (null before the first). */
static char *standings_json(lplug *lp)
{
    ddz_ladder *l = lp ? lp->l : NULL;
    json_t *o = json_object();
    json_object_set_new(o, "running", json_boolean(l != NULL));
    json_object_set_new(o, "rules", l ? json_string(l->rules->name) : json_null());
    json_t *players = json_array(), *tables = json_array();
    if (l) {
        const part **order = malloc((size_t)l->n * sizeof *order + 1);
        for (int i = 0; order && i < l->n; i++)
            order[i] = &l->p[i];
        if (order)
            qsort(order, (size_t)l->n, sizeof *order, by_rating);
        for (int i = 0; order && i < l->n; i++) {
            json_t *pj = player_json(l, order[i]);
            json_object_set_new(pj, "rank", json_integer(i + 1));
            json_array_append_new(players, pj);
        }
        free(order);
        for (int k = 0; k < l->ndeals; k++)
            if (l->d[k].used)
                deal_tables(l, &l->d[k], tables);
        if (l->net)
            net_tables(l, tables);
        json_object_set_new(o, "deals", json_integer(l->deals));
        json_object_set_new(o, "max_players", json_integer(l->max));
        json_object_set_new(o, "tv", tv_json(l));
        ddz_lead_job j;
        if (l->net && ddz_host_lead_state(lp->h, lp->job, &j)) {
            /* several nodes: this one, and the one that schedules */
            json_object_set_new(o, "node", json_string(ddz_host_cfg(lp->h)->node));
            json_object_set_new(o, "scheduler",
                                j.holder_known ? json_string(j.holder) : json_null());
        }
    }
    json_object_set_new(o, "players", players);
    json_object_set_new(o, "tables", tables);
    return dump(o);
}

/* GET /api/ladder/NAME's body for the participant `name` (URL decoded),
 * or NULL if there is none (or out of memory). At most the latest
 * DDZ_LADDER_HISTORY seats it held, each with its hand, game, table mates
 * and the same hand's holders elsewhere: under 100 KB. */
static char *participant_json(lplug *lp, const char *name)
{
    ddz_ladder *l = lp ? lp->l : NULL;
    int i = l ? find(l, name) : -1;
    if (i < 0)
        return NULL;
    const part *q = &l->p[i];
    json_t *o = player_json(l, q);
    json_object_set_new(o, "rules", json_string(l->rules->name));
    json_object_set_new(o, "history_max", json_integer(DDZ_LADDER_HISTORY));
    json_t *hist = json_array();
    for (int k = 0; k < q->nhist; k++) { /* oldest first */
        const ddz_store_ladder_hist *h =
            &q->hist[(q->hist_at - q->nhist + k + DDZ_LADDER_HISTORY) % DDZ_LADDER_HISTORY];
        json_array_append_new(hist, hist_json(h));
    }
    json_object_set_new(o, "history", hist);
    return dump(o);
}

/* GET /api/ladder: the standings, 200 with or without a ladder (the
 * lobby asks on every server, and a browser logs every 404 as an error). */
static void standings_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    lplug *lp = ddz_host_plugin_self(srv, "ladder");
    req->body = standings_json(lp);
    req->hold = ladder_ticket(lp);
}

/* GET /api/ladder/NAME (NAME URL-encoded): one participant's page, 404
 * for a name the ladder does not know. */
static void participant_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    char name[256];
    static const char prefix[] = "/api/ladder/";
    lplug *lp = ddz_host_plugin_self(srv, "ladder");
    req->body = ddz__http_url_decode(path + sizeof prefix - 1, name, sizeof name) == 0
                    ? participant_json(lp, name)
                    : NULL;
    req->hold = ladder_ticket(lp);
    if (!req->body)
        ddz__http_not_found(req);
}

/* Ends the ladder's tables (the games being played were recorded as
 * aborted by the host first; a deal cut short is not rated) and frees it.
 * Nothing without one. */
static void ladder_stop(void *self)
{
    lplug *lp = self;
    ddz_ladder *l = lp->l;
    lp->l = NULL;
    ladder_free(l);
}

/* ---- several nodes: the cluster side ---- */

/* The lead thread's work (host.h): the ladder's round, as leader or not. */
static void lead_work(void *self, PGconn *pg, const ddz_lead_job *jobs, int njobs)
{
    lplug *lp = self;
    if (lp->net && lp->job >= 0 && lp->job < njobs)
        ddz_ladder_net_work(lp->net, pg, jobs[lp->job].held);
}

/* The cluster side woke: the host's loop looks (ladder_poll()). */
static void net_wake(void *ctx)
{
    ddz_host_wake(ctx);
}

/* Makes the cluster side of the ladder `cfg` configures and asks for the
 * lock of its scheduling. Returns 0, or -1 with a reason in `err`. */
static int net_create(lplug *lp, char *err, size_t errlen)
{
    const ddz_server_cfg *cfg = ddz_host_cfg(lp->h);
    const char *rules = cfg->ladder_rules ? cfg->ladder_rules : "caai";
    char job[DDZ_LEAD_JOB_MAX];
    snprintf(job, sizeof job, "ladder:%.80s", rules);
    int rc = ddz_host_lead_want(lp->h, job);
    if (rc < 0) {
        snprintf(err, errlen, "ladder: %s", ddz_strerror(rc));
        return -1;
    }
    lp->job = rc;
    if (!ddz_host_clustered(lp->h))
        return 0; /* a cluster of one: the ladder is all here, no cluster side */
    ddz_ladder_net_cfg lc = {.rules = rules,
                             .node = cfg->node,
                             .tables = cfg->ladder_tables > 0 ? cfg->ladder_tables
                                                              : DDZ_LADDER_DEFAULT_TABLES,
                             .wake = net_wake,
                             .ctx = lp->h,
                             .db_timeout_ms = cfg->db_timeout_ms,
                             .stop = ddz_host_pg_stop(lp->h)};
    ddz_rating_cfg_default(&lc.rc);
    static char fixed[DDZ_LADDER_NET_FIXED][DDZ_LADDER_NAME_MAX];
    for (int i = 0; i < cfg->nladder_engines && lc.nfixed < DDZ_LADDER_NET_FIXED; i++) {
        snprintf(fixed[lc.nfixed], sizeof fixed[0], "engine:%s", cfg->ladder_engine[i]);
        lc.fixed[lc.nfixed] = fixed[lc.nfixed];
        lc.nfixed++;
    }
    for (int i = 0; i < cfg->nladder_ais && lc.nfixed < DDZ_LADDER_NET_FIXED; i++) {
        snprintf(fixed[lc.nfixed], sizeof fixed[0], "ai:%s", cfg->ladder_ai[i]);
        lc.fixed[lc.nfixed] = fixed[lc.nfixed];
        lc.nfixed++;
    }
    return (lp->net = ddz_ladder_net_create(&lc, err, errlen)) ? 0 : -1;
}

/* ---- the plug-in (host.h) ---- */

/* Whether the host's configuration has a ladder: --ladder or any ladder
 * option. */
static bool configured(const ddz_server_cfg *cfg)
{
    return cfg->ladder || cfg->ladder_rules || cfg->nladder_engines || cfg->nladder_ais;
}

static void *ladder_create(ddz_host *h, char *err, size_t errlen)
{
    lplug *lp = calloc(1, sizeof *lp);
    if (!lp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    lp->h = h;
    lp->job = -1;
    /* whether a ladder runs or not (without one they say so) */
    int rc = ddz_host_route_add(h, "/api/ladder", false, standings_get);
    if (rc == 0)
        rc = ddz_host_route_add(h, "/api/ladder/", true, participant_get);
    if (rc < 0) {
        snprintf(err, errlen, "%s", ddz_strerror(rc));
        free(lp);
        return NULL;
    }
    if (configured(ddz_host_cfg(h)) && net_create(lp, err, errlen) < 0) {
        free(lp);
        return NULL;
    }
    return lp;
}

static int ladder_plug_start(void *self, char *err, size_t errlen)
{
    lplug *lp = self;
    return configured(ddz_host_cfg(lp->h)) ? ladder_start(lp, err, errlen) : 0;
}

static bool ladder_takes_default(void *self)
{
    return ((lplug *)self)->l != NULL;
}

static void ladder_poll(void *self)
{
    lplug *lp = self;
    if (lp->net) /* the cluster side has news */
        ladder_wake(lp);
}

/* After the host's lead thread stopped (its last round wrote the ladder's
 * last results): the cluster side goes. */
static void ladder_destroy(void *self)
{
    lplug *lp = self;
    ladder_stop(lp);
    ddz_ladder_net_destroy(lp->net);
    free(lp);
}

const ddz_plugin ddz_ladder_plugin = {
    .kind = "ladder",
    .create = ladder_create,
    .start = ladder_plug_start,
    .takes_default = ladder_takes_default,
    .enlist = ladder_enlist,
    .forget = ladder_forget,
    .poll = ladder_poll,
    .lead_work = lead_work,
    .stop = ladder_stop,
    .destroy = ladder_destroy,
};
