/* lead_srv.h - the host's side of the leader (service/cluster/leader.h):
 * the jobs the plug-ins ask for (ddz_host_lead_want(), host.h), "ladder:RULES"
 * with a ladder and "tournament:NAME" with --tournament DIR, and rated quick
 * play's "rated" (rated.h, which asks for it itself), go to the one
 * leader; the plug-ins are asked to look when a job moves, and on several
 * nodes given their work on the lead thread. One node is a cluster of one:
 * its jobs are held here from the start, and the plug-ins ask the same
 * questions as on several nodes.
 */
#ifndef DDZ_LEAD_SRV_H
#define DDZ_LEAD_SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ddz_srv ddz_srv;

/* Starts the leader (on several nodes its lead thread) with the jobs the
 * plug-ins asked for (host.h) and their lead_work. Call after the loop and
 * the store exist and the plug-ins were made, before they start. Returns
 * 0, or -1 with a reason in `err`. */
int ddz__lead_start(ddz_srv *srv, char *err, size_t errlen);

/* Follows the jobs: each plug-in (host.h) is asked to look at the jobs it
 * wants (a tournament starts or ends as its job is gained or lost; the
 * ladder hears its cluster side's news). Called on the loop when it is
 * woken and on a tick. Never fails. */
void ddz__lead_poll(ddz_srv *srv);

/* Writes the /metrics lines of the locks to `f` (leader.h: nothing on one
 * node). */
void ddz__lead_metrics(ddz_srv *srv, FILE *f);

/* Stops the leader (on several nodes after a last round of the plug-ins'
 * lead_work: every lock this node held is freed at once). Nothing before
 * ddz__lead_start(). */
void ddz__lead_stop(ddz_srv *srv);

#endif
