/* store.c - SQLite storage with one background writer thread. */
#include "service/store/store.h"

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/record_json.h"
#include "rules/error.h"

#define BATCH_MAX 512 /* queued writes committed in one transaction, at most */
#define TOKEN_BYTES 32
#define HASH_BYTES 32

/* Schema migrations: migrations[v] takes user_version v to v + 1. A later
 * version appends an entry and bumps DDZ_STORE_SCHEMA_VERSION. */
static const char *const migrations[DDZ_STORE_SCHEMA_VERSION] = {
    "CREATE TABLE games("
    " id INTEGER PRIMARY KEY,"
    " room TEXT,"
    " game INTEGER NOT NULL,"
    " started_at INTEGER,"
    " finished_at INTEGER NOT NULL,"
    " aborted INTEGER NOT NULL DEFAULT 0,"
    " name_west TEXT, name_south TEXT, name_east TEXT,"
    " record TEXT NOT NULL);"
    "CREATE TABLE turns("
    " id INTEGER PRIMARY KEY,"
    " room TEXT,"
    " turn INTEGER NOT NULL,"
    " games INTEGER NOT NULL,"
    " names TEXT NOT NULL,"
    " totals TEXT NOT NULL,"
    " finished_at INTEGER NOT NULL);"
    "CREATE TABLE tokens("
    " name TEXT PRIMARY KEY,"
    " hash BLOB NOT NULL,"
    " created_at INTEGER NOT NULL,"
    " revoked_at INTEGER);",
    /* 1 -> 2: the link key of a game of a private or password room */
    "ALTER TABLE games ADD COLUMN key TEXT;",
    /* 2 -> 3: the ladder */
    "CREATE TABLE ladder_players("
    " rules TEXT NOT NULL, name TEXT NOT NULL,"
    " mu REAL NOT NULL, sigma REAL NOT NULL,"
    " games INTEGER NOT NULL, deals INTEGER NOT NULL,"
    " score REAL NOT NULL, faults INTEGER NOT NULL,"
    " suspended TEXT, updated_at INTEGER NOT NULL,"
    " PRIMARY KEY(rules, name));"
    "CREATE TABLE ladder_history("
    " id INTEGER PRIMARY KEY,"
    " rules TEXT NOT NULL, name TEXT NOT NULL, finished_at INTEGER NOT NULL,"
    " mu REAL NOT NULL, sigma REAL NOT NULL, score REAL NOT NULL, faults INTEGER NOT NULL,"
    " game1 INTEGER, game2 INTEGER, game3 INTEGER, opp1 TEXT, opp2 TEXT);"
    "CREATE INDEX ladder_history_player ON ladder_history(rules, name, id);"
    "CREATE TABLE ladder_pairs("
    " rules TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, deals INTEGER NOT NULL,"
    " PRIMARY KEY(rules, a, b));",
    /* 3 -> 4: who played a game, by the hash of a browser's own key */
    "CREATE TABLE mine("
    " owner BLOB NOT NULL,"
    " game INTEGER NOT NULL,"
    " seat INTEGER NOT NULL,"
    " PRIMARY KEY(owner, game)) WITHOUT ROWID;",
};

enum item_kind { ITEM_GAME, ITEM_TURN, ITEM_LADDER_DEAL, ITEM_LADDER_PUT, ITEM_MINE };

/* One queued write; the strings are owned by the item. */
typedef struct item {
    struct item *next;
    enum item_kind kind;
    int64_t id;                     /* games: the game id */
    int64_t finished_ms;            /* unix ms when queued */
    int number;                     /* games: game index; turns: turn number */
    int games;                      /* turns: deals played */
    bool aborted;                   /* games: cut short */
    char *room;                     /* NULL allowed */
    char *text;                     /* games: the record line; turns: names as JSON */
    char *totals;                   /* turns: totals as JSON */
    char *names[3];                 /* games: players by seat, from the record */
    char *key;                      /* games: the link key, NULL for a listed room's game */
    ddz_store_ladder_deal *deal;    /* ladder: the deal (ITEM_LADDER_PUT: p[0] only) */
    uint8_t me[DDZ_STORE_ME_BYTES]; /* mine: the player's hash (number: its seat) */
} item;

struct ddz_store {
    sqlite3 *wdb;           /* the writer thread's connection */
    sqlite3_stmt *ins_game; /* prepared on wdb */
    sqlite3_stmt *ins_turn; /* prepared on wdb */
    sqlite3_stmt *ins_mine; /* prepared on wdb */
    sqlite3_stmt *lad_put;  /* ladder statements, prepared on wdb */
    sqlite3_stmt *lad_hist;
    sqlite3_stmt *lad_pair;
    sqlite3 *rdb;          /* the readers' connection, under rlock */
    pthread_mutex_t rlock; /* serialises use of rdb */
    pthread_t thread;      /* the writer */
    bool started;          /* the writer thread is running */
    pthread_mutex_t lock;  /* everything below */
    pthread_cond_t more;   /* items queued or stopping */
    pthread_cond_t done;   /* the writer finished a batch */
    item *head, *tail;     /* the queue, oldest first */
    size_t len;            /* items queued */
    size_t inflight;       /* items taken by the writer, not yet done */
    size_t max;            /* bound on len + inflight */
    uint64_t enqueued;     /* items ever queued */
    uint64_t finished;     /* items ever written or failed */
    bool stopping;         /* close requested */
    uint64_t writes, write_errors, drops, read_errors;
    uint64_t errors_at_flush; /* write_errors at the last flush */
    char last_error[160];     /* last SQLite message */
    _Atomic int64_t last_id;  /* highest game id reserved, added or stored */
    /* the reader thread, under `lock` too */
    pthread_t rthread;                 /* runs reads on rdb for an event loop */
    bool rstarted, rstop;              /* running; asked to stop */
    pthread_cond_t rmore;              /* reads queued or stopping */
    ddz_store_read *rq_head, *rq_tail; /* reads queued, oldest first */
    ddz_store_read *rd_head, *rd_tail; /* reads answered, oldest first */
    void (*wake)(void *ctx);           /* tells the reads' owner of an answer */
    void *wake_ctx;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++) /* keep it one line */
        if ((unsigned char)*p < 0x20)
            *p = ' ';
}

static void item_free(item *it)
{
    if (!it)
        return;
    free(it->room);
    free(it->text);
    free(it->totals);
    for (int i = 0; i < 3; i++)
        free(it->names[i]);
    free(it->key);
    free(it->deal);
    free(it);
}

/* Records a failed read: counts it and keeps the message. Caller holds rlock. */
static int read_failed(ddz_store *s)
{
    pthread_mutex_lock(&s->lock);
    s->read_errors++;
    snprintf(s->last_error, sizeof s->last_error, "%s", sqlite3_errmsg(s->rdb));
    pthread_mutex_unlock(&s->lock);
    return DDZ_EDB;
}

/* ---- opening -------------------------------------------------------------- */

/* Runs a statement that returns at most one row; sets *out to its first
 * column as an integer (if `out`) or copies it as text (if `text`). */
static int query1(sqlite3 *db, const char *sql, int64_t *out, char *text, size_t textlen)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (out)
            *out = sqlite3_column_int64(st, 0);
        if (text) {
            const unsigned char *t = sqlite3_column_text(st, 0);
            snprintf(text, textlen, "%s", t ? (const char *)t : "");
        }
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static sqlite3 *connect(const char *path, int busy_ms, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                                 SQLITE_OPEN_EXRESCODE,
                             NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, busy_ms);
        rc =
            sqlite3_exec(db, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        set_err(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close_v2(db);
        return NULL;
    }
    return db;
}

/* Brings the schema of `db` to DDZ_STORE_SCHEMA_VERSION. */
static int migrate(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    int64_t v = 0;
    int rc = query1(db, "PRAGMA user_version", &v, NULL, 0);
    if (rc == SQLITE_OK && v == DDZ_STORE_SCHEMA_VERSION)
        return 0;
    /* Re-read under the write lock: another process may be migrating too. */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = query1(db, "PRAGMA user_version", &v, NULL, 0);
    if (rc == SQLITE_OK && (v < 0 || v > DDZ_STORE_SCHEMA_VERSION)) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        set_err(err, errlen, "%s: schema version %lld is newer than this ddz understands (%d)",
                path, (long long)v, DDZ_STORE_SCHEMA_VERSION);
        return DDZ_EDB;
    }
    for (; rc == SQLITE_OK && v < DDZ_STORE_SCHEMA_VERSION; v++) {
        rc = sqlite3_exec(db, migrations[v], NULL, NULL, NULL);
        if (rc == SQLITE_OK) {
            char sql[48];
            snprintf(sql, sizeof sql, "PRAGMA user_version=%lld", (long long)v + 1);
            rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        }
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        set_err(err, errlen, "%s: creating the schema: %s", path, sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return DDZ_EDB;
    }
    return 0;
}

static void *writer_main(void *arg);

ddz_store *ddz_store_open(const char *path, const ddz_store_options *opt, char *err, size_t errlen)
{
    if (!path || !*path) {
        set_err(err, errlen, "no database path");
        return NULL;
    }
    ddz_store_options o = opt ? *opt : (ddz_store_options){0};
    if (o.busy_ms < 0) {
        set_err(err, errlen, "%s: busy_ms must not be negative", path);
        return NULL;
    }
    if (!sqlite3_threadsafe()) {
        set_err(err, errlen, "SQLite was built without thread support");
        return NULL;
    }
    ddz_store *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    pthread_mutex_init(&s->rlock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->more, NULL);
    pthread_cond_init(&s->done, NULL);
    pthread_cond_init(&s->rmore, NULL);
    s->max = o.max_queue ? o.max_queue : DDZ_STORE_QUEUE_MAX;
    int busy_ms = o.busy_ms ? o.busy_ms : DDZ_STORE_BUSY_MS;

    char mode[16] = "";
    int64_t last = 0;
    s->wdb = connect(path, busy_ms, err, errlen);
    if (!s->wdb)
        goto fail;
    /* The first statement to read the file: "file is not a database" here. */
    if (query1(s->wdb, "PRAGMA journal_mode=WAL", NULL, mode, sizeof mode) != SQLITE_OK) {
        set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->wdb));
        goto fail;
    }
    if (strcmp(mode, "wal") != 0) {
        set_err(err, errlen, "%s: cannot use WAL mode (journal mode is '%s')", path, mode);
        goto fail;
    }
    if (migrate(s->wdb, path, err, errlen) < 0)
        goto fail;
    s->rdb = connect(path, busy_ms, err, errlen);
    if (!s->rdb)
        goto fail;
    if (query1(s->rdb, "SELECT COALESCE(MAX(id), 0) FROM games", &last, NULL, 0) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb,
                           "INSERT INTO games(id, room, game, started_at, finished_at, aborted,"
                           " name_west, name_south, name_east, record, key)"
                           " VALUES(?1, ?2, ?3, NULL, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->ins_game, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb,
                           "INSERT INTO turns(room, turn, games, names, totals, finished_at)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->ins_turn, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb, "INSERT INTO mine(owner, game, seat) VALUES(?1, ?2, ?3)", -1,
                           SQLITE_PREPARE_PERSISTENT, &s->ins_mine, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb,
                           "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score,"
                           " faults, suspended, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                           " ?9, ?10) ON CONFLICT(rules, name) DO UPDATE SET mu = ?3, sigma = ?4,"
                           " games = ?5, deals = ?6, score = ?7, faults = ?8, suspended = ?9,"
                           " updated_at = ?10",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->lad_put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb,
                           "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score,"
                           " faults, game1, game2, game3, opp1, opp2)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->lad_hist, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->wdb,
                           "INSERT INTO ladder_pairs(rules, a, b, deals) VALUES(?1, ?2, ?3, 1)"
                           " ON CONFLICT(rules, a, b) DO UPDATE SET deals = deals + 1",
                           -1, SQLITE_PREPARE_PERSISTENT, &s->lad_pair, NULL) != SQLITE_OK) {
        set_err(err, errlen, "%s: %s", path,
                sqlite3_errcode(s->rdb) != SQLITE_OK ? sqlite3_errmsg(s->rdb)
                                                     : sqlite3_errmsg(s->wdb));
        goto fail;
    }
    atomic_store(&s->last_id, last);

    /* Signals go to the threads that handle them, never to the writer. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, writer_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        set_err(err, errlen, "%s: cannot start the writer thread: %s", path, strerror(rc));
        goto fail;
    }
    s->started = true;
    return s;
fail:
    ddz_store_close(s);
    return NULL;
}

void ddz_store_close(ddz_store *s)
{
    if (!s)
        return;
    ddz_store_reader_stop(s);
    if (s->started) {
        pthread_mutex_lock(&s->lock);
        s->stopping = true; /* the writer drains the queue first */
        pthread_cond_signal(&s->more);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
    for (item *it = s->head, *next; it; it = next) {
        next = it->next;
        item_free(it);
    }
    sqlite3_finalize(s->ins_game);
    sqlite3_finalize(s->ins_turn);
    sqlite3_finalize(s->ins_mine);
    sqlite3_finalize(s->lad_put);
    sqlite3_finalize(s->lad_hist);
    sqlite3_finalize(s->lad_pair);
    sqlite3_close_v2(s->rdb);
    sqlite3_close_v2(s->wdb); /* the last close checkpoints the WAL */
    pthread_cond_destroy(&s->rmore);
    pthread_cond_destroy(&s->done);
    pthread_cond_destroy(&s->more);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->rlock);
    free(s);
}

/* ---- the writer ------------------------------------------------------------ */

static int bind_text(sqlite3_stmt *st, int i, const char *t)
{
    return t ? sqlite3_bind_text(st, i, t, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

/* Runs `st` once (bound by the caller) and resets it. */
static int step_reset(sqlite3_stmt *st, int rc)
{
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

static int ladder_put(ddz_store *s, const char *rules, const ddz_store_ladder_player *p,
                      int64_t when)
{
    sqlite3_stmt *st = s->lad_put;
    int rc = bind_text(st, 1, rules);
    rc = rc ? rc : bind_text(st, 2, p->name);
    rc = rc ? rc : sqlite3_bind_double(st, 3, p->mu);
    rc = rc ? rc : sqlite3_bind_double(st, 4, p->sigma);
    rc = rc ? rc : sqlite3_bind_int64(st, 5, p->games);
    rc = rc ? rc : sqlite3_bind_int64(st, 6, p->deals);
    rc = rc ? rc : sqlite3_bind_double(st, 7, p->score);
    rc = rc ? rc : sqlite3_bind_int64(st, 8, p->faults);
    rc = rc ? rc : bind_text(st, 9, p->suspended[0] ? p->suspended : NULL);
    rc = rc ? rc : sqlite3_bind_int64(st, 10, when);
    return step_reset(st, rc);
}

/* A deal's rows: a failure part-way leaves the rest undone, and the batch
 * rolls back what this item wrote (write_batch). */
static int ladder_deal(ddz_store *s, const item *it)
{
    const ddz_store_ladder_deal *d = it->deal;
    const char *rules = it->room;
    int rc = SQLITE_OK;
    for (int i = 0; i < 3 && rc == SQLITE_OK; i++) {
        rc = ladder_put(s, rules, &d->p[i], it->finished_ms);
        if (rc != SQLITE_OK)
            break;
        sqlite3_stmt *st = s->lad_hist;
        rc = bind_text(st, 1, rules);
        rc = rc ? rc : bind_text(st, 2, d->p[i].name);
        rc = rc ? rc : sqlite3_bind_int64(st, 3, it->finished_ms);
        rc = rc ? rc : sqlite3_bind_double(st, 4, d->p[i].mu);
        rc = rc ? rc : sqlite3_bind_double(st, 5, d->p[i].sigma);
        rc = rc ? rc : sqlite3_bind_double(st, 6, d->score[i]);
        rc = rc ? rc : sqlite3_bind_int(st, 7, d->faults[i]);
        for (int g = 0; g < 3; g++)
            rc = rc ? rc : sqlite3_bind_int64(st, 8 + g, d->games[g]);
        rc = rc ? rc : bind_text(st, 11, d->p[(i + 1) % 3].name);
        rc = rc ? rc : bind_text(st, 12, d->p[(i + 2) % 3].name);
        rc = step_reset(st, rc);
        if (rc != SQLITE_OK)
            break;
        const char *a = d->p[i].name, *b = d->p[(i + 1) % 3].name;
        if (strcmp(a, b) > 0) {
            const char *t = a;
            a = b, b = t;
        }
        st = s->lad_pair;
        rc = bind_text(st, 1, rules);
        rc = rc ? rc : bind_text(st, 2, a);
        rc = rc ? rc : bind_text(st, 3, b);
        rc = step_reset(st, rc);
    }
    return rc;
}

/* Executes one queued write; returns an SQLite result code. */
static int write_item(ddz_store *s, const item *it)
{
    sqlite3_stmt *st;
    int rc;
    if (it->kind == ITEM_LADDER_DEAL)
        return ladder_deal(s, it);
    if (it->kind == ITEM_LADDER_PUT)
        return ladder_put(s, it->room, &it->deal->p[0], it->finished_ms);
    if (it->kind == ITEM_GAME) {
        st = s->ins_game;
        rc = sqlite3_bind_int64(st, 1, it->id);
        rc = rc ? rc : bind_text(st, 2, it->room);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->number);
        rc = rc ? rc : sqlite3_bind_int64(st, 4, it->finished_ms);
        rc = rc ? rc : sqlite3_bind_int(st, 5, it->aborted);
        for (int i = 0; i < 3; i++)
            rc = rc ? rc : bind_text(st, 6 + i, it->names[i]);
        rc = rc ? rc : bind_text(st, 9, it->text);
        rc = rc ? rc : bind_text(st, 10, it->key);
    } else if (it->kind == ITEM_MINE) {
        st = s->ins_mine;
        rc = sqlite3_bind_blob(st, 1, it->me, sizeof it->me, SQLITE_STATIC);
        rc = rc ? rc : sqlite3_bind_int64(st, 2, it->id);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->number);
    } else {
        st = s->ins_turn;
        rc = bind_text(st, 1, it->room);
        rc = rc ? rc : sqlite3_bind_int(st, 2, it->number);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->games);
        rc = rc ? rc : bind_text(st, 4, it->text);
        rc = rc ? rc : bind_text(st, 5, it->totals);
        rc = rc ? rc : sqlite3_bind_int64(st, 6, it->finished_ms);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

typedef struct batch_result {
    uint64_t ok, bad; /* items committed, items failed */
    char msg[160];    /* the last error, "" if none */
} batch_result;

static void batch_error(ddz_store *s, batch_result *res)
{
    snprintf(res->msg, sizeof res->msg, "%s", sqlite3_errmsg(s->wdb));
}

/* Writes the items of `batch` in one transaction, as far as it goes: an item
 * that fails is counted and skipped; if its failure rolled the transaction
 * back, the items before it are counted as failed too and a new transaction
 * starts. If no transaction can start (the database stays locked, say), the
 * rest of the batch fails at once rather than waiting for a lock per item. */
static void write_batch(ddz_store *s, item *batch, batch_result *res)
{
    uint64_t pending = 0; /* written in the open transaction */
    bool txn = false;
    for (item *it = batch; it; it = it->next) {
        if (!txn) {
            if (sqlite3_exec(s->wdb, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
                batch_error(s, res);
                for (; it; it = it->next)
                    res->bad++;
                return;
            }
            txn = true;
        }
        if (write_item(s, it) == SQLITE_OK) {
            pending++;
            continue;
        }
        res->bad++;
        batch_error(s, res);
        if (sqlite3_get_autocommit(s->wdb)) { /* the transaction was rolled back */
            res->bad += pending;
            pending = 0;
            txn = false;
        }
    }
    if (!txn)
        return;
    if (sqlite3_exec(s->wdb, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
        res->ok += pending;
    } else {
        batch_error(s, res);
        sqlite3_exec(s->wdb, "ROLLBACK", NULL, NULL, NULL);
        res->bad += pending;
    }
}

static void *writer_main(void *arg)
{
    ddz_store *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stopping && !s->head)
            pthread_cond_wait(&s->more, &s->lock);
        if (!s->head)
            break; /* stopping, and nothing left */
        item *batch = s->head, *last = batch;
        size_t n = 1;
        while (last->next && n < BATCH_MAX) {
            last = last->next;
            n++;
        }
        s->head = last->next;
        if (!s->head)
            s->tail = NULL;
        last->next = NULL;
        s->len -= n;
        s->inflight = n;
        pthread_mutex_unlock(&s->lock);

        batch_result res = {0};
        write_batch(s, batch, &res);
        for (item *it = batch, *next; it; it = next) {
            next = it->next;
            item_free(it);
        }

        pthread_mutex_lock(&s->lock);
        s->writes += res.ok;
        s->write_errors += res.bad;
        if (res.msg[0])
            memcpy(s->last_error, res.msg, sizeof s->last_error);
        s->finished += n;
        s->inflight = 0;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Queues `it` (taking it) or drops it. The items the writer holds count
 * against the bound too: they are as much in memory as the queued ones. */
static int enqueue(ddz_store *s, item *it)
{
    pthread_mutex_lock(&s->lock);
    if (s->len + s->inflight >= s->max) {
        s->drops++;
        pthread_mutex_unlock(&s->lock);
        item_free(it);
        return DDZ_EDB;
    }
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
    s->len++;
    s->enqueued++;
    pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

static int dropped(ddz_store *s, item *it, int code)
{
    pthread_mutex_lock(&s->lock);
    s->drops++;
    pthread_mutex_unlock(&s->lock);
    item_free(it);
    return code;
}

int ddz_store_flush(ddz_store *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enqueued;
    while (s->finished < target)
        pthread_cond_wait(&s->done, &s->lock);
    int rc = s->write_errors > s->errors_at_flush ? DDZ_EDB : 0;
    s->errors_at_flush = s->write_errors;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void ddz_store_stats(ddz_store *s, ddz_store_counters *out)
{
    pthread_mutex_lock(&s->lock);
    out->writes = s->writes;
    out->write_errors = s->write_errors;
    out->drops = s->drops;
    out->read_errors = s->read_errors;
    out->queued = s->len + s->inflight;
    memcpy(out->last_error, s->last_error, sizeof out->last_error);
    pthread_mutex_unlock(&s->lock);
}

/* ---- games and turns ------------------------------------------------------ */

/* Raises last_id to at least `id`. */
static void saw_id(ddz_store *s, int64_t id)
{
    int64_t cur = atomic_load(&s->last_id);
    while (cur < id && !atomic_compare_exchange_weak(&s->last_id, &cur, id))
        ;
}

int64_t ddz_store_reserve_game_id(ddz_store *s)
{
    return atomic_fetch_add(&s->last_id, 1) + 1;
}

void ddz_store_new_game_key(char key[DDZ_STORE_KEY_HEX + 1])
{
    uint8_t raw[DDZ_STORE_KEY_HEX / 2];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(key, DDZ_STORE_KEY_HEX + 1, raw, sizeof raw);
}

/* Whether `key` is DDZ_STORE_KEY_HEX lower-case hex digits. */
static bool key_valid(const char *key)
{
    size_t n = 0;
    for (; key[n] && n <= DDZ_STORE_KEY_HEX; n++)
        if (!((key[n] >= '0' && key[n] <= '9') || (key[n] >= 'a' && key[n] <= 'f')))
            return false;
    return n == DDZ_STORE_KEY_HEX;
}

static char *dup_or_null(const char *t, bool *oom)
{
    if (!t)
        return NULL;
    char *d = strdup(t);
    if (!d)
        *oom = true;
    return d;
}

int ddz_store_add_game(ddz_store *s, int64_t id, const char *room, const char *key,
                       const ddz_record *r, bool aborted)
{
    if (id < 1 || !r || r->nbids < 0 || r->nbids > 3 || r->nplays < 0 ||
        r->nplays > DDZ_RECORD_MAX_PLAYS || (key && !key_valid(key)))
        return DDZ_EINVAL;
    item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = ITEM_GAME;
    it->id = id;
    it->number = r->game;
    it->aborted = aborted;
    it->finished_ms = now_ms();
    bool oom = false;
    it->room = dup_or_null(room, &oom);
    it->key = dup_or_null(key, &oom);
    json_t *j = ddz_record_to_json(r);
    if (!j || (aborted && json_object_set_new(j, "aborted", json_true()) < 0))
        oom = true;
    /* The names as the record holds them: valid UTF-8, unlike r->names. */
    json_t *names = j ? json_object_get(j, "names") : NULL;
    for (int i = 0; i < 3 && !oom; i++)
        it->names[i] = dup_or_null(json_string_value(json_array_get(names, (size_t)i)), &oom);
    if (!oom && !(it->text = json_dumps(j, DDZ_RECORD_JSON_FLAGS)))
        oom = true;
    json_decref(j);
    if (oom)
        return dropped(s, it, DDZ_ENOMEM);
    saw_id(s, id);
    return enqueue(s, it);
}

int ddz_store_add_turn(ddz_store *s, const char *room, int turn, int games,
                       const char *const names[3], const double totals[3])
{
    for (int i = 0; i < 3; i++)
        if (!names[i])
            return DDZ_EINVAL;
    json_t *n = json_array(), *t = json_array();
    int rc = n && t ? 0 : DDZ_ENOMEM;
    for (int i = 0; i < 3 && rc == 0; i++) {
        json_t *v = json_string(names[i]);
        if (!v)
            rc = DDZ_EINVAL; /* not UTF-8 */
        else if (json_array_append_new(n, v) < 0 ||
                 json_array_append_new(t, ddz_score_json(totals[i])) < 0)
            rc = DDZ_ENOMEM;
    }
    item *it = NULL;
    if (rc == 0 && !(it = calloc(1, sizeof *it)))
        rc = DDZ_ENOMEM;
    if (it) {
        bool oom = false;
        it->kind = ITEM_TURN;
        it->number = turn;
        it->games = games;
        it->finished_ms = now_ms();
        it->room = dup_or_null(room, &oom);
        if (oom || !(it->text = json_dumps(n, JSON_COMPACT)) ||
            !(it->totals = json_dumps(t, DDZ_RECORD_JSON_FLAGS)))
            rc = DDZ_ENOMEM;
    }
    json_decref(n);
    json_decref(t);
    if (rc == DDZ_ENOMEM)
        return dropped(s, it, rc);
    if (rc < 0)
        return rc;
    return enqueue(s, it);
}

int ddz_store_add_mine(ddz_store *s, int64_t game, int seat, const uint8_t me[DDZ_STORE_ME_BYTES])
{
    if (game < 1 || seat < 0 || seat > 2)
        return DDZ_EINVAL;
    item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = ITEM_MINE;
    it->id = game;
    it->number = seat;
    memcpy(it->me, me, sizeof it->me);
    return enqueue(s, it);
}

/* ---- the ladder ---------------------------------------------------------------- */

static int ladder_item(ddz_store *s, enum item_kind kind, const char *rules,
                       const ddz_store_ladder_deal *d)
{
    if (!rules || !*rules)
        return DDZ_EINVAL;
    for (int i = 0; i < (kind == ITEM_LADDER_DEAL ? 3 : 1); i++)
        if (!d->p[i].name[0])
            return DDZ_EINVAL;
    item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = kind;
    it->finished_ms = now_ms();
    if (!(it->room = strdup(rules)) || !(it->deal = malloc(sizeof *it->deal)))
        return dropped(s, it, DDZ_ENOMEM);
    *it->deal = *d;
    return enqueue(s, it);
}

int ddz_store_ladder_add_deal(ddz_store *s, const char *rules, const ddz_store_ladder_deal *d)
{
    return ladder_item(s, ITEM_LADDER_DEAL, rules, d);
}

int ddz_store_ladder_put(ddz_store *s, const char *rules, const ddz_store_ladder_player *p)
{
    ddz_store_ladder_deal d = {.p = {*p}};
    return ladder_item(s, ITEM_LADDER_PUT, rules, &d);
}

static void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/* Runs `sql` bound with `rules` (and `name`, `limit` if given) on the
 * reading connection, calling row(ctx, st) for each row. */
static int ladder_read(ddz_store *s, const char *sql, const char *rules, const char *name,
                       int limit, void (*row)(void *ctx, sqlite3_stmt *st), void *ctx)
{
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int n = 0;
    if (sqlite3_prepare_v2(s->rdb, sql, -1, &st, NULL) != SQLITE_OK) {
        n = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        return n;
    }
    sqlite3_bind_text(st, 1, rules, -1, SQLITE_STATIC);
    if (name) {
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, limit);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row(ctx, st);
        n++;
    }
    if (rc != SQLITE_DONE)
        n = read_failed(s);
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    return n;
}

typedef struct ladder_cb {
    void (*player)(void *ctx, const ddz_store_ladder_player *p);
    void (*pair)(void *ctx, const char *a, const char *b, long deals);
    void (*hist)(void *ctx, const ddz_store_ladder_hist *h);
    void *ctx;
} ladder_cb;

static void player_row(void *ctx, sqlite3_stmt *st)
{
    ladder_cb *c = ctx;
    ddz_store_ladder_player p = {0};
    copy_text(p.name, sizeof p.name, st, 0);
    p.mu = sqlite3_column_double(st, 1);
    p.sigma = sqlite3_column_double(st, 2);
    p.games = (long)sqlite3_column_int64(st, 3);
    p.deals = (long)sqlite3_column_int64(st, 4);
    p.score = sqlite3_column_double(st, 5);
    p.faults = (long)sqlite3_column_int64(st, 6);
    copy_text(p.suspended, sizeof p.suspended, st, 7);
    c->player(c->ctx, &p);
}

int ddz_store_ladder_players(ddz_store *s, const char *rules,
                             void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx)
{
    ladder_cb c = {.player = cb, .ctx = ctx};
    return ladder_read(s,
                       "SELECT name, mu, sigma, games, deals, score, faults, suspended"
                       " FROM ladder_players WHERE rules = ?1 ORDER BY name",
                       rules, NULL, 0, player_row, &c);
}

static void pair_row(void *ctx, sqlite3_stmt *st)
{
    ladder_cb *c = ctx;
    char a[DDZ_LADDER_NAME_MAX], b[DDZ_LADDER_NAME_MAX];
    copy_text(a, sizeof a, st, 0);
    copy_text(b, sizeof b, st, 1);
    c->pair(c->ctx, a, b, (long)sqlite3_column_int64(st, 2));
}

int ddz_store_ladder_pairs(ddz_store *s, const char *rules,
                           void (*cb)(void *ctx, const char *a, const char *b, long deals),
                           void *ctx)
{
    ladder_cb c = {.pair = cb, .ctx = ctx};
    return ladder_read(s, "SELECT a, b, deals FROM ladder_pairs WHERE rules = ?1", rules, NULL, 0,
                       pair_row, &c);
}

static void hist_row(void *ctx, sqlite3_stmt *st)
{
    ladder_cb *c = ctx;
    ddz_store_ladder_hist h = {0};
    h.id = sqlite3_column_int64(st, 0);
    h.finished_ms = sqlite3_column_int64(st, 1);
    h.mu = sqlite3_column_double(st, 2);
    h.sigma = sqlite3_column_double(st, 3);
    h.score = sqlite3_column_double(st, 4);
    h.faults = sqlite3_column_int(st, 5);
    for (int g = 0; g < 3; g++)
        h.games[g] = sqlite3_column_int64(st, 6 + g);
    copy_text(h.opp[0], sizeof h.opp[0], st, 9);
    copy_text(h.opp[1], sizeof h.opp[1], st, 10);
    c->hist(c->ctx, &h);
}

int ddz_store_ladder_history(ddz_store *s, const char *rules, const char *name, int limit,
                             void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx)
{
    ladder_cb c = {.hist = cb, .ctx = ctx};
    return ladder_read(s,
                       "SELECT id, finished_at, mu, sigma, score, faults, game1, game2, game3,"
                       " opp1, opp2 FROM ladder_history WHERE rules = ?1 AND name = ?2"
                       " ORDER BY id DESC LIMIT ?3",
                       rules, name, limit, hist_row, &c);
}

/* ---- reads ------------------------------------------------------------------ */

int ddz_store_my_games(ddz_store *s, const uint8_t me[DDZ_STORE_ME_BYTES], int max, char **json)
{
    *json = NULL;
    if (max < 1 || max > DDZ_STORE_MINE_MAX)
        return DDZ_EINVAL;
    json_t *list = json_array();
    if (!list)
        return DDZ_ENOMEM;
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    /* the newest first; what a list row shows comes out of the record
     * (SQLite's JSON functions), so the record stays the one source */
    int rc = sqlite3_prepare_v2(
        s->rdb,
        "SELECT g.id, g.key, g.room, g.finished_at, m.seat, g.name_west, g.name_south,"
        " g.name_east, json_extract(g.record, '$.scores'), json_extract(g.record, '$.landlord'),"
        " json_extract(g.record, '$.winner'), json_extract(g.record, '$.rules')"
        " FROM mine m JOIN games g ON g.id = m.game"
        " WHERE m.owner = ?1 ORDER BY m.game DESC LIMIT ?2",
        -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        json_decref(list);
        return rc;
    }
    sqlite3_bind_blob(st, 1, me, DDZ_STORE_ME_BYTES, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, max);
    int step;
    bool ok = true;
    while (ok && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 1);
        const char *room = (const char *)sqlite3_column_text(st, 2);
        const char *scores = (const char *)sqlite3_column_text(st, 8);
        const char *rules = (const char *)sqlite3_column_text(st, 11);
        json_t *names = json_array(), *sc = scores ? json_loads(scores, 0, NULL) : json_null();
        for (int i = 0; names && i < 3; i++) {
            const char *n = (const char *)sqlite3_column_text(st, 5 + i);
            json_array_append_new(names, n ? json_string(n) : json_null());
        }
        json_t *seat_of[2];
        for (int i = 0; i < 2; i++)
            seat_of[i] = sqlite3_column_type(st, 9 + i) == SQLITE_INTEGER
                             ? json_integer(sqlite3_column_int(st, 9 + i))
                             : json_null();
        json_t *g = json_pack(
            "{s:I, s:o, s:o, s:I, s:i, s:o, s:o, s:o, s:o, s:o}", "id",
            (json_int_t)sqlite3_column_int64(st, 0), "key", key ? json_string(key) : json_null(),
            "room", room ? json_string(room) : json_null(), "finished_at",
            (json_int_t)sqlite3_column_int64(st, 3), "seat", sqlite3_column_int(st, 4), "names",
            names, "scores", sc ? sc : json_null(), "landlord", seat_of[0], "winner", seat_of[1],
            "rules", rules ? json_string(rules) : json_string("caai"));
        ok = g && json_array_append_new(list, g) == 0;
    }
    if (!ok)
        rc = DDZ_ENOMEM;
    else if (step != SQLITE_DONE)
        rc = read_failed(s);
    else
        rc = (*json = json_dumps(list, DDZ_RECORD_JSON_FLAGS)) ? (int)json_array_size(list)
                                                               : DDZ_ENOMEM;
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    json_decref(list);
    return rc;
}

int ddz_store_get_game(ddz_store *s, int64_t id, const char *key, char **json)
{
    *json = NULL;
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int rc =
        sqlite3_prepare_v2(s->rdb, "SELECT record, key FROM games WHERE id = ?1", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        return rc;
    }
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        const char *stored = (const char *)sqlite3_column_text(st, 1);
        /* a keyed game is as absent as a missing one without its key;
         * compared in constant time, the lengths being fixed */
        bool open = stored ? key && strlen(key) == DDZ_STORE_KEY_HEX &&
                                 strlen(stored) == DDZ_STORE_KEY_HEX &&
                                 sodium_memcmp(stored, key, DDZ_STORE_KEY_HEX) == 0
                           : !key || !*key;
        rc = !open ? DDZ_ENOTFOUND : t && (*json = strdup(t)) ? 0 : DDZ_ENOMEM;
    } else {
        rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : read_failed(s);
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    return rc;
}

int ddz_store_export(ddz_store *s, FILE *out, bool include_aborted)
{
    const char *sql = include_aborted ? "SELECT record FROM games ORDER BY id"
                                      : "SELECT record FROM games WHERE aborted = 0 ORDER BY id";
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->rdb, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        return rc;
    }
    int count = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t) {
            step = SQLITE_NOMEM;
            break;
        }
        if (fputs(t, out) == EOF || putc('\n', out) == EOF) {
            step = -1;
            break;
        }
        count++;
    }
    if (step == -1)
        rc = DDZ_EIO;
    else if (step == SQLITE_NOMEM)
        rc = DDZ_ENOMEM;
    else if (step != SQLITE_DONE)
        rc = read_failed(s);
    else
        rc = count;
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    if (rc >= 0 && (fflush(out) == EOF || ferror(out)))
        rc = DDZ_EIO;
    return rc;
}

/* ---- the reader thread -------------------------------------------------------- */

/* Appends `r` to the answered list. Caller holds lock. */
static void answered(ddz_store *s, ddz_store_read *r)
{
    r->next = NULL;
    if (s->rd_tail)
        s->rd_tail->next = r;
    else
        s->rd_head = r;
    s->rd_tail = r;
}

static void run_read(ddz_store *s, ddz_store_read *r)
{
    if (r->kind == DDZ_STORE_READ_GAME) {
        r->rc = ddz_store_get_game(s, r->id, r->key, &r->json);
    } else if (r->kind == DDZ_STORE_READ_MINE) {
        r->rc = ddz_store_my_games(s, r->me, DDZ_STORE_MINE_MAX, &r->json);
    } else {
        r->rc = ddz_store_token_check(s, r->token, r->name);
        sodium_memzero(r->token, sizeof r->token);
    }
}

static void *reader_main(void *arg)
{
    ddz_store *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->rstop && !s->rq_head)
            pthread_cond_wait(&s->rmore, &s->lock);
        if (s->rstop)
            break; /* ddz_store_reader_stop() answers what is left */
        ddz_store_read *r = s->rq_head;
        s->rq_head = r->next;
        if (!s->rq_head)
            s->rq_tail = NULL;
        pthread_mutex_unlock(&s->lock);

        run_read(s, r);

        pthread_mutex_lock(&s->lock);
        answered(s, r);
        /* Woken without the lock: the owner takes it in ddz_store_read_done(). */
        pthread_mutex_unlock(&s->lock);
        s->wake(s->wake_ctx);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int ddz_store_reader_start(ddz_store *s, void (*wake)(void *ctx), void *ctx)
{
    if (!wake)
        return DDZ_EINVAL;
    pthread_mutex_lock(&s->lock);
    bool running = s->rstarted;
    pthread_mutex_unlock(&s->lock);
    if (running)
        return DDZ_EINVAL;
    s->wake = wake;
    s->wake_ctx = ctx;
    s->rstop = false;
    /* Signals go to the threads that handle them, never to the reader. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&s->rthread, NULL, reader_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return DDZ_ENOMEM;
    pthread_mutex_lock(&s->lock);
    s->rstarted = true;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int ddz_store_read_submit(ddz_store *s, ddz_store_read *r)
{
    if (r->kind != DDZ_STORE_READ_GAME && r->kind != DDZ_STORE_READ_TOKEN &&
        r->kind != DDZ_STORE_READ_MINE)
        return DDZ_EINVAL;
    r->rc = 0;
    r->json = NULL;
    r->name[0] = '\0';
    r->next = NULL;
    pthread_mutex_lock(&s->lock);
    if (!s->rstarted || s->rstop) {
        pthread_mutex_unlock(&s->lock);
        return DDZ_EINVAL;
    }
    if (s->rq_tail)
        s->rq_tail->next = r;
    else
        s->rq_head = r;
    s->rq_tail = r;
    pthread_cond_signal(&s->rmore);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

ddz_store_read *ddz_store_read_done(ddz_store *s)
{
    pthread_mutex_lock(&s->lock);
    ddz_store_read *r = s->rd_head;
    if (r) {
        s->rd_head = r->next;
        if (!s->rd_head)
            s->rd_tail = NULL;
        r->next = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

void ddz_store_reader_stop(ddz_store *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    if (!s->rstarted) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->rstop = true;
    pthread_cond_signal(&s->rmore);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->rthread, NULL);

    pthread_mutex_lock(&s->lock);
    s->rstarted = false;
    while (s->rq_head) { /* never run: answered as a database error */
        ddz_store_read *r = s->rq_head;
        s->rq_head = r->next;
        sodium_memzero(r->token, sizeof r->token);
        r->rc = DDZ_EDB;
        answered(s, r);
    }
    s->rq_tail = NULL;
    pthread_mutex_unlock(&s->lock);
}

/* ---- tokens ----------------------------------------------------------------- */

bool ddz_store_token_name_valid(const char *name)
{
    if (!name)
        return false;
    size_t n = strnlen(name, DDZ_TOKEN_NAME_MAX);
    if (n == 0 || n >= DDZ_TOKEN_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return false;
    return true;
}

/* Runs the prepared write `st` on rdb (the caller holds rlock); returns the
 * number of rows changed or DDZ_EDB. Finalizes `st`. */
static int read_conn_write(ddz_store *s, sqlite3_stmt *st)
{
    int step = sqlite3_step(st);
    int rc = step == SQLITE_DONE ? sqlite3_changes(s->rdb) : read_failed(s);
    sqlite3_finalize(st);
    return rc;
}

int ddz_store_token_add(ddz_store *s, const char *name, char token_out[DDZ_TOKEN_HEX + 1])
{
    token_out[0] = '\0';
    if (!ddz_store_token_name_valid(name))
        return DDZ_EINVAL;
    unsigned char raw[TOKEN_BYTES], hash[HASH_BYTES];
    randombytes_buf(raw, sizeof raw);
    crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);

    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    /* One statement, so a concurrent `token add` of the same name cannot
     * slip between a check and an insert: a revoked row is replaced, an
     * active one is left alone (no change). */
    int rc = sqlite3_prepare_v2(s->rdb,
                                "INSERT INTO tokens(name, hash, created_at, revoked_at)"
                                " VALUES(?1, ?2, ?3, NULL)"
                                " ON CONFLICT(name) DO UPDATE SET hash = excluded.hash,"
                                " created_at = excluded.created_at, revoked_at = NULL"
                                " WHERE tokens.revoked_at IS NOT NULL",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
    } else {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, hash, sizeof hash, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, now_ms());
        rc = read_conn_write(s, st);
        rc = rc == 1 ? 0 : rc == 0 ? DDZ_EINVAL : rc;
    }
    pthread_mutex_unlock(&s->rlock);
    if (rc == 0)
        sodium_bin2hex(token_out, DDZ_TOKEN_HEX + 1, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    return rc;
}

int ddz_store_token_check(ddz_store *s, const char *token, char name_out[DDZ_TOKEN_NAME_MAX])
{
    if (name_out)
        name_out[0] = '\0';
    unsigned char raw[TOKEN_BYTES], hash[HASH_BYTES];
    size_t len = 0;
    const char *end = NULL;
    if (!token || strnlen(token, DDZ_TOKEN_HEX + 1) != DDZ_TOKEN_HEX ||
        sodium_hex2bin(raw, sizeof raw, token, DDZ_TOKEN_HEX, NULL, &len, &end) != 0 ||
        len != sizeof raw || end != token + DDZ_TOKEN_HEX)
        return DDZ_EAUTH;
    crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);
    sodium_memzero(raw, sizeof raw);

    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->rdb, "SELECT name, hash FROM tokens WHERE revoked_at IS NULL",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        return rc;
    }
    /* Every active hash is compared, in constant time, with no early exit. */
    bool found = false;
    char name[DDZ_TOKEN_NAME_MAX] = "";
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const void *h = sqlite3_column_blob(st, 1);
        int hlen = sqlite3_column_bytes(st, 1);
        const char *n = (const char *)sqlite3_column_text(st, 0);
        if (h && n && hlen == HASH_BYTES && sodium_memcmp(h, hash, HASH_BYTES) == 0) {
            found = true;
            snprintf(name, sizeof name, "%s", n);
        }
    }
    rc = step == SQLITE_DONE ? (found ? 0 : DDZ_EAUTH) : read_failed(s);
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    if (rc == 0 && name_out)
        memcpy(name_out, name, sizeof name);
    return rc;
}

int ddz_store_token_revoke(ddz_store *s, const char *name)
{
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->rdb, "UPDATE tokens SET revoked_at = ?1 WHERE name = ?2 AND revoked_at IS NULL", -1, &st,
        NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
    } else {
        sqlite3_bind_int64(st, 1, now_ms());
        sqlite3_bind_text(st, 2, name ? name : "", -1, SQLITE_STATIC);
        rc = read_conn_write(s, st);
        rc = rc == 0 ? DDZ_ENOTFOUND : rc < 0 ? rc : 0;
    }
    pthread_mutex_unlock(&s->rlock);
    return rc;
}

typedef struct token_row {
    char name[DDZ_TOKEN_NAME_MAX];
    int64_t created_ms;
    bool revoked;
} token_row;

int ddz_store_token_list(ddz_store *s,
                         void (*cb)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                         void *ctx)
{
    pthread_mutex_lock(&s->rlock);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->rdb,
                                "SELECT name, created_at, revoked_at IS NOT NULL FROM tokens"
                                " ORDER BY name",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rc = read_failed(s);
        pthread_mutex_unlock(&s->rlock);
        return rc;
    }
    token_row *rows = NULL;
    size_t n = 0, cap = 0;
    int step;
    rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            token_row *more = realloc(rows, ncap * sizeof *rows);
            if (!more) {
                rc = DDZ_ENOMEM;
                break;
            }
            rows = more;
            cap = ncap;
        }
        const char *name = (const char *)sqlite3_column_text(st, 0);
        snprintf(rows[n].name, sizeof rows[n].name, "%s", name ? name : "");
        rows[n].created_ms = sqlite3_column_int64(st, 1);
        rows[n].revoked = sqlite3_column_int(st, 2) != 0;
        n++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = read_failed(s);
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->rlock);
    if (rc == 0) {
        for (size_t i = 0; i < n; i++)
            cb(ctx, rows[i].name, rows[i].created_ms, rows[i].revoked);
        rc = n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
    }
    free(rows);
    return rc;
}
