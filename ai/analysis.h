/* analysis.h - post-game analysis: who was winning, play by play.
 *
 * Given a finished game's record (rules/record.h), the analysis replays its
 * plays from the landlord's first (bidding is not analysed) and, for each,
 * decides the position before the play and after it with every hand
 * known: which side wins with best play by both (ai/solver.h), or unknown
 * when the budget ran out. A play that turned a position its side had won
 * into a lost one "gave away" the win; for such a play the analysis lists
 * the plays that would have kept it, and always names one of them: the
 * play that proved the position won (its witness), found with the
 * verdict, so it is known even when the budget runs out listing the
 * others. This is spec §10's `ddz analyze`
 * without the I/O: the caller prints (service/cli/cli_analyze.c).
 *
 * Use: ddz_analysis_begin() on a record, then ddz_analysis_next() until it
 * returns 0, one ply per call (a server can spread a game over many turns
 * of its loop, or stop early). The verdict after ply i is the verdict
 * before ply i + 1, found once. The solver's table is forgotten at
 * ddz_analysis_begin, so a game's analysis under a node budget does not
 * depend on what the solver did before.
 *
 * Faults. A record ended by a fault has no plays after it: the plays before
 * it are analysed. Under a rule set that plays on after a fault
 * (botzone-ftl2), the referee's stand-in plays are analysed like the
 * others, and the verdicts still assume best play by every seat: the
 * solver knows nothing of stand-ins.
 */
#ifndef DDZ_AI_ANALYSIS_H
#define DDZ_AI_ANALYSIS_H

#include <stdint.h>

#include "ai/solver.h"
#include "rules/record.h"

/* Who wins a position with best play by both sides. */
enum ddz_verdict {
    DDZ_VERDICT_UNKNOWN = 0,                  /* the budget ran out first */
    DDZ_VERDICT_LANDLORD = DDZ_SIDE_LANDLORD, /* the landlord */
    DDZ_VERDICT_FARMERS = DDZ_SIDE_FARMERS,   /* the farmers */
};

/* What deciding one position may spend (a verdict; the list of keeping
 * plays is a position of its own, with the same budget again). A
 * zero-filled budget has no limit: only for positions known to be small. */
typedef struct ddz_analysis_budget {
    long nodes;                  /* node cap per position; <= 0: none */
    int64_t ns;                  /* clock budget per position in ns; <= 0 or no clock: none */
    int64_t (*clock)(void *ctx); /* nanoseconds, any origin, never decreasing; NULL: none */
    void *clock_ctx;             /* passed to `clock` */
    int scores;                  /* 1: also the best score each side can force, before and
                                    after each play, each position within the same budget
                                    again (the score search costs more: ai/solver.h) */
} ddz_analysis_budget;

/* One play of the record, analysed. */
typedef struct ddz_analysis_ply {
    int ply;           /* index into the record's plays, from 0 (auto-passes count) */
    int seat;          /* who played */
    int autopass;      /* 1: the referee made the play (a forced pass, or a stand-in) */
    ddz_cards hand;    /* the mover's cards before the play */
    ddz_cards cards;   /* the cards played (0: pass) */
    int before;        /* enum ddz_verdict of the position before the play */
    int after;         /* enum ddz_verdict after it (the winner's side once a hand is empty) */
    int gave;          /* 1: before was the mover's side's win, after its loss */
    int took;          /* 1: before was its loss, after its win (never, with exact verdicts:
                          a nonzero count would mean the solver erred) */
    int witnessed;     /* 1: `before` is the mover's side's win (so whenever `gave`) */
    ddz_ranks witness; /* then the play that proved it, as ranks (0: a pass), one of
                          keeps[] when they are listed: the cards are
                          ddz_cards_pick(hand, witness) */
    int nkeeps;        /* when `gave`: how many plays would have kept the win, in keeps[];
                          -1 otherwise, or when the budget ran out listing them */
    ddz_ranks keeps[DDZ_MOVES_MAX]; /* those plays, as ranks in ddz_movegen's order: the
                                       cards are ddz_cards_pick(hand, keeps[i]) */
    long nodes;                     /* solver nodes this ply took */
    /* With budget.scores: the best score each side could force before the
     * play and after it (once a hand is empty, the scores the game ended
     * with), each valid when its flag is 1 (0: the budget ran out, or
     * scores not asked); `cost` is what the play cost the mover's side, its
     * forced score before minus after (>= 0), valid when both are. */
    int scored_before, scored_after;
    ddz_solver_score score_before, score_after;
    double cost;
} ddz_analysis_ply;

/* Per seat, over the plies analysed so far: only the seat's own plays
 * (not the referee's) count. */
typedef struct ddz_analysis_tally {
    int positions; /* plays the seat chose */
    int gave;      /* of them, plays that gave away a won position */
    int took;      /* plays that took a win from a lost position (0 with exact verdicts) */
    int unknown;   /* plays whose verdict before or after is unknown */
    int costly;    /* with scores: plays that lowered their side's forced score */
    double cost;   /* their cost in all, in the rule set's scores */
    int scored;    /* plays whose cost is known */
} ddz_analysis_tally;

/* An analysis in progress: a value the caller allocates, valid while the
 * record it was begun on is. Read-only for the caller. */
typedef struct ddz_analysis {
    const ddz_record *record;     /* the game analysed */
    const ddz_rules *rules;       /* its rule set */
    ddz_game game;                /* the game before play `next` */
    int next;                     /* the next ply to analyse */
    int end;                      /* plies there are: the record's plays */
    int fault_next;               /* the next of the record's faults to charge */
    int carry;                    /* verdict of the position before `next`, once known */
    int carried;                  /* 1: `carry` holds it (it was the last ply's `after`) */
    ddz_ranks carry_witness;      /* the play that proved `carry`, as ply.witness */
    int carry_witnessed;          /* 1: carry_witness holds one */
    ddz_solver_score carry_score; /* the scores before `next`, as `carry` */
    int carry_scored;             /* 1: carry_score holds them */
    ddz_analysis_tally tally[3];  /* by seat */
} ddz_analysis;

/* Begins the analysis of `r` under `rs` (the rule set its "rules" names),
 * and makes `sv` forget its table (the next calls must pass the same
 * solver). Returns how many plies there are to analyse (0 when all passed
 * or a fault came before the first play), or DDZ_EVERIFY when the record's
 * actions do not replay under `rs` (ddz_record_replay). */
int ddz_analysis_begin(ddz_analysis *a, const ddz_record *r, const ddz_rules *rs, ddz_solver *sv);

/* Analyses the next ply into `out`, each position within budget `b` (NULL:
 * no limit). Returns 1 when a ply was written, 0 when every ply has been
 * (out untouched). Never fails otherwise: a budget that runs out gives
 * DDZ_VERDICT_UNKNOWN, not an error. */
int ddz_analysis_next(ddz_analysis *a, ddz_solver *sv, const ddz_analysis_budget *b,
                      ddz_analysis_ply *out);

/* The game before ply a->next, with the record's faults due before it
 * charged: for a caller that looks at the positions of a record without
 * deciding them all (service/cli/cli_puzzles.c). Returns it (valid until
 * the next call on `a`), or NULL when no ply remains: every ply is done,
 * or a fault ended the game (no ply is analysed after it). */
const ddz_game *ddz_analysis_position(ddz_analysis *a);

/* Plays ply a->next as the record has it and moves on, deciding nothing
 * and counting nothing in a->tally: the next ddz_analysis_next decides its
 * position afresh. Returns 1, or 0 when no ply remains (as
 * ddz_analysis_position). */
int ddz_analysis_skip(ddz_analysis *a);

/* Returns the name of verdict `v` as spec §10 prints it: "landlord",
 * "farmers" or "unknown" (for anything else too). Never NULL. */
const char *ddz_verdict_name(int v);

#endif
