/* test_botzone.c - Botzone-protocol bots (`botzone:`, spec §11) at a local
 * match: both modes play many verified games, a Python bot runs unchanged,
 * every fault kind is charged to the right seat while the match goes on,
 * the requests a bot receives are exactly spec §11's, and no bot process is
 * left running. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_clock.h"
#include "test_scale.h"
#include "proto/record_json.h"
#include "rules/cards.h"
#include "rules/error.h"
#include "service/match/match.h"
#include "service/seats/seats.h"
#include "record_log.h"
#include "test_util.h"

#define TB DDZ_TESTBOT
/* Debian's python3 (deploy/deps.sh installs it), named: the python3 first
 * in PATH may be a version manager's shim that takes 0.3 s to start, and a
 * one-shot bot starts at every request. */
#define PYBOT "/usr/bin/python3 " DDZ_SOURCE_DIR "/tests/service/botzone_bot.py"

static ddz_record recs[400];
static int nrecs;
static ddz_match_stats stats[3];
static char logpath[96], botlog[96], oncepath[96];

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
    snprintf(logpath, sizeof logpath, "/tmp/ddz-test-bz-%d.jsonl", (int)getpid());
    snprintf(botlog, sizeof botlog, "/tmp/ddz-test-bz-%d.requests", (int)getpid());
    snprintf(oncepath, sizeof oncepath, "/tmp/ddz-test-bz-%d.once", (int)getpid());
    unlink(botlog);
    unlink(oncepath);
}

static void fini(void)
{
    unlink(logpath);
    unlink(botlog);
    unlink(oncepath);
}

/* Plays a match, reads its log back, checks every record verifies and that
 * no bot process is left. `time_s` is the clock on an idle machine; the
 * match gets it times the run's slowdown (test_clock.h): a one-shot bot
 * starts a process at every request, which under a loaded sanitizer build
 * can take a good part of a second, and only the faults a test provokes
 * may be charged. */
static void run_rules(const ddz_rules *rules, const char *a, const char *b, const char *c,
                      int games, double time_s, bool rotate)
{
    ddz_match_cfg cfg = {.spec = {a, b, c},
                         .games = games,
                         .rotate = rotate,
                         .time_s = time_s * test_slowdown(),
                         .log_path = logpath,
                         .rules = rules,
                         .ai_seed = 5};
    for (int i = 0; i < 32; i++)
        cfg.master[i] = (uint8_t)(i * 7);
    char err[300];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    cr_assert_not_null(m, "create: %s", err);
    cr_assert_eq(ddz_match_run(m), 0);
    for (int i = 0; i < 3; i++)
        stats[i] = *ddz_match_stats_of(m, i);
    cr_assert_eq(ddz_match_games_played(m), games * (rotate ? 3 : 1));
    ddz_match_destroy(m);
    cr_assert_eq(count_descendants("botzone_testbot"), 0, "a bot process is left running");
    cr_assert_eq(count_descendants("botzone_bot.py"), 0, "a bot process is left running");

    nrecs = read_verified_log(logpath, rules, recs, (int)(sizeof recs / sizeof recs[0]));
    cr_assert_eq(nrecs, games * (rotate ? 3 : 1));
}

static void run(const char *a, const char *b, const char *c, int games, double time_s, bool rotate)
{
    run_rules(&ddz_rules_caai, a, b, c, games, time_s, rotate);
}

static int faults_of_seat_kind(int seat, int kind)
{
    int n = 0;
    for (int i = 0; i < nrecs; i++)
        n += recs[i].fault_seat == seat && recs[i].fault_kind == kind;
    return n;
}

static int faults(void)
{
    int n = 0;
    for (int i = 0; i < nrecs; i++)
        n += recs[i].fault_kind != DDZ_FAULT_NONE;
    return n;
}

TestSuite(botzone, .init = init, .fini = fini, .timeout = HANG(300));

Test(botzone, one_shot_and_keep_running_play_verified_games)
{
    int deals = scaled(20, 2);
    run("botzone:" TB, "botzone:" TB " --keep-running", "ai:greedy", deals, 3, true);
    cr_assert_eq(faults(), 0, "a legal bot was charged");
    cr_assert_eq(stats[0].games, 3 * deals);
    cr_assert_eq(stats[1].games, 3 * deals);
}

/* Botzone's own rule sets (spec §8), with bots that know them (a Botzone
 * request does not name its rule set: a bot is written for its game). */
Test(botzone, botzone_ftl2_with_bots_in_both_modes)
{
    run_rules(&ddz_rules_botzone_ftl2, "botzone:" TB " --rules botzone-ftl2",
              "botzone:" TB " --keep-running --rules botzone-ftl2", "ai:greedy", scaled(15, 2), 3,
              true);
    cr_assert_eq(faults(), 0, "a legal bot was charged");
}

Test(botzone, botzone_ftl_with_bots_in_both_modes)
{
    run_rules(&ddz_rules_botzone_ftl, "botzone:" TB " --keep-running --rules botzone-ftl",
              "botzone:" TB " --rules botzone-ftl", "ai:greedy", scaled(15, 2), 3, true);
    cr_assert_eq(faults(), 0, "a legal bot was charged");
}

Test(botzone, both_keep_running)
{
    run("botzone:" TB " --keep-running", "ai:greedy", "botzone:" TB " --keep-running",
        scaled(10, 2), 3, true);
    cr_assert_eq(faults(), 0);
}

Test(botzone, python_bot_runs_unchanged)
{
    run("botzone:" PYBOT, "botzone:" TB, "ai:greedy", 1, 5, true);
    cr_assert_eq(faults(), 0);
}

/* One misbehaviour of player A (seat 0 without rotation) at its 3rd ask,
 * once: exactly one game is charged, to seat 0 with `kind`, and the other
 * games are played without fault. */
static void one_fault(const char *opts, int kind, double time_s)
{
    char spec[512];
    snprintf(spec, sizeof spec, "botzone:%s %s --once %s", TB, opts, oncepath);
    run(spec, "botzone:" TB " --keep-running", "ai:greedy", 4, time_s, false);
    cr_assert_eq(faults(), 1, "%s: %d faults", opts, faults());
    cr_assert_eq(faults_of_seat_kind(0, kind), 1, "%s: not charged to seat A as %s", opts,
                 ddz_fault_name(kind));
    cr_assert_eq(stats[0].faults, 1);
    cr_assert_eq(stats[1].faults, 0);
}

Test(botzone, fault_timeout)
{
    one_fault("--timeout-at 3", DDZ_FAULT_TIMEOUT, 0.5);
}

Test(botzone, fault_timeout_keep_running)
{
    one_fault("--keep-running --timeout-at 3", DDZ_FAULT_TIMEOUT, 0.5);
}

Test(botzone, fault_timeout_ignoring_sigterm)
{
    one_fault("--ignore-term --timeout-at 3", DDZ_FAULT_TIMEOUT, 0.5);
}

Test(botzone, fault_garbage)
{
    one_fault("--garbage-at 3", DDZ_FAULT_PROTOCOL, 3);
}

Test(botzone, fault_no_response)
{
    one_fault("--no-response-at 3", DDZ_FAULT_PROTOCOL, 3);
}

Test(botzone, fault_wrong_type)
{
    one_fault("--keep-running --wrong-type-at 3", DDZ_FAULT_PROTOCOL, 3);
}

Test(botzone, fault_illegal)
{
    one_fault("--illegal-at 2", DDZ_FAULT_ILLEGAL, 3);
}

Test(botzone, fault_crash)
{
    one_fault("--crash-at 3", DDZ_FAULT_CRASH, 3);
}

Test(botzone, fault_keep_running_then_dying)
{
    one_fault("--keep-running --die-after-keep 2", DDZ_FAULT_CRASH, 3);
}

Test(botzone, fault_flood)
{
    one_fault("--flood-at 3", DDZ_FAULT_PROTOCOL, 3);
}

Test(botzone, fault_data_over_the_bound)
{
    one_fault("--keep-running --big-data-at 3", DDZ_FAULT_PROTOCOL, 3);
}

Test(botzone, string_bids_are_accepted)
{
    run("botzone:" TB " --string-bids", "botzone:" TB " --string-bids --keep-running", "ai:greedy",
        3, 3, true);
    cr_assert_eq(faults(), 0);
    int bid = 0;
    for (int i = 0; i < nrecs; i++)
        for (int k = 0; k < recs[i].nbids; k++)
            bid += recs[i].bids[k] > 0;
    cr_assert_gt(bid, 0);
}

Test(botzone, missing_program_is_a_crash)
{
    run("botzone:/nonexistent/bot", "ai:greedy", "ai:greedy", 2, 3, false);
    cr_assert_eq(faults_of_seat_kind(0, DDZ_FAULT_CRASH), 2);
}

/* The requests of one known deal, as the bot read them, against spec §11
 * and the game's record. */
static json_t *cards_of_hand(ddz_cards c)
{
    json_t *a = json_array();
    for (int i = 0; i < DDZ_NCARDS; i++)
        if (c & (1ULL << i))
            json_array_append_new(a, json_integer(i));
    return a;
}

static void check_requests(bool keep)
{
    char spec[512];
    snprintf(spec, sizeof spec, "botzone:%s%s --log %s", TB, keep ? " --keep-running" : "", botlog);
    run("ai:greedy", spec, "ai:greedy", 1, 3, false);
    const ddz_record *r = &recs[0];
    cr_assert_geq(r->landlord, 0, "nobody bid");
    /* the requests spec §11 says seat 1 gets, built from the record */
    json_t *want = json_array();
    int best = 1;
    for (int i = 0; i < r->nbids; i++) { /* West bids first, once each */
        if (i == 1)
            json_array_append_new(
                want,
                json_pack("{s:o,s:[i]}", "own", cards_of_hand(r->deal.hand[1]), "bid", r->bids[0]));
        best = r->bids[i] > best ? r->bids[i] : best;
    }
    bool first = true;
    for (int i = 0; i < r->nplays; i++) {
        if (r->plays[i].seat != 1 || r->plays[i].autopass)
            continue;
        json_t *h = json_pack("[o,o]", cards_of_hand(i >= 2 ? r->plays[i - 2].cards : 0),
                              cards_of_hand(i >= 1 ? r->plays[i - 1].cards : 0));
        if (first)
            json_array_append_new(
                want, json_pack("{s:o,s:o,s:o,s:i,s:i,s:i}", "own", cards_of_hand(r->deal.hand[1]),
                                "history", h, "publiccard", cards_of_hand(r->deal.leftover),
                                "landlord", r->landlord, "pos", 1, "finalbid", best));
        else
            json_array_append_new(want, json_pack("{s:o}", "history", h));
        first = false;
    }
    /* what the bot read */
    FILE *f = fopen(botlog, "r");
    cr_assert_not_null(f);
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    json_t *got = json_array();
    while (getline(&line, &cap, f) > 0) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert_not_null(j, "the bot read a line that is not JSON: %s", line);
        json_t *reqs = json_object_get(j, "requests");
        if (keep && n > 0) {
            cr_assert_null(reqs, "keep-running: a later turn sends the request alone");
            json_array_append(got, j);
        } else {
            cr_assert_not_null(reqs, "a fresh process gets the whole form");
            cr_assert_eq(json_array_size(reqs), json_array_size(got) + 1);
            cr_assert(json_equal(json_array_get(reqs, json_array_size(got)),
                                 json_array_get(reqs, json_array_size(reqs) - 1)));
            cr_assert_eq(json_array_size(json_object_get(j, "responses")), json_array_size(got));
            cr_assert(json_is_string(json_object_get(j, "data")));
            cr_assert(json_is_string(json_object_get(j, "globaldata")));
            if (n == 0)
                cr_assert_str_eq(json_string_value(json_object_get(j, "data")), "");
            json_array_append(got, json_array_get(reqs, json_array_size(reqs) - 1));
        }
        json_decref(j);
        n++;
    }
    free(line);
    fclose(f);
    cr_assert_gt(n, 2);
    char *w = json_dumps(want, JSON_COMPACT), *g = json_dumps(got, JSON_COMPACT);
    cr_assert(json_equal(want, got), "requests\n got  %s\n want %s", g, w);
    free(w);
    free(g);
    json_decref(want);
    json_decref(got);
}

Test(botzone, requests_one_shot)
{
    check_requests(false);
}

Test(botzone, requests_keep_running)
{
    check_requests(true);
}

Test(botzone, empty_command_is_refused)
{
    ddz_match_cfg cfg = {.spec = {"botzone:", "ai:greedy", "ai:greedy"}, .games = 1};
    char err[300];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    cr_assert_null(m);
    cr_assert(strstr(err, "botzone:"), "%s", err);
}

Test(botzone, refused_where_exec_is)
{
    ddz_seat_env env = {.allow_exec = false};
    int e = 0;
    char msg[200];
    cr_assert_null(ddz_seat_create("botzone:" TB, &env, &e, msg, sizeof msg));
    cr_assert_eq(e, DDZ_ENOTFOUND);
}
