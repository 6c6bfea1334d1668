/* login_limit.c - failed sign-ins per key in a fixed window (login_limit.h). */
#include "service/server/login_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char key[DDZ_LOGIN_LIMIT_KEY_MAX]; /* "" for a free slot */
    int64_t start_ms;                  /* when its window began */
    int fails;                         /* in that window */
} entry;

struct ddz_login_limit {
    int max;           /* counts a window allows */
    int64_t window_ms; /* a window's length */
    entry e[DDZ_LOGIN_LIMIT_KEYS];
};

ddz_login_limit *ddz_login_limit_create_for(int max, int64_t window_ms)
{
    ddz_login_limit *l = calloc(1, sizeof(ddz_login_limit));
    if (l) {
        l->max = max < 1 ? 1 : max;
        l->window_ms = window_ms < 1 ? 1 : window_ms;
    }
    return l;
}

ddz_login_limit *ddz_login_limit_create(void)
{
    return ddz_login_limit_create_for(DDZ_LOGIN_LIMIT_FAILS, DDZ_LOGIN_LIMIT_WINDOW_MS);
}

void ddz_login_limit_destroy(ddz_login_limit *l)
{
    free(l);
}

/* The entry of `key`, or NULL. A scan: sign-ins come a few a second at
 * most (the hash pool's bound), and 4096 short compares are microseconds. */
static const entry *find(const ddz_login_limit *l, const char *key)
{
    for (int i = 0; i < DDZ_LOGIN_LIMIT_KEYS; i++)
        if (l->e[i].key[0] && strncmp(l->e[i].key, key, sizeof l->e[i].key - 1) == 0)
            return &l->e[i];
    return NULL;
}

int ddz_login_limit_check(const ddz_login_limit *l, const char *key, int64_t now_ms)
{
    const entry *e = find(l, key);
    if (!e || e->fails < l->max || now_ms - e->start_ms >= l->window_ms)
        return 0;
    int64_t left = e->start_ms + l->window_ms - now_ms;
    return (int)((left + 999) / 1000);
}

void ddz_login_limit_fail(ddz_login_limit *l, const char *key, int64_t now_ms)
{
    entry *e = (entry *)find(l, key);
    if (!e) {
        /* a free slot, an expired one, or else the oldest window */
        e = &l->e[0];
        for (int i = 0; i < DDZ_LOGIN_LIMIT_KEYS; i++) {
            entry *c = &l->e[i];
            if (!c->key[0] || now_ms - c->start_ms >= l->window_ms) {
                e = c;
                break;
            }
            if (c->start_ms < e->start_ms)
                e = c;
        }
        snprintf(e->key, sizeof e->key, "%s", key);
        e->fails = 0;
        e->start_ms = now_ms;
    }
    if (now_ms - e->start_ms >= l->window_ms) { /* a new window */
        e->fails = 0;
        e->start_ms = now_ms;
    }
    e->fails++;
}

void ddz_login_limit_forgive(ddz_login_limit *l, const char *key)
{
    entry *e = (entry *)find(l, key);
    if (e && e->fails > 0)
        e->fails--;
}
