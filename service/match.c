/* match.c - the local table: a referee, three players, a poll loop.
 *
 * Each engine player has a queue of CAAI lines. Lines are written as soon
 * as they are queued (an engine reads them one at a time anyway, so this
 * saves a round trip per line) and replies are matched to them in order;
 * each reply must come within the time limit counted from the previous
 * reply, or from the line's sending if later, so every interaction gets the
 * full limit. Referee events become lines (or, for hosted
 * AIs, decisions) in `dispatch`; engine replies become referee actions in
 * `on_reply`. Between games every queue is drained, so a restarted engine
 * always begins cleanly at a game boundary.
 */
#include "match.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "ai/ai.h"
#include "proto/caai.h"
#include "proto/record_json.h"
#include "referee.h"
#include "engine.h"
#include "rules/error.h"

enum expect { EXP_NAME = 1, EXP_OK, EXP_BID, EXP_PLAY };

typedef struct line {
    char text[160]; /* the CAAI line, without newline */
    uint8_t expect; /* enum expect: the reply it needs */
    uint8_t ok_of;  /* EXP_OK: the keyword acknowledged */
    int game;       /* the game it belongs to */
    uint32_t seq;   /* EXP_BID, EXP_PLAY: the request answered */
} line;

typedef struct player {
    char spec[512];
    const char *cmd; /* into spec, for engines */
    ddz_engine *eng; /* NULL for AIs, or while stopped */
    ddz_ai *ai;
    char log_path[512]; /* engine stderr file, "" = discard */
    int seat;           /* seat in the current game */
    bool broken;        /* restart before the next game */
    line *q;            /* queued lines, oldest unanswered first */
    size_t head, len, cap;
    size_t sent;     /* lines from the head already written */
    double deadline; /* for the head's reply, monotonic seconds; valid if sent */
    ddz_match_stats st;
} player;

struct ddz_match {
    ddz_match_cfg cfg;
    player p[3];
    int seat_player[3]; /* which player holds each seat this game */
    ddz_referee ref;
    FILE *log;
    long played;
    int total; /* games in the turn (3 x games with rotate) */
    int maxscore;
    double time_s;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void diag(const ddz_match *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void diag(const ddz_match *m, const char *fmt, ...)
{
    if (!m->cfg.diag)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("ddz match: ", m->cfg.diag);
    vfprintf(m->cfg.diag, fmt, ap);
    fputc('\n', m->cfg.diag);
    va_end(ap);
}

/* ---- the line queue of one engine player ---- */

static int enqueue(player *p, const ddz_caai_msg *msg, int expect, int ok_of, int game,
                   uint32_t seq)
{
    if (p->len == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        line *q = malloc(cap * sizeof *q);
        if (!q)
            return DDZ_ENOMEM;
        for (size_t i = 0; i < p->len; i++)
            q[i] = p->q[(p->head + i) % p->cap];
        free(p->q);
        p->q = q;
        p->cap = cap;
        p->head = 0;
    }
    line *l = &p->q[(p->head + p->len) % p->cap];
    int n = ddz_caai_format(msg, l->text, sizeof l->text);
    if (n < 0)
        return n;
    l->expect = (uint8_t)expect;
    l->ok_of = (uint8_t)ok_of;
    l->game = game;
    l->seq = seq;
    p->len++;
    return 0;
}

static void clear_queue(player *p)
{
    p->head = p->len = p->sent = 0;
}

static bool idle(const player *p)
{
    return !p->eng || p->len == 0;
}

/* ---- faults ---- */

static void pump(ddz_match *m);

/* Player `p`'s engine failed with `kind` while handling a line of game
 * `game` (-1: between lines). The engine is stopped and will be restarted;
 * the game is charged only if it is still being played. */
static void engine_fail(ddz_match *m, player *p, int kind, int game, const char *why)
{
    bool charge = ddz_ref_running(&m->ref) && (game < 0 || game == m->ref.rec.game);
    diag(m, "game %d: %s (seat %c): %s: %s%s", m->ref.rec.game, p->st.name, 'A' + p->seat,
         ddz_fault_name(kind), why, charge ? "" : " (game already scored; not charged)");
    if (p->eng)
        ddz_engine_stop(p->eng);
    p->broken = true;
    clear_queue(p);
    if (charge) {
        ddz_ref_fault(&m->ref, p->seat, kind);
        pump(m);
    }
}

/* ---- referee events to players ---- */

static void send_queued(ddz_match *m, player *p)
{
    while (p->eng && !p->broken && p->sent < p->len) {
        line *l = &p->q[(p->head + p->sent) % p->cap];
        int rc = ddz_engine_send(p->eng, l->text);
        if (rc < 0) {
            engine_fail(m, p, DDZ_FAULT_CRASH, l->game, ddz_strerror(rc));
            return;
        }
        if (p->sent++ == 0)
            p->deadline = now() + m->time_s;
    }
}

static void to_engine(ddz_match *m, player *p, const ddz_caai_msg *msg, int expect, int ok_of,
                      uint32_t seq)
{
    if (!p->eng || p->broken)
        return;
    if (enqueue(p, msg, expect, ok_of, m->ref.rec.game, seq) < 0)
        engine_fail(m, p, DDZ_FAULT_CRASH, m->ref.rec.game, "out of memory queueing a line");
}

typedef struct pending {
    int seat, kind;
    uint32_t seq;
} pending;

static void dispatch(ddz_match *m, const ddz_ev *ev, pending *ai_turn)
{
    ddz_caai_msg msg = {.seat = ev->seat};
    for (int s = 0; s < 3; s++) {
        player *p = &m->p[m->seat_player[s]];
        bool engine = p->ai == NULL;
        switch (ev->kind) {
        case DDZ_EV_GAME:
            if (engine) {
                msg.kind = DDZ_CAAI_INFO;
                msg.info = (ddz_caai_info){1, 1,           ev->game + 1,        m->total,
                                           0, m->maxscore, (int)ceil(m->time_s)};
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_INFO, 0);
            }
            break;
        case DDZ_EV_DEAL:
            if (engine && s == ev->seat) {
                msg.kind = DDZ_CAAI_DEAL;
                msg.cards = ev->cards;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_DEAL, 0);
            }
            break;
        case DDZ_EV_ASK_BID:
        case DDZ_EV_ASK_PLAY:
            if (s != ev->seat)
                break;
            if (engine) {
                msg.kind = ev->kind == DDZ_EV_ASK_BID ? DDZ_CAAI_BID_WHAT : DDZ_CAAI_PLAY_WHAT;
                msg.seat = -1;
                to_engine(m, p, &msg, ev->kind == DDZ_EV_ASK_BID ? EXP_BID : EXP_PLAY, 0, ev->seq);
            } else {
                *ai_turn = (pending){s, ev->kind, ev->seq};
            }
            break;
        case DDZ_EV_BID:
            if (engine && s != ev->seat) {
                msg.kind = DDZ_CAAI_BID;
                msg.bid = (int8_t)ev->bid;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_BID, 0);
            }
            break;
        case DDZ_EV_LEFTOVER:
            if (engine) {
                msg.kind = DDZ_CAAI_LEFTOVER;
                msg.cards = ev->cards;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_LEFTOVER, 0);
            }
            break;
        case DDZ_EV_PLAY:
            /* the player itself hears of its own play only when the referee
             * passed for it (SPEC 7: PLAY <own d>-1) */
            if (engine && (s != ev->seat || ev->autopass)) {
                msg.kind = DDZ_CAAI_PLAY;
                msg.cards = ev->cards;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_PLAY, 0);
            }
            break;
        case DDZ_EV_OVER:
            /* all passed: nothing is sent; the next line is the next INFO */
            if (engine && ev->fault_seat >= 0) {
                msg.kind = DDZ_CAAI_ERROR;
                msg.seat = ev->fault_seat;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_ERROR, 0);
            } else if (engine && ev->seat >= 0) {
                msg.kind = DDZ_CAAI_GAMEOVER;
                to_engine(m, p, &msg, EXP_OK, DDZ_CAAI_GAMEOVER, 0);
            }
            break;
        }
    }
}

/* A hosted AI's turn: decide and act. An AI that returns an illegal move is
 * a bug, but it is charged like any seat rather than trusted. */
static void ai_act(ddz_match *m, const pending *t)
{
    player *p = &m->p[m->seat_player[t->seat]];
    ddz_view v;
    ddz_view_of(&m->ref.game, t->seat, &v);
    int rc;
    if (t->kind == DDZ_EV_ASK_BID)
        rc = ddz_ref_bid(&m->ref, t->seat, t->seq, ddz_ai_bid(p->ai, &v));
    else
        rc = ddz_ref_play(&m->ref, t->seat, t->seq, ddz_ai_play(p->ai, &v));
    if (rc < 0) {
        diag(m, "game %d: %s made an illegal move: %s", m->ref.rec.game, p->st.name,
             ddz_strerror(rc));
        ddz_ref_fault(&m->ref, t->seat, DDZ_FAULT_ILLEGAL);
    }
}

/* Drains the referee's events into the players, lets hosted AIs act, and
 * starts the next line of every idle engine; repeats until nothing moves. */
static void pump(ddz_match *m)
{
    for (;;) {
        pending ai_turn = {.seat = -1};
        ddz_ev ev;
        while (ddz_ref_next(&m->ref, &ev))
            dispatch(m, &ev, &ai_turn);
        if (ai_turn.seat < 0)
            break;
        ai_act(m, &ai_turn);
    }
    for (int i = 0; i < 3; i++)
        send_queued(m, &m->p[i]);
}

/* ---- engine replies ---- */

static void on_reply(ddz_match *m, player *p, const char *text, size_t len)
{
    if (p->sent == 0) {
        engine_fail(m, p, DDZ_FAULT_PROTOCOL, -1, "spoke without being asked");
        return;
    }
    line *l = &p->q[p->head];
    ddz_caai_msg msg;
    char err[128];
    int rc = ddz_caai_parse(text, len, &msg, err, sizeof err);
    bool lenient =
        l->expect == EXP_OK && (l->ok_of == DDZ_CAAI_GAMEOVER || l->ok_of == DDZ_CAAI_ERROR);
    int game = l->game;
    uint32_t seq = l->seq;
    int expect = l->expect;
    bool ok = rc == 0;
    if (ok) {
        switch (expect) {
        case EXP_NAME:
            ok = msg.kind == DDZ_CAAI_NAME;
            if (ok)
                ddz_caai_name_utf8(msg.name, p->st.name, sizeof p->st.name);
            break;
        case EXP_OK:
            ok = msg.kind == DDZ_CAAI_OK && msg.ok_of == l->ok_of;
            break;
        case EXP_BID:
        case EXP_PLAY:
            ok = msg.kind == (expect == EXP_BID ? DDZ_CAAI_BID : DDZ_CAAI_PLAY);
            if (ok && msg.seat != p->seat) {
                engine_fail(m, p, DDZ_FAULT_PROTOCOL, game, "answered with another seat's letter");
                return;
            }
            break;
        }
    }
    if (!ok && lenient) {
        diag(m, "game %d: %s acknowledged '%s' with '%.60s' (logged, not charged)", game,
             p->st.name, l->text, text);
        ok = true, expect = EXP_OK;
    }
    if (!ok) {
        char why[512];
        snprintf(why, sizeof why, "to '%s' answered '%.60s'%s%s", l->text, text, rc < 0 ? ": " : "",
                 rc < 0 ? err : "");
        engine_fail(m, p, DDZ_FAULT_PROTOCOL, game, why);
        return;
    }
    p->head = (p->head + 1) % p->cap;
    p->len--;
    if (--p->sent > 0)
        p->deadline = now() + m->time_s;
    if (expect == EXP_BID || expect == EXP_PLAY) {
        rc = expect == EXP_BID ? ddz_ref_bid(&m->ref, p->seat, seq, msg.bid)
                               : ddz_ref_play(&m->ref, p->seat, seq, msg.cards);
        if (rc < 0) {
            engine_fail(m, p, DDZ_FAULT_ILLEGAL, game, ddz_strerror(rc));
            return;
        }
    }
    pump(m);
}

static void on_readable(ddz_match *m, player *p)
{
    int rc = ddz_engine_on_readable(p->eng);
    char buf[DDZ_ENGINE_MAX_LINE + 1];
    size_t len;
    int got;
    while (p->eng && !p->broken && (got = ddz_engine_next_line(p->eng, buf, sizeof buf, &len))) {
        if (got == DDZ_ESYNTAX) {
            engine_fail(m, p, DDZ_FAULT_PROTOCOL, p->sent ? p->q[p->head].game : -1,
                        "NUL byte in a line");
            return;
        }
        if (got < 0)
            break;
        on_reply(m, p, buf, len);
    }
    if (rc < 0 && !p->broken) {
        int kind = rc == DDZ_ECRASH ? DDZ_FAULT_CRASH : DDZ_FAULT_PROTOCOL;
        engine_fail(m, p, kind, p->sent ? p->q[p->head].game : -1, ddz_strerror(rc));
    }
}

/* Waits for engine I/O or the nearest deadline (at most `cap_s`), then
 * handles what happened. */
static void wait_io(ddz_match *m, double cap_s)
{
    struct pollfd fds[6];
    player *who[6];
    int n = 0;
    double t = now(), wait = cap_s;
    for (int i = 0; i < 3; i++) {
        player *p = &m->p[i];
        if (!p->eng || p->broken)
            continue;
        fds[n] = (struct pollfd){.fd = ddz_engine_read_fd(p->eng), .events = POLLIN};
        who[n++] = p;
        if (ddz_engine_wants_write(p->eng)) {
            fds[n] = (struct pollfd){.fd = ddz_engine_write_fd(p->eng), .events = POLLOUT};
            who[n++] = p;
        }
        if (p->sent && p->deadline - t < wait)
            wait = p->deadline - t;
    }
    int ms = wait <= 0 ? 0 : (int)ceil(wait * 1000);
    int rc = poll(fds, (nfds_t)n, ms);
    if (rc < 0 && errno != EINTR)
        return;
    for (int i = 0; i < n && rc > 0; i++) {
        player *p = who[i];
        if (!fds[i].revents || !p->eng || p->broken)
            continue;
        if (fds[i].events == POLLOUT) {
            int w = ddz_engine_flush(p->eng);
            if (w < 0)
                engine_fail(m, p, DDZ_FAULT_CRASH, p->sent ? p->q[p->head].game : -1,
                            ddz_strerror(w));
        } else {
            on_readable(m, p);
        }
    }
    /* Replies already read were handled above, so a deadline seen now was
     * really missed. */
    t = now();
    for (int i = 0; i < 3; i++) {
        player *p = &m->p[i];
        if (p->eng && !p->broken && p->sent && t >= p->deadline) {
            char why[200];
            snprintf(why, sizeof why, "no answer to '%.60s' within %.3g s", p->q[p->head].text,
                     m->time_s);
            engine_fail(m, p, DDZ_FAULT_TIMEOUT, p->q[p->head].game, why);
        }
    }
}

/* ---- players ---- */

static int start_engine(ddz_match *m, player *p)
{
    int err = 0;
    if (p->eng) {
        ddz_engine_destroy(p->eng);
        p->eng = NULL;
        p->st.restarts++;
    }
    p->broken = false;
    clear_queue(p);
    p->eng = ddz_engine_spawn(p->cmd, p->log_path[0] ? p->log_path : NULL, NULL, &err);
    if (!p->eng) {
        diag(m, "cannot start '%s': %s", p->cmd, ddz_strerror(err));
        p->broken = true;
        return err;
    }
    ddz_caai_msg hello = {.kind = DDZ_CAAI_VERSION, .seat = -1};
    snprintf(hello.version, sizeof hello.version, "1.0");
    return enqueue(p, &hello, EXP_NAME, 0, -1, 0);
}

ddz_match *ddz_match_create(const ddz_match_cfg *cfg, char *err, size_t errlen)
{
    ddz_match *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->cfg = *cfg;
    if (!m->cfg.rules)
        m->cfg.rules = &ddz_rules_caai;
    m->time_s = cfg->time_s > 0 ? cfg->time_s : 15;
    m->total = cfg->games * (cfg->rotate ? 3 : 1);
    m->maxscore = cfg->maxscore > 0 ? cfg->maxscore : 350 * (cfg->games > 0 ? cfg->games : 1);
    for (int i = 0; i < 3; i++) {
        player *p = &m->p[i];
        const char *spec = cfg->spec[i];
        if (!spec) {
            snprintf(err, errlen, "seat %c: no player given", 'A' + i);
            goto fail;
        }
        snprintf(p->spec, sizeof p->spec, "%s", spec);
        if (strncmp(spec, "ai:", 3) == 0) {
            int e;
            p->ai = ddz_ai_create(spec + 3, cfg->ai_seed + (uint64_t)i, 0, &e);
            if (!p->ai) {
                snprintf(err, errlen, "seat %c: unknown AI '%s'", 'A' + i, spec + 3);
                goto fail;
            }
            snprintf(p->st.name, sizeof p->st.name, "%s", spec);
        } else if (strncmp(spec, "exec:", 5) == 0 && spec[5]) {
            p->cmd = p->spec + 5;
            snprintf(p->st.name, sizeof p->st.name, "%c:engine", 'A' + i);
            if (cfg->engine_log_dir)
                snprintf(p->log_path, sizeof p->log_path, "%s/player-%c.stderr.log",
                         cfg->engine_log_dir, 'A' + i);
        } else {
            snprintf(err, errlen, "seat %c: '%s' is neither exec:COMMAND nor ai:NAME", 'A' + i,
                     spec);
            goto fail;
        }
    }
    if (cfg->games < 1) {
        snprintf(err, errlen, "--games must be at least 1");
        goto fail;
    }
    if (cfg->log_path && !(m->log = fopen(cfg->log_path, "w"))) {
        snprintf(err, errlen, "cannot write %s: %s", cfg->log_path, strerror(errno));
        goto fail;
    }
    ddz_ref_cfg rc = {.rules = m->cfg.rules, .early_penalty = m->maxscore / m->total};
    for (int s = 0; s < 3; s++)
        rc.autopass[s] = 1; /* the CAAI platform passes for engines that cannot beat */
    ddz_ref_init(&m->ref, &rc);
    return m;
fail:
    ddz_match_destroy(m);
    return NULL;
}

static void tally(ddz_match *m, const ddz_record *r)
{
    for (int s = 0; s < 3; s++) {
        ddz_match_stats *st = &m->p[m->seat_player[s]].st;
        st->games++;
        st->score += r->scores[s];
        st->landlord += r->landlord == s;
        st->faults += r->fault_seat == s;
        if (r->winner >= 0 && r->fault_seat < 0) {
            bool ll_won = r->winner == r->landlord;
            if (s == r->landlord && ll_won)
                st->wins_landlord++;
            else if (s != r->landlord && !ll_won)
                st->wins_farmer++;
        }
    }
}

static int write_record(ddz_match *m, ddz_record *r)
{
    if (!m->log)
        return 0;
    json_t *j = ddz_record_to_json(r);
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    int rc = s && fprintf(m->log, "%s\n", s) >= 0 && fflush(m->log) == 0 ? 0 : DDZ_EIO;
    free(s);
    return rc;
}

static int play_game(ddz_match *m, int index, int deal, int rotation)
{
    for (int s = 0; s < 3; s++) {
        m->seat_player[s] = (s + rotation) % 3;
        m->p[m->seat_player[s]].seat = s;
    }
    for (int i = 0; i < 3; i++) {
        player *p = &m->p[i];
        if (!p->ai && (p->broken || !p->eng))
            start_engine(m, p);
        if (p->eng)
            ddz_engine_reset_budget(p->eng);
    }
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(m->cfg.master, (uint32_t)deal, seed);
    int rc = ddz_ref_start(&m->ref, index, seed, NULL);
    if (rc < 0)
        return rc;
    /* An engine that could not even be started is charged at once. */
    for (int s = 0; s < 3 && ddz_ref_running(&m->ref); s++)
        if (m->p[m->seat_player[s]].broken)
            ddz_ref_fault(&m->ref, s, DDZ_FAULT_CRASH);
    pump(m);
    while (ddz_ref_running(&m->ref))
        wait_io(m, 1.0);
    /* Let every engine acknowledge the end before the next game starts;
     * each line still has its time limit, so this is bounded. */
    while (!(idle(&m->p[0]) && idle(&m->p[1]) && idle(&m->p[2])))
        wait_io(m, 1.0);

    ddz_record r = *ddz_ref_record(&m->ref);
    for (int s = 0; s < 3; s++)
        snprintf(r.names[s], sizeof r.names[s], "%s", m->p[m->seat_player[s]].st.name);
    tally(m, &r);
    m->played++;
    return write_record(m, &r);
}

int ddz_match_run(ddz_match *m)
{
    int rc = 0;
    for (int k = 0; k < m->cfg.games && rc == 0; k++)
        for (int r = 0; r < (m->cfg.rotate ? 3 : 1) && rc == 0; r++)
            rc = play_game(m, m->cfg.rotate ? 3 * k + r : k, k, r);
    for (int i = 0; i < 3; i++) {
        ddz_engine_destroy(m->p[i].eng);
        m->p[i].eng = NULL;
    }
    return rc;
}

const ddz_match_stats *ddz_match_stats_of(const ddz_match *m, int i)
{
    return &m->p[i].st;
}

long ddz_match_games_played(const ddz_match *m)
{
    return m->played;
}

void ddz_match_print(const ddz_match *m, FILE *out)
{
    fprintf(out, "%-6s %-24s %6s %8s %8s %8s %10s %7s\n", "player", "name", "games", "landlord",
            "won-ll", "won-fm", "score", "faults");
    for (int i = 0; i < 3; i++) {
        const ddz_match_stats *st = &m->p[i].st;
        fprintf(out, "%-6c %-24.24s %6ld %8ld %8ld %8ld %10lld %7ld\n", 'A' + i, st->name,
                st->games, st->landlord, st->wins_landlord, st->wins_farmer, st->score, st->faults);
    }
}

void ddz_match_destroy(ddz_match *m)
{
    if (!m)
        return;
    for (int i = 0; i < 3; i++) {
        ddz_engine_destroy(m->p[i].eng);
        ddz_ai_destroy(m->p[i].ai);
        free(m->p[i].q);
    }
    if (m->log)
        fclose(m->log);
    free(m);
}
