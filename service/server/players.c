/* players.c - who each client is (players.h). */
#include "service/server/players.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/names.h"
#include "service/server/room.h"

/* A hello with a bot token needs the tokens table (with an account's
 * session, the sessions table: SPEC §15), and the loop must not
 * wait for the database: the check goes to the store's reader thread, and
 * the hello is finished when the answer comes back.
 *
 * Meanwhile the connection is HELD (ddz__conn_hold): the server stops
 * reading it, so whatever the client sent after its hello stays in the
 * socket and lws's buffer and reaches the lobby afterwards, in order, after
 * `welcome` (or never, if the token is refused and the connection closed).
 * A client may therefore send hello and its first requests at once, with a
 * token as without one: nothing is refused for arriving early, nothing is
 * buffered here, and a second hello cannot overtake the first. */
struct ddz_hello_check {
    ddz_store_read rd;     /* first; rd.owner is the connection, NULL once closed */
    ddz_req q;             /* the hello, token and session wiped */
    uint8_t session[32];   /* a session's hash (ddz_player.session) */
    ddz_hello_check *next; /* in srv->players.checks */
};

/* Which session `hex` is, whatever the case of its digits: the id the
 * store keeps (so that a poll can ask the store about it), zeros for a
 * malformed one (which the store refuses at hello). */
static void session_id(const char *hex, uint8_t out[32])
{
    _Static_assert(sizeof((ddz_player *)0)->session == DDZ_SESSION_ID_BYTES, "a session's id");
    ddz_store_session_id(hex, out);
}

static ddz_player *find_resume(ddz_srv *srv, const char *token)
{
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (strlen(p->resume) == strlen(token) &&
            sodium_memcmp(p->resume, token, strlen(token)) == 0)
            return p;
    return NULL;
}

/* The player of the bot named `name` (its token's), or NULL. */
static ddz_player *find_bot(ddz_srv *srv, const char *name)
{
    for (ddz_player *p = srv->players.list; p; p = p->next)
        if (p->bot && strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

/* Refuses a hello: EAUTH with `why`, and the connection closes. */
static void refuse(ddz_conn *c, const char *why, const ddz_req *q)
{
    ddz__conn_error(c, DDZ_EAUTH, why, q);
    ddz__conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "refused");
}

static void welcome(ddz_conn *c, ddz_player *p)
{
    ddz_event e = {
        .type = DDZ_EVENT_WELCOME,
        .welcome = {.version = DDZ_PROTOCOL_VERSION, .bot = p->bot, .server = "ddz 0.1"}};
    snprintf(e.welcome.id, sizeof e.welcome.id, "%s", p->id);
    snprintf(e.welcome.name, sizeof e.welcome.name, "%s", p->name);
    snprintf(e.welcome.resume, sizeof e.welcome.resume, "%.64s", p->resume); /* 64 hex digits */
    if (p->account)
        snprintf(e.welcome.account, sizeof e.welcome.account, "%s", p->name);
    ddz__conn_send(c, ddz_event_print(&e));
}

static ddz_player *new_player(ddz_srv *srv)
{
    ddz_player *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->id, sizeof p->id, "p%ld", (++srv->players.next_id) % 1000000000L);
    uint8_t raw[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(p->resume, sizeof p->resume, raw, sizeof raw);
    p->seat = -1;
    p->autopass = true;
    p->next = srv->players.list;
    srv->players.list = p;
    return p;
}

/* Lets `p` go: no competition, no room, no connection points at it after.
 * The caller has unlinked it from the list. */
static void free_player(ddz_srv *srv, ddz_player *p)
{
    if (p->enlisted) /* every competition forgets it (one knows it) */
        for (int i = 0; i < srv->nplugins; i++)
            if (srv->plugin[i]->forget)
                srv->plugin[i]->forget(srv->plugin_self[i], p);
    ddz__player_leave(p);
    if (p->conn)
        ddz__conn_set_player(p->conn, NULL);
    free(p);
}

/* Says hello to `c`: a new player, or the one of q->resume, or (with a bot
 * token accepted: `botname` and `token_id`, else NULL) the token's, or
 * (with an account's session accepted: `account` > 0 and its name in
 * `botname`, token_id NULL) a person playing as that account. */
static void hello_done(ddz_srv *srv, ddz_conn *c, const ddz_req *q, const char *botname,
                       const uint8_t *token_id, int64_t account, const uint8_t *session)
{
    ddz_player *p = q->resume[0] ? find_resume(srv, q->resume) : NULL;
    if (p && p->account != account) {
        /* a resume token names one player, guest or account: another
         * account's session (or none) does not take it over */
        refuse(c, "this resume token is another player's", q);
        return;
    }
    if (account) {
        if (p && p->bot) {
            refuse(c, "a bot resumes with its token", q);
            return;
        }
    } else if (botname) {
        /* one token, one player: the token decides who this is, and a
         * resume token may only name that same player */
        ddz_player *mine = find_bot(srv, botname);
        if (p && p != mine) {
            refuse(c, "this resume token is another player's", q);
            return;
        }
        p = mine;
    } else if (p && p->bot) {
        refuse(c, "a bot resumes with its token", q);
        return;
    }
    if (!p && !(p = new_player(srv))) {
        ddz__conn_error(c, DDZ_ENOMEM, NULL, q);
        return;
    }
    if (p->conn && p->conn != c) {
        /* the same player from a new connection: the old one is told and
         * closed */
        ddz__conn_error(p->conn, DDZ_EAUTH, "this player connected again elsewhere", NULL);
        ddz__conn_set_player(p->conn, NULL);
        ddz__conn_close(p->conn, LWS_CLOSE_STATUS_POLICY_VIOLATION, "replaced");
    }
    if (account) {
        p->account = account;
        memcpy(p->session, session, sizeof p->session);
        snprintf(p->name, sizeof p->name, "%s", botname); /* the account's, not the hello's */
    } else if (botname) {
        p->bot = true;
        snprintf(p->name, sizeof p->name, "%s", botname);
        memcpy(p->token_id, token_id, sizeof p->token_id);
    } else {
        snprintf(p->name, sizeof p->name, "%s", q->name); /* a person's name is only shown */
    }
    if (p->account) {
        /* a signed-in person's games are the account's, whatever the
         * device: "my games" with the session lists them (store.h) */
        ddz_store_account_owner(p->account, p->me);
        p->has_me = true;
    } else if (q->me[0] && !p->bot) {
        /* kept hashed: the key itself opens the player's list of games */
        crypto_generichash(p->me, sizeof p->me, (const uint8_t *)q->me, strlen(q->me), NULL, 0);
        p->has_me = true;
    }
    p->conn = c;
    p->gone_us = 0;
    ddz__conn_set_player(c, p);
    welcome(c, p);
    if (p->room) {
        ddz__room_connection(p->room, p, true);
        ddz__room_send_state(p->room, p);
    }
}

void ddz__players_hello(ddz_srv *srv, ddz_conn *c, const ddz_req *q)
{
    if (ddz__conn_player(c)) {
        ddz__conn_error(c, DDZ_EPHASE, "hello was already said on this connection", q);
        return;
    }
    if (!q->token[0] && !q->session[0]) {
        /* an account's name is nobody else's (SPEC §15): asked of the set
         * in memory, never of the database (names.h) */
        char key[DDZ_NAMES_KEY_MAX];
        if (ddz_names_key(q->name, key) && ddz_names_has(srv->names, key)) {
            ddz__conn_error(c, DDZ_ENAME,
                            "this name belongs to a signed-up person: choose another, or sign in",
                            q);
            return;
        }
        hello_done(srv, c, q, NULL, NULL, 0, NULL);
        return;
    }
    if (q->token[0] && q->session[0]) {
        refuse(c, "a bot token or an account's session, not both", q);
        return;
    }
    if (strlen(q->token) > DDZ_TOKEN_HEX) { /* cannot be one, and would not fit */
        refuse(c, "unknown or revoked bot token", q);
        return;
    }
    if (strlen(q->session) > DDZ_SESSION_HEX) {
        refuse(c, "unknown or ended session", q);
        return;
    }
    ddz_hello_check *h = calloc(1, sizeof *h);
    if (!h) {
        ddz__conn_error(c, DDZ_ENOMEM, NULL, q);
        return;
    }
    if (q->session[0]) {
        session_id(q->session, h->session);
        h->rd.kind = DDZ_STORE_READ_SESSION_CHECK;
        memcpy(h->rd.session, q->session, strlen(q->session) + 1);
    } else {
        h->rd.kind = DDZ_STORE_READ_TOKEN;
        memcpy(h->rd.token, q->token, strlen(q->token) + 1);
    }
    h->rd.owner = c;
    h->q = *q;
    sodium_memzero(h->q.token, sizeof h->q.token);
    sodium_memzero(h->q.session, sizeof h->q.session);
    if (ddz_store_read_submit(srv->store, &h->rd) < 0) {
        sodium_memzero(h->rd.token, sizeof h->rd.token);
        sodium_memzero(h->rd.session, sizeof h->rd.session);
        free(h);
        ddz__conn_error(c, DDZ_EDB, "cannot check bot tokens or sessions now", q);
        return;
    }
    h->next = srv->players.checks;
    srv->players.checks = h;
    ddz__conn_hold(c, true);
}

static void token_checked(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    ddz_hello_check *h = lws_container_of(rd, ddz_hello_check, rd);
    for (ddz_hello_check **hp = &srv->players.checks; *hp; hp = &(*hp)->next)
        if (*hp == h) {
            *hp = h->next;
            break;
        }
    ddz_conn *c = rd->owner;
    if (answer && c && rd->kind == DDZ_STORE_READ_SESSION_CHECK) {
        ddz__conn_hold(c, false);
        if (rd->rc == DDZ_EDB)
            ddz__conn_error(c, DDZ_EDB, "cannot check sessions now: the database is unavailable",
                            &h->q);
        else if (rd->rc < 0)
            refuse(c, "unknown or ended session", &h->q);
        else
            hello_done(srv, c, &h->q, rd->account.name, NULL, rd->account.id, h->session);
    } else if (answer && c) {
        ddz__conn_hold(c, false);
        if (rd->rc == DDZ_ENAME)
            refuse(c,
                   "this bot token's name is not allowed as a display name: the operator must "
                   "revoke it and give the bot a token under another name",
                   &h->q);
        else if (rd->rc == DDZ_EDB) /* not a verdict on the token: the bot may say hello again */
            ddz__conn_error(c, DDZ_EDB, "cannot check bot tokens now: the database is unavailable",
                            &h->q);
        else if (rd->rc < 0)
            refuse(c, "unknown or revoked bot token", &h->q);
        else
            hello_done(srv, c, &h->q, rd->name, rd->token_id, 0, NULL);
    }
    sodium_memzero(h, sizeof *h);
    free(h);
}

/* ---- revocation ---- */

static int id_cmp(const void *a, const void *b)
{
    return memcmp(a, b, DDZ_TOKEN_ID_BYTES);
}

/* The active tokens' ids came: every bot whose token is not among them was
 * revoked, and is ended at once. A failed read (the database away) ends
 * nobody. */
static void ids_read(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    srv->players.ids_pending = false;
    if (answer && rd->rc >= 0) {
        size_t n = (size_t)rd->rc;
        for (ddz_player **pp = &srv->players.list; *pp;) {
            ddz_player *p = *pp;
            if (!p->bot || (n && bsearch(p->token_id, rd->ids, n, sizeof *rd->ids, id_cmp))) {
                pp = &p->next;
                continue;
            }
            ddz__log(srv, "info", NULL, "bot %s: its token was revoked", p->name);
            *pp = p->next;
            if (p->conn) {
                ddz__conn_error(p->conn, DDZ_EAUTH, "this bot's token was revoked", NULL);
                ddz__conn_close(p->conn, LWS_CLOSE_STATUS_POLICY_VIOLATION, "revoked");
            }
            free_player(srv, p);
        }
    }
    free(rd->ids);
    rd->ids = NULL;
}

static void ids_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, players.ids_timer));
    bool bots = false;
    for (ddz_player *p = srv->players.list; p && !bots; p = p->next)
        bots = p->bot;
    /* one read at a time, and none while no bot is here to end */
    if (bots && !srv->players.ids_pending) {
        srv->players.ids.kind = DDZ_STORE_READ_TOKEN_IDS;
        srv->players.ids_pending = ddz_store_read_submit(srv->store, &srv->players.ids) == 0;
    }
    ddz_loop_arm(&srv->loop.base, &srv->players.ids_timer, ids_tick, DDZ_REVOKE_POLL_US);
}

/* ---- sessions ended on other nodes ---- */

/* Ends player p's session here: told, closed, a guest from now on. */
static void session_over(ddz_player *p)
{
    p->account = 0;    /* its resume token no longer plays as the account */
    p->has_me = false; /* nor are its games the account's */
    if (p->conn) {
        ddz_conn *c = p->conn;
        ddz__conn_error(c, DDZ_EAUTH, "this session ended", NULL);
        ddz__conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "session ended");
    }
}

static void sessions_tick(ddz_timer *t)
{
    ddz_srv *srv = (ddz_srv *)((char *)t - offsetof(ddz_srv, players.sessions_timer));
    ddz_players *ps = &srv->players;
    size_t n = 0;
    for (ddz_player *p = ps->list; p; p = p->next)
        n += p->account && p->conn;
    /* one read at a time, none while nobody here is signed in */
    if (n && !ps->sessions_pending) {
        ddz_store_read *rd = &ps->sessions;
        memset(rd, 0, sizeof *rd);
        rd->kind = DDZ_STORE_READ_SESSIONS_LIVE;
        rd->sessions = malloc(n * sizeof *rd->sessions);
        rd->live = calloc(n, sizeof *rd->live);
        if (rd->sessions && rd->live) {
            size_t i = 0;
            for (ddz_player *p = ps->list; p && i < n; p = p->next)
                if (p->account && p->conn)
                    memcpy(rd->sessions[i++], p->session, sizeof p->session);
            rd->nsessions = i;
            ps->sessions_pending = ddz_store_read_submit(srv->store, rd) == 0;
        }
        if (!ps->sessions_pending) {
            free(rd->sessions);
            free(rd->live);
            rd->sessions = NULL, rd->live = NULL;
        }
    }
    ddz_loop_arm(&srv->loop.base, &ps->sessions_timer, sessions_tick, DDZ_SESSION_POLL_US);
}

/* The sessions' answer came: every player still signed in under a
 * session the store no longer has (ended on another node: signed out, a
 * password changed, the account deleted) is ended here. A failed read (the
 * database away) ends nobody. */
static void sessions_read(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    srv->players.sessions_pending = false;
    for (size_t i = 0; answer && rd->rc >= 0 && i < rd->nsessions; i++) {
        if (rd->live[i])
            continue;
        for (ddz_player *p = srv->players.list; p; p = p->next)
            if (p->account && sodium_memcmp(p->session, rd->sessions[i], sizeof p->session) == 0)
                session_over(p);
    }
    free(rd->sessions);
    free(rd->live);
    rd->sessions = NULL, rd->live = NULL;
}

void ddz__players_start(ddz_srv *srv)
{
    ddz_loop_arm(&srv->loop.base, &srv->players.ids_timer, ids_tick, DDZ_REVOKE_POLL_US);
    if (srv->cluster) /* one node ends its sessions itself, at once */
        ddz_loop_arm(&srv->loop.base, &srv->players.sessions_timer, sessions_tick,
                     DDZ_SESSION_POLL_US);
}

void ddz__players_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    if (rd->kind == DDZ_STORE_READ_TOKEN_IDS)
        ids_read(srv, rd, answer);
    else if (rd->kind == DDZ_STORE_READ_SESSIONS_LIVE)
        sessions_read(srv, rd, answer);
    else
        token_checked(srv, rd, answer);
}

void ddz__players_sessions_ended(ddz_srv *srv, int64_t account, const char *session,
                                 const char *keep)
{
    uint8_t one[32], kept[32];
    if (session)
        session_id(session, one);
    if (keep)
        session_id(keep, kept);
    for (ddz_player *p = srv->players.list; p; p = p->next) {
        if (p->account != account || (session && sodium_memcmp(p->session, one, sizeof one) != 0) ||
            (keep && sodium_memcmp(p->session, kept, sizeof kept) == 0))
            continue;
        session_over(p);
    }
}

bool ddz__players_owns_read(const ddz_srv *srv, const ddz_store_read *rd)
{
    if (rd->kind == DDZ_STORE_READ_TOKEN || rd->kind == DDZ_STORE_READ_TOKEN_IDS ||
        rd->kind == DDZ_STORE_READ_SESSIONS_LIVE)
        return true;
    for (const ddz_hello_check *h = srv->players.checks; h; h = h->next)
        if (&h->rd == rd)
            return true;
    return false;
}

/* ---- connections ---- */

void ddz__players_on_close(ddz_srv *srv, ddz_conn *c)
{
    for (ddz_hello_check *h = srv->players.checks; h; h = h->next)
        if (h->rd.owner == c)
            h->rd.owner = NULL; /* the answer is dropped when it comes */
    ddz_player *p = ddz__conn_player(c);
    if (!p)
        return;
    p->conn = NULL;
    p->gone_us = ddz__now_us();
    if (p->room)
        ddz__room_connection(p->room, p, false);
}

void ddz__players_reap(ddz_srv *srv)
{
    int64_t now = ddz__now_us();
    int64_t keep = (srv->cfg.resume_keep_s ? srv->cfg.resume_keep_s : 120) * 1000000LL;
    for (ddz_player **pp = &srv->players.list; *pp;) {
        ddz_player *p = *pp;
        if (!p->conn && (p->room == NULL || p->seat < 0) && now - p->gone_us > keep) {
            *pp = p->next;
            free_player(srv, p);
        } else {
            pp = &p->next;
        }
    }
}

void ddz__players_destroy(ddz_srv *srv)
{
    ddz_loop_disarm(&srv->loop.base, &srv->players.ids_timer);
    ddz_loop_disarm(&srv->loop.base, &srv->players.sessions_timer);
    while (srv->players.list) {
        ddz_player *p = srv->players.list;
        srv->players.list = p->next;
        free_player(srv, p);
    }
}
