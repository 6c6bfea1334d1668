/* seating.h - the one place the server makes a seat for any of its tables:
 * a casual room's AIs and engines, a ladder's or a tournament's programs,
 * and the seat of a person or bot, or of a competition's bot that is not
 * here (seating.c). The seat environment (loop, think pool, engines, the
 * counters the budgets read) is built here and nowhere else. */
#ifndef DDZ_SEATING_H
#define DDZ_SEATING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/engine/spawn_budget.h"
#include "service/server/seat_want.h"
#include "service/server/player.h"
#include "service/table/seat.h"

typedef struct ddz_srv ddz_srv;

/* What seat a table wants: ddz_seat_want (seat_want.h, which competitions
 * see through host.h). */

/* Makes the seat `w` describes (not yet placed at a table). Returns it, or
 * NULL with *err = DDZ_EBUSY (ai_budget and the hosted-AI budget is
 * spent: counted as refused), DDZ_ENOTFOUND (an unknown AI or engine:
 * `msg` says which), DDZ_EINVAL or DDZ_ENOMEM, and `msg` a message for
 * the log. */
ddz_seat *ddz__seat_make(ddz_srv *srv, const ddz_seat_want *w, int *err, char *msg, size_t msglen);

#endif
