/* http_routes.c - the route table (see http_routes.h). */
#include "service/server/http_routes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "rules/ruleset.h"

const char ddz__http_no_resource[] = "{\"error\":\"ENOTFOUND\",\"message\":\"no such resource\"}";

/* The length of the first segment of `path` with its '/' ("/api/x" -> 4). */
static size_t first_segment(const char *path)
{
    return 1 + strcspn(path + 1, "/");
}

int ddz__http_route_add(ddz_http_routes *t, const char *path, bool prefix, ddz_http_handler fn)
{
    size_t n = path ? strlen(path) : 0;
    if (!fn || n < 2 || path[0] != '/' || path[1] == '/' ||
        first_segment(path) >= DDZ_HTTP_MOUNT_MAX || prefix != (path[n - 1] == '/'))
        return DDZ_EINVAL;
    for (int i = 0; i < t->n; i++)
        if (t->route[i].prefix == prefix && strcmp(t->route[i].path, path) == 0)
            return DDZ_EINVAL;
    if (t->n == DDZ_HTTP_ROUTES_MAX)
        return DDZ_ENOSPC;
    t->route[t->n++] = (ddz_http_route){.path = path, .prefix = prefix, .fn = fn};
    return 0;
}

int ddz__http_route_add_methods(ddz_http_routes *t, const char *path, unsigned methods,
                                ddz_http_handler fn)
{
    unsigned body = DDZ_HTTP_ROUTE_POST | DDZ_HTTP_ROUTE_DELETE;
    if (!(methods & body) || (methods & ~(body | DDZ_HTTP_ROUTE_GET)))
        return DDZ_EINVAL;
    size_t n = path ? strlen(path) : 0;
    int rc = ddz__http_route_add(t, path, n > 0 && path[n - 1] == '/', fn);
    if (rc == 0)
        t->route[t->n - 1].methods = methods;
    return rc;
}

bool ddz__http_route_takes(const ddz_http_routes *t, const char *uri, int method,
                           const char **allow)
{
    /* the route of the path without its query */
    char path[256];
    size_t n = strcspn(uri, "?");
    const ddz_http_route *r = NULL;
    if (n < sizeof path) {
        memcpy(path, uri, n);
        path[n] = '\0';
        r = ddz__http_route_find(t, path);
    }
    unsigned m = r ? r->methods : 0;
    /* the Allow header of each set of methods (bits: POST, DELETE, GET) */
    static const char *const allowed[8] = {"GET, HEAD",
                                           "POST",
                                           "DELETE",
                                           "POST, DELETE",
                                           "GET, HEAD",
                                           "GET, HEAD, POST",
                                           "GET, HEAD, DELETE",
                                           "GET, HEAD, POST, DELETE"};
    if (allow)
        *allow = allowed[m & 7];
    if (!m || (m & DDZ_HTTP_ROUTE_GET)) {
        if (method == LWSHUMETH_GET || method == LWSHUMETH_HEAD)
            return true;
    }
    return (method == LWSHUMETH_POST && (m & DDZ_HTTP_ROUTE_POST)) ||
           (method == LWSHUMETH_DELETE && (m & DDZ_HTTP_ROUTE_DELETE));
}

const ddz_http_route *ddz__http_route_find(const ddz_http_routes *t, const char *path)
{
    const ddz_http_route *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < t->n; i++) {
        const ddz_http_route *r = &t->route[i];
        if (!r->prefix && strcmp(r->path, path) == 0)
            return r; /* an exact path is the most particular there is */
        size_t n = strlen(r->path);
        if (r->prefix && n > best_len && strncmp(r->path, path, n) == 0) {
            best = r;
            best_len = n;
        }
    }
    return best;
}

bool ddz__http_is_route(const ddz_http_routes *t, const char *uri)
{
    if (uri[0] != '/')
        return false;
    size_t n = first_segment(uri);
    for (int i = 0; i < t->n; i++) {
        const char *p = t->route[i].path;
        if (first_segment(p) == n && strncmp(p, uri, n) == 0)
            return true;
    }
    return false;
}

const struct lws_http_mount *ddz__http_mounts(ddz_http_routes *t, const char *origin,
                                              const struct lws_http_mount *next)
{
    t->nmounts = 0;
    for (int i = 0; i < t->n; i++) {
        const char *p = t->route[i].path;
        size_t n = first_segment(p);
        bool seen = false;
        for (int k = 0; k < t->nmounts && !seen; k++)
            seen = strlen(t->mount_path[k]) == n && strncmp(t->mount_path[k], p, n) == 0;
        if (seen)
            continue;
        char *mp = t->mount_path[t->nmounts];
        memcpy(mp, p, n); /* n < DDZ_HTTP_MOUNT_MAX: ddz__http_route_add() */
        mp[n] = '\0';
        t->mount[t->nmounts++] = (struct lws_http_mount){
            .mountpoint = mp,
            .origin = origin,
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = (unsigned char)n,
        };
    }
    /* chained in the order made, the last one to `next` */
    for (int k = 0; k < t->nmounts; k++)
        t->mount[k].mount_next = k + 1 < t->nmounts ? &t->mount[k + 1] : next;
    return t->nmounts ? &t->mount[0] : next;
}

void ddz__http_not_found(ddz_http_req *req)
{
    free(req->body);
    req->status = HTTP_STATUS_NOT_FOUND;
    req->body = strdup(ddz__http_no_resource);
}

void ddz__http_error(ddz_http_req *req, int status, const char *code, const char *message)
{
    free(req->body);
    req->status = status;
    if (asprintf(&req->body, "{\"error\":\"%s\",\"message\":\"%s\"}", code, message) < 0)
        req->body = NULL;
}

const ddz_rules *ddz__http_rules_arg(ddz_http_req *req)
{
    char arg[64]; /* longer than any rule set's name */
    const char *name = lws_get_urlarg_by_name(req->wsi, "rules=", arg, sizeof arg);
    const ddz_rules *rs = name ? ddz_rules_find(name) : ddz_rules_at(0);
    if (!rs)
        ddz__http_error(req, HTTP_STATUS_BAD_REQUEST, "ERULESET", "unknown rule set");
    return rs;
}

void ddz__http_route(ddz_srv *srv, const ddz_http_routes *t, const char *path, ddz_http_req *req)
{
    req->status = HTTP_STATUS_OK;
    req->type = "application/json";
    const ddz_http_route *r = ddz__http_route_find(t, path);
    if (r)
        r->fn(srv, path, req);
    else
        ddz__http_not_found(req);
}

int ddz__http_url_decode(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in; in++) {
        int c = (unsigned char)*in;
        if (c == '%') {
            unsigned v;
            if (!isxdigit((unsigned char)in[1]) || !isxdigit((unsigned char)in[2]) ||
                sscanf(in + 1, "%2x", &v) != 1 || v == 0)
                return -1;
            c = (int)v;
            in += 2;
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return n ? 0 : -1;
}
