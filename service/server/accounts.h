/* accounts.h - people's accounts over HTTP (SPEC §15, issue 40; first
 * slice: accounts, sessions, hashing, limits):
 *
 *   POST   /api/accounts          {"name","password","me"?} -> 201 {"name","session"}
 *                                  (with "me", the browser's key, its guest games are
 *                                  the account's too: store.h ddz_store_account_claim)
 *   POST   /api/sessions          {"name","password"} -> 200 {"session"}
 *   DELETE /api/sessions          Authorization: Bearer S -> 200 {}
 *   POST   /api/account/password  Bearer S, {"old","new"} -> 200 {} (other sessions end)
 *   DELETE /api/account           Bearer S, {"password"} -> 200 {} (the account ends)
 *
 * Each request is a short chain of work off the loop: a store read or
 * write on the store's reader thread (store.h, DDZ_STORE_READ_ACCOUNT_...)
 * and an Argon2id hash or verify on the hash pool (pwhash.h), one after
 * the other, the loop answering when the last comes back
 * (ddz_http_req.later). Refusals: 400 EFIELD (a body that is not the JSON
 * asked for), ENAME (a name the protocol's name rules refuse), EPASSWORD
 * (under DDZ_PWHASH_PASSWORD_MIN characters or over
 * DDZ_PWHASH_PASSWORD_MAX bytes); 401 EAUTH (the same body for an unknown
 * name as for a wrong password, and for a session unknown or ended); 409
 * EEXIST; 429 ERATE with Retry-After once an address or an account name
 * has DDZ_LOGIN_LIMIT_FAILS failed passwords in DDZ_LOGIN_LIMIT_WINDOW_MS
 * (login_limit.h), and once an address has made DDZ_SIGNUPS_PER_HOUR
 * accounts (--signups-per-hour) in the hour that began with its first
 * (counted when the hashing starts, given back if no account is made);
 * 503 EBUSY with Retry-After when the hash pool is full,
 * 503 EDB when the database does not answer. Nothing of a password or a
 * session is logged; a request's body is wiped once parsed, each password
 * once hashed.
 *
 * Everything here runs on the loop thread but the pool's workers.
 */
#ifndef DDZ_ACCOUNTS_H
#define DDZ_ACCOUNTS_H

#include <stdbool.h>

/* Accounts an address may make in an hour, unless --signups-per-hour says
 * otherwise (docs/decisions.md): a household or a classroom behind one
 * address signs up a few people; a script making names to squat them is
 * held to 5 an hour from each address it has. */
#define DDZ_SIGNUPS_PER_HOUR 5

typedef struct ddz_srv ddz_srv;
typedef struct ddz_store_read ddz_store_read;
typedef struct ddz_http_req ddz_http_req;

/* Copies the session of request `req`'s "Authorization: Bearer S" header
 * (S: DDZ_SESSION_HEX characters, NUL-terminated) into `out`. Returns 1
 * (copied), 0 (no such header: a guest) or -1 (a header that is not a
 * session's). Nothing of it is left on the stack. */
int ddz__accounts_bearer(ddz_http_req *req, char out[65]);

/* Registers the routes above in srv's table, before the lws mounts are
 * made. Until ddz__accounts_start() they answer 503. Returns 0 or what
 * ddz__http_route_add_methods() returns. */
int ddz__accounts_routes(ddz_srv *srv);

/* Makes the accounts' state: the hash pool (its workers started, its
 * dummy hash made: one hash's time), the failure and sign-up limits, and
 * srv->names, the account names guests may not use (names.h), whose first
 * read it hands to the store's reader (it must run) and reads again on a
 * timer: new names every 10 s on several nodes, all of them hourly. `wake(srv)`
 * wakes the loop (from any thread). Returns 0 or DDZ_ENOMEM (memory or
 * threads; ddz__accounts_destroy() then frees what was made). */
int ddz__accounts_start(ddz_srv *srv, void (*wake)(void *ctx));

/* Takes the hash pool's answers and moves each request on (on the loop,
 * after a wake). With `answer` false (the loop is gone) only frees them. */
void ddz__accounts_collect(ddz_srv *srv, bool answer);

/* Whether `rd` is one of the accounts' store reads (its kind; the names'
 * reads too). */
bool ddz__accounts_owns_read(const ddz_store_read *rd);

/* A store read of the accounts came back: moves its request on; with
 * `answer` false only frees it. */
void ddz__accounts_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer);

/* Stops the names' timer and the hash pool's workers (the jobs still
 * queued come back, to be freed by ddz__accounts_collect(srv, false)).
 * Before the loop goes. */
void ddz__accounts_stop(ddz_srv *srv);

/* Frees the accounts' state. After the last collect. NULL state is fine. */
void ddz__accounts_destroy(ddz_srv *srv);

#endif
