/* spawn_budget.c - token buckets for engine process starts. */
#include "service/engine/spawn_budget.h"

#include <stddef.h>

void ddz_spawn_budget_init(ddz_spawn_budget *b, int rate, int64_t now_us, long *refused)
{
    *b = (ddz_spawn_budget){
        .rate = rate, .tokens = rate > 0 ? rate : 0, .at_us = now_us, .refused = refused};
}

/* Brings b->tokens up to `now_us`; a clock that went back adds nothing. */
static void refill(ddz_spawn_budget *b, int64_t now_us)
{
    if (now_us <= b->at_us)
        return;
    b->tokens += (double)(now_us - b->at_us) * b->rate / 1e6;
    if (b->tokens > b->rate)
        b->tokens = b->rate;
    b->at_us = now_us;
}

/* Microseconds until `b` holds a whole token (0 if it does now). */
static int64_t wait_us(ddz_spawn_budget *b, int64_t now_us)
{
    if (!b || b->rate <= 0)
        return 0;
    refill(b, now_us);
    if (b->tokens >= 1)
        return 0;
    /* + 1: rounding must not bring the caller back a microsecond early */
    return (int64_t)((1 - b->tokens) * 1e6 / b->rate) + 1;
}

int64_t ddz_spawn_budget_take(ddz_spawn_budget *room, ddz_spawn_budget *addr,
                              ddz_spawn_budget *total, int64_t now_us)
{
    ddz_spawn_budget *b[3] = {room, addr, total};
    int64_t most = 0;
    for (int i = 0; i < 3; i++) {
        int64_t w = wait_us(b[i], now_us);
        if (w > 0 && b[i]->refused)
            (*b[i]->refused)++;
        most = w > most ? w : most;
    }
    if (most > 0)
        return most;
    for (int i = 0; i < 3; i++)
        if (b[i]) {
            b[i]->taken++;
            if (b[i]->rate > 0)
                b[i]->tokens -= 1;
        }
    return 0;
}

static void charge(ddz_spawn_budget *b, int64_t now_us)
{
    if (!b)
        return;
    b->taken++;
    if (b->rate <= 0)
        return;
    refill(b, now_us);
    b->tokens -= 1;
    if (b->tokens < -b->rate)
        b->tokens = -b->rate;
}

void ddz_spawn_budget_charge(ddz_spawn_budget *room, ddz_spawn_budget *addr,
                             ddz_spawn_budget *total, int64_t now_us)
{
    charge(room, now_us);
    charge(addr, now_us);
    charge(total, now_us);
}

bool ddz_spawn_budget_has(ddz_spawn_budget *b, int64_t now_us)
{
    return wait_us(b, now_us) == 0;
}

long ddz_spawn_budget_used(ddz_spawn_budget *b, int64_t now_us)
{
    if (!b || b->rate <= 0)
        return 0;
    refill(b, now_us);
    return b->tokens > b->rate ? 0 : (long)(b->rate - b->tokens);
}
