/* test_msg.c - client requests: the errors a bad frame gets, and that an
 * error message quoting the client's text is itself valid UTF-8 (it goes
 * back to the client as a JSON string). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "proto/msg.h"
#include "rules/error.h"

static int parse(const char *s, ddz_req *r, char *err, size_t errlen)
{
    return ddz_req_parse(s, strlen(s), r, err, errlen);
}

Test(msg, unknown_type_is_named_and_keeps_the_id)
{
    ddz_req r;
    char err[200];
    cr_assert_eq(parse("{\"type\":\"dance\",\"id\":\"x1\"}", &r, err, sizeof err), DDZ_EUNKNOWN);
    cr_assert_str_eq(err, "unknown message type \"dance\"");
    cr_assert_str_eq(r.id, "\"x1\"");
}

Test(msg, long_unknown_type_is_cut_at_a_character_boundary)
{
    /* 30 three-byte characters, two columns each: a byte count of 40 would
     * cut the 14th in the middle */
    char frame[256] = "{\"type\":\"";
    for (int i = 0; i < 30; i++)
        strcat(frame, "\xe5\x87\xba"); /* 出 */
    strcat(frame, "\"}");
    ddz_req r;
    char err[200];
    cr_assert_eq(parse(frame, &r, err, sizeof err), DDZ_EUNKNOWN);
    /* the quoted part is whole characters: 20 of them fill 40 columns */
    const char *q = strchr(err, '"');
    cr_assert_not_null(q);
    cr_assert_eq(strlen(q + 1), 20 * 3 + 1, "%s", err);
    json_t *s = json_string(err); /* NULL for invalid UTF-8 */
    cr_assert_not_null(s, "the error is not valid UTF-8: %s", err);
    json_decref(s);
}

Test(msg, bad_frames_get_their_codes)
{
    ddz_req r;
    char err[200];
    cr_assert_eq(parse("[1]", &r, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(parse("{\"id\":1}", &r, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_str_eq(err, "a message needs a string \"type\"");
    cr_assert_eq(parse("{\"type\":\"bid\",\"seq\":1,\"bid\":9}", &r, err, sizeof err), DDZ_EFIELD);
    cr_assert_eq(r.type, DDZ_REQ_BID);
}

/* enlist names the competition, or leaves it to the server; print(parse(x)) == x */
Test(msg, enlist_competition)
{
    static const char *const good[] = {
        "{\"type\":\"enlist\"}",
        "{\"type\":\"enlist\",\"competition\":\"ladder\"}",
        "{\"type\":\"enlist\",\"competition\":\"tournament\"}",
    };
    static const char *const want[] = {"", "ladder", "tournament"};
    for (int i = 0; i < 3; i++) {
        ddz_req r;
        char err[200];
        cr_assert_eq(parse(good[i], &r, err, sizeof err), 0, "%s: %s", good[i], err);
        cr_expect_eq(r.type, DDZ_REQ_ENLIST);
        cr_expect_str_eq(r.competition, want[i]);
        char *back = ddz_msg_dump(ddz_req_print(&r));
        cr_assert_not_null(back);
        cr_expect_str_eq(back, good[i]);
        free(back);
    }
    ddz_req r;
    char err[200];
    cr_expect_eq(parse("{\"type\":\"enlist\",\"competition\":\"cup\"}", &r, err, sizeof err),
                 DDZ_EFIELD);
    cr_expect_str_eq(err, "competition: \"tournament\" or \"ladder\"");
    cr_expect_eq(parse("{\"type\":\"enlist\",\"competition\":7}", &r, err, sizeof err), DDZ_EFIELD);
}

/* A display name or a room's name that would read other than it is
 * written, or that is one of the server's own, is ENAME, saying why. */
Test(msg, names_people_read_are_checked)
{
    ddz_req r;
    char err[200];
    char f[300];
    static const struct {
        const char *name; /* JSON string contents */
        const char *says;
    } who[] = {
        {"Mei\\u202e", "U+202E is a bidirectional control"},
        {"\\u200bMei", "U+200B is an invisible"},
        {"Mei\\u2028Lee", "U+2028 is a line or paragraph separator"},
        {"ai:strong", "the server's own"},
        {"AI:strong", "the server's own"},
        {"Engine:x", "the server's own"},
        {"gone:x", "the server's own"},
        {"AI\\u00b7West", "the server's own"},
        {"\\u7535\\u8111\\u00b7\\u897f", "the server's own"}, /* 电脑·西 */
        {" ai:strong", "a space at either end"},
    };
    for (size_t i = 0; i < sizeof who / sizeof who[0]; i++) {
        snprintf(f, sizeof f, "{\"type\":\"hello\",\"version\":1,\"name\":\"%s\"}", who[i].name);
        cr_assert_eq(parse(f, &r, err, sizeof err), DDZ_ENAME, "%s", f);
        cr_assert(strstr(err, who[i].says), "%s: %s", who[i].name, err);
        cr_assert_eq(strncmp(err, "name: ", 6), 0, "%s", err);
    }
    static const char *const rooms[] = {"Tournament: final 1, table 2",
                                        "tournament practice",
                                        "LADDER 1/3: a, b, c",
                                        "Room 3",
                                        "\\u202eTournament",
                                        "Tournament\\u200b"};
    for (size_t i = 0; i < sizeof rooms / sizeof rooms[0]; i++) {
        snprintf(f, sizeof f, "{\"type\":\"create\",\"options\":{\"name\":\"%s\"}}", rooms[i]);
        cr_assert_eq(parse(f, &r, err, sizeof err), DDZ_ENAME, "%s", f);
    }
    /* names that are people's and rooms' own */
    cr_assert_eq(
        parse("{\"type\":\"hello\",\"version\":1,\"name\":\"ai fan\"}", &r, err, sizeof err), 0,
        "%s", err);
    cr_assert_str_eq(r.name, "ai fan");
    cr_assert_eq(parse("{\"type\":\"hello\",\"version\":1,\"name\":\"\\u5c0f\\u660e\"}", &r, err,
                       sizeof err),
                 0, "%s", err);
    static const char *const fine[] = {"Room 3b", "My tournament", "Friday night", "Room"};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        snprintf(f, sizeof f, "{\"type\":\"create\",\"options\":{\"name\":\"%s\"}}", fine[i]);
        cr_assert_eq(parse(f, &r, err, sizeof err), 0, "%s: %s", fine[i], err);
        cr_assert_str_eq(r.opts.name, fine[i]);
    }
}

/* hello may carry an account's session (SPEC §15); print(parse(x)) == x */
Test(msg, hello_with_a_session)
{
    const char *f = "{\"type\":\"hello\",\"version\":1,\"name\":\"Mei\",\"session\":"
                    "\"604d6107f5e405b8445108d47d40783623bb80c0c3be2147292dfc24870f9bb8\"}";
    ddz_req r;
    char err[200];
    cr_assert_eq(parse(f, &r, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(r.session, "604d6107f5e405b8445108d47d40783623bb80c0c3be2147292dfc24870f9bb8");
    char *back = ddz_msg_dump(ddz_req_print(&r));
    cr_assert_not_null(back);
    cr_expect_str_eq(back, f);
    free(back);
    cr_expect_eq(parse("{\"type\":\"hello\",\"version\":1,\"name\":\"Mei\",\"session\":7}", &r, err,
                       sizeof err),
                 DDZ_EFIELD);
}

/* Rated play (SPEC §15): quick and create say "rated", quick may name
 * the rule set (only when rated); print(parse(x)) == x. */
Test(msg, rated_quick_and_create)
{
    static const char *const good[] = {
        "{\"type\":\"quick\",\"rated\":true}",
        "{\"type\":\"quick\",\"rated\":true,\"rules\":\"botzone-ftl\"}",
        "{\"type\":\"quick\",\"ai\":\"greedy\"}",
    };
    ddz_req r;
    char err[200];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        cr_assert_eq(parse(good[i], &r, err, sizeof err), 0, "%s: %s", good[i], err);
        char *back = ddz_msg_dump(ddz_req_print(&r));
        cr_assert_not_null(back);
        cr_expect_str_eq(back, good[i]);
        free(back);
    }
    cr_assert_eq(parse(good[1], &r, err, sizeof err), 0);
    cr_expect(r.opts.rated);
    cr_expect_str_eq(r.opts.rules, "botzone-ftl");
    cr_expect_eq(parse("{\"type\":\"quick\",\"rated\":1}", &r, err, sizeof err), DDZ_EFIELD);
    cr_expect_eq(parse("{\"type\":\"quick\",\"rules\":\"caai\"}", &r, err, sizeof err), DDZ_EFIELD);
    cr_expect_str_eq(err, "rules: only with \"rated\": true");

    cr_assert_eq(parse("{\"type\":\"create\",\"rated\":true,\"seat\":0}", &r, err, sizeof err), 0,
                 "%s", err);
    cr_expect(r.opts.rated);
    char *back = ddz_msg_dump(ddz_req_print(&r));
    cr_assert_not_null(back);
    cr_expect(strstr(back, "\"rated\":true") != NULL, "%s", back);
    ddz_req again;
    cr_assert_eq(parse(back, &again, err, sizeof err), 0, "%s", err);
    cr_expect(again.opts.rated && again.seat == 0);
    free(back);
    cr_assert_eq(parse("{\"type\":\"create\"}", &r, err, sizeof err), 0);
    cr_expect(!r.opts.rated);
}
