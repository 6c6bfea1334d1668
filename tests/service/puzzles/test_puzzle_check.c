/* test_puzzle_check.c - the answer check of a puzzle
 * (service/puzzles/puzzle_check.h), on puzzles `ddz puzzles` found in a
 * `ddz match` log: a first play that is not a solution fails and only
 * then tells the solutions; a line of winning plays (each found by the
 * test's own solver after the server's replies) is solved; the replies
 * are legal plays of the seats in turn; bad bodies and illegal plays are
 * refused. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ai/solver.h"
#include "rules/cards.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "rules/movegen.h"
#include "rules/ruleset.h"
#include "service/puzzles/puzzle_check.h"

static char dir[] = "/tmp/ddz_pzcheck_XXXXXX";
static ddz_store_puzzle puzzles[8];
static int npuzzles;
static ddz_solver *sv;
static ddz_move moves[DDZ_MOVES_MAX];
static ddz_ranks keeps[DDZ_MOVES_MAX];

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024], path[256];
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " match --seat A=ai:greedy --seat B=ai:random --seat C=ai:greedy --games 80"
                     " --seed %064d --log %s/games.jsonl >/dev/null && " DDZ_BIN
                     " puzzles %s/games.jsonl >%s/p.jsonl 2>/dev/null",
             11, dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/p.jsonl", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[65536];
    npuzzles = 0;
    while (npuzzles < 8 && fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert_not_null(j);
        ddz_store_puzzle *p = &puzzles[npuzzles++];
        memset(p, 0, sizeof *p);
        p->id = npuzzles;
        snprintf(p->rules, sizeof p->rules, "%s", json_string_value(json_object_get(j, "rules")));
        char *t = json_dumps(json_object_get(j, "hands"), JSON_COMPACT);
        snprintf(p->hands, sizeof p->hands, "%s", t);
        free(t);
        json_t *last = json_object_get(j, "last");
        p->last_by =
            json_is_null(last) ? -1 : (int)json_integer_value(json_object_get(j, "last_by"));
        if (!json_is_null(last)) {
            t = json_dumps(last, JSON_COMPACT);
            snprintf(p->last, sizeof p->last, "%s", t);
            free(t);
        }
        t = json_dumps(json_object_get(j, "solutions"), JSON_COMPACT);
        snprintf(p->solutions, sizeof p->solutions, "%s", t);
        free(t);
        p->landlord = (int)json_integer_value(json_object_get(j, "landlord"));
        p->turn = (int)json_integer_value(json_object_get(j, "turn"));
        snprintf(p->side, sizeof p->side, "%s", json_string_value(json_object_get(j, "side")));
        p->moves = (int)json_integer_value(json_object_get(j, "moves"));
        json_decref(j);
    }
    fclose(f);
    cr_assert_geq(npuzzles, 3, "the log has puzzles");
    sv = ddz_solver_create(18);
    cr_assert_not_null(sv);
}

static void teardown(void)
{
    ddz_solver_destroy(sv);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(puzzle_check, .init = setup, .fini = teardown);

static ddz_cards cards_of(const json_t *a)
{
    ddz_cards c = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) c |= 1ULL << json_integer_value(v);
    return c;
}

/* The test's own copy of the position, to follow the line. */
typedef struct line {
    const ddz_rules *rs;
    ddz_cards hand[3];
    ddz_solver_pos pos;
} line;

static void line_start(line *l, const ddz_store_puzzle *p)
{
    json_t *h = json_loads(p->hands, 0, NULL);
    l->rs = ddz_rules_find(p->rules);
    l->pos = (ddz_solver_pos){.turn = (uint8_t)p->turn,
                              .landlord = (uint8_t)p->landlord,
                              .last_seat = (int8_t)p->last_by,
                              .last = {.type = DDZ_PASS}};
    for (int s = 0; s < 3; s++) {
        l->hand[s] = cards_of(json_array_get(h, (size_t)s));
        l->pos.hand[s] = ddz_cards_ranks(l->hand[s]);
    }
    if (p->last_by >= 0) {
        json_t *last = json_loads(p->last, 0, NULL);
        l->pos.last = ddz_combo_classify(l->rs, ddz_cards_ranks(cards_of(last)));
        json_decref(last);
    }
    json_decref(h);
}

/* Plays `c` for the seat to move, checking it is legal. */
static void line_play(line *l, ddz_cards c)
{
    int seat = l->pos.turn;
    cr_assert_eq(c & ~l->hand[seat], 0, "seat %d plays cards it holds", seat);
    int n = ddz_movegen(l->rs, l->pos.hand[seat], l->pos.last_seat < 0 ? NULL : &l->pos.last, moves,
                        DDZ_MOVES_MAX);
    int k = -1;
    for (int i = 0; i < n && k < 0; i++)
        if (moves[i].ranks == ddz_cards_ranks(c))
            k = i;
    cr_assert_geq(k, 0, "seat %d's play is legal", seat);
    l->hand[seat] &= ~c;
    l->pos.hand[seat] -= ddz_cards_ranks(c);
    int next = (seat + 1) % 3;
    if (c) {
        l->pos.last = moves[k].combo;
        l->pos.last_seat = (int8_t)seat;
    } else if (next == l->pos.last_seat) {
        l->pos.last = (ddz_combo){.type = DDZ_PASS};
        l->pos.last_seat = -1;
    }
    l->pos.turn = (uint8_t)next;
}

static json_t *check_ok(const ddz_store_puzzle *p, json_t *plays)
{
    json_t *body = json_pack("{s:O}", "plays", plays);
    char *text = json_dumps(body, JSON_COMPACT), *out = NULL;
    json_decref(body);
    int rc = ddz_puzzle_check(sv, p, text, NULL, &out);
    cr_assert_eq(rc, 0, "%s: %d %s", text, rc, out ? out : "");
    free(text);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j);
    free(out);
    return j;
}

static ddz_move defender_moves[DDZ_MOVES_MAX];
static int defences, defences_not_first; /* replies checked; of them, not the first legal play */

/* A defender's reply `played` just before the person's turn is the best
 * defence: no other legal play of that defender leaves the person fewer
 * winning plays (the solver's count, here, for each of them). */
static void defence_checked(const line *l, int mover, ddz_cards played)
{
    int n = ddz_movegen(l->rs, l->pos.hand[l->pos.turn], l->pos.last_seat < 0 ? NULL : &l->pos.last,
                        defender_moves, DDZ_MOVES_MAX);
    int least = 1 << 30, first = -1, chosen = -1;
    for (int i = 0; i < n; i++) {
        line t = *l;
        line_play(&t, ddz_cards_pick(t.hand[t.pos.turn], defender_moves[i].ranks));
        cr_assert_eq(t.pos.turn, mover);
        int k = t.hand[0] && t.hand[1] && t.hand[2]
                    ? ddz_solver_keeps(sv, t.rs, &t.pos, NULL, keeps, DDZ_MOVES_MAX)
                    : 1 << 20; /* not reached: a defender does not end a won line */
        cr_assert_geq(k, 0);
        least = k < least ? k : least;
        if (i == 0)
            first = k;
        if (defender_moves[i].ranks == ddz_cards_ranks(played))
            chosen = k;
    }
    cr_assert_geq(chosen, 0, "the reply is a legal play");
    cr_expect_eq(chosen, least, "the defence leaves %d winning plays, the best leaves %d", chosen,
                 least);
    defences++;
    defences_not_first += first > least;
}

Test(puzzle_check, the_right_line_is_solved)
{
    for (int i = 0; i < npuzzles; i++) {
        const ddz_store_puzzle *p = &puzzles[i];
        line l;
        line_start(&l, p);
        int mover = l.pos.turn;
        json_t *sol = json_loads(p->solutions, 0, NULL);
        ddz_cards c = cards_of(json_array_get(sol, 0));
        json_decref(sol);
        json_t *plays = json_array();
        for (int step = 0;; step++) {
            cr_assert_lt(step, DDZ_PUZZLE_CHECK_PLAYS);
            json_array_append_new(plays, json_array());
            uint8_t codes[DDZ_NCARDS];
            int n = ddz_cards_list(c, codes);
            for (int k = 0; k < n; k++)
                json_array_append_new(json_array_get(plays, (size_t)step), json_integer(codes[k]));
            line_play(&l, c);
            json_t *a = check_ok(p, plays);
            const char *res = json_string_value(json_object_get(a, "result"));
            cr_assert_not_null(res);
            if (strcmp(res, "solved") == 0) {
                cr_expect_null(json_object_get(a, "solutions"));
                /* the whole line, replayed: legal, and it ends with a hand
                 * of the mover's side empty */
                line w;
                line_start(&w, p);
                size_t r;
                json_t *v;
                json_array_foreach(json_object_get(a, "line"), r, v)
                {
                    cr_assert_eq(json_integer_value(json_object_get(v, "seat")), w.pos.turn);
                    line_play(&w, cards_of(json_object_get(v, "cards")));
                }
                int winner = -1;
                for (int s = 0; s < 3; s++)
                    if (!w.hand[s])
                        winner = s;
                cr_assert_geq(winner, 0, "a hand is empty");
                cr_expect_eq(ddz_solver_side(&w.pos, winner), ddz_solver_side(&w.pos, mover));
                json_decref(a);
                break;
            }
            cr_assert_str_eq(res, "continue", "puzzle %d step %d: %s", i, step,
                             json_dumps(a, JSON_COMPACT));
            cr_expect_null(json_object_get(a, "solutions"), "never before a failure");
            json_t *replies = json_object_get(a, "replies");
            size_t r;
            json_t *v;
            json_array_foreach(replies, r, v)
            {
                ddz_cards played = cards_of(v);
                if (ddz_solver_side(&l.pos, l.pos.turn) != ddz_solver_side(&l.pos, mover) &&
                    (l.pos.turn + 1) % 3 == mover)
                    defence_checked(&l, mover, played);
                line_play(&l, played);
            }
            json_decref(a);
            if (!l.hand[0] || !l.hand[1] || !l.hand[2])
                break; /* the partner finished it: only with "solved" above */
            cr_assert_eq(l.pos.turn, mover, "the mover plays again");
            int k = ddz_solver_keeps(sv, l.rs, &l.pos, NULL, keeps, DDZ_MOVES_MAX);
            cr_assert_gt(k, 0, "the win was kept");
            c = ddz_cards_pick(l.hand[mover], keeps[0]);
        }
        json_decref(plays);
    }
    /* the rule was tried where it matters: somewhere the first legal play
     * would have left the person more winning plays than the best */
    cr_expect_gt(defences, 0);
    cr_expect_gt(defences_not_first, 0, "%d replies checked", defences);
}

/* The codes of `c` appended to array `a` as one more play. */
static void add_play(json_t *a, ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    json_t *play = json_array();
    int n = ddz_cards_list(c, codes);
    for (int k = 0; k < n; k++)
        json_array_append_new(play, json_integer(codes[k]));
    json_array_append_new(a, play);
}

/* The first legal play of the mover of `l` (in movegen order) that gives
 * the win away, or (ddz_ranks)-1 when every play keeps it; keeps[] gets
 * the plays that keep it, *k how many. */
static ddz_ranks losing_play(const line *l, int *k)
{
    int n = ddz_movegen(l->rs, l->pos.hand[l->pos.turn], l->pos.last_seat < 0 ? NULL : &l->pos.last,
                        moves, DDZ_MOVES_MAX);
    *k = ddz_solver_keeps(sv, l->rs, &l->pos, NULL, keeps, DDZ_MOVES_MAX);
    for (int m = 0; m < n; m++) {
        bool wins = false;
        for (int j = 0; j < *k; j++)
            wins |= keeps[j] == moves[m].ranks;
        if (!wins)
            return moves[m].ranks;
    }
    return (ddz_ranks)-1;
}

Test(puzzle_check, a_wrong_first_play_fails_and_tells)
{
    int tried = 0;
    for (int i = 0; i < npuzzles; i++) {
        const ddz_store_puzzle *p = &puzzles[i];
        line l;
        line_start(&l, p);
        int k;
        ddz_ranks wrong = losing_play(&l, &k);
        cr_assert_neq(wrong, (ddz_ranks)-1, "a puzzle has a losing play");
        json_t *plays = json_array();
        add_play(plays, ddz_cards_pick(l.hand[l.pos.turn], wrong));
        json_t *a = check_ok(p, plays);
        cr_expect_str_eq(json_string_value(json_object_get(a, "result")), "failed");
        char *sol = json_dumps(json_object_get(a, "solutions"), JSON_COMPACT);
        cr_expect_str_eq(sol, p->solutions);
        free(sol);
        cr_expect_eq(json_array_size(json_object_get(a, "line")), 1);
        cr_expect_eq(json_integer_value(json_object_get(a, "at")), 0);
        json_decref(a);
        json_decref(plays);
        tried++;
    }
    cr_expect_gt(tried, 0);
}

/* A mistake after the first play is told where it was made ("at") and
 * what kept the win there: the solver's winning plays in that position,
 * not the puzzle's first ones. */
Test(puzzle_check, a_later_mistake_tells_what_won_there)
{
    int tried = 0;
    for (int i = 0; i < npuzzles; i++) {
        const ddz_store_puzzle *p = &puzzles[i];
        line l;
        line_start(&l, p);
        int mover = l.pos.turn;
        json_t *sol = json_loads(p->solutions, 0, NULL), *plays = json_array();
        ddz_cards first = cards_of(json_array_get(sol, 0));
        json_decref(sol);
        add_play(plays, first);
        line_play(&l, first);
        json_t *a = check_ok(p, plays);
        bool going = strcmp(json_string_value(json_object_get(a, "result")), "continue") == 0;
        size_t r;
        json_t *v;
        json_array_foreach(json_object_get(a, "replies"), r, v) line_play(&l, cards_of(v));
        json_decref(a);
        if (!going || !l.hand[0] || !l.hand[1] || !l.hand[2]) {
            json_decref(plays);
            continue;
        }
        /* the second turn: a losing play, if there is one */
        int k;
        ddz_ranks wrong = losing_play(&l, &k);
        cr_assert_gt(k, 0, "the win was kept");
        if (wrong == (ddz_ranks)-1) {
            json_decref(plays);
            continue; /* every play wins there */
        }
        json_t *want = json_array();
        for (int j = 0; j < k; j++)
            add_play(want, ddz_cards_pick(l.hand[mover], keeps[j]));
        add_play(plays, ddz_cards_pick(l.hand[mover], wrong));
        a = check_ok(p, plays);
        cr_expect_str_eq(json_string_value(json_object_get(a, "result")), "failed");
        cr_expect_eq(json_integer_value(json_object_get(a, "at")), 1);
        cr_expect(json_equal(json_object_get(a, "solutions"), want), "puzzle %d", i);
        json_decref(want);
        json_decref(a);
        json_decref(plays);
        tried++;
    }
    cr_expect_gt(tried, 0, "no puzzle had a losing play at the second turn");
}

Test(puzzle_check, bad_input_refused)
{
    const ddz_store_puzzle *p = &puzzles[0];
    line l;
    line_start(&l, p);
    ddz_cards other = l.hand[(l.pos.turn + 1) % 3];
    int code = __builtin_ctzll(other); /* a card the mover does not hold */
    char held[64];
    snprintf(held, sizeof held, "{\"plays\":[[%d]]}", code);
    static const char *const bodies[] = {"",
                                         "nope",
                                         "{}",
                                         "{\"plays\":[]}",
                                         "{\"plays\":[[99]]}",
                                         "{\"plays\":[[1,1]]}",
                                         "{\"plays\":\"x\"}"};
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char *out = NULL;
        cr_expect_eq(ddz_puzzle_check(sv, p, bodies[i], NULL, &out), DDZ_EFIELD, "%s", bodies[i]);
        cr_expect_not_null(out);
        free(out);
    }
    char *out = NULL;
    cr_expect_eq(ddz_puzzle_check(sv, p, held, NULL, &out), DDZ_EFIELD);
    cr_assert_not_null(out);
    cr_expect(strstr(out, "EILLEGAL") != NULL, "%s", out);
    free(out);
}
