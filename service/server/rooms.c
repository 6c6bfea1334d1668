/* rooms.c - the rooms this node runs (rooms.h). */
#include "service/server/rooms.h"

#include <string.h>

#include "service/server/context.h"
#include "service/server/room.h"

void ddz__rooms_add(ddz_srv *srv, ddz_room *r)
{
    *ddz__room_nextp(r) = srv->rooms.list;
    srv->rooms.list = r;
}

ddz_room *ddz__rooms_find(ddz_srv *srv, const char *id)
{
    for (ddz_room *r = srv->rooms.list; r; r = ddz__room_next(r))
        if (!ddz__room_dead(r) && strcmp(ddz__room_id(r), id) == 0)
            return r;
    return NULL;
}

void ddz__rooms_reap(ddz_srv *srv)
{
    /* nobody may still point at a room about to go: one pass over the
     * players for all of them (a pass per room was O(rooms x players):
     * 3,334 rooms closing among 10,002 players stalled the loop) */
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (p->room && ddz__room_dead(p->room))
            p->room = NULL, p->seat = -1;
    for (ddz_room **rp = &srv->rooms.list; *rp;) {
        ddz_room *r = *rp;
        if (ddz__room_dead(r)) {
            *rp = *ddz__room_nextp(r);
            ddz__room_destroy(r);
        } else {
            rp = ddz__room_nextp(r);
        }
    }
}

void ddz__rooms_destroy(ddz_srv *srv)
{
    while (srv->rooms.list) {
        ddz_room *r = srv->rooms.list;
        srv->rooms.list = *ddz__room_nextp(r);
        ddz__room_destroy(r);
    }
}
