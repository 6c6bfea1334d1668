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

struct ddz_solver {
    uint32_t gen;           /* current generation of table entries (never 0) */
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
    free(sv);
}

void ddz_solver_forget(ddz_solver *sv)
{
    /* after 2^32 - 1 generations the table is cleared rather than reused */
    if (++sv->gen == 0) {
        memset(sv->tt, 0, (size_t)(sv->tt_mask + 1) * sizeof(tt_entry));
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
 * ddz_combo_classify does. */
static int search(ddz_solver *sv, const ddz_solver_pos *p, const ddz_rules *rs, int sp)
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
    if (whole.type != DDZ_INVALID && (leading || ddz_combo_beats(whole, p->last)))
        return 1;

    uint64_t key = pos_key(p, sv->ll);
    tt_entry *e = &sv->tt[key & sv->tt_mask];
    if (e->gen == sv->gen && e->key == key)
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
        int r = search(sv, &c, rs, sp + n);
        if (r < 0)
            return r;
        if ((side_of(sv, c.turn) == side_of(sv, me)) == (r == 1)) {
            result = 1;
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
    int r = search(sv, p, rs, 0);
    if (r < 0)
        return r;
    int mover = ddz_solver_side(p, p->turn);
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
            int r = search(sv, &c, rs, n);
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
