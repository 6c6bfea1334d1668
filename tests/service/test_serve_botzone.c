/* test_serve_botzone.c - operator engines that are Botzone bots: `ddz
 * serve --engine NAME=botzone:COMMAND` (spec §11), seated as engine:NAME.
 *
 * A real server runs the test bot (tests/service/botzone_testbot.c) in
 * one-shot and in keep-running mode, in rooms under `caai` and under
 * `botzone-ftl2`, against a person (a test client): every game completes,
 * its record is served and `ddz verify` accepts it. What holds for CAAI
 * engines holds for these bots: they reserve seats of the engine budget
 * (--max-engines), their stderr goes to --engine-logs, a hung one is
 * charged by the room's clock and killed at once (the server's kill
 * grace), and no bot process outlives its room: the test counts its own
 * descendants, so nothing else running on the machine counts.
 */
#include <sys/stat.h>

#include "serve_harness.h"

#define TB DDZ_TESTBOT

/* Waits (bounded) until no test bot with `arg` (NULL: any) runs under this
 * test; returns how many still do. */
static int bots_gone(const char *arg, int ms)
{
    int64_t deadline = now_ms() + ms;
    int n;
    while ((n = count_program(TB, arg)) > 0 && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    return n;
}

static char logs[128];   /* --engine-logs */
static char once[128];   /* the hung bot's --once file */
static char eng[8][512]; /* --engine values */

/* Starts the server with these operator engines (and --max-engines 2):
 *
 *   oneshot   botzone: the test bot, one-shot, writing a line to stderr first
 *   kept      botzone: the test bot, keep-running
 *   ftl2once  botzone: one-shot, playing by botzone-ftl2's combinations
 *   ftl2kept  botzone: keep-running, botzone-ftl2
 *   hang      botzone: keep-running, never answers its first request
 *             (once over the server's life), and ignores SIGTERM
 *   caai      exec: the CAAI test engine (the explicit form of a bare
 *             command) */
static void start(void)
{
    setup_no_server();
    snprintf(logs, sizeof logs, "%s/logs", srv.dir);
    cr_assert_eq(mkdir(logs, 0700), 0);
    snprintf(once, sizeof once, "%s/hung-once", srv.dir);
    snprintf(eng[0], sizeof eng[0], "oneshot=botzone:sh -c 'echo bz-stderr >&2; exec %s'", TB);
    snprintf(eng[1], sizeof eng[1], "kept=botzone:%s --keep-running", TB);
    snprintf(eng[2], sizeof eng[2], "ftl2once=botzone:%s --rules botzone-ftl2", TB);
    snprintf(eng[3], sizeof eng[3], "ftl2kept=botzone:%s --keep-running --rules botzone-ftl2", TB);
    snprintf(eng[4], sizeof eng[4],
             "hang=botzone:%s --keep-running --ignore-term --timeout-at 1 --once %s", TB, once);
    snprintf(eng[5], sizeof eng[5], "caai=exec:%s", DDZ_TESTENGINE);
    int n = 0;
    for (int i = 0; i < 6; i++) {
        serve_extra[n++] = "--engine";
        serve_extra[n++] = eng[i];
    }
    serve_extra[n++] = "--engine-logs";
    serve_extra[n++] = logs;
    serve_extra[n++] = "--max-engines";
    serve_extra[n++] = "2";
    /* the bots answer in a few ms: our person, acting as fast, would pass
     * the 20 frames a second a client may send */
    serve_extra[n++] = "--rate";
    serve_extra[n++] = "1000";
    serve_extra[n] = NULL;
    server_start();
}

TestSuite(serve_bz, .init = start, .fini = teardown, .timeout = HANG(300));

/* Creates a room under `rules` with `e0` and `e1` (engine names) at seats
 * 0 and 1 and `c` at seat 2, `games` games, `time` seconds an action.
 * Returns the room id (static); asserts the state shows the two seats as
 * engines under their names, whatever protocol they speak. */
static const char *bot_room(cli *c, const char *rules, const char *e0, const char *e1, int games,
                            int time)
{
    json_t *o = opts(games, 0, time);
    char s0[64], s1[64];
    snprintf(s0, sizeof s0, "engine:%s", e0);
    snprintf(s1, sizeof s1, "engine:%s", e1);
    json_object_set_new(o, "seats", json_pack("[s, s, n]", s0, s1));
    json_object_set_new(o, "rules", json_string(rules));
    cli_send(c, json_pack("{s:s, s:o, s:i}", "type", "create", "options", o, "seat", 2));
    const ddz_event *j = cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(j->joined.seat, 2, "%s", show(j));
    static char room[DDZ_EVENT_ROOM_ID_MAX];
    snprintf(room, sizeof room, "%s", j->joined.room);
    const ddz_event *st = cli_expect(c, DDZ_EVENT_STATE);
    cr_assert_str_eq(st->state.options.rules, rules);
    const char *names[2] = {e0, e1};
    for (int s = 0; s < 2; s++) {
        const ddz_event_player *p = &st->state.players[s];
        cr_assert(p->seated, "%s", show(st));
        cr_assert_eq(p->kind, DDZ_EVENT_ENGINE, "seat %d: %s", s, show(st));
        cr_assert_str_eq(p->name, names[s], "seat %d: %s", s, show(st));
    }
    return room;
}

/* Plays `games` games of the room `c` sits in: each ends without a fault,
 * its `over` is consistent, its record is served and verifies, and never
 * more than one bot process per seat runs. */
static void play_games(cli *c, int games)
{
    for (int g = 1; g <= games; g++) {
        reset_over(&c, 1);
        cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1, "game %d did not end", g);
        const ddz_event_over *over = c->over;
        cr_assert_eq(over->game, g, "%s", show_over(over));
        cr_assert_eq(over->fault_seat, -1, "game %d: a fault: %s", g, show_over(over));
        /* the bots bid one more than the highest bid so far and we pass:
         * one of them is the landlord, so their plays made the game */
        cr_assert(over->landlord == 0 || over->landlord == 1, "game %d: %s", g, show_over(over));
        check_over(over);
        check_record(over);
        int procs = count_program(TB, NULL);
        cr_assert_leq(procs, 2, "%d bot processes after game %d", procs, g);
    }
}

/* The host leaves: the room closes, gives its engine seats back, and every
 * bot process it ran is gone. */
static void leave_and_check_gone(cli *c)
{
    cli_send(c, json_pack("{s:s}", "type", "leave"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(metric_becomes("ddz_budget_used{budget=\"engines\"}", 0, T(3000)), 0);
    cr_assert_eq(bots_gone(NULL, T(3000)), 0, "a bot process outlived its room");
    cr_assert_eq(metric("ddz_engine_processes"), 0);
}

/* One-shot and keep-running bots under caai; the lobby lists them by name
 * only (a player choosing an opponent needs no protocol); the budget and
 * the engine logs count them as engines. */
Test(serve_bz, both_modes_play_caai_games)
{
    cli *c = cli_hello("Host");
    cli_send(c, json_pack("{s:s}", "type", "list"));
    const ddz_event *rooms = cli_expect(c, DDZ_EVENT_ROOMS);
    cr_assert_eq(rooms->rooms.nengines, 6, "%s", show(rooms));
    const char *want[] = {"oneshot", "kept", "ftl2once", "ftl2kept", "hang", "caai"};
    for (size_t i = 0; i < 6; i++)
        cr_assert_str_eq(rooms->rooms.engines[i], want[i], "%s", show(rooms));

    const char *room = bot_room(c, "caai", "oneshot", "kept", 3, 10);
    /* both engine seats are reserved: no third one fits --max-engines 2 */
    cr_assert_eq(metric("ddz_budget_used{budget=\"engines\"}"), 2);
    cli *other = cli_hello("Other");
    json_t *o = opts(1, 0, 10);
    json_object_set_new(o, "seats", json_pack("[s, n, n]", "engine:caai"));
    cli_send(other, json_pack("{s:s, s:o, s:i}", "type", "create", "options", o, "seat", 2));
    expect_error(other, DDZ_EBUSY, DDZ_REQ_CREATE);
    cr_assert_eq(metric("ddz_budget_refused_total{budget=\"engines\"}"), 1);

    play_games(c, 3);

    /* the one-shot bot's stderr is in its engine log */
    char path[300];
    snprintf(path, sizeof path, "%s/oneshot-%s-0.stderr.log", logs, room);
    char *text = slurp(path);
    cr_assert(strstr(text, "bz-stderr"), "%s: '%s'", path, text);
    free(text);
    leave_and_check_gone(c);
}

/* The same under botzone-ftl2 (bidding, Botzone's combinations), each bot
 * told its rules on its command line as a Botzone bot knows its game. */
Test(serve_bz, both_modes_play_ftl2_games)
{
    cli *c = cli_hello("Host");
    bot_room(c, "botzone-ftl2", "ftl2kept", "ftl2once", 3, 10);
    play_games(c, 3);
    leave_and_check_gone(c);
}

/* A bot that never answers is charged a timeout by the room's clock, and
 * its process (deaf to SIGTERM) is killed at once, not left to run out the
 * game; the next game is played as usual. */
Test(serve_bz, a_hung_bot_is_charged_and_killed)
{
    cli *c = cli_hello("Host");
    bot_room(c, "caai", "hang", "kept", 2, 3);
    /* seat 0 bids first: its bot is asked and hangs */
    pid_t hung = 0;
    int64_t deadline = now_ms() + T(3000);
    while (find_program(TB, "--timeout-at", &hung, 1) != 1 && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    cr_assert_gt(hung, 0, "the bot of seat 0 never ran");
    reset_over(&c, 1);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(20000)), -1, "game 1 did not end");
    cr_assert_eq(c->over->fault_seat, 0, "%s", show_over(c->over));
    cr_assert_eq(c->over->fault_kind, DDZ_FAULT_TIMEOUT, "%s", show_over(c->over));
    check_record(c->over);
    deadline = now_ms() + T(1000);
    while (program_alive(hung, TB) && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    cr_assert(!program_alive(hung, TB), "the hung bot still runs");
    cr_assert_eq(metric("ddz_faults_total{kind=\"timeout\"}"), 1);
    /* game 2: a fresh process for seat 0, which answers */
    reset_over(&c, 1);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(20000)), -1, "game 2 did not end");
    cr_assert_eq(c->over->fault_seat, -1, "%s", show_over(c->over));
    check_over(c->over);
    check_record(c->over);
    leave_and_check_gone(c);
}

/* The command line: the protocol prefix needs a command after it; --help
 * says how to run a Botzone bot. */
Test(serve_bz_cli, usage, .init = setup_no_server, .fini = teardown)
{
    char *out;
    cr_assert_eq(run_ddz(&out, "serve", "--engine", "x=botzone:", NULL), 2);
    free(out);
    cr_assert_eq(run_ddz(&out, "serve", "--engine", "x=exec:", NULL), 2);
    free(out);
    cr_assert_eq(run_ddz(&out, "serve", "--help", NULL, NULL), 0);
    cr_assert(strstr(out, "botzone:COMMAND for a Botzone bot"), "%s", out);
    free(out);
}
