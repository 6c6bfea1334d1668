/* test_event.c - the event codec (proto/event.h): every real frame of
 * events.txt prints back to its bytes, every case of events_bad.txt fails
 * with its code, hand-built events print as the server has always sent them,
 * ddz_event_dump() writes the same bytes as the JSON tree's dump (every
 * frame of the file, and many random moves), and names, equality and
 * ownership behave as documented. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/event.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "rules/game.h"
#include "rules/movegen.h"

/* Returns the compact text of `j` (released), or NULL. */
static char *dump(json_t *j)
{
    return ddz_msg_dump(j);
}

static ddz_event parse_ok(const char *text)
{
    ddz_event e;
    char err[200] = "";
    int rc = ddz_event_parse_text(text, strlen(text), &e, err, sizeof err);
    cr_assert_eq(rc, 0, "parse(%.200s) = %s: %s", text, ddz_errname(rc), err);
    return e;
}

/* Calls fn(line, lineno, ctx) for every case of a data file. Returns the
 * number of cases. */
static int each_case(const char *name, void (*fn)(char *, int, void *), void *ctx)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/proto/%s", DDZ_SOURCE_DIR, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, cases = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        cases++;
        fn(line, lineno, ctx);
    }
    free(line);
    fclose(f);
    return cases;
}

/* ---- events.txt ---- */

static void round_trip(char *line, int lineno, void *ctx)
{
    int *seen = ctx;
    ddz_event e;
    char err[200] = "";
    int rc = ddz_event_parse_text(line, strlen(line), &e, err, sizeof err);
    cr_assert_eq(rc, 0, "line %d: %s: %s", lineno, ddz_errname(rc), err);
    cr_assert(e.type > 0 && e.type < DDZ_NEVENT, "line %d: type %d", lineno, e.type);
    seen[e.type]++;

    char *text = dump(ddz_event_print(&e));
    cr_assert_not_null(text, "line %d: print failed", lineno);
    cr_assert_str_eq(text, line, "line %d: print(parse(x)) differs:\n  %s\n  %s", lineno, line,
                     text);

    /* the text the server sends (written straight for a move's events) */
    char *sent = ddz_event_dump(&e);
    cr_assert_not_null(sent, "line %d: dump failed", lineno);
    cr_assert_str_eq(sent, line, "line %d: ddz_event_dump differs:\n  %s\n  %s", lineno, line,
                     sent);
    free(sent);

    /* the printed text is the same value again */
    ddz_event back;
    cr_assert_eq(ddz_event_parse_text(text, strlen(text), &back, err, sizeof err), 0,
                 "line %d: reparse: %s", lineno, err);
    cr_assert(ddz_event_equal(&e, &back), "line %d: reparse is not equal", lineno);
    cr_assert(ddz_event_equal(&back, &e));

    /* the json_t entry point gives the same */
    json_t *j = json_loads(line, 0, NULL);
    ddz_event viaj;
    cr_assert_eq(ddz_event_parse(j, &viaj, err, sizeof err), 0, "line %d: %s", lineno, err);
    cr_assert(ddz_event_equal(&e, &viaj), "line %d: json_t parse differs", lineno);
    json_decref(j);

    free(text);
    ddz_event_clear(&viaj);
    ddz_event_clear(&back);
    ddz_event_clear(&e);
    cr_assert_eq(e.type, 0, "clear zeroes the event");
}

Test(event, data_file_round_trips_byte_for_byte)
{
    int seen[DDZ_NEVENT] = {0};
    int cases = each_case("events.txt", round_trip, seen);
    cr_assert_geq(cases, 60, "only %d cases", cases);
    for (int t = 1; t < DDZ_NEVENT; t++)
        cr_assert_gt(seen[t], 0, "events.txt has no \"%s\" event", ddz_event_name(t));
    cr_log_info("events.txt: %d frames", cases);
}

/* ---- events_bad.txt ---- */

static int code_named(const char *name)
{
    static const int codes[] = {DDZ_ESYNTAX, DDZ_EUNKNOWN, DDZ_EFIELD, DDZ_ENOMEM};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(ddz_errname(codes[i]), name) == 0)
            return codes[i];
    return 0;
}

static void refused(char *line, int lineno, void *ctx)
{
    int *counts = ctx;
    char *input = strchr(line, '\t');
    cr_assert_not_null(input, "line %d: no tab", lineno);
    *input++ = '\0';
    char *sub = strchr(input, '\t');
    if (sub)
        *sub++ = '\0';
    char *strict = strstr(line, " strict");
    if (strict) {
        cr_assert_str_eq(strict, " strict", "line %d: bad EXPECTED \"%s\"", lineno, line);
        *strict = '\0';
        counts[1]++;
    }
    int want = code_named(line);
    cr_assert_neq(want, 0, "line %d: unknown code %s", lineno, line);

    ddz_event e;
    memset(&e, 0xAB, sizeof e); /* parse must not depend on what was there */
    char err[200] = "";
    int rc = ddz_event_parse_text(input, strlen(input), &e, err, sizeof err);
    cr_assert_eq(rc, want, "line %d: %.120s gave %s (%s), expected %s", lineno, input,
                 ddz_errname(rc), err, line);
    cr_assert_gt(strlen(err), 0, "line %d: empty error message", lineno);
    if (sub)
        cr_assert(strstr(err, sub) != NULL, "line %d: message \"%s\" lacks \"%s\"", lineno, err,
                  sub);
    cr_assert(!e.owned, "line %d: a failed parse keeps no allocation", lineno);
    if (rc == DDZ_EFIELD)
        cr_assert(e.type > 0 && e.type < DDZ_NEVENT, "line %d: EFIELD without the type", lineno);
    else
        cr_assert_eq(e.type, 0, "line %d: type %d", lineno, e.type);
    ddz_event_clear(&e);
    counts[0]++;
}

Test(event, bad_file_fails_with_its_code)
{
    int counts[2] = {0, 0}; /* cases, strict ones */
    int cases = each_case("events_bad.txt", refused, counts);
    cr_assert_geq(cases, 80, "only %d cases", cases);
    cr_log_info("events_bad.txt: %d cases, %d stricter than the schemas", counts[0], counts[1]);
}

/* ---- printing what the server builds ---- */

static void assert_prints(const ddz_event *e, const char *want)
{
    char *text = dump(ddz_event_print(e));
    cr_assert_not_null(text, "print of %s failed", ddz_event_name(e->type));
    cr_assert_str_eq(text, want);
    /* and back */
    ddz_event back = parse_ok(text);
    cr_assert(ddz_event_equal(e, &back), "%s: parse(print(e)) != e", text);
    ddz_event_clear(&back);
    free(text);
}

Test(event, stack_values_print_without_allocation_by_the_caller)
{
    ddz_event e = {.type = DDZ_EVENT_BID_MADE, .bid_made = {.seat = 2, .bid = 3}};
    assert_prints(&e, "{\"type\":\"bid_made\",\"seat\":2,\"bid\":3}");

    e = (ddz_event){
        .type = DDZ_EVENT_PLAYED,
        .played = {.seat = 1, .cards = 0, .combo = DDZ_PASS, .autopass = true, .left = 9}};
    assert_prints(&e,
                  "{\"type\":\"played\",\"seat\":1,\"cards\":[],\"combo\":\"pass\",\"auto\":true,"
                  "\"left\":9,\"multiplier\":null}"); /* 0: the rule set has none */
    e.played.multiplier = 4;
    assert_prints(&e,
                  "{\"type\":\"played\",\"seat\":1,\"cards\":[],\"combo\":\"pass\",\"auto\":true,"
                  "\"left\":9,\"multiplier\":4}");

    e = (ddz_event){
        .type = DDZ_EVENT_TURN,
        .turn = {.seat = 0, .action = DDZ_EVENT_ACT_PLAY, .seq = 4, .deadline_ms = 30000}};
    assert_prints(&e, "{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":4,"
                      "\"deadline_ms\":30000}");

    /* legal plays from the caller's array, kept in its order */
    const ddz_cards legal[3] = {1ULL << 29, (1ULL << 52) | (1ULL << 53), 0};
    e.turn.has_legal = true;
    e.turn.legal = legal;
    e.turn.nlegal = 3;
    assert_prints(&e, "{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":4,"
                      "\"deadline_ms\":30000,\"legal\":[[29],[52,53],[]]}");
    ddz_event_clear(&e); /* not owned: frees nothing */
    cr_assert_null(e.turn.legal);

    e = (ddz_event){.type = DDZ_EVENT_TURN,
                    .turn = {.seat = 1,
                             .action = DDZ_EVENT_ACT_BID,
                             .seq = 2,
                             .has_legal = true,
                             .legal_bids = 1 | 4 | 8}};
    assert_prints(&e, "{\"type\":\"turn\",\"seat\":1,\"action\":\"bid\",\"seq\":2,"
                      "\"deadline_ms\":0,\"legal\":[0,2,3]}");

    e = (ddz_event){.type = DDZ_EVENT_JOINED, .joined = {.room = "", .seat = -1}};
    assert_prints(&e, "{\"type\":\"joined\",\"room\":null,\"seat\":null}");

    e = (ddz_event){.type = DDZ_EVENT_SEAT, .seat = {.seat = 1}};
    assert_prints(&e, "{\"type\":\"seat\",\"seat\":1,\"player\":null}");

    e = (ddz_event){.type = DDZ_EVENT_TURN_OVER, .turn_over = {.totals = {-1, 0, 1}, .games = 6}};
    assert_prints(&e, "{\"type\":\"turn_over\",\"totals\":[-1,0,1],\"games\":6}");

    /* botzone-ftl: reals where a score is not whole, in their shortest form */
    e = (ddz_event){.type = DDZ_EVENT_TURN_OVER,
                    .turn_over = {.totals = {407 / 200.0, -1, 0.5}, .games = 2}};
    assert_prints(&e, "{\"type\":\"turn_over\",\"totals\":[2.035,-1,0.5],\"games\":2}");
}

/* Errors print as the server has always sent them (the codec replaced
 * proto/msg.c's ddz_msg_error): no message prints the error table's text,
 * `about` and `id` only when there are some. */
Test(event, errors_print_as_the_server_sent_them)
{
    static const struct {
        int code;
        const char *message, *about, *id, *want; /* want: %s is ddz_strerror(code) */
    } cases[] = {
        {DDZ_ESYNTAX, "not JSON", NULL, "",
         "{\"type\":\"error\",\"code\":\"ESYNTAX\",\"message\":\"not JSON\"}"},
        {DDZ_EUNKNOWN, "unknown message type \"x\"", NULL, "\"x1\"",
         "{\"type\":\"error\",\"code\":\"EUNKNOWN\",\"message\":\"unknown message type "
         "\\\"x\\\"\",\"id\":\"x1\"}"},
        {DDZ_ESTALE, NULL, "play", "7",
         "{\"type\":\"error\",\"code\":\"ESTALE\",\"message\":\"%s\",\"about\":\"play\","
         "\"id\":7}"},
        {DDZ_EWEAK, NULL, "play", "",
         "{\"type\":\"error\",\"code\":\"EWEAK\",\"message\":\"%s\",\"about\":\"play\"}"},
        {DDZ_ERATE, NULL, NULL, "", "{\"type\":\"error\",\"code\":\"ERATE\",\"message\":\"%s\"}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[400];
        snprintf(want, sizeof want, cases[i].want, ddz_strerror(cases[i].code));
        ddz_event e = {.type = DDZ_EVENT_ERROR, .error = {.code = cases[i].code}};
        snprintf(e.error.message, sizeof e.error.message, "%s",
                 cases[i].message ? cases[i].message : "");
        for (int t = 1; cases[i].about && t < DDZ_NREQ; t++)
            if (strcmp(ddz_req_name(t), cases[i].about) == 0)
                e.error.about = t;
        snprintf(e.error.id, sizeof e.error.id, "%s", cases[i].id);
        char *got = dump(ddz_event_print(&e));
        cr_assert_str_eq(got, want);
        /* "" printed the table's message; parse reads it back as text */
        ddz_event back = parse_ok(got);
        cr_assert_eq(back.error.code, cases[i].code);
        cr_assert_str_eq(back.error.message,
                         cases[i].message ? cases[i].message : ddz_strerror(cases[i].code));
        cr_assert_eq(back.error.about, e.error.about);
        cr_assert_str_eq(back.error.id, cases[i].id);
        free(got);
    }
}

Test(event, rooms_and_state_from_caller_arrays)
{
    ddz_event_room room = {.id = "k7m2qx",
                           .name = "Room 1",
                           .rules = "caai",
                           .time = 30,
                           .games = 6,
                           .seats = {{.seated = true, .name = "Lin", .connected = true}},
                           .spectators = 2,
                           .playing = true};
    static const char *const ais[] = {"strong", "greedy"}, *const rules[] = {"caai"};
    ddz_event e = {
        .type = DDZ_EVENT_ROOMS,
        .rooms = {.rooms = &room, .nrooms = 1, .ais = ais, .nais = 2, .rules = rules, .nrules = 1}};
    assert_prints(&e, "{\"type\":\"rooms\",\"rooms\":[{\"id\":\"k7m2qx\",\"name\":\"Room 1\","
                      "\"rules\":\"caai\",\"time\":30,\"games\":6,\"private\":false,"
                      "\"bots\":false,\"password\":false,\"seats\":[{\"name\":\"Lin\","
                      "\"kind\":\"human\",\"connected\":true,\"custody\":false},null,null],"
                      "\"spectators\":2,\"playing\":true}],\"ais\":[\"strong\",\"greedy\"],"
                      "\"engines\":[],\"rules\":[\"caai\"]}");

    /* a state's history is a record's plays, used in place */
    ddz_record_play plays[2] = {{.seat = 0, .cards = 1ULL << 3, .combo = DDZ_SINGLE},
                                {.seat = 1, .autopass = 1, .combo = DDZ_PASS}};
    e = (ddz_event){.type = DDZ_EVENT_STATE};
    ddz_event_state *s = &e.state;
    snprintf(s->room, sizeof s->room, "k7m2qx");
    snprintf(s->room_name, sizeof s->room_name, "Room 1");
    s->options = (ddz_event_options){.rules = "caai",
                                     .time = 30,
                                     .games = 6,
                                     .grace = 60,
                                     .custody = DDZ_CUSTODY_FAULT,
                                     .pause = 3};
    s->seat = -1;
    s->phase = DDZ_EVENT_PH_PLAY;
    s->game = 1;
    s->games = 6;
    for (int i = 0; i < 3; i++)
        s->players[i] =
            (ddz_event_player){.seated = true,
                               .kind = DDZ_EVENT_AI,
                               .connected = true,
                               .in_game = true,
                               .left = 17,
                               .bid = -1,
                               .role = i ? DDZ_EVENT_ROLE_FARMER : DDZ_EVENT_ROLE_LANDLORD};
    snprintf(s->players[0].name, sizeof s->players[0].name, "ai:greedy");
    snprintf(s->players[1].name, sizeof s->players[1].name, "ai:random");
    snprintf(s->players[2].name, sizeof s->players[2].name, "ai:strong");
    s->players[1].has_last = true;
    s->players[1].last_combo = DDZ_PASS;
    s->landlord = 0;
    s->bid = 1;
    s->multiplier = 2;
    s->history = plays;
    s->nhistory = 2;
    s->has_turn = true;
    s->turn = (ddz_event_turn){.seat = 2, .action = DDZ_EVENT_ACT_PLAY, .seq = 5};
    char *text = dump(ddz_event_print(&e));
    cr_assert_not_null(text);
    cr_assert(strstr(text, "\"bid\":1,\"multiplier\":2,\"history\":[{\"seat\":0,\"cards\":[3],"
                           "\"combo\":\"single\",\"auto\":false},"
                           "{\"seat\":1,\"cards\":[],\"combo\":\"pass\",\"auto\":true}],") != NULL,
              "%s", text);
    cr_assert(strstr(text, "\"last\":{\"cards\":[],\"combo\":\"pass\"}") != NULL, "%s", text);
    cr_assert(strstr(text, "\"turn\":{\"type\":\"turn\",\"seat\":2,") != NULL, "%s", text);
    cr_assert(strstr(text, "\"custody\":\"fault\"") != NULL, "%s", text);
    ddz_event back = parse_ok(text);
    cr_assert(back.owned, "parse allocated the history");
    cr_assert_neq(back.state.history, plays);
    cr_assert(ddz_event_equal(&e, &back));
    ddz_event_clear(&back);
    ddz_event_clear(&back); /* twice is harmless */
    free(text);
}

/* ---- names, equality, misuse ---- */

Test(event, names_and_types)
{
    static const char *const names[] = {
        NULL,       "welcome",  "rooms",  "joined", "state",     "seat",   "game", "turn",
        "bid_made", "leftover", "played", "over",   "turn_over", "error",  "bye",  "fault",
        "enlisted", "released", "hint",   "phrase", "redirect",  "queued", "rated"};
    cr_assert_eq(sizeof names / sizeof names[0], DDZ_NEVENT);
    for (int t = 1; t < DDZ_NEVENT; t++) {
        cr_assert_str_eq(ddz_event_name(t), names[t]);
        cr_assert_eq(ddz_event_type_of(names[t]), t);
    }
    cr_assert_str_eq(ddz_event_name(0), "unknown");
    cr_assert_str_eq(ddz_event_name(DDZ_NEVENT), "unknown");
    cr_assert_str_eq(ddz_event_name(-3), "unknown");
    cr_assert_eq(ddz_event_type_of("hello"), DDZ_EUNKNOWN);
    cr_assert_eq(ddz_event_type_of(""), DDZ_EUNKNOWN);
}

Test(event, print_refuses_what_it_cannot_print)
{
    ddz_event e = {.type = 0};
    cr_assert_null(ddz_event_print(&e));
    e.type = DDZ_NEVENT;
    cr_assert_null(ddz_event_print(&e));
    e = (ddz_event){.type = DDZ_EVENT_BYE};
    memcpy(e.bye.reason, "\xff\xfe", 3); /* not UTF-8 */
    cr_assert_null(ddz_event_print(&e));
    e = (ddz_event){.type = DDZ_EVENT_ERROR, .error = {.code = DDZ_EWEAK, .id = "{"}};
    cr_assert_null(ddz_event_print(&e));
}

Test(event, equal_sees_every_printed_field)
{
    ddz_event a = parse_ok("{\"type\":\"game\",\"game\":1,\"games\":6,\"commit\":"
                           "\"364e41de0000000000000000000000000000000000000000000000000000ffff\","
                           "\"hand\":null}");
    ddz_event b = a;
    cr_assert(ddz_event_equal(&a, &b));
    b.game.hand = 7; /* not printed while has_hand is false */
    cr_assert(ddz_event_equal(&a, &b));
    b.game.has_hand = true;
    cr_assert_not(ddz_event_equal(&a, &b));
    b = a;
    b.game.commit[31] ^= 1;
    cr_assert_not(ddz_event_equal(&a, &b));
    b = a;
    b.type = DDZ_EVENT_TURN;
    cr_assert_not(ddz_event_equal(&a, &b));

    ddz_event t = parse_ok("{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":4,"
                           "\"deadline_ms\":5,\"legal\":[[2],[5],[]]}");
    ddz_event u = parse_ok("{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":4,"
                           "\"deadline_ms\":5,\"legal\":[[2],[6],[]]}");
    cr_assert_not(ddz_event_equal(&t, &u), "legal contents are compared");
    ddz_event_clear(&u);
    u = parse_ok("{\"type\":\"turn\",\"seat\":0,\"action\":\"play\",\"seq\":4,"
                 "\"deadline_ms\":5,\"legal\":[[2],[5],[]],\"later\":1}");
    cr_assert(ddz_event_equal(&t, &u), "unknown fields are ignored");
    ddz_event_clear(&t);
    ddz_event_clear(&u);
}

Test(event, parse_canonicalises_order)
{
    /* cards and bids in any order read as sets, print ascending */
    ddz_event e = parse_ok("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":1,"
                           "\"deadline_ms\":9,\"legal\":[3,0]}");
    cr_assert_eq(e.turn.legal_bids, 1 | 8);
    char *text = dump(ddz_event_print(&e));
    cr_assert_str_eq(text, "{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\",\"seq\":1,"
                           "\"deadline_ms\":9,\"legal\":[0,3]}");
    free(text);
    e = parse_ok(
        "{\"type\":\"leftover\",\"landlord\":1,\"cards\":[53,4,17],\"bid\":2,\"multiplier\":1}");
    cr_assert_eq(e.leftover.cards, (1ULL << 4) | (1ULL << 17) | (1ULL << 53));
}

Test(event, state_password_may_be_absent)
{
    /* optional in state.json: read as false */
    const char *text =
        "{\"type\":\"state\",\"room\":{\"id\":\"r\",\"name\":\"n\",\"options\":{\"rules\":\"caai\","
        "\"time\":30,\"games\":6,\"private\":false,\"bots\":false,\"autopass\":true,\"grace\":60,"
        "\"custody\":\"ai\",\"pause\":3,\"redeal\":true}},\"seat\":null,\"phase\":\"waiting\","
        "\"game\":1,"
        "\"games\":6,\"commit\":null,\"players\":[null,null,null],\"hand\":null,"
        "\"leftover\":null,\"landlord\":null,\"bid\":null,\"multiplier\":null,\"history\":[],"
        "\"turn\":null,"
        "\"totals\":[0,0,0],\"autopass\":true,\"result\":null}";
    ddz_event e = parse_ok(text);
    cr_assert_not(e.state.password);
    cr_assert_not(e.owned, "nothing to allocate");
    ddz_event_clear(&e);
}

Test(event, parse_refuses_nul_in_strings)
{
    /* jansson's text parser refuses \u0000; a json_t built by hand may hold
     * one, and no C string can */
    ddz_event e;
    char err[200] = "";
    json_t *j = json_pack("{s:s%, s:s}", "type", "bye\0x", (size_t)5, "reason", "x");
    cr_assert_eq(ddz_event_parse(j, &e, err, sizeof err), DDZ_EUNKNOWN, "%s", err);
    json_decref(j);
    j = json_pack("{s:s, s:s%}", "type", "bye", "reason", "a\0b", (size_t)3);
    cr_assert_eq(ddz_event_parse(j, &e, err, sizeof err), DDZ_EFIELD, "%s", err);
    cr_assert(strstr(err, "reason") != NULL, "%s", err);
    json_decref(j);
}

/* ---- ddz_event_dump: a move's events written straight ---- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void same_as_tree(const ddz_event *e)
{
    char *tree = dump(ddz_event_print(e)), *fast = ddz_event_dump(e);
    cr_assert_not_null(tree);
    cr_assert_not_null(fast);
    cr_assert_str_eq(fast, tree, "ddz_event_dump:\n  %s\nthe tree:\n  %s", fast, tree);
    free(tree);
    free(fast);
}

/* Random turns (bids and plays, with and without their legal answers,
 * up to every legal play of a hand), bids and plays of every combo, a
 * pass, an autopass, a multiplier and none, large numbers: the same text
 * as the JSON tree gives, byte for byte. */
Test(event, dump_writes_a_moves_events_as_the_tree_does)
{
    static ddz_cards legal[DDZ_MOVES_MAX];
    for (int round = 0; round < 3000; round++) {
        ddz_event e = {.type = DDZ_EVENT_TURN};
        e.turn.seat = (int)(rnd() % 3);
        e.turn.action = (int)(rnd() % 2);
        e.turn.seq = (uint32_t)(rnd() % 2147483648u);
        e.turn.deadline_ms = (int64_t)(rnd() % 4000000000ull);
        e.turn.has_legal = rnd() % 4 != 0;
        e.turn.legal_bids = (uint8_t)(rnd() % 16);
        e.turn.nlegal = 1 + (size_t)(rnd() % (round % 10 == 0 ? DDZ_MOVES_MAX : 40));
        for (size_t i = 0; i < e.turn.nlegal; i++)
            legal[i] = i == 0 ? 0 : rnd() & rnd() & ((1ull << 54) - 1);
        e.turn.legal = legal;
        same_as_tree(&e);

        ddz_event b = {.type = DDZ_EVENT_BID_MADE,
                       .bid_made = {.seat = (int)(rnd() % 3), .bid = (int)(rnd() % 4)}};
        same_as_tree(&b);

        ddz_event p = {.type = DDZ_EVENT_PLAYED};
        p.played.seat = (int)(rnd() % 3);
        p.played.cards = rnd() % 5 == 0 ? 0 : rnd() & rnd() & ((1ull << 54) - 1);
        p.played.combo = (int)(rnd() % DDZ_NTYPES);
        p.played.autopass = rnd() % 2;
        p.played.left = (int)(rnd() % 21);
        p.played.multiplier = rnd() % 3 == 0 ? 0 : (int)(rnd() % 1000000);
        same_as_tree(&p);
    }
}

/* The tree's reading of `text`: 0 and *e, or its error code. */
static int tree_parse(const char *text, size_t len, ddz_event *e)
{
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (!j) {
        memset(e, 0, sizeof *e);
        return DDZ_ESYNTAX;
    }
    int rc = ddz_event_parse(j, e, NULL, 0);
    json_decref(j);
    return rc;
}

/* A random move's event, its legal plays in `legal`. */
static ddz_event random_move(ddz_cards *legal)
{
    static const int types[] = {DDZ_EVENT_TURN, DDZ_EVENT_BID_MADE, DDZ_EVENT_PLAYED};
    ddz_event e = {.type = types[rnd() % 3]};
    if (e.type == DDZ_EVENT_TURN) {
        e.turn.seat = (int)(rnd() % 3);
        e.turn.action = (int)(rnd() % 2);
        e.turn.seq = (uint32_t)(rnd() % 2147483648u);
        e.turn.deadline_ms = (int64_t)(rnd() % 100000);
        e.turn.has_legal = rnd() % 3 != 0;
        e.turn.legal_bids = (uint8_t)(1 + rnd() % 15);
        e.turn.nlegal = 1 + (size_t)(rnd() % 12);
        for (size_t i = 0; i < e.turn.nlegal; i++)
            legal[i] = i == 0 ? 0 : rnd() & rnd() & rnd() & ((1ull << 54) - 1);
        e.turn.legal = legal;
    } else if (e.type == DDZ_EVENT_BID_MADE) {
        e.bid_made.seat = (int)(rnd() % 3);
        e.bid_made.bid = (int)(rnd() % 4);
    } else {
        e.played.seat = (int)(rnd() % 3);
        e.played.cards = rnd() & rnd() & rnd() & ((1ull << 54) - 1);
        e.played.combo = DDZ_ROCKET + (int)(rnd() % (DDZ_NTYPES - DDZ_ROCKET));
        e.played.autopass = rnd() % 2;
        e.played.left = (int)(rnd() % 21);
        e.played.multiplier = rnd() % 3 == 0 ? 0 : 1 + (int)(rnd() % 100);
    }
    return e;
}

/* What the server writes, ddz_event_parse_move() reads straight, as the
 * tree reads it (the value, and the legal plays owned); and of the same
 * texts with a byte changed, put in or taken out, it accepts none that the
 * tree refuses or reads otherwise. */
Test(event, parse_move_reads_what_dump_writes_and_no_more)
{
    static ddz_cards legal[16];
    int accepted_mutants = 0, mutants = 0;
    for (int round = 0; round < 4000; round++) {
        ddz_event e = random_move(legal);
        char *text = ddz_event_dump(&e);
        cr_assert_not_null(text);
        size_t len = strlen(text);
        ddz_event fast, tree;
        cr_assert_eq(ddz_event_parse_move(text, len, &fast), 1, "declined: %s", text);
        cr_assert_eq(tree_parse(text, len, &tree), 0, "%s", text);
        cr_assert(ddz_event_equal(&fast, &tree), "read otherwise: %s", text);
        cr_assert_eq(fast.owned, tree.owned, "%s", text);
        ddz_event_clear(&fast);
        ddz_event_clear(&tree);
        for (int m = 0; m < 8; m++, mutants++) {
            char buf[2048];
            size_t n = len, at = (size_t)(rnd() % len);
            memcpy(buf, text, len);
            static const char bytes[] = "0123456789-[],:\"{} tfnaeulr.e+9\x00";
            char b = bytes[rnd() % (sizeof bytes - 1)];
            switch (rnd() % 3) {
            case 0:
                buf[at] = b;
                break;
            case 1:
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = b;
                n++;
                break;
            default:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            }
            if (!ddz_event_parse_move(buf, n, &fast))
                continue;
            accepted_mutants++;
            cr_assert_eq(tree_parse(buf, n, &tree), 0, "accepted, the tree refuses: %.*s", (int)n,
                         buf);
            cr_assert(ddz_event_equal(&fast, &tree), "read otherwise: %.*s", (int)n, buf);
            ddz_event_clear(&fast);
            ddz_event_clear(&tree);
        }
        free(text);
    }
    /* a digit for a digit is often still a move: those were compared */
    cr_assert_gt(accepted_mutants, 100, "%d of %d", accepted_mutants, mutants);
    ddz_event other;
    static const char spaced[] = "{\"type\": \"bid_made\",\"seat\":1,\"bid\":2}";
    cr_assert_eq(ddz_event_parse_move(spaced, strlen(spaced), &other), 0,
                 "not as written: the tree's");
    cr_assert_eq(ddz_event_parse_text(spaced, strlen(spaced), &other, NULL, 0), 0);
    cr_assert_eq(other.bid_made.bid, 2);
}

/* The other events go through the tree: the same text too. */
Test(event, dump_of_another_event_is_the_trees)
{
    ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.room = "r12", .seat = 2}};
    same_as_tree(&e);
    ddz_event bad = {.type = 0};
    cr_assert_null(ddz_event_dump(&bad));
}
