/* journal.h - the store's on-disk journal: the writes a PostgreSQL
 * database could not take because it was away (a lost connection, no
 * transaction possible, a lock not granted), kept in a SQLite file in the
 * order they came until the store's writer replays them (store.c). A
 * finished game's record is the one thing a player is promised (`over`
 * gives its game_id), so it must outlive an outage of the database and a
 * restart of the node in between.
 *
 * What an entry holds is the store's business (a write encoded as JSON,
 * and the game id for a game's record or its publication, so that a
 * pending game can be served); the journal keeps them in order, bounded, durable
 * (synchronous=FULL: a committed append survives a power cut), and hands
 * back the oldest first.
 *
 * BOUND: at most max_entries entries and max_bytes bytes of bodies; an
 * append past either drops the OLDEST entries until it fits, and counts
 * them (ddz_journal_stats().dropped): a database away for days must not
 * fill the node's disk, and the newest records are the ones players are
 * still looking at.
 *
 * The file is made only when the first entry is appended (a node whose
 * database never goes away leaves nothing behind); one that exists is
 * opened at once, its entries pending (a restart replays them). Every
 * function takes the journal's mutex: the store's writer appends, peeks and
 * removes, its reader thread looks games up. All of them touch the disk:
 * NEVER call them from an event loop.
 *
 * Schema: entries(seq INTEGER PRIMARY KEY AUTOINCREMENT, game INTEGER,
 * body TEXT NOT NULL), with an index on game; seq increases with every
 * append, so it is the order of replay.
 */
#ifndef DDZ_JOURNAL_H
#define DDZ_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define DDZ_JOURNAL_MAX_ENTRIES 100000             /* default bound: entries */
#define DDZ_JOURNAL_MAX_BYTES (INT64_C(256) << 20) /* default bound: bytes of bodies */

typedef struct ddz_journal ddz_journal;

typedef struct ddz_journal_entry {
    int64_t seq;      /* its place in the journal (set by it; ignored on append) */
    int64_t game;     /* the game whose record it is, 0 if it is none */
    const char *body; /* what to replay, NUL-terminated */
} ddz_journal_entry;

typedef struct ddz_journal_counters {
    uint64_t pending;  /* entries kept now */
    uint64_t bytes;    /* bytes of their bodies */
    uint64_t appended; /* entries appended since opened */
    uint64_t removed;  /* entries removed as replayed since opened */
    uint64_t dropped;  /* oldest entries dropped past the bound since opened */
} ddz_journal_counters;

/* Opens the journal at `path`, bounded by `max_entries` and `max_bytes`
 * (0: DDZ_JOURNAL_MAX_ENTRIES, DDZ_JOURNAL_MAX_BYTES). If the file exists
 * it is opened now and its entries are pending; otherwise it is created
 * by the first append. Returns the journal, or NULL with a one-line
 * message in `err` (errlen bytes) naming the file, e.g. "/x/j.db: unable
 * to open database file" or "j.db: file is not a database". */
ddz_journal *ddz_journal_open(const char *path, size_t max_entries, int64_t max_bytes, char *err,
                              size_t errlen);

/* Closes the file; what is pending stays in it for the next open. NULL is
 * allowed. */
void ddz_journal_close(ddz_journal *j);

/* Appends `n` entries after every one kept, in one transaction, first
 * dropping the oldest (counted) as far as the bound needs. Returns 0, or
 * DDZ_EINVAL if a body is NULL or alone larger than max_bytes (nothing is
 * appended), or DDZ_EIO when the file cannot be made or written (nothing
 * is appended; ddz_journal_error() says why). */
int ddz_journal_append(ddz_journal *j, const ddz_journal_entry *e, size_t n);

/* Calls cb(ctx, entry) for the `max` oldest entries, oldest first; the
 * entry's body lives only during the call. Stops at the first negative
 * answer, which it returns. Returns the number of entries passed (0 when
 * none is pending), or DDZ_EIO. */
int ddz_journal_peek(ddz_journal *j, size_t max, int (*cb)(void *ctx, const ddz_journal_entry *e),
                     void *ctx);

/* Removes every entry up to and including `seq` (replayed). Returns 0 or
 * DDZ_EIO. */
int ddz_journal_remove(ddz_journal *j, int64_t seq);

/* Sets *body (malloc'd, the caller frees it) to the newest entry of game
 * `game`. Returns 0, DDZ_ENOTFOUND (none pending, or no file), DDZ_EIO or
 * DDZ_ENOMEM (then *body is NULL). */
int ddz_journal_find_game(ddz_journal *j, int64_t game, char **body);

/* Calls cb(ctx, entry) for every entry of game `game` (its record, and
 * whatever else was appended under its id: a publication), oldest first;
 * the entry lives only during the call. Stops at the first negative
 * answer, which it returns. Returns the number of entries passed (0: none
 * pending, or no file), or DDZ_EIO. */
int ddz_journal_game_entries(ddz_journal *j, int64_t game,
                             int (*cb)(void *ctx, const ddz_journal_entry *e), void *ctx);

/* Fills `out`. Never fails. */
void ddz_journal_stats(ddz_journal *j, ddz_journal_counters *out);

/* Copies why the last call failed to `out` (always NUL-terminated), "" if
 * none did. Never fails. */
void ddz_journal_error(ddz_journal *j, char *out, size_t outlen);

#endif
