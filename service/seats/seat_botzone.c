/* seat_botzone.c - a Botzone-protocol bot (spec §11) in a seat.
 *
 * The seat follows the game from the events it is delivered (its hand,
 * the bids, the leftover, every play including auto-passes) and, when
 * asked, runs the bot: in one-shot mode it starts the program, writes one
 * line {"requests", "responses", "data", "globaldata"} and reads one line
 * {"response", "debug"?, "data"?, "globaldata"?}; when the bot prints
 * >>>BOTZONE_REQUEST_KEEP_RUNNING<<< after its answer it stays alive and is
 * sent only the next request, one line. The child process is a ddz_engine
 * (service/engine/engine.h): its own process group, line and output
 * limits, stderr to the environment's log, SIGTERM then SIGKILL.
 *
 * The table's clock times every answer, process start included; a bot that
 * does not answer in time is charged by the table and its process ended
 * when the request is cancelled. A keep-running bot lives for one game at
 * most: it is ended when the game is over. docs/decisions.md says why.
 *
 * Every start is taken from the spawn budget (service/engine/spawn_budget.h)
 * of the room, of the address that made it and of the server. A start the
 * budget puts off waits on a timer for the tokens, within the request's
 * time: the table's clock keeps running, and a bot still waiting when it
 * runs out is charged a timeout as for any late answer (docs/operations.md,
 * "Budgets"). Neither a start nor a stop waits for the process itself
 * (engine.h): a bot that ignores SIGTERM costs the loop nothing.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "rules/error.h"
#include "service/engine/engine.h"
#include "service/seats/seats.h"

#define KEEP_RUNNING ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"

enum {
    BZ_MAX_LINE = 256 * 1024,    /* longest line a bot may print */
    BZ_MAX_OUTPUT = 1024 * 1024, /* bytes a bot may print per request */
    BZ_MAX_DATA = 64 * 1024,     /* `data` and `globaldata`, each, serialised */
    BZ_GRAVE = 4,                /* ended engines waiting to be freed */
};

typedef struct botzone_seat {
    ddz_seat base;
    char *cmd; /* the command line */
    char *log; /* stderr file, or NULL */
    ddz_engine_limits lim;
    long *running;               /* the environment's engine count, or NULL */
    ddz_engine *eng;             /* the bot's process, or NULL */
    ddz_watch *rd, *wr;          /* its pipes in the loop */
    bool keep;                   /* it asked to keep running */
    bool answered;               /* it answered the last request it was sent */
    bool deferred;               /* the open request waits for the bot to exit or keep running */
    ddz_engine *grave[BZ_GRAVE]; /* ended, freed from `reap` (never inside a callback) */
    ddz_timer reap;
    ddz_spawn_budget *spawns_room;  /* the room's start budget, or NULL */
    ddz_spawn_budget *spawns_addr;  /* its creator's address's, or NULL */
    ddz_spawn_budget *spawns_total; /* the server's, or NULL */
    ddz_timer spawn_wait;           /* armed while a start waits for the budget */
    /* the open request */
    bool asked;      /* waiting for the bot's answer */
    bool unanswered; /* the last request was cancelled: its move comes as an event */
    int action;      /* DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY */
    uint32_t seq;
    /* the game as this seat has seen it */
    int game; /* index of the current game, -1 before the first */
    bool in_game;
    int seat;       /* this seat's place at the table */
    ddz_cards hand; /* as dealt */
    ddz_cards leftover;
    int landlord; /* -1 until the leftover is given */
    int nbids, bids[8];
    int nplays;                   /* plays so far in this game, passes included */
    ddz_cards last[2];            /* the last two plays, oldest first (0: pass or none) */
    bool played;                  /* its first play request was sent */
    json_t *requests, *responses; /* this game's, for one-shot mode */
    json_t *data, *globaldata;    /* what the bot asked to keep */
    char label[64];
} botzone_seat;

static void count(botzone_seat *b, int d)
{
    if (b->running)
        *b->running += d;
}

static void on_reap(ddz_timer *t)
{
    botzone_seat *b = (botzone_seat *)((char *)t - offsetof(botzone_seat, reap));
    for (int i = 0; i < BZ_GRAVE; i++) {
        ddz_engine_destroy(b->grave[i]);
        b->grave[i] = NULL;
    }
}

/* Ends the bot's process (bounded by the kill grace) and frees it from the
 * loop later: this may run inside the process's own callbacks. */
static void stop(botzone_seat *b)
{
    ddz_loop_disarm(b->base.loop, &b->spawn_wait); /* a start waiting for the budget */
    if (!b->eng)
        return;
    const ddz_loop_ops *l = b->base.loop->ops;
    l->unwatch(b->rd);
    l->unwatch(b->wr);
    b->rd = b->wr = NULL;
    ddz_engine_stop(b->eng);
    count(b, -1);
    int i = 0;
    while (i < BZ_GRAVE && b->grave[i])
        i++;
    if (i == BZ_GRAVE) {
        on_reap(&b->reap);
        i = 0;
    }
    b->grave[i] = b->eng;
    b->eng = NULL;
    b->keep = false;
    if (!b->reap.armed)
        ddz_loop_arm(b->base.loop, &b->reap, on_reap, 0);
}

/* The bot failed: charges it for the current game and ends its process. */
static void fail(botzone_seat *b, int kind, const char *fmt, const char *detail)
{
    char why[300];
    snprintf(why, sizeof why, fmt, detail);
    if (b->asked)
        b->unanswered = true; /* a referee that plays on for it says its move */
    b->asked = b->deferred = false;
    stop(b);
    if (b->in_game)
        b->base.host.fault(b->base.host.ctx, &b->base, kind, b->game, why);
}

/* ---- answers ---- */

/* Returns true if `v` (NULL: absent) may be kept as data or globaldata. */
static bool data_fits(json_t *v)
{
    return !v || json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY) <= BZ_MAX_DATA;
}

static void keep_data(json_t **slot, json_t *v)
{
    if (!v)
        return;
    json_decref(*slot);
    *slot = json_incref(v);
}

/* Reads the answer `line` to the open request and gives it to the host. */
static void answer(botzone_seat *b, const char *line, size_t len)
{
    json_error_t je;
    json_t *j = json_loadb(line, len, 0, &je);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        fail(b, DDZ_FAULT_PROTOCOL, "the answer is not a JSON object: %s", je.text);
        return;
    }
    json_t *r = json_object_get(j, "response");
    if (!r) {
        json_decref(j);
        fail(b, DDZ_FAULT_PROTOCOL, "the answer has no %s", "\"response\"");
        return;
    }
    if (!data_fits(json_object_get(j, "data")) || !data_fits(json_object_get(j, "globaldata"))) {
        json_decref(j);
        fail(b, DDZ_FAULT_PROTOCOL, "%s: data or globaldata over 64 KiB", "the answer");
        return;
    }
    int bid = 0;
    ddz_cards cards = 0;
    if (b->action == DDZ_EV_ASK_BID) {
        char *end = NULL;
        long v = -1;
        if (json_is_integer(r))
            v = (long)json_integer_value(r);
        else if (json_is_string(r) && json_string_length(r) > 0 && json_string_length(r) < 4) {
            errno = 0;
            v = strtol(json_string_value(r), &end, 10);
            if (*end || json_string_value(r)[0] < '0' || json_string_value(r)[0] > '9')
                v = -1;
        }
        if (v < 0 || v > 99) {
            json_decref(j);
            fail(b, DDZ_FAULT_PROTOCOL, "the response to a bid request must be %s",
                 "a number 0..3");
            return;
        }
        bid = (int)v;
    } else {
        bool ok = json_is_array(r) && json_array_size(r) <= DDZ_HAND_MAX;
        bool repeated = false;
        size_t i;
        json_t *v;
        json_array_foreach(r, i, v)
        {
            if (!ok)
                break;
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= DDZ_NCARDS) {
                ok = false;
                break;
            }
            ddz_cards bit = 1ULL << json_integer_value(v);
            repeated |= (cards & bit) != 0;
            cards |= bit;
        }
        if (!ok) {
            json_decref(j);
            fail(b, DDZ_FAULT_PROTOCOL, "the response to a play request must be %s",
                 "an array of card codes 0..53");
            return;
        }
        if (repeated) {
            json_decref(j);
            fail(b, DDZ_FAULT_ILLEGAL, "%s", "the play names a card twice");
            return;
        }
    }
    keep_data(&b->data, json_object_get(j, "data"));
    keep_data(&b->globaldata, json_object_get(j, "globaldata"));
    json_array_append(b->responses, r);
    json_decref(j);
    b->asked = false;
    b->answered = true;
    /* may deliver events to this seat (even the game's end) before it
     * returns; an illegal answer is charged by the host */
    b->base.host.act(b->base.host.ctx, &b->base, b->action, b->seq, bid, cards);
}

static void send_req(botzone_seat *b, bool fresh);

static void on_io(void *ctx, bool writable)
{
    botzone_seat *b = ctx;
    if (!b->eng)
        return;
    if (writable) {
        int rc = ddz_engine_flush(b->eng);
        if (rc < 0 && b->asked)
            fail(b, DDZ_FAULT_CRASH, "cannot write to the bot: %s", ddz_strerror(rc));
        else if (rc == 0 && ddz_engine_wants_write(b->eng))
            b->base.loop->ops->want_write(b->wr);
        return;
    }
    ddz_engine *e = b->eng; /* answers may end it and start another */
    int rc = ddz_engine_on_readable(e);
    char *line = malloc(BZ_MAX_LINE + 1);
    if (!line) {
        fail(b, DDZ_FAULT_CRASH, "%s", "out of memory");
        return;
    }
    for (;;) {
        size_t len = 0;
        int got = ddz_engine_next_line(e, line, BZ_MAX_LINE + 1, &len);
        if (got == 0)
            break;
        if (got < 0) {
            if (b->asked)
                fail(b, DDZ_FAULT_PROTOCOL, "%s", "a line with a NUL byte");
            else
                stop(b);
            break;
        }
        if (strcmp(line, KEEP_RUNNING) == 0) {
            /* it follows each answer, which may be acted on (and the next
             * request sent) before this line is read */
            b->keep = true;
            if (b->deferred) {
                b->deferred = false;
                send_req(b, false);
            }
        } else if (b->asked && !b->deferred) {
            answer(b, line, len);
        } else if (b->in_game && b->keep) {
            fail(b, DDZ_FAULT_PROTOCOL, "%s", "it spoke out of turn");
        } /* else: what a one-shot bot prints after its answer is not read */
        if (b->eng != e)
            break; /* failed, or the game ended inside host.act */
    }
    free(line);
    if (b->eng != e || rc == 0)
        return;
    /* the process ended, or broke a limit */
    if (rc == DDZ_ECRASH && (!b->asked || b->deferred) && !b->keep) {
        stop(b); /* a one-shot bot that answered and exited */
        if (b->deferred) {
            b->deferred = false;
            send_req(b, true);
        }
    } else if (rc == DDZ_ESPAWN) {
        fail(b, DDZ_FAULT_CRASH, "cannot start the bot: %s", ddz_strerror(rc));
    } else if (rc == DDZ_ECRASH) {
        int st = ddz_engine_exit_status(b->eng);
        char d[64];
        snprintf(d, sizeof d, "%d", st);
        fail(b, DDZ_FAULT_CRASH, "the bot exited (status %s)", d);
    } else {
        fail(b, rc == DDZ_EFLOOD || rc == DDZ_ETOOLONG ? DDZ_FAULT_PROTOCOL : DDZ_FAULT_CRASH,
             "the bot's output: %s", ddz_strerror(rc));
    }
}

/* ---- requests ---- */

static json_t *cards_json(ddz_cards c)
{
    json_t *a = ddz_msg_cards(c);
    return a ? a : json_array();
}

/* The last two plays before this turn, oldest first ([] for a pass or for
 * nothing). */
static json_t *history(const botzone_seat *b)
{
    json_t *h = json_array();
    for (int k = 0; k < 2; k++)
        json_array_append_new(h, cards_json(b->last[k]));
    return h;
}

static json_t *request(botzone_seat *b, int action)
{
    json_t *r = json_object();
    if (action == DDZ_EV_ASK_BID) {
        json_object_set_new(r, "own", cards_json(b->hand));
        json_t *bids = json_array();
        for (int i = 0; i < b->nbids; i++)
            json_array_append_new(bids, json_integer(b->bids[i]));
        json_object_set_new(r, "bid", bids);
        return r;
    }
    if (!b->played) {
        b->played = true;
        bool bidding = b->nbids > 0; /* a rule set without bidding: botzone-ftl */
        ddz_cards own = b->hand;
        if (!bidding && b->landlord == b->seat)
            own |= b->leftover; /* the landlord's 20 cards */
        json_object_set_new(r, "own", cards_json(own));
        json_object_set_new(r, "history", history(b));
        json_object_set_new(r, "publiccard", cards_json(b->leftover));
        if (bidding) {
            int best = 1;
            for (int i = 0; i < b->nbids; i++)
                best = b->bids[i] > best ? b->bids[i] : best;
            json_object_set_new(r, "landlord", json_integer(b->landlord));
            json_object_set_new(r, "pos", json_integer(b->seat));
            json_object_set_new(r, "finalbid", json_integer(best));
        }
        return r;
    }
    json_object_set_new(r, "history", history(b));
    return r;
}

static int start(botzone_seat *b)
{
    int err = 0;
    b->eng = ddz_engine_spawn(b->cmd, b->log, &b->lim, &err);
    if (!b->eng)
        return err ? err : DDZ_ESPAWN;
    count(b, 1);
    b->keep = false;
    const ddz_loop_ops *l = b->base.loop->ops;
    b->rd = l->watch(b->base.loop, ddz_engine_read_fd(b->eng), false, on_io, b);
    b->wr = l->watch(b->base.loop, ddz_engine_write_fd(b->eng), true, on_io, b);
    if (!b->rd || !b->wr) {
        stop(b);
        return DDZ_EIO;
    }
    return 0;
}

/* The spawn budget has a token again: start the bot for the request that
 * waited (a cancel or the game's end disarmed this otherwise). */
static void on_spawn_wait(ddz_timer *t)
{
    botzone_seat *b = (botzone_seat *)((char *)t - offsetof(botzone_seat, spawn_wait));
    if (b->asked)
        send_req(b, true);
}

/* Sends the open request: to a fresh process in one-shot form, or alone
 * to a bot that asked to keep running. A fresh process whose start the
 * budget puts off is sent it from on_spawn_wait. */
static void send_req(botzone_seat *b, bool fresh)
{
    json_t *msg;
    if (!fresh) {
        msg = json_incref(json_array_get(b->requests, json_array_size(b->requests) - 1));
    } else {
        stop(b);
        ddz_loop *loop = b->base.loop;
        int64_t wait = ddz_spawn_budget_take(b->spawns_room, b->spawns_addr, b->spawns_total,
                                             ddz_loop_now_us(loop));
        if (wait > 0) {
            ddz_loop_arm(loop, &b->spawn_wait, on_spawn_wait, wait);
            return;
        }
        int rc = start(b);
        if (rc < 0) {
            fail(b, DDZ_FAULT_CRASH, "cannot start the bot: %s", ddz_strerror(rc));
            return;
        }
        msg = json_object();
        json_object_set(msg, "requests", b->requests);
        json_object_set(msg, "responses", b->responses);
        json_object_set(msg, "data", b->data);
        json_object_set(msg, "globaldata", b->globaldata);
    }
    ddz_engine_reset_budget(b->eng);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    int rc = text ? ddz_engine_send(b->eng, text) : DDZ_ENOMEM;
    free(text);
    if (rc < 0) {
        fail(b, DDZ_FAULT_CRASH, "cannot write to the bot: %s", ddz_strerror(rc));
        return;
    }
    if (ddz_engine_wants_write(b->eng))
        b->base.loop->ops->want_write(b->wr);
}

static void bz_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    botzone_seat *b = (botzone_seat *)s;
    (void)t;
    b->action = ev->kind;
    b->seq = ev->seq;
    b->asked = true;
    b->unanswered = false;
    json_array_append_new(b->requests, request(b, ev->kind));
    if (b->eng && b->keep) {
        /* keep-running: only the new request; a bot that has exited since
         * is charged `crash` when its end of output is read */
        send_req(b, false);
    } else if (b->eng && b->answered) {
        /* It answered and its end of output has not been read: whether it
         * has exited or not, the keep-running line may still be in the
         * pipe, and it decides how the bot is asked (on_io sends the
         * request either way). Asking whether the process is alive here
         * would be a race: a bot that printed the line and exited would
         * be started afresh instead of charged. */
        b->deferred = true;
    } else {
        send_req(b, true);
    }
    b->answered = false;
}

static void bz_cancel(ddz_seat *s)
{
    botzone_seat *b = (botzone_seat *)s;
    if (!b->asked)
        return;
    /* no answer in time: one that still comes would be out of step */
    b->asked = b->deferred = false;
    b->unanswered = true;
    stop(b);
}

static void bz_deliver(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    botzone_seat *b = (botzone_seat *)s;
    (void)t;
    switch (ev->kind) {
    case DDZ_EV_GAME:
        stop(b);
        b->in_game = true;
        b->game = ev->game;
        b->seat = ev->seat;
        b->hand = ev->cards;
        b->leftover = 0;
        b->landlord = -1;
        b->nbids = b->nplays = 0;
        b->last[0] = b->last[1] = 0;
        b->played = b->asked = b->unanswered = b->deferred = b->answered = false;
        json_array_clear(b->requests);
        json_array_clear(b->responses);
        json_decref(b->data);
        b->data = json_string("");
        break;
    case DDZ_EV_BID:
        if (b->nbids < (int)(sizeof b->bids / sizeof b->bids[0]))
            b->bids[b->nbids++] = ev->bid;
        if (ev->seat == b->seat && b->unanswered) {
            b->unanswered = false; /* the referee bid for it */
            json_array_append_new(b->responses, json_integer(ev->bid));
        }
        break;
    case DDZ_EV_LEFTOVER:
        b->landlord = ev->seat;
        b->leftover = ev->cards;
        break;
    case DDZ_EV_PLAY:
        b->nplays++;
        b->last[0] = b->last[1];
        b->last[1] = ev->cards;
        if (ev->seat == b->seat && b->unanswered && !ev->autopass) {
            b->unanswered = false; /* the referee played for it */
            json_array_append_new(b->responses, cards_json(ev->cards));
        }
        break;
    case DDZ_EV_OVER:
        b->in_game = false;
        b->asked = b->deferred = false;
        stop(b); /* a keep-running bot lives for one game */
        break;
    default:
        break;
    }
}

static const char *bz_name(const ddz_seat *s)
{
    return ((const botzone_seat *)s)->label;
}

static void bz_close(ddz_seat *s)
{
    botzone_seat *b = (botzone_seat *)s;
    stop(b);
    ddz_loop_disarm(b->base.loop, &b->reap);
    on_reap(&b->reap);
    json_decref(b->requests);
    json_decref(b->responses);
    json_decref(b->data);
    json_decref(b->globaldata);
    free(b->cmd);
    free(b->log);
    free(b);
}

/* Its kind is "engine": a program run by whoever seats it, as a CAAI
 * engine is ("bot" is the protocol's name for a token holder, a bridge). */
static const ddz_seat_ops botzone_ops = {
    .kind = "engine",
    .what = "bot",
    .deliver = bz_deliver,
    .ask = bz_ask,
    .cancel = bz_cancel,
    .name = bz_name,
    .close = bz_close,
};

ddz_seat *ddz_seat_botzone_create(const char *cmd, const char *label, const ddz_seat_env *env,
                                  int *err)
{
    if (!cmd || !cmd[0]) {
        *err = DDZ_EINVAL;
        return NULL;
    }
    botzone_seat *b = calloc(1, sizeof *b);
    if (!b || !(b->cmd = strdup(cmd))) {
        free(b);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    b->base = (ddz_seat){.ops = &botzone_ops, .loop = env->loop, .player = -1, .program = true};
    b->log = env->stderr_log ? strdup(env->stderr_log) : NULL;
    b->lim = (ddz_engine_limits){
        .max_line = BZ_MAX_LINE, .max_output = BZ_MAX_OUTPUT, .kill_grace_ms = env->kill_grace_ms};
    b->running = env->engines_running;
    b->spawns_room = env->spawns_room;
    b->spawns_addr = env->spawns_addr;
    b->spawns_total = env->spawns_total;
    b->game = -1;
    b->landlord = -1;
    b->requests = json_array();
    b->responses = json_array();
    b->data = json_string("");
    b->globaldata = json_string("");
    snprintf(b->label, sizeof b->label, "%s", label);
    if (!b->requests || !b->responses || !b->data || !b->globaldata ||
        (env->stderr_log && !b->log)) {
        bz_close(&b->base);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    return &b->base;
}
