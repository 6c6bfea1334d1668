/* runner.c - the one game flow: table events to seats, answers back. */
#include "service/table/runner.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"

struct ddz_runner {
    ddz_table table;
    bool has_series;   /* ddz_runner_series was called */
    ddz_seat *seat[3]; /* by player */
    ddz_loop *loop;
    ddz_runner_cb cb;
    ddz_timer clock;   /* the table's clock: due at the open request's deadline */
    int64_t clock_due; /* what the clock is armed for (ms), -1 if not armed */
    bool pumping;      /* inside pump(): nested calls leave the events to it */
    int ask_player;    /* the player asked and not yet answered, -1 if none */
    ddz_ev ask;        /* that request */
};

static int64_t now_ms(ddz_runner *r)
{
    return ddz_loop_now_us(r->loop) / 1000;
}

static void logf_(ddz_runner *r, int player, bool warn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void logf_(ddz_runner *r, int player, bool warn, const char *fmt, ...)
{
    if (!r->cb.log)
        return;
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r->cb.log(r->cb.ctx, player, warn, buf);
}

/* Copies a name into a record's fixed field, cutting at a character
 * boundary so the result stays valid UTF-8. */
static void copy_name(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void ddz_runner_record(const ddz_runner *r, ddz_record *out)
{
    *out = *ddz_table_record(&r->table);
    for (int s = 0; s < 3; s++) {
        const ddz_seat *st = r->seat[ddz_table_player_at(&r->table, s)];
        if (st && st->ops->name(st)[0])
            copy_name(out->names[s], sizeof out->names[s], st->ops->name(st));
    }
}

/* How diagnostics name a seat: its name once known, else its kind. */
static const char *who(const ddz_seat *s)
{
    return !s ? "nobody" : s->ops->name(s)[0] ? s->ops->name(s) : s->ops->kind;
}

static void on_clock(ddz_timer *t);

/* The clock is armed once per request at most and, firing early, re-arms
 * itself for what is left: moving a timer costs a walk of lws's sorted
 * list, which at thousands of tables was most of the server's CPU. */
static void sync_clock(ddz_runner *r)
{
    int64_t due = ddz_table_deadline(&r->table);
    if (due < 0 || (r->clock_due >= 0 && r->clock_due <= due))
        return;
    r->clock_due = due;
    ddz_loop_arm(r->loop, &r->clock, on_clock, (due - now_ms(r)) * 1000);
}

static void pump(ddz_runner *r);

static void on_clock(ddz_timer *t)
{
    ddz_runner *r = (ddz_runner *)((char *)t - offsetof(ddz_runner, clock));
    r->clock_due = -1;
    int64_t due = ddz_table_deadline(&r->table);
    int seat = ddz_table_state(&r->table)->turn;
    int player = ddz_table_player_at(&r->table, seat);
    uint32_t seq = r->ask.seq;
    bool handled = due >= 0 && due <= now_ms(r) && r->ask_player == player && r->cb.timeout &&
                   r->cb.timeout(r->cb.ctx, player);
    if (handled && (r->ask_player != player || r->ask.seq != seq)) {
        /* the driver answered for the seat (the table moved on) */
        logf_(r, player, false, "game %d: seat %c: out of time: answered for it",
              ddz_table_game(&r->table) + 1, 'A' + seat);
    } else if (handled && r->seat[player]) {
        /* the driver handed the seat over: the new seat answers in time */
        r->ask.deadline_ms = ddz_table_extend(&r->table, now_ms(r));
        logf_(r, player, false, "game %d: seat %c: out of time: %s answers for it",
              ddz_table_game(&r->table) + 1, 'A' + seat, who(r->seat[player]));
        if (r->cb.event)
            r->cb.event(r->cb.ctx, &r->ask); /* everyone sees the new time limit */
        r->seat[player]->ops->ask(r->seat[player], &r->ask, &r->table);
    } else if (due >= 0 && ddz_table_time(&r->table, now_ms(r)))
        logf_(r, player, false, "game %d: %s (seat %c): timeout: no answer within %d ms",
              ddz_table_game(&r->table) + 1, who(r->seat[player]), 'A' + seat,
              r->table.cfg.time_ms);
    pump(r);
}

static void cancel_ask(ddz_runner *r)
{
    int p = r->ask_player;
    r->ask_player = -1;
    if (p >= 0 && r->seat[p] && r->seat[p]->ops->cancel)
        r->seat[p]->ops->cancel(r->seat[p]);
}

/* Delivers the table's events in order. Calls made by seats while this
 * runs (an answer, a fault) only feed the table; the loop here drains what
 * they cause, so everyone hears events in the same order. */
static void pump(ddz_runner *r)
{
    if (r->pumping)
        return;
    r->pumping = true;
    ddz_ev ev;
    while (ddz_table_next(&r->table, &ev)) {
        int asked = -1;
        if (ddz_ev_is_ask(&ev)) {
            asked = ddz_table_player_at(&r->table, ev.seat);
            r->ask_player = asked;
            r->ask = ev;
        } else if (ev.kind == DDZ_EV_OVER ||
                   (ev.kind == DDZ_EV_FAULT &&
                    ddz_table_player_at(&r->table, ev.seat) == r->ask_player)) {
            cancel_ask(r); /* the game ended, or the table acts for the seat asked */
        }
        for (int p = 0; p < 3; p++)
            if (p != asked && r->seat[p] && r->seat[p]->ops->deliver && ddz_ev_reaches(&ev, p))
                r->seat[p]->ops->deliver(r->seat[p], &ev, &r->table);
        if (ev.kind == DDZ_EV_OVER && r->cb.over) {
            ddz_record rec;
            ddz_runner_record(r, &rec);
            r->cb.over(r->cb.ctx, &rec);
        }
        if (r->cb.event)
            r->cb.event(r->cb.ctx, &ev);
        if (asked >= 0 && r->seat[asked])
            r->seat[asked]->ops->ask(r->seat[asked], &ev, &r->table);
    }
    r->pumping = false;
    sync_clock(r);
}

/* ---- what seats call ---- */

int ddz_runner_act(ddz_runner *r, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards)
{
    int p = s->player;
    if (p < 0 || p > 2 || r->seat[p] != s)
        return DDZ_ESTALE; /* a seat that was replaced answers nothing */
    int rc = action == DDZ_EV_ASK_BID ? ddz_table_bid(&r->table, p, seq, bid, now_ms(r))
                                      : ddz_table_play(&r->table, p, seq, cards, now_ms(r));
    if (rc == 0) {
        if (r->ask_player == p)
            r->ask_player = -1;
    } else if (s->program && rc != DDZ_ESTALE && rc != DDZ_ETURN && rc != DDZ_EPHASE) {
        /* spec §6: a program's illegal action is a fault at once, whichever
         * road it came by (a local engine, a bridge, a hosted AI). */
        logf_(r, p, true, "game %d: %s (seat %c): illegal %s: %s", ddz_table_game(&r->table) + 1,
              who(s), 'A' + ddz_table_seat_of(&r->table, p),
              action == DDZ_EV_ASK_BID ? "bid" : "play", ddz_strerror(rc));
        r->ask_player = -1; /* answered, if badly: nothing to cancel */
        ddz_table_fault(&r->table, p, DDZ_FAULT_ILLEGAL, now_ms(r));
    }
    pump(r);
    return rc;
}

static int host_act(void *ctx, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards)
{
    return ddz_runner_act(ctx, s, action, seq, bid, cards);
}

static void host_fault(void *ctx, ddz_seat *s, int kind, int game, const char *why)
{
    ddz_runner *r = ctx;
    int p = s->player;
    bool charge = p >= 0 && p < 3 && r->seat[p] == s && ddz_table_running(&r->table) &&
                  (game < 0 || game == ddz_table_game(&r->table));
    /* under botzone-ftl2 a seat that faulted plays on through the table: a
     * second failure of its program changes nothing */
    bool again =
        charge && ddz_game_faulted(ddz_table_state(&r->table), ddz_table_seat_of(&r->table, p));
    charge = charge && !again;
    logf_(r, p, true, "game %d: %s (seat %c): %s: %s%s", ddz_table_game(&r->table) + 1, who(s),
          'A' + ddz_table_seat_of(&r->table, p < 0 || p > 2 ? 0 : p), ddz_fault_name(kind), why,
          charge  ? ""
          : again ? " (not charged: it has already faulted in this game)"
                  : " (not charged: that game is over)");
    if (charge) {
        if (r->ask_player == p)
            r->ask_player = -1; /* the seat knows it failed */
        ddz_table_fault(&r->table, p, kind, now_ms(r));
        pump(r);
    }
}

static void host_note(void *ctx, ddz_seat *s, const char *msg)
{
    ddz_runner *r = ctx;
    logf_(r, s->player, false, "%s: %s", who(s), msg);
}

static int64_t host_delay(void *ctx)
{
    ddz_runner *r = ctx;
    return r->cb.think_delay_us ? r->cb.think_delay_us(r->cb.ctx) : 0;
}

static void host_info(void *ctx, ddz_table_info *out)
{
    ddz_runner *r = ctx;
    ddz_table_info_of(&r->table, out);
}

/* ---- the driver's side ---- */

ddz_runner *ddz_runner_create(ddz_loop *loop, const ddz_runner_cb *cb)
{
    ddz_runner *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->loop = loop;
    if (cb)
        r->cb = *cb;
    r->clock_due = -1;
    r->ask_player = -1;
    return r;
}

int ddz_runner_series(ddz_runner *r, const ddz_table_cfg *cfg)
{
    if (ddz_table_running(&r->table))
        return DDZ_EPHASE;
    int rc = ddz_table_init(&r->table, cfg);
    if (rc == 0)
        r->has_series = true;
    return rc;
}

void ddz_runner_seat(ddz_runner *r, int player, ddz_seat *s)
{
    ddz_seat *old = ddz_runner_unseat(r, player);
    ddz_seat_close(old);
    if (!s)
        return;
    s->player = player;
    s->host = (ddz_seat_host){r, host_act, host_fault, host_note, host_delay, host_info};
    r->seat[player] = s;
}

void ddz_runner_reask(ddz_runner *r, int player)
{
    ddz_seat *s = r->seat[player];
    if (s && ddz_table_running(&r->table) && r->ask_player == player)
        s->ops->ask(s, &r->ask, &r->table);
}

ddz_seat *ddz_runner_unseat(ddz_runner *r, int player)
{
    ddz_seat *s = r->seat[player];
    if (!s)
        return NULL;
    if (r->ask_player == player && s->ops->cancel)
        s->ops->cancel(s);
    r->seat[player] = NULL;
    s->player = -1;
    return s;
}

ddz_seat *ddz_runner_seat_of(const ddz_runner *r, int player)
{
    return r->seat[player];
}

int ddz_runner_start(ddz_runner *r)
{
    if (!r->has_series)
        return DDZ_EPHASE;
    const char *names[3];
    for (int p = 0; p < 3; p++) {
        if (!r->seat[p])
            return DDZ_EINVAL;
        names[p] = r->seat[p]->ops->name(r->seat[p]);
    }
    int rc = ddz_table_start(&r->table, now_ms(r), names);
    if (rc == 0)
        pump(r);
    return rc;
}

int ddz_runner_fault(ddz_runner *r, int player, int kind, const char *why)
{
    if (!ddz_table_running(&r->table))
        return DDZ_EPHASE;
    logf_(r, player, false, "game %d: seat %c: %s", ddz_table_game(&r->table) + 1,
          'A' + ddz_table_seat_of(&r->table, player), why);
    if (r->ask_player == player)
        cancel_ask(r);
    int rc = ddz_table_fault(&r->table, player, kind, now_ms(r));
    pump(r);
    return rc;
}

void ddz_runner_set_autopass(ddz_runner *r, int player, bool on)
{
    ddz_table_set_autopass(&r->table, player, on);
}

int ddz_runner_abort(ddz_runner *r, ddz_record *rec)
{
    if (!ddz_table_running(&r->table))
        return DDZ_EPHASE;
    if (rec)
        ddz_runner_record(r, rec);
    cancel_ask(r);
    ddz_loop_disarm(r->loop, &r->clock);
    r->clock_due = -1;
    return ddz_table_abort(&r->table);
}

bool ddz_runner_idle(const ddz_runner *r)
{
    if (ddz_table_running(&r->table))
        return false;
    for (int p = 0; p < 3; p++)
        if (r->seat[p] && !ddz_seat_idle(r->seat[p]))
            return false;
    return true;
}

const ddz_table *ddz_runner_table(const ddz_runner *r)
{
    return &r->table;
}

void ddz_runner_destroy(ddz_runner *r)
{
    if (!r)
        return;
    ddz_loop_disarm(r->loop, &r->clock);
    for (int p = 0; p < 3; p++)
        ddz_seat_close(ddz_runner_unseat(r, p));
    free(r);
}
