/* puzzle_check.c - the answer check of a puzzle (puzzle_check.h). */
#include "service/puzzles/puzzle_check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "rules/cards.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "rules/movegen.h"
#include "rules/ruleset.h"

/* A check in progress: the position, the cards behind its ranks, the line. */
typedef struct check {
    const ddz_rules *rs;
    ddz_solver *sv;
    const ddz_solver_budget *b;
    ddz_solver_pos pos;
    ddz_cards hand[3];
    json_t *line;    /* [{"seat", "cards"}...] */
    ddz_move *moves; /* DDZ_MOVES_MAX */
    ddz_ranks *keeps;
    ddz_move *deep[2]; /* DDZ_MOVES_MAX each: the defence's look ahead, a level each */
} check;

/* Cards of a JSON array of codes into *out. Returns false when it is not
 * one (not an array, a code out of range or twice). */
static bool cards_of(const json_t *a, ddz_cards *out)
{
    *out = 0;
    if (!json_is_array(a))
        return false;
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        json_int_t c = json_integer_value(v);
        if (!json_is_integer(v) || c < 0 || c >= DDZ_NCARDS || (*out >> c & 1))
            return false;
        *out |= 1ULL << c;
    }
    return true;
}

/* Makes the mover's play `m` (legal) in position *p. */
static void step(ddz_solver_pos *p, const ddz_move *m)
{
    int seat = p->turn, next = (seat + 1) % 3;
    p->hand[seat] -= m->ranks; /* a nibble each, none borrows */
    if (m->ranks) {
        p->last = m->combo;
        p->last_seat = (int8_t)seat;
    } else if (next == p->last_seat) { /* both others passed: it leads */
        p->last = (ddz_combo){.type = DDZ_PASS};
        p->last_seat = -1;
    }
    p->turn = (uint8_t)next;
}

/* Makes the mover's play `m` (held as `cards`, legal) in c->pos and the
 * line. */
static int apply(check *c, ddz_cards cards, const ddz_move *m)
{
    int seat = c->pos.turn;
    json_t *e = json_pack("{s:i, s:o}", "seat", seat, "cards", ddz_msg_cards(cards));
    if (!e || json_array_append_new(c->line, e) != 0)
        return DDZ_ENOMEM;
    c->hand[seat] &= ~cards;
    step(&c->pos, m);
    return 0;
}

/* The legal move of the mover whose ranks are `r`, or NULL. */
static const ddz_move *legal(check *c, ddz_ranks r, int *nmoves)
{
    const ddz_combo *last = c->pos.last_seat < 0 ? NULL : &c->pos.last;
    int n = ddz_movegen(c->rs, c->pos.hand[c->pos.turn], last, c->moves, DDZ_MOVES_MAX);
    *nmoves = n;
    for (int i = 0; i < n; i++)
        if (c->moves[i].ranks == r)
            return &c->moves[i];
    return NULL;
}

/* Whether the side of `seat` has won: a hand of that side is empty. */
static bool won(const check *c, int seat)
{
    int side = ddz_solver_side(&c->pos, seat);
    for (int s = 0; s < 3; s++)
        if (!c->hand[s] && ddz_solver_side(&c->pos, s) == side)
            return true;
    return false;
}

static bool over(const check *c)
{
    return !c->hand[0] || !c->hand[1] || !c->hand[2];
}

/* An error answer of `code` (its name) and `why`. */
static char *error_json(const char *code, const char *why)
{
    json_t *e = json_pack("{s:s, s:s}", "error", code, "message", why);
    char *out = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    return out;
}

/* The legal plays of the mover of *p into out[] (DDZ_MOVES_MAX). Returns
 * how many (at least one in a position that can occur) or DDZ_EINVAL. */
static int legal_plays(const check *c, const ddz_solver_pos *p, ddz_move *out)
{
    int n = ddz_movegen(c->rs, p->hand[p->turn], p->last_seat < 0 ? NULL : &p->last, out,
                        DDZ_MOVES_MAX);
    return n < 1 ? DDZ_EINVAL : n;
}

/* The partner's play in *p: the first, in ddz_movegen's order, that keeps
 * the side's win, written to *out. Returns 0, or a negative code (the
 * budget ran out; DDZ_EINVAL: no such play, which a won line never has). */
static int partner_play(check *c, const ddz_solver_pos *p, ddz_move *buf, ddz_move *out)
{
    int k = ddz_solver_keeps(c->sv, c->rs, p, c->b, c->keeps, DDZ_MOVES_MAX);
    if (k < 1)
        return k < 0 ? k : DDZ_EINVAL;
    int n = legal_plays(c, p, buf);
    for (int i = 0; i < n; i++)
        if (buf[i].ranks == c->keeps[0]) {
            *out = buf[i];
            return 0;
        }
    return DDZ_EINVAL;
}

#define NO_CHOICE_LEFT 1000000 /* the score of a line the mover's side has won */

/* How hard position *p leaves the person (the seat `mover`): the number of
 * plays that keep the win at the person's next turn, the seats between
 * playing as reply() makes them play (the partner its first winning play,
 * the other defender its own best defence: `level` is the look-ahead's
 * depth, 0 or 1). A line where the mover's side has already won scores
 * NO_CHOICE_LEFT: no defence wants it. Returns the score or a negative
 * code. */
static int pressure(check *c, const ddz_solver_pos *p, int mover, int level)
{
    for (int s = 0; s < 3; s++)
        if (!p->hand[s])
            return NO_CHOICE_LEFT; /* a defender never empties its hand: the line is won */
    if (p->turn == mover)
        return ddz_solver_keeps(c->sv, c->rs, p, c->b, c->keeps, DDZ_MOVES_MAX);
    if (level > 1)
        return DDZ_EINVAL; /* not reached: two seats at most come between */
    ddz_solver_pos next = *p;
    if (ddz_solver_side(p, p->turn) == ddz_solver_side(p, mover)) {
        ddz_move m;
        int rc = partner_play(c, p, c->deep[level], &m);
        if (rc < 0)
            return rc;
        step(&next, &m);
        return pressure(c, &next, mover, level + 1);
    }
    int n = legal_plays(c, p, c->deep[level]), best = NO_CHOICE_LEFT;
    for (int i = 0; i < n; i++) {
        next = *p;
        step(&next, &c->deep[level][i]);
        int v = pressure(c, &next, mover, level + 1);
        if (v < 0)
            return v;
        best = v < best ? v : best;
    }
    return n < 0 ? n : best;
}

/* The defender's play in c->pos: its best defence, the play that leaves
 * the person the fewest winning plays at their next turn (the first, in
 * ddz_movegen's order, of those that leave fewest), written to *out. Every
 * play of a defender loses when the line is won: the best defence is the
 * one that makes the win hardest to keep. Returns 0 or a negative code. */
static int defence(check *c, int mover, ddz_move *out)
{
    int n = legal_plays(c, &c->pos, c->moves), best = -1, score = 0;
    for (int i = 0; i < n; i++) {
        ddz_solver_pos next = c->pos;
        step(&next, &c->moves[i]);
        int v = pressure(c, &next, mover, 0);
        if (v < 0)
            return v;
        if (best < 0 || v < score)
            best = i, score = v;
    }
    if (best < 0)
        return n < 0 ? n : DDZ_EINVAL;
    *out = c->moves[best];
    return 0;
}

/* Plays the other seats until the mover is to play or the game is over,
 * appending their plays to `replies`. Returns 0 or a negative code. */
static int reply(check *c, int mover, json_t *replies)
{
    while (!over(c) && c->pos.turn != mover) {
        ddz_move m;
        int rc = ddz_solver_side(&c->pos, c->pos.turn) == ddz_solver_side(&c->pos, mover)
                     ? partner_play(c, &c->pos, c->moves, &m)
                     : defence(c, mover, &m);
        if (rc < 0)
            return rc;
        ddz_cards cards = ddz_cards_pick(c->hand[c->pos.turn], m.ranks);
        if ((rc = apply(c, cards, &m)) < 0 ||
            json_array_append_new(replies, ddz_msg_cards(cards)) != 0)
            return rc < 0 ? rc : DDZ_ENOMEM;
    }
    return 0;
}

/* The checking itself, c set up; `plays` the person's. */
static int run(check *c, const json_t *plays, char **json)
{
    int mover = c->pos.turn;
    size_t n = json_array_size(plays);
    json_t *replies = NULL, *answer = NULL;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        ddz_cards cards;
        if (!cards_of(json_array_get(plays, i), &cards)) {
            *json = error_json("EFIELD", "plays: arrays of card codes");
            return DDZ_EFIELD;
        }
        if (over(c) || c->pos.turn != mover) {
            *json = error_json("EFIELD", "plays after the line's end");
            return DDZ_EFIELD;
        }
        int nmoves;
        const ddz_move *m = NULL;
        if ((cards & ~c->hand[mover]) == 0)
            m = legal(c, ddz_cards_ranks(cards), &nmoves);
        if (!m) {
            *json = error_json("EILLEGAL", "a play not held or not legal there");
            return DDZ_EFIELD;
        }
        int k = ddz_solver_keeps(c->sv, c->rs, &c->pos, c->b, c->keeps, DDZ_MOVES_MAX);
        if (k < 0)
            return k;
        bool keeps = false;
        for (int j = 0; j < k && !keeps; j++)
            keeps = c->keeps[j] == m->ranks;
        ddz_move played = *m; /* c->moves is reused below */
        ddz_cards held = c->hand[mover];
        if ((rc = apply(c, cards, &played)) < 0)
            return rc;
        if (!keeps) {
            /* what won at this point: at the first play, the puzzle's
             * solutions (the same picks of the same hand) */
            json_t *sol = json_array();
            for (int j = 0; sol && j < k; j++)
                if (json_array_append_new(sol, ddz_msg_cards(ddz_cards_pick(held, c->keeps[j]))))
                    json_decref(sol), sol = NULL;
            answer = sol ? json_pack("{s:s, s:o, s:I, s:O}", "result", "failed", "solutions", sol,
                                     "at", (json_int_t)i, "line", c->line)
                         : NULL;
            goto done;
        }
        json_decref(replies);
        if (!(replies = json_array()))
            return DDZ_ENOMEM;
        if (!over(c) && (rc = reply(c, mover, replies)) < 0) {
            json_decref(replies);
            return rc;
        }
    }
    if (over(c) && won(c, mover))
        answer = json_pack("{s:s, s:O}", "result", "solved", "line", c->line);
    else if (over(c)) /* not reached: every play kept the win */
        rc = DDZ_EINVAL;
    else
        answer = json_pack("{s:s, s:o}", "result", "continue", "replies",
                           replies ? replies : json_array()),
        replies = NULL;
done:
    json_decref(replies);
    if (rc == 0 && !(answer && (*json = json_dumps(answer, JSON_COMPACT))))
        rc = DDZ_ENOMEM;
    json_decref(answer);
    return rc;
}

int ddz_puzzle_check(ddz_solver *sv, const ddz_store_puzzle *p, const char *body,
                     const ddz_solver_budget *b, char **json)
{
    *json = NULL;
    check c = {.rs = ddz_rules_find(p->rules), .sv = sv, .b = b};
    json_t *hands = json_loads(p->hands, 0, NULL);
    json_t *last = p->last_by >= 0 ? json_loads(p->last, 0, NULL) : NULL;
    json_t *in = json_loads(body ? body : "", 0, NULL);
    int rc = DDZ_EINVAL;
    ddz_cards lc = 0;
    bool ok = c.rs && json_array_size(hands) == 3 && (p->last_by < 0 || cards_of(last, &lc));
    for (int s = 0; ok && s < 3; s++)
        ok = cards_of(json_array_get(hands, (size_t)s), &c.hand[s]);
    if (!ok)
        goto done;
    c.pos = (ddz_solver_pos){.turn = (uint8_t)p->turn,
                             .landlord = (uint8_t)p->landlord,
                             .last_seat = (int8_t)p->last_by,
                             .last = {.type = DDZ_PASS}};
    for (int s = 0; s < 3; s++)
        c.pos.hand[s] = ddz_cards_ranks(c.hand[s]);
    if (p->last_by >= 0)
        c.pos.last = ddz_combo_classify(c.rs, ddz_cards_ranks(lc));
    json_t *plays = json_object_get(in, "plays");
    if (!json_is_array(plays) || json_array_size(plays) < 1 ||
        json_array_size(plays) > DDZ_PUZZLE_CHECK_PLAYS) {
        *json = error_json("EFIELD", "plays: 1 to 30 arrays of card codes");
        rc = DDZ_EFIELD;
        goto done;
    }
    c.line = json_array();
    c.moves = malloc(DDZ_MOVES_MAX * sizeof *c.moves);
    c.keeps = malloc(DDZ_MOVES_MAX * sizeof *c.keeps);
    c.deep[0] = malloc(DDZ_MOVES_MAX * sizeof *c.deep[0]);
    c.deep[1] = malloc(DDZ_MOVES_MAX * sizeof *c.deep[1]);
    rc = c.line && c.moves && c.keeps && c.deep[0] && c.deep[1] ? run(&c, plays, json) : DDZ_ENOMEM;
done:
    json_decref(c.line);
    free(c.deep[0]);
    free(c.deep[1]);
    free(c.moves);
    free(c.keeps);
    json_decref(hands);
    json_decref(last);
    json_decref(in);
    return rc;
}
