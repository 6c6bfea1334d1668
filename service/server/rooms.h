/* rooms.h - the rooms this node runs, casual rooms and competition tables
 * alike: added, found by id, and freed once dead. */
#ifndef DDZ_ROOMS_H
#define DDZ_ROOMS_H

typedef struct ddz_srv ddz_srv;
typedef struct ddz_room ddz_room;

/* Adds `r` (not yet in the list). Never fails. */
void ddz__rooms_add(ddz_srv *srv, ddz_room *r);

/* Returns the live room `id`, or NULL. */
ddz_room *ddz__rooms_find(ddz_srv *srv, const char *id);

/* Frees the rooms marked dead (nobody points at them after). Called from a
 * timer. */
void ddz__rooms_reap(ddz_srv *srv);

/* Frees every room (shutdown). */
void ddz__rooms_destroy(ddz_srv *srv);

#endif
