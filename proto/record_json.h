/* record_json.h - a game record (rules/record.h) as one JSON object.
 *
 * This is the line `ddz match --log` writes and `ddz verify` reads (spec §10).
 * Keys, in the order they are written:
 *
 *     game           integer >= 0: index of the game in its match
 *     rules          rule set name, e.g. "caai" (optional when reading:
 *                    absent means "caai")
 *     seed, commit   64 lower-case hex digits (either case when reading)
 *     hands          [[West], [South], [East]]: the hands as dealt
 *     leftover       [3 codes]
 *     early_penalty  what a seat faulting before the leftover pays each
 *                    other seat (optional when reading: absent means the rule set's
 *                    default, 350 for caai)
 *     bids           [{"seat": s, "bid": 0..3}] in bidding order; seat i is
 *                    bid number i (West bids first), at most 3
 *     landlord       seat, or null if nobody took the leftover
 *     plays          [{"seat": s, "cards": [codes]}], a pass is [], and a
 *                    play the referee made carries "auto": true: an auto-pass
 *                    (for a seat that could not beat) or, under botzone-ftl2,
 *                    the stand-in of a seat that faulted; at most
 *                    DDZ_RECORD_MAX_PLAYS
 *     winner         seat that emptied its hand, or null
 *     fault          null, or {"seat": s, "kind": "timeout" | "illegal" |
 *                    "protocol" | "crash"}: the first of `faults`
 *     faults         every fault in the order charged (at most one per seat):
 *                    [{"seat": s, "kind": ..., "at": i}], `at` = the plays made
 *                    before it (its index in plays), -1 during bidding, and
 *                    then also "bids": the bids made before it (optional when
 *                    reading: absent means the one `fault`, charged after the
 *                    last action; a fault with at -1 and no "bids" comes after
 *                    the last bid)
 *     bombs          bombs played (0..13)
 *     rocket         true if the rocket was played
 *     spring         true for a spring (spec §5)
 *     anti_spring    true for an anti-spring
 *     multiplier     final multiplier, 0 if nobody won (all passed, fault)
 *     scores         [West, South, East]: JSON numbers, an integer when whole
 *                    (always under caai), else a real (botzone-ftl: multiples
 *                    of 0.005); write with DDZ_RECORD_JSON_FLAGS so that 2.035
 *                    prints as 2.035, not 2.0350000000000001
 *     names          [3 strings], each at most DDZ_NAME_MAX - 1 bytes
 *
 * Card lists are written ascending; any order is read, but a code outside
 * 0..53 or a repeated code is an error. Unknown keys are ignored when
 * reading, so later writers may add fields. Booleans are written as JSON
 * true/false; 0 and 1 are read as well.
 *
 * The reader is strict and total: every value has its JSON type and a range
 * (seats 0..2, bids 0..3, bombs 0..13, multiplier 0..1000000, early_penalty
 * 0..1000000, game within int32, scores numbers within int32's range in
 * steps of 0.001, at -1..DDZ_RECORD_MAX_PLAYS), arrays have their exact or
 * maximum length checked before any element is read, and a name longer than
 * DDZ_NAME_MAX - 1 bytes or holding a NUL is an error, NOT TRUNCATED (a
 * record ddz wrote never has one, so a long name means the line was not
 * written by ddz_record_to_json). It checks form only: whether the hands
 * match the seed or the scores the plays is ddz_record_verify()'s job.
 *
 * For every record r whose names are valid UTF-8 and whose counts and cards
 * are in range, from_json(to_json(r)) == r field by field.
 */
#ifndef DDZ_RECORD_JSON_H
#define DDZ_RECORD_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "proto/score.h"
#include "rules/record.h"

/* Returns a new JSON object for `r` (the caller owns the reference), or NULL
 * when out of memory or when r->nbids is outside 0..3 or r->nplays outside
 * 0..DDZ_RECORD_MAX_PLAYS. Names and the rule set name are read up to their
 * first NUL (at most DDZ_NAME_MAX - 1 and 15 bytes); bytes that are not
 * valid UTF-8 are written as '?', so such a name does not round-trip. */
json_t *ddz_record_to_json(const ddz_record *r);

/* The flags to dump records (and events carrying scores) with: compact, and
 * reals with 15 significant digits, which print every score (a multiple of
 * 1/DDZ_SCORE_DENOM) in its shortest decimal form and read back as the same
 * double. */
#define DDZ_RECORD_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* Fills `r` from the JSON object `j`. Returns 0, or DDZ_ESYNTAX if `j` is
 * not an object, or DDZ_EFIELD for a missing key, a value of the wrong type
 * or out of range; `err` (errlen bytes, may be NULL) then names the field
 * and the problem, e.g. "plays[3].cards: card 54 outside 0..53". On error
 * `r` holds a partly filled record: do not use it. */
int ddz_record_from_json(const json_t *j, ddz_record *r, char *err, size_t errlen);

/* Adds to the record `j` (an object ddz_record_from_json reads) the key
 * "terms": how its scores came about, as its rule set explains them
 * (proto/terms.h), computed by replaying its actions (ddz_record_replay).
 * This is what GET /api/games/ID serves: stored records do not hold the
 * terms, so that every record, however old, is explained by the rules as
 * they are. Returns 0, or, with `j` unchanged and `err` (errlen bytes, may
 * be NULL) saying why: DDZ_ESYNTAX or DDZ_EFIELD (not a record),
 * DDZ_ERULESET (an unknown rule set), DDZ_EVERIFY (its actions do not
 * replay to the end), DDZ_ENOMEM. */
int ddz_record_json_explain(json_t *j, char *err, size_t errlen);

#endif
