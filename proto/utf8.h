/* utf8.h - UTF-8 as the codecs read and write it: one decoder, strict as
 * RFC 3629 (overlong forms, surrogates U+D800..U+DFFF and code points above
 * U+10FFFF are invalid, as is a sequence cut short), and the checks built
 * on it. Every proto/ module that looks inside text uses these, so a name
 * is judged the same way in a CAAI line, a record and a JSON frame.
 */
#ifndef DDZ_UTF8_H
#define DDZ_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the character at `s`, of which `n` bytes may be read (a NUL is
 * a byte like any other: it ends no sequence but its own). Returns its
 * length, 1 to 4, and sets *cp; or returns 0, *cp untouched, if the bytes
 * there are not valid UTF-8 or n is 0. */
size_t ddz_utf8_next(const char *s, size_t n, uint32_t *cp);

/* Returns whether the n bytes at `s` are valid UTF-8 throughout. */
bool ddz_utf8_valid(const char *s, size_t n);

/* Writes code point `cp` (at most U+10FFFF, not a surrogate: THE CALLER
 * CHECKS) as UTF-8 into out. Returns its length, 1 to 4. */
size_t ddz_utf8_encode(uint32_t cp, char out[4]);

/* Returns the number of characters of the NUL-terminated string `s`,
 * which must be valid UTF-8 (jansson's strings are): the bytes that are
 * not continuation bytes. On invalid text the count means nothing. */
size_t ddz_utf8_chars(const char *s);

/* Returns whether the len bytes at `s` hold a control character: C0
 * (U+0000..U+001F), DEL, or C1 (U+0080..U+009F, the bytes C2 80..C2 9F).
 * The names the protocol accepts hold none. */
bool ddz_utf8_has_controls(const char *s, size_t len);

/* Why the `len` bytes at `s` (valid UTF-8: THE CALLER CHECKS) would not
 * do as a name that other people read (a display name, a room's name).
 * Returns NULL when they would; else a phrase saying what is wrong ("a
 * bidirectional control"), with *cp set to the character at fault. What
 * is refused, after Unicode's guidance on identifiers (UTS #39's
 * restrictions, UTS #55 on bidirectional text), is what makes a name read
 * other than it is written: C0 and C1 controls and DEL; the bidirectional
 * controls (U+061C, U+200E/200F, U+202A..202E, U+2066..2069), which can
 * reorder what follows them; line and paragraph separators (U+2028/2029);
 * every other default-ignorable or format character, which shows nothing
 * (zero-width U+200B..200D, U+2060.., U+FEFF, soft hyphen, variation
 * selectors, tags, Hangul fillers, U+2800) and so lets two names that
 * differ look the same; spaces other than U+0020, and U+0020 at either
 * end; private-use characters and noncharacters, which show what a font
 * wants; a combining mark with nothing before it to combine with, and more
 * than 3 in a row (text that spills over its neighbours). Confusable
 * letters (Cyrillic "а" for Latin "a") and unassigned code points are not
 * judged: that needs Unicode's tables, which proto/ does not carry. */
const char *ddz_utf8_name_flaw(const char *s, size_t len, uint32_t *cp);

/* Writes to `out` (outlen bytes, always NUL-terminated) the case-folded
 * form of the valid UTF-8 string `s` (THE CALLER CHECKS), the key under
 * which two names that differ only in case are one (an account's name,
 * SPEC §15): each capital letter becomes its small one in the scripts
 * people's names here are written in: ASCII and fullwidth Latin, Latin-1,
 * Latin Extended-A, Greek and Cyrillic. Other characters are kept as
 * they are (Han has no case; the rest of Unicode's case table is not
 * carried by proto/). Every fold keeps a character's UTF-8 length, so
 * outlen = strlen(s) + 1 always suffices.
 * Returns the length written, or (size_t)-1 if `out` was too small (then
 * it holds a truncated key the caller must not use). */
size_t ddz_utf8_fold(const char *s, char *out, size_t outlen);

#endif
