/* ladder_net.c - the ladder across nodes (ladder_net.h): presence,
 * the leader's scheduling, hosts' results in one transaction. */
#include "service/cluster/ladder_net.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/ladder/schedule.h"
#include "service/thread/mailbox.h"

#define NAME DDZ_LADDER_NAME_MAX
#define MAXP DDZ_SCHEDULE_MAX
/* Rounds a result (or a suspension) is retried on failures before it is
 * given up; a result given up is dropped instead (write_requests()). A
 * round in which the database could not be reached does not count. */
#define DONE_TRIES 20

enum req_kind { R_DONE = 1, R_DROP, R_SUSPEND };

typedef struct req {
    int kind; /* enum req_kind */
    int tries;
    ddz_ladder_net_result res; /* R_DONE; R_DROP: res.deal */
    char name[NAME];           /* R_SUSPEND */
    char reason[160];
    ddz_mail mail; /* the queue's link */
} req;

typedef struct told_move {
    char name[NAME];
    long long at; /* the order's time (unix ms): a new order is told again */
} told_move;

struct ddz_ladder_net {
    ddz_ladder_net_cfg cfg;
    char rules[64];
    char node[32];
    char fixed[DDZ_LADDER_NET_FIXED][NAME];
    ddz_mailbox *reqs; /* the loop's requests, for the lead thread */
    ddz_mailbox *out;  /* messages for the loop */
    pthread_mutex_t mu;
    /* guarded by mu: */
    char (*present)[NAME]; /* [MAXP] */
    int npresent;
    /* the lead thread's own: */
    bool schema;
    int64_t *handed; /* deals given to the loop, not yet done or dropped */
    int nhanded, cap_handed;
    ddz_store_ladder_player *seen; /* [MAXP] standings as last told */
    int nseen;
    int64_t hist_after; /* history rows told: ids up to this */
    unsigned long round;
    char home[32];   /* the leader's: where it gathers the bots, "" before it chose */
    told_move *told; /* [MAXP] move orders handed to the loop (each once) */
    int ntold;
};

/* ---- small helpers ---- */

static int64_t now_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void push_msg(ddz_ladder_net *n, ddz_ladder_net_msg *m)
{
    ddz_mailbox_put(n->out, &m->mail); /* unbounded, never closed */
}

static void note(ddz_ladder_net *n, const char *fmt, const char *a, const char *b)
{
    ddz_ladder_net_msg *m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->kind = DDZ_LADDER_NET_NOTE;
    snprintf(m->note, sizeof m->note, fmt, a ? a : "", b ? b : "");
    char *nl = strchr(m->note, '\n');
    if (nl)
        *nl = '\0';
    push_msg(n, m);
}

/* Runs `sql`; returns the result or NULL (told as a note). */
static PGresult *q(ddz_ladder_net *n, PGconn *pg, const char *sql, int np, const char *const *p,
                   ExecStatusType want)
{
    PGresult *r = PQexecParams(pg, sql, np, NULL, p, NULL, NULL, 0);
    if (r && PQresultStatus(r) == want)
        return r;
    note(n, "ladder (cluster): %s", r ? PQresultErrorMessage(r) : PQerrorMessage(pg), NULL);
    PQclear(r);
    return NULL;
}

static bool cmd(ddz_ladder_net *n, PGconn *pg, const char *sql, int np, const char *const *p)
{
    PGresult *r = q(n, pg, sql, np, p, PGRES_COMMAND_OK);
    PQclear(r);
    return r != NULL;
}

static void rollback(PGconn *pg)
{
    PQclear(PQexec(pg, "ROLLBACK"));
}

/* Writes `names` as a PostgreSQL text array literal ({"a","b"}) to a new
 * string (NULL when out of memory). */
static char *array_lit(const char (*names)[NAME], int count)
{
    size_t cap = 3 + (size_t)count * (2 * NAME + 3), k = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[k++] = '{';
    for (int i = 0; i < count; i++) {
        if (i)
            s[k++] = ',';
        s[k++] = '"';
        for (const char *c = names[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                s[k++] = '\\';
            s[k++] = *c;
        }
        s[k++] = '"';
    }
    s[k++] = '}';
    s[k] = '\0';
    return s;
}

/* ---- schema ---- */

#define STR_(x) #x
#define STR(x) STR_(x)

static const char *const schema_sql =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(7205759403792793601);"
    "CREATE TABLE IF NOT EXISTS cluster_ladder_presence(rules TEXT NOT NULL, name TEXT NOT NULL,"
    " node TEXT NOT NULL, since TIMESTAMPTZ NOT NULL, PRIMARY KEY(rules, name));"
    "CREATE TABLE IF NOT EXISTS cluster_ladder_deals(id BIGSERIAL PRIMARY KEY, rules TEXT NOT NULL,"
    " node TEXT NOT NULL, scheduled_by TEXT NOT NULL, p1 TEXT NOT NULL, p2 TEXT NOT NULL,"
    " p3 TEXT NOT NULL, state TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL,"
    " done_at TIMESTAMPTZ, game1 BIGINT, game2 BIGINT, game3 BIGINT);"
    "CREATE TABLE IF NOT EXISTS cluster_ladder_moves(rules TEXT NOT NULL, name TEXT NOT NULL,"
    " from_node TEXT NOT NULL, to_node TEXT NOT NULL, url TEXT NOT NULL,"
    " at TIMESTAMPTZ NOT NULL, PRIMARY KEY(rules, name));"
    "CREATE INDEX IF NOT EXISTS cluster_ladder_deals_open ON cluster_ladder_deals(rules, node)"
    " WHERE state = 'assigned';"
    "COMMIT;";

/* ---- the loop's side ---- */

ddz_ladder_net *ddz_ladder_net_create(const ddz_ladder_net_cfg *cfg, char *err, size_t errlen)
{
    if (!cfg || !cfg->rules || !cfg->node || cfg->nfixed < 0 ||
        cfg->nfixed > DDZ_LADDER_NET_FIXED || cfg->tables < 1 || cfg->pair_slack < 0 ||
        cfg->move_wait_ms < 0) {
        snprintf(err, errlen, "ladder (cluster): bad configuration");
        return NULL;
    }
    ddz_ladder_net *n = calloc(1, sizeof *n);
    if (n) {
        n->present = calloc(MAXP, sizeof *n->present);
        n->seen = calloc(MAXP, sizeof *n->seen);
        n->told = calloc(MAXP, sizeof *n->told);
        n->reqs = ddz_mailbox_create(0, false);
        n->out = ddz_mailbox_create(0, false);
    }
    if (!n || !n->present || !n->seen || !n->told || !n->reqs || !n->out) {
        if (n) {
            free(n->present), free(n->seen), free(n->told);
            ddz_mailbox_destroy(n->reqs);
            ddz_mailbox_destroy(n->out);
        }
        free(n);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->cfg = *cfg;
    if (!n->cfg.move_wait_ms)
        n->cfg.move_wait_ms = DDZ_LADDER_NET_MOVE_WAIT_MS;
    snprintf(n->rules, sizeof n->rules, "%s", cfg->rules);
    snprintf(n->node, sizeof n->node, "%s", cfg->node);
    for (int i = 0; i < cfg->nfixed; i++)
        snprintf(n->fixed[i], sizeof n->fixed[i], "%s", cfg->fixed[i]);
    pthread_mutex_init(&n->mu, NULL);
    return n;
}

void ddz_ladder_net_present(ddz_ladder_net *n, const char *const *names, int count)
{
    pthread_mutex_lock(&n->mu);
    n->npresent = 0;
    for (int i = 0; i < count && i < MAXP; i++)
        snprintf(n->present[n->npresent++], NAME, "%s", names[i]);
    pthread_mutex_unlock(&n->mu);
}

static int push_req(ddz_ladder_net *n, req *r)
{
    return ddz_mailbox_put(n->reqs, &r->mail); /* 0: unbounded, never closed */
}

int ddz_ladder_net_done(ddz_ladder_net *n, const ddz_ladder_net_result *res)
{
    req *r = calloc(1, sizeof *r);
    if (!r)
        return DDZ_ENOMEM;
    r->kind = R_DONE;
    r->res = *res;
    return push_req(n, r);
}

int ddz_ladder_net_drop(ddz_ladder_net *n, int64_t deal)
{
    req *r = calloc(1, sizeof *r);
    if (!r)
        return DDZ_ENOMEM;
    r->kind = R_DROP;
    r->res.deal = deal;
    return push_req(n, r);
}

int ddz_ladder_net_suspend(ddz_ladder_net *n, const char *name, const char *reason)
{
    req *r = calloc(1, sizeof *r);
    if (!r)
        return DDZ_ENOMEM;
    r->kind = R_SUSPEND;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    return push_req(n, r);
}

ddz_ladder_net_msg *ddz_ladder_net_next(ddz_ladder_net *n)
{
    return DDZ_MAIL_ITEM(ddz_mailbox_get(n->out), ddz_ladder_net_msg, mail);
}

void ddz_ladder_net_destroy(ddz_ladder_net *n)
{
    if (!n)
        return;
    for (ddz_mail *m = ddz_mailbox_get_all(n->reqs), *next; m; m = next) {
        next = m->next;
        free(DDZ_MAIL_ITEM(m, req, mail));
    }
    ddz_ladder_net_msg *m;
    while ((m = ddz_ladder_net_next(n)))
        free(m);
    ddz_mailbox_destroy(n->reqs);
    ddz_mailbox_destroy(n->out);
    pthread_mutex_destroy(&n->mu);
    free(n->present);
    free(n->seen);
    free(n->told);
    free(n->handed);
    free(n);
}

/* ---- the lead thread's side ---- */

static void unhand(ddz_ladder_net *n, int64_t deal)
{
    for (int i = 0; i < n->nhanded; i++)
        if (n->handed[i] == deal) {
            n->handed[i] = n->handed[--n->nhanded];
            return;
        }
}

static bool handed(const ddz_ladder_net *n, int64_t deal)
{
    for (int i = 0; i < n->nhanded; i++)
        if (n->handed[i] == deal)
            return true;
    return false;
}

/* Publishes this node's present bots. */
static void publish_presence(ddz_ladder_net *n, PGconn *pg)
{
    pthread_mutex_lock(&n->mu);
    char *arr = array_lit((const char(*)[NAME])n->present, n->npresent);
    pthread_mutex_unlock(&n->mu);
    if (!arr)
        return;
    const char *p[] = {n->rules, n->node, arr};
    cmd(n, pg,
        "INSERT INTO cluster_ladder_presence(rules, name, node, since)"
        " SELECT $1, x, $2, now() FROM unnest($3::text[]) x"
        " ON CONFLICT (rules, name) DO UPDATE SET node = EXCLUDED.node, since ="
        " CASE WHEN cluster_ladder_presence.node = EXCLUDED.node"
        " THEN cluster_ladder_presence.since ELSE EXCLUDED.since END",
        3, p);
    cmd(n, pg,
        "DELETE FROM cluster_ladder_presence WHERE rules = $1 AND node = $2"
        " AND NOT (name = ANY($3::text[]))",
        3, p);
    free(arr);
}

static void fmt_d(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.17g", v);
}

/* Records a played deal: returns 1 recorded, 0 not (dropped meanwhile, or
 * now because it cannot be rated: nothing else written), -1 failed (try
 * again). */
static int record(ddz_ladder_net *n, PGconn *pg, const ddz_ladder_net_result *res)
{
    char deal[24];
    snprintf(deal, sizeof deal, "%lld", (long long)res->deal);
    if (!cmd(n, pg, "BEGIN", 0, NULL))
        return -1;
    /* One recording at a time in the whole cluster, taken first (before any
     * row lock, so nothing waits in the other order): the history ids this
     * transaction draws are then above every id committed before it and
     * below every id committed after it, so the other nodes' tail of the
     * history (tail_history) never passes a row still to come. Recordings
     * are a few a second at most and short. */
    PGresult *lk = q(n, pg, "SELECT pg_advisory_xact_lock(" STR(DDZ_LADDER_NET_HIST_LOCK) ")", 0,
                     NULL, PGRES_TUPLES_OK);
    if (!lk) {
        rollback(pg);
        return -1;
    }
    PQclear(lk);
    const char *pd[] = {deal};
    PGresult *r = q(n, pg, "SELECT state, node FROM cluster_ladder_deals WHERE id = $1 FOR UPDATE",
                    1, pd, PGRES_TUPLES_OK);
    if (!r) {
        rollback(pg);
        return -1;
    }
    bool mine = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "assigned") == 0 &&
                strcmp(PQgetvalue(r, 0, 1), n->node) == 0;
    PQclear(r);
    if (!mine) {
        rollback(pg);
        return 0;
    }
    ddz_rating fresh = ddz_rating_new(&n->cfg.rc);
    char mu0[32], sg0[32], now[24];
    fmt_d(mu0, sizeof mu0, fresh.mu);
    fmt_d(sg0, sizeof sg0, fresh.sigma);
    snprintf(now, sizeof now, "%lld", (long long)now_unix_ms());
    /* Lock the three standings in name order (two hosts sharing an AI
     * then wait for each other instead of deadlocking). */
    int order[3] = {0, 1, 2};
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (strcmp(res->names[order[b]], res->names[order[a]]) < 0) {
                int t = order[a];
                order[a] = order[b], order[b] = t;
            }
    ddz_store_ladder_player st[3];
    ddz_rating rt[3];
    for (int o = 0; o < 3; o++) {
        int k = order[o];
        const char *p[] = {n->rules, res->names[k], mu0, sg0, now};
        if (!cmd(n, pg,
                 "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score, faults,"
                 " suspended, updated_at) VALUES($1, $2, $3::float8, $4::float8, 0, 0, 0, 0, NULL,"
                 " $5::bigint) ON CONFLICT (rules, name) DO NOTHING",
                 5, p)) {
            rollback(pg);
            return -1;
        }
        const char *p2[] = {n->rules, res->names[k]};
        r = q(n, pg,
              "SELECT mu, sigma, games, deals, score, faults, coalesce(suspended, '')"
              " FROM ladder_players WHERE rules = $1 AND name = $2 FOR UPDATE",
              2, p2, PGRES_TUPLES_OK);
        if (!r || PQntuples(r) != 1) {
            PQclear(r);
            rollback(pg);
            return -1;
        }
        ddz_store_ladder_player *s = &st[k];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", res->names[k]);
        s->mu = atof(PQgetvalue(r, 0, 0));
        s->sigma = atof(PQgetvalue(r, 0, 1));
        s->games = atol(PQgetvalue(r, 0, 2));
        s->deals = atol(PQgetvalue(r, 0, 3));
        s->score = atof(PQgetvalue(r, 0, 4));
        s->faults = atol(PQgetvalue(r, 0, 5));
        snprintf(s->suspended, sizeof s->suspended, "%s", PQgetvalue(r, 0, 6));
        PQclear(r);
        rt[k] = (ddz_rating){.mu = s->mu, .sigma = s->sigma};
        if (!(rt[k].sigma > 0))
            rt[k] = fresh;
    }
    if (ddz_rating_update(&n->cfg.rc, rt, res->score, 3) < 0) {
        /* It never will be: dropped (the row is still locked, ours and
         * assigned), so that its participants are free again and the deal
         * is not handed to the loop again (a row left assigned would be). */
        rollback(pg);
        const char *pdrop[] = {deal, n->node};
        if (!cmd(n, pg, "BEGIN", 0, NULL))
            return -1;
        if (!cmd(n, pg,
                 "UPDATE cluster_ladder_deals SET state = 'dropped', done_at = now()"
                 " WHERE id = $1 AND node = $2 AND state = 'assigned'",
                 2, pdrop) ||
            !cmd(n, pg, "COMMIT", 0, NULL)) {
            rollback(pg);
            return -1;
        }
        note(n, "ladder (cluster): deal %s could not be rated: dropped", deal, NULL);
        return 0;
    }
    for (int k = 0; k < 3; k++) {
        ddz_store_ladder_player *s = &st[k];
        s->mu = rt[k].mu, s->sigma = rt[k].sigma;
        s->games += 3;
        s->deals++;
        s->score = ddz_score_add(s->score, res->score[k]);
        s->faults += res->faults[k];
        char mu[32], sg[32], games[24], deals[24], score[32], faults[24], dscore[32], df[16];
        char g[3][24];
        fmt_d(mu, sizeof mu, s->mu);
        fmt_d(sg, sizeof sg, s->sigma);
        snprintf(games, sizeof games, "%ld", s->games);
        snprintf(deals, sizeof deals, "%ld", s->deals);
        fmt_d(score, sizeof score, s->score);
        snprintf(faults, sizeof faults, "%ld", s->faults);
        fmt_d(dscore, sizeof dscore, res->score[k]);
        snprintf(df, sizeof df, "%d", res->faults[k]);
        for (int i = 0; i < 3; i++)
            snprintf(g[i], sizeof g[i], "%lld", (long long)res->games[i]);
        const char *pu[] = {n->rules, s->name, mu, sg, games, deals, score, faults, now};
        const char *ph[] = {n->rules,
                            s->name,
                            now,
                            mu,
                            sg,
                            dscore,
                            df,
                            g[0],
                            g[1],
                            g[2],
                            res->names[(k + 1) % 3],
                            res->names[(k + 2) % 3]};
        if (!cmd(n, pg,
                 "UPDATE ladder_players SET mu = $3::float8, sigma = $4::float8,"
                 " games = $5::bigint, deals = $6::bigint, score = $7::float8,"
                 " faults = $8::bigint, updated_at = $9::bigint WHERE rules = $1 AND name = $2",
                 9, pu) ||
            !cmd(n, pg,
                 "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score, faults,"
                 " game1, game2, game3, opp1, opp2) VALUES($1, $2, $3::bigint, $4::float8,"
                 " $5::float8, $6::float8, $7::int, $8::bigint, $9::bigint, $10::bigint, $11, $12)",
                 12, ph)) {
            rollback(pg);
            return -1;
        }
        const char *a = res->names[k], *b = res->names[(k + 1) % 3];
        if (strcmp(a, b) > 0) {
            const char *t = a;
            a = b, b = t;
        }
        const char *pp[] = {n->rules, a, b};
        if (!cmd(n, pg,
                 "INSERT INTO ladder_pairs(rules, a, b, deals) VALUES($1, $2, $3, 1)"
                 " ON CONFLICT (rules, a, b) DO UPDATE SET deals = ladder_pairs.deals + 1",
                 3, pp)) {
            rollback(pg);
            return -1;
        }
    }
    char g[3][24];
    for (int i = 0; i < 3; i++)
        snprintf(g[i], sizeof g[i], "%lld", (long long)res->games[i]);
    const char *pe[] = {deal, g[0], g[1], g[2]};
    if (!cmd(n, pg,
             "UPDATE cluster_ladder_deals SET state = 'done', done_at = now(),"
             " game1 = $2::bigint, game2 = $3::bigint, game3 = $4::bigint WHERE id = $1",
             4, pe) ||
        !cmd(n, pg, "COMMIT", 0, NULL)) {
        rollback(pg);
        return -1;
    }
    return 1;
}

/* Writes what the loop queued. Failed results stay queued (bounded). */
static void write_requests(ddz_ladder_net *n, PGconn *pg)
{
    ddz_mail *list = ddz_mailbox_get_all(n->reqs);
    ddz_mail *again = NULL, **last = &again;
    while (list) {
        req *r = DDZ_MAIL_ITEM(list, req, mail);
        list = list->next;
        int rc = 1;
        char deal[24];
        snprintf(deal, sizeof deal, "%lld", (long long)r->res.deal);
        if (r->kind == R_DONE) {
            rc = record(n, pg, &r->res);
            if (rc == 0)
                note(n, "ladder (cluster): deal %s is dropped: not recorded", deal, NULL);
            /* A round without the database is no try: the result waits
             * for it (bounded: one per deal handed to this node), as the
             * store's journal keeps the deal's games meanwhile. */
            if (rc < 0 && PQstatus(pg) == CONNECTION_OK && ++r->tries >= DONE_TRIES) {
                /* Given up: the row is dropped instead (tried below, then
                 * every round until written). The deal stays handed until
                 * then: a row still assigned here is never played again. */
                note(n, "ladder (cluster): deal %s could not be recorded: dropped", deal, NULL);
                r->kind = R_DROP;
                r->tries = 0;
            }
        }
        if (r->kind == R_DROP) {
            const char *p[] = {deal, n->node};
            rc = cmd(n, pg,
                     "UPDATE cluster_ladder_deals SET state = 'dropped', done_at = now()"
                     " WHERE id = $1 AND node = $2 AND state = 'assigned'",
                     2, p)
                     ? 1
                     : -1;
        } else if (r->kind == R_SUSPEND) {
            ddz_rating fresh = ddz_rating_new(&n->cfg.rc);
            char mu0[32], sg0[32], now[24];
            fmt_d(mu0, sizeof mu0, fresh.mu);
            fmt_d(sg0, sizeof sg0, fresh.sigma);
            snprintf(now, sizeof now, "%lld", (long long)now_unix_ms());
            const char *p[] = {n->rules, r->name, mu0, sg0, r->reason, now};
            rc = cmd(n, pg,
                     "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score,"
                     " faults, suspended, updated_at) VALUES($1, $2, $3::float8, $4::float8, 0,"
                     " 0, 0, 0, NULLIF($5, ''), $6::bigint) ON CONFLICT (rules, name) DO UPDATE"
                     " SET suspended = NULLIF($5, ''), updated_at = $6::bigint",
                     6, p)
                     ? 1
                     : -1;
        }
        /* A drop is tried until it is written (bounded: one per deal this
         * node was handed); a suspension is given up after DONE_TRIES. */
        if (rc >= 0 ||
            (r->kind == R_SUSPEND && PQstatus(pg) == CONNECTION_OK && ++r->tries >= DONE_TRIES)) {
            if (rc < 0)
                note(n, "ladder (cluster): the suspension of %s could not be written: given up",
                     r->name, NULL);
            if (r->kind != R_SUSPEND)
                unhand(n, r->res.deal);
            free(r);
        } else {
            *last = &r->mail;
            last = &r->mail.next;
        }
    }
    *last = NULL;
    ddz_mailbox_put_front(n->reqs, again); /* before what was queued meanwhile */
}

/* ---- the leader ---- */

typedef struct cand {
    char name[NAME];
    char node[32]; /* "" for a fixed participant */
    double mu;
    long deals;
    bool busy, suspended;
    bool moving; /* ordered home, not there yet: in no deal meanwhile */
} cand;

static int cand_find(const cand *c, int nc, const char *name)
{
    for (int i = 0; i < nc; i++)
        if (strcmp(c[i].name, name) == 0)
            return i;
    return -1;
}

/* Adds node `node` to nodes[0..*nn) (at most MAXP); returns its index
 * or -1 when full. */
static int node_index(char (*nodes)[32], int *nn, const char *node)
{
    int g = 0;
    while (g < *nn && strcmp(nodes[g], node) != 0)
        g++;
    if (g == *nn) {
        if (*nn >= MAXP)
            return -1;
        snprintf(nodes[(*nn)++], 32, "%s", node);
    }
    return g;
}

/* The leader gathers the bots on one node, so that every bot can meet
 * every other (ladder_net.h): chooses HOME, orders idle bots elsewhere to
 * move there and marks the bots on their way (`moving`). Part of the
 * leader's transaction. Returns false on a failed statement. */
static bool gather(ddz_ladder_net *n, PGconn *pg, const char *live, cand *c, int nc)
{
    /* An order ends when its bot is home, when the node it was to leave
     * is gone, or after the cooldown: until then a bot that did not get
     * there (home unreachable from it) or came back is not asked again. */
    char cool[24];
    snprintf(cool, sizeof cool, "%lld", (long long)n->cfg.move_wait_ms * DDZ_LADDER_NET_COOLDOWN);
    const char *pd[] = {n->rules, cool, live};
    if (!cmd(n, pg,
             "DELETE FROM cluster_ladder_moves m WHERE m.rules = $1 AND (EXISTS (SELECT 1"
             " FROM cluster_ladder_presence p WHERE p.rules = m.rules AND p.name = m.name"
             " AND p.node = m.to_node) OR m.at < now() - $2::bigint * interval '1 millisecond'"
             " OR NOT (m.from_node = ANY($3::text[])))",
             3, pd))
        return false;
    if (!n->home[0]) {
        /* a new leader: the home its predecessor chose is where its orders
         * point (so that a tie does not swap bots between two nodes) */
        const char *p1[] = {n->rules};
        PGresult *r = q(n, pg,
                        "SELECT to_node FROM cluster_ladder_moves WHERE rules = $1"
                        " GROUP BY to_node ORDER BY count(*) DESC, to_node LIMIT 1",
                        1, p1, PGRES_TUPLES_OK);
        if (!r)
            return false;
        if (PQntuples(r) == 1)
            snprintf(n->home, sizeof n->home, "%s", PQgetvalue(r, 0, 0));
        PQclear(r);
    }
    char nodes[MAXP][32];
    int count[MAXP] = {0}, nn = 0;
    for (int i = 0; i < nc; i++) {
        int g = c[i].node[0] && !c[i].suspended ? node_index(nodes, &nn, c[i].node) : -1;
        if (g >= 0)
            count[g]++;
    }
    int home = -1;
    for (int g = 0; g < nn; g++) {
        if (home < 0 || count[g] > count[home]) {
            home = g;
            continue;
        }
        /* a tie: the home chosen before stays; else the lowest id */
        bool was = strcmp(nodes[g], n->home) == 0, home_was = strcmp(nodes[home], n->home) == 0;
        if (count[g] == count[home] && !home_was && (was || strcmp(nodes[g], nodes[home]) < 0))
            home = g;
    }
    if (home < 0)
        return true; /* no bots: the home chosen before stays */
    snprintf(n->home, sizeof n->home, "%s", nodes[home]);
    const char *ph[] = {n->rules, n->home};
    if (!cmd(n, pg, "DELETE FROM cluster_ladder_moves WHERE rules = $1 AND to_node <> $2", 2, ph))
        return false; /* orders to a home given up */
    if (nn < 2)
        return true;
    char job[48];
    snprintf(job, sizeof job, "node:%s", n->home);
    const char *pj[] = {job};
    PGresult *r =
        q(n, pg, "SELECT public_url FROM cluster_leaders WHERE job = $1", 1, pj, PGRES_TUPLES_OK);
    if (!r)
        return false;
    char url[DDZ_LADDER_NET_URL] = "";
    if (PQntuples(r) == 1)
        snprintf(url, sizeof url, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!url[0])
        return true; /* nowhere to send them */
    char wait[24];
    snprintf(wait, sizeof wait, "%d", n->cfg.move_wait_ms);
    const char *p2[] = {n->rules, wait};
    r = q(n, pg,
          "SELECT name, from_node, to_node, at > now() - $2::bigint * interval '1 millisecond'"
          " FROM cluster_ladder_moves WHERE rules = $1",
          2, p2, PGRES_TUPLES_OK);
    if (!r)
        return false;
    for (int i = 0; i < nc; i++) {
        if (!c[i].node[0] || strcmp(c[i].node, n->home) == 0)
            continue;
        int row = -1;
        for (int k = 0; k < PQntuples(r) && row < 0; k++)
            if (strcmp(PQgetvalue(r, k, 0), c[i].name) == 0)
                row = k;
        if (row >= 0 && strcmp(PQgetvalue(r, row, 2), n->home) == 0) {
            /* on its way (still where it was told to leave, within the
             * wait); else it stayed, or came back, or went elsewhere: it
             * plays where it is, and is not asked again before the
             * cooldown */
            c[i].moving =
                strcmp(PQgetvalue(r, row, 1), c[i].node) == 0 && PQgetvalue(r, row, 3)[0] == 't';
            continue;
        }
        if (c[i].busy || c[i].suspended)
            continue; /* ordered once idle */
        const char *pm[] = {n->rules, c[i].name, c[i].node, n->home, url};
        if (!cmd(n, pg,
                 "INSERT INTO cluster_ladder_moves(rules, name, from_node, to_node, url, at)"
                 " VALUES($1, $2, $3, $4, $5, now()) ON CONFLICT (rules, name) DO UPDATE SET"
                 " from_node = EXCLUDED.from_node, to_node = EXCLUDED.to_node,"
                 " url = EXCLUDED.url, at = EXCLUDED.at",
                 5, pm)) {
            PQclear(r);
            return false;
        }
        c[i].moving = true;
    }
    PQclear(r);
    return true;
}

/* The leader's round: forget dead nodes, then schedule. One transaction:
 * it commits only while this session holds the ladder's lock. */
static void schedule(ddz_ladder_net *n, PGconn *pg)
{
    if (!cmd(n, pg, "BEGIN", 0, NULL))
        return;
    const char *p1[] = {n->rules};
    PGresult *r = q(n, pg,
                    "SELECT coalesce(array_agg(substr(c.job, 6)), '{}') FROM cluster_leaders c"
                    " WHERE c.job LIKE 'node:%' AND EXISTS (SELECT 1 FROM pg_locks k"
                    " WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1"
                    " AND k.pid = c.pid AND k.classid::bigint = (c.lock_key >> 32) & 4294967295"
                    " AND k.objid::bigint = c.lock_key & 4294967295)",
                    0, NULL, PGRES_TUPLES_OK);
    if (!r) {
        rollback(pg);
        return;
    }
    char *live = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    cand *c = calloc(MAXP, sizeof *c);
    long *pairs = calloc((size_t)MAXP * MAXP, sizeof *pairs);
    int nc = 0;
    if (!live || !c || !pairs)
        goto out;
    const char *p2[] = {n->rules, live};
    r = q(n, pg,
          "UPDATE cluster_ladder_deals SET state = 'dropped', done_at = now()"
          " WHERE rules = $1 AND state = 'assigned' AND NOT (node = ANY($2::text[]))"
          " RETURNING id, node",
          2, p2, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r); i++)
        note(n, "ladder (cluster): deal %s dropped: its node %s is gone", PQgetvalue(r, i, 0),
             PQgetvalue(r, i, 1));
    PQclear(r);
    if (!cmd(n, pg,
             "DELETE FROM cluster_ladder_presence WHERE rules = $1"
             " AND NOT (node = ANY($2::text[]))",
             2, p2))
        goto out;
    for (int i = 0; i < n->cfg.nfixed; i++) {
        snprintf(c[nc].name, NAME, "%s", n->fixed[i]);
        nc++;
    }
    r = q(n, pg, "SELECT name, node FROM cluster_ladder_presence WHERE rules = $1 ORDER BY name", 1,
          p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r) && nc < MAXP; i++) {
        if (cand_find(c, nc, PQgetvalue(r, i, 0)) >= 0)
            continue;
        snprintf(c[nc].name, NAME, "%s", PQgetvalue(r, i, 0));
        snprintf(c[nc].node, sizeof c[nc].node, "%s", PQgetvalue(r, i, 1));
        nc++;
    }
    PQclear(r);
    ddz_rating fresh = ddz_rating_new(&n->cfg.rc);
    for (int i = 0; i < nc; i++)
        c[i].mu = fresh.mu;
    r = q(n, pg,
          "SELECT name, mu, deals, suspended IS NOT NULL FROM ladder_players WHERE rules = $1", 1,
          p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        int k = cand_find(c, nc, PQgetvalue(r, i, 0));
        if (k < 0)
            continue;
        c[k].mu = atof(PQgetvalue(r, i, 1));
        c[k].deals = atol(PQgetvalue(r, i, 2));
        c[k].suspended = PQgetvalue(r, i, 3)[0] == 't';
    }
    PQclear(r);
    r = q(n, pg, "SELECT a, b, deals FROM ladder_pairs WHERE rules = $1", 1, p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        int a = cand_find(c, nc, PQgetvalue(r, i, 0)), b = cand_find(c, nc, PQgetvalue(r, i, 1));
        if (a >= 0 && b >= 0)
            pairs[a * nc + b] = pairs[b * nc + a] = atol(PQgetvalue(r, i, 2));
    }
    PQclear(r);
    /* busy participants, and deals in flight per node */
    char nodes[MAXP + 1][32];
    int inflight[MAXP + 1] = {0}, nn = 0;
    r = q(n, pg,
          "SELECT p1, p2, p3, node FROM cluster_ladder_deals WHERE rules = $1"
          " AND state = 'assigned'",
          1, p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        for (int k = 0; k < 3; k++) {
            int x = cand_find(c, nc, PQgetvalue(r, i, k));
            if (x >= 0)
                c[x].busy = true;
        }
        const char *node = PQgetvalue(r, i, 3);
        int g = 0;
        while (g < nn && strcmp(nodes[g], node) != 0)
            g++;
        if (g == nn && nn <= MAXP)
            snprintf(nodes[nn++], sizeof nodes[0], "%s", node);
        if (g < nn)
            inflight[g]++;
    }
    PQclear(r);
    if (!gather(n, pg, live, c, nc))
        goto out;
    /* the groups: every node with bots present, and this one */
    char groups[MAXP + 1][32];
    int ng = 0;
    snprintf(groups[ng++], sizeof groups[0], "%s", n->node);
    for (int i = 0; i < nc; i++) {
        if (!c[i].node[0])
            continue;
        int g = 0;
        while (g < ng && strcmp(groups[g], c[i].node) != 0)
            g++;
        if (g == ng && ng <= MAXP)
            snprintf(groups[ng++], sizeof groups[0], "%s", c[i].node);
    }
    int made = 0;
    for (int gi = 0; gi < ng; gi++) {
        /* a different node first every round: the AIs are shared */
        const char *node = groups[(gi + n->round) % (unsigned long)ng];
        int f = 0;
        while (f < nn && strcmp(nodes[f], node) != 0)
            f++;
        int cap = n->cfg.tables - (f < nn ? inflight[f] : 0);
        if (cap <= 0)
            continue;
        ddz_sched_player sp[MAXP];
        for (int i = 0; i < nc; i++)
            sp[i] =
                (ddz_sched_player){.mu = c[i].mu,
                                   .deals = c[i].deals,
                                   .available = !c[i].busy && !c[i].suspended && !c[i].moving &&
                                                (!c[i].node[0] || strcmp(c[i].node, node) == 0)};
        int out[64][3];
        ddz_sched_in in = {.p = sp,
                           .n = nc,
                           .pairs = pairs,
                           .max_tables = cap < 64 ? cap : 64,
                           .pair_slack = n->cfg.pair_slack};
        int nt = ddz_schedule(&in, out);
        for (int t = 0; t < nt; t++) {
            /* fixed participants only: any node can host; this one does */
            bool bots = false;
            for (int k = 0; k < 3; k++)
                bots |= c[out[t][k]].node[0] != '\0';
            if (!bots && strcmp(node, n->node) != 0)
                continue;
            const char *pi[] = {
                n->rules, node, n->node, c[out[t][0]].name, c[out[t][1]].name, c[out[t][2]].name};
            if (!cmd(n, pg,
                     "INSERT INTO cluster_ladder_deals(rules, node, scheduled_by, p1, p2, p3,"
                     " state, created_at) VALUES($1, $2, $3, $4, $5, $6, 'assigned', now())",
                     6, pi))
                goto out;
            for (int k = 0; k < 3; k++)
                c[out[t][k]].busy = true;
            made++;
        }
    }
    cmd(n, pg, "COMMIT", 0, NULL);
    goto done;
out:
    rollback(pg);
done:
    (void)made;
    free(live);
    free(c);
    free(pairs);
}

/* ---- the host and the views ---- */

/* Hands this node's new deals to the loop. */
static bool fetch_deals(ddz_ladder_net *n, PGconn *pg)
{
    const char *p[] = {n->rules, n->node};
    PGresult *r = q(n, pg,
                    "SELECT id, p1, p2, p3 FROM cluster_ladder_deals WHERE rules = $1"
                    " AND node = $2 AND state = 'assigned' ORDER BY id",
                    2, p, PGRES_TUPLES_OK);
    if (!r)
        return false;
    bool any = false;
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t id = atoll(PQgetvalue(r, i, 0));
        if (handed(n, id))
            continue;
        if (n->nhanded == n->cap_handed) {
            int cap = n->cap_handed ? 2 * n->cap_handed : 16;
            int64_t *h = realloc(n->handed, (size_t)cap * sizeof *h);
            if (!h)
                break;
            n->handed = h, n->cap_handed = cap;
        }
        ddz_ladder_net_msg *m = calloc(1, sizeof *m);
        if (!m)
            break;
        m->kind = DDZ_LADDER_NET_PLAY;
        m->deal = id;
        for (int k = 0; k < 3; k++)
            snprintf(m->names[k], NAME, "%s", PQgetvalue(r, i, 1 + k));
        n->handed[n->nhanded++] = id;
        push_msg(n, m);
        any = true;
    }
    PQclear(r);
    return any;
}

static bool same_standing(const ddz_store_ladder_player *a, const ddz_store_ladder_player *b)
{
    return a->mu == b->mu && a->sigma == b->sigma && a->games == b->games && a->deals == b->deals &&
           a->score == b->score && a->faults == b->faults &&
           strcmp(a->suspended, b->suspended) == 0;
}

/* Tells the loop the standings that changed. */
static bool tail_standings(ddz_ladder_net *n, PGconn *pg)
{
    const char *p[] = {n->rules};
    PGresult *r = q(n, pg,
                    "SELECT name, mu, sigma, games, deals, score, faults, coalesce(suspended, '')"
                    " FROM ladder_players WHERE rules = $1 ORDER BY name LIMIT 256",
                    1, p, PGRES_TUPLES_OK);
    if (!r)
        return false;
    bool any = false;
    for (int i = 0; i < PQntuples(r); i++) {
        ddz_store_ladder_player s = {0};
        snprintf(s.name, sizeof s.name, "%s", PQgetvalue(r, i, 0));
        s.mu = atof(PQgetvalue(r, i, 1));
        s.sigma = atof(PQgetvalue(r, i, 2));
        s.games = atol(PQgetvalue(r, i, 3));
        s.deals = atol(PQgetvalue(r, i, 4));
        s.score = atof(PQgetvalue(r, i, 5));
        s.faults = atol(PQgetvalue(r, i, 6));
        snprintf(s.suspended, sizeof s.suspended, "%s", PQgetvalue(r, i, 7));
        int k = 0;
        while (k < n->nseen && strcmp(n->seen[k].name, s.name) != 0)
            k++;
        if (k < n->nseen && same_standing(&n->seen[k], &s))
            continue;
        if (k == n->nseen) {
            if (n->nseen == MAXP)
                continue;
            n->nseen++;
        }
        n->seen[k] = s;
        ddz_ladder_net_msg *m = calloc(1, sizeof *m);
        if (!m)
            break;
        m->kind = DDZ_LADDER_NET_STANDING;
        m->standing = s;
        push_msg(n, m);
        any = true;
    }
    PQclear(r);
    return any;
}

/* Tells the loop the history rows it has not seen (any node's). Ids come
 * from a sequence, drawn and committed under DDZ_LADDER_NET_HIST_LOCK
 * (record), so they become visible in id order and reading past the last
 * id told misses none. */
static bool tail_history(ddz_ladder_net *n, PGconn *pg)
{
    char after[24];
    snprintf(after, sizeof after, "%lld", (long long)n->hist_after);
    const char *p[] = {n->rules, after};
    PGresult *r = q(n, pg,
                    "SELECT id, name, finished_at, mu, sigma, score, faults, game1, game2, game3,"
                    " opp1, opp2 FROM ladder_history WHERE rules = $1 AND id > $2::bigint"
                    " ORDER BY id LIMIT 2000",
                    2, p, PGRES_TUPLES_OK);
    if (!r)
        return false;
    bool any = false;
    for (int i = 0; i < PQntuples(r); i++) {
        ddz_ladder_net_msg *m = calloc(1, sizeof *m);
        if (!m)
            break;
        m->kind = DDZ_LADDER_NET_HIST;
        ddz_store_ladder_hist *h = &m->hist;
        h->id = atoll(PQgetvalue(r, i, 0));
        snprintf(m->names[0], NAME, "%s", PQgetvalue(r, i, 1));
        h->finished_ms = atoll(PQgetvalue(r, i, 2));
        h->mu = atof(PQgetvalue(r, i, 3));
        h->sigma = atof(PQgetvalue(r, i, 4));
        h->score = atof(PQgetvalue(r, i, 5));
        h->faults = atoi(PQgetvalue(r, i, 6));
        for (int g = 0; g < 3; g++)
            h->games[g] = atoll(PQgetvalue(r, i, 7 + g));
        snprintf(h->opp[0], NAME, "%s", PQgetvalue(r, i, 10));
        snprintf(h->opp[1], NAME, "%s", PQgetvalue(r, i, 11));
        n->hist_after = h->id;
        push_msg(n, m);
        any = true;
    }
    PQclear(r);
    return any;
}

/* Hands the loop the leader's move orders for this node's bots, each
 * order once (ladder_net.h, MOVE). */
static void tell_moves(ddz_ladder_net *n, PGconn *pg)
{
    char wait[24];
    snprintf(wait, sizeof wait, "%d", n->cfg.move_wait_ms);
    const char *p[] = {n->rules, n->node, wait};
    PGresult *r =
        q(n, pg,
          "SELECT name, url, to_node, (extract(epoch FROM at) * 1000)::bigint"
          " FROM cluster_ladder_moves WHERE rules = $1 AND from_node = $2"
          " AND at > now() - $3::bigint * interval '1 millisecond' ORDER BY name LIMIT " STR(
              DDZ_SCHEDULE_MAX),
          3, p, PGRES_TUPLES_OK);
    if (!r)
        return;
    told_move now[MAXP];
    int nnow = 0;
    for (int i = 0; i < PQntuples(r) && nnow < MAXP; i++) {
        told_move t = {.at = atoll(PQgetvalue(r, i, 3))};
        snprintf(t.name, sizeof t.name, "%s", PQgetvalue(r, i, 0));
        bool before = false;
        for (int k = 0; k < n->ntold && !before; k++)
            before = n->told[k].at == t.at && strcmp(n->told[k].name, t.name) == 0;
        if (!before) {
            ddz_ladder_net_msg *m = calloc(1, sizeof *m);
            if (!m)
                continue; /* told at a later round */
            m->kind = DDZ_LADDER_NET_MOVE;
            snprintf(m->names[0], NAME, "%s", t.name);
            snprintf(m->url, sizeof m->url, "%s", PQgetvalue(r, i, 1));
            snprintf(m->home, sizeof m->home, "%s", PQgetvalue(r, i, 2));
            push_msg(n, m);
        }
        now[nnow++] = t;
    }
    PQclear(r);
    memcpy(n->told, now, (size_t)nnow * sizeof *now);
    n->ntold = nnow;
}

void ddz_ladder_net_work(ddz_ladder_net *n, PGconn *pg, bool leader)
{
    n->round++;
    if (!n->schema) {
        PGresult *r = PQexec(pg, schema_sql);
        n->schema = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!n->schema) {
            note(n, "ladder (cluster): cannot make the tables: %s",
                 r ? PQresultErrorMessage(r) : PQerrorMessage(pg), NULL);
            PQclear(r);
            rollback(pg);
            if (n->cfg.wake)
                n->cfg.wake(n->cfg.ctx);
            return;
        }
        PQclear(r);
    }
    publish_presence(n, pg);
    write_requests(n, pg);
    if (leader)
        schedule(n, pg);
    tell_moves(n, pg);
    fetch_deals(n, pg);
    tail_standings(n, pg);
    tail_history(n, pg);
    bool waiting = ddz_mailbox_count(n->out) > 0;
    if (waiting && n->cfg.wake)
        n->cfg.wake(n->cfg.ctx);
}
