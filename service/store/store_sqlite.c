/* store_sqlite.c - the store's SQLite backend: one database file in WAL
 * mode, a writer connection and a readers' connection (store_be.h). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/store/store_be.h"

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
    /* 4 -> 5: the ladder's deal at several tables: a row per seat says the
     * deal, the hand held and those it was compared with; the old
     * scheduler's pair counts go */
    "ALTER TABLE ladder_history ADD COLUMN deal INTEGER;"
    "ALTER TABLE ladder_history ADD COLUMN hand INTEGER;"
    "ALTER TABLE ladder_history ADD COLUMN compared TEXT;"
    "DROP TABLE ladder_pairs;",
    /* 5 -> 6: post-game analyses, a cache of what the server computed
     * (GET /api/games/ID/analysis), one row per game */
    "CREATE TABLE analyses("
    " game INTEGER PRIMARY KEY,"
    " analysis TEXT NOT NULL,"
    " created_at INTEGER NOT NULL);",
    /* 6 -> 7: people's accounts and their sessions (SPEC §15) */
    /* AUTOINCREMENT: an id is never used twice, even the highest one's
     * after its row is purged (a deleted name taken again): ratings and
     * history are keyed by the id, and a new person inherits none */
    "CREATE TABLE accounts("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " name TEXT NOT NULL,"
    " key TEXT NOT NULL UNIQUE,"
    " hash TEXT NOT NULL,"
    " created_at INTEGER NOT NULL,"
    " deleted_at INTEGER);"
    "CREATE TABLE sessions("
    " hash BLOB PRIMARY KEY,"
    " account INTEGER NOT NULL,"
    " created_at INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX sessions_account ON sessions(account);",
    /* 7 -> 8: people's ratings and their history (SPEC §15) */
    "CREATE TABLE people_ratings("
    " player INTEGER NOT NULL,"
    " rules TEXT NOT NULL,"
    " mu REAL NOT NULL,"
    " sigma REAL NOT NULL,"
    " games INTEGER NOT NULL,"
    " ll_games INTEGER NOT NULL,"
    " ll_wins INTEGER NOT NULL,"
    " farmer_games INTEGER NOT NULL,"
    " farmer_wins INTEGER NOT NULL,"
    " PRIMARY KEY(player, rules)) WITHOUT ROWID;"
    "CREATE INDEX people_ratings_board ON people_ratings(rules, mu);"
    "CREATE TABLE people_rating_hist("
    " player INTEGER NOT NULL,"
    " rules TEXT NOT NULL,"
    " game INTEGER NOT NULL,"
    " at_ms INTEGER NOT NULL,"
    " mu REAL NOT NULL,"
    " sigma REAL NOT NULL,"
    " PRIMARY KEY(player, rules, game)) WITHOUT ROWID;"
    "CREATE INDEX people_rating_hist_at ON people_rating_hist(player, at_ms);",
    /* 8 -> 9: the server's stock of puzzles (spec §16); the index serves
     * "the nearest ratings of these rules" from both sides */
    "CREATE TABLE puzzles("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " game INTEGER NOT NULL,"
    " ply INTEGER NOT NULL,"
    " rules TEXT NOT NULL,"
    " hands TEXT NOT NULL,"
    " landlord INTEGER NOT NULL,"
    " turn INTEGER NOT NULL,"
    " last TEXT,"
    " last_by INTEGER,"
    " side TEXT NOT NULL,"
    " solutions TEXT NOT NULL,"
    " moves INTEGER NOT NULL,"
    " difficulty REAL NOT NULL,"
    " rating REAL NOT NULL,"
    " deviation REAL NOT NULL,"
    " created_at INTEGER NOT NULL,"
    " UNIQUE(game, ply));"
    "CREATE INDEX puzzles_pick ON puzzles(rules, rating);"
    /* people's puzzle ratings, and each account's rated attempt at a
     * puzzle (one: the first to end) */
    "CREATE TABLE puzzle_ratings("
    " account INTEGER NOT NULL,"
    " rules TEXT NOT NULL,"
    " mu REAL NOT NULL,"
    " sigma REAL NOT NULL,"
    " attempts INTEGER NOT NULL,"
    " solved INTEGER NOT NULL,"
    " PRIMARY KEY(account, rules)) WITHOUT ROWID;"
    "CREATE TABLE puzzle_attempts("
    " account INTEGER NOT NULL,"
    " puzzle INTEGER NOT NULL,"
    " solved INTEGER NOT NULL,"
    " at_ms INTEGER NOT NULL,"
    " mu REAL NOT NULL,"
    " sigma REAL NOT NULL,"
    " PRIMARY KEY(account, puzzle)) WITHOUT ROWID;",
};

struct store_be {
    sqlite3 *wdb;           /* the writer thread's connection */
    sqlite3_stmt *ins_game; /* prepared on wdb */
    sqlite3_stmt *ins_turn; /* prepared on wdb */
    sqlite3_stmt *ins_mine; /* prepared on wdb */
    sqlite3_stmt *pub_game; /* prepared on wdb */
    sqlite3_stmt *ins_anal; /* prepared on wdb */
    sqlite3_stmt *ins_puz;  /* prepared on wdb */
    sqlite3_stmt *lad_put;  /* ladder statements, prepared on wdb */
    sqlite3_stmt *lad_hist;
    sqlite3 *rdb; /* the readers' connection */
};

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
        ddz__store_set_err(err, errlen, "%s: %s", path,
                           db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
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
        ddz__store_set_err(err, errlen,
                           "%s: schema version %lld is newer than this ddz understands (%d)", path,
                           (long long)v, DDZ_STORE_SCHEMA_VERSION);
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
        ddz__store_set_err(err, errlen, "%s: creating the schema: %s", path, sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return DDZ_EDB;
    }
    return 0;
}

static void sq_close(store_be *b)
{
    if (!b)
        return;
    sqlite3_finalize(b->ins_game);
    sqlite3_finalize(b->ins_turn);
    sqlite3_finalize(b->ins_mine);
    sqlite3_finalize(b->pub_game);
    sqlite3_finalize(b->ins_anal);
    sqlite3_finalize(b->ins_puz);
    sqlite3_finalize(b->lad_put);
    sqlite3_finalize(b->lad_hist);
    sqlite3_close_v2(b->rdb);
    sqlite3_close_v2(b->wdb); /* the last close checkpoints the WAL */
    free(b);
}

static store_be *sq_open(const char *path, const char *shown, const store_be_cfg *cfg, char *err,
                         size_t errlen)
{
    int busy_ms = cfg->busy_ms; /* a local file: no round trips to bound */
    (void)shown;                /* a path has no secret in it */
    if (!sqlite3_threadsafe()) {
        ddz__store_set_err(err, errlen, "SQLite was built without thread support");
        return NULL;
    }
    store_be *b = calloc(1, sizeof *b);
    if (!b) {
        ddz__store_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    char mode[16] = "";
    b->wdb = connect(path, busy_ms, err, errlen);
    if (!b->wdb)
        goto fail;
    /* The first statement to read the file: "file is not a database" here. */
    if (query1(b->wdb, "PRAGMA journal_mode=WAL", NULL, mode, sizeof mode) != SQLITE_OK) {
        ddz__store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(b->wdb));
        goto fail;
    }
    if (strcmp(mode, "wal") != 0) {
        ddz__store_set_err(err, errlen, "%s: cannot use WAL mode (journal mode is '%s')", path,
                           mode);
        goto fail;
    }
    if (migrate(b->wdb, path, err, errlen) < 0)
        goto fail;
    b->rdb = connect(path, busy_ms, err, errlen);
    if (!b->rdb)
        goto fail;
    if (sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO games(id, room, game, started_at, finished_at, aborted,"
                           " name_west, name_south, name_east, record, key)"
                           " VALUES(?1, ?2, ?3, NULL, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->ins_game, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO turns(room, turn, games, names, totals, finished_at)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->ins_turn, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(b->wdb, "INSERT INTO mine(owner, game, seat) VALUES(?1, ?2, ?3)", -1,
                           SQLITE_PREPARE_PERSISTENT, &b->ins_mine, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(b->wdb, "UPDATE games SET key = NULL WHERE id = ?1", -1,
                           SQLITE_PREPARE_PERSISTENT, &b->pub_game, NULL) != SQLITE_OK ||
        /* two nodes may compute the same analysis: the first one stays,
         * unless it is of an older form (its "version" lower, or none:
         * analyst.h), which the new one replaces */
        sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO analyses(game, analysis, created_at) VALUES(?1, ?2, ?3)"
                           " ON CONFLICT(game) DO UPDATE SET analysis = excluded.analysis,"
                           " created_at = excluded.created_at"
                           " WHERE coalesce(json_extract(analyses.analysis, '$.version'), 1)"
                           " < coalesce(json_extract(excluded.analysis, '$.version'), 1)",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->ins_anal, NULL) != SQLITE_OK ||
        /* a game examined again (another node, a restart) adds nothing */
        sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO puzzles(game, ply, rules, hands, landlord, turn, last,"
                           " last_by, side, solutions, moves, difficulty, rating, deviation,"
                           " created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                           " ?12, ?13, ?14, ?15) ON CONFLICT(game, ply) DO NOTHING",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->ins_puz, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score,"
                           " faults, suspended, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                           " ?9, ?10) ON CONFLICT(rules, name) DO UPDATE SET mu = ?3, sigma = ?4,"
                           " games = ?5, deals = ?6, score = ?7, faults = ?8, suspended = ?9,"
                           " updated_at = ?10",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->lad_put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(b->wdb,
                           "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score,"
                           " faults, game1, game2, game3, opp1, opp2, deal, hand, compared)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                           " ?15)",
                           -1, SQLITE_PREPARE_PERSISTENT, &b->lad_hist, NULL) != SQLITE_OK) {
        ddz__store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(b->wdb));
        goto fail;
    }
    return b;
fail:
    sq_close(b);
    return NULL;
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

static int ladder_put(store_be *b, const char *rules, const ddz_store_ladder_player *p,
                      int64_t when)
{
    sqlite3_stmt *st = b->lad_put;
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

/* A deal's standings and rows: a failure part-way leaves the rest undone,
 * and the batch rolls back what this item wrote (write_batch). A row of
 * hand -1 (the old format, from a journal written before schema 5) is
 * written as such rows were: its three games, deal, hand and compared
 * NULL; any other its game alone. */
static int ladder_deal(store_be *b, const store_item *it)
{
    const ddz_store_ladder_deal *d = it->deal;
    const char *rules = it->room;
    int rc = SQLITE_OK;
    for (int i = 0; i < d->nplayers && rc == SQLITE_OK; i++)
        rc = ladder_put(b, rules, &d->p[i], it->finished_ms);
    for (int i = 0; i < d->nrows && rc == SQLITE_OK; i++) {
        const ddz_store_ladder_hist *h = &d->rows[i];
        char *cmp = ddz_store_ladder_cmp_text(h);
        if (!cmp)
            return SQLITE_NOMEM;
        sqlite3_stmt *st = b->lad_hist;
        rc = bind_text(st, 1, rules);
        rc = rc ? rc : bind_text(st, 2, h->name);
        rc = rc ? rc : sqlite3_bind_int64(st, 3, it->finished_ms);
        rc = rc ? rc : sqlite3_bind_double(st, 4, h->mu);
        rc = rc ? rc : sqlite3_bind_double(st, 5, h->sigma);
        rc = rc ? rc : sqlite3_bind_double(st, 6, h->score);
        rc = rc ? rc : sqlite3_bind_int(st, 7, h->faults);
        bool old = h->hand < 0;
        for (int g = 0; g < (old ? 3 : 1); g++)
            rc = rc ? rc : sqlite3_bind_int64(st, 8 + g, h->games[g]);
        rc = rc ? rc : bind_text(st, 11, h->opp[0][0] ? h->opp[0] : NULL);
        rc = rc ? rc : bind_text(st, 12, h->opp[1][0] ? h->opp[1] : NULL);
        if (!old) {
            rc = rc ? rc : sqlite3_bind_int64(st, 13, h->deal);
            rc = rc ? rc : sqlite3_bind_int(st, 14, h->hand);
            rc = rc ? rc : bind_text(st, 15, cmp);
        }
        rc = step_reset(st, rc);
        free(cmp);
    }
    return rc;
}

/* Executes one queued write; returns an SQLite result code. */
static int write_item(store_be *b, const store_item *it)
{
    sqlite3_stmt *st;
    int rc;
    if (it->kind == ITEM_LADDER_DEAL)
        return ladder_deal(b, it);
    if (it->kind == ITEM_LADDER_PUT)
        return ladder_put(b, it->room, &it->deal->p[0], it->finished_ms);
    if (it->kind == ITEM_GAME) {
        st = b->ins_game;
        rc = sqlite3_bind_int64(st, 1, it->id);
        rc = rc ? rc : bind_text(st, 2, it->room);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->number);
        rc = rc ? rc : sqlite3_bind_int64(st, 4, it->finished_ms);
        rc = rc ? rc : sqlite3_bind_int(st, 5, it->aborted);
        for (int i = 0; i < 3; i++)
            rc = rc ? rc : bind_text(st, 6 + i, it->names[i]);
        rc = rc ? rc : bind_text(st, 9, it->text);
        rc = rc ? rc : bind_text(st, 10, it->key);
    } else if (it->kind == ITEM_PUBLISH) {
        st = b->pub_game; /* idempotent: a replay writes it again */
        rc = sqlite3_bind_int64(st, 1, it->id);
    } else if (it->kind == ITEM_ANALYSIS) {
        st = b->ins_anal;
        rc = sqlite3_bind_int64(st, 1, it->id);
        rc = rc ? rc : bind_text(st, 2, it->text);
        rc = rc ? rc : sqlite3_bind_int64(st, 3, it->finished_ms);
    } else if (it->kind == ITEM_PUZZLE) {
        const ddz_store_puzzle *p = it->puzzle;
        bool leads = p->last_by < 0;
        st = b->ins_puz;
        rc = sqlite3_bind_int64(st, 1, p->game);
        rc = rc ? rc : sqlite3_bind_int(st, 2, p->ply);
        rc = rc ? rc : bind_text(st, 3, p->rules);
        rc = rc ? rc : bind_text(st, 4, p->hands);
        rc = rc ? rc : sqlite3_bind_int(st, 5, p->landlord);
        rc = rc ? rc : sqlite3_bind_int(st, 6, p->turn);
        rc = rc ? rc : bind_text(st, 7, leads ? NULL : p->last);
        rc = rc ? rc : leads ? sqlite3_bind_null(st, 8) : sqlite3_bind_int(st, 8, p->last_by);
        rc = rc ? rc : bind_text(st, 9, p->side);
        rc = rc ? rc : bind_text(st, 10, p->solutions);
        rc = rc ? rc : sqlite3_bind_int(st, 11, p->moves);
        rc = rc ? rc : sqlite3_bind_double(st, 12, p->difficulty);
        rc = rc ? rc : sqlite3_bind_double(st, 13, p->rating);
        rc = rc ? rc : sqlite3_bind_double(st, 14, p->deviation);
        rc = rc ? rc : sqlite3_bind_int64(st, 15, it->finished_ms);
    } else if (it->kind == ITEM_MINE) {
        st = b->ins_mine;
        rc = sqlite3_bind_blob(st, 1, it->me, sizeof it->me, SQLITE_STATIC);
        rc = rc ? rc : sqlite3_bind_int64(st, 2, it->id);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->number);
    } else {
        st = b->ins_turn;
        rc = bind_text(st, 1, it->room);
        rc = rc ? rc : sqlite3_bind_int(st, 2, it->number);
        rc = rc ? rc : sqlite3_bind_int(st, 3, it->games);
        rc = rc ? rc : bind_text(st, 4, it->text);
        rc = rc ? rc : bind_text(st, 5, it->totals);
        rc = rc ? rc : sqlite3_bind_int64(st, 6, it->finished_ms);
    }
    return step_reset(st, rc);
}

static void batch_error(store_be *b, store_batch_result *res)
{
    snprintf(res->msg, sizeof res->msg, "%s", sqlite3_errmsg(b->wdb));
}

/* Writes the items of `batch` in one transaction, as far as it goes: an item
 * that fails is counted and skipped; if its failure rolled the transaction
 * back, the items before it are counted as failed too and a new transaction
 * starts. If no transaction can start (the database stays locked, say), the
 * rest of the batch fails at once rather than waiting for a lock per item. */
static void sq_write_batch(store_be *b, store_item *batch, store_batch_result *res)
{
    uint64_t pending = 0; /* written in the open transaction */
    bool txn = false;
    for (store_item *it = batch; it; it = it->next) {
        if (!txn) {
            if (sqlite3_exec(b->wdb, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
                batch_error(b, res);
                for (; it; it = it->next)
                    res->bad++;
                return;
            }
            txn = true;
        }
        if (write_item(b, it) == SQLITE_OK) {
            pending++;
            continue;
        }
        res->bad++;
        batch_error(b, res);
        if (sqlite3_get_autocommit(b->wdb)) { /* the transaction was rolled back */
            res->bad += pending;
            pending = 0;
            txn = false;
        }
    }
    if (!txn)
        return;
    if (sqlite3_exec(b->wdb, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
        res->ok += pending;
    } else {
        batch_error(b, res);
        sqlite3_exec(b->wdb, "ROLLBACK", NULL, NULL, NULL);
        res->bad += pending;
    }
}

/* ---- reads ------------------------------------------------------------------ */

static const char *sq_read_error(store_be *b)
{
    return sqlite3_errmsg(b->rdb);
}

static int sq_max_game_id(store_be *b, int64_t *out)
{
    *out = 0;
    return query1(b->rdb, "SELECT COALESCE(MAX(id), 0) FROM games", out, NULL, 0) == SQLITE_OK
               ? 0
               : DDZ_EDB;
}

static char *col_dup(sqlite3_stmt *st, int col, bool *oom)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    char *d = strdup(t);
    if (!d)
        *oom = true;
    return d;
}

static int sq_get_game(store_be *b, int64_t id, char **record, char **key)
{
    *record = *key = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb, "SELECT record, key FROM games WHERE id = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st), rc;
    if (step == SQLITE_ROW) {
        bool oom = false;
        *record = col_dup(st, 0, &oom);
        *key = col_dup(st, 1, &oom);
        rc = oom || !*record ? DDZ_ENOMEM : 0;
    } else {
        rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    }
    sqlite3_finalize(st);
    if (rc < 0) {
        free(*record);
        free(*key);
        *record = *key = NULL;
    }
    return rc;
}

static int sq_get_analysis(store_be *b, int64_t id, char **json)
{
    *json = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb, "SELECT analysis FROM analyses WHERE game = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st), rc;
    if (step == SQLITE_ROW) {
        bool oom = false;
        *json = col_dup(st, 0, &oom);
        rc = oom || !*json ? DDZ_ENOMEM : 0;
    } else {
        rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    }
    sqlite3_finalize(st);
    if (rc < 0) {
        free(*json);
        *json = NULL;
    }
    return rc;
}

/* The end of a loop over the rows of the read `st` that stopped at `step`
 * with its callback's last return `rc` after `n` rows: finalizes `st`;
 * returns rc if negative, else n, or DDZ_EDB when the last step failed. */
static int rows_end(sqlite3_stmt *st, int step, int rc, int n)
{
    if (rc == 0)
        rc = step == SQLITE_DONE ? n : DDZ_EDB;
    sqlite3_finalize(st);
    return rc;
}

/* Copies text column `col` of `st` to dst (len bytes; NULL as ""). */
static void col_copy(sqlite3_stmt *st, int col, char *dst, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

static int sq_puzzle_get(store_be *b, int64_t id, ddz_store_puzzle *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb,
                           "SELECT id, game, ply, rules, hands, landlord, turn, last, last_by,"
                           " side, solutions, moves, difficulty, rating, deviation"
                           " FROM puzzles WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st), rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    if (step == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->game = sqlite3_column_int64(st, 1);
        out->ply = sqlite3_column_int(st, 2);
        col_copy(st, 3, out->rules, sizeof out->rules);
        col_copy(st, 4, out->hands, sizeof out->hands);
        out->landlord = sqlite3_column_int(st, 5);
        out->turn = sqlite3_column_int(st, 6);
        col_copy(st, 7, out->last, sizeof out->last);
        out->last_by = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 8);
        col_copy(st, 9, out->side, sizeof out->side);
        col_copy(st, 10, out->solutions, sizeof out->solutions);
        out->moves = sqlite3_column_int(st, 11);
        out->difficulty = sqlite3_column_double(st, 12);
        out->rating = sqlite3_column_double(st, 13);
        out->deviation = sqlite3_column_double(st, 14);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static int sq_puzzle_near(store_be *b, const char *rules, double rating, int limit, int64_t *ids,
                          double *ratings)
{
    sqlite3_stmt *st;
    /* two walks of the index (rules, rating), one each way from `rating` */
    if (sqlite3_prepare_v2(b->rdb,
                           "SELECT * FROM (SELECT id, rating FROM puzzles WHERE rules = ?1"
                           " AND rating >= ?2 ORDER BY rating LIMIT ?3)"
                           " UNION ALL SELECT * FROM (SELECT id, rating FROM puzzles"
                           " WHERE rules = ?1 AND rating < ?2 ORDER BY rating DESC LIMIT ?3)",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    bind_text(st, 1, rules);
    sqlite3_bind_double(st, 2, rating);
    sqlite3_bind_int(st, 3, limit);
    int n = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW && n < 2 * limit) {
        ids[n] = sqlite3_column_int64(st, 0);
        ratings[n++] = sqlite3_column_double(st, 1);
    }
    return rows_end(st, step == SQLITE_ROW ? SQLITE_DONE : step, 0, n);
}

static int sq_export(store_be *b, bool all, int (*line)(void *ctx, const char *record), void *ctx)
{
    const char *sql = all ? "SELECT record FROM games ORDER BY id"
                          : "SELECT record FROM games WHERE aborted = 0 ORDER BY id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb, sql, -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    int count = 0, step, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t) {
            rc = DDZ_ENOMEM;
            break;
        }
        if ((rc = line(ctx, t)) < 0)
            break;
        count++;
    }
    return rows_end(st, step, rc, count);
}

static int sq_my_games(store_be *b, const uint8_t me[DDZ_STORE_ME_BYTES], int max,
                       int (*row)(void *ctx, const store_mine_row *r), void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb,
                           "SELECT g.id, g.key, g.room, g.finished_at, m.seat, g.name_west,"
                           " g.name_south, g.name_east, g.record"
                           " FROM mine m JOIN games g ON g.id = m.game"
                           " WHERE m.owner = ?1 ORDER BY m.game DESC LIMIT ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_blob(st, 1, me, DDZ_STORE_ME_BYTES, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, max);
    int step, rc = 0, n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        store_mine_row r = {
            .id = sqlite3_column_int64(st, 0),
            .key = (const char *)sqlite3_column_text(st, 1),
            .room = (const char *)sqlite3_column_text(st, 2),
            .finished_ms = sqlite3_column_int64(st, 3),
            .seat = sqlite3_column_int(st, 4),
            .record = (const char *)sqlite3_column_text(st, 8),
        };
        for (int i = 0; i < 3; i++)
            r.names[i] = (const char *)sqlite3_column_text(st, 5 + i);
        if ((rc = row(ctx, &r)) < 0)
            break;
        n++;
    }
    return rows_end(st, step, rc, n);
}

/* Runs the prepared write `st` on rdb; returns the number of rows changed
 * or DDZ_EDB. Finalizes `st`. */
static int read_conn_write(store_be *b, sqlite3_stmt *st)
{
    int step = sqlite3_step(st);
    int rc = step == SQLITE_DONE ? sqlite3_changes(b->rdb) : DDZ_EDB;
    sqlite3_finalize(st);
    return rc;
}

static int sq_token_add(store_be *b, const char *name, const uint8_t hash[STORE_HASH_BYTES],
                        int64_t now)
{
    sqlite3_stmt *st;
    /* One statement, so a concurrent `token add` of the same name cannot
     * slip between a check and an insert: a revoked row is replaced, an
     * active one is left alone (no change). */
    if (sqlite3_prepare_v2(b->rdb,
                           "INSERT INTO tokens(name, hash, created_at, revoked_at)"
                           " VALUES(?1, ?2, ?3, NULL)"
                           " ON CONFLICT(name) DO UPDATE SET hash = excluded.hash,"
                           " created_at = excluded.created_at, revoked_at = NULL"
                           " WHERE tokens.revoked_at IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, hash, STORE_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, now);
    return read_conn_write(b, st);
}

static int sq_token_active(store_be *b,
                           void (*row)(void *ctx, const char *name, const uint8_t *hash,
                                       size_t len),
                           void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb, "SELECT name, hash FROM tokens WHERE revoked_at IS NULL", -1,
                           &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    int step, n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const uint8_t *h = sqlite3_column_blob(st, 1);
        int hlen = sqlite3_column_bytes(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (h && name)
            row(ctx, name, h, (size_t)hlen);
        n++;
    }
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? n : DDZ_EDB;
}

static int sq_token_revoke(store_be *b, const char *name, int64_t now)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(
            b->rdb, "UPDATE tokens SET revoked_at = ?1 WHERE name = ?2 AND revoked_at IS NULL", -1,
            &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    return read_conn_write(b, st);
}

static int sq_token_list(store_be *b,
                         int (*row)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                         void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb,
                           "SELECT name, created_at, revoked_at IS NOT NULL FROM tokens"
                           " ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    int step, n = 0, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if ((rc = row(ctx, name ? name : "", sqlite3_column_int64(st, 1),
                      sqlite3_column_int(st, 2) != 0)) < 0)
            break;
        n++;
    }
    return rows_end(st, step, rc, n);
}

/* ---- accounts and sessions ---------------------------------------------------- */

static void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col);

/* Prepares `sql` on the readers' connection; NULL on error. */
static sqlite3_stmt *rprep(store_be *b, const char *sql)
{
    sqlite3_stmt *st;
    return sqlite3_prepare_v2(b->rdb, sql, -1, &st, NULL) == SQLITE_OK ? st : NULL;
}

/* A write of several statements is one transaction: IMMEDIATE, so that it
 * waits (busy_ms) for the writer's lock at its start rather than failing
 * halfway. */
static bool rbegin_tx(store_be *b)
{
    return sqlite3_exec(b->rdb, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
}

static int rend_tx(store_be *b, int rc)
{
    if (rc >= 0 && sqlite3_exec(b->rdb, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = DDZ_EDB;
    if (rc < 0)
        sqlite3_exec(b->rdb, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int sq_account_add(store_be *b, const char *name, const char *key, const char *hash,
                          int64_t now, int64_t purge_before, int64_t *id)
{
    if (!rbegin_tx(b))
        return DDZ_EDB;
    int rc = DDZ_EDB;
    sqlite3_stmt *st = rprep(b, "DELETE FROM accounts WHERE key = ?1 AND deleted_at < ?2");
    if (st) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, purge_before);
        rc = read_conn_write(b, st);
    }
    if (rc >= 0 && (st = rprep(b, "INSERT INTO accounts(name, key, hash, created_at)"
                                  " VALUES(?1, ?2, ?3, ?4) ON CONFLICT(key) DO NOTHING"))) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now);
        rc = read_conn_write(b, st);
        if (rc == 1)
            *id = sqlite3_last_insert_rowid(b->rdb);
    } else if (rc >= 0) {
        rc = DDZ_EDB;
    }
    return rend_tx(b, rc);
}

static int sq_account_keys(store_be *b, const char *key, int64_t since_ms, int64_t purge_before,
                           void (*row)(void *ctx, const char *key), void *ctx)
{
    sqlite3_stmt *st =
        rprep(b, "SELECT key FROM accounts WHERE (?1 IS NULL OR key = ?1)"
                 " AND created_at >= ?2 AND (deleted_at IS NULL OR deleted_at >= ?3)");
    if (!st)
        return DDZ_EDB;
    if (key)
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_ms);
    sqlite3_bind_int64(st, 3, purge_before);
    int step, n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        if (k)
            row(ctx, k);
        n++;
    }
    return rows_end(st, step, 0, n);
}

static int sq_mine_copy(store_be *b, const uint8_t from[DDZ_STORE_ME_BYTES],
                        const uint8_t to[DDZ_STORE_ME_BYTES])
{
    sqlite3_stmt *st = rprep(b, "INSERT INTO mine(owner, game, seat) SELECT ?2, game, seat"
                                " FROM mine WHERE owner = ?1 ON CONFLICT(owner, game) DO NOTHING");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_blob(st, 1, from, DDZ_STORE_ME_BYTES, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, to, DDZ_STORE_ME_BYTES, SQLITE_STATIC);
    return read_conn_write(b, st);
}

static int sq_account_get(store_be *b, const char *key, ddz_store_account *out)
{
    sqlite3_stmt *st =
        rprep(b, "SELECT id, name, hash FROM accounts WHERE key = ?1 AND deleted_at IS NULL");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(st), rc;
    if (step == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        copy_text(out->name, sizeof out->name, st, 1);
        copy_text(out->hash, sizeof out->hash, st, 2);
        rc = 0;
    } else {
        rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Removes the sessions of account `id` but `keep` (NULL: all) after the
 * account's row changed (`changed` rows); returns changed or DDZ_EDB. */
static int end_sessions(store_be *b, int64_t id, const uint8_t *keep, int changed)
{
    if (changed <= 0)
        return changed;
    sqlite3_stmt *st = rprep(b, "DELETE FROM sessions WHERE account = ?1"
                                " AND (?2 IS NULL OR hash <> ?2)");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    if (keep)
        sqlite3_bind_blob(st, 2, keep, STORE_HASH_BYTES, SQLITE_STATIC);
    int rc = read_conn_write(b, st);
    return rc < 0 ? rc : changed;
}

static int sq_account_set_hash(store_be *b, int64_t id, const char *hash, const uint8_t *keep)
{
    if (!rbegin_tx(b))
        return DDZ_EDB;
    int rc = DDZ_EDB;
    sqlite3_stmt *st =
        rprep(b, "UPDATE accounts SET hash = ?2 WHERE id = ?1 AND deleted_at IS NULL");
    if (st) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
        rc = end_sessions(b, id, keep, read_conn_write(b, st));
    }
    return rend_tx(b, rc);
}

static int sq_account_delete(store_be *b, int64_t id, int64_t now)
{
    if (!rbegin_tx(b))
        return DDZ_EDB;
    int rc = DDZ_EDB;
    sqlite3_stmt *st = rprep(b, "UPDATE accounts SET hash = '', deleted_at = ?2"
                                " WHERE id = ?1 AND deleted_at IS NULL");
    if (st) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, now);
        rc = end_sessions(b, id, NULL, read_conn_write(b, st));
    }
    return rend_tx(b, rc);
}

static int sq_session_add(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t id,
                          int64_t now)
{
    /* one statement: no session of an account deleted meanwhile */
    sqlite3_stmt *st = rprep(b, "INSERT INTO sessions(hash, account, created_at)"
                                " SELECT ?1, id, ?3 FROM accounts WHERE id = ?2"
                                " AND deleted_at IS NULL");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_blob(st, 1, hash, STORE_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int64(st, 3, now);
    return read_conn_write(b, st);
}

static int sq_session_get(store_be *b, const uint8_t hash[STORE_HASH_BYTES], ddz_store_account *out)
{
    sqlite3_stmt *st = rprep(b, "SELECT a.id, a.name FROM sessions s JOIN accounts a"
                                " ON a.id = s.account WHERE s.hash = ?1 AND a.deleted_at IS NULL");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_blob(st, 1, hash, STORE_HASH_BYTES, SQLITE_STATIC);
    int step = sqlite3_step(st), rc;
    if (step == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        copy_text(out->name, sizeof out->name, st, 1);
        rc = 0;
    } else {
        rc = step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    }
    sqlite3_finalize(st);
    return rc;
}

static int sq_session_end(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t *account)
{
    sqlite3_stmt *st = rprep(b, "DELETE FROM sessions WHERE hash = ?1 RETURNING account");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_blob(st, 1, hash, STORE_HASH_BYTES, SQLITE_STATIC);
    int step = sqlite3_step(st), rc = 0;
    if (step == SQLITE_ROW) {
        *account = sqlite3_column_int64(st, 0);
        rc = 1;
        step = sqlite3_step(st);
    }
    if (step != SQLITE_DONE)
        rc = DDZ_EDB;
    sqlite3_finalize(st);
    return rc;
}

/* ---- people's ratings ---------------------------------------------------------- */

#define RATING_COLS "mu, sigma, games, ll_games, ll_wins, farmer_games, farmer_wins"

/* Reads RATING_COLS from column `col` on into *r. */
static void rating_cols(sqlite3_stmt *st, int col, ddz_store_rating *r)
{
    r->mu = sqlite3_column_double(st, col);
    r->sigma = sqlite3_column_double(st, col + 1);
    r->games = sqlite3_column_int64(st, col + 2);
    r->ll_games = sqlite3_column_int64(st, col + 3);
    r->ll_wins = sqlite3_column_int64(st, col + 4);
    r->farmer_games = sqlite3_column_int64(st, col + 5);
    r->farmer_wins = sqlite3_column_int64(st, col + 6);
}

/* The steps of sq_rating_game inside its transaction. */
static int rating_game_tx(store_be *b, const char *rules, int64_t game, const int64_t player[3],
                          int64_t now, double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_rating r[3]), void *ctx,
                          ddz_store_rating r[3])
{
    sqlite3_stmt *st = rprep(b, "SELECT count(*) FROM people_rating_hist WHERE rules = ?1"
                                " AND game = ?2 AND player IN (?3, ?4, ?5)");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_text(st, 1, rules, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, game);
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(st, 3 + i, player[i]);
    int first = sqlite3_step(st);
    bool applied = first == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (first != SQLITE_ROW)
        return DDZ_EDB;
    for (int i = 0; i < 3; i++) {
        if (!(st = rprep(b, "INSERT INTO people_ratings(player, rules, " RATING_COLS ")"
                            " VALUES(?1, ?2, ?3, ?4, 0, 0, 0, 0, 0) ON CONFLICT DO NOTHING")))
            return DDZ_EDB;
        sqlite3_bind_int64(st, 1, player[i]);
        sqlite3_bind_text(st, 2, rules, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, mu0);
        sqlite3_bind_double(st, 4, sigma0);
        if (read_conn_write(b, st) < 0)
            return DDZ_EDB;
        if (!(st = rprep(b, "SELECT " RATING_COLS " FROM people_ratings"
                            " WHERE player = ?1 AND rules = ?2")))
            return DDZ_EDB;
        sqlite3_bind_int64(st, 1, player[i]);
        sqlite3_bind_text(st, 2, rules, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            rating_cols(st, 0, &r[i]);
        sqlite3_finalize(st);
        if (step != SQLITE_ROW)
            return DDZ_EDB;
        r[i].player = player[i];
    }
    if (applied)
        return 0;
    int rc = update(ctx, r);
    if (rc < 0)
        return rc;
    for (int i = 0; i < 3; i++) {
        if (!(st = rprep(b, "UPDATE people_ratings SET mu = ?3, sigma = ?4, games = ?5,"
                            " ll_games = ?6, ll_wins = ?7, farmer_games = ?8, farmer_wins = ?9"
                            " WHERE player = ?1 AND rules = ?2")))
            return DDZ_EDB;
        sqlite3_bind_int64(st, 1, player[i]);
        sqlite3_bind_text(st, 2, rules, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, r[i].mu);
        sqlite3_bind_double(st, 4, r[i].sigma);
        sqlite3_bind_int64(st, 5, r[i].games);
        sqlite3_bind_int64(st, 6, r[i].ll_games);
        sqlite3_bind_int64(st, 7, r[i].ll_wins);
        sqlite3_bind_int64(st, 8, r[i].farmer_games);
        sqlite3_bind_int64(st, 9, r[i].farmer_wins);
        if (read_conn_write(b, st) != 1)
            return DDZ_EDB;
        if (!(st = rprep(b, "INSERT INTO people_rating_hist(player, rules, game, at_ms, mu, sigma)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, ?6)")))
            return DDZ_EDB;
        sqlite3_bind_int64(st, 1, player[i]);
        sqlite3_bind_text(st, 2, rules, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, game);
        sqlite3_bind_int64(st, 4, now);
        sqlite3_bind_double(st, 5, r[i].mu);
        sqlite3_bind_double(st, 6, r[i].sigma);
        if (read_conn_write(b, st) != 1)
            return DDZ_EDB;
    }
    return 1;
}

static int sq_rating_game(store_be *b, const char *rules, int64_t game, const int64_t player[3],
                          int64_t now, double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_rating r[3]), void *ctx,
                          ddz_store_rating r[3])
{
    /* IMMEDIATE: the rows are read under the write lock, so no other
     * connection (another process on the file) writes them between. */
    if (!rbegin_tx(b))
        return DDZ_EDB;
    return rend_tx(b, rating_game_tx(b, rules, game, player, now, mu0, sigma0, update, ctx, r));
}

/* The steps of sq_puzzle_rate inside its transaction. */
static int puzzle_rate_tx(store_be *b, int64_t account, int64_t id, bool solved, int64_t now,
                          double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                                        double *deviation),
                          void *ctx, ddz_store_puzzle_rating *me)
{
    sqlite3_stmt *st = rprep(b, "SELECT rules, rating, deviation FROM puzzles WHERE id = ?1");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    double rating = 0, deviation = 0;
    if (step == SQLITE_ROW) {
        col_copy(st, 0, me->rules, sizeof me->rules);
        rating = sqlite3_column_double(st, 1);
        deviation = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return step == SQLITE_DONE ? DDZ_ENOTFOUND : DDZ_EDB;
    if (!(st = rprep(b, "INSERT INTO puzzle_ratings(account, rules, mu, sigma, attempts, solved)"
                        " VALUES(?1, ?2, ?3, ?4, 0, 0) ON CONFLICT DO NOTHING")))
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, account);
    bind_text(st, 2, me->rules);
    sqlite3_bind_double(st, 3, mu0);
    sqlite3_bind_double(st, 4, sigma0);
    if (read_conn_write(b, st) < 0)
        return DDZ_EDB;
    if (!(st = rprep(b, "SELECT mu, sigma, attempts, solved,"
                        " (SELECT count(*) FROM puzzle_attempts WHERE account = ?1 AND puzzle = ?3)"
                        " FROM puzzle_ratings WHERE account = ?1 AND rules = ?2")))
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, account);
    bind_text(st, 2, me->rules);
    sqlite3_bind_int64(st, 3, id);
    bool before = false;
    if ((step = sqlite3_step(st)) == SQLITE_ROW) {
        me->mu = me->mu_before = sqlite3_column_double(st, 0);
        me->sigma = sqlite3_column_double(st, 1);
        me->attempts = (long)sqlite3_column_int64(st, 2);
        me->solved = (long)sqlite3_column_int64(st, 3);
        before = sqlite3_column_int64(st, 4) > 0;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return DDZ_EDB;
    me->puzzle_before = me->puzzle_after = rating;
    if (before)
        return 0;
    int rc = update(ctx, me, &rating, &deviation);
    if (rc < 0)
        return rc;
    if (!(st = rprep(b, "UPDATE puzzle_ratings SET mu = ?3, sigma = ?4, attempts = ?5,"
                        " solved = ?6 WHERE account = ?1 AND rules = ?2")))
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, account);
    bind_text(st, 2, me->rules);
    sqlite3_bind_double(st, 3, me->mu);
    sqlite3_bind_double(st, 4, me->sigma);
    sqlite3_bind_int64(st, 5, me->attempts);
    sqlite3_bind_int64(st, 6, me->solved);
    if (read_conn_write(b, st) != 1)
        return DDZ_EDB;
    if (!(st = rprep(b, "INSERT INTO puzzle_attempts(account, puzzle, solved, at_ms, mu, sigma)"
                        " VALUES(?1, ?2, ?3, ?4, ?5, ?6)")))
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, account);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int(st, 3, solved);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_double(st, 5, me->mu);
    sqlite3_bind_double(st, 6, me->sigma);
    if (read_conn_write(b, st) != 1)
        return DDZ_EDB;
    if (!(st = rprep(b, "UPDATE puzzles SET rating = ?2, deviation = ?3 WHERE id = ?1")))
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, rating);
    sqlite3_bind_double(st, 3, deviation);
    return read_conn_write(b, st) == 1 ? 1 : DDZ_EDB;
}

static int sq_puzzle_rate(store_be *b, int64_t account, int64_t id, bool solved, int64_t now,
                          double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                                        double *deviation),
                          void *ctx, ddz_store_puzzle_rating *me)
{
    /* IMMEDIATE: the rows are read under the write lock (rating_game's) */
    if (!rbegin_tx(b))
        return DDZ_EDB;
    return rend_tx(b, puzzle_rate_tx(b, account, id, solved, now, mu0, sigma0, update, ctx, me));
}

static int sq_puzzle_rating_get(store_be *b, int64_t account, ddz_store_puzzle_rating *me)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(b->rdb,
                           "SELECT mu, sigma, attempts, solved FROM puzzle_ratings"
                           " WHERE account = ?1 AND rules = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, account);
    bind_text(st, 2, me->rules);
    int step = sqlite3_step(st), rc = step == SQLITE_DONE ? 0 : DDZ_EDB;
    if (step == SQLITE_ROW) {
        me->mu = me->mu_before = sqlite3_column_double(st, 0);
        me->sigma = sqlite3_column_double(st, 1);
        me->attempts = (long)sqlite3_column_int64(st, 2);
        me->solved = (long)sqlite3_column_int64(st, 3);
        rc = 1;
    }
    sqlite3_finalize(st);
    return rc;
}

static int sq_person_ratings(store_be *b, int64_t player,
                             int (*row)(void *ctx, const char *rules, const ddz_store_rating *r),
                             void *ctx)
{
    sqlite3_stmt *st = rprep(b, "SELECT rules, " RATING_COLS " FROM people_ratings"
                                " WHERE player = ?1 ORDER BY rules");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, player);
    int n = 0, step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ddz_store_rating r = {.player = player};
        rating_cols(st, 1, &r);
        rc = row(ctx, (const char *)sqlite3_column_text(st, 0), &r);
        n++;
    }
    return rows_end(st, rc < 0 ? SQLITE_DONE : step, rc, n);
}

static int sq_person_history(store_be *b, int64_t player, int limit,
                             int (*row)(void *ctx, const char *rules, int64_t at_ms, double mu,
                                        double sigma),
                             void *ctx)
{
    sqlite3_stmt *st = rprep(b, "SELECT rules, at_ms, mu, sigma FROM"
                                " (SELECT rules, at_ms, game, mu, sigma FROM people_rating_hist"
                                " WHERE player = ?1 ORDER BY at_ms DESC, game DESC LIMIT ?2)"
                                " ORDER BY rules, at_ms, game");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, player);
    sqlite3_bind_int(st, 2, limit);
    int n = 0, step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        rc = row(ctx, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_double(st, 2), sqlite3_column_double(st, 3));
        n++;
    }
    return rows_end(st, rc < 0 ? SQLITE_DONE : step, rc, n);
}

static int sq_person_games(store_be *b, int64_t player, int limit, int64_t *ids)
{
    /* a game has one rule set, so one row per game already; the GROUP BY
     * keeps "each game once" true whatever the key becomes */
    sqlite3_stmt *st = rprep(b, "SELECT game FROM people_rating_hist WHERE player = ?1"
                                " GROUP BY game ORDER BY max(at_ms) DESC, game DESC LIMIT ?2");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_int64(st, 1, player);
    sqlite3_bind_int(st, 2, limit);
    int n = 0, step = SQLITE_DONE;
    while (n < limit && (step = sqlite3_step(st)) == SQLITE_ROW)
        ids[n++] = sqlite3_column_int64(st, 0);
    /* stopped at `limit` with a row in hand: the LIMIT makes it the last */
    return rows_end(st, step == SQLITE_ROW ? SQLITE_DONE : step, 0, n);
}

static int sq_leaderboard(store_be *b, const char *rules, int limit, int min_games,
                          int (*row)(void *ctx, const char *name, const ddz_store_rating *r),
                          void *ctx)
{
    sqlite3_stmt *st = rprep(b, "SELECT a.name, r.player, r.mu, r.sigma, r.games, r.ll_games,"
                                " r.ll_wins, r.farmer_games, r.farmer_wins"
                                " FROM people_ratings r JOIN accounts a ON a.id = r.player"
                                " WHERE r.rules = ?1 AND r.games >= ?2 AND a.deleted_at IS NULL"
                                " ORDER BY r.mu DESC, r.games DESC, r.player LIMIT ?3");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_text(st, 1, rules, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, min_games);
    sqlite3_bind_int(st, 3, limit);
    int n = 0, step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ddz_store_rating r = {.player = sqlite3_column_int64(st, 1)};
        rating_cols(st, 2, &r);
        rc = row(ctx, (const char *)sqlite3_column_text(st, 0), &r);
        n++;
    }
    return rows_end(st, rc < 0 ? SQLITE_DONE : step, rc, n);
}

/* The accounts listed at or above `player` (counted with it) in
 * leaderboard's order, which the WHERE repeats: mu, then games, then id;
 * no row, and so 0, when `player` is not listed itself. */
static int sq_board_rank(store_be *b, const char *rules, int64_t player, int min_games,
                         int64_t *rank)
{
    *rank = 0;
    sqlite3_stmt *st = rprep(b, "SELECT count(*) FROM people_ratings m"
                                " JOIN accounts ma ON ma.id = m.player AND ma.deleted_at IS NULL"
                                " JOIN people_ratings r ON r.rules = m.rules AND r.games >= ?2"
                                " JOIN accounts a ON a.id = r.player AND a.deleted_at IS NULL"
                                " WHERE m.rules = ?1 AND m.player = ?3 AND m.games >= ?2"
                                " AND (r.mu > m.mu OR (r.mu = m.mu AND (r.games > m.games"
                                " OR (r.games = m.games AND r.player <= m.player))))");
    if (!st)
        return DDZ_EDB;
    sqlite3_bind_text(st, 1, rules, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, min_games);
    sqlite3_bind_int64(st, 3, player);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *rank = sqlite3_column_int64(st, 0);
        step = sqlite3_step(st);
    }
    return rows_end(st, step, 0, 0);
}

/* ---- the ladder's loads ------------------------------------------------------- */

static void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/* Runs `sql` bound with `rules` (and `name`, `limit` if given) on the
 * reading connection, calling row(ctx, st) for each row. */
static int ladder_read(store_be *b, const char *sql, const char *rules, const char *name, int limit,
                       void (*row)(void *ctx, sqlite3_stmt *st), void *ctx)
{
    sqlite3_stmt *st;
    int n = 0;
    if (sqlite3_prepare_v2(b->rdb, sql, -1, &st, NULL) != SQLITE_OK)
        return DDZ_EDB;
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
        n = DDZ_EDB;
    sqlite3_finalize(st);
    return n;
}

typedef struct ladder_cb {
    void (*player)(void *ctx, const ddz_store_ladder_player *p);
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

static int sq_ladder_players(store_be *b, const char *rules,
                             void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx)
{
    ladder_cb c = {.player = cb, .ctx = ctx};
    return ladder_read(b,
                       "SELECT name, mu, sigma, games, deals, score, faults, suspended"
                       " FROM ladder_players WHERE rules = ?1 ORDER BY name",
                       rules, NULL, 0, player_row, &c);
}

/* A row of either format: one from before schema version 5 has deal,
 * hand and compared NULL and its deal's three games. */
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
    h.deal = sqlite3_column_int64(st, 11);
    h.hand = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 12);
    /* text that does not parse (written by hand) shows no comparisons */
    ddz_store_ladder_cmp_parse((const char *)sqlite3_column_text(st, 13), &h);
    copy_text(h.name, sizeof h.name, st, 14);
    c->hist(c->ctx, &h);
}

static int sq_ladder_history(store_be *b, const char *rules, const char *name, int limit,
                             void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx)
{
    ladder_cb c = {.hist = cb, .ctx = ctx};
    return ladder_read(b,
                       "SELECT id, finished_at, mu, sigma, score, faults, game1, game2, game3,"
                       " opp1, opp2, deal, hand, compared, name FROM ladder_history"
                       " WHERE rules = ?1 AND name = ?2 ORDER BY id DESC LIMIT ?3",
                       rules, name, limit, hist_row, &c);
}

const store_ops ddz__store_sqlite_ops = {
    .open = sq_open,
    .close = sq_close,
    .write_batch = sq_write_batch,
    .id_block = NULL,
    .read_error = sq_read_error,
    .max_game_id = sq_max_game_id,
    .get_game = sq_get_game,
    .get_analysis = sq_get_analysis,
    .puzzle_get = sq_puzzle_get,
    .puzzle_near = sq_puzzle_near,
    .puzzle_rate = sq_puzzle_rate,
    .puzzle_rating_get = sq_puzzle_rating_get,
    .export_games = sq_export,
    .my_games = sq_my_games,
    .token_add = sq_token_add,
    .token_active = sq_token_active,
    .token_revoke = sq_token_revoke,
    .token_list = sq_token_list,
    .account_add = sq_account_add,
    .account_get = sq_account_get,
    .account_keys = sq_account_keys,
    .mine_copy = sq_mine_copy,
    .account_set_hash = sq_account_set_hash,
    .account_delete = sq_account_delete,
    .session_add = sq_session_add,
    .session_get = sq_session_get,
    .session_end = sq_session_end,
    .rating_game = sq_rating_game,
    .person_ratings = sq_person_ratings,
    .person_history = sq_person_history,
    .person_games = sq_person_games,
    .leaderboard = sq_leaderboard,
    .board_rank = sq_board_rank,
    .ladder_players = sq_ladder_players,
    .ladder_history = sq_ladder_history,
};
