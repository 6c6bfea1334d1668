/* fuzz_gate.c - any bytes as the start of a plain-HTTP connection: read by
 * the gate's head reader (service/net/http_head.h) and by libwebsockets'
 * own header parser, the one `ddz serve` hands accepted heads to.
 *
 * lws runs for real: a context with a vhost configured as the server's
 * (no listener, the same header-data room and options), a socket pair per
 * reading, the bytes given with lws_adopt_socket_vhost_readbuf() as the
 * gate gives them, and a protocol whose callbacks record what lws parsed
 * when it has the whole head (LWS_CALLBACK_FILTER_HTTP_CONNECTION, or
 * LWS_CALLBACK_HTTP_CONFIRM_UPGRADE for an upgrade), then close.
 *
 * Checks, for every head the gate ACCEPTS:
 *  - lws has the whole head with the bytes the gate would hand over, and
 *    not with one byte fewer than the gate's end of the head: both end it
 *    at the same byte;
 *  - lws read one method, the gate's; the same path (the gate's, decoded
 *    as lws decodes it); the same version; the same Upgrade and Connection
 *    values (absent or empty alike).
 * And for the gate alone: the verdict is the same whether the bytes come
 * at once or in two reads (the scanner keeps its state between reads), an
 * accepted head's spans lie inside it, and a refusal says why.
 * Heads the gate refuses are not given to lws: the gate answers them.
 */
#include <libwebsockets.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "service/net/http_head.h"

#define URI_MAX (DDZ_HTTP_HEAD_MAX + 1024)

/* What lws parsed, recorded by the callback. */
static struct {
    bool done;                /* lws had the whole head */
    int methods;              /* method tokens it holds */
    const char *method;       /* the one it holds */
    char uri[URI_MAX];        /* its URI (the path, decoded) */
    char version[32];         /* WSI_TOKEN_HTTP */
    char upgrade[URI_MAX];    /* "" if absent */
    char connection[URI_MAX]; /* "" if absent */
    int alive;                /* wsis of the vhost not yet destroyed */
} seen;

static const struct {
    enum lws_token_indexes tok;
    const char *name;
} lws_methods[] = {
    {WSI_TOKEN_GET_URI, "GET"},         {WSI_TOKEN_POST_URI, "POST"},
    {WSI_TOKEN_OPTIONS_URI, "OPTIONS"}, {WSI_TOKEN_PUT_URI, "PUT"},
    {WSI_TOKEN_PATCH_URI, "PATCH"},     {WSI_TOKEN_DELETE_URI, "DELETE"},
    {WSI_TOKEN_CONNECT, "CONNECT"},     {WSI_TOKEN_HEAD_URI, "HEAD"},
};

/* Copies header `tok` of wsi into out (cap bytes): "" if absent. */
static void copy_hdr(struct lws *wsi, enum lws_token_indexes tok, char *out, int cap)
{
    out[0] = '\0';
    if (lws_hdr_total_length(wsi, tok) > 0)
        FUZZ_CHECK(lws_hdr_copy(wsi, out, cap, tok) >= 0, "header %d does not fit", (int)tok);
}

static void record(struct lws *wsi)
{
    seen.done = true;
    for (size_t i = 0; i < sizeof lws_methods / sizeof lws_methods[0]; i++)
        if (lws_hdr_total_length(wsi, lws_methods[i].tok) > 0) {
            seen.methods++;
            seen.method = lws_methods[i].name;
            copy_hdr(wsi, lws_methods[i].tok, seen.uri, sizeof seen.uri);
        }
    copy_hdr(wsi, WSI_TOKEN_HTTP, seen.version, sizeof seen.version);
    copy_hdr(wsi, WSI_TOKEN_UPGRADE, seen.upgrade, sizeof seen.upgrade);
    copy_hdr(wsi, WSI_TOKEN_CONNECTION, seen.connection, sizeof seen.connection);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    switch (reason) {
    case LWS_CALLBACK_WSI_CREATE:
        seen.alive++;
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        seen.alive--;
        return 0;
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        record(wsi);
        return 1; /* seen: close */
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        record(wsi);
        return -1;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {{"fuzz-gate", callback, 0, 0, 0, NULL, 0},
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

static struct lws_context *ctx;
static struct lws_vhost *vh;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    lws_set_log_level(0, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    /* as service/server/server.c sets it up for plain HTTP */
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.max_http_header_data = DDZ_HTTP_HEAD_MAX + 1024;
    info.options = LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE |
                   LWS_SERVER_OPTION_VALIDATE_UTF8;
    ctx = lws_create_context(&info);
    FUZZ_CHECK(ctx, "no lws context");
    vh = lws_get_vhost_by_name(ctx, "default");
    FUZZ_CHECK(vh, "no vhost");
    return 0;
}

/* Gives lws the n bytes d as the gate does, on a fresh socket; returns with
 * the wsi gone (seen says what lws parsed). */
static void lws_read(const uint8_t *d, size_t n)
{
    int sv[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0,
               "socketpair");
    int alive = seen.alive;
    memset(&seen, 0, sizeof seen);
    seen.alive = alive;
    struct lws *wsi = lws_adopt_socket_vhost_readbuf(vh, sv[0], (const char *)d, n);
    /* lws takes the bytes it was given a buffer at a time (4 KiB), the
     * rest on the next turns of its loop */
    for (int i = 0; wsi && seen.alive > alive && !seen.done && i < 16; i++)
        lws_service(ctx, -1);
    if (wsi && seen.alive > alive) /* still waiting for more of its head */
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_SYNC);
    close(sv[1]);
    /* a wsi closing with output to flush goes on the next turns */
    for (int i = 0; i < 100 && seen.alive > 0; i++)
        lws_service(ctx, -1);
    FUZZ_CHECK(seen.alive == 0, "%d wsi left", seen.alive);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    ddz_http_head h;
    int v = ddz_http_head_read(buf, size, &h);
    FUZZ_CHECK(v >= DDZ_HTTP_H2_PREFACE && v <= DDZ_HTTP_OK, "verdict %d", v);
    if (v < 0)
        FUZZ_CHECK(h.why && h.why[0], "refused (%d) without a reason", v);

    /* the same bytes in two reads: the same verdict */
    size_t cut = size ? data[0] % size : 0;
    ddz_http_scan st = {0};
    ddz_http_head h2;
    int first = ddz_http_head_judge(&st, buf, cut, &h2);
    int second = first == DDZ_HTTP_PARTIAL ? ddz_http_head_judge(&st, buf, size, &h2) : first;
    FUZZ_CHECK(second == v, "verdict %d at once, %d in two reads cut at %zu", v, second, cut);

    if (v != DDZ_HTTP_OK)
        return 0;
    FUZZ_CHECK(h.end >= 4 && h.end <= size && h.end <= DDZ_HTTP_HEAD_MAX, "end %u", h.end);
    FUZZ_CHECK(h2.end == h.end, "end %u at once, %u in two reads", h.end, h2.end);
    FUZZ_CHECK(h.path.off + h.path.len <= h.end && h.path.len >= 1, "path span");
    const char *method = ddz_http_method_name(h.method);
    FUZZ_CHECK(method, "method %d", h.method);
    static char path[URI_MAX];
    FUZZ_CHECK(ddz_http_head_path(buf, &h, path, sizeof path) >= 1, "path does not decode");
    char upgrade[URI_MAX] = "", connection[URI_MAX] = "";
    if (h.upgrade.present)
        snprintf(upgrade, sizeof upgrade, "%.*s", (int)h.upgrade.len, buf + h.upgrade.off);
    if (h.connection.present)
        snprintf(connection, sizeof connection, "%.*s", (int)h.connection.len,
                 buf + h.connection.off);

    /* what the gate hands over: every byte read, at most its buffer */
    size_t handed = size < DDZ_HTTP_HEAD_MAX + 1 ? size : DDZ_HTTP_HEAD_MAX + 1;
    lws_read(data, handed);
    FUZZ_CHECK(seen.done, "the gate took a head of %u bytes that lws did not finish", h.end);
    FUZZ_CHECK(seen.methods == 1 && strcmp(seen.method, method) == 0,
               "method: gate %s, lws %s (%d methods)", method, seen.method ? seen.method : "none",
               seen.methods);
    FUZZ_CHECK(strcmp(seen.uri, path) == 0, "path: gate \"%s\", lws \"%s\"", path, seen.uri);
    FUZZ_CHECK(strcmp(seen.version, h.version == 11 ? "HTTP/1.1" : "HTTP/1.0") == 0,
               "version: gate %d, lws \"%s\"", h.version, seen.version);
    FUZZ_CHECK(strcmp(seen.upgrade, upgrade) == 0, "Upgrade: gate \"%s\", lws \"%s\"", upgrade,
               seen.upgrade);
    FUZZ_CHECK(strcmp(seen.connection, connection) == 0, "Connection: gate \"%s\", lws \"%s\"",
               connection, seen.connection);

    /* lws ends the head at the gate's last byte, not before */
    lws_read(data, h.end - 1);
    FUZZ_CHECK(!seen.done, "lws finished the head before the gate's end (%u bytes)", h.end);
    return 0;
}
