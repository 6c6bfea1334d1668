/* cluster.c - the nodes and rooms tables on a libpq thread (cluster.h). */
#include "service/cluster/cluster.h"

#include <errno.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "service/store/pg_conn.h"
#include "service/thread/mailbox.h"

/* A view: what the thread read, handed to the loop whole. */
typedef struct view_buf {
    ddz_event_room *rooms;
    size_t nrooms;
    ddz_cluster_node nodes[DDZ_CLUSTER_NODES_MAX];
    size_t nnodes;
    bool connected;
    ddz_mail mail; /* in c->views */
} view_buf;

/* A set of our rooms, handed to the thread whole (one allocation). */
typedef struct room_set {
    ddz_mail mail; /* in c->pub */
    size_t n;
    ddz_event_room rooms[];
} room_set;

struct ddz_cluster {
    char node[DDZ_CLUSTER_NODE_MAX];
    char url[DDZ_EVENT_URL_MAX];
    int heartbeat_ms, dead_ms;
    int timeout_ms;       /* a round trip's bound */
    ddz_pg_stop own_stop; /* when the cfg gives none */
    ddz_pg_stop *stop;    /* the stop in use */
    PGconn *pg;           /* the thread's, after start */
    pthread_t thread;
    /* The loop's latest room_set, not yet taken (only the newest is kept),
     * with the pipe the thread polls beside its socket; closed to stop it. */
    ddz_mailbox *pub;
    ddz_mailbox *views; /* the thread's latest view_buf, not yet taken */
    /* the loop's */
    ddz_event_room last[DDZ_CLUSTER_ROOMS_MAX]; /* what was last handed over */
    size_t nlast;
    bool handed; /* something was ever handed over */
    view_buf *cur;
    /* the thread's: our rooms as written to the table */
    char *ids[DDZ_CLUSTER_ROOMS_MAX];
    char *texts[DDZ_CLUSTER_ROOMS_MAX];
    size_t nwritten;
    room_set *mine; /* the latest set, to write again after a reconnection */
    bool rewrite;   /* the connection was lost: write every room again */
};

bool ddz_cluster_is_pg_url(const char *db)
{
    return db && (strncmp(db, "postgres://", 11) == 0 || strncmp(db, "postgresql://", 13) == 0);
}

bool ddz_cluster_node_valid(const char *node)
{
    size_t n = node ? strlen(node) : 0;
    if (n < 1 || n >= DDZ_CLUSTER_NODE_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((node[i] >= 'a' && node[i] <= 'z') || (node[i] >= '0' && node[i] <= '9')))
            return false;
    return true;
}

bool ddz_cluster_room_node(const char *room, char node[DDZ_CLUSTER_NODE_MAX])
{
    const char *dash = strchr(room, '-');
    if (!dash || dash == room || (size_t)(dash - room) >= DDZ_CLUSTER_NODE_MAX)
        return false;
    memcpy(node, room, (size_t)(dash - room));
    node[dash - room] = '\0';
    return ddz_cluster_node_valid(node);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- a room as the jsonb summary and back ---- */

/* Returns the room object of a `rooms` event as compact JSON text
 * (malloc'd), or NULL when out of memory. */
static char *room_text(const ddz_event_room *r)
{
    ddz_event e = {.type = DDZ_EVENT_ROOMS, .rooms = {.rooms = r, .nrooms = 1}};
    json_t *j = ddz_event_print(&e);
    char *s = j ? json_dumps(json_array_get(json_object_get(j, "rooms"), 0), JSON_COMPACT) : NULL;
    json_decref(j);
    return s;
}

/* Parses a summary with the event codec (as strict as for a frame).
 * Returns 0, or a negative DDZ_E... */
static int room_parse(const char *text, ddz_event_room *out)
{
    json_t *o = json_loads(text, 0, NULL);
    if (!o)
        return DDZ_ESYNTAX;
    json_t *ev = json_pack("{s:s, s:[o], s:[], s:[], s:[]}", "type", "rooms", "rooms", o, "ais",
                           "engines", "rules");
    if (!ev)
        return DDZ_ENOMEM;
    ddz_event e;
    int rc = ddz_event_parse(ev, &e, NULL, 0);
    json_decref(ev);
    if (rc < 0)
        return rc;
    if (e.rooms.nrooms == 1)
        *out = e.rooms.rooms[0];
    else
        rc = DDZ_EFIELD;
    ddz_event_clear(&e);
    return rc;
}

/* ---- statements (the thread's, and start/stop's) ---- */

/* Runs `sql` with text parameters, by the bound (pg_conn.h: past it the
 * session is dropped, and made again at the next heartbeat). Returns true
 * when it succeeded; the result is freed unless `keep`. */
static bool exec(ddz_cluster *c, const char *sql, int n, const char *const *params, PGresult **keep)
{
    PGresult *res = ddz_pg_exec(c->pg, sql, n, params, ddz_pg_now_ms() + c->timeout_ms, c->stop);
    ExecStatusType st = PQresultStatus(res);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (keep && ok)
        *keep = res;
    else
        PQclear(res);
    return ok;
}

static bool heartbeat(ddz_cluster *c)
{
    const char *p[] = {c->node, c->url};
    return exec(c,
                "INSERT INTO cluster_nodes (id, public_url, seen_at) VALUES ($1, $2, now()) "
                "ON CONFLICT (id) DO UPDATE SET public_url = EXCLUDED.public_url, seen_at = now()",
                2, p, NULL);
}

static void forget_written(ddz_cluster *c)
{
    for (size_t i = 0; i < c->nwritten; i++) {
        free(c->ids[i]);
        free(c->texts[i]);
    }
    c->nwritten = 0;
}

/* Writes the difference between what the table holds of ours and
 * c->mine, in one transaction with its NOTIFY. Returns false when a
 * statement failed (the whole set is written again next time). */
static bool write_rooms(ddz_cluster *c)
{
    const ddz_event_room *mine = c->mine ? c->mine->rooms : NULL;
    size_t nmine = c->mine ? c->mine->n : 0;
    char *texts[DDZ_CLUSTER_ROOMS_MAX] = {0};
    bool ok = exec(c, "BEGIN", 0, NULL, NULL);
    if (ok && c->rewrite) {
        const char *p[] = {c->node};
        ok = exec(c, "DELETE FROM cluster_rooms WHERE node = $1", 1, p, NULL);
        forget_written(c);
    }
    bool changed = c->rewrite;
    for (size_t i = 0; ok && i < nmine; i++) {
        texts[i] = room_text(&mine[i]);
        if (!texts[i]) {
            ok = false;
            break;
        }
        size_t k = 0;
        while (k < c->nwritten && strcmp(c->ids[k], mine[i].id) != 0)
            k++;
        if (k < c->nwritten && strcmp(c->texts[k], texts[i]) == 0)
            continue;
        const char *p[] = {mine[i].id, c->node, texts[i]};
        ok = exec(c,
                  "INSERT INTO cluster_rooms (id, node, summary, updated_at) "
                  "VALUES ($1, $2, $3::jsonb, now()) ON CONFLICT (id) DO UPDATE SET "
                  "node = EXCLUDED.node, summary = EXCLUDED.summary, updated_at = now()",
                  3, p, NULL);
        changed = true;
    }
    for (size_t k = 0; ok && k < c->nwritten; k++) {
        size_t i = 0;
        while (i < nmine && strcmp(c->ids[k], mine[i].id) != 0)
            i++;
        if (i < nmine)
            continue;
        const char *p[] = {c->ids[k], c->node};
        ok = exec(c, "DELETE FROM cluster_rooms WHERE id = $1 AND node = $2", 2, p, NULL);
        changed = true;
    }
    if (ok && changed) {
        const char *p[] = {c->node};
        ok = exec(c, "SELECT pg_notify('" DDZ_CLUSTER_CHANNEL "', $1)", 1, p, NULL);
    }
    ok = ok && exec(c, "COMMIT", 0, NULL, NULL);
    if (!ok) {
        exec(c, "ROLLBACK", 0, NULL, NULL);
        for (size_t i = 0; i < nmine; i++)
            free(texts[i]);
        c->rewrite = true;
        return false;
    }
    forget_written(c);
    bool lost = false; /* out of memory: what was written is not all known */
    for (size_t i = 0; i < nmine; i++) {
        c->ids[i] = strdup(mine[i].id);
        c->texts[i] = texts[i];
        if (!c->ids[i]) { /* forget it, write it all next time */
            lost = true;
            free(texts[i]);
            continue;
        }
        c->nwritten++;
        if (c->nwritten - 1 != i) { /* keep the arrays dense */
            c->ids[c->nwritten - 1] = c->ids[i];
            c->texts[c->nwritten - 1] = c->texts[i];
        }
    }
    c->rewrite = lost;
    return true;
}

/* Reads the live nodes and the other live nodes' rooms into a new view.
 * Returns it (connected false when a read failed), or NULL when out of
 * memory. */
static view_buf *read_view(ddz_cluster *c)
{
    view_buf *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    char dead[16];
    snprintf(dead, sizeof dead, "%d", c->dead_ms);
    const char *p1[] = {dead};
    PGresult *res = NULL;
    if (!exec(c,
              "SELECT id, public_url FROM cluster_nodes "
              "WHERE seen_at > now() - $1::int * interval '1 millisecond' ORDER BY id LIMIT 64",
              1, p1, &res))
        return v;
    for (int i = 0; i < PQntuples(res) && v->nnodes < DDZ_CLUSTER_NODES_MAX; i++) {
        ddz_cluster_node *n = &v->nodes[v->nnodes];
        const char *id = PQgetvalue(res, i, 0), *url = PQgetvalue(res, i, 1);
        if (!ddz_cluster_node_valid(id) || strlen(url) >= sizeof n->url)
            continue;
        snprintf(n->id, sizeof n->id, "%s", id);
        snprintf(n->url, sizeof n->url, "%s", url);
        v->nnodes++;
    }
    PQclear(res);
    const char *p2[] = {c->node, dead};
    res = NULL;
    if (!exec(c,
              "SELECT r.summary::text FROM cluster_rooms r JOIN cluster_nodes n ON n.id = r.node "
              "WHERE r.node <> $1 AND n.seen_at > now() - $2::int * interval '1 millisecond' "
              "ORDER BY r.updated_at DESC, r.id LIMIT 6400",
              2, p2, &res))
        return v;
    int rows = PQntuples(res);
    v->rooms = rows ? calloc((size_t)rows, sizeof *v->rooms) : NULL;
    for (int i = 0; v->rooms && i < rows; i++)
        if (room_parse(PQgetvalue(res, i, 0), &v->rooms[v->nrooms]) == 0)
            v->nrooms++;
    PQclear(res);
    v->connected = rows == 0 || v->rooms;
    return v;
}

static void view_free(view_buf *v)
{
    if (v) {
        free(v->rooms);
        free(v);
    }
}

/* Frees the views of the chain `m`. */
static void views_free(ddz_mail *m)
{
    for (ddz_mail *next; m; m = next) {
        next = m->next;
        view_free(DDZ_MAIL_ITEM(m, view_buf, mail));
    }
}

/* Frees the room sets of the chain `m`. */
static void sets_free(ddz_mail *m)
{
    for (ddz_mail *next; m; m = next) {
        next = m->next;
        free(DDZ_MAIL_ITEM(m, room_set, mail));
    }
}

/* Connection-level setup, again after every reconnection. */
static bool session_setup(ddz_cluster *c)
{
    return exec(c, "SET statement_timeout = 5000", 0, NULL, NULL) &&
           exec(c, "LISTEN " DDZ_CLUSTER_CHANNEL, 0, NULL, NULL);
}

/* Why the last statement failed: libpq's message, or that the database did
 * not answer within the bound (its session then dropped). */
static const char *why(const ddz_cluster *c)
{
    return ddz_pg_hung() ? "no answer from the database server in time" : PQerrorMessage(c->pg);
}

/* ---- the thread ---- */

/* Reads of the others' rooms are at least this far apart: with many nodes
 * each writing a change or two a second, the notifications of a burst are
 * served by one read. */
#define READ_GAP_MS 100

/* Empties libpq's queue of notifications. Returns whether one came from
 * another node (ours are our own writes). */
static bool drain_notifies(ddz_cluster *c)
{
    bool others = false;
    PGnotify *n;
    while ((n = PQnotifies(c->pg))) {
        if (strcmp(n->extra, c->node) != 0)
            others = true;
        PQfreemem(n);
    }
    return others;
}

static void *run(void *arg)
{
    ddz_cluster *c = arg;
    int64_t next_beat = 0, last_read = -READ_GAP_MS;
    bool refresh = true, up = true;
    bool broken = false; /* the socket failed: not polled until reconnected (it would spin) */
    for (;;) {
        /* the loop's latest set (get reads the pipe too) */
        room_set *set = DDZ_MAIL_ITEM(ddz_mailbox_get(c->pub), room_set, mail);
        bool stop = ddz_mailbox_closed(c->pub), fresh = set != NULL;
        if (fresh) {
            free(c->mine);
            c->mine = set;
        }
        if (fresh && !stop) {
            if (up)
                up = write_rooms(c);
            else
                c->rewrite = true; /* written once the database is back */
        }
        if (stop)
            break;
        int64_t now = now_ms();
        if (now >= next_beat) {
            next_beat = now + c->heartbeat_ms;
            bool reset = broken || PQstatus(c->pg) != CONNECTION_OK;
            if (reset) { /* lost: connect again (blocks this thread only, bounded) */
                ddz_pg_reset(c->pg, ddz_pg_now_ms() + c->timeout_ms, c->stop);
                c->rewrite = true;
            }
            up = PQstatus(c->pg) == CONNECTION_OK && (!reset || session_setup(c)) && heartbeat(c);
            broken = PQstatus(c->pg) != CONNECTION_OK;
            if (up && c->rewrite)
                up = write_rooms(c);
            refresh = true;
        }
        if (refresh && now_ms() - last_read >= READ_GAP_MS) {
            refresh = false;
            last_read = now_ms();
            view_buf *v = read_view(c);
            if (v) {
                v->connected = v->connected && up;
                views_free(ddz_mailbox_replace(c->views, &v->mail)); /* one the loop missed */
            }
        }
        /* Notifications libpq read while our own statements ran wait in
         * its queue, not on the socket: poll() would not say so until the
         * next heartbeat. */
        if (!broken && PQstatus(c->pg) == CONNECTION_OK)
            refresh |= drain_notifies(c);
        struct pollfd fds[2] = {{.fd = ddz_mailbox_fd(c->pub), .events = POLLIN},
                                {.fd = broken ? -1 : PQsocket(c->pg), .events = POLLIN}};
        int64_t wait = next_beat - now_ms();
        if (refresh && last_read + READ_GAP_MS - now_ms() < wait)
            wait = last_read + READ_GAP_MS - now_ms();
        poll(fds, fds[1].fd >= 0 ? 2 : 1, wait < 0 ? 0 : (int)wait);
        if (fds[1].fd >= 0 && fds[1].revents) {
            if (!PQconsumeInput(c->pg)) {
                broken = true; /* connected again at the next beat */
                up = false;
                continue;
            }
            refresh |= drain_notifies(c);
        }
    }
    return NULL;
}

/* ---- the loop's side ---- */

/* err = "cluster: WHAT: M", on one line (libpq's messages run over
 * several, with tabs). */
static void set_err(char *err, size_t errlen, const char *what, const char *m)
{
    int n = snprintf(err, errlen, "cluster: %s%s", what, *m ? ": " : "");
    size_t at = n > 0 ? (size_t)n : 0;
    bool space = true;
    for (; *m && at + 1 < errlen; m++) {
        bool ws = *m == '\n' || *m == '\t' || *m == ' ' || *m == '\r';
        if (ws && space)
            continue;
        err[at++] = ws ? ' ' : *m;
        space = ws;
    }
    while (at > 0 && err[at - 1] == ' ')
        at--;
    if (errlen)
        err[at < errlen ? at : errlen - 1] = '\0';
}

ddz_cluster *ddz_cluster_start(const ddz_cluster_cfg *cfg, char *err, size_t errlen)
{
    if (!ddz_cluster_node_valid(cfg->node)) {
        snprintf(err, errlen, "cluster: the node id must be 1..16 of a-z and 0-9");
        return NULL;
    }
    if (!cfg->public_url ||
        (strncmp(cfg->public_url, "ws://", 5) != 0 && strncmp(cfg->public_url, "wss://", 6) != 0) ||
        strlen(cfg->public_url) >= DDZ_EVENT_URL_MAX) {
        snprintf(err, errlen, "cluster: the public URL must be a ws:// or wss:// URL");
        return NULL;
    }
    if (!ddz_cluster_is_pg_url(cfg->db_url)) {
        snprintf(err, errlen, "cluster: the database must be a postgres:// URL");
        return NULL;
    }
    ddz_cluster *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "cluster: out of memory");
        return NULL;
    }
    snprintf(c->node, sizeof c->node, "%s", cfg->node);
    snprintf(c->url, sizeof c->url, "%s", cfg->public_url);
    c->heartbeat_ms = cfg->heartbeat_ms > 0 ? cfg->heartbeat_ms : 1000;
    c->dead_ms = cfg->dead_ms > 0 ? cfg->dead_ms : 5000;
    c->timeout_ms = cfg->db_timeout_ms > 0 ? cfg->db_timeout_ms : DDZ_PG_TIMEOUT_MS;
    ddz_pg_stop_init(&c->own_stop);
    c->stop = cfg->stop ? cfg->stop : &c->own_stop;
    /* pg_conn.h: the start gives up on a database that does not answer
     * after 5 s, and one that stops answering is away within the bound
     * (the view then says so) */
    c->pg = ddz_pg_connect(cfg->db_url, "ddz-cluster", 2000, 10000, c->stop);
    if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
        set_err(err, errlen, "cannot connect to the database", ddz_pg_connect_error(c->pg));
        goto fail;
    }
    const char *me[] = {c->node};
    char dead[16];
    snprintf(dead, sizeof dead, "%d", c->dead_ms);
    const char *live[] = {c->node, dead, c->url};
    PGresult *res = NULL;
    /* the CREATEs under an advisory lock (an arbitrary key): two nodes
     * starting at once would otherwise race on the catalog */
    if (!exec(c, "BEGIN", 0, NULL, NULL) ||
        !exec(c, "SELECT pg_advisory_xact_lock(7160016)", 0, NULL, NULL) ||
        !exec(c,
              "CREATE TABLE IF NOT EXISTS cluster_nodes (id text PRIMARY KEY, public_url text "
              "NOT NULL, seen_at timestamptz NOT NULL)",
              0, NULL, NULL) ||
        !exec(c,
              "CREATE TABLE IF NOT EXISTS cluster_rooms (id text PRIMARY KEY, node text NOT NULL, "
              "summary jsonb NOT NULL, updated_at timestamptz NOT NULL)",
              0, NULL, NULL) ||
        !exec(c, "CREATE INDEX IF NOT EXISTS cluster_rooms_node ON cluster_rooms (node)", 0, NULL,
              NULL) ||
        !exec(c, "COMMIT", 0, NULL, NULL)) {
        set_err(err, errlen, "cannot create the cluster tables", why(c));
        goto fail;
    }
    /* Another live node with our id and another address would have its
     * rooms deleted by ours: refuse. (Our own earlier life, killed, has our
     * address and is simply replaced.) */
    if (!exec(c,
              "SELECT 1 FROM cluster_nodes WHERE id = $1 AND public_url <> $3 AND "
              "seen_at > now() - $2::int * interval '1 millisecond'",
              3, live, &res)) {
        set_err(err, errlen, "cannot read the nodes table", why(c));
        goto fail;
    }
    int taken = PQntuples(res);
    PQclear(res);
    if (taken) {
        snprintf(err, errlen, "cluster: node id '%s' is used by a live node at another address",
                 c->node);
        goto fail;
    }
    /* What an earlier life of this node listed is gone with it; rows of
     * nodes dead for an hour are let go. */
    if (!exec(c, "DELETE FROM cluster_rooms WHERE node = $1", 1, me, NULL) ||
        !exec(c,
              "DELETE FROM cluster_rooms WHERE node IN (SELECT id FROM cluster_nodes WHERE "
              "seen_at < now() - interval '1 hour')",
              0, NULL, NULL) ||
        !exec(c, "DELETE FROM cluster_nodes WHERE seen_at < now() - interval '1 hour'", 0, NULL,
              NULL) ||
        !heartbeat(c) || !session_setup(c) ||
        /* the others read the nodes again now, not at their next beat:
         * they can send clients here at once */
        !exec(c, "SELECT pg_notify('" DDZ_CLUSTER_CHANNEL "', $1)", 1, me, NULL)) {
        set_err(err, errlen, "cannot register the node", why(c));
        goto fail;
    }
    if (!(c->pub = ddz_mailbox_create(0, true)) || !(c->views = ddz_mailbox_create(0, false))) {
        snprintf(err, errlen, "cluster: cannot make its mailboxes: %s", strerror(errno));
        goto fail;
    }
    if (pthread_create(&c->thread, NULL, run, c) != 0) {
        snprintf(err, errlen, "cluster: cannot start the thread");
        goto fail;
    }
    return c;
fail:
    ddz_mailbox_destroy(c->pub);
    ddz_mailbox_destroy(c->views);
    PQfinish(c->pg);
    ddz_pg_stop_fini(&c->own_stop);
    free(c);
    return NULL;
}

void ddz_cluster_publish(ddz_cluster *c, const ddz_event_room *rooms, size_t n)
{
    if (n > DDZ_CLUSTER_ROOMS_MAX)
        n = DDZ_CLUSTER_ROOMS_MAX;
    ddz_event a = {.type = DDZ_EVENT_ROOMS, .rooms = {.rooms = rooms, .nrooms = n}};
    ddz_event b = {.type = DDZ_EVENT_ROOMS, .rooms = {.rooms = c->last, .nrooms = c->nlast}};
    if (c->handed && ddz_event_equal(&a, &b))
        return;
    room_set *set = malloc(sizeof *set + n * sizeof set->rooms[0]);
    if (!set)
        return;
    set->n = n;
    if (n) {
        memcpy(set->rooms, rooms, n * sizeof *rooms);
        memcpy(c->last, rooms, n * sizeof *rooms);
    }
    c->nlast = n;
    c->handed = true;
    /* only the newest set matters: one the thread has not taken yet goes;
     * the replace wakes the thread through the pipe */
    sets_free(ddz_mailbox_replace(c->pub, &set->mail));
}

ddz_cluster_view ddz_cluster_view_get(ddz_cluster *c)
{
    view_buf *newer = DDZ_MAIL_ITEM(ddz_mailbox_get(c->views), view_buf, mail);
    if (newer) {
        view_free(c->cur);
        c->cur = newer;
    }
    ddz_cluster_view v = {0};
    if (c->cur)
        v = (ddz_cluster_view){.rooms = c->cur->rooms,
                               .nrooms = c->cur->nrooms,
                               .nodes = c->cur->nodes,
                               .nnodes = c->cur->nnodes,
                               .connected = c->cur->connected};
    return v;
}

const char *ddz_cluster_node_url(ddz_cluster *c, const char *node)
{
    ddz_cluster_view v = ddz_cluster_view_get(c);
    for (size_t i = 0; i < v.nnodes; i++)
        if (strcmp(v.nodes[i].id, node) == 0)
            return v.nodes[i].url;
    return NULL;
}

void ddz_cluster_stop(ddz_cluster *c)
{
    if (!c)
        return;
    /* the round under way ends within the grace, and so does the goodbye
     * below: a database that does not answer drops the session, and the
     * statements after it fail at once (no reconnection here) */
    ddz_pg_stop_now(c->stop);
    ddz_mailbox_close(c->pub, DDZ_MAILBOX_DROP); /* wakes the thread through the pipe */
    pthread_join(c->thread, NULL);
    const char *me[] = {c->node};
    if (PQstatus(c->pg) == CONNECTION_OK)
        /* one round trip: the rooms, the node, and the others told */
        exec(c,
             "WITH r AS (DELETE FROM cluster_rooms WHERE node = $1), n AS (DELETE FROM "
             "cluster_nodes WHERE id = $1) SELECT pg_notify('" DDZ_CLUSTER_CHANNEL "', $1)",
             1, me, NULL);
    PQfinish(c->pg);
    ddz_pg_stop_fini(&c->own_stop);
    forget_written(c);
    free(c->mine);
    sets_free(ddz_mailbox_get_all(c->pub));
    views_free(ddz_mailbox_get_all(c->views));
    view_free(c->cur);
    ddz_mailbox_destroy(c->pub);
    ddz_mailbox_destroy(c->views);
    free(c);
}
