/* ai.c - the table of hosted AIs, and the workspace their decisions use. */
#include "ai.h"

#include <stdlib.h>
#include <string.h>

#include "ai/greedy.h"
#include "ai/random.h"
#include "ai/strong.h"
#include "rules/error.h"

typedef struct ai_kind {
    const char *name;
    int (*bid)(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws);
    ddz_cards (*play)(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws);
    int (*init)(ddz_ai *ai, uint64_t seed); /* NULL = nothing to set up */
    void (*fini)(ddz_ai *ai);
    void (*budget)(ddz_ai *ai); /* applies budget_ms and budget_units */
    long (*units)(const ddz_ai *ai);
} ai_kind;

struct ddz_ai {
    const ai_kind *kind;
    ddz_rng rng; /* ai:random's stream */
    int budget_ms;
    long budget_units;
    ddz_strong *strong; /* ai:strong's settings and statistics (small) */
};

struct ddz_ai_workspace {
    ddz_move moves[DDZ_MOVES_MAX]; /* move generation of ai:random, ai:greedy */
    ddz_strong_workspace *strong;  /* ai:strong's search tables */
};

ddz_ai_workspace *ddz_ai_workspace_create(void)
{
    ddz_ai_workspace *ws = malloc(sizeof *ws);
    if (!ws)
        return NULL;
    ws->strong = ddz_strong_workspace_create();
    if (!ws->strong) {
        free(ws);
        return NULL;
    }
    return ws;
}

void ddz_ai_workspace_destroy(ddz_ai_workspace *ws)
{
    if (!ws)
        return;
    ddz_strong_workspace_destroy(ws->strong);
    free(ws);
}

static int random_bid(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    (void)ws;
    return ddz_random_bid(&ai->rng, v);
}

static ddz_cards random_play(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    return ddz_random_play(&ai->rng, v, ws->moves, DDZ_MOVES_MAX);
}

static int greedy_bid(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    (void)ai;
    (void)ws;
    return ddz_greedy_bid(v);
}

static ddz_cards greedy_play(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    (void)ai;
    return ddz_greedy_play(v, ws->moves, DDZ_MOVES_MAX);
}

static int strong_init(ddz_ai *ai, uint64_t seed)
{
    ai->strong = ddz_strong_create(seed);
    return ai->strong ? 0 : DDZ_ENOMEM;
}

static void strong_fini(ddz_ai *ai)
{
    ddz_strong_destroy(ai->strong);
}

static void strong_budget(ddz_ai *ai)
{
    ddz_strong_set_budget(ai->strong, ai->budget_ms, ai->budget_units);
}

static long strong_units(const ddz_ai *ai)
{
    return ddz_strong_last(ai->strong)->units;
}

static int strong_bid(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    return ddz_strong_bid(ai->strong, v, ws->strong);
}

static ddz_cards strong_play(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    return ddz_strong_play(ai->strong, v, ws->strong);
}

static const ai_kind kinds[] = {
    {"random", random_bid, random_play, NULL, NULL, NULL, NULL},
    {"greedy", greedy_bid, greedy_play, NULL, NULL, NULL, NULL},
    {"strong", strong_bid, strong_play, strong_init, strong_fini, strong_budget, strong_units},
};

static const ai_kind *find(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

int ddz_ai_exists(const char *name)
{
    return find(name) != NULL;
}

ddz_ai *ddz_ai_create(const char *name, uint64_t seed, int budget_ms, int *err)
{
    const ai_kind *k = find(name);
    if (!k) {
        *err = DDZ_ENOTFOUND;
        return NULL;
    }
    ddz_ai *ai = malloc(sizeof *ai);
    if (!ai) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    ai->kind = k;
    ddz_rng_seed(&ai->rng, seed);
    ai->strong = NULL;
    if (k->init && (*err = k->init(ai, seed)) < 0) {
        free(ai);
        return NULL;
    }
    ddz_ai_set_budget(ai, budget_ms, 0);
    return ai;
}

void ddz_ai_set_budget(ddz_ai *ai, int ms, long units)
{
    ai->budget_ms = ms > 0 ? ms : 0;
    ai->budget_units = units > 0 ? units : 0;
    if (ai->kind->budget)
        ai->kind->budget(ai);
}

void ddz_ai_set_endgame(ddz_ai *ai, int mode)
{
    if (ai->strong)
        ddz_strong_set_endgame(ai->strong, mode);
}

long ddz_ai_last_units(const ddz_ai *ai)
{
    return ai->kind->units ? ai->kind->units(ai) : 0;
}

void ddz_ai_destroy(ddz_ai *ai)
{
    if (ai && ai->kind->fini)
        ai->kind->fini(ai);
    free(ai);
}

const char *ddz_ai_name(const ddz_ai *ai)
{
    return ai->kind->name;
}

int ddz_ai_bid(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    return ai->kind->bid(ai, v, ws);
}

ddz_cards ddz_ai_play(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws)
{
    return ai->kind->play(ai, v, ws);
}
