/* test_serve_pg.c - `ddz serve --db postgres://...`: a server on a fresh
 * PostgreSQL database (pg_test.h; the ctest fixture "pg", DDZ_TEST_PG)
 * plays a game whose record /api/games/ID serves and `ddz export --db URL`
 * prints byte for byte, accepts a bot token made by `ddz token add --db
 * URL`, and a URL it cannot reach keeps it from starting, with a message
 * that names the database without its password. */
#include "serve_harness.h"

#include "pg_test.h"

static void pg_setup(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
    server_start();
}

static void pg_teardown(void)
{
    teardown();
    pg_db_drop();
}

/* Runs the shell command `cmd`; returns its exit status, its standard
 * output (and error, if the command says 2>&1) in *out (malloc'd). */
static int shell(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if ((len += n) + 1 == cap)
            buf = realloc(buf, cap *= 2);
    buf[len] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(serve_pg, a_game_a_record_an_export_and_a_token, .init = pg_setup, .fini = pg_teardown)
{
    /* A token made by the CLI against the URL, while the server runs. */
    char cmd[512], *tok;
    snprintf(cmd, sizeof cmd, "'%s' token add Robo --db '%s' 2>/dev/null", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &tok), 0, "ddz token add: %s", tok);
    tok[strcspn(tok, "\n")] = '\0';
    cr_assert_eq(strlen(tok), 64, "token: %s", tok);

    /* A quick game against the hosted AIs: its record is served. */
    cli *c = cli_hello("Lin");
    c->bidder = true;
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    check_over(c->over);
    check_record(c->over); /* /api/games/ID, and `ddz verify` accepts it */
    char path[160];
    snprintf(path, sizeof path, "/api/games/%lld-%s", (long long)c->over->game_id,
             c->over->game_key);
    int status;
    char *served = http_get(path, &status);
    cr_assert_eq(status, 200, "%s", served);

    /* The bot's token is accepted. */
    cli *bot = cli_connect();
    snprintf(bot->name, sizeof bot->name, "Robo");
    cli_send(bot, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name",
                            "ignored", "token", tok));
    const ddz_event *w = cli_expect(bot, DDZ_EVENT_WELCOME);
    cr_assert(w->welcome.bot, "%s", show(w));
    cr_assert_str_eq(w->welcome.name, "Robo");
    free(tok);
    cr_assert_eq(server_stop(), 0);

    /* `ddz export --db URL`: the one game, the very bytes served. */
    char *out;
    snprintf(cmd, sizeof cmd, "'%s' export --db '%s'", DDZ_BIN, srv.db);
    cr_assert_eq(shell(cmd, &out), 0, "ddz export: %s", out);
    size_t len = strlen(served);
    cr_assert(strlen(out) == len + 1 && strncmp(out, served, len) == 0 && out[len] == '\n',
              "export:\n%s\nserved:\n%s", out, served);
    free(out);
    free(served);
}

Test(serve_pg, an_unreachable_database_is_refused, .init = pg_setup, .fini = pg_teardown)
{
    cr_assert_eq(server_stop(), 0);
    char *out;
    /* port 1 on loopback: nobody listens */
    const char *cmds[] = {
        "'" DDZ_BIN "' serve --port 1 --db 'postgres://ddz:sesame@127.0.0.1:1/x?password=sesame'"
        " 2>&1",
        "'" DDZ_BIN "' token list --db 'postgres://ddz:sesame@127.0.0.1:1/x' 2>&1",
        "'" DDZ_BIN "' export --db 'postgresql://ddz:sesame@127.0.0.1:1/x' 2>&1",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cr_assert_eq(shell(cmds[i], &out), 1, "%s: %s", cmds[i], out);
        cr_assert(strstr(out, "ddz@127.0.0.1:1/x: ") != NULL, "%s", out);
        cr_assert_null(strstr(out, "sesame"), "the password is shown: %s", out);
        cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
        free(out);
    }
}
