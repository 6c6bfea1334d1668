/* terms.c - the terms that explain a game's scores, as JSON, and back. */
#include "terms.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proto/score.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "rules/game.h"

json_t *ddz_terms_json(const ddz_term *terms, int n)
{
    if (n < 0 || n > DDZ_TERMS_MAX)
        return NULL;
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        const ddz_term *t = &terms[i];
        unsigned f = ddz_term_fields(t->kind);
        json_t *o = f ? json_object() : NULL;
        int bad = !o || json_object_set_new(o, "term", json_string(ddz_term_name(t->kind))) < 0;
        if (!bad && (f & DDZ_TERM_HAS_SEAT))
            bad = json_object_set_new(o, "seat", json_integer(t->seat)) < 0;
        if (!bad && (f & DDZ_TERM_HAS_COMBO))
            bad = json_object_set_new(o, "combo", json_string(ddz_type_name(t->combo))) < 0;
        if (!bad && (f & DDZ_TERM_HAS_COUNT))
            bad = json_object_set_new(o, "count", json_integer(t->count)) < 0;
        if (!bad && (f & DDZ_TERM_HAS_FAULT))
            bad = json_object_set_new(o, "fault", json_string(ddz_fault_name(t->fault))) < 0;
        if (!bad && (f & DDZ_TERM_HAS_VALUE))
            bad = json_object_set_new(o, "value", ddz_score_json(t->value)) < 0;
        if (bad || json_array_append_new(a, o) < 0) {
            if (!bad) /* append_new released o */
                o = NULL;
            json_decref(o);
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static int bad(char *err, size_t errlen, int i, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int bad(char *err, size_t errlen, int i, const char *key, const char *fmt, ...)
{
    if (err && errlen) {
        int k = snprintf(err, errlen, "[%d]%s%s: ", i, key[0] ? "." : "", key);
        if (k >= 0 && (size_t)k < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return DDZ_EFIELD;
}

/* A string member `key` of `o`, or NULL when missing, not a string or holding a NUL. */
static const char *str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    return s && strlen(s) == json_string_length(v) ? s : NULL;
}

/* An integer member `key` of `o` within lo..hi into *out; false if not. */
static bool num(const json_t *o, const char *key, int lo, int hi, int *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return false;
    *out = (int)json_integer_value(v);
    return true;
}

int ddz_terms_parse(const json_t *a, ddz_term out[DDZ_TERMS_MAX], int *n, char *err, size_t errlen)
{
    *n = 0;
    if (!json_is_array(a) || json_array_size(a) > DDZ_TERMS_MAX) {
        if (err && errlen)
            snprintf(err, errlen, "must be an array of at most %d terms", DDZ_TERMS_MAX);
        return DDZ_EFIELD;
    }
    for (int i = 0; i < (int)json_array_size(a); i++) {
        const json_t *o = json_array_get(a, (size_t)i);
        if (!json_is_object(o))
            return bad(err, errlen, i, "", "must be an object");
        const char *name = str(o, "term");
        int kind = name ? ddz_term_from_name(name) : -1;
        if (kind < 0)
            return bad(err, errlen, i, "term", "must be a term kind (\"bid\", \"bombs\", ...)");
        ddz_term *t = &out[i];
        *t = (ddz_term){.kind = (uint8_t)kind, .seat = -1};
        unsigned f = ddz_term_fields(kind);
        int x = 0;
        if (f & DDZ_TERM_HAS_SEAT) {
            if (!num(o, "seat", 0, 2, &x))
                return bad(err, errlen, i, "seat", "must be a seat 0..2");
            t->seat = (int8_t)x;
        }
        if (f & DDZ_TERM_HAS_COMBO) {
            const char *c = str(o, "combo");
            int type = DDZ_ROCKET;
            while (c && type < DDZ_PASS && strcmp(c, ddz_type_name(type)) != 0)
                type++;
            if (!c || type == DDZ_PASS)
                return bad(err, errlen, i, "combo", "must be a play type (\"single\", ...)");
            t->combo = (uint8_t)type;
        }
        if (f & DDZ_TERM_HAS_COUNT) {
            if (!num(o, "count", 1, DDZ_HAND_MAX, &x))
                return bad(err, errlen, i, "count", "must be an integer from 1 to %d",
                           DDZ_HAND_MAX);
            t->count = (uint8_t)x;
        }
        if (f & DDZ_TERM_HAS_FAULT) {
            const char *k = str(o, "fault");
            int fault = k ? ddz_fault_from_name(k) : -1;
            if (fault < 0)
                return bad(err, errlen, i, "fault",
                           "must be \"timeout\", \"illegal\", \"protocol\" or \"crash\"");
            t->fault = (uint8_t)fault;
        }
        if ((f & DDZ_TERM_HAS_VALUE) &&
            ddz_score_from_json(json_object_get(o, "value"), &t->value) < 0)
            return bad(err, errlen, i, "value",
                       "must be a number within int32's range in steps of 0.001");
        *n = i + 1;
    }
    return 0;
}

bool ddz_terms_equal(const ddz_term *a, int n, const ddz_term *b, int m)
{
    if (n != m)
        return false;
    for (int i = 0; i < n; i++) {
        unsigned f = ddz_term_fields(a[i].kind);
        if (a[i].kind != b[i].kind || ((f & DDZ_TERM_HAS_SEAT) && a[i].seat != b[i].seat) ||
            ((f & DDZ_TERM_HAS_COMBO) && a[i].combo != b[i].combo) ||
            ((f & DDZ_TERM_HAS_COUNT) && a[i].count != b[i].count) ||
            ((f & DDZ_TERM_HAS_FAULT) && a[i].fault != b[i].fault) ||
            ((f & DDZ_TERM_HAS_VALUE) && a[i].value != b[i].value))
            return false;
    }
    return true;
}
