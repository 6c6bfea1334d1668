/* players.h - who each client is (spec §13, "Identity"): the players the
 * server knows, a `hello` turned into one of them, and the players let go.
 *
 * A person is whoever holds its resume token; its name is only shown (it
 * may change it with a new hello). A bot is its token: its name is the
 * token's, one token is one player (a second connection with it takes the
 * player over), a resume of a bot needs the token again, and a revoked
 * token ends the bot at once: its connection, its enlistments, its seat.
 * The server learns of a revocation (`ddz token revoke` writes the
 * database, from another process) by reading the active tokens' ids every
 * DDZ_REVOKE_POLL_US, off the loop. */
#ifndef DDZ_PLAYERS_H
#define DDZ_PLAYERS_H

#include "proto/msg.h"
#include "service/server/player.h"
#include "service/store/store.h"
#include "service/table/loop.h"

typedef struct ddz_srv ddz_srv;
typedef struct ddz_conn ddz_conn;

/* How often the active tokens are read to find revoked ones. */
#define DDZ_REVOKE_POLL_US (2LL * 1000000)

/* On several nodes, how often the sessions of the people connected here
 * are read, to end those ended on another node (signed out, a password
 * changed, the account deleted): such a connection is closed within this
 * and one read's time (--db-timeout at most). A hello with an ended
 * session is refused at once on every node (the store is asked). */
#define DDZ_SESSION_POLL_US (2LL * 1000000)

typedef struct ddz_hello_check ddz_hello_check; /* players.c */

/* A `hello` on `c` (no player yet). A token is checked off the loop: the
 * connection is held until the answer (ddz__players_token_checked). On a
 * refusal the client gets EAUTH and the connection closes. */
void ddz__players_hello(ddz_srv *srv, ddz_conn *c, const ddz_req *q);

/* The store's reader answered a read the players submitted (a hello's
 * token, or the active tokens' ids). With `answer` false (shutdown: the
 * loop is gone) it is only let go. */
void ddz__players_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer);

/* A session of `account` ended (signed out: `session` its 64 hex digits),
 * or every session of it but `keep` (a password change: keep the one that
 * changed it, NULL for none: the account was deleted). Each player on this
 * node that said hello with an ended session is told EAUTH and its
 * connection closed; it is no longer the account's (a new hello with a
 * live session makes it so again). Other nodes learn of it within
 * DDZ_SESSION_POLL_US (ddz__players_start). */
void ddz__players_sessions_ended(ddz_srv *srv, int64_t account, const char *session,
                                 const char *keep);

/* Whether `rd` is a read the players submitted (a hello's token or
 * session, the active tokens' ids). */
bool ddz__players_owns_read(const ddz_srv *srv, const ddz_store_read *rd);

/* `c` closed: its player (if any) is now disconnected, and a token check
 * it waits for is orphaned. */
void ddz__players_on_close(ddz_srv *srv, ddz_conn *c);

/* Starts reading the active tokens' ids every DDZ_REVOKE_POLL_US, and on
 * several nodes the signed-in players' sessions every DDZ_SESSION_POLL_US
 * (after the store's reader started). Never fails. */
void ddz__players_start(ddz_srv *srv);

/* Frees the players gone longer than --resume-keep that sit at no table.
 * Called from a timer. */
void ddz__players_reap(ddz_srv *srv);

/* Frees every player (shutdown, after the rooms); connections keep no
 * pointers to them. */
void ddz__players_destroy(ddz_srv *srv);

#endif
