/* analysis.c - post-game analysis (see analysis.h). */
#include "analysis.h"

#include <math.h>
#include <string.h>

const char *ddz_verdict_name(int v)
{
    switch (v) {
    case DDZ_VERDICT_LANDLORD:
        return "landlord";
    case DDZ_VERDICT_FARMERS:
        return "farmers";
    default:
        return "unknown";
    }
}

/* Charges the faults of the record due before bid `bids` (while bidding,
 * at == -1) or before play `at`, as ddz_record_replay does. The record
 * replayed in ddz_analysis_begin, so each charge succeeds. */
static void charge(ddz_analysis *a, int at, int bids)
{
    const ddz_record *r = a->record;
    while (a->fault_next < r->nfaults) {
        const ddz_fault_entry *f = &r->faults[a->fault_next];
        if (f->at != at || (at < 0 && f->bids != bids))
            return;
        ddz_game_fault(&a->game, f->seat, f->kind);
        a->fault_next++;
    }
}

int ddz_analysis_begin(ddz_analysis *a, const ddz_record *r, const ddz_rules *rs, ddz_solver *sv)
{
    memset(a, 0, sizeof *a);
    /* checks every action once, so that the plies below need not */
    if (ddz_record_replay(r, rs, &a->game, NULL, 0) < 0)
        return DDZ_EVERIFY;
    a->record = r;
    a->rules = rs;
    ddz_game_start(&a->game, rs, &r->deal, r->early_penalty);
    for (int i = 0; i < r->nbids; i++) {
        charge(a, -1, i);
        ddz_game_bid(&a->game, i, r->bids[i]);
    }
    charge(a, -1, r->nbids);
    a->end = a->game.phase == DDZ_PHASE_PLAY ? r->nplays : 0;
    ddz_solver_forget(sv);
    return a->end;
}

/* Fills `sb` with one position's budget `b` (NULL: none), starting now. */
static void solver_budget(const ddz_analysis_budget *b, ddz_solver_budget *sb)
{
    *sb = (ddz_solver_budget){0};
    if (!b)
        return;
    sb->nodes = b->nodes;
    if (b->clock && b->ns > 0) {
        sb->clock = b->clock;
        sb->clock_ctx = b->clock_ctx;
        sb->deadline = b->clock(b->clock_ctx) + b->ns;
    }
}

/* Decides the position of `g` within `b`. Returns the verdict; adds the
 * nodes spent to *nodes. When the mover's side wins, *witness is the play
 * that proved it and *witnessed 1; else *witnessed is 0. */
static int decide(ddz_solver *sv, const ddz_game *g, const ddz_analysis_budget *b, long *nodes,
                  ddz_ranks *witness, int *witnessed)
{
    *witnessed = 0;
    if (g->phase == DDZ_PHASE_OVER)
        return g->winner < 0              ? DDZ_VERDICT_UNKNOWN
               : g->winner == g->landlord ? DDZ_VERDICT_LANDLORD
                                          : DDZ_VERDICT_FARMERS;
    ddz_solver_pos p;
    if (ddz_solver_pos_of_game(g, &p) < 0)
        return DDZ_VERDICT_UNKNOWN;
    ddz_solver_budget sb;
    solver_budget(b, &sb);
    int r = ddz_solver_solve_witness(sv, g->rules, &p, &sb, witness);
    *nodes += ddz_solver_last(sv)->nodes;
    if (r <= 0)
        return DDZ_VERDICT_UNKNOWN;
    *witnessed = r == ddz_solver_side(&p, p.turn);
    return r;
}

/* The best score each side can force in `g` within `b` into *out; the
 * scores it ended with once it is over. Returns 1, or 0 when the budget
 * ran out (or the game ended without a winner). */
static int forced(ddz_solver *sv, const ddz_game *g, const ddz_analysis_budget *b,
                  ddz_solver_score *out, long *nodes)
{
    if (g->phase == DDZ_PHASE_OVER) {
        if (g->winner < 0 || g->landlord < 0)
            return 0;
        *out = (ddz_solver_score){.landlord = g->score[g->landlord],
                                  .farmer = g->score[(g->landlord + 1) % 3]};
        return 1;
    }
    ddz_solver_pos p;
    if (ddz_solver_pos_of_game(g, &p) < 0)
        return 0;
    ddz_solver_budget sb;
    solver_budget(b, &sb);
    int rc = ddz_solver_forced_score(sv, g->rules, &p, &sb, out);
    *nodes += ddz_solver_last(sv)->nodes;
    return rc == 0;
}

/* Lists in out->keeps the plays of the mover of `g` that keep its side's
 * win; sets out->nkeeps (-1 when the budget ran out). */
static void list_keeps(ddz_solver *sv, const ddz_game *g, const ddz_analysis_budget *b,
                       ddz_analysis_ply *out)
{
    ddz_solver_pos p;
    out->nkeeps = -1;
    if (ddz_solver_pos_of_game(g, &p) < 0)
        return;
    ddz_solver_budget sb;
    solver_budget(b, &sb);
    int n = ddz_solver_keeps(sv, g->rules, &p, &sb, out->keeps, DDZ_MOVES_MAX);
    out->nodes += ddz_solver_last(sv)->nodes;
    if (n >= 0)
        out->nkeeps = n;
}

const ddz_game *ddz_analysis_position(ddz_analysis *a)
{
    if (a->next >= a->end)
        return NULL;
    charge(a, a->next, 0);
    if (a->game.phase != DDZ_PHASE_PLAY) {
        a->end = a->next; /* a fault ended the game: nothing after it */
        return NULL;
    }
    return &a->game;
}

int ddz_analysis_skip(ddz_analysis *a)
{
    if (!ddz_analysis_position(a))
        return 0;
    if (ddz_game_play(&a->game, a->game.turn, a->record->plays[a->next].cards) < 0) {
        a->end = a->next; /* not reached: the record replayed in begin */
        return 0;
    }
    /* what was carried is the verdict of the position just left */
    a->carried = 0;
    a->carry_witnessed = 0;
    a->carry_scored = 0;
    a->next++;
    return 1;
}

int ddz_analysis_next(ddz_analysis *a, ddz_solver *sv, const ddz_analysis_budget *b,
                      ddz_analysis_ply *out)
{
    if (!ddz_analysis_position(a))
        return 0;
    const ddz_record_play *rp = &a->record->plays[a->next];
    ddz_game *g = &a->game;
    out->ply = a->next;
    out->seat = g->turn;
    out->autopass = rp->autopass;
    out->hand = g->hand[g->turn];
    out->cards = rp->cards;
    out->nodes = 0;
    out->nkeeps = -1;
    out->witness = 0;
    if (a->carried) {
        out->before = a->carry;
        out->witness = a->carry_witness;
        out->witnessed = a->carry_witnessed;
    } else {
        out->before = decide(sv, g, b, &out->nodes, &out->witness, &out->witnessed);
    }
    bool scores = b && b->scores;
    out->scored_before = out->scored_after = 0;
    out->cost = 0;
    if (scores && a->carried) {
        out->scored_before = a->carry_scored;
        out->score_before = a->carry_score;
    } else if (scores) {
        out->scored_before = forced(sv, g, b, &out->score_before, &out->nodes);
    }

    ddz_game was = *g;
    if (ddz_game_play(g, out->seat, rp->cards) < 0) {
        a->end = a->next; /* not reached: the record replayed in begin */
        return 0;
    }
    ddz_ranks next_witness = 0;
    int next_witnessed;
    out->after = decide(sv, g, b, &out->nodes, &next_witness, &next_witnessed);
    int mine = was.landlord == out->seat ? DDZ_VERDICT_LANDLORD : DDZ_VERDICT_FARMERS;
    int theirs = DDZ_VERDICT_LANDLORD + DDZ_VERDICT_FARMERS - mine;
    out->gave = out->before == mine && out->after == theirs;
    out->took = out->before == theirs && out->after == mine;
    if (out->gave)
        list_keeps(sv, &was, b, out);
    if (scores)
        out->scored_after = forced(sv, g, b, &out->score_after, &out->nodes);
    if (out->scored_before && out->scored_after) {
        bool ll = was.landlord == out->seat;
        double d = ll ? out->score_before.landlord - out->score_after.landlord
                      : out->score_before.farmer - out->score_after.farmer;
        /* the scores are whole numbers of 1/DDZ_SCORE_DENOM: no rounding
         * dust makes a play look costly */
        out->cost = (double)llround(d * DDZ_SCORE_DENOM) / DDZ_SCORE_DENOM;
    }

    if (!out->autopass) {
        ddz_analysis_tally *t = &a->tally[out->seat];
        t->positions++;
        t->gave += out->gave;
        t->took += out->took;
        t->unknown += out->before == DDZ_VERDICT_UNKNOWN || out->after == DDZ_VERDICT_UNKNOWN;
        if (out->scored_before && out->scored_after) {
            t->scored++;
            t->costly += out->cost > 0;
            t->cost += out->cost;
        }
    }
    a->carry = out->after;
    a->carry_witness = next_witness;
    a->carry_witnessed = next_witnessed;
    a->carried = 1;
    a->carry_score = out->score_after;
    a->carry_scored = out->scored_after;
    a->next++;
    return 1;
}
