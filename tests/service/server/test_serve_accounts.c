/* test_serve_accounts.c - people's accounts over HTTP on a served
 * `ddz serve` (SPEC §15, service/server/accounts.h): sign-up, sign-in,
 * sign-out, a password change ending the other sessions, deletion holding
 * the name; the refusals (400 EPASSWORD, ENAME, EFIELD; 401 EAUTH the same
 * for an unknown name and a wrong password, and as slow; 409; 411; 413;
 * 405), 429 with Retry-After after ten failed passwords from one address,
 * 503 EBUSY with Retry-After past the hash pool's bound, and no password
 * or session in the server's log. Requests are plain HTTP/1.1 on a socket of the test's
 * own; the server closes each connection after its answer. */
#include <arpa/inet.h>

#include "service/serve_harness.h"
#include "service/server/accounts_http.h"
#include "service/store/store.h"

/* The server of these tests pings an idle connection only after an hour:
 * a test's WebSocket clients wait, unserviced, while its HTTP calls run
 * password hashes one after another (seconds each on a loaded machine),
 * and a client that answers no ping for the default 20 + 10 s is dropped
 * as dead, its EAUTH never sent (a full run failed so). */
static void setup_accounts(void)
{
    setup_no_server();
    serve_extra[0] = "--idle";
    serve_extra[1] = "3600";
    serve_extra[2] = NULL;
    server_start();
}

TestSuite(accounts, .init = setup_accounts, .fini = teardown);

Test(accounts, sign_up_in_and_out)
{
    char s1[65];
    sign_up("Alice", "correct horse", s1);

    reply r =
        call("POST", "/api/accounts", "{\"name\":\"aLICE\",\"password\":\"battery staple\"}", NULL);
    expect(&r, 409, "EEXIST");
    r = call("POST", "/api/accounts", "{\"name\":\"Bob\",\"password\":\"1234567\"}", NULL);
    expect(&r, 400, "EPASSWORD");
    char big[1200], body[1400];
    memset(big, 'x', 1025);
    big[1025] = '\0';
    snprintf(body, sizeof body, "{\"name\":\"Bob\",\"password\":\"%s\"}", big);
    r = call("POST", "/api/accounts", body, NULL);
    expect(&r, 400, "EPASSWORD");
    r = call("POST", "/api/accounts", "{\"name\":\"ai:strong\",\"password\":\"battery staple\"}",
             NULL);
    expect(&r, 400, "ENAME");
    r = call("POST", "/api/accounts", "{\"name\":\"Bob\"}", NULL);
    expect(&r, 400, "EFIELD");
    r = call("POST", "/api/accounts", "name=Bob", NULL);
    expect(&r, 400, "EFIELD");
    char huge[5000];
    memset(huge, ' ', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    r = call("POST", "/api/accounts", huge, NULL);
    expect(&r, 413, NULL);
    r = call("POST", "/api/accounts", NULL, NULL);
    expect(&r, 411, NULL);
    r = call("GET", "/api/accounts", NULL, NULL);
    char allow[32];
    cr_expect_str_eq(header(&r, "allow", allow, sizeof allow), "POST");
    expect(&r, 405, NULL);

    /* sign in (any case), then a wrong password and an unknown name: the
     * same status, the same body */
    r = sign_in("ALICE", "correct horse");
    char s2[65];
    field(&r, "session", s2, sizeof s2);
    cr_expect_eq(strlen(s2), 64);
    cr_expect_str_neq(s1, s2);
    expect(&r, 200, NULL);
    reply wrong = sign_in("Alice", "wrong horse"), unknown = sign_in("Nobody", "wrong horse");
    cr_expect_eq(wrong.status, 401);
    cr_expect_eq(unknown.status, 401);
    cr_expect_str_eq(wrong.body, unknown.body, "an unknown name tells itself apart");
    expect(&wrong, 401, "EAUTH");
    expect(&unknown, 401, "EAUTH");

    /* sign-out ends that session only */
    r = call("DELETE", "/api/sessions", NULL, s2);
    expect(&r, 200, NULL);
    r = call("DELETE", "/api/sessions", NULL, s2);
    expect(&r, 401, "EAUTH");
    r = call("DELETE", "/api/sessions", NULL, s1);
    expect(&r, 200, NULL);
    r = call("DELETE", "/api/sessions", NULL, NULL);
    expect(&r, 401, "EAUTH");

    /* nothing of a password or a session in the log */
    server_stop();
    FILE *f = fopen(srv.log, "r");
    cr_assert_not_null(f);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        cr_expect_null(strstr(line, "horse"), "%s", line);
        cr_expect_null(strstr(line, s1), "%s", line);
        cr_expect_null(strstr(line, s2), "%s", line);
    }
    fclose(f);
}

Test(accounts, a_password_change_ends_the_other_sessions_and_deletion_holds_the_name)
{
    char s1[65], s2[65];
    sign_up("Mei", "first password", s1);
    reply r = sign_in("mei", "first password");
    field(&r, "session", s2, sizeof s2);
    expect(&r, 200, NULL);

    r = call("POST", "/api/account/password", "{\"old\":\"wrong one\",\"new\":\"second password\"}",
             s1);
    expect(&r, 401, "EAUTH");
    r = call("POST", "/api/account/password", "{\"old\":\"first password\",\"new\":\"short\"}", s1);
    expect(&r, 400, "EPASSWORD");
    /* one connection plays under s1, one under s2 */
    cli *c1 = cli_connect(), *c2 = cli_connect();
    snprintf(c1->name, sizeof c1->name, "s1");
    snprintf(c2->name, sizeof c2->name, "s2");
    cli_send(c1, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "Mei",
                           "session", s1));
    cli_send(c2, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "Mei",
                           "session", s2));
    cli_expect(c1, DDZ_EVENT_WELCOME);
    cli_expect(c2, DDZ_EVENT_WELCOME);
    r = call("POST", "/api/account/password",
             "{\"old\":\"first password\",\"new\":\"second password\"}", s1);
    expect(&r, 200, NULL);
    expect_error(c2, DDZ_EAUTH, 0); /* s2 ended: its connection is closed */
    r = call("DELETE", "/api/sessions", NULL, s2);
    expect(&r, 401, "EAUTH"); /* s2 ended with the change */
    r = sign_in("Mei", "first password");
    expect(&r, 401, "EAUTH");
    r = sign_in("Mei", "second password");
    expect(&r, 200, NULL);

    /* deletion: the password again, then the account, its sessions, its name */
    r = call("DELETE", "/api/account", "{\"password\":\"first password\"}", s1);
    expect(&r, 401, "EAUTH");
    r = call("DELETE", "/api/account", "{\"password\":\"second password\"}", s1);
    expect(&r, 200, NULL);
    expect_error(c1, DDZ_EAUTH, 0); /* s1 kept its connection until the account went */
    r = call("DELETE", "/api/sessions", NULL, s1);
    expect(&r, 401, "EAUTH");
    r = sign_in("Mei", "second password");
    expect(&r, 401, "EAUTH");
    r = call("POST", "/api/accounts", "{\"name\":\"MEI\",\"password\":\"third password\"}", NULL);
    expect(&r, 409, "EEXIST"); /* held for 30 days */
}

/* Ten failed passwords from one address in five minutes: the eleventh
 * try is refused before any hashing, 429 with Retry-After, even with the
 * right password. */
Test(accounts, failed_passwords_are_limited)
{
    char s[65];
    sign_up("Lin", "right password", s);
    for (int i = 0; i < 10; i++) {
        reply r = sign_in(i % 2 ? "Lin" : "Nobody", "wrong password");
        expect(&r, 401, "EAUTH");
    }
    reply r = sign_in("Lin", "right password");
    char after[16];
    cr_expect_gt(atoi(header(&r, "retry-after", after, sizeof after)), 0, "%s", r.head);
    expect(&r, 429, "ERATE");
}

/* The server with sign-ups per address not limited (the test's own are
 * all from 127.0.0.1). */
static void setup_many_signups(void)
{
    setup_no_server();
    serve_extra[0] = "--signups-per-hour";
    serve_extra[1] = "100000";
    serve_extra[2] = "--idle";
    serve_extra[3] = "3600";
    serve_extra[4] = NULL;
    server_start();
}

/* Forty sign-ups at once: the pool takes 32 queued or running, the rest
 * are refused at once with 503 EBUSY and Retry-After; the others are made,
 * but for those that waited 10 s for a worker on a machine too busy to
 * hash (also 503 EBUSY, unrun: pwhash.h's max wait, its own unit test),
 * so that only "at least the eight past the bound" is certain here. */
Test(accounts, past_the_pool_bound_503, .init = setup_many_signups)
{
    enum { N = 40 };
    int fd[N];
    for (int i = 0; i < N; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"name\":\"user%d\",\"password\":\"password %d\"}", i, i);
        fd[i] = send_req("POST", "/api/accounts", body, NULL);
    }
    int made = 0, busy = 0;
    for (int i = 0; i < N; i++) {
        reply r = get_reply(fd[i]);
        if (r.status == 503) {
            char after[16];
            cr_expect_str_eq(header(&r, "retry-after", after, sizeof after), "1");
            char e[16];
            cr_expect_str_eq(field(&r, "error", e, sizeof e), "EBUSY");
            busy++;
        } else {
            cr_expect_eq(r.status, 201, "%d %s", r.status, r.body);
            made += r.status == 201;
        }
        free(r.body);
    }
    cr_expect_geq(busy, N - 32, "made %d, busy %d", made, busy);
    cr_expect_geq(made, 1, "made %d, busy %d", made, busy);
    cr_expect_eq(made + busy, N);
}

/* A body that comes after its head, in another segment: the gate waits
 * for it (within the head's deadline) before lws has the request. */
Test(accounts, a_body_sent_after_its_head)
{
    const char *body = "{\"name\":\"Kai\",\"password\":\"slow password\"}";
    char head[256];
    int n =
        snprintf(head, sizeof head,
                 "POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %zu\r\n\r\n",
                 strlen(body));
    int fd = dial();
    cr_assert_eq(send(fd, head, (size_t)n, MSG_NOSIGNAL), n);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the head alone, judged and held */
    cr_assert_eq(send(fd, body, 10, MSG_NOSIGNAL), 10);
    nanosleep(&pause, NULL);
    cr_assert_eq(send(fd, body + 10, strlen(body) - 10, MSG_NOSIGNAL), (ssize_t)strlen(body) - 10);
    reply r = get_reply(fd);
    char name[16];
    cr_expect_str_eq(field(&r, "name", name, sizeof name), "Kai");
    expect(&r, 201, NULL);
}

/* hello with an account's session plays as the account: welcome says
 * "account" and the account's name (not the hello's); an unknown or
 * ended session is refused EAUTH; a guest's welcome has no "account". */
Test(accounts, hello_with_a_session_plays_as_the_account)
{
    char s[65];
    sign_up("Zhang Wei", "a long password", s);

    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "account");
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name",
                          "someone else", "session", s));
    const ddz_event *w = cli_expect(c, DDZ_EVENT_WELCOME);
    cr_expect_str_eq(w->welcome.account, "Zhang Wei");
    cr_expect_str_eq(w->welcome.name, "Zhang Wei", "the account's name, not the hello's");
    cr_expect_not(w->welcome.bot);

    cli *g = cli_hello("guest");
    cr_expect_str_eq(g->name, "guest");

    /* signed out: its live connection is told and closed, and the
     * session no longer says hello */
    reply r = call("DELETE", "/api/sessions", NULL, s);
    expect(&r, 200, NULL);
    const ddz_event_error *ended = expect_error(c, DDZ_EAUTH, 0);
    cr_expect_str_eq(ended->message, "this session ended");
    cli *late = cli_connect();
    snprintf(late->name, sizeof late->name, "late");
    cli_send(late, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name",
                             "Zhang Wei", "session", s));
    expect_error(late, DDZ_EAUTH, DDZ_REQ_HELLO);

    cli *bad = cli_connect();
    snprintf(bad->name, sizeof bad->name, "bad");
    cli_send(bad, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "x",
                            "session", "00"));
    expect_error(bad, DDZ_EAUTH, DDZ_REQ_HELLO);
}

/* SPEC §15: no guest or bot can use an account's name. A guest's hello
 * under it, in another case, is refused ENAME (the connection stays: a
 * hello under another name is welcome); after the account's deletion the
 * name stays refused (held); a bot token cannot take it, and an account
 * cannot take a bot's. */
Test(accounts, an_accounts_name_is_nobody_elses)
{
    char s[65];
    sign_up("Zhang Wei", "a long password", s);
    int code;
    cli *g = guest_hello("zhang WEI", &code);
    cr_expect_eq(code, DDZ_ENAME);
    cli_send(g, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "name", "Li Na"));
    const ddz_event *w = cli_expect(g, DDZ_EVENT_WELCOME);
    cr_expect_str_eq(w->welcome.name, "Li Na");

    /* the store the server uses, opened beside it (SQLite: another
     * connection) for what `ddz token add` does */
    char err[256];
    ddz_store *st = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    char token[DDZ_TOKEN_HEX + 1];
    cr_expect_eq(ddz_store_token_add(st, "ZHANG wei", token), DDZ_EEXIST);
    cr_expect_eq(ddz_store_token_add(st, "Robo", token), 0);
    reply r =
        call("POST", "/api/accounts", "{\"name\":\"robo\",\"password\":\"a long password\"}", NULL);
    expect(&r, 409, "EEXIST");

    /* deleted: held, refused still */
    r = call("DELETE", "/api/account", "{\"password\":\"a long password\"}", s);
    expect(&r, 200, NULL);
    cli *h = guest_hello("ZHANG WEI", &code);
    cr_expect_eq(code, DDZ_ENAME, "held for 30 days");
    cli_close(h);
    cr_expect_eq(ddz_store_token_add(st, "zhang wei", token), DDZ_EEXIST, "held for bots too");
    ddz_store_close(st);
}

/* The names are loaded at the start (a store read), not only learnt from
 * this server's sign-ups: an account made before the server started is
 * refused to guests once the load is in (within a second or so). */
Test(accounts, names_are_loaded_at_start, .init = setup_no_server)
{
    char err[256];
    ddz_store *st = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(
        ddz_store_account_add(st, "Éva", "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", NULL), 0);
    ddz_store_close(st);
    server_start();
    int code = 0;
    for (int i = 0; i < 50 && code != DDZ_ENAME; i++) {
        cli *c = guest_hello("éVA", &code);
        cli_close(c);
        if (code != DDZ_ENAME) {
            struct timespec pause = {0, 100 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    cr_expect_eq(code, DDZ_ENAME);
    cli_close(cli_hello("Eva")); /* another name: welcome */
}

/* Five accounts an hour from one address: the sixth is refused 429 ERATE
 * with Retry-After before any hashing; a sign-up that made nothing (a name
 * taken) does not count. */
Test(accounts, signups_per_address_are_limited)
{
    char s[65];
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "Person %d", i);
        sign_up(name, "a long password", s);
        if (i == 2) {
            reply r = call("POST", "/api/accounts",
                           "{\"name\":\"person 1\",\"password\":\"a long password\"}", NULL);
            expect(&r, 409, "EEXIST");
        }
    }
    reply r = call("POST", "/api/accounts",
                   "{\"name\":\"Person 5\",\"password\":\"a long password\"}", NULL);
    char after[16];
    int wait = atoi(header(&r, "retry-after", after, sizeof after));
    cr_expect(wait > 3500 && wait <= 3600, "%s", r.head);
    expect(&r, 429, "ERATE");
    r = sign_in("Person 5", "a long password"); /* it was not made */
    expect(&r, 401, "EAUTH");
}

/* Plays one game of `c` (its hello said) with two hosted AIs. Returns the
 * game's id. */
static int64_t play_one(cli *c)
{
    json_t *o = opts(1, 0, 30);
    json_object_set_new(o, "seats", json_pack("[n, s, s]", "ai:greedy", "ai:random"));
    cli_create(c, o, 0);
    cli *cs[1] = {c};
    cr_assert_eq(run(cs, 1, NULL, NULL, T(30000)), -1);
    return c->over->game_id;
}

/* The ids of "my games" for bearer `who` (a browser key or a session),
 * waiting (bounded) until there are `want`: the store writes on its own
 * thread. */
static void my_games_wait(const char *who, size_t want, int64_t ids[4])
{
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        reply r = call("GET", "/api/my-games", NULL, who);
        cr_assert_eq(r.status, 200, "%s", r.body);
        json_t *j = json_loads(r.body, 0, NULL);
        json_t *games = json_object_get(j, "games");
        size_t n = json_array_size(games);
        for (size_t i = 0; i < n && i < 4; i++)
            ids[i] = json_integer_value(json_object_get(json_array_get(games, i), "id"));
        json_decref(j);
        free(r.body);
        if (n == want)
            return;
        cr_assert(n < want && now_ms() < deadline, "%zu games listed, %zu wanted", n, want);
        usleep(20000);
    }
}

/* A browser's guest history is claimed by the account made on it (sign-up
 * with "me"), and a signed-in person's games are the account's: "my
 * games" with the session lists both from another connection, while the
 * browser's key keeps its guest games only. */
Test(accounts, a_guest_history_is_claimed)
{
    static const char key[] = "00112233445566778899aabbccddeeff";
    cli *g = cli_connect();
    snprintf(g->name, sizeof g->name, "guest");
    cli_send(g, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "Ming",
                          "me", key));
    cli_expect(g, DDZ_EVENT_WELCOME);
    int64_t first = play_one(g), ids[4] = {0};
    my_games_wait(key, 1, ids);
    cr_expect_eq(ids[0], first);

    reply r = call("POST", "/api/accounts",
                   "{\"name\":\"Ming\",\"password\":\"a long password\",\"me\":\"0123\"}", NULL);
    expect(&r, 400, "EFIELD");
    char body[160], s[65];
    snprintf(body, sizeof body,
             "{\"name\":\"Ming\",\"password\":\"a long password\",\"me\":\"%s\"}", key);
    r = call("POST", "/api/accounts", body, NULL);
    field(&r, "session", s, sizeof s);
    expect(&r, 201, NULL);
    my_games_wait(s, 1, ids);
    cr_expect_eq(ids[0], first, "the guest's game is the account's");

    /* signed in elsewhere: the account's games */
    cli *a = cli_connect();
    snprintf(a->name, sizeof a->name, "account");
    cli_send(a, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "Ming",
                          "session", s));
    cli_expect(a, DDZ_EVENT_WELCOME);
    int64_t second = play_one(a);
    my_games_wait(s, 2, ids);
    cr_expect_eq(ids[0], second);
    cr_expect_eq(ids[1], first);
    my_games_wait(key, 1, ids); /* the browser's key: its guest game only */

    r = call("DELETE", "/api/sessions", NULL, s);
    expect(&r, 200, NULL);
    r = call("GET", "/api/my-games", NULL, s);
    expect(&r, 401, "EAUTH");
}

/* Sends a sign-in for `name` from the loopback address 127.0.3.`from`
 * (each its own client for the failure limit) and returns how long its
 * answer took, in milliseconds; the answer must be 401 EAUTH with the
 * body `body` had (the first call fills it). */
static double timed_refusal(const char *name, int from, char body[256])
{
    char req[512], json[128];
    int blen =
        snprintf(json, sizeof json, "{\"name\":\"%s\",\"password\":\"a wrong password\"}", name);
    int n =
        snprintf(req, sizeof req,
                 "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n%s",
                 blen, json);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in src = {.sin_family = AF_INET};
    src.sin_addr.s_addr = htonl(0x7f000300u | (uint32_t)from);
    cr_assert_eq(bind(fd, (struct sockaddr *)&src, sizeof src), 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)srv.port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int64_t t0 = now_ms();
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    reply r = get_reply(fd);
    double ms = (double)(now_ms() - t0);
    cr_expect_eq(r.status, 401, "%s: %d %s", name, r.status, r.body);
    if (!body[0])
        snprintf(body, 256, "%s", r.body);
    cr_expect_str_eq(r.body, body, "the same body for every refusal");
    free(r.body);
    return ms;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* No enumeration through timing (SPEC §15): a wrong password for a real
 * account and any password for a name nobody has are both one Argon2id
 * verify (the unknown one against a dummy hash), so their answers take
 * the same time but for noise. Six of each, interleaved so that the
 * machine's load falls on both alike, each from its own address so that
 * no limit answers early; their medians within a factor of 3: wide, for
 * a loaded machine (the hashes run at a low priority, so a busy machine
 * makes them slow and uneven), and still far from what a lookup-only
 * answer for the unknown name would give, a hundred times faster than a
 * verify. */
Test(accounts, an_unknown_name_takes_as_long_as_a_wrong_password)
{
    char s[65], body[256] = "";
    sign_up("Real", "the right password", s);
    enum { N = 6 };
    double known[N], unknown[N];
    for (int i = 0; i < N; i++) {
        char nobody[32];
        snprintf(nobody, sizeof nobody, "Nobody%d", i);
        known[i] = timed_refusal("Real", 1 + 2 * i, body);
        unknown[i] = timed_refusal(nobody, 2 + 2 * i, body);
    }
    qsort(known, N, sizeof *known, cmp_double);
    qsort(unknown, N, sizeof *unknown, cmp_double);
    double k = (known[N / 2 - 1] + known[N / 2]) / 2, u = (unknown[N / 2 - 1] + unknown[N / 2]) / 2;
    cr_log_info("median answer: wrong password %.0f ms, unknown name %.0f ms", k, u);
    cr_expect(u > 0 && k > 0 && u < 3 * k && k < 3 * u,
              "wrong password %.0f ms, unknown name %.0f ms", k, u);
}
