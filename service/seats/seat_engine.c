/* seat_engine.c - a CAAI 1.0 engine process in a seat.
 *
 * The CAAI session itself (which line to send for which event, matching
 * each reply to the line it answers) is service/engine/caai_seat; this
 * adapter runs it on the table's loop: it watches the engine's pipes,
 * times the acknowledgements, starts the engine for a game if it is not
 * running (one that cannot start fails the game it was dealt, spec §7), and
 * hands answers and failures to the host. The table's clock times the
 * answers to BID WHAT and PLAY WHAT, as for every other seat.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/engine/caai_seat.h"
#include "service/seats/seats.h"

typedef struct engine_seat {
    ddz_seat base;
    ddz_caai_seat *cs;
    ddz_watch *rd, *wr; /* its pipes in the loop while it runs */
    ddz_timer ack;      /* the acknowledgement deadline */
    long *running;      /* the environment's engine count, or NULL */
    ddz_spawn_budget *spawns_room, *spawns_addr, *spawns_total; /* start budgets, or NULL */
    bool counted;                                               /* this engine is in *running */
    bool illegal;     /* the host already charged its last answer */
    bool series_over; /* the last game is over: it may exit now */
    int seat;         /* the seat it holds in the current game */
    bool in_game;     /* dealt a game whose end it has not heard */
    bool left_early;  /* exited between two games of its turn */
    char label[64];   /* a name until the engine says its own */
} engine_seat;

static void count(engine_seat *e, bool up)
{
    if (e->running && e->counted != up)
        *e->running += up ? 1 : -1;
    e->counted = up;
}

static void unwatch(engine_seat *e)
{
    e->base.loop->ops->unwatch(e->rd);
    e->base.loop->ops->unwatch(e->wr);
    e->rd = e->wr = NULL;
    ddz_loop_disarm(e->base.loop, &e->ack);
    count(e, false);
}

static void on_ack_time(ddz_timer *t);

/* After anything happened to the engine: keep the loop's interest and the
 * acknowledgement timer in step with it. */
static void after(engine_seat *e)
{
    if (ddz_caai_seat_broken(e->cs)) {
        unwatch(e);
        return;
    }
    if (ddz_caai_seat_wants_write(e->cs))
        e->base.loop->ops->want_write(e->wr);
    double due = ddz_caai_seat_deadline(e->cs);
    if (due < 0)
        ddz_loop_disarm(e->base.loop, &e->ack);
    else if (!e->ack.armed)
        ddz_loop_arm(e->base.loop, &e->ack, on_ack_time,
                     (int64_t)((due - ddz_caai_seat_now()) * 1e6) + 1000);
}

static void on_ack_time(ddz_timer *t)
{
    engine_seat *e = (engine_seat *)((char *)t - offsetof(engine_seat, ack));
    ddz_caai_seat_check_time(e->cs, ddz_caai_seat_now());
    after(e);
}

static void on_io(void *ctx, bool writable)
{
    engine_seat *e = ctx;
    if (writable)
        ddz_caai_seat_on_writable(e->cs);
    else
        ddz_caai_seat_on_readable(e->cs);
    after(e);
}

/* Starts the engine. Its start is charged to the spawn budgets but never
 * waits for them: a CAAI engine starts once per game at most, and a
 * client's room with engine seats is admitted only while the server's
 * budget and its address's have a token (room_life.c), so the bound holds
 * without making a game wait for its engine (docs/operations.md, "Budgets"). Nor
 * does the loop wait for the process: engine.h. */
static int start(engine_seat *e)
{
    unwatch(e);
    ddz_spawn_budget_charge(e->spawns_room, e->spawns_addr, e->spawns_total,
                            ddz_loop_now_us(e->base.loop));
    int rc = ddz_caai_seat_start(e->cs);
    if (rc < 0)
        return rc;
    const ddz_loop_ops *l = e->base.loop->ops;
    e->rd = l->watch(e->base.loop, ddz_caai_seat_read_fd(e->cs), false, on_io, e);
    e->wr = l->watch(e->base.loop, ddz_caai_seat_write_fd(e->cs), true, on_io, e);
    if (!e->rd || !e->wr) {
        ddz_caai_seat_stop(e->cs);
        unwatch(e);
        return DDZ_EIO;
    }
    count(e, true);
    return 0;
}

/* ---- the CAAI session's callbacks ---- */

static int cs_act(void *ctx, ddz_caai_seat *cs, int kind, uint32_t seq, int bid, ddz_cards cards)
{
    engine_seat *e = ctx;
    (void)cs;
    int rc = e->base.host.act(e->base.host.ctx, &e->base, kind, seq, bid, cards);
    /* an answer that came after the game ended is late, not illegal */
    if (rc == DDZ_EPHASE)
        rc = DDZ_ESTALE;
    e->illegal = rc < 0 && rc != DDZ_ESTALE;
    return rc;
}

static void cs_fault(void *ctx, ddz_caai_seat *cs, int kind, int game, const char *why)
{
    engine_seat *e = ctx;
    (void)cs;
    count(e, false);
    if (e->illegal && kind == DDZ_FAULT_ILLEGAL) {
        e->illegal = false; /* the host charged it when it answered */
        return;
    }
    if (e->series_over && kind == DDZ_FAULT_CRASH) {
        /* spec §7: after the last game of its turn an engine may exit */
        e->base.host.note(e->base.host.ctx, &e->base, "exited after the last game");
        return;
    }
    if (!e->in_game && kind == DDZ_FAULT_CRASH) {
        /* spec §7: an engine serves its whole turn; one that leaves between
         * games is charged in the next one (whether its exit is seen before
         * or after that game is dealt) */
        e->left_early = true;
        e->base.host.note(e->base.host.ctx, &e->base,
                          "exited before its turn was over: charged in the next game");
        return;
    }
    e->base.host.fault(e->base.host.ctx, &e->base, kind, game, why);
}

static void cs_note(void *ctx, ddz_caai_seat *cs, const char *msg)
{
    engine_seat *e = ctx;
    (void)cs;
    e->base.host.note(e->base.host.ctx, &e->base, msg);
}

/* ---- the seat ---- */

static void engine_deliver(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    engine_seat *e = (engine_seat *)s;
    (void)t; /* everything comes with the events and the host */
    ddz_table_info ti = {0};
    if (ev->kind == DDZ_EV_GAME)
        s->host.info(s->host.ctx, &ti);
    ddz_caai_info info = {ti.turn, ti.turns, ti.game, ti.games, ti.up, ti.maxscore, ti.time_s};
    switch (ev->kind) {
    case DDZ_EV_GAME:
        e->series_over = false;
        e->seat = ev->seat;
        e->in_game = true;
        if (e->left_early) {
            e->left_early = false;
            s->host.fault(s->host.ctx, s, DDZ_FAULT_CRASH, ev->game,
                          "exited before its turn was over");
            return;
        }
        ddz_caai_seat_set_seat(e->cs, ev->seat);
        if (ddz_caai_seat_broken(e->cs)) {
            int rc = start(e);
            if (rc < 0) {
                char why[160];
                snprintf(why, sizeof why, "cannot start the engine: %s", ddz_strerror(rc));
                s->host.fault(s->host.ctx, s, DDZ_FAULT_CRASH, ev->game, why);
                return;
            }
        }
        break;
    case DDZ_EV_ASK_BID:
    case DDZ_EV_ASK_PLAY:
        return; /* another seat's turn: CAAI says nothing of it */
    case DDZ_EV_BID:
    case DDZ_EV_LEFTOVER:
    case DDZ_EV_PLAY:
        break;
    case DDZ_EV_OVER:
        e->in_game = false;
        if (ev->fault_seat == e->seat && ev->fault_kind == DDZ_FAULT_TIMEOUT) {
            /* it did not answer in time: an answer may still come, out of
             * step with the next game, so it starts afresh */
            ddz_caai_seat_stop(e->cs);
            after(e);
            return;
        }
        break;
    case DDZ_EV_SERIES:
        e->series_over = true;
        return;
    default:
        return;
    }
    ddz_caai_seat_event(e->cs, ev, &info);
    ddz_caai_seat_flush(e->cs);
    after(e);
}

static void engine_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    engine_seat *e = (engine_seat *)s;
    (void)t;
    ddz_caai_seat_event(e->cs, ev, NULL);
    ddz_caai_seat_flush(e->cs);
    after(e);
}

static void engine_cancel(ddz_seat *s)
{
    engine_seat *e = (engine_seat *)s;
    ddz_caai_seat_cancel(e->cs);
    after(e);
}

static bool engine_idle(const ddz_seat *s)
{
    return ddz_caai_seat_idle(((const engine_seat *)s)->cs);
}

static const char *engine_name(const ddz_seat *s)
{
    const engine_seat *e = (const engine_seat *)s;
    const char *n = ddz_caai_seat_name(e->cs);
    return n[0] ? n : e->label;
}

static bool engine_connected(const ddz_seat *s)
{
    return !ddz_caai_seat_broken(((const engine_seat *)s)->cs);
}

static void engine_close(ddz_seat *s)
{
    engine_seat *e = (engine_seat *)s;
    unwatch(e);
    ddz_caai_seat_destroy(e->cs);
    free(e);
}

static const ddz_seat_ops engine_ops = {
    .kind = "engine",
    .deliver = engine_deliver,
    .ask = engine_ask,
    .cancel = engine_cancel,
    .idle = engine_idle,
    .name = engine_name,
    .connected = engine_connected,
    .close = engine_close,
};

ddz_seat *ddz_seat_engine_create(const char *cmd, const char *label, const ddz_seat_env *env,
                                 int *err)
{
    if (!cmd || !cmd[0]) {
        *err = DDZ_EINVAL;
        return NULL;
    }
    engine_seat *e = calloc(1, sizeof *e);
    if (!e) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    e->base = (ddz_seat){.ops = &engine_ops, .loop = env->loop, .player = -1, .program = true};
    e->running = env->engines_running;
    e->spawns_room = env->spawns_room;
    e->spawns_addr = env->spawns_addr;
    e->spawns_total = env->spawns_total;
    snprintf(e->label, sizeof e->label, "%s", label);
    ddz_caai_seat_cb cb = {e, cs_act, cs_fault, cs_note};
    double time_s = env->time_ms > 0 ? env->time_ms / 1000.0 : 15;
    e->cs = ddz_caai_seat_create(cmd, env->stderr_log, time_s, &cb);
    if (!e->cs) {
        free(e);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    if (env->kill_grace_ms)
        ddz_caai_seat_set_kill_grace(e->cs, env->kill_grace_ms);
    return &e->base;
}

long ddz_seat_engine_restarts(const ddz_seat *s)
{
    return s && s->ops == &engine_ops ? ddz_caai_seat_restarts(((const engine_seat *)s)->cs) : 0;
}
