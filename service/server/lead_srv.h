/* lead_srv.h - `ddz serve` as one node of several: the work that must run
 * on one node at a time (the ladder's scheduling, a tournament) follows
 * the PostgreSQL advisory locks of service/cluster/lead.h.
 *
 * Jobs: "node:ID" (held by every node for itself: the others see it alive
 * while it holds it), and those the plug-ins ask for (ddz_host_lead_want(),
 * host.h): "ladder:RULES" with a ladder (its holder schedules the deals of
 * every node: service/ladder/ladder_net.h) and "tournament:NAME" with
 * --tournament DIR, which service/tourney/tourney_srv.c follows. One node (no --node, or a SQLite
 * --db) has none of this: everything runs there, as always.
 */
#ifndef DDZ_LEAD_SRV_H
#define DDZ_LEAD_SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ddz_srv ddz_srv;

/* Starts the lead thread of a clustered server (nothing on one node) with
 * the jobs the plug-ins asked for (host.h) and their lead_work. Call after
 * the loop and the store exist and the plug-ins were made, before they
 * start. Returns 0, or -1 with a reason in `err`. */
int ddz__lead_start(ddz_srv *srv, char *err, size_t errlen);

/* Follows the locks: each plug-in (host.h) is asked to look at the jobs it
 * wants (a tournament starts or ends as its lock is gained or lost; the
 * ladder hears its cluster side's news). Called on the loop when the lead
 * thread wakes it and on a tick. Never fails. */
void ddz__lead_poll(ddz_srv *srv);

/* Writes the /metrics lines of the locks to `f`: ddz_lead_held{job} (1
 * while this node holds it) and ddz_lead_terms_total{job} (times gained).
 * Nothing on one node. */
void ddz__lead_metrics(ddz_srv *srv, FILE *f);

/* Stops the lead thread (after a last round of the plug-ins' lead_work):
 * every lock this node held is freed at once. Nothing on one node. */
void ddz__lead_stop(ddz_srv *srv);

#endif
