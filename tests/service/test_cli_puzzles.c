/* test_cli_puzzles.c - `ddz puzzles FILE` (spec §16) on a log `ddz match`
 * made, each puzzle it lists checked again by the solver's plain minimax
 * twin (tests/ai/solver_twin.h).
 *
 * Every line must carry exactly spec §16's fields (and the documented
 * "difficulty"); its position must be the record's before that ply (hands
 * replayed from the record's deal, the play to beat and who made it); the
 * twin must find the same legal plays, the mover's side winning, fewer
 * than half of them winning and exactly the listed solutions; at most the
 * default 20 cards in all, or --max-cards' N (fewer puzzles). A line that
 * is not JSON and one that is not a record are named on stderr and
 * skipped; the summary line counts them.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_scale.h"
#include "ai/puzzle.h"
#include "ai/solver_twin.h"
#include "rules/ruleset.h"

/* The cards of a JSON array of card codes. */
static ddz_cards cards_of(const json_t *a)
{
    cr_assert(json_is_array(a));
    ddz_cards c = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        json_int_t code = json_integer_value(v);
        cr_assert(json_is_integer(v) && code >= 0 && code < DDZ_NCARDS);
        cr_assert_eq(c & 1ULL << code, 0, "a card twice");
        c |= 1ULL << code;
    }
    return c;
}

/* Checks that `pz` is the position of record `rec` before play `ply`: the
 * hands, the play to beat and its seat, the seat to move. */
static void check_position(const json_t *rec, const json_t *pz, int ply)
{
    ddz_cards hand[3];
    int ll = (int)json_integer_value(json_object_get(rec, "landlord"));
    for (int s = 0; s < 3; s++)
        hand[s] = cards_of(json_array_get(json_object_get(rec, "hands"), (size_t)s));
    hand[ll] |= cards_of(json_object_get(rec, "leftover"));
    const json_t *plays = json_object_get(rec, "plays");
    cr_assert_lt((size_t)ply, json_array_size(plays));
    ddz_cards last = 0;
    int by = -1;
    for (int k = 0; k < ply; k++) {
        const json_t *p = json_array_get(plays, (size_t)k);
        int seat = (int)json_integer_value(json_object_get(p, "seat"));
        ddz_cards c = cards_of(json_object_get(p, "cards"));
        hand[seat] &= ~c;
        if (c) {
            last = c;
            by = seat;
        } else if ((seat + 1) % 3 == by) { /* both others passed: `by` leads */
            last = 0;
            by = -1;
        }
    }
    for (int s = 0; s < 3; s++)
        cr_assert_eq(cards_of(json_array_get(json_object_get(pz, "hands"), (size_t)s)), hand[s],
                     "seat %d's hand", s);
    cr_assert_eq(json_integer_value(json_object_get(pz, "landlord")), ll);
    int turn = (int)json_integer_value(json_object_get(pz, "turn"));
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(plays, (size_t)ply), "seat")),
                 turn);
    if (by < 0) {
        cr_assert(json_is_null(json_object_get(pz, "last")));
        cr_assert(json_is_null(json_object_get(pz, "last_by")));
    } else {
        cr_assert_eq(cards_of(json_object_get(pz, "last")), last);
        cr_assert_eq(json_integer_value(json_object_get(pz, "last_by")), by);
    }
}

/* Checks one puzzle line against the twin, and that it has at most
 * `max_cards` cards in the three hands. */
static void check_puzzle(const json_t *pz, int max_cards)
{
    static const char *const keys[] = {"game",     "ply",       "rules", "hands",
                                       "landlord", "turn",      "last",  "last_by",
                                       "side",     "solutions", "moves", "difficulty"};
    enum { NKEYS = sizeof keys / sizeof *keys };
    cr_assert_eq(json_object_size(pz), NKEYS);
    const char *key;
    const json_t *v;
    size_t k = 0;
    json_object_foreach((json_t *)pz, key, v) /* in the order written */
    {
        cr_assert_str_eq(key, keys[k], "field %zu", k);
        k++;
    }
    const ddz_rules *rs = ddz_rules_find(json_string_value(json_object_get(pz, "rules")));
    cr_assert_not_null(rs);
    ddz_solver_pos p = {.last = {.type = DDZ_PASS}, .last_seat = -1};
    ddz_cards hand[3];
    for (int s = 0; s < 3; s++) {
        hand[s] = cards_of(json_array_get(json_object_get(pz, "hands"), (size_t)s));
        p.hand[s] = ddz_cards_ranks(hand[s]);
    }
    cr_assert_leq(ddz_cards_count(hand[0] | hand[1] | hand[2]), max_cards);
    p.landlord = (uint8_t)json_integer_value(json_object_get(pz, "landlord"));
    p.turn = (uint8_t)json_integer_value(json_object_get(pz, "turn"));
    if (!json_is_null(json_object_get(pz, "last"))) {
        p.last = ddz_combo_classify(rs, ddz_cards_ranks(cards_of(json_object_get(pz, "last"))));
        p.last_seat = (int8_t)json_integer_value(json_object_get(pz, "last_by"));
    }
    const char *side = json_string_value(json_object_get(pz, "side"));
    cr_assert_str_eq(side,
                     ddz_solver_side(&p, p.turn) == DDZ_SIDE_LANDLORD ? "landlord" : "farmers");

    static ddz_move mv[DDZ_MOVES_MAX];
    int n = ddz_movegen(rs, p.hand[p.turn], p.last_seat < 0 ? NULL : &p.last, mv, DDZ_MOVES_MAX);
    cr_assert_gt(n, 0);
    cr_assert_eq(json_integer_value(json_object_get(pz, "moves")), n);
    static ddz_ranks want[DDZ_MOVES_MAX];
    long nodes = 0;
    int nw = plain_keeps(rs, &p, want, &nodes);
    cr_assert_gt(nw, 0, "the mover's side must win");
    cr_assert_lt(2 * nw, n, "fewer than half the plays must win");
    const json_t *sol = json_object_get(pz, "solutions");
    cr_assert_eq(json_array_size(sol), (size_t)nw);
    for (int i = 0; i < nw; i++) {
        ddz_cards c = cards_of(json_array_get(sol, (size_t)i));
        cr_assert_eq(c & ~hand[p.turn], 0, "a solution's cards are the mover's");
        cr_assert_eq(ddz_cards_ranks(c), want[i], "solution %d", i);
    }
    double d = json_number_value(json_object_get(pz, "difficulty"));
    cr_assert_float_eq(d, log2((double)n / nw), 0.0051);
}

/* Checks every line of the output file `path` (records by game in
 * `recs`) with check_position and check_puzzle. Returns how many. */
static int check_output(const char *path, const json_t *recs, int max_cards)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int found = 0;
    json_error_t jerr;
    json_t *pz;
    while ((pz = json_loadf(f, JSON_DISABLE_EOF_CHECK, &jerr))) {
        int game = (int)json_integer_value(json_object_get(pz, "game"));
        int ply = (int)json_integer_value(json_object_get(pz, "ply"));
        const json_t *rec = json_array_get(recs, (size_t)game);
        cr_assert_not_null(rec);
        check_position(rec, pz, ply);
        check_puzzle(pz, max_cards);
        json_decref(pz);
        found++;
    }
    fclose(f);
    return found;
}

Test(cli_puzzles, match_log_puzzles_are_proved)
{
    char dir[] = "/tmp/ddz_puzzles_XXXXXX", cmd[1024], path[256];
    cr_assert_not_null(mkdtemp(dir));
    int games = scaled(300, 150);
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " match --seat A=ai:greedy --seat B=ai:random --seat C=ai:greedy --games %d"
                     " --seed %064d --log %s/games.jsonl >/dev/null",
             games, 7, dir);
    cr_assert_eq(system(cmd), 0);

    /* the log with two bad lines, 2 and 3, among the records */
    snprintf(path, sizeof path, "%s/games.jsonl", dir);
    FILE *in = fopen(path, "r");
    snprintf(path, sizeof path, "%s/mixed.jsonl", dir);
    FILE *out = fopen(path, "w");
    cr_assert(in && out);
    json_t *recs = json_array(); /* by game */
    char *line = NULL;
    size_t cap = 0;
    for (int k = 0; getline(&line, &cap, in) > 0; k++) {
        if (k == 1)
            fputs("{\"game\": 5, not json\n{\"game\":6}\n", out);
        fputs(line, out);
        json_t *r = json_loads(line, 0, NULL);
        cr_assert_not_null(r);
        cr_assert_eq(json_integer_value(json_object_get(r, "game")), k);
        json_array_append_new(recs, r);
    }
    free(line);
    fclose(in);
    fclose(out);

    snprintf(cmd, sizeof cmd, DDZ_BIN " puzzles %s/mixed.jsonl >%s/out.jsonl 2>%s/err.txt", dir,
             dir, dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit status 1 after bad lines: %d", st);

    snprintf(path, sizeof path, "%s/err.txt", dir);
    FILE *err = fopen(path, "r");
    cr_assert_not_null(err);
    char buf[4096] = "";
    size_t got = fread(buf, 1, sizeof buf - 1, err);
    buf[got] = '\0';
    fclose(err);
    cr_assert(strstr(buf, "ddz puzzles: line 2: invalid JSON"), "%s", buf);
    cr_assert(strstr(buf, "ddz puzzles: line 3 (game 6): "), "%s", buf);
    char summary[128];
    snprintf(summary, sizeof summary, "ddz puzzles: %d games, ", games);
    cr_assert(strstr(buf, summary), "%s", buf);
    cr_assert(strstr(buf, " 0 undecided, 2 bad lines, 0 other rules, "), "%s", buf);

    snprintf(path, sizeof path, "%s/out.jsonl", dir);
    int found = check_output(path, recs, DDZ_PUZZLE_MAX_CARDS);
    cr_log_info("%d games: %d puzzles", games, found);
    char count[64];
    snprintf(count, sizeof count, ", %d puzzles, ", found);
    cr_assert(strstr(buf, count), "%s", buf);
    cr_assert_geq(found, 10, "too few puzzles to check: %d", found);

    /* --max-cards: smaller positions only, fewer puzzles */
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " puzzles %s/games.jsonl --max-cards 14 >%s/out.jsonl 2>/dev/null", dir, dir);
    cr_assert_eq(system(cmd), 0);
    int small = check_output(path, recs, 14);
    cr_log_info("at most 14 cards: %d puzzles", small);
    cr_assert_gt(small, 0);
    cr_assert_lt(small, found);
    json_decref(recs);

    /* --rules: only the records of that rule set (these are all caai's) */
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " puzzles %s/games.jsonl --rules botzone-ftl >%s/out.jsonl 2>%s/err.txt", dir,
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    err = fopen(path, "r");
    cr_assert_not_null(err);
    got = fread(buf, 1, sizeof buf - 1, err);
    buf[got] = '\0';
    fclose(err);
    snprintf(summary, sizeof summary,
             "ddz puzzles: 0 games, 0 positions tried, 0 puzzles, 0 undecided, 0 bad lines, "
             "%d other rules, ",
             games);
    cr_assert(strstr(buf, summary), "%s", buf);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(cli_puzzles, usage)
{
    cr_assert_eq(WEXITSTATUS(system(DDZ_BIN " puzzles 2>/dev/null")), 2);
    cr_assert_eq(WEXITSTATUS(system(DDZ_BIN " puzzles x --max-cards 0 2>/dev/null")), 2);
    cr_assert_eq(WEXITSTATUS(system(DDZ_BIN " puzzles x --rules nope 2>/dev/null")), 2);
    cr_assert_eq(WEXITSTATUS(system(DDZ_BIN " puzzles /nonexistent/x 2>/dev/null")), 1);
    cr_assert_eq(WEXITSTATUS(system(DDZ_BIN " puzzles --help >/dev/null")), 0);
}
