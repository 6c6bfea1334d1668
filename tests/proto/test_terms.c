/* test_terms.c - the terms that explain a game's scores as JSON
 * (proto/terms.h): the exact text of every kind, round trips, what the
 * parser refuses; and a served record's terms (ddz_record_json_explain). */
#include <criterion/criterion.h>
#include <sodium.h>
#include <stdlib.h>

#include "../rules/record_gen.h"
#include "proto/record_json.h"
#include "proto/terms.h"
#include "rules/error.h"

/* One term of every kind, with every field its kind has. */
static const ddz_term every[] = {
    {.kind = DDZ_TERM_BID, .seat = -1, .value = 2},
    {.kind = DDZ_TERM_START, .seat = -1, .value = 1},
    {.kind = DDZ_TERM_BASE, .seat = -1, .value = 3},
    {.kind = DDZ_TERM_BOMBS, .seat = -1, .count = 2, .value = 4},
    {.kind = DDZ_TERM_ROCKET, .seat = -1, .value = 2},
    {.kind = DDZ_TERM_SPRING, .seat = -1, .value = 2},
    {.kind = DDZ_TERM_ANTI_SPRING, .seat = -1, .value = 2},
    {.kind = DDZ_TERM_MULTIPLIER, .seat = -1, .value = 8},
    {.kind = DDZ_TERM_UNIT, .seat = -1, .value = 16},
    {.kind = DDZ_TERM_STAKE, .seat = -1, .value = 24},
    {.kind = DDZ_TERM_FARMER, .seat = -1, .value = 1600},
    {.kind = DDZ_TERM_LANDLORD, .seat = -1, .value = 3200},
    {.kind = DDZ_TERM_WIN, .seat = 0, .value = 2},
    {.kind = DDZ_TERM_PLAYS, .seat = 1, .combo = DDZ_QUAD_STRAIGHT, .count = 1, .value = 0.2},
    {.kind = DDZ_TERM_POINTS, .seat = 2, .value = 0.35},
    {.kind = DDZ_TERM_MEAN, .seat = -1, .value = 0.085},
    {.kind = DDZ_TERM_PENALTY, .seat = 1, .fault = DDZ_FAULT_TIMEOUT, .value = 350},
    {.kind = DDZ_TERM_FORFEIT, .seat = 2, .fault = DDZ_FAULT_CRASH, .value = -1},
    {.kind = DDZ_TERM_AWARD, .seat = -1, .value = 2.5},
    {.kind = DDZ_TERM_STANDIN, .seat = 0, .fault = DDZ_FAULT_ILLEGAL},
    {.kind = DDZ_TERM_ALL_FAULTED, .seat = -1, .value = -1},
};
enum { NEVERY = sizeof every / sizeof every[0] };

static const char every_text[] =
    "[{\"term\":\"bid\",\"value\":2},{\"term\":\"start\",\"value\":1},"
    "{\"term\":\"base\",\"value\":3},{\"term\":\"bombs\",\"count\":2,\"value\":4},"
    "{\"term\":\"rocket\",\"value\":2},{\"term\":\"spring\",\"value\":2},"
    "{\"term\":\"anti_spring\",\"value\":2},{\"term\":\"multiplier\",\"value\":8},"
    "{\"term\":\"unit\",\"value\":16},{\"term\":\"stake\",\"value\":24},"
    "{\"term\":\"farmer\",\"value\":1600},{\"term\":\"landlord\",\"value\":3200},"
    "{\"term\":\"win\",\"seat\":0,\"value\":2},"
    "{\"term\":\"plays\",\"seat\":1,\"combo\":\"quad_straight\",\"count\":1,\"value\":0.2},"
    "{\"term\":\"points\",\"seat\":2,\"value\":0.35},{\"term\":\"mean\",\"value\":0.085},"
    "{\"term\":\"penalty\",\"seat\":1,\"fault\":\"timeout\",\"value\":350},"
    "{\"term\":\"forfeit\",\"seat\":2,\"fault\":\"crash\",\"value\":-1},"
    "{\"term\":\"award\",\"value\":2.5},{\"term\":\"standin\",\"seat\":0,\"fault\":\"illegal\"},"
    "{\"term\":\"all_faulted\",\"value\":-1}]";

Test(terms, every_kind_prints_its_fields_and_reads_back)
{
    cr_assert_eq(NEVERY, DDZ_NTERM_KINDS - 1, "one of each kind");
    json_t *a = ddz_terms_json(every, NEVERY);
    cr_assert_not_null(a);
    char *text = json_dumps(a, DDZ_RECORD_JSON_FLAGS);
    cr_assert_str_eq(text, every_text);
    ddz_term back[DDZ_TERMS_MAX];
    int n = -1;
    char err[128] = "";
    cr_assert_eq(ddz_terms_parse(a, back, &n, err, sizeof err), 0, "%s", err);
    cr_assert(ddz_terms_equal(back, n, every, NEVERY));
    free(text);
    json_decref(a);
    /* an empty list is a list */
    a = ddz_terms_json(every, 0);
    cr_assert(json_is_array(a) && json_array_size(a) == 0);
    cr_assert_eq(ddz_terms_parse(a, back, &n, NULL, 0), 0);
    cr_assert_eq(n, 0);
    json_decref(a);
}

Test(terms, the_printer_refuses_what_is_no_list)
{
    ddz_term bad = {.kind = DDZ_NTERM_KINDS};
    cr_assert_null(ddz_terms_json(&bad, 1));
    cr_assert_null(ddz_terms_json(every, -1));
    cr_assert_null(ddz_terms_json(every, DDZ_TERMS_MAX + 1));
}

/* Each case: the text of a list, and the place its error names. */
Test(terms, the_parser_names_what_is_wrong)
{
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"{}", "must be an array"},
        {"[1]", "[0]: must be an object"},
        {"[{}]", "[0].term: must be a term kind"},
        {"[{\"term\":\"bonus\",\"value\":1}]", "[0].term"},
        {"[{\"term\":\"bid\",\"value\":1},{\"term\":\"win\",\"value\":2}]", "[1].seat"},
        {"[{\"term\":\"win\",\"seat\":3,\"value\":2}]", "[0].seat"},
        {"[{\"term\":\"plays\",\"seat\":0,\"count\":1,\"value\":0.01}]", "[0].combo"},
        {"[{\"term\":\"plays\",\"seat\":0,\"combo\":\"pass\",\"count\":1,\"value\":0}]",
         "[0].combo"},
        {"[{\"term\":\"plays\",\"seat\":0,\"combo\":\"single\",\"count\":0,\"value\":0}]",
         "[0].count"},
        {"[{\"term\":\"bombs\",\"count\":21,\"value\":2}]", "[0].count"},
        {"[{\"term\":\"standin\",\"seat\":0,\"fault\":\"none\"}]", "[0].fault"},
        {"[{\"term\":\"bid\"}]", "[0].value"},
        {"[{\"term\":\"bid\",\"value\":\"2\"}]", "[0].value"},
        {"[{\"term\":\"mean\",\"value\":0.0005}]", "[0].value"},
        {"[{\"term\":\"farmer\",\"value\":3e9}]", "[0].value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *a = json_loads(bad[i].text, JSON_DECODE_ANY, NULL);
        cr_assert_not_null(a, "%s", bad[i].text);
        ddz_term t[DDZ_TERMS_MAX];
        int n;
        char err[160] = "";
        cr_assert_eq(ddz_terms_parse(a, t, &n, err, sizeof err), DDZ_EFIELD, "%s", bad[i].text);
        cr_assert(strstr(err, bad[i].err), "%s: \"%s\" does not name %s", bad[i].text, err,
                  bad[i].err);
        json_decref(a);
    }
    /* 49 terms are too many; keys a kind does not have are ignored */
    json_t *a = json_array();
    for (int i = 0; i <= DDZ_TERMS_MAX; i++)
        json_array_append_new(a, json_pack("{s:s, s:i}", "term", "start", "value", 1));
    ddz_term t[DDZ_TERMS_MAX];
    int n;
    cr_assert_eq(ddz_terms_parse(a, t, &n, NULL, 0), DDZ_EFIELD);
    json_array_remove(a, 0);
    cr_assert_eq(ddz_terms_parse(a, t, &n, NULL, 0), 0);
    cr_assert_eq(n, DDZ_TERMS_MAX);
    json_decref(a);
    a = json_loads("[{\"term\":\"bid\",\"seat\":1,\"value\":2,\"note\":\"x\"}]", 0, NULL);
    cr_assert_eq(ddz_terms_parse(a, t, &n, NULL, 0), 0);
    cr_assert(n == 1 && t[0].kind == DDZ_TERM_BID && t[0].seat == -1 && t[0].value == 2);
    json_decref(a);
}

Test(terms, equal_looks_at_the_fields_of_the_kind)
{
    ddz_term a = every[0], b = every[0];
    b.seat = 2; /* BID has no seat */
    cr_assert(ddz_terms_equal(&a, 1, &b, 1));
    b.value = 3;
    cr_assert_not(ddz_terms_equal(&a, 1, &b, 1));
    cr_assert_not(ddz_terms_equal(every, 2, every, 1));
    cr_assert_not(ddz_terms_equal(every, 2, every + 1, 2));
}

/* A record as served: its JSON plus the terms its replay gives, the same
 * terms the rules write for the game as it was played. */
Test(terms, a_served_record_carries_the_terms_of_its_game)
{
    cr_assert_geq(sodium_init(), 0);
    const ddz_rules *sets[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl, &ddz_rules_botzone_ftl2};
    static ddz_record r;
    int nonempty = 0;
    for (int i = 0; i < 3; i++) {
        for (uint32_t k = 0; k < 60; k++) {
            gen_record_rules(k, sets[i], &r);
            json_t *j = ddz_record_to_json(&r);
            char err[160] = "";
            cr_assert_eq(ddz_record_json_explain(j, err, sizeof err), 0, "%s game %u: %s",
                         sets[i]->name, k, err);
            ddz_term got[DDZ_TERMS_MAX], want[DDZ_TERMS_MAX];
            int n = 0;
            cr_assert_eq(ddz_terms_parse(json_object_get(j, "terms"), got, &n, err, sizeof err), 0,
                         "%s", err);
            ddz_game g;
            cr_assert_eq(ddz_record_replay(&r, sets[i], &g, NULL, 0), 0);
            int m = ddz_record_explain(&r, &g, want);
            cr_assert(ddz_terms_equal(got, n, want, m), "%s game %u", sets[i]->name, k);
            nonempty += n > 0;
            /* the record itself reads as before: the terms are one key more */
            ddz_record back;
            cr_assert_eq(ddz_record_from_json(j, &back, err, sizeof err), 0, "%s", err);
            json_decref(j);
        }
    }
    cr_assert_gt(nonempty, 150);

    /* a record that does not replay, or of an unknown rule set, is left as it is */
    uint32_t k = 2;
    while (gen_record(k, &r) != GEN_PLAYED || r.winner < 0)
        k++;
    r.nplays--;
    json_t *j = ddz_record_to_json(&r);
    char err[160] = "";
    cr_assert_eq(ddz_record_json_explain(j, err, sizeof err), DDZ_EVERIFY);
    cr_assert_null(json_object_get(j, "terms"), "%s", err);
    json_object_set_new(j, "rules", json_string("botzone-ftl9"));
    cr_assert_eq(ddz_record_json_explain(j, err, sizeof err), DDZ_ERULESET);
    cr_assert_str_eq(err, "rules: no rule set \"botzone-ftl9\"");
    json_decref(j);
    j = json_array();
    cr_assert_eq(ddz_record_json_explain(j, NULL, 0), DDZ_ESYNTAX);
    json_decref(j);
}
