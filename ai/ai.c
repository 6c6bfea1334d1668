/* ai.c - the table of hosted AIs and their shared scratch space. */
#include "ai.h"

#include <stdlib.h>
#include <string.h>

#include "ai/greedy.h"
#include "ai/random.h"
#include "rules/error.h"

typedef struct ai_kind {
    const char *name;
    int (*bid)(ddz_ai *ai, const ddz_view *v);
    ddz_cards (*play)(ddz_ai *ai, const ddz_view *v);
} ai_kind;

struct ddz_ai {
    const ai_kind *kind;
    ddz_rng rng;
    int budget_ms;
    ddz_move moves[DDZ_MOVES_MAX]; /* scratch for move generation */
};

static int random_bid(ddz_ai *ai, const ddz_view *v)
{
    return ddz_random_bid(&ai->rng, v);
}

static ddz_cards random_play(ddz_ai *ai, const ddz_view *v)
{
    return ddz_random_play(&ai->rng, v, ai->moves, DDZ_MOVES_MAX);
}

static int greedy_bid(ddz_ai *ai, const ddz_view *v)
{
    (void)ai;
    return ddz_greedy_bid(v);
}

static ddz_cards greedy_play(ddz_ai *ai, const ddz_view *v)
{
    return ddz_greedy_play(v, ai->moves, DDZ_MOVES_MAX);
}

static const ai_kind kinds[] = {
    {"random", random_bid, random_play},
    {"greedy", greedy_bid, greedy_play},
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
    ai->budget_ms = budget_ms;
    return ai;
}

void ddz_ai_destroy(ddz_ai *ai)
{
    free(ai);
}

const char *ddz_ai_name(const ddz_ai *ai)
{
    return ai->kind->name;
}

int ddz_ai_bid(ddz_ai *ai, const ddz_view *v)
{
    return ai->kind->bid(ai, v);
}

ddz_cards ddz_ai_play(ddz_ai *ai, const ddz_view *v)
{
    return ai->kind->play(ai, v);
}
