/* cli_tournament.c - `ddz tournament`: the director (service/tourney/) on
 * a poll(2) loop, with the players file, the records file, the reports
 * and the progress line. */
#include "service/cli/cli_tournament.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto/text.h"
#include "rules/error.h"
#include "service/cli/cli_args.h"
#include "service/match/loop_poll.h"
#include "service/seats/seats.h"
#include "service/tourney/director.h"
#include "service/tourney/gamelog.h"
#include "service/tourney/report.h"
#include "service/tourney/setup.h"

static const char usage[] =
    "usage: ddz tournament --players FILE --dir DIR [--format caai|swiss|finals]\n"
    "                      [--turns N] [--games N] [--seed HEX64] [--time S]\n"
    "                      [--tables N] [--rules NAME] [--cuts LIST] [--quiet]\n"
    "\n"
    "Runs a CAAI tournament (seed 000 六): Swiss preliminaries, then the\n"
    "duplicate finals of the top nine. Every table of a turn plays the same\n"
    "deals. Running the same command on the same DIR resumes where it stopped.\n"
    "\n"
    "  --players FILE  one player per line, ID=SPEC ('#' starts a comment);\n"
    "                  ID: letters, digits, '_', '-', '.' (at most 32);\n"
    "                  SPEC: exec:COMMAND LINE, botzone:COMMAND LINE or ai:NAME\n"
    "  --dir DIR       where games.jsonl (every game, spec §10, with its\n"
    "                  'tournament' field), standings.json and standings.html\n"
    "                  (after every turn) and tournament.json (the settings) go\n"
    "  --format F      caai (default): Swiss then finals; swiss: Swiss only;\n"
    "                  finals: the finals only (at most 9 players, seeded in\n"
    "                  the file's order)\n"
    "  --turns N       Swiss turns (default 4)\n"
    "  --games N       games per turn at every table (default 6)\n"
    "  --seed HEX64    the tournament's seed: deals, the draw, hosted AIs\n"
    "                  (default: random, kept in DIR for resuming)\n"
    "  --time S        seconds per action (default 15; 3 under botzone-*)\n"
    "  --tables N      tables played at once (default 1)\n"
    "  --rules NAME    caai (default), botzone-ftl or botzone-ftl2\n"
    "  --cuts LIST     players kept after Swiss turns 2, 3, 4: '18,12,9' (the\n"
    "                  default, CAAI's), 'scale' (2/3, 4/9, 1/3 of the field, at\n"
    "                  least 9), 'none', or up to 20 numbers, one per turn from\n"
    "                  turn 1 (0 = no cut)\n"
    "  --quiet         no progress line and no fault diagnostics on stderr\n";

typedef struct cli {
    ddz_tsetup s; /* players and options (service/tourney/setup.h) */
    int n;
    char **ids;
    char **specs;
    const char *dir;
    ddz_loop *loop;
    ddz_think *think;
    int wake[2];
    ddz_watch *wake_watch;
    ddz_director *d;
    ddz_gamelog *log;
    const ddz_rules *rules;
    int time_ms;
    bool quiet, tty;
    const char *seed_hex;
    ddz_report_game *games;
    int ngames, cap;
    struct timespec t0;
    long t0_played;
    double last_progress;
    int io_err;
} cli;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the director's callbacks ---- */

static ddz_seat *make_seat(void *ctx, int player, uint64_t ai_seed, char *err, size_t errlen)
{
    cli *c = ctx;
    ddz_seat_env env = {
        .loop = c->loop,
        .think = c->think,
        .allow_exec = true,
        .time_ms = c->time_ms,
        .ai_seed = ai_seed,
    };
    int e = 0;
    return ddz_seat_create(c->specs[player], &env, &e, err, errlen);
}

static int keep_game(cli *c, const ddz_tgame *w, const ddz_record *rec, int line)
{
    if (c->ngames == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        ddz_report_game *g = realloc(c->games, (size_t)cap * sizeof *g);
        if (!g)
            return DDZ_ENOMEM;
        c->games = g, c->cap = cap;
    }
    ddz_report_game *g = &c->games[c->ngames++];
    g->w = *w;
    memcpy(g->scores, rec->scores, sizeof g->scores);
    g->fault_seat = rec->fault_seat;
    g->line = line;
    return 0;
}

static int on_game(void *ctx, const ddz_tgame *w, const ddz_record *rec)
{
    cli *c = ctx;
    int line = ddz_gamelog_append(c->log, w, rec);
    if (line < 0)
        return line;
    return keep_game(c, w, rec, line);
}

static void clear_progress(cli *c)
{
    if (c->tty && !c->quiet && c->last_progress > 0) {
        fputs("\r\033[K", stderr);
        c->last_progress = 0;
    }
}

static void write_reports(cli *c, const ddz_tourney *t)
{
    char path[4096], title[4096];
    snprintf(title, sizeof title, "%s", c->dir);
    ddz_report r = {.t = t,
                    .ids = (const char *const *)c->ids,
                    .specs = (const char *const *)c->specs,
                    .games = c->games,
                    .ngames = c->ngames,
                    .title = title,
                    .seed = c->seed_hex};
    snprintf(path, sizeof path, "%s/standings.json", c->dir);
    int rc = ddz_report_json(&r, path);
    snprintf(path, sizeof path, "%s/standings.html", c->dir);
    if (rc == 0)
        rc = ddz_report_html(&r, path);
    if (rc < 0 && !c->io_err) {
        c->io_err = rc;
        fprintf(stderr, "ddz tournament: cannot write the standings in %s\n", c->dir);
    }
}

static void on_turn(void *ctx, const ddz_tourney *t, bool replayed)
{
    cli *c = ctx;
    if (ddz_gamelog_sync(c->log) < 0 && !c->io_err) {
        c->io_err = DDZ_EIO;
        fprintf(stderr, "ddz tournament: cannot sync games.jsonl\n");
    }
    write_reports(c, t);
    if (replayed && !t->done)
        return; /* printed when it was played */
    clear_progress(c);
    ddz_report r = {.t = t, .ids = (const char *const *)c->ids};
    ddz_report_text(&r, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void on_log(void *ctx, const char *msg)
{
    cli *c = ctx;
    if (c->quiet)
        return;
    clear_progress(c);
    fprintf(stderr, "ddz tournament: %s\n", msg);
}

static int on_replay(void *ctx, int line, const ddz_tgame *w, const ddz_record *rec)
{
    cli *c = ctx;
    char why[300];
    int rc = ddz_director_replay(c->d, w, rec, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "ddz tournament: %s/games.jsonl:%d: %s\n", c->dir, line, why);
        return rc;
    }
    return keep_game(c, w, rec, line);
}

/* ---- the think pool's wake-up pipe ---- */

static void wake(void *ctx)
{
    cli *c = ctx;
    char b = 1;
    ssize_t n = write(c->wake[1], &b, 1); /* full pipe: a wake-up is pending anyway */
    (void)n;
}

static void on_wake(void *ctx, bool writable)
{
    cli *c = ctx;
    (void)writable;
    char buf[256];
    while (read(c->wake[0], buf, sizeof buf) > 0)
        ;
    ddz_think_job *j;
    while ((j = ddz_think_done(c->think)))
        ddz_seat_ai_done(j);
}

/* ---- progress ---- */

static void progress(cli *c, bool force)
{
    if (c->quiet)
        return;
    double now = now_s();
    if (!force && now - c->last_progress < (c->tty ? 0.25 : 5.0))
        return;
    ddz_director_progress p;
    ddz_director_progress_of(c->d, &p);
    double el = now - ((double)c->t0.tv_sec + c->t0.tv_nsec / 1e9);
    double rate = el > 0 ? (double)(p.games_played - c->t0_played) / el : 0;
    char left[32] = "?";
    if (rate > 0) {
        long s = (long)ceil((double)p.games_left / rate);
        snprintf(left, sizeof left, "%ldm%02lds", s / 60, s % 60);
    }
    char line[200];
    snprintf(line, sizeof line, "%s turn %d: tables %d/%d, %ld games, %.1f games/s, ~%s left",
             ddz_tourney_stage_name(p.stage), p.turn, p.tables_done, p.tables, p.games_played, rate,
             left);
    if (c->tty)
        fprintf(stderr, "\r\033[K%s", line);
    else
        fprintf(stderr, "%s\n", line);
    c->last_progress = now;
}

/* ---- the command ---- */

static void cli_free(cli *c)
{
    ddz_director_destroy(c->d); /* engines are stopped */
    ddz_think_destroy(c->think);
    if (c->wake_watch)
        c->loop->ops->unwatch(c->wake_watch);
    if (c->loop)
        ddz_poll_loop_once(c->loop, 0); /* frees the watch */
    ddz_poll_loop_destroy(c->loop);
    if (c->wake[0] >= 0) {
        close(c->wake[0]);
        close(c->wake[1]);
    }
    ddz_gamelog_close(c->log);
    ddz_tsetup_free(&c->s);
    free(c->games);
}

static int on_forfeit_replay(void *ctx, int line, const ddz_tgame *w, unsigned absent)
{
    cli *c = ctx;
    (void)line;
    return ddz_director_replay_forfeit(c->d, w, absent);
}

int ddz_cli_tournament(int argc, char **argv)
{
    cli c = {.wake = {-1, -1}};
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    ddz_tsetup_init(&c.s);
    char why0[600];
    if (ddz_tsetup_args(&c.s, argc - 1, argv + 1, DDZ_TSETUP_CLI, why0, sizeof why0) < 0)
        return ddz_cli_usage("tournament", why0);
    if (!c.s.players || !c.s.dir)
        return ddz_cli_usage("tournament", "--players FILE and --dir DIR are required");
    int rc = ddz_tsetup_players(&c.s, c.s.players, 0, why0, sizeof why0);
    if (rc < 0) {
        fprintf(stderr, "ddz tournament: %s\n", why0);
        cli_free(&c);
        return rc == -2 ? 1 : 2;
    }
    if (ddz_tsetup_finish(&c.s, c.s.dir, why0, sizeof why0) < 0) {
        fprintf(stderr, "ddz tournament: %s\n", why0);
        cli_free(&c);
        return 2;
    }
    c.n = c.s.n;
    c.ids = c.s.ids;
    c.specs = c.s.specs;
    c.dir = c.s.dir;
    c.quiet = c.s.quiet;
    c.rules = c.s.rules;
    c.seed_hex = c.s.seed_hex;
    ddz_director_cfg dc = c.s.dc;
    c.time_ms = dc.time_ms;
    int tables = dc.tables, games = dc.opts.games;
    const char *format = c.s.format;
    c.tty = isatty(2);

    c.loop = ddz_poll_loop_create();
    if (!c.loop || pipe2(c.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        fprintf(stderr, "ddz tournament: cannot set up the event loop\n");
        cli_free(&c);
        return 1;
    }
    c.wake_watch = c.loop->ops->watch(c.loop, c.wake[0], false, on_wake, &c);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = tables < cpus ? tables : (int)(cpus > 0 ? cpus : 1);
    c.think = ddz_think_create(threads, NULL, wake, &c); /* one owner: nothing to share */
    ddz_director_cb cb = {
        .ctx = &c, .seat = make_seat, .game_over = on_game, .turn_over = on_turn, .log = on_log};
    int err = 0;
    if (!c.wake_watch || !c.think || !(c.d = ddz_director_create(c.loop, &dc, &cb, &err))) {
        fprintf(stderr, "ddz tournament: cannot start: %s\n",
                err ? ddz_strerror(err) : "no worker thread");
        cli_free(&c);
        return 1;
    }
    /* Every seat can be made before the first game: a bad spec stops here. */
    for (int i = 0; i < c.n; i++) {
        char why[300];
        ddz_seat *s = make_seat(&c, i, 0, why, sizeof why);
        if (!s) {
            fprintf(stderr, "ddz tournament: %s: %s\n", c.ids[i], why);
            cli_free(&c);
            return 2;
        }
        ddz_seat_close(s);
    }
    char path[4096], why[400];
    snprintf(path, sizeof path, "%s/forfeits.jsonl", c.dir);
    if ((rc = ddz_forfeits_load(path, (const char *const *)c.ids, c.n, on_forfeit_replay, &c, why,
                                sizeof why)) < 0) {
        fprintf(stderr, "ddz tournament: %s: %s\n", path, why);
        cli_free(&c);
        return 1;
    }
    snprintf(path, sizeof path, "%s/games.jsonl", c.dir);
    c.log = ddz_gamelog_open(path, (const char *const *)c.ids, c.n, on_replay, &c, &rc, why,
                             sizeof why);
    if (!c.log) {
        if (rc != DDZ_EINVAL) /* the replay printed its own reason */
            fprintf(stderr, "ddz tournament: %s: %s\n", path, why);
        cli_free(&c);
        return 1;
    }
    int resumed = ddz_gamelog_count(c.log);
    printf("tournament %s: %d players, format %s, %d games a turn, seed %s\n", c.dir, c.n, format,
           games, c.seed_hex);
    if (resumed)
        printf("resuming: %d game%s already played\n", resumed, resumed == 1 ? "" : "s");
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &c.t0);
    ddz_director_start(c.d);
    while (!ddz_director_done(c.d) && !c.io_err) {
        if (ddz_poll_loop_once(c.loop, 1000) < 0)
            break;
        ddz_director_step(c.d);
        if (ddz_gamelog_sync(c.log) < 0)
            c.io_err = DDZ_EIO;
        progress(&c, false);
    }
    clear_progress(&c);
    const char *msg;
    int derr = ddz_director_error(c.d, &msg);
    const ddz_tourney *t = ddz_director_state(c.d);
    int status = 0;
    if (derr || c.io_err || !t->done) {
        fprintf(stderr, "ddz tournament: stopped: %s (run the same command to resume)\n",
                derr       ? msg
                : c.io_err ? "cannot write the records"
                           : "the loop failed");
        status = 1;
    } else {
        double el = now_s() - ((double)c.t0.tv_sec + c.t0.tv_nsec / 1e9);
        ddz_director_progress p;
        ddz_director_progress_of(c.d, &p);
        printf("done: %ld games played in %.1f s (%.1f games/s); standings in %s/standings.html\n",
               p.games_played, el, el > 0 ? p.games_played / el : 0.0, c.dir);
    }
    cli_free(&c);
    return status;
}
