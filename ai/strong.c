/* strong.c - ai:strong: determinized Monte Carlo search with greedy
 * playouts, and exact search in the endgame.
 *
 * What it knows. Only the ddz_view: its own hand, the bids, the leftover
 * once shown, every card played and how many cards each seat holds. The
 * hidden cards (neither its own nor played) are dealt at random to the two
 * other seats, each getting as many as it holds; a farmer puts the
 * landlord's leftover cards that the landlord has not played yet into the
 * landlord's hand first. Deals are weighted by the bids: a seat's hand as
 * dealt (what it holds plus what it played, less the leftover) should make
 * the bid the seat made, by ai:greedy's bidding as the model; a deal that
 * does not fit is redrawn, up to BID_TRIES times, and kept anyway with odds
 * 1 in BID_MISFIT_ODDS, since other players bid otherwise. When the hidden
 * cards can be split only a few ways (at most ENUM_MAX), every split is used
 * once instead, in random order (card counting made exact when the budget
 * covers them all).
 *
 * Bidding. The hand is played out as landlord on sampled deals (the other
 * 37 cards split 17 / 17 / 3 leftover, weighted by the earlier bids as
 * above), every seat played by ai:greedy. The mean result per unit of bid
 * (+2 x multiplier for a win, -2 x multiplier for a loss) is the hand's
 * value as landlord, and the bid is 3, 2, 1 or 0 by thresholds on it (0
 * when not above the highest bid). caai's thresholds were calibrated on
 * 3,000 deals where ai:strong (100 units a decision) then played the hand as
 * landlord against two ai:greedy: its mean result per unit of bid crosses
 * zero near a value of -0.3 (it plays better than the greedy playouts
 * assume), and a landlord's result is linear in the bid, so a hand that
 * should be played as landlord is bid 3; near the line it bids 2 or 1, and
 * after an earlier bid it asks a little more. The thresholds are a line per
 * all-pass rule (bid_lines, by rules->allpass). botzone-ftl2's (all pass:
 * West is landlord at bid 1) was calibrated at 300 units a decision, by what
 * the choice is between: on 2,600 deals (4,500 hands with values between
 * -1.7 and 0.3) each hand was played twice against two ai:greedy, bidding 3
 * and passing, the other seats bidding as ai:greedy does. Bidding 3 beats
 * passing from a value of about -0.85, with or without earlier bids: passing
 * is not worth 0, since another seat then plays the deal as landlord.
 * Measured the same way, caai crosses at the same value (-0.87), and
 * strong's result as landlord crosses zero near -0.56 under botzone-ftl2 and
 * -0.59 under caai (300 units): the two lines differ by how they were
 * calibrated, not measurably by the rule set, and caai's is left as it was
 * (docs/ai.md).
 *
 * Playing. A play that empties the hand is made at once (where the rule set
 * scores plays, ai:greedy's choice: a heavier sure line if there is one),
 * and a forced move (one legal play) without search. Otherwise the
 * candidates are: ai:greedy's choice, the pass when following, the smallest
 * bomb and the rocket when following, and the plays whose remaining hand
 * decomposes best (ai/hand.h), at most two per type and main rank,
 * PRIOR_CAND in all; in the endgame (below), every legal play. On each
 * sampled deal every live candidate is played and the game finished: by
 * exact search (below) when few cards are left, else by an ai:greedy playout
 * for every seat. The value is the seat's score divided by the rule set's
 * score_unit x bid (a landlord's plain win is 2 under every rule set, so
 * that values from playouts and from exact search, and bid thresholds, mean
 * the same whatever the scores' scale). All candidates are evaluated on the
 * same deals (common random numbers), and a candidate is dropped once its
 * mean is below the best's by more than Z_PRUNE standard errors of the
 * paired differences; the search ends when one candidate is left, every
 * split has been used, or the budget is spent. The best mean wins; ties go
 * to the earlier candidate (greedy's choice first).
 *
 * Roles come from the playouts (the partner is played by the same policy,
 * scores are by side) plus one rule before the search: a farmer whose
 * partner's play cannot be beaten by the landlord passes, outside the
 * exact-search range.
 *
 * Endgame. When at most SOLVE_CARDS cards are left in the three hands, a
 * sampled deal is a perfect-information game between two sides, solved
 * exactly (ai/solver.h), at most DDZ_STRONG_SOLVE_NODES nodes per search
 * (DDZ_STRONG_UNIT_NODES nodes count as one unit of the budget, like one
 * playout). By default (DDZ_STRONG_ENDGAME_SCORE) a candidate is worth the
 * score `me`'s side can force on that deal: bombs, the rocket, spring and
 * anti-spring still to come count, so a sure win is played for its
 * highest stake, and a bomb that risks a win counts its doubled loss on
 * the deals where it loses. Where that search runs out of nodes, the
 * win/loss search decides instead (DDZ_STRONG_ENDGAME_WIN does only that),
 * and a won or lost game is scored as if it ended there, at the
 * multiplier before the candidate and with the play weights so far, the
 * candidate's included (botzone-ftl); a search that hits the cap falls
 * back to a playout for that deal. With every split enumerated and every
 * search finished, a play that wins on every split is found for sure.
 * A hand that one play empties goes out at once, unless the endgame plays
 * for the score and the hand holds a bomb or the rocket besides (then the
 * search weighs going out against doubling first).
 */
#include "strong.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai/greedy.h"
#include "ai/hand.h"
#include "ai/rng.h"
#include "ai/solver.h"
#include "rules/movegen.h"

enum {
    MAX_CAND = 32,        /* candidate plays searched, at most */
    PRIOR_CAND = 12,      /* candidates outside the endgame */
    GROUP_MAX = 2,        /* candidates of one type, length and main rank */
    MAX_ROUNDS = 2048,    /* sampled deals per decision */
    MIN_ROUNDS = 12,      /* deals before any candidate is dropped */
    ENUM_MAX = 1024,      /* enumerate the hidden splits when there are this few */
    SOLVE_CARDS = 18,     /* exact search when the hands hold this many cards or fewer */
    BID_MIN_SAMPLES = 24, /* fewer (clock ran out): bid as ai:greedy does */
    SHED_BONUS = 2,
    BID_TRIES = 16,      /* deals drawn to find one that fits the bids */
    BID_MISFIT_ODDS = 8, /* a deal that does not fit is kept 1 time in 8 */
};

#define Z_PRUNE 3.0

/* Bid thresholds on the landlord value per unit of bid, one line per
 * all-pass rule (rules->allpass: what the seats' passes lead to), each
 * indexed by the highest earlier bid (0..2): value >= t3 bids 3, >= t2
 * bids 2, >= t1 bids 1 (see Bidding above for how they were placed). */
typedef struct bid_line {
    double t1[3], t2[3], t3[3];
} bid_line;

static const bid_line bid_lines[] = {
    /* all pass: no game (caai); crossing near -0.3 at 100 units */
    [DDZ_ALLPASS_NOGAME] = {{-0.6, -0.6, -0.6}, {-0.45, -0.3, -0.3}, {-0.3, -0.15, 0.0}},
    /* all pass: West at bid 1 (botzone-ftl2): bidding 3 beats passing from
     * about -0.85, whatever the earlier bids (300 units a decision) */
    [DDZ_ALLPASS_WEST] = {{-1.15, -1.15, -1.15}, {-1.0, -0.85, -0.85}, {-0.85, -0.85, -0.85}},
};

/* The hidden cards of one decision and how to deal them. */
typedef struct hidden {
    int o[2];           /* the two other seats */
    ddz_cards known[2]; /* cards known to be in o[i]'s hand */
    int need[2];        /* cards o[i] still gets from the pool */
    uint8_t pool[DDZ_NCARDS];
    int npool;
    int nsplits; /* > 0: every split is in the workspace's splits[] */
} hidden;

/* The player: what it is told and what it reports, nothing the search
 * needs while it runs. */
struct ddz_strong {
    uint64_t seed;
    int ms;                      /* clock budget per decision, 0 = none */
    long units;                  /* unit budget per decision, 0 = none */
    int64_t (*clock)(void *ctx); /* NULL = CLOCK_MONOTONIC */
    void *clock_ctx;
    int endgame; /* enum ddz_strong_endgame */
    ddz_strong_stats last;
};

/* The scratch memory of decisions, whoever's they are. Only the hand-score
 * memo carries over from one decision to the next (a pure memo: a hit and
 * a miss give the same score); the solver's transposition table is
 * forgotten at the start of every decision (its entries count only in the
 * decision that found them, so node counts, which are budget, depend on
 * the decision alone), and every other array is written before it is
 * read. */
struct ddz_strong_workspace {
    ddz_hand_cache cache;
    ddz_move root[DDZ_MOVES_MAX];
    ddz_move scratch[DDZ_MOVES_MAX];
    float val[MAX_ROUNDS][MAX_CAND];
    ddz_cards splits[ENUM_MAX];
    ddz_solver *solver; /* the endgame search, its table and move stack */
};

/* One decision in progress, on the stack of ddz_strong_bid or _play. */
typedef struct search {
    ddz_strong *ai;          /* the player deciding (its stats are written) */
    ddz_strong_workspace *w; /* its scratch memory for this decision */
    ddz_strong_stats *last;  /* &ai->last */
    ddz_rng rng;
    int64_t t0;          /* the clock when the decision began */
    int64_t deadline_ns; /* since t0; 0 = no clock limit */
    long unit_cap;
    bool stop; /* the budget is spent */
    int ll;    /* the landlord */
    const ddz_rules *rules;
} search;

/* ---------------------------------------------------------------------- */
/* Object and budget                                                       */

ddz_strong *ddz_strong_create(uint64_t seed)
{
    ddz_strong *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->seed = seed;
    s->ms = DDZ_STRONG_DEFAULT_MS;
    s->endgame = DDZ_STRONG_ENDGAME_SCORE;
    return s;
}

void ddz_strong_set_endgame(ddz_strong *s, int mode)
{
    s->endgame = mode == DDZ_STRONG_ENDGAME_WIN ? DDZ_STRONG_ENDGAME_WIN : DDZ_STRONG_ENDGAME_SCORE;
}

ddz_strong_workspace *ddz_strong_workspace_create(void)
{
    ddz_strong_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->solver = ddz_solver_create(DDZ_SOLVER_TT_BITS);
    if (!w->solver) {
        free(w);
        return NULL;
    }
    return w;
}

void ddz_strong_workspace_destroy(ddz_strong_workspace *w)
{
    if (!w)
        return;
    ddz_solver_destroy(w->solver);
    free(w);
}

void ddz_strong_destroy(ddz_strong *s)
{
    free(s);
}

void ddz_strong_set_budget(ddz_strong *s, int ms, long units)
{
    s->ms = ms > 0 ? ms : 0;
    s->units = units > 0 ? units : 0;
    if (s->ms == 0 && s->units == 0)
        s->ms = DDZ_STRONG_DEFAULT_MS;
}

void ddz_strong_set_clock(ddz_strong *s, int64_t (*now_ns)(void *ctx), void *ctx)
{
    s->clock = now_ns;
    s->clock_ctx = ctx;
}

const ddz_strong_stats *ddz_strong_last(const ddz_strong *s)
{
    return &s->last;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

/* A hash of everything in the view (field by field: no padding bytes). */
static uint64_t view_hash(const ddz_view *v)
{
    uint64_t h = mix(v->hand + 1);
    for (int s = 0; s < 3; s++) {
        h = mix(h ^ v->played[s]);
        h = mix(h ^ ((uint64_t)v->left[s] << 8 | (uint64_t)(uint8_t)v->bids[s]));
    }
    h = mix(h ^ v->leftover);
    h = mix(h ^ ((uint64_t)v->seat | (uint64_t)v->phase << 8 | (uint64_t)v->turn << 16 |
                 (uint64_t)(uint8_t)v->landlord << 24 | (uint64_t)v->bid << 32 |
                 (uint64_t)v->bombs << 40 | (uint64_t)v->rocket << 48));
    h = mix(h ^ ((uint64_t)v->last.type | (uint64_t)v->last.rank << 8 |
                 (uint64_t)v->last.length << 16 | (uint64_t)v->last.kicker << 24 |
                 (uint64_t)v->last.size << 32 | (uint64_t)(uint8_t)v->last_seat << 40));
    return h;
}

static int64_t clock_ns(const search *s)
{
    if (s->ai->clock)
        return s->ai->clock(s->ai->clock_ctx);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t elapsed_ns(const search *s)
{
    return clock_ns(s) - s->t0;
}

/* Starts a decision of `ai` on `v` in workspace `w`. */
static void begin(search *s, ddz_strong *ai, ddz_strong_workspace *w, const ddz_view *v)
{
    s->ai = ai;
    s->w = w;
    s->last = &ai->last;
    s->t0 = clock_ns(s);
    memset(s->last, 0, sizeof *s->last);
    ddz_rng_seed(&s->rng, ai->seed ^ view_hash(v));
    /* stop at 85% of the clock budget: what is left covers the unit that
     * is running when the deadline passes and the final choice */
    s->deadline_ns = (int64_t)ai->ms * 850000;
    s->unit_cap = ai->units ? ai->units : LONG_MAX;
    s->stop = false;
    ddz_solver_forget(w->solver); /* nothing of earlier decisions counts */
    s->rules = v->rules;
    s->ll = v->landlord;
}

static void clock_out(search *s)
{
    s->stop = true;
    s->last->clock_ended = 1;
}

/* Counts one unit of work; returns true when the budget is spent. */
static bool spend(search *s)
{
    s->last->units++;
    if (s->last->units >= s->unit_cap)
        s->stop = true;
    else if (s->deadline_ns && elapsed_ns(s) >= s->deadline_ns)
        clock_out(s);
    return s->stop;
}

/* ---------------------------------------------------------------------- */
/* Sampled games                                                           */

/* Returns seat `me`'s score in the finished game `g` per unit of stake:
 * divided by the rule set's score_unit x bid, so that a landlord's plain win
 * is worth 2 under every rule set (caai's 200 x bid, botzone-ftl2's 2 x bid,
 * botzone-ftl's 2 plus its play weights / 100). */
static double game_value(const ddz_game *g, int me)
{
    return g->score[me] / ((double)g->rules->score_unit * (g->bid ? g->bid : 1));
}

/* Plays `g` to the end with ai:greedy in every seat. Returns seat `me`'s
 * value (game_value). */
static double playout(search *s, ddz_game *g, int me)
{
    s->last->playouts++;
    while (g->phase == DDZ_PHASE_PLAY) {
        if (s->deadline_ns && elapsed_ns(s) >= s->deadline_ns) {
            clock_out(s); /* the caller drops this playout */
            return 0;
        }
        ddz_view v;
        ddz_view_of(g, g->turn, &v);
        ddz_cards c = ddz_greedy_play_cached(&v, s->w->scratch, DDZ_MOVES_MAX, &s->w->cache);
        if (ddz_game_play(g, g->turn, c) != 0)
            return 0; /* not reached: greedy plays legally */
    }
    return game_value(g, me);
}

/* Returns C(n, k), or a number above `cap` when it is larger. */
static long binom_capped(int n, int k, long cap)
{
    if (k < 0 || k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    long c = 1;
    for (int i = 1; i <= k; i++) {
        c = c * (n - k + i) / i;
        if (c > cap)
            return cap + 1;
    }
    return c;
}

/* Sets up the hidden cards of `v`. Returns false when the view is not
 * consistent (the hidden cards do not match the counts). */
static bool hidden_init(search *s, const ddz_view *v, hidden *h)
{
    int me = v->seat;
    ddz_cards unseen = DDZ_CARDS_ALL & ~v->hand & ~v->played[0] & ~v->played[1] & ~v->played[2];
    ddz_cards pool = unseen;
    for (int i = 0; i < 2; i++) {
        int o = (me + 1 + i) % 3;
        h->o[i] = o;
        h->known[i] = o == v->landlord ? v->leftover & ~v->played[o] & unseen : 0;
        pool &= ~h->known[i];
        h->need[i] = v->left[o] - ddz_cards_count(h->known[i]);
        if (h->need[i] < 0)
            return false;
    }
    h->npool = ddz_cards_list(pool, h->pool);
    if (h->npool != h->need[0] + h->need[1])
        return false;
    h->nsplits = 0;
    long n = binom_capped(h->npool, h->need[0], ENUM_MAX);
    if (n <= ENUM_MAX) {
        /* every need[0]-subset of the pool, in lexicographic order */
        int k = h->need[0], idx[DDZ_NCARDS];
        for (int i = 0; i < k; i++)
            idx[i] = i;
        for (;;) {
            ddz_cards c = 0;
            for (int i = 0; i < k; i++)
                c |= 1ULL << h->pool[idx[i]];
            s->w->splits[h->nsplits++] = c;
            int i = k - 1;
            while (i >= 0 && idx[i] == h->npool - k + i)
                i--;
            if (i < 0)
                break;
            idx[i]++;
            for (int j = i + 1; j < k; j++)
                idx[j] = idx[j - 1] + 1;
        }
        /* in random order, so that a search cut short used a fair sample */
        for (int i = h->nsplits - 1; i > 0; i--) {
            int j = (int)ddz_rng_below(&s->rng, (uint32_t)i + 1);
            ddz_cards t = s->w->splits[i];
            s->w->splits[i] = s->w->splits[j];
            s->w->splits[j] = t;
        }
    }
    return true;
}

/* Returns true when a seat dealt `hand17` would have made its bid in `v`
 * after the bids before it, by ai:greedy's bidding: the model of how a
 * hand bids. True when the seat did not bid. */
static bool bid_fits(const ddz_view *v, int o, ddz_cards hand17)
{
    if (v->bids[o] < 0 || ddz_cards_count(hand17) != 17)
        return true;
    ddz_view w;
    ddz_view_deal(&w, v->rules, o, hand17);
    for (int s = 0; s < o; s++)
        if (ddz_view_bid(&w, s, v->bids[s]) < 0)
            return true;
    return ddz_greedy_bid(&w) == v->bids[o];
}

/* Deals the hidden cards for round `round` into hands[]. Random deals are
 * weighted by the bids: a deal whose hands would not have bid as the seats
 * did is kept only with probability 1 / BID_MISFIT_ODDS (redrawn at most
 * BID_TRIES times), since the model is only a model. */
static void hidden_deal(search *s, const ddz_view *v, const hidden *h, int round,
                        ddz_cards hands[3])
{
    ddz_cards first = 0, pool = 0;
    for (int i = 0; i < h->npool; i++)
        pool |= 1ULL << h->pool[i];
    if (h->nsplits) {
        first = s->w->splits[round % h->nsplits];
    } else {
        for (int tries = 0; tries < BID_TRIES; tries++) {
            uint8_t p[DDZ_NCARDS];
            memcpy(p, h->pool, (size_t)h->npool);
            first = 0;
            for (int i = 0; i < h->need[0]; i++) {
                int j = i + (int)ddz_rng_below(&s->rng, (uint32_t)(h->npool - i));
                uint8_t t = p[i];
                p[i] = p[j];
                p[j] = t;
                first |= 1ULL << p[i];
            }
            bool fits = true;
            for (int i = 0; i < 2 && fits; i++) {
                int o = h->o[i];
                ddz_cards held = h->known[i] | (i == 0 ? first : pool & ~first);
                ddz_cards dealt = (held | v->played[o]) & ~(o == v->landlord ? v->leftover : 0);
                fits = bid_fits(v, o, dealt);
            }
            if (fits || ddz_rng_below(&s->rng, BID_MISFIT_ODDS) == 0)
                break;
        }
    }
    hands[h->o[0]] = h->known[0] | first;
    hands[h->o[1]] = h->known[1] | (pool & ~first);
}

/* ---------------------------------------------------------------------- */
/* Endgame: exact search (ai/solver.h)                                     */

/* The clock of the search's budget, for the solver. */
static int64_t solver_clock(void *ctx)
{
    return clock_ns(ctx);
}

/* Returns the value for `me` (game_value) of `g` (after the candidate was
 * played) ended with `me`'s side winning or losing, scored by the rule set
 * as it stands: the multiplier of `base` (before the candidate, so that a
 * sure win is never traded for a likely win with a bomb), the play weights
 * of `g` (the candidate's included), no spring. */
static double ended_value(const ddz_game *base, const ddz_game *g, int me, bool me_wins)
{
    ddz_game end = *g;
    int ll = end.landlord;
    end.winner = (int8_t)(me_wins ? me : me == ll ? (ll + 1) % 3 : ll);
    end.bombs = base->bombs;
    end.rocket = base->rocket;
    end.spring = end.anti_spring = 0;
    end.multiplier = end.rules->multiplier(&end);
    end.rules->score(&end, end.score);
    return game_value(&end, me);
}

/* Counts `nodes` endgame-search nodes against the decision's budget. */
static void count_nodes(search *s, long nodes)
{
    s->last->nodes += nodes;
    s->last->units += nodes / DDZ_STRONG_UNIT_NODES; /* spend() adds one more */
}

/* Finishes `g` (after the candidate was played from `base`) by exact
 * search. Returns 1 and the value for `me` in *value, or 0 when the search
 * was cut short. The value is the score `me`'s side can force
 * (DDZ_STRONG_ENDGAME_SCORE, when that search ends within its nodes), else
 * ended_value of who wins. */
static int solve_game(search *s, const ddz_game *base, const ddz_game *g, int me, double *value)
{
    ddz_solver_pos p;
    if (ddz_solver_pos_of_game(g, &p) != 0)
        return 0; /* not reached: the caller checked the game goes on */
    /* the deadline is the decision's, on its clock (read only every
     * DDZ_SOLVER_CLOCK_EVERY nodes) */
    ddz_solver_budget b = {.nodes = DDZ_STRONG_SOLVE_NODES};
    if (s->deadline_ns) {
        b.clock = solver_clock;
        b.clock_ctx = s;
        b.deadline = s->t0 + s->deadline_ns;
    }
    ddz_solver *sv = s->w->solver;
    if (s->ai->endgame == DDZ_STRONG_ENDGAME_SCORE) {
        ddz_solver_score sc;
        int r = ddz_solver_forced_score(sv, s->rules, &p, &b, &sc);
        count_nodes(s, ddz_solver_last(sv)->nodes);
        if (r == 0) {
            s->last->solves++;
            double mine = me == p.landlord ? sc.landlord : sc.farmer;
            *value = mine / ((double)s->rules->score_unit * (g->bid ? g->bid : 1));
            return 1;
        }
        if (r == DDZ_ETIMEOUT) {
            clock_out(s);
            return 0;
        }
        /* out of nodes (or memory for the score table): who wins */
    }
    int r = ddz_solver_solve(sv, s->rules, &p, &b);
    count_nodes(s, ddz_solver_last(sv)->nodes);
    if (r == DDZ_ETIMEOUT)
        clock_out(s);
    if (r < 0)
        return 0;
    s->last->solves++;
    bool me_wins = r == ddz_solver_side(&p, me);
    *value = ended_value(base, g, me, me_wins);
    return 1;
}

/* ---------------------------------------------------------------------- */
/* Playing                                                                 */

static int cards_in(const ddz_game *g)
{
    return ddz_cards_count(g->hand[0] | g->hand[1] | g->hand[2]);
}

/* The value for `me` of playing `m` in the sampled game `base`. */
static double evaluate(search *s, const ddz_game *base, int me, ddz_ranks m)
{
    ddz_game g = *base;
    ddz_game_play(&g, me, ddz_cards_pick(g.hand[me], m));
    if (g.phase == DDZ_PHASE_OVER)
        return game_value(&g, me);
    double value;
    if (cards_in(&g) <= SOLVE_CARDS && solve_game(s, base, &g, me, &value))
        return value;
    if (s->stop)
        return 0;
    return playout(s, &g, me);
}

static int prior(search *s, ddz_ranks hand, const ddz_move *m)
{
    if (m->ranks == 0)
        return ddz_hand_evaluate(hand, NULL, &s->w->cache);
    return ddz_hand_evaluate(hand - m->ranks, NULL, &s->w->cache) -
           (ddz_hand_breaks_bomb(hand, m->ranks) ? DDZ_HAND_BREAK_COST : 0) +
           SHED_BONUS * (m->combo.size - 1);
}

static bool is_bomb(ddz_combo c)
{
    return c.type == DDZ_BOMB || c.type == DDZ_ROCKET;
}

/* True when `hand` holds a four or both jokers. */
static bool holds_bomb(ddz_ranks hand)
{
    const ddz_ranks fours = 0x4444444444444ULL; /* a rank count is 4 when its bit 2 is set */
    const ddz_ranks jokers = (ddz_ranks)1 << (4 * DDZ_RANK_SJ) | (ddz_ranks)1 << (4 * DDZ_RANK_BJ);
    return (hand & fours) || (hand & jokers) == jokers;
}

static bool same_group(ddz_combo a, ddz_combo b)
{
    return a.type == b.type && a.rank == b.rank && a.length == b.length;
}

/* Picks the candidates from the legal moves mv[0..n) into cand[];
 * returns how many. cand[0] is `first` (greedy's choice). In the endgame
 * every move is a candidate when they fit. */
static int candidates(search *s, const ddz_view *v, ddz_move *mv, int n, ddz_ranks first,
                      bool endgame, ddz_move *cand)
{
    ddz_ranks hand = ddz_cards_ranks(v->hand);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (mv[i].ranks == first) {
            cand[k++] = mv[i];
            break;
        }
    if (endgame && n <= MAX_CAND) {
        for (int i = 0; i < n; i++)
            if (mv[i].ranks != first)
                cand[k++] = mv[i];
        return k;
    }
    bool leading = v->last_seat < 0;
    /* following: the pass, the smallest bomb, the rocket */
    int bomb = -1;
    for (int i = 0; i < n && !leading; i++) {
        if (mv[i].ranks == first)
            continue;
        if (mv[i].ranks == 0 || mv[i].combo.type == DDZ_ROCKET)
            cand[k++] = mv[i];
        else if (mv[i].combo.type == DDZ_BOMB &&
                 (bomb < 0 || mv[i].combo.rank < mv[bomb].combo.rank))
            bomb = i;
    }
    if (bomb >= 0 && mv[bomb].ranks != first)
        cand[k++] = mv[bomb];
    /* the rest by the score of what they leave */
    int score[DDZ_MOVES_MAX];
    for (int i = 0; i < n; i++) {
        score[i] = mv[i].ranks == 0 || is_bomb(mv[i].combo) ? INT_MIN : prior(s, hand, &mv[i]);
        if (i % 16 == 15 && s->deadline_ns && elapsed_ns(s) >= s->deadline_ns) {
            clock_out(s); /* no time to score the rest: they are not candidates */
            for (int j = i + 1; j < n; j++)
                score[j] = INT_MIN;
            break;
        }
    }
    while (k < PRIOR_CAND) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (score[i] != INT_MIN && (best < 0 || score[i] > score[best]))
                best = i;
        if (best < 0)
            break;
        score[best] = INT_MIN;
        int same = 0;
        bool dup = false;
        for (int j = 0; j < k; j++) {
            dup |= cand[j].ranks == mv[best].ranks;
            same += same_group(cand[j].combo, mv[best].combo);
        }
        if (!dup && same < GROUP_MAX)
            cand[k++] = mv[best];
    }
    /* leading with bombs only left among few moves: keep them too */
    for (int i = 0; i < n && k < PRIOR_CAND && leading && n <= PRIOR_CAND; i++) {
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= cand[j].ranks == mv[i].ranks;
        if (!dup)
            cand[k++] = mv[i];
    }
    return k;
}

/* True when the farmer to move faces its partner's play and the landlord
 * cannot beat it: nothing among the cards the landlord may hold beats it,
 * or the landlord holds too few cards and no bomb is possible. */
static bool partner_holds(const ddz_view *v)
{
    int me = v->seat, ll = v->landlord;
    if (ll < 0 || me == ll || v->last_seat < 0 || v->last_seat == ll)
        return false;
    ddz_cards maybe = DDZ_CARDS_ALL & ~v->hand & ~v->played[0] & ~v->played[1] & ~v->played[2];
    ddz_ranks r = ddz_cards_ranks(maybe);
    if (!ddz_movegen_can_beat(v->rules, r, v->last))
        return true;
    if (v->left[ll] >= v->last.size)
        return false;
    bool four = false;
    for (int k = 0; k <= DDZ_RANK_2; k++)
        four |= ddz_ranks_get(r, k) == 4;
    bool rocket = ddz_ranks_get(r, DDZ_RANK_SJ) && ddz_ranks_get(r, DDZ_RANK_BJ);
    return !(four && v->left[ll] >= 4) && !(rocket && v->left[ll] >= 2);
}

/* Candidate c's mean value over the first `rounds` sampled worlds. */
static double cand_mean(const search *s, int c, int rounds)
{
    double sum = 0;
    for (int r = 0; r < rounds; r++)
        sum += s->w->val[r][c];
    return sum / rounds;
}

ddz_cards ddz_strong_play(ddz_strong *ai, const ddz_view *v, ddz_strong_workspace *w)
{
    search state, *s = &state;
    begin(s, ai, w, v);
    ddz_ranks hand = ddz_cards_ranks(v->hand);
    bool leading = v->last_seat < 0;
    int n = ddz_movegen(v->rules, hand, leading ? NULL : &v->last, w->root, DDZ_MOVES_MAX);
    if (n < 0 || n > DDZ_MOVES_MAX)
        n = DDZ_MOVES_MAX;
    if (n == 0 || (n == 1 && w->root[0].ranks == 0))
        return 0;
    if (n == 1)
        return ddz_cards_pick(v->hand, w->root[0].ranks);
    for (int i = 0; i < n; i++) {
        if (w->root[i].ranks != hand)
            continue;
        /* a play that wins now, unless the endgame plays for the stake and
         * a bomb or the rocket in the hand might double it first (the
         * search then weighs the two: the play that wins now is one of
         * its candidates); where plays are scored, ai:greedy's choice,
         * which is that play unless a sure line of several weighs more */
        if (ai->endgame == DDZ_STRONG_ENDGAME_SCORE && !is_bomb(w->root[i].combo) &&
            holds_bomb(hand))
            break;
        if (!v->rules->play_weight)
            return v->hand;
        return ddz_greedy_play_cached(v, w->scratch, DDZ_MOVES_MAX, &w->cache);
    }

    ddz_cards greedy = ddz_greedy_play_cached(v, w->scratch, DDZ_MOVES_MAX, &w->cache);
    int me = v->seat;
    hidden h;
    if (v->landlord < 0 || !hidden_init(s, v, &h))
        return greedy; /* not a real play position: no search */
    int total = v->left[0] + v->left[1] + v->left[2];
    if (partner_holds(v) && total > SOLVE_CARDS + 1)
        return 0;

    ddz_move cand[MAX_CAND];
    int k = candidates(s, v, w->root, n, ddz_cards_ranks(greedy), total <= SOLVE_CARDS, cand);
    s->last->candidates = k;
    s->last->enumerated = h.nsplits > 0;
    bool alive[MAX_CAND];
    for (int c = 0; c < k; c++)
        alive[c] = true;
    int nalive = k, rounds = 0, max_rounds = h.nsplits ? h.nsplits : MAX_ROUNDS;
    while (nalive > 1 && rounds < max_rounds && !s->stop) {
        ddz_cards hands[3];
        hands[me] = v->hand;
        hidden_deal(s, v, &h, rounds, hands);
        ddz_game base;
        if (ddz_game_from_view(v, hands, &base) != 0)
            break; /* not reached: hidden_init checked the view */
        bool complete = true;
        for (int c = 0; c < k && complete; c++) {
            if (!alive[c])
                continue;
            double x = s->stop ? 0 : evaluate(s, &base, me, cand[c].ranks);
            if (s->stop) {
                complete = false; /* a deal cut short is dropped */
                break;
            }
            w->val[rounds][c] = (float)x;
            spend(s);
        }
        if (!complete)
            break;
        rounds++;
        if (rounds < MIN_ROUNDS)
            continue;
        /* drop the candidates clearly below the best */
        int best = -1;
        double mean[MAX_CAND];
        for (int c = 0; c < k; c++) {
            if (!alive[c])
                continue;
            mean[c] = cand_mean(s, c, rounds);
            if (best < 0 || mean[c] > mean[best])
                best = c;
        }
        for (int c = 0; c < k; c++) {
            if (!alive[c] || c == best)
                continue;
            double sum = 0, sum2 = 0;
            for (int r = 0; r < rounds; r++) {
                double d = (double)w->val[r][best] - w->val[r][c];
                sum += d;
                sum2 += d * d;
            }
            double md = sum / rounds, var = (sum2 - rounds * md * md) / (rounds - 1);
            if (md > 0 && md > Z_PRUNE * sqrt((var > 0 ? var : 0) / rounds)) {
                alive[c] = false;
                nalive--;
            }
        }
    }
    s->last->samples = rounds;
    if (rounds == 0)
        return greedy;
    int best = -1;
    double best_mean = 0;
    for (int c = 0; c < k; c++) {
        if (!alive[c])
            continue;
        double m = cand_mean(s, c, rounds);
        if (best < 0 || m > best_mean) {
            best = c;
            best_mean = m;
        }
    }
    s->last->value = best_mean;
    return ddz_cards_pick(v->hand, cand[best].ranks);
}

/* ---------------------------------------------------------------------- */
/* Bidding                                                                 */

/* Starts in `g` the game where the seat of `v` holds v->hand, the next
 * seats `other` and `rest`, the leftover is `left3`, and the seat of `v` is
 * landlord at bid 1 (the others pass). Returns false if the rules refuse
 * (they do not for a 17 + 17 + 17 + 3 deal). */
static bool landlord_game(const ddz_view *v, ddz_cards left3, ddz_cards other, ddz_cards rest,
                          ddz_game *g)
{
    int me = v->seat;
    ddz_deal d;
    d.hand[me] = v->hand;
    d.hand[(me + 1) % 3] = other;
    d.hand[(me + 2) % 3] = rest;
    d.leftover = left3;
    ddz_game_start(g, v->rules, &d, ddz_rules_early_penalty(v->rules, 0, 0));
    for (int i = 0; i < 3 && g->phase == DDZ_PHASE_BID; i++)
        if (ddz_game_bid(g, i, i == me ? 1 : 0) != 0)
            return false;
    return g->phase == DDZ_PHASE_PLAY && g->landlord == me;
}

int ddz_strong_bid(ddz_strong *ai, const ddz_view *v, ddz_strong_workspace *w)
{
    int high = ddz_view_high_bid(v);
    if (high >= v->rules->max_bid)
        return 0;
    search state, *s = &state;
    begin(s, ai, w, v);
    int me = v->seat;
    uint8_t pool[DDZ_NCARDS];
    int npool = ddz_cards_list(DDZ_CARDS_ALL & ~v->hand, pool);
    if (npool != 37)
        return ddz_greedy_bid(v);
    s->ll = me;
    double sum = 0;
    int samples = 0, misfits = 0;
    while (!s->stop && samples < MAX_ROUNDS * 4) {
        /* a random 3 + 17 + 17 split of the other cards */
        for (int i = 0; i < 20; i++) {
            int j = i + (int)ddz_rng_below(&s->rng, (uint32_t)(npool - i));
            uint8_t t = pool[i];
            pool[i] = pool[j];
            pool[j] = t;
        }
        ddz_cards left3 = 0, other = 0, rest = 0;
        for (int i = 0; i < 3; i++)
            left3 |= 1ULL << pool[i];
        for (int i = 3; i < 20; i++)
            other |= 1ULL << pool[i];
        rest = DDZ_CARDS_ALL & ~v->hand & ~left3 & ~other;
        if (!(bid_fits(v, (me + 1) % 3, other) && bid_fits(v, (me + 2) % 3, rest)) &&
            ddz_rng_below(&s->rng, BID_MISFIT_ODDS) != 0 && ++misfits < BID_TRIES * 16) {
            if (s->deadline_ns && elapsed_ns(s) >= s->deadline_ns)
                clock_out(s);
            continue; /* the earlier bids make this deal unlikely */
        }
        ddz_game g;
        if (!landlord_game(v, left3, other, rest, &g))
            break; /* not reached: 17 + 17 + 17 + 3 cards, legal bids */
        double x = playout(s, &g, me);
        if (s->stop)
            break;
        sum += x;
        samples++;
        spend(s);
    }
    s->last->samples = samples;
    if (samples < BID_MIN_SAMPLES)
        return ddz_greedy_bid(v);
    double value = sum / samples;
    s->last->value = value;
    return ddz_strong_bid_of_value(v->rules, high, value);
}

int ddz_strong_bid_of_value(const ddz_rules *rs, int high, double value)
{
    int line = rs->allpass;
    if (line < 0 || (size_t)line >= sizeof bid_lines / sizeof bid_lines[0])
        line = DDZ_ALLPASS_NOGAME;
    if (high < 0)
        high = 0;
    if (high > 2)
        return 0;
    const bid_line *b = &bid_lines[line];
    int want = value >= b->t3[high] ? 3 : value >= b->t2[high] ? 2 : value >= b->t1[high] ? 1 : 0;
    if (want > rs->max_bid)
        want = rs->max_bid;
    return want > high ? want : 0;
}
