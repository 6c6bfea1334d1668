/* puzzle.c - puzzles from positions (see puzzle.h). */
#include "puzzle.h"

#include <math.h>

int ddz_puzzle_cards(const ddz_solver_pos *p)
{
    return ddz_ranks_total(p->hand[0]) + ddz_ranks_total(p->hand[1]) + ddz_ranks_total(p->hand[2]);
}

int ddz_puzzle_find(ddz_solver *sv, const ddz_rules *rs, const ddz_solver_pos *p,
                    const ddz_solver_budget *b, ddz_puzzle *out)
{
    out->nodes = 0;
    out->nsolutions = 0;
    if (p->turn > 2)
        return DDZ_EINVAL;
    out->side = ddz_solver_side(p, p->turn);
    int n = ddz_movegen(rs, p->hand[p->turn], p->last_seat < 0 ? NULL : &p->last, out->moves,
                        DDZ_MOVES_MAX);
    if (n < 0)
        return DDZ_ENOSPC;
    out->nmoves = n;
    /* ddz_solver_keeps proves every play, won or lost: no verdict first,
     * which would only search again what it searches */
    int k = ddz_solver_keeps(sv, rs, p, b, out->solutions, DDZ_MOVES_MAX);
    out->nodes = ddz_solver_last(sv)->nodes;
    if (k < 0)
        return k;
    out->nsolutions = k;
    return k > 0 && 2 * k < n;
}

double ddz_puzzle_difficulty(int nmoves, int nsolutions)
{
    if (nmoves < 1 || nsolutions < 1)
        return 0;
    return round(100 * log2((double)nmoves / nsolutions)) / 100;
}
