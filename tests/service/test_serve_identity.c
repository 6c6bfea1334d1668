/* test_serve_identity.c - who a client is and where it sits (spec §13,
 * "Identity" and "One seat"), tried as an attacker with one bot token
 * would: a bot is its token (its name is the token's, a resume of a bot
 * checks the token again, a second connection with the token is the same
 * participant), a player sits at one table at a time (enlisting leaves a
 * casual room first), and revoking a token ends the bot's connection and
 * enlistment at once. */
#include "serve_harness.h"
#include "bot_procs.h"

/* Connects and says hello with `token` (NULL: none) and `resume` (NULL:
 * none) as `name`; returns the client without reading the answer. */
static cli *hello_as(const char *name, const char *token, const char *resume)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s", name);
    json_t *q = json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "name", name);
    if (token)
        json_object_set_new(q, "token", json_string(token));
    if (resume)
        json_object_set_new(q, "resume", json_string(resume));
    cli_send(c, q);
    return c;
}

/* A bot's hello that must be welcomed as `want` (a bot); returns it. */
static cli *bot_hello(const char *name, const char *token, const char *resume, const char *want)
{
    cli *c = hello_as(name, token, resume);
    const ddz_event *w = cli_expect(c, DDZ_EVENT_WELCOME);
    cr_assert(w->welcome.bot, "%s: welcomed as a person: %s", name, show(w));
    cr_assert_str_eq(w->welcome.name, want, "%s: welcomed under another name: %s", name, show(w));
    return c;
}

/* Reads `c` until the connection closes (within T(5 s)); returns whether
 * an error with `code` came before. */
static bool closed_after_error(cli *c, int code)
{
    bool seen = false;
    int64_t deadline = now_ms() + T(5000);
    while (now_ms() < deadline) {
        const ddz_event *e = cli_next(c, (int)(deadline - now_ms()));
        if (!e)
            return ddz_wsc_closed(c->ws) && seen;
        seen |= e->type == DDZ_EVENT_ERROR && e->error.code == code;
    }
    return false;
}

/* GET /api/ladder's entry of `name` (a new reference), or NULL. */
static json_t *ladder_entry(const char *name)
{
    int status;
    char *body = http_get("/api/ladder", &status);
    cr_assert_eq(status, 200, "%s", body);
    json_t *j = json_loads(body, 0, NULL);
    free(body);
    cr_assert_not_null(j);
    json_t *found = NULL, *ps = json_object_get(j, "players");
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
            found = json_incref(p);
    }
    json_decref(j);
    return found;
}

static bool ladder_connected(const char *name)
{
    json_t *p = ladder_entry(name);
    bool on = p && json_is_true(json_object_get(p, "connected"));
    json_decref(p);
    return on;
}

/* A ladder of the bots and two hosted AIs; a player gone at no table is
 * kept 1 s; hosted AIs wait 100 ms before acting where people watch (a
 * watched casual room's games take seconds, not milliseconds). */
static void ladder_server(void)
{
    static const char *const extra[] = {"--ladder", "--ladder-ai",   "greedy", "--ladder-ai",
                                        "random",   "--ladder-time", "3",      "--resume-keep",
                                        "1",        "--ai-delay-ms", "100",    NULL};
    memcpy(serve_extra, extra, sizeof extra);
    server_start();
}

/* A resume without the token, with another bot's token, or a name of its
 * own: refused. With its own token, the same bot; a second connection with
 * the token takes the participant over. */
Test(serve_identity, a_bot_is_its_token, .init = setup_no_server, .fini = teardown,
     .timeout = HANG(60))
{
    char ta[80], tb[80];
    token_add("alpha", ta);
    token_add("beta", tb);
    server_start();
    cli *a = bot_hello("alpha", ta, NULL, "alpha");
    char resume[80], id[16];
    snprintf(resume, sizeof resume, "%s", a->resume);
    snprintf(id, sizeof id, "%s", ddz_wsc_event(a->ws, 0)->welcome.id);
    cli_close(a);

    /* alpha's resume token without a token, naming itself beta */
    cli *x = hello_as("beta", NULL, resume);
    cr_assert(closed_after_error(x, DDZ_EAUTH), "a bot resumed without its token:%s", tail_of(x));
    /* ... with beta's token */
    x = hello_as("beta", tb, resume);
    cr_assert(closed_after_error(x, DDZ_EAUTH), "a bot resumed with another's token:%s",
              tail_of(x));
    /* ... with its own: alpha again, whatever name it says */
    a = bot_hello("whoever", ta, resume, "alpha");
    cr_assert_str_eq(ddz_wsc_event(a->ws, 0)->welcome.id, id, "not the same player");
    /* a second connection with alpha's token, no resume: the same
     * participant, and the first connection is told and closed */
    cli *a2 = bot_hello("alpha2", ta, NULL, "alpha");
    cr_assert_str_eq(ddz_wsc_event(a2->ws, 0)->welcome.id, id, "one token, two participants");
    cr_assert(closed_after_error(a, DDZ_EAUTH), "the first connection stayed:%s", tail_of(a));
    /* a person resuming a bot's player, or naming itself as a bot: a
     * person still (a person's name is only shown; it may change it) */
    cli *p = hello_as("alpha", NULL, NULL);
    const ddz_event *w = cli_expect(p, DDZ_EVENT_WELCOME);
    cr_assert_not(w->welcome.bot, "%s", show(w));
    cr_assert_str_neq(w->welcome.id, id, "a person became the bot: %s", show(w));
    cr_assert_eq(server_stop(), 0);
}

/* A bot seated in a casual room that enlists for the ladder leaves the
 * room first; when it drops and its player is let go, the room (played on
 * by a hosted AI for it) never reaches the freed player: under ASan this
 * was a use after free. */
Test(serve_identity, a_bot_sits_at_one_table, .init = setup_no_server, .fini = teardown,
     .timeout = HANG(120))
{
    char ta[80];
    token_add("alpha", ta);
    ladder_server();
    cli *bot = bot_hello("alpha", ta, NULL, "alpha");
    bot->act = false; /* it never plays in the casual room */
    json_t *o = opts(50, 0, 3);
    json_object_set_new(o, "bots", json_true());
    json_object_set_new(o, "fill", json_string("ai:greedy"));
    const char *room = cli_create(bot, o, 0);
    cli *w = cli_hello("watcher");
    cli_send(w, json_pack("{s:s, s:s}", "type", "spectate", "room", room));
    cli_expect(w, DDZ_EVENT_JOINED);
    cli_expect(w, DDZ_EVENT_STATE);

    cli_send(bot, json_pack("{s:s, s:s}", "type", "enlist", "competition", "ladder"));
    const ddz_event *j = cli_expect(bot, DDZ_EVENT_JOINED);
    cr_assert_str_eq(j->joined.room, "", "enlisted without leaving its room: %s", show(j));
    cli_expect(bot, DDZ_EVENT_ENLISTED);
    /* the watcher sees seat 0 go to a hosted AI */
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        const ddz_event *e = cli_next(w, (int)(deadline - now_ms()));
        cr_assert_not_null(e, "seat 0 stayed the bot's:%s", tail_of(w));
        if (e->type == DDZ_EVENT_SEAT && e->seat.seat == 0) {
            cr_assert_neq(e->seat.player.kind, DDZ_EVENT_BOT, "%s", show(e));
            break;
        }
    }
    /* it plays at the ladder, then drops; once its player is let go (after
     * --resume-keep 1), the casual room goes on */
    bot->act = true;
    deadline = now_ms() + T(30000);
    while (!ladder_connected("alpha")) {
        cr_assert_lt(now_ms(), deadline, "alpha never connected at the ladder");
        cli_next(bot, 100);
    }
    cli_close(bot);
    cr_assert_eq(metric_becomes("ddz_players", 1, T(30000)), 1, "the bot's player was kept");
    /* two more games of the casual room end after the player is gone (the
     * answer to a `list` comes after every frame sent before it) */
    cli_send(w, json_pack("{s:s}", "type", "list"));
    cli_expect(w, DDZ_EVENT_ROOMS);
    int overs = 0;
    deadline = now_ms() + T(60000);
    while (overs < 2) {
        const ddz_event *e = cli_next(w, (int)(deadline - now_ms()));
        cr_assert_not_null(e, "the casual room stopped:%s", tail_of(w));
        overs += e->type == DDZ_EVENT_OVER;
    }
    cr_assert(healthy());
    cr_assert_eq(server_stop(), 0, "the server failed (a sanitizer report?)");
    char *log = slurp(srv.log);
    cr_assert_null(strstr(log, "AddressSanitizer"), "%s", log);
    free(log);
}

/* `ddz token revoke` while the bot is enlisted: its connection is told
 * and closed, it leaves the ladder, and neither its resume nor its token
 * opens it again. */
Test(serve_identity, a_revoked_token_ends_everything, .init = setup_no_server, .fini = teardown,
     .timeout = HANG(90))
{
    char ta[80];
    token_add("alpha", ta);
    ladder_server();
    cli *bot = bot_hello("alpha", ta, NULL, "alpha");
    char resume[80];
    snprintf(resume, sizeof resume, "%s", bot->resume);
    cli_send(bot, json_pack("{s:s, s:s}", "type", "enlist", "competition", "ladder"));
    cli_expect(bot, DDZ_EVENT_ENLISTED);
    int64_t deadline = now_ms() + T(30000);
    while (!ladder_connected("alpha")) {
        cr_assert_lt(now_ms(), deadline, "alpha never connected at the ladder");
        cli_next(bot, 100);
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' token revoke alpha --db '%s' >/dev/null 2>&1", DDZ_BIN, srv.db);
    cr_assert_eq(system(cmd), 0);
    /* told and closed (it plays on meanwhile) */
    bool told = false;
    deadline = now_ms() + T(10000);
    while (!ddz_wsc_closed(bot->ws)) {
        cr_assert_lt(now_ms(), deadline, "a revoked bot stayed connected:%s", tail_of(bot));
        const ddz_event *e = cli_next(bot, 100);
        if (e && e->type == DDZ_EVENT_TURN && my_turn(bot, &e->turn))
            act(bot, &e->turn);
        told |= e && e->type == DDZ_EVENT_ERROR && e->error.code == DDZ_EAUTH;
    }
    cr_assert(told, "closed without a word:%s", tail_of(bot));
    deadline = now_ms() + T(10000);
    while (ladder_connected("alpha")) {
        cr_assert_lt(now_ms(), deadline, "the ladder still has alpha");
        poll(NULL, 0, 50); /* retry interval of a bounded wait */
    }
    /* its resume token names nobody now: a new person */
    cli *x = hello_as("alpha", NULL, resume);
    const ddz_event *w = cli_expect(x, DDZ_EVENT_WELCOME);
    cr_assert_not(w->welcome.bot, "a revoked bot resumed: %s", show(w));
    cr_assert_str_neq(w->welcome.resume, resume, "a revoked bot resumed: %s", show(w));
    x = hello_as("alpha", ta, resume);
    cr_assert(closed_after_error(x, DDZ_EAUTH), "a revoked token was let in:%s", tail_of(x));
    cr_assert_eq(server_stop(), 0);
}
