/* test_match.c - the referee and the local match: every fault kind charged
 * to the right seat with the right penalty, the match going on after each,
 * hosted AIs and `ddz engine` over pipes, rotation, and no engine left
 * running. Every record written is replayed by ddz_record_verify. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/record_json.h"
#include "proto/text.h"
#include "rules/error.h"
#include "service/match/match.h"
#include "record_log.h"
#include "test_util.h"

#define TE DDZ_TESTENGINE

static ddz_record recs[400];
static int nrecs;
static ddz_match_stats stats[3];
static char logpath[64];

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
    snprintf(logpath, sizeof logpath, "/tmp/ddz-test-match-%d.jsonl", (int)getpid());
}

static void fini(void)
{
    unlink(logpath);
}

/* Plays a match, reads its log back, checks every record verifies. */
static void run(const char *a, const char *b, const char *c, int games, double time_s, bool rotate)
{
    ddz_match_cfg cfg = {.spec = {a, b, c},
                         .games = games,
                         .rotate = rotate,
                         .time_s = time_s,
                         .log_path = logpath,
                         .ai_seed = 5};
    for (int i = 0; i < 32; i++)
        cfg.master[i] = (uint8_t)i;
    char err[300];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    cr_assert_not_null(m, "create: %s", err);
    cr_assert_eq(ddz_match_run(m), 0);
    for (int i = 0; i < 3; i++)
        stats[i] = *ddz_match_stats_of(m, i);
    cr_assert_eq(ddz_match_games_played(m), games * (rotate ? 3 : 1));
    ddz_match_destroy(m);

    nrecs = read_verified_log(logpath, &ddz_rules_caai, recs, (int)(sizeof recs / sizeof recs[0]));
    cr_assert_eq(nrecs, games * (rotate ? 3 : 1));
}

/* Every game was charged to `seat` with `kind`; returns how many were
 * charged before the leftover (and checks their 350 penalty). */
static int expect_faults(int seat, int kind)
{
    int early = 0;
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].fault_seat, seat, "game %d: fault seat %d", i, recs[i].fault_seat);
        cr_assert_eq(recs[i].fault_kind, kind, "game %d: fault %s, want %s", i,
                     ddz_fault_name(recs[i].fault_kind), ddz_fault_name(kind));
        if (recs[i].landlord < 0) {
            early++;
            for (int s = 0; s < 3; s++)
                cr_assert_eq(recs[i].scores[s], s == seat ? -700 : 350);
        }
    }
    return early;
}

Test(match, three_test_engines_play_cleanly, .init = init, .fini = fini)
{
    run("exec:" TE " --bid 1", "exec:" TE " --name south", "exec:" TE " --bid 2", 8, 5, false);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].fault_seat, -1);
        cr_assert_eq(recs[i].landlord, 2, "East bids 2 over West's 1");
        cr_assert_geq(recs[i].winner, 0);
        cr_assert_str_eq(recs[i].names[1], "south");
        cr_assert_str_eq(recs[i].names[0], "testengine");
    }
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(stats[p].games, 8);
        cr_assert_eq(stats[p].faults, 0);
        cr_assert_eq(stats[p].restarts, 0);
    }
    cr_assert_eq(stats[0].score + stats[1].score + stats[2].score, 0);
}

Test(match, all_pass_games_score_zero, .init = init, .fini = fini)
{
    run("exec:" TE, "exec:" TE, "exec:" TE, 3, 5, false);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].landlord, -1);
        cr_assert_eq(recs[i].nplays, 0);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(recs[i].scores[s], 0);
    }
}

Test(match, timeout_is_charged_and_the_match_goes_on, .init = init, .fini = fini)
{
    /* long enough that the other engines always answer in time, even under
     * ASan on a loaded machine; the hanging engine never does */
    run("exec:" TE, "exec:" TE " --timeout-at 1", "exec:" TE, 3, 1.5, false);
    cr_assert_eq(expect_faults(1, DDZ_FAULT_TIMEOUT), 3, "South times out at its first bid");
    cr_assert_eq(stats[1].faults, 3);
    cr_assert_eq(stats[1].restarts, 2, "restarted for each later game");
    cr_assert_eq(stats[0].faults + stats[2].faults, 0);
}

Test(match, pass_on_lead_is_illegal, .init = init, .fini = fini)
{
    run("exec:" TE, "exec:" TE " --bid 3 --pass-on-lead-at 1", "exec:" TE, 3, 5, false);
    expect_faults(1, DDZ_FAULT_ILLEGAL);
    for (int i = 0; i < nrecs; i++) {
        cr_assert_eq(recs[i].landlord, 1);
        cr_assert_eq(recs[i].nplays, 0, "the pass on lead is not a play");
        /* a faulty landlord pays each farmer one unit (spec §6) */
        cr_assert_eq(recs[i].scores[0], recs[i].scores[2]);
        cr_assert_eq(recs[i].scores[1], -2 * recs[i].scores[0]);
        cr_assert_geq(recs[i].scores[0], 300, "unit = (bombs+1) x 3 x 100 at least");
    }
}

Test(match, cards_not_held_are_illegal, .init = init, .fini = fini)
{
    run("exec:" TE " --bid 3", "exec:" TE " --play-missing-at 1", "exec:" TE, 3, 5, false);
    expect_faults(1, DDZ_FAULT_ILLEGAL);
    for (int i = 0; i < nrecs; i++) {
        /* a faulty farmer pays the other farmer one unit, the landlord two */
        cr_assert_eq(recs[i].landlord, 0);
        cr_assert_eq(recs[i].scores[1], -3 * recs[i].scores[2]);
        cr_assert_eq(recs[i].scores[0], 2 * recs[i].scores[2]);
        cr_assert_geq(recs[i].nplays, 1, "West led before South faulted");
    }
}

Test(match, illegal_bid_is_charged, .init = init, .fini = fini)
{
    run("exec:" TE " --bid 2", "exec:" TE " --bid 1", "exec:" TE, 2, 5, false);
    cr_assert_eq(expect_faults(1, DDZ_FAULT_ILLEGAL), 2);
}

Test(match, garbage_and_wrong_seat_are_protocol_faults, .init = init, .fini = fini)
{
    run("exec:" TE, "exec:" TE " --garbage-at 1", "exec:" TE, 2, 5, false);
    cr_assert_eq(expect_faults(1, DDZ_FAULT_PROTOCOL), 2);
    run("exec:" TE, "exec:" TE, "exec:" TE " --wrong-seat-at 1", 2, 5, false);
    cr_assert_eq(expect_faults(2, DDZ_FAULT_PROTOCOL), 2);
}

Test(match, crash_and_abort_are_crashes, .init = init, .fini = fini)
{
    run("exec:" TE " --crash-at 1", "exec:" TE, "exec:" TE, 2, 5, false);
    cr_assert_eq(expect_faults(0, DDZ_FAULT_CRASH), 2);
    cr_assert_eq(stats[0].restarts, 1);
    run("exec:" TE, "exec:" TE " --bid 3 --abort-at 2", "exec:" TE, 2, 5, false);
    expect_faults(1, DDZ_FAULT_CRASH);
}

Test(match, a_missing_program_is_a_crash, .init = init, .fini = fini)
{
    run("exec:/nonexistent/engine", "ai:random", "ai:random", 2, 5, false);
    cr_assert_eq(expect_faults(0, DDZ_FAULT_CRASH), 2);
}

Test(match, flood_is_a_protocol_fault, .init = init, .fini = fini)
{
    run("exec:" TE, "exec:" TE, "exec:" TE " --flood-at 1", 2, 5, false);
    cr_assert_eq(expect_faults(2, DDZ_FAULT_PROTOCOL), 2);
}

Test(match, bad_ack_of_error_is_not_charged, .init = init, .fini = fini)
{
    run("exec:" TE " --garbage-at 1", "exec:" TE " --bad-ack", "exec:" TE, 3, 5, false);
    expect_faults(0, DDZ_FAULT_PROTOCOL);
    cr_assert_eq(stats[1].faults, 0);
    cr_assert_eq(stats[1].restarts, 0, "a bad ERROR acknowledgement is only logged");
}

Test(match, gbk_names_become_utf8, .init = init, .fini = fini)
{
    run("exec:" TE " --gbk-name", "ai:random", "ai:greedy", 1, 5, false);
    cr_assert_str_eq(recs[0].names[0], "测试引擎");
    cr_assert_str_eq(recs[0].names[1], "ai:random");
}

/* The results table lines up on a terminal whatever the names: a CJK name
 * (here from GBK) is padded by its display width, and a name too wide for
 * the 24-column field is cut at a character, never inside one. */
Test(match, results_table_aligns_cjk_names, .init = init, .fini = fini)
{
    ddz_match_cfg cfg = {.spec = {"exec:" TE " --gbk-name",
                                  "exec:" TE " --name a一二三四五六七八九十甲乙丙", "ai:greedy"},
                         .games = 1,
                         .time_s = 5,
                         .ai_seed = 5};
    char err[300];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    cr_assert_not_null(m, "create: %s", err);
    cr_assert_eq(ddz_match_run(m), 0);
    char *table = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&table, &size);
    cr_assert_not_null(f);
    ddz_match_print(m, f);
    fclose(f);
    ddz_match_destroy(m);

    /* the name field is 24 columns: 测试引擎 is 8, then 16 spaces; the
     * 27-column name keeps 'a' and 11 ideographs (23 columns) and 1 space */
    const char *want[4] = {
        "player name                      games ", "A      测试引擎                      1 ",
        "B      a一二三四五六七八九十甲       1 ", "C      ai:greedy                     1 "};
    char *line = table;
    for (int i = 0; i < 4; i++) {
        char *end = strchr(line, '\n');
        cr_assert_not_null(end, "line %d missing:\n%s", i, table);
        *end = '\0';
        cr_assert(strncmp(line, want[i], strlen(want[i])) == 0, "line %d is\n'%s'\nwant\n'%s...'",
                  i, line, want[i]);
        json_t *utf8 = json_string(line);
        cr_assert_not_null(utf8, "line %d is not valid UTF-8: '%s'", i, line);
        json_decref(utf8);
        cr_assert_eq(ddz_text_display_width(line), ddz_text_display_width(table),
                     "line %d is not as wide as the header:\n%s", i, line);
        line = end + 1;
    }
    cr_assert_str_eq(line, "", "more than 4 lines");
    free(table);
}

/* The leak checks below count only this test's own descendants, so an
 * engine run by anything else on the machine never fails them; this checks
 * that the count still sees a grandchild (not only direct children). */
Test(match, descendant_count_sees_grandchildren_only)
{
    char marker[32];
    snprintf(marker, sizeof marker, "0.%06d", (int)getpid() % 1000000);
    int p[2];
    cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        setpgid(0, 0);
        if (fork() == 0) /* the grandchild: its exec closes the pipe */
            execl("/bin/sleep", "sleep", "600", marker, (char *)NULL);
        close(p[1]);
        wait(NULL);
        _exit(0);
    }
    setpgid(child, child);
    close(p[1]);
    char c;
    cr_assert_eq(read(p[0], &c, 1), 0, "the grandchild did not exec");
    close(p[0]);
    cr_assert_eq(count_descendants(marker), 1);
    kill(-child, SIGKILL);
    waitpid(child, NULL, 0);
}

Test(match, engines_that_ignore_eof_and_sigterm_are_killed, .init = init, .fini = fini)
{
    char spec[300], marker[64];
    snprintf(marker, sizeof marker, "leakcheck-%d", (int)getpid());
    snprintf(spec, sizeof spec, "exec:" TE " --ignore-eof --ignore-term --name %s", marker);
    run(spec, "exec:" TE " --bid 1", spec, 3, 5, false);
    for (int i = 0; i < nrecs; i++)
        cr_assert_eq(recs[i].fault_seat, -1);
    cr_assert_eq(count_descendants(marker), 0, "an engine outlived the match");
}

Test(match, hosted_ais_and_ddz_engine_play_hundreds_of_games, .init = init, .fini = fini)
{
    run("ai:greedy", "exec:" DDZ_BIN " engine --ai random", "exec:" DDZ_BIN " engine --ai greedy",
        300, 5, false);
    for (int i = 0; i < nrecs; i++)
        cr_assert_eq(recs[i].fault_seat, -1, "game %d", i);
    cr_assert_str_eq(recs[0].names[1], "ddz-random");
    cr_assert_str_eq(recs[0].names[2], "ddz-greedy");
    cr_assert_eq(count_descendants(" engine --ai random"), 0);
}

Test(match, rotation_plays_each_deal_from_every_seat, .init = init, .fini = fini)
{
    run("ai:greedy", "ai:random", "exec:" TE " --bid 1", 4, 5, true);
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 3; r++) {
            const ddz_record *x = &recs[3 * k + r];
            cr_assert_eq(x->game, 3 * k + r);
            cr_assert(memcmp(x->seed, recs[3 * k].seed, 32) == 0, "same deal in a rotation");
            /* player (s + r) % 3 holds seat s */
            const char *want[3] = {"ai:greedy", "ai:random", "testengine"};
            for (int s = 0; s < 3; s++)
                cr_assert_str_eq(x->names[s], want[(s + r) % 3], "game %d seat %d", x->game, s);
        }
    for (int p = 0; p < 3; p++)
        cr_assert_eq(stats[p].games, 12);
}

Test(match, bad_specs_are_refused)
{
    ddz_match_cfg cfg = {.spec = {"ai:nope", "ai:random", "ai:random"}, .games = 1};
    char err[300];
    cr_assert_null(ddz_match_create(&cfg, err, sizeof err));
    cr_assert(strstr(err, "nope"), "%s", err);
    cfg.spec[0] = "python engine.py";
    cr_assert_null(ddz_match_create(&cfg, err, sizeof err));
    cr_assert(strstr(err, "exec:"), "%s", err);
    cfg.spec[0] = "ai:random";
    cfg.log_path = "/nonexistent/dir/log.jsonl";
    cr_assert_null(ddz_match_create(&cfg, err, sizeof err));
    cr_assert(strstr(err, "/nonexistent"), "%s", err);
}
