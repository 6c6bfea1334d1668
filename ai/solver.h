/* solver.h - exact search of perfect-information Dou Dizhu positions.
 *
 * With every hand known, a position from the play phase is a two-sided
 * game: the landlord against the two farmers, who win together. The solver
 * answers which side wins with best play for both (an AND/OR search over
 * rank multisets: suits never matter), and which of the mover's plays keep
 * a win for the mover's side. ai:strong uses it on sampled endgames,
 * ai/analysis.h on the positions of a finished game.
 *
 * Method. Depth-first search of every legal play (rules/movegen.h), the
 * mover's side winning when one of its plays leads to a position its side
 * wins. Shortcuts, each exact: a mover whose whole hand is one play that may
 * be made now wins at once; a transposition table remembers positions
 * already decided; plays are tried in an order that finds wins early (the
 * pass first over a partner's play, else bigger plays first). A
 * search may stop before it has an answer: at its node budget, or when the
 * caller's clock passes a deadline.
 *
 * Scores. Besides who wins, ddz_solver_forced_score finds the best score each
 * side can force: the landlord's score when it plays to raise it and the
 * farmers to lower it (bombs, the rocket and spring raise the stake under
 * caai and botzone-ftl2; botzone-ftl counts each side's plays), and the
 * farmers' the other way round. It is a minimax over those scores with
 * alpha-beta cuts and a table of bounds, and no whole-hand shortcut (the
 * whole hand at once may score less than a bomb first); it costs more
 * nodes than the win/loss search of the same position.
 *
 * Memory. A ddz_solver owns the transposition table (2^tt_bits entries of
 * 16 bytes) and the move stack (DDZ_SOLVER_STACK moves, 512 KB): a search
 * allocates nothing. The first score search allocates a second table of
 * the same size for score bounds. Table entries stay valid from one search to the next
 * (a later search of related positions is faster) until
 * ddz_solver_forget(), or until a search under another rule set, which
 * forgets them first. No globals: separate solvers are independent; one
 * solver may not be used by two threads at once.
 */
#ifndef DDZ_AI_SOLVER_H
#define DDZ_AI_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "rules/error.h"
#include "rules/game.h"
#include "rules/movegen.h"

enum {
    DDZ_SOLVER_TT_BITS = 18,      /* default table: 2^18 entries, 4 MB */
    DDZ_SOLVER_TT_BITS_MAX = 28,  /* largest table ddz_solver_create takes (4 GB) */
    DDZ_SOLVER_STACK = 1 << 15,   /* moves on the search's stack */
    DDZ_SOLVER_CLOCK_EVERY = 256, /* nodes between two reads of the budget's clock */
};

/* The two sides, as the solver's answers name them. */
enum ddz_side {
    DDZ_SIDE_LANDLORD = 1, /* the landlord wins */
    DDZ_SIDE_FARMERS = 2,  /* one of the farmers wins, for both */
};

/* What the stake depends on besides the cards, from the game so far, as
 * ddz_game counts it: read only by the score search (ddz_solver_forced_score). */
typedef struct ddz_solver_stake {
    uint8_t bid;       /* the landlord's bid */
    uint8_t bombs;     /* bombs played */
    uint8_t rocket;    /* 1: the rocket was played */
    uint8_t nplays[3]; /* non-pass plays per seat (spring, anti-spring) */
    int16_t weight[3]; /* play weights per seat (botzone-ftl's scores) */
} ddz_solver_stake;

/* A position of the play phase with every hand known: a value. */
typedef struct ddz_solver_pos {
    ddz_ranks hand[3];      /* what each seat holds, as rank counts */
    ddz_combo last;         /* the play to beat; type DDZ_PASS when the mover leads */
    int8_t last_seat;       /* who made `last`; -1 when the mover leads */
    uint8_t turn;           /* the seat to move, 0..2 */
    uint8_t landlord;       /* the landlord's seat, 0..2 */
    ddz_solver_stake stake; /* the score search's; the win/loss search ignores it */
} ddz_solver_pos;

/* What one search may spend. A zero-filled budget has no limit at all. */
typedef struct ddz_solver_budget {
    long nodes;                  /* node cap of one call; <= 0: none */
    int64_t (*clock)(void *ctx); /* read every DDZ_SOLVER_CLOCK_EVERY nodes; NULL: no
                                    clock limit (nanoseconds, any origin, never decreasing) */
    void *clock_ctx;             /* passed to `clock` */
    int64_t deadline;            /* stop once clock(ctx) >= deadline */
} ddz_solver_budget;

/* What the last call did. */
typedef struct ddz_solver_stats {
    long nodes; /* positions entered (on a node-budget stop, the one refused too) */
} ddz_solver_stats;

typedef struct ddz_solver ddz_solver;

/* Creates a solver with a transposition table of 2^tt_bits entries
 * (tt_bits 10..DDZ_SOLVER_TT_BITS_MAX; 0 means DDZ_SOLVER_TT_BITS).
 * Memory is zero-filled, committed as searches touch it. Returns NULL when
 * out of memory or when tt_bits is out of range. */
ddz_solver *ddz_solver_create(int tt_bits);

/* Frees `sv`; NULL is fine. */
void ddz_solver_destroy(ddz_solver *sv);

/* Forgets every position the table holds (in O(1): entries carry a
 * generation). Searches give the same answers either way; what the table
 * holds changes only how many nodes they take, so a caller that wants node
 * counts to depend on nothing but the position forgets before each. */
void ddz_solver_forget(ddz_solver *sv);

/* Fills `p` with the position of `g`: its hands, the play to beat, the seat
 * to move, the landlord. Returns 0, or DDZ_EPHASE (p unchanged) when `g` is
 * not in the play phase (bidding, or over). A seat that faulted under
 * DDZ_FAULTPOLICY_PLAY_ON is searched as if it chose its plays: the solver
 * knows nothing of stand-ins. */
int ddz_solver_pos_of_game(const ddz_game *g, ddz_solver_pos *p);

/* Decides `p` under `rs` within budget `b` (NULL: no limit). Returns
 * DDZ_SIDE_LANDLORD or DDZ_SIDE_FARMERS, the side that wins with best play
 * by both sides; a position where a hand is already empty is won by that
 * seat's side. Fails with DDZ_EBUDGET when the node cap stopped it,
 * DDZ_ETIMEOUT when the clock did, DDZ_ENOSPC when the move stack
 * overflowed (a position far too big for any budget), DDZ_EINVAL for a
 * position that cannot occur (seat out of range, a play to beat without its
 * player or made by the mover, more than four cards of a rank). Entries
 * found before a stop stay in the table: they are exact. */
int ddz_solver_solve(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                     const ddz_solver_budget *b);

/* Decides `p` as ddz_solver_solve does, and when the mover's side wins,
 * sets *witness to the play of the mover that proved it (as ranks, 0 for
 * a pass): a play after which the mover's side wins with best play, found
 * on the way to the verdict, so it costs no second search. The position's
 * own table entry is not trusted to name one: when it says the mover wins,
 * the position is searched again (its children's entries make that cheap
 * as a rule, but the budget may run out on it: the verdict is then the
 * stop's code, never a win without its play). *witness is untouched when
 * the mover's side loses or on failure. Returns what ddz_solver_solve
 * returns, but DDZ_EPHASE when a hand is already empty (nobody moves). */
int ddz_solver_solve_witness(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                             const ddz_solver_budget *b, ddz_ranks *witness);

/* Writes to out[] (room for `cap`) every legal play of the mover in `p`
 * (as ranks, 0 for a pass, in ddz_movegen's order) after which the mover's
 * side wins with best play: all of them, each proven, or none. The budget
 * `b` (NULL: none) covers the whole call. Returns how many were written (0
 * when the mover's side loses whatever it plays), or DDZ_EBUDGET,
 * DDZ_ETIMEOUT, DDZ_ENOSPC, DDZ_EINVAL as ddz_solver_solve does, DDZ_ENOSPC
 * also when `cap` is too small (DDZ_MOVES_MAX always suffices), and
 * DDZ_EPHASE when a hand is already empty (the game is over: nobody moves). */
int ddz_solver_keeps(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                     const ddz_solver_budget *b, ddz_ranks *out, size_t cap);

/* The best score each side can force in a position, in the rule set's
 * scores (ddz_game.score's units). */
typedef struct ddz_solver_score {
    double landlord; /* the landlord ends with at least this, whatever the farmers
                        play, and they can hold it to this */
    double farmer;   /* the same for each farmer (the farmers score alike): under
                        caai and botzone-ftl2, -landlord / 2 */
} ddz_solver_score;

/* Finds the best score each side can force from `p` under `rs`, p->stake
 * saying what the game so far has done to the stake, within budget `b`
 * (NULL: none; it covers the whole call, which makes two searches under a
 * rule set whose sides' scores are not opposite: botzone-ftl). Returns 0
 * with *out set, or DDZ_EBUDGET, DDZ_ETIMEOUT, DDZ_ENOSPC, DDZ_EINVAL as
 * ddz_solver_solve does (also for a bid above rs->max_bid), DDZ_ENOMEM
 * when the score table cannot be allocated; *out is then unchanged. A
 * position where a hand is already empty is scored as won by that seat. */
int ddz_solver_forced_score(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                            const ddz_solver_budget *b, ddz_solver_score *out);

/* Returns the side of `seat` in `p`: DDZ_SIDE_LANDLORD or DDZ_SIDE_FARMERS. */
static inline int ddz_solver_side(const ddz_solver_pos *p, int seat)
{
    return seat == p->landlord ? DDZ_SIDE_LANDLORD : DDZ_SIDE_FARMERS;
}

/* Returns what the last ddz_solver_solve, ddz_solver_solve_witness or
 * ddz_solver_keeps did. */
const ddz_solver_stats *ddz_solver_last(const ddz_solver *sv);

#endif
