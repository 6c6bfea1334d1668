/* rated.h - rated quick play (SPEC §15): who waits for a rated table of
 * which rule set, their ratings read from the store (off the loop), one
 * service/rating/rated_queue per rule set looked at every second, and the
 * rated rooms made for the tables it finds.
 *
 * On several nodes a cluster's rated quick play is at ONE node, the
 * holder of the lead job DDZ_RATED_JOB (service/cluster/leader.h), so that
 * people who ask at different nodes meet: a rated `quick` at another node
 * is answered `redirect` to the holder's public URL. While no node holds
 * it (none yet, the database lost), and on one node, it is played where it
 * is asked; a person waiting at a node that loses the job waits on there
 * (docs/decisions.md, "Rated play": rated quick play on several nodes).
 *
 * Calls go lobby -> rated -> rooms, room: the lobby hands it `quick` with
 * "rated" and tells it when a person stops waiting (`leave`, another lobby
 * request); the server, when a connection closes and when the store
 * answers. What a rated room is and what happens after its games:
 * room_fields.h (opts.rated) and rated_games.h. Why these numbers:
 * docs/decisions.md, "Rated play". */
#ifndef DDZ_RATED_H
#define DDZ_RATED_H

#include <stdbool.h>

#include "proto/msg.h"
#include "service/server/player.h"
#include "service/store/store.h"

typedef struct ddz_srv ddz_srv;

/* People who may wait for a rated table on one node, at most (a budget:
 * docs/operations.md). Each is a queue entry of 32 bytes and, while its
 * rating is read, one store read. */
#define DDZ_RATED_WAIT_MAX 10000

/* Seconds a person waits before hosted AIs fill the table, unless
 * --rated-fill-s says. */
#define DDZ_RATED_FILL_S 20

/* The lead job whose holder runs a cluster's rated quick play. */
#define DDZ_RATED_JOB "rated"

/* Asks the leader for DDZ_RATED_JOB (host.h's ddz_host_lead_want()), its
 * index kept in srv->rated_job. Call before the leader starts
 * (ddz__lead_start()). Returns 0, or DDZ_ENOMEM when the leader's jobs are
 * all asked for already (srv->rated_job is then -1; the jobs are the
 * code's, so `ddz serve` does not start). */
int ddz__rated_want(ddz_srv *srv);

/* Makes the queues (one per rule set, the hosted AIs that exist as
 * fillers), reads the AIs' ratings and starts the tick. Call once the
 * loop and the store's reader run. Returns 0 or DDZ_ENOMEM. */
int ddz__rated_start(ddz_srv *srv);

/* Stops the tick and lets everything go (nobody is told: the server
 * stops). Reads still with the store are freed when they come back. Safe
 * when not started. */
void ddz__rated_stop(ddz_srv *srv);

/* `quick` with "rated": true from `p`. A guest or bot gets EAUTH, an
 * unknown rule set ERULESET; otherwise `p` leaves its room (told `joined`
 * with no room if it was in one), and then, when another live node holds
 * DDZ_RATED_JOB, is sent `redirect` to it (about `quick`, the request's
 * id); else a full queue gets EBUSY, and `p`'s rating is read and it
 * waits: `queued`, later `joined` + `state` at a rated table. Never fails
 * otherwise: a rating that cannot be read is 1500 (logged). */
void ddz__rated_quick(ddz_srv *srv, ddz_player *p, const ddz_req *q);

/* `p` stops waiting for a rated table, if it was (`leave`, another lobby
 * request, a closed connection). Returns whether it was waiting. */
bool ddz__rated_cancel(ddz_srv *srv, ddz_player *p);

/* Checks the options of a `create` with "rated" (SPEC §15): what makes
 * one rated game comparable with another (docs/decisions.md, "Rated
 * play"). Returns 0, or DDZ_EFIELD with *why set: remote bots allowed,
 * custody "fault", a clock under DDZ_RATED_TIME_MIN s, a `fill`, or a seat
 * that is no rated hosted AI or names one twice. */
int ddz__rated_room_check(const ddz_room_opts *o, const char **why);

/* The shortest clock of a rated room, in seconds. */
#define DDZ_RATED_TIME_MIN 10

/* Returns whether store read `rd` is one of ours. */
bool ddz__rated_owns_read(const ddz_store_read *rd);

/* Our read `rd` came back (`answer` false: the loop is gone, only free). */
void ddz__rated_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer);

#endif
