/* store.c - the store's shared part: the bounded write queue and its
 * writer thread, the journal's replay thread, the reader thread for an
 * event loop, game ids, the tickets of durable writes, and the JSON and
 * token logic every backend shares. The SQL is the backends' (store_be.h:
 * store_sqlite.c, store_pg.c). */
#include "service/store/store.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/fail.h"
#include "proto/msg.h"
#include "proto/record_json.h"
#include "proto/utf8.h"
#include "rules/error.h"
#include "service/rating/people_rating.h"
#include "service/store/journal.h"
#include "service/store/pg_conn.h"
#include "service/store/store_be.h"
#include "service/thread/mailbox.h"

#define BATCH_MAX 512 /* queued writes committed in one transaction, at most */
#define TOKEN_BYTES 32

struct ddz_store {
    const store_ops *ops;  /* the backend */
    store_be *be;          /* its connections */
    pthread_mutex_t rlock; /* serialises use of the readers' connection */
    pthread_mutex_t wlock; /* serialises use of the writer's connection (writer, replay) */
    pthread_t thread;      /* the writer */
    bool started;          /* the writer thread is running */
    pthread_t pthread;     /* replays the journal (with one) */
    bool pstarted;         /* it is running */
    ddz_mailbox *pbell;    /* its doorbell: the writer appended, or closing */
    ddz_pg_stop own_stop;  /* the stop when the options give none */
    ddz_pg_stop *stop;     /* the stop in use: asked for by close (or its owner) */
    int timeout_ms;        /* a round trip's bound (ddz_store_options.timeout_ms) */
    /* Tickets: queued is the newest handed out (under `lock`, in queue
     * order); durable the newest whose write is durable (the writer's). */
    uint64_t queued;
    _Atomic uint64_t durable;
    /* the owner's wake when `durable` advances; called, and changed, under
     * wake_lock only, so that once unset it is not running any more */
    pthread_mutex_t wake_lock;
    void (*on_durable)(void *ctx);
    void *durable_ctx;
    pthread_t ithread; /* fetches blocks of game ids (with ops->id_block) */
    bool istarted;     /* it is running */
    /* The write queue: bounded by max_queue, counting the batch the writer
     * holds (as much in memory as the queued items), drained on close. */
    ddz_mailbox *wq;
    ddz_mailbox *idq;     /* the ids thread's doorbell: a spare is wanted, or closing */
    ddz_mailbox *answers; /* reads answered, for ddz_store_read_done() */
    ddz_mailbox *reads;   /* reads for the reader thread, while it runs */
    /* Writes the database could not take, in order (journal.h); NULL
     * without one. While it holds any, every batch goes there first and
     * the replay thread writes them on, so nothing overtakes an older write (a
     * standing replayed after a newer one would undo it). */
    ddz_journal *journal;
    /* ddz_pg_now_ms() before which the replay thread does not try the
     * database (set by it, and by the writer when an outage begins) */
    _Atomic int64_t retry_at;
    pthread_mutex_t lock; /* everything below */
    /* An outage: from the first batch journaled for want of the database
     * to the journal replayed empty (one log line at each end). */
    bool outage;
    int64_t outage_ms;    /* when it began (ddz_pg_now_ms()) */
    bool replaying;       /* a replay batch went in since the outage (or the open) */
    int64_t replay_ms;    /* when the replay began */
    uint64_t replay_from; /* `replayed` then */
    uint64_t writes, write_errors, drops, read_errors;
    uint64_t replayed;        /* writes from the journal written */
    uint64_t errors_at_flush; /* write_errors at the last flush */
    uint64_t ids_past;        /* ids handed out with none in hand */
    int64_t past_next;        /* the next of those; 0: no run started */
    char last_error[160];     /* last database message */
    /* Game ids. Without ops->id_block: the highest id reserved, added or
     * stored (one process owns the file). With it: blocks the database
     * handed out, the current one [id_next, id_end] and a spare the ids
     * thread fetches ahead, so reserving never waits on the network (nor
     * for the writer, which may be stuck behind a lock). */
    _Atomic int64_t last_id;
    int64_t id_next, id_end;       /* under lock */
    int64_t spare_next, spare_end; /* under lock; spare_next > spare_end: none */
    bool want_ids;                 /* under lock: the ids thread should fetch a spare */
    /* the reader thread, under `lock` too */
    pthread_t rthread;       /* runs reads on the readers' connection */
    bool rstarted, rstop;    /* running; asked to stop */
    void (*wake)(void *ctx); /* tells the reads' owner of an answer */
    void *wake_ctx;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ddz__store_set_err(char *err, size_t errlen, const char *fmt, ...)
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

static void item_free(store_item *it)
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
    free(it->puzzle);
    free(it);
}

/* Frees the queued writes of the chain `m`. Returns how many. */
static uint64_t free_items(ddz_mail *m)
{
    uint64_t n = 0;
    for (ddz_mail *next; m; m = next, n++) {
        next = m->next;
        item_free(DDZ_MAIL_ITEM(m, store_item, mail));
    }
    return n;
}

/* Takes the readers' connection for reads due by `due_ms`
 * (ddz_pg_now_ms(); 0: each statement bounded from its start). */
static void rbegin(ddz_store *s, int64_t due_ms)
{
    pthread_mutex_lock(&s->rlock);
    if (s->ops->read_deadline)
        s->ops->read_deadline(s->be, due_ms);
}

static void rend(ddz_store *s)
{
    pthread_mutex_unlock(&s->rlock);
}

/* Counts a read's result: a DDZ_EDB is counted with the backend's message.
 * Caller holds rlock. Returns rc. */
static int read_result(ddz_store *s, int rc)
{
    if (rc != DDZ_EDB)
        return rc;
    pthread_mutex_lock(&s->lock);
    s->read_errors++;
    snprintf(s->last_error, sizeof s->last_error, "%s", s->ops->read_error(s->be));
    pthread_mutex_unlock(&s->lock);
    return DDZ_EDB;
}

/* ---- opening -------------------------------------------------------------- */

bool ddz_store_is_url(const char *where)
{
    return where &&
           (strncmp(where, "postgres://", 11) == 0 || strncmp(where, "postgresql://", 13) == 0);
}

void ddz_store_shown(const char *where, char *out, size_t outlen)
{
    if (!outlen)
        return;
    if (!ddz_store_is_url(where)) {
        snprintf(out, outlen, "%s", where ? where : "");
        return;
    }
    /* scheme://[user[:password]@]host[:port][/db][?params]: the password
     * and the parameters (which may hold one too) are left out. The last
     * '@' ends the user part, even if a password holds a raw '/'. */
    size_t len = strcspn(where, "?");
    const char *auth = strstr(where, "://") + 3, *end = where + len, *at = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == '@')
            at = p;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon)
        snprintf(out, outlen, "%.*s%.*s", (int)(colon - where), where, (int)(end - at), at);
    else
        snprintf(out, outlen, "%.*s", (int)len, where);
}

/* Starts `fn(s)` on a thread of the store's. Signals go to the threads
 * that handle them, never to the store's: they are blocked in it. Returns
 * pthread_create's 0 or error number. */
static int spawn(pthread_t *th, void *(*fn)(void *), ddz_store *s)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(th, NULL, fn, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static void *writer_main(void *arg);
static void *replay_main(void *arg);
static void *ids_main(void *arg);

ddz_store *ddz_store_open(const char *path, const ddz_store_options *opt, char *err, size_t errlen)
{
    if (!path || !*path) {
        ddz__store_set_err(err, errlen, "no database path");
        return NULL;
    }
    char shown[256];
    ddz_store_shown(path, shown, sizeof shown);
    ddz_store_options o = opt ? *opt : (ddz_store_options){0};
    if (o.busy_ms < 0 || o.timeout_ms < 0) {
        ddz__store_set_err(err, errlen, "%s: %s must not be negative", shown,
                           o.busy_ms < 0 ? "busy_ms" : "timeout_ms");
        return NULL;
    }
    ddz_store *s = calloc(1, sizeof *s);
    if (!s) {
        ddz__store_set_err(err, errlen, "%s: out of memory", shown);
        return NULL;
    }
    pthread_mutex_init(&s->rlock, NULL);
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->wake_lock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    /* a stop of its own only for PostgreSQL without one given (a SQLite
     * file has no round trips to end); without an eventfd a stop is seen
     * when a wait ends: still bounded */
    s->own_stop = (ddz_pg_stop){.fd = -1};
    if (!o.stop && ddz_store_is_url(path))
        ddz_pg_stop_init(&s->own_stop);
    s->stop = o.stop ? o.stop : &s->own_stop;
    s->timeout_ms = o.timeout_ms ? o.timeout_ms : DDZ_PG_TIMEOUT_MS;
    s->ops = ddz_store_is_url(path) ? &ddz__store_pg_ops : &ddz__store_sqlite_ops;
    s->wq = ddz_mailbox_create(o.max_queue ? o.max_queue : DDZ_STORE_QUEUE_MAX, false);
    s->idq = ddz_mailbox_create(0, false);
    s->answers = ddz_mailbox_create(0, false);
    if (!s->wq || !s->idq || !s->answers) {
        ddz__store_set_err(err, errlen, "%s: out of memory", shown);
        goto fail;
    }
    s->spare_next = 1, s->spare_end = 0;
    s->id_next = 1, s->id_end = 0;
    if (o.journal && ddz_store_is_url(path) &&
        !(s->journal =
              ddz_journal_open(o.journal, o.journal_max, o.journal_max_bytes, err, errlen)))
        goto fail;
    store_be_cfg bc = {.busy_ms = o.busy_ms ? o.busy_ms : DDZ_STORE_BUSY_MS,
                       .timeout_ms = s->timeout_ms,
                       .stop = s->stop};
    s->be = s->ops->open(path, shown, &bc, err, errlen);
    if (!s->be)
        goto fail;
    char msg[160] = "";
    if (s->ops->id_block) {
        /* the first block now, the spare as soon as the ids thread runs */
        if (s->ops->id_block(s->be, &s->id_next, &s->id_end, msg, sizeof msg) < 0) {
            ddz__store_set_err(err, errlen, "%s: reserving game ids: %s", shown, msg);
            goto fail;
        }
        s->want_ids = true;
    } else {
        int64_t last = 0;
        if (s->ops->max_game_id(s->be, &last) < 0) {
            ddz__store_set_err(err, errlen, "%s: %s", shown, s->ops->read_error(s->be));
            goto fail;
        }
        atomic_store(&s->last_id, last);
    }

    int rc = spawn(&s->thread, writer_main, s);
    if (rc != 0) {
        ddz__store_set_err(err, errlen, "%s: cannot start the writer thread: %s", shown,
                           strerror(rc));
        goto fail;
    }
    s->started = true;
    if (s->journal) {
        if (!(s->pbell = ddz_mailbox_create(0, false)) ||
            (rc = spawn(&s->pthread, replay_main, s)) != 0) {
            ddz__store_set_err(err, errlen, "%s: cannot start the journal's thread", shown);
            goto fail;
        }
        s->pstarted = true;
    }
    if (s->ops->id_block) {
        rc = spawn(&s->ithread, ids_main, s);
        if (rc != 0) {
            ddz__store_set_err(err, errlen, "%s: cannot start the ids thread: %s", shown,
                               strerror(rc));
            goto fail;
        }
        s->istarted = true;
    }
    return s;
fail:
    ddz_store_close(s);
    return NULL;
}

void ddz_store_close(ddz_store *s)
{
    if (!s)
        return;
    /* First: from now on no thread of ours waits on the database past the
     * grace (the read, the replay, the block of ids, the write under way) */
    ddz_pg_stop_now(s->stop);
    ddz_store_reader_stop(s);
    if (s->pstarted) { /* what it holds waits for the next store opened on it */
        ddz_mailbox_close(s->pbell, DDZ_MAILBOX_DROP);
        pthread_join(s->pthread, NULL);
    }
    if (s->started) {
        ddz_mailbox_close(s->idq, DDZ_MAILBOX_DROP);
        ddz_mailbox_close(s->wq, DDZ_MAILBOX_DRAIN); /* the writer drains the queue first */
        pthread_join(s->thread, NULL);
        if (s->istarted)
            pthread_join(s->ithread, NULL);
    }
    if (s->wq) /* a writer that never started */
        free_items(ddz_mailbox_get_all(s->wq));
    if (s->be)
        s->ops->close(s->be);
    ddz_journal_close(s->journal);
    ddz_mailbox_destroy(s->wq);
    ddz_mailbox_destroy(s->pbell);
    ddz_mailbox_destroy(s->idq);
    ddz_mailbox_destroy(s->answers);
    ddz_pg_stop_fini(&s->own_stop);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->wake_lock);
    pthread_mutex_destroy(&s->rlock);
    free(s);
}

uint64_t ddz_store_ticket(ddz_store *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t t = s->queued;
    pthread_mutex_unlock(&s->lock);
    return t;
}

uint64_t ddz_store_durable(ddz_store *s)
{
    return atomic_load(&s->durable);
}

void ddz_store_on_durable(ddz_store *s, void (*wake)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&s->wake_lock);
    s->on_durable = wake;
    s->durable_ctx = ctx;
    pthread_mutex_unlock(&s->wake_lock);
}

/* ---- the writer ------------------------------------------------------------ */

/* Fetches a spare block of ids. Caller holds lock; drops it while the
 * database answers. want_ids stays set until the block is in, so no
 * reservation meanwhile asks for another. */
static void fetch_ids(ddz_store *s)
{
    pthread_mutex_unlock(&s->lock);
    int64_t first = 0, last = 0;
    char msg[160] = "";
    int rc = s->ops->id_block(s->be, &first, &last, msg, sizeof msg);
    pthread_mutex_lock(&s->lock);
    if (rc < 0) {
        snprintf(s->last_error, sizeof s->last_error, "reserving game ids: %.130s", msg);
        s->want_ids = false; /* asked again by the next reservation */
        return;
    }
    if (s->id_next > s->id_end) { /* the current one ran out meanwhile: this is it */
        s->id_next = first, s->id_end = last;
        /* and want_ids stays set: a spare behind it */
    } else {
        s->spare_next = first, s->spare_end = last;
        s->want_ids = false;
    }
}

/* Fetches while want_ids is set (a block that came in as the current one
 * leaves it set: the spare behind it is fetched at once), else sleeps until
 * a reservation rings or the store closes. */
static void *ids_main(void *arg)
{
    ddz_store *s = arg;
    while (!ddz_mailbox_closed(s->idq)) {
        pthread_mutex_lock(&s->lock);
        bool want = s->want_ids;
        if (want)
            fetch_ids(s);
        pthread_mutex_unlock(&s->lock);
        if (!want)
            ddz_mailbox_wait(s->idq, -1); /* a ring between the look and here counts */
    }
    return NULL;
}

/* Closing with the database out of reach: every further batch would wait
 * up to connect_timeout (5 s) to reconnect, 10,000 queued writes some
 * 100 s, far past the grace a supervisor gives a stopping server. So once
 * stopping, the first batch that failed to reconnect fails the rest of
 * the queue at once: counted as failed writes, and said on stderr as the
 * server's log lines are (the store has no log of its own and is being
 * closed: ddz_store_stats() can no longer be asked). Caller holds lock. */
static void fail_rest(ddz_store *s)
{
    uint64_t n = free_items(ddz_mailbox_get_all(s->wq));
    s->write_errors += n;
    ddz_pg_log("error", "store: closing without the database: %llu queued writes failed (%.160s)",
               (unsigned long long)n, s->last_error);
}

/* ---- the journal ---------------------------------------------------------- */

static json_t *str_or_null(const char *t)
{
    return t ? json_string(t) : json_null();
}

static json_t *player_json(const ddz_store_ladder_player *p)
{
    return json_pack("{s:s, s:f, s:f, s:I, s:I, s:f, s:I, s:s}", "name", p->name, "mu", p->mu,
                     "sigma", p->sigma, "games", (json_int_t)p->games, "deals",
                     (json_int_t)p->deals, "score", p->score, "faults", (json_int_t)p->faults,
                     "suspended", p->suspended);
}

/* The string `name` of object j, "" if it has none. */
static const char *str_of(json_t *j, const char *name)
{
    const char *t = json_string_value(json_object_get(j, name));
    return t ? t : "";
}

/* A history row's comparisons as JSON: [{name, score, game}, ...], or
 * NULL when out of memory (never a list cut short). */
static json_t *cmp_json(const ddz_store_ladder_hist *h)
{
    json_t *a = json_array();
    for (int k = 0; a && k < h->ncmp; k++)
        if (json_array_append_new(a, json_pack("{s:s, s:f, s:I}", "name", h->cmp[k].name, "score",
                                               h->cmp[k].score, "game",
                                               (json_int_t)h->cmp[k].game)) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* A history row as the writer needs it (the store sets id and
 * finished_ms: they are not carried). */
static json_t *hist_json(const ddz_store_ladder_hist *h)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:I, s:i, s:[I,I,I], s:[s,s], s:o}", "name",
                     h->name, "mu", h->mu, "sigma", h->sigma, "score", h->score, "faults",
                     h->faults, "deal", (json_int_t)h->deal, "hand", h->hand, "games",
                     (json_int_t)h->games[0], (json_int_t)h->games[1], (json_int_t)h->games[2],
                     "opp", h->opp[0], h->opp[1], "compared", cmp_json(h));
}

char *ddz_store_ladder_cmp_text(const ddz_store_ladder_hist *h)
{
    json_t *a = cmp_json(h);
    char *text = a ? json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(a);
    return text;
}

/* Fills h's comparisons from the array `a`; false if it is not one of
 * at most DDZ_STORE_LADDER_TABLES - 1 objects. */
static bool cmp_from(json_t *a, ddz_store_ladder_hist *h)
{
    h->ncmp = 0;
    if (!json_is_array(a) || json_array_size(a) > DDZ_STORE_LADDER_TABLES - 1)
        return false;
    for (size_t k = 0; k < json_array_size(a); k++) {
        json_t *c = json_array_get(a, k);
        if (!json_is_object(c))
            return false;
        ddz_store_ladder_cmp *m = &h->cmp[h->ncmp++];
        snprintf(m->name, sizeof m->name, "%s", str_of(c, "name"));
        m->score = json_number_value(json_object_get(c, "score"));
        m->game = json_integer_value(json_object_get(c, "game"));
    }
    return true;
}

int ddz_store_ladder_cmp_parse(const char *text, ddz_store_ladder_hist *h)
{
    h->ncmp = 0;
    if (!text || !text[0])
        return 0;
    json_t *a = json_loads(text, 0, NULL);
    bool ok = cmp_from(a, h);
    json_decref(a);
    if (!ok)
        h->ncmp = 0;
    return ok ? 0 : DDZ_EINVAL;
}

/* A queued write as a journal entry's body: every field it holds, as
 * JSON (doubles as %.17g: read back exactly). Returns the text
 * (malloc'd) or NULL when out of memory. */
static char *item_encode(const store_item *it)
{
    char me[2 * DDZ_STORE_ME_BYTES + 1];
    sodium_bin2hex(me, sizeof me, it->me, sizeof it->me);
    json_t *j = json_pack("{s:i, s:I, s:I, s:i, s:i, s:b, s:o, s:o, s:o, s:[o,o,o], s:o, s:s}",
                          "kind", (int)it->kind, "id", (json_int_t)it->id, "at",
                          (json_int_t)it->finished_ms, "number", it->number, "games", it->games,
                          "aborted", it->aborted, "room", str_or_null(it->room), "text",
                          str_or_null(it->text), "totals", str_or_null(it->totals), "names",
                          str_or_null(it->names[0]), str_or_null(it->names[1]),
                          str_or_null(it->names[2]), "key", str_or_null(it->key), "me", me);
    if (j && it->deal) {
        const ddz_store_ladder_deal *d = it->deal;
        json_t *p = json_array(), *rows = json_array();
        bool ok = p && rows; /* out of memory: no entry rather than a deal cut short */
        for (int i = 0; ok && i < d->nplayers; i++)
            ok = json_array_append_new(p, player_json(&d->p[i])) == 0;
        for (int i = 0; ok && i < d->nrows; i++)
            ok = json_array_append_new(rows, hist_json(&d->rows[i])) == 0;
        if (!ok || json_object_set_new(j, "deal", json_pack("{s:o, s:o}", "p", p, "rows", rows))) {
            if (!ok) {
                json_decref(p);
                json_decref(rows);
            }
            json_decref(j);
            j = NULL;
        }
    }
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(j);
    return text;
}

static char *dup_field(json_t *j, const char *name, bool *bad)
{
    json_t *v = json_object_get(j, name);
    if (!v || json_is_null(v))
        return NULL;
    const char *t = json_string_value(v);
    char *d = t ? strdup(t) : NULL;
    if (!d)
        *bad = true;
    return d;
}

static void player_from(json_t *j, ddz_store_ladder_player *p)
{
    snprintf(p->name, sizeof p->name, "%s", str_of(j, "name"));
    p->mu = json_number_value(json_object_get(j, "mu"));
    p->sigma = json_number_value(json_object_get(j, "sigma"));
    p->games = (long)json_integer_value(json_object_get(j, "games"));
    p->deals = (long)json_integer_value(json_object_get(j, "deals"));
    p->score = json_number_value(json_object_get(j, "score"));
    p->faults = (long)json_integer_value(json_object_get(j, "faults"));
    snprintf(p->suspended, sizeof p->suspended, "%s", str_of(j, "suspended"));
}

/* Whether `d` is a deal the store can write: every count in range, every
 * name there. */
static bool deal_ok(const ddz_store_ladder_deal *d)
{
    if (d->nplayers < 1 || d->nplayers > DDZ_STORE_LADDER_SEATS || d->nrows < 0 ||
        d->nrows > DDZ_STORE_LADDER_SEATS)
        return false;
    for (int i = 0; i < d->nplayers; i++)
        if (!d->p[i].name[0])
            return false;
    for (int i = 0; i < d->nrows; i++) {
        const ddz_store_ladder_hist *h = &d->rows[i];
        if (!h->name[0] || h->hand < -1 || h->hand > 2 || h->ncmp < 0 ||
            h->ncmp > DDZ_STORE_LADDER_TABLES - 1)
            return false;
        for (int k = 0; k < h->ncmp; k++)
            if (!h->cmp[k].name[0])
                return false;
    }
    return true;
}

static bool hist_from(json_t *j, ddz_store_ladder_hist *h)
{
    if (!json_is_object(j))
        return false;
    snprintf(h->name, sizeof h->name, "%s", str_of(j, "name"));
    h->mu = json_number_value(json_object_get(j, "mu"));
    h->sigma = json_number_value(json_object_get(j, "sigma"));
    h->score = json_number_value(json_object_get(j, "score"));
    h->faults = (int)json_integer_value(json_object_get(j, "faults"));
    h->deal = json_integer_value(json_object_get(j, "deal"));
    h->hand = (int)json_integer_value(json_object_get(j, "hand"));
    for (int g = 0; g < 3; g++)
        h->games[g] = json_integer_value(json_array_get(json_object_get(j, "games"), (size_t)g));
    for (int k = 0; k < 2; k++) {
        const char *t = json_string_value(json_array_get(json_object_get(j, "opp"), (size_t)k));
        snprintf(h->opp[k], sizeof h->opp[k], "%s", t ? t : "");
    }
    return cmp_from(json_object_get(j, "compared"), h);
}

/* A deal journaled before schema 5 (one deal played three times at one
 * table: p, score, faults and games of three) as three standings and
 * three rows of the old format (hand -1), so a journal kept across the
 * upgrade still replays. */
static bool old_deal_from(json_t *j, ddz_store_ladder_deal *d)
{
    json_t *p = json_object_get(j, "p"), *games = json_object_get(j, "games");
    if (json_array_size(p) != 3 || json_array_size(games) != 3)
        return false;
    d->nplayers = d->nrows = 3;
    for (size_t i = 0; i < 3; i++)
        player_from(json_array_get(p, i), &d->p[i]);
    for (int i = 0; i < 3; i++) {
        ddz_store_ladder_hist *h = &d->rows[i];
        /* memcpy: the names are arrays of one size (gcc's -Wrestrict
         * cannot tell the rows from the standings apart under snprintf) */
        memcpy(h->name, d->p[i].name, sizeof h->name);
        h->mu = d->p[i].mu;
        h->sigma = d->p[i].sigma;
        h->score = json_number_value(json_array_get(json_object_get(j, "score"), (size_t)i));
        h->faults =
            (int)json_integer_value(json_array_get(json_object_get(j, "faults"), (size_t)i));
        h->hand = -1;
        for (size_t g = 0; g < 3; g++)
            h->games[g] = json_integer_value(json_array_get(games, g));
        memcpy(h->opp[0], d->p[(i + 1) % 3].name, sizeof h->opp[0]);
        memcpy(h->opp[1], d->p[(i + 2) % 3].name, sizeof h->opp[1]);
    }
    return true;
}

/* A journaled deal back; false if its counts are out of range. */
static bool deal_from(json_t *j, ddz_store_ladder_deal *d)
{
    json_t *p = json_object_get(j, "p"), *rows = json_object_get(j, "rows");
    if (!rows && json_object_get(j, "games"))
        return old_deal_from(j, d);
    size_t np = json_array_size(p), nr = json_array_size(rows);
    if (!json_is_array(p) || !json_is_array(rows) || np < 1 || np > DDZ_STORE_LADDER_SEATS ||
        nr > DDZ_STORE_LADDER_SEATS)
        return false;
    d->nplayers = (int)np;
    d->nrows = (int)nr;
    for (size_t i = 0; i < np; i++)
        player_from(json_array_get(p, i), &d->p[i]);
    for (size_t i = 0; i < nr; i++)
        if (!hist_from(json_array_get(rows, i), &d->rows[i]))
            return false;
    return true;
}

/* A journal entry's body back as a write to replay. Returns it, or NULL
 * when it does not decode (or out of memory). */
static store_item *item_decode(const char *body)
{
    json_t *j = json_loads(body, 0, NULL);
    store_item *it = j ? calloc(1, sizeof *it) : NULL;
    if (!it) {
        json_decref(j);
        return NULL;
    }
    bool bad = false;
    it->kind = (enum store_item_kind)json_integer_value(json_object_get(j, "kind"));
    it->id = json_integer_value(json_object_get(j, "id"));
    it->finished_ms = json_integer_value(json_object_get(j, "at"));
    it->number = (int)json_integer_value(json_object_get(j, "number"));
    it->games = (int)json_integer_value(json_object_get(j, "games"));
    it->aborted = json_is_true(json_object_get(j, "aborted"));
    it->replay = true;
    it->room = dup_field(j, "room", &bad);
    it->text = dup_field(j, "text", &bad);
    it->totals = dup_field(j, "totals", &bad);
    it->key = dup_field(j, "key", &bad);
    json_t *names = json_object_get(j, "names");
    for (int i = 0; i < 3; i++) {
        const char *t = json_string_value(json_array_get(names, (size_t)i));
        if (t && !(it->names[i] = strdup(t)))
            bad = true;
    }
    const char *me = json_string_value(json_object_get(j, "me"));
    size_t len = 0;
    if (!me || sodium_hex2bin(it->me, sizeof it->me, me, strlen(me), NULL, &len, NULL) != 0 ||
        len != sizeof it->me)
        bad = true;
    json_t *d = json_object_get(j, "deal");
    if (d && (it->deal = calloc(1, sizeof *it->deal))) {
        bool read = deal_from(d, it->deal);
        if (it->kind == ITEM_LADDER_PUT) /* one standing (of three, before schema 5) */
            it->deal->nplayers = 1, it->deal->nrows = 0;
        if (!read || !deal_ok(it->deal))
            bad = true;
    } else if (d) {
        bad = true;
    }
    bool known = it->kind == ITEM_GAME || it->kind == ITEM_TURN || it->kind == ITEM_MINE ||
                 (it->kind == ITEM_PUBLISH && it->id > 0) ||
                 ((it->kind == ITEM_LADDER_DEAL || it->kind == ITEM_LADDER_PUT) && it->deal);
    if (it->kind == ITEM_GAME && !it->text)
        known = false;
    json_decref(j);
    if (bad || !known) {
        item_free(it);
        return NULL;
    }
    return it;
}

/* Puts the batch in the journal, in order. Returns 0, or a negative code
 * when it could not (then the batch is lost: counted as failed). */
static int journal_batch(ddz_store *s, store_item *batch, size_t n)
{
    ddz_journal_entry *e = calloc(n ? n : 1, sizeof *e);
    size_t k = 0;
    int rc = e ? 0 : DDZ_ENOMEM;
    for (store_item *it = batch; it && rc == 0; it = it->next) {
        if (it->kind == ITEM_ANALYSIS || it->kind == ITEM_PUZZLE)
            continue; /* a cache, a stock: not kept while the database is away (store.h) */
        /* a game's record and its publication under its id: a pending
         * game is served as the database will serve it (journal_game) */
        e[k].game = it->kind == ITEM_GAME || it->kind == ITEM_PUBLISH ? it->id : 0;
        if (!(e[k++].body = item_encode(it)))
            rc = DDZ_ENOMEM;
    }
    if (rc == 0 && k > 0)
        rc = ddz_journal_append(s->journal, e, k);
    for (size_t i = 0; e && i < k; i++)
        free((char *)e[i].body);
    free(e);
    if (rc < 0) {
        pthread_mutex_lock(&s->lock);
        s->write_errors += n;
        if (rc == DDZ_EIO)
            ddz_journal_error(s->journal, s->last_error, sizeof s->last_error);
        pthread_mutex_unlock(&s->lock);
    } else if (k > 0) {
        ddz_mailbox_poke(s->pbell); /* something to replay */
    }
    return rc;
}

typedef struct replay_batch {
    store_item *head, **tail;
    int64_t last_seq; /* the newest entry taken */
    uint64_t n;       /* entries taken */
    uint64_t undecodable;
} replay_batch;

static int take_entry(void *ctx, const ddz_journal_entry *e)
{
    replay_batch *b = ctx;
    store_item *it = item_decode(e->body);
    b->last_seq = e->seq;
    b->n++;
    if (!it) {
        b->undecodable++; /* never writable: counted as failed, removed */
        return 0;
    }
    *b->tail = it;
    b->tail = &it->next;
    return 0;
}

static bool journal_pending(ddz_store *s)
{
    if (!s->journal)
        return false;
    ddz_journal_counters js;
    ddz_journal_stats(s->journal, &js);
    return js.pending > 0;
}

/* Replays the journal's oldest batch (up to BATCH_MAX entries) on the
 * writer's connection. Returns true if it went in (more may follow at
 * once), false if the database did not take it (not tried again before
 * DDZ_STORE_RETRY_MS) or nothing was there. The replay thread's. */
static bool replay_batch_once(ddz_store *s)
{
    replay_batch b = {.tail = &b.head};
    int rc = ddz_journal_peek(s->journal, BATCH_MAX, take_entry, &b);
    *b.tail = NULL;
    store_batch_result res = {0};
    if (rc > 0 && b.head) {
        pthread_mutex_lock(&s->wlock);
        s->ops->write_batch(s->be, b.head, &res);
        pthread_mutex_unlock(&s->wlock);
    }
    for (store_item *it = b.head, *next; it; it = next) {
        next = it->next;
        item_free(it);
    }
    if (rc <= 0 || res.lost) { /* nothing there (never, but no spin), or not taken */
        s->retry_at = ddz_pg_now_ms() + DDZ_STORE_RETRY_MS;
        pthread_mutex_lock(&s->lock);
        if (rc < 0)
            ddz_journal_error(s->journal, s->last_error, sizeof s->last_error);
        else if (res.msg[0])
            memcpy(s->last_error, res.msg, sizeof s->last_error);
        pthread_mutex_unlock(&s->lock);
        return false;
    }
    ddz_journal_counters js;
    ddz_journal_stats(s->journal, &js);
    /* Counted before they leave the journal, and ddz_store_stats() reads
     * the journal first: whoever sees it empty sees them counted. */
    pthread_mutex_lock(&s->lock);
    if (!s->replaying) {
        s->replaying = true;
        s->replay_ms = ddz_pg_now_ms();
        s->replay_from = s->replayed;
        if (s->outage)
            ddz_pg_log(
                "info", "database back after %.1f s: replaying the journal (%llu writes waiting)",
                (double)(s->replay_ms - s->outage_ms) / 1000, (unsigned long long)js.pending);
        else
            ddz_pg_log("info", "replaying the journal (%llu writes waiting)",
                       (unsigned long long)js.pending);
    }
    s->writes += res.ok;
    s->replayed += res.ok;
    s->write_errors += res.bad + b.undecodable;
    if (res.msg[0])
        memcpy(s->last_error, res.msg, sizeof s->last_error);
    pthread_mutex_unlock(&s->lock);
    if (ddz_journal_remove(s->journal, b.last_seq) < 0) {
        /* written but still there: replayed again later, which writes
         * nothing twice (and counts them twice) */
        s->retry_at = ddz_pg_now_ms() + DDZ_STORE_RETRY_MS;
        return false;
    }
    if (!journal_pending(s)) {
        pthread_mutex_lock(&s->lock);
        ddz_pg_log("info", "journal replayed: %llu writes in %.1f s",
                   (unsigned long long)(s->replayed - s->replay_from),
                   (double)(ddz_pg_now_ms() - s->replay_ms) / 1000);
        s->replaying = s->outage = false;
        pthread_mutex_unlock(&s->lock);
    }
    return true;
}

/* The journal's replay thread: while it holds writes, writes them to the
 * database oldest first, a batch at a time, trying every
 * DDZ_STORE_RETRY_MS while the database does not take them. It has a
 * thread of its own so that a database that does not answer holds it,
 * not the writer: the writer goes on making writes durable in the journal
 * meanwhile (the server's `over` waits for that). While the journal holds
 * anything the writer does not use the writer's connection (everything
 * goes behind it, in order), so the two never wait for each other on it
 * but for a moment when the journal empties (the write lock). */
static void *replay_main(void *arg)
{
    ddz_store *s = arg;
    while (!ddz_mailbox_closed(s->pbell)) {
        int wait = -1; /* nothing pending: until the writer appends */
        if (journal_pending(s)) {
            int64_t left = s->retry_at - ddz_pg_now_ms();
            if (left <= 0) {
                if (replay_batch_once(s))
                    continue;
                left = s->retry_at - ddz_pg_now_ms();
            }
            wait = left > 0 ? (int)left : 0;
        }
        ddz_mailbox_wait(s->pbell, wait);
    }
    return NULL;
}

/* A batch the database could not take goes to the journal: the outage
 * begins (one log line, with its cause) unless it is under way. */
static void outage_begins(ddz_store *s, const store_batch_result *res)
{
    pthread_mutex_lock(&s->lock);
    if (!s->outage) {
        s->outage = true;
        s->outage_ms = ddz_pg_now_ms();
        ddz_pg_log("warning", "database %s: writes go to the journal until it is back (%s)",
                   res->hung ? "not answering" : "down", res->msg);
    }
    pthread_mutex_unlock(&s->lock);
}

/* The writer: takes what is queued, a batch at a time, and makes it
 * durable, in order: in the database (one transaction), or in the journal
 * when the database is away or the journal holds older writes (the replay
 * thread writes them on). Then the batch's tickets are durable: the owner
 * is woken (ddz_store_on_durable). */
static void *writer_main(void *arg)
{
    ddz_store *s = arg;
    ddz_mail *chain;
    size_t n;
    while ((chain = ddz_mailbox_take(s->wq, BATCH_MAX, &n))) {
        store_item *batch = NULL, **tail = &batch;
        uint64_t last = 0;
        for (ddz_mail *m = chain; m; m = m->next) {
            *tail = DDZ_MAIL_ITEM(m, store_item, mail);
            last = (*tail)->seq;
            tail = &(*tail)->next;
        }
        *tail = NULL;

        store_batch_result res = {0};
        if (journal_pending(s)) {
            journal_batch(s, batch, n); /* behind what waits there: in order */
        } else {
            pthread_mutex_lock(&s->wlock);
            s->ops->write_batch(s->be, batch, &res);
            pthread_mutex_unlock(&s->wlock);
            if (res.lost && s->journal) {
                outage_begins(s, &res);
                s->retry_at = ddz_pg_now_ms() + DDZ_STORE_RETRY_MS;
                journal_batch(s, batch, n);
                res.bad = 0; /* kept, or counted as failed by journal_batch */
            }
        }
        for (store_item *it = batch, *next; it; it = next) {
            next = it->next;
            item_free(it);
        }

        /* Counted under lock, and durable, before the batch is done:
         * ddz_store_flush(), woken by the done, then reads them under lock
         * (and finds them durable). */
        pthread_mutex_lock(&s->lock);
        s->writes += res.ok;
        s->write_errors += res.bad;
        if (res.msg[0])
            memcpy(s->last_error, res.msg, sizeof s->last_error);
        atomic_store(&s->durable, last);
        ddz_mailbox_done(s->wq, n);
        if (!s->journal && ddz_mailbox_closed(s->wq) && res.ok == 0 && res.bad > 0 &&
            ddz_mailbox_count(s->wq) > 0 && s->ops->writer_lost && s->ops->writer_lost(s->be)) {
            fail_rest(s);
            atomic_store(&s->durable, s->queued); /* failed for good: nothing to wait for */
        }
        pthread_mutex_unlock(&s->lock);
        pthread_mutex_lock(&s->wake_lock);
        if (s->on_durable)
            s->on_durable(s->durable_ctx);
        pthread_mutex_unlock(&s->wake_lock);
    }
    return NULL;
}

static int dropped(ddz_store *s, store_item *it, int code)
{
    pthread_mutex_lock(&s->lock);
    s->drops++;
    pthread_mutex_unlock(&s->lock);
    item_free(it);
    return code;
}

/* Queues `it` (taking it) with the next ticket, or drops it when the
 * queue is full. The ticket is taken under the lock with the put, so that
 * tickets increase in queue order whichever thread queues. */
static int enqueue(ddz_store *s, store_item *it)
{
    pthread_mutex_lock(&s->lock);
    uint64_t seq = it->seq = s->queued + 1; /* `it` is the writer's once put */
    int rc = ddz_mailbox_put(s->wq, &it->mail);
    if (rc == 0)
        s->queued = seq;
    pthread_mutex_unlock(&s->lock);
    return rc == 0 ? 0 : dropped(s, it, DDZ_EDB);
}

int ddz_store_flush(ddz_store *s)
{
    ddz_mailbox_flush(s->wq);
    pthread_mutex_lock(&s->lock);
    int rc = s->write_errors > s->errors_at_flush ? DDZ_EDB : 0;
    s->errors_at_flush = s->write_errors;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void ddz_store_stats(ddz_store *s, ddz_store_counters *out)
{
    /* the journal first (replay()): an empty journal's writes are counted */
    ddz_journal_counters js = {0};
    if (s->journal)
        ddz_journal_stats(s->journal, &js);
    pthread_mutex_lock(&s->lock);
    out->writes = s->writes;
    out->write_errors = s->write_errors;
    out->drops = s->drops;
    out->read_errors = s->read_errors;
    out->queued = ddz_mailbox_count(s->wq);
    out->ids_past = s->ids_past;
    out->ids_in_hand = UINT64_MAX;
    if (s->ops->id_block)
        out->ids_in_hand =
            (uint64_t)(s->id_next <= s->id_end ? s->id_end - s->id_next + 1 : 0) +
            (uint64_t)(s->spare_next <= s->spare_end ? s->spare_end - s->spare_next + 1 : 0);
    memcpy(out->last_error, s->last_error, sizeof out->last_error);
    out->journal_replayed = s->replayed;
    pthread_mutex_unlock(&s->lock);
    out->journal_pending = js.pending;
    out->journal_bytes = js.bytes;
    out->journal_appended = js.appended;
    out->journal_dropped = js.dropped;
}

/* ---- games and turns ------------------------------------------------------ */

/* Raises the next id past `id`: the next one reserved is greater. With
 * blocks, only within the current block (an id from elsewhere is another
 * store's, or above every block handed out so far). */
static void saw_id(ddz_store *s, int64_t id)
{
    if (s->ops->id_block) {
        pthread_mutex_lock(&s->lock);
        if (id >= s->id_next && id <= s->id_end)
            s->id_next = id + 1;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    int64_t cur = atomic_load(&s->last_id);
    while (cur < id && !atomic_compare_exchange_weak(&s->last_id, &cur, id))
        ;
}

int64_t ddz_store_reserve_game_id(ddz_store *s)
{
    if (!s->ops->id_block)
        return atomic_fetch_add(&s->last_id, 1) + 1;
    pthread_mutex_lock(&s->lock);
    if (s->id_next > s->id_end && s->spare_next <= s->spare_end) {
        s->id_next = s->spare_next, s->id_end = s->spare_end;
        s->spare_next = 1, s->spare_end = 0;
    }
    int64_t id;
    if (s->id_next <= s->id_end) {
        id = s->id_next++;
    } else {
        /* No id in hand only when the database has been unreachable for a
         * block's worth of games (which then cannot be stored anyway). Every
         * game needs an id (the protocol: game_id >= 1), so one comes from a run at
         * a random place above every block: 2^28 places of 2^24 ids each
         * between DDZ_STORE_PAST_IDS and 2^53, so two nodes' runs meet
         * hardly ever, and never the blocks. */
        if (!s->past_next || (s->past_next & ((INT64_C(1) << 24) - 1)) == 0)
            s->past_next = DDZ_STORE_PAST_IDS + ((int64_t)randombytes_uniform(1u << 28) << 24);
        id = s->past_next++;
        s->ids_past++;
    }
    if (s->spare_next > s->spare_end && !s->want_ids) {
        s->want_ids = true;
        ddz_mailbox_poke(s->idq);
    }
    pthread_mutex_unlock(&s->lock);
    return id;
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
    store_item *it = calloc(1, sizeof *it);
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
    store_item *it = NULL;
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
    store_item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = ITEM_MINE;
    it->id = game;
    it->number = seat;
    memcpy(it->me, me, sizeof it->me);
    return enqueue(s, it);
}

int ddz_store_publish_games(ddz_store *s, const int64_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 1)
            return DDZ_EINVAL;
    for (size_t i = 0; i < n; i++) {
        store_item *it = calloc(1, sizeof *it);
        if (!it)
            return dropped(s, NULL, DDZ_ENOMEM);
        it->kind = ITEM_PUBLISH;
        it->id = ids[i];
        it->finished_ms = now_ms();
        int rc = enqueue(s, it);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ddz_store_add_analysis(ddz_store *s, int64_t id, const char *json)
{
    if (id < 1 || !json)
        return DDZ_EINVAL;
    store_item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = ITEM_ANALYSIS;
    it->id = id;
    it->finished_ms = now_ms();
    if (!(it->text = strdup(json)))
        return dropped(s, it, DDZ_ENOMEM);
    return enqueue(s, it);
}

static int ladder_item(ddz_store *s, enum store_item_kind kind, const char *rules,
                       const ddz_store_ladder_deal *d)
{
    if (!rules || !*rules || !deal_ok(d))
        return DDZ_EINVAL;
    store_item *it = calloc(1, sizeof *it);
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
    /* a deal of one standing and no rows (large: not on the stack) */
    ddz_store_ladder_deal *d = malloc(sizeof *d);
    if (!d)
        return dropped(s, NULL, DDZ_ENOMEM);
    d->nplayers = 1;
    d->p[0] = *p;
    d->nrows = 0;
    int rc = ladder_item(s, ITEM_LADDER_PUT, rules, d);
    free(d);
    return rc;
}

/* ---- the ladder's loads ------------------------------------------------------- */

int ddz_store_ladder_players(ddz_store *s, const char *rules,
                             void (*cb)(void *ctx, const ddz_store_ladder_player *p), void *ctx)
{
    rbegin(s, 0);
    int rc = read_result(s, s->ops->ladder_players(s->be, rules, cb, ctx));
    rend(s);
    return rc;
}

int ddz_store_ladder_history(ddz_store *s, const char *rules, const char *name, int limit,
                             void (*cb)(void *ctx, const ddz_store_ladder_hist *h), void *ctx)
{
    rbegin(s, 0);
    int rc = read_result(s, s->ops->ladder_history(s->be, rules, name, limit, cb, ctx));
    rend(s);
    return rc;
}

/* ---- reads ------------------------------------------------------------------ */

/* One row of "my games" as JSON, appended to the array `ctx`. What a row
 * shows comes out of the record, so the record stays the one source. */
static int mine_row(void *ctx, const store_mine_row *r)
{
    json_t *list = ctx;
    json_t *rec = r->record ? json_loads(r->record, 0, NULL) : NULL;
    json_t *names = json_array();
    for (int i = 0; names && i < 3; i++)
        json_array_append_new(names, r->names[i] ? json_string(r->names[i]) : json_null());
    json_t *sc = json_object_get(rec, "scores");
    json_t *seat_of[2];
    const char *field[2] = {"landlord", "winner"};
    for (int i = 0; i < 2; i++) {
        json_t *v = json_object_get(rec, field[i]);
        seat_of[i] = json_is_integer(v) ? json_integer(json_integer_value(v)) : json_null();
    }
    const char *rules = json_string_value(json_object_get(rec, "rules"));
    json_t *g = json_pack("{s:I, s:o, s:o, s:I, s:i, s:o, s:O, s:o, s:o, s:o}", "id",
                          (json_int_t)r->id, "key", r->key ? json_string(r->key) : json_null(),
                          "room", r->room ? json_string(r->room) : json_null(), "finished_at",
                          (json_int_t)r->finished_ms, "seat", r->seat, "names", names, "scores",
                          sc ? sc : json_null(), "landlord", seat_of[0], "winner", seat_of[1],
                          "rules", json_string(rules ? rules : "caai"));
    json_decref(rec);
    return g && json_array_append_new(list, g) == 0 ? 0 : DDZ_ENOMEM;
}

/* ddz_store_my_games, due by `due_ms` (rbegin()). */
static int my_games_due(ddz_store *s, const uint8_t me[DDZ_STORE_ME_BYTES], int max, char **json,
                        int64_t due_ms)
{
    *json = NULL;
    if (max < 1 || max > DDZ_STORE_MINE_MAX)
        return DDZ_EINVAL;
    json_t *list = json_array();
    if (!list)
        return DDZ_ENOMEM;
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->my_games(s->be, me, max, mine_row, list));
    rend(s);
    if (rc >= 0)
        rc = (*json = json_dumps(list, DDZ_RECORD_JSON_FLAGS)) ? (int)json_array_size(list)
                                                               : DDZ_ENOMEM;
    json_decref(list);
    return rc;
}

int ddz_store_my_games(ddz_store *s, const uint8_t me[DDZ_STORE_ME_BYTES], int max, char **json)
{
    return my_games_due(s, me, max, json, 0);
}

/* What the journal holds of one game: its record and key as the database
 * will hold them once replayed. */
typedef struct pending_game {
    char *record, *key; /* the newest record's, NULL if none is there */
    bool published;     /* a publication is there: the key goes */
    bool nomem;
} pending_game;

static int pending_entry(void *ctx, const ddz_journal_entry *e)
{
    pending_game *g = ctx;
    store_item *it = item_decode(e->body);
    if (!it)
        return 0; /* never replayable: as if absent */
    if (it->kind == ITEM_GAME && it->text) {
        free(g->record);
        free(g->key);
        g->record = it->text, g->key = it->key;
        it->text = it->key = NULL;
        g->published = false; /* a publication before its record (a replay) is spent */
    } else if (it->kind == ITEM_PUBLISH) {
        g->published = true;
    }
    item_free(it);
    return 0;
}

/* Game `id` as the journal will leave it: *record and *key (malloc'd; a
 * key NULL if none is kept) when its record is there, *published when its
 * publication is (the database's key is then cleared too). Returns 0,
 * DDZ_ENOTFOUND (no record there), or DDZ_ENOMEM; a journal that cannot be
 * read is as good as empty here (the database is asked). */
static int journal_game(ddz_store *s, int64_t id, char **record, char **key, bool *published)
{
    pending_game g = {0};
    int rc = ddz_journal_game_entries(s->journal, id, pending_entry, &g);
    *published = rc > 0 && g.published;
    if (rc <= 0 || !g.record) {
        free(g.record);
        free(g.key);
        return DDZ_ENOTFOUND;
    }
    if (g.published) {
        free(g.key);
        g.key = NULL;
    }
    *record = g.record, *key = g.key;
    return 0;
}

/* ddz_store_get_game, the database's part due by `due_ms` (rbegin()). */
static int get_game_due(ddz_store *s, int64_t id, const char *key, char **json, int64_t due_ms)
{
    *json = NULL;
    char *record = NULL, *stored = NULL;
    bool published = false;
    int rc = s->journal ? journal_game(s, id, &record, &stored, &published) : DDZ_ENOTFOUND;
    if (rc == DDZ_ENOTFOUND) {
        rbegin(s, due_ms);
        rc = read_result(s, s->ops->get_game(s->be, id, &record, &stored));
        rend(s);
        if (rc == 0 && published) { /* stored keyed; its publication waits in the journal */
            free(stored);
            stored = NULL;
        }
    }
    if (rc == 0) {
        /* a keyed game is as absent as a missing one without its key;
         * compared in constant time, the lengths being fixed */
        bool open = stored ? key && strlen(key) == DDZ_STORE_KEY_HEX &&
                                 strlen(stored) == DDZ_STORE_KEY_HEX &&
                                 sodium_memcmp(stored, key, DDZ_STORE_KEY_HEX) == 0
                           : !key || !*key;
        if (open) {
            *json = record;
            record = NULL;
        } else {
            rc = DDZ_ENOTFOUND;
        }
    }
    free(record);
    free(stored);
    return rc;
}

int ddz_store_get_game(ddz_store *s, int64_t id, const char *key, char **json)
{
    return get_game_due(s, id, key, json, 0);
}

static int get_analysis_due(ddz_store *s, int64_t id, char **json, int64_t due_ms)
{
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->get_analysis(s->be, id, json));
    rend(s);
    return rc;
}

int ddz_store_get_analysis(ddz_store *s, int64_t id, char **json)
{
    return get_analysis_due(s, id, json, 0);
}

static int export_line(void *ctx, const char *record)
{
    FILE *out = ctx;
    return fputs(record, out) == EOF || putc('\n', out) == EOF ? DDZ_EIO : 0;
}

int ddz_store_export(ddz_store *s, FILE *out, bool include_aborted)
{
    rbegin(s, 0);
    int rc = read_result(s, s->ops->export_games(s->be, include_aborted, export_line, out));
    rend(s);
    if (rc >= 0 && (fflush(out) == EOF || ferror(out)))
        rc = DDZ_EIO;
    return rc;
}

/* ---- the reader thread -------------------------------------------------------- */

static int token_check_due(ddz_store *s, const char *token, char name_out[DDZ_TOKEN_NAME_MAX],
                           uint8_t id_out[DDZ_TOKEN_ID_BYTES], int64_t due_ms);
static int token_ids_due(ddz_store *s, uint8_t (**ids)[DDZ_TOKEN_ID_BYTES], int64_t due_ms);
static void run_account_read(ddz_store *s, ddz_store_read *r);
static int account_keys_due(ddz_store *s, const char *key, int64_t since_ms,
                            void (*row)(void *ctx, const char *key), void *ctx, int64_t due_ms);
static int mine_session_due(ddz_store *s, ddz_store_read *r, int64_t due_ms);
static int sessions_live_due(ddz_store *s, const uint8_t (*ids)[DDZ_SESSION_ID_BYTES], size_t n,
                             bool *live, int64_t due_ms);
static void run_rating_read(ddz_store *s, ddz_store_read *r);
static int puzzle_next_read(ddz_store *s, ddz_store_read *r);
static int puzzle_get_read(ddz_store *s, ddz_store_read *r);

/* Runs `r` by its own deadline, set when it was submitted: a read that
 * waited behind one the database did not answer has no time left and
 * answers at once (a game in the journal is still found: no network). */
static void run_read(ddz_store *s, ddz_store_read *r)
{
    int64_t due = r->due_ms;
    if (r->kind == DDZ_STORE_READ_GAME) {
        r->rc = get_game_due(s, r->id, r->key, &r->json, due);
    } else if (r->kind == DDZ_STORE_READ_ANALYSIS) {
        /* the record's own access rule first: no key, no analysis either */
        r->rc = get_game_due(s, r->id, r->key, &r->json, due);
        if (r->rc == 0 && get_analysis_due(s, r->id, &r->analysis, due) < 0)
            r->analysis = NULL; /* none cached, or unreadable: computed again */
    } else if (r->kind == DDZ_STORE_READ_MINE) {
        r->rc = my_games_due(s, r->me, DDZ_STORE_MINE_MAX, &r->json, due);
    } else if (r->kind == DDZ_STORE_READ_TOKEN_IDS) {
        r->rc = token_ids_due(s, &r->ids, due);
    } else if (r->kind == DDZ_STORE_READ_ACCOUNT_KEYS) {
        r->rc =
            r->key_row ? account_keys_due(s, NULL, r->id, r->key_row, r->key_ctx, due) : DDZ_EINVAL;
    } else if (r->kind == DDZ_STORE_READ_MINE_SESSION) {
        r->rc = mine_session_due(s, r, due);
    } else if (r->kind == DDZ_STORE_READ_SESSIONS_LIVE) {
        r->rc = sessions_live_due(s, r->sessions, r->nsessions, r->live, due);
    } else if (r->kind == DDZ_STORE_READ_PUZZLE_NEXT) {
        r->rc = puzzle_next_read(s, r);
    } else if (r->kind == DDZ_STORE_READ_PUZZLE_GET) {
        r->rc = puzzle_get_read(s, r);
    } else if (r->kind >= DDZ_STORE_READ_RATING_GAME) {
        run_rating_read(s, r);
    } else if (r->kind >= DDZ_STORE_READ_ACCOUNT_ADD) {
        run_account_read(s, r);
    } else {
        r->rc = token_check_due(s, r->token, r->name, r->token_id, due);
        sodium_memzero(r->token, sizeof r->token);
    }
}

static void *reader_main(void *arg)
{
    ddz_store *s = arg;
    ddz_mail *m;
    /* NULL once stopping: ddz_store_reader_stop() answers what is left */
    while ((m = ddz_mailbox_take(s->reads, 1, NULL))) {
        ddz_store_read *r = DDZ_MAIL_ITEM(m, ddz_store_read, mail);
        run_read(s, r);
        ddz_mailbox_put(s->answers, &r->mail); /* unbounded, never closed */
        /* Woken after the put, which holds no lock: the owner takes it in
         * ddz_store_read_done(). */
        s->wake(s->wake_ctx);
        ddz_mailbox_done(s->reads, 1);
    }
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
    if (!(s->reads = ddz_mailbox_create(0, false)))
        return DDZ_ENOMEM;
    if (spawn(&s->rthread, reader_main, s) != 0) {
        ddz_mailbox_destroy(s->reads);
        s->reads = NULL;
        return DDZ_ENOMEM;
    }
    pthread_mutex_lock(&s->lock);
    s->rstarted = true;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int ddz_store_read_submit(ddz_store *s, ddz_store_read *r)
{
    if (r->kind < DDZ_STORE_READ_GAME || r->kind > DDZ_STORE_READ_PUZZLE_GET)
        return DDZ_EINVAL;
    r->rc = 0;
    r->json = NULL;
    r->analysis = NULL;
    r->ids = NULL;
    r->name[0] = '\0';
    r->due_ms = ddz_pg_now_ms() + s->timeout_ms;
    /* rstop, set before the queue is closed, refuses a read first: the
     * put itself never fails (unbounded) */
    pthread_mutex_lock(&s->lock);
    int rc = !s->rstarted || s->rstop ? DDZ_EINVAL : ddz_mailbox_put(s->reads, &r->mail);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

ddz_store_read *ddz_store_read_done(ddz_store *s)
{
    return DDZ_MAIL_ITEM(ddz_mailbox_get(s->answers), ddz_store_read, mail);
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
    pthread_mutex_unlock(&s->lock);
    ddz_mailbox_close(s->reads, DDZ_MAILBOX_DROP); /* after the read it is running */
    pthread_join(s->rthread, NULL);

    /* never run: answered as a database error, without a wake (the owner
     * takes them once this returns, store.h) */
    for (ddz_mail *m = ddz_mailbox_get_all(s->reads), *next; m; m = next) {
        next = m->next;
        ddz_store_read *r = DDZ_MAIL_ITEM(m, ddz_store_read, mail);
        sodium_memzero(r->token, sizeof r->token);
        sodium_memzero(r->session, sizeof r->session);
        r->rc = DDZ_EDB;
        ddz_mailbox_put(s->answers, &r->mail);
    }
    ddz_mailbox_destroy(s->reads);
    s->reads = NULL;
    pthread_mutex_lock(&s->lock);
    s->rstarted = false;
    pthread_mutex_unlock(&s->lock);
}

/* ---- tokens ----------------------------------------------------------------- */

int ddz_store_token_name_check(const char *name, char *err, size_t errlen)
{
    if (name && strnlen(name, DDZ_TOKEN_NAME_MAX) >= DDZ_TOKEN_NAME_MAX)
        return ddz_fail(DDZ_EFIELD, err, errlen, "NAME: at most %d bytes", DDZ_TOKEN_NAME_MAX - 1);
    /* the bot is shown under its token's name: a display name's rules */
    return ddz_msg_display_name_check(name, "NAME", err, errlen);
}

bool ddz_store_token_name_valid(const char *name)
{
    return ddz_store_token_name_check(name, NULL, 0) == 0;
}

int ddz_store_token_add(ddz_store *s, const char *name, char token_out[DDZ_TOKEN_HEX + 1])
{
    token_out[0] = '\0';
    if (!ddz_store_token_name_valid(name))
        return DDZ_EINVAL;
    int taken = ddz_store_account_name_taken(s, name); /* SPEC §15: no bot takes it */
    if (taken != 0)
        return taken < 0 ? taken : DDZ_EEXIST;
    unsigned char raw[TOKEN_BYTES], hash[STORE_HASH_BYTES];
    randombytes_buf(raw, sizeof raw);
    crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);
    rbegin(s, 0);
    int rc = read_result(s, s->ops->token_add(s->be, name, hash, now_ms()));
    rend(s);
    rc = rc == 1 ? 0 : rc == 0 ? DDZ_EINVAL : rc; /* no change: an active token has the name */
    if (rc == 0)
        sodium_bin2hex(token_out, DDZ_TOKEN_HEX + 1, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    return rc;
}

typedef struct token_match {
    const uint8_t *hash;
    bool found;
    bool name_ok; /* its name, whole, keeps the display-name rules */
    char name[DDZ_TOKEN_NAME_MAX];
} token_match;

static void match_token(void *ctx, const char *name, const uint8_t *hash, size_t len)
{
    token_match *m = ctx;
    /* every active hash is compared, in constant time, with no early exit */
    if (len == STORE_HASH_BYTES && sodium_memcmp(hash, m->hash, STORE_HASH_BYTES) == 0) {
        m->found = true;
        m->name_ok = ddz_store_token_name_valid(name);
        snprintf(m->name, sizeof m->name, "%s", name);
    }
}

int ddz_store_token_check(ddz_store *s, const char *token, char name_out[DDZ_TOKEN_NAME_MAX],
                          uint8_t id_out[DDZ_TOKEN_ID_BYTES])
{
    return token_check_due(s, token, name_out, id_out, 0);
}

static int token_check_due(ddz_store *s, const char *token, char name_out[DDZ_TOKEN_NAME_MAX],
                           uint8_t id_out[DDZ_TOKEN_ID_BYTES], int64_t due_ms)
{
    _Static_assert(DDZ_TOKEN_ID_BYTES == STORE_HASH_BYTES, "a token's id is its hash");
    if (name_out)
        name_out[0] = '\0';
    unsigned char raw[TOKEN_BYTES], hash[STORE_HASH_BYTES];
    size_t len = 0;
    const char *end = NULL;
    if (!token || strnlen(token, DDZ_TOKEN_HEX + 1) != DDZ_TOKEN_HEX ||
        sodium_hex2bin(raw, sizeof raw, token, DDZ_TOKEN_HEX, NULL, &len, &end) != 0 ||
        len != sizeof raw || end != token + DDZ_TOKEN_HEX)
        return DDZ_EAUTH;
    crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);
    sodium_memzero(raw, sizeof raw);

    token_match m = {.hash = hash};
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->token_active(s->be, match_token, &m));
    rend(s);
    if (rc < 0)
        return rc;
    if (!m.found)
        return DDZ_EAUTH;
    /* A token made before names followed the display-name rules (or
     * written into the database by hand) logs nobody in: its bot would be
     * shown as "ai:strong", or reversed by a U+202E. */
    if (!m.name_ok)
        return DDZ_ENAME;
    if (name_out)
        memcpy(name_out, m.name, sizeof m.name);
    if (id_out)
        memcpy(id_out, hash, STORE_HASH_BYTES);
    return 0;
}

typedef struct token_ids {
    uint8_t (*ids)[DDZ_TOKEN_ID_BYTES];
    size_t n, cap;
    bool nomem;
} token_ids;

static void keep_id(void *ctx, const char *name, const uint8_t *hash, size_t len)
{
    token_ids *t = ctx;
    (void)name;
    if (len != STORE_HASH_BYTES || t->nomem)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        uint8_t(*more)[DDZ_TOKEN_ID_BYTES] = realloc(t->ids, cap * sizeof *more);
        if (!more) {
            t->nomem = true;
            return;
        }
        t->ids = more, t->cap = cap;
    }
    memcpy(t->ids[t->n++], hash, STORE_HASH_BYTES);
}

static int id_cmp(const void *a, const void *b)
{
    return memcmp(a, b, DDZ_TOKEN_ID_BYTES);
}

int ddz_store_token_ids(ddz_store *s, uint8_t (**ids)[DDZ_TOKEN_ID_BYTES])
{
    return token_ids_due(s, ids, 0);
}

static int token_ids_due(ddz_store *s, uint8_t (**ids)[DDZ_TOKEN_ID_BYTES], int64_t due_ms)
{
    *ids = NULL;
    token_ids t = {0};
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->token_active(s->be, keep_id, &t));
    rend(s);
    if (rc >= 0 && t.nomem)
        rc = DDZ_ENOMEM;
    if (rc < 0) {
        free(t.ids);
        return rc;
    }
    if (t.n)
        qsort(t.ids, t.n, sizeof *t.ids, id_cmp);
    *ids = t.ids;
    return (int)t.n;
}

int ddz_store_token_revoke(ddz_store *s, const char *name)
{
    rbegin(s, 0);
    int rc = read_result(s, s->ops->token_revoke(s->be, name ? name : "", now_ms()));
    rend(s);
    return rc == 0 ? DDZ_ENOTFOUND : rc < 0 ? rc : 0;
}

typedef struct token_row {
    char name[DDZ_TOKEN_NAME_MAX];
    int64_t created_ms;
    bool revoked;
} token_row;

typedef struct token_rows {
    token_row *rows;
    size_t n, cap;
} token_rows;

static int keep_token(void *ctx, const char *name, int64_t created_ms, bool revoked)
{
    token_rows *t = ctx;
    if (t->n == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 16;
        token_row *more = realloc(t->rows, ncap * sizeof *more);
        if (!more)
            return DDZ_ENOMEM;
        t->rows = more;
        t->cap = ncap;
    }
    token_row *r = &t->rows[t->n++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->created_ms = created_ms;
    r->revoked = revoked;
    return 0;
}

int ddz_store_token_list(ddz_store *s,
                         void (*cb)(void *ctx, const char *name, int64_t created_ms, bool revoked),
                         void *ctx)
{
    /* The rows are read first, so the callback may call into the store. */
    token_rows t = {0};
    rbegin(s, 0);
    int rc = read_result(s, s->ops->token_list(s->be, keep_token, &t));
    rend(s);
    if (rc >= 0) {
        for (size_t i = 0; i < t.n; i++)
            cb(ctx, t.rows[i].name, t.rows[i].created_ms, t.rows[i].revoked);
        rc = t.n > (size_t)INT32_MAX ? INT32_MAX : (int)t.n;
    }
    free(t.rows);
    return rc;
}

/* ---- accounts and sessions --------------------------------------------------- */

/* A session's hash from its 64 hex digits; false if malformed. */
static bool session_hash(const char *session, uint8_t hash[STORE_HASH_BYTES])
{
    unsigned char raw[TOKEN_BYTES];
    size_t len = 0;
    const char *end = NULL;
    if (!session || strnlen(session, DDZ_SESSION_HEX + 1) != DDZ_SESSION_HEX ||
        sodium_hex2bin(raw, sizeof raw, session, DDZ_SESSION_HEX, NULL, &len, &end) != 0 ||
        len != sizeof raw || end != session + DDZ_SESSION_HEX)
        return false;
    crypto_generichash(hash, STORE_HASH_BYTES, raw, sizeof raw, NULL, 0);
    sodium_memzero(raw, sizeof raw);
    return true;
}

/* The key of `name`: case-folded. False for a name no account can have
 * (too long, not UTF-8). */
static bool account_key(const char *name, char key[DDZ_ACCOUNT_NAME_MAX])
{
    return name && strnlen(name, DDZ_ACCOUNT_NAME_MAX) < DDZ_ACCOUNT_NAME_MAX &&
           ddz_utf8_valid(name, strlen(name)) &&
           ddz_utf8_fold(name, key, DDZ_ACCOUNT_NAME_MAX) != (size_t)-1;
}

static bool hash_ok(const char *hash)
{
    return hash && *hash && strnlen(hash, DDZ_ACCOUNT_HASH_MAX) < DDZ_ACCOUNT_HASH_MAX;
}

/* Whether an active token's name folds to `key` (token_active's row). */
typedef struct bot_name_match {
    const char *key;
    bool found;
} bot_name_match;

static void match_bot_name(void *ctx, const char *name, const uint8_t *hash, size_t len)
{
    (void)hash, (void)len;
    bot_name_match *m = ctx;
    char folded[DDZ_ACCOUNT_NAME_MAX];
    if (!m->found && strlen(name) < sizeof folded &&
        ddz_utf8_fold(name, folded, sizeof folded) != (size_t)-1 && strcmp(folded, m->key) == 0)
        m->found = true;
}

static int account_add_due(ddz_store *s, const char *name, const char *hash, int64_t *id,
                           int64_t due_ms)
{
    int rc = ddz_msg_display_name_check(name, "name", NULL, 0);
    char key[DDZ_ACCOUNT_NAME_MAX];
    if (rc < 0)
        return rc;
    if (strlen(name) >= DDZ_ACCOUNT_NAME_MAX || !account_key(name, key))
        return DDZ_EFIELD;
    if (!hash_ok(hash))
        return DDZ_EINVAL;
    int64_t now = now_ms(), made = 0;
    bot_name_match bot = {.key = key};
    rbegin(s, due_ms);
    /* a bot's name is nobody's account (SPEC §15): the active tokens are
     * few (an operator makes each), so their names are folded here */
    rc = read_result(s, s->ops->token_active(s->be, match_bot_name, &bot));
    if (rc >= 0 && bot.found)
        rc = 0; /* taken */
    else if (rc >= 0)
        rc = read_result(s, s->ops->account_add(s->be, name, key, hash, now,
                                                now - DDZ_ACCOUNT_NAME_HOLD_MS, &made));
    rend(s);
    if (rc == 1 && id)
        *id = made;
    return rc == 1 ? 0 : rc == 0 ? DDZ_EEXIST : rc;
}

int ddz_store_account_add(ddz_store *s, const char *name, const char *hash, int64_t *id)
{
    return account_add_due(s, name, hash, id, 0);
}

static int account_get_due(ddz_store *s, const char *name, ddz_store_account *out, int64_t due_ms)
{
    char key[DDZ_ACCOUNT_NAME_MAX];
    bool valid = account_key(name, key); /* before the clearing: `name` may be out->name */
    memset(out, 0, sizeof *out);
    if (!valid)
        return DDZ_ENOTFOUND;
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->account_get(s->be, key, out));
    rend(s);
    if (rc < 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int ddz_store_account_get(ddz_store *s, const char *name, ddz_store_account *out)
{
    return account_get_due(s, name, out, 0);
}

static int account_set_hash_due(ddz_store *s, int64_t id, const char *hash, const char *keep,
                                int64_t due_ms)
{
    uint8_t kh[STORE_HASH_BYTES];
    if (!hash_ok(hash))
        return DDZ_EINVAL;
    /* a malformed session to keep is no session: every one ends */
    bool has_keep = keep && session_hash(keep, kh);
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->account_set_hash(s->be, id, hash, has_keep ? kh : NULL));
    rend(s);
    return rc == 0 ? DDZ_ENOTFOUND : rc < 0 ? rc : 0;
}

int ddz_store_account_set_hash(ddz_store *s, int64_t id, const char *hash, const char *keep)
{
    return account_set_hash_due(s, id, hash, keep, 0);
}

static int account_delete_due(ddz_store *s, int64_t id, int64_t due_ms)
{
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->account_delete(s->be, id, now_ms()));
    rend(s);
    return rc == 0 ? DDZ_ENOTFOUND : rc < 0 ? rc : 0;
}

int ddz_store_account_delete(ddz_store *s, int64_t id)
{
    return account_delete_due(s, id, 0);
}

static int session_new_due(ddz_store *s, int64_t id, char out[DDZ_SESSION_HEX + 1], int64_t due_ms)
{
    out[0] = '\0';
    unsigned char raw[TOKEN_BYTES];
    uint8_t hash[STORE_HASH_BYTES];
    randombytes_buf(raw, sizeof raw);
    crypto_generichash(hash, sizeof hash, raw, sizeof raw, NULL, 0);
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->session_add(s->be, hash, id, now_ms()));
    rend(s);
    rc = rc == 1 ? 0 : rc == 0 ? DDZ_ENOTFOUND : rc;
    if (rc == 0)
        sodium_bin2hex(out, DDZ_SESSION_HEX + 1, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    return rc;
}

int ddz_store_session_new(ddz_store *s, int64_t id, char out[DDZ_SESSION_HEX + 1])
{
    return session_new_due(s, id, out, 0);
}

static int session_check_due(ddz_store *s, const char *session, ddz_store_account *out,
                             int64_t due_ms)
{
    memset(out, 0, sizeof *out);
    uint8_t hash[STORE_HASH_BYTES];
    if (!session_hash(session, hash))
        return DDZ_EAUTH;
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->session_get(s->be, hash, out));
    rend(s);
    if (rc < 0)
        memset(out, 0, sizeof *out);
    return rc == DDZ_ENOTFOUND ? DDZ_EAUTH : rc;
}

int ddz_store_session_check(ddz_store *s, const char *session, ddz_store_account *out)
{
    return session_check_due(s, session, out, 0);
}

static int session_end_due(ddz_store *s, const char *session, int64_t *account, int64_t due_ms)
{
    uint8_t hash[STORE_HASH_BYTES];
    int64_t who = 0;
    if (!session_hash(session, hash))
        return DDZ_EAUTH;
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->session_end(s->be, hash, &who));
    rend(s);
    if (rc == 1 && account)
        *account = who;
    return rc == 1 ? 0 : rc == 0 ? DDZ_EAUTH : rc;
}

int ddz_store_session_end(ddz_store *s, const char *session, int64_t *account)
{
    return session_end_due(s, session, account, 0);
}

static int account_keys_due(ddz_store *s, const char *key, int64_t since_ms,
                            void (*row)(void *ctx, const char *key), void *ctx, int64_t due_ms)
{
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->account_keys(s->be, key, since_ms,
                                                 now_ms() - DDZ_ACCOUNT_NAME_HOLD_MS, row, ctx));
    rend(s);
    return rc;
}

int ddz_store_account_keys(ddz_store *s, int64_t since_ms, void (*row)(void *ctx, const char *key),
                           void *ctx)
{
    return account_keys_due(s, NULL, since_ms, row, ctx, 0);
}

static void count_key(void *ctx, const char *key)
{
    (void)key;
    ++*(int *)ctx;
}

int ddz_store_account_name_taken(ddz_store *s, const char *name)
{
    char key[DDZ_ACCOUNT_NAME_MAX];
    if (!account_key(name, key))
        return 0;
    int n = 0;
    int rc = account_keys_due(s, key, 0, count_key, &n, 0);
    return rc < 0 ? rc : n > 0;
}

void ddz_store_account_owner(int64_t id, uint8_t out[DDZ_STORE_ME_BYTES])
{
    char text[48];
    int n = snprintf(text, sizeof text, "ddz-account:%lld", (long long)id);
    crypto_generichash(out, DDZ_STORE_ME_BYTES, (const uint8_t *)text, (size_t)n, NULL, 0);
}

static int account_claim_due(ddz_store *s, int64_t id, const uint8_t guest[DDZ_STORE_ME_BYTES],
                             int64_t due_ms)
{
    uint8_t owner[DDZ_STORE_ME_BYTES];
    ddz_store_account_owner(id, owner);
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->mine_copy(s->be, guest, owner));
    rend(s);
    return rc;
}

int ddz_store_account_claim(ddz_store *s, int64_t id, const uint8_t guest[DDZ_STORE_ME_BYTES])
{
    return account_claim_due(s, id, guest, 0);
}

/* Whether `b` is all zeros (a read's `me` not set). */
static bool zeros(const uint8_t *b, size_t n)
{
    uint8_t any = 0;
    for (size_t i = 0; i < n; i++)
        any |= b[i];
    return any == 0;
}

bool ddz_store_session_id(const char *session, uint8_t out[DDZ_SESSION_ID_BYTES])
{
    if (session_hash(session, out))
        return true;
    memset(out, 0, DDZ_SESSION_ID_BYTES);
    return false;
}

/* One lookup a session: a node polls the sessions of the people
 * connected to it (a few hundred), each an indexed read. */
static int sessions_live_due(ddz_store *s, const uint8_t (*ids)[DDZ_SESSION_ID_BYTES], size_t n,
                             bool *live, int64_t due_ms)
{
    if (n && (!ids || !live))
        return DDZ_EINVAL;
    int count = 0, rc = 0;
    rbegin(s, due_ms);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        ddz_store_account a;
        rc = read_result(s, s->ops->session_get(s->be, ids[i], &a));
        live[i] = rc == 0;
        count += rc == 0;
        if (rc == DDZ_ENOTFOUND)
            rc = 0;
    }
    rend(s);
    return rc < 0 ? rc : count;
}

int ddz_store_sessions_live(ddz_store *s, const uint8_t (*ids)[DDZ_SESSION_ID_BYTES], size_t n,
                            bool *live)
{
    return sessions_live_due(s, ids, n, live, 0);
}

/* MINE_SESSION: the session's account, then its games. */
static int mine_session_due(ddz_store *s, ddz_store_read *r, int64_t due_ms)
{
    int rc = session_check_due(s, r->session, &r->account, due_ms);
    sodium_memzero(r->session, sizeof r->session);
    if (rc < 0)
        return rc;
    uint8_t owner[DDZ_STORE_ME_BYTES];
    ddz_store_account_owner(r->account.id, owner);
    return my_games_due(s, owner, DDZ_STORE_MINE_MAX, &r->json, due_ms);
}

/* The account kinds of the reader thread (run_read). */
static void run_account_read(ddz_store *s, ddz_store_read *r)
{
    int64_t due = r->due_ms;
    switch (r->kind) {
    case DDZ_STORE_READ_ACCOUNT_ADD:
        r->rc = account_add_due(s, r->account.name, r->account.hash, &r->account.id, due);
        if (r->rc == 0)
            r->rc = session_new_due(s, r->account.id, r->session, due);
        /* the guest's history: a failure loses the copy, not the account
         * (the person signs in and plays on; logged by the store's count) */
        if (r->rc == 0 && !zeros(r->me, sizeof r->me))
            (void)account_claim_due(s, r->account.id, r->me, due);
        break;
    case DDZ_STORE_READ_ACCOUNT_GET:
        r->rc = account_get_due(s, r->account.name, &r->account, due);
        break;
    case DDZ_STORE_READ_ACCOUNT_HASH:
        r->rc = account_set_hash_due(s, r->account.id, r->account.hash,
                                     r->session[0] ? r->session : NULL, due);
        break;
    case DDZ_STORE_READ_ACCOUNT_DELETE:
        r->rc = account_delete_due(s, r->account.id, due);
        break;
    case DDZ_STORE_READ_SESSION_NEW:
        r->rc = session_new_due(s, r->account.id, r->session, due);
        break;
    case DDZ_STORE_READ_SESSION_CHECK:
        r->rc = session_check_due(s, r->session, &r->account, due);
        sodium_memzero(r->session, sizeof r->session);
        break;
    case DDZ_STORE_READ_SESSION_END:
        r->rc = session_end_due(s, r->session, &r->account.id, due);
        sodium_memzero(r->session, sizeof r->session);
        break;
    default:
        r->rc = DDZ_EINVAL;
    }
}

/* ---- people's ratings ------------------------------------------------------------ */

static bool rules_ok(const char *rules)
{
    return rules && *rules && strnlen(rules, DDZ_STORE_RULES_MAX) < DDZ_STORE_RULES_MAX;
}

static bool player_ok(int64_t p)
{
    return p > 0 || ddz_people_rating_ai_name(p) != NULL;
}

typedef struct rating_ctx {
    const ddz_rating_cfg *cfg;
    int landlord;
    bool won;
    unsigned forfeit;         /* seats that left: rated as having lost */
    ddz_store_rating *before; /* the rows as read, or NULL */
} rating_ctx;

/* rating_game's update, inside the backend's transaction: the rating
 * module's update and the counts. */
static int rating_update(void *ctx, ddz_store_rating r[3])
{
    const rating_ctx *c = ctx;
    if (c->before)
        memcpy(c->before, r, 3 * sizeof *r);
    ddz_rating x[3];
    for (int i = 0; i < 3; i++)
        x[i] = (ddz_rating){.mu = r[i].mu, .sigma = r[i].sigma};
    if (ddz_people_rating_game_forfeit(c->cfg, x, c->landlord, c->won, c->forfeit) != 1)
        return DDZ_EINVAL; /* a stored rating that is not finite */
    for (int i = 0; i < 3; i++) {
        bool left = c->forfeit >> i & 1; /* counted as a loss, as rated */
        r[i].mu = x[i].mu;
        r[i].sigma = x[i].sigma;
        r[i].games++;
        if (i == c->landlord) {
            r[i].ll_games++;
            r[i].ll_wins += c->won && !left;
        } else {
            r[i].farmer_games++;
            r[i].farmer_wins += !c->won && !left;
        }
    }
    return 0;
}

static int rating_game_due(ddz_store *s, const char *rules, int64_t game, const int64_t player[3],
                           int landlord, bool landlord_won, unsigned forfeit,
                           ddz_store_rating out[3], ddz_store_rating before[3], int64_t due_ms)
{
    ddz_store_rating r[3];
    memset(r, 0, sizeof r);
    if (out)
        memset(out, 0, 3 * sizeof *out);
    if (!rules_ok(rules) || game <= 0 || landlord < -1 || landlord > 2 || forfeit > 7)
        return DDZ_EINVAL;
    for (int i = 0; i < 3; i++)
        if (!player_ok(player[i]) || player[i] == player[(i + 1) % 3])
            return DDZ_EINVAL;
    if (landlord < 0)
        return 0; /* everyone passed: nothing to rate */
    ddz_rating_cfg cfg;
    ddz_people_rating_cfg(&cfg);
    rating_ctx c = {.cfg = &cfg,
                    .landlord = landlord,
                    .won = landlord_won,
                    .forfeit = forfeit,
                    .before = before};
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->rating_game(s->be, rules, game, player, now_ms(), cfg.mu0,
                                                cfg.sigma0, rating_update, &c, r));
    rend(s);
    if (rc >= 0 && out)
        memcpy(out, r, sizeof r);
    if (rc == 0 && before) /* applied before: no update ran */
        memcpy(before, r, sizeof r);
    return rc;
}

int ddz_store_rating_game(ddz_store *s, const char *rules, int64_t game, const int64_t player[3],
                          int landlord, bool landlord_won, ddz_store_rating out[3])
{
    return rating_game_due(s, rules, game, player, landlord, landlord_won, 0, out, NULL, 0);
}

int ddz_store_rating_game_forfeit(ddz_store *s, const char *rules, int64_t game,
                                  const int64_t player[3], int landlord, bool landlord_won,
                                  unsigned forfeit, ddz_store_rating out[3])
{
    return rating_game_due(s, rules, game, player, landlord, landlord_won, forfeit, out, NULL, 0);
}

typedef struct rating_get_ctx {
    const char *rules;
    ddz_store_rating *out;
    bool found;
} rating_get_ctx;

static int rating_get_row(void *ctx, const char *rules, const ddz_store_rating *r)
{
    rating_get_ctx *g = ctx;
    if (strcmp(rules, g->rules) == 0) {
        *g->out = *r;
        g->found = true;
    }
    return 0;
}

static int rating_get_due(ddz_store *s, const char *rules, int64_t player, ddz_store_rating *out,
                          int64_t due_ms)
{
    ddz_rating_cfg cfg;
    ddz_people_rating_cfg(&cfg);
    *out = (ddz_store_rating){.player = player, .mu = cfg.mu0, .sigma = cfg.sigma0};
    if (!rules_ok(rules))
        return DDZ_EINVAL;
    rating_get_ctx g = {.rules = rules, .out = out};
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->person_ratings(s->be, player, rating_get_row, &g));
    rend(s);
    return rc < 0 ? rc : g.found;
}

int ddz_store_rating_get(ddz_store *s, const char *rules, int64_t player, ddz_store_rating *out)
{
    return rating_get_due(s, rules, player, out, 0);
}

/* A shown number to 0.1: what people read, and no float noise in JSON. */
static double tenth(double x)
{
    return round(x * 10.0) / 10.0;
}

static int rating_row(void *ctx, const char *rules, const ddz_store_rating *r)
{
    json_t *o = json_pack(
        "{s:f, s:f, s:I, s:I, s:I, s:I, s:I}", "rating", tenth(ddz_people_rating_shown(r->mu)),
        "deviation", tenth(ddz_people_rating_deviation(r->sigma)), "games", (json_int_t)r->games,
        "ll_games", (json_int_t)r->ll_games, "ll_wins", (json_int_t)r->ll_wins, "farmer_games",
        (json_int_t)r->farmer_games, "farmer_wins", (json_int_t)r->farmer_wins);
    return o && json_object_set_new(ctx, rules, o) == 0 ? 0 : DDZ_ENOMEM;
}

static int hist_row(void *ctx, const char *rules, int64_t at_ms, double mu, double sigma)
{
    (void)sigma;
    json_t *list = json_object_get(ctx, rules);
    if (!list && (!(list = json_array()) || json_object_set_new(ctx, rules, list) != 0))
        return DDZ_ENOMEM;
    json_t *pt = json_pack("[I, f]", (json_int_t)at_ms, tenth(ddz_people_rating_shown(mu)));
    return pt && json_array_append_new(list, pt) == 0 ? 0 : DDZ_ENOMEM;
}

/* Adds player's newest rated game ids as "games" to `o`; the caller holds
 * rbegin(). Returns as the backend. */
static int games_fill(ddz_store *s, int64_t player, json_t *o)
{
    int64_t ids[DDZ_STORE_PERSON_GAMES];
    int n = read_result(s, s->ops->person_games(s->be, player, DDZ_STORE_PERSON_GAMES, ids));
    json_t *list = json_array();
    if (!list || json_object_set_new(o, "games", list) != 0)
        return DDZ_ENOMEM;
    for (int i = 0; i < n; i++)
        if (json_array_append_new(list, json_integer(ids[i])) != 0)
            return DDZ_ENOMEM;
    return n;
}

/* Adds player's "ratings" (and "history" and "games", when limit > 0) to
 * `o`; the caller holds rbegin(). Returns as the backend. */
static int person_fill(ddz_store *s, int64_t player, int limit, json_t *o)
{
    json_t *ratings = json_object(), *hist = limit > 0 ? json_object() : NULL;
    int rc = DDZ_ENOMEM;
    if (ratings && json_object_set_new(o, "ratings", ratings) == 0) {
        rc = read_result(s, s->ops->person_ratings(s->be, player, rating_row, ratings));
    } else {
        json_decref(ratings);
    }
    if (rc >= 0 && limit > 0) {
        if (hist && json_object_set_new(o, "history", hist) == 0)
            rc = read_result(s, s->ops->person_history(s->be, player, limit, hist_row, hist));
        else
            rc = DDZ_ENOMEM, json_decref(hist);
    }
    if (rc >= 0 && limit > 0)
        rc = games_fill(s, player, o);
    return rc;
}

static int dump(json_t *o, int rc, char **json)
{
    if (rc >= 0 && !(*json = json_dumps(o, DDZ_RECORD_JSON_FLAGS)))
        rc = DDZ_ENOMEM;
    json_decref(o);
    return rc;
}

int ddz_store_person_ratings(ddz_store *s, int64_t player, char **json)
{
    *json = NULL;
    json_t *o = json_object();
    if (!o)
        return DDZ_ENOMEM;
    rbegin(s, 0);
    int rc = person_fill(s, player, 0, o);
    rend(s);
    return dump(o, rc, json);
}

int ddz_store_person_history(ddz_store *s, int64_t player, int limit, char **json)
{
    *json = NULL;
    if (limit < 1 || limit > DDZ_STORE_RATING_HIST_MAX)
        return DDZ_EINVAL;
    json_t *o = json_object(), *hist = json_object();
    if (!o || !hist || json_object_set_new(o, "history", hist) != 0) {
        json_decref(o);
        return DDZ_ENOMEM;
    }
    rbegin(s, 0);
    int rc = read_result(s, s->ops->person_history(s->be, player, limit, hist_row, hist));
    rend(s);
    return dump(o, rc, json);
}

int ddz_store_person_games(ddz_store *s, int64_t player, int64_t *ids, int max)
{
    if (max < 1 || max > DDZ_STORE_PERSON_GAMES)
        return DDZ_EINVAL;
    rbegin(s, 0);
    int rc = read_result(s, s->ops->person_games(s->be, player, max, ids));
    rend(s);
    return rc;
}

/* Adds "rank" (the place on that rule set's leaderboard) to each rule set
 * of o's "ratings" under which `player` is listed: a profile says where
 * its person stands even below the board's top rows, which it alone
 * would not show. The caller holds rbegin(). Returns 0 or as the backend. */
static int ranks_fill(ddz_store *s, int64_t player, json_t *o)
{
    const char *rules;
    json_t *r;
    json_object_foreach(json_object_get(o, "ratings"), rules, r)
    {
        if (json_integer_value(json_object_get(r, "games")) < DDZ_STORE_BOARD_MIN_GAMES)
            continue;
        int64_t rank;
        int rc = read_result(
            s, s->ops->board_rank(s->be, rules, player, DDZ_STORE_BOARD_MIN_GAMES, &rank));
        if (rc < 0)
            return rc;
        if (rank > 0 && json_object_set_new(r, "rank", json_integer(rank)) != 0)
            return DDZ_ENOMEM;
    }
    return 0;
}

static int person_due(ddz_store *s, const char *name, char **json, int64_t due_ms)
{
    *json = NULL;
    char key[DDZ_ACCOUNT_NAME_MAX];
    if (!account_key(name, key))
        return DDZ_ENOTFOUND;
    ddz_store_account a;
    memset(&a, 0, sizeof a);
    json_t *o = json_object();
    if (!o)
        return DDZ_ENOMEM;
    /* one hold of the connection: the account and its ratings together */
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->account_get(s->be, key, &a));
    if (rc == 0)
        rc = json_object_set_new(o, "name", json_string(a.name)) == 0 ? 0 : DDZ_ENOMEM;
    if (rc == 0)
        rc = person_fill(s, a.id, DDZ_STORE_RATING_HIST_MAX, o);
    if (rc >= 0)
        rc = ranks_fill(s, a.id, o);
    rend(s);
    sodium_memzero(a.hash, sizeof a.hash);
    return dump(o, rc < 0 ? rc : 0, json);
}

int ddz_store_person(ddz_store *s, const char *name, char **json)
{
    return person_due(s, name, json, 0);
}

static int board_row(void *ctx, const char *name, const ddz_store_rating *r)
{
    json_t *o = json_pack(
        "{s:s, s:f, s:f, s:I}", "name", name, "rating", tenth(ddz_people_rating_shown(r->mu)),
        "deviation", tenth(ddz_people_rating_deviation(r->sigma)), "games", (json_int_t)r->games);
    return o && json_array_append_new(ctx, o) == 0 ? 0 : DDZ_ENOMEM;
}

static int leaderboard_due(ddz_store *s, const char *rules, int limit, char **json, int64_t due_ms)
{
    *json = NULL;
    if (!rules_ok(rules) || limit < 1 || limit > DDZ_STORE_BOARD_MAX)
        return DDZ_EINVAL;
    json_t *list = json_array();
    json_t *o = json_pack("{s:s, s:o}", "rules", rules, "players", list);
    if (!o)
        return DDZ_ENOMEM;
    rbegin(s, due_ms);
    int rc = read_result(
        s, s->ops->leaderboard(s->be, rules, limit, DDZ_STORE_BOARD_MIN_GAMES, board_row, list));
    rend(s);
    return dump(o, rc, json);
}

int ddz_store_leaderboard(ddz_store *s, const char *rules, int limit, char **json)
{
    return leaderboard_due(s, rules, limit, json, 0);
}

/* The rating kinds of the reader thread (run_read). */
static void run_rating_read(ddz_store *s, ddz_store_read *r)
{
    ddz_store_rating_req *q = &r->rating;
    q->rules[sizeof q->rules - 1] = '\0';
    switch (r->kind) {
    case DDZ_STORE_READ_RATING_GAME:
        r->rc = rating_game_due(s, q->rules, q->game, q->player, q->landlord, q->landlord_won,
                                q->forfeit, q->out, q->before, r->due_ms);
        break;
    case DDZ_STORE_READ_RATING_GET:
        r->rc = rating_get_due(s, q->rules, q->player[0], &q->out[0], r->due_ms);
        break;
    case DDZ_STORE_READ_PERSON:
        r->account.name[sizeof r->account.name - 1] = '\0';
        r->rc = person_due(s, r->account.name, &r->json, r->due_ms);
        break;
    case DDZ_STORE_READ_LEADERBOARD:
        r->rc = leaderboard_due(s, q->rules, q->limit, &r->json, r->due_ms);
        break;
    default:
        r->rc = DDZ_EINVAL;
    }
}

/* ---- Puzzles ----------------------------------------------------------------- */

/* Whether `text` is a non-empty string that ends within `cap` bytes. */
static bool text_ok(const char *text, size_t cap)
{
    size_t n = strnlen(text, cap);
    return n > 0 && n < cap;
}

static bool puzzle_ok(const ddz_store_puzzle *p)
{
    bool leads = p->last_by < 0;
    return p->game > 0 && p->ply >= 0 && rules_ok(p->rules) && text_ok(p->hands, sizeof p->hands) &&
           p->landlord >= 0 && p->landlord < 3 && p->turn >= 0 && p->turn < 3 && p->last_by >= -1 &&
           p->last_by < 3 &&
           /* a play to beat exactly when someone made it */
           (leads ? strnlen(p->last, sizeof p->last) == 0 : text_ok(p->last, sizeof p->last)) &&
           (strcmp(p->side, "landlord") == 0 || strcmp(p->side, "farmers") == 0) &&
           text_ok(p->solutions, sizeof p->solutions) && p->moves > 0;
}

int ddz_store_add_puzzle(ddz_store *s, const ddz_store_puzzle *p)
{
    if (!p || !puzzle_ok(p))
        return DDZ_EINVAL;
    store_item *it = calloc(1, sizeof *it);
    if (!it)
        return dropped(s, NULL, DDZ_ENOMEM);
    it->kind = ITEM_PUZZLE;
    it->id = p->game;
    it->finished_ms = now_ms();
    if (!(it->puzzle = malloc(sizeof *it->puzzle)))
        return dropped(s, it, DDZ_ENOMEM);
    *it->puzzle = *p;
    it->puzzle->rating = DDZ_STORE_PUZZLE_RATING0;
    it->puzzle->deviation = DDZ_STORE_PUZZLE_DEV0;
    return enqueue(s, it);
}

static int puzzle_get_due(ddz_store *s, int64_t id, ddz_store_puzzle *out, int64_t due_ms)
{
    memset(out, 0, sizeof *out);
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->puzzle_get(s->be, id, out));
    rend(s);
    return rc;
}

int ddz_store_puzzle_get(ddz_store *s, int64_t id, ddz_store_puzzle *out)
{
    return puzzle_get_due(s, id, out, 0);
}

typedef struct near_puzzle {
    int64_t id;
    double dist; /* from the rating asked for */
} near_puzzle;

static int near_cmp(const void *a, const void *b)
{
    const near_puzzle *x = a, *y = b;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int puzzle_next_due(ddz_store *s, const char *rules, double rating, const int64_t *recent,
                           int nrecent, ddz_store_puzzle *out, int64_t due_ms)
{
    memset(out, 0, sizeof *out);
    if (!rules_ok(rules) || nrecent < 0 || (nrecent > 0 && !recent) || !isfinite(rating))
        return DDZ_EINVAL;
    if (nrecent > DDZ_STORE_PUZZLE_RECENT_MAX)
        nrecent = DDZ_STORE_PUZZLE_RECENT_MAX;
    /* Enough on each side that the nearest NEAR not recent are among
     * them whatever the recent ones are. */
    enum { LIMIT = DDZ_STORE_PUZZLE_NEAR + DDZ_STORE_PUZZLE_RECENT_MAX };
    int64_t ids[2 * LIMIT];
    double ratings[2 * LIMIT];
    near_puzzle fresh[2 * LIMIT], stale[2 * LIMIT];
    int nfresh = 0, nstale = 0;
    rbegin(s, due_ms);
    int n = read_result(s, s->ops->puzzle_near(s->be, rules, rating, LIMIT, ids, ratings));
    rend(s);
    if (n < 0)
        return n;
    if (n == 0)
        return DDZ_ENOTFOUND;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int k = 0; k < nrecent && !seen; k++)
            seen = recent[k] == ids[i];
        near_puzzle np = {.id = ids[i], .dist = fabs(ratings[i] - rating)};
        if (seen)
            stale[nstale++] = np;
        else
            fresh[nfresh++] = np;
    }
    near_puzzle *pick = nfresh ? fresh : stale;
    int npick = nfresh ? nfresh : nstale;
    qsort(pick, (size_t)npick, sizeof *pick, near_cmp);
    if (npick > DDZ_STORE_PUZZLE_NEAR)
        npick = DDZ_STORE_PUZZLE_NEAR;
    int64_t id = pick[randombytes_uniform((uint32_t)npick)].id;
    return puzzle_get_due(s, id, out, due_ms);
}

int ddz_store_puzzle_next(ddz_store *s, const char *rules, double rating, const int64_t *recent,
                          int nrecent, ddz_store_puzzle *out)
{
    return puzzle_next_due(s, rules, rating, recent, nrecent, out, 0);
}

/* The JSON text `text` of a field as a value ("" as null). NULL when it is
 * not JSON or out of memory. */
static json_t *field_json(const char *text)
{
    return *text ? json_loads(text, JSON_DECODE_ANY, NULL) : json_null();
}

char *ddz_store_puzzle_json(const ddz_store_puzzle *p, bool solutions)
{
    json_t *hands = field_json(p->hands), *last = field_json(p->last);
    json_t *by = p->last_by < 0 ? json_null() : json_integer(p->last_by);
    json_t *sol = solutions ? field_json(p->solutions) : NULL;
    json_t *o = NULL;
    if (hands && last && by && (sol || !solutions))
        o = json_pack("{s:I, s:s, s:O, s:i, s:i, s:O, s:O, s:s, s:i, s:f}", "id", (json_int_t)p->id,
                      "rules", p->rules, "hands", hands, "landlord", p->landlord, "turn", p->turn,
                      "last", last, "last_by", by, "side", p->side, "moves", p->moves, "rating",
                      tenth(p->rating));
    if (o && sol && json_object_set(o, "solutions", sol) != 0)
        json_decref(o), o = NULL;
    char *out = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    json_decref(hands);
    json_decref(last);
    json_decref(by);
    json_decref(sol);
    return out;
}

/* The people's rating constants, for puzzles too. */
static ddz_rating_cfg puzzle_cfg(void)
{
    ddz_rating_cfg cfg;
    ddz_people_rating_cfg(&cfg);
    return cfg;
}

static int puzzle_rating_get_due(ddz_store *s, int64_t account, const char *rules,
                                 ddz_store_puzzle_rating *out, int64_t due_ms)
{
    ddz_rating_cfg cfg = puzzle_cfg();
    memset(out, 0, sizeof *out);
    out->mu = out->mu_before = cfg.mu0;
    out->sigma = cfg.sigma0;
    if (!rules_ok(rules) || account < 1)
        return DDZ_EINVAL;
    snprintf(out->rules, sizeof out->rules, "%s", rules);
    rbegin(s, due_ms);
    int rc = read_result(s, s->ops->puzzle_rating_get(s->be, account, out));
    rend(s);
    return rc;
}

int ddz_store_puzzle_rating_get(ddz_store *s, int64_t account, const char *rules,
                                ddz_store_puzzle_rating *out)
{
    return puzzle_rating_get_due(s, account, rules, out, 0);
}

/* A puzzle's rating as the update sees it: people_rating's scale, back. */
static ddz_rating puzzle_as_rating(double rating, double deviation)
{
    return (ddz_rating){.mu = 25 + (rating - DDZ_PEOPLE_RATING_BASE) / DDZ_PEOPLE_RATING_SCALE,
                        .sigma = deviation / DDZ_PEOPLE_RATING_SCALE};
}

typedef struct puzzle_rate_ctx {
    ddz_rating_cfg cfg;
    bool solved;
} puzzle_rate_ctx;

/* puzzle_rate's update, inside the backend's transaction: the person and
 * the puzzle as two players of one event. */
static int puzzle_rate_update(void *ctx, ddz_store_puzzle_rating *me, double *rating,
                              double *deviation)
{
    const puzzle_rate_ctx *c = ctx;
    ddz_rating r[2] = {{.mu = me->mu, .sigma = me->sigma}, puzzle_as_rating(*rating, *deviation)};
    double score[2] = {c->solved, !c->solved};
    me->mu_before = me->mu;
    me->puzzle_before = *rating;
    if (ddz_rating_update(&c->cfg, r, score, 2) < 0)
        return DDZ_EINVAL; /* a stored rating that is not finite */
    me->mu = r[0].mu;
    me->sigma = r[0].sigma;
    me->attempts++;
    me->solved += c->solved;
    *rating = ddz_people_rating_shown(r[1].mu);
    *deviation = ddz_people_rating_deviation(r[1].sigma);
    me->puzzle_after = *rating;
    return 0;
}

int ddz_store_puzzle_rate(ddz_store *s, int64_t account, int64_t id, bool solved,
                          ddz_store_puzzle_rating *out)
{
    puzzle_rate_ctx c = {.cfg = puzzle_cfg(), .solved = solved};
    memset(out, 0, sizeof *out);
    out->mu = out->mu_before = c.cfg.mu0;
    out->sigma = c.cfg.sigma0;
    if (account < 1 || id < 1)
        return account < 1 ? DDZ_EINVAL : DDZ_ENOTFOUND;
    rbegin(s, 0);
    int rc = read_result(s, s->ops->puzzle_rate(s->be, account, id, solved, now_ms(), c.cfg.mu0,
                                                c.cfg.sigma0, puzzle_rate_update, &c, out));
    rend(s);
    return rc;
}

static int puzzle_next_read(ddz_store *s, ddz_store_read *r)
{
    ddz_store_puzzle_req *q = &r->puzzle;
    r->rating.rules[sizeof r->rating.rules - 1] = '\0';
    r->session[sizeof r->session - 1] = '\0';
    if (q->nrecent < 0 || q->nrecent > DDZ_STORE_PUZZLE_RECENT_MAX)
        return DDZ_EINVAL;
    ddz_store_puzzle_rating me;
    bool signed_in = r->session[0] != '\0';
    if (signed_in) {
        int rc = session_check_due(s, r->session, &r->account, r->due_ms);
        sodium_memzero(r->session, sizeof r->session);
        if (rc < 0 ||
            (rc = puzzle_rating_get_due(s, r->account.id, r->rating.rules, &me, r->due_ms)) < 0)
            return rc;
        q->rating = ddz_people_rating_shown(me.mu);
    }
    ddz_store_puzzle *p = malloc(sizeof *p);
    if (!p)
        return DDZ_ENOMEM;
    int rc = puzzle_next_due(s, r->rating.rules, q->rating, q->recent, q->nrecent, p, r->due_ms);
    if (rc == 0 && !(r->json = ddz_store_puzzle_json(p, false)))
        rc = DDZ_ENOMEM;
    free(p);
    if (rc == 0 && signed_in) {
        json_t *o = json_loads(r->json, 0, NULL);
        json_t *you = json_pack("{s:f, s:f, s:I}", "rating", tenth(ddz_people_rating_shown(me.mu)),
                                "deviation", tenth(ddz_people_rating_deviation(me.sigma)),
                                "attempts", (json_int_t)me.attempts);
        char *text = NULL;
        if (o && you) {
            int set = json_object_set_new(o, "you", you); /* takes `you`, set or not */
            you = NULL;
            text = set == 0 ? json_dumps(o, JSON_COMPACT) : NULL;
        }
        json_decref(you);
        json_decref(o);
        free(r->json);
        if (!(r->json = text))
            rc = DDZ_ENOMEM;
    }
    return rc;
}

static int puzzle_get_read(ddz_store *s, ddz_store_read *r)
{
    ddz_store_puzzle *p = malloc(sizeof *p);
    if (!p)
        return DDZ_ENOMEM;
    int rc = puzzle_get_due(s, r->id, p, r->due_ms);
    if (rc == 0 && !(r->json = ddz_store_puzzle_json(p, false)))
        rc = DDZ_ENOMEM;
    free(p);
    return rc;
}
