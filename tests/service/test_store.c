/* test_store.c - the store: games through the writer thread and back,
 * persistence, the queue bound and closing while another process holds the
 * write lock, turns, tokens, concurrent reads, reads through the reader
 * thread, SQLite errors, and `ddz export` output accepted by `ddz verify`.
 *
 * Nothing sleeps to synchronise: ddz_store_flush() waits for the writer, a
 * child process that stalls the writer by holding the database's write lock
 * answers through a pipe, and the one wait on the writer's progress polls
 * its counters with a bound.
 * DDZ_TEST_SCALE=k divides the number of games by k.
 *
 * The same test bodies run against both backends: here with a SQLite file,
 * and compiled again by test_store_pg.c (STORE_PG 1) against a fresh
 * PostgreSQL database of the test server. What differs is said where it
 * does: how the test reaches the database directly (db_open, db_query) and
 * locks it, ids (PostgreSQL hands them out in blocks, so a reopened store
 * continues in a new block) and the errors' words.
 */
#ifndef STORE_PG
#define STORE_PG 0
#endif
#include <criterion/criterion.h>

#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_scale.h"
#include "test_clock.h"
#include "rules/record_same.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "rules/record.h"
#include "rules/ruleset.h"
#include "service/store/store.h"
#include "tests/rules/record_gen.h"
#include "test_util.h"

#define WAIT_MS T(10000) /* bound on waiting for the writer's counters */

static char dir[64];
static char db_path[128];

static void setup(void)
{
    cr_assert_geq(sodium_init(), 0);
    strcpy(dir, "/tmp/ddz-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
#if STORE_PG
    pg_db_create(db_path, sizeof db_path);
#else
    snprintf(db_path, sizeof db_path, "%s/ddz.db", dir);
#endif
}

static void teardown(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
#if STORE_PG
    pg_db_drop();
#endif
}

TestSuite(store, .init = setup, .fini = teardown);

static ddz_store *open_with(const ddz_store_options *opt)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(db_path, opt, err, sizeof err);
    cr_assert_not_null(s, "open: %s", err);
    return s;
}

static ddz_store *open_ok(void)
{
    return open_with(NULL);
}

/* ---- the database reached directly, whichever the backend ---- */

/* SQL that takes the lock the store's writer needs, until ROLLBACK. */
#if STORE_PG
#define DB_WRITE_LOCK                                                                              \
    "BEGIN; LOCK TABLE games, turns, mine, ladder_players, ladder_history IN EXCLUSIVE MODE"
#else
#define DB_WRITE_LOCK "BEGIN IMMEDIATE"
#endif

typedef struct dbconn {
#if STORE_PG
    PGconn *pg;
#else
    sqlite3 *sq;
#endif
} dbconn;

/* A connection of the test's own; false if it cannot be opened. */
static bool db_try_open(dbconn *c)
{
#if STORE_PG
    c->pg = PQconnectdb(db_path);
    return PQstatus(c->pg) == CONNECTION_OK;
#else
    return sqlite3_open_v2(db_path, &c->sq, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
#endif
}

static dbconn db_open(void)
{
    dbconn c;
    cr_assert(db_try_open(&c), "cannot open %s", db_path);
    return c;
}

static void db_close(dbconn *c)
{
#if STORE_PG
    PQfinish(c->pg);
#else
    sqlite3_close(c->sq);
#endif
}

/* Runs `sql` (one or more statements); returns whether it succeeded. */
static bool db_try(dbconn *c, const char *sql)
{
#if STORE_PG
    PGresult *r = PQexec(c->pg, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    return ok;
#else
    return sqlite3_exec(c->sq, sql, NULL, NULL, NULL) == SQLITE_OK;
#endif
}

static void db_run(dbconn *c, const char *sql)
{
    cr_assert(db_try(c, sql), "%s failed", sql);
}

/* The rows of a query: cells malloc'd, NULL for an SQL NULL. */
#define QROWS 8
#define QCOLS 8
typedef struct qres {
    int rows;
    char *cell[QROWS][QCOLS];
} qres;

static qres db_query(const char *sql)
{
    qres q = {0};
    dbconn c = db_open();
#if STORE_PG
    PGresult *r = PQexec(c.pg, sql);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQerrorMessage(c.pg));
    for (int i = 0; i < PQntuples(r) && i < QROWS; i++, q.rows++)
        for (int j = 0; j < PQnfields(r) && j < QCOLS; j++)
            q.cell[i][j] = PQgetisnull(r, i, j) ? NULL : strdup(PQgetvalue(r, i, j));
    PQclear(r);
#else
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(c.sq, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
    while (q.rows < QROWS && sqlite3_step(st) == SQLITE_ROW) {
        for (int j = 0; j < sqlite3_column_count(st) && j < QCOLS; j++) {
            const char *t = (const char *)sqlite3_column_text(st, j);
            q.cell[q.rows][j] = t ? strdup(t) : NULL;
        }
        q.rows++;
    }
    sqlite3_finalize(st);
#endif
    db_close(&c);
    return q;
}

static void qres_free(qres *q)
{
    for (int i = 0; i < QROWS; i++)
        for (int j = 0; j < QCOLS; j++)
            free(q->cell[i][j]);
}

/* A connection that makes the store's reads wait until released: SQLite's
 * WAL index locks held by a child, PostgreSQL's table locks. */
#if STORE_PG
typedef dbconn read_lock;
static read_lock read_lock_hold(void)
{
    dbconn c = db_open();
    db_run(&c, "BEGIN; LOCK TABLE games, tokens IN ACCESS EXCLUSIVE MODE");
    return c;
}
static void read_lock_release(read_lock *l)
{
    db_run(l, "ROLLBACK");
    db_close(l);
}
#else
typedef wal_lock read_lock;
static read_lock read_lock_hold(void)
{
    return wal_lock_hold(db_path);
}
static void read_lock_release(read_lock *l)
{
    wal_lock_release(l);
}
#endif

/* Reserves an id, waiting (bounded) until the store has one in hand: a
 * PostgreSQL store fetches the next block in the background, and a loop
 * doing nothing else can outrun it (then it would hand out ids past its
 * block, which a test that counts them must not see). */
static int64_t reserve_waiting(ddz_store *s)
{
    long start = now_ms();
    ddz_store_counters c;
    for (ddz_store_stats(s, &c); c.ids_in_hand == 0 && now_ms() - start < WAIT_MS;
         ddz_store_stats(s, &c)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_gt(c.ids_in_hand, 0, "no game id in hand after %d ms", WAIT_MS);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_gt(id, 0);
    return id;
}

/* The compact JSON text of `r`, as the store should keep it. Free it. */
static char *dump(const ddz_record *r, bool aborted)
{
    json_t *j = ddz_record_to_json(r);
    cr_assert_not_null(j);
    if (aborted)
        json_object_set_new(j, "aborted", json_true());
    char *s = json_dumps(j, JSON_COMPACT);
    cr_assert_not_null(s);
    json_decref(j);
    return s;
}

static void load(const char *text, ddz_record *r)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    cr_assert_not_null(j, "%s: %s", text, jerr.text);
    char err[256];
    cr_assert_eq(ddz_record_from_json(j, r, err, sizeof err), 0, "%s", err);
    json_decref(j);
}

/* Runs a shell command; returns its exit status and its standard output
 * (malloc'd) in *out. */
static int run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number of lines in file `path`. */
static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int n = 0, c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void run_verify(const char *file, int want_records)
{
    char cmd[512], *out, want[64];
    snprintf(cmd, sizeof cmd, "'%s' verify '%s' 2>&1", DDZ_BIN, file);
    int rc = run(cmd, &out);
    snprintf(want, sizeof want, "%d records verified\n", want_records);
    cr_assert_eq(rc, 0, "ddz verify %s: %s", file, out);
    cr_assert_str_eq(out, want);
    free(out);
}

Test(store, games_round_trip_and_export)
{
    const int n = scaled(3000, 1);
    ddz_store *s = open_ok();
    ddz_record *r = malloc(sizeof *r), *back = malloc(sizeof *back);
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    for (int k = 0; k < n; k++) {
        gen_record((uint32_t)k, r);
        ids[k] = reserve_waiting(s);
        cr_assert_eq(ids[k], k + 1, "ids count from 1 in a new database: %d: %lld", k,
                     (long long)ids[k]);
        cr_assert_eq(ddz_store_add_game(s, ids[k], k % 3 ? "room-1" : NULL, NULL, r, false), 0);
    }
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.writes, (uint64_t)n);
    cr_assert_eq(c.write_errors + c.drops + c.read_errors + c.queued, 0);

    for (int k = 0; k < n; k++) {
        gen_record((uint32_t)k, r);
        char *text = NULL, *want = dump(r, false);
        cr_assert_eq(ddz_store_get_game(s, ids[k], NULL, &text), 0, "game %d", k);
        cr_assert_str_eq(text, want, "the stored text is the compact spec §10 line");
        load(text, back);
        assert_same(r, back);
        free(text);
        free(want);
    }
    char *text = (char *)"untouched";
    cr_assert_eq(ddz_store_get_game(s, n + 1, NULL, &text), DDZ_ENOTFOUND);
    cr_assert_null(text);

    /* The columns beside the record. */
    qres q = db_query("SELECT room, game, finished_at, aborted, name_west,"
                      " name_east, started_at FROM games WHERE id = 2");
    cr_assert_eq(q.rows, 1);
    gen_record(1, r);
    cr_assert_str_eq(q.cell[0][0], "room-1");
    cr_assert_str_eq(q.cell[0][1], "1");
    int64_t now = (int64_t)time(NULL) * 1000, fin = atoll(q.cell[0][2]);
    cr_assert(fin > now - 600000 && fin <= now + 1000);
    cr_assert_str_eq(q.cell[0][3], "0");
    cr_assert_str_eq(q.cell[0][4], r->names[0]);
    cr_assert_str_eq(q.cell[0][5], r->names[2]);
    cr_assert_null(q.cell[0][6]);
    qres_free(&q);
    ddz_store_close(s);

    /* `ddz export` writes every game in id order, and `ddz verify` accepts them. */
    char cmd[512], out[160], *o;
    snprintf(out, sizeof out, "%s/games.jsonl", dir);
    snprintf(cmd, sizeof cmd, "'%s' export --db '%s' -o '%s' 2>&1", DDZ_BIN, db_path, out);
    cr_assert_eq(run(cmd, &o), 0, "%s", o);
    cr_assert_str_empty(o);
    free(o);
    cr_assert_eq(count_lines(out), n);
    FILE *f = fopen(out, "r");
    char *line = NULL;
    size_t cap = 0;
    for (int k = 0; k < n; k++) {
        ssize_t len = getline(&line, &cap, f);
        cr_assert_gt(len, 1);
        line[len - 1] = '\0';
        gen_record((uint32_t)k, r);
        char *want = dump(r, false);
        cr_assert_str_eq(line, want, "line %d", k + 1);
        free(want);
    }
    free(line);
    fclose(f);
    run_verify(out, n);
    /* and `ddz analyze` reads them all (a tiny budget: the file is what is
     * checked here, tests/service/test_cli_analyze.sh checks the analysis) */
    snprintf(cmd, sizeof cmd, "'%s' analyze --nodes 20 --budget-ms 0 '%s' 2>&1 | tail -1", DDZ_BIN,
             out);
    cr_assert_eq(run(cmd, &o), 0, "%s", o);
    char want[96];
    snprintf(want, sizeof want, "{\"games\":%d,", n);
    cr_assert(strncmp(o, want, strlen(want)) == 0 && strstr(o, "\"bad_lines\":0}\n"),
              "ddz analyze on the export: %s", o);
    free(o);
    free(ids);
    free(r);
    free(back);
}

Test(store, ids_continue_after_reopening)
{
    ddz_store *s = open_ok();
    ddz_record r;
    for (int k = 0; k < 10; k++) {
        gen_record((uint32_t)k, &r);
        cr_assert_eq(ddz_store_add_game(s, ddz_store_reserve_game_id(s), "r", NULL, &r, false), 0);
    }
    /* An id added without reserving it raises the next one. */
    cr_assert_eq(ddz_store_add_game(s, 40, "r", NULL, &r, false), 0);
    cr_assert_eq(ddz_store_reserve_game_id(s), 41);
    ddz_store_close(s); /* flushes */

    s = open_ok();
    int64_t next = ddz_store_reserve_game_id(s);
#if STORE_PG
    /* a new block, past every block handed out */
    cr_assert_gt(next, 41, "ids start after the largest stored");
#else
    cr_assert_eq(next, 41, "ids start after the largest stored");
#endif
    cr_assert_eq(ddz_store_reserve_game_id(s), next + 1);
    for (int k = 0; k < 10; k++) {
        char *text;
        cr_assert_eq(ddz_store_get_game(s, k + 1, NULL, &text), 0);
        ddz_record back, want;
        load(text, &back);
        gen_record((uint32_t)k, &want);
        assert_same(&want, &back);
        free(text);
    }
    /* Adding an id twice is an SQLite error: counted, not fatal. */
    cr_assert_eq(ddz_store_add_game(s, 3, "r", NULL, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), DDZ_EDB);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.write_errors, 1);
    cr_assert(strcasestr(c.last_error, "UNIQUE") != NULL, "%s", c.last_error);
    cr_assert_eq(ddz_store_flush(s), 0, "flush reports errors since the previous flush");
    ddz_store_close(s);
}

Test(store, aborted_games)
{
    ddz_store *s = open_ok();
    ddz_record done, whole, cut, back;
    gen_record(2, &done);
    gen_record(3, &whole); /* finished, but stored as aborted */
    gen_record(4, &cut);   /* cut halfway: not over */
    cr_assert_gt(cut.nplays, 2);
    cut.nplays /= 2;
    cut.winner = -1;
    int64_t a = ddz_store_reserve_game_id(s), b = ddz_store_reserve_game_id(s),
            c = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, a, "r", NULL, &done, false), 0);
    cr_assert_eq(ddz_store_add_game(s, b, "r", NULL, &whole, true), 0);
    cr_assert_eq(ddz_store_add_game(s, c, "r", NULL, &cut, true), 0);
    cr_assert_eq(ddz_store_flush(s), 0);

    char *text;
    cr_assert_eq(ddz_store_get_game(s, b, NULL, &text), 0);
    json_t *j = json_loads(text, 0, NULL);
    cr_assert(json_is_true(json_object_get(j, "aborted")), "%s", text);
    json_decref(j);
    load(text, &back); /* the reader ignores "aborted" */
    assert_same(&whole, &back);
    free(text);
    cr_assert_eq(ddz_store_get_game(s, a, NULL, &text), 0);
    cr_assert_null(strstr(text, "aborted"));
    free(text);

    /* In-process export: finished games only, or all of them. */
    char path[160];
    snprintf(path, sizeof path, "%s/x.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_eq(ddz_store_export(s, f, false), 1);
    fclose(f);
    f = fopen(path, "w");
    cr_assert_eq(ddz_store_export(s, f, true), 3);
    fclose(f);
    cr_assert_eq(count_lines(path), 3);
    ddz_store_close(s);

    /* Through the binary: the finished game verifies; so does a finished game
     * marked aborted (the extra key is accepted); a cut game does not. */
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "'%s' export --db '%s' > '%s/done.jsonl'", DDZ_BIN, db_path, dir);
    cr_assert_eq(run(cmd, &out), 0);
    free(out);
    snprintf(path, sizeof path, "%s/done.jsonl", dir);
    run_verify(path, 1);
    snprintf(cmd, sizeof cmd, "'%s' export --all --db '%s' -o '%s/all.jsonl'", DDZ_BIN, db_path,
             dir);
    cr_assert_eq(run(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "head -n 2 '%s/all.jsonl' > '%s/two.jsonl'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/two.jsonl", dir);
    run_verify(path, 2);
    snprintf(cmd, sizeof cmd, "'%s' verify '%s/all.jsonl' 2>&1", DDZ_BIN, dir);
    cr_assert_eq(run(cmd, &out), 1);
    cr_assert(strstr(out, "line 3") && strstr(out, "not over"), "%s", out);
    free(out);
}

/* ---- a writer stalled from outside ---- */

/* A child process with its own connection to the database, which takes
 * SQLite's write lock and gives it back when told (BEGIN IMMEDIATE, then
 * ROLLBACK). While it holds the lock, the store's writer waits in its own
 * BEGIN IMMEDIATE, for up to the store's busy timeout, with the batch it
 * took; whatever is queued later waits behind it. */
typedef struct locker {
    pid_t pid; /* the child */
    int cmd;   /* to the child: 'L' lock, 'R' release; closing it ends the child */
    int reply; /* from the child: the command it carried out, or 'E' */
} locker;

/* Starts a locker on the existing database `path`. It forks, so call it
 * while this process has no connection open: SQLite's unix VFS keeps the
 * lock state of all of a process's connections to a file in one table,
 * which a child would inherit without the locks it describes. (With no
 * store open, no store thread runs either.) */
static locker locker_start(const char *path)
{
    int cmd[2], reply[2];
    cr_assert_eq(pipe2(cmd, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(reply, O_CLOEXEC), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(cmd[1]);
        close(reply[0]);
        (void)path; /* db_path */
        dbconn db;
        bool open = db_try_open(&db);
#if !STORE_PG
        if (open)
            sqlite3_busy_timeout(db.sq, WAIT_MS); /* the writer may hold the lock a moment */
#endif
        char c;
        while (read(cmd[0], &c, 1) == 1) { /* until the test closes its end */
            const char *sql = c == 'L' ? DB_WRITE_LOCK : "ROLLBACK";
            char done = open && db_try(&db, sql) ? c : 'E';
            if (write(reply[1], &done, 1) != 1)
                break;
        }
        db_close(&db);
        _exit(0);
    }
    close(cmd[0]);
    close(reply[1]);
    return (locker){.pid = pid, .cmd = cmd[1], .reply = reply[0]};
}

/* Tells the locker to lock ('L') or release ('R') the database and waits,
 * at most WAIT_MS, until it has. */
static void locker_do(locker *l, char c)
{
    cr_assert_eq(write(l->cmd, &c, 1), 1);
    struct pollfd p = {.fd = l->reply, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, WAIT_MS), 1, "the locker did not answer '%c' in %d ms", c, WAIT_MS);
    char done = 0;
    cr_assert_eq(read(l->reply, &done, 1), 1, "the locker died");
    cr_assert_eq(done, c, "the locker could not %s the database", c == 'L' ? "lock" : "release");
}

/* Ends the locker; a lock it still holds goes with it. */
static void locker_stop(locker *l)
{
    close(l->cmd);
    close(l->reply);
    int st;
    cr_assert_eq(waitpid(l->pid, &st, 0), l->pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

typedef struct closer {
    ddz_store *s;
    int started; /* written to just before ddz_store_close(s) */
} closer;

static void *close_store(void *arg)
{
    closer *c = arg;
    cr_assert_eq(write(c->started, "c", 1), 1);
    ddz_store_close(c->s);
    return NULL;
}

/* The number of rows of `table` in the database, read directly. */
static int count_rows(const char *table)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    qres q = db_query(sql);
    cr_assert_eq(q.rows, 1);
    int n = atoi(q.cell[0][0]);
    qres_free(&q);
    return n;
}

Test(store, a_full_queue_drops_and_counts)
{
    ddz_store_close(open_ok()); /* the database exists before the locker forks */
    locker lk = locker_start(db_path);
    /* The test releases the lock long before this busy timeout: the writer
     * waits for it, holding what it took, rather than failing it. */
    ddz_store *s = open_with(&(ddz_store_options){.max_queue = 4, .busy_ms = 3 * WAIT_MS});
    locker_do(&lk, 'L');
    ddz_record r;
    gen_record(7, &r);
    /* The writer takes one or more of these and waits for the lock: what it
     * holds counts against the bound as much as what is queued behind it. */
    int64_t ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = ddz_store_reserve_game_id(s);
        cr_assert_eq(ddz_store_add_game(s, ids[i], "r", NULL, &r, false), 0);
    }
    int64_t lost = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, lost, "r", NULL, &r, false), DDZ_EDB);
    const char *names[3] = {"a", "b", "c"};
    const double totals[3] = {1, 2, -3};
    cr_assert_eq(ddz_store_add_turn(s, "r", 1, 6, names, totals), DDZ_EDB);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.drops, 2);
    cr_assert_eq(c.queued, 4);
    cr_assert_eq(c.writes, 0);

    locker_do(&lk, 'R');
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_stats(s, &c);
    cr_assert_eq(c.writes, 4);
    cr_assert_eq(c.write_errors, 0);
    cr_assert_eq(c.queued, 0);
    char *text;
    cr_assert_eq(ddz_store_get_game(s, lost, NULL, &text), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, ids[3], NULL, &text), 0);
    free(text);
    /* With room again, writes are queued again. */
    cr_assert_eq(ddz_store_add_game(s, ddz_store_reserve_game_id(s), "r", NULL, &r, false), 0);

    locker_stop(&lk);
    ddz_store_close(s);
    s = open_ok();
#if STORE_PG
    cr_assert_gt(ddz_store_reserve_game_id(s), 6); /* a new block */
#else
    cr_assert_eq(ddz_store_reserve_game_id(s), 7);
#endif
    ddz_store_close(s);
    cr_assert_eq(count_rows("games"), 5);
    cr_assert_eq(count_rows("turns"), 0);
}

Test(store, closing_while_the_writer_is_stalled_writes_everything)
{
    ddz_store_close(open_ok()); /* the database exists before the locker forks */
    locker lk = locker_start(db_path);
    ddz_store *s = open_with(&(ddz_store_options){.busy_ms = 3 * WAIT_MS});
    locker_do(&lk, 'L');
    /* The writer takes a batch (512 writes at most, BATCH_MAX in store.c)
     * and waits for the lock; the rest stays queued behind it. */
    enum { TURNS = 1500 };
    const char *names[3] = {"a", "b", "c"};
    const double totals[3] = {1, 2, -3};
    ddz_record r;
    gen_record(7, &r);
    cr_assert_eq(ddz_store_add_game(s, ddz_store_reserve_game_id(s), "r", NULL, &r, false), 0);
    for (int i = 0; i < TURNS; i++)
        cr_assert_eq(ddz_store_add_turn(s, "r", i, 6, names, totals), 0);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.queued, TURNS + 1);
    cr_assert_eq(c.writes, 0);

    /* The close runs on a thread of its own, and the lock goes once that
     * thread is about to call it. Nothing outside the store shows the moment
     * the close tells the writer to stop, so the release may come first
     * (rarely: the writer retries the lock after sleeps of 1 to 100 ms);
     * then everything must be written all the same. */
    int started[2];
    cr_assert_eq(pipe2(started, O_CLOEXEC), 0);
    closer cl = {.s = s, .started = started[1]};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, close_store, &cl), 0);
    struct pollfd p = {.fd = started[0], .events = POLLIN};
    cr_assert_eq(poll(&p, 1, WAIT_MS), 1, "the closing thread did not start");
    locker_do(&lk, 'R');
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += WAIT_MS / 1000;
    cr_assert_eq(pthread_timedjoin_np(th, NULL, &until), 0, "the store did not close");
    close(started[0]);
    close(started[1]);
    locker_stop(&lk);
    cr_assert_eq(count_rows("games"), 1);
    cr_assert_eq(count_rows("turns"), TURNS);
}

Test(store, turns)
{
    ddz_store *s = open_ok();
    const char *names[3] = {"west \"w\"", "南", "east"};
    const double totals[3] = {-700, 350, 350};
    cr_assert_eq(ddz_store_add_turn(s, "final", 3, 6, names, totals), 0);
    cr_assert_eq(ddz_store_add_turn(s, NULL, 4, 1, names, totals), 0);
    const char *bad[3] = {"ok", "\xff\xfe", "ok"};
    cr_assert_eq(ddz_store_add_turn(s, "r", 1, 6, bad, totals), DDZ_EINVAL);
    const char *null[3] = {"ok", NULL, "ok"};
    cr_assert_eq(ddz_store_add_turn(s, "r", 1, 6, null, totals), DDZ_EINVAL);
    ddz_store_close(s);

    qres q = db_query("SELECT room, turn, games, names, totals, finished_at"
                      " FROM turns ORDER BY id");
    cr_assert_eq(q.rows, 2);
    cr_assert_str_eq(q.cell[0][0], "final");
    cr_assert_str_eq(q.cell[0][1], "3");
    cr_assert_str_eq(q.cell[0][2], "6");
    cr_assert_str_eq(q.cell[0][3], "[\"west \\\"w\\\"\",\"南\",\"east\"]");
    cr_assert_str_eq(q.cell[0][4], "[-700,350,350]");
    cr_assert_gt(atoll(q.cell[0][5]), 0);
    cr_assert_null(q.cell[1][0]);
    cr_assert_str_eq(q.cell[1][1], "4");
    qres_free(&q);
}

typedef struct listed {
    int n;
    char names[8][DDZ_TOKEN_NAME_MAX];
    int64_t created[8];
    bool revoked[8];
} listed;

static void collect(void *ctx, const char *name, int64_t created_ms, bool revoked)
{
    listed *l = ctx;
    cr_assert_lt(l->n, 8);
    snprintf(l->names[l->n], DDZ_TOKEN_NAME_MAX, "%s", name);
    l->created[l->n] = created_ms;
    l->revoked[l->n] = revoked;
    l->n++;
}

/* Reads a whole file; returns its size, sets *data (malloc'd), 0 if absent. */
__attribute__((unused)) static size_t read_bytes(const char *path, char **data)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)n + 1);
    cr_assert_eq(fread(*data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return (size_t)n;
}

/* True if `needle` occurs in the database file or its WAL. With
 * PostgreSQL: in the tokens table, every column as text (the hash in hex,
 * so a byte needle is looked for in hex, and text in either case). */
static bool in_db_files(const void *needle, size_t len)
{
#if STORE_PG
    char hex[2 * 64 + 1] = "";
    const char *want = needle;  /* a token as text: NUL-terminated */
    if (len != DDZ_TOKEN_HEX) { /* bytes */
        sodium_bin2hex(hex, sizeof hex, needle, len);
        want = hex;
    }
    qres q = db_query("SELECT name || ' ' || encode(hash, 'hex') || ' ' || created_at FROM tokens");
    bool found = false;
    for (int i = 0; i < q.rows; i++)
        if (q.cell[i][0] && strcasestr(q.cell[i][0], want))
            found = true;
    qres_free(&q);
    return found;
#else

    bool found = false;
    for (int i = 0; i < 2; i++) {
        char path[160], *data;
        snprintf(path, sizeof path, "%s%s", db_path, i ? "-wal" : "");
        size_t n = read_bytes(path, &data);
        if (data && memmem(data, n, needle, len))
            found = true;
        free(data);
    }
    return found;
#endif
}

Test(store, tokens)
{
    ddz_store *s = open_ok();
    char alice[DDZ_TOKEN_HEX + 1], bob[DDZ_TOKEN_HEX + 1], name[DDZ_TOKEN_NAME_MAX];
    int64_t before = (int64_t)time(NULL) * 1000;
    cr_assert_eq(ddz_store_token_add(s, "alice", alice), 0);
    cr_assert_eq(strlen(alice), DDZ_TOKEN_HEX);
    cr_assert_eq(strspn(alice, "0123456789abcdef"), DDZ_TOKEN_HEX);
    cr_assert_eq(ddz_store_token_add(s, "bob", bob), 0);
    cr_assert_str_neq(alice, bob);

    cr_assert_eq(ddz_store_token_check(s, alice, name, NULL), 0);
    cr_assert_str_eq(name, "alice");
    cr_assert_eq(ddz_store_token_check(s, bob, name, NULL), 0);
    cr_assert_str_eq(name, "bob");
    cr_assert_eq(ddz_store_token_check(s, bob, NULL, NULL), 0);
    char upper[DDZ_TOKEN_HEX + 1];
    for (int i = 0; i <= DDZ_TOKEN_HEX; i++)
        upper[i] = (char)(alice[i] >= 'a' ? alice[i] - 32 : alice[i]);
    cr_assert_eq(ddz_store_token_check(s, upper, name, NULL), 0, "hex digits in either case");

    /* Wrong, malformed and absent tokens. */
    char wrong[DDZ_TOKEN_HEX + 1];
    strcpy(wrong, alice);
    wrong[10] = wrong[10] == '0' ? '1' : '0';
    cr_assert_eq(ddz_store_token_check(s, wrong, name, NULL), DDZ_EAUTH);
    cr_assert_str_empty(name);
    cr_assert_eq(ddz_store_token_check(s, "", name, NULL), DDZ_EAUTH);
    cr_assert_eq(ddz_store_token_check(s, NULL, name, NULL), DDZ_EAUTH);
    char shorter[DDZ_TOKEN_HEX];
    memcpy(shorter, alice, DDZ_TOKEN_HEX - 1);
    shorter[DDZ_TOKEN_HEX - 1] = '\0';
    cr_assert_eq(ddz_store_token_check(s, shorter, name, NULL), DDZ_EAUTH);
    char longer[DDZ_TOKEN_HEX + 3];
    snprintf(longer, sizeof longer, "%s00", alice);
    cr_assert_eq(ddz_store_token_check(s, longer, name, NULL), DDZ_EAUTH);
    strcpy(wrong, alice);
    wrong[5] = 'g';
    cr_assert_eq(ddz_store_token_check(s, wrong, name, NULL), DDZ_EAUTH);

    /* Names: taken, empty, too long, control characters; and the rules of
     * a display name, since the bot is shown under its token's name. */
    char t[DDZ_TOKEN_HEX + 1];
    cr_assert_eq(ddz_store_token_add(s, "alice", t), DDZ_EINVAL);
    cr_assert_str_empty(t);
    cr_assert_eq(ddz_store_token_add(s, "", t), DDZ_EINVAL);
    char longname[DDZ_TOKEN_NAME_MAX + 4] = "";
    for (int i = 0; i < 21; i++) /* 21 characters of 3 bytes: 63 bytes */
        strcat(longname, "\u673a");
    cr_assert_eq(ddz_store_token_add(s, strcat(longname, "n"), t), DDZ_EINVAL, "64 bytes");
    longname[DDZ_TOKEN_NAME_MAX - 1] = '\0'; /* 63 bytes: fine */
    cr_assert_eq(ddz_store_token_add(s, longname, t), 0);
    cr_assert_eq(ddz_store_token_check(s, t, name, NULL), 0);
    cr_assert_str_eq(name, longname);
    cr_assert_eq(ddz_store_token_add(s, "tab\there", t), DDZ_EINVAL);
    cr_assert_eq(ddz_store_token_add(s, "del\x7f", t), DDZ_EINVAL);
    cr_assert(ddz_store_token_name_valid("机器人 1"));
    static const char *const refused[] = {
        "ai:strong",                         /* the server's own names, as hello refuses them */
        "AI:Strong",                         /* in any case */
        "engine:x",                          /* another seat kind */
        "\u7535\u8111\u00b7\u897f",          /* 电脑·西: how the browser shows a hosted AI */
        "bot\u202eevil",                     /* a bidirectional control */
        "a\u200bb",                          /* an invisible character */
        " lead",                             /* a space at an end */
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", /* 33 characters */
        "bad\xff",                           /* not UTF-8 */
    };
    char why[128];
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        cr_assert_not(ddz_store_token_name_valid(refused[i]), "%s", refused[i]);
        cr_assert_lt(ddz_store_token_name_check(refused[i], why, sizeof why), 0);
        cr_assert_eq(strncmp(why, "NAME: ", 6), 0, "%s", why);
        cr_assert_eq(ddz_store_token_add(s, refused[i], t), DDZ_EINVAL, "%s", refused[i]);
    }
    ddz_store_token_name_check("ai:strong", why, sizeof why);
    cr_assert_str_eq(why, "NAME: names like this are the server's own");
    ddz_store_token_name_check("bot\u202eevil", why, sizeof why);
    cr_assert_str_eq(why, "NAME: U+202E is a bidirectional control");

    /* Ids: one a token, the active ones listed, sorted. */
    uint8_t id_alice[DDZ_TOKEN_ID_BYTES], id_bob[DDZ_TOKEN_ID_BYTES];
    cr_assert_eq(ddz_store_token_check(s, alice, NULL, id_alice), 0);
    cr_assert_eq(ddz_store_token_check(s, bob, NULL, id_bob), 0);
    cr_assert_neq(memcmp(id_alice, id_bob, sizeof id_bob), 0);
    uint8_t(*ids)[DDZ_TOKEN_ID_BYTES];
    cr_assert_eq(ddz_store_token_ids(s, &ids), 3);
    cr_assert_lt(memcmp(ids[0], ids[1], DDZ_TOKEN_ID_BYTES), 0);
    cr_assert_lt(memcmp(ids[1], ids[2], DDZ_TOKEN_ID_BYTES), 0);
    int seen = 0;
    for (int i = 0; i < 3; i++)
        seen += memcmp(ids[i], id_alice, DDZ_TOKEN_ID_BYTES) == 0 ||
                memcmp(ids[i], id_bob, DDZ_TOKEN_ID_BYTES) == 0;
    cr_assert_eq(seen, 2);
    free(ids);

    /* Revoking. */
    cr_assert_eq(ddz_store_token_revoke(s, "alice"), 0);
    cr_assert_eq(ddz_store_token_ids(s, &ids), 2, "a revoked token's id is listed");
    for (int i = 0; i < 2; i++)
        cr_assert_neq(memcmp(ids[i], id_alice, DDZ_TOKEN_ID_BYTES), 0);
    free(ids);
    cr_assert_eq(ddz_store_token_check(s, alice, name, NULL), DDZ_EAUTH);
    cr_assert_eq(ddz_store_token_check(s, bob, name, NULL), 0);
    cr_assert_eq(ddz_store_token_revoke(s, "alice"), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_token_revoke(s, "nobody"), DDZ_ENOTFOUND);

    listed l = {0};
    cr_assert_eq(ddz_store_token_list(s, collect, &l), 3);
    cr_assert_eq(l.n, 3);
    cr_assert_str_eq(l.names[0], "alice");
    cr_assert(l.revoked[0]);
    cr_assert_str_eq(l.names[1], "bob");
    cr_assert_not(l.revoked[1]);
    cr_assert_str_eq(l.names[2], longname);
    for (int i = 0; i < 3; i++)
        cr_assert(l.created[i] >= before - 1000 && l.created[i] <= before + 600000);

    /* A revoked name can be given a new token; the old one stays dead. */
    char alice2[DDZ_TOKEN_HEX + 1];
    cr_assert_eq(ddz_store_token_add(s, "alice", alice2), 0);
    cr_assert_eq(ddz_store_token_check(s, alice, name, NULL), DDZ_EAUTH);
    cr_assert_eq(ddz_store_token_check(s, alice2, name, NULL), 0);
    cr_assert_str_eq(name, "alice");
    ddz_store_close(s);

    /* Tokens persist, and only their hashes are on disk. */
    s = open_ok();
    cr_assert_eq(ddz_store_token_check(s, alice2, name, NULL), 0);
    cr_assert_eq(ddz_store_token_check(s, bob, name, NULL), 0);
    l.n = 0;
    cr_assert_eq(ddz_store_token_list(s, collect, &l), 3);
    cr_assert_not(l.revoked[0]);
    ddz_store_close(s);
    const char *tokens[3] = {alice, bob, alice2};
    for (int i = 0; i < 3; i++) {
        unsigned char raw[32], hash[32];
        cr_assert_eq(sodium_hex2bin(raw, sizeof raw, tokens[i], 64, NULL, NULL, NULL), 0);
        crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);
        cr_assert_not(in_db_files(tokens[i], DDZ_TOKEN_HEX), "token %d as text", i);
        cr_assert_not(in_db_files(upper, DDZ_TOKEN_HEX), "token %d in capitals", i);
        cr_assert_not(in_db_files(raw, sizeof raw), "token %d as bytes", i);
        if (i > 0) /* alice's first hash was overwritten; the others are there */
            cr_assert(in_db_files(hash, sizeof hash), "hash %d is stored", i);
    }
}

/* A token stored under a name the display-name rules refuse (made before
 * the rule, or written by hand) logs nobody in, and is told apart from an
 * unknown one; it is listed and revoked as any other. */
Test(store, a_token_under_a_refused_name_logs_nobody_in)
{
    ddz_store *s = open_ok();
    char sneaky[DDZ_TOKEN_HEX + 1], good[DDZ_TOKEN_HEX + 1], name[DDZ_TOKEN_NAME_MAX];
    cr_assert_eq(ddz_store_token_add(s, "sneaky", sneaky), 0);
    cr_assert_eq(ddz_store_token_add(s, "good", good), 0);
    static const char *const stored[] = {"ai:strong", "bot\u202eevil", "engine:x"};
    for (size_t i = 0; i < sizeof stored / sizeof stored[0]; i++) {
        char sql[160];
        dbconn c = db_open();
        snprintf(sql, sizeof sql, "UPDATE tokens SET name = '%s' WHERE name = '%s'", stored[i],
                 i ? stored[i - 1] : "sneaky");
        db_run(&c, sql);
        db_close(&c);
        cr_assert_eq(ddz_store_token_check(s, sneaky, name, NULL), DDZ_ENAME, "%s", stored[i]);
        cr_assert_str_empty(name);
    }
    cr_assert_eq(ddz_store_token_check(s, good, name, NULL), 0, "the others are not affected");
    cr_assert_str_eq(name, "good");
    listed l = {0};
    cr_assert_eq(ddz_store_token_list(s, collect, &l), 2);
    cr_assert_str_eq(l.names[0], "engine:x");
    cr_assert_eq(ddz_store_token_revoke(s, "engine:x"), 0);
    cr_assert_eq(ddz_store_token_check(s, sneaky, name, NULL), DDZ_EAUTH, "revoked");
    ddz_store_close(s);
}

typedef struct reader_ctx {
    ddz_store *s;
    int n;              /* games 1..n are stored */
    char **want;        /* their texts */
    atomic_bool stop;   /* set by the main thread */
    long reads, errors; /* results */
} reader_ctx;

static void *reader(void *arg)
{
    reader_ctx *c = arg;
    for (long i = 0; !atomic_load(&c->stop) || c->reads < 100; i++) {
        int k = (int)(i % c->n);
        char *text;
        if (ddz_store_get_game(c->s, k + 1, NULL, &text) != 0 || strcmp(text, c->want[k]) != 0)
            c->errors++;
        else
            free(text);
        c->reads++;
    }
    return NULL;
}

Test(store, reads_proceed_while_the_writer_writes)
{
    const int first = 200, more = scaled(2000, 1);
    ddz_store *s = open_ok();
    ddz_record r;
    reader_ctx c = {.s = s, .n = first, .want = calloc((size_t)first, sizeof(char *))};
    for (int k = 0; k < first; k++) {
        gen_record((uint32_t)k, &r);
        c.want[k] = dump(&r, false);
        cr_assert_eq(ddz_store_add_game(s, reserve_waiting(s), NULL, NULL, &r, false), 0);
    }
    cr_assert_eq(ddz_store_flush(s), 0);

    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, reader, &c), 0);
    for (int k = 0; k < more; k++) {
        gen_record((uint32_t)(first + k), &r);
        cr_assert_eq(ddz_store_add_game(s, reserve_waiting(s), NULL, NULL, &r, false), 0);
        if (k % 50 == 0) { /* and the main thread reads as well */
            char *text;
            cr_assert_eq(ddz_store_get_game(s, 1 + k % first, NULL, &text), 0);
            free(text);
        }
    }
    cr_assert_eq(ddz_store_flush(s), 0);
    atomic_store(&c.stop, true);
    pthread_join(th, NULL);
    cr_assert_eq(c.errors, 0, "%ld of %ld reads failed", c.errors, c.reads);
    cr_assert_geq(c.reads, 100);

    /* A read is not blocked by a write transaction held by someone else. */
    dbconn db = db_open();
    db_run(&db, STORE_PG ? "BEGIN; INSERT INTO turns(room, turn, games, names,"
                           " totals, finished_at) VALUES('x', 1, 1, '[]', '[]', 0)"
                         : "BEGIN IMMEDIATE; INSERT INTO turns(room, turn, games, names,"
                           " totals, finished_at) VALUES('x', 1, 1, '[]', '[]', 0)");
    char *text;
    cr_assert_eq(ddz_store_get_game(s, first + more, NULL, &text), 0);
    free(text);
    FILE *devnull = fopen("/dev/null", "w");
    cr_assert_eq(ddz_store_export(s, devnull, false), first + more);
    fclose(devnull);
    db_run(&db, "COMMIT");
    db_close(&db);
    for (int k = 0; k < first; k++)
        free(c.want[k]);
    free(c.want);
    ddz_store_close(s);
}

Test(store, a_locked_database_is_a_counted_error)
{
    ddz_store *s = open_ok();
    dbconn db = db_open();
    db_run(&db, DB_WRITE_LOCK);
    ddz_record r;
    gen_record(5, &r);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, "r", NULL, &r, false), 0);
    /* The writer gives up after DDZ_STORE_BUSY_MS. */
    ddz_store_counters c;
    long start = now_ms();
    do {
        ddz_store_stats(s, &c);
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    } while (c.write_errors == 0 && now_ms() - start < WAIT_MS);
    cr_assert_eq(c.write_errors, 1);
    /* "database is locked", "canceling statement due to lock timeout" */
    cr_assert(strstr(c.last_error, "lock") != NULL, "%s", c.last_error);
    db_run(&db, "ROLLBACK");
    db_close(&db);
    cr_assert_eq(ddz_store_flush(s), DDZ_EDB);
    char *text;
    cr_assert_eq(ddz_store_get_game(s, id, NULL, &text), DDZ_ENOTFOUND);
    /* The writer carries on. */
    id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, "r", NULL, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(ddz_store_get_game(s, id, NULL, &text), 0);
    free(text);
    ddz_store_close(s);
}

/* ---- reads through the reader thread ---- */

/* What `wake` saw: how often it ran, and whether on the test's thread. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int wakes;
    pthread_t main;
    bool on_main; /* a wake ran on the test's own thread */
} woken = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void wake(void *ctx)
{
    cr_assert_eq(ctx, &woken);
    pthread_mutex_lock(&woken.mu);
    woken.wakes++;
    if (pthread_equal(pthread_self(), woken.main))
        woken.on_main = true;
    pthread_cond_broadcast(&woken.cv);
    pthread_mutex_unlock(&woken.mu);
}

static void start_reader(ddz_store *s)
{
    woken.wakes = 0;
    woken.on_main = false;
    woken.main = pthread_self();
    cr_assert_eq(ddz_store_reader_start(s, wake, &woken), 0);
}

/* Waits (bounded) until `wake` ran `n` times in all. */
static void wait_wakes(int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += WAIT_MS / 1000;
    pthread_mutex_lock(&woken.mu);
    while (woken.wakes < n)
        if (pthread_cond_timedwait(&woken.cv, &woken.mu, &until) != 0)
            break;
    int got = woken.wakes;
    pthread_mutex_unlock(&woken.mu);
    cr_assert_geq(got, n, "%d answers within %d ms, want %d", got, WAIT_MS, n);
}

static int wakes(void)
{
    pthread_mutex_lock(&woken.mu);
    int n = woken.wakes;
    pthread_mutex_unlock(&woken.mu);
    return n;
}

static ddz_store_read game_read(int64_t id)
{
    return (ddz_store_read){.kind = DDZ_STORE_READ_GAME, .id = id};
}

static ddz_store_read token_read(const char *token)
{
    ddz_store_read r = {.kind = DDZ_STORE_READ_TOKEN};
    snprintf(r.token, sizeof r.token, "%s", token);
    return r;
}

Test(store, reads_are_answered_through_the_queue)
{
    ddz_store *s = open_ok();
    ddz_record rec;
    gen_record(3, &rec);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, "r", NULL, &rec, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    char *want = dump(&rec, false), tok[DDZ_TOKEN_HEX + 1];
    cr_assert_eq(ddz_store_token_add(s, "robo", tok), 0);

    ddz_store_read r[5] = {game_read(id), game_read(id + 1), token_read(tok), token_read("ab"),
                           game_read(id)};
    cr_assert_eq(ddz_store_read_submit(s, &r[0]), DDZ_EINVAL, "no reader yet");
    cr_assert_eq(ddz_store_reader_start(s, NULL, NULL), DDZ_EINVAL);
    start_reader(s);
    cr_assert_eq(ddz_store_reader_start(s, wake, &woken), DDZ_EINVAL, "started twice");
    ddz_store_read bad = {.kind = 99};
    cr_assert_eq(ddz_store_read_submit(s, &bad), DDZ_EINVAL);

    for (int i = 0; i < 5; i++) {
        r[i].owner = &r[i];
        cr_assert_eq(ddz_store_read_submit(s, &r[i]), 0);
    }
    wait_wakes(5);
    cr_assert_not(woken.on_main, "wake ran on the caller's thread");
    /* Answered in order, each once, on whatever thread collects them. */
    for (int i = 0; i < 5; i++)
        cr_assert_eq(ddz_store_read_done(s), &r[i], "answer %d out of order", i);
    cr_assert_null(ddz_store_read_done(s));
    cr_assert_eq(r[0].rc, 0);
    cr_assert_str_eq(r[0].json, want);
    cr_assert_eq(r[1].rc, DDZ_ENOTFOUND);
    cr_assert_null(r[1].json);
    cr_assert_eq(r[2].rc, 0);
    cr_assert_str_eq(r[2].name, "robo");
    cr_assert_eq(r[2].token[0], '\0', "a checked token is wiped");
    cr_assert_eq(r[3].rc, DDZ_EAUTH);
    cr_assert_str_empty(r[3].name);
    cr_assert_eq(r[4].rc, 0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(r[i].owner, &r[i], "the store never touches owner");

    /* A request may be submitted again once answered. */
    free(r[0].json);
    cr_assert_eq(ddz_store_read_submit(s, &r[0]), 0);
    wait_wakes(6);
    cr_assert_eq(ddz_store_read_done(s), &r[0]);
    cr_assert_str_eq(r[0].json, want);
    free(r[0].json);
    free(r[4].json);
    free(want);

    ddz_store_reader_stop(s);
    cr_assert_eq(ddz_store_read_submit(s, &r[1]), DDZ_EINVAL, "reader stopped");
    ddz_store_reader_stop(s); /* twice is fine */
    ddz_store_close(s);
}

/* The analyses' cache (issue 26): written through the queue, the first
 * one kept (unless a later one is of a newer "version": see
 * analyses_of_an_older_form_are_replaced), read back by the ANALYSIS read
 * only after the game itself under its key. */
Test(store, analyses_are_cached_behind_the_games_key)
{
    ddz_store *s = open_ok();
    ddz_record rec;
    gen_record(4, &rec);
    char key[DDZ_STORE_KEY_HEX + 1];
    ddz_store_new_game_key(key);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, "r", key, &rec, false), 0);
    cr_assert_eq(ddz_store_add_analysis(s, 0, "{}"), DDZ_EINVAL);
    cr_assert_eq(ddz_store_add_analysis(s, id, NULL), DDZ_EINVAL);
    char *json = (char *)1;
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(ddz_store_get_analysis(s, id, &json), DDZ_ENOTFOUND, "none cached yet");
    cr_assert_null(json);
    cr_assert_eq(ddz_store_add_analysis(s, id, "{\"game_id\":1}"), 0);
    cr_assert_eq(ddz_store_add_analysis(s, id, "{\"second\":true}"), 0);
    cr_assert_eq(ddz_store_flush(s), 0, "a second analysis of a game is no error");
    cr_assert_eq(ddz_store_get_analysis(s, id, &json), 0);
    cr_assert_str_eq(json, "{\"game_id\":1}", "the first one stays");
    free(json);

    start_reader(s);
    ddz_store_read r[2] = {{.kind = DDZ_STORE_READ_ANALYSIS, .id = id},
                           {.kind = DDZ_STORE_READ_ANALYSIS, .id = id}};
    memcpy(r[1].key, key, sizeof key);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(ddz_store_read_submit(s, &r[i]), 0);
    wait_wakes(2);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(ddz_store_read_done(s), &r[i]);
    cr_assert_eq(r[0].rc, DDZ_ENOTFOUND, "without the game's key, no game");
    cr_assert_null(r[0].json);
    cr_assert_null(r[0].analysis, "and no analysis");
    cr_assert_eq(r[1].rc, 0);
    char *want = dump(&rec, false);
    cr_assert_str_eq(r[1].json, want);
    cr_assert_str_eq(r[1].analysis, "{\"game_id\":1}");
    free(want);
    free(r[1].json);
    free(r[1].analysis);
    ddz_store_reader_stop(s);
    ddz_store_close(s);
}

/* An analysis cached by an older version (no "version", or a lower one)
 * is replaced by a newer one; among analyses of one version the first
 * stays; an older one never replaces a newer one (two nodes of a cluster
 * in the middle of an upgrade). */
Test(store, analyses_of_an_older_form_are_replaced)
{
    ddz_store *s = open_ok();
    ddz_record rec;
    gen_record(5, &rec);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, "r", NULL, &rec, false), 0);
    static const char *const writes[][2] = {
        /* written, then what is cached */
        {"{\"game_id\":1}", "{\"game_id\":1}"},
        {"{\"version\":2,\"n\":1}", "{\"version\":2,\"n\":1}"},
        {"{\"version\":2,\"n\":2}", "{\"version\":2,\"n\":1}"},
        {"{\"game_id\":3}", "{\"version\":2,\"n\":1}"},
        {"{\"version\":1,\"n\":4}", "{\"version\":2,\"n\":1}"},
        {"{\"version\":10,\"n\":5}", "{\"version\":10,\"n\":5}"},
    };
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        cr_assert_eq(ddz_store_add_analysis(s, id, writes[i][0]), 0);
        cr_assert_eq(ddz_store_flush(s), 0, "%s", writes[i][0]);
        char *json = NULL;
        cr_assert_eq(ddz_store_get_analysis(s, id, &json), 0);
        cr_assert_str_eq(json, writes[i][1], "after %s", writes[i][0]);
        free(json);
    }
    ddz_store_close(s);
}

/* The store's reads can wait a long time (here: for locks another process
 * holds); the caller submitting them never does. */
Test(store, a_waiting_read_does_not_wait_the_caller)
{
    ddz_store *s = open_ok();
    ddz_record rec;
    gen_record(4, &rec);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, NULL, NULL, &rec, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    char tok[DDZ_TOKEN_HEX + 1];
    cr_assert_eq(ddz_store_token_add(s, "robo", tok), 0);
    start_reader(s);

    read_lock lock = read_lock_hold();
    ddz_store_read g = game_read(id), t = token_read(tok);
    long t0 = now_ms();
    cr_assert_eq(ddz_store_read_submit(s, &g), 0);
    cr_assert_eq(ddz_store_read_submit(s, &t), 0);
    ddz_record later;
    gen_record(5, &later);
    cr_assert_eq(ddz_store_add_game(s, ddz_store_reserve_game_id(s), NULL, NULL, &later, false), 0);
    long took = now_ms() - t0;
    /* A synchronous read would wait for the lock: about 10 s, then fail. */
    cr_assert_lt(took, BELOW(1000, 10000), "submitting took %ld ms", took);
    cr_assert_null(ddz_store_read_done(s), "answered while the database is locked");
    cr_assert_eq(wakes(), 0);

    read_lock_release(&lock);
    wait_wakes(2);
    cr_assert_eq(ddz_store_read_done(s), &g);
    cr_assert_eq(ddz_store_read_done(s), &t);
    cr_assert_eq(g.rc, 0);
    char *want = dump(&rec, false);
    cr_assert_str_eq(g.json, want);
    free(want);
    free(g.json);
    cr_assert_eq(t.rc, 0);
    cr_assert_str_eq(t.name, "robo");
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_close(s);
}

/* Stopping the reader answers every read: run, or DDZ_EDB if never run. */
Test(store, stopping_the_reader_answers_every_read)
{
    ddz_store *s = open_ok();
    ddz_record rec;
    gen_record(6, &rec);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, NULL, NULL, &rec, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    start_reader(s);
    enum { N = 200 };
    static ddz_store_read r[N];
    for (int i = 0; i < N; i++) {
        r[i] = game_read(id);
        r[i].rc = 1; /* cleared by submit */
        cr_assert_eq(ddz_store_read_submit(s, &r[i]), 0);
    }
    ddz_store_reader_stop(s);
    int ran = 0;
    for (int i = 0; i < N; i++) {
        cr_assert_eq(ddz_store_read_done(s), &r[i], "answer %d missing or out of order", i);
        cr_assert(r[i].rc == 0 || r[i].rc == DDZ_EDB, "rc %d", r[i].rc);
        cr_assert_eq(r[i].json != NULL, r[i].rc == 0);
        ran += r[i].rc == 0;
        free(r[i].json);
    }
    cr_assert_null(ddz_store_read_done(s));
    cr_assert_eq(wakes(), ran, "one wake per read run, none after the stop");
    ddz_store_close(s);
}

static void open_fails(const char *path, const char *text)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(path, NULL, err, sizeof err);
    cr_assert_null(s, "%s opened", path);
    cr_assert(strstr(err, text) != NULL, "'%s' lacks '%s'", err, text);
    cr_assert_null(strchr(err, '\n'));
}

#if STORE_PG
Test(store, open_errors)
{
    /* Nobody listens: the message names the database, without its password. */
    char url[256], *port = strrchr(db_path, ':');
    cr_assert_not_null(port);
    open_fails("postgres://ddz:sesame@127.0.0.1:1/ddz", "postgres://ddz@127.0.0.1:1/ddz: ");
    char err[256] = "";
    cr_assert_null(ddz_store_open("postgresql://ddz:sesame@127.0.0.1:1/x?password=sesame", NULL,
                                  err, sizeof err));
    cr_assert_null(strstr(err, "sesame"), "%s", err);
    cr_assert(strstr(err, "refused") != NULL, "%s", err);
    /* No such database, no such user. */
    snprintf(url, sizeof url, "%.*s/no_such_db", (int)(strrchr(db_path, '/') - db_path), db_path);
    open_fails(url, "no_such_db");
    snprintf(url, sizeof url, "postgres://nobody:pw@127.0.0.1%.*s", (int)strcspn(port, "/"), port);
    open_fails(url, "nobody");
    cr_assert_null(ddz_store_open(db_path, &(ddz_store_options){.busy_ms = -1}, err, sizeof err));
    cr_assert(strstr(err, "busy_ms") != NULL, "%s", err);

    /* A schema from a later version is refused. */
    ddz_store_close(open_ok());
    dbconn db = db_open();
    db_run(&db, "UPDATE store_schema SET version = 99");
    db_close(&db);
    open_fails(db_path, "schema version 99");
    ddz_store_close(NULL);
}
#else
Test(store, open_errors)
{
    /* A directory that cannot exist: below a regular file. */
    char path[192];
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    fputs("not a directory\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/file/ddz.db", dir);
    open_fails(path, path);
    open_fails(path, "unable to open");
    open_fails("/nonexistent-ddz-dir/ddz.db", "unable to open");
    open_fails("", "no database path");
    char err[256] = "";
    cr_assert_null(ddz_store_open(db_path, &(ddz_store_options){.busy_ms = -1}, err, sizeof err));
    cr_assert(strstr(err, "busy_ms") != NULL, "%s", err);

    /* A file that is not a database is left alone. */
    snprintf(path, sizeof path, "%s/file", dir);
    f = fopen(path, "w");
    for (int i = 0; i < 100; i++)
        fputs("this is not an SQLite database\n", f);
    fclose(f);
    open_fails(path, "not a database");
    char *data;
    size_t n = read_bytes(path, &data);
    cr_assert_eq(n, 3100);
    free(data);

    /* A schema from a later version is refused. */
    ddz_store_close(open_ok());
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    open_fails(db_path, "schema version 99");
    ddz_store_close(NULL);
}
#endif

Test(store, bad_arguments)
{
    ddz_store *s = open_ok();
    ddz_record r;
    gen_record(1, &r);
    cr_assert_eq(ddz_store_add_game(s, 0, "r", NULL, &r, false), DDZ_EINVAL);
    cr_assert_eq(ddz_store_add_game(s, -5, "r", NULL, &r, false), DDZ_EINVAL);
    r.nbids = 4;
    cr_assert_eq(ddz_store_add_game(s, 1, "r", NULL, &r, false), DDZ_EINVAL);
    r.nbids = 3;
    r.nplays = DDZ_RECORD_MAX_PLAYS + 1;
    cr_assert_eq(ddz_store_add_game(s, 1, "r", NULL, &r, false), DDZ_EINVAL);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.writes + c.drops + c.write_errors, 0);
    ddz_store_close(s);
}

/* A held game (a competition's: stored under a fresh key told to nobody)
 * is read by nobody until it is published; publishing clears its key, so
 * that from then on its id alone reads it. Publishing is a queued write,
 * idempotent, and an id stored nowhere changes nothing. */
Test(store, held_games_are_read_once_published)
{
    ddz_store *s = open_ok();
    ddz_record r;
    gen_record(9, &r);
    char key[DDZ_STORE_KEY_HEX + 1];
    ddz_store_new_game_key(key);
    int64_t held = ddz_store_reserve_game_id(s), other = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, held, "table", key, &r, false), 0);
    cr_assert_eq(ddz_store_add_game(s, other, "table", key, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    char *text;
    cr_assert_eq(ddz_store_get_game(s, held, NULL, &text), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, held, "", &text), DDZ_ENOTFOUND);
    int64_t bad[] = {held, 0};
    cr_assert_eq(ddz_store_publish_games(s, bad, 2), DDZ_EINVAL, "an id < 1: nothing queued");
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(ddz_store_get_game(s, held, NULL, &text), DDZ_ENOTFOUND);
    int64_t ids[] = {held, held, other + 1000};
    cr_assert_eq(ddz_store_publish_games(s, ids, 3), 0);
    cr_assert_eq(ddz_store_flush(s), 0, "twice, and a game stored nowhere: no error");
    cr_assert_eq(ddz_store_get_game(s, held, NULL, &text), 0);
    json_t *j = json_loads(text, 0, NULL);
    cr_assert_not_null(j, "%s", text);
    json_decref(j);
    free(text);
    cr_assert_eq(ddz_store_get_game(s, other, NULL, &text), DDZ_ENOTFOUND, "not published");
    cr_assert_eq(ddz_store_get_game(s, other, key, &text), 0);
    free(text);
    cr_assert_eq(ddz_store_publish_games(s, NULL, 0), 0);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.write_errors + c.drops, 0);
    ddz_store_close(s);
}

/* A game stored with a link key (a private or password room's) is read
 * only with that key: without it, or with another, it is as absent as a
 * game never stored. A listed room's game is read by its id alone, and not
 * with a key. Keys are 32 lower-case hex digits, fresh each time. The
 * export holds every game: the file is the operator's. */
Test(store, keyed_games)
{
    ddz_store *s = open_ok();
    ddz_record r;
    gen_record(7, &r);
    char key[DDZ_STORE_KEY_HEX + 1], other[DDZ_STORE_KEY_HEX + 1];
    ddz_store_new_game_key(key);
    ddz_store_new_game_key(other);
    cr_assert_eq(strlen(key), DDZ_STORE_KEY_HEX);
    cr_assert_eq(strspn(key, "0123456789abcdef"), DDZ_STORE_KEY_HEX);
    cr_assert_str_neq(key, other);
    int64_t open_id = ddz_store_reserve_game_id(s), keyed = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, open_id, "listed", NULL, &r, false), 0);
    cr_assert_eq(ddz_store_add_game(s, keyed, "private", key, &r, false), 0);
    cr_assert_eq(ddz_store_add_game(s, keyed + 1, "bad", "ABCDEF", &r, false), DDZ_EINVAL);
    cr_assert_eq(ddz_store_flush(s), 0);
    char *text;
    cr_assert_eq(ddz_store_get_game(s, keyed, NULL, &text), DDZ_ENOTFOUND);
    cr_assert_null(text);
    cr_assert_eq(ddz_store_get_game(s, keyed, "", &text), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, keyed, other, &text), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, keyed, "0123", &text), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, keyed, key, &text), 0);
    free(text);
    cr_assert_eq(ddz_store_get_game(s, open_id, NULL, &text), 0);
    free(text);
    cr_assert_eq(ddz_store_get_game(s, open_id, key, &text), DDZ_ENOTFOUND);
    char path[160];
    snprintf(path, sizeof path, "%s/export.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_eq(ddz_store_export(s, f, false), 2);
    fclose(f);
    ddz_store_close(s);
}

#if !STORE_PG
/* A database of schema version 1 (before games had keys) is migrated: its
 * games stay readable by id. */
Test(store, version_1_is_migrated)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ddz_record r;
    gen_record(3, &r);
    char *line = dump(&r, false);
    const char *schema1 =
        "CREATE TABLE games(id INTEGER PRIMARY KEY, room TEXT, game INTEGER NOT NULL,"
        " started_at INTEGER, finished_at INTEGER NOT NULL,"
        " aborted INTEGER NOT NULL DEFAULT 0, name_west TEXT, name_south TEXT,"
        " name_east TEXT, record TEXT NOT NULL);"
        "CREATE TABLE turns(id INTEGER PRIMARY KEY, room TEXT, turn INTEGER NOT NULL,"
        " games INTEGER NOT NULL, names TEXT NOT NULL, totals TEXT NOT NULL,"
        " finished_at INTEGER NOT NULL);"
        "CREATE TABLE tokens(name TEXT PRIMARY KEY, hash BLOB NOT NULL,"
        " created_at INTEGER NOT NULL, revoked_at INTEGER);"
        "PRAGMA user_version = 1;";
    cr_assert_eq(sqlite3_exec(db, schema1, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "INSERT INTO games(id, room, game, finished_at, record)"
                                    " VALUES(5, 'r', 0, 1, ?1)",
                                    -1, &st, NULL),
                 SQLITE_OK);
    sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
    ddz_store *s = open_ok();
    char *text;
    cr_assert_eq(ddz_store_get_game(s, 5, NULL, &text), 0);
    cr_assert_str_eq(text, line);
    free(text);
    free(line);
    cr_assert_eq(ddz_store_reserve_game_id(s), 6);
    ddz_store_close(s);
}
#endif

/* "My games": a player's list holds its own games only, newest first, at
 * most DDZ_STORE_MINE_MAX of them, with what the lobby shows of each, and
 * it comes through the reader thread as well. */
Test(store, my_games)
{
    ddz_store *s = open_ok();
    uint8_t me[DDZ_STORE_ME_BYTES], other[DDZ_STORE_ME_BYTES];
    randombytes_buf(me, sizeof me);
    randombytes_buf(other, sizeof other);
    ddz_record r;
    gen_record(11, &r);
    int n = DDZ_STORE_MINE_MAX + 5;
    int64_t ids[DDZ_STORE_MINE_MAX + 5];
    for (int i = 0; i < n; i++) {
        ids[i] = ddz_store_reserve_game_id(s);
        char key[DDZ_STORE_KEY_HEX + 1];
        ddz_store_new_game_key(key);
        cr_assert_eq(ddz_store_add_game(s, ids[i], "room1", i % 2 ? key : NULL, &r, false), 0);
        cr_assert_eq(ddz_store_add_mine(s, ids[i], i % 3, me), 0);
        if (i == 0) /* the other player sat in the first game only */
            cr_assert_eq(ddz_store_add_mine(s, ids[i], 2, other), 0);
    }
    cr_assert_eq(ddz_store_add_mine(s, ids[0], 3, me), DDZ_EINVAL);
    cr_assert_eq(ddz_store_add_mine(s, 0, 0, me), DDZ_EINVAL);
    cr_assert_eq(ddz_store_flush(s), 0);
    char *text;
    cr_assert_eq(ddz_store_my_games(s, me, DDZ_STORE_MINE_MAX + 1, &text), DDZ_EINVAL);
    cr_assert_eq(ddz_store_my_games(s, me, DDZ_STORE_MINE_MAX, &text), DDZ_STORE_MINE_MAX);
    json_t *list = json_loads(text, 0, NULL);
    cr_assert(json_is_array(list), "%s", text);
    cr_assert_eq(json_array_size(list), DDZ_STORE_MINE_MAX, "bounded");
    for (int k = 0; k < DDZ_STORE_MINE_MAX; k++) {
        json_t *g = json_array_get(list, (size_t)k);
        int i = n - 1 - k; /* newest first */
        cr_assert_eq(json_integer_value(json_object_get(g, "id")), ids[i]);
        cr_assert_eq(json_integer_value(json_object_get(g, "seat")), i % 3);
        cr_assert_eq(json_is_string(json_object_get(g, "key")), i % 2 == 1);
        cr_assert_str_eq(json_string_value(json_object_get(g, "room")), "room1");
        for (int p = 0; p < 3; p++) {
            cr_assert_str_eq(json_string_value(json_array_get(json_object_get(g, "names"), p)),
                             r.names[p]);
            cr_assert_eq(json_number_value(json_array_get(json_object_get(g, "scores"), p)),
                         r.scores[p]);
        }
        json_t *ll = json_object_get(g, "landlord");
        cr_assert_eq(json_is_null(ll) ? -1 : json_integer_value(ll), r.landlord);
    }
    json_decref(list);
    free(text);
    /* the other player: its one game; nobody: none */
    cr_assert_eq(ddz_store_my_games(s, other, DDZ_STORE_MINE_MAX, &text), 1);
    list = json_loads(text, 0, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(list, 0), "id")), ids[0]);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(list, 0), "seat")), 2);
    json_decref(list);
    free(text);
    uint8_t nobody[DDZ_STORE_ME_BYTES] = {0};
    cr_assert_eq(ddz_store_my_games(s, nobody, 5, &text), 0);
    cr_assert_str_eq(text, "[]");
    free(text);
    /* through the reader thread */
    start_reader(s);
    ddz_store_read rd = {.kind = DDZ_STORE_READ_MINE};
    memcpy(rd.me, other, sizeof rd.me);
    cr_assert_eq(ddz_store_read_submit(s, &rd), 0);
    wait_wakes(1);
    cr_assert_eq(ddz_store_read_done(s), &rd);
    cr_assert_eq(rd.rc, 1);
    cr_assert_not_null(strstr(rd.json, "\"seat\":2"), "%s", rd.json);
    free(rd.json);
    ddz_store_close(s);
}

/* ---- the ladder ---- */

typedef struct ladder_seen {
    ddz_store_ladder_player p[8];
    int np;
    ddz_store_ladder_hist h[8];
    int nh;
} ladder_seen;

static void seen_player(void *ctx, const ddz_store_ladder_player *p)
{
    ladder_seen *s = ctx;
    if (s->np < 8)
        s->p[s->np++] = *p;
}

static void seen_hist(void *ctx, const ddz_store_ladder_hist *h)
{
    ladder_seen *s = ctx;
    if (s->nh < 8)
        s->h[s->nh++] = *h;
}

static ddz_store_ladder_player lp(const char *name, double mu, long deals)
{
    ddz_store_ladder_player p = {.mu = mu,
                                 .sigma = 8 - deals,
                                 .games = deals,
                                 .deals = deals,
                                 .score = 2.5 * deals,
                                 .faults = deals / 2};
    snprintf(p.name, sizeof p.name, "%s", name);
    return p;
}

/* The seat of `who` holding hand `hand` at table `t` of deal `deal` (the
 * table's game deal + t): its rating after, its score, its table mates
 * (the names at hands hand+1, hand+2) and, from the other table of `other`,
 * the same hand's holder and score. */
static ddz_store_ladder_hist seat_row(const char *who, int64_t deal, int t, int hand,
                                      const char *const table[3], const char *const other[3],
                                      double mu, double score, double other_score)
{
    ddz_store_ladder_hist h = {
        .mu = mu, .sigma = 7.5, .score = score, .faults = score < 0, .deal = deal, .hand = hand};
    snprintf(h.name, sizeof h.name, "%s", who);
    h.games[0] = deal + t;
    snprintf(h.opp[0], sizeof h.opp[0], "%s", table[(hand + 1) % 3]);
    snprintf(h.opp[1], sizeof h.opp[1], "%s", table[(hand + 2) % 3]);
    if (other) {
        h.ncmp = 1;
        snprintf(h.cmp[0].name, sizeof h.cmp[0].name, "%s", other[hand]);
        h.cmp[0].score = other_score;
        h.cmp[0].game = deal + 1 - t;
    }
    return h;
}

/* A deal at two tables (games deal and deal + 1) with ai:greedy at two
 * seats, one of them at each table:
 *   table 0: a, ai:greedy, b    table 1: c, d, ai:greedy
 * Each seat's row compares it with the same hand at the other table. */
static void two_table_deal(ddz_store_ladder_deal *d, int64_t deal, long n)
{
    static const char *const t0[3] = {"a", "ai:greedy", "b"};
    static const char *const t1[3] = {"c", "d", "ai:greedy"};
    const double s0[3] = {2, 1.0 / 3, -2.25}, s1[3] = {-1, 4, 0.5};
    memset(d, 0, sizeof *d);
    const char *names[5] = {"a", "ai:greedy", "b", "c", "d"};
    d->nplayers = 5;
    for (int i = 0; i < 5; i++)
        d->p[i] = lp(names[i], 20 + i + 0.125 * (double)n, i == 1 ? 2 * n : n);
    d->nrows = 6;
    for (int hand = 0; hand < 3; hand++) {
        d->rows[hand] = seat_row(t0[hand], deal, 0, hand, t0, t1, 30 + hand, s0[hand], s1[hand]);
        d->rows[3 + hand] =
            seat_row(t1[hand], deal, 1, hand, t1, t0, 40 + hand, s1[hand], s0[hand]);
    }
}

/* Deals survive closing the store: every standing (the latest), one
 * history row per seat, newest first, with the hand held, its game, its
 * table mates and those it was compared with; rule sets are kept apart; a
 * suspension is stored; a deal out of range is refused. */
Test(store, ladder_round_trip)
{
    ddz_store *s = open_ok();
    static ddz_store_ladder_deal d; /* large */
    two_table_deal(&d, 10, 1);
    cr_assert_eq(ddz_store_ladder_add_deal(s, "caai", &d), 0);
    two_table_deal(&d, 20, 2);
    cr_assert_eq(ddz_store_ladder_add_deal(s, "caai", &d), 0);
    cr_assert_eq(ddz_store_ladder_add_deal(s, "botzone-ftl", &d), 0);
    ddz_store_ladder_player susp = lp("a", 25.5, 2);
    snprintf(susp.suspended, sizeof susp.suspended, "faulted in 4 of its last 6 games");
    cr_assert_eq(ddz_store_ladder_put(s, "caai", &susp), 0);

    /* refused: nothing of it is queued */
    cr_expect_eq(ddz_store_ladder_put(s, "", &susp), DDZ_EINVAL);
    susp.name[0] = '\0';
    cr_expect_eq(ddz_store_ladder_put(s, "caai", &susp), DDZ_EINVAL);
    cr_expect_eq(ddz_store_ladder_add_deal(s, "", &d), DDZ_EINVAL);
    static ddz_store_ladder_deal bad;
#define REFUSED(change)                                                                            \
    do {                                                                                           \
        bad = d;                                                                                   \
        change;                                                                                    \
        cr_expect_eq(ddz_store_ladder_add_deal(s, "caai", &bad), DDZ_EINVAL, "%s", #change);       \
    } while (0)
    REFUSED(bad.nplayers = 0);
    REFUSED(bad.nplayers = DDZ_STORE_LADDER_SEATS + 1);
    REFUSED(bad.nrows = -1);
    REFUSED(bad.nrows = DDZ_STORE_LADDER_SEATS + 1);
    REFUSED(bad.rows[4].hand = -2);
    REFUSED(bad.rows[4].hand = 3);
    REFUSED(bad.rows[5].ncmp = -1);
    REFUSED(bad.rows[5].ncmp = DDZ_STORE_LADDER_TABLES);
    REFUSED(bad.p[4].name[0] = '\0');
    REFUSED(bad.rows[5].name[0] = '\0');
    REFUSED(bad.rows[0].cmp[0].name[0] = '\0');
#undef REFUSED
    /* the bounds themselves are accepted: one standing and a row of the
     * old format (hand -1: its three games, no deal, hand or comparisons) */
    bad = d;
    bad.nplayers = 1, bad.nrows = 1;
    bad.rows[0].hand = -1, bad.rows[0].ncmp = 0;
    bad.rows[0].games[0] = 5, bad.rows[0].games[1] = 6, bad.rows[0].games[2] = 7;
    cr_expect_eq(ddz_store_ladder_add_deal(s, "other", &bad), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_expect_eq(c.writes, 5, "writes: %llu", (unsigned long long)c.writes);
    cr_expect_eq(c.write_errors + c.drops, 0);
    ddz_store_close(s);

    s = open_ok();
    ladder_seen seen = {0};
    cr_assert_eq(ddz_store_ladder_players(s, "caai", seen_player, &seen), 5);
    cr_expect_str_eq(seen.p[0].name, "a"); /* name order */
    cr_expect_str_eq(seen.p[0].suspended, "faulted in 4 of its last 6 games");
    cr_expect_eq(seen.p[0].mu, 25.5, "the standing written last is kept");
    cr_expect_str_eq(seen.p[1].name, "ai:greedy");
    cr_expect_eq(seen.p[1].games, 4, "two seats a deal");
    cr_expect_eq(seen.p[1].mu, 21.25);
    cr_expect_str_eq(seen.p[4].name, "d");
    cr_expect_eq(seen.p[4].deals, 2);
    cr_expect_str_eq(seen.p[4].suspended, "");

    /* ai:greedy: hand 2 at table 1 and hand 1 at table 0, of each deal */
    cr_assert_eq(ddz_store_ladder_history(s, "caai", "ai:greedy", 8, seen_hist, &seen), 4);
    const ddz_store_ladder_hist *h = seen.h;
    for (int k = 0; k < 4; k++) {
        cr_expect_str_eq(h[k].name, "ai:greedy");
        cr_expect_eq(h[k].deal, k < 2 ? 20 : 10, "row %d", k);
        cr_expect_eq(h[k].hand, k % 2 ? 1 : 2, "row %d: newest first", k);
        cr_expect_eq(h[k].games[0], h[k].deal + (k % 2 ? 0 : 1));
        cr_expect_eq(h[k].games[1], 0);
        cr_expect_eq(h[k].games[2], 0);
        cr_expect_eq(h[k].ncmp, 1);
        cr_expect_eq(h[k].sigma, 7.5);
        cr_expect_gt(h[k].finished_ms, 1600000000000);
        if (k > 0)
            cr_expect_lt(h[k].id, h[k - 1].id);
    }
    cr_expect_eq(h[0].finished_ms, h[1].finished_ms, "one deal, one time");
    cr_expect_geq(h[0].finished_ms, h[2].finished_ms);
    /* hand 2 at table 1 (c, d, ai:greedy), compared with b at table 0 */
    cr_expect_eq(h[0].mu, 42);
    cr_expect_eq(h[0].score, 0.5);
    cr_expect_eq(h[0].faults, 0);
    cr_expect_str_eq(h[0].opp[0], "c");
    cr_expect_str_eq(h[0].opp[1], "d");
    cr_expect_str_eq(h[0].cmp[0].name, "b");
    cr_expect_eq(h[0].cmp[0].score, -2.25);
    cr_expect_eq(h[0].cmp[0].game, 20);
    /* hand 1 at table 0 (a, ai:greedy, b), compared with d at table 1 */
    cr_expect_eq(h[1].mu, 31);
    cr_expect_eq(h[1].score, 1.0 / 3, "exact: %.17g", h[1].score);
    cr_expect_str_eq(h[1].opp[0], "b");
    cr_expect_str_eq(h[1].opp[1], "a");
    cr_expect_str_eq(h[1].cmp[0].name, "d");
    cr_expect_eq(h[1].cmp[0].score, 4);
    cr_expect_eq(h[1].cmp[0].game, 21);

    seen.nh = 0;
    cr_assert_eq(ddz_store_ladder_history(s, "caai", "c", 8, seen_hist, &seen), 2);
    cr_expect_eq(seen.h[0].hand, 0);
    cr_expect_eq(seen.h[0].faults, 1);
    cr_expect_str_eq(seen.h[0].cmp[0].name, "a");
    cr_expect_eq(seen.h[0].cmp[0].game, 20);
    seen.nh = 0;
    cr_expect_eq(ddz_store_ladder_history(s, "caai", "ai:greedy", 1, seen_hist, &seen), 1);
    cr_expect_eq(seen.h[0].deal, 20);
    seen.nh = 0;
    cr_expect_eq(ddz_store_ladder_history(s, "botzone-ftl", "ai:greedy", 8, seen_hist, &seen), 2);
    seen.nh = 0;
    cr_expect_eq(ddz_store_ladder_history(s, "other", "a", 8, seen_hist, &seen), 1);
    cr_expect_eq(seen.h[0].hand, -1);
    cr_expect_eq(seen.h[0].deal, 0);
    cr_expect_eq(seen.h[0].ncmp, 0);
    cr_expect(seen.h[0].games[0] == 5 && seen.h[0].games[1] == 6 && seen.h[0].games[2] == 7);
    seen.np = 0;
    cr_expect_eq(ddz_store_ladder_players(s, "botzone-ftl", seen_player, &seen), 5);
    cr_expect_eq(ddz_store_ladder_players(s, "other", seen_player, &seen), 1);
    cr_expect_eq(ddz_store_ladder_players(s, "botzone-ftl2", seen_player, &seen), 0);
    ddz_store_close(s);

    /* the column as written: a compact JSON array, one object per table */
    qres q = db_query("SELECT compared, game2, game3 FROM ladder_history WHERE rules = 'caai'"
                      " AND name = 'ai:greedy' AND deal = 10 AND hand = 1");
    cr_assert_eq(q.rows, 1);
    cr_expect_str_eq(q.cell[0][0], "[{\"name\":\"d\",\"score\":4.0,\"game\":11}]");
    cr_expect_null(q.cell[0][1]);
    cr_expect_null(q.cell[0][2]);
    qres_free(&q);
    q = db_query("SELECT COUNT(*) FROM ladder_history WHERE rules = 'other' AND hand IS NULL"
                 " AND deal IS NULL AND compared IS NULL AND game3 = 7");
    cr_expect_str_eq(q.cell[0][0], "1");
    qres_free(&q);
}

/* A version-4 database (the ladder of one deal played three times at one
 * table, with pair counts) is migrated: its rows read as the old format
 * (hand -1, deal 0, the three games, no comparisons), its standings stay,
 * ladder_pairs goes, and new deals are written beside the old rows. */
static const char *const schema4 =
#if STORE_PG
    "CREATE TABLE games(id BIGINT PRIMARY KEY, room TEXT, game INTEGER NOT NULL,"
    " started_at BIGINT, finished_at BIGINT NOT NULL, aborted INTEGER NOT NULL DEFAULT 0,"
    " name_west TEXT, name_south TEXT, name_east TEXT, record TEXT NOT NULL, key TEXT);"
    "CREATE SEQUENCE games_id_blocks INCREMENT BY 100 MINVALUE 100 START WITH 100"
    " MAXVALUE 4503599627370495;"
    "CREATE TABLE turns(id BIGSERIAL PRIMARY KEY, room TEXT, turn INTEGER NOT NULL,"
    " games INTEGER NOT NULL, names TEXT NOT NULL, totals TEXT NOT NULL,"
    " finished_at BIGINT NOT NULL);"
    "CREATE TABLE tokens(name TEXT PRIMARY KEY, hash BYTEA NOT NULL, created_at BIGINT NOT NULL,"
    " revoked_at BIGINT);"
    "CREATE TABLE ladder_players(rules TEXT NOT NULL, name TEXT NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, games BIGINT NOT NULL,"
    " deals BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL, faults BIGINT NOT NULL,"
    " suspended TEXT, updated_at BIGINT NOT NULL, PRIMARY KEY(rules, name));"
    "CREATE TABLE ladder_history(id BIGSERIAL PRIMARY KEY, rules TEXT NOT NULL,"
    " name TEXT NOT NULL, finished_at BIGINT NOT NULL, mu DOUBLE PRECISION NOT NULL,"
    " sigma DOUBLE PRECISION NOT NULL, score DOUBLE PRECISION NOT NULL,"
    " faults INTEGER NOT NULL, game1 BIGINT, game2 BIGINT, game3 BIGINT, opp1 TEXT,"
    " opp2 TEXT);"
    "CREATE INDEX ladder_history_player ON ladder_history(rules, name, id);"
    "CREATE TABLE ladder_pairs(rules TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,"
    " deals BIGINT NOT NULL, PRIMARY KEY(rules, a, b));"
    "CREATE TABLE mine(owner BYTEA NOT NULL, game BIGINT NOT NULL, seat INTEGER NOT NULL,"
    " PRIMARY KEY(owner, game));"
    "CREATE TABLE store_schema(version INTEGER NOT NULL);"
    "INSERT INTO store_schema VALUES(4);"
#else
    "CREATE TABLE games(id INTEGER PRIMARY KEY, room TEXT, game INTEGER NOT NULL,"
    " started_at INTEGER, finished_at INTEGER NOT NULL, aborted INTEGER NOT NULL DEFAULT 0,"
    " name_west TEXT, name_south TEXT, name_east TEXT, record TEXT NOT NULL, key TEXT);"
    "CREATE TABLE turns(id INTEGER PRIMARY KEY, room TEXT, turn INTEGER NOT NULL,"
    " games INTEGER NOT NULL, names TEXT NOT NULL, totals TEXT NOT NULL,"
    " finished_at INTEGER NOT NULL);"
    "CREATE TABLE tokens(name TEXT PRIMARY KEY, hash BLOB NOT NULL,"
    " created_at INTEGER NOT NULL, revoked_at INTEGER);"
    "CREATE TABLE ladder_players(rules TEXT NOT NULL, name TEXT NOT NULL,"
    " mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL, deals INTEGER NOT NULL,"
    " score REAL NOT NULL, faults INTEGER NOT NULL, suspended TEXT,"
    " updated_at INTEGER NOT NULL, PRIMARY KEY(rules, name));"
    "CREATE TABLE ladder_history(id INTEGER PRIMARY KEY, rules TEXT NOT NULL,"
    " name TEXT NOT NULL, finished_at INTEGER NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,"
    " score REAL NOT NULL, faults INTEGER NOT NULL, game1 INTEGER, game2 INTEGER,"
    " game3 INTEGER, opp1 TEXT, opp2 TEXT);"
    "CREATE INDEX ladder_history_player ON ladder_history(rules, name, id);"
    "CREATE TABLE ladder_pairs(rules TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,"
    " deals INTEGER NOT NULL, PRIMARY KEY(rules, a, b));"
    "CREATE TABLE mine(owner BLOB NOT NULL, game INTEGER NOT NULL, seat INTEGER NOT NULL,"
    " PRIMARY KEY(owner, game)) WITHOUT ROWID;"
    "PRAGMA user_version = 4;"
#endif
    /* what the old ladder wrote for one deal (three games at one table) */
    "INSERT INTO ladder_players VALUES('caai', 'a', 26.5, 7, 3, 1, 4, 0, NULL, 1700000000000);"
    "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score, faults, game1,"
    " game2, game3, opp1, opp2) VALUES('caai', 'a', 1700000000000, 26.5, 7, 4, 1, 7, 8, 9,"
    " 'b', 'c');"
    "INSERT INTO ladder_pairs VALUES('caai', 'a', 'b', 1);";

Test(store, version_4_ladder_is_migrated)
{
#if STORE_PG
    dbconn db = db_open();
#else
    dbconn db; /* db_open() opens only a file that is there */
    cr_assert_eq(sqlite3_open(db_path, &db.sq), SQLITE_OK);
#endif
    db_run(&db, schema4);
    db_close(&db);

    ddz_store *s = open_ok();
    static ddz_store_ladder_deal d;
    two_table_deal(&d, 30, 2);
    cr_assert_eq(ddz_store_ladder_add_deal(s, "caai", &d), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    ladder_seen seen = {0};
    cr_assert_eq(ddz_store_ladder_history(s, "caai", "a", 8, seen_hist, &seen), 2);
    const ddz_store_ladder_hist *now = &seen.h[0], *old = &seen.h[1];
    cr_expect_eq(now->hand, 0);
    cr_expect_eq(now->deal, 30);
    cr_expect_eq(now->games[0], 30);
    cr_expect_eq(now->ncmp, 1);
    cr_expect_str_eq(now->cmp[0].name, "c");
    cr_expect_gt(now->id, old->id);
    cr_expect_str_eq(old->name, "a");
    cr_expect_eq(old->hand, -1, "a row of the old format");
    cr_expect_eq(old->deal, 0);
    cr_expect_eq(old->ncmp, 0);
    cr_expect(old->games[0] == 7 && old->games[1] == 8 && old->games[2] == 9);
    cr_expect_eq(old->finished_ms, 1700000000000);
    cr_expect_eq(old->mu, 26.5);
    cr_expect_eq(old->score, 4);
    cr_expect_eq(old->faults, 1);
    cr_expect_str_eq(old->opp[0], "b");
    cr_expect_str_eq(old->opp[1], "c");
    ddz_store_close(s);

#if STORE_PG
    qres q = db_query("SELECT (SELECT version FROM store_schema),"
                      " to_regclass('ladder_pairs') IS NULL");
    cr_assert_eq(q.rows, 1);
    cr_expect_str_eq(q.cell[0][0], DDZ_STORE_VERSION_STR);
    cr_expect_str_eq(q.cell[0][1], "t", "ladder_pairs is dropped");
#else
    qres q = db_query("SELECT (SELECT user_version FROM pragma_user_version),"
                      " (SELECT COUNT(*) FROM sqlite_master WHERE name = 'ladder_pairs')");
    cr_assert_eq(q.rows, 1);
    cr_expect_str_eq(q.cell[0][0], DDZ_STORE_VERSION_STR);
    cr_expect_str_eq(q.cell[0][1], "0", "ladder_pairs is dropped");
#endif
    qres_free(&q);
}

/* ---- several stores on one database (several nodes) ---- */

typedef struct token_race {
    ddz_store *s;
    pthread_barrier_t *go;
    int rc;
} token_race;

static void *add_robo(void *arg)
{
    token_race *t = arg;
    char tok[DDZ_TOKEN_HEX + 1];
    pthread_barrier_wait(t->go);
    t->rc = ddz_store_token_add(t->s, "robo", tok);
    return NULL;
}

static void count_hist(void *ctx, const ddz_store_ladder_hist *h)
{
    (void)h;
    (*(int *)ctx)++;
}

/* Two stores writing at once: a name gets one token, whoever asks; the
 * ladder's rows of both are all there. */
Test(store, two_stores_write_one_database)
{
    ddz_store *s[2] = {open_ok(), open_ok()};
    for (int round = 0; round < 10; round++) {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        token_race t[2] = {{.s = s[0], .go = &go}, {.s = s[1], .go = &go}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            cr_assert_eq(pthread_create(&th[i], NULL, add_robo, &t[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&go);
        cr_assert((t[0].rc == 0) != (t[1].rc == 0), "round %d: %d %d", round, t[0].rc, t[1].rc);
        cr_assert_eq(t[0].rc + t[1].rc, DDZ_EINVAL);
        cr_assert_eq(ddz_store_token_revoke(s[round % 2], "robo"), 0);
    }

    static ddz_store_ladder_deal d;
    for (int i = 0; i < 20; i++) {
        two_table_deal(&d, 100 + 2 * i, i + 1);
        cr_assert_eq(ddz_store_ladder_add_deal(s[i % 2], "caai", &d), 0);
    }
    cr_assert_eq(ddz_store_flush(s[0]), 0);
    cr_assert_eq(ddz_store_flush(s[1]), 0);
    int rows = 0;
    cr_assert_eq(ddz_store_ladder_history(s[0], "caai", "ai:greedy", 100, count_hist, &rows), 40);
    cr_assert_eq(rows, 40);
    ddz_store_close(s[0]);
    ddz_store_close(s[1]);
}

#if STORE_PG
static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nodes sharing a database never hand out the same game id. */
Test(store, ids_are_unique_across_stores)
{
    enum { N = 3, EACH = 350 };
    ddz_store *s[N];
    for (int i = 0; i < N; i++)
        s[i] = open_ok();
    static int64_t ids[N * EACH];
    ddz_record r;
    gen_record(9, &r);
    for (int k = 0; k < EACH; k++)
        for (int i = 0; i < N; i++) {
            ids[k * N + i] = reserve_waiting(s[i]);
            if (k % 50 == 0)
                cr_assert_eq(ddz_store_add_game(s[i], ids[k * N + i], "r", NULL, &r, false), 0);
        }
    qsort(ids, N * EACH, sizeof ids[0], cmp_id);
    for (int k = 1; k < N * EACH; k++)
        cr_assert_neq(ids[k], ids[k - 1], "id %lld handed out twice", (long long)ids[k]);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(ddz_store_flush(s[i]), 0);
        ddz_store_close(s[i]);
    }
    cr_assert_eq(count_rows("games"), N * (EACH / 50));
}

/* An id stored by hand (not from the sequence) is never handed out again. */
Test(store, ids_continue_past_games_stored_by_hand)
{
    ddz_store_close(open_ok()); /* the schema */
    ddz_record r;
    gen_record(3, &r);
    char *line = dump(&r, false);
    dbconn db = db_open();
    const char *v[] = {line};
    PGresult *res = PQexecParams(db.pg,
                                 "INSERT INTO games(id, room, game, finished_at, record)"
                                 " VALUES(5000, 'r', 0, 1, $1)",
                                 1, NULL, v, NULL, NULL, 0);
    cr_assert_eq(PQresultStatus(res), PGRES_COMMAND_OK, "%s", PQerrorMessage(db.pg));
    PQclear(res);
    db_close(&db);
    ddz_store *s = open_ok();
    cr_assert_gt(ddz_store_reserve_game_id(s), 5000);
    char *text;
    cr_assert_eq(ddz_store_get_game(s, 5000, NULL, &text), 0);
    cr_assert_str_eq(text, line);
    free(text);
    free(line);
    ddz_store_close(s);
}

/* Ends every connection the store has to its database (by its
 * application_name); the test's own are not touched. */
static void kill_store_conns(void)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
             " WHERE datname = '%s' AND application_name = 'ddz'",
             pg_db);
    pg_admin_run(sql);
}

static void allow_conns(bool allow)
{
    char sql[128];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s WITH ALLOW_CONNECTIONS %s", pg_db,
             allow ? "true" : "false");
    pg_admin_run(sql);
}

/* The server ends the store's connections: nothing is lost, the store
 * reconnects. While the database refuses connections, writes are counted
 * as failed, reads answer DDZ_EDB (through the reader thread too, without
 * waiting the caller), and everything works again once it is back. */
Test(store, reconnects_when_the_server_drops_it)
{
    ddz_store *s = open_ok();
    ddz_record r;
    gen_record(11, &r);
    int64_t id = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id, NULL, NULL, &r, false), 0);
    char tok[DDZ_TOKEN_HEX + 1], name[DDZ_TOKEN_NAME_MAX], *text;
    cr_assert_eq(ddz_store_token_add(s, "robo", tok), 0);
    cr_assert_eq(ddz_store_flush(s), 0);

    /* Dropped while idle: the next statements run on new connections. */
    kill_store_conns();
    cr_assert_eq(ddz_store_get_game(s, id, NULL, &text), 0);
    free(text);
    int64_t id2 = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, id2, NULL, NULL, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(ddz_store_get_game(s, id2, NULL, &text), 0);
    free(text);

    /* Gone: counted errors, never a wait on the caller's side. */
    allow_conns(false);
    kill_store_conns();
    int64_t id3 = ddz_store_reserve_game_id(s);
    cr_assert_gt(id3, 0, "ids in hand need no database");
    cr_assert_eq(ddz_store_add_game(s, id3, NULL, NULL, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), DDZ_EDB);
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    cr_assert_eq(c.write_errors, 1);
    cr_assert(c.last_error[0], "a message");
    cr_assert_eq(ddz_store_get_game(s, id, NULL, &text), DDZ_EDB);
    cr_assert_null(text);
    cr_assert_eq(ddz_store_token_check(s, tok, name, NULL), DDZ_EDB);
    start_reader(s);
    ddz_store_read g = game_read(id);
    long t0 = now_ms();
    cr_assert_eq(ddz_store_read_submit(s, &g), 0);
    cr_assert_lt(now_ms() - t0, BELOW(100, 5000), "submitting a read waited for the database");
    wait_wakes(1);
    cr_assert_eq(ddz_store_read_done(s), &g);
    cr_assert_eq(g.rc, DDZ_EDB);
    ddz_store_stats(s, &c);
    cr_assert_geq(c.read_errors, 3);
    /* Ids go on without the database: once the blocks run out, from above
     * every block. */
    int64_t prev = id3, past = 0;
    for (int i = 0; i < 250; i++) {
        int64_t x = ddz_store_reserve_game_id(s);
        cr_assert(x > prev || (x >= DDZ_STORE_PAST_IDS && prev < DDZ_STORE_PAST_IDS));
        cr_assert_lt(x, INT64_C(1) << 53);
        past += x >= DDZ_STORE_PAST_IDS;
        prev = x;
    }
    ddz_store_stats(s, &c);
    cr_assert_gt(past, 0);
    cr_assert_eq(c.ids_past, (uint64_t)past);
    cr_assert_eq(c.ids_in_hand, 0);

    /* Back. */
    allow_conns(true);
    g = game_read(id);
    cr_assert_eq(ddz_store_read_submit(s, &g), 0);
    wait_wakes(2);
    cr_assert_eq(ddz_store_read_done(s), &g);
    cr_assert_eq(g.rc, 0);
    free(g.json);
    cr_assert_eq(ddz_store_token_check(s, tok, name, NULL), 0);
    ddz_store_reserve_game_id(s); /* asks for a block again */
    int64_t id4 = reserve_waiting(s);
    cr_assert(id4 > id3 && id4 < DDZ_STORE_PAST_IDS, "a new block: %lld", (long long)id4);
    cr_assert_eq(ddz_store_add_game(s, id4, NULL, NULL, &r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(ddz_store_get_game(s, id4, NULL, &text), 0);
    free(text);
    cr_assert_eq(ddz_store_get_game(s, id3, NULL, &text), DDZ_ENOTFOUND, "that write failed");
    ddz_store_close(s);
}
#endif

#if STORE_PG
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* A TCP relay to the test's PostgreSQL, which the test can turn into a
 * black hole: its connections cut, new ones accepted and never answered
 * (a reconnection then waits its whole connect_timeout, as for a database
 * host that does not answer). */
static struct {
    int listen_fd, pg_port, port;
    atomic_bool down, stop;
    int pair[64][2], npairs;
    int held[64], nheld;
    pthread_t thread;
} relay;

static int relay_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void *relay_main(void *arg)
{
    (void)arg;
    bool was_down = false;
    while (!atomic_load(&relay.stop)) {
        bool down = atomic_load(&relay.down);
        if (down && !was_down) {
            for (int i = 0; i < relay.npairs; i++)
                close(relay.pair[i][0]), close(relay.pair[i][1]);
            relay.npairs = 0;
        }
        was_down = down;
        struct pollfd fds[1 + 128];
        int n = 0;
        fds[n++] = (struct pollfd){.fd = relay.listen_fd, .events = POLLIN};
        for (int i = 0; i < relay.npairs; i++)
            for (int k = 0; k < 2; k++)
                fds[n++] = (struct pollfd){.fd = relay.pair[i][k], .events = POLLIN};
        if (poll(fds, (nfds_t)n, 20) <= 0)
            continue;
        if (fds[0].revents & POLLIN) {
            int c = accept4(relay.listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0 && down && relay.nheld < 64)
                relay.held[relay.nheld++] = c; /* never answered */
            else if (c >= 0 && !down && relay.npairs < 64) {
                int p = relay_connect(relay.pg_port);
                if (p < 0)
                    close(c);
                else
                    relay.pair[relay.npairs][0] = c, relay.pair[relay.npairs++][1] = p;
            } else if (c >= 0)
                close(c);
        }
        for (int i = 0, f = 1; i < relay.npairs; i++)
            for (int k = 0; k < 2; k++, f++) {
                if (!fds[f].revents)
                    continue;
                char buf[16384];
                ssize_t got = read(relay.pair[i][k], buf, sizeof buf);
                if (got > 0) {
                    for (ssize_t at = 0, w; at < got; at += w)
                        if ((w = write(relay.pair[i][1 - k], buf + at, (size_t)(got - at))) <= 0)
                            break;
                }
            }
    }
    return NULL;
}

/* Starts the relay; writes the test database's URL through it to out. */
static void relay_start(char *out, size_t outlen)
{
    const char *colon = strrchr(db_path, ':'), *slash = strrchr(db_path, '/');
    cr_assert(colon && slash && slash > colon, "%s", db_path);
    relay.pg_port = atoi(colon + 1);
    relay.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert_eq(bind(relay.listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(relay.listen_fd, 64), 0);
    cr_assert_eq(getsockname(relay.listen_fd, (struct sockaddr *)&a, &len), 0);
    relay.port = ntohs(a.sin_port);
    snprintf(out, outlen, "%.*s:%d%s", (int)(colon - db_path), db_path, relay.port, slash);
    cr_assert_eq(pthread_create(&relay.thread, NULL, relay_main, NULL), 0);
}

static void relay_stop(void)
{
    atomic_store(&relay.stop, true);
    pthread_join(relay.thread, NULL);
    for (int i = 0; i < relay.npairs; i++)
        close(relay.pair[i][0]), close(relay.pair[i][1]);
    for (int i = 0; i < relay.nheld; i++)
        close(relay.held[i]);
    close(relay.listen_fd);
}

/* Closing with the database gone and writes queued: each batch used to
 * wait for a reconnection of its own (connect_timeout, 5 s: four batches
 * here, some 20 s); now the first that fails to reconnect fails the rest
 * at once. */
Test(store, closing_without_the_database_waits_for_one_reconnection_at_most, .timeout = HANG(120))
{
    char url[300];
    relay_start(url, sizeof url);
    char err[256] = "";
    ddz_store *s = ddz_store_open(url, NULL, err, sizeof err);
    cr_assert_not_null(s, "open: %s", err);
    ddz_record r;
    gen_record(11, &r);
    atomic_store(&relay.down, true);
    for (int i = 0; i < 3 * 512 + 1; i++)
        cr_assert_eq(ddz_store_add_game(s, ddz_store_reserve_game_id(s), NULL, NULL, &r, false), 0);
    long t0 = now_ms();
    ddz_store_close(s);
    long took = now_ms() - t0;
    long bound = BELOW(12000, 20000);
    fprintf(stderr, "closed in %ld ms without the database\n", took);
    cr_assert_lt(took, bound, "close waited %ld ms: a reconnection per batch?", took);
    relay_stop();
}
#endif

/* How messages name a database: a URL without its password. */
Test(store, shown_names)
{
    static const char *const cases[][2] = {
        {"ddz.db", "ddz.db"},
        {"/var/lib/ddz/ddz.db", "/var/lib/ddz/ddz.db"},
        {"postgres:x", "postgres:x"}, /* a file */
        {"postgres://db/ddz", "postgres://db/ddz"},
        {"postgres://ddz@db:5432/ddz", "postgres://ddz@db:5432/ddz"},
        {"postgres://ddz:secret@db:5432/ddz", "postgres://ddz@db:5432/ddz"},
        {"postgresql://ddz:secret@db/ddz?sslmode=require&password=secret",
         "postgresql://ddz@db/ddz"},
        {"postgres://ddz:se/cr@et@db/ddz", "postgres://ddz@db/ddz"},
        {"postgres://ddz:secret@h1:1,h2:2/ddz", "postgres://ddz@h1:1,h2:2/ddz"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[128];
        ddz_store_shown(cases[i][0], out, sizeof out);
        cr_assert_str_eq(out, cases[i][1]);
        cr_assert_eq(ddz_store_is_url(cases[i][0]), strncmp(cases[i][0], "postgres", 8) == 0 &&
                                                        strstr(cases[i][0], "://") != NULL);
    }
    char tiny[8];
    ddz_store_shown("postgres://ddz:secret@db/ddz", tiny, sizeof tiny);
    cr_assert_str_eq(tiny, "postgre");
}

#if STORE_PG
/* Sets every "finished_at" of a "my games" list to 0 (the one field that
 * says when each store queued the write) and prints it again. */
static char *without_times(const char *text)
{
    json_t *list = json_loads(text, 0, NULL);
    cr_assert(json_is_array(list), "%s", text);
    for (size_t i = 0; i < json_array_size(list); i++)
        json_object_set_new(json_array_get(list, i), "finished_at", json_integer(0));
    char *out = json_dumps(list, DDZ_RECORD_JSON_FLAGS);
    json_decref(list);
    return out;
}

/* The same writes to a SQLite file and to PostgreSQL read back as the same
 * bytes: records, exports, "my games"; the ladder's doubles exactly. */
Test(store, both_backends_answer_the_same_bytes)
{
    char sq_path[160];
    snprintf(sq_path, sizeof sq_path, "%s/same.db", dir);
    char err[256];
    ddz_store *st[2] = {open_ok(), ddz_store_open(sq_path, NULL, err, sizeof err)};
    cr_assert_not_null(st[1], "%s", err);
    uint8_t me[DDZ_STORE_ME_BYTES];
    randombytes_buf(me, sizeof me);
    enum { N = 30 };
    char keys[N][DDZ_STORE_KEY_HEX + 1];
    int64_t ids[N];
    for (int i = 0; i < N; i++) {
        ddz_store_new_game_key(keys[i]);
        ddz_record r;
        gen_record((uint32_t)(100 + i), &r);
        for (int b = 0; b < 2; b++) {
            int64_t id = ddz_store_reserve_game_id(st[b]);
            if (b == 0)
                ids[i] = id;
            cr_assert_eq(id, ids[i], "both count from 1");
            cr_assert_eq(ddz_store_add_game(st[b], id, i % 4 ? "room" : NULL,
                                            i % 3 ? NULL : keys[i], &r, i % 7 == 6),
                         0);
            cr_assert_eq(ddz_store_add_mine(st[b], id, i % 3, me), 0);
        }
    }
    static ddz_store_ladder_deal d;
    two_table_deal(&d, 1, 1);
    d.p[0].mu = 25.123456789012345;
    d.p[1].sigma = 1.0 / 3;
    d.p[2].score = -0.1;
    d.rows[1].cmp[0].score = 0.1 + 0.2;
    static ladder_seen seen[2]; /* zeroed, and large */
    for (int b = 0; b < 2; b++) {
        cr_assert_eq(ddz_store_ladder_add_deal(st[b], "caai", &d), 0);
        cr_assert_eq(ddz_store_flush(st[b]), 0);
        cr_assert_eq(ddz_store_ladder_players(st[b], "caai", seen_player, &seen[b]), 5);
        cr_assert_eq(ddz_store_ladder_history(st[b], "caai", "ai:greedy", 10, seen_hist, &seen[b]),
                     2);
    }
    for (int k = 0; k < 5; k++) {
        ddz_store_ladder_player *a = &seen[0].p[k], *b = &seen[1].p[k];
        cr_assert_str_eq(a->name, b->name);
        cr_assert(a->mu == b->mu && a->sigma == b->sigma && a->score == b->score, "%s: %.17g %.17g",
                  a->name, a->mu, b->mu);
        cr_assert(a->games == b->games && a->deals == b->deals && a->faults == b->faults);
    }
    cr_assert_eq(seen[0].p[0].mu, 25.123456789012345);
    for (int k = 0; k < 2; k++) {
        ddz_store_ladder_hist *a = &seen[0].h[k], *b = &seen[1].h[k];
        cr_assert(a->mu == b->mu && a->score == b->score && a->sigma == b->sigma);
        cr_assert(a->deal == b->deal && a->hand == b->hand && a->games[0] == b->games[0]);
        cr_assert_str_eq(a->opp[0], b->opp[0]);
        cr_assert_str_eq(a->opp[1], b->opp[1]);
        cr_assert_eq(a->ncmp, 1);
        cr_assert_eq(b->ncmp, 1);
        cr_assert_str_eq(a->cmp[0].name, b->cmp[0].name);
        cr_assert(a->cmp[0].score == b->cmp[0].score && a->cmp[0].game == b->cmp[0].game);
    }
    cr_assert_eq(seen[0].h[1].score, 1.0 / 3);
    cr_assert_eq(seen[0].h[1].cmp[0].score, 0.1 + 0.2, "%.17g", seen[0].h[1].cmp[0].score);

    for (int i = 0; i < N; i++) {
        char *text[2];
        for (int b = 0; b < 2; b++)
            cr_assert_eq(ddz_store_get_game(st[b], ids[i], i % 3 ? NULL : keys[i], &text[b]), 0);
        cr_assert_str_eq(text[0], text[1], "game %lld", (long long)ids[i]);
        free(text[0]);
        free(text[1]);
    }
    char *mine[2], *bare[2], *exported[2];
    for (int b = 0; b < 2; b++) {
        cr_assert_eq(ddz_store_my_games(st[b], me, DDZ_STORE_MINE_MAX, &mine[b]),
                     DDZ_STORE_MINE_MAX);
        bare[b] = without_times(mine[b]);
        size_t len;
        FILE *f = open_memstream(&exported[b], &len);
        cr_assert_eq(ddz_store_export(st[b], f, true), N);
        fclose(f);
    }
    cr_assert_str_eq(bare[0], bare[1]);
    cr_assert_str_eq(exported[0], exported[1]);
    for (int b = 0; b < 2; b++) {
        free(mine[b]);
        free(bare[b]);
        free(exported[b]);
        ddz_store_close(st[b]);
    }
}
#endif
