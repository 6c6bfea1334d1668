/* accounts.c - people's accounts over HTTP (accounts.h). */
#include "service/server/accounts.h"

#include <jansson.h>
#include <libwebsockets.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/msg.h"
#include "proto/utf8.h"
#include "rules/error.h"
#include "service/server/budget.h"
#include "service/server/context.h"
#include "service/server/http_routes.h"
#include "service/server/login_limit.h"
#include "service/server/names.h"
#include "service/server/players.h"
#include "service/server/pwhash.h"
#include "service/store/store.h"

/* How often the account names are read again (names.h): new names every
 * DDZ_NAMES_POLL_MS on several nodes (others' sign-ups), the whole set
 * every DDZ_NAMES_FULL_MS everywhere (held names whose 30 days ran out
 * leave it); a first load that failed is tried again every poll. A new
 * name read looks back DDZ_NAMES_OVERLAP_MS before the last read began:
 * the nodes' clocks, which stamp created_at, may differ by that much. */
#define DDZ_NAMES_POLL_MS 10000
#define DDZ_NAMES_FULL_MS (3600 * 1000)
#define DDZ_NAMES_OVERLAP_MS 60000

struct ddz_accounts {
    ddz_srv *srv;
    ddz_pwhash *pool;         /* Argon2id off the loop */
    ddz_login_limit *limit;   /* failed passwords per address and per name */
    ddz_login_limit *signups; /* accounts made per address in an hour */
    /* the account names' reads (names.h): one at a time */
    ddz_store_read keys;  /* its kind ACCOUNT_KEYS; in the store while keys_pending */
    bool keys_pending;    /* keys is in the store's hands */
    ddz_names *loading;   /* filled by the reader thread while keys_pending */
    ddz_names *fresh;     /* names made here while a whole load is pending */
    bool loading_full;    /* the pending read is of every name (since 0) */
    bool overflow;        /* a name did not fit (set on the reader thread, read after) */
    bool loaded;          /* a whole load came */
    int64_t full_ms;      /* wall clock when the last whole load began */
    int64_t since_ms;     /* wall clock when the last load (either) began */
    int64_t pending_ms;   /* wall clock when the pending one began */
    bool overflow_told;   /* the log said it */
    ddz_timer keys_timer; /* the next read */
};

enum acct_route { SIGNUP, SIGNIN, SIGNOUT, PASSWORD, REMOVE };

/* One request on its way: in the store's queue (rd) or the pool's (pw),
 * never both, or being answered. */
typedef struct acct_op {
    ddz_store_read rd; /* its store work (owner: this op) */
    ddz_pwhash_job pw; /* its hash work (owner: this op) */
    ddz_srv *srv;
    void *conn; /* the request waiting (ddz_http_req.conn), NULL once it went */
    void (*answer)(ddz_srv *srv, void *conn, ddz_http_req *req); /* ddz_http_req.answer */
    int route;                                                   /* enum acct_route */
    char addr[DDZ_ADDR_MAX];                 /* the client's address, as counted */
    char name_key[DDZ_LOGIN_LIMIT_KEY_MAX];  /* "n:" and the folded name: its limit's key */
    char name[DDZ_ACCOUNT_NAME_MAX];         /* the name asked for (SIGNUP, SIGNIN) */
    char bearer[DDZ_SESSION_HEX + 1];        /* the session that asks (SIGNOUT, PASSWORD, REMOVE) */
    char newpw[DDZ_PWHASH_PASSWORD_MAX + 1]; /* PASSWORD: the new one, until it is hashed */
    int64_t account;                         /* its account, once known */
    bool signup_counted; /* SIGNUP: counted against its address (given back unless made) */
} acct_op;

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void op_free(acct_op *op)
{
    sodium_memzero(op, sizeof *op); /* passwords, hashes, sessions */
    free(op);
}

/* ---- answers ------------------------------------------------------------------ */

/* The Retry-After line of the answer being made: the transport copies it
 * (take_answer) before the loop makes another. */
static char retry_line[48];

static const char *retry_after(int seconds)
{
    snprintf(retry_line, sizeof retry_line, "retry-after: %d\r\n", seconds < 1 ? 1 : seconds);
    return retry_line;
}

/* Sets `req` to `status` with {"error": CODE, "message": msg}. */
static void refuse(ddz_http_req *req, int status, int code, const char *msg, const char *extra)
{
    json_t *o = json_pack("{s:s, s:s}", "error", ddz_errname(code), "message", msg);
    free(req->body);
    req->body = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    req->status = status;
    req->type = "application/json";
    req->extra = extra;
}

static void refuse_db(ddz_http_req *req)
{
    refuse(req, HTTP_STATUS_SERVICE_UNAVAILABLE, DDZ_EDB, "database unavailable", retry_after(1));
}

static void refuse_busy(ddz_http_req *req)
{
    refuse(req, HTTP_STATUS_SERVICE_UNAVAILABLE, DDZ_EBUSY,
           "too many sign-ins at once; try again in a second", retry_after(1));
}

/* The same words for an unknown name, a wrong password, an unknown session. */
static void refuse_auth(ddz_http_req *req)
{
    refuse(req, HTTP_STATUS_UNAUTHORIZED, DDZ_EAUTH, "wrong name, password or session", NULL);
}

static void refuse_rate(ddz_http_req *req, int seconds)
{
    refuse(req, 429, DDZ_ERATE, "too many failed passwords; try again later", retry_after(seconds));
}

static void refuse_signups(ddz_http_req *req, int seconds)
{
    refuse(req, 429, DDZ_ERATE, "too many accounts made from this address; try again later",
           retry_after(seconds));
}

/* Answers the request of `op` (if it is still there) with `req`, and
 * frees op. */
static void finish(acct_op *op, ddz_http_req *req)
{
    if (op->signup_counted && req->status != 201) { /* no account made: the count goes back */
        char key[DDZ_LOGIN_LIMIT_KEY_MAX];
        snprintf(key, sizeof key, "s:%s", op->addr);
        ddz_login_limit_forgive(op->srv->accounts->signups, key);
    }
    if (op->conn)
        op->answer(op->srv, op->conn, req);
    free(req->body);
    op_free(op);
}

/* Answers `status` with the JSON `o` (taken) and frees op. */
static void finish_json(acct_op *op, int status, json_t *o)
{
    ddz_http_req req = {.status = status, .type = "application/json"};
    req.body = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    finish(op, &req);
}

/* ---- the steps ---------------------------------------------------------------- */

static struct ddz_accounts *state(ddz_srv *srv)
{
    return srv->accounts;
}

/* Hands op to the store's reader thread for `kind`; returns 0 or DDZ_EDB. */
static int to_store(acct_op *op, int kind)
{
    op->rd.kind = kind;
    op->rd.owner = op;
    return op->srv->store && ddz_store_read_submit(op->srv->store, &op->rd) == 0 ? 0 : DDZ_EDB;
}

/* Hands op to the hash pool for `what` (its password set); returns 0 or
 * DDZ_EBUSY (the password then wiped). */
static int to_pool(acct_op *op, int what)
{
    op->pw.op = what;
    op->pw.owner = op;
    int rc = ddz_pwhash_submit(state(op->srv)->pool, &op->pw);
    return rc == 0 ? 0 : DDZ_EBUSY;
}

/* A step failed to start mid-way: the request is answered so. */
static void fail_later(acct_op *op, int rc)
{
    ddz_http_req req = {0};
    if (rc == DDZ_EBUSY)
        refuse_busy(&req);
    else
        refuse_db(&req);
    finish(op, &req);
}

static void forget(void *later)
{
    ((acct_op *)later)->conn = NULL; /* freed when its work comes back */
}

/* A password was wrong (or the name unknown): counted against the address
 * and the name, then 401. */
static void wrong_password(acct_op *op)
{
    struct ddz_accounts *a = state(op->srv);
    int64_t now = mono_ms();
    char key[DDZ_LOGIN_LIMIT_KEY_MAX];
    snprintf(key, sizeof key, "a:%s", op->addr);
    ddz_login_limit_fail(a->limit, key, now);
    if (op->name_key[0])
        ddz_login_limit_fail(a->limit, op->name_key, now);
    ddz_http_req req = {0};
    refuse_auth(&req);
    finish(op, &req);
}

/* Seconds until the address of `op` or its name may try again, 0 now. */
static int limited(const acct_op *op)
{
    /* op_new made sure the state exists */
    struct ddz_accounts *a = state(op->srv);
    int64_t now = mono_ms();
    char key[DDZ_LOGIN_LIMIT_KEY_MAX];
    snprintf(key, sizeof key, "a:%s", op->addr);
    int s = ddz_login_limit_check(a->limit, key, now);
    int n = op->name_key[0] ? ddz_login_limit_check(a->limit, op->name_key, now) : 0;
    return s > n ? s : n;
}

static void set_name_key(acct_op *op, const char *name)
{
    char folded[DDZ_ACCOUNT_NAME_MAX];
    if (strlen(name) < sizeof folded && ddz_utf8_fold(name, folded, sizeof folded) != (size_t)-1)
        snprintf(op->name_key, sizeof op->name_key, "n:%s", folded);
}

/* Account `name` was made on this node: guests are refused it at once,
 * before any read of the names comes back. */
static void names_made(ddz_srv *srv, const char *name)
{
    struct ddz_accounts *a = state(srv);
    char key[DDZ_NAMES_KEY_MAX];
    if (!ddz_names_key(name, key))
        return;
    if (ddz_names_add(srv->names, key) < 0 && !a->overflow_told) {
        a->overflow_told = true;
        ddz__log(srv, "warn", NULL,
                 "more than %u account names: names past the bound are not refused to guests",
                 DDZ_NAMES_MAX);
    }
    if (a->fresh) /* the whole load in flight may have missed it */
        (void)ddz_names_add(a->fresh, key);
}

/* The store answered a read of op. */
static void store_step(acct_op *op)
{
    if (!op->conn) { /* nobody waits: no more work for it */
        op_free(op);
        return;
    }
    ddz_store_read *r = &op->rd;
    int rc = r->rc;
    ddz_http_req req = {0};
    switch (r->kind) {
    case DDZ_STORE_READ_ACCOUNT_ADD: /* SIGNUP's end */
        if (rc == 0)
            names_made(op->srv, r->account.name); /* refused to guests from now on */
        if (rc == 0) {
            json_t *o = json_pack("{s:s, s:s}", "name", r->account.name, "session", r->session);
            finish_json(op, 201, o);
            return;
        }
        if (rc == DDZ_EEXIST)
            refuse(&req, HTTP_STATUS_CONFLICT, DDZ_EEXIST, "the name is taken", NULL);
        else if (rc == DDZ_ENAME || rc == DDZ_EFIELD)
            refuse(&req, HTTP_STATUS_BAD_REQUEST, rc, "the name is not allowed", NULL);
        else
            refuse_db(&req);
        finish(op, &req);
        return;
    case DDZ_STORE_READ_ACCOUNT_GET: /* SIGNIN, PASSWORD, REMOVE: now the password */
        if (rc != 0 && rc != DDZ_ENOTFOUND) {
            fail_later(op, DDZ_EDB);
            return;
        }
        /* an unknown name is verified against the pool's dummy hash: the
         * same work, the same answer */
        op->account = rc == 0 ? r->account.id : 0;
        snprintf(op->pw.hash, sizeof op->pw.hash, "%s", rc == 0 ? r->account.hash : "");
        if ((rc = to_pool(op, DDZ_PWHASH_VERIFY)) < 0)
            fail_later(op, rc);
        return;
    case DDZ_STORE_READ_SESSION_CHECK: /* PASSWORD, REMOVE: whose session */
        if (rc != 0) {
            if (rc == DDZ_EAUTH)
                refuse_auth(&req);
            else
                refuse_db(&req);
            finish(op, &req);
            return;
        }
        op->account = r->account.id;
        set_name_key(op, r->account.name);
        int wait = limited(op);
        if (wait > 0) {
            refuse_rate(&req, wait);
            finish(op, &req);
            return;
        }
        /* the account's hash, by its name (r->account.name already) */
        if ((rc = to_store(op, DDZ_STORE_READ_ACCOUNT_GET)) < 0)
            fail_later(op, rc);
        return;
    case DDZ_STORE_READ_SESSION_NEW: /* SIGNIN's end */
        if (rc == 0) {
            finish_json(op, HTTP_STATUS_OK, json_pack("{s:s}", "session", r->session));
            return;
        }
        if (rc == DDZ_ENOTFOUND) /* deleted meanwhile */
            refuse_auth(&req);
        else
            refuse_db(&req);
        finish(op, &req);
        return;
    case DDZ_STORE_READ_SESSION_END:    /* SIGNOUT's end */
    case DDZ_STORE_READ_ACCOUNT_HASH:   /* PASSWORD's end */
    case DDZ_STORE_READ_ACCOUNT_DELETE: /* REMOVE's end */
        if (rc == 0) {
            /* the live connections of what ended are closed (this node) */
            if (r->kind == DDZ_STORE_READ_SESSION_END)
                ddz__players_sessions_ended(op->srv, r->account.id, op->bearer, NULL);
            else if (r->kind == DDZ_STORE_READ_ACCOUNT_HASH)
                ddz__players_sessions_ended(op->srv, op->account, NULL, op->bearer);
            else
                ddz__players_sessions_ended(op->srv, op->account, NULL, NULL);
            finish_json(op, HTTP_STATUS_OK, json_object());
            return;
        }
        if (rc == DDZ_EAUTH || rc == DDZ_ENOTFOUND)
            refuse_auth(&req);
        else
            refuse_db(&req);
        finish(op, &req);
        return;
    default:
        fail_later(op, DDZ_EDB);
    }
}

/* The pool answered a hash or a verify of op. */
static void pool_step(acct_op *op)
{
    if (!op->conn) {
        op_free(op);
        return;
    }
    ddz_pwhash_job *j = &op->pw;
    int rc = j->rc;
    if (rc == DDZ_EBUSY) { /* the pool stopped before it ran */
        fail_later(op, rc);
        return;
    }
    if (j->op == DDZ_PWHASH_VERIFY) {
        if (rc != 0 || !op->account) {
            wrong_password(op);
            return;
        }
        if (op->route == SIGNIN) {
            op->rd.account.id = op->account;
            rc = to_store(op, DDZ_STORE_READ_SESSION_NEW);
        } else if (op->route == REMOVE) {
            op->rd.account.id = op->account;
            rc = to_store(op, DDZ_STORE_READ_ACCOUNT_DELETE);
        } else { /* PASSWORD: the new one now */
            memcpy(j->password, op->newpw, sizeof j->password);
            sodium_memzero(op->newpw, sizeof op->newpw);
            rc = to_pool(op, DDZ_PWHASH_HASH);
        }
        if (rc < 0)
            fail_later(op, rc);
        return;
    }
    /* a hash made: SIGNUP's or PASSWORD's */
    if (rc != 0) {
        ddz_http_req req = {0};
        refuse(&req, HTTP_STATUS_INTERNAL_SERVER_ERROR, DDZ_ENOMEM, "out of memory", NULL);
        finish(op, &req);
        return;
    }
    snprintf(op->rd.account.hash, sizeof op->rd.account.hash, "%s", j->hash);
    if (op->route == SIGNUP) {
        snprintf(op->rd.account.name, sizeof op->rd.account.name, "%s", op->name);
        rc = to_store(op, DDZ_STORE_READ_ACCOUNT_ADD);
    } else {
        op->rd.account.id = op->account;
        memcpy(op->rd.session, op->bearer, sizeof op->rd.session); /* kept */
        rc = to_store(op, DDZ_STORE_READ_ACCOUNT_HASH);
    }
    if (rc < 0)
        fail_later(op, rc);
}

/* ---- the handlers ------------------------------------------------------------- */

/* The body's JSON object, or NULL (then `req` refused 400). */
static json_t *body_object(ddz_http_req *req)
{
    json_t *o = req->in_len ? json_loadb(req->in, req->in_len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (!json_is_object(o)) {
        json_decref(o);
        refuse(req, HTTP_STATUS_BAD_REQUEST, DDZ_EFIELD, "send a JSON object", NULL);
        return NULL;
    }
    return o;
}

/* A string member of `o`, or NULL (then `req` refused 400). */
static const char *member(json_t *o, const char *key, ddz_http_req *req)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || strlen(s) != json_string_length(json_object_get(o, key))) { /* no NUL inside */
        char msg[64];
        snprintf(msg, sizeof msg, "%s: missing or not a string", key);
        refuse(req, HTTP_STATUS_BAD_REQUEST, DDZ_EFIELD, msg, NULL);
        return NULL;
    }
    return s;
}

/* Whether `pw` is a password SPEC §15 allows, else `req` refused 400. */
static bool password_ok(const char *pw, ddz_http_req *req)
{
    if (strlen(pw) <= DDZ_PWHASH_PASSWORD_MAX && ddz_utf8_chars(pw) >= DDZ_PWHASH_PASSWORD_MIN)
        return true;
    refuse(req, HTTP_STATUS_BAD_REQUEST, DDZ_EPASSWORD,
           "a password has at least 8 characters and at most 1024 bytes", NULL);
    return false;
}

int ddz__accounts_bearer(ddz_http_req *req, char out[DDZ_SESSION_HEX + 1])
{
    char buf[128];
    static const char pre[] = "Bearer ";
    int n = lws_hdr_copy(req->wsi, buf, sizeof buf, WSI_TOKEN_HTTP_AUTHORIZATION);
    bool ok =
        n == (int)(sizeof pre - 1 + DDZ_SESSION_HEX) && strncmp(buf, pre, sizeof pre - 1) == 0;
    if (ok)
        memcpy(out, buf + sizeof pre - 1, DDZ_SESSION_HEX + 1);
    sodium_memzero(buf, sizeof buf);
    return ok ? 1 : n > 0 ? -1 : 0;
}

/* The session of "Authorization: Bearer S" into `out`, else `req` 401. */
static bool bearer(ddz_http_req *req, char out[DDZ_SESSION_HEX + 1])
{
    bool ok = ddz__accounts_bearer(req, out) == 1;
    if (!ok)
        refuse_auth(req);
    return ok;
}

/* A new op for `route` of request `req`; NULL (req refused) when out of
 * memory. */
static acct_op *op_new(ddz_srv *srv, ddz_http_req *req, int route)
{
    if (!srv->accounts || !srv->accounts->pool) { /* not started: never while serving */
        refuse_busy(req);
        return NULL;
    }
    acct_op *op = calloc(1, sizeof *op);
    if (!op) {
        refuse(req, HTTP_STATUS_INTERNAL_SERVER_ERROR, DDZ_ENOMEM, "out of memory", NULL);
        return NULL;
    }
    op->srv = srv;
    op->route = route;
    op->conn = req->conn;
    op->answer = req->answer;
    if (!ddz__budget_client_addr(srv, req->wsi, op->addr))
        snprintf(op->addr, sizeof op->addr, "?");
    return op;
}

/* The op's first step was taken (rc 0): the answer comes later; else it
 * is refused now. */
static void started(acct_op *op, int rc, ddz_http_req *req)
{
    if (rc == 0) {
        req->later = op;
        req->forget = forget;
        return;
    }
    if (rc == DDZ_EBUSY)
        refuse_busy(req);
    else
        refuse_db(req);
    op_free(op);
}

/* The optional "me" of a sign-up (the browser's own key, 32 lower-case
 * hex digits, as hello says it) hashed into `out` as the store keeps a
 * guest's games; all zeros when absent. False (req refused 400) when it is
 * there but no key. */
static bool guest_key(json_t *o, ddz_http_req *req, uint8_t out[DDZ_STORE_ME_BYTES])
{
    memset(out, 0, DDZ_STORE_ME_BYTES);
    json_t *v = json_object_get(o, "me");
    if (!v)
        return true;
    const char *me = json_string_value(v);
    if (!me || strlen(me) != 32 || strspn(me, "0123456789abcdef") != 32) {
        refuse(req, HTTP_STATUS_BAD_REQUEST, DDZ_EFIELD, "me: 32 lower-case hex digits", NULL);
        return false;
    }
    crypto_generichash(out, DDZ_STORE_ME_BYTES, (const uint8_t *)me, 32, NULL, 0);
    return true;
}

/* POST /api/accounts {"name","password","me"?} */
static void signup_post(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    json_t *o = body_object(req);
    const char *name = o ? member(o, "name", req) : NULL;
    const char *pw = name ? member(o, "password", req) : NULL;
    uint8_t me[DDZ_STORE_ME_BYTES];
    if (pw && !guest_key(o, req, me))
        pw = NULL;
    if (pw) {
        char why[160];
        int rc = ddz_msg_display_name_check(name, "name", why, sizeof why);
        if (rc == 0 && strlen(name) >= DDZ_ACCOUNT_NAME_MAX)
            rc = DDZ_EFIELD, snprintf(why, sizeof why, "name: too long");
        if (rc < 0) {
            refuse(req, HTTP_STATUS_BAD_REQUEST, DDZ_ENAME, why, NULL);
        } else if (password_ok(pw, req)) {
            acct_op *op = op_new(srv, req, SIGNUP);
            if (op) {
                /* an address makes at most --signups-per-hour accounts: counted
                 * now, so that sign-ups in flight at once count too, and given
                 * back if none is made (finish()) */
                char key[DDZ_LOGIN_LIMIT_KEY_MAX];
                snprintf(key, sizeof key, "s:%s", op->addr);
                int64_t now = mono_ms();
                int wait = ddz_login_limit_check(srv->accounts->signups, key, now);
                if (wait > 0) {
                    refuse_signups(req, wait);
                    op_free(op);
                } else {
                    ddz_login_limit_fail(srv->accounts->signups, key, now);
                    snprintf(op->name, sizeof op->name, "%s", name);
                    snprintf(op->pw.password, sizeof op->pw.password, "%s", pw);
                    memcpy(op->rd.me, me, sizeof op->rd.me); /* its games claimed */
                    int rc = to_pool(op, DDZ_PWHASH_HASH);
                    if (rc < 0)
                        ddz_login_limit_forgive(srv->accounts->signups, key);
                    else
                        op->signup_counted = true;
                    started(op, rc, req);
                }
            }
        }
    }
    json_decref(o);
}

/* POST /api/sessions {"name","password"} */
static void signin_post(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    json_t *o = body_object(req);
    const char *name = o ? member(o, "name", req) : NULL;
    const char *pw = name ? member(o, "password", req) : NULL;
    if (pw) {
        acct_op *op = op_new(srv, req, SIGNIN);
        if (op) {
            set_name_key(op, name);
            int wait = limited(op);
            if (wait > 0) {
                refuse_rate(req, wait);
                op_free(op);
            } else if (strlen(pw) > DDZ_PWHASH_PASSWORD_MAX ||
                       strlen(name) >= DDZ_ACCOUNT_NAME_MAX) {
                /* no account has it: refused as a wrong password is */
                refuse_auth(req);
                op_free(op);
            } else {
                snprintf(op->pw.password, sizeof op->pw.password, "%s", pw);
                snprintf(op->rd.account.name, sizeof op->rd.account.name, "%s", name);
                started(op, to_store(op, DDZ_STORE_READ_ACCOUNT_GET), req);
            }
        }
    }
    json_decref(o);
}

/* DELETE /api/sessions, Authorization: Bearer S */
static void signout_delete(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    char s[DDZ_SESSION_HEX + 1];
    if (!bearer(req, s))
        return;
    acct_op *op = op_new(srv, req, SIGNOUT);
    if (op) {
        memcpy(op->bearer, s, sizeof s);
        memcpy(op->rd.session, s, sizeof s);
        started(op, to_store(op, DDZ_STORE_READ_SESSION_END), req);
    }
    sodium_memzero(s, sizeof s);
}

/* POST /api/account/password {"old","new"} and DELETE /api/account
 * {"password"}, each with Authorization: Bearer S: the session's account,
 * then its password checked, then the change. */
static void with_password(ddz_srv *srv, ddz_http_req *req, int route)
{
    char s[DDZ_SESSION_HEX + 1];
    if (!bearer(req, s))
        return;
    json_t *o = body_object(req);
    const char *old = o ? member(o, route == PASSWORD ? "old" : "password", req) : NULL;
    const char *new = old &&route == PASSWORD ? member(o, "new", req) : NULL;
    if (old && (route != PASSWORD || (new &&password_ok(new, req)))) {
        acct_op *op = op_new(srv, req, route);
        if (op) {
            int wait = limited(op); /* the address now; the account's once known */
            if (wait > 0) {
                refuse_rate(req, wait);
                op_free(op);
            } else {
                snprintf(op->pw.password, sizeof op->pw.password, "%s", old);
                if (new)
                    snprintf(op->newpw, sizeof op->newpw, "%s", new);
                memcpy(op->bearer, s, sizeof s);
                memcpy(op->rd.session, s, sizeof s);
                started(op, to_store(op, DDZ_STORE_READ_SESSION_CHECK), req);
            }
        }
    }
    sodium_memzero(s, sizeof s);
    json_decref(o);
}

/* /api/sessions: POST signs in, DELETE signs out. */
static void signin_or_out(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    if (req->method == LWSHUMETH_DELETE)
        signout_delete(srv, path, req);
    else
        signin_post(srv, path, req);
}

static void password_post(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    with_password(srv, req, PASSWORD);
}

static void account_delete(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    with_password(srv, req, REMOVE);
}

/* ---- the account names (names.h) ----------------------------------------------- */

/* On the store's reader thread: one name of the load. */
static void key_row(void *ctx, const char *key)
{
    struct ddz_accounts *a = ctx;
    if (ddz_names_add(a->loading, key) < 0)
        a->overflow = true;
}

/* Starts a read of the names: every one (`full`) or those made since the
 * last read began. Returns whether it was handed to the store. */
static bool names_read(struct ddz_accounts *a, bool full)
{
    ddz_srv *srv = a->srv;
    if (a->keys_pending || !srv->store || !srv->names ||
        !(a->loading = ddz_names_sibling(srv->names)))
        return false;
    if (full && !(a->fresh = ddz_names_sibling(srv->names))) {
        ddz_names_destroy(a->loading);
        a->loading = NULL;
        return false;
    }
    a->loading_full = full;
    a->overflow = false;
    a->pending_ms = wall_ms();
    memset(&a->keys, 0, sizeof a->keys);
    a->keys.kind = DDZ_STORE_READ_ACCOUNT_KEYS;
    a->keys.id = full ? 0 : a->since_ms - DDZ_NAMES_OVERLAP_MS;
    a->keys.key_row = key_row;
    a->keys.key_ctx = a;
    a->keys.owner = a;
    a->keys_pending = ddz_store_read_submit(srv->store, &a->keys) == 0;
    if (!a->keys_pending) {
        ddz_names_destroy(a->loading);
        ddz_names_destroy(a->fresh);
        a->loading = a->fresh = NULL;
    }
    return a->keys_pending;
}

static void names_tick(ddz_timer *t)
{
    struct ddz_accounts *a = lws_container_of(t, struct ddz_accounts, keys_timer);
    ddz_srv *srv = a->srv;
    if (!a->keys_pending) {
        if (!a->loaded || wall_ms() - a->full_ms >= DDZ_NAMES_FULL_MS)
            names_read(a, true);
        else if (srv->cluster) /* only other nodes make names this node has not seen */
            names_read(a, false);
    }
    ddz_loop_arm(&srv->loop.base, &a->keys_timer, names_tick, DDZ_NAMES_POLL_MS * 1000LL);
}

/* A read of the names came back. */
static void names_done(struct ddz_accounts *a, bool answer)
{
    ddz_srv *srv = a->srv;
    a->keys_pending = false;
    if (answer && a->keys.rc >= 0) {
        if (a->loading_full) {
            /* the load, and what this node made meanwhile, is the set */
            if (ddz_names_merge(a->loading, a->fresh) < 0)
                a->overflow = true;
            ddz_names_swap(srv->names, a->loading);
            a->loaded = true;
            a->full_ms = a->pending_ms;
        } else if (ddz_names_merge(srv->names, a->loading) < 0) {
            a->overflow = true;
        }
        a->since_ms = a->pending_ms;
        if (a->overflow && !a->overflow_told) {
            a->overflow_told = true;
            ddz__log(srv, "warn", NULL,
                     "more than %u account names: names past the bound are not refused to guests",
                     DDZ_NAMES_MAX);
        }
    }
    ddz_names_destroy(a->loading);
    ddz_names_destroy(a->fresh);
    a->loading = a->fresh = NULL;
}

/* ---- the server's side -------------------------------------------------------- */

int ddz__accounts_start(ddz_srv *srv, void (*wake)(void *ctx))
{
    struct ddz_accounts *a = calloc(1, sizeof *a);
    if (!a)
        return DDZ_ENOMEM;
    srv->accounts = a;
    a->srv = srv;
    int per_hour = srv->cfg.signups_per_hour ? srv->cfg.signups_per_hour : DDZ_SIGNUPS_PER_HOUR;
    if (!(a->limit = ddz_login_limit_create()) ||
        !(a->signups = ddz_login_limit_create_for(per_hour, 3600 * 1000)) ||
        !(srv->names = ddz_names_create()) || !(a->pool = ddz_pwhash_create(NULL, wake, srv)))
        return DDZ_ENOMEM;
    /* the names now (a store read: the loop does not wait for it), then
     * on the timer */
    names_read(a, true);
    ddz_loop_arm(&srv->loop.base, &a->keys_timer, names_tick, DDZ_NAMES_POLL_MS * 1000LL);
    return 0;
}

int ddz__accounts_routes(ddz_srv *srv)
{
    int rc = ddz__http_route_add_methods(&srv->routes, "/api/accounts", DDZ_HTTP_ROUTE_POST,
                                         signup_post);
    if (rc == 0)
        rc =
            ddz__http_route_add_methods(&srv->routes, "/api/sessions",
                                        DDZ_HTTP_ROUTE_POST | DDZ_HTTP_ROUTE_DELETE, signin_or_out);
    if (rc == 0)
        rc = ddz__http_route_add_methods(&srv->routes, "/api/account/password", DDZ_HTTP_ROUTE_POST,
                                         password_post);
    if (rc == 0)
        rc = ddz__http_route_add_methods(&srv->routes, "/api/account", DDZ_HTTP_ROUTE_DELETE,
                                         account_delete);
    return rc;
}

void ddz__accounts_collect(ddz_srv *srv, bool answer)
{
    struct ddz_accounts *a = srv->accounts;
    ddz_pwhash_job *j;
    while (a && a->pool && (j = ddz_pwhash_done(a->pool))) {
        acct_op *op = j->owner;
        if (answer)
            pool_step(op);
        else
            op_free(op);
    }
}

bool ddz__accounts_owns_read(const ddz_store_read *rd)
{
    return (rd->kind >= DDZ_STORE_READ_ACCOUNT_ADD && rd->kind <= DDZ_STORE_READ_SESSION_END) ||
           rd->kind == DDZ_STORE_READ_ACCOUNT_KEYS;
}

void ddz__accounts_read_done(ddz_srv *srv, ddz_store_read *rd, bool answer)
{
    if (rd->kind == DDZ_STORE_READ_ACCOUNT_KEYS) {
        if (srv->accounts && rd == &srv->accounts->keys)
            names_done(srv->accounts, answer);
        return;
    }
    acct_op *op = rd->owner;
    if (answer)
        store_step(op);
    else
        op_free(op);
}

void ddz__accounts_stop(ddz_srv *srv)
{
    if (!srv->accounts)
        return;
    ddz_loop_disarm(&srv->loop.base, &srv->accounts->keys_timer);
    ddz_pwhash_stop(srv->accounts->pool);
}

void ddz__accounts_destroy(ddz_srv *srv)
{
    struct ddz_accounts *a = srv->accounts;
    if (!a)
        return;
    ddz_pwhash_destroy(a->pool);
    ddz_login_limit_destroy(a->limit);
    ddz_login_limit_destroy(a->signups);
    ddz_names_destroy(a->loading); /* a read never answered: NULL after names_done */
    ddz_names_destroy(a->fresh);
    ddz_names_destroy(srv->names);
    srv->names = NULL;
    free(a);
    srv->accounts = NULL;
}
