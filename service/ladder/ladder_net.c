/* ladder_net.c - the ladder across nodes (ladder_net.h): presence,
 * the leader's plans, hosts' results in one transaction, the live view. */
#include "service/ladder/ladder_net.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/ladder/deal_plan.h"
#include "service/ladder/deal_sched.h"
#include "service/store/pg_conn.h"
#include "service/thread/mailbox.h"

#define NAME DDZ_LADDER_NAME_MAX
#define MAXP DDZ_DEAL_CANDIDATES /* participants the leader considers, at most */
#define TABLES DDZ_STORE_LADDER_TABLES
/* Deals being played that the live view keeps, at most (every node's). */
#define MAX_LIVE 1024

_Static_assert(TABLES == DDZ_DEAL_TABLES, "a stored deal is a plan");
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

typedef struct view_bot {
    char name[NAME];
    char node[32];
} view_bot;

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
    view_bot *vbots; /* [MAXP] the live view: who is present where */
    int nvbots;
    ddz_ladder_net_live *vdeals; /* [MAX_LIVE] ... and the deals being played */
    int nvdeals;
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

/* The deadline of a statement of ours (pg_conn.h). */
static int64_t due(const ddz_ladder_net *n)
{
    return ddz_pg_now_ms() + (n->cfg.db_timeout_ms > 0 ? n->cfg.db_timeout_ms : DDZ_PG_TIMEOUT_MS);
}

/* Runs `sql` by the bound (past it the session is dropped: the lead sees
 * it gone); returns the result or NULL (told as a note). */
static PGresult *q(ddz_ladder_net *n, PGconn *pg, const char *sql, int np, const char *const *p,
                   ExecStatusType want)
{
    PGresult *r = ddz_pg_exec(pg, sql, np, p, due(n), n->cfg.stop);
    if (r && PQresultStatus(r) == want)
        return r;
    note(n, "ladder (cluster): %s",
         r               ? PQresultErrorMessage(r)
         : ddz_pg_hung() ? "no answer from the database server in time"
                         : PQerrorMessage(pg),
         NULL);
    PQclear(r);
    return NULL;
}

static bool cmd(ddz_ladder_net *n, PGconn *pg, const char *sql, int np, const char *const *p)
{
    PGresult *r = q(n, pg, sql, np, p, PGRES_COMMAND_OK);
    PQclear(r);
    return r != NULL;
}

static void rollback(ddz_ladder_net *n, PGconn *pg)
{
    PQclear(ddz_pg_exec(pg, "ROLLBACK", 0, NULL, due(n), n->cfg.stop));
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
    " node TEXT NOT NULL, scheduled_by TEXT NOT NULL, state TEXT NOT NULL,"
    " created_at TIMESTAMPTZ NOT NULL, done_at TIMESTAMPTZ, tables INTEGER, names TEXT[],"
    " games BIGINT[]);"
    /* a table of the old format (p1, p2, p3 NOT NULL; game1..3): the plan's
     * columns added, the old ones left (nullable) with their rows, and a
     * deal of the old format still assigned dropped (no node plays it) */
    "ALTER TABLE cluster_ladder_deals ADD COLUMN IF NOT EXISTS tables INTEGER,"
    " ADD COLUMN IF NOT EXISTS names TEXT[], ADD COLUMN IF NOT EXISTS games BIGINT[];"
    "DO $$BEGIN ALTER TABLE cluster_ladder_deals ALTER COLUMN p1 DROP NOT NULL,"
    " ALTER COLUMN p2 DROP NOT NULL, ALTER COLUMN p3 DROP NOT NULL;"
    " EXCEPTION WHEN undefined_column THEN NULL; END$$;"
    "UPDATE cluster_ladder_deals SET state = 'dropped', done_at = now()"
    " WHERE state = 'assigned' AND names IS NULL;"
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
        cfg->nfixed > DDZ_LADDER_NET_FIXED || cfg->tables < 1 || cfg->move_wait_ms < 0) {
        snprintf(err, errlen, "ladder (cluster): bad configuration");
        return NULL;
    }
    ddz_ladder_net *n = calloc(1, sizeof *n);
    if (n) {
        n->present = calloc(MAXP, sizeof *n->present);
        n->seen = calloc(MAXP, sizeof *n->seen);
        n->told = calloc(MAXP, sizeof *n->told);
        n->vbots = calloc(MAXP, sizeof *n->vbots);
        n->vdeals = calloc(MAX_LIVE, sizeof *n->vdeals);
        n->reqs = ddz_mailbox_create(0, false);
        n->out = ddz_mailbox_create(0, false);
    }
    if (!n || !n->present || !n->seen || !n->told || !n->vbots || !n->vdeals || !n->reqs ||
        !n->out) {
        if (n) {
            free(n->present), free(n->seen), free(n->told);
            free(n->vbots), free(n->vdeals);
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

bool ddz_ladder_net_where(ddz_ladder_net *n, const char *name, bool *playing, char *node,
                          size_t nodelen)
{
    bool present = false, in_deal = false;
    pthread_mutex_lock(&n->mu);
    for (int i = 0; i < n->nvbots && !present; i++)
        if (strcmp(n->vbots[i].name, name) == 0) {
            present = true;
            if (node && nodelen)
                snprintf(node, nodelen, "%s", n->vbots[i].node);
        }
    for (int d = 0; d < n->nvdeals && !in_deal; d++) {
        const ddz_ladder_net_live *l = &n->vdeals[d];
        for (int t = 0; t < l->tables && !in_deal; t++)
            for (int s = 0; s < 3 && !in_deal; s++)
                in_deal = strcmp(l->names[t][s], name) == 0;
    }
    pthread_mutex_unlock(&n->mu);
    if (!present && node && nodelen)
        node[0] = '\0';
    if (playing)
        *playing = in_deal;
    return present;
}

int ddz_ladder_net_deals(ddz_ladder_net *n, ddz_ladder_net_live *out, int max)
{
    pthread_mutex_lock(&n->mu);
    int k = n->nvdeals < max ? n->nvdeals : max;
    if (k > 0)
        memcpy(out, n->vdeals, (size_t)k * sizeof *out);
    pthread_mutex_unlock(&n->mu);
    return k > 0 ? k : 0;
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
    free(n->vbots);
    free(n->vdeals);
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

/* The distinct participants of `res`, sorted bytewise (the order their
 * standings are locked in), to names[0..*np), and its plan over them to
 * `plan`. Returns false for a result that is no plan (tables out of
 * range, an empty name). */
static bool plan_of(const ddz_ladder_net_result *res, char (*names)[NAME], int *np,
                    ddz_deal_plan *plan)
{
    if (res->tables < 2 || res->tables > TABLES)
        return false;
    int k = 0;
    for (int t = 0; t < res->tables; t++)
        for (int s = 0; s < 3; s++) {
            const char *x = res->names[t][s];
            if (!x[0])
                return false;
            int i = 0;
            while (i < k && strcmp(names[i], x) < 0)
                i++;
            if (i < k && strcmp(names[i], x) == 0)
                continue;
            memmove(names[i + 1], names[i], (size_t)(k - i) * sizeof *names);
            snprintf(names[i], NAME, "%s", x);
            k++;
        }
    memset(plan, 0, sizeof *plan);
    plan->tables = res->tables;
    for (int t = 0; t < res->tables; t++)
        for (int s = 0; s < 3; s++) {
            int i = 0;
            while (strcmp(names[i], res->names[t][s]) != 0)
                i++;
            plan->who[t][s] = i;
        }
    *np = k;
    return true;
}

/* The column `compared` of table t's seat s: those who held hand s at
 * the other tables (ddz_store_ladder_cmp_text()), a new string (free()
 * it), or NULL when out of memory. */
static char *compared_json(const ddz_ladder_net_result *res, int t, int s)
{
    ddz_store_ladder_hist h = {.ncmp = 0};
    for (int u = 0; u < res->tables; u++) {
        if (u == t)
            continue;
        ddz_store_ladder_cmp *c = &h.cmp[h.ncmp++];
        snprintf(c->name, sizeof c->name, "%s", res->names[u][s]);
        c->score = res->score[u][s];
        c->game = res->games[u];
    }
    return ddz_store_ladder_cmp_text(&h);
}

/* Writes `v[0..count)` as a PostgreSQL bigint array literal ({1,2}). */
static void int_array_lit(char *buf, size_t len, const int64_t *v, int count)
{
    size_t k = (size_t)snprintf(buf, len, "{");
    for (int i = 0; i < count && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "," : "", (long long)v[i]);
    if (k < len)
        snprintf(buf + k, len - k, "}");
}

/* Marks deal `deal`, ours and still assigned, dropped in a transaction of
 * its own (the recording's was rolled back). Returns 0, or -1 (try again). */
static int drop_unrated(ddz_ladder_net *n, PGconn *pg, const char *deal)
{
    const char *p[] = {deal, n->node};
    if (!cmd(n, pg, "BEGIN", 0, NULL))
        return -1;
    if (!cmd(n, pg,
             "UPDATE cluster_ladder_deals SET state = 'dropped', done_at = now()"
             " WHERE id = $1 AND node = $2 AND state = 'assigned'",
             2, p) ||
        !cmd(n, pg, "COMMIT", 0, NULL)) {
        rollback(n, pg);
        return -1;
    }
    note(n, "ladder (cluster): deal %s could not be rated: dropped", deal, NULL);
    return 0;
}

/* Records a played deal: returns 1 recorded, 0 not (dropped meanwhile, or
 * now because it cannot be rated: nothing else written), -1 failed (try
 * again). */
static int record(ddz_ladder_net *n, PGconn *pg, const ddz_ladder_net_result *res)
{
    char deal[24];
    snprintf(deal, sizeof deal, "%lld", (long long)res->deal);
    char(*names)[NAME] = calloc(DDZ_STORE_LADDER_SEATS, sizeof *names);
    char *plan_arr = NULL;
    ddz_deal_plan plan;
    int np = 0, rc = -1;
    if (!names)
        return -1;
    bool is_plan = plan_of(res, names, &np, &plan);
    /* the result's plan, table-major, to be compared with the row's */
    plan_arr = array_lit((const char(*)[NAME])res->names, is_plan ? 3 * res->tables : 0);
    if (!plan_arr)
        goto out;
    if (!cmd(n, pg, "BEGIN", 0, NULL))
        goto out;
    /* One recording at a time in the whole cluster, taken first (before any
     * row lock, so nothing waits in the other order): the history ids this
     * transaction draws are then above every id committed before it and
     * below every id committed after it, so the other nodes' tail of the
     * history (tail_history) never passes a row still to come. Recordings
     * are a few a second at most and short. */
    PGresult *lk = q(n, pg, "SELECT pg_advisory_xact_lock(" STR(DDZ_LADDER_NET_HIST_LOCK) ")", 0,
                     NULL, PGRES_TUPLES_OK);
    if (!lk)
        goto fail;
    PQclear(lk);
    char tables[16];
    snprintf(tables, sizeof tables, "%d", res->tables);
    const char *pd[] = {deal, tables, plan_arr};
    PGresult *r = q(n, pg,
                    "SELECT state, node, coalesce(tables = $2::int AND names = $3::text[], false)"
                    " FROM cluster_ladder_deals WHERE id = $1 FOR UPDATE",
                    3, pd, PGRES_TUPLES_OK);
    if (!r)
        goto fail;
    bool mine = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "assigned") == 0 &&
                strcmp(PQgetvalue(r, 0, 1), n->node) == 0;
    bool same = mine && PQgetvalue(r, 0, 2)[0] == 't';
    PQclear(r);
    if (!mine) {
        rollback(n, pg);
        rc = 0;
        goto out;
    }
    if (!is_plan || !same) {
        /* not what was assigned (the row is locked, ours and assigned):
         * it never will be rated, so it is dropped as below */
        rollback(n, pg);
        rc = drop_unrated(n, pg, deal);
        goto out;
    }
    ddz_rating fresh = ddz_rating_new(&n->cfg.rc);
    char mu0[32], sg0[32], now[24];
    fmt_d(mu0, sizeof mu0, fresh.mu);
    fmt_d(sg0, sizeof sg0, fresh.sigma);
    snprintf(now, sizeof now, "%lld", (long long)now_unix_ms());
    /* Lock the standings in name order (two hosts sharing an AI then wait
     * for each other instead of deadlocking). */
    ddz_store_ladder_player st[DDZ_STORE_LADDER_SEATS];
    ddz_rating rt[DDZ_STORE_LADDER_SEATS];
    for (int k = 0; k < np; k++) {
        const char *p[] = {n->rules, names[k], mu0, sg0, now};
        if (!cmd(n, pg,
                 "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score, faults,"
                 " suspended, updated_at) VALUES($1, $2, $3::float8, $4::float8, 0, 0, 0, 0, NULL,"
                 " $5::bigint) ON CONFLICT (rules, name) DO NOTHING",
                 5, p))
            goto fail;
        const char *p2[] = {n->rules, names[k]};
        r = q(n, pg,
              "SELECT mu, sigma, games, deals, score, faults, coalesce(suspended, '')"
              " FROM ladder_players WHERE rules = $1 AND name = $2 FOR UPDATE",
              2, p2, PGRES_TUPLES_OK);
        if (!r || PQntuples(r) != 1) {
            PQclear(r);
            goto fail;
        }
        ddz_store_ladder_player *s = &st[k];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", names[k]);
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
    if (ddz_deal_rate(&n->cfg.rc, &plan, rt, np, res->score) < 0) {
        /* It never will be: dropped (the row is still locked, ours and
         * assigned), so that its participants are free again and the deal
         * is not handed to the loop again (a row left assigned would be). */
        rollback(n, pg);
        rc = drop_unrated(n, pg, deal);
        goto out;
    }
    /* the standings: a participant counts every seat it held */
    for (int k = 0; k < np; k++) {
        ddz_store_ladder_player *s = &st[k];
        s->mu = rt[k].mu, s->sigma = rt[k].sigma;
        for (int t = 0; t < plan.tables; t++)
            for (int h = 0; h < 3; h++)
                if (plan.who[t][h] == k) {
                    s->games++;
                    s->deals++;
                    s->score = ddz_score_add(s->score, res->score[t][h]);
                    s->faults += res->faults[t][h];
                }
        char mu[32], sg[32], games[24], deals[24], score[32], faults[24];
        fmt_d(mu, sizeof mu, s->mu);
        fmt_d(sg, sizeof sg, s->sigma);
        snprintf(games, sizeof games, "%ld", s->games);
        snprintf(deals, sizeof deals, "%ld", s->deals);
        fmt_d(score, sizeof score, s->score);
        snprintf(faults, sizeof faults, "%ld", s->faults);
        const char *pu[] = {n->rules, s->name, mu, sg, games, deals, score, faults, now};
        if (!cmd(n, pg,
                 "UPDATE ladder_players SET mu = $3::float8, sigma = $4::float8,"
                 " games = $5::bigint, deals = $6::bigint, score = $7::float8,"
                 " faults = $8::bigint, updated_at = $9::bigint WHERE rules = $1 AND name = $2",
                 9, pu))
            goto fail;
    }
    /* one history row per seat, table by table, West first */
    char dealid[24];
    snprintf(dealid, sizeof dealid, "%lld", (long long)res->games[0]);
    for (int t = 0; t < plan.tables; t++)
        for (int h = 0; h < 3; h++) {
            const ddz_store_ladder_player *s = &st[plan.who[t][h]];
            char mu[32], sg[32], score[32], faults[16], game[24], hand[16];
            fmt_d(mu, sizeof mu, s->mu);
            fmt_d(sg, sizeof sg, s->sigma);
            fmt_d(score, sizeof score, res->score[t][h]);
            snprintf(faults, sizeof faults, "%d", res->faults[t][h]);
            snprintf(game, sizeof game, "%lld", (long long)res->games[t]);
            snprintf(hand, sizeof hand, "%d", h);
            char *cmp = compared_json(res, t, h);
            if (!cmp)
                goto fail;
            const char *ph[] = {n->rules,
                                s->name,
                                now,
                                mu,
                                sg,
                                score,
                                faults,
                                game,
                                res->names[t][(h + 1) % 3],
                                res->names[t][(h + 2) % 3],
                                dealid,
                                hand,
                                cmp};
            bool ok = cmd(n, pg,
                          "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score,"
                          " faults, game1, opp1, opp2, deal, hand, compared) VALUES($1, $2,"
                          " $3::bigint, $4::float8, $5::float8, $6::float8, $7::int, $8::bigint,"
                          " $9, $10, $11::bigint, $12::int, $13)",
                          13, ph);
            free(cmp);
            if (!ok)
                goto fail;
        }
    char games[TABLES * 24 + 4];
    int_array_lit(games, sizeof games, res->games, plan.tables);
    const char *pe[] = {deal, games};
    if (!cmd(n, pg,
             "UPDATE cluster_ladder_deals SET state = 'done', done_at = now(),"
             " games = $2::bigint[] WHERE id = $1",
             2, pe) ||
        !cmd(n, pg, "COMMIT", 0, NULL))
        goto fail;
    rc = 1;
    goto out;
fail:
    rollback(n, pg);
out:
    free(names);
    free(plan_arr);
    return rc;
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

/* Whether fixed participant `name` is a hosted AI ("ai:NAME[:MS]"): it may
 * hold several seats of a deal (deal_plan.h). */
static bool is_ai(const char *name)
{
    return strncmp(name, "ai:", 3) == 0;
}

/* The cluster's side of the scheduler (deal_sched.h), for one node's
 * deals: the participants c[0..nc) that are free and either fixed or
 * present at `node`, a deal assigned by its row in cluster_ladder_deals
 * (inserted in the leader's transaction; its participants marked busy). */
typedef struct node_side {
    ddz_ladder_net *n;
    PGconn *pg;
    const char *node;
    bool here;      /* `node` is the leader's own */
    int cap;        /* its free tables */
    bool ais_alone; /* no program is present anywhere */
    cand *c;
    int nc;
} node_side;

static int node_gather(void *ctx, ddz_deal_cand *dc, int max, int *max_tables, bool *ais_alone)
{
    node_side *ns = ctx;
    const cand *c = ns->c;
    int nc = ns->nc < max ? ns->nc : max;
    for (int i = 0; i < nc; i++)
        dc[i] = (ddz_deal_cand){.mu = c[i].mu,
                                .deals = c[i].deals,
                                .available = !c[i].busy && !c[i].suspended && !c[i].moving &&
                                             (!c[i].node[0] || strcmp(c[i].node, ns->node) == 0),
                                .ai = !c[i].node[0] && is_ai(c[i].name)};
    *max_tables = ns->cap;
    /* a deal of hosted AIs alone goes to the leader's node only */
    *ais_alone = ns->ais_alone && ns->here;
    return nc;
}

static int node_assign(void *ctx, const ddz_deal_plan *plan, ddz_deal_cand *dc)
{
    node_side *ns = ctx;
    ddz_ladder_net *n = ns->n;
    cand *c = ns->c;
    int m = plan->tables;
    bool bots = false;
    for (int t = 0; t < m; t++)
        for (int s = 0; s < 3; s++)
            bots |= c[plan->who[t][s]].node[0] != '\0';
    if (!bots && !ns->here)
        return 1; /* fixed participants only: the leader's node hosts it */
    char(*names)[NAME] = malloc((size_t)(3 * m) * sizeof *names);
    char *arr = NULL;
    if (names) {
        for (int t = 0; t < m; t++)
            for (int s = 0; s < 3; s++)
                snprintf(names[3 * t + s], NAME, "%s", c[plan->who[t][s]].name);
        arr = array_lit((const char(*)[NAME])names, 3 * m);
    }
    free(names);
    if (!arr)
        return 1; /* out of memory: no more deals this round */
    char tables[16];
    snprintf(tables, sizeof tables, "%d", m);
    const char *pi[] = {n->rules, ns->node, n->node, tables, arr};
    bool ok = cmd(n, ns->pg,
                  "INSERT INTO cluster_ladder_deals(rules, node, scheduled_by, state, created_at,"
                  " tables, names) VALUES($1, $2, $3, 'assigned', now(), $4::int, $5::text[])",
                  5, pi);
    free(arr);
    if (!ok)
        return DDZ_EDB;
    /* in the cluster every participant, a hosted AI too, plays one deal
     * at a time */
    for (int t = 0; t < m; t++)
        for (int s = 0; s < 3; s++) {
            c[plan->who[t][s]].busy = true;
            dc[plan->who[t][s]].available = false;
        }
    return 0;
}

/* Node `node`'s deals: one round of the scheduler (deal_sched.h) on its
 * share of the cluster, while it has two free tables (`cap`). A deal
 * without a bot goes to this (the leader's) node only; `ais_alone`: no
 * program is present anywhere. Returns false on a failed statement. */
static bool plan_node(ddz_ladder_net *n, PGconn *pg, const char *node, int cap, bool ais_alone,
                      cand *c, int nc)
{
    node_side ns = {.n = n,
                    .pg = pg,
                    .node = node,
                    .here = strcmp(node, n->node) == 0,
                    .cap = cap,
                    .ais_alone = ais_alone,
                    .c = c,
                    .nc = nc};
    ddz_deal_side side = {.ctx = &ns, .gather = node_gather, .assign = node_assign};
    return ddz_deal_sched_round(&side) >= 0;
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
        rollback(n, pg);
        return;
    }
    char *live = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    cand *c = calloc(MAXP, sizeof *c);
    int nc = 0;
    if (!live || !c)
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
    /* busy participants: in any deal being played */
    r = q(n, pg,
          "SELECT DISTINCT unnest(names) FROM cluster_ladder_deals WHERE rules = $1"
          " AND state = 'assigned'",
          1, p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        int x = cand_find(c, nc, PQgetvalue(r, i, 0));
        if (x >= 0)
            c[x].busy = true;
    }
    PQclear(r);
    /* the tables in use per node */
    char nodes[MAXP + 1][32];
    int inuse[MAXP + 1] = {0}, nn = 0;
    r = q(n, pg,
          "SELECT node, sum(coalesce(tables, 1)) FROM cluster_ladder_deals WHERE rules = $1"
          " AND state = 'assigned' GROUP BY node",
          1, p1, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r) && nn <= MAXP; i++) {
        snprintf(nodes[nn], sizeof nodes[0], "%s", PQgetvalue(r, i, 0));
        inuse[nn++] = atoi(PQgetvalue(r, i, 1));
    }
    PQclear(r);
    if (!gather(n, pg, live, c, nc))
        goto out;
    /* hosted AIs play alone only while no program (a bot or an operator
     * engine, not suspended) is present anywhere */
    bool ais_alone = true;
    for (int i = 0; i < nc && ais_alone; i++)
        ais_alone = c[i].suspended || (!c[i].node[0] && is_ai(c[i].name));
    /* the hosts: every node with bots present, and this one */
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
    for (int gi = 0; gi < ng; gi++) {
        /* a different node first every round: the fixed participants are
         * shared */
        const char *node = groups[(gi + n->round) % (unsigned long)ng];
        int f = 0;
        while (f < nn && strcmp(nodes[f], node) != 0)
            f++;
        int cap = n->cfg.tables - (f < nn ? inuse[f] : 0);
        if (cap >= 2 && !plan_node(n, pg, node, cap, ais_alone, c, nc))
            goto out;
    }
    cmd(n, pg, "COMMIT", 0, NULL);
    goto done;
out:
    rollback(n, pg);
done:
    free(live);
    free(c);
}

/* ---- the host and the views ---- */

/* Reads every deal being played (any node's) and who is present where:
 * hands this node's new deals to the loop, and copies both to the live
 * view (ddz_ladder_net_where, _deals). A failed read leaves the view as
 * it was. */
static void read_deals(ddz_ladder_net *n, PGconn *pg)
{
    const char *p[] = {n->rules};
    PGresult *r = q(n, pg,
                    "SELECT d.id, d.node, d.tables, x.name FROM cluster_ladder_deals d"
                    " CROSS JOIN LATERAL unnest(d.names) WITH ORDINALITY x(name, i)"
                    " WHERE d.rules = $1 AND d.state = 'assigned' ORDER BY d.id, x.i",
                    1, p, PGRES_TUPLES_OK);
    if (!r)
        return;
    ddz_ladder_net_live *live = calloc(MAX_LIVE, sizeof *live);
    view_bot *bots = calloc(MAXP, sizeof *bots);
    int nlive = 0, nbots = 0;
    if (!live || !bots)
        goto out;
    /* the rows of one deal are its names, table-major */
    for (int i = 0, first = 0; i < PQntuples(r); i = first) {
        int64_t id = atoll(PQgetvalue(r, i, 0));
        while (first < PQntuples(r) && atoll(PQgetvalue(r, first, 0)) == id)
            first++;
        int tables = atoi(PQgetvalue(r, i, 2));
        if (tables < 2 || tables > TABLES || first - i != 3 * tables || nlive == MAX_LIVE)
            continue; /* not a plan: no node plays it */
        ddz_ladder_net_live *l = &live[nlive++];
        l->deal = id;
        snprintf(l->node, sizeof l->node, "%s", PQgetvalue(r, i, 1));
        l->tables = tables;
        for (int k = 0; k < 3 * tables; k++)
            snprintf(l->names[k / 3][k % 3], NAME, "%s", PQgetvalue(r, i + k, 3));
    }
    PQclear(r);
    r = q(n, pg, "SELECT name, node FROM cluster_ladder_presence WHERE rules = $1 ORDER BY name", 1,
          p, PGRES_TUPLES_OK);
    if (!r)
        goto out;
    for (int i = 0; i < PQntuples(r) && nbots < MAXP; i++) {
        snprintf(bots[nbots].name, NAME, "%s", PQgetvalue(r, i, 0));
        snprintf(bots[nbots].node, sizeof bots[nbots].node, "%s", PQgetvalue(r, i, 1));
        nbots++;
    }
    /* this node's new deals, to the loop (each once) */
    for (int d = 0; d < nlive; d++) {
        const ddz_ladder_net_live *l = &live[d];
        if (strcmp(l->node, n->node) != 0 || handed(n, l->deal))
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
        m->deal = l->deal;
        m->tables = l->tables;
        memcpy(m->names, l->names, sizeof m->names);
        n->handed[n->nhanded++] = l->deal;
        push_msg(n, m);
    }
    pthread_mutex_lock(&n->mu);
    view_bot *ob = n->vbots;
    ddz_ladder_net_live *ol = n->vdeals;
    n->vbots = bots, n->nvbots = nbots;
    n->vdeals = live, n->nvdeals = nlive;
    pthread_mutex_unlock(&n->mu);
    bots = ob, live = ol; /* freed below */
out:
    PQclear(r);
    free(live);
    free(bots);
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
 * id told misses none. A row of the old format (store.h) has hand -1,
 * deal 0, its three games and no comparison. */
static bool tail_history(ddz_ladder_net *n, PGconn *pg)
{
    char after[24];
    snprintf(after, sizeof after, "%lld", (long long)n->hist_after);
    const char *p[] = {n->rules, after};
    PGresult *r = q(n, pg,
                    "SELECT id, name, finished_at, mu, sigma, score, faults, coalesce(game1, 0),"
                    " coalesce(game2, 0), coalesce(game3, 0), coalesce(opp1, ''),"
                    " coalesce(opp2, ''), coalesce(deal, 0), coalesce(hand, -1),"
                    " coalesce(compared, '') FROM ladder_history WHERE rules = $1"
                    " AND id > $2::bigint ORDER BY id LIMIT 2000",
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
        snprintf(h->name, NAME, "%s", PQgetvalue(r, i, 1));
        h->finished_ms = atoll(PQgetvalue(r, i, 2));
        h->mu = atof(PQgetvalue(r, i, 3));
        h->sigma = atof(PQgetvalue(r, i, 4));
        h->score = atof(PQgetvalue(r, i, 5));
        h->faults = atoi(PQgetvalue(r, i, 6));
        for (int g = 0; g < 3; g++)
            h->games[g] = atoll(PQgetvalue(r, i, 7 + g));
        snprintf(h->opp[0], NAME, "%s", PQgetvalue(r, i, 10));
        snprintf(h->opp[1], NAME, "%s", PQgetvalue(r, i, 11));
        h->deal = atoll(PQgetvalue(r, i, 12));
        h->hand = atoi(PQgetvalue(r, i, 13));
        if (h->hand < 0 || h->hand > 2) {
            h->hand = -1; /* the old format */
            h->deal = 0;
        } else {
            ddz_store_ladder_cmp_parse(PQgetvalue(r, i, 14), h);
        }
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
          " AND at > now() - $3::bigint * interval '1 millisecond' ORDER BY name LIMIT " STR(MAXP),
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
            snprintf(m->names[0][0], NAME, "%s", t.name);
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
        PGresult *r = ddz_pg_exec(pg, schema_sql, 0, NULL, due(n), n->cfg.stop);
        n->schema = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!n->schema) {
            note(n, "ladder (cluster): cannot make the tables: %s",
                 r ? PQresultErrorMessage(r) : PQerrorMessage(pg), NULL);
            PQclear(r);
            rollback(n, pg);
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
    read_deals(n, pg);
    tail_standings(n, pg);
    tail_history(n, pg);
    bool waiting = ddz_mailbox_count(n->out) > 0;
    if (waiting && n->cfg.wake)
        n->cfg.wake(n->cfg.ctx);
}
