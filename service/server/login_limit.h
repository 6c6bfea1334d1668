/* login_limit.h - how many failed sign-ins a client address, or an
 * account's name, may have in a window before it is refused for the rest
 * of it (SPEC §15: 429 with Retry-After); the same table counts the
 * accounts an address makes in an hour (ddz_login_limit_create_for). Pure: the caller passes the
 * time; no lock (the loop's own). A fixed window per key, DDZ_LOGIN_LIMIT_FAILS failures in
 * DDZ_LOGIN_LIMIT_WINDOW_MS from the first; the table holds at most DDZ_LOGIN_LIMIT_KEYS keys, and
 * when it is full the key whose window started first gives way (so a flood from many addresses
 * costs a bounded table, at the price of forgetting the oldest failures).
 */
#ifndef DDZ_LOGIN_LIMIT_H
#define DDZ_LOGIN_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define DDZ_LOGIN_LIMIT_FAILS 10                  /* failures a window allows */
#define DDZ_LOGIN_LIMIT_WINDOW_MS (5 * 60 * 1000) /* 5 minutes */
#define DDZ_LOGIN_LIMIT_KEYS 4096                 /* keys kept at most */
#define DDZ_LOGIN_LIMIT_KEY_MAX 144               /* a key's bytes + NUL: "n:" + a name */

typedef struct ddz_login_limit ddz_login_limit;

/* Returns a new, empty table counting failed sign-ins
 * (DDZ_LOGIN_LIMIT_FAILS in DDZ_LOGIN_LIMIT_WINDOW_MS), or NULL when out
 * of memory. */
ddz_login_limit *ddz_login_limit_create(void);

/* Returns a new, empty table that allows `max` (>= 1) counts a key in a
 * window of `window_ms` (>= 1): the same table for another limit (the
 * sign-ups of an address, accounts.c). NULL when out of memory. */
ddz_login_limit *ddz_login_limit_create_for(int max, int64_t window_ms);

/* Takes back one count of `key` made by ddz_login_limit_fail() in its
 * window (a reservation that came to nothing); a key absent, or at 0, is
 * left so. Never fails. */
void ddz_login_limit_forgive(ddz_login_limit *l, const char *key);

/* Frees it. NULL is allowed. */
void ddz_login_limit_destroy(ddz_login_limit *l);

/* Returns 0 if `key` may try now (at now_ms), else the seconds (>= 1)
 * until its window ends: what Retry-After says. */
int ddz_login_limit_check(const ddz_login_limit *l, const char *key, int64_t now_ms);

/* Counts a failure of `key` at now_ms (a key too long is cut to
 * DDZ_LOGIN_LIMIT_KEY_MAX - 1 bytes). Never fails. */
void ddz_login_limit_fail(ddz_login_limit *l, const char *key, int64_t now_ms);

#endif
