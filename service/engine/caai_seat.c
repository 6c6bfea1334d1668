/* caai_seat.c - the CAAI adapter shared by `ddz match` and `ddz serve`. */
#include "service/engine/caai_seat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/engine/engine.h"
#include "rules/error.h"
#include "rules/game.h"

enum expect { EXP_NAME = 1, EXP_OK, EXP_BID, EXP_PLAY };

typedef struct line {
    char text[DDZ_CAAI_FORMAT_MAX]; /* the CAAI line, without newline */
    uint8_t expect;                 /* enum expect: the reply it needs */
    uint8_t ok_of;                  /* EXP_OK: the keyword acknowledged */
    int game;                       /* the game it belongs to, -1 for the greeting */
    uint32_t seq;                   /* EXP_BID, EXP_PLAY: the request answered */
    bool untimed;                   /* the table's clock times it (an open request) */
} line;

struct ddz_caai_seat {
    char *cmd;
    char *log_path;
    double time_s;
    int kill_grace_ms; /* 0 = the engine module's default */
    ddz_caai_seat_cb cb;
    ddz_engine *eng;
    bool broken;  /* failed, or not started: restart before a game */
    bool started; /* started at least once */
    long restarts;
    int seat; /* seat held in the current game */
    line *q;  /* queued lines, oldest unanswered first */
    size_t head, len, cap;
    size_t sent;     /* lines from the head already written */
    double deadline; /* the head's reply is due; valid while sent > 0 */
    char name[DDZ_CAAI_NAME_UTF8_MAX];
};

double ddz_caai_seat_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ddz_caai_seat *ddz_caai_seat_create(const char *cmd, const char *stderr_log, double time_s,
                                    const ddz_caai_seat_cb *cb)
{
    ddz_caai_seat *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cmd = strdup(cmd);
    s->log_path = stderr_log ? strdup(stderr_log) : NULL;
    if (!s->cmd || (stderr_log && !s->log_path)) {
        ddz_caai_seat_destroy(s);
        return NULL;
    }
    s->time_s = time_s > 0 ? time_s : 15;
    s->cb = *cb;
    s->broken = true;
    return s;
}

static void clear_queue(ddz_caai_seat *s)
{
    s->head = s->len = s->sent = 0;
}

static int enqueue(ddz_caai_seat *s, const ddz_caai_msg *msg, int expect, int ok_of, int game,
                   uint32_t seq)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        line *q = malloc(cap * sizeof *q);
        if (!q)
            return DDZ_ENOMEM;
        for (size_t i = 0; i < s->len; i++)
            q[i] = s->q[(s->head + i) % s->cap];
        free(s->q);
        s->q = q;
        s->cap = cap;
        s->head = 0;
    }
    line *l = &s->q[(s->head + s->len) % s->cap];
    int n = ddz_caai_format(msg, l->text, sizeof l->text);
    if (n < 0)
        return n;
    l->expect = (uint8_t)expect;
    l->ok_of = (uint8_t)ok_of;
    l->game = game;
    l->seq = seq;
    l->untimed = expect == EXP_BID || expect == EXP_PLAY;
    s->len++;
    return 0;
}

/* Stops the engine and reports the fault; the owner decides whom to charge. */
static void fail(ddz_caai_seat *s, int kind, int game, const char *why)
{
    if (s->broken)
        return;
    ddz_caai_seat_stop(s);
    if (s->cb.fault)
        s->cb.fault(s->cb.ctx, s, kind, game, why);
}

static int head_game(const ddz_caai_seat *s)
{
    return s->sent ? s->q[s->head].game : -1;
}

void ddz_caai_seat_stop(ddz_caai_seat *s)
{
    if (s->eng)
        ddz_engine_stop(s->eng);
    s->broken = true;
    clear_queue(s);
}

int ddz_caai_seat_start(ddz_caai_seat *s)
{
    if (!s->broken && s->eng)
        return 0;
    if (s->eng) {
        ddz_engine_destroy(s->eng);
        s->eng = NULL;
    }
    if (s->started)
        s->restarts++;
    s->started = true;
    clear_queue(s);
    int err = 0;
    ddz_engine_limits lim = {.kill_grace_ms = s->kill_grace_ms};
    s->eng = ddz_engine_spawn(s->cmd, s->log_path, &lim, &err);
    if (!s->eng)
        return err;
    s->broken = false;
    ddz_caai_msg hello = {.kind = DDZ_CAAI_VERSION, .seat = -1};
    snprintf(hello.version, sizeof hello.version, "1.0");
    return enqueue(s, &hello, EXP_NAME, 0, -1, 0);
}

void ddz_caai_seat_set_kill_grace(ddz_caai_seat *s, int ms)
{
    s->kill_grace_ms = ms;
}

void ddz_caai_seat_set_seat(ddz_caai_seat *s, int seat)
{
    s->seat = seat;
}

static void queue(ddz_caai_seat *s, const ddz_caai_msg *msg, int expect, int ok_of, int game,
                  uint32_t seq)
{
    if (s->broken)
        return;
    if (enqueue(s, msg, expect, ok_of, game, seq) < 0)
        fail(s, DDZ_FAULT_CRASH, game, "out of memory queueing a line");
}

void ddz_caai_seat_event(ddz_caai_seat *s, const ddz_ev *ev, const ddz_caai_info *info)
{
    ddz_caai_msg msg = {.seat = ev->seat};
    switch (ev->kind) {
    case DDZ_EV_GAME:
        if (s->eng)
            ddz_engine_reset_budget(s->eng);
        msg.kind = DDZ_CAAI_INFO;
        msg.seat = -1;
        msg.info = *info;
        queue(s, &msg, EXP_OK, DDZ_CAAI_INFO, ev->game, 0);
        /* the table's start for this seat carries its hand: DEAL follows
         * INFO (spec §7) */
        if (ev->seat != s->seat)
            break;
        msg = (ddz_caai_msg){.kind = DDZ_CAAI_DEAL, .seat = ev->seat, .cards = ev->cards};
        queue(s, &msg, EXP_OK, DDZ_CAAI_DEAL, ev->game, 0);
        break;
    case DDZ_EV_ASK_BID:
    case DDZ_EV_ASK_PLAY:
        if (ev->seat != s->seat)
            break;
        msg.kind = ev->kind == DDZ_EV_ASK_BID ? DDZ_CAAI_BID_WHAT : DDZ_CAAI_PLAY_WHAT;
        msg.seat = -1;
        queue(s, &msg, ev->kind == DDZ_EV_ASK_BID ? EXP_BID : EXP_PLAY, 0, ev->game, ev->seq);
        break;
    case DDZ_EV_BID:
        if (ev->seat == s->seat)
            break; /* the bidder said it itself */
        msg.kind = DDZ_CAAI_BID;
        msg.bid = (int8_t)ev->bid;
        queue(s, &msg, EXP_OK, DDZ_CAAI_BID, ev->game, 0);
        break;
    case DDZ_EV_LEFTOVER:
        msg.kind = DDZ_CAAI_LEFTOVER;
        msg.cards = ev->cards;
        queue(s, &msg, EXP_OK, DDZ_CAAI_LEFTOVER, ev->game, 0);
        break;
    case DDZ_EV_PLAY:
        /* an engine hears of its own play only when the referee passed for
         * it (spec §7: PLAY <own d>-1) */
        if (ev->seat == s->seat && !ev->autopass)
            break;
        msg.kind = DDZ_CAAI_PLAY;
        msg.cards = ev->cards;
        queue(s, &msg, EXP_OK, DDZ_CAAI_PLAY, ev->game, 0);
        break;
    case DDZ_EV_OVER:
        /* all passed: nothing is sent; the next line is the next INFO. A
         * game that went on after a fault (botzone-ftl2) has a winner. */
        if (ev->seat >= 0) {
            msg.kind = DDZ_CAAI_GAMEOVER;
            queue(s, &msg, EXP_OK, DDZ_CAAI_GAMEOVER, ev->game, 0);
        } else if (ev->fault_seat >= 0) {
            msg.kind = DDZ_CAAI_ERROR;
            msg.seat = ev->fault_seat;
            queue(s, &msg, EXP_OK, DDZ_CAAI_ERROR, ev->game, 0);
        }
        break;
    }
}

void ddz_caai_seat_flush(ddz_caai_seat *s)
{
    while (!s->broken && s->eng && s->sent < s->len) {
        line *l = &s->q[(s->head + s->sent) % s->cap];
        int rc = ddz_engine_send(s->eng, l->text);
        if (rc < 0) {
            fail(s, DDZ_FAULT_CRASH, l->game, ddz_strerror(rc));
            return;
        }
        if (s->sent++ == 0)
            s->deadline = ddz_caai_seat_now() + s->time_s;
    }
}

static void note(ddz_caai_seat *s, const char *fmt, const char *a, const char *b)
{
    if (!s->cb.note)
        return;
    char buf[300];
    snprintf(buf, sizeof buf, fmt, a, b);
    s->cb.note(s->cb.ctx, s, buf);
}

static void on_reply(ddz_caai_seat *s, const char *text, size_t len)
{
    if (s->sent == 0) {
        fail(s, DDZ_FAULT_PROTOCOL, -1, "spoke without being asked");
        return;
    }
    line *l = &s->q[s->head];
    ddz_caai_msg msg;
    char err[128];
    int rc = ddz_caai_parse(text, len, &msg, err, sizeof err);
    bool lenient =
        l->expect == EXP_OK && (l->ok_of == DDZ_CAAI_GAMEOVER || l->ok_of == DDZ_CAAI_ERROR);
    int game = l->game, expect = l->expect;
    uint32_t seq = l->seq;
    bool ok = rc == 0;
    if (ok) {
        switch (expect) {
        case EXP_NAME:
            ok = msg.kind == DDZ_CAAI_NAME;
            if (ok)
                ddz_caai_name_utf8(msg.name, s->name, sizeof s->name);
            break;
        case EXP_OK:
            ok = msg.kind == DDZ_CAAI_OK && msg.ok_of == l->ok_of;
            break;
        default:
            ok = msg.kind == (expect == EXP_BID ? DDZ_CAAI_BID : DDZ_CAAI_PLAY);
            if (ok && msg.seat != s->seat) {
                fail(s, DDZ_FAULT_PROTOCOL, game, "answered with another seat's letter");
                return;
            }
        }
    }
    if (!ok && lenient) {
        note(s, "acknowledged '%s' with '%.60s' (logged, not charged)", l->text, text);
        ok = true, expect = EXP_OK;
    }
    if (!ok) {
        char why[512];
        snprintf(why, sizeof why, "to '%s' answered '%.60s'%s%s", l->text, text, rc < 0 ? ": " : "",
                 rc < 0 ? err : "");
        fail(s, DDZ_FAULT_PROTOCOL, game, why);
        return;
    }
    s->head = (s->head + 1) % s->cap;
    s->len--;
    if (--s->sent > 0)
        s->deadline = ddz_caai_seat_now() + s->time_s;
    if (expect == EXP_BID || expect == EXP_PLAY) {
        rc = s->cb.act(s->cb.ctx, s, expect == EXP_BID ? DDZ_EV_ASK_BID : DDZ_EV_ASK_PLAY, seq,
                       msg.bid, msg.cards);
        /* a stale answer (the game moved on or ended) is no fault */
        if (rc < 0 && rc != DDZ_ESTALE && rc != DDZ_EPHASE)
            fail(s, DDZ_FAULT_ILLEGAL, game, ddz_strerror(rc));
    }
}

void ddz_caai_seat_on_readable(ddz_caai_seat *s)
{
    if (s->broken || !s->eng)
        return;
    int rc = ddz_engine_on_readable(s->eng);
    char buf[DDZ_ENGINE_MAX_LINE + 1];
    size_t len;
    int got;
    while (!s->broken && s->eng && (got = ddz_engine_next_line(s->eng, buf, sizeof buf, &len))) {
        if (got == DDZ_ESYNTAX) {
            fail(s, DDZ_FAULT_PROTOCOL, head_game(s), "NUL byte in a line");
            return;
        }
        if (got < 0)
            break;
        on_reply(s, buf, len);
    }
    if (rc < 0 && !s->broken)
        fail(s, rc == DDZ_ECRASH || rc == DDZ_ESPAWN ? DDZ_FAULT_CRASH : DDZ_FAULT_PROTOCOL,
             head_game(s), ddz_strerror(rc));
}

void ddz_caai_seat_on_writable(ddz_caai_seat *s)
{
    if (s->broken || !s->eng)
        return;
    int rc = ddz_engine_flush(s->eng);
    if (rc < 0)
        fail(s, DDZ_FAULT_CRASH, head_game(s), ddz_strerror(rc));
}

void ddz_caai_seat_cancel(ddz_caai_seat *s)
{
    for (size_t i = 0; i < s->len; i++) {
        line *l = &s->q[(s->head + i) % s->cap];
        if (l->untimed && i == 0 && s->sent)
            s->deadline = ddz_caai_seat_now() + s->time_s;
        l->untimed = false;
    }
}

static bool timed(const ddz_caai_seat *s)
{
    return !s->broken && s->sent && !s->q[s->head].untimed;
}

void ddz_caai_seat_check_time(ddz_caai_seat *s, double now)
{
    if (!timed(s) || now < s->deadline)
        return;
    char why[300];
    snprintf(why, sizeof why, "no answer to '%.60s' within %.3g s", s->q[s->head].text, s->time_s);
    fail(s, DDZ_FAULT_TIMEOUT, head_game(s), why);
}

double ddz_caai_seat_deadline(const ddz_caai_seat *s)
{
    return timed(s) ? s->deadline : -1;
}

int ddz_caai_seat_read_fd(const ddz_caai_seat *s)
{
    return !s->broken && s->eng ? ddz_engine_read_fd(s->eng) : -1;
}

int ddz_caai_seat_write_fd(const ddz_caai_seat *s)
{
    return !s->broken && s->eng ? ddz_engine_write_fd(s->eng) : -1;
}

bool ddz_caai_seat_wants_write(const ddz_caai_seat *s)
{
    return !s->broken && s->eng && ddz_engine_wants_write(s->eng);
}

bool ddz_caai_seat_idle(const ddz_caai_seat *s)
{
    return s->broken || s->len == 0;
}

bool ddz_caai_seat_broken(const ddz_caai_seat *s)
{
    return s->broken;
}

const char *ddz_caai_seat_name(const ddz_caai_seat *s)
{
    return s->name;
}

long ddz_caai_seat_restarts(const ddz_caai_seat *s)
{
    return s->restarts;
}

void ddz_caai_seat_destroy(ddz_caai_seat *s)
{
    if (!s)
        return;
    ddz_engine_destroy(s->eng);
    free(s->q);
    free(s->cmd);
    free(s->log_path);
    free(s);
}
