/* text.h - card lists and seeds as text, shared by the CLI, CAAI and JSON.
 *
 * Parsers are tolerant where SPEC 7 asks (spaces, any order) and strict
 * about meaning: every code in 0..53, no repeats. Printers always write
 * ascending lists. Each parser fills `err` (if not NULL, `errlen` bytes) with
 * a one-line message naming the problem.
 */
#ifndef DDZ_TEXT_H
#define DDZ_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "rules/cards.h"
#include "rules/deal.h"

/* Parses a comma-separated list of card codes ("3,17, 52"), surrounding
 * spaces allowed. An empty string is the empty set. Returns 0 and sets *out,
 * or DDZ_ESYNTAX (not a number, empty item), DDZ_ECARD (outside 0..53),
 * DDZ_EDUP (repeated card). */
int ddz_text_parse_cards(const char *s, ddz_cards *out, char *err, size_t errlen);

/* Writes `c` as an ascending comma-separated list into buf (at most `len`
 * bytes with the terminator; 160 always suffice). Returns the length written,
 * or DDZ_ENOSPC. */
int ddz_text_format_cards(ddz_cards c, char *buf, size_t len);

/* Parses exactly 64 hexadecimal characters (either case) into 32 bytes.
 * Returns 0 or DDZ_ESEED. */
int ddz_text_parse_seed(const char *s, uint8_t out[DDZ_SEED_BYTES]);

/* Writes 32 bytes as 64 lower-case hex characters plus NUL (buf >= 65). */
void ddz_text_format_seed(const uint8_t seed[DDZ_SEED_BYTES], char buf[65]);

#endif
