/* test_serve_people.c - people's ratings over HTTP (SPEC §15): GET
 * /api/players/NAME and GET /api/leaderboard?rules=R from a served server,
 * over a database whose accounts and rated games the store wrote. */
#include "serve_harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "service/store/store.h"

static int64_t account(ddz_store *s, const char *name)
{
    int64_t id = 0;
    cr_assert_eq(
        ddz_store_account_add(s, name, "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", &id), 0,
        "%s", name);
    return id;
}

/* Ann wins 6 games as landlord against Bo and ai:random; Cy plays 2;
 * Gone plays 6 and is deleted. All under caai. */
static void fill_database(void)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    int64_t ann = account(s, "Ann"), bo = account(s, "Bo"), cy = account(s, "Cy");
    int64_t gone = account(s, "Gone");
    int64_t game = 100;
    for (int i = 0; i < 6; i++) {
        int64_t p[3] = {bo, ann, -3};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, p, 1, true, NULL), 1);
        int64_t q[3] = {gone, -1, -2};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, q, 0, false, NULL), 1);
    }
    int64_t r[3] = {cy, -1, -2};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, r, 0, true, NULL), 1);
    cr_assert_eq(ddz_store_account_delete(s, gone), 0);
    ddz_store_close(s);
}

Test(serve_people, a_profile, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    json_t *j = http_json("/api/players/ann", 200); /* any case */
    cr_expect_str_eq(json_string_value(json_object_get(j, "name")), "Ann");
    json_t *caai = json_object_get(json_object_get(j, "ratings"), "caai");
    cr_expect_eq(json_integer_value(json_object_get(caai, "games")), 6);
    cr_expect_eq(json_integer_value(json_object_get(caai, "ll_games")), 6);
    cr_expect_eq(json_integer_value(json_object_get(caai, "ll_wins")), 6);
    cr_expect_eq(json_integer_value(json_object_get(caai, "farmer_games")), 0);
    double rating = json_number_value(json_object_get(caai, "rating"));
    cr_expect_gt(rating, 1500);
    cr_expect_gt(json_number_value(json_object_get(caai, "deviation")), 0);
    cr_expect_eq(json_integer_value(json_object_get(caai, "rank")), 1, "first on the board");
    json_t *hist = json_object_get(json_object_get(j, "history"), "caai");
    cr_assert_eq(json_array_size(hist), 6);
    json_t *last = json_array_get(hist, 5);
    cr_expect_eq(json_number_value(json_array_get(last, 1)), rating,
                 "the graph ends at the rating");
    cr_expect_gt(json_integer_value(json_array_get(last, 0)), 1700000000000);
    /* her rated games, the newest first: the even ids 110..100 */
    json_t *games = json_object_get(j, "games");
    cr_assert_eq(json_array_size(games), 6);
    for (size_t i = 0; i < 6; i++)
        cr_expect_eq(json_integer_value(json_array_get(games, i)), 110 - 2 * (json_int_t)i);
    json_decref(j);

    j = http_json("/api/players/%42o", 200); /* URL-encoded: Bo */
    cr_expect_str_eq(json_string_value(json_object_get(j, "name")), "Bo");
    caai = json_object_get(json_object_get(j, "ratings"), "caai");
    cr_expect_lt(json_number_value(json_object_get(caai, "rating")), 1500);
    cr_expect_eq(json_integer_value(json_object_get(caai, "farmer_games")), 6);
    cr_expect_eq(json_integer_value(json_object_get(caai, "rank")), 2);
    json_decref(j);
    j = http_json("/api/players/Cy", 200); /* 2 games: rated, not on the board */
    caai = json_object_get(json_object_get(j, "ratings"), "caai");
    cr_expect_eq(json_integer_value(json_object_get(caai, "games")), 2);
    cr_expect_null(json_object_get(caai, "rank"));
    json_decref(j);

    j = http_json("/api/players/nobody", 404);
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ENOTFOUND");
    json_decref(j);
    json_decref(http_json("/api/players/Gone", 404));      /* deleted */
    json_decref(http_json("/api/players/ai:random", 404)); /* AIs have no profile here */
}

Test(serve_people, the_leaderboard, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    json_t *j = http_json("/api/leaderboard", 200); /* the default rule set */
    cr_expect_str_eq(json_string_value(json_object_get(j, "rules")), "caai");
    json_t *list = json_object_get(j, "players");
    /* Gone is deleted, Cy has 2 games, the AIs are no accounts */
    cr_assert_eq(json_array_size(list), 2, "%s", json_dumps(j, 0));
    json_t *first = json_array_get(list, 0), *second = json_array_get(list, 1);
    cr_expect_str_eq(json_string_value(json_object_get(first, "name")), "Ann");
    cr_expect_str_eq(json_string_value(json_object_get(second, "name")), "Bo");
    cr_expect_gt(json_number_value(json_object_get(first, "rating")),
                 json_number_value(json_object_get(second, "rating")));
    cr_expect_eq(json_integer_value(json_object_get(first, "games")), 6);
    cr_expect_gt(json_number_value(json_object_get(first, "deviation")), 0);
    json_decref(j);

    j = http_json("/api/leaderboard?rules=caai", 200);
    cr_expect_eq(json_array_size(json_object_get(j, "players")), 2);
    json_decref(j);
    j = http_json("/api/leaderboard?rules=botzone-ftl", 200);
    cr_expect_str_eq(json_string_value(json_object_get(j, "rules")), "botzone-ftl");
    cr_expect_eq(json_array_size(json_object_get(j, "players")), 0);
    json_decref(j);
    j = http_json("/api/leaderboard?rules=nonesuch", 400);
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ERULESET");
    json_decref(j);
}

/* GET `path` over a socket of its own, for the headers the harness's
 * client does not show: the whole answer, malloc'd. */
static char *raw_get(const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)srv.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = {.tv_sec = T(5000) / 1000 + 1};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char req[512];
    int n =
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    cr_assert_eq(write(fd, req, (size_t)n), n);
    size_t cap = 8192, len = 0;
    char *out = malloc(cap);
    ssize_t got;
    while (len + 1 < cap && (got = read(fd, out + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fd);
    return out;
}

/* /@/NAME, the address of a profile to share, sends the browser on to the
 * client's route; whatever the name holds stays inside the fragment,
 * escaped (no header line can be made from it). */
Test(serve_people, a_profile_address, .init = setup_no_server, .fini = teardown)
{
    server_start();
    char *a = raw_get("/@/Ann");
    cr_expect(strncmp(a, "HTTP/1.1 302", 12) == 0, "%s", a);
    cr_expect_not_null(strstr(a, "\r\nlocation: /#/@/Ann\r\n"), "%s", a);
    free(a);
    a = raw_get("/@/%E5%BC%A0%20x");
    cr_expect_not_null(strstr(a, "\r\nlocation: /#/@/%E5%BC%A0%20x\r\n"), "%s", a);
    free(a);
    a = raw_get("/@/a%22b%3C:%3E");
    cr_expect_not_null(strstr(a, "\r\nlocation: /#/@/a%22b%3C%3A%3E\r\n"), "%s", a);
    free(a);
    /* lws refuses a CR or LF in the path (400) before it comes here;
     * whoever answers, no header line is made of it */
    a = raw_get("/@/a%0d%0aset-cookie:%20x");
    cr_expect_null(strstr(a, "\nset-cookie"), "%s", a);
    free(a);
    int status = 0;
    free(http_get("/@/", &status));
    cr_expect_eq(status, 404, "no name");
}
