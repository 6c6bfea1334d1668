/* puzzler.c - the server's stock of puzzles on a worker thread of its own
 * (puzzler.h). */
#include "service/puzzles/puzzler.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ai/analysis.h"
#include "ai/puzzle.h"
#include "rules/cards.h"
#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/rating/people_rating.h"
#include "service/puzzles/puzzle_check.h"
#include "service/thread/mailbox.h"

/* One game to examine: the loop's until queued, the worker's after. */
typedef struct job {
    ddz_mail mail;
    int64_t game;
    ddz_record rec; /* some 10 KB: jobs are on the heap */
} job;

/* One attempt to check: the loop's until queued, the worker's until it is
 * put in `adone`, the loop's again after. */
typedef struct attempt {
    ddz_mail mail;
    int64_t id;
    char session[DDZ_SESSION_HEX + 1]; /* "" for a guest; wiped once checked */
    char *body;
    void *owner;
    int rc;
    char *json;
} attempt;

struct ddz_puzzler {
    ddz_puzzler_options opt;
    ddz_store *store;
    ddz_mailbox *todo; /* loop -> worker, bounded by max_games (queued + running) */
    pthread_t thread;
    atomic_bool stop;          /* the worker's game ends at its next position */
    pthread_mutex_t rest_lock; /* the worker's rest, which the stop ends */
    pthread_cond_t rest_end;
    /* the worker's */
    ddz_solver *sv;
    ddz_puzzle *found; /* one examination at a time (some 100 KB) */
    ddz_analysis *an;  /* the replay of the game examined */
    ddz_store_puzzle row;
    /* the attempts' worker */
    ddz_mailbox *atodo, *adone; /* loop -> worker (bounded), worker -> loop */
    pthread_t athread;
    bool astarted;
    bool stopped; /* ddz_puzzler_stop was called */
    void (*wake)(void *ctx);
    void *wake_ctx;
    ddz_solver *asv;
    ddz_store_puzzle apuzzle;
    /* counters: the worker writes, anyone reads */
    atomic_long offered, games, positions, nfound, undecided, cut, dropped, unstored;
    atomic_long busy_ns, rests, rested_ns, rated;
};

static int64_t mono_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Appends `c` as a JSON array of card codes to out (at *len, cap bytes).
 * Returns false when it does not fit. */
static bool put_cards(char *out, size_t cap, size_t *len, ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    for (int i = -1; i <= n; i++) {
        int w = i < 0    ? snprintf(out + *len, cap - *len, "[")
                : i == n ? snprintf(out + *len, cap - *len, "]")
                         : snprintf(out + *len, cap - *len, "%s%d", i ? "," : "", codes[i]);
        if (w < 0 || (size_t)w >= cap - *len)
            return false;
        *len += (size_t)w;
    }
    return true;
}

/* Appends the literal `s`. Returns false when it does not fit. */
static bool put_str(char *out, size_t cap, size_t *len, const char *s)
{
    int w = snprintf(out + *len, cap - *len, "%s", s);
    if (w < 0 || (size_t)w >= cap - *len)
        return false;
    *len += (size_t)w;
    return true;
}

/* Fills p->row with the puzzle found in `g` (before ply `ply` of game
 * `game`), `last` being the cards of the play to beat. Returns false when
 * a field does not fit the store's row. */
static bool make_row(ddz_puzzler *p, int64_t game, int ply, const ddz_game *g, ddz_cards last)
{
    ddz_store_puzzle *r = &p->row;
    const ddz_puzzle *pz = p->found;
    memset(r, 0, sizeof *r);
    r->game = game;
    r->ply = ply;
    snprintf(r->rules, sizeof r->rules, "%s", g->rules->name);
    size_t n = 0;
    bool ok = put_str(r->hands, sizeof r->hands, &n, "[");
    for (int s = 0; ok && s < 3; s++)
        ok = (s == 0 || put_str(r->hands, sizeof r->hands, &n, ",")) &&
             put_cards(r->hands, sizeof r->hands, &n, g->hand[s]);
    ok = ok && put_str(r->hands, sizeof r->hands, &n, "]");
    r->landlord = g->landlord;
    r->turn = g->turn;
    r->last_by = g->last_seat < 0 ? -1 : g->last_seat;
    n = 0;
    if (ok && r->last_by >= 0)
        ok = put_cards(r->last, sizeof r->last, &n, last);
    snprintf(r->side, sizeof r->side, "%s", pz->side == DDZ_SIDE_LANDLORD ? "landlord" : "farmers");
    n = 0;
    ok = ok && put_str(r->solutions, sizeof r->solutions, &n, "[");
    for (int k = 0; ok && k < pz->nsolutions; k++)
        ok = (k == 0 || put_str(r->solutions, sizeof r->solutions, &n, ",")) &&
             put_cards(r->solutions, sizeof r->solutions, &n,
                       ddz_cards_pick(g->hand[g->turn], pz->solutions[k]));
    ok = ok && put_str(r->solutions, sizeof r->solutions, &n, "]");
    r->moves = pz->nmoves;
    r->difficulty = ddz_puzzle_difficulty(pz->nmoves, pz->nsolutions);
    return ok;
}

/* Examines every small enough position of job `j` within the budget. */
static void examine(ddz_puzzler *p, const job *j)
{
    const ddz_rules *rs = ddz_rules_find(j->rec.rules);
    if (!rs || ddz_analysis_begin(p->an, &j->rec, rs, p->sv) < 0)
        return; /* not reached for a game the server played: it replays */
    atomic_fetch_add(&p->games, 1);
    int64_t start = mono_ns(NULL), game_ns = (int64_t)p->opt.game_ms * 1000000,
            pos_ns = (int64_t)p->opt.position_ms * 1000000;
    ddz_cards last = 0; /* the cards of the latest play that was not a pass */
    const ddz_game *g;
    while ((g = ddz_analysis_position(p->an)) && !atomic_load(&p->stop)) {
        int ply = p->an->next;
        ddz_solver_pos pos;
        if (ddz_solver_pos_of_game(g, &pos) == 0 && ddz_puzzle_cards(&pos) <= p->opt.max_cards) {
            int64_t now = mono_ns(NULL), left = start + game_ns - now;
            if (left <= 0) {
                atomic_fetch_add(&p->cut, 1);
                return;
            }
            ddz_solver_budget b = {.nodes = p->opt.nodes,
                                   .clock = mono_ns,
                                   .deadline = now + (left < pos_ns ? left : pos_ns)};
            atomic_fetch_add(&p->positions, 1);
            int rc = ddz_puzzle_find(p->sv, rs, &pos, &b, p->found);
            if (rc == 1) {
                atomic_fetch_add(&p->nfound, 1);
                if (!make_row(p, j->game, ply, g, last) ||
                    ddz_store_add_puzzle(p->store, &p->row) < 0)
                    atomic_fetch_add(&p->unstored, 1);
            } else if (rc < 0) {
                atomic_fetch_add(&p->undecided, 1);
            }
        }
        if (j->rec.plays[ply].cards)
            last = j->rec.plays[ply].cards;
        ddz_analysis_skip(p->an);
    }
}

/* Rests `ns` nanoseconds, or until the stop. */
static void rest(ddz_puzzler *p, int64_t ns)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    int64_t t = (int64_t)until.tv_sec * 1000000000 + until.tv_nsec + ns;
    until = (struct timespec){.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
    pthread_mutex_lock(&p->rest_lock);
    while (!atomic_load(&p->stop) &&
           pthread_cond_timedwait(&p->rest_end, &p->rest_lock, &until) == 0) {
    }
    pthread_mutex_unlock(&p->rest_lock);
}

/* How much lower than the loop the stock is built (a nice value): as the
 * password hashes (pwhash.c), so that the loop is served first. */
#define WORKER_NICE 10

static void *worker(void *arg)
{
    ddz_puzzler *p = arg;
    ddz_mail *m;
    /* Linux: a thread's nice value is its own. Should it fail, the thread
     * runs at the loop's priority, its share still bounded by the rests. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE);
    while ((m = ddz_mailbox_take(p->todo, 1, NULL))) {
        job *j = DDZ_MAIL_ITEM(m, job, mail);
        int64_t start = mono_ns(NULL);
        examine(p, j);
        free(j);
        int64_t took = mono_ns(NULL) - start;
        atomic_fetch_add(&p->busy_ns, took);
        /* done before the rest: a flush waits for the games, not the rests */
        ddz_mailbox_done(p->todo, 1);
        if (p->opt.share < 100) {
            int64_t t0 = mono_ns(NULL);
            rest(p, took * (100 - p->opt.share) / p->opt.share);
            atomic_fetch_add(&p->rested_ns, mono_ns(NULL) - t0);
            atomic_fetch_add(&p->rests, 1);
        }
    }
    return NULL;
}

static void attempt_free(attempt *a)
{
    if (!a)
        return;
    sodium_memzero(a->session, sizeof a->session);
    free(a->body);
    free(a->json);
    free(a);
}

/* Frees a chain of attempts, their owners too (never collected). */
static void attempts_free(ddz_mail *m)
{
    while (m) {
        ddz_mail *next = m->next;
        attempt *a = DDZ_MAIL_ITEM(m, attempt, mail);
        free(a->owner);
        attempt_free(a);
        m = next;
    }
}

/* Adds to a finished attempt's answer (solved or failed) the game it
 * came from and, for a person signed in (`account` > 0), the rating of
 * the attempt if it is their first at the puzzle. An answer that cannot
 * be amended is left as it is: the check stands, the rating is lost
 * (logged by the store). */
static void finish_attempt(ddz_puzzler *p, attempt *a, int64_t account)
{
    json_t *o = json_loads(a->json, 0, NULL);
    const char *res = json_string_value(json_object_get(o, "result"));
    bool solved = res && strcmp(res, "solved") == 0;
    if (!res || (!solved && strcmp(res, "failed") != 0)) {
        json_decref(o);
        return; /* "continue": nothing ended */
    }
    const ddz_store_puzzle *pz = &p->apuzzle;
    json_object_set_new(o, "game", json_integer(pz->game));
    json_object_set_new(o, "ply", json_integer(pz->ply));
    ddz_store_puzzle_rating r;
    if (account > 0 && ddz_store_puzzle_rate(p->store, account, a->id, solved, &r) == 1) {
        atomic_fetch_add(&p->rated, 1);
        json_object_set_new(o, "rated",
                            json_pack("{s:f, s:f, s:f, s:f, s:f}", "before",
                                      round(10 * ddz_people_rating_shown(r.mu_before)) / 10,
                                      "after", round(10 * ddz_people_rating_shown(r.mu)) / 10,
                                      "deviation",
                                      round(10 * ddz_people_rating_deviation(r.sigma)) / 10,
                                      "puzzle_before", round(10 * r.puzzle_before) / 10,
                                      "puzzle_after", round(10 * r.puzzle_after) / 10));
    }
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (text) {
        free(a->json);
        a->json = text;
    }
}

/* Checks attempt `a`: whose session (a blocking read: this thread's), the
 * puzzle read, the line replayed within the attempt's budget, and a
 * finished line's rating. */
static void check_attempt(ddz_puzzler *p, attempt *a)
{
    int64_t account = 0;
    if (a->session[0]) {
        ddz_store_account who;
        a->rc = ddz_store_session_check(p->store, a->session, &who);
        sodium_memzero(a->session, sizeof a->session);
        if (a->rc < 0)
            return; /* DDZ_EAUTH: no live session */
        account = who.id;
    }
    a->rc = ddz_store_puzzle_get(p->store, a->id, &p->apuzzle);
    if (a->rc < 0)
        return;
    ddz_solver_budget b = {.nodes = DDZ_PUZZLER_ATTEMPT_NODES,
                           .clock = mono_ns,
                           .deadline = mono_ns(NULL) + (int64_t)DDZ_PUZZLER_ATTEMPT_MS * 1000000};
    a->rc = ddz_puzzle_check(p->asv, &p->apuzzle, a->body, &b, &a->json);
    if (a->rc == 0)
        finish_attempt(p, a, account);
}

static void *attempt_worker(void *arg)
{
    ddz_puzzler *p = arg;
    ddz_mail *m;
    while ((m = ddz_mailbox_take(p->atodo, 1, NULL))) {
        attempt *a = DDZ_MAIL_ITEM(m, attempt, mail);
        if (atomic_load(&p->stop))
            a->rc = DDZ_EINVAL;
        else
            check_attempt(p, a);
        ddz_mailbox_put(p->adone, &a->mail); /* unbounded */
        ddz_mailbox_done(p->atodo, 1);
        p->wake(p->wake_ctx);
    }
    return NULL;
}

int ddz_puzzler_attempts_start(ddz_puzzler *p, void (*wake)(void *ctx), void *ctx)
{
    if (p->astarted || !wake)
        return DDZ_EINVAL;
    p->wake = wake;
    p->wake_ctx = ctx;
    p->atodo = ddz_mailbox_create(DDZ_PUZZLER_ATTEMPTS, false);
    p->adone = ddz_mailbox_create(0, false);
    p->asv = ddz_solver_create(DDZ_PUZZLER_TT_BITS);
    if (!p->atodo || !p->adone || !p->asv ||
        pthread_create(&p->athread, NULL, attempt_worker, p) != 0) {
        ddz_mailbox_destroy(p->atodo);
        ddz_mailbox_destroy(p->adone);
        ddz_solver_destroy(p->asv);
        p->atodo = p->adone = NULL;
        p->asv = NULL;
        return DDZ_ENOMEM;
    }
    p->astarted = true;
    return 0;
}

int ddz_puzzler_attempt(ddz_puzzler *p, int64_t id, const char *body, const char *session,
                        void *owner)
{
    if (!p->astarted || p->stopped || (session && strlen(session) != DDZ_SESSION_HEX))
        return DDZ_EINVAL;
    attempt *a = calloc(1, sizeof *a);
    if (!a || !(a->body = strdup(body ? body : ""))) {
        attempt_free(a);
        return DDZ_ENOMEM;
    }
    if (session)
        memcpy(a->session, session, sizeof a->session);
    a->id = id;
    a->owner = owner;
    if (ddz_mailbox_put(p->atodo, &a->mail) < 0) { /* full */
        attempt_free(a);
        return DDZ_EBUSY;
    }
    return 0;
}

int ddz_puzzler_collect(ddz_puzzler *p,
                        void (*done)(void *ctx, void *owner, int rc, const char *json), void *ctx)
{
    if (!p->astarted)
        return 0;
    int n = 0;
    ddz_mail *m;
    while ((m = ddz_mailbox_get(p->adone))) {
        attempt *a = DDZ_MAIL_ITEM(m, attempt, mail);
        done(ctx, a->owner, a->rc, a->json);
        attempt_free(a);
        n++;
    }
    return n;
}

/* Frees what ddz_puzzler_create made (any of it NULL), and `p`: its
 * failure's way out and the end of ddz_puzzler_destroy. */
static void free_parts(ddz_puzzler *p)
{
    ddz_mailbox_destroy(p->todo);
    ddz_solver_destroy(p->sv);
    free(p->found);
    free(p->an);
    pthread_cond_destroy(&p->rest_end);
    pthread_mutex_destroy(&p->rest_lock);
    free(p);
}

ddz_puzzler *ddz_puzzler_create(const ddz_puzzler_options *opt, ddz_store *store)
{
    ddz_puzzler *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    ddz_puzzler_options o = opt ? *opt : (ddz_puzzler_options){.max_games = -1};
    o.max_games = o.max_games < 0                       ? DDZ_PUZZLER_GAMES
                  : o.max_games > DDZ_PUZZLER_GAMES_MAX ? DDZ_PUZZLER_GAMES_MAX
                                                        : o.max_games;
    o.nodes = o.nodes > 0 ? o.nodes : DDZ_PUZZLER_NODES;
    o.position_ms = o.position_ms > 0 ? o.position_ms : DDZ_PUZZLER_POSITION_MS;
    o.game_ms = o.game_ms > 0 ? o.game_ms : DDZ_PUZZLER_GAME_MS;
    o.max_cards = o.max_cards > 0 ? o.max_cards : DDZ_PUZZLE_MAX_CARDS;
    o.share = o.share <= 0 ? DDZ_PUZZLER_SHARE : o.share > 100 ? 100 : o.share;
    p->opt = o;
    pthread_mutex_init(&p->rest_lock, NULL);
    pthread_cond_init(&p->rest_end, NULL);
    p->store = store;
    /* max_games 0: a box of one that is never put to */
    p->todo = ddz_mailbox_create(o.max_games > 0 ? (size_t)o.max_games : 1, false);
    p->sv = ddz_solver_create(DDZ_PUZZLER_TT_BITS);
    p->found = malloc(sizeof *p->found);
    p->an = malloc(sizeof *p->an);
    if (!p->todo || !p->sv || !p->found || !p->an ||
        pthread_create(&p->thread, NULL, worker, p) != 0) {
        free_parts(p);
        return NULL;
    }
    return p;
}

void ddz_puzzler_stop(ddz_puzzler *p)
{
    if (!p || p->stopped)
        return;
    p->stopped = true;
    pthread_mutex_lock(&p->rest_lock);
    atomic_store(&p->stop, true);
    pthread_cond_signal(&p->rest_end);
    pthread_mutex_unlock(&p->rest_lock);
    ddz_mailbox_close(p->todo, DDZ_MAILBOX_DROP);
    pthread_join(p->thread, NULL);
    if (p->astarted) {
        ddz_mailbox_close(p->atodo, DDZ_MAILBOX_DROP);
        pthread_join(p->athread, NULL); /* a check running ends within its budget */
        /* the attempts never checked are answered as such, so that their
         * owners come back through ddz_puzzler_collect */
        for (ddz_mail *m = ddz_mailbox_get_all(p->atodo), *next; m; m = next) {
            next = m->next;
            attempt *a = DDZ_MAIL_ITEM(m, attempt, mail);
            a->rc = DDZ_EINVAL;
            ddz_mailbox_put(p->adone, &a->mail); /* unbounded */
        }
    }
}

void ddz_puzzler_destroy(ddz_puzzler *p)
{
    if (!p)
        return;
    ddz_puzzler_stop(p);
    for (ddz_mail *m = ddz_mailbox_get_all(p->todo), *next; m; m = next) {
        next = m->next;
        free(DDZ_MAIL_ITEM(m, job, mail));
    }
    if (p->astarted) {
        attempts_free(ddz_mailbox_get_all(p->adone));
        ddz_mailbox_destroy(p->atodo);
        ddz_mailbox_destroy(p->adone);
        ddz_solver_destroy(p->asv);
    }
    free_parts(p);
}

int ddz_puzzler_examine(ddz_puzzler *p, int64_t game, const ddz_record *r)
{
    if (game < 1 || !r)
        return DDZ_EINVAL;
    atomic_fetch_add(&p->offered, 1);
    if (p->opt.max_games == 0) {
        atomic_fetch_add(&p->dropped, 1);
        return DDZ_EBUSY;
    }
    job *j = malloc(sizeof *j);
    if (!j)
        return DDZ_ENOMEM;
    j->game = game;
    j->rec = *r;
    if (ddz_mailbox_put(p->todo, &j->mail) < 0) { /* full (or closed) */
        free(j);
        atomic_fetch_add(&p->dropped, 1);
        return DDZ_EBUSY;
    }
    return 0;
}

void ddz_puzzler_flush(ddz_puzzler *p)
{
    ddz_mailbox_flush(p->todo);
}

void ddz_puzzler_stats_get(ddz_puzzler *p, ddz_puzzler_stats *out)
{
    *out = (ddz_puzzler_stats){
        .offered = atomic_load(&p->offered),
        .games = atomic_load(&p->games),
        .positions = atomic_load(&p->positions),
        .found = atomic_load(&p->nfound),
        .undecided = atomic_load(&p->undecided),
        .cut = atomic_load(&p->cut),
        .dropped = atomic_load(&p->dropped),
        .unstored = atomic_load(&p->unstored),
        .busy_ms = atomic_load(&p->busy_ns) / 1000000,
        .rests = atomic_load(&p->rests),
        .rested_ms = atomic_load(&p->rested_ns) / 1000000,
        .rated = atomic_load(&p->rated),
    };
}

ddz_puzzler_options ddz_puzzler_limits(const ddz_puzzler *p)
{
    return p->opt;
}
