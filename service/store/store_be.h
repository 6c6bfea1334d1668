/* store_be.h - what the store's shared part (store.c: the write queue, the
 * writer and reader threads, the JSON) asks of a database backend
 * (store_sqlite.c, store_pg.c). Internal to service/store/.
 *
 * A backend holds two connections: the WRITER's, used by the writer thread
 * and by the journal's replay thread (write_batch), one at a time (the
 * store's write lock), and the READERS', used by every read and by the
 * token writes, always under the store's read lock (one caller at a time);
 * a backend with id_block a third, used only by the ids thread (and by
 * ddz_store_open() before that thread starts). A backend never touches the
 * queue or the counters; it returns DDZ_E... codes, and after a DDZ_EDB from
 * a read, read_error() says why.
 *
 * A backend on the network (PostgreSQL) bounds every round trip
 * (pg_conn.h): a write's statements by store_be_cfg.timeout_ms each, a
 * read by the deadline read_deadline() set for it (measured from the
 * read's arrival), and all of them by the stop.
 */
#ifndef DDZ_STORE_BE_H
#define DDZ_STORE_BE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/store/pg_conn.h"
#include "service/store/store.h"

enum store_item_kind {
    ITEM_GAME,
    ITEM_TURN,
    ITEM_LADDER_DEAL,
    ITEM_LADDER_PUT,
    ITEM_MINE,
    ITEM_PUBLISH,  /* games: the game `id` is read by its id alone from now on (its key cleared) */
    ITEM_ANALYSIS, /* analyses: game `id`'s analysis `text`; never journaled (a cache) */
    ITEM_PUZZLE    /* puzzles: `puzzle`; never journaled (a stock) */
};

/* One queued write; the strings are owned by the item. */
typedef struct store_item {
    ddz_mail mail;           /* the write queue's link (store.c's) */
    struct store_item *next; /* the batch handed to write_batch */
    uint64_t seq;            /* its ticket (ddz_store_ticket()); 0 from the journal */
    enum store_item_kind kind;
    int64_t id;                     /* games, publish: the game id; mine: the game */
    int64_t finished_ms;            /* unix ms when queued */
    int number;                     /* games: game index; turns: turn number; mine: seat */
    int games;                      /* turns: deals played */
    bool aborted;                   /* games: cut short */
    bool replay;                    /* from the journal: written idempotently (it may be stored) */
    char *room;                     /* NULL allowed; ladder: the rule set */
    char *text;                     /* games: the record line; turns: names as JSON;
                                       analyses: the analysis as JSON */
    char *totals;                   /* turns: totals as JSON */
    char *names[3];                 /* games: players by seat, from the record */
    char *key;                      /* games: the link key, NULL for a listed room's game */
    ddz_store_ladder_deal *deal;    /* ladder: the deal (ITEM_LADDER_PUT: one standing, no rows) */
    uint8_t me[DDZ_STORE_ME_BYTES]; /* mine: the player's hash */
    ddz_store_puzzle *puzzle;       /* puzzles: the puzzle (owned) */
} store_item;

typedef struct store_batch_result {
    uint64_t ok, bad; /* items committed, items failed */
    /* The batch failed as a whole for want of the database (a connection
     * lost or not made, a lock not granted), not for its data: it may be
     * written later (the journal, journal.h). Then ok is 0 and bad counts
     * the whole batch. */
    bool lost;
    bool hung;     /* lost because the database did not answer within the bound
                      (not answering), rather than refused or closed (down) */
    char msg[160]; /* the last error, "" if none */
} store_batch_result;

/* How a backend is opened. */
typedef struct store_be_cfg {
    int busy_ms;             /* a lock another connection holds: waited for this long */
    int timeout_ms;          /* a round trip on the network: given up after this long */
    const ddz_pg_stop *stop; /* once asked for, nothing waits past its grace */
} store_be_cfg;

/* One row of a player's games, as the backend read it. */
typedef struct store_mine_row {
    int64_t id, finished_ms;
    int seat;
    const char *key, *room; /* NULL if none */
    const char *names[3];   /* NULL if none */
    const char *record;     /* the stored record line */
} store_mine_row;

#define STORE_HASH_BYTES 32 /* a token's hash */

typedef struct store_be store_be;

typedef struct store_ops {
    /* Opens both connections to `where`, creates or migrates the schema.
     * `shown` names the database in messages (no password). Returns the
     * backend or NULL with a one-line message in err. */
    store_be *(*open)(const char *where, const char *shown, const store_be_cfg *cfg, char *err,
                      size_t errlen);
    void (*close)(store_be *b);

    /* Writer connection. Writes the batch (a list) as one transaction as
     * far as it goes: an item that fails is counted in res->bad and
     * skipped, the rest committed and counted in res->ok. An item with
     * `replay` set that is stored already (by an earlier attempt whose
     * commit was lost with its connection) is counted in res->ok and not
     * written again: a record written twice is one record. */
    void (*write_batch)(store_be *b, store_item *batch, store_batch_result *res);
    /* Whether the writer connection is down now (after write_batch failed
     * to reconnect); NULL if the backend has none to lose (a file). */
    bool (*writer_lost)(store_be *b);
    /* Its own connection; NULL if the backend's ids come from max_game_id
     * alone (one process per database). Reserves a block of game ids that
     * no other store sharing the database gets: sets [*first, *last].
     * Returns 0 or DDZ_EDB (msg says why). */
    int (*id_block)(store_be *b, int64_t *first, int64_t *last, char *msg, size_t msglen);

    /* Readers' connection; every one below may block on the database. */
    const char *(*read_error)(store_be *b); /* why the last read failed */
    /* The deadline (ddz_pg_now_ms()) of the reads that follow, until the
     * next call: past it they answer DDZ_EDB (0: timeout_ms from each
     * statement's start). NULL for a backend with no network. */
    void (*read_deadline)(store_be *b, int64_t due_ms);
    /* The largest stored game id, 0 if none. */
    int (*max_game_id)(store_be *b, int64_t *out);
    /* Sets *record and *key (malloc'd; *key NULL if the game has none) of
     * game `id`. Returns 0, DDZ_ENOTFOUND, DDZ_EDB or DDZ_ENOMEM. */
    int (*get_game)(store_be *b, int64_t id, char **record, char **key);
    /* Sets *json (malloc'd) to the cached analysis of game `id`. Returns 0,
     * DDZ_ENOTFOUND (none cached), DDZ_EDB or DDZ_ENOMEM. */
    int (*get_analysis)(store_be *b, int64_t id, char **json);
    /* Calls line(ctx, record) for every game in id order (the aborted too
     * if `all`), from one snapshot, stopping at the first negative answer,
     * which it returns. Returns the number of lines, or a negative code. */
    int (*export_games)(store_be *b, bool all, int (*line)(void *ctx, const char *record),
                        void *ctx);
    /* Calls row(ctx, r) for the newest `max` games of player `me`, newest
     * first, stopping at the first negative answer, which it returns.
     * Returns the number of rows or a negative code. */
    int (*my_games)(store_be *b, const uint8_t me[DDZ_STORE_ME_BYTES], int max,
                    int (*row)(void *ctx, const store_mine_row *r), void *ctx);
    /* Inserts token `name` with `hash`, or replaces a revoked one; an
     * active one is left alone. Returns the rows changed (1 or 0) or DDZ_EDB. */
    int (*token_add)(store_be *b, const char *name, const uint8_t hash[STORE_HASH_BYTES],
                     int64_t now_ms);
    /* Calls row() for every active token. Returns the count or DDZ_EDB. */
    int (*token_active)(store_be *b,
                        void (*row)(void *ctx, const char *name, const uint8_t *hash, size_t len),
                        void *ctx);
    /* Revokes the active token of `name`. Returns the rows changed or DDZ_EDB. */
    int (*token_revoke)(store_be *b, const char *name, int64_t now_ms);
    /* Calls row() for every token in name order (bytewise), stopping at the
     * first negative answer, which it returns. Returns the count or a
     * negative code. */
    int (*token_list)(store_be *b,
                      int (*row)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                      void *ctx);
    /* Accounts and sessions (store.h), on the readers' connection, each
     * write one transaction. `key` is the folded name, a session its hash.
     * account_add: first removes the row of `key` deleted before
     * `purge_before`, then inserts the account unless a row holds `key`;
     * returns 1 and sets *id, 0 (the name is taken) or DDZ_EDB. */
    int (*account_add)(store_be *b, const char *name, const char *key, const char *hash,
                       int64_t now_ms, int64_t purge_before, int64_t *id);
    /* Calls row(ctx, key) for the key of every account live or deleted at
     * or after `purge_before`, made at or after `since_ms`, and only of
     * `key` unless it is NULL. Returns the count or DDZ_EDB. */
    int (*account_keys)(store_be *b, const char *key, int64_t since_ms, int64_t purge_before,
                        void (*row)(void *ctx, const char *key), void *ctx);
    /* Copies the mine rows of owner `from` to owner `to` (existing ones
     * kept). Returns the rows inserted or DDZ_EDB. */
    int (*mine_copy)(store_be *b, const uint8_t from[DDZ_STORE_ME_BYTES],
                     const uint8_t to[DDZ_STORE_ME_BYTES]);
    /* Fills *out (id, name, hash) with the live account of `key`. Returns
     * 0, DDZ_ENOTFOUND or DDZ_EDB. */
    int (*account_get)(store_be *b, const char *key, ddz_store_account *out);
    /* Sets live account `id`'s hash and removes its sessions but `keep`
     * (NULL: all). Returns the accounts changed (1 or 0) or DDZ_EDB. */
    int (*account_set_hash)(store_be *b, int64_t id, const char *hash,
                            const uint8_t *keep /* STORE_HASH_BYTES or NULL */);
    /* Marks live account `id` deleted at now_ms (hash ''), removes its
     * sessions. Returns the accounts changed (1 or 0) or DDZ_EDB. */
    int (*account_delete)(store_be *b, int64_t id, int64_t now_ms);
    /* Inserts session `hash` of live account `id`. Returns the rows
     * inserted (0: no such live account) or DDZ_EDB. */
    int (*session_add)(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t id,
                       int64_t now_ms);
    /* Fills out->id and out->name from session `hash` of a live account.
     * Returns 0, DDZ_ENOTFOUND or DDZ_EDB. */
    int (*session_get)(store_be *b, const uint8_t hash[STORE_HASH_BYTES], ddz_store_account *out);
    /* Removes session `hash`, setting *account to its account. Returns the
     * rows removed (1 or 0) or DDZ_EDB. */
    int (*session_end)(store_be *b, const uint8_t hash[STORE_HASH_BYTES], int64_t *account);
    /* People's ratings (store.h), on the readers' connection.
     * rating_game: in ONE TRANSACTION, makes the rows of `player` missing
     * under `rules` (mu0, sigma0, no games), locks and reads them into
     * r[0..2] (seat order), and unless a history row of (any of them,
     * rules, game) is there calls update(ctx, r) (which changes mu, sigma
     * and the counts; a negative return is returned, everything rolled
     * back) and writes the rows and their history rows (at now_ms).
     * Returns 1 (applied), 0 (applied before: r as stored), a negative
     * update return or DDZ_EDB. */
    int (*rating_game)(store_be *b, const char *rules, int64_t game, const int64_t player[3],
                       int64_t now_ms, double mu0, double sigma0,
                       int (*update)(void *ctx, ddz_store_rating r[3]), void *ctx,
                       ddz_store_rating r[3]);
    /* Calls row for each rule set's rating of `player` (rules order).
     * Returns the rows or DDZ_EDB (or row's negative return). */
    int (*person_ratings)(store_be *b, int64_t player,
                          int (*row)(void *ctx, const char *rules, const ddz_store_rating *r),
                          void *ctx);
    /* Calls row for the newest `limit` history rows of `player`, ordered by
     * rules, then oldest first. Returns the rows or DDZ_EDB. */
    int (*person_history)(store_be *b, int64_t player, int limit,
                          int (*row)(void *ctx, const char *rules, int64_t at_ms, double mu,
                                     double sigma),
                          void *ctx);
    /* Sets ids[0..] to the newest `limit` rated games of `player` (each
     * once, the newest applied first). Returns how many or DDZ_EDB. */
    int (*person_games)(store_be *b, int64_t player, int limit, int64_t *ids);
    /* Calls row for the top `limit` live accounts of `rules` with at least
     * `min_games` games (mu highest first, then games, then id).
     * Returns the rows or DDZ_EDB. */
    int (*leaderboard)(store_be *b, const char *rules, int limit, int min_games,
                       int (*row)(void *ctx, const char *name, const ddz_store_rating *r),
                       void *ctx);
    /* Sets *rank to `player`'s place on the leaderboard of `rules` (1 the
     * first, in leaderboard's order) when it is listed there: a live
     * account with at least `min_games` games; else 0. Returns 0 or
     * DDZ_EDB. */
    int (*board_rank)(store_be *b, const char *rules, int64_t player, int min_games, int64_t *rank);
    /* Puzzles (store.h), on the readers' connection.
     * puzzle_get: fills *out with puzzle `id`; returns 0, DDZ_ENOTFOUND
     * or DDZ_EDB. */
    int (*puzzle_get)(store_be *b, int64_t id, ddz_store_puzzle *out);
    /* Sets ids[] and ratings[] to the puzzles of `rules` whose ratings
     * are nearest `rating`: at most `limit` of them at or above it
     * (lowest first), then at most `limit` below it (highest first).
     * ids and ratings hold 2 * limit. Returns how many or DDZ_EDB. */
    int (*puzzle_near)(store_be *b, const char *rules, double rating, int limit, int64_t *ids,
                       double *ratings);
    /* puzzle_rate: in ONE TRANSACTION, locks puzzle `id`'s row (its
     * rules, rating, deviation), then unless an attempt of (account, id)
     * is there makes the row of (account, its rules) if missing (mu0,
     * sigma0, no attempts), locks and reads it into *me (rules too), calls
     * update(ctx, me, &rating, &deviation) (a negative return is
     * returned, everything rolled back) and writes both rows and the
     * attempt (at now_ms, with the person's mu and sigma after). Returns 1
     * (rated), 0 (attempted before: *me as stored, if there is a row),
     * DDZ_ENOTFOUND (no puzzle `id`), a negative update return or DDZ_EDB. */
    int (*puzzle_rate)(store_be *b, int64_t account, int64_t id, bool solved, int64_t now_ms,
                       double mu0, double sigma0,
                       int (*update)(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                                     double *deviation),
                       void *ctx, ddz_store_puzzle_rating *me);
    /* Fills me->mu, sigma, attempts, solved from the row of (account,
     * me->rules). Returns 1 (found), 0 (none: *me untouched) or DDZ_EDB. */
    int (*puzzle_rating_get)(store_be *b, int64_t account, ddz_store_puzzle_rating *me);
    /* The ladder's loads, as ddz_store_ladder_players/history. */
    int (*ladder_players)(store_be *b, const char *rules,
                          void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx);
    int (*ladder_history)(store_be *b, const char *rules, const char *name, int limit,
                          void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx);
} store_ops;

extern const store_ops ddz__store_sqlite_ops;
extern const store_ops ddz__store_pg_ops;

/* Writes `fmt` to err as one line (control characters become spaces). */
void ddz__store_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
