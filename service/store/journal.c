/* journal.c - the store's on-disk journal (journal.h), a SQLite file. */
#include "service/store/journal.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/error.h"

struct ddz_journal {
    pthread_mutex_t lock; /* everything below */
    char *path;
    sqlite3 *db; /* NULL until the file exists */
    size_t max_entries;
    int64_t max_bytes;
    uint64_t pending, bytes, appended, removed, dropped;
    char msg[160]; /* why the last call failed */
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS entries(seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " game INTEGER, body TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS entries_game ON entries(game) WHERE game IS NOT NULL;";

/* Keeps SQLite's message for `what`, one line. Returns DDZ_EIO. */
static int fail(ddz_journal *j, const char *what)
{
    snprintf(j->msg, sizeof j->msg, "%s: %s: %s", j->path, what,
             j->db ? sqlite3_errmsg(j->db) : "cannot open");
    for (char *p = j->msg; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    return DDZ_EIO;
}

/* Runs `sql` (no rows wanted). Returns whether it succeeded. */
static bool exec(ddz_journal *j, const char *sql)
{
    return sqlite3_exec(j->db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* Opens or creates the file and its table, and counts what it holds.
 * Caller holds lock. Returns 0 or DDZ_EIO. */
static int open_file(ddz_journal *j)
{
    if (j->db)
        return 0;
    int rc = sqlite3_open_v2(
        j->path, &j->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    /* FULL: an entry is a record a player was promised; WAL: a lookup of
     * a pending game does not wait for an append */
    if (rc != SQLITE_OK || !exec(j, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL") ||
        !exec(j, schema)) {
        rc = fail(j, "opening the journal");
        sqlite3_close(j->db);
        j->db = NULL;
        return rc;
    }
    sqlite3_busy_timeout(j->db, 2000); /* another process on the same file (a mistake) */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(j->db,
                           "SELECT COUNT(*), COALESCE(SUM(length(CAST(body AS BLOB))), 0)"
                           " FROM entries",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        rc = fail(j, "reading the journal");
        sqlite3_close(j->db);
        j->db = NULL;
        return rc;
    }
    j->pending = (uint64_t)sqlite3_column_int64(st, 0);
    j->bytes = (uint64_t)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    return 0;
}

ddz_journal *ddz_journal_open(const char *path, size_t max_entries, int64_t max_bytes, char *err,
                              size_t errlen)
{
    ddz_journal *j = calloc(1, sizeof *j);
    if (!j || !path || !*path || !(j->path = strdup(path))) {
        snprintf(err, errlen, "%s: %s", path ? path : "",
                 path && *path ? "out of memory" : "no path");
        free(j);
        return NULL;
    }
    pthread_mutex_init(&j->lock, NULL);
    j->max_entries = max_entries ? max_entries : DDZ_JOURNAL_MAX_ENTRIES;
    j->max_bytes = max_bytes > 0 ? max_bytes : DDZ_JOURNAL_MAX_BYTES;
    struct stat sb;
    if (stat(path, &sb) == 0 && open_file(j) < 0) { /* there: what it holds is pending */
        snprintf(err, errlen, "%s", j->msg);
        ddz_journal_close(j);
        return NULL;
    }
    return j;
}

void ddz_journal_close(ddz_journal *j)
{
    if (!j)
        return;
    if (j->db)
        sqlite3_close(j->db);
    pthread_mutex_destroy(&j->lock);
    free(j->path);
    free(j);
}

/* Drops the oldest entries until the bound holds. Caller holds lock and
 * is in a transaction. Returns 0 or DDZ_EIO. */
static int trim(ddz_journal *j)
{
    if (j->pending <= j->max_entries && j->bytes <= (uint64_t)j->max_bytes)
        return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(j->db,
                           "SELECT seq, length(CAST(body AS BLOB)) FROM entries ORDER BY seq", -1,
                           &st, NULL) != SQLITE_OK)
        return fail(j, "trimming the journal");
    uint64_t n = 0, b = 0;
    int64_t last = 0;
    while ((j->pending - n > j->max_entries || j->bytes - b > (uint64_t)j->max_bytes) &&
           sqlite3_step(st) == SQLITE_ROW) {
        last = sqlite3_column_int64(st, 0);
        b += (uint64_t)sqlite3_column_int64(st, 1);
        n++;
    }
    sqlite3_finalize(st);
    char sql[96];
    snprintf(sql, sizeof sql, "DELETE FROM entries WHERE seq <= %lld", (long long)last);
    if (!exec(j, sql))
        return fail(j, "trimming the journal");
    j->pending -= n, j->bytes -= b, j->dropped += n;
    return 0;
}

int ddz_journal_append(ddz_journal *j, const ddz_journal_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!e[i].body || (int64_t)strlen(e[i].body) > j->max_bytes)
            return DDZ_EINVAL;
    pthread_mutex_lock(&j->lock);
    uint64_t pending = j->pending, bytes = j->bytes, dropped = j->dropped;
    sqlite3_stmt *st = NULL;
    int rc = open_file(j);
    if (rc == 0 && (!exec(j, "BEGIN IMMEDIATE") ||
                    sqlite3_prepare_v2(j->db, "INSERT INTO entries(game, body) VALUES(?, ?)", -1,
                                       &st, NULL) != SQLITE_OK))
        rc = fail(j, "appending to the journal");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (e[i].game > 0)
            sqlite3_bind_int64(st, 1, e[i].game);
        else
            sqlite3_bind_null(st, 1);
        sqlite3_bind_text(st, 2, e[i].body, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = fail(j, "appending to the journal");
        sqlite3_reset(st);
        j->pending++;
        j->bytes += strlen(e[i].body);
    }
    sqlite3_finalize(st);
    if (rc == 0)
        rc = trim(j);
    if (rc == 0 && !exec(j, "COMMIT"))
        rc = fail(j, "appending to the journal");
    if (rc < 0) { /* nothing appended, nothing dropped */
        if (j->db)
            exec(j, "ROLLBACK");
        j->pending = pending, j->bytes = bytes, j->dropped = dropped;
    } else {
        j->appended += n;
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

int ddz_journal_peek(ddz_journal *j, size_t max, int (*cb)(void *ctx, const ddz_journal_entry *e),
                     void *ctx)
{
    pthread_mutex_lock(&j->lock);
    int count = 0, rc = 0;
    sqlite3_stmt *st = NULL;
    if (j->db && j->pending > 0) {
        if (sqlite3_prepare_v2(j->db, "SELECT seq, game, body FROM entries ORDER BY seq LIMIT ?",
                               -1, &st, NULL) != SQLITE_OK)
            rc = fail(j, "reading the journal");
        else
            sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
        while (rc == 0) {
            int s = sqlite3_step(st);
            if (s == SQLITE_DONE)
                break;
            if (s != SQLITE_ROW) {
                rc = fail(j, "reading the journal");
                break;
            }
            ddz_journal_entry e = {.seq = sqlite3_column_int64(st, 0),
                                   .game = sqlite3_column_int64(st, 1),
                                   .body = (const char *)sqlite3_column_text(st, 2)};
            if (!e.body)
                e.body = "";
            if ((rc = cb(ctx, &e)) == 0)
                count++;
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&j->lock);
    return rc < 0 ? rc : count;
}

int ddz_journal_remove(ddz_journal *j, int64_t seq)
{
    pthread_mutex_lock(&j->lock);
    int rc = 0;
    sqlite3_stmt *st = NULL;
    if (j->db) {
        /* counted first, in the same transaction as the delete */
        if (!exec(j, "BEGIN IMMEDIATE") ||
            sqlite3_prepare_v2(j->db,
                               "SELECT COUNT(*), COALESCE(SUM(length(CAST(body AS BLOB))), 0)"
                               " FROM entries WHERE seq <= ?",
                               -1, &st, NULL) != SQLITE_OK) {
            rc = fail(j, "removing from the journal");
        } else {
            sqlite3_bind_int64(st, 1, seq);
            uint64_t n = 0, b = 0;
            if (sqlite3_step(st) == SQLITE_ROW) {
                n = (uint64_t)sqlite3_column_int64(st, 0);
                b = (uint64_t)sqlite3_column_int64(st, 1);
            } else {
                rc = fail(j, "removing from the journal");
            }
            char sql[96];
            snprintf(sql, sizeof sql, "DELETE FROM entries WHERE seq <= %lld", (long long)seq);
            if (rc == 0 && (!exec(j, sql) || !exec(j, "COMMIT")))
                rc = fail(j, "removing from the journal");
            if (rc == 0) {
                j->pending -= n <= j->pending ? n : j->pending;
                j->bytes -= b <= j->bytes ? b : j->bytes;
                j->removed += n;
            }
        }
        sqlite3_finalize(st);
        if (rc < 0)
            exec(j, "ROLLBACK");
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

int ddz_journal_find_game(ddz_journal *j, int64_t game, char **body)
{
    *body = NULL;
    pthread_mutex_lock(&j->lock);
    int rc = DDZ_ENOTFOUND;
    sqlite3_stmt *st = NULL;
    if (j->db && j->pending > 0) {
        if (sqlite3_prepare_v2(j->db,
                               "SELECT body FROM entries WHERE game = ? ORDER BY seq DESC LIMIT 1",
                               -1, &st, NULL) != SQLITE_OK) {
            rc = fail(j, "reading the journal");
        } else {
            sqlite3_bind_int64(st, 1, game);
            int s = sqlite3_step(st);
            if (s == SQLITE_ROW) {
                const char *t = (const char *)sqlite3_column_text(st, 0);
                rc = (*body = strdup(t ? t : "")) ? 0 : DDZ_ENOMEM;
            } else if (s != SQLITE_DONE) {
                rc = fail(j, "reading the journal");
            }
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

int ddz_journal_game_entries(ddz_journal *j, int64_t game,
                             int (*cb)(void *ctx, const ddz_journal_entry *e), void *ctx)
{
    pthread_mutex_lock(&j->lock);
    int count = 0, rc = 0;
    sqlite3_stmt *st = NULL;
    if (j->db && j->pending > 0) {
        if (sqlite3_prepare_v2(j->db, "SELECT seq, body FROM entries WHERE game = ? ORDER BY seq",
                               -1, &st, NULL) != SQLITE_OK)
            rc = fail(j, "reading the journal");
        else
            sqlite3_bind_int64(st, 1, game);
        while (rc == 0) {
            int s = sqlite3_step(st);
            if (s == SQLITE_DONE)
                break;
            if (s != SQLITE_ROW) {
                rc = fail(j, "reading the journal");
                break;
            }
            const char *body = (const char *)sqlite3_column_text(st, 1);
            ddz_journal_entry e = {
                .seq = sqlite3_column_int64(st, 0), .game = game, .body = body ? body : ""};
            if ((rc = cb(ctx, &e)) == 0)
                count++;
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&j->lock);
    return rc < 0 ? rc : count;
}

void ddz_journal_stats(ddz_journal *j, ddz_journal_counters *out)
{
    pthread_mutex_lock(&j->lock);
    *out = (ddz_journal_counters){.pending = j->pending,
                                  .bytes = j->bytes,
                                  .appended = j->appended,
                                  .removed = j->removed,
                                  .dropped = j->dropped};
    pthread_mutex_unlock(&j->lock);
}

void ddz_journal_error(ddz_journal *j, char *out, size_t outlen)
{
    if (!outlen)
        return;
    pthread_mutex_lock(&j->lock);
    snprintf(out, outlen, "%s", j->msg);
    pthread_mutex_unlock(&j->lock);
}
