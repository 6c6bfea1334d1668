/* solver.c - exact search of perfect-information positions (see solver.h).
 *
 * The search, its move ordering and its transposition table are the three
 * parts below. ai:strong's decisions depend on how many nodes each of its
 * endgame searches takes (they are its budget), so the order in which a
 * node does its work (count it, read the clock, the whole-hand shortcut,
 * the table, the moves) and the table's hashing and replacement are part
 * of its behaviour: change them only knowing that ai:strong then plays
 * differently on the same seeds.
 */
#include "solver.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Transposition table                                                     */

typedef struct tt_entry {
    uint64_t key;
    uint32_t gen; /* generation that wrote it; others are ignored */
    uint8_t win;  /* 1 = the side to move wins */
} tt_entry;

/* An entry of the score search's table: bounds of the value of a position
 * and stake for one objective. The objective is hashed into the key and
 * the generation mixed into the key stored, so that an entry of another
 * is a miss. */
typedef struct score_entry {
    uint64_t key;
    int32_t lo, hi; /* the value lies in [lo, hi] (DDZ_SCORE_DENOM units) */
} score_entry;

struct ddz_solver {
    uint32_t gen;           /* current generation of table entries (never 0) */
    score_entry *stt;       /* the score search's table (as many entries), once one ran */
    int xside;              /* the score search in progress: the side maximising its score */
    uint64_t tt_mask;       /* entries - 1 */
    const ddz_rules *rules; /* rule set the current generation's entries were found under */
    ddz_solver_stats last;
    /* the call in progress */
    const ddz_solver_budget *budget;
    long cap; /* node cap, LONG_MAX-like when none */
    int stop; /* DDZ_EBUDGET or DDZ_ETIMEOUT once stopped, else 0 */
    int ll;   /* the landlord */
    ddz_move stack[DDZ_SOLVER_STACK];
    tt_entry tt[]; /* 2^tt_bits entries */
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t pos_key(const ddz_solver_pos *p, int ll)
{
    uint64_t h = mix(p->hand[0] ^ 0x9E3779B97F4A7C15ULL);
    h = mix(h ^ p->hand[1]);
    h = mix(h ^ (p->hand[2] + 0x632BE59BD9B4E019ULL));
    h = mix(h ^
            ((uint64_t)p->last.type | (uint64_t)p->last.rank << 8 | (uint64_t)p->last.length << 16 |
             (uint64_t)p->last.kicker << 24 | (uint64_t)p->last.size << 32 |
             (uint64_t)(uint8_t)p->last_seat << 40 | (uint64_t)p->turn << 48 | (uint64_t)ll << 56));
    return h;
}

ddz_solver *ddz_solver_create(int tt_bits)
{
    if (tt_bits == 0)
        tt_bits = DDZ_SOLVER_TT_BITS;
    if (tt_bits < 10 || tt_bits > DDZ_SOLVER_TT_BITS_MAX)
        return NULL;
    size_t n = (size_t)1 << tt_bits;
    /* zero-filled: every entry has generation 0, which no search uses */
    ddz_solver *sv = calloc(1, sizeof *sv + n * sizeof(tt_entry));
    if (!sv)
        return NULL;
    sv->gen = 1;
    sv->tt_mask = n - 1;
    return sv;
}

void ddz_solver_destroy(ddz_solver *sv)
{
    if (sv)
        free(sv->stt);
    free(sv);
}

void ddz_solver_forget(ddz_solver *sv)
{
    /* after 2^32 - 1 generations the table is cleared rather than reused */
    if (++sv->gen == 0) {
        memset(sv->tt, 0, (size_t)(sv->tt_mask + 1) * sizeof(tt_entry));
        if (sv->stt)
            memset(sv->stt, 0, (size_t)(sv->tt_mask + 1) * sizeof(score_entry));
        sv->gen = 1;
    }
}

const ddz_solver_stats *ddz_solver_last(const ddz_solver *sv)
{
    return &sv->last;
}

int ddz_solver_pos_of_game(const ddz_game *g, ddz_solver_pos *p)
{
    if (g->phase != DDZ_PHASE_PLAY || g->landlord < 0)
        return DDZ_EPHASE;
    for (int i = 0; i < 3; i++)
        p->hand[i] = ddz_cards_ranks(g->hand[i]);
    p->last = g->last;
    p->last_seat = g->last_seat;
    p->turn = g->turn;
    p->landlord = (uint8_t)g->landlord;
    p->stake = (ddz_solver_stake){.bid = g->bid, .bombs = g->bombs, .rocket = g->rocket};
    for (int i = 0; i < 3; i++) {
        p->stake.nplays[i] = g->nplays[i];
        p->stake.weight[i] = g->weight[i];
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Move ordering                                                           */

/* Orders moves[0..n) for the search: the pass first over the partner's
 * play (else last), then bigger plays first, then lower ranks. Plays that
 * shed many cards end games soonest, and a farmer who lets a partner's
 * play stand usually loses nothing by it; cut-offs come early either way.
 * Insertion sort: stable, and the lists are short. */
static void order_moves(ddz_move *m, int n, bool pass_first)
{
    for (int i = 1; i < n; i++) {
        ddz_move x = m[i];
        int kx = x.ranks == 0 ? (pass_first ? 1000 : -1000) : x.combo.size * 16 - x.combo.rank;
        int j = i - 1;
        while (j >= 0) {
            int kj = m[j].ranks == 0 ? (pass_first ? 1000 : -1000)
                                     : m[j].combo.size * 16 - m[j].combo.rank;
            if (kj >= kx)
                break;
            m[j + 1] = m[j];
            j--;
        }
        m[j + 1] = x;
    }
}

/* ---------------------------------------------------------------------- */
/* Search                                                                  */

static int side_of(const ddz_solver *sv, int seat)
{
    return seat == sv->ll;
}

/* Writes to `c` the position after the mover of `p` plays `m`. */
static void child(const ddz_solver_pos *p, const ddz_move *m, ddz_solver_pos *c)
{
    int me = p->turn;
    *c = *p;
    c->turn = (uint8_t)((me + 1) % 3);
    if (m->ranks == 0) {
        /* two passes in a row: the one who made the last play leads */
        if (c->turn == p->last_seat) {
            c->last.type = DDZ_PASS;
            c->last_seat = -1;
        }
    } else {
        c->hand[me] -= m->ranks;
        c->last = m->combo;
        c->last_seat = (int8_t)me;
    }
}

/* Returns 1 when the side to move in `p` wins with best play, 0 when it
 * loses, or the negative code that stopped the search (sv->stop for the
 * budget, DDZ_ENOSPC for the stack). `sp` is the first free slot of the
 * move stack. No hand in `p` is empty: the play that would empty one is
 * the whole-hand shortcut, since movegen classifies a play the one way
 * ddz_combo_classify does. With `witness` (the root of
 * ddz_solver_solve_witness only; NULL below it), a win sets *witness to
 * the play that proved it: a table entry that says the mover wins names
 * no play, so it is searched again (its children mostly are entries); an
 * entry that says it loses needs none. NULL costs nothing, so that
 * ai:strong's node counts do not change. */
static int search(ddz_solver *sv, const ddz_solver_pos *p, const ddz_rules *rs, int sp,
                  ddz_ranks *witness)
{
    if (++sv->last.nodes > sv->cap) {
        sv->stop = DDZ_EBUDGET;
        return sv->stop;
    }
    const ddz_solver_budget *b = sv->budget;
    if (sv->last.nodes % DDZ_SOLVER_CLOCK_EVERY == 0 && b && b->clock &&
        b->clock(b->clock_ctx) >= b->deadline) {
        sv->stop = DDZ_ETIMEOUT;
        return sv->stop;
    }
    int me = p->turn;
    ddz_ranks hand = p->hand[me];
    bool leading = p->last_seat < 0;
    ddz_combo whole = ddz_combo_classify(rs, hand);
    if (whole.type != DDZ_INVALID && (leading || ddz_combo_beats(whole, p->last))) {
        if (witness)
            *witness = hand;
        return 1;
    }

    uint64_t key = pos_key(p, sv->ll);
    tt_entry *e = &sv->tt[key & sv->tt_mask];
    if (e->gen == sv->gen && e->key == key && !(witness && e->win))
        return e->win;

    ddz_move *mv = &sv->stack[sp];
    int n = ddz_movegen(rs, hand, leading ? NULL : &p->last, mv, DDZ_SOLVER_STACK - (size_t)sp);
    if (n < 0)
        return DDZ_ENOSPC;
    bool partner_last = !leading && side_of(sv, p->last_seat) == side_of(sv, me);
    order_moves(mv, n, partner_last);
    int result = 0;
    for (int i = 0; i < n; i++) {
        ddz_solver_pos c;
        child(p, &mv[i], &c);
        int r = search(sv, &c, rs, sp + n, NULL);
        if (r < 0)
            return r;
        if ((side_of(sv, c.turn) == side_of(sv, me)) == (r == 1)) {
            result = 1;
            if (witness)
                *witness = mv[i].ranks;
            break;
        }
    }
    /* `e` may have been overwritten below: always-replace keeps the
     * entry nearest the root, which saved the most */
    e->key = key;
    e->gen = sv->gen;
    e->win = (uint8_t)result;
    return result;
}

static bool rank_counts_ok(ddz_ranks h)
{
    for (int r = 0; r < 16; r++) {
        int k = ddz_ranks_get(h, r);
        if (k > (r >= DDZ_RANK_SJ ? (r == 15 ? 0 : 1) : 4))
            return false;
    }
    return true;
}

/* Checks `p` and sets up a call. Returns 0 or DDZ_EINVAL. */
static int begin(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                 const ddz_solver_budget *b)
{
    sv->last.nodes = 0;
    if (p->turn > 2 || p->landlord > 2 || p->last_seat < -1 || p->last_seat > 2 ||
        (p->last_seat < 0) != (p->last.type == DDZ_PASS) || p->last_seat == p->turn)
        return DDZ_EINVAL;
    for (int i = 0; i < 3; i++)
        if (!rank_counts_ok(p->hand[i]))
            return DDZ_EINVAL;
    if (sv->rules != rs) {
        if (sv->rules)
            ddz_solver_forget(sv); /* entries found under other rules mean nothing here */
        sv->rules = rs;
    }
    sv->budget = b;
    sv->cap = b && b->nodes > 0 ? b->nodes : LONG_MAX;
    sv->stop = 0;
    sv->ll = p->landlord;
    return 0;
}

/* Returns the seat whose hand is empty in `p`, or -1. */
static int emptied(const ddz_solver_pos *p)
{
    for (int i = 0; i < 3; i++)
        if (p->hand[i] == 0)
            return i;
    return -1;
}

int ddz_solver_solve(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                     const ddz_solver_budget *b)
{
    int rc = begin(sv, rs, p, b);
    if (rc < 0)
        return rc;
    int done = emptied(p);
    if (done >= 0)
        return ddz_solver_side(p, done);
    int r = search(sv, p, rs, 0, NULL);
    if (r < 0)
        return r;
    int mover = ddz_solver_side(p, p->turn);
    return r == 1 ? mover : DDZ_SIDE_LANDLORD + DDZ_SIDE_FARMERS - mover;
}

int ddz_solver_solve_witness(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                             const ddz_solver_budget *b, ddz_ranks *witness)
{
    int rc = begin(sv, rs, p, b);
    if (rc < 0)
        return rc;
    if (emptied(p) >= 0)
        return DDZ_EPHASE;
    ddz_ranks w = 0;
    int r = search(sv, p, rs, 0, &w);
    if (r < 0)
        return r;
    int mover = ddz_solver_side(p, p->turn);
    if (r == 1)
        *witness = w;
    return r == 1 ? mover : DDZ_SIDE_LANDLORD + DDZ_SIDE_FARMERS - mover;
}

int ddz_solver_keeps(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                     const ddz_solver_budget *b, ddz_ranks *out, size_t cap)
{
    int rc = begin(sv, rs, p, b);
    if (rc < 0)
        return rc;
    if (emptied(p) >= 0)
        return DDZ_EPHASE;
    int me = p->turn;
    ddz_move *mv = sv->stack;
    int n = ddz_movegen(rs, p->hand[me], p->last_seat < 0 ? NULL : &p->last, mv, DDZ_SOLVER_STACK);
    if (n < 0)
        return DDZ_ENOSPC;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        bool keeps;
        if (mv[i].ranks == p->hand[me]) {
            keeps = true; /* the hand is empty: the game is won */
        } else {
            ddz_solver_pos c;
            child(p, &mv[i], &c);
            int r = search(sv, &c, rs, n, NULL);
            if (r < 0)
                return r;
            keeps = (side_of(sv, c.turn) == side_of(sv, me)) == (r == 1);
        }
        if (!keeps)
            continue;
        if (k == cap)
            return DDZ_ENOSPC;
        out[k++] = mv[i].ranks;
    }
    return (int)k;
}

/* ---------------------------------------------------------------------- */
/* Score search                                                            */

enum { SCORE_INF = INT32_MAX }; /* beyond every score: |score| x DDZ_SCORE_DENOM < 2^31 */

/* The key of `p` with its stake, for objective sv->xside. nplays counts
 * only as 0, 1 or more: spring and anti-spring ask nothing else, so
 * positions that differ beyond that share their entries. */
static uint64_t score_key(const ddz_solver *sv, const ddz_solver_pos *p)
{
    const ddz_solver_stake *k = &p->stake;
    uint64_t h = pos_key(p, sv->ll);
    uint64_t st = (uint64_t)k->bid | (uint64_t)k->bombs << 8 | (uint64_t)k->rocket << 16;
    for (int i = 0; i < 3; i++)
        st |= (uint64_t)(k->nplays[i] < 2 ? k->nplays[i] : 2) << (24 + 2 * i);
    st |= (uint64_t)sv->xside << 32;
    h = mix(h ^ st);
    return mix(h ^ ((uint64_t)(uint16_t)k->weight[0] | (uint64_t)(uint16_t)k->weight[1] << 16 |
                    (uint64_t)(uint16_t)k->weight[2] << 32));
}

/* Writes to `c` the position after the mover of `p` plays `m`, the stake
 * counted as ddz_game_play counts it. */
static void score_child(const ddz_rules *rs, const ddz_solver_pos *p, const ddz_move *m,
                        ddz_solver_pos *c)
{
    child(p, m, c);
    if (m->ranks == 0)
        return;
    ddz_solver_stake *k = &c->stake;
    int me = p->turn;
    if (k->nplays[me] < UINT8_MAX)
        k->nplays[me]++;
    if (rs->play_weight)
        k->weight[me] = (int16_t)(k->weight[me] + rs->play_weight(&m->combo));
    k->bombs += m->combo.type == DDZ_BOMB;
    k->rocket |= m->combo.type == DDZ_ROCKET;
}

/* The value for objective sv->xside of `p` ended by `winner` emptying its
 * hand: the rule set's own scoring (ddz_game_score_won) of the stake. */
static int32_t score_end(const ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                         int winner)
{
    ddz_game g;
    g.rules = rs;
    g.landlord = (int8_t)sv->ll;
    g.bid = p->stake.bid;
    g.bombs = p->stake.bombs;
    g.rocket = p->stake.rocket;
    g.spring = g.anti_spring = 0;
    for (int i = 0; i < 3; i++) {
        g.nplays[i] = p->stake.nplays[i];
        g.weight[i] = p->stake.weight[i];
    }
    ddz_game_score_won(&g, winner);
    int seat = sv->xside == DDZ_SIDE_LANDLORD ? sv->ll : (sv->ll + 1) % 3;
    double v = g.score[seat] * DDZ_SCORE_DENOM;
    return (int32_t)(v < 0 ? v - 0.5 : v + 0.5);
}

/* Bounds on the value of `p` for objective sv->xside, found without
 * search under a rule set whose stake only grows with bombs, the rocket
 * and spring (no play weights): at most the score of the landlord's win
 * with every four still in one hand played as a bomb, the rocket if one
 * hand holds both jokers, and spring if the farmers have not played; at
 * least the farmers' win with the same, and anti-spring if the landlord
 * has played at most once. Returns 0 with [*lo, *hi] set, or -1 when the
 * rule set counts play weights (no bound: the search alone decides). */
static int score_bounds(const ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                        int32_t *lo, int32_t *hi)
{
    if (rs->play_weight)
        return -1;
    /* a rank count is 4 exactly when its bit 2 is set (no count exceeds 4) */
    const ddz_ranks fours = 0x4444444444444ULL; /* ranks 3 .. 2 */
    const ddz_ranks jokers = (ddz_ranks)1 << (4 * DDZ_RANK_SJ) | (ddz_ranks)1 << (4 * DDZ_RANK_BJ);
    ddz_solver_pos x = *p;
    int ll = sv->ll;
    for (int i = 0; i < 3; i++) {
        x.stake.bombs = (uint8_t)(x.stake.bombs + __builtin_popcountll(p->hand[i] & fours));
        x.stake.rocket |= (p->hand[i] & jokers) == jokers;
    }
    int32_t won = score_end(sv, rs, &x, ll);
    if (x.stake.nplays[ll] == 0)
        x.stake.nplays[ll] = 1; /* its one play may still be its last */
    int32_t lost = score_end(sv, rs, &x, (ll + 1) % 3);
    *lo = won < lost ? won : lost;
    *hi = won < lost ? lost : won;
    return 0;
}

/* Alpha-beta over the score of side sv->xside, which maximises it while
 * the other side minimises it; fail-soft, so *out is the exact value when
 * it lies in (alpha, beta), else a bound on the side of the window it
 * left by. Returns 0, or the negative code that stopped the search. */
static int score_search(ddz_solver *sv, const ddz_solver_pos *p, const ddz_rules *rs, int sp,
                        int32_t alpha, int32_t beta, int32_t *out)
{
    if (++sv->last.nodes > sv->cap)
        return sv->stop = DDZ_EBUDGET;
    const ddz_solver_budget *b = sv->budget;
    if (sv->last.nodes % DDZ_SOLVER_CLOCK_EVERY == 0 && b && b->clock &&
        b->clock(b->clock_ctx) >= b->deadline)
        return sv->stop = DDZ_ETIMEOUT;

    /* the slot from the key alone, the generation only in what is
     * compared: which entries collide must not depend on how many
     * searches came before (ai:strong's node counts are its budget) */
    uint64_t key = score_key(sv, p);
    score_entry *e = &sv->stt[key & sv->tt_mask];
    key ^= (uint64_t)sv->gen * 0x9E3779B97F4A7C15ULL;
    int32_t lo = -SCORE_INF, hi = SCORE_INF;
    if (e->key == key) {
        lo = e->lo, hi = e->hi;
        if (lo >= beta || lo == hi) {
            *out = lo;
            return 0;
        }
        if (hi <= alpha) {
            *out = hi;
            return 0;
        }
        alpha = alpha > lo ? alpha : lo;
        beta = beta < hi ? beta : hi;
    }

    /* what no line can pass: a window beyond it is decided, and a side
     * that reaches it need look no further */
    int32_t slo = -SCORE_INF, shi = SCORE_INF;
    if (score_bounds(sv, rs, p, &slo, &shi) == 0) {
        if (shi <= alpha) {
            *out = shi;
            return 0;
        }
        if (slo >= beta) {
            *out = slo;
            return 0;
        }
    }

    int me = p->turn;
    bool maxing = ddz_solver_side(p, me) == sv->xside;
    bool leading = p->last_seat < 0;
    ddz_move *mv = &sv->stack[sp];
    int n =
        ddz_movegen(rs, p->hand[me], leading ? NULL : &p->last, mv, DDZ_SOLVER_STACK - (size_t)sp);
    if (n < 0)
        return DDZ_ENOSPC;
    order_moves(mv, n, !leading && side_of(sv, p->last_seat) == side_of(sv, me));
    int32_t best = maxing ? -SCORE_INF : SCORE_INF, a = alpha, z = beta;
    for (int i = 0; i < n; i++) {
        ddz_solver_pos c;
        score_child(rs, p, &mv[i], &c);
        int32_t v;
        if (c.hand[me] == 0) {
            v = score_end(sv, rs, &c, me);
        } else {
            int rc = score_search(sv, &c, rs, sp + n, a, z, &v);
            if (rc < 0)
                return rc;
        }
        if (maxing) {
            best = v > best ? v : best;
            a = best > a ? best : a;
        } else {
            best = v < best ? v : best;
            z = best < z ? best : z;
        }
        if (a >= z || (maxing ? best >= shi : best <= slo))
            break;
    }
    /* what the search proved about the value, within what the entry
     * already knew (`e` may have been overwritten below: always-replace,
     * as the win/loss table does) */
    if (best <= alpha)
        hi = best;
    else if (best >= beta)
        lo = best;
    else
        lo = hi = best;
    *e = (score_entry){.key = key, .lo = lo, .hi = hi};
    *out = best;
    return 0;
}

/* The value for objective `side` of `p` (full window). */
static int score_of(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p, int side,
                    int32_t *out)
{
    sv->xside = side;
    int done = emptied(p);
    if (done >= 0) {
        *out = score_end(sv, rs, p, done);
        return 0;
    }
    return score_search(sv, p, rs, 0, -SCORE_INF, SCORE_INF, out);
}

int ddz_solver_forced_score(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                            const ddz_solver_budget *b, ddz_solver_score *out)
{
    int rc = begin(sv, rs, p, b);
    if (rc < 0)
        return rc;
    if (p->stake.bid > rs->max_bid)
        return DDZ_EINVAL;
    if (!sv->stt && !(sv->stt = calloc((size_t)(sv->tt_mask + 1), sizeof *sv->stt)))
        return DDZ_ENOMEM;
    int32_t ll, fa;
    if ((rc = score_of(sv, rs, p, DDZ_SIDE_LANDLORD, &ll)) < 0)
        return rc;
    if (rs->play_weight) {
        /* each side's score counts its own plays: not the other's loss */
        if ((rc = score_of(sv, rs, p, DDZ_SIDE_FARMERS, &fa)) < 0)
            return rc;
    } else {
        fa = -ll / 2; /* the landlord wins or loses twice what each farmer does */
    }
    out->landlord = (double)ll / DDZ_SCORE_DENOM;
    out->farmer = (double)fa / DDZ_SCORE_DENOM;
    return 0;
}
