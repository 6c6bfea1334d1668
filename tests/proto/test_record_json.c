/* test_record_json.c - game records as JSON lines: round trips on played
 * games, the exact form of one line, every decoding error, random damage,
 * and `ddz verify` on a file of encoded records. */
#include <criterion/criterion.h>
#include <sodium.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/record_same.h"
#include "../rules/record_gen.h"
#include "proto/record_json.h"
#include "proto/text.h"
#include "rules/error.h"

#define NGAMES 5000

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
}

TestSuite(record_json, .init = init);

/* The compact JSON text of `r`. Free it. */
static char *dump(const ddz_record *r)
{
    json_t *j = ddz_record_to_json(r);
    cr_assert_not_null(j, "game %d: to_json", r->game);
    char *s = json_dumps(j, DDZ_RECORD_JSON_FLAGS);
    cr_assert_not_null(s);
    json_decref(j);
    return s;
}

/* The rule set a record names (caai if it names none we know). */
static const ddz_rules *rules_of(const ddz_record *r)
{
    const ddz_rules *rs = ddz_rules_find(r->rules);
    return rs ? rs : &ddz_rules_caai;
}

/* Decodes one line of text; returns the ddz_record_from_json() result. */
static int load(const char *text, ddz_record *r, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_ALLOW_NUL, &jerr);
    cr_assert_not_null(j, "%s: %s", text, jerr.text);
    int rc = ddz_record_from_json(j, r, err, errlen);
    json_decref(j);
    return rc;
}

static void round_trips(const ddz_rules *rs, uint32_t games)
{
    static ddz_record r, back, again;
    char err[256];
    for (uint32_t k = 0; k < games; k++) {
        gen_record_rules(k, rs, &r);
        char *text = dump(&r);
        cr_assert_eq(load(text, &back, err, sizeof err), 0, "game %u: %s", k, err);
        assert_same(&r, &back);
        char *text2 = dump(&back);
        cr_assert_str_eq(text, text2, "print(parse(x)) == x");
        free(text2);

        /* The shape of spec §10, checked on the JSON itself. */
        json_t *j = json_loads(text, 0, NULL);
        json_t *plays = json_object_get(j, "plays");
        for (size_t i = 0; i < json_array_size(plays); i++) {
            json_t *p = json_array_get(plays, i);
            json_t *cards = json_object_get(p, "cards");
            cr_assert(json_is_array(cards));
            cr_assert_eq(json_array_size(cards) == 0, r.plays[i].cards == 0);
            cr_assert_eq(json_object_get(p, "auto") != NULL, r.plays[i].autopass != 0);
        }
        cr_assert_eq(json_is_null(json_object_get(j, "landlord")), r.landlord < 0);
        cr_assert_eq(json_is_null(json_object_get(j, "winner")), r.winner < 0);
        cr_assert_eq(json_is_null(json_object_get(j, "fault")), r.fault_seat < 0);
        json_t *faults = json_object_get(j, "faults");
        cr_assert_eq(json_array_size(faults), (size_t)r.nfaults);
        for (int i = 0; i < r.nfaults; i++) {
            json_t *f = json_array_get(faults, (size_t)i);
            cr_assert_eq(json_integer_value(json_object_get(f, "at")), r.faults[i].at);
            cr_assert_eq(json_object_get(f, "bids") != NULL, r.faults[i].at < 0);
        }
        cr_assert(json_is_boolean(json_object_get(j, "spring")));
        /* scores: integers when whole, else reals of at most 3 decimals */
        json_t *scores = json_object_get(j, "scores");
        for (int s = 0; s < 3; s++) {
            json_t *x = json_array_get(scores, (size_t)s);
            cr_assert_eq(json_is_integer(x), r.scores[s] == (double)(long long)r.scores[s]);
            if (rs == &ddz_rules_caai)
                cr_assert(json_is_integer(x), "caai scores are integers");
        }
        const char *sc = strstr(text, "\"scores\":[");
        cr_assert_lt(strcspn(sc, "]"), (size_t)40, "scores print shortest: %.60s", sc);
        cr_assert_eq(ddz_record_verify(&back, rs, err, sizeof err), 0, "%s", err);
        json_decref(j);
        free(text);

        /* A record re-decoded from its own decoding is still the same. */
        char *text3 = dump(&back);
        cr_assert_eq(load(text3, &again, err, sizeof err), 0);
        assert_same(&r, &again);
        free(text3);
    }
}

Test(record_json, round_trip_of_played_games)
{
    round_trips(&ddz_rules_caai, NGAMES);
}

Test(record_json, round_trip_of_botzone_games)
{
    round_trips(&ddz_rules_botzone_ftl, NGAMES / 2);
    round_trips(&ddz_rules_botzone_ftl2, NGAMES / 2);
}

/* spec §2's known-answer deal: West bids 3 and crashes before playing. */
static void known_answer(ddz_record *r)
{
    memset(r, 0, sizeof *r);
    strcpy(r->rules, "caai");
    r->game = 7;
    for (int i = 0; i < DDZ_SEED_BYTES; i++)
        r->seed[i] = (uint8_t)i;
    ddz_deal_commit(r->seed, r->commit);
    cr_assert_eq(ddz_deal_from_seed(r->seed, &r->deal), 0);
    r->early_penalty = 350;
    r->nbids = 1;
    r->bids[0] = 3;
    r->landlord = 0;
    r->winner = -1;
    r->fault_seat = 0;
    r->fault_kind = DDZ_FAULT_CRASH;
    r->nfaults = 1;
    r->faults[0] = (ddz_fault_entry){.seat = 0, .kind = DDZ_FAULT_CRASH, .at = 0, .bids = 1};
    r->scores[0] = -1200;
    r->scores[1] = r->scores[2] = 600;
    strcpy(r->names[0], "ai:random");
    strcpy(r->names[1], "exec:./engine \"x\"");
    strcpy(r->names[2], "\xe5\x8c\x97");
}

static const char known_line[] =
    "{\"game\":7,\"rules\":\"caai\","
    "\"seed\":\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\","
    "\"commit\":\"cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6\","
    "\"hands\":[[6,8,14,16,18,21,24,30,34,35,40,41,43,44,46,47,49],"
    "[10,11,13,17,20,23,27,28,29,31,32,33,36,38,42,51,52],"
    "[0,1,2,3,4,7,9,12,15,19,25,26,37,39,45,48,53]],"
    "\"leftover\":[5,22,50],\"early_penalty\":350,\"bids\":[{\"seat\":0,\"bid\":3}],"
    "\"landlord\":0,\"plays\":[],\"winner\":null,\"fault\":{\"seat\":0,\"kind\":\"crash\"},"
    "\"faults\":[{\"seat\":0,\"kind\":\"crash\",\"at\":0}],\"bombs\":0,\"rocket\":false,\"spring\":"
    "false,\"anti_spring\":false,\"multiplier\":0,"
    "\"scores\":[-1200,600,600],"
    "\"names\":[\"ai:random\",\"exec:./engine \\\"x\\\"\",\"\xe5\x8c\x97\"]}";

Test(record_json, the_exact_line)
{
    static ddz_record r, back;
    char err[256];
    known_answer(&r);
    char *text = dump(&r);
    cr_assert_str_eq(text, known_line);
    free(text);
    cr_assert_eq(load(known_line, &back, err, sizeof err), 0, "%s", err);
    assert_same(&r, &back);
    cr_assert_eq(ddz_record_verify(&back, &ddz_rules_caai, err, sizeof err), 0, "%s", err);
}

/* The same deal under botzone-ftl: no bids, West (the landlord, holding
 * the leftover 5,22,50) leads its lowest card, 5, and South crashes before
 * its turn: the landlord scores 2.5, the farmers -1. Then a bidding fault
 * under botzone-ftl2, and fractional scores in their shortest form. */
Test(record_json, the_exact_botzone_lines)
{
    static ddz_record r, back;
    char err[256];
    known_answer(&r);
    strcpy(r.rules, "botzone-ftl");
    r.early_penalty = 0;
    r.nbids = 0;
    r.nplays = 1;
    r.plays[0] = (ddz_record_play){.seat = 0, .cards = 1ULL << 5};
    r.fault_seat = 1;
    r.faults[0] = (ddz_fault_entry){.seat = 1, .kind = DDZ_FAULT_CRASH, .at = 1, .bids = 0};
    r.scores[0] = 2.5;
    r.scores[1] = r.scores[2] = -1;
    cr_assert_eq(ddz_record_verify(&r, &ddz_rules_botzone_ftl, err, sizeof err), 0, "%s", err);
    char *text = dump(&r);
    const char *want = "\"early_penalty\":0,\"bids\":[],\"landlord\":0,\"plays\":[{\"seat\":0,"
                       "\"cards\":[5]}],\"winner\":null,\"fault\":{\"seat\":1,\"kind\":"
                       "\"crash\"},\"faults\":[{\"seat\":1,\"kind\":\"crash\",\"at\":1}],"
                       "\"bombs\":0,\"rocket\":false,\"spring\":false,\"anti_spring\":false,"
                       "\"multiplier\":0,\"scores\":[2.5,-1,-1],";
    cr_assert_not_null(strstr(text, want), "%s", text);
    free(text);

    /* a botzone-ftl2 fault during bidding says how many bids came first */
    known_answer(&r);
    strcpy(r.rules, "botzone-ftl2");
    r.faults[0].at = -1;
    r.faults[0].bids = 1;
    text = dump(&r);
    cr_assert_not_null(strstr(text, "\"faults\":[{\"seat\":0,\"kind\":\"crash\",\"at\":-1,"
                                    "\"bids\":1}]"),
                       "%s", text);
    cr_assert_eq(load(text, &back, err, sizeof err), 0, "%s", err);
    assert_same(&r, &back);
    free(text);

    /* 2.035 is 407 / 200: printed as 2.035, read back as the same double */
    r.scores[0] = 407 / 200.0;
    r.scores[1] = r.scores[2] = 6 / 200.0;
    text = dump(&r);
    cr_assert_not_null(strstr(text, "\"scores\":[2.035,0.03,0.03]"), "%s", text);
    cr_assert_eq(load(text, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.scores[0], 407 / 200.0);
    cr_assert_eq(back.scores[1], 6 / 200.0);
    free(text);
}

/* Replaces (or with value NULL, deletes) the value at `path` in `root`:
 * keys joined by '.', array indices in brackets: "plays[3].cards". */
static void set_path(json_t *root, const char *path, const char *value)
{
    json_t *parent = NULL, *cur = root;
    char key[64] = "";
    long index = -1;
    const char *p = path;
    while (*p) {
        parent = cur;
        if (*p == '[') {
            index = strtol(p + 1, (char **)&p, 10);
            cr_assert_eq(*p, ']', "%s", path);
            p++;
            key[0] = '\0';
            cur = json_array_get(parent, (size_t)index);
        } else {
            if (*p == '.')
                p++;
            size_t n = strcspn(p, ".[");
            memcpy(key, p, n);
            key[n] = '\0';
            p += n;
            index = -1;
            cur = json_object_get(parent, key);
        }
        cr_assert(cur || (!*p && value), "%s: no such value", path);
    }
    json_t *v = NULL;
    if (value) {
        json_error_t jerr;
        v = json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        cr_assert_not_null(v, "%s: %s", value, jerr.text);
    }
    if (key[0] && value)
        json_object_set_new(parent, key, v);
    else if (key[0])
        json_object_del(parent, key);
    else if (value)
        json_array_set_new(parent, (size_t)index, v);
    else
        json_array_remove(parent, (size_t)index);
}

typedef struct bad_case {
    const char *path;  /* what to change */
    const char *value; /* new JSON value, NULL to delete it */
    const char *err;   /* how the error message must start */
} bad_case;

static const char long_name[] =
    "\"0123456789012345678901234567890123456789012345678901234567890123\"";

static const bad_case bad_cases[] = {
    {"game", NULL, "game: missing"},
    {"game", "-1", "game: -1 outside 0..2147483647"},
    {"game", "4294967296", "game: 4294967296 outside"},
    {"game", "\"7\"", "game: expected an integer, got a string"},
    {"rules", "7", "rules: expected a string"},
    {"rules", "\"a-rule-set-name-too-long\"", "rules: 24 bytes, at most 15"},
    {"seed", NULL, "seed: missing"},
    {"seed", "\"xyz\"", "seed: not 64 hex digits"},
    {"seed", "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g\"",
     "seed: not 64 hex digits"},
    {"seed", "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f00\"",
     "seed: not 64 hex digits"},
    {"seed", "42", "seed: expected 64 hex digits, got an integer"},
    {"commit", NULL, "commit: missing"},
    {"commit", "\"000102030405060708090a0b0c0d0e0f\\u00001112131415161718191a1b1c1d1e1f0\"",
     "commit: not 64 hex digits"},
    {"hands", NULL, "hands: missing"},
    {"hands", "{}", "hands: expected an array, got an object"},
    {"hands", "[[],[]]", "hands: 2 items, expected 3"},
    {"hands[1][3]", "54", "hands[1]: card 54 outside 0..53"},
    {"hands[1][3]", "-1", "hands[1]: card -1 outside 0..53"},
    {"hands[1][3]", "99999999999999999999", NULL}, /* jansson: integer overflow */
    {"hands[1][3]", "\"3\"", "hands[1][3]: expected a card code, got a string"},
    {"hands[1][3]", "3.0", "hands[1][3]: expected a card code"},
    {"hands[1]", "[1,2,1]", "hands[1]: card 1 twice"},
    {"hands[2]", "null", "hands[2]: expected an array of card codes, got null"},
    {"leftover", "[1,2,99]", "leftover: card 99 outside 0..53"},
    {"early_penalty", "-5", "early_penalty: -5 outside 0..1000000"},
    {"early_penalty", "true", "early_penalty: expected an integer, got true"},
    {"bids", NULL, "bids: missing"},
    {"bids",
     "[{\"seat\":0,\"bid\":0},{\"seat\":1,\"bid\":0},{\"seat\":2,\"bid\":0},"
     "{\"seat\":0,\"bid\":0}]",
     "bids: 4 items, at most 3"},
    {"bids[0]", "3", "bids[0]: expected an object, got an integer"},
    {"bids[1].seat", "3", "bids[1].seat: 3 outside 0..2"},
    {"bids[1].seat", "2", "bids[1].seat: 2, but bid 1 is seat 1's"},
    {"bids[1].seat", NULL, "bids[1].seat: missing"},
    {"bids[0].bid", "4", "bids[0].bid: 4 outside 0..3"},
    {"bids[0].bid", "1.0", "bids[0].bid: expected an integer"},
    {"bids[0].bid", NULL, "bids[0].bid: missing"},
    {"landlord", NULL, "landlord: missing"},
    {"landlord", "3", "landlord: 3 outside 0..2"},
    {"landlord", "\"0\"", "landlord: expected a seat or null, got a string"},
    {"plays", NULL, "plays: missing"},
    {"plays", "{}", "plays: expected an array"},
    {"plays[3]", "[]", "plays[3]: expected an object, got an array"},
    {"plays[3].seat", "3", "plays[3].seat: 3 outside 0..2"},
    {"plays[3].seat", NULL, "plays[3].seat: missing"},
    {"plays[3].cards", "[54]", "plays[3].cards: card 54 outside 0..53"},
    {"plays[3].cards", "[1,1]", "plays[3].cards: card 1 twice"},
    {"plays[3].cards", "3", "plays[3].cards: expected an array of card codes"},
    {"plays[3].cards", NULL, "plays[3].cards: missing"},
    {"plays[3].auto", "\"yes\"", "plays[3].auto: expected true or false, got a string"},
    {"plays[3].auto", "2", "plays[3].auto: expected true or false"},
    {"winner", NULL, "winner: missing"},
    {"winner", "-1", "winner: -1 outside 0..2"},
    {"fault", NULL, "fault: missing"},
    {"fault", "\"crash\"", "fault: expected an object or null, got a string"},
    {"fault", "{\"seat\":1,\"kind\":\"flood\"}", "fault.kind: not timeout, illegal"},
    {"fault", "{\"seat\":1,\"kind\":\"none\"}", "fault.kind: not timeout, illegal"},
    {"fault", "{\"seat\":1,\"kind\":\"crash\\u0000x\"}", "fault.kind: not timeout, illegal"},
    {"fault", "{\"seat\":1,\"kind\":3}", "fault.kind: expected a string"},
    {"fault", "{\"seat\":5,\"kind\":\"crash\"}", "fault.seat: 5 outside 0..2"},
    {"fault", "{\"kind\":\"crash\"}", "fault.seat: missing"},
    {"fault", "{\"seat\":1}", "fault.kind: missing"},
    {"bombs", NULL, "bombs: missing"},
    {"bombs", "\"2\"", "bombs: expected an integer, got a string"},
    {"bombs", "14", "bombs: 14 outside 0..13"},
    {"bombs", "-1", "bombs: -1 outside 0..13"},
    {"rocket", "\"yes\"", "rocket: expected true or false, got a string"},
    {"rocket", "2", "rocket: expected true or false, got an integer"},
    {"rocket", "null", "rocket: expected true or false, got null"},
    {"spring", NULL, "spring: missing"},
    {"anti_spring", "[]", "anti_spring: expected true or false, got an array"},
    {"multiplier", "1000001", "multiplier: 1000001 outside 0..1000000"},
    {"multiplier", "2.5", "multiplier: expected an integer, got a number"},
    {"scores", NULL, "scores: missing"},
    {"scores", "[0,0]", "scores: 2 items, expected 3"},
    {"scores", "[0,0,0,0]", "scores: 4 items, expected 3"},
    {"scores[1]", "2147483648", "scores[1]: 2147483648 outside -2147483648..2147483647"},
    {"scores[1]", "-1e10", "scores[1]: -10000000000 outside"},
    {"scores[1]", "\"1\"", "scores[1]: expected a number, got a string"},
    {"scores[1]", "0.0005", "scores[1]: 0.0005 outside -2147483648..2147483647 or not a multiple"},
    {"scores[1]", "null", "scores[1]: expected a number, got null"},
    {"faults", "{}", "faults: expected an array, got an object"},
    {"faults", "[{},{},{},{}]", "faults: 4 items, at most 3"},
    {"faults", "[7]", "faults[0]: expected an object, got an integer"},
    {"faults", "[{\"kind\":\"crash\",\"at\":0}]", "faults[0].seat: missing"},
    {"faults", "[{\"seat\":3,\"kind\":\"crash\",\"at\":0}]", "faults[0].seat: 3 outside 0..2"},
    {"faults", "[{\"seat\":1,\"at\":0}]", "faults[0].kind: missing"},
    {"faults", "[{\"seat\":1,\"kind\":\"late\",\"at\":0}]", "faults[0].kind: not timeout"},
    {"faults", "[{\"seat\":1,\"kind\":\"crash\"}]", "faults[0].at: missing"},
    {"faults", "[{\"seat\":1,\"kind\":\"crash\",\"at\":-2}]", "faults[0].at: -2 outside -1..170"},
    {"faults", "[{\"seat\":1,\"kind\":\"crash\",\"at\":171}]", "faults[0].at: 171 outside"},
    {"faults", "[{\"seat\":1,\"kind\":\"crash\",\"at\":-1,\"bids\":4}]",
     "faults[0].bids: 4 outside 0..3"},
    {"faults", "[{\"seat\":1,\"kind\":\"crash\",\"at\":-1,\"bids\":\"1\"}]",
     "faults[0].bids: expected an integer"},
    {"names", NULL, "names: missing"},
    {"names", "[\"a\",\"b\"]", "names: 2 items, expected 3"},
    {"names[2]", "7", "names[2]: expected a string, got an integer"},
    {"names[2]", long_name, "names[2]: 64 bytes, at most 63"},
    {"names[0]", "\"a\\u0000b\"", "names[0]: contains a NUL character"},
};

/* A played record with at least 4 plays and a bid by South, as JSON. */
static json_t *sample(ddz_record *r)
{
    for (uint32_t k = 1;; k++) {
        gen_record(k, r);
        if (r->nplays >= 4 && r->nbids >= 2)
            return ddz_record_to_json(r);
    }
}

Test(record_json, every_bad_field_is_named)
{
    static ddz_record r, out;
    json_t *good = sample(&r);
    char err[256];
    cr_assert_eq(ddz_record_from_json(good, &out, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        if (!c->err) { /* not even JSON that jansson takes */
            cr_assert_null(json_loads(c->value, JSON_DECODE_ANY, NULL));
            continue;
        }
        json_t *j = json_deep_copy(good);
        set_path(j, c->path, c->value);
        strcpy(err, "(untouched)");
        int rc = ddz_record_from_json(j, &out, err, sizeof err);
        json_decref(j);
        cr_assert_eq(rc, DDZ_EFIELD, "%s = %s: rc %d", c->path, c->value ? c->value : "(deleted)",
                     rc);
        cr_assert(strncmp(err, c->err, strlen(c->err)) == 0, "%s = %s: error '%s', want '%s...'",
                  c->path, c->value ? c->value : "(deleted)", err, c->err);
    }
    json_decref(good);
}

Test(record_json, huge_arrays_are_refused_by_their_length)
{
    static ddz_record r, out;
    json_t *good = sample(&r);
    char err[256];
    struct {
        const char *key;
        size_t n;
        const char *err;
    } cases[] = {
        {"plays", DDZ_RECORD_MAX_PLAYS + 1, "plays: 171 items, at most 170"},
        {"plays", 1000000, "plays: 1000000 items, at most 170"},
        {"bids", 100000, "bids: 100000 items, at most 3"},
        {"names", 100000, "names: 100000 items, expected 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_deep_copy(good);
        json_t *a = json_array();
        json_t *item = json_array_get(json_object_get(good, cases[i].key), 0);
        for (size_t n = 0; n < cases[i].n; n++)
            json_array_append(a, item);
        json_object_set_new(j, cases[i].key, a);
        cr_assert_eq(ddz_record_from_json(j, &out, err, sizeof err), DDZ_EFIELD);
        cr_assert_str_eq(err, cases[i].err);
        json_decref(j);
    }
    /* A hand of every card and more. */
    json_t *j = json_deep_copy(good);
    json_t *hand = json_array();
    for (int n = 0; n < 1000; n++)
        json_array_append_new(hand, json_integer(n % 54));
    json_array_set_new(json_object_get(j, "hands"), 0, hand);
    cr_assert_eq(ddz_record_from_json(j, &out, err, sizeof err), DDZ_EFIELD);
    cr_assert_str_eq(err, "hands[0]: 1000 cards, at most 54");
    json_decref(j);
    json_decref(good);
}

Test(record_json, not_an_object)
{
    static ddz_record out;
    char err[256];
    json_t *a = json_array();
    cr_assert_eq(ddz_record_from_json(a, &out, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_str_eq(err, "record: expected an object, got an array");
    json_decref(a);
    cr_assert_eq(ddz_record_from_json(NULL, &out, err, sizeof err), DDZ_ESYNTAX);
    cr_assert_eq(ddz_record_from_json(NULL, &out, NULL, 0), DDZ_ESYNTAX);
}

/* What a reader accepts besides the canonical form. */
Test(record_json, tolerated_variants)
{
    static ddz_record r, out;
    char err[256];
    json_t *good = sample(&r);
    json_t *j = json_deep_copy(good);
    json_object_del(j, "rules");
    json_object_del(j, "early_penalty");
    json_object_del(j, "faults"); /* the one `fault`, after the last action */
    json_object_set_new(j, "rocket", json_integer(r.rocket));
    json_object_set_new(j, "spring", json_integer(r.spring));
    json_object_set_new(j, "anti_spring", json_integer(r.anti_spring));
    json_object_set_new(j, "time", json_integer(15)); /* unknown keys are ignored */
    char hex[65];
    ddz_text_format_seed(r.seed, hex);
    for (char *p = hex; *p; p++)
        *p = (char)(*p >= 'a' ? *p - 'a' + 'A' : *p);
    json_object_set_new(j, "seed", json_string(hex));
    json_t *hand = json_object_get(j, "leftover");
    json_t *rev = json_array();
    for (size_t i = json_array_size(hand); i-- > 0;)
        json_array_append(rev, json_array_get(hand, i));
    json_object_set_new(j, "leftover", rev);
    json_t *plays = json_object_get(j, "plays");
    for (size_t i = 0; i < json_array_size(plays); i++)
        if (r.plays[i].autopass)
            json_object_set_new(json_array_get(plays, i), "auto", json_integer(1));
        else if (i % 2)
            json_object_set_new(json_array_get(plays, i), "auto", json_false());
    cr_assert_eq(ddz_record_from_json(j, &out, err, sizeof err), 0, "%s", err);
    assert_same(&r, &out);
    json_decref(j);
    json_decref(good);
}

Test(record_json, writer_refuses_or_repairs_bad_values)
{
    static ddz_record r, out;
    char err[256];
    known_answer(&r);
    r.nbids = 4;
    cr_assert_null(ddz_record_to_json(&r));
    known_answer(&r);
    r.nplays = DDZ_RECORD_MAX_PLAYS + 1;
    cr_assert_null(ddz_record_to_json(&r));
    known_answer(&r);
    r.nplays = -1;
    cr_assert_null(ddz_record_to_json(&r));

    /* Invalid UTF-8 becomes '?', a name without its NUL is cut at 63 bytes. */
    known_answer(&r);
    strcpy(r.names[0], "bad\xff\xfe utf8 \xe5\x8c");
    memset(r.names[1], 'n', DDZ_NAME_MAX);
    strcpy(r.rules, "caai");
    json_t *j = ddz_record_to_json(&r);
    cr_assert_not_null(j);
    cr_assert_eq(ddz_record_from_json(j, &out, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(out.names[0], "bad?? utf8 ??");
    cr_assert_eq(strlen(out.names[1]), DDZ_NAME_MAX - 1);
    json_decref(j);
}

/* Random damage to valid lines: whatever jansson still parses must either
 * decode to a record that survives a round trip and verification without
 * a crash, or be refused with a message. Meant for the sanitizer build. */
Test(record_json, random_damage_never_crashes)
{
    static ddz_record r, out, again;
    char err[256];
    ddz_rng rng;
    ddz_rng_seed(&rng, 99);
    int decoded = 0, refused = 0;
    for (uint32_t k = 0; k < 200; k++) {
        gen_record(k, &r);
        char *text = dump(&r);
        size_t len = strlen(text);
        char *buf = malloc(len + 16);
        for (int t = 0; t < 100; t++) {
            memcpy(buf, text, len + 1);
            size_t n = len;
            for (int e = 0; e < 1 + (int)ddz_rng_below(&rng, 3); e++) {
                size_t at = ddz_rng_below(&rng, (uint32_t)n);
                static const char pool[] = "0123456789-[]{},:\"tfn.e ";
                switch (ddz_rng_below(&rng, 3)) {
                case 0: /* replace */
                    buf[at] = pool[ddz_rng_below(&rng, sizeof pool - 1)];
                    break;
                case 1: /* delete */
                    memmove(buf + at, buf + at + 1, n - at);
                    n--;
                    break;
                default: /* insert */
                    memmove(buf + at + 1, buf + at, n - at + 1);
                    buf[at] = pool[ddz_rng_below(&rng, sizeof pool - 1)];
                    n++;
                }
            }
            json_t *j = json_loadb(buf, n, 0, NULL);
            if (!j)
                continue;
            err[0] = '\0';
            if (ddz_record_from_json(j, &out, err, sizeof err) == 0) {
                decoded++;
                ddz_record_verify(&out, rules_of(&out), err, sizeof err);
                char *t2 = dump(&out);
                cr_assert_eq(load(t2, &again, err, sizeof err), 0, "%s", err);
                assert_same(&out, &again);
                free(t2);
            } else {
                refused++;
                cr_assert_neq(err[0], '\0');
                cr_assert_lt(strlen(err), sizeof err - 1);
            }
            json_decref(j);
        }
        free(buf);
        free(text);
    }
    cr_log_info("%d damaged lines decoded, %d refused", decoded, refused);
    cr_assert_gt(decoded, 100);
    cr_assert_gt(refused, 1000);
}

/* `ddz verify` accepts a file of encoded games and names the line of the
 * first altered one. */
Test(record_json, ddz_verify_reads_what_the_writer_writes)
{
    static ddz_record r;
    char path[] = "/tmp/ddz_record_json_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (uint32_t k = 0; k < 1000; k++) {
        gen_record(k, &r);
        if (k == 600)
            r.scores[2] += 100;
        char *text = dump(&r);
        fprintf(f, "%s\n%s", text, k % 100 == 0 ? "\n" : "");
        free(text);
    }
    fclose(f);
    char cmd[512], out[512] = "";
    snprintf(cmd, sizeof cmd, "head -n 500 %s | %s verify - 2>&1", path, DDZ_BIN);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(fgets(out, sizeof out, p));
    cr_assert_eq(pclose(p), 0, "%s", out);
    cr_assert_str_eq(out, "495 records verified\n"); /* 5 of the 500 lines are blank */

    snprintf(cmd, sizeof cmd, "%s verify %s 2>&1", DDZ_BIN, path);
    p = popen(cmd, "r");
    cr_assert_not_null(fgets(out, sizeof out, p));
    int status = pclose(p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s", out);
    /* game 600 is on line 600 + 7 (blank lines after games 0, 100, ... 600) */
    cr_assert(strstr(out, "ddz verify: line 607 (game 600): scores[2]: ") == out, "%s", out);
    unlink(path);
}
