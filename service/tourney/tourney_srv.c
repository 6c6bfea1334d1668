/* tourney_srv.c - the tournament director inside `ddz serve`, a plug-in
 * of the table host (service/server/host.h, and nothing else of the
 * server): seats from the players file and enlisted bots, a table per
 * table being played (held: publish_ready()), games.jsonl and the reports
 * in DIR, GET /api/tournament, and on several nodes the lock it runs
 * under (the node that holds it runs it). */
#include "service/tourney/tourney_srv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/event.h"
#include "proto/msg.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "service/seats/seats.h"
#include "service/server/host.h"
#include "service/tourney/director.h"
#include "service/tourney/gamelog.h"
#include "service/tourney/report.h"
#include "service/tourney/setup.h"

typedef struct ddz_tsrv ddz_tsrv;

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
    ddz_host *h;
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

/* The tournament as the host's plug-in: the one running here, if any, and
 * on several nodes the lock it follows (poll()). */
typedef struct tplug {
    ddz_host *h;
    ddz_tsrv *ts;         /* the tournament running on this node, or NULL */
    int job;              /* its job (ddz_host_lead_want()), -1 without --tournament */
    uint64_t term;        /* the lead term it runs under, 0 = none */
    char lease[96];       /* DIR/lease as this node wrote it, "" on one node */
    uint64_t gain_term;   /* the term whose grace is counted */
    int64_t gain_us;      /* when this node gained it */
    bool grace;           /* it waits: another node held DIR last */
    uint64_t fenced_term; /* DIR was taken over in this term: not run again in it */
} tplug;

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
    int rc = n ? ddz_store_publish_games(ddz_host_store(ts->h), ids, n) : 0;
    if (n && rc == 0)
        ts->ticket = ddz_store_ticket(ddz_host_store(ts->h));
    if (rc < 0)
        ddz_host_log(ts->h, "error", NULL,
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
        if (ts->bot[i] && !ddz_host_settled(ts->bot[i])) {
            ddz_loop_arm(ddz_host_loop(ts->h), &ts->kick, kick_cb, DDZ_SETTLE_POLL_US);
            return;
        }
    ddz_director_step(ts->d);
    publish_ready(ts);
    if (ddz_director_done(ts->d) && !ts->released) {
        ts->released = true;
        const char *msg;
        int err = ddz_director_error(ts->d, &msg);
        if (err)
            ddz_host_log(ts->h, "error", NULL, "tournament stopped: %s (restart to resume)", msg);
        else
            ddz_host_log(ts->h, "info", NULL, "tournament over: standings in %s/standings.html",
                         ts->dir);
        if (ddz_gamelog_sync(ts->log) < 0)
            ts->io_err = true;
        ddz_event e = {.type = DDZ_EVENT_RELEASED};
        snprintf(e.released.reason, sizeof e.released.reason, "%s",
                 err ? "the tournament stopped" : "the tournament is over");
        for (int i = 0; i < ts->s.n; i++)
            if (ts->bot[i] && ts->bot[i]->conn)
                ddz_host_send(ts->bot[i], ddz_event_print(&e));
    }
}

static void kick(ddz_tsrv *ts)
{
    ddz_loop_arm(ddz_host_loop(ts->h), &ts->kick, kick_cb, 0);
}

static void flush_cb(ddz_timer *t)
{
    ddz_tsrv *ts = (ddz_tsrv *)((char *)t - offsetof(ddz_tsrv, flush));
    if (ddz_gamelog_sync(ts->log) < 0 && !ts->io_err) {
        ts->io_err = true;
        ddz_host_log(ts->h, "error", NULL, "tournament: cannot sync %s/games.jsonl", ts->dir);
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
        ddz_host_log(ts->h, "error", NULL, "tournament: cannot write the standings in %s", ts->dir);
}

/* ---- the lease: which node writes DIR (poll()) ---- */

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

/* Whether DIR/lease names a node other than `node` (copied to `holder`);
 * false when there is none or it cannot be read. Reads a small file, on
 * the loop. */
static bool lease_other(const char *dir, const char *node, char *holder, size_t holderlen)
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
 * grace: poll()); this one then stops writing at once. */
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
    ddz_host_log(ts->h, "warn", NULL,
                 "tournament: %s/lease is %s%s%s, not this node's (%s): stopping here", ts->dir,
                 rc < 0 ? "unreadable (" : "\"", rc < 0 ? strerror(-rc) : text, rc < 0 ? ")" : "\"",
                 ts->lease);
    return false;
}

/* Whether the running tournament found DIR/lease taken by another node
 * (then it has stopped writing to DIR; poll() ends it here). */
static bool tsrv_fenced(const tplug *tp)
{
    return tp->ts && tp->ts->fenced;
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
    return ddz_host_seat_make(ts->h, &w, &e, err, errlen);
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
    ddz_room *r = ddz_host_table_open(ts->h, &o, run, labels, bots);
    if (!r) {
        ddz_host_log(ts->h, "error", NULL, "tournament: out of memory for the room of table %d",
                     w->table);
        return;
    }
    ts->room[w->table - 1] = r;
}

static void table_event(void *ctx, const ddz_tgame *w, const ddz_ev *ev)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    if (r)
        ddz_host_table_event(r, ev);
}

static int game_over(void *ctx, const ddz_tgame *w, const ddz_record *rec)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    ddz_tgame wc = *w;
    wc.store_id = r ? ddz_host_table_over(r, rec) : 0;
    if (!lease_ok(ts))
        return DDZ_EIO; /* the director stops; poll() ends it here */
    int line = ddz_gamelog_append(ts->log, &wc, rec);
    if (line < 0)
        return line;
    if (!ts->flush.armed)
        ddz_loop_arm(ddz_host_loop(ts->h), &ts->flush, flush_cb, 1000000);
    kick(ts);
    return keep_game(ts, &wc, rec, line);
}

static void table_end(void *ctx, const ddz_tgame *w)
{
    ddz_tsrv *ts = ctx;
    ddz_room *r = ts->room[w->table - 1];
    ts->room[w->table - 1] = NULL;
    if (r)
        ddz_host_table_close(r);
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
        ddz_host_log(ts->h, "info", NULL, "tournament: %s turn %d is over",
                     ddz_tourney_stage_name(t->last_stage), t->last_turn);
    kick(ts);
}

static void director_log(void *ctx, const char *msg)
{
    ddz_tsrv *ts = ctx;
    ddz_host_log(ts->h, "info", NULL, "tournament: %s", msg);
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
        ddz_host_log(ts->h, "error", NULL, "tournament: %s/games.jsonl:%d: %s", ts->dir, line, why);
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
    ddz_loop_disarm(ddz_host_loop(ts->h), &ts->kick);
    ddz_loop_disarm(ddz_host_loop(ts->h), &ts->flush);
    for (int k = 0; k < DDZ_TOURNEY_MAX_TABLES; k++)
        if (ts->room[k]) {
            ddz_host_table_close(ts->room[k]);
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

/* Starts the tournament of the configuration's DIR on the host's loop,
 * replaying what DIR holds. With tp->lease set (several nodes) it first
 * writes it to DIR/lease, and checks it is still there before every
 * append: a node that finds another's stops writing (tsrv_fenced()).
 * Returns 0, or -1 with a one-line reason in `err` (a bad players or
 * options file, another tournament in DIR, an unknown engine, a records
 * file that does not fit). */
static int tsrv_start(tplug *tp, char *err, size_t errlen)
{
    ddz_host *srv = tp->h;
    const ddz_server_cfg *cfg = ddz_host_cfg(srv);
    ddz_tsrv *ts = calloc(1, sizeof *ts);
    if (!ts) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ts->h = srv;
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
    snprintf(ts->lease, sizeof ts->lease, "%s", tp->lease);
    if (ts->lease[0] && lease_write(ts->dir, ts->lease) < 0) {
        snprintf(why, sizeof why, "cannot write %.300s/lease: %s", ts->dir, strerror(errno));
        goto fail;
    }
    int64_t t0 = ddz_host_now_us();
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
    if (!ts->bot || !(ts->d = ddz_director_create(ddz_host_loop(srv), &ts->s.dc, &cb, &rc))) {
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
    tp->ts = ts;
    /* read and replayed on the loop: the time it held the loop is said */
    ddz_host_log(srv, "info", NULL,
                 "tournament %s: %d players, format %s, %d games a turn, %d game%s already played"
                 " (loaded in %lld ms)",
                 ts->dir, ts->s.n, ts->s.format, ts->s.dc.opts.games, ddz_gamelog_count(ts->log),
                 ddz_gamelog_count(ts->log) == 1 ? "" : "s",
                 (long long)((ddz_host_now_us() - t0) / 1000));
    ddz_director_start(ts->d);
    kick(ts);
    return 0;
fail:
    snprintf(err, errlen, "tournament: %s", why);
    tp->ts = NULL;
    tsrv_free(ts);
    return -1;
}

/* `p` (a bot) asked to enlist (`q`, for error answers): it is answered
 * `enlisted` and seated when its tables start, or an error. */
static void tsrv_enlist(tplug *tp, ddz_player *p, const ddz_req *q)
{
    ddz_tsrv *ts = tp->ts;
    if (!ts) {
        ddz_host_error(p, DDZ_ENOTFOUND, "no tournament is running on this server", q);
        return;
    }
    if (!p->bot) {
        ddz_host_error(p, DDZ_EAUTH, "only bots (a hello with a token) enlist", q);
        return;
    }
    int i = -1;
    for (int k = 0; k < ts->s.n && i < 0; k++)
        if (is_bot(ts, k) && strcmp(ts->s.specs[k] + 4, p->name) == 0)
            i = k;
    if (i < 0) {
        ddz_host_error(p, DDZ_EAUTH, "this token's name is no player of the tournament", q);
        return;
    }
    ts->bot[i] = p; /* one token, one player (players.h): no other to release */
    p->enlisted = true;
    ddz_event e = {.type = DDZ_EVENT_ENLISTED};
    snprintf(e.enlisted.competition, sizeof e.enlisted.competition, "tournament");
    snprintf(e.enlisted.player, sizeof e.enlisted.player, "%s", ts->s.ids[i]);
    ddz_host_send(p, ddz_event_print(&e));
    /* at a table being played (it came back, on a new connection): it
     * takes its seat back, and is asked what is open */
    const ddz_tourney *t = ddz_director_state(ts->d);
    for (int k = 0; k < t->ntables && !ddz_director_done(ts->d); k++)
        for (int s = 0; s < 3; s++)
            if (t->table[k].player[s] == i && ts->room[k])
                ddz_host_table_reseat(ts->room[k], s, p);
    if (ddz_director_done(ts->d)) {
        ddz_event rel = {.type = DDZ_EVENT_RELEASED};
        snprintf(rel.released.reason, sizeof rel.released.reason, "the tournament is over");
        ddz_host_send(p, ddz_event_print(&rel));
    }
    kick(ts);
}

/* The host frees enlisted player `p`: forget it. */
static void tsrv_forget(void *self, ddz_player *p)
{
    ddz_tsrv *ts = ((tplug *)self)->ts;
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
static char *tsrv_json(const tplug *tp)
{
    ddz_tsrv *ts = tp->ts;
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
                                ts->room[k] && !ddz_host_table_gone(ts->room[k])
                                    ? json_string(ddz_host_table_id(ts->room[k]))
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
static uint64_t tsrv_ticket(const tplug *tp)
{
    return tp && tp->ts ? tp->ts->ticket : 0;
}

/* GET /api/tournament: 200 either way (the lobby asks on every server, and
 * a browser logs every 404 as an error), {"running":false} without one. */
static void tsrv_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    const tplug *tp = ddz_host_plugin_self(srv, "tournament");
    req->body = tp && tp->ts ? tsrv_json(tp) : strdup("{\"running\":false}");
    req->hold = tsrv_ticket(tp); /* every game it lists readable at once */
}

/* The tournament stops on this node while the server goes on (its lock
 * was lost): the games being played are recorded as aborted and its
 * enlisted bots are told `released` with `reason`. Call tsrv_destroy()
 * next. Nothing without a tournament. */
static void tsrv_abort(tplug *tp, const char *reason)
{
    ddz_tsrv *ts = tp->ts;
    if (!ts)
        return;
    for (int k = 0; k < DDZ_TOURNEY_MAX_TABLES; k++)
        if (ts->room[k])
            ddz_host_table_abort(ts->room[k]);
    for (int i = 0; ts->bot && i < ts->s.n; i++) {
        ddz_player *p = ts->bot[i];
        if (!p || !p->conn)
            continue;
        ddz_event e = {.type = DDZ_EVENT_RELEASED};
        snprintf(e.released.reason, sizeof e.released.reason, "%s", reason);
        ddz_host_send(p, ddz_event_print(&e));
    }
}

/* Ends the tournament's tables (shutdown: the games being played are
 * recorded as aborted by the host first) and frees it. Nothing without
 * one. */
static void tsrv_destroy(tplug *tp)
{
    if (!tp->ts)
        return;
    ddz_tsrv *ts = tp->ts;
    tp->ts = NULL;
    tsrv_free(ts);
}

/* ---- several nodes: the tournament runs where its lock is ---- */

/* A node that gains a tournament's lock after ANOTHER node held it waits
 * this long before it writes to DIR: PostgreSQL may have freed the old
 * holder's lock before the old holder knows (the server restarted, its
 * backend was terminated, the network was cut), and the old holder stops
 * only once its lead thread notices. A cut network is noticed within
 * some 11 s (service/store/pg_conn.c: tcp_user_timeout 10 s; keepalives
 * probe an idle session after 5 s, three times 2 s apart), then up to one
 * lead round (500 ms, service/server/lead_srv.c) and one loop tick (1 s)
 * pass before it stops: 12.5 s, which 15 s covers with room (a URL that
 * sets its own keepalives or tcp_user_timeout changes that bound).
 * DIR/lease fences what is left (a holder that is slower still finds
 * another's lease before its next append). */
#define TOURNEY_GRACE_MS 15000

/* The lock's name: "tournament:" and DIR's last component. */
static void lock_name(const char *dir, char *out, size_t outlen)
{
    char d[DDZ_LEAD_JOB_MAX];
    snprintf(d, sizeof d, "%s", dir);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    const char *base = strrchr(d, '/');
    snprintf(out, outlen, "tournament:%.80s", base && base[1] ? base + 1 : d);
}

/* Follows the job: starts or ends the tournament as it is gained or lost
 * (logged). On one node, a cluster of one, the job is held from the start
 * for good: the tournament starts at once, with no grace and no lease (no
 * other node can write DIR). Called from the start and on the loop when
 * the job may have moved and on a tick. Returns 0, or -1 with tsrv_start()'s
 * reason in `err` when the tournament could not start (once per term). */
static int follow(tplug *tp, char *err, size_t errlen)
{
    ddz_host *h = tp->h;
    const ddz_server_cfg *cfg = ddz_host_cfg(h);
    ddz_lead_job j;
    if (tp->job < 0 || !ddz_host_lead_state(h, tp->job, &j))
        return 0;
    if (tp->ts && (!j.held || j.term != tp->term)) {
        /* lost (maybe gained again since): another node may be resuming it
         * already, so this one stops at once; its tables' games are
         * recorded as aborted, the director's state is DIR's */
        ddz_host_log(h, "warn", NULL, "tournament: the lock is lost: stopping here");
        tsrv_abort(tp, "the tournament moved to another node: enlist again");
        tsrv_destroy(tp);
        tp->term = 0;
    }
    if (tp->ts && tsrv_fenced(tp)) {
        /* another node wrote its lease in DIR: this one's session is gone
         * without its lead thread knowing yet; not run again in this term */
        tsrv_abort(tp, "the tournament moved to another node: enlist again");
        tsrv_destroy(tp);
        tp->fenced_term = tp->term;
        tp->term = 0;
    }
    if (!tp->ts && j.held && j.term == tp->fenced_term)
        return 0;
    if (!tp->ts && j.held && j.term != tp->gain_term) {
        /* a new term: did another node hold DIR last? */
        char holder[DDZ_LEAD_NODE_MAX] = "";
        tp->gain_term = j.term;
        tp->gain_us = ddz_host_now_us();
        tp->grace = !j.solo && lease_other(cfg->tournament_dir, cfg->node, holder, sizeof holder);
        if (tp->grace)
            ddz_host_log(h, "info", NULL,
                         "tournament: this node holds its lock; node %s held it last: waiting %d s"
                         " for it to notice",
                         holder, TOURNEY_GRACE_MS / 1000);
    }
    if (!tp->ts && j.held && tp->grace &&
        ddz_host_now_us() - tp->gain_us < (int64_t)TOURNEY_GRACE_MS * 1000)
        return 0; /* the next tick looks again */
    if (!tp->ts && j.held) {
        /* the lease: who writes DIR, in which term (unique: a node's terms
         * count up while it runs, and a restarted node starts later); none
         * on a cluster of one */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tp->lease[0] = '\0';
        if (!j.solo)
            snprintf(tp->lease, sizeof tp->lease, "%s %llu %lld", cfg->node,
                     (unsigned long long)j.term,
                     (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        if (tsrv_start(tp, err, errlen) < 0) {
            bool first = tp->term != j.term; /* said once per term */
            tp->term = j.term;
            return first ? -1 : 0;
        }
        tp->term = j.term;
        if (!j.solo)
            ddz_host_log(h, "info", NULL, "tournament: this node holds its lock: running it");
    }
    return 0;
}

static void tplug_poll(void *self)
{
    tplug *tp = self;
    char err[300];
    if (follow(tp, err, sizeof err) < 0)
        ddz_host_log(tp->h, "error", NULL, "tournament: %s", err);
}

/* Whether the tournament is configured but runs on another node (or on
 * none yet): then `p`'s enlist (`q`) is answered here, with a redirect to
 * the holder, or, while no node holds it, by closing the connection
 * (1001: a bot reconnects and enlists again), and true is returned. */
static bool elsewhere(tplug *tp, ddz_player *p, const ddz_req *q)
{
    const ddz_server_cfg *cfg = ddz_host_cfg(tp->h);
    ddz_lead_job j;
    if (tp->job < 0 || tp->ts || !p->conn || !ddz_host_lead_state(tp->h, tp->job, &j) || j.solo)
        return false; /* a cluster of one has no elsewhere */
    if (!j.holder_known || !j.holder_url[0] || j.held ||
        (cfg->public_url && strcmp(j.holder_url, cfg->public_url) == 0)) {
        /* between nodes (just started, or its node died and no other
         * took it yet): not an error a bot should give up on; closed,
         * so that it reconnects and enlists again (ddz bridge does) */
        ddz_host_close(p, LWS_CLOSE_STATUS_GOINGAWAY, "the tournament is between nodes: reconnect");
        return true;
    }
    ddz_event e = {.type = DDZ_EVENT_REDIRECT, .redirect = {.about = q->type}};
    snprintf(e.redirect.url, sizeof e.redirect.url, "%s", j.holder_url);
    snprintf(e.redirect.id, sizeof e.redirect.id, "%s", q->id);
    snprintf(e.redirect.reason, sizeof e.redirect.reason, "the tournament runs on node %s",
             j.holder);
    ddz_host_send(p, ddz_event_print(&e));
    return true;
}

/* ---- the plug-in ---- */

static void *tplug_create(ddz_host *h, char *err, size_t errlen)
{
    tplug *tp = calloc(1, sizeof *tp);
    if (!tp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    tp->h = h;
    tp->job = -1;
    /* whether a tournament runs or not ({"running":false} without one) */
    int rc = ddz_host_route_add(h, "/api/tournament", false, tsrv_get);
    const char *dir = ddz_host_cfg(h)->tournament_dir;
    if (rc == 0 && dir) {
        char name[DDZ_LEAD_JOB_MAX];
        lock_name(dir, name, sizeof name);
        rc = ddz_host_lead_want(h, name);
        tp->job = rc;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", ddz_strerror(rc));
        free(tp);
        return NULL;
    }
    return tp;
}

static int tplug_start(void *self, char *err, size_t errlen)
{
    tplug *tp = self;
    ddz_lead_job j;
    /* One node holds its job already: the tournament starts with the
     * server, and a failure to start is the server's. Several nodes: it
     * starts where its lock is, when the lead thread gains it (tplug_poll()). */
    if (!ddz_host_cfg(tp->h)->tournament_dir || !ddz_host_lead_state(tp->h, tp->job, &j) || !j.solo)
        return 0;
    return follow(tp, err, errlen);
}

static bool tplug_takes_default(void *self)
{
    return ddz_host_cfg(((tplug *)self)->h)->tournament_dir != NULL;
}

static void tplug_enlist(void *self, ddz_player *p, const ddz_req *q)
{
    if (!elsewhere(self, p, q)) /* several nodes: its node's */
        tsrv_enlist(self, p, q);
}

static void tplug_stop(void *self)
{
    tsrv_destroy(self); /* its rooms let the director's runners go first */
}

static void tplug_destroy(void *self)
{
    tplug *tp = self;
    if (tp)
        tsrv_destroy(tp);
    free(tp);
}

const ddz_plugin ddz_tourney_plugin = {
    .kind = "tournament",
    .create = tplug_create,
    .start = tplug_start,
    .takes_default = tplug_takes_default,
    .enlist = tplug_enlist,
    .forget = tsrv_forget,
    .poll = tplug_poll,
    .stop = tplug_stop,
    .destroy = tplug_destroy,
};
