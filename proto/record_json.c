/* record_json.c - a game record as one JSON object, and back. */
#include "record_json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "proto/fail.h"
#include "proto/terms.h"
#include "proto/text.h"
#include "proto/utf8.h"
#include "rules/error.h"

enum {
    MAX_BOMBS = 13,       /* one four per rank 3..2 */
    MAX_FACTOR = 1000000, /* multiplier and early_penalty: far above any real game, and
                           * small enough that a penalty of 3 x early_penalty fits */
};

/* ---- writing ---------------------------------------------------------- */

static json_t *cards_json(ddz_cards c)
{
    json_t *a = json_array();
    while (a && c) {
        int code = __builtin_ctzll(c);
        c &= c - 1;
        if (json_array_append_new(a, json_integer(code)) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* A JSON string of the first bytes of `s` up to its NUL or `max` bytes,
 * with every byte that is not part of valid UTF-8 replaced by '?'. */
static json_t *string_json(const char *s, size_t max)
{
    char buf[DDZ_NAME_MAX];
    size_t n = strnlen(s, max < sizeof buf ? max : sizeof buf - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = ddz_utf8_next(buf + i, n - i, &cp);
        if (len == 0)
            buf[i++] = '?';
        else
            i += len;
    }
    return json_stringn(buf, n);
}

static json_t *fault_json(const ddz_fault_entry *f)
{
    json_t *o =
        json_pack("{s:i, s:s, s:i}", "seat", f->seat, "kind", ddz_fault_name(f->kind), "at", f->at);
    if (o && f->at < 0 && json_object_set_new(o, "bids", json_integer(f->bids)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *seat_or_null(int seat)
{
    return seat >= 0 ? json_integer(seat) : json_null();
}

/* Sets obj[key] = v, stealing v; records a failure in *ok. */
static void put(json_t *obj, const char *key, json_t *v, int *ok)
{
    if (!v || json_object_set_new(obj, key, v) < 0)
        *ok = 0;
}

static void push(json_t *arr, json_t *v, int *ok)
{
    if (!v || json_array_append_new(arr, v) < 0)
        *ok = 0;
}

json_t *ddz_record_to_json(const ddz_record *r)
{
    if (r->nbids < 0 || r->nbids > 3 || r->nplays < 0 || r->nplays > DDZ_RECORD_MAX_PLAYS ||
        r->nfaults < 0 || r->nfaults > DDZ_FAULTS_MAX)
        return NULL;
    char hex[65];
    int ok = 1;
    json_t *o = json_object();
    if (!o)
        return NULL;

    put(o, "game", json_integer(r->game), &ok);
    put(o, "rules", string_json(r->rules, sizeof r->rules - 1), &ok);
    ddz_text_format_seed(r->seed, hex);
    put(o, "seed", json_string(hex), &ok);
    ddz_text_format_seed(r->commit, hex);
    put(o, "commit", json_string(hex), &ok);

    json_t *hands = json_array();
    for (int s = 0; s < 3 && hands; s++)
        push(hands, cards_json(r->deal.hand[s]), &ok);
    put(o, "hands", hands, &ok);
    put(o, "leftover", cards_json(r->deal.leftover), &ok);
    put(o, "early_penalty", json_integer(r->early_penalty), &ok);

    json_t *bids = json_array();
    for (int i = 0; i < r->nbids && bids; i++)
        push(bids, json_pack("{s:i, s:i}", "seat", i, "bid", r->bids[i]), &ok);
    put(o, "bids", bids, &ok);
    put(o, "landlord", seat_or_null(r->landlord), &ok);

    json_t *plays = json_array();
    for (int i = 0; i < r->nplays && plays; i++) {
        const ddz_record_play *p = &r->plays[i];
        json_t *po = json_pack("{s:i, s:o}", "seat", p->seat, "cards", cards_json(p->cards));
        if (po && p->autopass)
            put(po, "auto", json_true(), &ok);
        push(plays, po, &ok);
    }
    put(o, "plays", plays, &ok);
    put(o, "winner", seat_or_null(r->winner), &ok);
    if (r->fault_seat >= 0)
        put(o, "fault",
            json_pack("{s:i, s:s}", "seat", r->fault_seat, "kind", ddz_fault_name(r->fault_kind)),
            &ok);
    else
        put(o, "fault", json_null(), &ok);
    json_t *faults = json_array();
    for (int i = 0; i < r->nfaults && i < DDZ_FAULTS_MAX && faults; i++)
        push(faults, fault_json(&r->faults[i]), &ok);
    put(o, "faults", faults, &ok);

    put(o, "bombs", json_integer(r->bombs), &ok);
    put(o, "rocket", json_boolean(r->rocket), &ok);
    put(o, "spring", json_boolean(r->spring), &ok);
    put(o, "anti_spring", json_boolean(r->anti_spring), &ok);
    put(o, "multiplier", json_integer(r->multiplier), &ok);
    json_t *scores = json_array();
    for (int s = 0; s < 3 && scores; s++)
        push(scores, ddz_score_json(r->scores[s]), &ok);
    put(o, "scores", scores, &ok);
    json_t *names = json_array();
    for (int s = 0; s < 3 && names; s++)
        push(names, string_json(r->names[s], DDZ_NAME_MAX - 1), &ok);
    put(o, "names", names, &ok);

    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- reading ---------------------------------------------------------- */

#define BAD(...) ddz_fail(DDZ_EFIELD, err, errlen, __VA_ARGS__)

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction or exponent";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    default:
        return "null";
    }
}

/* *out = obj[key]; "key: missing" if absent. */
static int member(const json_t *obj, const char *key, json_t **out, char *err, size_t errlen)
{
    *out = json_object_get(obj, key);
    if (!*out)
        return BAD("%s: missing", key);
    return 0;
}

static int int_in(const json_t *v, const char *path, long long lo, long long hi, long long *out,
                  char *err, size_t errlen)
{
    if (!json_is_integer(v))
        return BAD("%s: expected an integer, got %s", path, type_name(v));
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return BAD("%s: %lld outside %lld..%lld", path, x, lo, hi);
    *out = x;
    return 0;
}

static int key_int(const json_t *obj, const char *key, long long lo, long long hi, long long *out,
                   char *err, size_t errlen)
{
    json_t *v;
    int rc = member(obj, key, &v, err, errlen);
    return rc ? rc : int_in(v, key, lo, hi, out, err, errlen);
}

/* true, false, 0 or 1. */
static int key_bool(const json_t *obj, const char *key, int *out, char *err, size_t errlen)
{
    json_t *v;
    int rc = member(obj, key, &v, err, errlen);
    if (rc)
        return rc;
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1)) {
        *out = (int)json_integer_value(v);
        return 0;
    }
    return BAD("%s: expected true or false, got %s", key, type_name(v));
}

/* A seat 0..2, or -1 for null. */
static int seat_or_none(const json_t *v, const char *path, int8_t *out, char *err, size_t errlen)
{
    long long x;
    if (json_is_null(v)) {
        *out = -1;
        return 0;
    }
    if (!json_is_integer(v))
        return BAD("%s: expected a seat or null, got %s", path, type_name(v));
    int rc = int_in(v, path, 0, 2, &x, err, errlen);
    if (rc == 0)
        *out = (int8_t)x;
    return rc;
}

static int cards_in(const json_t *v, const char *path, ddz_cards *out, char *err, size_t errlen)
{
    if (!json_is_array(v))
        return BAD("%s: expected an array of card codes, got %s", path, type_name(v));
    size_t n = json_array_size(v);
    if (n > DDZ_NCARDS)
        return BAD("%s: %zu cards, at most %d", path, n, DDZ_NCARDS);
    ddz_cards set = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(v, i);
        if (!json_is_integer(c))
            return BAD("%s[%zu]: expected a card code, got %s", path, i, type_name(c));
        long long code = json_integer_value(c);
        if (code < 0 || code >= DDZ_NCARDS)
            return BAD("%s: card %lld outside 0..53", path, code);
        if (set & (1ULL << code))
            return BAD("%s: card %lld twice", path, code);
        set |= 1ULL << code;
    }
    *out = set;
    return 0;
}

static int hex32(const json_t *obj, const char *key, uint8_t out[DDZ_SEED_BYTES], char *err,
                 size_t errlen)
{
    json_t *v;
    int rc = member(obj, key, &v, err, errlen);
    if (rc)
        return rc;
    if (!json_is_string(v))
        return BAD("%s: expected 64 hex digits, got %s", key, type_name(v));
    if (json_string_length(v) != 2 * DDZ_SEED_BYTES ||
        ddz_text_parse_seed(json_string_value(v), out) < 0)
        return BAD("%s: not 64 hex digits", key);
    return 0;
}

/* Copies a string of at most `cap` - 1 bytes and no NUL into out[cap]. */
static int string_in(const json_t *v, const char *path, char *out, size_t cap, char *err,
                     size_t errlen)
{
    if (!json_is_string(v))
        return BAD("%s: expected a string, got %s", path, type_name(v));
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (n >= cap)
        return BAD("%s: %zu bytes, at most %zu", path, n, cap - 1);
    if (memchr(s, '\0', n))
        return BAD("%s: contains a NUL character", path);
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

static int array_of(const json_t *obj, const char *key, size_t min, size_t max, json_t **out,
                    char *err, size_t errlen)
{
    int rc = member(obj, key, out, err, errlen);
    if (rc)
        return rc;
    if (!json_is_array(*out))
        return BAD("%s: expected an array, got %s", key, type_name(*out));
    size_t n = json_array_size(*out);
    if (n < min || n > max)
        return min == max ? BAD("%s: %zu items, expected %zu", key, n, min)
                          : BAD("%s: %zu items, at most %zu", key, n, max);
    return 0;
}

static int read_deal(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *a;
    char path[32];
    int rc = hex32(j, "seed", r->seed, err, errlen);
    if (!rc)
        rc = hex32(j, "commit", r->commit, err, errlen);
    if (!rc)
        rc = array_of(j, "hands", 3, 3, &a, err, errlen);
    for (int s = 0; !rc && s < 3; s++) {
        snprintf(path, sizeof path, "hands[%d]", s);
        rc = cards_in(json_array_get(a, (size_t)s), path, &r->deal.hand[s], err, errlen);
    }
    if (!rc)
        rc = member(j, "leftover", &a, err, errlen);
    if (!rc)
        rc = cards_in(a, "leftover", &r->deal.leftover, err, errlen);
    return rc;
}

static int read_bids(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *a;
    char path[32];
    long long x;
    int rc = array_of(j, "bids", 0, 3, &a, err, errlen);
    if (rc)
        return rc;
    r->nbids = (int)json_array_size(a);
    for (int i = 0; i < r->nbids; i++) {
        const json_t *b = json_array_get(a, (size_t)i);
        if (!json_is_object(b))
            return BAD("bids[%d]: expected an object, got %s", i, type_name(b));
        json_t *v = json_object_get(b, "seat");
        snprintf(path, sizeof path, "bids[%d].seat", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = int_in(v, path, 0, 2, &x, err, errlen)) < 0)
            return rc;
        if (x != i)
            return BAD("%s: %lld, but bid %d is seat %d's (West bids first)", path, x, i, i);
        v = json_object_get(b, "bid");
        snprintf(path, sizeof path, "bids[%d].bid", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = int_in(v, path, 0, 3, &x, err, errlen)) < 0)
            return rc;
        r->bids[i] = (int8_t)x;
    }
    return 0;
}

static int read_plays(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *a;
    char path[48];
    long long x;
    int rc = array_of(j, "plays", 0, DDZ_RECORD_MAX_PLAYS, &a, err, errlen);
    if (rc)
        return rc;
    r->nplays = (int)json_array_size(a);
    for (int i = 0; i < r->nplays; i++) {
        ddz_record_play *p = &r->plays[i];
        const json_t *po = json_array_get(a, (size_t)i);
        if (!json_is_object(po))
            return BAD("plays[%d]: expected an object, got %s", i, type_name(po));
        json_t *v = json_object_get(po, "seat");
        snprintf(path, sizeof path, "plays[%d].seat", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = int_in(v, path, 0, 2, &x, err, errlen)) < 0)
            return rc;
        p->seat = (uint8_t)x;
        v = json_object_get(po, "cards");
        snprintf(path, sizeof path, "plays[%d].cards", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = cards_in(v, path, &p->cards, err, errlen)) < 0)
            return rc;
        v = json_object_get(po, "auto");
        snprintf(path, sizeof path, "plays[%d].auto", i);
        p->autopass = 0;
        if (v && json_is_boolean(v))
            p->autopass = json_is_true(v);
        else if (v && json_is_integer(v) && (json_integer_value(v) & ~1LL) == 0)
            p->autopass = (uint8_t)json_integer_value(v);
        else if (v)
            return BAD("%s: expected true or false, got %s", path, type_name(v));
    }
    return 0;
}

/* The kind of a fault, named. */
static int kind_in(const json_t *v, const char *path, uint8_t *out, char *err, size_t errlen)
{
    if (!v)
        return BAD("%s: missing", path);
    if (!json_is_string(v))
        return BAD("%s: expected a string, got %s", path, type_name(v));
    int kind = ddz_fault_from_name(json_string_value(v));
    if (kind < 0 || strlen(json_string_value(v)) != json_string_length(v))
        return BAD("%s: not timeout, illegal, protocol or crash", path);
    *out = (uint8_t)kind;
    return 0;
}

static int read_fault(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *f;
    int rc = member(j, "fault", &f, err, errlen);
    if (rc)
        return rc;
    r->fault_seat = -1;
    r->fault_kind = DDZ_FAULT_NONE;
    if (json_is_null(f))
        return 0;
    if (!json_is_object(f))
        return BAD("fault: expected an object or null, got %s", type_name(f));
    json_t *v = json_object_get(f, "seat");
    if (!v)
        return BAD("fault.seat: missing");
    long long x;
    if ((rc = int_in(v, "fault.seat", 0, 2, &x, err, errlen)) < 0)
        return rc;
    uint8_t kind;
    if ((rc = kind_in(json_object_get(f, "kind"), "fault.kind", &kind, err, errlen)) < 0)
        return rc;
    r->fault_seat = (int8_t)x;
    r->fault_kind = kind;
    return 0;
}

/* `faults`, or, when absent, the one `fault` after the last action. Needs
 * the bids, the plays and `fault` read. */
static int read_faults(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *a = json_object_get(j, "faults");
    char path[32];
    long long x;
    int rc;
    r->nfaults = 0;
    if (!a) {
        if (r->fault_seat >= 0)
            r->faults[r->nfaults++] = (ddz_fault_entry){
                .seat = r->fault_seat,
                .kind = r->fault_kind,
                .at = (int16_t)(r->landlord >= 0 ? r->nplays : -1),
                .bids = (uint8_t)r->nbids,
            };
        return 0;
    }
    if ((rc = array_of(j, "faults", 0, DDZ_FAULTS_MAX, &a, err, errlen)) < 0)
        return rc;
    r->nfaults = (int)json_array_size(a);
    for (int i = 0; i < r->nfaults; i++) {
        ddz_fault_entry *f = &r->faults[i];
        const json_t *fo = json_array_get(a, (size_t)i);
        if (!json_is_object(fo))
            return BAD("faults[%d]: expected an object, got %s", i, type_name(fo));
        json_t *v = json_object_get(fo, "seat");
        snprintf(path, sizeof path, "faults[%d].seat", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = int_in(v, path, 0, 2, &x, err, errlen)) < 0)
            return rc;
        f->seat = (int8_t)x;
        snprintf(path, sizeof path, "faults[%d].kind", i);
        if ((rc = kind_in(json_object_get(fo, "kind"), path, &f->kind, err, errlen)) < 0)
            return rc;
        v = json_object_get(fo, "at");
        snprintf(path, sizeof path, "faults[%d].at", i);
        if (!v)
            return BAD("%s: missing", path);
        if ((rc = int_in(v, path, -1, DDZ_RECORD_MAX_PLAYS, &x, err, errlen)) < 0)
            return rc;
        f->at = (int16_t)x;
        f->bids = (uint8_t)r->nbids;
        v = json_object_get(fo, "bids");
        snprintf(path, sizeof path, "faults[%d].bids", i);
        if (v && f->at < 0) {
            if ((rc = int_in(v, path, 0, 3, &x, err, errlen)) < 0)
                return rc;
            f->bids = (uint8_t)x;
        }
    }
    return 0;
}

static int read_result(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    json_t *v;
    long long x;
    int rc;
    if ((rc = member(j, "landlord", &v, err, errlen)) < 0 ||
        (rc = seat_or_none(v, "landlord", &r->landlord, err, errlen)) < 0)
        return rc;
    if ((rc = member(j, "winner", &v, err, errlen)) < 0 ||
        (rc = seat_or_none(v, "winner", &r->winner, err, errlen)) < 0)
        return rc;
    if ((rc = read_fault(j, r, err, errlen)) < 0 || (rc = read_faults(j, r, err, errlen)) < 0)
        return rc;
    if ((rc = key_int(j, "bombs", 0, MAX_BOMBS, &x, err, errlen)) < 0)
        return rc;
    r->bombs = (int)x;
    if ((rc = key_bool(j, "rocket", &r->rocket, err, errlen)) < 0 ||
        (rc = key_bool(j, "spring", &r->spring, err, errlen)) < 0 ||
        (rc = key_bool(j, "anti_spring", &r->anti_spring, err, errlen)) < 0)
        return rc;
    if ((rc = key_int(j, "multiplier", 0, MAX_FACTOR, &x, err, errlen)) < 0)
        return rc;
    r->multiplier = (int)x;
    if ((rc = array_of(j, "scores", 3, 3, &v, err, errlen)) < 0)
        return rc;
    for (int s = 0; s < 3; s++) {
        char path[24];
        snprintf(path, sizeof path, "scores[%d]", s);
        const json_t *e = json_array_get(v, (size_t)s);
        if (ddz_score_from_json(e, &r->scores[s]) < 0)
            return json_is_number(e) ? BAD("%s: %.15g outside %d..%d or not a multiple of 0.001",
                                           path, json_number_value(e), INT32_MIN, INT32_MAX)
                                     : BAD("%s: expected a number, got %s", path, type_name(e));
    }
    return 0;
}

int ddz_record_from_json(const json_t *j, ddz_record *r, char *err, size_t errlen)
{
    long long x;
    json_t *v;
    int rc;
    if (!json_is_object(j))
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "record: expected an object, got %s",
                        j ? type_name(j) : "nothing");
    memset(r, 0, sizeof *r);

    if ((rc = key_int(j, "game", 0, INT32_MAX, &x, err, errlen)) < 0)
        return rc;
    r->game = (int)x;
    v = json_object_get(j, "rules");
    if (!v)
        strcpy(r->rules, "caai");
    else if ((rc = string_in(v, "rules", r->rules, sizeof r->rules, err, errlen)) < 0)
        return rc;
    if ((rc = read_deal(j, r, err, errlen)) < 0)
        return rc;
    /* absent: the default of the record's rule set (an unknown one is
     * refused by verification, which names it) */
    const ddz_rules *rs = ddz_rules_find(r->rules);
    r->early_penalty = ddz_rules_early_penalty(rs ? rs : &ddz_rules_caai, 0, 0);
    if (json_object_get(j, "early_penalty")) {
        if ((rc = key_int(j, "early_penalty", 0, MAX_FACTOR, &x, err, errlen)) < 0)
            return rc;
        r->early_penalty = (int)x;
    }
    if ((rc = read_bids(j, r, err, errlen)) < 0 || (rc = read_plays(j, r, err, errlen)) < 0 ||
        (rc = read_result(j, r, err, errlen)) < 0)
        return rc;
    if ((rc = array_of(j, "names", 3, 3, &v, err, errlen)) < 0)
        return rc;
    for (int s = 0; s < 3; s++) {
        char path[24];
        snprintf(path, sizeof path, "names[%d]", s);
        if ((rc = string_in(json_array_get(v, (size_t)s), path, r->names[s], DDZ_NAME_MAX, err,
                            errlen)) < 0)
            return rc;
    }
    return 0;
}

int ddz_record_json_explain(json_t *j, char *err, size_t errlen)
{
    ddz_record r;
    int rc = ddz_record_from_json(j, &r, err, errlen);
    if (rc < 0)
        return rc;
    const ddz_rules *rs = ddz_rules_find(r.rules);
    if (!rs)
        return ddz_fail(DDZ_ERULESET, err, errlen, "rules: no rule set \"%s\"", r.rules);
    ddz_game g;
    if ((rc = ddz_record_replay(&r, rs, &g, err, errlen)) < 0)
        return rc;
    ddz_term terms[DDZ_TERMS_MAX];
    int n = ddz_record_explain(&r, &g, terms);
    json_t *a = ddz_terms_json(terms, n);
    if (!a || json_object_set_new(j, "terms", a) < 0)
        return ddz_fail(DDZ_ENOMEM, err, errlen, "out of memory");
    return 0;
}
