/* ruleset.c - the table of known rule sets, and what differs between them. */
#include "ruleset.h"

#include <limits.h>
#include <string.h>

#include "combo.h"
#include "game.h"
#include "record.h"

/* Appends the term {kind, seat, value} to out[*n]; the callers stay within
 * DDZ_TERMS_MAX by construction (see its comment). Returns the term, for
 * the fields its kind has besides. */
static ddz_term *term(ddz_term *out, int *n, int kind, int seat, double value)
{
    ddz_term *t = &out[(*n)++];
    *t = (ddz_term){.kind = (uint8_t)kind, .seat = (int8_t)seat, .value = value};
    return t;
}

/* The factors spring and anti-spring and the rocket give, each x2 in every
 * rule set that has a multiplier, and the bombs' (`bombs`, counted). */
static void doublings(const ddz_game *g, double bombs, ddz_term *out, int *n)
{
    if (g->bombs)
        term(out, n, DDZ_TERM_BOMBS, -1, bombs)->count = g->bombs;
    if (g->rocket)
        term(out, n, DDZ_TERM_ROCKET, -1, 2);
    if (g->spring)
        term(out, n, DDZ_TERM_SPRING, -1, 2);
    if (g->anti_spring)
        term(out, n, DDZ_TERM_ANTI_SPRING, -1, 2);
}

/* What a side wins or loses, read off the scores the rules gave: the
 * landlord's and a farmer's, as amounts (> 0). */
static void shares(const ddz_game *g, ddz_term *out, int *n)
{
    int ll = g->landlord;
    double f = g->score[(ll + 1) % 3];
    term(out, n, DDZ_TERM_FARMER, -1, f < 0 ? -f : f);
    term(out, n, DDZ_TERM_LANDLORD, -1, g->score[ll] < 0 ? -g->score[ll] : g->score[ll]);
}

/* spec §5: x(1 + bombs) if any bomb, x2 rocket, x2 spring, x2 anti-spring. */
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

/* spec §5 during a game: x(1 + bombs) if any bomb, x2 rocket. */
static int32_t caai_so_far(const ddz_game *g)
{
    return (g->bombs ? 1 + g->bombs : 1) * (g->rocket ? 2 : 1);
}

/* spec §5: the landlord wins or loses 2 x 100 x bid x multiplier, each
 * farmer half that with the other sign. */
static void caai_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord;
    int outcome = g->winner == ll ? 1 : -1;
    int32_t unit = outcome * 100 * g->bid * g->multiplier;
    for (int s = 0; s < 3; s++)
        out[s] = s == ll ? 2 * unit : -unit;
}

/* spec §6: before the leftover the faulty seat pays each other seat the
 * early penalty; after it, one unit of (held bombs + 1) x bid x 100,
 * doubled for a held rocket, to each farmer and two to the landlord. */
static void caai_penalty(const ddz_game *g, int seat, double out[3])
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

/* spec §5: bid x multiplier (from 1: the bombs, the rocket, spring,
 * anti-spring) x 100, twice for the landlord; spec §6: a fault's penalty
 * unit, the early penalty before the leftover. */
static int caai_explain(const ddz_game *g, const ddz_record_play *plays, int nplays,
                        ddz_term out[DDZ_TERMS_MAX])
{
    (void)plays, (void)nplays;
    int n = 0, seat = g->fault_seat;
    if (seat >= 0) {
        /* one unit is what a seat that is neither the faulty one nor the
         * landlord gets (spec §6), read off the penalty's own scores */
        int other = (seat + 1) % 3 == g->landlord ? (seat + 2) % 3 : (seat + 1) % 3;
        term(out, &n, DDZ_TERM_PENALTY, seat, g->score[other])->fault = g->fault_kind;
        return n;
    }
    if (g->winner < 0)
        return 0; /* all passed: nothing scored */
    term(out, &n, DDZ_TERM_BID, -1, g->bid);
    term(out, &n, DDZ_TERM_START, -1, 1);
    doublings(g, 1 + g->bombs, out, &n);
    term(out, &n, DDZ_TERM_MULTIPLIER, -1, g->multiplier);
    term(out, &n, DDZ_TERM_UNIT, -1, (double)g->bid * g->multiplier);
    shares(g, out, &n);
    return n;
}

const ddz_rules ddz_rules_caai = {
    .name = "caai",
    .version = 1,
    .bidding = DDZ_BIDDING_LADDER,
    .allpass = DDZ_ALLPASS_NOGAME,
    .kickers_may_repeat = 1,
    .quad_straight = 0,
    .max_bid = 3,
    .deal_maxscore = 350, /* spec §6: 2100 / 6 */
    .default_time_ms = 15000,
    .fault_policy = DDZ_FAULTPOLICY_END,
    .score_unit = 100,
    .play_weight = NULL,
    .multiplier = caai_multiplier,
    .multiplier_so_far = caai_so_far,
    .score = caai_score,
    .penalty = caai_penalty,
    .explain = caai_explain,
};

/* ---- Botzone (spec §8, seed 002) ---- */

/* Seed 002's table: single 1, pair 2, trio (with or without a kicker) 4,
 * straight and pair straight 6, plane (with or without wings) and four_two 8,
 * bomb 10, quad straight of two fours 10, rocket 16, of three or more 20. */
static int ftl_weight(const ddz_combo *c)
{
    switch (c->type) {
    case DDZ_SINGLE:
        return 1;
    case DDZ_PAIR:
        return 2;
    case DDZ_TRIO:
    case DDZ_TRIO_KICKER:
        return 4;
    case DDZ_STRAIGHT:
    case DDZ_PAIR_STRAIGHT:
        return 6;
    case DDZ_TRIO_STRAIGHT:
    case DDZ_PLANE:
    case DDZ_FOUR_TWO:
        return 8;
    case DDZ_BOMB:
        return 10;
    case DDZ_QUAD_STRAIGHT:
        return c->length >= 3 ? 20 : 10;
    case DDZ_ROCKET:
        return 16;
    default:
        return 0;
    }
}

/* FightTheLandlord has no multiplier: the scores count plays instead. */
static int32_t ftl_multiplier(const ddz_game *g)
{
    (void)g;
    return 1;
}

static int32_t ftl_so_far(const ddz_game *g)
{
    (void)g;
    return 0;
}

enum { FTL_WIN = 2 }; /* what the winning side scores before its plays */

/* 2 for the winning side, 0 for the other, plus weight / 100; the farmers
 * get the mean of their two: (400 x won + w1 + w2) / 200. Each score is one
 * division of whole numbers (see DDZ_SCORE_DENOM). */
static void ftl_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord, f1 = (ll + 1) % 3, f2 = (ll + 2) % 3;
    int ll_won = g->winner == ll;
    out[ll] = (200 * FTL_WIN * ll_won + 2 * g->weight[ll]) / 200.0;
    out[f1] = out[f2] = (200 * FTL_WIN * !ll_won + g->weight[f1] + g->weight[f2]) / 200.0;
}

/* The faulty side -1, the other side 2.5. */
static void ftl_penalty(const ddz_game *g, int seat, double out[3])
{
    int ll = g->landlord;
    for (int s = 0; s < 3; s++)
        out[s] = (seat == ll) == (s == ll) ? -1.0 : 2.5;
}

/* A fault: the faulty side's score and the other's. A won game: for the
 * landlord, then each farmer, its side's win points, its plays by type with
 * their points (weighed as ftl_weight does, the type as the classifier
 * reads the cards) and their sum; then the mean of the farmers' sums, which
 * each of them scores besides its win points. */
static int ftl_explain(const ddz_game *g, const ddz_record_play *plays, int nplays,
                       ddz_term out[DDZ_TERMS_MAX])
{
    int n = 0, ll = g->landlord;
    if (g->fault_seat >= 0) {
        int seat = g->fault_seat, other = seat == ll ? (ll + 1) % 3 : ll;
        term(out, &n, DDZ_TERM_FORFEIT, seat, g->score[seat])->fault = g->fault_kind;
        term(out, &n, DDZ_TERM_AWARD, -1, g->score[other]);
        return n;
    }
    if (g->winner < 0 || ll < 0)
        return 0;
    uint8_t count[3][DDZ_NTYPES] = {{0}};
    int weight[3][DDZ_NTYPES] = {{0}};
    for (int i = 0; i < nplays; i++) {
        const ddz_record_play *p = &plays[i];
        if (!p->cards || p->seat > 2)
            continue;
        /* the weight needs the whole combination (a quad straight's
         * length), so the cards are read again, not a stored type */
        ddz_combo c = ddz_combo_classify(g->rules, ddz_cards_ranks(p->cards));
        if (c.type == DDZ_INVALID || c.type == DDZ_PASS)
            continue;
        count[p->seat][c.type]++;
        weight[p->seat][c.type] += ftl_weight(&c);
    }
    for (int k = 0; k < 3; k++) {
        int s = (ll + k) % 3;
        term(out, &n, DDZ_TERM_WIN, s, (g->winner == ll) == (s == ll) ? FTL_WIN : 0);
        for (int t = DDZ_ROCKET; t < DDZ_PASS; t++) {
            if (!count[s][t])
                continue;
            ddz_term *x = term(out, &n, DDZ_TERM_PLAYS, s, weight[s][t] / 100.0);
            x->combo = (uint8_t)t;
            x->count = count[s][t];
        }
        term(out, &n, DDZ_TERM_POINTS, s, g->weight[s] / 100.0);
    }
    term(out, &n, DDZ_TERM_MEAN, -1, (g->weight[(ll + 1) % 3] + g->weight[(ll + 2) % 3]) / 200.0);
    return n;
}

/* max(bid, 1) x 2^(bombs + rocket + spring + anti-spring). */
static int32_t ftl2_multiplier(const ddz_game *g)
{
    int32_t base = g->bid > 1 ? g->bid : 1;
    return base << (g->bombs + g->rocket + g->spring + g->anti_spring);
}

/* x2 for every bomb and the rocket, so far (the bid is the stake's base). */
static int32_t ftl2_so_far(const ddz_game *g)
{
    return (int32_t)1 << (g->bombs + g->rocket);
}

/* The landlord wins or loses 2m, each farmer m with the other sign. */
static void ftl2_score(const ddz_game *g, double out[3])
{
    int ll = g->landlord;
    int32_t m = g->winner == ll ? g->multiplier : -g->multiplier;
    for (int s = 0; s < 3; s++)
        out[s] = s == ll ? 2 * m : -m;
}

/* Only three faulty seats end a game: every score -1. */
static void ftl2_penalty(const ddz_game *g, int seat, double out[3])
{
    (void)g, (void)seat;
    for (int s = 0; s < 3; s++)
        out[s] = -1.0;
}

/* Each fault (the referee played on), then the stake m = max(bid, 1) x 2
 * for each bomb, the rocket, spring and anti-spring, 2m for the landlord;
 * or, once all three faulted, the score they all get. */
static int ftl2_explain(const ddz_game *g, const ddz_record_play *plays, int nplays,
                        ddz_term out[DDZ_TERMS_MAX])
{
    (void)plays, (void)nplays;
    int n = 0;
    if (g->nfaults == 3) {
        term(out, &n, DDZ_TERM_ALL_FAULTED, -1, g->score[0]);
        return n;
    }
    for (int i = 0; i < g->nfaults; i++)
        term(out, &n, DDZ_TERM_STANDIN, g->faults[i].seat, 0)->fault = g->faults[i].kind;
    if (g->winner < 0 || g->landlord < 0)
        return n;
    term(out, &n, DDZ_TERM_BASE, -1, g->bid > 1 ? g->bid : 1);
    doublings(g, (double)((int32_t)1 << g->bombs), out, &n);
    term(out, &n, DDZ_TERM_STAKE, -1, g->multiplier);
    shares(g, out, &n);
    return n;
}

const ddz_rules ddz_rules_botzone_ftl = {
    .name = "botzone-ftl",
    .version = 1,
    .bidding = DDZ_BIDDING_NONE,
    .allpass = DDZ_ALLPASS_NOGAME, /* never asked: nobody bids */
    .kickers_may_repeat = 0,
    .quad_straight = 1,
    .max_bid = 3,
    .deal_maxscore = 0,
    .default_time_ms = 3000, /* spec §8: a bot's process start-up fits */
    .fault_policy = DDZ_FAULTPOLICY_END,
    .score_unit = 1,
    .play_weight = ftl_weight,
    .multiplier = ftl_multiplier,
    .multiplier_so_far = ftl_so_far,
    .score = ftl_score,
    .penalty = ftl_penalty,
    .explain = ftl_explain,
};

const ddz_rules ddz_rules_botzone_ftl2 = {
    .name = "botzone-ftl2",
    .version = 1,
    .bidding = DDZ_BIDDING_LADDER,
    .allpass = DDZ_ALLPASS_WEST,
    .kickers_may_repeat = 0,
    .quad_straight = 1,
    .max_bid = 3,
    .deal_maxscore = 0,
    .default_time_ms = 3000,
    .fault_policy = DDZ_FAULTPOLICY_PLAY_ON,
    .score_unit = 1,
    .play_weight = NULL,
    .multiplier = ftl2_multiplier,
    .multiplier_so_far = ftl2_so_far,
    .score = ftl2_score,
    .penalty = ftl2_penalty,
    .explain = ftl2_explain,
};

static const ddz_rules *const known[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl,
                                         &ddz_rules_botzone_ftl2};

const ddz_rules *ddz_rules_at(int i)
{
    return i >= 0 && (unsigned)i < sizeof known / sizeof known[0] ? known[i] : NULL;
}

const ddz_rules *ddz_rules_find(const char *name)
{
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i]->name, name) == 0)
            return known[i];
    return NULL;
}

const char *ddz_rules_names(void)
{
    return "caai, botzone-ftl, botzone-ftl2";
}

/* Each kind's JSON name and fields, in enum ddz_term_kind's order. */
static const struct {
    const char *name;
    unsigned fields;
} term_kinds[DDZ_NTERM_KINDS] = {
    [DDZ_TERM_BID] = {"bid", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_START] = {"start", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_BASE] = {"base", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_BOMBS] = {"bombs", DDZ_TERM_HAS_COUNT | DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_ROCKET] = {"rocket", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_SPRING] = {"spring", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_ANTI_SPRING] = {"anti_spring", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_MULTIPLIER] = {"multiplier", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_UNIT] = {"unit", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_STAKE] = {"stake", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_FARMER] = {"farmer", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_LANDLORD] = {"landlord", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_WIN] = {"win", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_PLAYS] = {"plays", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_COMBO | DDZ_TERM_HAS_COUNT |
                                     DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_POINTS] = {"points", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_MEAN] = {"mean", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_PENALTY] = {"penalty", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_FAULT | DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_FORFEIT] = {"forfeit", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_FAULT | DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_AWARD] = {"award", DDZ_TERM_HAS_VALUE},
    [DDZ_TERM_STANDIN] = {"standin", DDZ_TERM_HAS_SEAT | DDZ_TERM_HAS_FAULT},
    [DDZ_TERM_ALL_FAULTED] = {"all_faulted", DDZ_TERM_HAS_VALUE},
};

const char *ddz_term_name(int kind)
{
    return kind > 0 && kind < DDZ_NTERM_KINDS ? term_kinds[kind].name : "invalid";
}

int ddz_term_from_name(const char *name)
{
    for (int k = 1; k < DDZ_NTERM_KINDS; k++)
        if (strcmp(name, term_kinds[k].name) == 0)
            return k;
    return -1;
}

unsigned ddz_term_fields(int kind)
{
    return kind > 0 && kind < DDZ_NTERM_KINDS ? term_kinds[kind].fields : 0;
}

double ddz_score_add(double a, double b)
{
    /* no libm in rules/: round half away from zero by hand; |x| stays far
     * below 2^63 for any series */
    double x = (a + b) * DDZ_SCORE_DENOM;
    long long k = (long long)(x < 0 ? x - 0.5 : x + 0.5);
    return (double)k / DDZ_SCORE_DENOM;
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
