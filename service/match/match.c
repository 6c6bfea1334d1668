/* match.c - the local table: a referee, three players, a poll loop.
 *
 * Engine players speak CAAI through service/caai_seat (shared with the
 * online service); this file only owns the poll loop, the hosted AIs, the
 * seat rotation, the records and the totals. Between games every engine's
 * queue is drained, so a restarted engine always begins cleanly at a game
 * boundary.
 */
#include "service/match/match.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ai/ai.h"
#include "service/engine/caai_seat.h"
#include "proto/record_json.h"
#include "proto/text.h"
#include "service/table/referee.h"
#include "rules/error.h"

typedef struct player {
    char spec[512];
    ddz_caai_seat *cs; /* engines: the CAAI adapter */
    ddz_ai *ai;        /* hosted AIs */
    int seat;          /* seat in the current game */
    ddz_match_stats st;
    struct ddz_match *m;
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

static void pump(ddz_match *m);

/* ---- engine callbacks ---- */

static int engine_act(void *ctx, ddz_caai_seat *cs, int kind, uint32_t seq, int bid,
                      ddz_cards cards)
{
    player *p = ctx;
    (void)cs;
    int rc = kind == DDZ_EV_ASK_BID ? ddz_ref_bid(&p->m->ref, p->seat, seq, bid)
                                    : ddz_ref_play(&p->m->ref, p->seat, seq, cards);
    if (rc == 0)
        pump(p->m);
    return rc;
}

/* The engine failed; it is stopped and restarted before the next game.
 * The game is charged only if it is still being played. */
static void engine_fault(void *ctx, ddz_caai_seat *cs, int kind, int game, const char *why)
{
    player *p = ctx;
    ddz_match *m = p->m;
    (void)cs;
    bool charge = ddz_ref_running(&m->ref) && (game < 0 || game == m->ref.rec.game);
    diag(m, "game %d: %s (seat %c): %s: %s%s", m->ref.rec.game, p->st.name, 'A' + p->seat,
         ddz_fault_name(kind), why, charge ? "" : " (game already scored; not charged)");
    if (charge) {
        ddz_ref_fault(&m->ref, p->seat, kind);
        pump(m);
    }
}

static void engine_note(void *ctx, ddz_caai_seat *cs, const char *msg)
{
    player *p = ctx;
    (void)cs;
    diag(p->m, "game %d: %s: %s", p->m->ref.rec.game, p->st.name, msg);
}

/* ---- referee events to players ---- */

typedef struct pending {
    int seat, kind;
    uint32_t seq;
} pending;

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
 * writes what the engines must hear; repeats until nothing moves. */
static void pump(ddz_match *m)
{
    for (;;) {
        pending ai_turn = {.seat = -1};
        ddz_ev ev;
        while (ddz_ref_next(&m->ref, &ev)) {
            ddz_caai_info info = {1, 1,           ev.game + 1,         m->total,
                                  0, m->maxscore, (int)ceil(m->time_s)};
            for (int i = 0; i < 3; i++)
                if (m->p[i].cs)
                    ddz_caai_seat_event(m->p[i].cs, &ev, &info);
            bool ask = ev.kind == DDZ_EV_ASK_BID || ev.kind == DDZ_EV_ASK_PLAY;
            if (ask && m->p[m->seat_player[ev.seat]].ai)
                ai_turn = (pending){ev.seat, ev.kind, ev.seq};
        }
        if (ai_turn.seat < 0)
            break;
        ai_act(m, &ai_turn);
    }
    for (int i = 0; i < 3; i++)
        if (m->p[i].cs)
            ddz_caai_seat_flush(m->p[i].cs);
}

/* Waits for engine I/O or the nearest deadline (at most `cap_s`), then
 * handles what happened. */
static void wait_io(ddz_match *m, double cap_s)
{
    struct pollfd fds[6];
    player *who[6];
    int n = 0;
    double t = ddz_caai_seat_now(), wait = cap_s;
    for (int i = 0; i < 3; i++) {
        ddz_caai_seat *cs = m->p[i].cs;
        if (!cs || ddz_caai_seat_broken(cs))
            continue;
        fds[n] = (struct pollfd){.fd = ddz_caai_seat_read_fd(cs), .events = POLLIN};
        who[n++] = &m->p[i];
        if (ddz_caai_seat_wants_write(cs)) {
            fds[n] = (struct pollfd){.fd = ddz_caai_seat_write_fd(cs), .events = POLLOUT};
            who[n++] = &m->p[i];
        }
        double d = ddz_caai_seat_deadline(cs);
        if (d >= 0 && d - t < wait)
            wait = d - t;
    }
    int ms = wait <= 0 ? 0 : (int)ceil(wait * 1000);
    int rc = poll(fds, (nfds_t)n, ms);
    if (rc < 0 && errno != EINTR)
        return;
    for (int i = 0; i < n && rc > 0; i++) {
        if (!fds[i].revents)
            continue;
        if (fds[i].events == POLLOUT)
            ddz_caai_seat_on_writable(who[i]->cs);
        else
            ddz_caai_seat_on_readable(who[i]->cs);
    }
    /* Replies already read were handled above, so a deadline seen now was
     * really missed. */
    t = ddz_caai_seat_now();
    for (int i = 0; i < 3; i++)
        if (m->p[i].cs)
            ddz_caai_seat_check_time(m->p[i].cs, t);
}

static bool all_idle(const ddz_match *m)
{
    for (int i = 0; i < 3; i++)
        if (m->p[i].cs && !ddz_caai_seat_idle(m->p[i].cs))
            return false;
    return true;
}

/* ---- players ---- */

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
        p->m = m;
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
            char log_path[512];
            if (cfg->engine_log_dir)
                snprintf(log_path, sizeof log_path, "%s/player-%c.stderr.log", cfg->engine_log_dir,
                         'A' + i);
            ddz_caai_seat_cb cb = {p, engine_act, engine_fault, engine_note};
            p->cs = ddz_caai_seat_create(spec + 5, cfg->engine_log_dir ? log_path : NULL, m->time_s,
                                         &cb);
            if (!p->cs) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            snprintf(p->st.name, sizeof p->st.name, "%c:engine", 'A' + i);
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
        if (!p->cs)
            continue;
        ddz_caai_seat_set_seat(p->cs, p->seat);
        if (ddz_caai_seat_broken(p->cs) && ddz_caai_seat_start(p->cs) < 0)
            diag(m, "cannot start '%s'", p->spec + 5);
    }
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(m->cfg.master, (uint32_t)deal, seed);
    int rc = ddz_ref_start(&m->ref, index, seed, NULL);
    if (rc < 0)
        return rc;
    /* An engine that could not even be started is charged at once. */
    for (int s = 0; s < 3 && ddz_ref_running(&m->ref); s++) {
        ddz_caai_seat *cs = m->p[m->seat_player[s]].cs;
        if (cs && ddz_caai_seat_broken(cs))
            ddz_ref_fault(&m->ref, s, DDZ_FAULT_CRASH);
    }
    pump(m);
    while (ddz_ref_running(&m->ref))
        wait_io(m, 1.0);
    /* Let every engine acknowledge the end before the next game starts;
     * each line still has its time limit, so this is bounded. */
    while (!all_idle(m))
        wait_io(m, 1.0);

    ddz_record r = *ddz_ref_record(&m->ref);
    for (int s = 0; s < 3; s++) {
        player *p = &m->p[m->seat_player[s]];
        if (p->cs && ddz_caai_seat_name(p->cs)[0])
            snprintf(p->st.name, sizeof p->st.name, "%s", ddz_caai_seat_name(p->cs));
        if (p->cs)
            p->st.restarts = ddz_caai_seat_restarts(p->cs);
        snprintf(r.names[s], sizeof r.names[s], "%s", p->st.name);
    }
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
    for (int i = 0; i < 3; i++)
        if (m->p[i].cs)
            ddz_caai_seat_stop(m->p[i].cs);
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
    enum { NAME_COLS = 24 };
    fprintf(out, "%-6s %-*s %6s %8s %8s %8s %10s %7s\n", "player", NAME_COLS, "name", "games",
            "landlord", "won-ll", "won-fm", "score", "faults");
    for (int i = 0; i < 3; i++) {
        const ddz_match_stats *st = &m->p[i].st;
        /* Names are UTF-8, often CJK (GBK names are converted): cut and
         * padded by terminal columns, not bytes, never mid-character. */
        size_t width, n = ddz_text_fit_width(st->name, NAME_COLS, &width);
        fprintf(out, "%-6c %.*s%*s %6ld %8ld %8ld %8ld %10lld %7ld\n", 'A' + i, (int)n, st->name,
                (int)(NAME_COLS - width), "", st->games, st->landlord, st->wins_landlord,
                st->wins_farmer, st->score, st->faults);
    }
}

void ddz_match_destroy(ddz_match *m)
{
    if (!m)
        return;
    for (int i = 0; i < 3; i++) {
        ddz_caai_seat_destroy(m->p[i].cs);
        ddz_ai_destroy(m->p[i].ai);
    }
    if (m->log)
        fclose(m->log);
    free(m);
}
