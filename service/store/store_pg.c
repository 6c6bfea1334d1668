/* store_pg.c - the store's PostgreSQL backend (libpq): a writer connection
 * and a readers' connection to one database that several nodes may share
 * (store_be.h). Every call here may wait on the network, each round trip
 * under a bound of ours (pg_conn.h); store.c keeps them off the event
 * loop. A connection the server dropped, or that a bound dropped, is
 * reopened by the next call that needs it; a call that fails meanwhile
 * answers DDZ_EDB, as a SQLite error does. */
#include <libpq-fe.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/store/pg_conn.h"
#include "service/store/store_be.h"

/* Game ids come from the sequence games_id_blocks in blocks of ID_BLOCK:
 * nextval() = v hands out (v - ID_BLOCK, v]. Every node takes its own
 * blocks, so ids are unique across nodes without a round trip per game. */
#define ID_BLOCK 100
#define ID_BLOCK_STR "100"

/* Taken (transaction-scoped) while creating or migrating the schema, so
 * nodes starting together do it once: "ddz\0stor" as a bigint. */
#define SCHEMA_LOCK "SELECT pg_advisory_xact_lock(7234316346693824370)"

/* Version 7's tables: people's accounts and sessions (store.h). */
#define ACCOUNTS_SCHEMA                                                                            \
    "CREATE TABLE accounts("                                                                       \
    " id BIGSERIAL PRIMARY KEY,"                                                                   \
    " name TEXT NOT NULL,"                                                                         \
    " key TEXT NOT NULL UNIQUE,"                                                                   \
    " hash TEXT NOT NULL,"                                                                         \
    " created_at BIGINT NOT NULL,"                                                                 \
    " deleted_at BIGINT);"                                                                         \
    "CREATE TABLE sessions("                                                                       \
    " hash BYTEA PRIMARY KEY,"                                                                     \
    " account BIGINT NOT NULL,"                                                                    \
    " created_at BIGINT NOT NULL);"                                                                \
    "CREATE INDEX sessions_account ON sessions(account);"

/* Version 8's tables: people's ratings and their history (store.h). */
#define RATINGS_SCHEMA                                                                             \
    "CREATE TABLE people_ratings("                                                                 \
    " player BIGINT NOT NULL,"                                                                     \
    " rules TEXT NOT NULL,"                                                                        \
    " mu DOUBLE PRECISION NOT NULL,"                                                               \
    " sigma DOUBLE PRECISION NOT NULL,"                                                            \
    " games BIGINT NOT NULL,"                                                                      \
    " ll_games BIGINT NOT NULL,"                                                                   \
    " ll_wins BIGINT NOT NULL,"                                                                    \
    " farmer_games BIGINT NOT NULL,"                                                               \
    " farmer_wins BIGINT NOT NULL,"                                                                \
    " PRIMARY KEY(player, rules));"                                                                \
    "CREATE INDEX people_ratings_board ON people_ratings(rules, mu);"                              \
    "CREATE TABLE people_rating_hist("                                                             \
    " player BIGINT NOT NULL,"                                                                     \
    " rules TEXT NOT NULL,"                                                                        \
    " game BIGINT NOT NULL,"                                                                       \
    " at_ms BIGINT NOT NULL,"                                                                      \
    " mu DOUBLE PRECISION NOT NULL,"                                                               \
    " sigma DOUBLE PRECISION NOT NULL,"                                                            \
    " PRIMARY KEY(player, rules, game));"                                                          \
    "CREATE INDEX people_rating_hist_at ON people_rating_hist(player, at_ms);"

/* Version 9's table: the server's stock of puzzles (store.h). */
#define PUZZLES_SCHEMA                                                                             \
    "CREATE TABLE puzzles("                                                                        \
    " id BIGSERIAL PRIMARY KEY,"                                                                   \
    " game BIGINT NOT NULL,"                                                                       \
    " ply INTEGER NOT NULL,"                                                                       \
    " rules TEXT NOT NULL,"                                                                        \
    " hands TEXT NOT NULL,"                                                                        \
    " landlord INTEGER NOT NULL,"                                                                  \
    " turn INTEGER NOT NULL,"                                                                      \
    " last TEXT,"                                                                                  \
    " last_by INTEGER,"                                                                            \
    " side TEXT NOT NULL,"                                                                         \
    " solutions TEXT NOT NULL,"                                                                    \
    " moves INTEGER NOT NULL,"                                                                     \
    " difficulty DOUBLE PRECISION NOT NULL,"                                                       \
    " rating DOUBLE PRECISION NOT NULL,"                                                           \
    " deviation DOUBLE PRECISION NOT NULL,"                                                        \
    " created_at BIGINT NOT NULL,"                                                                 \
    " UNIQUE(game, ply));"                                                                         \
    "CREATE INDEX puzzles_pick ON puzzles(rules, rating);"                                         \
    "CREATE TABLE puzzle_ratings("                                                                 \
    " account BIGINT NOT NULL,"                                                                    \
    " rules TEXT NOT NULL,"                                                                        \
    " mu DOUBLE PRECISION NOT NULL,"                                                               \
    " sigma DOUBLE PRECISION NOT NULL,"                                                            \
    " attempts BIGINT NOT NULL,"                                                                   \
    " solved BIGINT NOT NULL,"                                                                     \
    " PRIMARY KEY(account, rules));"                                                               \
    "CREATE TABLE puzzle_attempts("                                                                \
    " account BIGINT NOT NULL,"                                                                    \
    " puzzle BIGINT NOT NULL,"                                                                     \
    " solved INTEGER NOT NULL,"                                                                    \
    " at_ms BIGINT NOT NULL,"                                                                      \
    " mu DOUBLE PRECISION NOT NULL,"                                                               \
    " sigma DOUBLE PRECISION NOT NULL,"                                                            \
    " PRIMARY KEY(account, puzzle));"

/* The schema at DDZ_STORE_SCHEMA_VERSION: the SQLite tables with the same
 * columns and meaning (store.h), in PostgreSQL's types. A later version
 * changes it and adds its migration (from the version before) to
 * pg_migrations. */
static const char pg_schema[] =
    "CREATE TABLE games("
    " id BIGINT PRIMARY KEY,"
    " room TEXT,"
    " game INTEGER NOT NULL,"
    " started_at BIGINT,"
    " finished_at BIGINT NOT NULL,"
    " aborted INTEGER NOT NULL DEFAULT 0,"
    " name_west TEXT, name_south TEXT, name_east TEXT,"
    " record TEXT NOT NULL,"
    " key TEXT);"
    "CREATE SEQUENCE games_id_blocks INCREMENT BY " ID_BLOCK_STR " MINVALUE " ID_BLOCK_STR
    " START WITH " ID_BLOCK_STR " MAXVALUE 4503599627370495;" /* DDZ_STORE_PAST_IDS - 1 */
    "CREATE TABLE turns("
    " id BIGSERIAL PRIMARY KEY,"
    " room TEXT,"
    " turn INTEGER NOT NULL,"
    " games INTEGER NOT NULL,"
    " names TEXT NOT NULL,"
    " totals TEXT NOT NULL,"
    " finished_at BIGINT NOT NULL);"
    "CREATE TABLE tokens("
    " name TEXT PRIMARY KEY,"
    " hash BYTEA NOT NULL,"
    " created_at BIGINT NOT NULL,"
    " revoked_at BIGINT);"
    "CREATE TABLE ladder_players("
    " rules TEXT NOT NULL, name TEXT NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,"
    " games BIGINT NOT NULL, deals BIGINT NOT NULL,"
    " score DOUBLE PRECISION NOT NULL, faults BIGINT NOT NULL,"
    " suspended TEXT, updated_at BIGINT NOT NULL,"
    " PRIMARY KEY(rules, name));"
    "CREATE TABLE ladder_history("
    " id BIGSERIAL PRIMARY KEY,"
    " rules TEXT NOT NULL, name TEXT NOT NULL, finished_at BIGINT NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,"
    " score DOUBLE PRECISION NOT NULL, faults INTEGER NOT NULL,"
    " game1 BIGINT, game2 BIGINT, game3 BIGINT, opp1 TEXT, opp2 TEXT,"
    " deal BIGINT, hand INTEGER, compared TEXT);"
    "CREATE INDEX ladder_history_player ON ladder_history(rules, name, id);"
    "CREATE TABLE mine("
    " owner BYTEA NOT NULL,"
    " game BIGINT NOT NULL,"
    " seat INTEGER NOT NULL,"
    " PRIMARY KEY(owner, game));"
    "CREATE TABLE analyses("
    " game BIGINT PRIMARY KEY,"
    " analysis TEXT NOT NULL,"
    " created_at BIGINT NOT NULL);" ACCOUNTS_SCHEMA RATINGS_SCHEMA PUZZLES_SCHEMA
    "CREATE TABLE store_schema(version INTEGER NOT NULL);";

/* pg_migrations[v] takes a database of version v to v + 1. PostgreSQL
 * support began at version 4: a database older than that was never made
 * by this backend. */
#define PG_FIRST_VERSION 4
static const char *const pg_migrations[DDZ_STORE_SCHEMA_VERSION] = {
    /* 4 -> 5: the ladder's deal at several tables (store_sqlite.c's 4 -> 5) */
    [4] = "ALTER TABLE ladder_history ADD COLUMN deal BIGINT, ADD COLUMN hand INTEGER,"
          " ADD COLUMN compared TEXT;"
          "DROP TABLE ladder_pairs;",
    /* 5 -> 6: post-game analyses (store_sqlite.c's 5 -> 6) */
    [5] = "CREATE TABLE analyses(game BIGINT PRIMARY KEY, analysis TEXT NOT NULL,"
          " created_at BIGINT NOT NULL);",
    /* 6 -> 7: accounts and sessions (store_sqlite.c's 6 -> 7) */
    [6] = ACCOUNTS_SCHEMA,
    /* 7 -> 8: people's ratings (store_sqlite.c's 7 -> 8) */
    [7] = RATINGS_SCHEMA,
    /* 8 -> 9: the stock of puzzles (store_sqlite.c's 8 -> 9) */
    [8] = PUZZLES_SCHEMA,
};

struct store_be {
    PGconn *ids;             /* the ids thread's connection (id blocks) */
    PGconn *w;               /* the writer's connection (writer and replay threads) */
    PGconn *r;               /* the readers' connection */
    int timeout_ms;          /* a round trip's bound */
    const ddz_pg_stop *stop; /* the store's: ends every wait at close */
    int64_t rdue;            /* the reads' deadline (read_deadline), 0: per statement */
    char rmsg[160];          /* why the last read failed */
};

/* Opening (the schema) waits at least this long a statement: nodes
 * starting together wait for each other's schema lock. */
#define OPEN_MS 10000

/* ---- connections ---------------------------------------------------------- */

/* Copies the first line of `msg` to out, "unknown error" if it is empty. */
static void first_line(char *out, size_t len, const char *msg)
{
    size_t n = msg ? strcspn(msg, "\n") : 0;
    while (n > 0 && (msg[n - 1] == ' ' || msg[n - 1] == '\t' || msg[n - 1] == '\r'))
        n--;
    if (n == 0)
        snprintf(out, len, "unknown error");
    else
        snprintf(out, len, "%.*s", (int)n, msg);
}

static PGconn *pg_connect(const char *url, const store_be_cfg *cfg, char *msg, size_t msglen)
{
    /* lock_timeout is SQLite's busy timeout: how long a statement waits
     * for a lock another connection holds (pg_conn.h for the rest) */
    PGconn *c = ddz_pg_connect(url, "ddz", cfg->busy_ms, 0, cfg->stop);
    if (!c) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        first_line(msg, msglen, ddz_pg_connect_error(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* The SQLSTATE of the last statement that failed on this thread, "" if
 * the connection failed rather than a statement. */
static _Thread_local char last_state[6];

/* Whether the last statement that failed on this thread failed because
 * the database did not answer within its bound (run()). */
static _Thread_local bool last_hung;

/* Copies why `res` (or the connection) failed to msg. */
static void failed(PGconn *c, const PGresult *res, char *msg, size_t msglen)
{
    const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(last_state, sizeof last_state, "%s", state ? state : "");
    last_hung = false;
    first_line(msg, msglen, m && *m ? m : PQerrorMessage(c));
}

/* Says in msg that the server did not answer by the deadline. */
static void hung(int64_t started, char *msg, size_t msglen)
{
    last_state[0] = '\0';
    last_hung = true;
    snprintf(msg, msglen, "no answer from the database server within %lld ms",
             (long long)(ddz_pg_now_ms() - started));
}

/* Runs `sql` with n text parameters on c, by `deadline` (ddz_pg_now_ms();
 * and the stop); returns the result (the caller clears it) or NULL with
 * the reason in msg. Reopens the connection first if it is down (dropped
 * by the server, or by a bound), within the same deadline. If `again`, a
 * statement that failed because the connection broke under it (the server
 * restarted, or ended this backend) is run once more on a new connection,
 * if time is left: only for statements that are safe to repeat (reads,
 * BEGIN). A statement given up at its bound is not: the server is not
 * answering. */
static PGresult *run(PGconn *c, const char *sql, int n, const char *const *v, bool again,
                     int64_t deadline, const ddz_pg_stop *stop, char *msg, size_t msglen)
{
    int64_t started = ddz_pg_now_ms();
    for (int attempt = 0;; attempt++) {
        if (PQstatus(c) != CONNECTION_OK && !ddz_pg_reset(c, deadline, stop)) {
            if (ddz_pg_hung())
                hung(started, msg, msglen);
            else
                failed(c, NULL, msg, msglen);
            return NULL;
        }
        PGresult *res = ddz_pg_exec(c, sql, n, v, deadline, stop);
        if (!res && ddz_pg_hung()) {
            hung(started, msg, msglen);
            return NULL;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
            return res;
        failed(c, res, msg, msglen);
        PQclear(res);
        if (!again || attempt > 0 || PQstatus(c) == CONNECTION_OK)
            return NULL;
    }
}

/* The deadline of a statement of the writer or the ids thread, or of a
 * read without one of its own: the bound from now. */
static int64_t from_now(const store_be *b)
{
    return ddz_pg_now_ms() + b->timeout_ms;
}

/* run() for a statement whose rows do not matter; returns success. */
static bool exec_ok(PGconn *c, const char *sql, bool again, int64_t deadline,
                    const ddz_pg_stop *stop, char *msg, size_t msglen)
{
    PGresult *res = run(c, sql, 0, NULL, again, deadline, stop, msg, msglen);
    PQclear(res);
    return res != NULL;
}

/* A statement of migrate(): the open's bound, at least OPEN_MS. */
#define MIG_RUN(c, sql, n, v) run(c, sql, n, v, false, mig_due(b), b->stop, msg, sizeof msg)
#define MIG_OK(c, sql) exec_ok(c, sql, false, mig_due(b), b->stop, msg, sizeof msg)

static int64_t mig_due(const store_be *b)
{
    return ddz_pg_now_ms() + (b->timeout_ms > OPEN_MS ? b->timeout_ms : OPEN_MS);
}

/* Brings the schema to DDZ_STORE_SCHEMA_VERSION and the id sequence past
 * every stored game, under the schema lock, on the writer's connection. */
static int migrate(store_be *b, const char *shown, char *err, size_t errlen)
{
    PGconn *c = b->w;
    char msg[160] = "";
    PGresult *res = NULL;
    long v = 0;
    if (!MIG_OK(c, "BEGIN") || !MIG_OK(c, SCHEMA_LOCK) ||
        !(res = MIG_RUN(c,
                        "SELECT CASE WHEN to_regclass('store_schema') IS NULL THEN 0"
                        " ELSE -1 END",
                        0, NULL)))
        goto fail;
    v = atol(PQgetvalue(res, 0, 0));
    PQclear(res);
    res = NULL;
    if (v < 0) {
        if (!(res = MIG_RUN(c, "SELECT COALESCE(MAX(version), 0) FROM store_schema", 0, NULL)))
            goto fail;
        v = atol(PQgetvalue(res, 0, 0));
        PQclear(res);
        res = NULL;
    }
    if (v > DDZ_STORE_SCHEMA_VERSION) {
        MIG_OK(c, "ROLLBACK");
        ddz__store_set_err(err, errlen,
                           "%s: schema version %ld is newer than this ddz understands (%d)", shown,
                           v, DDZ_STORE_SCHEMA_VERSION);
        return DDZ_EDB;
    }
    if (v == 0) {
        if (!MIG_OK(c, pg_schema) ||
            !MIG_OK(c, "INSERT INTO store_schema VALUES(" DDZ_STORE_VERSION_STR ")"))
            goto fail;
    }
    for (; v > 0 && v < DDZ_STORE_SCHEMA_VERSION; v++) {
        if (v < PG_FIRST_VERSION || !pg_migrations[v]) {
            snprintf(msg, sizeof msg, "no migration from schema version %ld", v);
            goto fail;
        }
        char sql[64];
        snprintf(sql, sizeof sql, "UPDATE store_schema SET version = %ld", v + 1);
        if (!MIG_OK(c, pg_migrations[v]) || !MIG_OK(c, sql))
            goto fail;
    }
    /* Ids added without the sequence (by hand, or an import) must not be
     * handed out again: the sequence starts past the largest stored (below
     * DDZ_STORE_PAST_IDS: the ids of a store that had none in hand). */
    if (!MIG_OK(c, "SELECT setval('games_id_blocks', m) FROM (SELECT MAX(id) AS m FROM games"
                   " WHERE id < 4503599627370496) x,"
                   " games_id_blocks q WHERE m > CASE WHEN q.is_called THEN q.last_value ELSE 0"
                   " END") ||
        !MIG_OK(c, "COMMIT"))
        goto fail;
    return 0;
fail:
    PQclear(res);
    ddz__store_set_err(err, errlen, "%s: creating the schema: %s", shown, msg);
    char ignored[160];
    exec_ok(c, "ROLLBACK", false, mig_due(b), b->stop, ignored, sizeof ignored);
    return DDZ_EDB;
}

static void pg_close(store_be *b)
{
    if (!b)
        return;
    if (b->ids)
        PQfinish(b->ids);
    if (b->w)
        PQfinish(b->w);
    if (b->r)
        PQfinish(b->r);
    free(b);
}

static store_be *pg_open(const char *url, const char *shown, const store_be_cfg *cfg, char *err,
                         size_t errlen)
{
    store_be *b = calloc(1, sizeof *b);
    char msg[200] = "";
    if (!b) {
        ddz__store_set_err(err, errlen, "%s: out of memory", shown);
        return NULL;
    }
    b->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : DDZ_PG_TIMEOUT_MS;
    b->stop = cfg->stop;
    if (!(b->w = pg_connect(url, cfg, msg, sizeof msg)) ||
        !(b->r = pg_connect(url, cfg, msg, sizeof msg)) ||
        !(b->ids = pg_connect(url, cfg, msg, sizeof msg))) {
        ddz__store_set_err(err, errlen, "%s: %s", shown, msg);
        goto fail;
    }
    if (migrate(b, shown, err, errlen) < 0)
        goto fail;
    return b;
fail:
    pg_close(b);
    return NULL;
}

/* ---- the writer ------------------------------------------------------------ */

typedef struct params {
    const char *v[16];
    char buf[16][32]; /* numbers as text */
} params;

static const char *p_i64(params *p, int i, int64_t x)
{
    snprintf(p->buf[i], sizeof p->buf[i], "%lld", (long long)x);
    return p->v[i] = p->buf[i];
}

static const char *p_dbl(params *p, int i, double x)
{
    snprintf(p->buf[i], sizeof p->buf[i], "%.17g", x); /* exact: read back as the same double */
    return p->v[i] = p->buf[i];
}

static bool write_stmt(store_be *b, const char *sql, int n, params *p, store_batch_result *res)
{
    PGresult *r = run(b->w, sql, n, p->v, false, from_now(b), b->stop, res->msg, sizeof res->msg);
    PQclear(r);
    return r != NULL;
}

static bool ladder_put(store_be *b, const char *rules, const ddz_store_ladder_player *pl,
                       int64_t when, store_batch_result *res)
{
    params p = {.v = {rules, pl->name}};
    p_dbl(&p, 2, pl->mu);
    p_dbl(&p, 3, pl->sigma);
    p_i64(&p, 4, pl->games);
    p_i64(&p, 5, pl->deals);
    p_dbl(&p, 6, pl->score);
    p_i64(&p, 7, pl->faults);
    p.v[8] = pl->suspended[0] ? pl->suspended : NULL;
    p_i64(&p, 9, when);
    /* an upsert: concurrent writers of one standing leave the last one */
    return write_stmt(b,
                      "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score,"
                      " faults, suspended, updated_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9,"
                      " $10) ON CONFLICT(rules, name) DO UPDATE SET mu = EXCLUDED.mu,"
                      " sigma = EXCLUDED.sigma, games = EXCLUDED.games, deals = EXCLUDED.deals,"
                      " score = EXCLUDED.score, faults = EXCLUDED.faults,"
                      " suspended = EXCLUDED.suspended, updated_at = EXCLUDED.updated_at",
                      10, &p, res);
}

/* A history row's insert. A row of hand -1 (the old format, from a
 * journal written before schema 5) is written as such rows were: its
 * three games, deal, hand and compared NULL; any other its game alone. */
static bool ladder_row(store_be *b, const store_item *it, const ddz_store_ladder_hist *h,
                       store_batch_result *res)
{
    char *cmp = ddz_store_ladder_cmp_text(h);
    if (!cmp) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        return false;
    }
    params p = {.v = {it->room, h->name}};
    p_i64(&p, 2, it->finished_ms);
    p_dbl(&p, 3, h->mu);
    p_dbl(&p, 4, h->sigma);
    p_dbl(&p, 5, h->score);
    p_i64(&p, 6, h->faults);
    bool old = h->hand < 0;
    for (int g = 0; g < (old ? 3 : 1); g++)
        p_i64(&p, 7 + g, h->games[g]);
    p.v[10] = h->opp[0][0] ? h->opp[0] : NULL;
    p.v[11] = h->opp[1][0] ? h->opp[1] : NULL;
    if (!old) {
        p_i64(&p, 12, h->deal);
        p_i64(&p, 13, h->hand);
        p.v[14] = cmp;
    }
    bool ok = write_stmt(b,
                         "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score,"
                         " faults, game1, game2, game3, opp1, opp2, deal, hand, compared)"
                         " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
                         " $15)",
                         15, &p, res);
    free(cmp);
    return ok;
}

static bool ladder_deal(store_be *b, const store_item *it, store_batch_result *res)
{
    const ddz_store_ladder_deal *d = it->deal;
    if (it->replay && d->nrows > 0) {
        /* The deal's rows are one transaction: its first history row
         * (player, time, deal, hand, game; NULL deal and hand for an old
         * row) says whether an earlier attempt committed them all; then
         * its standings are not written again either (a later standing
         * may have been written since). A deal without rows only sets
         * standings: writing them again is harmless. */
        const ddz_store_ladder_hist *h = &d->rows[0];
        params q = {.v = {it->room, h->name}};
        p_i64(&q, 2, it->finished_ms);
        if (h->hand >= 0) {
            p_i64(&q, 3, h->deal);
            p_i64(&q, 4, h->hand);
        }
        p_i64(&q, 5, h->games[0]);
        PGresult *r = run(b->w,
                          "SELECT 1 FROM ladder_history WHERE rules = $1 AND name = $2 AND"
                          " finished_at = $3 AND deal IS NOT DISTINCT FROM $4::BIGINT AND"
                          " hand IS NOT DISTINCT FROM $5::INTEGER AND game1 = $6",
                          6, q.v, false, from_now(b), b->stop, res->msg, sizeof res->msg);
        if (!r)
            return false;
        bool there = PQntuples(r) > 0;
        PQclear(r);
        if (there)
            return true;
    }
    for (int i = 0; i < d->nplayers; i++)
        if (!ladder_put(b, it->room, &d->p[i], it->finished_ms, res))
            return false;
    for (int i = 0; i < d->nrows; i++)
        if (!ladder_row(b, it, &d->rows[i], res))
            return false;
    return true;
}

static bool write_item(store_be *b, const store_item *it, store_batch_result *res)
{
    params p = {0};
    switch (it->kind) {
    case ITEM_LADDER_DEAL:
        return ladder_deal(b, it, res);
    case ITEM_LADDER_PUT:
        return ladder_put(b, it->room, &it->deal->p[0], it->finished_ms, res);
    case ITEM_GAME:
        p_i64(&p, 0, it->id);
        p.v[1] = it->room;
        p_i64(&p, 2, it->number);
        p_i64(&p, 3, it->finished_ms);
        p_i64(&p, 4, it->aborted);
        for (int i = 0; i < 3; i++)
            p.v[5 + i] = it->names[i];
        p.v[8] = it->text;
        p.v[9] = it->key;
        /* a replay: the id is the record's key (an earlier attempt may
         * have committed it) */
        return write_stmt(b,
                          it->replay ? "INSERT INTO games(id, room, game, started_at, finished_at,"
                                       " aborted, name_west, name_south, name_east, record, key)"
                                       " VALUES($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10)"
                                       " ON CONFLICT(id) DO NOTHING"
                                     : "INSERT INTO games(id, room, game, started_at, finished_at,"
                                       " aborted, name_west, name_south, name_east, record, key)"
                                       " VALUES($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10)",
                          10, &p, res);
    case ITEM_MINE: {
        char hex[2 * DDZ_STORE_ME_BYTES + 1];
        sodium_bin2hex(hex, sizeof hex, it->me, sizeof it->me);
        p.v[0] = hex;
        p_i64(&p, 1, it->id);
        p_i64(&p, 2, it->number);
        return write_stmt(b,
                          "INSERT INTO mine(owner, game, seat) VALUES(decode($1, 'hex'), $2, $3)"
                          " ON CONFLICT(owner, game) DO NOTHING",
                          3, &p, res);
    }
    case ITEM_PUBLISH:
        p_i64(&p, 0, it->id);
        /* idempotent: a replay writes it again */
        return write_stmt(b, "UPDATE games SET key = NULL WHERE id = $1", 1, &p, res);
    case ITEM_ANALYSIS:
        p_i64(&p, 0, it->id);
        p.v[1] = it->text;
        p_i64(&p, 2, it->finished_ms);
        /* two nodes may compute the same analysis: the first one stays,
         * unless it is of an older form (its "version" lower, or none:
         * analyst.h), which the new one replaces */
        return write_stmt(b,
                          "INSERT INTO analyses(game, analysis, created_at) VALUES($1, $2, $3)"
                          " ON CONFLICT(game) DO UPDATE SET analysis = excluded.analysis,"
                          " created_at = excluded.created_at"
                          " WHERE coalesce((analyses.analysis::jsonb->>'version')::bigint, 1)"
                          " < coalesce((excluded.analysis::jsonb->>'version')::bigint, 1)",
                          3, &p, res);
    case ITEM_PUZZLE: {
        const ddz_store_puzzle *pz = it->puzzle;
        bool leads = pz->last_by < 0;
        p_i64(&p, 0, pz->game);
        p_i64(&p, 1, pz->ply);
        p.v[2] = pz->rules;
        p.v[3] = pz->hands;
        p_i64(&p, 4, pz->landlord);
        p_i64(&p, 5, pz->turn);
        p.v[6] = leads ? NULL : pz->last;
        if (!leads)
            p_i64(&p, 7, pz->last_by);
        p.v[8] = pz->side;
        p.v[9] = pz->solutions;
        p_i64(&p, 10, pz->moves);
        p_dbl(&p, 11, pz->difficulty);
        p_dbl(&p, 12, pz->rating);
        p_dbl(&p, 13, pz->deviation);
        p_i64(&p, 14, it->finished_ms);
        /* a game examined again (another node, a restart) adds nothing */
        return write_stmt(b,
                          "INSERT INTO puzzles(game, ply, rules, hands, landlord, turn, last,"
                          " last_by, side, solutions, moves, difficulty, rating, deviation,"
                          " created_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
                          " $12, $13, $14, $15) ON CONFLICT(game, ply) DO NOTHING",
                          15, &p, res);
    }
    case ITEM_TURN:
        break;
    }
    p.v[0] = it->room;
    p_i64(&p, 1, it->number);
    p_i64(&p, 2, it->games);
    p.v[3] = it->text;
    p.v[4] = it->totals;
    p_i64(&p, 5, it->finished_ms);
    /* turns has no key but its serial id: a replay writes the row unless
     * the same result (room, turn, time, names, totals) is there */
    return write_stmt(b,
                      it->replay
                          ? "INSERT INTO turns(room, turn, games, names, totals, finished_at)"
                            " SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS(SELECT 1 FROM"
                            " turns WHERE room IS NOT DISTINCT FROM $1 AND turn = $2 AND"
                            " finished_at = $6 AND names = $4 AND totals = $5)"
                          : "INSERT INTO turns(room, turn, games, names, totals, finished_at)"
                            " VALUES($1, $2, $3, $4, $5, $6)",
                      6, &p, res);
}

/* Whether the statement that just failed on `c` failed for want of the
 * database rather than for what it asked: the connection is gone, or
 * SQLSTATE class 08 (connection), 40 (rolled back: serialization, deadlock),
 * 53 (insufficient resources), 55 (a lock not granted), 57 (shut down,
 * cancelled), 58 (system error). Such a batch goes to the journal; any
 * other failure (a wrong table, a permission) would fail again however
 * often it were tried, and is counted as failed. */
static bool away(PGconn *c)
{
    static const char transient[][3] = {"08", "40", "53", "55", "57", "58"};
    if (PQstatus(c) != CONNECTION_OK || !last_state[0])
        return true;
    for (size_t i = 0; i < sizeof transient / sizeof transient[0]; i++)
        if (strncmp(last_state, transient[i], 2) == 0)
            return true;
    return false;
}

/* One pass over the batch in one transaction. Without `careful`, the first
 * item that fails rolls everything back; if the item itself is at fault
 * (its data: SQLSTATE class 22 or 23, e.g. an id stored twice) the pass
 * returns false (nothing counted: run it again carefully), otherwise (a
 * lock not granted in lock_timeout, a lost connection) the whole batch
 * fails at once, as SQLite's does when no transaction can start, rather
 * than waiting for a lock per item. With `careful`, each item runs under a
 * savepoint, so a failing one is counted and skipped and the rest commit. */
/* A statement of the writer's whose rows do not matter, by the bound. */
#define W_OK(sql, again, m) exec_ok(b->w, sql, again, from_now(b), b->stop, m, sizeof m)

static bool batch_pass(store_be *b, store_item *batch, bool careful, store_batch_result *res)
{
    uint64_t n = 0, ok = 0, bad = 0;
    for (store_item *it = batch; it; it = it->next)
        n++;
    char msg[160];
    if (!W_OK("BEGIN", true, res->msg)) {
        res->bad += n;
        res->lost = away(b->w);
        res->hung = res->lost && last_hung;
        return true;
    }
    for (store_item *it = batch; it; it = it->next) {
        if (careful && !W_OK("SAVEPOINT item", false, res->msg))
            goto lost;
        if (write_item(b, it, res)) {
            ok++;
            if (careful && !W_OK("RELEASE SAVEPOINT item", false, res->msg))
                goto lost;
            continue;
        }
        if (PQstatus(b->w) != CONNECTION_OK ||
            (!careful && strncmp(last_state, "22", 2) != 0 && strncmp(last_state, "23", 2) != 0))
            goto lost;
        if (!careful) {
            W_OK("ROLLBACK", false, msg);
            return false;
        }
        bad++;
        if (!W_OK("ROLLBACK TO SAVEPOINT item", false, res->msg))
            goto lost;
    }
    if (!W_OK("COMMIT", false, res->msg))
        goto lost;
    res->ok += ok;
    res->bad += bad;
    return true;
lost:
    res->lost = away(b->w);
    res->hung = res->lost && last_hung;
    if (PQstatus(b->w) == CONNECTION_OK)
        W_OK("ROLLBACK", false, msg);
    res->bad += n;
    return true;
}

static void pg_write_batch(store_be *b, store_item *batch, store_batch_result *res)
{
    if (!batch_pass(b, batch, false, res))
        batch_pass(b, batch, true, res);
}

static bool pg_writer_lost(store_be *b)
{
    return PQstatus(b->w) != CONNECTION_OK;
}

static int pg_id_block(store_be *b, int64_t *first, int64_t *last, char *msg, size_t msglen)
{
    PGresult *res = run(b->ids, "SELECT nextval('games_id_blocks')", 0, NULL, true, from_now(b),
                        b->stop, msg, msglen);
    if (!res)
        return DDZ_EDB;
    int64_t v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    *first = v - ID_BLOCK + 1;
    *last = v;
    return 0;
}

/* ---- reads ------------------------------------------------------------------ */

static const char *pg_read_error(store_be *b)
{
    return b->rmsg;
}

static void pg_read_deadline(store_be *b, int64_t due_ms)
{
    b->rdue = due_ms;
}

/* The reads' deadline: the one set for them, else the bound from now. */
static int64_t read_due(const store_be *b)
{
    return b->rdue ? b->rdue : from_now(b);
}

/* run() on the readers' connection, repeated once if it broke. */
static PGresult *rd(store_be *b, const char *sql, int n, const char *const *v)
{
    return run(b->r, sql, n, v, true, read_due(b), b->stop, b->rmsg, sizeof b->rmsg);
}

static const char *val(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

static int64_t i64(const PGresult *res, int row, int col)
{
    return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

static int pg_max_game_id(store_be *b, int64_t *out)
{
    PGresult *res = rd(b, "SELECT COALESCE(MAX(id), 0) FROM games", 0, NULL);
    if (!res)
        return DDZ_EDB;
    *out = i64(res, 0, 0);
    PQclear(res);
    return 0;
}

static int pg_get_game(store_be *b, int64_t id, char **record, char **key)
{
    *record = *key = NULL;
    params p = {0};
    p_i64(&p, 0, id);
    PGresult *res = rd(b, "SELECT record, key FROM games WHERE id = $1", 1, p.v);
    if (!res)
        return DDZ_EDB;
    int rc = DDZ_ENOTFOUND;
    if (PQntuples(res) == 1) {
        const char *k = val(res, 0, 1);
        *record = strdup(PQgetvalue(res, 0, 0));
        *key = k ? strdup(k) : NULL;
        rc = !*record || (k && !*key) ? DDZ_ENOMEM : 0;
        if (rc < 0) {
            free(*record);
            free(*key);
            *record = *key = NULL;
        }
    }
    PQclear(res);
    return rc;
}

static int pg_get_analysis(store_be *b, int64_t id, char **json)
{
    *json = NULL;
    params p = {0};
    p_i64(&p, 0, id);
    PGresult *res = rd(b, "SELECT analysis FROM analyses WHERE game = $1", 1, p.v);
    if (!res)
        return DDZ_EDB;
    int rc = DDZ_ENOTFOUND;
    if (PQntuples(res) == 1)
        rc = (*json = strdup(PQgetvalue(res, 0, 0))) ? 0 : DDZ_ENOMEM;
    PQclear(res);
    return rc;
}

static int pg_export(store_be *b, bool all, int (*line)(void *ctx, const char *record), void *ctx)
{
    const char *sql = all ? "SELECT record FROM games ORDER BY id"
                          : "SELECT record FROM games WHERE aborted = 0 ORDER BY id";
    /* One query is one snapshot; its rows come one at a time rather than
     * all in memory, each within the bound (a long export is no hang). A
     * connection the server dropped is reopened first. */
    PGresult *res = rd(b, "SELECT 1", 0, NULL);
    if (!res)
        return DDZ_EDB;
    PQclear(res);
    int64_t started = ddz_pg_now_ms();
    if (!ddz_pg_send(b->r, sql, 0, NULL, from_now(b), b->stop) || !PQsetSingleRowMode(b->r)) {
        if (ddz_pg_hung())
            hung(started, b->rmsg, sizeof b->rmsg);
        else
            first_line(b->rmsg, sizeof b->rmsg, PQerrorMessage(b->r));
        while ((res = ddz_pg_next(b->r, from_now(b), b->stop)))
            PQclear(res);
        return DDZ_EDB;
    }
    int count = 0, rc = 0;
    while ((started = ddz_pg_now_ms(), res = ddz_pg_next(b->r, from_now(b), b->stop))) {
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_SINGLE_TUPLE && rc == 0) {
            if ((rc = line(ctx, PQgetvalue(res, 0, 0))) == 0)
                count++;
        } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && rc == 0) {
            failed(b->r, res, b->rmsg, sizeof b->rmsg);
            rc = DDZ_EDB;
        }
        PQclear(res); /* after a failed line: the rest is read and dropped */
    }
    if (ddz_pg_hung()) { /* rows stopped coming: the connection was dropped */
        hung(started, b->rmsg, sizeof b->rmsg);
        return DDZ_EDB;
    }
    return rc < 0 ? rc : count;
}

static int pg_my_games(store_be *b, const uint8_t me[DDZ_STORE_ME_BYTES], int max,
                       int (*row)(void *ctx, const store_mine_row *r), void *ctx)
{
    char hex[2 * DDZ_STORE_ME_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, me, DDZ_STORE_ME_BYTES);
    params p = {.v = {hex}};
    p_i64(&p, 1, max);
    PGresult *res = rd(b,
                       "SELECT g.id, g.key, g.room, g.finished_at, m.seat, g.name_west,"
                       " g.name_south, g.name_east, g.record"
                       " FROM mine m JOIN games g ON g.id = m.game"
                       " WHERE m.owner = decode($1, 'hex') ORDER BY m.game DESC LIMIT $2",
                       2, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        store_mine_row r = {
            .id = i64(res, i, 0),
            .key = val(res, i, 1),
            .room = val(res, i, 2),
            .finished_ms = i64(res, i, 3),
            .seat = (int)i64(res, i, 4),
            .names = {val(res, i, 5), val(res, i, 6), val(res, i, 7)},
            .record = val(res, i, 8),
        };
        rc = row(ctx, &r);
    }
    PQclear(res);
    return rc < 0 ? rc : n;
}

/* A write on the readers' connection (the token commands): not repeated
 * after a broken connection, which may have run it. Returns the rows
 * changed or DDZ_EDB. */
static int rd_write(store_be *b, const char *sql, int n, const char *const *v)
{
    PGresult *res = run(b->r, sql, n, v, false, read_due(b), b->stop, b->rmsg, sizeof b->rmsg);
    if (!res)
        return DDZ_EDB;
    int changed = atoi(PQcmdTuples(res));
    PQclear(res);
    return changed;
}

static int pg_token_add(store_be *b, const char *name, const uint8_t hash[STORE_HASH_BYTES],
                        int64_t now)
{
    char hex[2 * STORE_HASH_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, hash, STORE_HASH_BYTES);
    params p = {.v = {name, hex}};
    p_i64(&p, 2, now);
    /* One statement, so concurrent adds of one name (from any node) give
     * one token: a revoked row is replaced, an active one left alone. */
    return rd_write(b,
                    "INSERT INTO tokens(name, hash, created_at, revoked_at)"
                    " VALUES($1, decode($2, 'hex'), $3, NULL)"
                    " ON CONFLICT(name) DO UPDATE SET hash = EXCLUDED.hash,"
                    " created_at = EXCLUDED.created_at, revoked_at = NULL"
                    " WHERE tokens.revoked_at IS NOT NULL",
                    3, p.v);
}

static int pg_token_active(store_be *b,
                           void (*row)(void *ctx, const char *name, const uint8_t *hash,
                                       size_t len),
                           void *ctx)
{
    PGresult *res =
        rd(b, "SELECT name, encode(hash, 'hex') FROM tokens WHERE revoked_at IS NULL", 0, NULL);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    for (int i = 0; i < n; i++) {
        uint8_t h[STORE_HASH_BYTES];
        size_t len = 0;
        const char *hex = PQgetvalue(res, i, 1);
        if (sodium_hex2bin(h, sizeof h, hex, strlen(hex), NULL, &len, NULL) == 0)
            row(ctx, PQgetvalue(res, i, 0), h, len);
    }
    PQclear(res);
    return n;
}

static int pg_token_revoke(store_be *b, const char *name, int64_t now)
{
    params p = {0};
    p_i64(&p, 0, now);
    p.v[1] = name;
    return rd_write(b, "UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL",
                    2, p.v);
}

static int pg_token_list(store_be *b,
                         int (*row)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                         void *ctx)
{
    /* COLLATE "C": bytewise, as SQLite orders, whatever the database's locale */
    PGresult *res = rd(b,
                       "SELECT name, created_at, revoked_at IS NOT NULL FROM tokens"
                       " ORDER BY name COLLATE \"C\"",
                       0, NULL);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = row(ctx, PQgetvalue(res, i, 0), i64(res, i, 1), PQgetvalue(res, i, 2)[0] == 't');
    PQclear(res);
    return rc < 0 ? rc : n;
}

/* ---- accounts and sessions ---------------------------------------------------- */

static void copy_val(char *dst, size_t len, const PGresult *res, int row, int col);

/* A statement on the readers' connection that writes and returns one
 * number in its first row (a count, an id): not repeated after a broken
 * connection. Returns it (0 when no row) or DDZ_EDB. */
static int64_t rd_write_val(store_be *b, const char *sql, int n, const char *const *v)
{
    PGresult *res = run(b->r, sql, n, v, false, read_due(b), b->stop, b->rmsg, sizeof b->rmsg);
    if (!res)
        return DDZ_EDB;
    int64_t x = PQntuples(res) > 0 && !PQgetisnull(res, 0, 0) ? i64(res, 0, 0) : 0;
    PQclear(res);
    return x;
}

static int pg_account_add(store_be *b, const char *name, const char *key, const char *hash,
                          int64_t now, int64_t purge_before, int64_t *id)
{
    params p = {.v = {key}};
    p_i64(&p, 1, purge_before);
    /* The purge alone changes nothing anyone sees (the row was deleted
     * long ago), so the two statements need no transaction; the insert is
     * one statement, so makers of one name on several nodes get one row. */
    if (rd_write(b, "DELETE FROM accounts WHERE key = $1 AND deleted_at < $2", 2, p.v) < 0)
        return DDZ_EDB;
    params q = {.v = {name, key, hash}};
    p_i64(&q, 3, now);
    int64_t made = rd_write_val(b,
                                "INSERT INTO accounts(name, key, hash, created_at)"
                                " VALUES($1, $2, $3, $4) ON CONFLICT(key) DO NOTHING RETURNING id",
                                4, q.v);
    if (made < 0)
        return DDZ_EDB;
    if (made > 0)
        *id = made;
    return made > 0;
}

static int pg_account_keys(store_be *b, const char *key, int64_t since_ms, int64_t purge_before,
                           void (*row)(void *ctx, const char *key), void *ctx)
{
    params p = {.v = {key}};
    p_i64(&p, 1, since_ms);
    p_i64(&p, 2, purge_before);
    PGresult *res = rd(b,
                       "SELECT key FROM accounts WHERE ($1::text IS NULL OR key = $1)"
                       " AND created_at >= $2 AND (deleted_at IS NULL OR deleted_at >= $3)",
                       3, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    for (int i = 0; i < n; i++)
        row(ctx, PQgetvalue(res, i, 0));
    PQclear(res);
    return n;
}

static int pg_mine_copy(store_be *b, const uint8_t from[DDZ_STORE_ME_BYTES],
                        const uint8_t to[DDZ_STORE_ME_BYTES])
{
    char f[2 * DDZ_STORE_ME_BYTES + 1], t[2 * DDZ_STORE_ME_BYTES + 1];
    sodium_bin2hex(f, sizeof f, from, DDZ_STORE_ME_BYTES);
    sodium_bin2hex(t, sizeof t, to, DDZ_STORE_ME_BYTES);
    const char *v[] = {f, t};
    return rd_write(
        b,
        "INSERT INTO mine(owner, game, seat) SELECT decode($2, 'hex'), game, seat"
        " FROM mine WHERE owner = decode($1, 'hex') ON CONFLICT(owner, game) DO NOTHING",
        2, v);
}

static int pg_account_get(store_be *b, const char *key, ddz_store_account *out)
{
    const char *v[] = {key};
    PGresult *res =
        rd(b, "SELECT id, name, hash FROM accounts WHERE key = $1 AND deleted_at IS NULL", 1, v);
    if (!res)
        return DDZ_EDB;
    int rc = DDZ_ENOTFOUND;
    if (PQntuples(res) == 1) {
        out->id = i64(res, 0, 0);
        copy_val(out->name, sizeof out->name, res, 0, 1);
        copy_val(out->hash, sizeof out->hash, res, 0, 2);
        rc = 0;
    }
    PQclear(res);
    return rc;
}

static int pg_account_set_hash(store_be *b, int64_t id, const char *hash, const uint8_t *keep)
{
    char hex[2 * STORE_HASH_BYTES + 1];
    if (keep)
        sodium_bin2hex(hex, sizeof hex, keep, STORE_HASH_BYTES);
    params p = {.v = {NULL, hash, keep ? hex : NULL}};
    p_i64(&p, 0, id);
    /* one statement, so one transaction: the new hash and the sessions'
     * end together */
    return (int)rd_write_val(b,
                             "WITH u AS (UPDATE accounts SET hash = $2"
                             " WHERE id = $1 AND deleted_at IS NULL RETURNING id),"
                             " d AS (DELETE FROM sessions WHERE account IN (SELECT id FROM u)"
                             " AND ($3::text IS NULL OR hash <> decode($3, 'hex')))"
                             " SELECT count(*) FROM u",
                             3, p.v);
}

static int pg_account_delete(store_be *b, int64_t id, int64_t now)
{
    params p = {0};
    p_i64(&p, 0, id);
    p_i64(&p, 1, now);
    return (int)rd_write_val(b,
                             "WITH u AS (UPDATE accounts SET hash = '', deleted_at = $2"
                             " WHERE id = $1 AND deleted_at IS NULL RETURNING id),"
                             " d AS (DELETE FROM sessions WHERE account IN (SELECT id FROM u))"
                             " SELECT count(*) FROM u",
                             2, p.v);
}

static int pg_session_add(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t id,
                          int64_t now)
{
    char hex[2 * STORE_HASH_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, hash, STORE_HASH_BYTES);
    params p = {.v = {hex}};
    p_i64(&p, 1, id);
    p_i64(&p, 2, now);
    return rd_write(b,
                    "INSERT INTO sessions(hash, account, created_at)"
                    " SELECT decode($1, 'hex'), id, $3 FROM accounts"
                    " WHERE id = $2 AND deleted_at IS NULL",
                    3, p.v);
}

static int pg_session_get(store_be *b, const uint8_t hash[STORE_HASH_BYTES], ddz_store_account *out)
{
    char hex[2 * STORE_HASH_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, hash, STORE_HASH_BYTES);
    const char *v[] = {hex};
    PGresult *res = rd(b,
                       "SELECT a.id, a.name FROM sessions s JOIN accounts a ON a.id = s.account"
                       " WHERE s.hash = decode($1, 'hex') AND a.deleted_at IS NULL",
                       1, v);
    if (!res)
        return DDZ_EDB;
    int rc = DDZ_ENOTFOUND;
    if (PQntuples(res) == 1) {
        out->id = i64(res, 0, 0);
        copy_val(out->name, sizeof out->name, res, 0, 1);
        rc = 0;
    }
    PQclear(res);
    return rc;
}

static int pg_session_end(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t *account)
{
    char hex[2 * STORE_HASH_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, hash, STORE_HASH_BYTES);
    const char *v[] = {hex};
    PGresult *res =
        run(b->r, "DELETE FROM sessions WHERE hash = decode($1, 'hex') RETURNING account", 1, v,
            false, read_due(b), b->stop, b->rmsg, sizeof b->rmsg);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    if (n > 0)
        *account = i64(res, 0, 0);
    PQclear(res);
    return n > 0;
}

/* ---- people's ratings ---------------------------------------------------------- */

#define RATING_COLS "mu, sigma, games, ll_games, ll_wins, farmer_games, farmer_wins"

static double dbl(const PGresult *res, int row, int col)
{
    return strtod(PQgetvalue(res, row, col), NULL);
}

/* Reads RATING_COLS from column `col` on of row `row` into *r. */
static void rating_cols(const PGresult *res, int row, int col, ddz_store_rating *r)
{
    r->mu = dbl(res, row, col);
    r->sigma = dbl(res, row, col + 1);
    r->games = i64(res, row, col + 2);
    r->ll_games = i64(res, row, col + 3);
    r->ll_wins = i64(res, row, col + 4);
    r->farmer_games = i64(res, row, col + 5);
    r->farmer_wins = i64(res, row, col + 6);
}

/* A statement of rating_game's transaction on the readers' connection:
 * never repeated (a broken connection ended the transaction). */
static PGresult *tx_run(store_be *b, const char *sql, int n, const char *const *v)
{
    return run(b->r, sql, n, v, false, read_due(b), b->stop, b->rmsg, sizeof b->rmsg);
}

static bool tx_ok(store_be *b, const char *sql, int n, const char *const *v)
{
    PGresult *res = tx_run(b, sql, n, v);
    PQclear(res);
    return res != NULL;
}

/* Ends the readers' connection's transaction begun with "BEGIN": COMMIT
 * when rc >= 0, else (or when the commit fails) ROLLBACK. Returns rc, or
 * DDZ_EDB when the commit failed. */
static int tx_end(store_be *b, int rc)
{
    if (rc >= 0 && !tx_ok(b, "COMMIT", 0, NULL))
        rc = DDZ_EDB;
    if (rc < 0) {
        char ignored[160];
        PQclear(
            run(b->r, "ROLLBACK", 0, NULL, false, read_due(b), b->stop, ignored, sizeof ignored));
    }
    return rc;
}

/* The steps of pg_rating_game between its BEGIN and COMMIT. */
static int rating_game_tx(store_be *b, const char *rules, int64_t game, const int64_t player[3],
                          int64_t now, double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_rating r[3]), void *ctx,
                          ddz_store_rating r[3])
{
    params p = {.v = {rules}};
    for (int i = 0; i < 3; i++)
        p_i64(&p, 1 + i, player[i]);
    p_dbl(&p, 4, mu0);
    p_dbl(&p, 5, sigma0);
    p_i64(&p, 6, game);
    /* The rows made and locked in player order: two transactions locking
     * rows of the same players (on any node) take them in one order, so
     * neither waits for the other in a circle; the second reads the rows
     * as the first wrote them. */
    if (!tx_ok(b,
               "INSERT INTO people_ratings(player, rules, " RATING_COLS ")"
               " SELECT x, $1::text, $5::float8, $6::float8, 0, 0, 0, 0, 0"
               " FROM unnest(ARRAY[$2::bigint, $3::bigint, $4::bigint]) x"
               " ORDER BY x ON CONFLICT DO NOTHING",
               6, p.v))
        return DDZ_EDB;
    PGresult *res = tx_run(b,
                           "SELECT player, " RATING_COLS " FROM people_ratings WHERE rules = $1"
                           " AND player IN ($2, $3, $4) ORDER BY player FOR UPDATE",
                           4, p.v);
    if (!res)
        return DDZ_EDB;
    int found = 0;
    for (int row = 0; row < PQntuples(res); row++) {
        int64_t who = i64(res, row, 0);
        for (int i = 0; i < 3; i++)
            if (player[i] == who) {
                r[i].player = who;
                rating_cols(res, row, 1, &r[i]);
                found++;
            }
    }
    PQclear(res);
    if (found != 3)
        return DDZ_EDB;
    const char *hv[] = {p.v[0], p.v[1], p.v[2], p.v[3], p.v[6]};
    if (!(res = tx_run(b,
                       "SELECT count(*) FROM people_rating_hist WHERE rules = $1"
                       " AND game = $5 AND player IN ($2, $3, $4)",
                       5, hv)))
        return DDZ_EDB;
    bool applied = i64(res, 0, 0) > 0;
    PQclear(res);
    if (applied)
        return 0;
    int rc = update(ctx, r);
    if (rc < 0)
        return rc;
    for (int i = 0; i < 3; i++) {
        params q = {.v = {rules}};
        p_i64(&q, 1, player[i]);
        p_dbl(&q, 2, r[i].mu);
        p_dbl(&q, 3, r[i].sigma);
        p_i64(&q, 4, r[i].games);
        p_i64(&q, 5, r[i].ll_games);
        p_i64(&q, 6, r[i].ll_wins);
        p_i64(&q, 7, r[i].farmer_games);
        p_i64(&q, 8, r[i].farmer_wins);
        p_i64(&q, 9, game);
        p_i64(&q, 10, now);
        if (!tx_ok(b,
                   "WITH u AS (UPDATE people_ratings SET mu = $3, sigma = $4, games = $5,"
                   " ll_games = $6, ll_wins = $7, farmer_games = $8, farmer_wins = $9"
                   " WHERE player = $2 AND rules = $1)"
                   " INSERT INTO people_rating_hist(player, rules, game, at_ms, mu, sigma)"
                   " VALUES($2, $1, $10, $11, $3, $4)",
                   11, q.v))
            return DDZ_EDB;
    }
    return 1;
}

static int pg_rating_game(store_be *b, const char *rules, int64_t game, const int64_t player[3],
                          int64_t now, double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_rating r[3]), void *ctx,
                          ddz_store_rating r[3])
{
    if (!tx_ok(b, "BEGIN", 0, NULL))
        return DDZ_EDB;
    return tx_end(b, rating_game_tx(b, rules, game, player, now, mu0, sigma0, update, ctx, r));
}

static int pg_person_ratings(store_be *b, int64_t player,
                             int (*row)(void *ctx, const char *rules, const ddz_store_rating *r),
                             void *ctx)
{
    params p = {0};
    p_i64(&p, 0, player);
    PGresult *res = rd(b,
                       "SELECT rules, " RATING_COLS " FROM people_ratings WHERE player = $1"
                       " ORDER BY rules",
                       1, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        ddz_store_rating r = {.player = player};
        rating_cols(res, i, 1, &r);
        rc = row(ctx, PQgetvalue(res, i, 0), &r);
    }
    PQclear(res);
    return rc < 0 ? rc : n;
}

static int pg_person_history(store_be *b, int64_t player, int limit,
                             int (*row)(void *ctx, const char *rules, int64_t at_ms, double mu,
                                        double sigma),
                             void *ctx)
{
    params p = {0};
    p_i64(&p, 0, player);
    p_i64(&p, 1, limit);
    PGresult *res = rd(b,
                       "SELECT rules, at_ms, mu, sigma FROM"
                       " (SELECT rules, at_ms, game, mu, sigma FROM people_rating_hist"
                       " WHERE player = $1 ORDER BY at_ms DESC, game DESC LIMIT $2) h"
                       " ORDER BY rules, at_ms, game",
                       2, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = row(ctx, PQgetvalue(res, i, 0), i64(res, i, 1), dbl(res, i, 2), dbl(res, i, 3));
    PQclear(res);
    return rc < 0 ? rc : n;
}

static int pg_person_games(store_be *b, int64_t player, int limit, int64_t *ids)
{
    params p = {0};
    p_i64(&p, 0, player);
    p_i64(&p, 1, limit);
    PGresult *res = rd(b,
                       "SELECT game FROM people_rating_hist WHERE player = $1"
                       " GROUP BY game ORDER BY max(at_ms) DESC, game DESC LIMIT $2",
                       2, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    if (n > limit)
        n = limit;
    for (int i = 0; i < n; i++)
        ids[i] = i64(res, i, 0);
    PQclear(res);
    return n;
}

static int pg_leaderboard(store_be *b, const char *rules, int limit, int min_games,
                          int (*row)(void *ctx, const char *name, const ddz_store_rating *r),
                          void *ctx)
{
    params p = {.v = {rules}};
    p_i64(&p, 1, min_games);
    p_i64(&p, 2, limit);
    PGresult *res = rd(b,
                       "SELECT a.name, r.player, r.mu, r.sigma, r.games, r.ll_games,"
                       " r.ll_wins, r.farmer_games, r.farmer_wins"
                       " FROM people_ratings r JOIN accounts a ON a.id = r.player"
                       " WHERE r.rules = $1 AND r.games >= $2 AND a.deleted_at IS NULL"
                       " ORDER BY r.mu DESC, r.games DESC, r.player LIMIT $3",
                       3, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        ddz_store_rating r = {.player = i64(res, i, 1)};
        rating_cols(res, i, 2, &r);
        rc = row(ctx, PQgetvalue(res, i, 0), &r);
    }
    PQclear(res);
    return rc < 0 ? rc : n;
}

/* The accounts listed at or above `player` (counted with it) in
 * leaderboard's order, which the WHERE repeats: mu, then games, then id;
 * no row, and so 0, when `player` is not listed itself. */
static int pg_board_rank(store_be *b, const char *rules, int64_t player, int min_games,
                         int64_t *rank)
{
    *rank = 0;
    params p = {.v = {rules}};
    p_i64(&p, 1, min_games);
    p_i64(&p, 2, player);
    PGresult *res = rd(b,
                       "SELECT count(*) FROM people_ratings m"
                       " JOIN accounts ma ON ma.id = m.player AND ma.deleted_at IS NULL"
                       " JOIN people_ratings r ON r.rules = m.rules AND r.games >= $2"
                       " JOIN accounts a ON a.id = r.player AND a.deleted_at IS NULL"
                       " WHERE m.rules = $1 AND m.player = $3 AND m.games >= $2"
                       " AND (r.mu > m.mu OR (r.mu = m.mu AND (r.games > m.games"
                       " OR (r.games = m.games AND r.player <= m.player))))",
                       3, p.v);
    if (!res)
        return DDZ_EDB;
    if (PQntuples(res) == 1)
        *rank = i64(res, 0, 0);
    PQclear(res);
    return 0;
}

/* ---- puzzles ------------------------------------------------------------------ */

static int pg_puzzle_get(store_be *b, int64_t id, ddz_store_puzzle *out)
{
    params p = {0};
    p_i64(&p, 0, id);
    PGresult *res = rd(b,
                       "SELECT id, game, ply, rules, hands, landlord, turn, last, last_by,"
                       " side, solutions, moves, difficulty, rating, deviation"
                       " FROM puzzles WHERE id = $1",
                       1, p.v);
    if (!res)
        return DDZ_EDB;
    int rc = DDZ_ENOTFOUND;
    if (PQntuples(res) == 1) {
        out->id = i64(res, 0, 0);
        out->game = i64(res, 0, 1);
        out->ply = (int)i64(res, 0, 2);
        copy_val(out->rules, sizeof out->rules, res, 0, 3);
        copy_val(out->hands, sizeof out->hands, res, 0, 4);
        out->landlord = (int)i64(res, 0, 5);
        out->turn = (int)i64(res, 0, 6);
        copy_val(out->last, sizeof out->last, res, 0, 7);
        out->last_by = val(res, 0, 8) ? (int)i64(res, 0, 8) : -1;
        copy_val(out->side, sizeof out->side, res, 0, 9);
        copy_val(out->solutions, sizeof out->solutions, res, 0, 10);
        out->moves = (int)i64(res, 0, 11);
        out->difficulty = dbl(res, 0, 12);
        out->rating = dbl(res, 0, 13);
        out->deviation = dbl(res, 0, 14);
        rc = 0;
    }
    PQclear(res);
    return rc;
}

static int pg_puzzle_near(store_be *b, const char *rules, double rating, int limit, int64_t *ids,
                          double *ratings)
{
    params p = {0};
    p.v[0] = rules;
    p_dbl(&p, 1, rating);
    p_i64(&p, 2, limit);
    /* two walks of the index (rules, rating), one each way from `rating` */
    PGresult *res = rd(b,
                       "(SELECT id, rating FROM puzzles WHERE rules = $1"
                       " AND rating >= $2::float8 ORDER BY rating LIMIT $3)"
                       " UNION ALL (SELECT id, rating FROM puzzles WHERE rules = $1"
                       " AND rating < $2::float8 ORDER BY rating DESC LIMIT $3)",
                       3, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    if (n > 2 * limit)
        n = 2 * limit;
    for (int i = 0; i < n; i++) {
        ids[i] = i64(res, i, 0);
        ratings[i] = dbl(res, i, 1);
    }
    PQclear(res);
    return n;
}

/* The steps of pg_puzzle_rate between its BEGIN and COMMIT. */
static int puzzle_rate_tx(store_be *b, int64_t account, int64_t id, bool solved, int64_t now,
                          double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                                        double *deviation),
                          void *ctx, ddz_store_puzzle_rating *me)
{
    params p = {0};
    p_i64(&p, 0, id);
    p_i64(&p, 1, account);
    /* The puzzle's row first, then the person's: every rating of an
     * attempt (on any node) locks in that order, so none waits in a
     * circle; a second attempt of the same person and puzzle waits here
     * and then sees the first's attempt row (READ COMMITTED: each
     * statement sees what was committed before it began). */
    PGresult *res =
        tx_run(b, "SELECT rules, rating, deviation FROM puzzles WHERE id = $1 FOR UPDATE", 1, p.v);
    if (!res)
        return DDZ_EDB;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return DDZ_ENOTFOUND;
    }
    copy_val(me->rules, sizeof me->rules, res, 0, 0);
    double rating = dbl(res, 0, 1), deviation = dbl(res, 0, 2);
    PQclear(res);
    p.v[2] = me->rules;
    p_dbl(&p, 3, mu0);
    p_dbl(&p, 4, sigma0);
    const char *iv[] = {p.v[1], p.v[2], p.v[3], p.v[4]};
    if (!tx_ok(b,
               "INSERT INTO puzzle_ratings(account, rules, mu, sigma, attempts, solved)"
               " VALUES($1, $2, $3::float8, $4::float8, 0, 0) ON CONFLICT DO NOTHING",
               4, iv))
        return DDZ_EDB;
    if (!(res = tx_run(b,
                       "SELECT mu, sigma, attempts, solved, (SELECT count(*) FROM puzzle_attempts"
                       " WHERE account = $2 AND puzzle = $1) FROM puzzle_ratings"
                       " WHERE account = $2 AND rules = $3 FOR UPDATE",
                       3, p.v)))
        return DDZ_EDB;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return DDZ_EDB;
    }
    me->mu = me->mu_before = dbl(res, 0, 0);
    me->sigma = dbl(res, 0, 1);
    me->attempts = (long)i64(res, 0, 2);
    me->solved = (long)i64(res, 0, 3);
    bool before = i64(res, 0, 4) > 0;
    PQclear(res);
    me->puzzle_before = me->puzzle_after = rating;
    if (before)
        return 0;
    int rc = update(ctx, me, &rating, &deviation);
    if (rc < 0)
        return rc;
    params q = {0};
    p_i64(&q, 0, id);
    p_i64(&q, 1, account);
    q.v[2] = me->rules;
    p_dbl(&q, 3, me->mu);
    p_dbl(&q, 4, me->sigma);
    p_i64(&q, 5, me->attempts);
    p_i64(&q, 6, me->solved);
    p_i64(&q, 7, solved);
    p_i64(&q, 8, now);
    p_dbl(&q, 9, rating);
    p_dbl(&q, 10, deviation);
    return tx_ok(b,
                 "WITH r AS (UPDATE puzzle_ratings SET mu = $4, sigma = $5, attempts = $6,"
                 " solved = $7 WHERE account = $2 AND rules = $3),"
                 " z AS (UPDATE puzzles SET rating = $10, deviation = $11 WHERE id = $1)"
                 " INSERT INTO puzzle_attempts(account, puzzle, solved, at_ms, mu, sigma)"
                 " VALUES($2, $1, $8, $9, $4, $5)",
                 11, q.v)
               ? 1
               : DDZ_EDB;
}

static int pg_puzzle_rate(store_be *b, int64_t account, int64_t id, bool solved, int64_t now,
                          double mu0, double sigma0,
                          int (*update)(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                                        double *deviation),
                          void *ctx, ddz_store_puzzle_rating *me)
{
    if (!tx_ok(b, "BEGIN", 0, NULL))
        return DDZ_EDB;
    return tx_end(b, puzzle_rate_tx(b, account, id, solved, now, mu0, sigma0, update, ctx, me));
}

static int pg_puzzle_rating_get(store_be *b, int64_t account, ddz_store_puzzle_rating *me)
{
    params p = {.v = {me->rules}};
    p_i64(&p, 1, account);
    PGresult *res = rd(b,
                       "SELECT mu, sigma, attempts, solved FROM puzzle_ratings"
                       " WHERE rules = $1 AND account = $2",
                       2, p.v);
    if (!res)
        return DDZ_EDB;
    int rc = 0;
    if (PQntuples(res) == 1) {
        me->mu = me->mu_before = dbl(res, 0, 0);
        me->sigma = dbl(res, 0, 1);
        me->attempts = (long)i64(res, 0, 2);
        me->solved = (long)i64(res, 0, 3);
        rc = 1;
    }
    PQclear(res);
    return rc;
}

/* ---- the ladder's loads ------------------------------------------------------- */

static void copy_val(char *dst, size_t len, const PGresult *res, int row, int col)
{
    const char *t = val(res, row, col);
    snprintf(dst, len, "%s", t ? t : "");
}

static int pg_ladder_players(store_be *b, const char *rules,
                             void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx)
{
    const char *v[] = {rules};
    PGresult *res = rd(b,
                       "SELECT name, mu, sigma, games, deals, score, faults, suspended"
                       " FROM ladder_players WHERE rules = $1 ORDER BY name COLLATE \"C\"",
                       1, v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    for (int i = 0; i < n; i++) {
        ddz_store_ladder_player p = {0};
        copy_val(p.name, sizeof p.name, res, i, 0);
        p.mu = strtod(PQgetvalue(res, i, 1), NULL);
        p.sigma = strtod(PQgetvalue(res, i, 2), NULL);
        p.games = (long)i64(res, i, 3);
        p.deals = (long)i64(res, i, 4);
        p.score = strtod(PQgetvalue(res, i, 5), NULL);
        p.faults = (long)i64(res, i, 6);
        copy_val(p.suspended, sizeof p.suspended, res, i, 7);
        cb(ctx, &p);
    }
    PQclear(res);
    return n;
}

/* Rows of either format, as store_sqlite.c's hist_row reads them. */
static int pg_ladder_history(store_be *b, const char *rules, const char *name, int limit,
                             void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx)
{
    params p = {.v = {rules, name}};
    p_i64(&p, 2, limit);
    PGresult *res = rd(b,
                       "SELECT id, finished_at, mu, sigma, score, faults, game1, game2, game3,"
                       " opp1, opp2, deal, hand, compared, name FROM ladder_history"
                       " WHERE rules = $1 AND name = $2 ORDER BY id DESC LIMIT $3",
                       3, p.v);
    if (!res)
        return DDZ_EDB;
    int n = PQntuples(res);
    for (int i = 0; i < n; i++) {
        ddz_store_ladder_hist h = {0};
        h.id = i64(res, i, 0);
        h.finished_ms = i64(res, i, 1);
        h.mu = strtod(PQgetvalue(res, i, 2), NULL);
        h.sigma = strtod(PQgetvalue(res, i, 3), NULL);
        h.score = strtod(PQgetvalue(res, i, 4), NULL);
        h.faults = (int)i64(res, i, 5);
        for (int g = 0; g < 3; g++)
            h.games[g] = i64(res, i, 6 + g);
        copy_val(h.opp[0], sizeof h.opp[0], res, i, 9);
        copy_val(h.opp[1], sizeof h.opp[1], res, i, 10);
        h.deal = i64(res, i, 11);
        h.hand = PQgetisnull(res, i, 12) ? -1 : (int)i64(res, i, 12);
        /* text that does not parse (written by hand) shows no comparisons */
        ddz_store_ladder_cmp_parse(val(res, i, 13), &h);
        copy_val(h.name, sizeof h.name, res, i, 14);
        cb(ctx, &h);
    }
    PQclear(res);
    return n;
}

const store_ops ddz__store_pg_ops = {
    .open = pg_open,
    .close = pg_close,
    .write_batch = pg_write_batch,
    .writer_lost = pg_writer_lost,
    .id_block = pg_id_block,
    .read_error = pg_read_error,
    .read_deadline = pg_read_deadline,
    .max_game_id = pg_max_game_id,
    .get_game = pg_get_game,
    .get_analysis = pg_get_analysis,
    .puzzle_get = pg_puzzle_get,
    .puzzle_near = pg_puzzle_near,
    .puzzle_rate = pg_puzzle_rate,
    .puzzle_rating_get = pg_puzzle_rating_get,
    .export_games = pg_export,
    .my_games = pg_my_games,
    .token_add = pg_token_add,
    .token_active = pg_token_active,
    .token_revoke = pg_token_revoke,
    .token_list = pg_token_list,
    .account_add = pg_account_add,
    .account_get = pg_account_get,
    .account_keys = pg_account_keys,
    .mine_copy = pg_mine_copy,
    .account_set_hash = pg_account_set_hash,
    .account_delete = pg_account_delete,
    .session_add = pg_session_add,
    .session_get = pg_session_get,
    .session_end = pg_session_end,
    .rating_game = pg_rating_game,
    .person_ratings = pg_person_ratings,
    .person_history = pg_person_history,
    .person_games = pg_person_games,
    .leaderboard = pg_leaderboard,
    .board_rank = pg_board_rank,
    .ladder_players = pg_ladder_players,
    .ladder_history = pg_ladder_history,
};
