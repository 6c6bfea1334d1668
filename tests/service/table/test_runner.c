/* test_runner.c - the one game flow, in-process, with scripted seats on
 * the poll loop: what a driver (a room, ddz match) can count on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "rules/movegen.h"
#include "service/match/loop_poll.h"
#include "service/table/runner.h"

enum how { LOWEST, ILLEGAL, SILENT, FAIL_ON_DEAL };

typedef struct fake {
    ddz_seat base;
    int how;        /* enum how */
    char log[8192]; /* what it was told, one event per line */
    size_t len;
    int asks, cancels, verdict;
} fake;

static void note(fake *f, const char *fmt, const ddz_ev *ev)
{
    char line[200];
    ddz_ev_format(ev, line, sizeof line);
    f->len += (size_t)snprintf(f->log + f->len, sizeof f->log - f->len, fmt, line);
}

static void f_deliver(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    fake *f = (fake *)s;
    (void)t;
    note(f, "%s\n", ev);
    if (ev->kind == DDZ_EV_GAME && f->how == FAIL_ON_DEAL)
        s->host.fault(s->host.ctx, s, DDZ_FAULT_CRASH, ev->game, "cannot start");
}

static void f_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    fake *f = (fake *)s;
    note(f, "asked: %s\n", ev);
    f->asks++;
    if (f->how == SILENT)
        return;
    const ddz_game *g = ddz_table_state(t);
    int bid = 0;
    ddz_cards cards = 0;
    if (f->how == ILLEGAL) {
        bid = 9;
        cards = DDZ_CARDS_ALL & ~g->hand[ev->seat]; /* not held */
    } else if (ev->kind == DDZ_EV_ASK_PLAY) {
        ddz_move m[DDZ_MOVES_MAX];
        int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[ev->seat]),
                            ddz_game_leading(g) ? NULL : &g->last, m, DDZ_MOVES_MAX);
        cards = ddz_cards_pick(g->hand[ev->seat], m[n - 1].ranks); /* the pass when following */
    }
    f->verdict = s->host.act(s->host.ctx, s, ev->kind, ev->seq, bid, cards);
}

static void f_cancel(ddz_seat *s)
{
    ((fake *)s)->cancels++;
}

static const char *f_name(const ddz_seat *s)
{
    (void)s;
    return "fake";
}

static void f_close(ddz_seat *s)
{
    (void)s; /* the test owns its fakes */
}

static const ddz_seat_ops fake_ops = {
    .kind = "test",
    .deliver = f_deliver,
    .ask = f_ask,
    .cancel = f_cancel,
    .name = f_name,
    .close = f_close,
};

typedef struct world {
    ddz_loop *loop;
    ddz_runner *run;
    fake seat[3];
    ddz_record last;
    int overs;
    char events[16384]; /* what the driver heard */
    size_t len;
} world;

static void on_over(void *ctx, const ddz_record *r)
{
    world *w = ctx;
    w->last = *r;
    w->overs++;
}

static void on_event(void *ctx, const ddz_ev *ev)
{
    world *w = ctx;
    char line[200];
    ddz_ev_format(ev, line, sizeof line);
    w->len += (size_t)snprintf(w->events + w->len, sizeof w->events - w->len, "%s\n", line);
}

static void setup(world *w, const int how[3], bool program, int time_ms)
{
    memset(w, 0, sizeof *w);
    w->loop = ddz_poll_loop_create();
    ddz_runner_cb cb = {.ctx = w, .over = on_over, .event = on_event};
    w->run = ddz_runner_create(w->loop, &cb);
    ddz_table_cfg tc = {.deals = 2, .time_ms = time_ms};
    cr_assert_eq(ddz_runner_series(w->run, &tc), 0);
    for (int p = 0; p < 3; p++) {
        w->seat[p].base = (ddz_seat){.ops = &fake_ops, .loop = w->loop, .program = program};
        w->seat[p].how = how[p];
        ddz_runner_seat(w->run, p, &w->seat[p].base);
    }
}

static void teardown(world *w)
{
    ddz_runner_destroy(w->run);
    ddz_poll_loop_destroy(w->loop);
}

Test(runner, a_program_is_charged_for_an_illegal_answer_at_once)
{
    world w;
    setup(&w, (int[]){ILLEGAL, LOWEST, LOWEST}, true, 60000);
    cr_assert_eq(ddz_runner_start(w.run), 0);
    cr_assert_eq(w.overs, 1, "the game ended without waiting for the clock");
    cr_assert_eq(w.seat[0].verdict, DDZ_EBID);
    cr_assert_eq(w.last.fault_seat, 0);
    cr_assert_eq(w.last.fault_kind, DDZ_FAULT_ILLEGAL);
    teardown(&w);
}

Test(runner, a_person_may_try_again)
{
    world w;
    setup(&w, (int[]){ILLEGAL, LOWEST, LOWEST}, false, 60000);
    cr_assert_eq(ddz_runner_start(w.run), 0);
    cr_assert_eq(w.seat[0].verdict, DDZ_EBID);
    cr_assert_eq(w.overs, 0, "a person's misclick is no fault");
    cr_assert(ddz_table_running(ddz_runner_table(w.run)));
    /* the same request, answered properly now */
    ddz_ev ask = {0};
    const char *p = strstr(w.events, "all ask A bid seq ");
    cr_assert(p);
    ask.seq = (uint32_t)atoi(p + strlen("all ask A bid seq "));
    cr_assert_eq(ddz_runner_act(w.run, &w.seat[0].base, DDZ_EV_ASK_BID, ask.seq, 0, 0), 0);
    cr_assert_eq(w.seat[1].asks, 1);
    teardown(&w);
}

Test(runner, everyone_hears_the_same_order_when_a_seat_fails_while_dealt)
{
    world w;
    setup(&w, (int[]){LOWEST, FAIL_ON_DEAL, LOWEST}, true, 60000);
    cr_assert_eq(ddz_runner_start(w.run), 0);
    cr_assert_eq(w.overs, 1);
    cr_assert_eq(w.last.fault_seat, 1);
    cr_assert_eq(w.last.fault_kind, DDZ_FAULT_CRASH);
    /* the public events each seat heard, after its own start, are the
     * same and end with the fault */
    for (int p = 0; p < 3; p++) {
        const char *after = strchr(w.seat[p].log, '\n') + 1;
        cr_assert(strstr(after, "all over fault B crash\n"), "seat %d: %s", p, w.seat[p].log);
        cr_assert(strstr(w.seat[p].log, "seat") && !strstr(after, " game "),
                  "only its own start: %s", w.seat[p].log);
    }
    cr_assert_eq(w.seat[0].cancels, 1, "the seat asked first is told the request is void");
    teardown(&w);
}

Test(runner, the_clock_charges_a_silent_seat_and_cancels_its_request)
{
    world w;
    setup(&w, (int[]){LOWEST, SILENT, LOWEST}, true, 50);
    cr_assert_eq(ddz_runner_start(w.run), 0);
    cr_assert_eq(w.seat[1].asks, 1);
    for (int i = 0; i < 100 && w.overs == 0; i++)
        ddz_poll_loop_once(w.loop, 100);
    cr_assert_eq(w.overs, 1, "the clock ran out");
    cr_assert_eq(w.last.fault_seat, 1);
    cr_assert_eq(w.last.fault_kind, DDZ_FAULT_TIMEOUT);
    cr_assert_eq(w.seat[1].cancels, 1);
    cr_assert(ddz_runner_idle(w.run));
    teardown(&w);
}

Test(runner, a_seat_that_takes_over_answers_the_open_request)
{
    world w;
    setup(&w, (int[]){SILENT, LOWEST, LOWEST}, true, 60000);
    cr_assert_eq(ddz_runner_start(w.run), 0);
    cr_assert_eq(w.seat[0].asks, 1);
    fake ai = {.base = {.ops = &fake_ops, .loop = w.loop, .program = true}, .how = LOWEST};
    ddz_seat *old = ddz_runner_unseat(w.run, 0);
    cr_assert_eq(old, &w.seat[0].base);
    cr_assert_eq(w.seat[0].cancels, 1, "the old seat's request is void");
    ddz_runner_seat(w.run, 0, &ai.base);
    cr_assert_eq(ai.asks, 0, "placing a seat asks nothing by itself");
    ddz_runner_reask(w.run, 0);
    cr_assert_eq(ai.asks, 1);
    cr_assert_eq(ai.verdict, 0);
    cr_assert_eq(w.seat[1].asks, 1, "the game went on");
    cr_assert_eq(ddz_runner_act(w.run, &w.seat[0].base, DDZ_EV_ASK_PLAY, 1, 0, 0), DDZ_ESTALE,
                 "a seat that was replaced answers nothing");
    teardown(&w);
}

Test(runner, a_whole_series_adds_up)
{
    world w;
    setup(&w, (int[]){LOWEST, LOWEST, LOWEST}, true, 60000);
    long long sum[3] = {0};
    while (!ddz_table_done(ddz_runner_table(w.run))) {
        cr_assert_eq(ddz_runner_start(w.run), 0);
        cr_assert(ddz_runner_idle(w.run));
        for (int s = 0; s < 3; s++)
            sum[s] += w.last.scores[s];
        cr_assert_str_eq(w.last.names[0], "fake");
    }
    cr_assert_eq(w.overs, 2);
    cr_assert(strstr(w.events, "all series\n"));
    for (int p = 0; p < 3; p++)
        cr_assert_eq(ddz_table_total(ddz_runner_table(w.run), p), sum[p]);
    cr_assert_eq(ddz_runner_start(w.run), DDZ_EPHASE);
    teardown(&w);
}
