/* text.h - card lists and seeds as text, shared by the CLI, CAAI and JSON,
 * and the width of UTF-8 text on a terminal, for tables.
 *
 * Parsers are tolerant where spec §7 asks (spaces, any order) and strict
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

/* Writes score `x` (a multiple of 1/DDZ_SCORE_DENOM, rules/ruleset.h) into
 * buf in its shortest form: a whole number as an integer ("-700"), else
 * with the decimals it needs ("2.035", "2.5"). Returns the length snprintf
 * would have written (32 bytes always suffice). */
int ddz_text_format_score(double x, char *buf, size_t len);

/* Returns how many terminal columns the UTF-8 string `s` takes: 2 for each
 * East Asian Wide or Fullwidth character (CJK ideographs, kana, Hangul,
 * fullwidth forms, most emoji), 0 for each combining mark, format character
 * or Hangul medial/final jamo, 1 for any other character, and 1 for EACH
 * BYTE that is not part of a valid UTF-8 sequence (overlong forms,
 * surrogates and code points above U+10FFFF are invalid), as a terminal
 * shows one replacement per byte. The tables are Unicode 14.0's. */
size_t ddz_text_display_width(const char *s);

/* Returns the length in bytes of the longest prefix of `s` that is at most
 * `cols` columns wide (ddz_text_display_width()) and ends at a character
 * boundary: a character is never split, and the combining marks after the
 * last character kept stay with it. Sets *width (if not NULL) to the
 * prefix's width. To print `s` in a field of `cols` columns, truncated and
 * padded: printf("%.*s%*s", (int)n, s, (int)(cols - width), ""). */
size_t ddz_text_fit_width(const char *s, size_t cols, size_t *width);

#endif
