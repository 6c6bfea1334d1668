/* store.h - the service's storage: finished games, turn results, bot
 * tokens, the ladder and "my games", in one database: a SQLite file, or a
 * PostgreSQL database (through libpq) that several nodes may share.
 * ddz_store_open() picks the backend from its argument (ddz_store_is_url());
 * the functions below behave the same with either, give the same JSON and
 * the same errors (store.c holds what they share; store_sqlite.c and
 * store_pg.c only their SQL: store_be.h).
 *
 * WHAT MAY BLOCK, AND ON WHAT. Never: ddz_store_add_game/turn/mine,
 * ddz_store_publish_games, ddz_store_add_analysis,
 * ddz_store_ladder_add_deal/put, ddz_store_reserve_game_id,
 * ddz_store_new_game_key, ddz_store_stats, ddz_store_read_submit/done
 * (they take the store's own mutex, held only for list operations).
 * Blocking, on the disk or the network (PostgreSQL: every round trip, a
 * reconnection included, given up after ddz_store_options.timeout_ms:
 * pg_conn.h; a lock held by another node waited for up to busy_ms):
 * ddz_store_open, ddz_store_close and ddz_store_flush (they wait for the
 * writer), every synchronous read (get_game, my_games, export, token_*,
 * ladder_players/pairs/history, the people's ratings' reads) and the token,
 * account and rating writes. The server calls
 * those only before its loop runs or through the reader thread.
 *
 * DURABLE BEFORE TOLD. Every queued write gets a ticket
 * (ddz_store_ticket()); ddz_store_durable() is the newest ticket whose
 * write, and every one before it, is DURABLE: committed (SQLite: in WAL
 * mode with synchronous=NORMAL, which a killed process cannot undo; a
 * power cut may roll back the last commits), appended to the journal
 * (PostgreSQL: synchronous=FULL, synced), or failed for good (counted: it
 * never will be). A caller that must not tell anyone of a write before it
 * is durable (the server's `over`, service/server/conn.h) holds what it
 * says until ddz_store_durable() reaches the write's ticket; the store
 * calls ddz_store_on_durable()'s function each time it advances. A live
 * PostgreSQL database makes a write durable in one commit (milliseconds);
 * one that stops answering, within ddz_store_options.timeout_ms (the write
 * then goes to the journal), and after that at once (the journal's
 * append) until it is back.
 *
 * SEVERAL NODES on one PostgreSQL database: game ids come from a sequence,
 * in blocks of 100 that each store takes for itself, fetched ahead by a
 * thread of its own (ddz_store_reserve_game_id()); tokens and ladder rows
 * are written with single-statement upserts, each deal in one transaction,
 * so concurrent writers neither lose nor double anything (a standing is the
 * last one written; pair counts add up). A connection the server drops is
 * reopened by the next statement that needs it: a read that broke with it
 * is run again once; a write batch that broke, or whose statement was not
 * answered within the bound (the connection is then dropped), goes to the
 * journal (if the store has one: ddz_store_options.journal), else is
 * counted as failed. The journal is replayed by a thread of its own, so
 * that the writer goes on making writes durable (in the journal) while the
 * database does not answer.
 *
 * The online server runs one event loop that must never wait for the disk,
 * so a ddz_store has two connections:
 *
 *   - a WRITER THREAD with its own connection drains a bounded in-memory
 *     queue (ddz_store_options.max_queue). ddz_store_add_game() and
 *     ddz_store_add_turn() only encode their arguments and queue them; they
 *     never touch the disk. The writer commits whatever is queued in one
 *     transaction per batch. A write that fails for its own data is counted
 *     (ddz_store_stats()) and never retried; one that fails because a
 *     PostgreSQL database is away goes to the store's journal, when it has
 *     one (ddz_store_options.journal), and is written when the database is
 *     back. Neither stops the writer.
 *   - reads (ddz_store_get_game(), ddz_store_export(), the token functions)
 *     run on the caller's thread on a second connection; a SQLite database
 *     is in WAL mode, so they proceed while the writer writes (PostgreSQL's
 *     reads never wait for its writes). Reads are serialised by a mutex, so
 *     any thread may call them.
 *   - a READER THREAD (ddz_store_reader_start()), for an event loop, runs
 *     the reads it is handed on that second connection and hands the
 *     answers back through a queue (see "Reads for an event loop" below).
 *
 * The token functions WRITE SYNCHRONOUSLY on the reading connection: they are
 * command-line operations (`ddz token ...`, possibly while a server holds
 * the same file), not something the event loop should call. The loop
 * checks tokens (and fetches games) through the reader thread instead.
 *
 * Schema (SQLite: PRAGMA user_version = DDZ_STORE_SCHEMA_VERSION;
 * PostgreSQL: the row of store_schema(version), and the columns' types
 * PostgreSQL's own: BIGINT, DOUBLE PRECISION, BYTEA for BLOB; the sequence
 * games_id_blocks hands out the game ids):
 *
 *   games(id INTEGER PRIMARY KEY, room TEXT, game INTEGER,
 *         started_at INTEGER, finished_at INTEGER,       -- unix ms
 *         aborted INTEGER NOT NULL, name_west TEXT, name_south TEXT,
 *         name_east TEXT, record TEXT NOT NULL, key TEXT)
 *       record is the compact spec §10 line of ddz_record_to_json(), with
 *       "aborted": true appended for an aborted game. started_at is NULL:
 *       ddz_store_add_game() is not told when a game started. key is NULL
 *       for a game of a listed room, read by its id alone; a game of a
 *       private or password room has DDZ_STORE_KEY_HEX random hex digits
 *       there and is read only with them (version 2).
 *   turns(id INTEGER PRIMARY KEY, room TEXT, turn INTEGER, games INTEGER,
 *         names TEXT, totals TEXT, finished_at INTEGER)
 *       names and totals are JSON arrays of three (West, South, East).
 *   tokens(name TEXT PRIMARY KEY, hash BLOB NOT NULL, created_at INTEGER
 *          NOT NULL, revoked_at INTEGER)
 *       hash is BLAKE2b-256 of the token's 32 random bytes; the token itself
 *       is never stored.
 *   ladder_players(rules TEXT, name TEXT, mu REAL, sigma REAL, games INTEGER,
 *         deals INTEGER, score REAL, faults INTEGER, suspended TEXT,
 *         updated_at INTEGER, PRIMARY KEY(rules, name))       -- version 3
 *       a ladder participant's standing under one rule set, as of its last
 *       deal (`score`: the sum of its games' scores; `suspended`: the reason,
 *       NULL if it is not).
 *   ladder_history(id INTEGER PRIMARY KEY, rules TEXT, name TEXT,
 *         finished_at INTEGER, mu REAL, sigma REAL, score REAL, faults INTEGER,
 *         game1 INTEGER, game2 INTEGER, game3 INTEGER, opp1 TEXT, opp2 TEXT,
 *         deal INTEGER, hand INTEGER, compared TEXT)
 *       one row per seat of a deal (ddz_store_ladder_hist): the rating
 *       after the deal, the seat's score and faults, its game (game1), its
 *       table mates, the deal (its first table's game id), the hand held
 *       (0..2) and `compared`, a JSON array of {name, score, game}: those
 *       who held the same hand at the other tables (version 5; rows from
 *       before have deal, hand and compared NULL and the old deal's three
 *       games). ladder_pairs, the old scheduler's pair counts, is dropped
 *       in version 5.
 *   mine(owner BLOB, game INTEGER, seat INTEGER, PRIMARY KEY(owner, game))
 *       who played game `game` in seat `seat`: owner is BLAKE2b-256 of the
 *       key a browser keeps for itself ("my games"), never the key
 *       (version 4).
 *   analyses(game INTEGER PRIMARY KEY, analysis TEXT NOT NULL,
 *         created_at INTEGER NOT NULL)                       -- version 6
 *       a cache: the post-game analysis the server computed for game `game`
 *       (GET /api/games/ID/analysis, as served). Read only after the game
 *       itself was (its key checked). Lost with no harm: it is computed
 *       again on demand. The JSON's "version" says its form: a row is
 *       replaced only by an analysis of a later one.
 *   accounts(id INTEGER PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL
 *         UNIQUE, hash TEXT NOT NULL, created_at INTEGER NOT NULL,
 *         deleted_at INTEGER)                                 -- version 7
 *       a person's account (SPEC §15): the name as given, `key` the name
 *       case-folded (proto/utf8.h ddz_utf8_fold: one account per name
 *       ignoring case), `hash` the password's Argon2id string
 *       (crypto_pwhash_str; never the password). A deleted account keeps
 *       its row with deleted_at set and hash '' (nobody signs in to it),
 *       and so its name, until DDZ_ACCOUNT_NAME_HOLD_MS have passed: then
 *       the next account made under that name replaces the row.
 *   sessions(hash BLOB PRIMARY KEY, account INTEGER NOT NULL,
 *         created_at INTEGER NOT NULL)                        -- version 7
 *       a signed-in session: BLAKE2b-256 of its token's 32 random bytes
 *       (never the token), of account `account`.
 *   people_ratings(player INTEGER, rules TEXT, mu REAL, sigma REAL,
 *         games INTEGER, ll_games INTEGER, ll_wins INTEGER,
 *         farmer_games INTEGER, farmer_wins INTEGER,
 *         PRIMARY KEY(player, rules))                         -- version 8
 *       a person's or hosted AI's rating under one rule set (SPEC §15,
 *         service/rating/people_rating.h): `player` an account's id (> 0)
 *         or a hosted AI's fixed negative id (-1 ai:strong, -2 ai:greedy,
 *         -3 ai:random); its Weng-Lin mu and sigma, its rated games, those
 *         as landlord and won as landlord, as farmer and won as farmer.
 *         A row is made by the player's first rated game under the rules.
 *   people_rating_hist(player INTEGER, rules TEXT, game INTEGER,
 *         at_ms INTEGER, mu REAL, sigma REAL,
 *         PRIMARY KEY(player, rules, game))                   -- version 8
 *       the rating after each rated game `game` (its id), applied at
 *         at_ms: the graph of a profile, and what makes a game applied
 *         twice change nothing (ddz_store_rating_game).
 *   puzzles(id INTEGER PRIMARY KEY, game INTEGER NOT NULL, ply INTEGER
 *         NOT NULL, rules TEXT NOT NULL, hands TEXT NOT NULL, landlord
 *         INTEGER NOT NULL, turn INTEGER NOT NULL, last TEXT, last_by
 *         INTEGER, side TEXT NOT NULL, solutions TEXT NOT NULL, moves
 *         INTEGER NOT NULL, difficulty REAL NOT NULL, rating REAL NOT
 *         NULL, deviation REAL NOT NULL, created_at INTEGER NOT NULL,
 *         UNIQUE(game, ply))                                  -- version 9
 *       the server's stock of puzzles (spec §16, "Puzzles" below): the
 *         position before play `ply` of stored game `game` (hands: a JSON
 *         array of three arrays of card codes, seat order; last: the play
 *         to beat as such an array, NULL with last_by when the mover
 *         leads), the mover's side ('landlord' or 'farmers'), its winning
 *         first plays (a JSON array of card-code arrays, a pass as []),
 *         its legal plays' count, the difficulty (ai/puzzle.h) and the
 *         puzzle's own rating and deviation (Glicko scale, from 1500 and
 *         350). One row per position: a game examined twice adds nothing.
 *
 * Every function returns 0 (or a count) or a negative DDZ_E... code
 * (rules/error.h). Database errors never abort: they give DDZ_EDB and are
 * counted.
 */
#ifndef DDZ_STORE_H
#define DDZ_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/record.h"
#include "service/thread/mailbox.h"

struct ddz_pg_stop; /* service/store/pg_conn.h */

#define DDZ_STORE_SCHEMA_VERSION 9
#define DDZ_STORE_VERSION_STR "9" /* the same, as text for SQL */
#define DDZ_STORE_QUEUE_MAX 10000 /* default ddz_store_options.max_queue */
#define DDZ_STORE_BUSY_MS 2000    /* default ddz_store_options.busy_ms */
#define DDZ_STORE_RETRY_MS                                                                         \
    500                  /* the journal's replay: a try this often while the database is away */
#define DDZ_TOKEN_HEX 64 /* a token as shown: 64 hex digits */
#define DDZ_TOKEN_NAME_MAX 64 /* a token name: at most 63 bytes + NUL */
#define DDZ_TOKEN_ID_BYTES 32 /* a token's id: the hash the store keeps of it */
#define DDZ_STORE_KEY_HEX 32  /* a game's link key: 128 random bits in hex */
#define DDZ_STORE_ME_BYTES 32 /* a player's hash: BLAKE2b-256 of its browser's own key */
#define DDZ_STORE_MINE_MAX 20 /* games in a player's list ("my games") */
/* PostgreSQL: the sequence's blocks stay below this; the ids a store hands
 * out while it has none in hand are at or above it (JSON-safe: < 2^53). */
#define DDZ_STORE_PAST_IDS (INT64_C(1) << 52)

typedef struct ddz_store ddz_store;

typedef struct ddz_store_counters {
    uint64_t writes;       /* queued writes committed */
    uint64_t write_errors; /* queued writes that failed (database error) */
    uint64_t drops;        /* writes refused: queue full or out of memory */
    uint64_t read_errors;  /* reads that failed with DDZ_EDB */
    uint64_t queued;       /* writes waiting or in progress now */
    uint64_t ids_in_hand;  /* game ids reserved without the database: UINT64_MAX with
                              SQLite; with PostgreSQL what is left of this store's
                              blocks (0: the database has been away too long) */
    uint64_t ids_past;     /* game ids handed out with none in hand (PostgreSQL) */
    /* The journal (ddz_store_options.journal; all 0 without one). */
    uint64_t journal_pending;  /* writes kept in it now, waiting for the database */
    uint64_t journal_bytes;    /* their bytes */
    uint64_t journal_appended; /* writes put in it since opened */
    uint64_t journal_replayed; /* writes taken out of it since opened, written */
    uint64_t journal_dropped;  /* oldest writes dropped past its bound since opened (LOST) */
    char last_error[160];      /* the last database error message, "" if none */
} ddz_store_counters;

/* The settings of a store. A field left 0 takes its default. */
typedef struct ddz_store_options {
    /* The write queue's bound: how many writes the store holds in memory,
     * queued or being written (ddz_store_counters.queued), before
     * ddz_store_add_game() and ddz_store_add_turn() drop new ones. It caps
     * what clients can make the store hold while the disk is slow or the
     * database locked: a write is one game's record (some 1.5 KB of JSON)
     * or one turn's result. 0 = DDZ_STORE_QUEUE_MAX. */
    size_t max_queue;
    /* How long a connection waits for a lock that another connection holds
     * before the statement fails (SQLite: SQLITE_BUSY; PostgreSQL: its
     * lock_timeout). The writer waits this long
     * with the batch it took, the writes queued behind it staying queued;
     * then it fails that batch (SQLite: counted in write_errors, never
     * retried; PostgreSQL with a journal: kept there and replayed) and
     * goes on with the next. 0 = DDZ_STORE_BUSY_MS; negative is refused. */
    int busy_ms;
    /* The on-disk journal (journal.h) of a PostgreSQL store, NULL for
     * none: a batch that fails for want of the database (the connection
     * lost or refused, a lock not granted: never for its own data) is kept
     * there instead of failing, and so is every write after it, in order,
     * until the writer has replayed them all (idempotently) once the
     * database is back: a try every DDZ_STORE_RETRY_MS meanwhile. What is
     * in it when the store closes stays there and is replayed by the next
     * store opened on it. A SQLite store ignores it (its database is a
     * local file: a journal beside it would fail with it). */
    const char *journal;
    size_t journal_max;        /* its bound in writes, 0 = DDZ_JOURNAL_MAX_ENTRIES */
    int64_t journal_max_bytes; /* and in bytes, 0 = DDZ_JOURNAL_MAX_BYTES */
    /* PostgreSQL: the bound of every round trip with the database, kept
     * by our side (pg_conn.h): a statement (or a reconnection) not
     * answered by then is given up and its connection dropped; a write
     * then goes to the journal as if the database were down, a read
     * answers DDZ_EDB. A read submitted to the reader thread is bounded
     * from its submission, not from when the thread gets to it. 0 =
     * DDZ_PG_TIMEOUT_MS (3 s). SQLite ignores it. */
    int timeout_ms;
    /* A stop shared with other users of the database (the server's
     * cluster and lead threads: pg_conn.h), NULL for the store's own.
     * Asked for by ddz_store_close(), or by the owner when shutting down:
     * from then on nothing waits on the database past its grace. */
    struct ddz_pg_stop *stop;
} ddz_store_options;

/* Opens or creates the database at `path` with the settings `opt` (NULL for
 * the defaults), sets WAL mode, synchronous=NORMAL, foreign_keys=ON and the
 * busy timeout, creates the schema if the file is new (or migrates an older
 * schema version), and starts the writer thread. With a PostgreSQL URL:
 * opens three connections (writer, readers, ids; lock_timeout = busy_ms,
 * connect_timeout 5 s unless the URL says otherwise), creates or migrates
 * the schema under an advisory lock, reserves a first block of game ids.
 * Messages name a URL without its password (ddz_store_shown()), e.g.
 * "postgres://ddz@db:5432/ddz: connection to server at ... failed:
 * Connection refused". Returns the store, or NULL
 * with a one-line message in `err` (errlen bytes, may be NULL), e.g.
 * "/x/ddz.db: unable to open database file" or "ddz.db: file is not a
 * database" or "ddz.db: schema version 7 is newer than this ddz understands
 * (1)", or "ddz.db: busy_ms must not be negative". */
ddz_store *ddz_store_open(const char *path, const ddz_store_options *opt, char *err, size_t errlen);

/* Returns true if `where` names a PostgreSQL database (it starts with
 * "postgres://" or "postgresql://"): ddz_store_open() then uses PostgreSQL
 * through libpq; anything else is a SQLite path. */
bool ddz_store_is_url(const char *where);

/* Writes to `out` (outlen bytes, always NUL-terminated) how messages name
 * the database `where`: a SQLite path as is; a URL without its password
 * and without its "?..." parameters (which may hold one). Never fails. */
void ddz_store_shown(const char *where, char *out, size_t outlen);

/* Asks for the stop (ddz_store_options.stop), stops the reader thread
 * (ddz_store_reader_stop()) and the journal's replay thread, waits for
 * every queued write (ddz_store_flush()), stops the writer thread and
 * closes the database. Bounded whatever the database does: once stopping,
 * no round trip waits past DDZ_PG_STOP_GRACE_MS (1 s); a live database
 * takes the queue as usual, while with PostgreSQL not answering or out of
 * reach the write under way and every one queued go to the journal (the
 * next store opened on it replays them), or, without a journal, the first
 * batch that fails to reconnect fails every write still queued (one error
 * line on stderr says how many). Answered reads not yet collected are
 * forgotten, NOT freed (they are the caller's: collect them first). NULL
 * is allowed. */
void ddz_store_close(ddz_store *s);

/* Returns the ticket of the newest write queued so far (by any
 * ddz_store_add_..., ddz_store_publish_games or ddz_store_ladder_...
 * that returned 0), 0 before the first. Never waits; any thread. */
uint64_t ddz_store_ticket(ddz_store *s);

/* Returns the newest ticket whose write is durable, every earlier one
 * with it (see "DURABLE BEFORE TOLD" above). Never waits; any thread. */
uint64_t ddz_store_durable(ddz_store *s);

/* Sets `wake(ctx)`, called on the writer's thread each time
 * ddz_store_durable() advances (after every batch), under a lock of its
 * own only (it may call any function of the store); it must be safe from
 * any thread (the server's lws_cancel_service). NULL: none. Once this
 * returns, the function it replaced is not running and is never called
 * again (the server unsets it before its event loop goes). */
void ddz_store_on_durable(ddz_store *s, void (*wake)(void *ctx), void *ctx);

/* Blocks until every write queued before the call is committed, kept in
 * the journal (not an error) or has failed: ddz_store_durable() has
 * reached their tickets when it returns. Returns 0, or DDZ_EDB if any
 * queued write failed since the store was opened or since the previous
 * ddz_store_flush() (see ddz_store_stats() for how many). */
int ddz_store_flush(ddz_store *s);

/* Fills `out` with the counters. Never fails. */
void ddz_store_stats(ddz_store *s, ddz_store_counters *out);

/* Returns a new game id, greater than every id stored when the store was
 * opened and every id reserved or added since. TOUCHES NO DISK; thread-safe.
 * Ids that are never used leave gaps. With PostgreSQL the id comes from a
 * block this store alone was given (unique across the stores sharing the
 * database; a reopened store starts a new block). If the database has been
 * unreachable for so long that no id is in hand, the id comes from a run
 * at a random place at or above DDZ_STORE_PAST_IDS, which no block reaches
 * (never failing: every game needs an id; docs/decisions.md), until a new
 * block comes. */
int64_t ddz_store_reserve_game_id(ddz_store *s);

/* Writes a new game link key to `key`: DDZ_STORE_KEY_HEX lower-case hex
 * digits of random bits, and a NUL. Never fails. */
void ddz_store_new_game_key(char key[DDZ_STORE_KEY_HEX + 1]);

/* Queues game `r` under `id` (from ddz_store_reserve_game_id()) in `room`
 * (may be NULL) with finished_at = now. `key` is NULL for a game anyone may
 * read by its id, or a key from ddz_store_new_game_key(): then the game is
 * read only with it. `aborted` marks a game cut short,
 * e.g. by shutdown: its record may be unfinished, and its JSON gets
 * "aborted": true. Encodes the record on the caller's thread, so `r` may be
 * reused at once. Returns 0 when queued (the write itself may still fail:
 * ddz_store_flush(), ddz_store_stats()), DDZ_EINVAL if id < 1, r->nbids or
 * r->nplays is out of range or `key` is not DDZ_STORE_KEY_HEX lower-case
 * hex digits, DDZ_EDB if the queue is full (the game is DROPPED and
 * counted) or DDZ_ENOMEM. An id that is already stored makes the write
 * fail. */
int ddz_store_add_game(ddz_store *s, int64_t id, const char *room, const char *key,
                       const ddz_record *r, bool aborted);

/* Queues the publication of the `n` games `ids` (each queued with
 * ddz_store_add_game() before, under a key): their keys are cleared, so
 * that from then on anyone reads them by their ids alone. A HELD game (a
 * competition's, stored under a fresh key told to nobody until every
 * table has played its deal: docs/decisions.md) is published so. Through
 * the journal like every write while a PostgreSQL database is away (a
 * game published there is served by its id alone at once, from the
 * journal, as the database will serve it). Idempotent: an id already published, or stored
 * nowhere, changes nothing. Returns 0 when every one is queued, DDZ_EINVAL
 * for an id < 1 (nothing is queued), DDZ_EDB if the queue is full (the
 * rest are DROPPED and counted) or DDZ_ENOMEM. */
int ddz_store_publish_games(ddz_store *s, const int64_t *ids, size_t n);

/* Queues the result of turn `turn` of `room` (may be NULL): `games` deals,
 * the players' names by seat (UTF-8) and their totals, with finished_at =
 * now. Returns 0 when queued, DDZ_EINVAL if a name is NULL or not UTF-8,
 * DDZ_EDB if the queue is full (DROPPED and counted) or DDZ_ENOMEM. */
int ddz_store_add_turn(ddz_store *s, const char *room, int turn, int games,
                       const char *const names[3], const double totals[3]);

/* Queues that the player whose hash is `me` played game `game` (from
 * ddz_store_reserve_game_id(), queued with ddz_store_add_game() before) in
 * `seat`. Returns 0 when queued, DDZ_EINVAL for a bad game or seat, DDZ_EDB
 * if the queue is full (DROPPED and counted) or DDZ_ENOMEM. */
int ddz_store_add_mine(ddz_store *s, int64_t game, int seat, const uint8_t me[DDZ_STORE_ME_BYTES]);

/* Sets *json (malloc'd, the caller frees it) to the newest `max` (1 to
 * DDZ_STORE_MINE_MAX) games the player whose hash is `me` played, newest
 * first, as a JSON array of {id, key (null for a listed room's game), room,
 * finished_at (unix ms), seat, names [3], scores [3], landlord, winner
 * (seats or null), rules}: the player's own games only, whatever their
 * room (their keys included: the player was at the table). Only committed
 * writes are seen. Returns the number of games, DDZ_EINVAL for a bad `max`,
 * DDZ_EDB or DDZ_ENOMEM (then *json is NULL). */
int ddz_store_my_games(ddz_store *s, const uint8_t me[DDZ_STORE_ME_BYTES], int max, char **json);

/* Queues the analysis `json` (text, copied) of game `id` for the cache
 * (the first one stored stays, unless `json` is of a newer form: its
 * integer "version" above the stored one's, a missing one counting as 1,
 * service/server/analyst.h). Unlike every other write it never goes to
 * the journal: while a PostgreSQL database is away the analysis is simply
 * not cached (it is computed again on demand). Returns 0 when queued,
 * DDZ_EINVAL if id < 1 or json is NULL, DDZ_EDB if the queue is full
 * (DROPPED and counted) or DDZ_ENOMEM. */
int ddz_store_add_analysis(ddz_store *s, int64_t id, const char *json);

/* Sets *json (malloc'd) to the cached analysis of game `id`. CHECKS NO
 * KEY: the caller has read the game itself first (ddz_store_get_game, or
 * the DDZ_STORE_READ_ANALYSIS read, which does both). Only committed
 * writes are seen. Returns 0, DDZ_ENOTFOUND (none cached), DDZ_EDB or
 * DDZ_ENOMEM; *json is NULL on error. */
int ddz_store_get_analysis(ddz_store *s, int64_t id, char **json);

/* Sets *json to the stored record of game `id` (malloc'd, the caller frees
 * it): the compact spec §10 line, without a newline. A game stored with a
 * key is found only if `key` is that key (compared in constant time); one
 * stored without, only if `key` is NULL or "". Committed writes are seen,
 * and a game waiting in the journal (the database away: the record and
 * key the database will hold, looked up there first, so it answers while
 * the database does not; a publication waiting there clears the key); a
 * game still queued in memory is not found. Returns 0, DDZ_ENOTFOUND (also
 * for a missing or wrong key: no different from no such game), DDZ_EDB or
 * DDZ_ENOMEM; *json is NULL on error. */
int ddz_store_get_game(ddz_store *s, int64_t id, const char *key, char **json);

/* Writes the record of every stored game to `out`, one line each, in id
 * order: the finished games, and the aborted ones too if `include_aborted`.
 * Every game is written, keyed or not: the file is the operator's. A
 * finished game's line is accepted by `ddz verify`; an aborted game's line
 * decodes (the reader ignores "aborted"), but if the game was cut before it
 * ended, `ddz verify` rejects it ("the game is not over"). Reads one
 * snapshot, holding the read lock throughout: other reads through this store
 * wait (the server should not call it; `ddz export` runs in its own process).
 * Returns the number of lines written, DDZ_EDB, or DDZ_EIO if writing to
 * `out` failed. */
int ddz_store_export(ddz_store *s, FILE *out, bool include_aborted);

/* Checks whether `name` can name a token: at most DDZ_TOKEN_NAME_MAX - 1
 * bytes, and a display name as hello's (proto/msg.h,
 * ddz_msg_display_name_check: 1 to 32 characters, no control, bidi or
 * invisible characters, none of the server's own names such as
 * "ai:strong"), since the bot is shown under it. Returns 0, or DDZ_EFIELD
 * or DDZ_ENAME with `err` (may be NULL) saying why ("NAME: ..."). */
int ddz_store_token_name_check(const char *name, char *err, size_t errlen);

/* Returns true if ddz_store_token_name_check() finds nothing wrong. */
bool ddz_store_token_name_valid(const char *name);

/* Creates a token for bot `name`: 32 random bytes, written to `token_out` as
 * 64 lower-case hex digits and a NUL, to be shown once; only its hash is
 * stored. WRITES SYNCHRONOUSLY (a command-line operation). A revoked token's
 * name may be reused: the new token replaces it. Returns 0, DDZ_EINVAL if
 * the name is not valid (ddz_store_token_name_valid()) or has an active
 * token, DDZ_EEXIST if it is a person's account's name, live or held
 * (ddz_store_account_name_taken(): SPEC §15, no bot takes it), or DDZ_EDB. */
int ddz_store_token_add(ddz_store *s, const char *name, char token_out[DDZ_TOKEN_HEX + 1]);

/* Checks `token` (64 hex digits, either case) against every active token,
 * comparing hashes in constant time. Returns 0 and copies the bot's name to
 * `name_out` and the token's id to `id_out` (each may be NULL), DDZ_EAUTH
 * if the token is malformed, unknown or revoked, DDZ_ENAME if it is active
 * but its name breaks ddz_store_token_name_check() (a token stored before
 * the rule: nobody logs in with it; `ddz token revoke` still ends it), or
 * DDZ_EDB. The id names this token and no later one of the same name
 * (ddz_store_token_ids()). */
int ddz_store_token_check(ddz_store *s, const char *token, char name_out[DDZ_TOKEN_NAME_MAX],
                          uint8_t id_out[DDZ_TOKEN_ID_BYTES]);

/* The ids of every active token, sorted (memcmp order) in a malloc'd array
 * the caller frees: what a server holds its bots' ids against to learn of a
 * revocation. Returns the count (*ids NULL when 0), DDZ_EDB or DDZ_ENOMEM. */
int ddz_store_token_ids(ddz_store *s, uint8_t (**ids)[DDZ_TOKEN_ID_BYTES]);

/* Revokes the active token of `name`. WRITES SYNCHRONOUSLY. Returns 0,
 * DDZ_ENOTFOUND if `name` has no active token (never had one, or it is
 * already revoked), or DDZ_EDB. */
int ddz_store_token_revoke(ddz_store *s, const char *name);

/* Calls cb(ctx, name, created_ms, revoked) for every token, active or
 * revoked, in name order (bytewise). The rows are read first and the
 * callback runs afterwards, so it may call into the store. Returns the
 * number of tokens, DDZ_EDB or DDZ_ENOMEM (then cb is never called). */
int ddz_store_token_list(ddz_store *s,
                         void (*cb)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                         void *ctx);

/* ---- Accounts and sessions (SPEC §15) --------------------------------------
 *
 * Every function here runs on the readers' connection and WRITES
 * SYNCHRONOUSLY where it writes (as the token functions do): its caller
 * needs the answer (a name taken, a session unknown), which a queued write
 * cannot give. An event loop runs them through the reader thread (the
 * DDZ_STORE_READ_ACCOUNT... kinds below). Nothing here hashes a password:
 * the caller hands in the Argon2id string (service/server/pwhash.h), so
 * the store's threads never spend the hash's time and memory. */

#define DDZ_ACCOUNT_NAME_MAX 129 /* a name: 32 characters, at most 128 bytes + NUL (hello's) */
#define DDZ_ACCOUNT_HASH_MAX 128 /* an Argon2id string + NUL (crypto_pwhash_STRBYTES) */
#define DDZ_SESSION_HEX 64       /* a session as shown: 64 hex digits of 32 random bytes */
/* How long a deleted account's name stays refused to everyone: 30 days
 * (docs/decisions.md: long enough that nobody takes the name over while
 * those who played against it still remember it as that person). */
#define DDZ_ACCOUNT_NAME_HOLD_MS (INT64_C(30) * 24 * 3600 * 1000)

typedef struct ddz_store_account {
    int64_t id;                      /* > 0 */
    char name[DDZ_ACCOUNT_NAME_MAX]; /* as given when made */
    char hash[DDZ_ACCOUNT_HASH_MAX]; /* its password's Argon2id string, "" when not read */
} ddz_store_account;

/* Creates account `name` with password hash `hash` (a crypto_pwhash_str
 * string) and sets *id (may be NULL) to its id. The name must pass
 * ddz_msg_display_name_check (proto/msg.h) and is unique ignoring case
 * (ddz_utf8_fold), among live accounts and those deleted less than
 * DDZ_ACCOUNT_NAME_HOLD_MS ago; concurrent makers of one name, from any
 * node, get one account; nor may it fold equal to an active bot token's
 * name (checked before the insert, not in its transaction: a token made
 * by `ddz token add` at the same instant may slip through). WRITES
 * SYNCHRONOUSLY. Returns 0, DDZ_EEXIST (the name is taken, by an account
 * or a bot), DDZ_ENAME or DDZ_EFIELD (the name breaks the rules),
 * DDZ_EINVAL (hash empty or too long) or DDZ_EDB. */
int ddz_store_account_add(ddz_store *s, const char *name, const char *hash, int64_t *id);

/* Fills *out with the live account named `name` (ignoring case): id, name
 * as made, password hash. Returns 0, DDZ_ENOTFOUND (none, or deleted;
 * also for a name that is no valid name) or DDZ_EDB; *out zeroed on error. */
int ddz_store_account_get(ddz_store *s, const char *name, ddz_store_account *out);

/* Replaces the password hash of live account `id` and ends every session
 * of it but `keep` (a session's 64 hex digits, or NULL to end them all).
 * WRITES SYNCHRONOUSLY. Returns 0, DDZ_ENOTFOUND (no such live account),
 * DDZ_EINVAL (hash empty or too long) or DDZ_EDB. */
int ddz_store_account_set_hash(ddz_store *s, int64_t id, const char *hash, const char *keep);

/* Deletes live account `id`: its hash is cleared, every session of it
 * ended; its name stays taken for DDZ_ACCOUNT_NAME_HOLD_MS. Its games
 * stay (they hold names, not accounts). WRITES SYNCHRONOUSLY. Returns 0,
 * DDZ_ENOTFOUND or DDZ_EDB. */
int ddz_store_account_delete(ddz_store *s, int64_t id);

/* Starts a session of live account `id`: 32 random bytes written to `out`
 * as 64 lower-case hex digits and a NUL, shown once; only their hash is
 * stored. WRITES SYNCHRONOUSLY. Returns 0, DDZ_ENOTFOUND (no such live
 * account: then nothing is stored and out is "") or DDZ_EDB. */
int ddz_store_session_new(ddz_store *s, int64_t id, char out[DDZ_SESSION_HEX + 1]);

/* Fills *out (hash left "") with the live account of `session` (64 hex
 * digits, either case). Returns 0, DDZ_EAUTH (malformed, unknown, ended,
 * or its account deleted) or DDZ_EDB; *out zeroed on error. */
int ddz_store_session_check(ddz_store *s, const char *session, ddz_store_account *out);

#define DDZ_SESSION_ID_BYTES 32 /* what the store keeps of a session */

/* The id the store keeps of `session` (64 hex digits, either case): the
 * BLAKE2b-256 of its 32 bytes. Pure. Returns false (out zeroed) for a
 * malformed one. */
bool ddz_store_session_id(const char *session, uint8_t out[DDZ_SESSION_ID_BYTES]);

/* Sets live[i] to whether ids[i] (ddz_store_session_id) is a session of a
 * live account, for i < n: one lookup each. READS SYNCHRONOUSLY. Returns
 * how many are live, or DDZ_EDB (live then undefined). */
int ddz_store_sessions_live(ddz_store *s, const uint8_t (*ids)[DDZ_SESSION_ID_BYTES], size_t n,
                            bool *live);

/* Ends `session` and sets *account (may be NULL) to whose it was.
 * WRITES SYNCHRONOUSLY. Returns 0, DDZ_EAUTH (malformed, unknown or
 * already ended) or DDZ_EDB. */
int ddz_store_session_end(ddz_store *s, const char *session, int64_t *account);

/* Calls row(ctx, key) on the calling thread for the folded name
 * (ddz_utf8_fold) of every account whose name nobody else may use: live,
 * or deleted less than DDZ_ACCOUNT_NAME_HOLD_MS ago; with `since_ms` > 0
 * only those made at or after since_ms (by the maker's clock: a caller
 * polling for new names overlaps its windows). READS SYNCHRONOUSLY.
 * Returns the count or DDZ_EDB. */
int ddz_store_account_keys(ddz_store *s, int64_t since_ms, void (*row)(void *ctx, const char *key),
                           void *ctx);

/* Whether `name` folds (ddz_utf8_fold) equal to the name of an account
 * live or held (as ddz_store_account_keys() lists them). READS
 * SYNCHRONOUSLY. Returns 1, 0 (also for a name no account can have) or
 * DDZ_EDB. */
int ddz_store_account_name_taken(ddz_store *s, const char *name);

/* The owner hash under which the games of account `id` are kept in "my
 * games" (ddz_store_add_mine, ddz_store_my_games): BLAKE2b-256 of
 * "ddz-account:" and the id in decimal. A guest's owner is BLAKE2b-256 of
 * its 32-hex-digit browser key, so the two never meet. Pure. */
void ddz_store_account_owner(int64_t id, uint8_t out[DDZ_STORE_ME_BYTES]);

/* Copies the "my games" rows of the guest whose owner hash is `guest` to
 * account `id`'s owner (ddz_store_account_owner), keeping both: a browser's
 * guest history claimed by the account made on it. Rows still in the
 * writer's queue or journal are not copied. WRITES SYNCHRONOUSLY. Returns
 * the rows copied or DDZ_EDB. */
int ddz_store_account_claim(ddz_store *s, int64_t id, const uint8_t guest[DDZ_STORE_ME_BYTES]);

/* ---- People's ratings (SPEC §15, service/rating/people_rating.h) -----------
 *
 * Like the accounts, these run on the readers' connection, and
 * ddz_store_rating_game WRITES SYNCHRONOUSLY: its caller wants the new
 * ratings. An event loop runs them through the reader thread
 * (DDZ_STORE_READ_RATING_GAME, _PERSON, _LEADERBOARD). */

#define DDZ_STORE_RULES_MAX 64         /* a rule set's name: at most 63 bytes + NUL */
#define DDZ_STORE_BOARD_MIN_GAMES 5    /* rated games to be on the leaderboard */
#define DDZ_STORE_BOARD_MAX 100        /* a leaderboard's rows, at most */
#define DDZ_STORE_RATING_HIST_MAX 1000 /* history points of a profile, the newest */
#define DDZ_STORE_PERSON_GAMES 50      /* rated game ids of a profile, the newest */

typedef struct ddz_store_rating {
    int64_t player;       /* account id (> 0) or hosted AI (-1..-3) */
    double mu, sigma;     /* the Weng-Lin belief (people_rating.h) */
    int64_t games;        /* rated games */
    int64_t ll_games;     /* of them as landlord */
    int64_t ll_wins;      /* won as landlord */
    int64_t farmer_games; /* as farmer */
    int64_t farmer_wins;  /* won as farmer */
} ddz_store_rating;

/* Applies rated game `game` (its id, > 0) under `rules`: the seats'
 * players `player` (seat order: account ids > 0 or hosted AI ids -1..-3,
 * three different players), seat `landlord` (-1: everyone passed, which
 * rates nothing) won or lost. Reads the three rows (a player's first game
 * starts from people_rating's new rating), updates them with
 * ddz_people_rating_game and writes them and a history row each, in ONE
 * TRANSACTION; on PostgreSQL the rows are locked (in player order) first,
 * so nodes applying games of one player at once never lose an update. A
 * game applied before (its history rows are there) changes nothing.
 * WRITES SYNCHRONOUSLY. `out` (may be NULL) gets the three rows after, in
 * seat order (zeroed for an all-pass game). Returns 1 (applied), 0
 * (applied before, or all-pass), DDZ_EINVAL (rules empty or too long, a
 * game id <= 0, a player id out of range or twice, a landlord out of
 * range, or a stored rating that is not finite) or DDZ_EDB. */
int ddz_store_rating_game(ddz_store *s, const char *rules, int64_t game, const int64_t player[3],
                          int landlord, bool landlord_won, ddz_store_rating out[3]);

/* As ddz_store_rating_game, but the seats of mask `forfeit` (bit s: seat
 * s, 0..7) left the game and are rated as having lost it
 * (ddz_people_rating_game_forfeit): their rating and their counts (a game,
 * no win). Returns as ddz_store_rating_game (DDZ_EINVAL for a mask over 7). */
int ddz_store_rating_game_forfeit(ddz_store *s, const char *rules, int64_t game,
                                  const int64_t player[3], int landlord, bool landlord_won,
                                  unsigned forfeit, ddz_store_rating out[3]);

/* Fills *out with player `player`'s row under `rules`. READS
 * SYNCHRONOUSLY. Returns 1 (found), 0 (never rated: *out is a new
 * player's, people_rating's mu0 and sigma0, no games), DDZ_EINVAL (rules
 * empty or too long), DDZ_EDB or DDZ_ENOMEM. */
int ddz_store_rating_get(ddz_store *s, const char *rules, int64_t player, ddz_store_rating *out);

/* Sets *json (malloc'd, the caller frees it) to player `player`'s ratings:
 * {"ratings": {RULES: {"rating", "deviation", "games", "ll_games",
 * "ll_wins", "farmer_games", "farmer_wins"}}} (rating and deviation as
 * people see them: ddz_people_rating_shown/deviation, to 0.1), {} of
 * ratings if none. READS SYNCHRONOUSLY. Returns the rule sets rated, or
 * DDZ_EDB or DDZ_ENOMEM (*json NULL). */
int ddz_store_person_ratings(ddz_store *s, int64_t player, char **json);

/* Sets *json (malloc'd) to player `player`'s rating history for a graph:
 * {"history": {RULES: [[at_ms, rating], ...]}}, oldest first, the newest
 * `limit` (1..DDZ_STORE_RATING_HIST_MAX) points over every rule set.
 * READS SYNCHRONOUSLY. Returns the points, DDZ_EINVAL, DDZ_EDB or
 * DDZ_ENOMEM (*json NULL). */
int ddz_store_person_history(ddz_store *s, int64_t player, int limit, char **json);

/* Sets ids[0..] to the ids of player `player`'s newest `max`
 * (1..DDZ_STORE_PERSON_GAMES) rated games, each once, the newest rated
 * first: a rated game is stored as a listed game under the same id, so a
 * profile can link its replay. READS SYNCHRONOUSLY. Returns how many
 * (0 for none), DDZ_EINVAL (max out of range) or DDZ_EDB. */
int ddz_store_person_games(ddz_store *s, int64_t player, int64_t *ids, int max);

/* Sets *json (malloc'd) to the profile of the live account named `name`
 * (ignoring case): {"name" (as made), "ratings" (as
 * ddz_store_person_ratings, each rule set where the account is on the
 * leaderboard with "rank": its place there, 1 the first, in
 * ddz_store_leaderboard's order, however far down), "history" (as ddz_store_person_history, the
 * newest DDZ_STORE_RATING_HIST_MAX), "games" (as ddz_store_person_games,
 * the newest DDZ_STORE_PERSON_GAMES ids)}. READS SYNCHRONOUSLY. Returns 0,
 * DDZ_ENOTFOUND (no such live account: unknown or deleted), DDZ_EDB or
 * DDZ_ENOMEM. */
int ddz_store_person(ddz_store *s, const char *name, char **json);

/* Sets *json (malloc'd) to the leaderboard of `rules`: {"rules": RULES,
 * "players": [{"name", "rating", "deviation", "games"}]}, the top `limit`
 * (1..DDZ_STORE_BOARD_MAX) live accounts with at least
 * DDZ_STORE_BOARD_MIN_GAMES rated games, by rating (highest first; ties
 * by more games, then the older account). Hosted AIs are not listed.
 * READS SYNCHRONOUSLY. Returns the players listed, DDZ_EINVAL (rules
 * empty or too long, limit out of range), DDZ_EDB or DDZ_ENOMEM. */
int ddz_store_leaderboard(ddz_store *s, const char *rules, int limit, char **json);

/* ---- Puzzles (spec §16) ----------------------------------------------------
 *
 * The server's stock: positions from its own finished games that the
 * stock builder (service/puzzles/puzzler.h) proved to be puzzles. Added
 * through the write queue like an analysis (a stock, not a record: not
 * kept in the journal while a PostgreSQL database is away), read on the
 * readers' connection. */

#define DDZ_STORE_PUZZLE_RATING0 1500.0 /* a new puzzle's rating */
#define DDZ_STORE_PUZZLE_DEV0 350.0     /* and its deviation */
#define DDZ_STORE_PUZZLE_HANDS 512      /* the hands as JSON, at most (with NUL) */
#define DDZ_STORE_PUZZLE_LAST 256       /* the play to beat as JSON, at most */
#define DDZ_STORE_PUZZLE_SOLUTIONS 4096 /* the winning plays as JSON, at most */
#define DDZ_STORE_PUZZLE_NEAR 10        /* next: picked among this many nearest */
#define DDZ_STORE_PUZZLE_RECENT_MAX 50  /* next: recent ids to avoid, at most */

/* One puzzle, as stored. The JSON fields are text as the table holds it
 * (store.h's schema): the store checks their length, not their form. */
typedef struct ddz_store_puzzle {
    int64_t id;                                 /* the store's number (ignored when adding) */
    int64_t game;                               /* the game it comes from (> 0) */
    int ply;                                    /* the index of the play made in it (>= 0) */
    char rules[DDZ_STORE_RULES_MAX];            /* the rule set's name */
    char hands[DDZ_STORE_PUZZLE_HANDS];         /* [[codes] x3], seat order */
    int landlord, turn;                         /* seats, 0..2 */
    char last[DDZ_STORE_PUZZLE_LAST];           /* [codes], "" when the mover leads */
    int last_by;                                /* its seat, -1 when the mover leads */
    char side[16];                              /* "landlord" or "farmers" */
    char solutions[DDZ_STORE_PUZZLE_SOLUTIONS]; /* [[codes]...], a pass as [] */
    int moves;                                  /* the mover's legal plays */
    double difficulty;                          /* ai/puzzle.h */
    double rating, deviation;                   /* the puzzle's (ignored when adding) */
} ddz_store_puzzle;

/* Queues puzzle `p` (copied) for the stock, unless a puzzle of the same
 * game and ply is stored (then nothing changes). TOUCHES NO DISK. Returns
 * 0, DDZ_EINVAL (game < 1, ply < 0, rules empty or too long, a seat out of
 * range, a JSON field empty where it is required or unterminated, side
 * neither "landlord" nor "farmers", moves < 1), DDZ_EDB (the queue is
 * full or closed: the puzzle is dropped and counted) or DDZ_ENOMEM. */
int ddz_store_add_puzzle(ddz_store *s, const ddz_store_puzzle *p);

/* Fills *out with puzzle `id`. READS SYNCHRONOUSLY. Returns 0,
 * DDZ_ENOTFOUND, DDZ_EDB or DDZ_ENOMEM. */
int ddz_store_puzzle_get(ddz_store *s, int64_t id, ddz_store_puzzle *out);

/* Fills *out with a puzzle of rule set `rules` for someone rated `rating`:
 * one picked at random among the DDZ_STORE_PUZZLE_NEAR puzzles whose
 * ratings are nearest to it, leaving out the `nrecent` ids `recent` (the
 * ones just given; at most DDZ_STORE_PUZZLE_RECENT_MAX are looked at).
 * When every puzzle of the rules is recent, a recent one is picked all
 * the same (a small stock repeats rather than runs dry). READS
 * SYNCHRONOUSLY. Returns 0, DDZ_ENOTFOUND (no puzzle of those rules),
 * DDZ_EINVAL (rules empty or too long, nrecent < 0), DDZ_EDB or
 * DDZ_ENOMEM. */
int ddz_store_puzzle_next(ddz_store *s, const char *rules, double rating, const int64_t *recent,
                          int nrecent, ddz_store_puzzle *out);

/* A person's puzzle rating under one rule set (people_rating.h's scale
 * when shown), and what one rated attempt changed. */
typedef struct ddz_store_puzzle_rating {
    char rules[DDZ_STORE_RULES_MAX];
    double mu, sigma;     /* the person's, after (a new person's: mu0, sigma0) */
    double mu_before;     /* before the attempt (PUZZLE_RATE) */
    long attempts;        /* rated attempts under these rules */
    long solved;          /* of them, solved */
    double puzzle_before; /* the puzzle's rating before and after (PUZZLE_RATE) */
    double puzzle_after;
} ddz_store_puzzle_rating;

/* Rates account `account`'s attempt at puzzle `id`, `solved` or failed,
 * unless the account has attempted it before: a rated attempt is the
 * first to end. In ONE TRANSACTION: the puzzle's row locked, then the
 * account's puzzle rating under the puzzle's rules (made at people_rating's
 * mu0 and sigma0 if missing), both updated by the people's Weng-Lin update
 * (the person and the puzzle as two players, the winner scoring 1), and
 * the attempt written. WRITES SYNCHRONOUSLY. Returns 1 (rated: *out has
 * before and after), 0 (attempted before: nothing changed, *out the
 * person's rating as stored), DDZ_ENOTFOUND (no such puzzle), DDZ_EINVAL
 * (account < 1, or a stored rating not finite) or DDZ_EDB. */
int ddz_store_puzzle_rate(ddz_store *s, int64_t account, int64_t id, bool solved,
                          ddz_store_puzzle_rating *out);

/* Fills *out with account `account`'s puzzle rating under `rules`.
 * READS SYNCHRONOUSLY. Returns 1 (found), 0 (never rated: a new person's
 * mu0 and sigma0), DDZ_EINVAL or DDZ_EDB. */
int ddz_store_puzzle_rating_get(ddz_store *s, int64_t account, const char *rules,
                                ddz_store_puzzle_rating *out);

/* Returns puzzle `p` as JSON (malloc'd, the caller frees it), as
 * GET /api/puzzles/next serves it: {"id", "rules", "hands", "landlord",
 * "turn", "last" (null when the mover leads), "last_by" (null then),
 * "side", "moves", "rating" (to 0.1)}, and "solutions" only with
 * `solutions`. Never the game or ply: the game's record would show what
 * was played there. NULL when out of memory or when a JSON field of `p`
 * is not JSON. Pure: any thread. */
char *ddz_store_puzzle_json(const ddz_store_puzzle *p, bool solutions);

/* ---- The ladder (service/ladder/ladder_srv.c) ------------------------------
 *
 * Every deal's outcome is one queued write (one transaction with the rest
 * of its batch): the standings of everyone who played it and one history
 * row per seat, so a restart finds them all or none. The loads are
 * synchronous reads for the server's start, before its loop runs.
 *
 * A deal is played at 2..DDZ_STORE_LADDER_TABLES tables at once (spec §12,
 * service/ladder/deal_plan.h); each seat's row says the hand it held, its
 * game, its table mates and those who held the same hand at the other
 * tables (what its result was compared with). Rows written before schema
 * version 5 are of the old format (one deal played three times at one
 * table with the seats rotated): hand -1, games[0..2] its three games, no
 * comparisons. */

#define DDZ_LADDER_NAME_MAX 80    /* a participant's name: at most 79 bytes + NUL */
#define DDZ_STORE_LADDER_TABLES 6 /* tables of one deal, at most */
#define DDZ_STORE_LADDER_SEATS (3 * DDZ_STORE_LADDER_TABLES)

typedef struct ddz_store_ladder_player {
    char name[DDZ_LADDER_NAME_MAX];
    double mu, sigma;    /* rating and uncertainty */
    long games, deals;   /* played (a hosted AI at two seats of a deal: two of each) */
    double score;        /* sum of its games' scores */
    long faults;         /* games it faulted in */
    char suspended[160]; /* why it is suspended, "" if it is not */
} ddz_store_ladder_player;

/* Another holder of the same hand of the same deal. */
typedef struct ddz_store_ladder_cmp {
    char name[DDZ_LADDER_NAME_MAX];
    double score; /* its game's score */
    int64_t game; /* its game (ids in games) */
} ddz_store_ladder_cmp;

typedef struct ddz_store_ladder_hist {
    int64_t id;                       /* increasing with time (set by the store) */
    int64_t finished_ms;              /* unix ms (set by the store on writes) */
    char name[DDZ_LADDER_NAME_MAX];   /* whose row */
    double mu, sigma;                 /* its rating after the deal */
    double score;                     /* its game's score (old rows: the deal's total) */
    int faults;                       /* games of the deal it faulted in (0 or 1) */
    int64_t deal;                     /* the deal: its first table's game id; 0 in old rows */
    int hand;                         /* 0..2 (West, South, East); -1 in old rows */
    int64_t games[3];                 /* games[0]: its game (old rows: the three) */
    char opp[2][DDZ_LADDER_NAME_MAX]; /* its table mates: hands hand+1, hand+2 */
    int ncmp;                         /* 0..DDZ_STORE_LADDER_TABLES - 1 */
    ddz_store_ladder_cmp cmp[DDZ_STORE_LADDER_TABLES - 1]; /* the same hand elsewhere */
} ddz_store_ladder_hist;

typedef struct ddz_store_ladder_deal {
    int nplayers;                                       /* 1..DDZ_STORE_LADDER_SEATS */
    ddz_store_ladder_player p[DDZ_STORE_LADDER_SEATS];  /* each participant's standing after it */
    int nrows;                                          /* 0..DDZ_STORE_LADDER_SEATS */
    ddz_store_ladder_hist rows[DDZ_STORE_LADDER_SEATS]; /* one per seat */
} ddz_store_ladder_deal;

/* A history row's comparisons as the column ladder_history.compared holds
 * them: a compact JSON array of {name, score, game} (doubles exact).
 * Returns the text (malloc'd) or NULL when out of memory. The one encoding
 * of the column: the backends and service/ladder/ladder_net.c (which
 * writes and reads ladder_history in its own transactions) use it. */
char *ddz_store_ladder_cmp_text(const ddz_store_ladder_hist *h);

/* Sets h->ncmp and h->cmp from the column's text; NULL or "" (a row from
 * before schema version 5) is no comparisons. Returns 0, or DDZ_EINVAL
 * (and no comparisons) for text that is not such an array. */
int ddz_store_ladder_cmp_parse(const char *text, ddz_store_ladder_hist *h);

/* Queues deal `d` under rule set `rules` (its standings upserted, its
 * history rows added: a row's id and finished_ms are the store's, a row
 * of hand -1 is written in the old format, its three games and no deal,
 * hand or comparisons). Returns 0 when queued, DDZ_EINVAL for an empty
 * name or rules or a count out of range (nplayers 1..DDZ_STORE_LADDER_SEATS,
 * nrows 0..DDZ_STORE_LADDER_SEATS, a row's hand -1..2 and ncmp
 * 0..DDZ_STORE_LADDER_TABLES - 1), DDZ_EDB if the queue is full (DROPPED
 * and counted) or DDZ_ENOMEM. */
int ddz_store_ladder_add_deal(ddz_store *s, const char *rules, const ddz_store_ladder_deal *d);

/* Queues the standing `p` under `rules` (a suspension set or lifted).
 * Returns as ddz_store_ladder_add_deal. */
int ddz_store_ladder_put(ddz_store *s, const char *rules, const ddz_store_ladder_player *p);

/* Calls cb for every participant stored under `rules` (name order).
 * READS SYNCHRONOUSLY. Returns the count, or DDZ_EDB. */
int ddz_store_ladder_players(ddz_store *s, const char *rules,
                             void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx);

/* Calls cb for the latest `limit` history rows of `name` under `rules`,
 * newest first. READS SYNCHRONOUSLY. Returns the count, or DDZ_EDB. */
int ddz_store_ladder_history(ddz_store *s, const char *rules, const char *name, int limit,
                             void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx);

/* ---- Reads for an event loop ----------------------------------------------
 *
 * A read may wait: for the disk, for a lock another process holds (up to
 * ddz_store_options.busy_ms), or for the WAL index while a checkpoint or
 * recovery holds it. An event loop must not, so it hands its reads to the store's
 * reader thread, the way the server hands AI decisions to its think pool:
 *
 *     ddz_store_reader_start(s, wake, ctx);   once, before the first read
 *     ddz_store_read_submit(s, r);            returns at once
 *         the reader runs it, queues the answer and calls wake(ctx)
 *     while ((r = ddz_store_read_done(s)))    on the loop's own thread
 *         ... r->rc, r->json, r->name ...
 *
 * A request is the CALLER'S MEMORY (embed it in a larger struct to carry
 * context): from ddz_store_read_submit() until ddz_store_read_done() returns
 * it, the store owns every field but `owner`, which the store never reads:
 * the caller may clear it at any time (its object went away) and drop the
 * answer when it comes. The store never frees a request. */

enum ddz_store_read_kind {
    DDZ_STORE_READ_GAME = 1,  /* ddz_store_get_game(id) */
    DDZ_STORE_READ_TOKEN,     /* ddz_store_token_check(token) */
    DDZ_STORE_READ_TOKEN_IDS, /* ddz_store_token_ids() */
    DDZ_STORE_READ_MINE,      /* ddz_store_my_games(me, DDZ_STORE_MINE_MAX) */
    DDZ_STORE_READ_ANALYSIS,  /* ddz_store_get_game(id, key), then, if it was found,
                                 ddz_store_get_analysis(id) into `analysis` */
    /* Accounts (they may write: see "Accounts and sessions" above); the
     * account's fields are in `account`, a session in `session`. */
    DDZ_STORE_READ_ACCOUNT_ADD,    /* ddz_store_account_add(account.name, account.hash),
                                      then, if made, ddz_store_session_new into `session`
                                      and, if `me` is not all zeros, ddz_store_account_claim(me) */
    DDZ_STORE_READ_ACCOUNT_GET,    /* ddz_store_account_get(account.name) into `account` */
    DDZ_STORE_READ_ACCOUNT_HASH,   /* ddz_store_account_set_hash(account.id, account.hash,
                                      keeping `session`) */
    DDZ_STORE_READ_ACCOUNT_DELETE, /* ddz_store_account_delete(account.id) */
    DDZ_STORE_READ_SESSION_NEW,    /* ddz_store_session_new(account.id) into `session` */
    DDZ_STORE_READ_SESSION_CHECK,  /* ddz_store_session_check(session) into `account` */
    DDZ_STORE_READ_SESSION_END,    /* ddz_store_session_end(session) into `account.id` */
    /* People's ratings (RATING_GAME writes); the arguments in `rating`. */
    DDZ_STORE_READ_RATING_GAME,   /* ddz_store_rating_game_forfeit(rating.rules, rating.game,
                                     rating.player, rating.landlord, rating.landlord_won,
                                     rating.forfeit) into rating.out */
    DDZ_STORE_READ_PERSON,        /* ddz_store_person(account.name) into `json` */
    DDZ_STORE_READ_LEADERBOARD,   /* ddz_store_leaderboard(rating.rules, rating.limit)
                                     into `json` */
    DDZ_STORE_READ_ACCOUNT_KEYS,  /* ddz_store_account_keys(id as since_ms, key_row, key_ctx):
                                     key_row runs on the reader thread */
    DDZ_STORE_READ_MINE_SESSION,  /* ddz_store_session_check(session), then
                                     ddz_store_my_games(its account's owner) into `json` */
    DDZ_STORE_READ_SESSIONS_LIVE, /* ddz_store_sessions_live(sessions, nsessions, live) */
    DDZ_STORE_READ_RATING_GET,    /* ddz_store_rating_get(rating.rules, rating.player[0])
                                     into rating.out[0] */
    DDZ_STORE_READ_PUZZLE_NEXT,   /* with `session` not "": ddz_store_session_check(session)
                                     (DDZ_EAUTH if it is no live session) and
                                     ddz_store_puzzle_rating_get(its account, rating.rules),
                                     whose rating replaces puzzle.rating; then
                                     ddz_store_puzzle_next(rating.rules, puzzle.rating,
                                     puzzle.recent, puzzle.nrecent) and
                                     ddz_store_puzzle_json(without solutions) into `json`,
                                     with "you": {"rating", "deviation", "attempts"} when
                                     signed in */
    DDZ_STORE_READ_PUZZLE_GET,    /* ddz_store_puzzle_get(id), then ddz_store_puzzle_json
                                     (without solutions) into `json` */
};

/* The arguments of DDZ_STORE_READ_PUZZLE_NEXT. */
typedef struct ddz_store_puzzle_req {
    double rating;                               /* the person's */
    int nrecent;                                 /* 0..DDZ_STORE_PUZZLE_RECENT_MAX */
    int64_t recent[DDZ_STORE_PUZZLE_RECENT_MAX]; /* ids to leave out */
} ddz_store_puzzle_req;

/* The arguments and answer of the rating kinds of ddz_store_read. */
typedef struct ddz_store_rating_req {
    char rules[DDZ_STORE_RULES_MAX]; /* RATING_GAME, LEADERBOARD, RATING_GET */
    int64_t game;                    /* RATING_GAME */
    int64_t player[3];               /* RATING_GAME: seat order; RATING_GET: [0] */
    int landlord;                    /* RATING_GAME: -1..2 */
    bool landlord_won;               /* RATING_GAME */
    unsigned forfeit;                /* RATING_GAME: seats that left (bit s: seat s) */
    int limit;                       /* LEADERBOARD */
    ddz_store_rating out[3];         /* RATING_GAME answer; RATING_GET: [0] */
    ddz_store_rating before[3];      /* RATING_GAME answer: the rows before the game (as
                                        stored: the rows after, for a game applied before) */
} ddz_store_rating_req;

typedef struct ddz_store_read {
    int kind;                        /* enum ddz_store_read_kind */
    int64_t due_ms;                  /* set by ddz_store_read_submit: its bound (pg_conn.h) */
    int64_t id;                      /* GAME: the game to fetch */
    char key[DDZ_STORE_KEY_HEX + 1]; /* GAME: its link key, "" for none */
    char token[DDZ_TOKEN_HEX + 1];   /* TOKEN: the token to check; wiped once checked */
    uint8_t me[DDZ_STORE_ME_BYTES];  /* MINE: the player's hash */
    void *owner;                     /* the caller's: who waits for the answer */
    int rc;                          /* answer: as the synchronous function returns */
    char *json; /* GAME, MINE, ANALYSIS, PERSON, LEADERBOARD answer, malloc'd (the caller frees it)
                   or NULL */
    char *analysis; /* ANALYSIS answer: the cached analysis, malloc'd (the caller frees it),
                       NULL when none is cached (or it could not be read) */
    char name[DDZ_TOKEN_NAME_MAX];        /* TOKEN answer: the bot's name, "" on error */
    uint8_t token_id[DDZ_TOKEN_ID_BYTES]; /* TOKEN answer: the token's id */
    uint8_t (*ids)[DDZ_TOKEN_ID_BYTES];   /* TOKEN_IDS answer: malloc'd (the caller frees it) */
    ddz_store_account account;            /* ACCOUNT_..., SESSION_...: in and answer */
    char session[DDZ_SESSION_HEX + 1];    /* SESSION_..., ACCOUNT_ADD/HASH: in or answer */
    ddz_store_rating_req rating;          /* RATING_GAME, LEADERBOARD: in and answer */
    ddz_store_puzzle_req puzzle;          /* PUZZLE_NEXT: in */
    void (*key_row)(void *ctx, const char *key); /* ACCOUNT_KEYS: called for each key */
    void *key_ctx;                               /* ACCOUNT_KEYS: its ctx */
    uint8_t (*sessions)[DDZ_SESSION_ID_BYTES];   /* SESSIONS_LIVE: the ids (the caller's memory) */
    bool *live;                                  /* SESSIONS_LIVE answer: nsessions of them (the
                                                    caller's memory) */
    size_t nsessions;                            /* SESSIONS_LIVE */
    ddz_mail mail;                               /* the store's queue link */
} ddz_store_read;

/* Starts the reader thread. `wake(ctx)` is called from it after each answer
 * is queued, WITHOUT the store's locks held (it may call
 * ddz_store_read_done()); it must be safe from any thread. Returns 0,
 * DDZ_EINVAL if the reader is already running or `wake` is NULL, or
 * DDZ_ENOMEM if no thread could be started. */
int ddz_store_reader_start(ddz_store *s, void (*wake)(void *ctx), void *ctx);

/* Queues read `r` (kind and id or token set by the caller; `r` is cleared
 * of any earlier answer) for the reader thread. TOUCHES NO DISK and never
 * waits for a read. Its answer comes within ddz_store_options.timeout_ms
 * of this call, whatever the database does and however many reads wait
 * before it (DDZ_EDB past it: a read whose time ran out before its turn
 * is answered at once; one waiting behind a read that hangs is not held
 * past its own time). Returns 0 (the answer comes through
 * ddz_store_read_done(), always, exactly once), or DDZ_EINVAL if the kind
 * is unknown or the reader is not running (then the store did not take `r`). */
int ddz_store_read_submit(ddz_store *s, ddz_store_read *r);

/* Pops the oldest answered read, or NULL if none is waiting. Any thread;
 * the event loop calls it after `wake`. */
ddz_store_read *ddz_store_read_done(ddz_store *s);

/* Stops the reader thread after the read it is running. The reads still
 * queued are answered DDZ_EDB without being run: every submitted read is
 * waiting in ddz_store_read_done() when this returns, and `wake` is never
 * called again. NULL or a store without a reader is allowed. */
void ddz_store_reader_stop(ddz_store *s);

#endif
