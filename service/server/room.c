/* room.c - a table: three seats, spectators, one referee, its clocks.
 *
 * Referee events become protocol events here (`pump`): each seated player
 * gets its own hand and, on its turn, its legal plays; spectators get no
 * hand until the game is over. Hosted AIs act from an lws timer, never
 * inside the callback that asked them, so the loop stays responsive and a
 * room is never re-entered. Timers are embedded in the room and seats.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/engine/caai_seat.h"
#include "proto/text.h"
#include "rules/error.h"
#include "rules/movegen.h"
#include "service/server/srv_internal.h"

enum seat_kind { SEAT_OPEN = 0, SEAT_PLAYER, SEAT_AI, SEAT_ENGINE };
enum room_phase { PH_WAITING = 0, PH_PLAYING, PH_BETWEEN, PH_TURN_OVER };

static const char *const phase_names[] = {"waiting", "play", "between", "turn_over"};

typedef struct seat {
    ddz_room *room;
    int index;
    int kind;                         /* enum seat_kind */
    ddz_player *player;               /* SEAT_PLAYER */
    ddz_ai *ai;                       /* SEAT_AI, or custody of an absent player */
    char spec[48];                    /* "ai:greedy" for AI seats */
    bool custody;                     /* `ai` plays for `player` */
    bool rematch;                     /* voted for another turn */
    lws_sorted_usec_list_t grace;     /* custody timer of a dropped player */
    ddz_caai_seat *cs;                /* SEAT_ENGINE: the operator's engine */
    ddz_pipe *rd, *wr;                /* its pipes in the event loop */
    lws_sorted_usec_list_t eng_clock; /* its reply deadline */
} seat;

struct ddz_room {
    ddz_room *next;
    ddz_srv *srv;
    char id[12];
    ddz_room_opts opts;
    const ddz_rules *rules;
    seat seats[3];
    ddz_player **watch; /* spectators */
    size_t nwatch, capwatch;
    ddz_referee ref;
    int phase;   /* enum room_phase */
    int game_no; /* index of the current game in the turn */
    int turn_no;
    long long totals[3]; /* small scores of the turn */
    uint8_t master[DDZ_SEED_BYTES];
    uint32_t dealt;         /* games dealt from the master seed */
    int64_t game_id;        /* store id of the current game */
    int ask_seat, ask_kind; /* the open request */
    uint32_t ask_seq;
    int64_t deadline_us;
    lws_sorted_usec_list_t clock, pause, think;
    ddz_think_job *job; /* a hosted AI's decision in flight, at most one */
    json_t *last_over;  /* the last `over` event, for players who come back */
    bool dead;
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

static void schedule(ddz_room *r, lws_sorted_usec_list_t *sul, sul_cb_t cb, int64_t us)
{
    lws_sul_schedule(r->srv->ctx, 0, sul, cb, us < 0 ? 0 : us);
}

static const char *seat_kind_name(const seat *s)
{
    if (s->kind == SEAT_AI)
        return "ai";
    if (s->kind == SEAT_ENGINE)
        return "engine";
    if (s->kind == SEAT_PLAYER)
        return s->player->bot ? "bot" : "human";
    return "open";
}

static json_t *seat_player_json(const seat *s)
{
    if (s->kind == SEAT_OPEN)
        return json_null();
    const char *name = s->kind == SEAT_PLAYER ? s->player->name : s->spec;
    if (s->kind == SEAT_ENGINE && ddz_caai_seat_name(s->cs)[0])
        name = ddz_caai_seat_name(s->cs);
    bool connected = s->kind == SEAT_AI ||
                     (s->kind == SEAT_ENGINE && !ddz_caai_seat_broken(s->cs)) ||
                     (s->player && s->player->conn);
    return json_pack("{s:s, s:s, s:b, s:b}", "name", name, "kind", seat_kind_name(s), "connected",
                     connected, "custody", s->custody);
}

/* Sends `msg` to every seated player and spectator; `hide` is a seat whose
 * copy must differ, NULL-safe. Reference stolen. */
static void broadcast(ddz_room *r, json_t *msg)
{
    char *text = ddz_msg_dump(msg); /* once, however many listen */
    if (!text)
        return;
    size_t len = strlen(text);
    for (int i = 0; i < 3; i++)
        if (r->seats[i].kind == SEAT_PLAYER && r->seats[i].player->conn)
            ddz__conn_send_text(r->seats[i].player->conn, text, len);
    for (size_t i = 0; i < r->nwatch; i++)
        ddz__conn_send_text(r->watch[i]->conn, text, len);
    free(text);
}

static void seat_event(ddz_room *r, int s)
{
    broadcast(r, json_pack("{s:s, s:i, s:o}", "type", "seat", "seat", s, "player",
                           seat_player_json(&r->seats[s])));
}

static bool ai_plays(const seat *s)
{
    return s->kind == SEAT_AI || s->custody;
}

static const char *default_ai(ddz_room *r)
{
    if (r->srv->cfg.default_ai)
        return r->srv->cfg.default_ai;
    return ddz_ai_exists("strong") ? "strong" : "greedy";
}

/* ---- turn events ---- */

static json_t *legal_json(ddz_room *r, int s)
{
    json_t *a = json_array();
    if (r->ask_kind == DDZ_EV_ASK_BID) {
        int high = 0;
        for (int i = 0; i < 3; i++)
            high = r->ref.game.bids[i] > high ? r->ref.game.bids[i] : high;
        json_array_append_new(a, json_integer(0));
        for (int b = high + 1; b <= 3; b++)
            json_array_append_new(a, json_integer(b));
        return a;
    }
    static ddz_move moves[DDZ_MOVES_MAX];
    const ddz_game *g = &r->ref.game;
    int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[s]),
                        ddz_game_leading(g) ? NULL : &g->last, moves, DDZ_MOVES_MAX);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, ddz_msg_cards(ddz_cards_pick(g->hand[s], moves[i].ranks)));
    return a;
}

static json_t *turn_json(ddz_room *r, bool with_legal)
{
    int64_t left = (r->deadline_us - ddz__now_us()) / 1000;
    json_t *t = json_pack("{s:s, s:i, s:s, s:i, s:I}", "type", "turn", "seat", r->ask_seat,
                          "action", r->ask_kind == DDZ_EV_ASK_BID ? "bid" : "play", "seq",
                          (int)r->ask_seq, "deadline_ms", (json_int_t)(left > 0 ? left : 0));
    if (with_legal)
        json_object_set_new(t, "legal", legal_json(r, r->ask_seat));
    return t;
}

static void send_turn(ddz_room *r)
{
    char *plain = ddz_msg_dump(turn_json(r, false));
    if (!plain)
        return;
    size_t len = strlen(plain);
    seat *actor = &r->seats[r->ask_seat];
    for (int i = 0; i < 3; i++) {
        seat *s = &r->seats[i];
        if (s->kind != SEAT_PLAYER || !s->player->conn)
            continue;
        if (s == actor)
            ddz__conn_send(s->player->conn, turn_json(r, true));
        else
            ddz__conn_send_text(s->player->conn, plain, len);
    }
    for (size_t i = 0; i < r->nwatch; i++)
        ddz__conn_send_text(r->watch[i]->conn, plain, len);
    free(plain);
}

/* ---- the game loop ---- */

static void pump(ddz_room *r);
static void start_game(ddz_room *r);

/* ---- engine seats: caai_seat driven by the lws loop ---- */

static void engine_after(seat *s);

static void on_engine_io(void *ctx, bool writable)
{
    seat *s = ctx;
    if (writable)
        ddz_caai_seat_on_writable(s->cs);
    else
        ddz_caai_seat_on_readable(s->cs);
    engine_after(s);
}

static void on_engine_clock(lws_sorted_usec_list_t *sul)
{
    seat *s = lws_container_of(sul, seat, eng_clock);
    ddz_caai_seat_check_time(s->cs, ddz_caai_seat_now());
    engine_after(s);
}

static void engine_unwatch(seat *s)
{
    ddz__pipe_close(s->rd);
    ddz__pipe_close(s->wr);
    s->rd = s->wr = NULL;
    lws_sul_cancel(&s->eng_clock);
}

/* After anything happened to an engine: keep the loop's interest and the
 * deadline timer in step with it. */
static void engine_after(seat *s)
{
    if (ddz_caai_seat_broken(s->cs)) {
        engine_unwatch(s);
        return;
    }
    if (ddz_caai_seat_wants_write(s->cs))
        ddz__pipe_want_write(s->wr);
    double d = ddz_caai_seat_deadline(s->cs);
    if (d < 0)
        lws_sul_cancel(&s->eng_clock);
    else
        schedule(s->room, &s->eng_clock, on_engine_clock,
                 (int64_t)((d - ddz_caai_seat_now()) * 1e6) + 1000);
}

static int engine_start(seat *s)
{
    engine_unwatch(s);
    int rc = ddz_caai_seat_start(s->cs);
    if (rc < 0)
        return rc;
    s->rd = ddz__pipe_watch(s->room->srv, ddz_caai_seat_read_fd(s->cs), false, on_engine_io, s);
    s->wr = ddz__pipe_watch(s->room->srv, ddz_caai_seat_write_fd(s->cs), true, on_engine_io, s);
    if (!s->rd || !s->wr) {
        ddz_caai_seat_stop(s->cs);
        engine_unwatch(s);
        return DDZ_EIO;
    }
    s->room->srv->m.engines++;
    return 0;
}

static int engine_act(void *ctx, ddz_caai_seat *cs, int kind, uint32_t seq, int bid,
                      ddz_cards cards)
{
    seat *s = ctx;
    ddz_room *r = s->room;
    (void)cs;
    if (r->phase != PH_PLAYING)
        return DDZ_ESTALE;
    int rc = kind == DDZ_EV_ASK_BID ? ddz_ref_bid(&r->ref, s->index, seq, bid)
                                    : ddz_ref_play(&r->ref, s->index, seq, cards);
    if (rc == 0)
        pump(r);
    return rc;
}

static void engine_fault(void *ctx, ddz_caai_seat *cs, int kind, int game, const char *why)
{
    seat *s = ctx;
    ddz_room *r = s->room;
    (void)cs;
    r->srv->m.engines--;
    bool charge =
        r->phase == PH_PLAYING && ddz_ref_running(&r->ref) && (game < 0 || game == r->ref.rec.game);
    ddz__log(r->srv, "warn", r->id, "seat %d engine: %s: %s%s", s->index, ddz_fault_name(kind), why,
             charge ? "" : " (not charged)");
    if (charge) {
        ddz_ref_fault(&r->ref, s->index, kind);
        pump(r);
    }
}

static void engine_note(void *ctx, ddz_caai_seat *cs, const char *msg)
{
    seat *s = ctx;
    (void)cs;
    ddz__log(s->room->srv, "info", s->room->id, "seat %d engine: %s", s->index, msg);
}

static int make_engine(ddz_room *r, seat *s, const char *name)
{
    const ddz_server_cfg *cfg = &r->srv->cfg;
    for (int i = 0; i < cfg->nengines; i++) {
        if (strcmp(cfg->engine_name[i], name) != 0)
            continue;
        char log_path[600];
        if (cfg->engine_log_dir)
            snprintf(log_path, sizeof log_path, "%s/%s-%s-%d.stderr.log", cfg->engine_log_dir, name,
                     r->id, s->index);
        ddz_caai_seat_cb cb = {s, engine_act, engine_fault, engine_note};
        s->cs = ddz_caai_seat_create(cfg->engine_cmd[i], cfg->engine_log_dir ? log_path : NULL,
                                     r->opts.time, &cb);
        if (!s->cs)
            return DDZ_ENOMEM;
        /* never let a stopping engine hold the loop */
        ddz_caai_seat_set_kill_grace(s->cs, -1);
        return 0;
    }
    return DDZ_ENOTFOUND;
}

static void on_think(lws_sorted_usec_list_t *sul)
{
    ddz_room *r = lws_container_of(sul, ddz_room, think);
    if (r->phase != PH_PLAYING || !ddz_ref_running(&r->ref) || r->job)
        return;
    seat *s = &r->seats[r->ask_seat];
    if (!ai_plays(s) || !s->ai)
        return;
    ddz_think_job *j = calloc(1, sizeof *j);
    if (!j)
        return; /* the clock will charge the seat; better than a crash */
    j->ai = s->ai;
    ddz_view_of(&r->ref.game, r->ask_seat, &j->view);
    j->kind = r->ask_kind;
    j->seq = r->ask_seq;
    j->seat = r->ask_seat;
    j->owner = r;
    r->job = j;
    ddz_think_submit(r->srv->think, j);
}

void ddz__room_think_done(ddz_room *r, ddz_think_job *j)
{
    r->job = NULL;
    if (j->own_ai)
        ddz_ai_destroy(j->ai);
    bool current = r->phase == PH_PLAYING && ddz_ref_running(&r->ref) && j->seq == r->ask_seq &&
                   j->seat == r->ask_seat;
    if (current) {
        int rc = j->kind == DDZ_EV_ASK_BID ? ddz_ref_bid(&r->ref, j->seat, j->seq, j->bid)
                                           : ddz_ref_play(&r->ref, j->seat, j->seq, j->cards);
        if (rc < 0) {
            ddz__log(r->srv, "error", r->id, "hosted AI made an illegal move: %s",
                     ddz_strerror(rc));
            ddz_ref_fault(&r->ref, j->seat, DDZ_FAULT_ILLEGAL);
        }
        pump(r);
    } else if (r->phase == PH_PLAYING && ddz_ref_running(&r->ref) &&
               ai_plays(&r->seats[r->ask_seat])) {
        /* the request moved on while this AI thought: think again */
        schedule(r, &r->think, on_think, 0);
    }
    free(j);
}

static void on_clock(lws_sorted_usec_list_t *sul)
{
    ddz_room *r = lws_container_of(sul, ddz_room, clock);
    if (r->phase != PH_PLAYING || !ddz_ref_running(&r->ref))
        return;
    int64_t left = r->deadline_us - ddz__now_us();
    if (left > 0) { /* armed for an earlier request: wait for this one */
        schedule(r, &r->clock, on_clock, left);
        return;
    }
    ddz__log(r->srv, "info", r->id, "game %d: seat %d timed out", r->ref.rec.game, r->ask_seat);
    ddz_ref_fault(&r->ref, r->ask_seat, DDZ_FAULT_TIMEOUT);
    pump(r);
}

static void on_pause(lws_sorted_usec_list_t *sul)
{
    ddz_room *r = lws_container_of(sul, ddz_room, pause);
    if (r->phase == PH_BETWEEN || r->phase == PH_WAITING)
        start_game(r);
}

static bool humans_present(const ddz_room *r)
{
    for (int i = 0; i < 3; i++)
        if (r->seats[i].kind == SEAT_PLAYER)
            return true;
    return false;
}

static void ask(ddz_room *r, const ddz_ev *ev)
{
    r->ask_seat = ev->seat;
    r->ask_kind = ev->kind;
    r->ask_seq = ev->seq;
    r->deadline_us = ddz__now_us() + (int64_t)r->opts.time * 1000000;
    /* lws keeps timers in a sorted list: re-arming on every action walked
     * every pending timer (most of the CPU at 3,000 connections). The clock
     * is armed once and, firing early, re-arms itself for what is left. */
    if (lws_dll2_is_detached(&r->clock.list))
        schedule(r, &r->clock, on_clock, (int64_t)r->opts.time * 1000000);
    send_turn(r);
    if (ai_plays(&r->seats[ev->seat])) {
        /* A short, human-friendly pause when people are watching. */
        int64_t delay = humans_present(r) || r->nwatch ? r->srv->cfg.ai_delay_ms * 1000LL : 0;
        schedule(r, &r->think, on_think, delay);
    }
}

static json_t *hands_json(const ddz_cards h[3])
{
    json_t *a = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(a, ddz_msg_cards(h[s]));
    return a;
}

static json_t *totals_json(const ddz_room *r)
{
    return json_pack("[I, I, I]", (json_int_t)r->totals[0], (json_int_t)r->totals[1],
                     (json_int_t)r->totals[2]);
}

static void game_over(ddz_room *r, const ddz_ev *ev)
{
    lws_sul_cancel(&r->clock);
    lws_sul_cancel(&r->think);
    ddz_record rec = *ddz_ref_record(&r->ref);
    for (int s = 0; s < 3; s++) {
        seat *st = &r->seats[s];
        copy_name(rec.names[s], sizeof rec.names[s],
                  st->kind == SEAT_PLAYER ? st->player->name
                  : st->kind == SEAT_ENGINE && ddz_caai_seat_name(st->cs)[0]
                      ? ddz_caai_seat_name(st->cs)
                      : st->spec);
        r->totals[s] += rec.scores[s];
    }
    ddz_store_add_game(r->srv->store, r->game_id, r->id, &rec, false);
    r->srv->m.games_finished++;
    if (ev->fault_seat >= 0)
        r->srv->m.faults[ev->fault_kind < 5 ? ev->fault_kind : 0]++;

    char seed[65], commit[65];
    ddz_text_format_seed(rec.seed, seed);
    ddz_text_format_seed(rec.commit, commit);
    const ddz_game *g = &r->ref.game;
    json_t *fault = ev->fault_seat >= 0 ? json_pack("{s:i, s:s}", "seat", ev->fault_seat, "kind",
                                                    ddz_fault_name(ev->fault_kind))
                                        : json_null();
    json_decref(r->last_over);
    r->last_over = json_pack(
        "{s:s, s:i, s:o, s:o, s:o, s:[i,i,i], s:{s:i, s:i, s:b, s:b, s:b, s:i}, "
        "s:o, s:o, s:o, s:s, s:s, s:I, s:o}",
        "type", "over", "game", r->game_no + 1, "winner",
        g->winner >= 0 ? json_integer(g->winner) : json_null(), "landlord",
        g->landlord >= 0 ? json_integer(g->landlord) : json_null(), "fault", fault, "scores",
        rec.scores[0], rec.scores[1], rec.scores[2], "breakdown", "bid", g->bid, "bombs", g->bombs,
        "rocket", g->rocket, "spring", g->spring, "anti_spring", g->anti_spring, "multiplier",
        g->multiplier, "hands", hands_json(g->hand), "dealt", hands_json(g->deal.hand), "leftover",
        ddz_msg_cards(g->deal.leftover), "seed", seed, "commit", commit, "game_id",
        (json_int_t)r->game_id, "totals", totals_json(r));
    broadcast(r, json_incref(r->last_over));

    r->game_no++;
    if (r->game_no < r->opts.games) {
        r->phase = PH_BETWEEN;
        schedule(r, &r->pause, on_pause, (int64_t)r->opts.pause * 1000000);
        return;
    }
    r->phase = PH_TURN_OVER;
    const char *names[3];
    for (int s = 0; s < 3; s++) {
        names[s] = rec.names[s];
        r->seats[s].rematch = r->seats[s].kind != SEAT_PLAYER;
    }
    ddz_store_add_turn(r->srv->store, r->id, r->turn_no, r->opts.games, names, r->totals);
    broadcast(r, json_pack("{s:s, s:o, s:i}", "type", "turn_over", "totals", totals_json(r),
                           "games", r->opts.games));
}

/* Turns the referee's events into protocol events. */
static void pump(ddz_room *r)
{
    ddz_ev ev;
    const ddz_game *g = &r->ref.game;
    while (ddz_ref_next(&r->ref, &ev)) {
        ddz_caai_info info = {r->turn_no + 1,      r->turn_no + 1, ev.game + 1, r->opts.games, 0,
                              350 * r->opts.games, r->opts.time};
        for (int i = 0; i < 3; i++)
            if (r->seats[i].kind == SEAT_ENGINE)
                ddz_caai_seat_event(r->seats[i].cs, &ev, &info);
        switch (ev.kind) {
        case DDZ_EV_GAME:
        case DDZ_EV_DEAL:
            break; /* sent as one `game` event by start_game */
        case DDZ_EV_ASK_BID:
        case DDZ_EV_ASK_PLAY:
            ask(r, &ev);
            break;
        case DDZ_EV_BID:
            broadcast(r, json_pack("{s:s, s:i, s:i}", "type", "bid_made", "seat", ev.seat, "bid",
                                   ev.bid));
            break;
        case DDZ_EV_LEFTOVER:
            broadcast(r, json_pack("{s:s, s:i, s:o, s:i}", "type", "leftover", "landlord", ev.seat,
                                   "cards", ddz_msg_cards(ev.cards), "bid", g->bid));
            break;
        case DDZ_EV_PLAY: {
            ddz_combo c = ddz_combo_classify(g->rules, ddz_cards_ranks(ev.cards));
            broadcast(r,
                      json_pack("{s:s, s:i, s:o, s:s, s:b, s:i}", "type", "played", "seat", ev.seat,
                                "cards", ddz_msg_cards(ev.cards), "combo", ddz_type_name(c.type),
                                "auto", ev.autopass, "left", ddz_cards_count(g->hand[ev.seat])));
            break;
        }
        case DDZ_EV_OVER:
            game_over(r, &ev);
            break;
        }
    }
    /* Written after every event is queued: a write failure reports a fault,
     * which re-enters pump, and must not reorder what others hear. */
    for (int i = 0; i < 3; i++)
        if (r->seats[i].kind == SEAT_ENGINE && r->seats[i].cs) {
            ddz_caai_seat_flush(r->seats[i].cs);
            engine_after(&r->seats[i]);
        }
}

static void start_game(ddz_room *r)
{
    for (int s = 0; s < 3; s++)
        if (r->seats[s].kind == SEAT_OPEN) {
            r->phase = PH_WAITING;
            return;
        }
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(r->master, r->dealt++, seed);
    for (int s = 0; s < 3; s++)
        r->ref.cfg.autopass[s] = r->seats[s].kind == SEAT_PLAYER && r->seats[s].player->autopass;
    for (int s = 0; s < 3; s++) {
        seat *st = &r->seats[s];
        if (st->kind != SEAT_ENGINE)
            continue;
        ddz_caai_seat_set_seat(st->cs, s);
        if (ddz_caai_seat_broken(st->cs) && engine_start(st) < 0)
            ddz__log(r->srv, "error", r->id, "seat %d: cannot start the engine", s);
    }
    if (ddz_ref_start(&r->ref, r->game_no, seed, NULL) < 0)
        return;
    r->phase = PH_PLAYING;
    for (int s = 0; s < 3 && ddz_ref_running(&r->ref); s++)
        if (r->seats[s].kind == SEAT_ENGINE && ddz_caai_seat_broken(r->seats[s].cs))
            ddz_ref_fault(&r->ref, s, DDZ_FAULT_CRASH);
    r->game_id = ddz_store_reserve_game_id(r->srv->store);
    r->srv->m.games_started++;
    char commit[65];
    ddz_text_format_seed(r->ref.rec.commit, commit);
    for (int s = 0; s < 3; s++) {
        seat *st = &r->seats[s];
        if (st->kind == SEAT_PLAYER && st->player->conn)
            ddz__conn_send(st->player->conn,
                           json_pack("{s:s, s:i, s:i, s:s, s:o}", "type", "game", "game",
                                     r->game_no + 1, "games", r->opts.games, "commit", commit,
                                     "hand", ddz_msg_cards(r->ref.game.deal.hand[s])));
    }
    for (size_t i = 0; i < r->nwatch; i++)
        ddz__conn_send(r->watch[i]->conn,
                       json_pack("{s:s, s:i, s:i, s:s, s:n}", "type", "game", "game",
                                 r->game_no + 1, "games", r->opts.games, "commit", commit, "hand"));
    pump(r);
}

static void maybe_start(ddz_room *r)
{
    if (r->phase != PH_WAITING)
        return;
    for (int s = 0; s < 3; s++)
        if (r->seats[s].kind == SEAT_OPEN)
            return;
    /* Started from the loop, so whoever just sat is told `joined` first. */
    schedule(r, &r->pause, on_pause, 0);
}

/* ---- seats ---- */

/* Lets go of a seat's AI; one that is thinking is freed by its job. */
static void release_ai(ddz_room *r, seat *s)
{
    if (r->job && r->job->ai == s->ai && s->ai)
        r->job->own_ai = 1;
    else
        ddz_ai_destroy(s->ai);
    s->ai = NULL;
}

static int make_ai(ddz_room *r, seat *s, const char *name)
{
    int err = 0;
    release_ai(r, s);
    uint64_t seed;
    randombytes_buf(&seed, sizeof seed);
    /* a quarter of the table's time limit, at most a second */
    int budget = r->opts.time * 250 < 1000 ? r->opts.time * 250 : 1000;
    s->ai = ddz_ai_create(name, seed, budget, &err);
    return s->ai ? 0 : err;
}

static void check_dead(ddz_room *r);

static void on_grace(lws_sorted_usec_list_t *sul)
{
    seat *s = lws_container_of(sul, seat, grace);
    ddz_room *r = s->room;
    if (s->kind != SEAT_PLAYER || s->player->conn)
        return;
    if (r->opts.custody == DDZ_CUSTODY_FAULT) {
        if (r->phase == PH_PLAYING && ddz_ref_running(&r->ref)) {
            ddz__log(r->srv, "info", r->id, "seat %d: player gone past the grace: fault", s->index);
            ddz_ref_fault(&r->ref, s->index, DDZ_FAULT_CRASH);
            pump(r);
        }
        check_dead(r);
        return;
    }
    if (make_ai(r, s, default_ai(r)) < 0)
        return;
    s->custody = true;
    ddz__log(r->srv, "info", r->id, "seat %d: a hosted AI takes over", s->index);
    seat_event(r, s->index);
    if (r->phase == PH_PLAYING && ddz_ref_running(&r->ref) && r->ask_seat == s->index)
        schedule(r, &r->think, on_think, 0);
    check_dead(r);
}

ddz_room *ddz__room_create(ddz_srv *srv, const ddz_room_opts *opts, int *err)
{
    const ddz_rules *rules = ddz_rules_find(opts->rules);
    if (!rules) {
        *err = DDZ_ERULESET;
        return NULL;
    }
    ddz_room *r = calloc(1, sizeof *r);
    if (!r) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    r->srv = srv;
    r->opts = *opts;
    r->rules = rules;
    static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";
    for (int i = 0; i < 8; i++)
        r->id[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
    if (!r->opts.name[0])
        snprintf(r->opts.name, sizeof r->opts.name, "Room %ld", ++srv->lobby.next_room);
    randombytes_buf(r->master, sizeof r->master);
    ddz_ref_cfg rc = {.rules = rules, .early_penalty = 350};
    ddz_ref_init(&r->ref, &rc);
    for (int i = 0; i < 3; i++) {
        seat *s = &r->seats[i];
        s->room = r;
        s->index = i;
        const char *spec = opts->seats[i];
        if (!spec[0])
            continue;
        bool ai = strncmp(spec, "ai:", 3) == 0;
        int rc = ai ? make_ai(r, s, spec + 3) : make_engine(r, s, spec + 7);
        if (rc < 0) {
            *err = rc == DDZ_ENOMEM ? rc : DDZ_ENOTFOUND;
            ddz__room_destroy(r);
            return NULL;
        }
        s->kind = ai ? SEAT_AI : SEAT_ENGINE;
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
        seat *s = &r->seats[i];
        if (s->kind != SEAT_OPEN)
            continue;
        int rc = make_ai(r, s, r->opts.fill + 3);
        if (rc < 0)
            return rc;
        s->kind = SEAT_AI;
        snprintf(s->spec, sizeof s->spec, "%s", r->opts.fill);
        seat_event(r, i);
    }
    maybe_start(r);
    return 0;
}

int ddz__room_sit(ddz_room *r, ddz_player *p, int want)
{
    if (p->bot && !r->opts.bots)
        return DDZ_EAUTH;
    int seat_no = -1;
    if (want >= 0) {
        if (r->seats[want].kind != SEAT_OPEN)
            return DDZ_EINVAL;
        seat_no = want;
    } else {
        for (int i = 0; i < 3 && seat_no < 0; i++)
            if (r->seats[i].kind == SEAT_OPEN)
                seat_no = i;
        if (seat_no < 0)
            return DDZ_EFULL;
    }
    seat *s = &r->seats[seat_no];
    s->kind = SEAT_PLAYER;
    s->player = p;
    s->custody = false;
    p->room = r;
    p->seat = seat_no;
    p->autopass = r->opts.autopass;
    seat_event(r, seat_no);
    maybe_start(r);
    return seat_no;
}

int ddz__room_watch(ddz_room *r, ddz_player *p)
{
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
    return 0;
}

/* A room lives while someone is connected to it, watches it, or may still
 * come back (a dropped player within the grace period). A room left to
 * hosted AIs and absent players closes; a game cut that way is recorded as
 * aborted. */
static void check_dead(ddz_room *r)
{
    bool anyone = r->nwatch > 0;
    int64_t now = ddz__now_us(), grace = (int64_t)r->opts.grace * 1000000;
    for (int i = 0; i < 3; i++) {
        const seat *s = &r->seats[i];
        if (s->kind != SEAT_PLAYER)
            continue;
        if (s->player->conn ||
            (r->phase != PH_WAITING && !s->custody && now - s->player->gone_us < grace))
            anyone = true;
    }
    if (!anyone && !r->dead) {
        r->dead = true;
        lws_sul_cancel(&r->clock);
        lws_sul_cancel(&r->pause);
        lws_sul_cancel(&r->think);
        if (ddz_ref_running(&r->ref))
            ddz__room_abort(r);
        ddz__log(r->srv, "info", r->id, "room closed");
    }
}

void ddz__room_leave(ddz_room *r, ddz_player *p)
{
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i] == p) {
            r->watch[i] = r->watch[--r->nwatch];
            check_dead(r);
            return;
        }
    for (int i = 0; i < 3; i++) {
        seat *s = &r->seats[i];
        if (s->kind != SEAT_PLAYER || s->player != p)
            continue;
        lws_sul_cancel(&s->grace);
        s->player = NULL;
        s->custody = false;
        if (r->phase == PH_WAITING || r->phase == PH_TURN_OVER) {
            s->kind = SEAT_OPEN;
            release_ai(r, s);
            if (r->phase == PH_TURN_OVER)
                r->phase = PH_WAITING, r->game_no = 0;
        } else {
            /* mid-turn: a hosted AI finishes the turn in this seat */
            s->kind = SEAT_AI;
            snprintf(s->spec, sizeof s->spec, "ai:%s", default_ai(r));
            if (!s->ai)
                make_ai(r, s, default_ai(r));
            if (r->phase == PH_PLAYING && ddz_ref_running(&r->ref) && r->ask_seat == i)
                schedule(r, &r->think, on_think, 0);
        }
        seat_event(r, i);
        break;
    }
    check_dead(r);
}

void ddz__room_connection(ddz_room *r, ddz_player *p, bool connected)
{
    if (p->seat < 0) {
        if (!connected)
            ddz__room_leave(r, p); /* a spectator that drops simply goes */
        return;
    }
    seat *s = &r->seats[p->seat];
    if (s->player != p)
        return;
    if (connected) {
        lws_sul_cancel(&s->grace);
        if (s->custody) {
            s->custody = false; /* the player takes the seat back */
            release_ai(r, s);
        }
    } else if (r->phase == PH_WAITING) {
        ddz__room_leave(r, p);
        p->room = NULL;
        p->seat = -1;
        return;
    } else {
        schedule(r, &s->grace, on_grace, (int64_t)r->opts.grace * 1000000);
    }
    seat_event(r, p->seat);
    check_dead(r);
}

void ddz__room_request(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    int64_t t0 = ddz__now_us();
    if (q->type == DDZ_REQ_AUTOPASS) {
        p->autopass = q->on;
        if (p->seat >= 0)
            r->ref.cfg.autopass[p->seat] = q->on;
        ddz__room_send_state(r, p);
        return;
    }
    if (p->seat < 0) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "spectators cannot act", q);
        return;
    }
    if (q->type == DDZ_REQ_REMATCH) {
        if (r->phase != PH_TURN_OVER) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "the turn is not over", q);
            return;
        }
        r->seats[p->seat].rematch = true;
        for (int i = 0; i < 3; i++)
            if (!r->seats[i].rematch)
                return;
        memset(r->totals, 0, sizeof r->totals);
        r->turn_no++;
        r->game_no = 0;
        start_game(r);
        return;
    }
    if (r->phase != PH_PLAYING || !ddz_ref_running(&r->ref)) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "no game is being played", q);
        return;
    }
    int rc = q->type == DDZ_REQ_BID ? ddz_ref_bid(&r->ref, p->seat, q->seq, q->bid)
                                    : ddz_ref_play(&r->ref, p->seat, q->seq, q->cards);
    if (rc < 0) {
        /* Bots in competition rooms answer for what they send; people and
         * casual bots just get the error and may try again. */
        if (p->bot && r->opts.custody == DDZ_CUSTODY_FAULT && rc != DDZ_ESTALE && rc != DDZ_ETURN) {
            ddz_ref_fault(&r->ref, p->seat, DDZ_FAULT_ILLEGAL);
            pump(r);
        }
        ddz__conn_error(p->conn, rc, NULL, q);
        return;
    }
    pump(r);
    ddz__metrics_latency(r->srv, ddz__now_us() - t0);
}

/* The latest action of each seat in the current trick. */
static json_t *last_json(const ddz_room *r, int s)
{
    const ddz_record *rec = &r->ref.rec;
    for (int i = rec->nplays - 1; i >= 0 && i >= rec->nplays - 3; i--)
        if (rec->plays[i].seat == s) {
            ddz_combo c = ddz_combo_classify(r->rules, ddz_cards_ranks(rec->plays[i].cards));
            return json_pack("{s:o, s:s}", "cards", ddz_msg_cards(rec->plays[i].cards), "combo",
                             ddz_type_name(c.type));
        }
    return json_null();
}

void ddz__room_send_state(ddz_room *r, ddz_player *p)
{
    if (!p->conn)
        return;
    const ddz_game *g = &r->ref.game;
    bool in_game = r->phase == PH_PLAYING || r->phase == PH_BETWEEN;
    bool live = r->phase == PH_PLAYING && ddz_ref_running(&r->ref);
    json_t *players = json_array();
    for (int s = 0; s < 3; s++) {
        json_t *pl = seat_player_json(&r->seats[s]);
        if (json_is_object(pl) && in_game) {
            json_object_set_new(pl, "left", json_integer(ddz_cards_count(g->hand[s])));
            json_object_set_new(pl, "bid",
                                g->bids[s] >= 0 ? json_integer(g->bids[s]) : json_null());
            json_object_set_new(pl, "role",
                                g->landlord < 0    ? json_null()
                                : g->landlord == s ? json_string("landlord")
                                                   : json_string("farmer"));
            json_object_set_new(pl, "last", last_json(r, s));
        }
        json_array_append_new(players, pl);
    }
    json_t *history = json_array();
    for (int i = 0; in_game && i < r->ref.rec.nplays; i++)
        json_array_append_new(history,
                              json_pack("{s:i, s:o, s:b}", "seat", r->ref.rec.plays[i].seat,
                                        "cards", ddz_msg_cards(r->ref.rec.plays[i].cards), "auto",
                                        r->ref.rec.plays[i].autopass));
    char commit[65];
    ddz_text_format_seed(r->ref.rec.commit, commit);
    ddz_room_opts shown = r->opts;
    bool has_password = shown.password[0] != '\0';
    shown.password[0] = '\0';
    json_t *o = json_pack(
        "{s:s, s:{s:s, s:s, s:b}, s:o, s:s, s:i, s:i, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:b}",
        "type", "state", "room", "id", r->id, "name", r->opts.name, "password", has_password,
        "seat", p->seat >= 0 ? json_integer(p->seat) : json_null(), "phase",
        live && g->phase == DDZ_PHASE_BID ? "bid" : phase_names[r->phase], "game",
        r->phase == PH_TURN_OVER ? r->opts.games : r->game_no + (r->phase != PH_BETWEEN), "games",
        r->opts.games, "commit", live ? json_string(commit) : json_null(), "players", players,
        "hand", p->seat >= 0 && in_game ? ddz_msg_cards(g->hand[p->seat]) : json_null(), "leftover",
        in_game && g->landlord >= 0 ? ddz_msg_cards(g->deal.leftover) : json_null(), "landlord",
        in_game && g->landlord >= 0 ? json_integer(g->landlord) : json_null(), "bid",
        in_game && g->landlord >= 0 ? json_integer(g->bid) : json_null(), "history", history,
        "turn", live ? turn_json(r, p->seat == r->ask_seat) : json_null(), "totals", totals_json(r),
        "autopass", p->autopass);
    /* between games or after a turn, the last result (a player who comes
     * back then still sees how the game ended and its replay id) */
    json_object_set_new(o, "result",
                        !live && r->last_over ? json_incref(r->last_over) : json_null());
    json_t *opts = json_object_get(o, "room");
    json_object_set_new(
        opts, "options",
        json_pack("{s:s, s:i, s:i, s:b, s:b, s:b, s:i, s:s, s:i}", "rules", shown.rules, "time",
                  shown.time, "games", shown.games, "private", shown.priv, "bots", shown.bots,
                  "autopass", shown.autopass, "grace", shown.grace, "custody",
                  shown.custody == DDZ_CUSTODY_FAULT ? "fault" : "ai", "pause", shown.pause));
    ddz__conn_send(p->conn, o);
}

json_t *ddz__room_summary(const ddz_room *r)
{
    json_t *seats = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(seats, seat_player_json(&r->seats[s]));
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:b, s:b, s:o, s:i, s:b}", "id", r->id, "name",
                     r->opts.name, "rules", r->opts.rules, "time", r->opts.time, "games",
                     r->opts.games, "private", r->opts.priv, "bots", r->opts.bots, "password",
                     r->opts.password[0] != '\0', "seats", seats, "spectators", (int)r->nwatch,
                     "playing", r->phase != PH_WAITING);
}

void ddz__room_abort(ddz_room *r)
{
    if (r->phase != PH_PLAYING || !ddz_ref_running(&r->ref))
        return;
    ddz_record rec = *ddz_ref_record(&r->ref);
    for (int s = 0; s < 3; s++)
        copy_name(rec.names[s], sizeof rec.names[s],
                  r->seats[s].kind == SEAT_PLAYER ? r->seats[s].player->name : r->seats[s].spec);
    ddz_store_add_game(r->srv->store, r->game_id, r->id, &rec, true);
    r->srv->m.games_aborted++;
    r->ref.running = false; /* the referee's game is abandoned, not scored */
    r->phase = PH_WAITING;
}

void ddz__room_destroy(ddz_room *r)
{
    if (r->job)
        r->job->owner = NULL; /* the pool frees it when it comes back */
    lws_sul_cancel(&r->clock);
    lws_sul_cancel(&r->pause);
    lws_sul_cancel(&r->think);
    for (int i = 0; i < 3; i++) {
        lws_sul_cancel(&r->seats[i].grace);
        release_ai(r, &r->seats[i]);
        if (r->seats[i].cs) {
            engine_unwatch(&r->seats[i]);
            if (!ddz_caai_seat_broken(r->seats[i].cs))
                r->srv->m.engines--;
            ddz_caai_seat_destroy(r->seats[i].cs);
        }
        if (r->seats[i].player && r->seats[i].player->room == r)
            r->seats[i].player->room = NULL, r->seats[i].player->seat = -1;
    }
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i]->room == r)
            r->watch[i]->room = NULL;
    json_decref(r->last_over);
    free(r->watch);
    free(r);
}
