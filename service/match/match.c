/* match.c - `ddz match`: one table on a poll(2) loop.
 *
 * The game flow is the runner's (service/table/runner.h), the seats are the
 * registry's (service/seats/seats.h); this file owns only what a local
 * match adds: the loop, the records file, the totals and the diagnostics.
 * Between games it waits until every engine has acknowledged the end, so a
 * restarted engine always begins cleanly at a game boundary.
 */
#include "service/match/match.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/record_json.h"
#include "proto/text.h"
#include "rules/error.h"
#include "service/match/loop_poll.h"
#include "service/seats/seats.h"
#include "service/table/runner.h"

struct ddz_match {
    ddz_match_cfg cfg;
    ddz_loop *loop;
    ddz_runner *run;
    ddz_match_stats st[3]; /* by player */
    ddz_ai_workspace *ws;  /* hosted AIs' decisions, one at a time on the loop */
    FILE *log;
    long played;
    int write_rc; /* DDZ_EIO once the log could not be written */
};

static void on_log(void *ctx, int player, bool warn, const char *msg)
{
    ddz_match *m = ctx;
    (void)player, (void)warn;
    if (m->cfg.diag)
        fprintf(m->cfg.diag, "ddz match: %s\n", msg);
}

static int write_record(ddz_match *m, const ddz_record *r)
{
    if (!m->log)
        return 0;
    json_t *j = ddz_record_to_json(r);
    char *s = j ? json_dumps(j, DDZ_RECORD_JSON_FLAGS) : NULL;
    json_decref(j);
    int rc = s && fprintf(m->log, "%s\n", s) >= 0 && fflush(m->log) == 0 ? 0 : DDZ_EIO;
    free(s);
    return rc;
}

static void on_over(void *ctx, const ddz_record *r)
{
    ddz_match *m = ctx;
    const ddz_table *t = ddz_runner_table(m->run);
    for (int s = 0; s < 3; s++) {
        int p = ddz_table_player_at(t, s);
        ddz_match_stats *st = &m->st[p];
        ddz_seat *seat = ddz_runner_seat_of(m->run, p);
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
        m->write_rc = write_record(m, r);
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
    double time_s = cfg->time_s > 0 ? cfg->time_s : m->cfg.rules->default_time_ms / 1000.0;
    if (cfg->games < 1) {
        snprintf(err, errlen, "--games must be at least 1");
        goto fail;
    }
    m->loop = ddz_poll_loop_create();
    ddz_runner_cb cb = {.ctx = m, .over = on_over, .log = on_log};
    m->run = m->loop ? ddz_runner_create(m->loop, &cb) : NULL;
    if (!m->run) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    ddz_table_cfg tc = {
        .rules = m->cfg.rules,
        .deals = cfg->games,
        .rotate = cfg->rotate,
        .maxscore = cfg->maxscore,
        .time_ms = (int)ceil(time_s * 1000),
    };
    memcpy(tc.master, cfg->master, sizeof tc.master);
    for (int p = 0; p < 3; p++)
        tc.autopass[p] = 1; /* the CAAI platform passes for engines that cannot beat */
    if (ddz_runner_series(m->run, &tc) < 0) {
        snprintf(err, errlen, "bad match settings");
        goto fail;
    }
    for (int i = 0; i < 3; i++) {
        if (!cfg->spec[i]) {
            snprintf(err, errlen, "seat %c: no player given", 'A' + i);
            goto fail;
        }
        if (strncmp(cfg->spec[i], "ai:", 3) == 0 && !m->ws &&
            !(m->ws = ddz_ai_workspace_create())) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        char log_path[512];
        if (cfg->engine_log_dir)
            snprintf(log_path, sizeof log_path, "%s/player-%c.stderr.log", cfg->engine_log_dir,
                     'A' + i);
        ddz_seat_env env = {
            .loop = m->loop,
            .allow_exec = true,
            .stderr_log = cfg->engine_log_dir ? log_path : NULL,
            .time_ms = tc.time_ms,
            .workspace = m->ws,
            .ai_seed = cfg->ai_seed + (uint64_t)i,
        };
        int e = 0;
        char why[300];
        ddz_seat *s = ddz_seat_create(cfg->spec[i], &env, &e, why, sizeof why);
        if (!s) {
            snprintf(err, errlen, "seat %c: %s", 'A' + i,
                     strncmp(cfg->spec[i], "ai:", 3) == 0 ||
                             strncmp(cfg->spec[i], "exec:", 5) == 0 ||
                             strncmp(cfg->spec[i], "botzone:", 8) == 0
                         ? why
                         : "neither exec:COMMAND, botzone:COMMAND nor ai:NAME");
            goto fail;
        }
        ddz_runner_seat(m->run, i, s);
        snprintf(m->st[i].name, sizeof m->st[i].name, "%s", s->ops->name(s));
    }
    if (cfg->log_path && !(m->log = fopen(cfg->log_path, "w"))) {
        snprintf(err, errlen, "cannot write %s: %s", cfg->log_path, strerror(errno));
        goto fail;
    }
    return m;
fail:
    ddz_match_destroy(m);
    return NULL;
}

int ddz_match_run(ddz_match *m)
{
    const ddz_table *t = ddz_runner_table(m->run);
    while (!ddz_table_done(t) && m->write_rc == 0) {
        int rc = ddz_runner_start(m->run);
        if (rc < 0)
            return rc;
        /* Every wait is bounded: each line and request has its time limit. */
        while (!ddz_runner_idle(m->run))
            if (ddz_poll_loop_once(m->loop, 1000) < 0)
                return DDZ_EIO;
    }
    for (int p = 0; p < 3; p++)
        ddz_runner_seat(m->run, p, NULL); /* engines are stopped on return */
    return m->write_rc;
}

const ddz_match_stats *ddz_match_stats_of(const ddz_match *m, int i)
{
    return &m->st[i];
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
        const ddz_match_stats *st = &m->st[i];
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

void ddz_match_destroy(ddz_match *m)
{
    if (!m)
        return;
    ddz_runner_destroy(m->run); /* closes the seats: engines are stopped */
    ddz_poll_loop_destroy(m->loop);
    ddz_ai_workspace_destroy(m->ws); /* after the seats that used it */
    if (m->log)
        fclose(m->log);
    free(m);
}
