/* ruleset.c - the table of known rule sets, and what differs between them. */
#include "ruleset.h"

#include <limits.h>
#include <string.h>

#include "game.h"

/* SPEC 5: x(1 + bombs) if any bomb, x2 rocket, x2 spring, x2 anti-spring. */
static int32_t caai_multiplier(const ddz_game *g)
{
    int32_t mult = 1;
    if (g->bombs)
        mult *= 1 + g->bombs;
    if (g->rocket)
        mult *= 2;
    if (g->spring)
        mult *= 2;
    if (g->anti_spring)
        mult *= 2;
    return mult;
}

/* SPEC 5: the landlord wins or loses 2 x 100 x bid x multiplier, each
 * farmer half that with the other sign. */
static void caai_score(const ddz_game *g, int32_t out[3])
{
    int ll = g->landlord;
    int outcome = g->winner == ll ? 1 : -1;
    int32_t unit = outcome * 100 * g->bid * g->multiplier;
    for (int s = 0; s < 3; s++)
        out[s] = s == ll ? 2 * unit : -unit;
}

/* SPEC 6: before the leftover the faulty seat pays each other seat the
 * early penalty; after it, one unit of (held bombs + 1) x bid x 100,
 * doubled for a held rocket, to each farmer and two to the landlord. */
static void caai_penalty(const ddz_game *g, int seat, int32_t out[3])
{
    if (g->phase == DDZ_PHASE_BID) {
        for (int s = 0; s < 3; s++)
            out[s] = s == seat ? -2 * g->early_penalty : g->early_penalty;
        return;
    }
    int32_t unit = (g->held_bombs + 1) * g->bid * 100 * (g->held_rocket ? 2 : 1);
    int ll = g->landlord;
    for (int s = 0; s < 3; s++) {
        if (seat == ll)
            out[s] = s == ll ? -2 * unit : unit;
        else if (s == seat)
            out[s] = -3 * unit;
        else
            out[s] = s == ll ? 2 * unit : unit;
    }
}

const ddz_rules ddz_rules_caai = {
    .name = "caai",
    .version = 1,
    .allpass = DDZ_ALLPASS_NOGAME,
    .kickers_may_repeat = 1,
    .max_bid = 3,
    .deal_maxscore = 350, /* SPEC 6: 2100 / 6 */
    .fault_policy = DDZ_FAULTPOLICY_END,
    .multiplier = caai_multiplier,
    .score = caai_score,
    .penalty = caai_penalty,
};

static const ddz_rules *const known[] = {&ddz_rules_caai};

const ddz_rules *ddz_rules_find(const char *name)
{
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i]->name, name) == 0)
            return known[i];
    return NULL;
}

int ddz_rules_maxscore(const ddz_rules *rs, int games)
{
    if (games <= 0)
        games = 1;
    if (rs->deal_maxscore > 0 && games > INT_MAX / rs->deal_maxscore)
        return INT_MAX;
    return rs->deal_maxscore * games;
}

int ddz_rules_early_penalty(const ddz_rules *rs, int maxscore, int games)
{
    if (maxscore <= 0 || games <= 0)
        return rs->deal_maxscore;
    return maxscore / games;
}

int ddz_rules_legal_bids(const ddz_rules *rs, const int8_t bids[3], int out[DDZ_NBIDS_MAX])
{
    int high = 0;
    for (int s = 0; s < 3; s++)
        if (bids[s] > high)
            high = bids[s];
    int top = rs->max_bid < DDZ_NBIDS_MAX - 1 ? rs->max_bid : DDZ_NBIDS_MAX - 1;
    int n = 0;
    out[n++] = 0;
    for (int b = high + 1; b <= top; b++)
        out[n++] = b;
    return n;
}
