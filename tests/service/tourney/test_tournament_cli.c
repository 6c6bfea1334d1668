/* test_tournament_cli.c - `ddz tournament` as the real binary: a
 * 20-player CAAI tournament of engine processes and hosted AIs, killed
 * with SIGKILL mid-run and resumed, against an uninterrupted run; its
 * standings.json against a slow, obvious recomputation from its own
 * games.jsonl (written here, independently of service/tourney/); the
 * records through `ddz verify`; the players file's errors.
 *
 * Nothing sleeps blindly: runs are waited for on a pidfd with a bound, the
 * kill waits for games.jsonl to reach a number of lines (bounded), and the
 * leak check waits (bounded) for this test's own descendants to go. The
 * test is a child subreaper, so engines orphaned by the SIGKILL are still
 * its descendants and are counted.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_clock.h"
#include "service/test_util.h"

#define SEED "9f9b4e5e4786c1eb000102030405060708090a0b0c0d0e0f1011121314151617"
#define WAIT_MS 60000
#define NP 20
#define GAMES 4
#define MARK "--budget 17" /* on the engines' command line: counted by the leak check */

extern char **environ;

static char dir[64];
static char *out, *err;
static int status;

static const char *scratch(const char *name)
{
    static char buf[256][200]; /* a ring: paths live for many calls */
    static int k;
    char *p = buf[k++ % 256];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static void init(void)
{
    snprintf(dir, sizeof dir, "/tmp/ddz-test-tourney-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(sodium_init() < 0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static void fini(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(out);
    free(err);
    out = err = NULL;
}

/* Starts `ddz tournament ARGS` (NULL-terminated). */
static pid_t spawn(const char *const *args)
{
    const char *argv[40] = {DDZ_BIN, "tournament"};
    int argc = 2;
    for (; *args; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, scratch("stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, scratch("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, DDZ_BIN, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "spawn: %s", strerror(rc));
    return pid;
}

static void wait_for(pid_t pid)
{
    int pfd = pidfd_open(pid, 0);
    cr_assert_geq(pfd, 0);
    struct pollfd p = {.fd = pfd, .events = POLLIN};
    int r;
    while ((r = poll(&p, 1, WAIT_MS)) < 0 && errno == EINTR)
        ;
    close(pfd);
    if (r <= 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        cr_assert_fail("ddz tournament did not end within %d ms", WAIT_MS);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    free(out);
    free(err);
    out = slurp(scratch("stdout"));
    err = slurp(scratch("stderr"));
}

static void run(const char *const *args)
{
    wait_for(spawn(args));
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, ch;
    while ((ch = getc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

static void write_players(const char *path)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "# 20 players: six engine processes, fourteen hosted AIs\n");
    for (int i = 1; i <= NP; i++) {
        if (i % 3 == 0 && i <= 18)
            fprintf(f, "eng%02d = exec:%s engine --ai greedy " MARK "\n", i, DDZ_BIN);
        else
            fprintf(f, "ai%02d=ai:%s\n", i, i % 2 ? "random" : "greedy");
    }
    fclose(f);
}

/* ---- the twin: standings recomputed from games.jsonl, plainly ---- */

typedef struct twin_player {
    char id[40];
    double points, small;
    int byes, faults, last, finalist, swiss_rank, status; /* 0 active 1 elim 2 dq 3 finalist */
    uint64_t lot;
} twin_player;

typedef struct twin_game {
    int finals, turn, game, player[3];
    double scores[3];
    int faulted[3];
} twin_game;

static twin_player tp[NP];
static int np;
static twin_game *tg;
static int ng;
static int cur_finals; /* ranking mode */

static int twin_find(const char *id)
{
    for (int i = 0; i < np; i++)
        if (strcmp(tp[i].id, id) == 0)
            return i;
    cr_assert_fail("unknown player %s", id);
    return -1;
}

static void twin_read(const char *players, const char *log)
{
    FILE *f = fopen(players, "r");
    char line[512];
    np = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        char *e = eq;
        while (e > line && e[-1] == ' ')
            e--;
        *e = '\0';
        snprintf(tp[np].id, sizeof tp[np].id, "%.39s", line);
        uint8_t seed[32], h[16];
        for (int b = 0; b < 32; b++)
            sscanf(SEED + 2 * b, "%2hhx", &seed[b]);
        crypto_generichash_state st;
        crypto_generichash_init(&st, seed, 32, 16);
        crypto_generichash_update(&st, (const uint8_t *)"ddz-lot", 7);
        crypto_generichash_update(&st, (const uint8_t *)tp[np].id, strlen(tp[np].id));
        crypto_generichash_final(&st, h, 16);
        for (int b = 7; b >= 0; b--)
            tp[np].lot = tp[np].lot << 8 | h[b];
        tp[np].last = -1;
        np++;
    }
    fclose(f);
    FILE *g = fopen(log, "r");
    cr_assert_not_null(g);
    tg = calloc(2000, sizeof *tg);
    ng = 0;
    char *l = NULL;
    size_t cap = 0;
    while (getline(&l, &cap, g) > 0) {
        json_t *j = json_loads(l, 0, NULL);
        cr_assert_not_null(j);
        json_t *t = json_object_get(j, "tournament");
        twin_game *x = &tg[ng++];
        x->finals = strcmp(json_string_value(json_object_get(t, "stage")), "finals") == 0;
        x->turn = (int)json_integer_value(json_object_get(t, "turn"));
        x->game = (int)json_integer_value(json_object_get(t, "game"));
        for (int s = 0; s < 3; s++) {
            x->player[s] =
                twin_find(json_string_value(json_array_get(json_object_get(t, "players"), s)));
            x->scores[s] = json_number_value(json_array_get(json_object_get(j, "scores"), s));
        }
        json_t *fs = json_object_get(j, "faults");
        for (size_t k = 0; k < json_array_size(fs); k++)
            x->faulted[json_integer_value(json_object_get(json_array_get(fs, k), "seat"))] = 1;
        json_decref(j);
    }
    free(l);
    fclose(g);
}

static int twin_cmp(const void *pa, const void *pb)
{
    const twin_player *a = &tp[*(const int *)pa], *b = &tp[*(const int *)pb];
    if (cur_finals) {
        if (a->finalist != b->finalist)
            return b->finalist - a->finalist;
        if (a->finalist && fabs(a->points - b->points) > 1e-9)
            return a->points > b->points ? -1 : 1;
        return a->swiss_rank - b->swiss_rank;
    }
    if (a->last != b->last)
        return b->last - a->last;
    if (fabs(a->points - b->points) > 1e-9)
        return a->points > b->points ? -1 : 1;
    if (a->small != b->small)
        return a->small > b->small ? -1 : 1;
    return a->lot < b->lot ? -1 : 1;
}

static void twin_rank(int *order)
{
    for (int i = 0; i < np; i++)
        order[i] = i;
    qsort(order, (size_t)np, sizeof *order, twin_cmp);
}

/* The turn's records of player i: its seat and small-score sum. */
static int twin_seat(int finals, int turn, int i, double *small, int *faults)
{
    int seat = -1;
    *small = 0;
    *faults = 0;
    for (int k = 0; k < ng; k++)
        if (tg[k].finals == finals && tg[k].turn == turn)
            for (int s = 0; s < 3; s++)
                if (tg[k].player[s] == i) {
                    seat = s;
                    *small += tg[k].scores[s];
                    *faults += tg[k].faulted[s];
                }
    return seat;
}

/* Runs the whole competition again over the records; `order` gets the
 * final standings. */
static void twin_compute(int *order)
{
    const double cap = 350.0 * GAMES;
    const int avg = NP / 6 + 1;
    const int cuts[5] = {0, 0, 18, 12, 9};
    int gturn = 0;
    cur_finals = 0;
    for (int turn = 1; turn <= 4; turn++, gturn++) {
        double small[NP];
        int seat[NP], faults[NP];
        for (int i = 0; i < np; i++)
            seat[i] = tp[i].status == 0 ? twin_seat(0, turn, i, &small[i], &faults[i]) : -2;
        for (int i = 0; i < np; i++) {
            if (seat[i] == -2)
                continue;
            double pts;
            double rec = small[i];
            if (seat[i] < 0) { /* a bye */
                pts = avg + 1;
                rec = cap;
                tp[i].byes++;
            } else {
                int below = 0, same = 0;
                for (int j = 0; j < np; j++)
                    if (seat[j] == seat[i]) {
                        below += small[j] < small[i];
                        same += small[j] == small[i];
                    }
                pts = 1 + below + (same - 1) / 2.0;
                if (small[i] < -cap)
                    pts -= 1;
                if (small[i] > cap) {
                    pts += 1;
                    rec = cap;
                }
                tp[i].faults += faults[i];
                if (faults[i] >= 3)
                    tp[i].status = 2;
            }
            tp[i].points += pts;
            tp[i].small += rec;
            tp[i].last = gturn;
        }
        twin_rank(order);
        if (cuts[turn]) {
            int kept = 0;
            for (int r = 0; r < np; r++)
                if (tp[order[r]].status == 0 && ++kept > cuts[turn])
                    tp[order[r]].status = 1;
        }
    }
    int fin = 0;
    for (int r = 0; r < np; r++) {
        twin_player *p = &tp[order[r]];
        if (p->status == 0 && fin < 9) {
            p->finalist = 1;
            p->status = 3;
            p->swiss_rank = ++fin;
            p->points = 5.6 - 0.7 * (fin - 1);
            p->small = 0;
        } else if (p->status == 0) {
            p->status = 1;
        }
    }
    for (int r = 0, next = fin; r < np; r++)
        if (!tp[order[r]].finalist)
            tp[order[r]].swiss_rank = ++next;
    cur_finals = 1;
    for (int turn = 1; turn <= 4; turn++) {
        for (int i = 0; i < np; i++) {
            if (tp[i].status != 3)
                continue;
            double sm;
            int f;
            if (twin_seat(1, turn, i, &sm, &f) < 0) {
                tp[i].points += 2.5 * GAMES;
                tp[i].byes++;
                continue;
            }
            tp[i].small += sm;
            tp[i].faults += f;
            if (f >= 3)
                tp[i].status = 2;
        }
        for (int k = 0; k < ng; k++) /* per deal and direction: 4 / 2 / 0 */
            if (tg[k].finals && tg[k].turn == turn)
                for (int s = 0; s < 3; s++) {
                    int lower = 0, same = 0;
                    for (int m = 0; m < ng; m++)
                        if (tg[m].finals && tg[m].turn == turn && tg[m].game == tg[k].game) {
                            lower += tg[m].scores[s] < tg[k].scores[s];
                            same += tg[m].scores[s] == tg[k].scores[s];
                        }
                    tp[tg[k].player[s]].points += 2 * lower + (same - 1);
                }
    }
    twin_rank(order);
}

static void check_against_twin(const char *players, const char *d)
{
    char log[300], st[300];
    snprintf(log, sizeof log, "%s/games.jsonl", d);
    snprintf(st, sizeof st, "%s/standings.json", d);
    memset(tp, 0, sizeof tp);
    twin_read(players, log);
    int order[NP];
    twin_compute(order);
    json_error_t je;
    json_t *j = json_load_file(st, 0, &je);
    cr_assert_not_null(j, "standings.json: %s", je.text);
    cr_assert_str_eq(json_string_value(json_object_get(j, "stage")), "finals");
    cr_assert_eq(json_integer_value(json_object_get(j, "turn")), 4);
    json_t *ps = json_object_get(j, "players");
    cr_assert_eq(json_array_size(ps), NP);
    static const char *const status[] = {"active", "eliminated", "disqualified", "finalist"};
    for (int r = 0; r < NP; r++) {
        json_t *e = json_array_get(ps, (size_t)r);
        const twin_player *p = &tp[order[r]];
        cr_assert_str_eq(json_string_value(json_object_get(e, "id")), p->id, "rank %d", r + 1);
        cr_assert_eq(json_integer_value(json_object_get(e, "rank")), r + 1);
        cr_assert_float_eq(json_number_value(json_object_get(e, "points")), p->points, 1e-9,
                           "%s: points", p->id);
        cr_assert_float_eq(json_number_value(json_object_get(e, "small")), p->small, 1e-9,
                           "%s: small", p->id);
        cr_assert_eq(json_integer_value(json_object_get(e, "byes")), p->byes, "%s", p->id);
        cr_assert_eq(json_integer_value(json_object_get(e, "faults")), p->faults, "%s", p->id);
        cr_assert_str_eq(json_string_value(json_object_get(e, "status")), status[p->status], "%s",
                         p->id);
    }
    json_decref(j);
    free(tg);
}

/* Every line of `path`, sorted, as one string: the same games in any
 * order compare equal. */
static char *sorted_lines(const char *path)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "sort '%s' > '%s.sorted'", path, path);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s.sorted", path);
    return slurp(cmd);
}

static int engines_left(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) /* orphans reparented to us */
        ;
    return count_descendants(MARK);
}

Test(tournament, caai_20_players_killed_and_resumed_equals_uninterrupted, .init = init,
     .fini = fini, .timeout = HANG(120))
{
    const char *players = scratch("players.txt");
    write_players(players);
    char full[200], part[200];
    snprintf(full, sizeof full, "%s/full", dir);
    snprintf(part, sizeof part, "%s/part", dir);
    const char *a_full[] = {"--players", players, "--dir",    full, "--games", "4",
                            "--seed",    SEED,    "--tables", "2",  "--quiet", NULL};
    run(a_full);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x: %s", status, err);
    cr_assert_eq(engines_left(), 0, "an engine outlived the tournament");
    char log_full[300];
    snprintf(log_full, sizeof log_full, "%s/games.jsonl", full);
    int total = count_lines(log_full);
    cr_assert_gt(total, 100);

    /* the same, killed once the records reach a third */
    const char *a_part[] = {"--players", players, "--dir",    part, "--games", "4",
                            "--seed",    SEED,    "--tables", "2",  "--quiet", NULL};
    pid_t pid = spawn(a_part);
    char log_part[300];
    snprintf(log_part, sizeof log_part, "%s/games.jsonl", part);
    long t0 = now_ms();
    while (count_lines(log_part) < total / 3 && now_ms() - t0 < WAIT_MS) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL); /* polling a condition, bounded */
    }
    cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0, "the run ended before it could be killed");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    int before = count_lines(log_part);
    cr_assert_lt(before, total, "killed after the last game");
    t0 = now_ms();
    while (engines_left() > 0 && now_ms() - t0 < T(10000)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(engines_left(), 0, "engines outlived a SIGKILL of the tournament");

    const char *a_resume[] = {"--players", players, "--dir",    part, "--games", "4",
                              "--seed",    SEED,    "--tables", "3",  "--quiet", NULL};
    run(a_resume);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x: %s", status, err);
    cr_assert(strstr(out, "already played"), "%s", out);
    cr_assert_eq(engines_left(), 0);
    cr_assert_eq(count_lines(log_part), total, "a game lost or played twice");
    char *a = sorted_lines(log_full), *b = sorted_lines(log_part);
    cr_assert(strcmp(a, b) == 0, "the resumed run played other games");
    free(a);
    free(b);
    char st_full[300], st_part[300];
    snprintf(st_full, sizeof st_full, "%s/standings.json", full);
    snprintf(st_part, sizeof st_part, "%s/standings.json", part);
    char *sa = slurp(st_full), *sb = slurp(st_part);
    cr_assert_str_eq(sa, sb, "standings differ after the resume");
    free(sa);
    free(sb);

    /* the standings follow from the records, recomputed plainly */
    check_against_twin(players, part);

    /* the records verify; the report is there */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "%s verify '%s' > /dev/null", DDZ_BIN, log_part);
    cr_assert_eq(system(cmd), 0, "ddz verify refused games.jsonl");
    char *html = slurp(scratch("part/standings.html"));
    cr_assert(strstr(html, "Finals crosstable"));
    cr_assert(strstr(html, "games.jsonl:1<"));
    free(html);
}

Test(tournament, a_torn_last_line_is_cut_off, .init = init, .fini = fini)
{
    const char *players = scratch("players.txt");
    FILE *f = fopen(players, "w");
    for (int i = 0; i < 6; i++)
        fprintf(f, "p%d=ai:%s\n", i, i % 2 ? "random" : "greedy");
    fclose(f);
    const char *args[] = {"--players", players,    "--dir",   scratch("t"), "--games",
                          "2",         "--format", "swiss",   "--turns",    "2",
                          "--seed",    SEED,       "--quiet", NULL};
    run(args);
    cr_assert_eq(WEXITSTATUS(status), 0, "%s", err);
    const char *log = scratch("t/games.jsonl");
    char *whole = slurp(log);
    int n = count_lines(log);
    cr_assert_eq(n, 8);
    /* cut the file in the middle of its sixth record and in turn 2 */
    const char *p = whole;
    for (int i = 0; i < 5; i++)
        p = strchr(p, '\n') + 1;
    FILE *w = fopen(log, "w");
    fwrite(whole, 1, (size_t)(p - whole) + 40, w);
    fclose(w);
    run(args);
    cr_assert_eq(WEXITSTATUS(status), 0, "%s", err);
    char *again = slurp(log);
    cr_assert_str_eq(again, whole, "not the same games after the torn line");
    free(whole);
    free(again);
}

static void expect_usage(const char *file_text, const char *want)
{
    const char *players = scratch("bad.txt");
    FILE *f = fopen(players, "w");
    fputs(file_text, f);
    fclose(f);
    const char *args[] = {"--players", players, "--dir", scratch("bad"), NULL};
    run(args);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %#x", status);
    cr_assert(strstr(err, want), "stderr: %s\nwanted: %s", err, want);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
}

Test(tournament, bad_players_files, .init = init, .fini = fini)
{
    expect_usage("a=ai:random\nb=ai:random\n", "2 players; a tournament needs at least 3");
    expect_usage("# x\na=ai:random\n\nb ai:random\n", "bad.txt:4: no '='");
    expect_usage("a=ai:random\nb=ai:random\na=ai:greedy\n",
                 "bad.txt:3: ID 'a' again (first on line 1)");
    expect_usage("a=ai:random\nb c=ai:random\n", "bad.txt:2: the ID may hold only");
    expect_usage("a=ai:random\nb=ai:nosuch\n", "bad.txt:2: no such hosted AI");
    expect_usage("a=ai:random\nb=telnet:x\n", "bad.txt:2: SPEC must be");
    expect_usage("a=ai:random\nb=\n", "bad.txt:2: no SPEC after '='");
}

Test(tournament, another_tournament_in_the_same_dir_is_refused, .init = init, .fini = fini)
{
    const char *players = scratch("players.txt");
    FILE *f = fopen(players, "w");
    for (int i = 0; i < 3; i++)
        fprintf(f, "p%d=ai:random\n", i);
    fclose(f);
    const char *a1[] = {"--players", players, "--dir",   scratch("t"), "--games", "1",
                        "--format",  "swiss", "--turns", "1",          "--quiet", NULL};
    run(a1);
    cr_assert_eq(WEXITSTATUS(status), 0, "%s", err);
    const char *a2[] = {"--players", players, "--dir",   scratch("t"), "--games", "2",
                        "--format",  "swiss", "--turns", "1",          "--quiet", NULL};
    run(a2);
    cr_assert_eq(WEXITSTATUS(status), 2);
    cr_assert(strstr(err, "holds a tournament with games 1, not 2"), "%s", err);
}
