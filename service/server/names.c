/* names.c - the names of people's accounts, in memory (names.h). */
#include "service/server/names.h"

#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/utf8.h"

#define FIRST_SLOTS 1024u /* a power of two */

struct ddz_names {
    uint8_t key[crypto_shorthash_KEYBYTES];
    uint64_t *slot; /* 0: empty; a name's hash is never 0 */
    size_t slots;   /* a power of two, at least twice count */
    size_t count;
};

static ddz_names *make(const uint8_t *key)
{
    ddz_names *n = calloc(1, sizeof *n);
    if (!n || !(n->slot = calloc(FIRST_SLOTS, sizeof *n->slot))) {
        free(n);
        return NULL;
    }
    n->slots = FIRST_SLOTS;
    if (key)
        memcpy(n->key, key, sizeof n->key);
    else
        crypto_shorthash_keygen(n->key);
    return n;
}

ddz_names *ddz_names_create(void)
{
    return make(NULL);
}

ddz_names *ddz_names_sibling(const ddz_names *like)
{
    return make(like->key);
}

void ddz_names_destroy(ddz_names *n)
{
    if (!n)
        return;
    free(n->slot);
    free(n);
}

bool ddz_names_key(const char *name, char key[DDZ_NAMES_KEY_MAX])
{
    return name && strnlen(name, DDZ_NAMES_KEY_MAX) < DDZ_NAMES_KEY_MAX &&
           ddz_utf8_valid(name, strlen(name)) &&
           ddz_utf8_fold(name, key, DDZ_NAMES_KEY_MAX) != (size_t)-1;
}

static uint64_t hash(const ddz_names *n, const char *key)
{
    uint8_t out[crypto_shorthash_BYTES];
    crypto_shorthash(out, (const uint8_t *)key, strlen(key), n->key);
    uint64_t h;
    memcpy(&h, out, sizeof h);
    return h ? h : 1;
}

/* The slot of `h`: where it is, or the empty one where it would go. */
static size_t find(const ddz_names *n, uint64_t h)
{
    size_t mask = n->slots - 1, i = (size_t)h & mask;
    while (n->slot[i] && n->slot[i] != h)
        i = (i + 1) & mask;
    return i;
}

/* Puts hash h in; returns 0 or -1 (full, no memory). */
static int put(ddz_names *n, uint64_t h)
{
    size_t i = find(n, h);
    if (n->slot[i])
        return 0;
    if (n->count >= DDZ_NAMES_MAX)
        return -1;
    if (2 * (n->count + 1) > n->slots) { /* at most half full: short probes */
        size_t slots = 2 * n->slots;
        uint64_t *s = calloc(slots, sizeof *s);
        if (!s)
            return -1;
        uint64_t *old = n->slot;
        size_t olds = n->slots;
        n->slot = s, n->slots = slots;
        for (size_t k = 0; k < olds; k++)
            if (old[k])
                n->slot[find(n, old[k])] = old[k];
        free(old);
        i = find(n, h);
    }
    n->slot[i] = h;
    n->count++;
    return 0;
}

int ddz_names_add(ddz_names *n, const char *key)
{
    return put(n, hash(n, key));
}

bool ddz_names_has(const ddz_names *n, const char *key)
{
    return n && n->slot[find(n, hash(n, key))] != 0;
}

int ddz_names_merge(ddz_names *into, const ddz_names *from)
{
    int rc = 0;
    for (size_t k = 0; k < from->slots; k++)
        if (from->slot[k] && put(into, from->slot[k]) < 0)
            rc = -1;
    return rc;
}

void ddz_names_swap(ddz_names *a, ddz_names *b)
{
    ddz_names t = *a;
    *a = *b;
    *b = t;
}

size_t ddz_names_count(const ddz_names *n)
{
    return n ? n->count : 0;
}
