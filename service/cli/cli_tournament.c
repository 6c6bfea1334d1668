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
    "  --dir DIR       where games.jsonl (every game, SPEC 10, with its\n"
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

enum { ID_MAX = 32 };

typedef struct cli {
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
    char seed_hex[65];
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

/* ---- the players file ---- */

static bool id_ok(const char *s, size_t n)
{
    if (n == 0 || n > ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            return false;
    return true;
}

/* Reads FILE into c->ids/specs. Returns 0, or 2 after one line on stderr
 * naming the file, the line and what is wrong. */
static int read_players(cli *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ddz tournament: %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, firstline[DDZ_TOURNEY_MAX_PLAYERS], rc = 0;
    ssize_t len;
    c->ids = calloc(DDZ_TOURNEY_MAX_PLAYERS, sizeof *c->ids);
    c->specs = calloc(DDZ_TOURNEY_MAX_PLAYERS, sizeof *c->specs);
    while (rc == 0 && c->ids && c->specs && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            fprintf(stderr, "ddz tournament: %s:%d: a NUL byte\n", path, lineno);
            rc = 2;
            break;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strlen(s);
        while (n > 0 &&
               (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        if (n == 0 || s[0] == '#')
            continue;
        char *eq = strchr(s, '=');
        const char *why = NULL;
        size_t idlen = eq ? (size_t)(eq - s) : 0;
        while (idlen > 0 && (s[idlen - 1] == ' ' || s[idlen - 1] == '\t'))
            idlen--;
        char *spec = eq ? eq + 1 : NULL;
        while (spec && (*spec == ' ' || *spec == '\t'))
            spec++;
        if (!eq)
            why = "no '=': each line is ID=SPEC";
        else if (!id_ok(s, idlen))
            why = idlen == 0 ? "no ID before '='"
                             : "the ID may hold only letters, digits, '_', '-' and '.', at "
                               "most 32";
        else if (!*spec)
            why = "no SPEC after '='";
        else if (strncmp(spec, "exec:", 5) != 0 && strncmp(spec, "botzone:", 8) != 0 &&
                 strncmp(spec, "ai:", 3) != 0)
            why = "SPEC must be exec:COMMAND LINE, botzone:COMMAND LINE or ai:NAME";
        else if (strncmp(spec, "ai:", 3) == 0 && !ddz_ai_exists(spec + 3))
            why = "no such hosted AI (known: random, greedy, strong)";
        if (why) {
            fprintf(stderr, "ddz tournament: %s:%d: %s\n", path, lineno, why);
            rc = 2;
            break;
        }
        s[idlen] = '\0';
        for (int i = 0; i < c->n; i++)
            if (strcmp(c->ids[i], s) == 0) {
                fprintf(stderr, "ddz tournament: %s:%d: ID '%s' again (first on line %d)\n", path,
                        lineno, s, firstline[i]);
                rc = 2;
            }
        if (rc)
            break;
        if (c->n == DDZ_TOURNEY_MAX_PLAYERS) {
            fprintf(stderr, "ddz tournament: %s:%d: more than %d players\n", path, lineno,
                    DDZ_TOURNEY_MAX_PLAYERS);
            rc = 2;
            break;
        }
        firstline[c->n] = lineno;
        c->ids[c->n] = strdup(s);
        c->specs[c->n] = strdup(spec);
        if (!c->ids[c->n] || !c->specs[c->n])
            break;
        c->n++;
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "ddz tournament: %s: %s\n", path, strerror(errno));
        rc = 2;
    }
    free(line);
    fclose(f);
    if (rc == 0 && (!c->ids || !c->specs || (c->n > 0 && !c->specs[c->n - 1]))) {
        fprintf(stderr, "ddz tournament: out of memory\n");
        return 1;
    }
    if (rc == 0 && c->n < 3) {
        fprintf(stderr, "ddz tournament: %s: %d player%s; a tournament needs at least 3\n", path,
                c->n, c->n == 1 ? "" : "s");
        rc = 2;
    }
    return rc;
}

/* ---- the settings kept in DIR/tournament.json ---- */

/* The settings that decide the games: a resumed run must have the same. */
static json_t *settings_json(const cli *c, const ddz_director_cfg *dc)
{
    json_t *ids = json_array(), *cuts = json_array();
    for (int i = 0; i < c->n; i++)
        json_array_append_new(ids, json_string(c->ids[i]));
    for (int k = 0; k < DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS; k++)
        json_array_append_new(cuts, json_integer(dc->opts.cut[k]));
    static const char *const formats[] = {"caai", "swiss", "finals"};
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:o}", "seed", c->seed_hex, "format",
                     formats[dc->opts.format], "rules", c->rules->name, "turns",
                     dc->opts.swiss_turns, "games", dc->opts.games, "cuts", cuts, "players", ids);
}

/* Checks `dc` against DIR/tournament.json or writes it. Takes the seed
 * from the file when none was given. Returns 0 or 2 (after a message). */
static int settings(cli *c, ddz_director_cfg *dc, bool seeded)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tournament.json", c->dir);
    json_error_t je;
    json_t *old = json_load_file(path, 0, &je);
    if (!old && access(path, F_OK) == 0) {
        fprintf(stderr, "ddz tournament: %s: %s\n", path, je.text);
        return 2;
    }
    if (old && !seeded) {
        const char *s = json_string_value(json_object_get(old, "seed"));
        if (!s || ddz_text_parse_seed(s, dc->seed) < 0) {
            fprintf(stderr, "ddz tournament: %s: no valid seed\n", path);
            json_decref(old);
            return 2;
        }
        ddz_text_format_seed(dc->seed, c->seed_hex);
    }
    json_t *now = settings_json(c, dc);
    if (old) {
        const char *key;
        json_t *v;
        json_object_foreach(now, key, v)
        {
            if (!json_equal(v, json_object_get(old, key))) {
                char *was = json_dumps(json_object_get(old, key), JSON_COMPACT | JSON_ENCODE_ANY);
                char *is = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                fprintf(stderr,
                        "ddz tournament: %s holds a tournament with %s %.200s, not %.200s: "
                        "use another --dir, or the same options to resume\n",
                        c->dir, key, was ? was : "?", is ? is : "?");
                free(was);
                free(is);
                json_decref(old);
                json_decref(now);
                return 2;
            }
        }
        json_decref(old);
        json_decref(now);
        return 0;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(now, tmp, JSON_INDENT(1)) == 0 && rename(tmp, path) == 0 ? 0 : 1;
    json_decref(now);
    if (rc)
        fprintf(stderr, "ddz tournament: cannot write %s: %s\n", path, strerror(errno));
    return rc;
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

static int parse_cuts(const char *v, ddz_tourney_opts *o)
{
    if (strcmp(v, "none") == 0) {
        memset(o->cut, 0, sizeof o->cut);
        return 0;
    }
    if (strcmp(v, "scale") == 0) {
        ddz_tourney_scale_cuts(o);
        return 0;
    }
    int vals[DDZ_TOURNEY_MAX_TURNS] = {0}, n = 0;
    const char *s = v;
    while (*s) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 0 || x > DDZ_TOURNEY_MAX_PLAYERS ||
            n == DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS)
            return -1;
        vals[n++] = (int)x;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    if (n == 0)
        return -1;
    memset(o->cut, 0, sizeof o->cut);
    if (n == 3) { /* the CAAI form: after turns 2, 3, 4 */
        for (int k = 0; k < 3; k++)
            o->cut[k + 1] = vals[k];
    } else {
        memcpy(o->cut, vals, sizeof vals);
    }
    return 0;
}

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
    for (int i = 0; i < c->n; i++) {
        free(c->ids[i]);
        free(c->specs[i]);
    }
    free(c->ids);
    free(c->specs);
    free(c->games);
}

int ddz_cli_tournament(int argc, char **argv)
{
    cli c = {.wake = {-1, -1}};
    const char *players = NULL, *format = "caai", *cuts = NULL;
    int turns = 4, games = 6, tables = 1;
    double time_s = 0;
    bool seeded = false;
    ddz_director_cfg dc = {0};
    c.rules = &ddz_rules_caai;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            c.quiet = true;
            continue;
        } else if (!v) {
            return ddz_cli_usage("tournament", "missing value or unknown option");
        }
        i++;
        if (strcmp(a, "--players") == 0) {
            players = v;
        } else if (strcmp(a, "--dir") == 0) {
            c.dir = v;
        } else if (strcmp(a, "--format") == 0) {
            if (strcmp(v, "caai") != 0 && strcmp(v, "swiss") != 0 && strcmp(v, "finals") != 0)
                return ddz_cli_usage("tournament", "--format is caai, swiss or finals");
            format = v;
        } else if (strcmp(a, "--turns") == 0) {
            if (ddz_cli_int(v, 1, DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS, &turns) < 0)
                return ddz_cli_usage("tournament", "--turns must be a whole number 1..20");
        } else if (strcmp(a, "--games") == 0) {
            if (ddz_cli_int(v, 1, DDZ_TOURNEY_MAX_GAMES, &games) < 0)
                return ddz_cli_usage("tournament", "--games must be a whole number 1..100");
        } else if (strcmp(a, "--seed") == 0) {
            if (ddz_text_parse_seed(v, dc.seed) < 0)
                return ddz_cli_usage("tournament", "--seed must be 64 hexadecimal characters");
            seeded = true;
        } else if (strcmp(a, "--time") == 0) {
            if (ddz_cli_double(v, 0, 86400, &time_s) < 0 || time_s == 0)
                return ddz_cli_usage("tournament", "--time must be a positive number of seconds");
        } else if (strcmp(a, "--tables") == 0) {
            if (ddz_cli_int(v, 1, DDZ_TOURNEY_MAX_TABLES, &tables) < 0)
                return ddz_cli_usage("tournament", "--tables must be a whole number from 1");
        } else if (strcmp(a, "--rules") == 0) {
            if (!(c.rules = ddz_rules_find(v))) {
                char what[200];
                snprintf(what, sizeof what, "--rules: unknown rule set (known: %s)",
                         ddz_rules_names());
                return ddz_cli_usage("tournament", what);
            }
        } else if (strcmp(a, "--cuts") == 0) {
            cuts = v;
        } else {
            return ddz_cli_usage("tournament", "unknown option");
        }
    }
    if (!players || !c.dir)
        return ddz_cli_usage("tournament", "--players FILE and --dir DIR are required");
    int rc = read_players(&c, players);
    if (rc) {
        cli_free(&c);
        return rc;
    }
    ddz_tourney_defaults(&dc.opts, c.n);
    dc.opts.format = strcmp(format, "swiss") == 0    ? DDZ_TOURNEY_SWISS
                     : strcmp(format, "finals") == 0 ? DDZ_TOURNEY_FINALS
                                                     : DDZ_TOURNEY_CAAI;
    dc.opts.swiss_turns = turns;
    dc.opts.games = games;
    dc.opts.cap = (double)c.rules->deal_maxscore * games;
    if (cuts && parse_cuts(cuts, &dc.opts) < 0) {
        cli_free(&c);
        return ddz_cli_usage("tournament", "--cuts is 'none', 'scale' or numbers like 18,12,9");
    }
    if (dc.opts.format == DDZ_TOURNEY_FINALS && c.n > DDZ_TOURNEY_FINALISTS) {
        fprintf(stderr, "ddz tournament: --format finals takes at most 9 players, not %d\n", c.n);
        cli_free(&c);
        return 2;
    }
    if (mkdir(c.dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "ddz tournament: cannot make %s: %s\n", c.dir, strerror(errno));
        cli_free(&c);
        return 2;
    }
    if (!seeded)
        randombytes_buf(dc.seed, sizeof dc.seed);
    ddz_text_format_seed(dc.seed, c.seed_hex);
    if ((rc = settings(&c, &dc, seeded)) != 0) {
        cli_free(&c);
        return rc;
    }
    /* The draw: each player's lot is a hash of the seed and its ID. */
    for (int i = 0; i < c.n; i++) {
        uint8_t h[16];
        crypto_generichash_state st;
        crypto_generichash_init(&st, dc.seed, sizeof dc.seed, sizeof h);
        crypto_generichash_update(&st, (const uint8_t *)"ddz-lot", 7);
        crypto_generichash_update(&st, (const uint8_t *)c.ids[i], strlen(c.ids[i]));
        crypto_generichash_final(&st, h, sizeof h);
        uint64_t lot = 0;
        for (int b = 7; b >= 0; b--)
            lot = lot << 8 | h[b];
        dc.opts.lot[i] = lot;
    }
    dc.rules = c.rules;
    dc.time_ms = (int)ceil((time_s > 0 ? time_s : c.rules->default_time_ms / 1000.0) * 1000);
    c.time_ms = dc.time_ms;
    dc.tables = tables;
    dc.ids = (const char *const *)c.ids;
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
    c.think = ddz_think_create(threads, wake, &c);
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
