/* test_tourney.c - the competition state (service/tourney/tourney.h) fed
 * results by hand: Swiss points by direction with ties and caps, byes,
 * eliminations, disqualification, forfeits, the finals' schedule, the
 * carry-over and 4 / 2 / 0 per deal. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/tourney/tourney.h"

static ddz_tourney *t;

static void setup(void)
{
    t = calloc(1, sizeof *t);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    free(t);
}

/* Plays every game of every table with score[game] = f(table, seat, game). */
static void play_turn(double (*f)(int table, int seat, int game), unsigned (*faults)(int, int))
{
    for (int k = 0; k < t->ntables; k++)
        for (int g = 0; g < t->o.games; g++) {
            double s[3];
            for (int seat = 0; seat < 3; seat++)
                s[seat] = f(k, seat, g);
            cr_assert_eq(ddz_tourney_game(t, k, g, s, faults ? faults(k, g) : 0), 0);
        }
    cr_assert(ddz_tourney_turn_complete(t));
    cr_assert_eq(ddz_tourney_end_turn(t), 0);
}

static double zero(int table, int seat, int game)
{
    (void)table, (void)seat, (void)game;
    return 0;
}

/* Table k does better the lower k is, by direction. */
static double by_table(int table, int seat, int game)
{
    (void)game;
    return seat == 0 ? 100.0 * (10 - table) : seat == 1 ? -50.0 * table : 0;
}

static int player_at(int table, int seat)
{
    return t->table[table].player[seat];
}

TestSuite(tourney, .init = setup, .fini = teardown);

Test(tourney, swiss_points_by_direction_with_ties_and_caps)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 9);
    o.games = 1;
    o.cap = 350;
    o.format = DDZ_TOURNEY_SWISS;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    cr_assert_eq(t->ntables, 3);
    cr_assert_eq(t->nbyes, 0);
    int w[3], s[3], e[3];
    for (int k = 0; k < 3; k++)
        w[k] = player_at(k, 0), s[k] = player_at(k, 1), e[k] = player_at(k, 2);
    /* West: 500 (over the cap), 100, 100 (a tie); South: -400 (under the
     * floor), 0, 200; East: all 0 (a three-way tie). */
    double sc[3][3] = {{500, -400, 0}, {100, 0, 0}, {100, 200, 0}};
    for (int k = 0; k < 3; k++)
        cr_assert_eq(ddz_tourney_game(t, k, 0, sc[k], 0), 0);
    cr_assert_eq(ddz_tourney_game(t, 0, 0, sc[0], 0), DDZ_EPHASE, "recorded twice");
    cr_assert_eq(ddz_tourney_end_turn(t), 0);
    cr_assert_eq(t->p[w[0]].points, 40, "first of three, +1 over the cap");
    cr_assert_eq(t->p[w[0]].small, 350, "recorded at the cap");
    cr_assert_eq(t->p[w[0]].turn[0].small, 500, "as played");
    cr_assert_eq(t->p[w[1]].points, 15, "places 2 and 3 shared");
    cr_assert_eq(t->p[w[2]].points, 15);
    cr_assert_eq(t->p[s[0]].points, 0, "last, -1 under the floor");
    cr_assert_eq(t->p[s[0]].small, -400, "the floor is not recorded");
    cr_assert_eq(t->p[s[1]].points, 20);
    cr_assert_eq(t->p[s[2]].points, 30);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(t->p[e[k]].points, 20, "three tied share 3 + 2 + 1");
    /* Standings: points, then small, then the lot. */
    cr_assert_eq(t->order[0], w[0]);
    cr_assert_eq(t->order[1], s[2]);
    cr_assert_eq(ddz_tourney_rank_of(t, w[0]), 1);
}

Test(tourney, byes_go_to_the_lowest_placed_once_each)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 7);
    o.format = DDZ_TOURNEY_SWISS;
    o.swiss_turns = 6;
    memset(o.cut, 0, sizeof o.cut);
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    cr_assert_eq(t->ntables, 2);
    cr_assert_eq(t->nbyes, 1);
    cr_assert_eq(t->bye[0], 6, "turn 1: the last drawn");
    int had[7] = {0};
    for (int turn = 0; turn < 6; turn++) {
        cr_assert_eq(t->nbyes, 1);
        int b = t->bye[0];
        /* the bye goes to the lowest-ranked player who has had none */
        if (turn > 0)
            for (int r = ddz_tourney_rank_of(t, b); r < 7; r++)
                cr_assert(had[t->order[r]], "turn %d: player %d placed lower had no bye", turn + 1,
                          t->order[r]);
        cr_assert_not(had[b], "player %d has a second bye", b);
        had[b] = 1;
        play_turn(by_table, NULL);
        cr_assert_eq(t->p[b].turn[turn].kind, DDZ_TURN_BYE);
        cr_assert_eq(t->p[b].turn[turn].points, 10 * (7 / 6 + 2), "average + 1");
        cr_assert_eq(t->p[b].turn[turn].recorded, 2100, "350 x games");
    }
    cr_assert(t->done);
}

Test(tourney, caai_cuts_to_18_12_9_then_finals_with_carry_over)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 30);
    o.games = 2;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    int active[] = {30, 30, 18, 12};
    for (int turn = 1; turn <= 4; turn++) {
        int n = 0;
        for (int i = 0; i < 30; i++)
            n += t->p[i].status == DDZ_PLAYER_ACTIVE;
        cr_assert_eq(n, active[turn - 1], "turn %d starts with %d", turn, n);
        cr_assert_eq(t->ntables * 3 + t->nbyes, n);
        play_turn(by_table, NULL);
    }
    cr_assert_eq(t->stage, DDZ_STAGE_FINALS);
    int fin = 0;
    for (int i = 0; i < 30; i++)
        if (t->p[i].finalist) {
            fin++;
            cr_assert_eq(t->p[i].status, DDZ_PLAYER_FINALIST);
            cr_assert_eq(t->p[i].carry, 56 - 7 * (t->p[i].swiss_rank - 1));
            cr_assert_eq(t->p[i].points, t->p[i].carry);
        } else {
            cr_assert_eq(t->p[i].status, DDZ_PLAYER_ELIMINATED);
            cr_assert_gt(t->p[i].swiss_rank, 9);
        }
    cr_assert_eq(fin, 9);
    cr_assert_eq(t->ntables, 3);
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++)
            cr_assert(t->p[player_at(k, s)].finalist);
    /* The standings keep the finalists first, by carry-over. */
    for (int r = 0; r < 9; r++)
        cr_assert_eq(t->p[t->order[r]].swiss_rank, r + 1);
}

Test(tourney, scaled_and_disabled_cuts)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 45);
    ddz_tourney_scale_cuts(&o);
    cr_assert_eq(o.cut[1], 30);
    cr_assert_eq(o.cut[2], 20);
    cr_assert_eq(o.cut[3], 15);
    ddz_tourney_defaults(&o, 12);
    ddz_tourney_scale_cuts(&o);
    cr_assert_eq(o.cut[1], 9, "never below the nine finalists");
}

Test(tourney, swiss_avoids_repeated_opponents_and_balances_directions)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 21);
    o.format = DDZ_TOURNEY_SWISS;
    o.swiss_turns = 3;
    memset(o.cut, 0, sizeof o.cut);
    for (int i = 0; i < 21; i++)
        o.lot[i] = (uint64_t)((i * 7919) % 101); /* distinct, shuffled */
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    for (int turn = 0; turn < 3; turn++) {
        for (int k = 0; k < t->ntables; k++)
            for (int a = 0; a < 3; a++)
                for (int b = a + 1; b < 3; b++)
                    cr_assert_eq(t->met[player_at(k, a)][player_at(k, b)], 0,
                                 "turn %d: players %d and %d meet again", turn + 1, player_at(k, a),
                                 player_at(k, b));
        play_turn(by_table, NULL);
    }
    for (int i = 0; i < 21; i++)
        for (int d = 0; d < 3; d++)
            cr_assert_eq(t->p[i].dirs[d], 1, "player %d: 3 turns, each direction once", i);
}

static unsigned west_faults_at_table0(int table, int game)
{
    return table == 0 && game < 3 ? 1u : 0u;
}

Test(tourney, three_faulty_games_disqualify)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 9);
    o.format = DDZ_TOURNEY_SWISS;
    o.swiss_turns = 2;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    int bad = player_at(0, 0);
    play_turn(zero, west_faults_at_table0);
    cr_assert_eq(t->p[bad].status, DDZ_PLAYER_DISQUALIFIED);
    cr_assert_eq(t->p[bad].faults, 3);
    cr_assert_eq(t->p[bad].points, 20, "keeps its standing");
    cr_assert_eq(t->ntables, 2, "eight left: two tables");
    cr_assert_eq(t->nbyes, 2);
    for (int k = 0; k < t->ntables; k++)
        for (int s = 0; s < 3; s++)
            cr_assert_neq(player_at(k, s), bad, "not seated again");
    for (int b = 0; b < t->nbyes; b++)
        cr_assert_neq(t->bye[b], bad);
}

Test(tourney, forfeit_by_lateness)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 9);
    o.format = DDZ_TOURNEY_SWISS;
    o.swiss_turns = 1;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    int late = player_at(1, 2), other = player_at(1, 0);
    cr_assert_eq(ddz_tourney_forfeit(t, 1, 1u << 2), 0);
    double s[3] = {0, 0, 0};
    cr_assert_eq(ddz_tourney_game(t, 1, 0, s, 0), DDZ_EINVAL, "a forfeited table is not played");
    for (int k = 0; k < 3; k += 2)
        for (int g = 0; g < o.games; g++)
            cr_assert_eq(ddz_tourney_game(t, k, g, s, 0), 0);
    cr_assert(ddz_tourney_turn_complete(t));
    cr_assert_eq(ddz_tourney_end_turn(t), 0);
    int avg = 9 / 6 + 1;
    cr_assert_eq(t->p[late].points, -20 * avg);
    cr_assert_eq(t->p[late].turn[0].kind, DDZ_TURN_ABSENT);
    cr_assert_eq(t->p[other].points, 10 * avg);
    cr_assert_eq(t->p[other].small, 2100);
    /* the two tables that played rank among themselves: 2 players per
     * direction, tied at 0: 1.5 each */
    cr_assert_eq(t->p[player_at(0, 0)].points, 15);
}

Test(tourney, finals_schedule_meets_every_pair_once)
{
    int met[9][9] = {{0}}, dirs[9][3] = {{0}};
    for (int k = 0; k < 4; k++) {
        int line[3][3], seen[9] = {0};
        ddz_tourney_finals_class(k, line);
        for (int c = 0; c < 3; c++)
            for (int a = 0; a < 3; a++) {
                seen[line[c][a]]++;
                dirs[line[c][a]][a]++;
                for (int b = 0; b < 3; b++)
                    if (a != b)
                        met[line[c][a]][line[c][b]]++;
            }
        for (int i = 0; i < 9; i++)
            cr_assert_eq(seen[i], 1, "class %d: slot %d seated %d times", k, i, seen[i]);
    }
    for (int i = 0; i < 9; i++) {
        for (int j = 0; j < 9; j++)
            cr_assert_eq(met[i][j], i == j ? 0 : 1, "slots %d and %d met %d times", i, j,
                         met[i][j]);
        for (int d = 0; d < 3; d++)
            cr_assert_geq(dirs[i][d], 1, "slot %d never sits in direction %d", i, d);
    }
}

/* Finals: per deal and direction, table 0 > table 1 > table 2, except
 * direction South where tables 0 and 1 tie. */
static double finals_scores(int table, int seat, int game)
{
    (void)game;
    if (seat == 1)
        return table < 2 ? 100 : -100;
    return 300.0 - 100 * table;
}

Test(tourney, finals_4_2_0_per_deal_with_ties)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 9);
    o.format = DDZ_TOURNEY_FINALS;
    o.games = 2;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    cr_assert_eq(t->ntables, 3);
    int who[3][3];
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++)
            who[k][s] = player_at(k, s);
    play_turn(finals_scores, NULL);
    for (int s = 0; s < 3; s += 2) {
        cr_assert_eq(t->p[who[0][s]].points, 80, "4 per deal x 2");
        cr_assert_eq(t->p[who[1][s]].points, 40);
        cr_assert_eq(t->p[who[2][s]].points, 0);
    }
    cr_assert_eq(t->p[who[0][1]].points, 60, "(4 + 2) / 2 per deal");
    cr_assert_eq(t->p[who[1][1]].points, 60);
    cr_assert_eq(t->p[who[2][1]].points, 0);
    for (int turn = 2; turn <= 4; turn++)
        play_turn(zero, NULL);
    cr_assert(t->done);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            cr_assert_eq(t->met[i][j], i == j ? 0 : 1);
}

Test(tourney, finals_with_seven_give_byes_of_2_5_a_deal)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 7);
    o.format = DDZ_TOURNEY_FINALS;
    o.games = 4;
    cr_assert_eq(ddz_tourney_init(t, &o), 0);
    int byes[7] = {0};
    for (int turn = 1; turn <= 4; turn++) {
        cr_assert_eq(t->ntables * 3 + t->nbyes, 7);
        for (int b = 0; b < t->nbyes; b++)
            byes[t->bye[b]]++;
        play_turn(zero, NULL);
    }
    for (int i = 0; i < 7; i++) {
        int bye_pts = 0;
        for (int g = 0; g < 4; g++)
            if (t->p[i].turn[g].kind == DDZ_TURN_BYE)
                bye_pts += t->p[i].turn[g].points;
        cr_assert_eq(bye_pts, byes[i] * 25 * 4, "player %d", i);
    }
    /* slots 7 and 8 are missing: their lines (one per class) hand out
     * byes, so every player has had at least one */
    for (int i = 0; i < 7; i++)
        cr_assert_geq(byes[i], 1, "player %d never had a bye", i);
}

Test(tourney, bad_options)
{
    ddz_tourney_opts o;
    ddz_tourney_defaults(&o, 2);
    cr_assert_eq(ddz_tourney_init(t, &o), DDZ_EINVAL, "fewer than 3");
    ddz_tourney_defaults(&o, 10);
    o.format = DDZ_TOURNEY_FINALS;
    cr_assert_eq(ddz_tourney_init(t, &o), DDZ_EINVAL, "finals of 10");
    ddz_tourney_defaults(&o, 5);
    o.lot[3] = o.lot[1];
    cr_assert_eq(ddz_tourney_init(t, &o), DDZ_EINVAL, "a lot drawn twice");
}
