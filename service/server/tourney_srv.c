/* tourney_srv.c - the tournament director (service/tourney/) inside
 * `ddz serve`: seats from the players file and enlisted bots, a room per
 * table being played (held: publish_ready()), games.jsonl and the reports
 * in DIR, GET /api/tournament. */
#include "service/server/tourney_srv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/event.h"
#include "proto/msg.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "service/seats/seats.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/http_routes.h"
#include "service/server/room.h"
#include "service/server/rooms.h"
#include "service/server/seating.h"
#include "service/tourney/director.h"
#include "service/tourney/gamelog.h"
#include "service/tourney/report.h"
#include "service/tourney/setup.h"

/* The most finished games GET /api/tournament lists (newest first). */
#define API_GAMES_MAX 200

/* A batch of ids handed to ddz_store_publish_games() at once. */
#define PUBLISH_BATCH 64

/* What GET /api/tournament says of the games it does not list yet. */
static const char held_rule[] =
    "a game is published (listed here, /api/games/ID, its plays to spectators) only when every "
    "table of its turn has finished that game, or the turn is over: every table plays the same "
    "deals";

struct ddz_tsrv {
    ddz_srv *srv;
    ddz_tsetup s;
    char dir[4096];
    ddz_director *d;
    ddz_gamelog *log;
    ddz_player **bot;                       /* [n]: the enlisted player of a bot: player */
    ddz_room *room[DDZ_TOURNEY_MAX_TABLES]; /* the room of each table being played */
    ddz_report_game *games;                 /* every game, for the reports and the API */
    uint8_t *pub;                           /* [cap]: game i is published (not held) */
    int ngames, cap;
    int first_held;  /* games before it are all published */
    ddz_timer kick;  /* runs the director after a game ended or a bot came */
    ddz_timer flush; /* syncs games.jsonl, at most once a second */
    bool released;   /* the end was announced */
    bool io_err;
    char lease[96];  /* DIR/lease as written at the start, "" on one node */
    bool fenced;     /* DIR/lease no longer says this node: nothing more is written */
    uint64_t ticket; /* the store's ticket of the latest publication (tsrv_ticket) */
};

/* ---- helpers ---- */

static bool is_bot(const ddz_tsrv *ts, int i)
{
    return strncmp(ts->s.specs[i], "bot:", 4) == 0;
}

/* Whether game `g` may be shown to everyone: its turn is over, or every
 * table of its turn has finished that game (a forfeited table plays
 * none). Until then someone who has yet to play its deal may ask. */
static bool game_public(const ddz_tourney *t, const ddz_report_game *g)
{
    if (t->done || g->w.stage != t->stage || g->w.turn != t->turn)
        return true; /* turns only move on: an earlier turn is over */
    for (int k = 0; k < t->ntables; k++)
        if (!t->table[k].absent && !t->table[k].played[g->w.game - 1])
            return false;
    return true;
}

static void publish_ids(ddz_tsrv *ts, const int64_t *ids, size_t n)
{
    int rc = n ? ddz_store_publish_games(ts->srv->store, ids, n) : 0;
    if (n && rc == 0)
        ts->ticket = ddz_store_ticket(ts->srv->store);
    if (rc < 0)
        ddz__log(ts->srv, "error", NULL,
                 "tournament: cannot queue the publication of %zu games (%s): they stay held "
                 "in the store until a restart publishes them",
                 n, ddz_strerror(rc));
}

/* Publishes the held games that game_public() now allows: listed by GET
 * /api/tournament, and their records read by their ids alone
 * (ddz_store_publish_games(), idempotent: after a resume the games of
 * games.jsonl are published again, the store having perhaps lost the
 * queued write). */
static void publish_ready(ddz_tsrv *ts)
{
    const ddz_tourney *t = ddz_director_state(ts->d);
    int64_t ids[PUBLISH_BATCH];
    size_t n = 0;
    int first = ts->ngames;
    for (int i = ts->first_held; i < ts->ngames; i++) {
        if (ts->pub[i])
            continue;
        if (!game_public(t, &ts->games[i])) {
            if (first == ts->ngames)
                first = i;
            continue;
        }
        ts->pub[i] = 1;
        if (ts->games[i].w.store_id > 0)
            ids[n++] = ts->games[i].w.store_id;
        if (n == PUBLISH_BATCH) {
            publish_ids(ts, ids, n);
            n = 0;
        }
    }
    publish_ids(ts, ids, n);
    ts->first_held = first;
}

static void kick_cb(ddz_timer *t)
{
    ddz_tsrv *ts = (ddz_tsrv *)((char *)t - offsetof(ddz_tsrv, kick));
    /* No game is dealt to a bot that has not been told the last one's
     * end (it waits to be durable: conn.h): its `turn` would wait behind
     * it while the clock ran. A commit's time, or --db-timeout once. */
    for (int i = 0; i < ts->s.n; i++)
        if (ts->bot[i] && !ddz__conn_settled(ts->bot[i]->conn)) {
            ddz_loop_arm(&ts->srv->loop.base, &ts->kick, kick_cb, DDZ_SETTLE_POLL_US);
            return;
        }
    ddz_director_step(ts->d);
    publish_ready(ts);
    if (ddz_director_done(ts->d) && !ts->released) {
        ts->released = true;
        const char *msg;
        int err = ddz_director_error(ts->d, &msg);
        if (err)
            ddz__log(ts->srv, "error", NULL, "tournament stopped: %s (restart to resume)", msg);
        else
            ddz__log(ts->srv, "info", NULL, "tournament over: standings in %s/standings.html",
                     ts->dir);
        if (ddz_gamelog_sync(ts->log) < 0)
            ts->io_err = true;
        ddz_event e = {.type = DDZ_EVENT_RELEASED};
        snprintf(e.released.reason, sizeof e.released.reason, "%s",
                 err ? "the tournament stopped" : "the tournament is over");
        for (int i = 0; i < ts->s.n; i++)
            if (ts->bot[i] && ts->bot[i]->conn)
                ddz__conn_send(ts->bot[i]->conn, ddz_event_print(&e));
    }
}

static void kick(ddz_tsrv *ts)
{
    ddz_loop_arm(&ts->srv->loop.base, &ts->kick, kick_cb, 0);
}

static void flush_cb(ddz_timer *t)
{
    ddz_tsrv *ts = (ddz_tsrv *)((char *)t - offsetof(ddz_tsrv, flush));
    if (ddz_gamelog_sync(ts->log) < 0 && !ts->io_err) {
        ts->io_err = true;
        ddz__log(ts->srv, "error", NULL, "tournament: cannot sync %s/games.jsonl", ts->dir);
    }
}

static int keep_game(ddz_tsrv *ts, const ddz_tgame *w, const ddz_record *rec, int line)
{
    if (ts->ngames == ts->cap) {
        int cap = ts->cap ? 2 * ts->cap : 256;
        ddz_report_game *g = realloc(ts->games, (size_t)cap * sizeof *g);
        if (!g)
            return DDZ_ENOMEM;
        ts->games = g;
        uint8_t *pub = realloc(ts->pub, (size_t)cap);
        if (!pub)
            return DDZ_ENOMEM;
        ts->pub = pub, ts->cap = cap;
    }
    ts->pub[ts->ngames] = 0; /* held until publish_ready() says otherwise */
    ddz_report_game *g = &ts->games[ts->ngames++];
    g->w = *w;
    memcpy(g->scores, rec->scores, sizeof g->scores);
    g->fault_seat = rec->fault_seat;
    g->line = line;
    return 0;
}

static void write_reports(ddz_tsrv *ts, const ddz_tourney *t)
{
    char path[4200];
    ddz_report r = {.t = t,
                    .ids = (const char *const *)ts->s.ids,
                    .specs = (const char *const *)ts->s.specs,
                    .games = ts->games,
                    .ngames = ts->ngames,
                    .title = ts->dir,
                    .seed = ts->s.seed_hex};
    snprintf(path, sizeof path, "%s/standings.json", ts->dir);
    int rc = ddz_report_json(&r, path);
    snprintf(path, sizeof path, "%s/standings.html", ts->dir);
    if (rc == 0)
        rc = ddz_report_html(&r, path);
    if (rc < 0)
        ddz__log(ts->srv, "error", NULL, "tournament: cannot write the standings in %s", ts->dir);
}

/* ---- the lease: which node writes DIR (lead_srv.c) ---- */

/* Reads DIR/lease into out (its first line). Returns 0, or -errno. */
static int lease_read(const char *dir, char *out, size_t outlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/lease", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    if (!fgets(out, (int)outlen, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

/* Writes `text` to DIR/lease whole (a new file renamed over the old one)
 * and syncs it. Returns 0, or -1 with errno. */
static int lease_write(const char *dir, const char *text)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/lease", dir);
    snprintf(tmp, sizeof tmp, "%s/.lease.tmp", dir);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

bool ddz__tsrv_lease_other(const char *dir, const char *node, char *holder, size_t holderlen)
{
    char text[128];
    if (lease_read(dir, text, sizeof text) < 0 || !text[0])
        return false;
    size_t n = strcspn(text, " ");
    snprintf(holder, holderlen, "%.*s", (int)n, text);
    return strlen(node) != n || strncmp(text, node, n) != 0;
}

/* Whether this node may still append to DIR: its lease is still there.
 * Another node that took the tournament over wrote its own (after its
 * grace: lead_srv.c); this one then stops writing at once. */
static bool lease_ok(ddz_tsrv *ts)
{
    if (!ts->lease[0])
        return true; /* one node */
    if (ts->fenced)
        return false;
    char text[128];
    int rc = lease_read(ts->dir, text, sizeof text);
    if (rc == 0 && strcmp(text, ts->lease) == 0)
        return true;
    ts->fenced = true;
    ddz__log(ts->srv, "warn", NULL,
             "tournament: %s/lease is %s%s%s, not this node's (%s): stopping here", ts->dir,
             rc < 0 ? "unreadable (" : "\"", rc < 0 ? strerror(-rc) : text, rc < 0 ? ")" : "\"",
             ts->lease);
    return false;
}

bool ddz__tsrv_fenced(ddz_srv *srv)
{
    return srv->tsrv && srv->tsrv->fenced;
}

/* ---- the director's callbacks ---- */

static ddz_seat *make_seat(void *ctx, int player, uint64_t ai_seed, char *err, size_t errlen)
{
    ddz_tsrv *ts = ctx;
    bool bot = is_bot(ts, player);
    char log_name[300];
    snprintf(log_name, sizeof log_name, "tournament-%s", ts->s.ids[player]);
    ddz_seat_want w = {
        .spec = bot ? NULL : ts->s.specs[player],
        .player = bot ? ts->bot[player] : NULL,
        .name = ts->s.specs[player] + 4, /* "bot:NAME" */
        .allow_exec = true,              /* the operator's players file */
        .time_ms = ts->s.dc.time_ms,
        .ai_seed = ai_seed,
        .think_key = "(tournament)", /* a share of the think pool of its own */
        .log_name = log_name,
    };
    int e = 0;
    return ddz__seat_make(ts->srv, &w, &e, err, errlen);
}

static void table_start(void *ctx, const ddz_tgame *w)
{
    ddz_tsrv *ts = ctx;
    ddz_runner *run = ddz_director_runner(ts->d, w->table - 1);
    if (!run)
        return;
    ddz_room_opts o;
    ddz_room_opts_default(&o);
    snprintf(o.name, sizeof o.name, "Tournament: %s %d, table %d", ddz_tourney_stage_name(w->stage),
             w->turn, w->table);
    snprintf(o.rules, sizeof o.rules, "%s", ts->s.rules->name);
    o.time = (ts->s.dc.time_ms + 999) / 1000;
    o.games = ts->s.dc.opts.games;
    o.bots = true;
    o.custody = DDZ_CUSTODY_FAULT; /* a competition: a bot gone past the grace is charged */
    o.pause = 0;
    o.redeal = false; /* the competition's rule: an all-pass counts as a game */
    o.held = true;    /* every table plays the same deals: publish_ready() says when */
    const char *labels[3];
    ddz_player *bots[3];
    for (int s = 0; s < 3; s++) {
        labels[s] = ts->s.ids[w->player[s]];
        bots[s] = is_bot(ts, w->player[s]) ? ts->bot[w->player[s]] : NULL;
    }
    ddz_room *r = ddz__room_open_table(ts->srv, &o, run, labels, bots);
    if (!r) {
        ddz__log(ts->srv, "error", NULL, "tournament: out of memory for the room of table %d",
                 w->table);
        return;
    }
    ts->room[w->table - 1] = r;
    ddz__rooms_add(ts->srv, r);
}

static void table_event(void *ctx, const ddz_tgame *w, const ddz_ev *ev)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    if (r)
        ddz__room_tourney_event(r, ev);
}

static int game_over(void *ctx, const ddz_tgame *w, const ddz_record *rec)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    ddz_tgame wc = *w;
    wc.store_id = r ? ddz__room_tourney_over(r, rec) : 0;
    if (!lease_ok(ts))
        return DDZ_EIO; /* the director stops; lead_srv.c ends it here */
    int line = ddz_gamelog_append(ts->log, &wc, rec);
    if (line < 0)
        return line;
    if (!ts->flush.armed)
        ddz_loop_arm(&ts->srv->loop.base, &ts->flush, flush_cb, 1000000);
    kick(ts);
    return keep_game(ts, &wc, rec, line);
}

static void table_end(void *ctx, const ddz_tgame *w)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    ts->room[w->table - 1] = NULL;
    if (r)
        ddz__room_detach(r);
}

static void turn_over(void *ctx, const ddz_tourney *t, bool replayed)
{
    ddz_tsrv *ts = ctx;
    publish_ready(ts); /* the turn is over: all its games */
    if (ddz_gamelog_sync(ts->log) < 0)
        ts->io_err = true;
    if (!lease_ok(ts))
        return; /* the reports are the new holder's to write */
    write_reports(ts, t);
    if (!replayed)
        ddz__log(ts->srv, "info", NULL, "tournament: %s turn %d is over",
                 ddz_tourney_stage_name(t->last_stage), t->last_turn);
    kick(ts);
}

static void director_log(void *ctx, const char *msg)
{
    ddz_tsrv *ts = ctx;
    ddz__log(ts->srv, "info", NULL, "tournament: %s", msg);
}

static bool present(void *ctx, int player)
{
    ddz_tsrv *ts = ctx;
    return !is_bot(ts, player) || (ts->bot[player] && ts->bot[player]->conn);
}

static int forfeit(void *ctx, const ddz_tgame *w, unsigned absent)
{
    ddz_tsrv *ts = ctx;
    if (!lease_ok(ts))
        return DDZ_EIO;
    char path[4200];
    snprintf(path, sizeof path, "%s/forfeits.jsonl", ts->dir);
    kick(ts); /* a table that plays none may be the last one a game waited for */
    return ddz_forfeits_append(path, (const char *const *)ts->s.ids, w, absent);
}

static int on_replay(void *ctx, int line, const ddz_tgame *w, const ddz_record *rec)
{
    ddz_tsrv *ts = ctx;
    char why[300];
    int rc = ddz_director_replay(ts->d, w, rec, why, sizeof why);
    if (rc < 0) {
        ddz__log(ts->srv, "error", NULL, "tournament: %s/games.jsonl:%d: %s", ts->dir, line, why);
        return rc;
    }
    return keep_game(ts, w, rec, line);
}

static int on_forfeit_replay(void *ctx, int line, const ddz_tgame *w, unsigned absent)
{
    ddz_tsrv *ts = ctx;
    (void)line;
    return ddz_director_replay_forfeit(ts->d, w, absent);
}

/* ---- the server's side ---- */

static void tsrv_free(ddz_tsrv *ts)
{
    ddz_loop_disarm(&ts->srv->loop.base, &ts->kick);
    ddz_loop_disarm(&ts->srv->loop.base, &ts->flush);
    for (int k = 0; k < DDZ_TOURNEY_MAX_TABLES; k++)
        if (ts->room[k]) {
            ddz__room_detach(ts->room[k]);
            ts->room[k] = NULL;
        }
    ddz_director_destroy(ts->d); /* engines stopped */
    ddz_gamelog_close(ts->log);
    for (int i = 0; ts->bot && i < ts->s.n; i++)
        if (ts->bot[i])
            ts->bot[i]->enlisted = false;
    free(ts->bot);
    free(ts->games);
    free(ts->pub);
    ddz_tsetup_free(&ts->s);
    free(ts);
}

int ddz__tsrv_start(ddz_srv *srv, char *err, size_t errlen)
{
    const ddz_server_cfg *cfg = &srv->cfg;
    ddz_tsrv *ts = calloc(1, sizeof *ts);
    if (!ts) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ts->srv = srv;
    snprintf(ts->dir, sizeof ts->dir, "%s", cfg->tournament_dir);
    ddz_tsetup_init(&ts->s);
    char path[4200], why[700];
    snprintf(path, sizeof path, "%s/options", ts->dir);
    if (ddz_tsetup_options_file(&ts->s, path, why, sizeof why) < 0)
        goto fail;
    snprintf(path, sizeof path, "%s/players", ts->dir);
    if (ddz_tsetup_players(&ts->s, path, DDZ_TSETUP_REMOTE, why, sizeof why) < 0)
        goto fail;
    for (int i = 0; i < ts->s.n; i++) {
        const char *spec = ts->s.specs[i];
        bool known = strncmp(spec, "engine:", 7) != 0;
        for (int e = 0; !known && e < cfg->nengines; e++)
            known = strcmp(cfg->engine_name[e], spec + 7) == 0;
        if (!known) {
            snprintf(why, sizeof why, "%.300s: %s: no --engine %s=COMMAND", path, ts->s.ids[i],
                     spec + 7);
            goto fail;
        }
    }
    if (ddz_tsetup_finish(&ts->s, ts->dir, why, sizeof why) < 0)
        goto fail;
    /* Several nodes: this node's lease first, before DIR is read, so that
     * a former holder that has not noticed yet writes nothing more. */
    snprintf(ts->lease, sizeof ts->lease, "%s", srv->tourney_lease);
    if (ts->lease[0] && lease_write(ts->dir, ts->lease) < 0) {
        snprintf(why, sizeof why, "cannot write %.300s/lease: %s", ts->dir, strerror(errno));
        goto fail;
    }
    int64_t t0 = ddz__now_us();
    ts->s.dc.late_ms = cfg->tournament_late_s * 1000;
    ts->bot = calloc((size_t)ts->s.n, sizeof *ts->bot);
    ddz_director_cb cb = {.ctx = ts,
                          .seat = make_seat,
                          .table_start = table_start,
                          .game_over = game_over,
                          .turn_over = turn_over,
                          .log = director_log,
                          .present = present,
                          .forfeit = forfeit,
                          .event = table_event,
                          .table_end = table_end};
    int rc = 0;
    if (!ts->bot || !(ts->d = ddz_director_create(&srv->loop.base, &ts->s.dc, &cb, &rc))) {
        snprintf(why, sizeof why, "cannot start: %s", ddz_strerror(rc ? rc : DDZ_ENOMEM));
        goto fail;
    }
    snprintf(path, sizeof path, "%s/forfeits.jsonl", ts->dir);
    char why2[400];
    if (ddz_forfeits_load(path, (const char *const *)ts->s.ids, ts->s.n, on_forfeit_replay, ts,
                          why2, sizeof why2) < 0) {
        snprintf(why, sizeof why, "%.250s: %.400s", path, why2);
        goto fail;
    }
    snprintf(path, sizeof path, "%s/games.jsonl", ts->dir);
    ts->log = ddz_gamelog_open(path, (const char *const *)ts->s.ids, ts->s.n, on_replay, ts, &rc,
                               why2, sizeof why2);
    if (!ts->log) {
        snprintf(why, sizeof why, "%.250s: %.400s", path, why2);
        goto fail;
    }
    srv->tsrv = ts;
    /* read and replayed on the loop: the time it held the loop is said */
    ddz__log(srv, "info", NULL,
             "tournament %s: %d players, format %s, %d games a turn, %d game%s already played"
             " (loaded in %lld ms)",
             ts->dir, ts->s.n, ts->s.format, ts->s.dc.opts.games, ddz_gamelog_count(ts->log),
             ddz_gamelog_count(ts->log) == 1 ? "" : "s", (long long)((ddz__now_us() - t0) / 1000));
    ddz_director_start(ts->d);
    kick(ts);
    return 0;
fail:
    snprintf(err, errlen, "tournament: %s", why);
    srv->tsrv = NULL;
    tsrv_free(ts);
    return -1;
}

void ddz__tsrv_enlist(ddz_srv *srv, ddz_player *p, const ddz_req *q)
{
    ddz_tsrv *ts = srv->tsrv;
    if (!ts) {
        ddz__conn_error(p->conn, DDZ_ENOTFOUND, "no tournament is running on this server", q);
        return;
    }
    if (!p->bot) {
        ddz__conn_error(p->conn, DDZ_EAUTH, "only bots (a hello with a token) enlist", q);
        return;
    }
    int i = -1;
    for (int k = 0; k < ts->s.n && i < 0; k++)
        if (is_bot(ts, k) && strcmp(ts->s.specs[k] + 4, p->name) == 0)
            i = k;
    if (i < 0) {
        ddz__conn_error(p->conn, DDZ_EAUTH, "this token's name is no player of the tournament", q);
        return;
    }
    ts->bot[i] = p; /* one token, one player (players.h): no other to release */
    p->enlisted = true;
    p->enlisted_ladder = false;
    ddz_event e = {.type = DDZ_EVENT_ENLISTED};
    snprintf(e.enlisted.competition, sizeof e.enlisted.competition, "tournament");
    snprintf(e.enlisted.player, sizeof e.enlisted.player, "%s", ts->s.ids[i]);
    ddz__conn_send(p->conn, ddz_event_print(&e));
    /* at a table being played (it came back, on a new connection): it
     * takes its seat back, and is asked what is open */
    const ddz_tourney *t = ddz_director_state(ts->d);
    for (int k = 0; k < t->ntables && !ddz_director_done(ts->d); k++)
        for (int s = 0; s < 3; s++)
            if (t->table[k].player[s] == i && ts->room[k])
                ddz__room_reseat(ts->room[k], s, p);
    if (ddz_director_done(ts->d)) {
        ddz_event rel = {.type = DDZ_EVENT_RELEASED};
        snprintf(rel.released.reason, sizeof rel.released.reason, "the tournament is over");
        ddz__conn_send(p->conn, ddz_event_print(&rel));
    }
    kick(ts);
}

void ddz__tsrv_forget(ddz_srv *srv, ddz_player *p)
{
    ddz_tsrv *ts = srv->tsrv;
    p->enlisted = false;
    for (int i = 0; ts && i < ts->s.n; i++)
        if (ts->bot[i] == p)
            ts->bot[i] = NULL;
}

static json_t *ids3(const ddz_tsrv *ts, const int16_t *pl)
{
    json_t *a = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(a, pl[s] >= 0 ? json_string(ts->s.ids[pl[s]]) : json_null());
    return a;
}

/* GET /api/tournament's body (malloc'd JSON), or NULL when no tournament
 * runs (or out of memory). Its size is bounded: the standings (at most 243
 * players), the current turn's tables (at most 81, each with the count of
 * its games held back) and the latest 200 published games, with
 * held_games (the count held back) and held_rule, and `tv`: the newest
 * published game the watch page replays (null before the first): under
 * 100 KB. */
static char *tsrv_json(ddz_srv *srv)
{
    ddz_tsrv *ts = srv->tsrv;
    if (!ts)
        return NULL;
    const ddz_tourney *t = ddz_director_state(ts->d);
    const char *msg;
    int err = ddz_director_error(ts->d, &msg);
    ddz_report r = {.t = t, .ids = (const char *const *)ts->s.ids};
    json_t *o = json_object();
    json_object_set_new(o, "running", json_true());
    const char *slash = strrchr(ts->dir, '/');
    json_object_set_new(o, "name", json_string(slash && slash[1] ? slash + 1 : ts->dir));
    json_object_set_new(o, "format", json_string(ts->s.format));
    json_object_set_new(o, "rules", json_string(ts->s.rules->name));
    json_object_set_new(o, "games_per_turn", json_integer(ts->s.dc.opts.games));
    json_object_set_new(o, "done", json_boolean(t->done && !err));
    json_object_set_new(o, "error", err ? json_string(msg) : json_null());
    json_object_set_new(o, "standings", ddz_report_standings(&r));
    /* the turn being played */
    json_t *cur = json_null();
    if (!t->done && !err) {
        cur = json_object();
        json_object_set_new(cur, "stage", json_string(ddz_tourney_stage_name(t->stage)));
        json_object_set_new(cur, "turn", json_integer(t->turn));
        json_t *tables = json_array(), *byes = json_array();
        for (int k = 0; k < t->ntables; k++) {
            const ddz_tourney_table *tb = &t->table[k];
            json_t *e = json_object();
            json_object_set_new(e, "table", json_integer(k + 1));
            json_object_set_new(e, "players", ids3(ts, tb->player));
            json_object_set_new(e, "games_done", json_integer(tb->done));
            int held = 0;
            for (int g = ts->first_held; g < ts->ngames; g++)
                held += !ts->pub[g] && ts->games[g].w.table == k + 1 &&
                        ts->games[g].w.stage == t->stage && ts->games[g].w.turn == t->turn;
            json_object_set_new(e, "held", json_integer(held));
            json_object_set_new(e, "room",
                                ts->room[k] && !ddz__room_dead(ts->room[k])
                                    ? json_string(ddz__room_id(ts->room[k]))
                                    : json_null());
            int64_t wait = ddz_director_waiting(ts->d, k);
            json_object_set_new(e, "waiting_s",
                                wait >= 0 ? json_integer((wait + 999999) / 1000000) : json_null());
            json_t *absent = json_array();
            for (int s = 0; s < 3; s++)
                if (tb->absent >> s & 1)
                    json_array_append_new(absent, json_string(ts->s.ids[tb->player[s]]));
            json_object_set_new(e, "forfeited", absent);
            json_array_append_new(tables, e);
        }
        for (int b = 0; b < t->nbyes; b++)
            json_array_append_new(byes, json_string(ts->s.ids[t->bye[b]]));
        json_object_set_new(cur, "tables", tables);
        json_object_set_new(cur, "byes", byes);
    }
    json_object_set_new(o, "current", cur);
    json_t *games = json_array(), *tv = json_null();
    int listed = 0, held = 0;
    for (int g = ts->first_held; g < ts->ngames; g++)
        held += !ts->pub[g];
    for (int g = ts->ngames - 1; g >= 0 && listed < API_GAMES_MAX; g--) {
        if (!ts->pub[g])
            continue; /* held: someone may still have its deal to play */
        listed++;
        const ddz_report_game *rg = &ts->games[g];
        json_t *e = json_object(), *ps = json_array(), *sc = json_array();
        for (int s = 0; s < 3; s++) {
            json_array_append_new(ps, json_string(ts->s.ids[rg->w.player[s]]));
            json_array_append_new(sc, ddz_score_json(rg->scores[s]));
        }
        json_object_set_new(e, "id",
                            rg->w.store_id > 0 ? json_integer(rg->w.store_id) : json_null());
        json_object_set_new(e, "stage", json_string(ddz_tourney_stage_name(rg->w.stage)));
        json_object_set_new(e, "turn", json_integer(rg->w.turn));
        json_object_set_new(e, "table", json_integer(rg->w.table));
        json_object_set_new(e, "game", json_integer(rg->w.game));
        json_object_set_new(e, "players", ps);
        json_object_set_new(e, "scores", sc);
        json_object_set_new(e, "fault_seat",
                            rg->fault_seat >= 0 ? json_integer(rg->fault_seat) : json_null());
        if (json_is_null(tv) && rg->w.store_id > 0) /* the newest published: the TV's */
            tv = json_pack("{s:I, s:s, s:i, s:i, s:i, s:O}", "game", (json_int_t)rg->w.store_id,
                           "stage", ddz_tourney_stage_name(rg->w.stage), "turn", rg->w.turn, "deal",
                           rg->w.game, "table", rg->w.table, "players",
                           json_object_get(e, "players"));
        json_array_append_new(games, e);
    }
    json_object_set_new(o, "games", games);
    json_object_set_new(o, "tv", tv ? tv : json_null());
    json_object_set_new(o, "games_played", json_integer(ts->ngames));
    json_object_set_new(o, "held_games", json_integer(held));
    json_object_set_new(o, "held_rule", json_string(held_rule));
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15));
    json_decref(o);
    return s;
}

/* The store's ticket (ddz_store_ticket()) of the latest publication of
 * games, 0 if none or no tournament runs: GET /api/tournament is not
 * served before it is durable, so every game it lists is served by its id
 * at once. */
static uint64_t tsrv_ticket(const ddz_srv *srv)
{
    return srv->tsrv ? srv->tsrv->ticket : 0;
}

/* GET /api/tournament: 200 either way (the lobby asks on every server, and
 * a browser logs every 404 as an error), {"running":false} without one. */
static void tsrv_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    req->body = srv->tsrv ? tsrv_json(srv) : strdup("{\"running\":false}");
    req->hold = tsrv_ticket(srv); /* every game it lists readable at once */
}

int ddz__tsrv_routes(ddz_srv *srv)
{
    return ddz__http_route_add(&srv->routes, "/api/tournament", false, tsrv_get);
}

void ddz__tsrv_abort(ddz_srv *srv, const char *reason)
{
    ddz_tsrv *ts = srv->tsrv;
    if (!ts)
        return;
    for (int k = 0; k < DDZ_TOURNEY_MAX_TABLES; k++)
        if (ts->room[k])
            ddz__room_abort(ts->room[k]);
    for (int i = 0; ts->bot && i < ts->s.n; i++) {
        ddz_player *p = ts->bot[i];
        if (!p || !p->conn)
            continue;
        ddz_event e = {.type = DDZ_EVENT_RELEASED};
        snprintf(e.released.reason, sizeof e.released.reason, "%s", reason);
        ddz__conn_send(p->conn, ddz_event_print(&e));
    }
}

void ddz__tsrv_destroy(ddz_srv *srv)
{
    if (!srv->tsrv)
        return;
    ddz_tsrv *ts = srv->tsrv;
    srv->tsrv = NULL;
    tsrv_free(ts);
}
