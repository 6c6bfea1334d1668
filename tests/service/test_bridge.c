/* test_bridge.c - `ddz bridge`: the translator fed by hand (JSON events in,
 * CAAI lines and requests out), then real bridges playing real engines in
 * a real `ddz serve`.
 *
 * The end-to-end tests start the server (DDZ_BIN) on a free loopback port
 * with a fresh database and bot tokens from `ddz token add`; a test client
 * (service/wsclient.h) creates the room, lets the bridges sit, and watches
 * as a spectator. Every wait is on a condition with a bound: /healthz
 * answering, a frame arriving, a process exiting (its pidfd).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/caai.h"
#include "rules/error.h"
#include "service/bridge/bridge.h"
#include "wsclient.h"
#include "test_util.h"

/* ---- the translator, with a recording driver ---- */

typedef struct rec {
    char lines[256][96]; /* to the engine */
    int nlines;
    json_t *sent[64]; /* to the server */
    int nsent;
    int starts, stops;
    char log[4096];
} rec;

static int r_start(void *ctx)
{
    ((rec *)ctx)->starts++;
    return 0;
}

static void r_stop(void *ctx)
{
    ((rec *)ctx)->stops++;
}

static void r_line(void *ctx, const char *line)
{
    rec *r = ctx;
    cr_assert_lt(r->nlines, 256);
    snprintf(r->lines[r->nlines++], sizeof r->lines[0], "%s", line);
}

static void r_send(void *ctx, json_t *msg)
{
    rec *r = ctx;
    cr_assert_lt(r->nsent, 64);
    r->sent[r->nsent++] = msg;
}

static void r_log(void *ctx, bool warn, const char *msg)
{
    rec *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s%s\n", warn ? "W " : "", msg);
}

static rec R;
static ddz_bridge B;

static void setup_bridge(const ddz_bridge_opts *o)
{
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    memset(&R, 0, sizeof R);
    ddz_bridge_io io = {.ctx = &R,
                        .engine_start = r_start,
                        .engine_stop = r_stop,
                        .engine_send = r_line,
                        .server_send = r_send,
                        .log = r_log};
    ddz_bridge_init(&B, &io, o);
}

static int frame(const char *text)
{
    return ddz_bridge_on_frame(&B, text, strlen(text));
}

static void engine(const char *line)
{
    ddz_bridge_on_engine_line(&B, line, strlen(line), false);
}

/* Checks the next engine lines, from index *at, and advances it. */
static void lines_are(int *at, const char *const *want, int n)
{
    for (int i = 0; i < n; i++) {
        cr_assert_lt(*at + i, R.nlines, "missing engine line '%s' (log:\n%s)", want[i], R.log);
        cr_assert_str_eq(R.lines[*at + i], want[i]);
    }
    *at += n;
    cr_assert_eq(*at, R.nlines, "an extra engine line: '%s'", R.lines[*at < R.nlines ? *at : 0]);
}

/* The last request sent must equal the JSON text `want`. */
static void sent_is(const char *want)
{
    cr_assert_gt(R.nsent, 0, "nothing sent; wanted %s", want);
    json_t *w = json_loads(want, 0, NULL);
    cr_assert(w);
    char *got = json_dumps(R.sent[R.nsent - 1], JSON_COMPACT | JSON_SORT_KEYS);
    cr_assert(json_equal(w, R.sent[R.nsent - 1]), "sent %s, wanted %s", got, want);
    free(got);
    json_decref(w);
}

/* The bridge sat in a room at seat 0 (A) with time 5 and 2 games. */
static void seated_at_a(void)
{
    setup_bridge(&(ddz_bridge_opts){.token = "tok", .name = "me", .room = "r1", .seat = 0});
    cr_assert_eq(ddz_bridge_start(&B), 0);
    ddz_bridge_connected(&B);
    sent_is("{\"type\":\"hello\",\"version\":1,\"name\":\"me\",\"token\":\"tok\"}");
    frame(
        "{\"type\":\"welcome\",\"version\":1,\"you\":{\"id\":\"p1\",\"name\":\"bot\",\"bot\":true},"
        "\"resume\":\"abc\",\"server\":\"ddz\"}");
    sent_is("{\"type\":\"list\"}");
    frame("{\"type\":\"rooms\",\"rooms\":[]}");
    sent_is("{\"type\":\"join\",\"room\":\"r1\",\"seat\":0}");
    frame("{\"type\":\"joined\",\"room\":\"r1\",\"seat\":0}");
    frame("{\"type\":\"state\",\"room\":{\"id\":\"r1\",\"options\":{\"time\":5,\"games\":2,"
          "\"rules\":\"caai\"}},\"seat\":0,\"phase\":\"waiting\",\"players\":[null,null,null],"
          "\"hand\":null,\"history\":[],\"turn\":null}");
    engine("NAME me");
}

static const char hand_a[] = "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]";
static const char deal_a[] = "DEAL A0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16";

Test(bridge_xlate, a_whole_game)
{
    seated_at_a();
    int at = 0;
    const char *l0[] = {"DOUDIZHUVER 1.0"};
    lines_are(&at, l0, 1);
    char g[256];
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":2,\"commit\":\"c1\",\"hand\":%s}", hand_a);
    frame(g);
    const char *l1[] = {"INFO 1,1,1,2,0,700,5", deal_a};
    lines_are(&at, l1, 2);
    engine("OK INFO");
    engine("OK DEAL");
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":1,\"legal\":[0,1,2,3]}");
    const char *l2[] = {"BID WHAT"};
    lines_are(&at, l2, 1);
    engine("BID A2");
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":2}");
    frame("{\"type\":\"bid_made\",\"seat\":0,\"bid\":2}"); /* our own: the engine knows */
    frame("{\"type\":\"turn\",\"seat\":1,\"action\":\"bid\",\"seq\":2}");
    frame("{\"type\":\"bid_made\",\"seat\":1,\"bid\":0}");
    frame("{\"type\":\"bid_made\",\"seat\":2,\"bid\":3}");
    frame("{\"type\":\"leftover\",\"landlord\":2,\"cards\":[50,51,53],\"bid\":3}");
    const char *l3[] = {"BID B0", "BID C3", "LEFTOVER C50,51,53"};
    lines_are(&at, l3, 3);
    engine("OK BID");
    engine("OK BID");
    engine("OK LEFTOVER");
    frame("{\"type\":\"played\",\"seat\":2,\"cards\":[20],\"combo\":\"single\",\"auto\":false,"
          "\"left\":19}");
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":5,\"legal\":[[]]}");
    const char *l4[] = {"PLAY C20", "PLAY WHAT"};
    lines_are(&at, l4, 2);
    engine("OK PLAY");
    engine("PLAY A-1");
    sent_is("{\"type\":\"play\",\"seq\":5,\"cards\":[]}");
    frame("{\"type\":\"played\",\"seat\":0,\"cards\":[],\"combo\":\"pass\",\"auto\":false,"
          "\"left\":17}");
    frame("{\"type\":\"played\",\"seat\":1,\"cards\":[],\"combo\":\"pass\",\"auto\":true,"
          "\"left\":17}");
    frame("{\"type\":\"played\",\"seat\":2,\"cards\":[24,25],\"combo\":\"pair\",\"auto\":false,"
          "\"left\":17}");
    frame("{\"type\":\"played\",\"seat\":0,\"cards\":[],\"combo\":\"pass\",\"auto\":true,"
          "\"left\":17}");
    const char *l5[] = {"PLAY B-1", "PLAY C24,25", "PLAY A-1"};
    lines_are(&at, l5, 3);
    engine("OK PLAY");
    engine("OK PLAY");
    engine("OK PLAY");
    frame("{\"type\":\"over\",\"game\":1,\"winner\":2,\"landlord\":2,\"fault\":null,"
          "\"scores\":[-300,-300,600],\"totals\":[-300,-300,600]}");
    const char *l6[] = {"GAMEOVER C"};
    lines_are(&at, l6, 1);
    engine("OK GAMEOVER");
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);
    cr_assert_eq(B.ecount, 0);

    /* the second game: a fault of seat B ends it */
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":2,\"games\":2,\"commit\":\"c2\",\"hand\":%s}", hand_a);
    frame(g);
    frame("{\"type\":\"over\",\"game\":2,\"winner\":null,\"landlord\":null,"
          "\"fault\":{\"seat\":1,\"kind\":\"timeout\"},\"scores\":[350,-700,350]}");
    const char *l7[] = {"INFO 1,1,2,2,0,700,5", deal_a, "ERROR B"};
    lines_are(&at, l7, 3);
    engine("OK INFO");
    engine("OK DEAL");
    engine("ERROR B"); /* a bad acknowledgement of ERROR is only logged */
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);

    /* the turn is over: the engine is stopped and a rematch asked */
    cr_assert_eq(frame("{\"type\":\"turn_over\",\"totals\":[0,0,0],\"games\":2}"), DDZ_BRIDGE_GO);
    cr_assert_eq(R.stops, 1);
    sent_is("{\"type\":\"rematch\"}");
    /* the next turn's first game starts a fresh engine */
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":2,\"commit\":\"c3\",\"hand\":%s}", hand_a);
    frame(g);
    cr_assert_eq(R.starts, 2);
    const char *l8[] = {"DOUDIZHUVER 1.0", "INFO 1,1,1,2,0,700,5", deal_a};
    lines_are(&at, l8, 3);
}

Test(bridge_xlate, all_pass_sends_nothing_and_turns_end)
{
    seated_at_a();
    B.opts.turns = 1;
    char g[256];
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":1,\"commit\":\"c1\",\"hand\":%s}", hand_a);
    frame(g);
    int n = R.nlines;
    frame("{\"type\":\"over\",\"game\":1,\"winner\":null,\"landlord\":null,\"fault\":null,"
          "\"scores\":[0,0,0]}");
    cr_assert_eq(R.nlines, n, "all passed: nothing for the engine");
    cr_assert_eq(frame("{\"type\":\"turn_over\",\"totals\":[0,0,0],\"games\":1}"), DDZ_BRIDGE_DONE);
}

Test(bridge_xlate, bad_answers_are_reported_not_sent)
{
    seated_at_a();
    char g[256];
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":2,\"commit\":\"c1\",\"hand\":%s}", hand_a);
    frame(g);
    engine("OK INFO");
    engine("OK DEAL");
    int nsent = R.nsent;
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":1,\"legal\":[0,1,2,3]}");
    engine("BID B1"); /* another seat's letter */
    cr_assert_eq(R.nsent, nsent);
    cr_assert_eq(B.warnings, 1);
    cr_assert(strstr(R.log, "seat B"), "%s", R.log);
    cr_assert_eq(B.ecount, 0);

    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":2,\"legal\":[0,1,2,3]}");
    engine("XYZZY 42"); /* garbage */
    cr_assert_eq(R.nsent, nsent);
    cr_assert_geq(B.warnings, 2);
    cr_assert(strstr(R.log, "XYZZY"), "%s", R.log);
    cr_assert_eq(B.ecount, 0);

    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":3,\"legal\":[0,1,2,3]}");
    ddz_bridge_on_engine_line(&B, "BID A1\0x", 8, true); /* a NUL byte */
    cr_assert_eq(R.nsent, nsent);
    cr_assert_eq(B.ecount, 0);

    /* a missing OK is skipped over when a later answer fits */
    frame("{\"type\":\"bid_made\",\"seat\":1,\"bid\":0}");
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":4,\"legal\":[0,1,2,3]}");
    long w = B.warnings;
    engine("BID A3");
    sent_is("{\"type\":\"bid\",\"seq\":4,\"bid\":3}");
    cr_assert_eq(B.warnings, w + 1, "the missing OK BID is reported:\n%s", R.log);

    /* a line nobody asked for */
    engine("OK PLAY");
    cr_assert_eq(B.warnings, w + 2);
}

Test(bridge_xlate, engine_death_restarts_at_next_game)
{
    seated_at_a();
    char g[256];
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":2,\"commit\":\"c1\",\"hand\":%s}", hand_a);
    frame(g);
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":1,\"legal\":[0,1,2,3]}");
    ddz_bridge_engine_died(&B);
    int n = R.nlines;
    frame("{\"type\":\"bid_made\",\"seat\":1,\"bid\":0}");
    cr_assert_eq(R.nlines, n, "no lines for a dead engine");
    frame("{\"type\":\"over\",\"game\":1,\"winner\":null,\"landlord\":null,"
          "\"fault\":{\"seat\":0,\"kind\":\"timeout\"},\"scores\":[-700,350,350]}");
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":2,\"games\":2,\"commit\":\"c2\",\"hand\":%s}", hand_a);
    frame(g);
    cr_assert_eq(R.starts, 2);
    int at = n;
    const char *l[] = {"DOUDIZHUVER 1.0", "INFO 1,1,2,2,0,700,5", deal_a};
    lines_are(&at, l, 3);
}

Test(bridge_xlate, resume_catches_the_engine_up)
{
    seated_at_a();
    /* reconnected mid-game of a game the engine never saw: landlord A took
     * 17,18,19 and played 0 and 17; B passed; C played 30 */
    ddz_bridge_connected(&B);
    sent_is("{\"type\":\"hello\",\"version\":1,\"name\":\"me\",\"token\":\"tok\","
            "\"resume\":\"abc\"}");
    frame(
        "{\"type\":\"welcome\",\"version\":1,\"you\":{\"id\":\"p1\",\"name\":\"bot\",\"bot\":true},"
        "\"resume\":\"abc\",\"server\":\"ddz\"}");
    int at = R.nlines;
    frame("{\"type\":\"state\",\"room\":{\"id\":\"r1\",\"options\":{\"time\":5,\"games\":2}},"
          "\"seat\":0,\"phase\":\"play\",\"game\":1,\"games\":2,\"commit\":\"c9\","
          "\"players\":[{\"bid\":3},{\"bid\":null},{\"bid\":null}],"
          "\"hand\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,18,19],"
          "\"leftover\":[17,18,19],\"landlord\":0,\"bid\":3,"
          "\"history\":[{\"seat\":0,\"cards\":[0],\"auto\":false},"
          "{\"seat\":1,\"cards\":[],\"auto\":true},{\"seat\":2,\"cards\":[30],\"auto\":false},"
          "{\"seat\":0,\"cards\":[17],\"auto\":false}],"
          "\"turn\":{\"type\":\"turn\",\"seat\":1,\"action\":\"play\",\"seq\":9}}");
    const char *l[] = {"INFO 1,1,1,2,0,700,5",
                       deal_a,
                       "BID A3",
                       "LEFTOVER A17,18,19",
                       "PLAY A0",
                       "PLAY B-1",
                       "PLAY C30",
                       "PLAY A17"};
    lines_are(&at, l, 8);
    sent_is("{\"type\":\"list\"}");
    /* the `rooms` answer after a resumed seat changes nothing */
    int nsent = R.nsent;
    frame("{\"type\":\"rooms\",\"rooms\":[]}");
    cr_assert_eq(R.nsent, nsent);

    /* our answer was lost with the connection: the state's turn gets it again */
    frame("{\"type\":\"played\",\"seat\":1,\"cards\":[],\"combo\":\"pass\",\"auto\":false,"
          "\"left\":17}");
    frame("{\"type\":\"played\",\"seat\":2,\"cards\":[34],\"combo\":\"single\",\"auto\":false,"
          "\"left\":15}");
    frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":12,\"legal\":[[]]}");
    const char *l2[] = {"PLAY B-1", "PLAY C34", "PLAY WHAT"};
    lines_are(&at, l2, 3);
    const char *acks[] = {"OK INFO", "OK DEAL", "OK BID", "OK LEFTOVER"};
    for (int i = 0; i < 4; i++)
        engine(acks[i]);
    for (int i = 0; i < 6; i++)
        engine("OK PLAY");
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);
    engine("PLAY A-1");
    sent_is("{\"type\":\"play\",\"seq\":12,\"cards\":[]}");
    int before = R.nsent;
    ddz_bridge_connected(&B);
    frame(
        "{\"type\":\"welcome\",\"version\":1,\"you\":{\"id\":\"p1\",\"name\":\"bot\",\"bot\":true},"
        "\"resume\":\"abc\",\"server\":\"ddz\"}");
    frame("{\"type\":\"state\",\"room\":{\"id\":\"r1\",\"options\":{\"time\":5,\"games\":2}},"
          "\"seat\":0,\"phase\":\"play\",\"game\":1,\"games\":2,\"commit\":\"c9\","
          "\"players\":[{\"bid\":3},{\"bid\":null},{\"bid\":null}],"
          "\"hand\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,18,19],"
          "\"leftover\":[17,18,19],\"landlord\":0,\"bid\":3,"
          "\"history\":[{\"seat\":0,\"cards\":[0],\"auto\":false},"
          "{\"seat\":1,\"cards\":[],\"auto\":true},{\"seat\":2,\"cards\":[30],\"auto\":false},"
          "{\"seat\":0,\"cards\":[17],\"auto\":false},{\"seat\":1,\"cards\":[],\"auto\":false},"
          "{\"seat\":2,\"cards\":[34],\"auto\":false}],"
          "\"turn\":{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":12}}");
    cr_assert_eq(R.nlines, at, "the engine already knows all of it");
    cr_assert_eq(R.nsent, before + 3); /* hello, list, and the answer again */
    sent_is("{\"type\":\"play\",\"seq\":12,\"cards\":[]}");
}

Test(bridge_xlate, resume_after_the_game_ended)
{
    seated_at_a();
    char g[256];
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":1,\"games\":2,\"commit\":\"c1\",\"hand\":%s}", hand_a);
    frame(g);
    engine("OK INFO");
    engine("OK DEAL");
    /* away during the end of game 1: the state's result tells how it ended */
    ddz_bridge_connected(&B);
    frame("{\"type\":\"welcome\",\"you\":{\"id\":\"p1\"},\"resume\":\"abc\"}");
    int at = R.nlines;
    frame("{\"type\":\"state\",\"room\":{\"id\":\"r1\",\"options\":{\"time\":5,\"games\":2}},"
          "\"seat\":0,\"phase\":\"between\",\"game\":1,\"games\":2,\"commit\":null,"
          "\"players\":[],\"hand\":[],\"history\":[],\"turn\":null,"
          "\"result\":{\"type\":\"over\",\"game\":1,\"winner\":1,\"landlord\":1,"
          "\"fault\":null,\"scores\":[-100,200,-100],\"commit\":\"c1\"}}");
    const char *l[] = {"GAMEOVER B"};
    lines_are(&at, l, 1);
    cr_assert_eq(R.stops, 0, "the engine goes on");
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);
    /* a state after a game whose end we do not know restarts the engine */
    snprintf(g, sizeof g,
             "{\"type\":\"game\",\"game\":2,\"games\":2,\"commit\":\"c2\",\"hand\":%s}", hand_a);
    frame(g);
    frame("{\"type\":\"state\",\"room\":{\"id\":\"r1\",\"options\":{\"time\":5,\"games\":2}},"
          "\"seat\":0,\"phase\":\"turn_over\",\"game\":2,\"games\":2,\"commit\":null,"
          "\"players\":[],\"hand\":[],\"history\":[],\"turn\":null,\"result\":null}");
    cr_assert_eq(R.stops, 1);
    sent_is("{\"type\":\"rematch\"}");
}

Test(bridge_xlate, picks_a_room_or_creates_one)
{
    setup_bridge(&(ddz_bridge_opts){.token = "t", .seat = -1, .fill = "ai:greedy", .time = 7});
    ddz_bridge_connected(&B);
    frame("{\"type\":\"welcome\",\"you\":{\"id\":\"p1\"},\"resume\":\"x\"}");
    frame("{\"type\":\"rooms\",\"rooms\":["
          "{\"id\":\"nobots\",\"bots\":false,\"password\":false,\"playing\":false,"
          "\"seats\":[null,null,null]},"
          "{\"id\":\"locked\",\"bots\":true,\"password\":true,\"playing\":false,"
          "\"seats\":[null,null,null]},"
          "{\"id\":\"full\",\"bots\":true,\"password\":false,\"playing\":false,"
          "\"seats\":[{},{},{}]},"
          "{\"id\":\"good\",\"bots\":true,\"password\":false,\"playing\":false,"
          "\"seats\":[{},null,{}]}]}");
    sent_is("{\"type\":\"join\",\"room\":\"good\"}");
    /* someone was quicker: look again, nothing fits, create */
    frame(
        "{\"type\":\"error\",\"code\":\"EFULL\",\"message\":\"no free seat\",\"about\":\"join\"}");
    sent_is("{\"type\":\"list\"}");
    frame("{\"type\":\"rooms\",\"rooms\":[]}");
    json_t *c = R.sent[R.nsent - 1];
    cr_assert_str_eq(json_string_value(json_object_get(c, "type")), "create");
    json_t *o = json_object_get(c, "options");
    cr_assert(json_is_true(json_object_get(o, "bots")));
    cr_assert_eq(json_integer_value(json_object_get(o, "time")), 7);
    cr_assert_eq(json_integer_value(json_object_get(c, "seat")), 0);
    json_t *seats = json_object_get(o, "seats");
    cr_assert(json_is_null(json_array_get(seats, 0)));
    cr_assert_str_eq(json_string_value(json_array_get(seats, 1)), "ai:greedy");
    cr_assert_str_eq(json_string_value(json_array_get(seats, 2)), "ai:greedy");
    /* refusals end the bridge */
    cr_assert_eq(
        frame("{\"type\":\"error\",\"code\":\"EAUTH\",\"message\":\"no\",\"about\":\"create\"}"),
        DDZ_BRIDGE_REFUSED);
    cr_assert_eq(frame("{\"type\":\"bye\",\"reason\":\"shutting down\"}"), DDZ_BRIDGE_BYE);
}

Test(bridge_xlate, urls)
{
    ddz_url u;
    cr_assert_eq(ddz_url_parse("ws://127.0.0.1:8080/ws", &u), 0);
    cr_assert(!u.tls);
    cr_assert_str_eq(u.host, "127.0.0.1");
    cr_assert_eq(u.port, 8080);
    cr_assert_str_eq(u.path, "/ws");
    cr_assert_str_eq(u.hostport, "127.0.0.1:8080");
    cr_assert_eq(ddz_url_parse("wss://ddz.example", &u), 0);
    cr_assert(u.tls);
    cr_assert_eq(u.port, 443);
    cr_assert_str_eq(u.path, "/");
    cr_assert_eq(ddz_url_parse("ws://[::1]:9/ws", &u), 0);
    cr_assert_str_eq(u.host, "::1");
    cr_assert_str_eq(u.hostport, "[::1]:9");
    const char *bad[] = {"http://x/ws",   "ws://",       "ws://:80/", "ws://h:0/",
                         "ws://h:99999/", "ws://h:12x/", "ws://[::1/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(ddz_url_parse(bad[i], &u), DDZ_EINVAL, "%s", bad[i]);
}

/* ---- real processes ---- */

static int T(int ms)
{
    const char *s = getenv("DDZ_TEST_SCALE");
    return s && atoi(s) > 1 ? ms * 4 : ms;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct proc {
    pid_t pid; /* 0 once reaped */
    int pidfd;
    int code; /* exit status, or 128 + signal */
    char log[160];
} proc;

static char dir[64];
static char db[128];
static int port;
static proc server;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes the test's directory (left in place when a test fails, for its logs). */
static void remove_dir(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Starts argv (NULL-terminated) with stdout and stderr appended to `log`. */
static void spawn(proc *p, const char *log, char *const argv[])
{
    snprintf(p->log, sizeof p->log, "%s", log);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    p->pid = pid;
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    cr_assert_geq(p->pidfd, 0, "pidfd_open: %s", strerror(errno));
}

/* Waits up to `ms` for `p` to exit and reaps it. Returns true if it did. */
static bool reap_within(proc *p, int ms)
{
    if (!p->pid)
        return true;
    struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int status;
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            p->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            p->pid = 0;
            close(p->pidfd);
            return true;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        poll(&pf, 1, (int)left);
    }
}

static void kill_and_reap(proc *p)
{
    if (p->pid) {
        kill(p->pid, SIGKILL);
        reap_within(p, T(5000));
    }
}

static bool healthy(void)
{
    int status;
    char *body;
    if (ddz_wsc_http_get("127.0.0.1", port, "/healthz", 1000, &status, &body) < 0)
        return false;
    bool ok = status == 200 && strcmp(body, "ok\n") == 0;
    free(body);
    return ok;
}

static void server_start(void)
{
    snprintf(dir, sizeof dir, "/tmp/ddz-bridge-XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/ddz.db", dir);
    for (int attempt = 0; attempt < 5; attempt++) {
        port = free_port();
        char ps[16], log[128];
        snprintf(ps, sizeof ps, "%d", port);
        snprintf(log, sizeof log, "%s/serve.log", dir);
        char *argv[] = {DDZ_BIN,         "serve", "--port",  ps,      "--bind",
                        "127.0.0.1",     "--db",  db,        "--web", DDZ_SOURCE_DIR "/web",
                        "--ai-delay-ms", "0",     "--quiet", NULL};
        spawn(&server, log, argv);
        int64_t deadline = now_ms() + T(10000);
        while (now_ms() < deadline) {
            if (healthy())
                return;
            if (reap_within(&server, 5))
                break;
        }
        if (server.pid) {
            kill_and_reap(&server);
            cr_assert_fail("the server did not answer /healthz within %d ms", T(10000));
        }
    }
    cr_assert_fail("the server would not start");
}

/* `ddz token add NAME`: returns the token (static buffer per call site). */
static void token_add(const char *name, char out[80])
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' token add '%s' --db '%s' 2>/dev/null", DDZ_BIN, name, db);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    cr_assert(fgets(out, 80, f), "ddz token add printed nothing");
    out[strcspn(out, "\r\n")] = '\0';
    cr_assert_eq(pclose(f), 0);
    cr_assert_gt(strlen(out), 16);
}

static json_t *recv_type(ddz_wsc *c, const char *type, int ms)
{
    json_t *f = ddz_wsc_recv_type(c, type, T(ms));
    cr_assert(f, "no '%s' frame within %d ms", type, T(ms));
    return f;
}

static ddz_wsc *watcher;
static char room[32];

static ddz_wsc *hello(const char *name)
{
    char err[160], h[128];
    ddz_wsc *c = ddz_wsc_connect("127.0.0.1", port, "/ws", T(5000), err, sizeof err);
    cr_assert(c, "%s", err);
    snprintf(h, sizeof h, "{\"type\":\"hello\",\"version\":1,\"name\":\"%s\"}", name);
    ddz_wsc_send(c, h);
    recv_type(c, "welcome", 5000);
    return c;
}

/* A room for bots with a hosted AI in seat 2 and two open seats, watched by
 * `watcher`. Its creator must sit, so it sits until the watcher is in, then
 * leaves (the room lives on while someone watches). */
static void make_room(int time)
{
    ddz_wsc *creator = hello("creator");
    char create[256];
    snprintf(create, sizeof create,
             "{\"type\":\"create\",\"seat\":0,\"options\":{\"bots\":true,\"time\":%d,"
             "\"games\":1,\"pause\":0,\"seats\":[null,null,\"ai:greedy\"]}}",
             time);
    ddz_wsc_send(creator, create);
    json_t *j = recv_type(creator, "joined", 5000);
    snprintf(room, sizeof room, "%s", json_string_value(json_object_get(j, "room")));
    cr_assert(room[0]);
    watcher = hello("watcher");
    char sp[96];
    snprintf(sp, sizeof sp, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    ddz_wsc_send(watcher, sp);
    j = recv_type(watcher, "joined", 5000);
    cr_assert(json_is_null(json_object_get(j, "seat")));
    ddz_wsc_send(creator, "{\"type\":\"leave\"}");
    j = recv_type(creator, "joined", 5000);
    cr_assert(json_is_null(json_object_get(j, "room")));
    ddz_wsc_close(creator);
}

static void start_bridge(proc *p, const char *name, const char *token, int seat, char **engine)
{
    char url[64], seat_s[4], log[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", port);
    snprintf(seat_s, sizeof seat_s, "%d", seat);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    char *argv[32] = {DDZ_BIN, "bridge", "--url", url,      "--token",    (char *)token, "--room",
                      room,    "--seat", seat_s,  "--name", (char *)name, "--",          NULL};
    int n = 13;
    for (int i = 0; engine[i]; i++)
        argv[n++] = engine[i];
    argv[n] = NULL;
    spawn(p, log, argv);
}

/* Whether the engine whose shell wrote `pidfile` is running (false while
 * the file is missing or empty). */
static bool pid_alive(const char *pidfile)
{
    char *s = slurp(pidfile);
    int pid = atoi(s);
    free(s);
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

Test(bridge_e2e, two_bridges_and_an_ai_play_then_the_server_leaves, .timeout = 120)
{
    server_start();
    char t1[80], t2[80];
    token_add("west", t1);
    token_add("south", t2);
    make_room(10);

    char pid1[128], pid2[128], sh1[256], sh2[256];
    snprintf(pid1, sizeof pid1, "%s/engine1.pid", dir);
    snprintf(pid2, sizeof pid2, "%s/engine2.pid", dir);
    snprintf(sh1, sizeof sh1, "echo $$ > '%s'; exec '%s' engine --ai greedy", pid1, DDZ_BIN);
    snprintf(sh2, sizeof sh2, "echo $$ > '%s'; exec '%s' engine --ai greedy --seed 7", pid2,
             DDZ_BIN);
    char *e1[] = {"/bin/sh", "-c", sh1, NULL}, *e2[] = {"/bin/sh", "-c", sh2, NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "south", t2, 1, e1);
    start_bridge(&b2, "west", t1, 0, e2);

    /* the game is played to its end, without a fault */
    json_t *over = recv_type(watcher, "over", 30000);
    json_t *fault = json_object_get(over, "fault");
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(json_is_null(fault), "fault %s\nsouth:\n%s\nwest:\n%s",
              json_dumps(fault, JSON_COMPACT), b1log, b2log);
    cr_assert(json_is_integer(json_object_get(over, "winner")) ||
              json_is_null(json_object_get(over, "landlord")));
    /* the bridges ask for a rematch: a second turn starts */
    recv_type(watcher, "turn_over", 10000);
    recv_type(watcher, "game", 10000);
    free(b1log);
    free(b2log);

    /* the server shuts down: the bridges stop their engines and exit 3 */
    /* the new turn's engines are up (each turn gets a fresh process) */
    int64_t deadline = now_ms() + T(5000);
    while (!(pid_alive(pid1) && pid_alive(pid2)) && now_ms() < deadline)
        poll(NULL, 0, 5);
    cr_assert(pid_alive(pid1) && pid_alive(pid2), "the engines of the second turn are not running");
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)), "the server did not stop");
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    b1log = slurp(b1.log);
    b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not exit\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert_eq(b1.code, 3, "south:\n%s", b1log);
    cr_assert_eq(b2.code, 3, "west:\n%s", b2log);
    cr_assert(strstr(b1log, "bye"), "south:\n%s", b1log);
    cr_assert(!strstr(b1log, "warning: engine"), "south:\n%s", b1log);
    cr_assert(!strstr(b2log, "warning: engine"), "west:\n%s", b2log);
    cr_assert(!pid_alive(pid1) && !pid_alive(pid2), "an engine outlived its bridge");
    free(b1log);
    free(b2log);
    ddz_wsc_close(watcher);
    remove_dir();
}

Test(bridge_e2e, garbage_from_the_engine_is_a_timeout_fault, .timeout = 120)
{
    server_start();
    char t1[80], t2[80];
    token_add("west", t1);
    token_add("south", t2);
    make_room(3);
    char *greedy[] = {DDZ_BIN, "engine", "--ai", "greedy", NULL};
    char *garbage[] = {DDZ_TESTENGINE, "--garbage-at", "1", NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "south", t2, 1, greedy);
    start_bridge(&b2, "west", t1, 0, garbage); /* seat 0 bids first */

    json_t *over = recv_type(watcher, "over", 20000);
    json_t *fault = json_object_get(over, "fault");
    cr_assert(json_is_object(fault), "no fault: %s", json_dumps(over, JSON_COMPACT));
    cr_assert_eq(json_integer_value(json_object_get(fault, "seat")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(fault, "kind")), "timeout");

    /* SIGTERM: the bridge stops its engine and exits 0 */
    kill(b2.pid, SIGTERM);
    kill(b1.pid, SIGINT);
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not exit on a signal\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert_eq(b2.code, 0, "west:\n%s", b2log);
    cr_assert_eq(b1.code, 0, "south:\n%s", b1log);
    cr_assert(strstr(b2log, "XYZZY"), "the bad answer is reported:\n%s", b2log);
    free(b1log);
    free(b2log);
    ddz_wsc_close(watcher);
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)));
    remove_dir();
}
