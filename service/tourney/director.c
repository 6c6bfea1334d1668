/* director.c - a tournament's tables on one event loop: up to `tables`
 * runners at once, each playing one table of the current turn. */
#include "service/tourney/director.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/deal.h"
#include "rules/error.h"
#include "service/table/runner.h"

typedef struct slot {
    struct ddz_director *d;
    ddz_runner *run;
    int table;    /* index in the current turn, -1: free */
    int next;     /* index of the table's next game */
    bool pending; /* a game ended: start the next one (or close) once idle */
    bool waiting; /* the table waits for absent players (cb.present) */
    int64_t wait_until_us;
} slot;

typedef struct stored_forfeit {
    ddz_tgame w;
    unsigned absent;
    bool applied;
} stored_forfeit;

struct ddz_director {
    ddz_director_cfg cfg;
    ddz_director_cb cb;
    ddz_loop *loop;
    ddz_tourney *t;
    int nslots;
    slot *slots;
    uint8_t master[DDZ_SEED_BYTES];     /* the current turn's */
    int queued[DDZ_TOURNEY_MAX_TABLES]; /* tables of the turn not started yet */
    int nqueued, qhead;
    int tables_done;
    bool started, stopping, in_step;
    int err;
    char errmsg[300];
    long played;
    ddz_timer tick;           /* moves on while a table waits for its seats */
    stored_forfeit *forfeits; /* handed back by ddz_director_replay_forfeit */
    int nforfeits, capforfeits;
};

static void fail(ddz_director *d, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(ddz_director *d, int rc, const char *fmt, ...)
{
    if (d->err)
        return;
    d->err = rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->errmsg, sizeof d->errmsg, fmt, ap);
    va_end(ap);
}

void ddz_director_turn_seed(const uint8_t seed[DDZ_SEED_BYTES], int stage, int turn,
                            uint8_t out[DDZ_SEED_BYTES])
{
    uint8_t msg[16] = "ddz-tourney";
    msg[11] = (uint8_t)stage;
    for (int i = 0; i < 4; i++)
        msg[12 + i] = (uint8_t)((uint32_t)turn >> (8 * i));
    crypto_generichash(out, DDZ_SEED_BYTES, msg, sizeof msg, seed, DDZ_SEED_BYTES);
}

static uint64_t ai_seed(const uint8_t game_seed[DDZ_SEED_BYTES], const char *id)
{
    crypto_generichash_state st;
    uint8_t h[16];
    crypto_generichash_init(&st, game_seed, DDZ_SEED_BYTES, sizeof h);
    crypto_generichash_update(&st, (const uint8_t *)"ddz-ai", 6);
    crypto_generichash_update(&st, (const uint8_t *)id, strlen(id));
    crypto_generichash_final(&st, h, sizeof h);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | h[i];
    return v;
}

static void where_of(const ddz_director *d, int table, int game, ddz_tgame *w)
{
    w->stage = d->t->stage;
    w->turn = d->t->turn;
    w->table = table + 1;
    w->game = game + 1;
    w->store_id = 0;
    for (int s = 0; s < 3; s++)
        w->player[s] = d->t->table[table].player[s];
}

/* Seats of `table` for game `game`: every seat at the table's start, only
 * the hosted AIs (reseeded) between games. */
static int make_seats(ddz_director *d, slot *sl, int game, bool all)
{
    uint8_t gseed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(d->master, (uint32_t)game, gseed);
    for (int p = 0; p < 3; p++) {
        ddz_seat *old = ddz_runner_seat_of(sl->run, p);
        if (!all && old && strcmp(old->ops->kind, "ai") != 0)
            continue;
        int who = d->t->table[sl->table].player[p];
        char why[300] = "";
        ddz_seat *s = d->cb.seat(d->cb.ctx, who, ai_seed(gseed, d->cfg.ids[who]), why, sizeof why);
        if (!s) {
            fail(d, DDZ_EINVAL, "player %s: %s", d->cfg.ids[who], why);
            return -1;
        }
        ddz_runner_seat(sl->run, p, s);
    }
    return 0;
}

static void start_game(ddz_director *d, slot *sl)
{
    if (make_seats(d, sl, sl->next, false) < 0)
        return;
    int rc = ddz_runner_start(sl->run);
    if (rc < 0)
        fail(d, rc, "table %d: cannot start game %d: %s", sl->table + 1, sl->next + 1,
             ddz_strerror(rc));
}

/* Seats the table's players and starts its first game (after the wait). */
static void begin_table(ddz_director *d, slot *sl)
{
    sl->waiting = false;
    if (make_seats(d, sl, sl->next, true) < 0)
        return;
    if (d->cb.table_start) {
        ddz_tgame w;
        where_of(d, sl->table, sl->next, &w);
        d->cb.table_start(d->cb.ctx, &w);
    }
    int rc = ddz_runner_start(sl->run);
    if (rc < 0)
        fail(d, rc, "table %d: cannot start: %s", sl->table + 1, ddz_strerror(rc));
}

/* Seats of the table whose players are not present (bits). */
static unsigned absent_seats(ddz_director *d, int table)
{
    unsigned m = 0;
    if (!d->cb.present)
        return 0;
    for (int p = 0; p < 3; p++) {
        int who = d->t->table[table].player[p];
        if (who >= 0 && !d->cb.present(d->cb.ctx, who))
            m |= 1u << p;
    }
    return m;
}

static void start_table(ddz_director *d, slot *sl, int table)
{
    ddz_tourney_table *tb = &d->t->table[table];
    sl->table = table;
    sl->next = tb->done;
    sl->pending = false;
    ddz_table_cfg tc = {
        .rules = d->cfg.rules,
        .deals = d->cfg.opts.games - tb->done,
        .time_ms = d->cfg.time_ms,
        .turn = d->t->turn,
        .turns =
            d->t->stage == DDZ_STAGE_FINALS ? DDZ_TOURNEY_FINALS_TURNS : d->cfg.opts.swiss_turns,
        .first_deal = (uint32_t)tb->done,
        .played = tb->done, /* engines hear "game 4 of 6", not "1 of 3" */
    };
    memcpy(tc.master, d->master, sizeof tc.master);
    for (int p = 0; p < 3; p++)
        tc.autopass[p] = 1; /* as on the CAAI platform */
    int rc = ddz_runner_series(sl->run, &tc);
    if (rc < 0) {
        fail(d, rc, "table %d: bad settings", table + 1);
        return;
    }
    unsigned absent = absent_seats(d, table);
    if (absent) {
        /* the lateness rule: the table waits for them, then they forfeit */
        sl->waiting = true;
        sl->wait_until_us = ddz_loop_now_us(d->loop) + (int64_t)d->cfg.late_ms * 1000;
        if (d->cb.log) {
            char line[300];
            int n = snprintf(line, sizeof line, "%s turn %d table %d waits up to %d s for",
                             ddz_tourney_stage_name(d->t->stage), d->t->turn, table + 1,
                             (d->cfg.late_ms + 999) / 1000);
            for (int p = 0; p < 3 && n > 0 && (size_t)n < sizeof line; p++)
                if (absent >> p & 1)
                    n += snprintf(line + n, sizeof line - (size_t)n, " %s",
                                  d->cfg.ids[tb->player[p]]);
            d->cb.log(d->cb.ctx, line);
        }
        return;
    }
    begin_table(d, sl);
}

/* The wait of a table is over (or all came): start it, or forfeit it. */
static void check_waiting(ddz_director *d, slot *sl)
{
    unsigned absent = absent_seats(d, sl->table);
    if (!absent) {
        begin_table(d, sl);
        return;
    }
    if (ddz_loop_now_us(d->loop) < sl->wait_until_us)
        return;
    ddz_tourney_table *tb = &d->t->table[sl->table];
    if (tb->done > 0) {
        /* games of it are recorded: the table cannot be forfeited; it
         * plays on, and the clock charges the absent seats */
        begin_table(d, sl);
        return;
    }
    ddz_tgame w;
    where_of(d, sl->table, 0, &w);
    w.game = 0;
    int rc = d->cb.forfeit ? d->cb.forfeit(d->cb.ctx, &w, absent) : DDZ_EINVAL;
    if (rc < 0) {
        fail(d, rc, "table %d: cannot store its forfeit: %s", sl->table + 1, ddz_strerror(rc));
        return;
    }
    rc = ddz_tourney_forfeit(d->t, sl->table, absent);
    if (rc < 0) {
        fail(d, rc, "table %d: forfeit: %s", sl->table + 1, ddz_strerror(rc));
        return;
    }
    if (d->cb.log) {
        char line[200];
        snprintf(line, sizeof line, "%s turn %d table %d: forfeited (late)",
                 ddz_tourney_stage_name(d->t->stage), d->t->turn, sl->table + 1);
        d->cb.log(d->cb.ctx, line);
    }
    sl->waiting = false;
    sl->table = -1;
    d->tables_done++;
}

static unsigned faulted_seats(const ddz_record *r)
{
    unsigned m = 0;
    for (int i = 0; i < r->nfaults; i++)
        m |= 1u << (r->faults[i].seat % 3);
    if (r->fault_seat >= 0)
        m |= 1u << (r->fault_seat % 3);
    return m;
}

static void on_over(void *ctx, const ddz_record *rec)
{
    slot *sl = ctx;
    ddz_director *d = sl->d;
    if (d->err || sl->table < 0)
        return;
    ddz_record r = *rec;
    r.game = sl->next; /* the deal's index in the turn (the series counts from 0) */
    ddz_tgame w;
    where_of(d, sl->table, sl->next, &w);
    int rc = d->cb.game_over(d->cb.ctx, &w, &r);
    if (rc < 0) {
        fail(d, rc, "cannot store game %d of table %d: %s", w.game, w.table, ddz_strerror(rc));
        return;
    }
    rc = ddz_tourney_game(d->t, sl->table, sl->next, r.scores, faulted_seats(&r));
    if (rc < 0) {
        fail(d, rc, "game %d of table %d: %s", w.game, w.table, ddz_strerror(rc));
        return;
    }
    d->played++;
    sl->next++;
    sl->pending = true;
}

static void on_event(void *ctx, const ddz_ev *ev)
{
    slot *sl = ctx;
    ddz_director *d = sl->d;
    if (!d->cb.event || sl->table < 0 || d->err)
        return;
    ddz_tgame w;
    where_of(d, sl->table, sl->next, &w);
    d->cb.event(d->cb.ctx, &w, ev);
}

static void on_log(void *ctx, int player, bool warn, const char *msg)
{
    slot *sl = ctx;
    ddz_director *d = sl->d;
    (void)warn;
    if (!d->cb.log || sl->table < 0)
        return;
    char line[800];
    int who = player >= 0 && player < 3 ? d->t->table[sl->table].player[player] : -1;
    snprintf(line, sizeof line, "%s turn %d table %d%s%s: %s", ddz_tourney_stage_name(d->t->stage),
             d->t->turn, sl->table + 1, who >= 0 ? " " : "", who >= 0 ? d->cfg.ids[who] : "", msg);
    d->cb.log(d->cb.ctx, line);
}

static void on_tick(ddz_timer *tm)
{
    ddz_director *d = (ddz_director *)((char *)tm - offsetof(ddz_director, tick));
    ddz_director_step(d);
}

ddz_director *ddz_director_create(ddz_loop *loop, const ddz_director_cfg *cfg,
                                  const ddz_director_cb *cb, int *err)
{
    *err = DDZ_EINVAL;
    if (cfg->tables < 1 || !cfg->ids || !cb->seat || !cb->game_over ||
        (cb->present && !cb->forfeit))
        return NULL;
    ddz_director *d = calloc(1, sizeof *d);
    if (!d || !(d->t = calloc(1, sizeof *d->t))) {
        free(d);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    d->cfg = *cfg;
    d->cb = *cb;
    d->loop = loop;
    int rc = ddz_tourney_init(d->t, &cfg->opts);
    if (rc < 0) {
        *err = rc;
        ddz_director_destroy(d);
        return NULL;
    }
    d->nslots = cfg->tables;
    d->slots = calloc((size_t)d->nslots, sizeof *d->slots);
    if (!d->slots) {
        *err = DDZ_ENOMEM;
        ddz_director_destroy(d);
        return NULL;
    }
    for (int i = 0; i < d->nslots; i++) {
        slot *sl = &d->slots[i];
        sl->d = d;
        sl->table = -1;
        ddz_runner_cb rcb = {.ctx = sl, .event = on_event, .over = on_over, .log = on_log};
        if (!(sl->run = ddz_runner_create(loop, &rcb))) {
            *err = DDZ_ENOMEM;
            ddz_director_destroy(d);
            return NULL;
        }
    }
    ddz_director_turn_seed(d->cfg.seed, d->t->stage, d->t->turn, d->master);
    *err = 0;
    return d;
}

/* Applies the stored forfeits of the current turn. */
static void apply_forfeits(ddz_director *d)
{
    for (int i = 0; i < d->nforfeits && !d->err && !d->t->done; i++) {
        stored_forfeit *f = &d->forfeits[i];
        if (f->applied || f->w.stage != d->t->stage || f->w.turn != d->t->turn)
            continue;
        f->applied = true;
        int k = f->w.table - 1;
        bool fits = k >= 0 && k < d->t->ntables;
        for (int s = 0; fits && s < 3; s++)
            fits = f->w.player[s] == d->t->table[k].player[s];
        int rc = fits ? ddz_tourney_forfeit(d->t, k, f->absent) : DDZ_EINVAL;
        if (rc < 0)
            fail(d, DDZ_EINVAL, "the stored forfeit of %s turn %d table %d does not fit: %s",
                 ddz_tourney_stage_name(f->w.stage), f->w.turn, f->w.table,
                 fits ? ddz_strerror(rc) : "another table by the schedule");
    }
}

/* Ends the turn if its tables are complete; then the next turn's master
 * seed. Returns true if a turn ended. */
static bool end_turn_if_complete(ddz_director *d, bool replayed)
{
    apply_forfeits(d);
    if (d->err)
        return false;
    if (!ddz_tourney_turn_complete(d->t))
        return false;
    int rc = ddz_tourney_end_turn(d->t);
    if (rc < 0) {
        fail(d, rc, "cannot end the turn: %s", ddz_strerror(rc));
        return false;
    }
    if (d->cb.turn_over)
        d->cb.turn_over(d->cb.ctx, d->t, replayed);
    ddz_director_turn_seed(d->cfg.seed, d->t->stage, d->t->turn, d->master);
    apply_forfeits(d);
    return true;
}

int ddz_director_replay_forfeit(ddz_director *d, const ddz_tgame *where, unsigned absent)
{
    if (d->started)
        return DDZ_EPHASE;
    if (d->nforfeits == d->capforfeits) {
        int cap = d->capforfeits ? 2 * d->capforfeits : 8;
        stored_forfeit *f = realloc(d->forfeits, (size_t)cap * sizeof *f);
        if (!f)
            return DDZ_ENOMEM;
        d->forfeits = f, d->capforfeits = cap;
    }
    d->forfeits[d->nforfeits++] = (stored_forfeit){.w = *where, .absent = absent & 7};
    return 0;
}

ddz_runner *ddz_director_runner(const ddz_director *d, int table)
{
    for (int i = 0; i < d->nslots; i++)
        if (d->slots[i].table == table && !d->slots[i].waiting)
            return d->slots[i].run;
    return NULL;
}

int64_t ddz_director_waiting(const ddz_director *d, int table)
{
    for (int i = 0; i < d->nslots; i++)
        if (d->slots[i].table == table && d->slots[i].waiting) {
            int64_t left = d->slots[i].wait_until_us - ddz_loop_now_us(d->loop);
            return left > 0 ? left : 0;
        }
    return -1;
}

int ddz_director_replay(ddz_director *d, const ddz_tgame *w, const ddz_record *rec, char *err,
                        size_t errlen)
{
    if (d->started) {
        snprintf(err, errlen, "the tournament has started");
        return DDZ_EPHASE;
    }
    apply_forfeits(d);
    /* a game of a later turn: the turn before must be complete */
    while (!d->t->done && (w->stage != d->t->stage || w->turn != d->t->turn) &&
           end_turn_if_complete(d, true))
        ;
    const ddz_tourney *t = d->t;
    if (t->done || w->stage != t->stage || w->turn != t->turn) {
        snprintf(err, errlen, "%s turn %d comes %s", ddz_tourney_stage_name(w->stage), w->turn,
                 t->done ? "after the last turn"
                         : "before the turn being played is complete, or out of order");
        return DDZ_EINVAL;
    }
    int k = w->table - 1, g = w->game - 1;
    if (k < 0 || k >= t->ntables) {
        snprintf(err, errlen, "table %d: the turn has %d tables", w->table, t->ntables);
        return DDZ_EINVAL;
    }
    for (int s = 0; s < 3; s++)
        if (w->player[s] != t->table[k].player[s]) {
            snprintf(err, errlen, "table %d: seat %c is %s by the schedule, not %s", w->table,
                     'A' + s, d->cfg.ids[t->table[k].player[s]],
                     w->player[s] >= 0 ? d->cfg.ids[w->player[s]] : "an unknown player");
            return DDZ_EINVAL;
        }
    if (g != t->table[k].done) {
        snprintf(err, errlen, "table %d: game %d %s", w->table, w->game,
                 g < t->table[k].done ? "was already played" : "comes before an earlier one");
        return DDZ_EINVAL;
    }
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(d->master, (uint32_t)g, seed);
    if (memcmp(seed, rec->seed, sizeof seed) != 0) {
        snprintf(err, errlen, "table %d game %d: not dealt from this tournament's seed", w->table,
                 w->game);
        return DDZ_EINVAL;
    }
    int rc = ddz_tourney_game(d->t, k, g, rec->scores, faulted_seats(rec));
    if (rc < 0) {
        snprintf(err, errlen, "table %d game %d: %s", w->table, w->game, ddz_strerror(rc));
        return rc;
    }
    return 0;
}

/* Queues the current turn's tables that still have games to play. */
static void queue_turn(ddz_director *d)
{
    d->nqueued = d->qhead = 0;
    d->tables_done = 0;
    for (int k = 0; k < d->t->ntables; k++) {
        const ddz_tourney_table *tb = &d->t->table[k];
        if (tb->absent || tb->done >= d->cfg.opts.games)
            d->tables_done++;
        else
            d->queued[d->nqueued++] = k;
    }
}

int ddz_director_start(ddz_director *d)
{
    if (d->started)
        return DDZ_EPHASE;
    d->started = true;
    apply_forfeits(d);
    while (!d->err && !d->t->done && end_turn_if_complete(d, true))
        ;
    if (!d->err && !d->t->done)
        queue_turn(d);
    ddz_director_step(d);
    return d->err;
}

static void table_ended(ddz_director *d, slot *sl)
{
    if (!d->cb.table_end)
        return;
    ddz_tgame w;
    where_of(d, sl->table, sl->next, &w);
    d->cb.table_end(d->cb.ctx, &w);
}

static bool slot_idle(const slot *sl)
{
    return ddz_runner_idle(sl->run);
}

void ddz_director_step(ddz_director *d)
{
    if (!d->started || d->in_step)
        return;
    d->in_step = true;
    bool waiting = false, lateness = false;
    for (int again = 1; again && !d->err && !d->t->done;) {
        again = 0;
        for (int i = 0; i < d->nslots && !d->err; i++) {
            slot *sl = &d->slots[i];
            if (sl->table >= 0 && sl->waiting) {
                check_waiting(d, sl);
                if (sl->waiting)
                    lateness = true;
                else
                    again = 1;
            }
            if (sl->table >= 0 && sl->pending) {
                if (!slot_idle(sl)) {
                    waiting = true;
                    continue;
                }
                sl->pending = false;
                again = 1; /* a game may end inside its start (an engine that cannot run) */
                if (sl->next < d->cfg.opts.games) {
                    start_game(d, sl);
                } else { /* the table is over: its engines stop now */
                    table_ended(d, sl);
                    for (int p = 0; p < 3; p++)
                        ddz_runner_seat(sl->run, p, NULL);
                    sl->table = -1;
                    d->tables_done++;
                }
            }
            if (sl->table < 0 && d->qhead < d->nqueued && !d->err) {
                start_table(d, sl, d->queued[d->qhead++]);
                again = 1;
            }
        }
        bool busy = false;
        for (int i = 0; i < d->nslots; i++)
            busy |= d->slots[i].table >= 0;
        if (!busy && d->qhead >= d->nqueued && !d->err) {
            if (end_turn_if_complete(d, false)) {
                if (!d->t->done)
                    queue_turn(d);
                again = 1;
            } else if (!d->t->done) {
                fail(d, DDZ_EPHASE, "turn %d: every table stopped before its games were played",
                     d->t->turn);
            }
        }
    }
    if (d->err && !d->stopping) { /* stop every table: engines end with their seats */
        d->stopping = true;
        for (int i = 0; i < d->nslots; i++) {
            if (d->slots[i].table >= 0 && !d->slots[i].waiting)
                table_ended(d, &d->slots[i]);
            d->slots[i].waiting = false;
            ddz_runner_abort(d->slots[i].run, NULL);
            for (int p = 0; p < 3; p++)
                ddz_runner_seat(d->slots[i].run, p, NULL);
            d->slots[i].table = -1;
        }
    }
    if (waiting && !d->err)
        ddz_loop_arm(d->loop, &d->tick, on_tick, 10000);
    else if (lateness && !d->err) /* presence is also told through ddz_director_step */
        ddz_loop_arm(d->loop, &d->tick, on_tick, 200000);
    else
        ddz_loop_disarm(d->loop, &d->tick);
    d->in_step = false;
}

bool ddz_director_done(const ddz_director *d)
{
    return d->err != 0 || d->t->done;
}

int ddz_director_error(const ddz_director *d, const char **msg)
{
    if (msg)
        *msg = d->errmsg;
    return d->err;
}

const ddz_tourney *ddz_director_state(const ddz_director *d)
{
    return d->t;
}

void ddz_director_progress_of(const ddz_director *d, ddz_director_progress *p)
{
    const ddz_tourney *t = d->t;
    *p = (ddz_director_progress){.stage = t->stage,
                                 .turn = t->turn,
                                 .tables_done = d->tables_done,
                                 .tables = t->ntables,
                                 .games_played = d->played};
    if (t->done)
        return;
    int games = d->cfg.opts.games;
    long left = 0;
    for (int k = 0; k < t->ntables; k++)
        if (!t->table[k].absent)
            left += games - t->table[k].done;
    /* later turns: the active field after the cuts, three to a table */
    if (t->stage == DDZ_STAGE_SWISS) {
        int active = 0;
        for (int i = 0; i < t->o.nplayers; i++)
            active += t->p[i].status == DDZ_PLAYER_ACTIVE;
        for (int turn = t->turn + 1; turn <= t->o.swiss_turns; turn++) {
            if (t->o.cut[turn - 2] > 0 && t->o.cut[turn - 2] < active)
                active = t->o.cut[turn - 2];
            left += (long)(active / 3) * games;
        }
        if (t->o.format == DDZ_TOURNEY_CAAI)
            left += 3L * DDZ_TOURNEY_FINALS_TURNS * games;
    } else {
        left += 3L * (DDZ_TOURNEY_FINALS_TURNS - t->turn) * games;
    }
    p->games_left = left;
}

void ddz_director_destroy(ddz_director *d)
{
    if (!d)
        return;
    ddz_loop_disarm(d->loop, &d->tick);
    for (int i = 0; d->slots && i < d->nslots; i++)
        ddz_runner_destroy(d->slots[i].run); /* closes the seats: engines are stopped */
    free(d->slots);
    free(d->forfeits);
    free(d->t);
    free(d);
}
