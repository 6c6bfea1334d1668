/* room.c - a room: a table (service/table/runner.h) with its seats, its
 * spectators, and what the lobby and storage need of it.
 *
 * The game flow is the runner's. A room decides who sits where: people and
 * bots (service/server/seat_player.c), hosted AIs and operator engines
 * (service/seats/), and, when a person is away past the grace, a hosted AI
 * in custody of the seat (or a fault, in competition rooms). It turns the
 * table's public events into protocol events (proto/event.h values),
 * serialised once for every connection at the table, keeps the state
 * snapshot for people who arrive or come back, and stores every game.
 * Timers are embedded in the room and its seats.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/seats/seats.h"
#include "service/server/budget.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/room.h"
#include "service/server/seat_player.h"
#include "ai/greedy.h"
#include "service/table/runner.h"

enum room_phase { PH_WAITING = 0, PH_PLAYING, PH_BETWEEN, PH_TURN_OVER };

/* a state's phase for each room phase (a game being bid is DDZ_EVENT_PH_BID) */
static const int state_phase[] = {DDZ_EVENT_PH_WAITING, DDZ_EVENT_PH_PLAY, DDZ_EVENT_PH_BETWEEN,
                                  DDZ_EVENT_PH_TURN_OVER};

typedef struct rseat {
    ddz_room *room;
    int index;
    ddz_player *player; /* the person or bot holding the seat; NULL for programs */
    ddz_seat *away;     /* the player's own seat while an AI plays for it */
    char spec[48];      /* program seats: "ai:NAME" or "engine:NAME" */
    bool custody;       /* a hosted AI plays for the absent player */
    bool rematch;       /* voted for another turn */
    char label[48];     /* a tournament table: the player's ID, shown instead of the seat's name */
    ddz_timer grace;    /* custody timer of a dropped player */
} rseat;

struct ddz_room {
    ddz_room *next;
    ddz_srv *srv;
    char id[DDZ_EVENT_ROOM_ID_MAX]; /* NODE-XXXXXXXX in a cluster, else XXXXXXXX */
    ddz_room_opts opts;
    const ddz_rules *rules;
    rseat seats[3];
    ddz_player **watch; /* spectators */
    size_t nwatch, capwatch;
    ddz_runner *run;
    int phase; /* enum room_phase */
    int turn_no;
    uint8_t master[DDZ_SEED_BYTES];
    uint32_t dealt;           /* games dealt from the master seed before this turn */
    int64_t game_id;          /* store id of the current game */
    ddz_tev ask;              /* the open request, while `asking` */
    bool asking;              /* a request is open */
    ddz_timer pause;          /* between games, and the start after seating */
    ddz_event_over last_over; /* the last `over` event, for players who come back */
    bool has_last_over;       /* a game of the room has ended */
    bool dead;
    int engines;         /* engine seats it reserved (the engines budget) */
    ddz_addr *owner;     /* the address that created it (rooms per address), or NULL */
    bool idle;           /* nobody is connected to it: in the idle list */
    ddz_room *idle_prev; /* the idle list (context's budget), longest idle first */
    ddz_room *idle_next;
    ddz_tries tries;                      /* wrong passwords sent to it */
    char game_key[DDZ_STORE_KEY_HEX + 1]; /* the current game's link key; "" in a listed room */
    bool tourney; /* a tournament table: the runner is the director's, which starts the games */
};

/* ---- small helpers ---- */

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

ddz_tries *ddz__room_tries(ddz_room *r)
{
    return &r->tries;
}

bool ddz__room_has_free_seat(const ddz_room *r)
{
    if (!r->run)
        return false;
    for (int i = 0; i < 3; i++)
        if (!ddz_runner_seat_of(r->run, i))
            return true;
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

static const ddz_table *table(const ddz_room *r)
{
    return ddz_runner_table(r->run);
}

static bool live(const ddz_room *r)
{
    return r->run && r->phase == PH_PLAYING && ddz_table_running(table(r));
}

static const char *default_ai(const ddz_room *r)
{
    if (r->srv->cfg.default_ai)
        return r->srv->cfg.default_ai;
    return ddz_ai_exists("strong") ? "strong" : "greedy";
}

/* A seat's kind (enum ddz_event_kind): a person's or bot's own, else the
 * program's (service/seats: "ai" or "engine"). */
static int seat_kind(const rseat *s, const ddz_seat *st)
{
    if (s->player)
        return s->player->bot ? DDZ_EVENT_BOT : DDZ_EVENT_HUMAN;
    static const char *const kinds[] = {[DDZ_EVENT_HUMAN] = "human",
                                        [DDZ_EVENT_BOT] = "bot",
                                        [DDZ_EVENT_AI] = "ai",
                                        [DDZ_EVENT_ENGINE] = "engine"};
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(st->ops->kind, kinds[k]) == 0)
            return k;
    return DDZ_EVENT_AI;
}

/* Fills `p` with who holds seat `s` (not seated if nobody), without the
 * fields a state adds. Never fails. */
static void seat_player(const rseat *s, ddz_event_player *p)
{
    const ddz_seat *st = ddz_runner_seat_of(s->room->run, s->index);
    *p = (ddz_event_player){.bid = -1};
    if (!st && !s->player)
        return;
    const char *name = s->label[0]            ? s->label
                       : s->player            ? s->player->name
                       : st->ops->name(st)[0] ? st->ops->name(st)
                                              : s->spec;
    p->seated = true;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->kind = seat_kind(s, st);
    p->connected = s->player ? s->player->conn != NULL : ddz_seat_connected(st);
    p->custody = s->custody;
}

static void totals(const ddz_room *r, double out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = ddz_table_total(table(r), s);
}

/* Sends `e`, serialised once, to every spectator and, if `seated`, to
 * every seated player but `skip` (NULL-safe: it is sent its own version). */
static void send_event(ddz_room *r, const ddz_event *e, bool seated, const ddz_player *skip)
{
    char *text = ddz_msg_dump(ddz_event_print(e));
    if (!text)
        return;
    size_t len = strlen(text);
    for (int i = 0; seated && i < 3; i++) {
        const ddz_player *p = r->seats[i].player;
        if (p && p != skip && p->conn)
            ddz__conn_send_text(p->conn, text, len);
    }
    for (size_t i = 0; i < r->nwatch; i++)
        ddz__conn_send_text(r->watch[i]->conn, text, len);
    free(text);
}

/* Sends `e` to every seated player and spectator, serialised once. */
static void broadcast(ddz_room *r, const ddz_event *e)
{
    send_event(r, e, true, NULL);
}

static void seat_event(ddz_room *r, int s)
{
    ddz_event e = {.type = DDZ_EVENT_SEAT, .seat = {.seat = s}};
    seat_player(&r->seats[s], &e.seat.player);
    broadcast(r, &e);
}

/* ---- seats ---- */

static ddz_seat *make_program(ddz_room *r, int index, const char *spec, int *err)
{
    const ddz_server_cfg *cfg = &r->srv->cfg;
    char log_path[600];
    if (cfg->engine_log_dir && strncmp(spec, "engine:", 7) == 0)
        snprintf(log_path, sizeof log_path, "%s/%s-%s-%d.stderr.log", cfg->engine_log_dir, spec + 7,
                 r->id, index);
    uint64_t seed;
    randombytes_buf(&seed, sizeof seed);
    if (strncmp(spec, "ai:", 3) == 0 && r->srv->budget.ais >= ddz__budget_max_ais(r->srv)) {
        ddz__budget_refused(r->srv, DDZ_BUDGET_AIS);
        *err = DDZ_EBUSY;
        return NULL;
    }
    ddz_seat_env env = {
        .loop = &r->srv->loop.base,
        .think = r->srv->think,
        .nengines = cfg->nengines,
        .engine_name = (const char *const *)cfg->engine_name,
        .engine_cmd = (const char *const *)cfg->engine_cmd,
        .engine_protocol = cfg->engine_protocol,
        .stderr_log = cfg->engine_log_dir && strncmp(spec, "engine:", 7) == 0 ? log_path : NULL,
        .time_ms = r->opts.time * 1000,
        .kill_grace_ms = -1, /* never let a stopping engine hold the loop */
        .engines_running = &r->srv->m.engines,
        .ais_alive = &r->srv->budget.ais,
        .ais_created = &r->srv->budget.ais_created,
        .ai_seed = seed,
        /* a quarter of the table's time limit, at most a second */
        .ai_budget_ms = r->opts.time * 250 < 1000 ? r->opts.time * 250 : 1000,
    };
    char msg[200];
    return ddz_seat_create(spec, &env, err, msg, sizeof msg);
}

/* A hosted AI in seat `s`, for good (spec) or in custody of its player. */
static int seat_ai(ddz_room *r, rseat *s, const char *spec)
{
    int err = 0;
    ddz_seat *ai = make_program(r, s->index, spec, &err);
    if (!ai)
        return err;
    ddz_runner_seat(r->run, s->index, ai);
    return 0;
}

/* ---- the table's events ---- */

static void start_game(ddz_room *r);

static void on_pause(ddz_timer *t)
{
    ddz_room *r = (ddz_room *)((char *)t - offsetof(ddz_room, pause));
    if (r->phase == PH_BETWEEN || r->phase == PH_WAITING)
        start_game(r);
}

static void turn_over(ddz_room *r)
{
    r->phase = PH_TURN_OVER;
    const char *names[3];
    const ddz_record *rec = ddz_table_record(table(r));
    for (int s = 0; s < 3; s++) {
        names[s] = rec->names[s];
        r->seats[s].rematch = r->seats[s].player == NULL;
    }
    double sums[3];
    for (int s = 0; s < 3; s++)
        sums[s] = ddz_table_total(table(r), s);
    ddz_store_add_turn(r->srv->store, r->id, r->turn_no, r->opts.games, names, sums);
    ddz_event e = {.type = DDZ_EVENT_TURN_OVER, .turn_over = {.games = r->opts.games}};
    totals(r, e.turn_over.totals);
    broadcast(r, &e);
}

/* Names as the room knows them: a person in custody keeps its name. */
static void name_seats(const ddz_room *r, ddz_record *rec)
{
    for (int s = 0; s < 3; s++)
        if (r->seats[s].player)
            snprintf(rec->names[s], sizeof rec->names[s], "%.*s", (int)sizeof rec->names[s] - 1,
                     r->seats[s].player->name);
}

static void on_over(void *ctx, const ddz_record *record)
{
    ddz_room *r = ctx;
    ddz_record rec = *record;
    name_seats(r, &rec);
    r->asking = false;
    ddz_store_add_game(r->srv->store, r->game_id, r->id, r->game_key[0] ? r->game_key : NULL, &rec,
                       false);
    for (int i = 0; i < 3; i++) /* "my games": who played it, by their browsers' hashes */
        if (r->seats[i].player && r->seats[i].player->has_me)
            ddz_store_add_mine(r->srv->store, r->game_id, i, r->seats[i].player->me);
    r->srv->m.games_finished++;
    if (rec.fault_seat >= 0)
        r->srv->m.faults[rec.fault_kind < 5 ? rec.fault_kind : 0]++;

    ddz_event e = {.type = DDZ_EVENT_OVER};
    ddz_event_over *o = &e.over;
    ddz_event_over_fill(o, ddz_table_state(table(r)), &rec);
    o->game_id = r->game_id;
    _Static_assert(sizeof o->game_key == sizeof r->game_key, "one key, two modules");
    memcpy(o->game_key, r->game_key, sizeof o->game_key);
    totals(r, o->totals);
    r->last_over = *o;
    r->has_last_over = true;
    broadcast(r, &e);
    if (r->tourney) {
        r->phase = PH_BETWEEN; /* the director starts the next game */
    } else if (!ddz_table_done(table(r))) {
        r->phase = PH_BETWEEN;
        ddz_loop_arm(&r->srv->loop.base, &r->pause, on_pause, (int64_t)r->opts.pause * 1000000);
    }
}

/* What everyone at the table hears; the seats already had their own. */
static void on_event(void *ctx, const ddz_tev *ev)
{
    ddz_room *r = ctx;
    const ddz_game *g = ddz_table_state(table(r));
    ddz_event e = {0};
    switch (ev->kind) {
    case DDZ_TEV_GAME:
        if (ev->to == DDZ_TO_WATCHERS) {
            ddz__game_event(table(r), ev, false, &e);
            send_event(r, &e, false, NULL);
        } else if (ev->to >= 0 && ev->to < 3 && r->seats[ev->to].custody &&
                   r->seats[ev->to].player && r->seats[ev->to].player->conn) {
            /* the AI in custody had the game; its player, watching, gets
             * its hand as its own seat would have */
            ddz__game_event(table(r), ev, true, &e);
            ddz__conn_send(r->seats[ev->to].player->conn, ddz_event_print(&e));
        }
        break;
    case DDZ_TEV_ASK: {
        r->ask = *ev;
        r->asking = true;
        /* the player to act gets its own turn, with the legal answers */
        const rseat *actor = &r->seats[ev->seat];
        const ddz_seat *st = ddz_runner_seat_of(r->run, ev->seat);
        bool own = actor->player && st && st->ops->ask && !actor->custody;
        e.type = DDZ_EVENT_TURN;
        ddz__turn_event(table(r), ev, false, &e.turn);
        send_event(r, &e, true, own ? actor->player : NULL);
        break;
    }
    case DDZ_TEV_BID:
        e = (ddz_event){.type = DDZ_EVENT_BID_MADE, .bid_made = {.seat = ev->seat, .bid = ev->bid}};
        broadcast(r, &e);
        break;
    case DDZ_TEV_LEFTOVER:
        e = (ddz_event){.type = DDZ_EVENT_LEFTOVER,
                        .leftover = {.landlord = ev->seat, .cards = ev->cards, .bid = g->bid}};
        broadcast(r, &e);
        break;
    case DDZ_TEV_PLAY: /* the rules classified it: the event says how */
        e = (ddz_event){.type = DDZ_EVENT_PLAYED,
                        .played = {.seat = ev->seat,
                                   .cards = ev->cards,
                                   .combo = ev->combo,
                                   .autopass = ev->autopass,
                                   .left = ddz_cards_count(g->hand[ev->seat]),
                                   .multiplier = g->rules->multiplier_so_far(g)}};
        broadcast(r, &e);
        break;
    case DDZ_TEV_FAULT: /* only where the game goes on (botzone-ftl2) */
        e = (ddz_event){.type = DDZ_EVENT_FAULT,
                        .fault = {.seat = ev->fault_seat, .kind = ev->fault_kind}};
        broadcast(r, &e);
        break;
    case DDZ_TEV_SERIES:
        turn_over(r);
        break;
    default:
        break;
    }
}

static void on_log(void *ctx, int player, bool warn, const char *msg)
{
    ddz_room *r = ctx;
    (void)player;
    ddz__log(r->srv, warn ? "warn" : "info", r->id, "%s", msg);
}

static bool humans_present(const ddz_room *r)
{
    for (int i = 0; i < 3; i++)
        if (r->seats[i].player && !r->seats[i].player->bot)
            return true;
    return false;
}

/* A short, human-friendly pause before a hosted AI acts when people play
 * or watch. A bot (a bridge) is no person: a table of programs plays at
 * their speed. */
static int64_t think_delay(void *ctx)
{
    ddz_room *r = ctx;
    return humans_present(r) || r->nwatch ? r->srv->cfg.ai_delay_ms * 1000LL : 0;
}

static void new_series(ddz_room *r)
{
    ddz_table_cfg tc = {
        .rules = r->rules,
        .deals = r->opts.games,
        .time_ms = r->opts.time * 1000,
        .turn = r->turn_no + 1,
        .turns = r->turn_no + 1,
        .first_deal = r->dealt,
    };
    memcpy(tc.master, r->master, sizeof tc.master);
    for (int s = 0; s < 3; s++)
        tc.autopass[s] = r->seats[s].player && r->seats[s].player->autopass;
    ddz_runner_series(r->run, &tc);
}

static void start_game(ddz_room *r)
{
    for (int s = 0; s < 3; s++)
        if (!ddz_runner_seat_of(r->run, s)) {
            r->phase = PH_WAITING;
            return;
        }
    if (ddz_table_done(table(r)))
        new_series(r);
    r->game_id = ddz_store_reserve_game_id(r->srv->store);
    /* a game of a room not listed, or behind a password, is read only
     * under a key its players get (docs/decisions.md) */
    if (r->opts.priv || r->opts.password[0])
        ddz_store_new_game_key(r->game_key);
    else
        r->game_key[0] = '\0';
    r->srv->m.games_started++;
    r->phase = PH_PLAYING;
    r->dealt++;
    if (ddz_runner_start(r->run) < 0)
        r->phase = PH_WAITING;
}

static void maybe_start(ddz_room *r)
{
    if (r->phase != PH_WAITING)
        return;
    for (int s = 0; s < 3; s++)
        if (!ddz_runner_seat_of(r->run, s))
            return;
    /* Started from the loop, so whoever just sat is told `joined` first. */
    ddz_loop_arm(&r->srv->loop.base, &r->pause, on_pause, 0);
}

/* ---- seating ---- */

static void check_dead(ddz_room *r);
static void idle_update(ddz_room *r);
static bool anyone_may_come(const ddz_room *r, int skip);

/* Puts seat `s` in the custody of a hosted AI (its player's own seat kept
 * aside), without asking it anything: the caller asks it the open request
 * or lets the runner do so. Returns 0, or DDZ_EBUSY when the AI budget is
 * spent (the seat then stays its player's). */
static int take_custody(ddz_room *r, rseat *s)
{
    char spec[48];
    snprintf(spec, sizeof spec, "ai:%s", default_ai(r));
    ddz_seat *mine = ddz_runner_unseat(r->run, s->index);
    int rc = seat_ai(r, s, spec);
    if (rc < 0) {
        /* no AI to be had (the AI budget is spent): the seat stays its
         * player's, and the clock charges it as it would an absent one */
        ddz_runner_seat(r->run, s->index, mine);
        ddz__log(r->srv, "warn", r->id, "seat %d: no hosted AI free for custody", s->index);
        return rc;
    }
    s->away = mine;
    s->custody = true;
    return 0;
}

/* Gives seat `s` back to its player (the custody AI goes) and asks it the
 * open request, if it is its turn. */
static void end_custody(ddz_room *r, rseat *s)
{
    if (!s->custody)
        return;
    s->custody = false;
    ddz_runner_seat(r->run, s->index, s->away);
    s->away = NULL;
    ddz_runner_reask(r->run, s->index);
}

static void on_grace(ddz_timer *t)
{
    rseat *s = (rseat *)((char *)t - offsetof(rseat, grace));
    ddz_room *r = s->room;
    if (!s->player || s->player->conn)
        return;
    if (s->custody) {
        /* an AI already plays the seat (its time ran out first) */
        check_dead(r);
        return;
    }
    if (!r->tourney && !anyone_may_come(r, s->index)) {
        /* Nobody will see the seat played: a custody AI would only be
         * made to be freed with the room (5,000 abandoned rooms made
         * 5,000 AIs at once). The room closes. */
        check_dead(r);
        return;
    }
    if (r->opts.custody == DDZ_CUSTODY_FAULT) {
        if (live(r))
            ddz_runner_fault(r->run, s->index, DDZ_FAULT_CRASH, "player gone past the grace");
        check_dead(r);
        return;
    }
    if (take_custody(r, s) < 0)
        return;
    ddz_runner_reask(r->run, s->index);
    ddz__log(r->srv, "info", r->id, "seat %d: a hosted AI takes over", s->index);
    seat_event(r, s->index);
    check_dead(r);
}

/* The runner's clock found `player`'s request overdue. In a casual room
 * (custody "ai") a person is not charged a fault: a hosted AI takes the
 * seat over (托管) until the player takes it back, and the runner asks it
 * the request afresh. Bots are programs and keep the SPEC 6 timeout, as
 * does every seat of a competition room (custody "fault"). */
static bool on_timeout(void *ctx, int player)
{
    ddz_room *r = ctx;
    rseat *s = &r->seats[player];
    if (r->tourney || r->opts.custody != DDZ_CUSTODY_AI || !s->player || s->player->bot ||
        s->custody || take_custody(r, s) < 0)
        return false;
    ddz__log(r->srv, "info", r->id, "seat %d: out of time, a hosted AI plays for it", player);
    seat_event(r, player);
    return true;
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
    r->engines = engines;
    srv->budget.engines += engines;
    r->owner = owner;
    ddz__budget_room_open(owner);
    r->opts = *opts;
    r->rules = rules;
    new_id(srv, r->id);
    if (!r->opts.name[0])
        snprintf(r->opts.name, sizeof r->opts.name, "Room %ld", ++srv->rooms.named);
    randombytes_buf(r->master, sizeof r->master);
    ddz_runner_cb cb = {.ctx = r,
                        .event = on_event,
                        .over = on_over,
                        .log = on_log,
                        .think_delay_us = think_delay,
                        .timeout = on_timeout};
    r->run = ddz_runner_create(&srv->loop.base, &cb);
    if (!r->run) {
        free(r);
        *err = DDZ_ENOMEM;
        return NULL;
    }
    new_series(r);
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        s->room = r;
        s->index = i;
        const char *spec = opts->seats[i];
        if (!spec[0])
            continue;
        int rc = seat_ai(r, s, spec);
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
        int rc = seat_ai(r, s, r->opts.fill);
        if (rc < 0)
            return rc;
        snprintf(s->spec, sizeof s->spec, "%s", r->opts.fill);
        seat_event(r, i);
    }
    maybe_start(r);
    return 0;
}

int ddz__room_sit(ddz_room *r, ddz_player *p, int want)
{
    ddz__player_leave(p); /* one room at a time */
    if (p->bot && !r->opts.bots)
        return DDZ_EAUTH;
    int seat_no = -1;
    if (want >= 0) {
        if (ddz_runner_seat_of(r->run, want))
            return DDZ_EINVAL;
        seat_no = want;
    } else {
        for (int i = 0; i < 3 && seat_no < 0; i++)
            if (!ddz_runner_seat_of(r->run, i))
                seat_no = i;
        if (seat_no < 0)
            return DDZ_EFULL;
    }
    ddz_seat *st = ddz__seat_player_create(r->srv, p);
    if (!st)
        return DDZ_ENOMEM;
    rseat *s = &r->seats[seat_no];
    s->player = p;
    s->custody = false;
    ddz_runner_seat(r->run, seat_no, st);
    p->room = r;
    p->seat = seat_no;
    p->autopass = r->opts.autopass;
    ddz_runner_set_autopass(r->run, seat_no, p->autopass);
    seat_event(r, seat_no);
    idle_update(r);
    maybe_start(r);
    return seat_no;
}

int ddz__room_watch(ddz_room *r, ddz_player *p)
{
    ddz__player_leave(p); /* one room at a time */
    if (r->nwatch == r->capwatch) {
        size_t cap = r->capwatch ? 2 * r->capwatch : 4;
        ddz_player **w = realloc(r->watch, cap * sizeof *w);
        if (!w)
            return DDZ_ENOMEM;
        r->watch = w;
        r->capwatch = cap;
    }
    r->watch[r->nwatch++] = p;
    p->room = r;
    p->seat = -1;
    idle_update(r);
    return 0;
}

void ddz__room_abort(ddz_room *r)
{
    if (!live(r))
        return;
    ddz_record rec;
    ddz_runner_abort(r->run, &rec);
    name_seats(r, &rec);
    r->asking = false;
    ddz_store_add_game(r->srv->store, r->game_id, r->id, r->game_key[0] ? r->game_key : NULL, &rec,
                       true);
    r->srv->m.games_aborted++;
    r->phase = PH_WAITING;
}

/* Whether anyone but seat `skip` (-1: none) is connected to `r`, watches
 * it, or may still come back (a dropped player within the grace period). */
static bool anyone_may_come(const ddz_room *r, int skip)
{
    bool anyone = r->nwatch > 0;
    int64_t now = ddz__now_us(), grace = (int64_t)r->opts.grace * 1000000;
    for (int i = 0; i < 3; i++) {
        const rseat *s = &r->seats[i];
        if (!s->player || i == skip)
            continue;
        if (s->player->conn || (r->phase != PH_WAITING && now - s->player->gone_us < grace))
            anyone = true;
    }
    return anyone;
}

/* Whether anyone is connected to `r` (seated or watching). */
static bool anyone_connected(const ddz_room *r)
{
    if (r->nwatch > 0)
        return true;
    for (int i = 0; i < 3; i++)
        if (r->seats[i].player && r->seats[i].player->conn)
            return true;
    return false;
}

/* Closes `r`: its game is recorded as aborted, it is reaped on the loop's
 * next turn (its engines and AIs go then, not at the next tick). */
static void close_room(ddz_room *r, const char *why)
{
    if (r->dead)
        return;
    r->dead = true;
    ddz__reap_soon(r->srv);
    ddz_loop_disarm(&r->srv->loop.base, &r->pause);
    ddz__room_abort(r);
    ddz__log(r->srv, "info", r->id, "room closed%s", why);
}

static void idle_unlink(ddz_room *r)
{
    ddz_budget *b = &r->srv->budget;
    if (!r->idle)
        return;
    *(r->idle_prev ? &r->idle_prev->idle_next : &b->idle_head) = r->idle_next;
    *(r->idle_next ? &r->idle_next->idle_prev : &b->idle_tail) = r->idle_prev;
    r->idle_prev = r->idle_next = NULL;
    r->idle = false;
    b->idle_rooms--;
}

/* Keeps `r` in the idle list while it lives and nobody is connected to it.
 * Past --max-idle-rooms, the room idle the longest closes: rooms kept for
 * absent players are what an attacker can pile up without holding a
 * connection (5,000 create-and-drop: 0.69 GB), and under that pressure the
 * oldest is the least likely to see its players back. */
static void idle_update(ddz_room *r)
{
    ddz_budget *b = &r->srv->budget;
    bool idle = !r->dead && !r->tourney && !anyone_connected(r);
    if (idle == r->idle)
        return;
    if (!idle) {
        idle_unlink(r);
        return;
    }
    r->idle = true;
    r->idle_prev = b->idle_tail;
    *(b->idle_tail ? &b->idle_tail->idle_next : &b->idle_head) = r;
    b->idle_tail = r;
    b->idle_rooms++;
    while (b->idle_rooms > ddz__budget_max_idle_rooms(r->srv)) {
        ddz_room *oldest = b->idle_head;
        ddz__budget_refused(r->srv, DDZ_BUDGET_IDLE_ROOMS);
        close_room(oldest, ": too many rooms nobody is connected to");
        idle_unlink(oldest);
    }
}

/* A room lives while someone is connected to it, watches it, or may still
 * come back (a dropped player within the grace period). A room left to
 * hosted AIs and absent players closes; a game cut that way is recorded as
 * aborted. */
static void check_dead(ddz_room *r)
{
    if (r->tourney)
        return; /* it lives as long as its table: the director ends it */
    if (!anyone_may_come(r, -1))
        close_room(r, "");
    if (r->dead)
        idle_unlink(r);
    else
        idle_update(r);
}

/* `p` leaves `r`'s audience or seat (ddz__player_leave says how). */
static void room_leave(ddz_room *r, ddz_player *p)
{
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i] == p) {
            r->watch[i] = r->watch[--r->nwatch];
            check_dead(r);
            return;
        }
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        if (s->player != p)
            continue;
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        s->player = NULL;
        ddz_seat_close(s->away);
        s->away = NULL;
        bool was_custody = s->custody;
        s->custody = false;
        if (r->tourney) {
            /* a competition's seat is played to the end: nobody holds it
             * now, and it is charged when asked */
            ddz_seat_env env = {.loop = &r->srv->loop.base};
            int err;
            ddz_seat *gone =
                ddz_seat_absent_create(s->label[0] ? s->label : p->name, true, &env, &err);
            if (r->run) {
                ddz_runner_seat(r->run, i, gone);
                ddz_runner_reask(r->run, i);
            } else {
                ddz_seat_close(gone);
            }
        } else if (r->phase == PH_WAITING || r->phase == PH_TURN_OVER) {
            ddz_runner_seat(r->run, i, NULL);
            s->spec[0] = '\0';
            if (r->phase == PH_TURN_OVER)
                r->phase = PH_WAITING;
        } else {
            /* mid-turn: a hosted AI finishes the turn in this seat, if
             * anyone is left to see it (else the room closes below) */
            snprintf(s->spec, sizeof s->spec, "ai:%s", default_ai(r));
            if (!was_custody && (!anyone_may_come(r, i) || seat_ai(r, s, s->spec) < 0))
                ddz_runner_seat(r->run, i, NULL);
            ddz_runner_reask(r->run, i);
        }
        seat_event(r, i);
        break;
    }
    check_dead(r);
}

void ddz__player_leave(ddz_player *p)
{
    ddz_room *r = p->room;
    p->room = NULL;
    p->seat = -1;
    if (r)
        room_leave(r, p); /* a closed room not reaped yet too: it must not keep `p` */
}

void ddz__room_connection(ddz_room *r, ddz_player *p, bool connected)
{
    if (p->seat < 0) {
        if (!connected)
            ddz__player_leave(p); /* a spectator that drops simply goes */
        return;
    }
    rseat *s = &r->seats[p->seat];
    if (s->player != p)
        return;
    if (connected) {
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        /* the player takes the seat back: the AI goes (the state snapshot
         * that follows the resume carries the open request) */
        if (s->custody) {
            s->custody = false;
            ddz_runner_seat(r->run, s->index, s->away);
            s->away = NULL;
        }
    } else if (r->phase == PH_WAITING && !r->tourney) {
        ddz__player_leave(p);
        return;
    } else {
        ddz_loop_arm(&r->srv->loop.base, &s->grace, on_grace, (int64_t)r->opts.grace * 1000000);
    }
    seat_event(r, p->seat);
    check_dead(r);
}

/* `custody` {on}: a player hands its seat to a hosted AI (托管) or takes
 * it back ("I'm back"). Casual rooms only: in a competition room the seat
 * is its player's, and a bot is a program that answers for itself. */
static void on_custody(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    rseat *s = &r->seats[p->seat];
    if (!q->on) {
        if (!s->custody) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "no hosted AI plays your seat", q);
            return;
        }
        end_custody(r, s);
        ddz__log(r->srv, "info", r->id, "seat %d: its player takes it back", s->index);
        seat_event(r, s->index);
        return;
    }
    if (r->tourney || r->opts.custody != DDZ_CUSTODY_AI || p->bot) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "auto-play is for people in casual rooms", q);
        return;
    }
    if (r->phase != PH_PLAYING && r->phase != PH_BETWEEN) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "no game is being played", q);
        return;
    }
    if (s->custody)
        return; /* already */
    int rc = take_custody(r, s);
    if (rc < 0) {
        ddz__conn_error(p->conn, rc, "no hosted AI is free: try again later", q);
        return;
    }
    ddz_runner_reask(r->run, s->index);
    ddz__log(r->srv, "info", r->id, "seat %d: its player hands it to a hosted AI", s->index);
    seat_event(r, s->index);
}

/* A sliding-window limit: true (and `now` recorded) when the oldest of the
 * `n` times in `t` is at least `span` µs old, else false. */
static bool window_ok(int64_t *t, int n, int64_t now, int64_t span)
{
    if (t[0] && now - t[0] < span)
        return false;
    memmove(t, t + 1, (size_t)(n - 1) * sizeof *t);
    t[n - 1] = now;
    return true;
}

/* `hint`: the plays ai:greedy would consider first for the seat's open
 * request, from the seat's own view (its hand and what everyone saw), so
 * it tells nothing hidden. Only the seat to move, while it plays itself,
 * at most 4 hints in 5 s (the client asks once a turn and cycles). */
static void on_hint(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    if (!live(r) || !r->asking || r->ask.seat != ddz_table_seat_of(table(r), p->seat) ||
        r->seats[p->seat].custody) {
        ddz__conn_error(p->conn, DDZ_ETURN, "hints are for the seat to move", q);
        return;
    }
    if (r->ask.action != DDZ_EV_ASK_PLAY) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "hints are for plays, not bids", q);
        return;
    }
    int n = (int)(sizeof p->hints_us / sizeof p->hints_us[0]);
    if (!window_ok(p->hints_us, n, ddz__now_us(), 5000000)) {
        ddz__conn_error(p->conn, DDZ_ERATE, "too many hints: wait a little", q);
        return;
    }
    ddz_move *moves = malloc(DDZ_MOVES_MAX * sizeof *moves);
    if (!moves) {
        ddz__conn_error(p->conn, DDZ_ENOMEM, NULL, q);
        return;
    }
    ddz_view v;
    ddz_view_of(ddz_table_state(table(r)), r->ask.seat, &v);
    ddz_event e = {.type = DDZ_EVENT_HINT, .hint = {.seq = r->ask.seq}};
    e.hint.n =
        (size_t)ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, e.hint.plays, DDZ_EVENT_HINTS_MAX);
    free(moves);
    ddz__conn_send(p->conn, ddz_event_print(&e));
}

/* `phrase`: one of the fixed quick phrases, to everyone at the table; at
 * most 3 in 10 s a player (a number, never free text: strangers can't
 * write to each other). */
static void on_phrase(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    int n = (int)(sizeof p->phrases_us / sizeof p->phrases_us[0]);
    if (!window_ok(p->phrases_us, n, ddz__now_us(), 10000000)) {
        ddz__conn_error(p->conn, DDZ_ERATE, "too many phrases: wait a little", q);
        return;
    }
    ddz_event e = {.type = DDZ_EVENT_PHRASE, .phrase = {.seat = p->seat, .phrase = q->phrase}};
    broadcast(r, &e);
}

void ddz__room_request(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    int64_t t0 = ddz__now_us();
    if (q->type == DDZ_REQ_AUTOPASS) {
        p->autopass = q->on;
        if (p->seat >= 0)
            ddz_runner_set_autopass(r->run, p->seat, q->on);
        ddz__room_send_state(r, p);
        return;
    }
    if (p->seat < 0) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "spectators cannot act", q);
        return;
    }
    if (q->type == DDZ_REQ_CUSTODY) {
        on_custody(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_HINT) {
        on_hint(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_PHRASE) {
        on_phrase(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_REMATCH) {
        if (r->tourney) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "a tournament table: the director seats you", q);
            return;
        }
        if (r->phase != PH_TURN_OVER) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "the turn is not over", q);
            return;
        }
        r->seats[p->seat].rematch = true;
        for (int i = 0; i < 3; i++)
            if (!r->seats[i].rematch)
                return;
        r->turn_no++;
        new_series(r);
        start_game(r);
        return;
    }
    if (!live(r)) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "no game is being played", q);
        return;
    }
    ddz_seat *st = ddz_runner_seat_of(r->run, p->seat);
    int rc =
        !st || r->seats[p->seat].custody
            ? DDZ_ETURN
            : ddz_runner_act(r->run, st, q->type == DDZ_REQ_BID ? DDZ_EV_ASK_BID : DDZ_EV_ASK_PLAY,
                             q->seq, q->bid, q->cards);
    if (rc < 0) {
        ddz__conn_error(p->conn, rc, NULL, q);
        return;
    }
    ddz__metrics_latency(r->srv, ddz__now_us() - t0);
}

/* Sets `p`'s latest action in the current trick, if seat `s` has one. */
static void last_play(const ddz_room *r, int s, ddz_event_player *p)
{
    const ddz_record *rec = ddz_table_record(table(r));
    for (int i = rec->nplays - 1; i >= 0 && i >= rec->nplays - 3; i--)
        if (rec->plays[i].seat == s) {
            p->has_last = true;
            p->last = rec->plays[i].cards;
            p->last_combo = rec->plays[i].combo; /* as the referee classified it */
            return;
        }
}

/* The game number a snapshot shows: the game being played, the last one
 * between games, all of them after the turn. */
static int state_game(const ddz_room *r)
{
    int started = table(r)->next;
    switch (r->phase) {
    case PH_TURN_OVER:
        return r->opts.games;
    case PH_WAITING:
        return started > 0 && !ddz_table_done(table(r)) ? started : 1;
    default:
        return started;
    }
}

void ddz__room_send_state(ddz_room *r, ddz_player *p)
{
    if (!p->conn || !r->run)
        return;
    const ddz_table *t = table(r);
    const ddz_game *g = ddz_table_state(t);
    const ddz_record *rec = ddz_table_record(t);
    bool in_game = r->phase == PH_PLAYING || r->phase == PH_BETWEEN;
    bool is_live = live(r);
    bool dealt = in_game && g->landlord >= 0; /* the leftover is revealed */
    ddz_event e = {.type = DDZ_EVENT_STATE};
    ddz_event_state *st = &e.state;
    snprintf(st->room, sizeof st->room, "%s", r->id);
    snprintf(st->room_name, sizeof st->room_name, "%s", r->opts.name);
    st->password = r->opts.password[0] != '\0'; /* the password itself is never sent */
    st->options = (ddz_event_options){
        .time = r->opts.time,
        .games = r->opts.games,
        .priv = r->opts.priv,
        .bots = r->opts.bots,
        .autopass = r->opts.autopass,
        .grace = r->opts.grace,
        .custody = r->opts.custody == DDZ_CUSTODY_FAULT ? DDZ_CUSTODY_FAULT : DDZ_CUSTODY_AI,
        .pause = r->opts.pause,
    };
    snprintf(st->options.rules, sizeof st->options.rules, "%s", r->opts.rules);
    st->seat = p->seat;
    st->phase = is_live && g->phase == DDZ_PHASE_BID ? DDZ_EVENT_PH_BID : state_phase[r->phase];
    st->game = state_game(r);
    st->games = r->opts.games;
    st->has_commit = is_live;
    memcpy(st->commit, rec->commit, sizeof st->commit);
    for (int s = 0; s < 3; s++) {
        ddz_event_player *pl = &st->players[s];
        seat_player(&r->seats[s], pl);
        if (!pl->seated || !in_game)
            continue;
        pl->in_game = true;
        pl->left = ddz_cards_count(g->hand[s]);
        pl->bid = g->bids[s];
        pl->role = g->landlord < 0    ? DDZ_EVENT_ROLE_NONE
                   : g->landlord == s ? DDZ_EVENT_ROLE_LANDLORD
                                      : DDZ_EVENT_ROLE_FARMER;
        pl->faulted = g->rules->fault_policy == DDZ_FAULTPOLICY_PLAY_ON && (g->faulted >> s & 1);
        last_play(r, s, pl);
    }
    st->has_hand = p->seat >= 0 && in_game;
    st->hand = st->has_hand ? g->hand[p->seat] : 0;
    st->has_leftover = dealt;
    st->leftover = g->deal.leftover;
    st->landlord = dealt ? g->landlord : -1;
    st->bid = dealt ? g->bid : -1;
    st->multiplier = dealt ? g->rules->multiplier_so_far(g) : 0;
    st->history = rec->plays;
    st->nhistory = in_game ? rec->nplays : 0;
    st->has_turn = is_live && r->asking;
    bool mine = st->has_turn && p->seat == r->ask.seat && !r->seats[p->seat].custody;
    ddz_cards *plays = st->has_turn ? ddz__turn_event(t, &r->ask, mine, &st->turn) : NULL;
    totals(r, st->totals);
    st->autopass = p->autopass;
    /* between games or after a turn, the last result (a player who comes
     * back then still sees how the game ended and its replay id) */
    st->has_result = !is_live && r->has_last_over;
    st->result = r->last_over;
    ddz__conn_send(p->conn, ddz_event_print(&e));
    free(plays);
}

bool ddz__room_is_tourney(const ddz_room *r)
{
    return r->tourney;
}

/* ---- tournament tables (service/server/tourney_srv.c) ---- */

ddz_room *ddz__room_create_tourney(ddz_srv *srv, const ddz_room_opts *opts, ddz_runner *run)
{
    ddz_room *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = srv;
    r->opts = *opts;
    r->rules = ddz_rules_find(opts->rules);
    if (!r->rules)
        r->rules = &ddz_rules_caai;
    r->tourney = true;
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

void ddz__room_label(ddz_room *r, int seat, const char *label)
{
    snprintf(r->seats[seat].label, sizeof r->seats[seat].label, "%s", label);
}

void ddz__room_bind(ddz_room *r, int seat, ddz_player *p)
{
    rseat *s = &r->seats[seat];
    if (s->player && s->player != p && s->player->room == r)
        s->player->room = NULL, s->player->seat = -1;
    if (p && (p->room != r || p->seat != seat))
        ddz__player_leave(p); /* from any other room or seat: one at a time */
    ddz_loop_disarm(&r->srv->loop.base, &s->grace);
    s->player = p;
    s->custody = false;
    if (!p) {
        seat_event(r, seat);
        return;
    }
    p->room = r;
    p->seat = seat;
    if (p->conn) {
        ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = seat}};
        snprintf(e.joined.room, sizeof e.joined.room, "%s", r->id);
        ddz__conn_send(p->conn, ddz_event_print(&e));
        ddz__room_send_state(r, p);
    }
    seat_event(r, seat);
}

void ddz__room_tourney_event(ddz_room *r, const ddz_tev *ev)
{
    if (!r->run)
        return;
    if (ev->kind == DDZ_TEV_GAME && r->phase != PH_PLAYING) {
        /* the director started a game */
        r->game_id = ddz_store_reserve_game_id(r->srv->store);
        r->game_key[0] = '\0';
        r->srv->m.games_started++;
        r->phase = PH_PLAYING;
    }
    on_event(r, ev);
}

int64_t ddz__room_tourney_over(ddz_room *r, const ddz_record *rec)
{
    if (!r->run)
        return 0;
    on_over(r, rec);
    return r->game_id;
}

void ddz__room_detach(ddz_room *r)
{
    if (!r->run)
        return;
    ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = -1}};
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        ddz_player *p = s->player;
        s->player = NULL;
        if (p && p->room == r) {
            p->room = NULL;
            p->seat = -1;
            if (p->conn)
                ddz__conn_send(p->conn, ddz_event_print(&e));
        }
    }
    for (size_t i = 0; i < r->nwatch; i++) {
        ddz_player *p = r->watch[i];
        if (p->room == r) {
            p->room = NULL;
            p->seat = -1;
            if (p->conn)
                ddz__conn_send(p->conn, ddz_event_print(&e));
        }
    }
    r->nwatch = 0;
    r->asking = false;
    r->run = NULL; /* the director's: it goes on to the next table */
    r->dead = true;
    ddz__reap_soon(r->srv);
}

void ddz__room_summary(const ddz_room *r, ddz_event_room *out)
{
    *out = (ddz_event_room){
        .time = r->opts.time,
        .games = r->opts.games,
        .priv = r->opts.priv,
        .bots = r->opts.bots,
        .password = r->opts.password[0] != '\0',
        .spectators = (int)r->nwatch,
        .playing = r->phase != PH_WAITING,
    };
    snprintf(out->id, sizeof out->id, "%s", r->id);
    snprintf(out->name, sizeof out->name, "%s", r->opts.name);
    snprintf(out->rules, sizeof out->rules, "%s", r->opts.rules);
    for (int s = 0; s < 3; s++)
        seat_player(&r->seats[s], &out->seats[s]);
}

void ddz__room_destroy(ddz_room *r)
{
    ddz_loop_disarm(&r->srv->loop.base, &r->pause);
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        ddz_seat_close(s->away);
        if (s->player && s->player->room == r)
            s->player->room = NULL, s->player->seat = -1;
    }
    if (!r->tourney)
        ddz_runner_destroy(r->run); /* engines stopped, AI decisions orphaned */
    r->srv->budget.engines -= r->engines;
    ddz__budget_room_close(r->srv, r->owner);
    idle_unlink(r);
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i]->room == r)
            r->watch[i]->room = NULL;
    free(r->watch);
    free(r);
}
