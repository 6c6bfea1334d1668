/* test_seat_botzone.c - the Botzone seat (service/seats/seat_botzone.c) on a
 * loop the test turns by hand, so that the order in which a bot's output,
 * its exit and the next request reach the seat is the test's choice and
 * not the scheduler's.
 *
 * The case this file was written for (issue 27): a keep-running bot that
 * answers, prints the keep-running line and exits. When the seat was asked
 * again after the process had exited but before the line was read, it
 * started the bot afresh instead of charging it (spec §11, docs/decisions.md
 * "Keep-running"): 12 of 40 runs of test_botzone's
 * fault_keep_running_then_dying counted no fault. Here that order is made
 * every time. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/engine/engine.h"
#include "service/seats/seats.h"
#include "test_clock.h"
#include "service/test_util.h"

#define TB DDZ_TESTBOT

/* ---- a loop turned by hand ---- */

enum { MAX_WATCHES = 16, MAX_TIMERS = 8 };

struct ddz_watch {
    int fd;
    bool for_write, wants, live;
    ddz_watch_cb cb;
    void *ctx;
};

typedef struct hand_loop {
    ddz_loop base;
    struct ddz_watch w[MAX_WATCHES];
    ddz_timer *timers[MAX_TIMERS];
} hand_loop;

static ddz_watch *hl_watch(ddz_loop *l, int fd, bool for_write, ddz_watch_cb cb, void *ctx)
{
    hand_loop *h = (hand_loop *)l;
    for (int i = 0; i < MAX_WATCHES; i++)
        if (!h->w[i].live) {
            h->w[i] = (struct ddz_watch){fd, for_write, false, true, cb, ctx};
            return &h->w[i];
        }
    return NULL;
}

static void hl_want_write(ddz_watch *w)
{
    w->wants = true;
}

static void hl_unwatch(ddz_watch *w)
{
    if (w)
        w->live = false;
}

static int64_t hl_now_us(ddz_loop *l);

static void hl_arm(ddz_loop *l, ddz_timer *t, int64_t delay_us)
{
    hand_loop *h = (hand_loop *)l;
    t->armed = true;
    t->due_us = hl_now_us(l) + delay_us;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (h->timers[i] == t || !h->timers[i]) {
            h->timers[i] = t;
            return;
        }
    cr_assert_fail("more timers than the hand loop holds");
}

static void hl_disarm(ddz_loop *l, ddz_timer *t)
{
    hand_loop *h = (hand_loop *)l;
    t->armed = false;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (h->timers[i] == t)
            h->timers[i] = NULL;
}

static int64_t hl_now_us(ddz_loop *l)
{
    (void)l;
    return now_ms() * 1000;
}

static const ddz_loop_ops hand_ops = {hl_watch, hl_want_write, hl_unwatch,
                                      hl_arm,   hl_disarm,     hl_now_us};

/* Runs every due callback once: writable watches that asked, readable ones
 * whose descriptor is ready (or closed), then armed timers. Returns how
 * many ran. */
static int turn(hand_loop *h, int wait_ms)
{
    struct pollfd p[MAX_WATCHES];
    ddz_watch *of[MAX_WATCHES];
    int n = 0, ran = 0;
    for (int i = 0; i < MAX_WATCHES; i++) {
        ddz_watch *w = &h->w[i];
        if (!w->live || (w->for_write && !w->wants))
            continue;
        p[n] = (struct pollfd){w->fd, w->for_write ? POLLOUT : POLLIN, 0};
        of[n++] = w;
    }
    if (!n)
        poll(NULL, 0, 1); /* only timers: let the clock move */
    if (n && poll(p, (nfds_t)n, wait_ms) > 0)
        for (int i = 0; i < n; i++)
            if (p[i].revents && of[i]->live) {
                of[i]->wants = false;
                of[i]->cb(of[i]->ctx, of[i]->for_write);
                ran++;
            }
    for (int i = 0; i < MAX_TIMERS; i++) {
        ddz_timer *t = h->timers[i];
        if (t && t->armed && t->due_us <= hl_now_us(&h->base)) {
            h->timers[i] = NULL;
            t->armed = false;
            t->cb(t);
            ran++;
        }
    }
    return ran;
}

/* ---- a host that writes down what the seat says ---- */

typedef struct host_log {
    int acts, faults, fault_kind;
    char why[300];
} host_log;

static int h_act(void *ctx, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards)
{
    (void)s, (void)action, (void)seq, (void)bid, (void)cards;
    ((host_log *)ctx)->acts++;
    return 0;
}

static void h_fault(void *ctx, ddz_seat *s, int kind, int game, const char *why)
{
    host_log *l = ctx;
    (void)s, (void)game;
    l->faults++;
    l->fault_kind = kind;
    snprintf(l->why, sizeof l->why, "%s", why);
}

static void h_note(void *ctx, ddz_seat *s, const char *msg)
{
    (void)ctx, (void)s, (void)msg;
}

static hand_loop loop;
static host_log hlog;
static long running;
static char hold[96];

static void init(void)
{
    signal(SIGPIPE, SIG_IGN); /* as every program that runs seats does */
    memset(&loop, 0, sizeof loop);
    loop.base.ops = &hand_ops;
    memset(&hlog, 0, sizeof hlog);
    running = 0;
    snprintf(hold, sizeof hold, "/tmp/ddz-test-seatbz-%d.hold", (int)getpid());
    unlink(hold);
}

static void fini(void)
{
    unlink(hold);
}

TestSuite(seat_botzone, .init = init, .fini = fini, .timeout = HANG(120));

static ddz_seat *make_seat_budget(const char *cmd, ddz_spawn_budget *room)
{
    ddz_seat_env env = {
        .loop = &loop.base, .time_ms = 3000, .engines_running = &running, .spawns_room = room};
    int err = 0;
    ddz_seat *s = ddz_seat_botzone_create(cmd, "bz", &env, &err);
    cr_assert_not_null(s, "create: %d", err);
    s->host = (ddz_seat_host){.ctx = &hlog, .act = h_act, .fault = h_fault, .note = h_note};
    s->player = 0;
    return s;
}

static ddz_seat *make_seat(const char *cmd)
{
    return make_seat_budget(cmd, NULL);
}

static void ask(ddz_seat *s, uint32_t seq)
{
    ddz_ev ev = {
        .kind = DDZ_EV_ASK_BID, .to = 0, .seat = 0, .seq = seq, .deadline_ms = now_ms() + 3000};
    s->ops->ask(s, &ev, NULL);
}

/* Turns the loop until `cond` holds, for at most T(20 s). */
#define TURN_UNTIL(cond, what)                                                                     \
    do {                                                                                           \
        int64_t until_ = now_ms() + T(20000);                                                      \
        while (!(cond)) {                                                                          \
            cr_assert_lt(now_ms(), until_, "waited too long for %s", what);                        \
            turn(&loop, 20);                                                                       \
        }                                                                                          \
    } while (0)

/* Waits (not turning the loop) until no bot process of this test runs:
 * an exited one is a zombie until the seat reaps it, and has no command
 * line. */
static void wait_bot_exited(void)
{
    int64_t until = now_ms() + T(20000);
    while (count_descendants("botzone_testbot") > 0) {
        cr_assert_lt(now_ms(), until, "the bot did not exit");
        poll(NULL, 0, 5);
    }
}

static void start_game(ddz_seat *s)
{
    ddz_ev g = {.kind = DDZ_EV_GAME, .to = 0, .seat = 0, .game = 0, .cards = 0x1ffffULL};
    s->ops->deliver(s, &g, NULL);
}

/* The bot answers its first request; the test reads that answer; the bot
 * then prints the keep-running line and exits; the seat is asked again
 * before the loop has read the line or the end of the pipe. The bot asked
 * to be kept and then died during its game: a crash, charged once. */
Test(seat_botzone, kept_bot_that_exits_before_its_line_is_read_is_charged)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "%s --keep-running --die-after-keep 1 --hold %s", TB, hold);
    ddz_seat *s = make_seat(cmd);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.acts == 1, "the first answer");
    FILE *f = fopen(hold, "w"); /* now the bot prints the line and exits */
    cr_assert_not_null(f);
    fclose(f);
    wait_bot_exited();
    ask(s, 2); /* the line and the end of the pipe are still unread */
    TURN_UNTIL(hlog.faults > 0 || hlog.acts > 1, "the second request to be settled");
    cr_assert_eq(hlog.acts, 1, "the dead bot was started afresh and answered");
    cr_assert_eq(hlog.faults, 1);
    cr_assert_eq(hlog.fault_kind, DDZ_FAULT_CRASH, "charged %s: %s",
                 ddz_fault_name(hlog.fault_kind), hlog.why);
    ddz_seat_close(s);
    cr_assert_eq(running, 0, "a bot process is still counted");
}

/* The same order with a one-shot bot, which exits after each answer as it
 * should: the second request goes to a fresh process, with no fault. */
Test(seat_botzone, one_shot_bot_asked_before_its_exit_is_read_is_started_afresh)
{
    ddz_seat *s = make_seat(TB);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.acts == 1, "the first answer");
    wait_bot_exited();
    ask(s, 2);
    TURN_UNTIL(hlog.faults > 0 || hlog.acts > 1, "the second answer");
    cr_assert_eq(hlog.faults, 0, "a one-shot bot was charged: %s", hlog.why);
    cr_assert_eq(hlog.acts, 2);
    ddz_seat_close(s);
    cr_assert_eq(running, 0);
}

/* A kept bot that exits while nobody asks it anything is charged at once
 * (it died during its game), not at its next request. */
Test(seat_botzone, kept_bot_that_exits_between_requests_is_charged_at_once)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "%s --keep-running --die-after-keep 1", TB);
    ddz_seat *s = make_seat(cmd);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.faults > 0, "the fault");
    cr_assert_eq(hlog.acts, 1);
    cr_assert_eq(hlog.faults, 1);
    cr_assert_eq(hlog.fault_kind, DDZ_FAULT_CRASH);
    ddz_seat_close(s);
}

/* ---- the spawn budget (issue 24) ---- */

/* Descriptors this process holds now. */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

/* The armed timer of this seat's that is due last: the budget's wait. */
static ddz_timer *latest_timer(void)
{
    ddz_timer *last = NULL;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (loop.timers[i] && loop.timers[i]->armed &&
            (!last || loop.timers[i]->due_us > last->due_us))
            last = loop.timers[i];
    return last;
}

/* A room that may start one bot a second: the second request of a
 * one-shot bot, asked at once, is put off (no process, no fault, one
 * refusal counted) until the budget has a token, then answered. */
Test(seat_botzone, a_start_the_budget_puts_off_waits_for_its_token)
{
    long refused = 0;
    ddz_spawn_budget room;
    ddz_spawn_budget_init(&room, 1, now_ms() * 1000, &refused);
    /* the engines' spawner thread keeps a pipe for the life of the process */
    ddz_engine_destroy(ddz_engine_spawn("true", NULL, NULL, NULL));
    cr_assert_eq(ddz_engine_settle(T(5000)), 0);
    int fds = open_fds();
    ddz_seat *s = make_seat_budget(TB, &room);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.acts == 1, "the first answer");
    wait_bot_exited();
    TURN_UNTIL(running == 0, "the first bot to be reaped");
    ask(s, 2);
    cr_assert_eq(refused, 1, "the second start was not put off");
    cr_assert_eq(running, 0, "a bot was started past the budget");
    cr_assert_eq(count_descendants("botzone_testbot"), 0);
    ddz_timer *wait = latest_timer();
    cr_assert_not_null(wait, "nothing waits for the budget");
    int64_t left = wait->due_us - now_ms() * 1000;
    cr_assert(left > 0 && left <= 1000001, "waits %lld us for a token at 1/s", (long long)left);
    TURN_UNTIL(hlog.acts == 2 || hlog.faults > 0, "the second answer");
    cr_assert_eq(hlog.faults, 0, "charged: %s", hlog.why);
    cr_assert_eq(room.taken, 2);
    ddz_seat_close(s);
    cr_assert_eq(running, 0);
    wait_bot_exited();
    cr_assert_eq(ddz_engine_settle(T(5000)), 0, "a stop did not finish");
    cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a bot is left to reap");
    cr_assert_eq(open_fds(), fds, "a descriptor leaked");
}

/* A start still waiting when the table's clock runs out (the request is
 * cancelled) never happens: no process, no fault from the seat (the table
 * charges the timeout), nothing left armed. */
Test(seat_botzone, a_start_waiting_for_the_budget_is_dropped_with_its_request)
{
    long refused = 0;
    ddz_spawn_budget room;
    ddz_spawn_budget_init(&room, 1, now_ms() * 1000, &refused);
    ddz_seat *s = make_seat_budget(TB, &room);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.acts == 1, "the first answer");
    wait_bot_exited();
    TURN_UNTIL(running == 0, "the first bot to be reaped");
    ask(s, 2);
    cr_assert_eq(refused, 1);
    s->ops->cancel(s);
    cr_assert_null(latest_timer(), "the wait for the budget is still armed");
    for (int i = 0; i < 5; i++)
        turn(&loop, 1);
    cr_assert_eq(hlog.acts, 1);
    cr_assert_eq(hlog.faults, 0);
    cr_assert_eq(room.taken, 1, "a start was made for a cancelled request");
    cr_assert_eq(count_descendants("botzone_testbot"), 0);
    ddz_seat_close(s);
    cr_assert_eq(running, 0);
}

/* A bot whose start fails (the exec of /bin/sh, here with an argument over
 * the kernel's 128 KiB) is charged a crash for the request, as before. */
Test(seat_botzone, a_start_that_fails_reaches_the_seat_as_a_crash)
{
    size_t n = 200 * 1024;
    char *cmd = malloc(n + 1);
    cr_assert_not_null(cmd);
    memcpy(cmd, "true ", 5);
    memset(cmd + 5, 'x', n - 5);
    cmd[n] = '\0';
    ddz_seat *s = make_seat(cmd);
    free(cmd);
    start_game(s);
    ask(s, 1);
    TURN_UNTIL(hlog.faults > 0, "the fault");
    cr_assert_eq(hlog.fault_kind, DDZ_FAULT_CRASH);
    /* the spawner thread reports the failed exec as the end of the bot's
     * output; the request written to its stdin may meet the closed pipe
     * first, and then the seat says so (a race, either is the crash) */
    cr_assert(strstr(hlog.why, "cannot start the bot") ||
                  strstr(hlog.why, "cannot write to the bot"),
              "%s", hlog.why);
    cr_assert_eq(running, 0);
    ddz_seat_close(s);
    cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left to reap");
}
