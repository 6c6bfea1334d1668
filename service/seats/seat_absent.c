/* seat_absent.c - a seat whose player is not here: a competition's bot
 * that is not connected when its table must be played. Nothing answers
 * for it. Two kinds, by what the competition charges:
 *
 *     absent:NAME   the clock charges it, as any seat that does not answer
 *                   (a tournament: a bot may still come and take the seat)
 *     gone:NAME     a crash at once, when asked (the ladder: a deal does not
 *                   wait for a bot that left)
 *
 * Both are "bot" seats, shown by NAME and not connected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/seats/seats.h"

typedef struct absent_seat {
    ddz_seat base;
    char name[64];
} absent_seat;

static void absent_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    (void)s, (void)ev, (void)t; /* nobody answers: the clock charges the seat */
}

static void gone_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    (void)ev, (void)t;
    s->host.fault(s->host.ctx, s, DDZ_FAULT_CRASH, -1, "not connected");
}

static const char *absent_name(const ddz_seat *s)
{
    return ((const absent_seat *)s)->name;
}

static bool absent_connected(const ddz_seat *s)
{
    (void)s;
    return false;
}

static void absent_close(ddz_seat *s)
{
    free(s);
}

static const ddz_seat_ops absent_ops = {.kind = "bot",
                                        .ask = absent_ask,
                                        .name = absent_name,
                                        .connected = absent_connected,
                                        .close = absent_close};

static const ddz_seat_ops gone_ops = {.kind = "bot",
                                      .ask = gone_ask,
                                      .name = absent_name,
                                      .connected = absent_connected,
                                      .close = absent_close};

ddz_seat *ddz_seat_absent_create(const char *name, bool at_once, const ddz_seat_env *env, int *err)
{
    absent_seat *a = calloc(1, sizeof *a);
    if (!a) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    a->base =
        (ddz_seat){.ops = at_once ? &gone_ops : &absent_ops, .loop = env->loop, .program = true};
    snprintf(a->name, sizeof a->name, "%s", name);
    return &a->base;
}

bool ddz_seat_is_absent(const ddz_seat *s)
{
    return s && (s->ops == &absent_ops || s->ops == &gone_ops);
}
