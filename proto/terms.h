/* terms.h - the terms that say how a game's scores came about
 * (rules/ruleset.h: ddz_term, written by the rule set's `explain`) as JSON:
 * an over event's `breakdown.terms`, and the `terms` the server adds to a
 * record it serves at /api/games/ID (proto/PROTOCOL.md).
 *
 * The list is a JSON array in the rules' order; each term an object with
 * the fields of its kind (ddz_term_fields) and no others, in this order:
 *
 *     term   the kind's name: "bid", "bombs", "plays", ... (ddz_term_name)
 *     seat   0..2
 *     combo  a play type's name, "pass" excluded (ddz_type_name)
 *     count  1..20
 *     fault  "timeout", "illegal", "protocol" or "crash"
 *     value  a number on the scores' grid: an integer when whole, else a
 *            real (ddz_score_json), within int32's range
 *
 * Parsing is strict like the event codec's: a missing field, a value of the
 * wrong type or range, an unknown kind or more than DDZ_TERMS_MAX terms is
 * refused; keys a kind does not have are ignored. For every list the rules
 * write, parse(print(x)) == x.
 */
#ifndef DDZ_TERMS_H
#define DDZ_TERMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules/ruleset.h"

/* Returns a new JSON array of terms[0..n) (the caller owns it), or NULL when
 * out of memory or when n is outside 0..DDZ_TERMS_MAX or a term's kind is
 * not one of enum ddz_term_kind. */
json_t *ddz_terms_json(const ddz_term *terms, int n);

/* Reads the JSON array `a` into out[0..*n). Returns 0, or DDZ_EFIELD when
 * `a` is not an array of at most DDZ_TERMS_MAX terms or a term is malformed;
 * `err` (errlen bytes, may be NULL) then says where, relative to the array
 * ("[2].count: must be an integer from 1 to 20"). On error out[] and *n hold
 * what was read before: do not use them. */
int ddz_terms_parse(const json_t *a, ddz_term out[DDZ_TERMS_MAX], int *n, char *err, size_t errlen);

/* Returns true when a[0..n) and b[0..m) are the same list: the same kinds
 * in the same order with the same values in the fields their kinds have. */
bool ddz_terms_equal(const ddz_term *a, int n, const ddz_term *b, int m);

#endif
