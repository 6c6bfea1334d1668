/* names.h - the names of people's accounts, in memory: what a guest's
 * hello is checked against (SPEC §15: "no guest or bot can use that name",
 * ENAME), so that the check never waits on the database (issue 37: a hung
 * database must not stall hellos).
 *
 * A set of folded names (proto/utf8.h ddz_utf8_fold, the key the store
 * keeps), each kept as a 64-bit SipHash of the key under a random key made
 * at create (libsodium crypto_shorthash): 8 bytes a name whatever its
 * length, and nobody outside can aim names at one slot. Two names whose
 * hashes meet are one to the set: a guest is then refused a name no account
 * has, with a chance of about n / 2^64 per hello.
 *
 * Bounded: at most DDZ_NAMES_MAX names (an open-addressing table of at most
 * 2 x DDZ_NAMES_MAX slots of 8 bytes: 16 MiB). Past it a name is not added
 * (ddz_names_add says so) and guests may use it: the operator is told in
 * the log (docs/decisions.md). Not thread-safe: one thread at a time (a
 * set being filled on the store's reader thread is another set, swapped in
 * on the loop).
 */
#ifndef DDZ_NAMES_H
#define DDZ_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define DDZ_NAMES_MAX (1u << 20) /* names kept at most */
#define DDZ_NAMES_KEY_MAX 129    /* a folded name's bytes + NUL (DDZ_ACCOUNT_NAME_MAX) */

typedef struct ddz_names ddz_names;

/* Returns a new empty set with a random hash key, or NULL (no memory). */
ddz_names *ddz_names_create(void);

/* Returns a new empty set with the hash key of `like` (so that its names
 * can be merged into it, ddz_names_merge), or NULL (no memory). */
ddz_names *ddz_names_sibling(const ddz_names *like);

/* Frees it. NULL is fine. */
void ddz_names_destroy(ddz_names *n);

/* The key of display name `name` into `key`: its case fold. Returns false
 * for a name no account can have (too long, not UTF-8). */
bool ddz_names_key(const char *name, char key[DDZ_NAMES_KEY_MAX]);

/* Adds folded name `key`. Returns 0 (added, or there already), or -1 when
 * the set is full (DDZ_NAMES_MAX) or out of memory: not added. */
int ddz_names_add(ddz_names *n, const char *key);

/* Whether folded name `key` is in the set. NULL n: false. */
bool ddz_names_has(const ddz_names *n, const char *key);

/* Adds every name of `from` (a sibling of `into`). Returns 0, or -1 when
 * one did not fit (the rest are added still). */
int ddz_names_merge(ddz_names *into, const ddz_names *from);

/* Exchanges the contents of `a` and `b` (siblings). */
void ddz_names_swap(ddz_names *a, ddz_names *b);

/* The names in the set. */
size_t ddz_names_count(const ddz_names *n);

#endif
