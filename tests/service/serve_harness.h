/* serve_harness.h - starting a real `ddz serve` and talking to it as
 * clients, for the service tests (test_serve.c and the attack tests).
 *
 * The server runs on a free loopback port with a fresh database in a
 * temporary directory (setup/teardown). Clients read the server's frames as
 * values of the event codec (proto/event.h): every frame read must parse
 * and print back to its very bytes (the contract check of wsclient.h).
 * Every wait is on a condition with a bound: /healthz answering, a frame
 * arriving, the process exiting. Functions are static: one test program
 * includes this once.
 */
#ifndef DDZ_SERVE_HARNESS_H
#define DDZ_SERVE_HARNESS_H

/* A test program uses some of these helpers, not all. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/event.h"
#include "proto/record_json.h"
#include "proto/terms.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "wsclient.h"
#include "test_util.h"
#include "test_clock.h"

/* More options for `ddz serve` (NULL-terminated), set by a test before
 * server_start(); setup() starts the server with none. */
static const char *serve_extra[32];

/* If positive, the server runs with RLIMIT_NOFILE (soft and hard) set to
 * this, in the forked child before exec: the attack tests' descriptor
 * exhaustion. */
static long serve_nofile;

/* ---- the server process ---- */

static struct {
    pid_t pid;     /* 0 when not running */
    int pidfd;     /* becomes readable when the process exits */
    int port;      /* loopback port it listens on */
    char dir[64];  /* temporary directory: database, log */
    char db[128];  /* database path */
    char log[128]; /* its stderr */
    int exit_code; /* of the last stop: exit status, or 128 + signal */
} srv = {.pidfd = -1};

static FILE *frames_out; /* DDZ_FRAMES_OUT, or NULL */

/* Waits up to `ms` for the server to exit, and reaps it. Returns true if it
 * did; srv.exit_code is then set. The wait is a poll() on its pidfd. */
static bool reap_within(int ms)
{
    struct pollfd p = {.fd = srv.pidfd, .events = POLLIN};
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int status;
        if (waitpid(srv.pid, &status, WNOHANG) == srv.pid) {
            srv.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            srv.pid = 0;
            close(srv.pidfd);
            srv.pidfd = -1;
            return true;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        poll(&p, 1, (int)left);
    }
}

static bool healthy(void)
{
    int status;
    char *body;
    if (ddz_wsc_http_get("127.0.0.1", srv.port, "/healthz", 1000, &status, &body) < 0)
        return false;
    bool ok = status == 200 && strcmp(body, "ok\n") == 0;
    free(body);
    return ok;
}

/* Starts `ddz serve` on a free port with the current database, and waits
 * (bounded) until /healthz answers. A port taken between choosing it and
 * the server binding it makes the server exit: then another port is tried. */
static void server_start(void)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        srv.port = free_port();
        char port[16];
        snprintf(port, sizeof port, "%d", srv.port);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
            if (serve_nofile > 0) {
                struct rlimit rl = {(rlim_t)serve_nofile, (rlim_t)serve_nofile};
                if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                    _exit(126);
            }
            int fd = open(srv.log, O_WRONLY | O_CREAT | O_APPEND, 0600);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            const char *argv[64] = {
                "ddz",           "serve", "--port", port,     "--bind",
                "127.0.0.1",     "--db",  srv.db,   "--web",  DDZ_SOURCE_DIR "/web",
                "--ai-delay-ms", "0",     "--ai",   "greedy", "--quiet"};
            int argc = 15;
            for (int k = 0; serve_extra[k] && argc < 63; k++)
                argv[argc++] = serve_extra[k];
            execv(DDZ_BIN, (char *const *)argv);
            _exit(127);
        }
        srv.pid = pid;
        srv.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        cr_assert_geq(srv.pidfd, 0, "pidfd_open: %s", strerror(errno));
        int64_t deadline = now_ms() + T(10000);
        while (now_ms() < deadline) {
            if (healthy())
                return;
            /* Not up yet: retry after 5 ms, or at once if it exits. */
            if (reap_within(5))
                break;
        }
        if (srv.pid) {
            kill(srv.pid, SIGKILL);
            reap_within(T(5000));
            cr_assert_fail("the server did not answer /healthz within %d ms", T(10000));
        }
    }
    char *log = slurp(srv.log);
    cr_assert_fail("the server would not start; its log:\n%s", log);
}

/* Waits (bounded) for the exit after a SIGTERM. Returns the exit code. */
static int server_wait(void)
{
    if (!srv.pid)
        return srv.exit_code;
    if (!reap_within(T(10000))) {
        kill(srv.pid, SIGKILL);
        reap_within(T(5000));
        cr_assert_fail("the server did not exit within %d ms of SIGTERM", T(10000));
    }
    if (srv.exit_code != 0) {
        char *log = slurp(srv.log);
        cr_log_error("server log:\n%s", log);
        free(log);
    }
    return srv.exit_code;
}

/* SIGTERM, then waits (bounded) for the exit. Returns the exit code. */
static int server_stop(void)
{
    if (srv.pid)
        kill(srv.pid, SIGTERM);
    return server_wait();
}

/* ---- clients ---- */

typedef struct cli {
    ddz_wsc *ws;
    char name[32];
    char resume[80];            /* from welcome */
    int seat;                   /* from joined: 0..2, or -1 (spectator, none) */
    bool bidder;                /* bids the highest legal value, else 0 */
    bool act;                   /* acts on its own turns in run() */
    uint64_t hand;              /* own cards as tracked from game, leftover, played */
    int played;                 /* `played` frames seen in the current game */
    const ddz_event_turn *turn; /* the latest turn, of an event or a state (borrowed) */
    const ddz_event_over *over; /* the `over` of the current game, NULL before */
    const ddz_event_game *game; /* the latest `game` */
    int acted;                  /* seq of the last turn it answered, -1 if none */
} cli;

#define MAX_CLIENTS 64
static cli *clients[MAX_CLIENTS]; /* every client of the test, freed in fini */

static void out_line(json_t *line)
{
    if (!frames_out) {
        json_decref(line);
        return;
    }
    char *s = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    if (s) {
        fprintf(frames_out, "%s\n", s);
        fflush(frames_out);
    }
    free(s);
}

/* Writes `c`'s frames to DDZ_FRAMES_OUT, closes and frees it. */
static void cli_close(cli *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < ddz_wsc_nframes(c->ws); i++)
        out_line(json_pack("{s:s, s:O}", "dir", "in", "frame", ddz_wsc_frame(c->ws, i)));
    ddz_wsc_close(c->ws);
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (clients[i] == c)
            clients[i] = NULL;
    free(c);
}

/* Like cli_close(), after asserting that every frame `c` received, read or
 * not, kept the codec's contract (wsclient.h). */
static void cli_free(cli *c)
{
    if (c)
        cr_assert_null(ddz_wsc_contract(c->ws), "%s: %s", c->name, ddz_wsc_contract(c->ws));
    cli_close(c);
}

static cli *cli_connect(void)
{
    char err[256];
    ddz_wsc *ws = ddz_wsc_connect("127.0.0.1", srv.port, "/ws", T(5000), err, sizeof err);
    cr_assert_not_null(ws, "connect: %s", err);
    cli *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->ws = ws;
    c->seat = -1;
    c->act = true;
    c->acted = -1;
    int i = 0;
    while (i < MAX_CLIENTS && clients[i])
        i++;
    cr_assert_lt(i, MAX_CLIENTS);
    clients[i] = c;
    return c;
}

/* Sends a well-formed request (stolen). */
static void cli_send(cli *c, json_t *msg)
{
    cr_assert_not_null(msg);
    out_line(json_pack("{s:s, s:O}", "dir", "out", "frame", msg));
    int rc = ddz_wsc_send_json(c->ws, msg);
    cr_assert_eq(rc, 0, "%s: send failed (%d)", c->name, rc);
}

/* Sends a request that is malformed on purpose. */
static void cli_send_bad(cli *c, const char *text)
{
    out_line(json_pack("{s:s, s:s}", "dir", "bad", "text", text));
    int rc = ddz_wsc_send(c->ws, text);
    cr_assert_eq(rc, 0, "%s: send failed (%d)", c->name, rc);
}

/* `e` as the server sends it, for failure messages (static buffer). */
static const char *show(const ddz_event *e)
{
    static char buf[4096];
    char *s = ddz_msg_dump(ddz_event_print(e));
    snprintf(buf, sizeof buf, "%s", s ? s : "(cannot print)");
    free(s);
    return buf;
}

static const char *show_turn(const ddz_event_turn *t)
{
    ddz_event e = {.type = DDZ_EVENT_TURN, .turn = *t};
    return show(&e);
}

static const char *show_over(const ddz_event_over *o)
{
    ddz_event e = {.type = DDZ_EVENT_OVER, .over = *o};
    return show(&e);
}

/* Whether two `over` values are the same event. */
static bool over_equal(const ddz_event_over *a, const ddz_event_over *b)
{
    ddz_event x = {.type = DDZ_EVENT_OVER, .over = *a}, y = {.type = DDZ_EVENT_OVER, .over = *b};
    return ddz_event_equal(&x, &y);
}

/* The first term of `kind` in o's breakdown (about `seat`, or any seat
 * when -1); fails the test when there is none. */
static const ddz_term *over_term(const ddz_event_over *o, int kind, int seat)
{
    for (int i = 0; i < o->nterms; i++)
        if (o->terms[i].kind == kind && (seat < 0 || o->terms[i].seat == seat))
            return &o->terms[i];
    cr_assert_fail("no term %s (seat %d): %s", ddz_term_name(kind), seat, show_over(o));
    return NULL;
}

static json_t *cards_json(uint64_t b)
{
    json_t *a = json_array();
    for (int i = 0; i < 54; i++)
        if (b >> i & 1)
            json_array_append_new(a, json_integer(i));
    return a;
}

static int rank_of(int card)
{
    return card < 52 ? card / 4 : card - 39; /* 13, 14: the jokers */
}

/* Follows what a client learns: its seat, hand, the plays, the turn. */
static void track(cli *c, const ddz_event *e)
{
    switch (e->type) {
    case DDZ_EVENT_WELCOME:
        snprintf(c->resume, sizeof c->resume, "%s", e->welcome.resume);
        break;
    case DDZ_EVENT_JOINED:
        c->seat = e->joined.seat;
        break;
    case DDZ_EVENT_GAME:
        c->game = &e->game;
        c->over = NULL;
        c->turn = NULL;
        c->played = 0;
        c->acted = -1; /* each game numbers its turns from 1 again */
        c->hand = e->game.has_hand ? e->game.hand : 0;
        break;
    case DDZ_EVENT_LEFTOVER:
        if (e->leftover.landlord == c->seat)
            c->hand |= e->leftover.cards;
        break;
    case DDZ_EVENT_PLAYED:
        c->played++;
        if (e->played.seat == c->seat) {
            cr_assert_eq(e->played.cards & ~c->hand, 0, "%s: played cards it did not hold",
                         c->name);
            c->hand &= ~e->played.cards;
        }
        break;
    case DDZ_EVENT_TURN:
        c->turn = &e->turn;
        break;
    case DDZ_EVENT_OVER:
        c->over = &e->over;
        c->turn = NULL;
        break;
    case DDZ_EVENT_STATE:
        c->seat = e->state.seat;
        if (e->state.has_hand)
            c->hand = e->state.hand;
        c->played = e->state.nhistory;
        c->turn = e->state.has_turn ? &e->state.turn : NULL;
        break;
    }
}

/* The next frame within `ms` as an event, tracked; NULL on timeout or
 * close. Asserts that the frame keeps the codec's contract: it parses
 * (every field of its schema there, with its type and range: card codes
 * 0..53 without repeats, ...) and prints back to its very bytes (keys in
 * the server's order, card lists ascending). */
static const ddz_event *cli_next(cli *c, int ms)
{
    if (!ddz_wsc_recv(c->ws, ms))
        return NULL;
    const ddz_event *e = ddz_wsc_event(c->ws, ddz_wsc_nread(c->ws) - 1);
    cr_assert_not_null(e, "%s: a frame that breaks the protocol: %s", c->name,
                       ddz_wsc_contract(c->ws));
    track(c, e);
    return e;
}

/* The last frames `c` received, for failure messages (static buffer). */
static const char *tail_of(cli *c)
{
    static char buf[4096];
    size_t n = ddz_wsc_nframes(c->ws), len = 0;
    buf[0] = '\0';
    for (size_t i = n > 6 ? n - 6 : 0; i < n && len < sizeof buf - 1; i++) {
        char *s = json_dumps(ddz_wsc_frame(c->ws, i), JSON_COMPACT | JSON_ENCODE_ANY);
        int w = snprintf(buf + len, sizeof buf - len, "\n  %.600s", s ? s : "?");
        free(s);
        if (w > 0)
            len += (size_t)w;
    }
    return buf;
}

/* The next event of `type` within T(5 s), tracking those it skips. */
static const ddz_event *cli_expect(cli *c, int type)
{
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        int64_t left = deadline - now_ms();
        const ddz_event *e = cli_next(c, left > 0 ? (int)left : 0);
        cr_assert_not_null(e, "%s: no \"%s\" frame within %d ms (closed: %d); last frames:%s",
                           c->name, ddz_event_name(type), T(5000), ddz_wsc_closed(c->ws),
                           tail_of(c));
        if (e->type == type)
            return e;
    }
}

/* Expects an error event with `code` (DDZ_E...) about a request of type
 * `about` (enum ddz_req_type; 0: about none). Its message is text: the
 * codec reads no error without one. */
static const ddz_event_error *expect_error(cli *c, int code, int about)
{
    const ddz_event *e = cli_expect(c, DDZ_EVENT_ERROR);
    cr_assert_eq(e->error.code, code, "%s: %s expected, got %s", c->name, ddz_errname(code),
                 show(e));
    if (about)
        cr_assert_eq(e->error.about, about, "%s: error about %s expected: %s", c->name,
                     ddz_req_name(about), show(e));
    else
        cr_assert_eq(e->error.about, 0, "%s: error about nothing expected: %s", c->name, show(e));
    return &e->error;
}

/* Connects and says hello. */
static cli *cli_hello(const char *name)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s", name);
    cli_send(c, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "name", name));
    const ddz_event *w = cli_expect(c, DDZ_EVENT_WELCOME);
    cr_assert_eq(w->welcome.version, 1);
    cr_assert_str_eq(w->welcome.name, name);
    cr_assert_eq(strlen(c->resume), 64, "resume token: %s", show(w));
    return c;
}

/* Creates a room with `opts` (stolen) at `seat`; returns its id (static). */
static const char *cli_create(cli *c, json_t *opts, int seat)
{
    cli_send(c, json_pack("{s:s, s:o, s:i}", "type", "create", "options", opts, "seat", seat));
    const ddz_event *j = cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(j->joined.seat, seat);
    static char room[4][DDZ_EVENT_ROOM_ID_MAX];
    static int k;
    char *id = room[k++ % 4];
    snprintf(id, DDZ_EVENT_ROOM_ID_MAX, "%s", j->joined.room);
    cr_assert_eq(strlen(id), 8, "room id: %s", show(j));
    const ddz_event *s = cli_expect(c, DDZ_EVENT_STATE);
    cr_assert_str_eq(s->state.room, id);
    return id;
}

static void cli_join(cli *c, const char *room, int want_seat)
{
    json_t *q = json_pack("{s:s, s:s}", "type", "join", "room", room);
    if (want_seat >= 0)
        json_object_set_new(q, "seat", json_integer(want_seat));
    cli_send(c, q);
    const ddz_event *j = cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_str_eq(j->joined.room, room);
    if (want_seat >= 0)
        cr_assert_eq(j->joined.seat, want_seat);
    cli_expect(c, DDZ_EVENT_STATE);
}

/* Answers a turn that carries `legal`. */
static void act(cli *c, const ddz_event_turn *turn)
{
    bool bid = turn->action == DDZ_EVENT_ACT_BID;
    cr_assert(turn->has_legal && (bid ? turn->legal_bids != 0 : turn->nlegal > 0),
              "%s: turn without legal: %s", c->name, show_turn(turn));
    int seq = (int)turn->seq;
    c->acted = seq;
    if (bid) {
        int b = c->bidder ? 31 - __builtin_clz(turn->legal_bids) : 0; /* the highest, or 0 */
        cli_send(c, json_pack("{s:s, s:i, s:i}", "type", "bid", "seq", seq, "bid", b));
    } else {
        ddz_cards cards = turn->legal[0];
        cr_assert_eq(cards & ~c->hand, 0, "%s: legal play of cards not held", c->name);
        cli_send(c, json_pack("{s:s, s:i, s:o}", "type", "play", "seq", seq, "cards",
                              cards_json(cards)));
    }
}

static bool my_turn(const cli *c, const ddz_event_turn *turn)
{
    return turn && turn->has_legal && turn->seat == c->seat;
}

typedef bool (*stop_fn)(cli *c, const ddz_event *e, void *ctx);

/* Answers the turn `c` holds if it is its own and not yet answered (a turn
 * consumed by cli_expect(), or the one in a resumed state). */
static void act_pending(cli *c)
{
    if (c->act && c->turn && my_turn(c, c->turn) && (int)c->turn->seq != c->acted)
        act(c, c->turn);
}

/* Forgets the `over` of the previous game. */
static void reset_over(cli **cs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cs[i]->over = NULL;
}

/* Services every client, each acting on its own turns, until `stop` (may
 * be NULL) says so for an event (returns that client's index) or every
 * client has seen `over` (returns -1). Bounded by `ms`. */
static int run(cli **cs, size_t n, stop_fn stop, void *ctx, int ms)
{
    ddz_wsc *ws[16];
    cr_assert_leq(n, 16);
    int64_t deadline = now_ms() + ms;
    for (size_t i = 0; i < n; i++)
        act_pending(cs[i]);
    for (;;) {
        size_t done = 0;
        for (size_t i = 0; i < n; i++)
            done += cs[i]->over != NULL;
        if (done == n)
            return -1;
        for (size_t i = 0; i < n; i++) /* a client done with its game waits */
            ws[i] = cs[i]->over ? NULL : cs[i]->ws;
        int64_t left = deadline - now_ms();
        int i = ddz_wsc_wait_any(ws, n, left > 0 ? (int)left : 0);
        if (i < 0)
            for (size_t k = 0; k < n; k++)
                cr_log_error("%s (seat %d) last frames:%s", cs[k]->name, cs[k]->seat,
                             tail_of(cs[k]));
        cr_assert_geq(i, 0, "the game made no progress within %d ms", ms);
        cli *c = cs[i];
        const ddz_event *e = cli_next(c, 0);
        cr_assert_not_null(e);
        if (stop && stop(c, e, ctx))
            return i;
        if (e->type == DDZ_EVENT_TURN)
            act_pending(c);
    }
}

/* ---- records ---- */

/* GETs `path`; the body is malloc'd. Asserts the request itself works. */
static char *http_get(const char *path, int *status)
{
    char *body;
    int rc = ddz_wsc_http_get("127.0.0.1", srv.port, path, T(5000), status, &body);
    cr_assert_eq(rc, 0, "GET %s failed (%d)", path, rc);
    return body;
}

/* GETs `path`, asserts the status is `want_status` and the body JSON;
 * returns it (the caller's). */
static json_t *http_json(const char *path, int want_status)
{
    int status = 0;
    char *body = http_get(path, &status);
    cr_assert_eq(status, want_status, "GET %s: %d %s", path, status, body ? body : "");
    json_error_t e;
    json_t *j = json_loads(body ? body : "", 0, &e);
    cr_assert_not_null(j, "GET %s: not JSON: %s", path, body ? body : "");
    free(body);
    return j;
}

/* The value of the sample `name` (with its labels, as printed) at
 * /metrics; -1 if absent. */
static double metric_value(const char *name)
{
    int status;
    char *body = http_get("/metrics", &status);
    cr_assert_eq(status, 200);
    double v = -1;
    size_t n = strlen(name);
    for (char *line = body; line && *line;) {
        if (strncmp(line, name, n) == 0 && line[n] == ' ') {
            v = strtod(line + n + 1, NULL);
            break;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    free(body);
    return v;
}

/* metric_value() of a counter or gauge. */
static long metric(const char *name)
{
    return (long)metric_value(name);
}

/* Waits (bounded by `ms`) until metric `name` is `want`; returns the last
 * value. */
static long metric_becomes(const char *name, long want, int ms)
{
    int64_t deadline = now_ms() + ms;
    long v;
    while ((v = metric(name)) != want && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    return v;
}

/* The stored record of game `id`, under its link key `key` if not "" (a
 * private or password room's game): the store writes on its own thread, so
 * a game just over may take a moment to be served. Bounded. */
static json_t *fetch_game(long long id, const char *key)
{
    char path[128];
    snprintf(path, sizeof path, "/api/games/%lld%s%s", id, key[0] ? "-" : "", key);
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        int status;
        char *body = http_get(path, &status);
        if (status == 200) {
            json_error_t je;
            json_t *rec = json_loads(body, 0, &je);
            cr_assert_not_null(rec, "GET %s: not JSON: %s", path, body);
            free(body);
            return rec;
        }
        cr_assert_eq(status, 404, "GET %s: status %d: %s", path, status, body);
        free(body);
        cr_assert_lt(now_ms(), deadline, "GET %s: still 404 after %d ms", path, T(5000));
        poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
}

/* Runs `ddz ARGS...` and returns its exit status; stdout into *out. */
static int run_ddz(char **out, const char *a1, const char *a2, const char *a3, const char *a4)
{
    char path[160];
    snprintf(path, sizeof path, "%s/cmd.out", srv.dir);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, 1);
        execl(DDZ_BIN, "ddz", a1, a2, a3, a4, (char *)NULL);
        _exit(127);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    *out = slurp(path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The record of `over` is served (under its key if it has one), matches it
 * and `ddz verify` accepts it. */
static void check_record(const ddz_event_over *over)
{
    long long id = over->game_id;
    cr_assert_gt(id, 0, "over without a game_id: %s", show_over(over));
    json_t *rec = fetch_game(id, over->game_key);
    ddz_record r;
    char err[200];
    cr_assert_eq(ddz_record_from_json(rec, &r, err, sizeof err), 0, "record %lld: %s", id, err);
    cr_assert_eq(memcmp(r.seed, over->seed, sizeof r.seed), 0);
    cr_assert_eq(memcmp(r.commit, over->commit, sizeof r.commit), 0);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(r.scores[s], over->scores[s], "record %d vs over %d (seat %d)", r.scores[s],
                     over->scores[s], s);
        cr_assert_eq(r.deal.hand[s], over->dealt[s]);
    }
    cr_assert_eq(r.deal.leftover, over->leftover);
    cr_assert_null(json_object_get(rec, "aborted"));
    /* served with the terms of its `over`, computed again from the record */
    ddz_term terms[DDZ_TERMS_MAX];
    int nterms = 0;
    cr_assert_eq(ddz_terms_parse(json_object_get(rec, "terms"), terms, &nterms, err, sizeof err), 0,
                 "record %lld: terms: %s", id, err);
    cr_assert(ddz_terms_equal(terms, nterms, over->terms, over->nterms),
              "record %lld: its terms are not the over's: %s", id, show_over(over));
    char path[160];
    snprintf(path, sizeof path, "%s/rec-%lld.jsonl", srv.dir, id);
    cr_assert_eq(json_dump_file(rec, path, JSON_COMPACT), 0);
    json_decref(rec);
    char *out;
    int rc = run_ddz(&out, "verify", path, NULL, NULL);
    cr_assert_eq(rc, 0, "ddz verify: exit %d: %s", rc, out);
    cr_assert_str_eq(out, "1 records verified\n");
    free(out);
}

/* `over` is complete and consistent: zero-sum scores, hands as dealt (the
 * codec has checked the card codes, the counts and the seed's 64 hex
 * digits). */
static void check_over(const ddz_event_over *over)
{
    long long sum = 0;
    for (int s = 0; s < 3; s++)
        sum += over->scores[s];
    cr_assert_eq(sum, 0, "scores do not sum to 0: %s", show_over(over));
    uint64_t all = over->leftover;
    for (int s = 0; s < 3; s++) {
        uint64_t d = over->dealt[s];
        cr_assert_eq(__builtin_popcountll(d), 17);
        cr_assert_eq(all & d, 0);
        all |= d;
    }
    cr_assert_eq(all, (1ULL << 54) - 1, "dealt hands and leftover are not the deck");
}

static json_t *opts(int games, int pause, int time)
{
    return json_pack("{s:i, s:i, s:i}", "games", games, "pause", pause, "time", time);
}

/* ---- fixtures ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The fixture without the server: a test that sets serve_extra or
 * serve_nofile first starts it itself with server_start(). */
static void setup_no_server(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(srv.dir, sizeof srv.dir, "/tmp/ddz-test-serve-XXXXXX");
    cr_assert_not_null(mkdtemp(srv.dir));
    snprintf(srv.db, sizeof srv.db, "%s/ddz.db", srv.dir);
    snprintf(srv.log, sizeof srv.log, "%s/server.log", srv.dir);
    const char *out = getenv("DDZ_FRAMES_OUT");
    frames_out = out && *out ? fopen(out, "a") : NULL;
}

static void setup(void)
{
    setup_no_server();
    server_start();
}

static void teardown(void)
{
    /* Criterion does not count an assertion that fails here: a frame that
     * broke the contract and that no step of the test read is logged. */
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (clients[i] && ddz_wsc_contract(clients[i]->ws))
            cr_log_error("%s: %s", clients[i]->name, ddz_wsc_contract(clients[i]->ws));
        cli_close(clients[i]);
    }
    if (srv.pid) {
        kill(srv.pid, SIGKILL);
        reap_within(T(5000));
    }
    if (frames_out)
        fclose(frames_out);
    frames_out = NULL;
    nftw(srv.dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

#endif
