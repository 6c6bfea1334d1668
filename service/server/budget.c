/* budget.c - the limits of the server's budgets, the table of client
 * addresses, and their metrics. */
#include "service/server/budget.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "service/seats/think_sched.h"
#include "service/server/context.h"

static const char *const budget_names[DDZ_BUDGET_N] = {
    [DDZ_BUDGET_ENGINES] = "engines",
    [DDZ_BUDGET_AIS] = "ais",
    [DDZ_BUDGET_IDLE_ROOMS] = "idle_rooms",
    [DDZ_BUDGET_ROOMS_PER_IP] = "rooms_per_ip",
    [DDZ_BUDGET_CONNS_PER_IP] = "conns_per_ip",
    [DDZ_BUDGET_QUEUED_BYTES] = "queued_bytes",
    [DDZ_BUDGET_QUEUE_PER_CONN] = "queue_per_conn",
    [DDZ_BUDGET_SPAWNS] = "spawns",
    [DDZ_BUDGET_SPAWNS_PER_ROOM] = "spawns_per_room",
    [DDZ_BUDGET_AI_THINK_PER_IP] = "ai_think_per_ip",
    [DDZ_BUDGET_SPAWNS_PER_IP] = "spawns_per_ip",
};

static long pick(long option, long dflt)
{
    return option > 0 ? option : dflt;
}

long ddz__budget_max_engines(const ddz_srv *srv)
{
    return pick(srv->cfg.max_engines, DDZ_BUDGET_ENGINES_DEFAULT);
}

long ddz__budget_max_ais(const ddz_srv *srv)
{
    return pick(srv->cfg.max_ais, DDZ_BUDGET_AIS_DEFAULT);
}

long ddz__budget_max_idle_rooms(const ddz_srv *srv)
{
    return pick(srv->cfg.max_idle_rooms, DDZ_BUDGET_IDLE_ROOMS_DEFAULT);
}

size_t ddz__budget_max_queued(const ddz_srv *srv)
{
    return (size_t)pick(srv->cfg.max_queued_bytes, DDZ_BUDGET_QUEUED_BYTES_DEFAULT);
}

size_t ddz__budget_max_queue_per_conn(const ddz_srv *srv)
{
    return (size_t)pick(srv->cfg.max_queue_per_conn, DDZ_BUDGET_QUEUE_PER_CONN_DEFAULT);
}

static long max_rooms_per_ip(const ddz_srv *srv)
{
    return pick(srv->cfg.max_rooms_per_ip, DDZ_BUDGET_ROOMS_PER_IP_DEFAULT);
}

static long max_conns_per_ip(const ddz_srv *srv)
{
    return pick(srv->cfg.max_conns_per_ip, DDZ_BUDGET_CONNS_PER_IP_DEFAULT);
}

ddz_think_budget ddz__budget_think(const ddz_srv *srv)
{
    int64_t rate_ms = pick(srv->cfg.ai_think_per_ip, DDZ_BUDGET_AI_THINK_PER_IP_DEFAULT);
    return (ddz_think_budget){.rate_us = rate_ms * 1000,
                              .burst_us = rate_ms * 1000 * DDZ_BUDGET_AI_THINK_BURST_S,
                              .lean_ms = DDZ_BUDGET_AI_LEAN_MS};
}

int ddz__budget_spawn_rate_room(const ddz_srv *srv)
{
    return (int)pick(srv->cfg.spawn_rate_room, DDZ_SPAWN_RATE_ROOM_DEFAULT);
}

ddz_spawn_budget *ddz__budget_spawns(ddz_srv *srv)
{
    ddz_budget *b = &srv->budget;
    if (!b->spawns_ready) {
        ddz_spawn_budget_init(&b->spawns, (int)pick(srv->cfg.spawn_rate, DDZ_SPAWN_RATE_DEFAULT),
                              ddz__now_us(), &b->refused[DDZ_BUDGET_SPAWNS]);
        b->spawns_ready = true;
    }
    return &b->spawns;
}

void ddz__budget_room_spawns(ddz_srv *srv, ddz_spawn_budget *room)
{
    ddz_spawn_budget_init(room, ddz__budget_spawn_rate_room(srv), ddz__now_us(),
                          &srv->budget.refused[DDZ_BUDGET_SPAWNS_PER_ROOM]);
}

int ddz__budget_spawn_rate_ip(const ddz_srv *srv)
{
    return (int)pick(srv->cfg.spawn_rate_ip, DDZ_SPAWN_RATE_IP_DEFAULT);
}

ddz_spawn_budget *ddz__budget_addr_spawns(ddz_srv *srv, ddz_addr *a)
{
    if (!a)
        return NULL;
    if (!a->spawns_ready) {
        ddz_spawn_budget_init(&a->spawns, ddz__budget_spawn_rate_ip(srv), ddz__now_us(),
                              &srv->budget.refused[DDZ_BUDGET_SPAWNS_PER_IP]);
        a->spawns_ready = true;
    }
    return &a->spawns;
}

void ddz__budget_refused(ddz_srv *srv, int kind)
{
    if (kind >= 0 && kind < DDZ_BUDGET_N)
        srv->budget.refused[kind]++;
}

/* ---- wrong passwords ---- */

#define MINUTE_US (60LL * 1000000)

int ddz__budget_password_tries(const ddz_srv *srv)
{
    return (int)pick(srv->cfg.password_tries, DDZ_BUDGET_PASSWORD_TRIES_DEFAULT);
}

int64_t ddz__tries_locked(const ddz_tries *t, int64_t now)
{
    return t->locked_us > now ? t->locked_us - now : 0;
}

bool ddz__tries_fail(ddz_tries *t, int64_t now, int per_minute)
{
    if (t->last_us && now - t->last_us > 10 * MINUTE_US)
        t->penalty_us = 0; /* quiet for ten minutes: forgiven */
    t->last_us = now;
    if (now - t->window_us > MINUTE_US) {
        t->window_us = now;
        t->fails = 0;
    }
    if (++t->fails < per_minute)
        return false;
    t->fails = 0;
    t->window_us = now;
    if (t->penalty_us < MINUTE_US)
        t->penalty_us = MINUTE_US;
    t->locked_us = now + t->penalty_us;
    t->penalty_us = t->penalty_us * 2 > 60 * MINUTE_US ? 60 * MINUTE_US : t->penalty_us * 2;
    return true;
}

bool ddz__tries_active(const ddz_tries *t, int64_t now)
{
    return t->last_us && (ddz__tries_locked(t, now) > 0 || now - t->last_us <= 10 * MINUTE_US);
}

/* ---- client addresses ---- */

/* Writes `text` (an address, maybe with spaces around it) as counted:
 * IPv4 as it is (also when mapped into IPv6), IPv6 as its /64. Returns
 * false if it is not an address. */
static bool normalise(const char *text, size_t len, char out[DDZ_ADDR_MAX])
{
    while (len && (*text == ' ' || *text == '\t'))
        text++, len--;
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    char a[64];
    if (len == 0 || len >= sizeof a)
        return false;
    memcpy(a, text, len);
    a[len] = '\0';
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, a, &v4) == 1)
        return inet_ntop(AF_INET, &v4, out, DDZ_ADDR_MAX) != NULL;
    if (inet_pton(AF_INET6, a, &v6) != 1)
        return false;
    if (IN6_IS_ADDR_V4MAPPED(&v6)) {
        memcpy(&v4, v6.s6_addr + 12, 4);
        return inet_ntop(AF_INET, &v4, out, DDZ_ADDR_MAX) != NULL;
    }
    memset(v6.s6_addr + 8, 0, 8);
    if (!inet_ntop(AF_INET6, &v6, out, DDZ_ADDR_MAX - 4))
        return false;
    strcat(out, "/64");
    return true;
}

/* Whether `key` (as counted) is the --trusted-proxy's address. */
static bool is_proxy(const ddz_srv *srv, const char *key)
{
    char proxy[DDZ_ADDR_MAX];
    const char *tp = srv->cfg.trusted_proxy;
    return tp && normalise(tp, strlen(tp), proxy) && strcmp(proxy, key) == 0;
}

bool ddz__budget_client_addr(const ddz_srv *srv, struct lws *wsi, char out[DDZ_ADDR_MAX])
{
    char peer[128];
    snprintf(out, DDZ_ADDR_MAX, "?");
    if (!lws_get_peer_simple(wsi, peer, sizeof peer) || !normalise(peer, strlen(peer), out))
        return true;
    if (!is_proxy(srv, out))
        return true;
    /* The trusted proxy appends the address it saw: the last hop. The
     * header is read whole, however long the client made the part before
     * it (a fixed buffer used to fail on 512 bytes and count the client
     * as the proxy). lws joins repeated headers with commas. */
    int total = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
    if (total <= 0)
        return true;                  /* none: the proxy's own request, counted as the proxy */
    size_t cap = (size_t)total + 256; /* and a comma between fragments */
    char *xff = malloc(cap);
    if (!xff)
        return false;
    int n = lws_hdr_copy(wsi, xff, (int)cap, WSI_TOKEN_X_FORWARDED_FOR);
    const char *last = n > 0 ? strrchr(xff, ',') : NULL;
    last = last ? last + 1 : xff;
    char client[DDZ_ADDR_MAX];
    bool ok = n > 0 && normalise(last, strlen(last), client);
    if (ok)
        snprintf(out, DDZ_ADDR_MAX, "%s", client);
    free(xff);
    return ok;
}

static unsigned hash(const char *key)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h % DDZ_ADDR_BUCKETS;
}

static ddz_addr *find(ddz_addrs *t, const char *key)
{
    for (ddz_addr *a = t->bucket[hash(key)]; a; a = a->next)
        if (strcmp(a->key, key) == 0)
            return a;
    return NULL;
}

/* Whether the engine starts of `a` are still being paid for at `now`:
 * forgetting it would give the address a full second's burst again. */
static bool spawns_active(ddz_addr *a, int64_t now)
{
    return a->spawns_ready && ddz_spawn_budget_used(&a->spawns, now) > 0;
}

/* Frees `a` if it holds nothing and remembers no wrong password nor
 * engine starts. */
static void maybe_free(ddz_addrs *t, ddz_addr *a)
{
    int64_t now = ddz__now_us();
    if (a->socks > 0 || a->conns > 0 || a->rooms > 0 || ddz__tries_active(&a->tries, now) ||
        spawns_active(a, now))
        return;
    for (ddz_addr **p = &t->bucket[hash(a->key)]; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            t->n--;
            free(a);
            return;
        }
}

/* Frees every entry that holds nothing; with `forget`, also those that
 * only remember wrong passwords or engine starts. */
static void sweep(ddz_addrs *t, bool forget)
{
    int64_t now = ddz__now_us();
    for (int i = 0; i < DDZ_ADDR_BUCKETS; i++)
        for (ddz_addr **p = &t->bucket[i]; *p;) {
            ddz_addr *a = *p;
            if (a->socks == 0 && a->conns == 0 && a->rooms == 0 &&
                (forget || (!ddz__tries_active(&a->tries, now) && !spawns_active(a, now)))) {
                *p = a->next;
                t->n--;
                free(a);
            } else {
                p = &a->next;
            }
        }
}

void ddz__budget_sweep(ddz_srv *srv)
{
    sweep(&srv->budget.addrs, false);
}

bool ddz__budget_conn_allowed(ddz_srv *srv, const char *key)
{
    const ddz_addr *a = find(&srv->budget.addrs, key);
    if (a && a->conns >= max_conns_per_ip(srv)) {
        ddz__budget_refused(srv, DDZ_BUDGET_CONNS_PER_IP);
        return false;
    }
    return true;
}

/* The entry of `key`, made if need be. Returns NULL if no memory, or if
 * the table is full (DDZ_ADDRS_MAX) even after forgetting every address
 * that only remembers wrong passwords. */
static ddz_addr *entry(ddz_srv *srv, const char *key)
{
    ddz_addrs *t = &srv->budget.addrs;
    ddz_addr *a = find(t, key);
    if (!a && t->n >= DDZ_ADDRS_MAX) {
        /* Addresses that only remember wrong passwords are what a client
         * with many addresses could pile up: under that pressure they are
         * forgotten rather than anyone refused. */
        sweep(t, true);
        if (t->n >= DDZ_ADDRS_MAX)
            return NULL;
    }
    if (!a) {
        a = calloc(1, sizeof *a);
        if (!a)
            return NULL;
        snprintf(a->key, sizeof a->key, "%s", key);
        unsigned h = hash(key);
        a->next = t->bucket[h];
        t->bucket[h] = a;
        t->n++;
    }
    return a;
}

ddz_addr *ddz__budget_conn_open(ddz_srv *srv, const char *key)
{
    ddz_addr *a = entry(srv, key);
    if (a)
        a->conns++;
    return a;
}

ddz_addr *ddz__budget_sock_open(ddz_srv *srv, const struct sockaddr *peer, socklen_t len,
                                bool *busy)
{
    char text[INET6_ADDRSTRLEN], key[DDZ_ADDR_MAX] = "?";
    const void *bytes = NULL;
    if (peer->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
        bytes = &((const struct sockaddr_in *)peer)->sin_addr;
    else if (peer->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6))
        bytes = &((const struct sockaddr_in6 *)peer)->sin6_addr;
    if (bytes && inet_ntop(peer->sa_family, bytes, text, sizeof text))
        normalise(text, strlen(text), key);
    *busy = false;
    ddz_addr *a = find(&srv->budget.addrs, key);
    long max = max_conns_per_ip(srv);
    bool proxy = is_proxy(srv, key);
    if (a && !proxy && a->socks >= max) {
        ddz__budget_refused(srv, DDZ_BUDGET_CONNS_PER_IP);
        return NULL;
    }
    if (!a && !(a = entry(srv, key)))
        return NULL;
    a->socks++;
    *busy = !proxy && 2L * a->socks > max;
    return a;
}

void ddz__budget_sock_close(ddz_srv *srv, ddz_addr *a)
{
    if (!a)
        return;
    a->socks--;
    maybe_free(&srv->budget.addrs, a);
}

void ddz__budget_conn_close(ddz_srv *srv, ddz_addr *a)
{
    if (!a)
        return;
    a->conns--;
    maybe_free(&srv->budget.addrs, a);
}

bool ddz__budget_room_allowed(ddz_srv *srv, const ddz_addr *a)
{
    if (a && a->rooms >= max_rooms_per_ip(srv)) {
        ddz__budget_refused(srv, DDZ_BUDGET_ROOMS_PER_IP);
        return false;
    }
    return true;
}

void ddz__budget_room_open(ddz_addr *a)
{
    if (a)
        a->rooms++;
}

void ddz__budget_room_close(ddz_srv *srv, ddz_addr *a)
{
    if (!a)
        return;
    a->rooms--;
    maybe_free(&srv->budget.addrs, a);
}

void ddz__budget_destroy(ddz_srv *srv)
{
    ddz_addrs *t = &srv->budget.addrs;
    for (int i = 0; i < DDZ_ADDR_BUCKETS; i++)
        while (t->bucket[i]) {
            ddz_addr *a = t->bucket[i];
            t->bucket[i] = a->next;
            free(a);
        }
    t->n = 0;
}

/* ---- metrics ---- */

void ddz__budget_metrics(ddz_srv *srv, FILE *f, long locked_rooms, long room_spawns_used,
                         size_t biggest_queue)
{
    ddz_budget *b = &srv->budget;
    long most_conns = 0, most_rooms = 0, most_spawns = 0; /* the address holding the most */
    int64_t now = ddz__now_us();
    for (int i = 0; i < DDZ_ADDR_BUCKETS; i++)
        for (ddz_addr *a = b->addrs.bucket[i]; a; a = a->next) {
            long spawns = a->spawns_ready ? ddz_spawn_budget_used(&a->spawns, now) : 0;
            if (spawns > most_spawns)
                most_spawns = spawns;
            if (a->conns > most_conns)
                most_conns = a->conns;
            /* the proxy's sockets carry many clients, counted each */
            if (a->socks > most_conns && !is_proxy(srv, a->key))
                most_conns = a->socks;
            if (a->rooms > most_rooms)
                most_rooms = a->rooms;
        }
    /* the think pool's: the most one address has used of its burst (ms),
     * and the decisions made lean past it (the pool counts them) */
    ddz_think_stats think = {0};
    if (srv->think)
        ddz_think_get_stats(srv->think, &think);
    b->refused[DDZ_BUDGET_AI_THINK_PER_IP] = think.lean;
    ddz_think_budget tb = ddz__budget_think(srv);
    long used[DDZ_BUDGET_N] = {
        [DDZ_BUDGET_QUEUED_BYTES] = (long)b->queued,
        [DDZ_BUDGET_QUEUE_PER_CONN] = (long)biggest_queue,
        [DDZ_BUDGET_ENGINES] = b->engines,
        [DDZ_BUDGET_AIS] = b->ais,
        [DDZ_BUDGET_IDLE_ROOMS] = b->idle_rooms,
        [DDZ_BUDGET_ROOMS_PER_IP] = most_rooms,
        [DDZ_BUDGET_CONNS_PER_IP] = most_conns,
        [DDZ_BUDGET_SPAWNS] = ddz_spawn_budget_used(ddz__budget_spawns(srv), ddz__now_us()),
        [DDZ_BUDGET_SPAWNS_PER_ROOM] = room_spawns_used,
        [DDZ_BUDGET_AI_THINK_PER_IP] = (long)(think.spent_us / 1000),
        [DDZ_BUDGET_SPAWNS_PER_IP] = most_spawns,
    };
    long limit[DDZ_BUDGET_N] = {
        [DDZ_BUDGET_ENGINES] = ddz__budget_max_engines(srv),
        [DDZ_BUDGET_AIS] = ddz__budget_max_ais(srv),
        [DDZ_BUDGET_IDLE_ROOMS] = ddz__budget_max_idle_rooms(srv),
        [DDZ_BUDGET_ROOMS_PER_IP] = max_rooms_per_ip(srv),
        [DDZ_BUDGET_CONNS_PER_IP] = max_conns_per_ip(srv),
        [DDZ_BUDGET_QUEUED_BYTES] = (long)ddz__budget_max_queued(srv),
        [DDZ_BUDGET_QUEUE_PER_CONN] = (long)ddz__budget_max_queue_per_conn(srv),
        [DDZ_BUDGET_SPAWNS] = ddz__budget_spawns(srv)->rate,
        [DDZ_BUDGET_SPAWNS_PER_ROOM] = ddz__budget_spawn_rate_room(srv),
        [DDZ_BUDGET_AI_THINK_PER_IP] = (long)(tb.burst_us / 1000),
        [DDZ_BUDGET_SPAWNS_PER_IP] = ddz__budget_spawn_rate_ip(srv),
    };
    fprintf(f, "# TYPE ddz_budget_used gauge\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_used{budget=\"%s\"} %ld\n", budget_names[k], used[k]);
    fprintf(f, "# TYPE ddz_budget_limit gauge\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_limit{budget=\"%s\"} %ld\n", budget_names[k], limit[k]);
    fprintf(f, "# TYPE ddz_budget_refused_total counter\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_refused_total{budget=\"%s\"} %ld\n", budget_names[k], b->refused[k]);
    fprintf(f, "# TYPE ddz_addresses gauge\nddz_addresses %ld\n", b->addrs.n);
    long locked = locked_rooms;
    for (int i = 0; i < DDZ_ADDR_BUCKETS; i++)
        for (const ddz_addr *a = b->addrs.bucket[i]; a; a = a->next)
            locked += ddz__tries_locked(&a->tries, now) > 0;
    fprintf(f, "# TYPE ddz_password_failures_total counter\nddz_password_failures_total %ld\n",
            b->password_failures);
    fprintf(f, "# TYPE ddz_password_lockouts_total counter\nddz_password_lockouts_total %ld\n",
            b->password_lockouts);
    fprintf(f, "# TYPE ddz_password_refused_total counter\nddz_password_refused_total %ld\n",
            b->password_refused);
    /* rooms and addresses refusing passwords now */
    fprintf(f, "# TYPE ddz_password_locked gauge\nddz_password_locked %ld\n", locked);
    fprintf(f, "# TYPE ddz_ais_created_total counter\nddz_ais_created_total %ld\n", b->ais_created);
    fprintf(f, "# TYPE ddz_think_queued gauge\nddz_think_queued %ld\n", think.queued);
    fprintf(f, "# TYPE ddz_think_running gauge\nddz_think_running %ld\n", think.running);
    fprintf(f, "# TYPE ddz_think_keys gauge\nddz_think_keys %ld\n", think.keys);
}
