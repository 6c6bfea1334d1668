/* analyst.c - post-game analyses on a worker thread of their own
 * (analyst.h). */
#include "service/server/analyst.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai/analysis.h"
#include "proto/msg.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/thread/mailbox.h"

/* One game to analyse: the loop's until queued, the worker's until it puts
 * it in `done`, the loop's again after. */
typedef struct job {
    ddz_mail mail;
    int64_t id;
    char *record; /* the input: the stored record line */
    char *json;   /* the answer: the analysis, or an error object */
    bool ok;      /* json is an analysis */
} job;

typedef struct recent {
    int64_t id; /* 0: an empty slot */
    char *json;
    bool ok;
} recent;

struct ddz_analyst {
    ddz_analyst_options opt;
    ddz_mailbox *todo; /* loop -> worker; closed (drop) at destroy */
    ddz_mailbox *done; /* worker -> loop */
    pthread_t thread;
    atomic_bool stop; /* the worker's job ends at its next ply */
    void (*wake)(void *ctx);
    void *ctx;
    ddz_solver *sv;                     /* the worker's */
    job *pending[DDZ_ANALYST_JOBS_MAX]; /* loop: queued or running */
    int npending;                       /* loop */
    recent recent[DDZ_ANALYST_RECENT];  /* loop: the latest answers, a ring */
    int recent_next;                    /* loop: the slot written next */
};

static void job_free(job *j)
{
    if (!j)
        return;
    free(j->record);
    free(j->json);
    free(j);
}

static int64_t mono_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An error answer: {"error": NAME, "message": why}. */
static char *error_json(int code, const char *why)
{
    json_t *e = json_pack("{s:s, s:s}", "error", ddz_errname(code), "message", why);
    char *out = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    return out;
}

/* Adds one analysed ply to `plies`. Returns false when out of memory. */
static bool add_ply(json_t *plies, const ddz_analysis_ply *p)
{
    json_t *keeps = json_null();
    if (p->gave && p->nkeeps >= 0) {
        keeps = json_array();
        for (int i = 0; keeps && i < p->nkeeps; i++)
            if (json_array_append_new(keeps, ddz_msg_cards(ddz_cards_pick(p->hand, p->keeps[i]))))
                json_decref(keeps), keeps = NULL;
    }
    /* the witness only where a win was given away: elsewhere it would
     * teach nothing and make every answer longer */
    json_t *witness =
        p->gave && p->witnessed ? ddz_msg_cards(ddz_cards_pick(p->hand, p->witness)) : json_null();
    if (!keeps || !witness) {
        json_decref(keeps);
        json_decref(witness);
        return false;
    }
    /* "o" steals both references, also when packing fails */
    json_t *o =
        json_pack("{s:i, s:i, s:b, s:s, s:s, s:b, s:o, s:o}", "ply", p->ply, "seat", p->seat,
                  "autopass", p->autopass, "before", ddz_verdict_name(p->before), "after",
                  ddz_verdict_name(p->after), "gave", p->gave, "keeps", keeps, "witness", witness);
    return o && json_array_append_new(plies, o) == 0;
}

bool ddz_analyst_current(const char *json)
{
    json_t *j = json ? json_loads(json, 0, NULL) : NULL;
    json_t *v = json_object_get(j, "version"); /* NULL-safe */
    bool ok = json_is_integer(v) && json_integer_value(v) >= DDZ_ANALYST_VERSION;
    json_decref(j);
    return ok;
}

/* Analyses the record `text` (game `id`) under the analyst's budget.
 * Returns the answer (malloc'd) and sets *ok, or NULL when out of memory. */
static char *analyse(ddz_analyst *a, int64_t id, const char *text, bool *ok)
{
    *ok = false;
    json_t *rj = json_loads(text, 0, NULL);
    ddz_record *r = malloc(sizeof *r);
    ddz_analysis *an = malloc(sizeof *an);
    ddz_analysis_ply *ply = malloc(sizeof *ply);
    char err[160] = "";
    char *out = NULL;
    const ddz_rules *rs = NULL;
    json_t *plies = NULL, *res = NULL;
    if (!r || !an || !ply)
        goto done;
    if (!rj || json_is_true(json_object_get(rj, "aborted"))) {
        /* an aborted game was cut short: its plays end nowhere */
        out = error_json(DDZ_EVERIFY, rj ? "the game did not finish" : "the record is not JSON");
        goto done;
    }
    if (ddz_record_from_json(rj, r, err, sizeof err) < 0) {
        out = error_json(DDZ_EFIELD, err);
        goto done;
    }
    if (!(rs = ddz_rules_find(r->rules))) {
        out = error_json(DDZ_ERULESET, "unknown rule set");
        goto done;
    }
    if (ddz_analysis_begin(an, r, rs, a->sv) < 0) {
        out = error_json(DDZ_EVERIFY, "the record does not replay");
        goto done;
    }
    int64_t start = mono_ns(NULL), game_ns = (int64_t)a->opt.game_ms * 1000000,
            pos_ns = (int64_t)a->opt.position_ms * 1000000;
    long nodes = 0;
    bool cut = false; /* the game's clock ran out: later positions got a few nodes each */
    if (!(plies = json_array()))
        goto done;
    for (;;) {
        if (atomic_load(&a->stop))
            goto done; /* nobody waits for it */
        int64_t left = start + game_ns - mono_ns(NULL);
        /* past the game's clock 1 ns: the solver stops at its first look
         * at the clock, DDZ_SOLVER_CLOCK_EVERY nodes in */
        cut |= left <= 0;
        ddz_analysis_budget b = {.nodes = a->opt.nodes,
                                 .ns = left < pos_ns ? (left > 0 ? left : 1) : pos_ns,
                                 .clock = mono_ns};
        if (ddz_analysis_next(an, a->sv, &b, ply) != 1)
            break;
        nodes += ply->nodes;
        if (!add_ply(plies, ply))
            goto done;
    }
    json_t *tally = json_array();
    for (int s = 0; tally && s < 3; s++)
        if (json_array_append_new(
                tally, json_pack("{s:i, s:i, s:i}", "positions", an->tally[s].positions, "gave",
                                 an->tally[s].gave, "unknown", an->tally[s].unknown)))
            json_decref(tally), tally = NULL;
    int64_t used_ms = (mono_ns(NULL) - start) / 1000000;
    res = tally ? json_pack("{s:i, s:I, s:s, s:O, s:o, s:{s:I, s:i, s:i, s:I, s:I, s:b}}",
                            "version", DDZ_ANALYST_VERSION, "game_id", (json_int_t)id, "rules",
                            rs->name, "plies", plies, "tally", tally, "budget", "nodes",
                            (json_int_t)a->opt.nodes, "position_ms", a->opt.position_ms, "game_ms",
                            a->opt.game_ms, "nodes_used", (json_int_t)nodes, "ms_used",
                            (json_int_t)used_ms, "cut", cut)
                : NULL;
    if (res && (out = json_dumps(res, JSON_COMPACT)))
        *ok = true;
done:
    json_decref(res);
    json_decref(plies);
    json_decref(rj);
    free(r);
    free(an);
    free(ply);
    return out;
}

static void *worker(void *arg)
{
    ddz_analyst *a = arg;
    ddz_mail *m;
    while ((m = ddz_mailbox_take(a->todo, 1, NULL))) {
        job *j = DDZ_MAIL_ITEM(m, job, mail);
        /* NULL when out of memory or stopped: collect drops the job, and
         * the next request queues it again */
        j->json = analyse(a, j->id, j->record, &j->ok);
        ddz_mailbox_put(a->done, &j->mail); /* unbounded */
        ddz_mailbox_done(a->todo, 1);
        a->wake(a->ctx);
    }
    return NULL;
}

ddz_analyst *ddz_analyst_create(const ddz_analyst_options *opt, void (*wake)(void *ctx), void *ctx)
{
    ddz_analyst *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    ddz_analyst_options o = opt ? *opt : (ddz_analyst_options){.max_jobs = -1};
    o.max_jobs = o.max_jobs < 0                      ? DDZ_ANALYST_JOBS
                 : o.max_jobs > DDZ_ANALYST_JOBS_MAX ? DDZ_ANALYST_JOBS_MAX
                                                     : o.max_jobs;
    o.nodes = o.nodes > 0 ? o.nodes : DDZ_ANALYST_NODES;
    o.position_ms = o.position_ms > 0 ? o.position_ms : DDZ_ANALYST_POSITION_MS;
    o.game_ms = o.game_ms > 0 ? o.game_ms : DDZ_ANALYST_GAME_MS;
    a->opt = o;
    a->wake = wake;
    a->ctx = ctx;
    a->todo = ddz_mailbox_create(0, false); /* bounded by npending, on the loop */
    a->done = ddz_mailbox_create(0, false);
    a->sv = ddz_solver_create(0);
    if (!a->todo || !a->done || !a->sv || pthread_create(&a->thread, NULL, worker, a) != 0) {
        ddz_mailbox_destroy(a->todo);
        ddz_mailbox_destroy(a->done);
        ddz_solver_destroy(a->sv);
        free(a);
        return NULL;
    }
    return a;
}

/* Frees a chain of jobs. */
static void free_chain(ddz_mail *m)
{
    while (m) {
        ddz_mail *next = m->next;
        job_free(DDZ_MAIL_ITEM(m, job, mail));
        m = next;
    }
}

void ddz_analyst_destroy(ddz_analyst *a)
{
    if (!a)
        return;
    atomic_store(&a->stop, true);
    ddz_mailbox_close(a->todo, DDZ_MAILBOX_DROP);
    pthread_join(a->thread, NULL);
    free_chain(ddz_mailbox_get_all(a->todo));
    free_chain(ddz_mailbox_get_all(a->done));
    for (int i = 0; i < DDZ_ANALYST_RECENT; i++)
        free(a->recent[i].json);
    ddz_mailbox_destroy(a->todo);
    ddz_mailbox_destroy(a->done);
    ddz_solver_destroy(a->sv);
    free(a);
}

int ddz_analyst_request(ddz_analyst *a, int64_t id, const char *record, char **json)
{
    *json = NULL;
    for (int i = 0; i < DDZ_ANALYST_RECENT; i++)
        if (a->recent[i].id == id) {
            if (!(*json = strdup(a->recent[i].json)))
                return DDZ_ENOMEM;
            return a->recent[i].ok ? DDZ_ANALYST_READY : DDZ_ANALYST_FAILED;
        }
    for (int i = 0; i < a->npending; i++)
        if (a->pending[i]->id == id)
            return DDZ_ANALYST_PENDING;
    if (a->npending >= a->opt.max_jobs)
        return DDZ_EBUSY;
    job *j = calloc(1, sizeof *j);
    if (!j || !(j->record = strdup(record))) {
        job_free(j);
        return DDZ_ENOMEM;
    }
    j->id = id;
    if (ddz_mailbox_put(a->todo, &j->mail) < 0) {
        job_free(j);
        return DDZ_ENOMEM;
    }
    /* the worker may have it already, but frees nothing: it comes back
     * through `done`, where collect takes it off this list */
    a->pending[a->npending++] = j;
    return DDZ_ANALYST_QUEUED;
}

int ddz_analyst_collect(ddz_analyst *a,
                        void (*done)(void *ctx, int64_t id, const char *json, bool ok), void *ctx)
{
    int n = 0;
    ddz_mail *m;
    while ((m = ddz_mailbox_get(a->done))) {
        job *j = DDZ_MAIL_ITEM(m, job, mail);
        for (int i = 0; i < a->npending; i++)
            if (a->pending[i] == j) {
                a->pending[i] = a->pending[--a->npending];
                break;
            }
        if (j->json) {
            done(ctx, j->id, j->json, j->ok);
            recent *r = &a->recent[a->recent_next];
            a->recent_next = (a->recent_next + 1) % DDZ_ANALYST_RECENT;
            free(r->json);
            *r = (recent){.id = j->id, .json = j->json, .ok = j->ok};
            j->json = NULL;
        } /* else out of memory: the next request queues it again */
        job_free(j);
        n++;
    }
    return n;
}

int ddz_analyst_pending(const ddz_analyst *a)
{
    return a->npending;
}

ddz_analyst_options ddz_analyst_limits(const ddz_analyst *a)
{
    return a->opt;
}
