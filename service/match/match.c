/* match.c - `ddz match`: one table (two for an A/B match) on a poll(2) loop.
 *
 * The game flow is the runner's (service/table/runner.h), the seats are the
 * registry's (service/seats/seats.h); this file owns only what a local
 * match adds: the loop, the records file, the totals and the diagnostics.
 * Between games it waits until every engine has acknowledged the end, so a
 * restarted engine always begins cleanly at a game boundary.
 */
#include "service/match/match.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/record_json.h"
#include "proto/text.h"
#include "rules/error.h"
#include "service/engine/engine.h"
#include "service/match/loop_poll.h"
#include "service/seats/seats.h"
#include "service/table/runner.h"

/* One table: the only one of a plain match; in an A/B match (cfg.baseline)
 * the candidate's (player A = cfg.spec[0]) and the baseline's (player A =
 * cfg.baseline), each with its own seats for B and C, playing the same
 * deals in the same order. */
typedef struct ddz_match_half {
    ddz_match *m;
    ddz_runner *run;
    ddz_match_stats st[3]; /* by player */
    double set_score;      /* player A's small score in the current deal set */
} ddz_match_half;

struct ddz_match {
    ddz_match_cfg cfg;
    ddz_loop *loop;
    ddz_match_half half[2];
    int nhalf;            /* 1, or 2 for an A/B match */
    int sets;             /* A/B: deal sets played */
    ddz_ai_workspace *ws; /* hosted AIs' decisions, one at a time on the loop */
    FILE *log;
    long played;
    int write_rc; /* DDZ_EIO once the log could not be written */
};

static const char *const side_name[2] = {"candidate", "baseline"};

static void on_log(void *ctx, int player, bool warn, const char *msg)
{
    ddz_match_half *h = ctx;
    ddz_match *m = h->m;
    (void)player, (void)warn;
    if (m->cfg.diag && m->nhalf == 2)
        fprintf(m->cfg.diag, "ddz match: %s's games: %s\n", side_name[h - m->half], msg);
    else if (m->cfg.diag)
        fprintf(m->cfg.diag, "ddz match: %s\n", msg);
}

static int write_record(ddz_match *m, int side, const ddz_record *r)
{
    if (!m->log)
        return 0;
    json_t *j = ddz_record_to_json(r);
    /* An A/B match's two tables number their games alike: the record says
     * which deal set and whose game it was, so the run can be recounted. */
    if (j && m->nhalf == 2 &&
        json_object_set_new(
            j, "sprt", json_pack("{s:i, s:s}", "set", m->sets + 1, "side", side_name[side])) < 0) {
        json_decref(j);
        j = NULL;
    }
    char *s = j ? json_dumps(j, DDZ_RECORD_JSON_FLAGS) : NULL;
    json_decref(j);
    int rc = s && fprintf(m->log, "%s\n", s) >= 0 && fflush(m->log) == 0 ? 0 : DDZ_EIO;
    free(s);
    return rc;
}

static void on_over(void *ctx, const ddz_record *r)
{
    ddz_match_half *h = ctx;
    ddz_match *m = h->m;
    const ddz_table *t = ddz_runner_table(h->run);
    for (int s = 0; s < 3; s++) {
        int p = ddz_table_player_at(t, s);
        ddz_match_stats *st = &h->st[p];
        ddz_seat *seat = ddz_runner_seat_of(h->run, p);
        if (p == 0)
            h->set_score = ddz_score_add(h->set_score, r->scores[s]);
        snprintf(st->name, sizeof st->name, "%s", r->names[s]);
        st->restarts = ddz_seat_engine_restarts(seat);
        st->games++;
        st->score = ddz_score_add(st->score, r->scores[s]);
        st->landlord += r->landlord == s;
        for (int i = 0; i < r->nfaults; i++)
            st->faults += r->faults[i].seat == s; /* once per game at most */
        if (r->winner >= 0) {                     /* botzone-ftl2 plays on after a fault */
            bool ll_won = r->winner == r->landlord;
            if (s == r->landlord && ll_won)
                st->wins_landlord++;
            else if (s != r->landlord && !ll_won)
                st->wins_farmer++;
        }
    }
    m->played++;
    if (m->write_rc == 0)
        m->write_rc = write_record(m, (int)(h - m->half), r);
}

/* Creates half `hi`'s runner, series and seats. Returns 0, or -1 with a
 * one-line reason in `err`. */
static int make_half(ddz_match *m, int hi, int time_ms, char *err, size_t errlen)
{
    const ddz_match_cfg *cfg = &m->cfg;
    ddz_match_half *h = &m->half[hi];
    h->m = m;
    ddz_runner_cb cb = {.ctx = h, .over = on_over, .log = on_log};
    if (!(h->run = ddz_runner_create(m->loop, &cb))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ddz_table_cfg tc = {
        .rules = cfg->rules,
        .deals = cfg->games,
        .rotate = cfg->rotate || m->nhalf == 2,
        .maxscore = cfg->maxscore,
        .time_ms = time_ms,
    };
    memcpy(tc.master, cfg->master, sizeof tc.master);
    for (int p = 0; p < 3; p++)
        tc.autopass[p] = 1; /* the CAAI platform passes for engines that cannot beat */
    if (ddz_runner_series(h->run, &tc) < 0) {
        snprintf(err, errlen, "bad match settings");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        const char *spec = i == 0 && hi == 1 ? cfg->baseline : cfg->spec[i];
        char who[16];
        if (m->nhalf == 2 && spec == cfg->baseline) /* seats B and C default to it */
            snprintf(who, sizeof who, "baseline");
        else
            snprintf(who, sizeof who, "seat %c", 'A' + i);
        if (!spec) {
            snprintf(err, errlen, "%s: no player given", who);
            return -1;
        }
        if (strncmp(spec, "ai:", 3) == 0 && !m->ws && !(m->ws = ddz_ai_workspace_create())) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        char log_path[512];
        if (cfg->engine_log_dir)
            snprintf(log_path, sizeof log_path, "%s/player-%c%s.stderr.log", cfg->engine_log_dir,
                     'A' + i, hi == 1 ? "-baseline" : "");
        /* Both halves give a seat the same AI seed (the candidate's and the
         * baseline's too): hosted AIs on the other seats then decide alike
         * wherever the two games agree, and a difference in the deal set
         * comes from the players compared, not from the dice. */
        ddz_seat_env env = {
            .loop = m->loop,
            .allow_exec = true,
            .stderr_log = cfg->engine_log_dir ? log_path : NULL,
            .time_ms = time_ms,
            .workspace = m->ws,
            .ai_seed = cfg->ai_seed + (uint64_t)i,
        };
        int e = 0;
        char why[300];
        ddz_seat *s = ddz_seat_create(spec, &env, &e, why, sizeof why);
        if (!s) {
            snprintf(err, errlen, "%s: %s", who,
                     strncmp(spec, "ai:", 3) == 0 || strncmp(spec, "exec:", 5) == 0 ||
                             strncmp(spec, "botzone:", 8) == 0
                         ? why
                         : "neither exec:COMMAND, botzone:COMMAND nor ai:NAME");
            return -1;
        }
        ddz_runner_seat(h->run, i, s);
        snprintf(h->st[i].name, sizeof h->st[i].name, "%s", s->ops->name(s));
    }
    return 0;
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
    m->nhalf = cfg->baseline ? 2 : 1;
    double time_s = cfg->time_s > 0 ? cfg->time_s : m->cfg.rules->default_time_ms / 1000.0;
    if (cfg->games < 1) {
        snprintf(err, errlen, "--games must be at least 1");
        goto fail;
    }
    if (!(m->loop = ddz_poll_loop_create())) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (int hi = 0; hi < m->nhalf; hi++)
        if (make_half(m, hi, (int)ceil(time_s * 1000), err, errlen) < 0)
            goto fail;
    if (cfg->log_path && !(m->log = fopen(cfg->log_path, "w"))) {
        snprintf(err, errlen, "cannot write %s: %s", cfg->log_path, strerror(errno));
        goto fail;
    }
    return m;
fail:
    ddz_match_destroy(m);
    return NULL;
}

/* Plays half `h`'s games until it has started `upto` of its series (or the
 * series ends) and every seat is idle again. Returns 0, or DDZ_EIO. */
static int play(ddz_match *m, ddz_match_half *h, int upto)
{
    const ddz_table *t = ddz_runner_table(h->run);
    while (!ddz_table_done(t) && t->next < upto && m->write_rc == 0) {
        int rc = ddz_runner_start(h->run);
        if (rc < 0)
            return rc;
        /* Every wait is bounded: each line and request has its time limit. */
        while (!ddz_runner_idle(h->run))
            if (ddz_poll_loop_once(m->loop, 1000) < 0)
                return DDZ_EIO;
    }
    return m->write_rc;
}

/* Stops the engines and waits until they and their process groups are
 * gone (the grace, then SIGKILL: engine.h; `ddz match` has nothing else to
 * serve meanwhile). */
static void stop_engines(ddz_match *m)
{
    for (int hi = 0; hi < m->nhalf; hi++)
        for (int p = 0; p < 3; p++)
            ddz_runner_seat(m->half[hi].run, p, NULL);
    ddz_engine_settle(10000);
}

int ddz_match_run(ddz_match *m)
{
    if (m->nhalf != 1)
        return DDZ_EPHASE;
    int rc = play(m, &m->half[0], INT_MAX);
    stop_engines(m); /* engines are stopped on return */
    return rc;
}

int ddz_match_play_set(ddz_match *m, double *candidate, double *baseline)
{
    if (m->nhalf != 2)
        return DDZ_EPHASE;
    if (m->sets >= m->cfg.games)
        return 0;
    for (int hi = 0; hi < 2; hi++) {
        m->half[hi].set_score = 0;
        int rc = play(m, &m->half[hi], 3 * (m->sets + 1));
        if (rc < 0)
            return rc;
    }
    *candidate = m->half[0].set_score;
    *baseline = m->half[1].set_score;
    m->sets++;
    return 1;
}

void ddz_match_stop(ddz_match *m)
{
    stop_engines(m);
}

const ddz_match_stats *ddz_match_stats_of(const ddz_match *m, int i)
{
    return i >= 3 && m->nhalf == 2 ? &m->half[1].st[i - 3] : &m->half[0].st[i % 3];
}

long ddz_match_games_played(const ddz_match *m)
{
    return m->played;
}

/* Prints half `h`'s table. */
static void print_half(const ddz_match_half *h, FILE *out)
{
    enum { NAME_COLS = 24 };
    fprintf(out, "%-6s %-*s %6s %8s %8s %8s %10s %7s\n", "player", NAME_COLS, "name", "games",
            "landlord", "won-ll", "won-fm", "score", "faults");
    for (int i = 0; i < 3; i++) {
        const ddz_match_stats *st = &h->st[i];
        /* Names are UTF-8, often CJK (GBK names are converted): cut and
         * padded by terminal columns, not bytes, never mid-character. */
        size_t width, n = ddz_text_fit_width(st->name, NAME_COLS, &width);
        char score[32];
        ddz_text_format_score(st->score, score, sizeof score);
        fprintf(out, "%-6c %.*s%*s %6ld %8ld %8ld %8ld %10s %7ld\n", 'A' + i, (int)n, st->name,
                (int)(NAME_COLS - width), "", st->games, st->landlord, st->wins_landlord,
                st->wins_farmer, score, st->faults);
    }
}

void ddz_match_print(const ddz_match *m, FILE *out)
{
    if (m->nhalf == 1) {
        print_half(&m->half[0], out);
        return;
    }
    for (int hi = 0; hi < 2; hi++) {
        fprintf(out, "%s's games (player A = the %s):\n", side_name[hi], side_name[hi]);
        print_half(&m->half[hi], out);
    }
}

void ddz_match_destroy(ddz_match *m)
{
    if (!m)
        return;
    for (int hi = 0; hi < 2; hi++)
        ddz_runner_destroy(m->half[hi].run); /* closes the seats: engines are stopped */
    ddz_poll_loop_destroy(m->loop);
    ddz_ai_workspace_destroy(m->ws); /* after the seats that used it */
    if (m->log)
        fclose(m->log);
    free(m);
}
