/* wsclient.c - the synchronous WebSocket client of wsclient.h.
 *
 * One lws context per client, with the client as the context's user
 * pointer. A wait is a loop of single lws_service() passes, each bounded by
 * a timer (`wake`) armed at the caller's deadline: lws 4.1 ignores
 * lws_service()'s own timeout and sleeps until its next timer or socket
 * event. ddz_wsc_wait_any() blocks in poll() on the clients' sockets
 * instead, then gives each client a non-blocking pass.
 */
#include "wsclient.h"

#include <errno.h>
#include <libwebsockets.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rules/error.h"
#include "test_clock.h"

#define SEND_WAIT_MS T(5000) /* how long a send waits for lws to take the frame */
#define CLOSE_WAIT_MS 500  /* how long ddz_wsc_close() waits for the close handshake */
#define WAIT_ANY_MAX 64    /* clients ddz_wsc_wait_any() polls at once */
#define HTTP_MAX (8 << 20) /* largest HTTP response ddz_wsc_http_get() reads */

typedef struct txmsg {
    struct txmsg *next;
    size_t len;
    bool binary;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the payload */
} txmsg;

struct ddz_wsc {
    struct lws_context *ctx;
    struct lws *wsi;             /* NULL once closed */
    lws_sorted_usec_list_t wake; /* bounds one lws_service() pass */
    bool established;            /* handshake done */
    bool closed;                 /* closed, failed or lost */
    bool closing;                /* we asked to close */
    int close_status;            /* see ddz_wsc_close_status() */
    char err[160];               /* why the connection failed */
    unsigned char *rx;           /* fragments of the frame being received */
    size_t rxlen, rxcap;
    json_t *log;        /* every frame received, in order */
    ddz_event **events; /* events[i]: frame i parsed by the codec, NULL if it broke the contract */
    size_t capevents;   /* entries allocated in `events` */
    char contract[400]; /* the first frame that broke the contract, "" if none */
    size_t next;        /* index in `log` of the next frame recv returns */
    txmsg *head, *tail; /* frames waiting for WRITEABLE */
};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The wake timer's only job is to end the poll() inside lws_service(). If
 * it fell due before lws computed how long to sleep, lws ran it there and
 * would then sleep with no timer at all: so it re-arms itself, 1 ms on, to
 * bound that sleep too. service() re-arms or cancels it on every pass. */
static void on_wake(lws_sorted_usec_list_t *sul)
{
    ddz_wsc *c = lws_container_of(sul, ddz_wsc, wake);
    lws_sul_schedule(c->ctx, 0, &c->wake, on_wake, 1000);
}

/* One pass of the service loop, sleeping at most `wait_us`. A timer that
 * is already due is run before lws computes its sleep, and then no longer
 * limits it: so a pass that must not sleep asks lws for that directly (a
 * negative timeout, which lws 4.1 still honours). */
static void service(ddz_wsc *c, int64_t wait_us)
{
    if (!c->ctx)
        return;
    if (wait_us <= 0) {
        lws_sul_cancel(&c->wake);
        lws_service(c->ctx, -1);
        return;
    }
    lws_sul_schedule(c->ctx, 0, &c->wake, on_wake, wait_us);
    lws_service(c->ctx, 0);
}

/* Notes the first frame that broke the contract: frame `i`, because of
 * `why`. */
static void broke(ddz_wsc *c, size_t i, const char *why)
{
    if (!c->contract[0])
        snprintf(c->contract, sizeof c->contract, "frame %zu, %.*s: %s", i,
                 (int)(c->rxlen < 200 ? c->rxlen : 200), (const char *)c->rx, why);
}

/* Returns the frame in c->rx parsed by the codec, or NULL (noted by
 * broke()) if it is not a server event that prints back to its bytes. */
static ddz_event *check_frame(ddz_wsc *c, size_t i, bool binary)
{
    if (binary) {
        broke(c, i, "a binary frame");
        return NULL;
    }
    ddz_event *e = malloc(sizeof *e);
    if (!e) {
        broke(c, i, "out of memory");
        return NULL;
    }
    char err[200];
    if (ddz_event_parse_text((const char *)c->rx, c->rxlen, e, err, sizeof err) < 0) {
        broke(c, i, err);
        free(e);
        return NULL;
    }
    /* printed as the server prints: reals (botzone-ftl's scores) shortest */
    char *back = ddz_msg_dump(ddz_event_print(e));
    bool same = back && strlen(back) == c->rxlen && memcmp(back, c->rx, c->rxlen) == 0;
    if (!same) {
        char why[300];
        snprintf(why, sizeof why, "prints back as %.200s", back ? back : "nothing");
        broke(c, i, why);
        ddz_event_clear(e);
        free(e);
        e = NULL;
    }
    free(back);
    return e;
}

static void log_frame(ddz_wsc *c, bool binary)
{
    size_t i = json_array_size(c->log);
    if (i == c->capevents) {
        size_t cap = c->capevents ? 2 * c->capevents : 64;
        ddz_event **ev = realloc(c->events, cap * sizeof *ev);
        if (!ev) {
            broke(c, i, "out of memory");
            return; /* the frame is lost: its number is noted */
        }
        c->events = ev;
        c->capevents = cap;
    }
    c->events[i] = check_frame(c, i, binary);
    json_t *j = NULL;
    if (!binary) {
        json_error_t je;
        j = json_loadb((const char *)c->rx, c->rxlen, JSON_REJECT_DUPLICATES, &je);
        if (!j)
            j = json_stringn((const char *)c->rx, c->rxlen);
    }
    json_array_append_new(c->log, j ? j : json_null());
}

static void set_closed(ddz_wsc *c, int status)
{
    c->closed = true;
    c->wsi = NULL;
    if (!c->close_status)
        c->close_status = status;
}

static int cb_client(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                     size_t len)
{
    (void)user;
    ddz_wsc *c = lws_context_user(lws_get_context(wsi));
    if (!c)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        snprintf(c->err, sizeof c->err, "%s", in ? (const char *)in : "connection failed");
        set_closed(c, 1006);
        return 0;
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->established = true;
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (c->rxlen + len + 1 > c->rxcap) {
            size_t cap = c->rxcap ? c->rxcap : 4096;
            while (cap < c->rxlen + len + 1)
                cap *= 2;
            unsigned char *nb = realloc(c->rx, cap);
            if (!nb)
                return -1;
            c->rx = nb;
            c->rxcap = cap;
        }
        memcpy(c->rx + c->rxlen, in, len);
        c->rxlen += len;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            log_frame(c, lws_frame_is_binary(wsi));
            c->rxlen = 0;
        }
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        txmsg *m = c->head;
        if (m) {
            c->head = m->next;
            if (!c->head)
                c->tail = NULL;
            int n = lws_write(wsi, m->buf + LWS_PRE, m->len,
                              m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
            free(m);
            if (n < 0)
                return -1;
            if (c->head || c->closing)
                lws_callback_on_writable(wsi);
            return 0;
        }
        if (c->closing) {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: {
        const unsigned char *p = in;
        if (!c->close_status)
            c->close_status = len >= 2 ? (p[0] << 8) | p[1] : 1005;
        return 0;
    }
    case LWS_CALLBACK_CLIENT_CLOSED:
        set_closed(c, c->closing ? 1000 : 1006);
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {{"ddz-client", cb_client, 0, 0, 0, NULL, 0},
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

static void free_queue(ddz_wsc *c)
{
    while (c->head) {
        txmsg *m = c->head;
        c->head = m->next;
        free(m);
    }
    c->tail = NULL;
}

static void destroy(ddz_wsc *c)
{
    if (c->ctx) {
        lws_sul_cancel(&c->wake);
        lws_context_destroy(c->ctx);
    }
    free_queue(c);
    for (size_t i = 0; c->log && i < json_array_size(c->log); i++)
        if (c->events[i]) {
            ddz_event_clear(c->events[i]);
            free(c->events[i]);
        }
    free(c->events);
    json_decref(c->log);
    free(c->rx);
    free(c);
}

ddz_wsc *ddz_wsc_connect(const char *host, int port, const char *path, int timeout_ms, char *err,
                         size_t errlen)
{
    lws_set_log_level(LLL_ERR, NULL);
    ddz_wsc *c = calloc(1, sizeof *c);
    if (!c || !(c->log = json_array())) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        free(c);
        return NULL;
    }
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = c;
    info.gid = -1;
    info.uid = -1;
    info.fd_limit_per_thread = 16; /* one socket and lws's own pipe: keep the tables small */
    c->ctx = lws_create_context(&info);
    if (!c->ctx) {
        if (err && errlen)
            snprintf(err, errlen, "cannot create a libwebsockets context");
        destroy(c);
        return NULL;
    }
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = c->ctx;
    ci.address = host;
    ci.port = port;
    ci.path = path;
    ci.host = host;
    ci.origin = host;
    ci.local_protocol_name = "ddz-client"; /* no subprotocol asked, as a browser */
    ci.pwsi = &c->wsi;
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    if (!lws_client_connect_via_info(&ci) && !c->closed)
        set_closed(c, 1006);
    while (!c->established && !c->closed) {
        int64_t left = deadline - now_us();
        if (left <= 0) {
            snprintf(c->err, sizeof c->err, "timed out after %d ms", timeout_ms);
            break;
        }
        service(c, left);
    }
    if (!c->established || c->closed) {
        if (err && errlen)
            snprintf(err, errlen, "ws://%s:%d%s: %s", host, port, path,
                     c->err[0] ? c->err : "connection failed");
        destroy(c);
        return NULL;
    }
    return c;
}

int ddz_wsc_send_raw(ddz_wsc *c, const void *data, size_t len, bool binary)
{
    if (c->closed || !c->wsi)
        return DDZ_EIO;
    txmsg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return DDZ_ENOMEM;
    m->next = NULL;
    m->len = len;
    m->binary = binary;
    if (len)
        memcpy(m->buf + LWS_PRE, data, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    lws_callback_on_writable(c->wsi);
    int64_t deadline = now_us() + SEND_WAIT_MS * 1000LL;
    while (c->head && !c->closed) {
        int64_t left = deadline - now_us();
        if (left <= 0)
            return DDZ_ETIMEOUT;
        service(c, left);
    }
    if (c->head) {
        free_queue(c);
        return DDZ_EIO;
    }
    return 0;
}

int ddz_wsc_send(ddz_wsc *c, const char *text)
{
    return ddz_wsc_send_raw(c, text, strlen(text), false);
}

int ddz_wsc_send_json(ddz_wsc *c, json_t *msg)
{
    if (!msg)
        return DDZ_ENOMEM;
    char *s = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!s)
        return DDZ_ENOMEM;
    int rc = ddz_wsc_send(c, s);
    free(s);
    return rc;
}

static size_t pending(const ddz_wsc *c)
{
    return json_array_size(c->log) - c->next;
}

size_t ddz_wsc_poll(ddz_wsc *c, int timeout_ms)
{
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    bool first = true;
    while (!pending(c) && !c->closed) {
        int64_t left = deadline - now_us();
        if (left <= 0 && !first)
            break;
        first = false;
        service(c, left);
    }
    return pending(c);
}

json_t *ddz_wsc_recv(ddz_wsc *c, int timeout_ms)
{
    if (!ddz_wsc_poll(c, timeout_ms))
        return NULL;
    return json_array_get(c->log, c->next++);
}

json_t *ddz_wsc_recv_type(ddz_wsc *c, const char *type, int timeout_ms)
{
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    for (;;) {
        int64_t left = deadline - now_us();
        json_t *f = ddz_wsc_recv(c, left > 0 ? (int)((left + 999) / 1000) : 0);
        if (!f)
            return NULL;
        const char *t = json_string_value(json_object_get(f, "type"));
        if (t && strcmp(t, type) == 0)
            return f;
    }
}

int ddz_wsc_wait_any(ddz_wsc *const *cs, size_t n, int timeout_ms)
{
    if (n > WAIT_ANY_MAX)
        n = WAIT_ANY_MAX;
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    struct pollfd pfd[WAIT_ANY_MAX];
    for (bool first = true;; first = false) {
        nfds_t k = 0;
        bool busy = false; /* lws holds data it has read but not yet delivered */
        for (size_t i = 0; i < n; i++) {
            ddz_wsc *c = cs[i];
            if (!c)
                continue;
            if (!c->closed)
                service(c, 0);
            if (pending(c))
                return (int)i;
            if (c->closed || !c->wsi)
                continue;
            busy |= lws_service_adjust_timeout(c->ctx, 1, 0) == 0;
            pfd[k].fd = lws_get_socket_fd(c->wsi);
            pfd[k].events = POLLIN;
            pfd[k].revents = 0;
            k++;
        }
        int64_t left = deadline - now_us();
        if (k == 0 || (left <= 0 && !first))
            return -1;
        int ms = busy || left <= 0 ? 0 : (int)((left + 999) / 1000);
        if (poll(pfd, k, ms) < 0 && errno != EINTR)
            return -1;
    }
}

bool ddz_wsc_closed(const ddz_wsc *c)
{
    return c->closed;
}

bool ddz_wsc_wait_closed(ddz_wsc *c, int timeout_ms)
{
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    while (!c->closed) {
        int64_t left = deadline - now_us();
        if (left <= 0)
            break;
        service(c, left);
    }
    return c->closed;
}

int ddz_wsc_close_status(const ddz_wsc *c)
{
    return c->close_status;
}

size_t ddz_wsc_nframes(const ddz_wsc *c)
{
    return json_array_size(c->log);
}

json_t *ddz_wsc_frame(const ddz_wsc *c, size_t i)
{
    return json_array_get(c->log, i);
}

size_t ddz_wsc_nread(const ddz_wsc *c)
{
    return c->next;
}

const ddz_event *ddz_wsc_event(const ddz_wsc *c, size_t i)
{
    return i < json_array_size(c->log) ? c->events[i] : NULL;
}

const char *ddz_wsc_contract(const ddz_wsc *c)
{
    return c->contract[0] ? c->contract : NULL;
}

void ddz_wsc_close(ddz_wsc *c)
{
    if (!c)
        return;
    if (!c->closed && c->wsi) {
        c->closing = true;
        lws_callback_on_writable(c->wsi);
        ddz_wsc_wait_closed(c, CLOSE_WAIT_MS);
    }
    destroy(c);
}

/* ---- plain HTTP GET ---- */

/* Waits for `events` on `fd` until `deadline`. Returns 1, 0 on timeout, or
 * -1 on error. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_us();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, (int)((left + 999) / 1000));
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static int connect_tcp(const char *host, int port, int64_t deadline, int *fd_out)
{
    char service_name[16];
    snprintf(service_name, sizeof service_name, "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, service_name, &hints, &res) != 0)
        return DDZ_EIO;
    int rc = DDZ_EIO;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
            close(fd);
            continue;
        }
        int w = wait_fd(fd, POLLOUT, deadline), soerr = 0;
        socklen_t sl = sizeof soerr;
        if (w == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0) {
            *fd_out = fd;
            rc = 0;
            break;
        }
        close(fd);
        if (w == 0) {
            rc = DDZ_ETIMEOUT;
            break;
        }
    }
    freeaddrinfo(res);
    return rc;
}

/* Parses the status line and Content-Length of a complete header. Returns
 * 0, or DDZ_EIO. `clen` is -1 when absent. */
static int parse_head(const char *buf, size_t head_len, int *status, long *clen)
{
    int major, minor;
    if (sscanf(buf, "HTTP/%d.%d %d", &major, &minor, status) != 3)
        return DDZ_EIO;
    *clen = -1;
    for (const char *p = strstr(buf, "\r\n"); p && (size_t)(p - buf) < head_len;
         p = strstr(p + 2, "\r\n"))
        if (strncasecmp(p + 2, "content-length:", 15) == 0)
            *clen = strtol(p + 17, NULL, 10);
    return 0;
}

int ddz_wsc_http_get(const char *host, int port, const char *path, int timeout_ms, int *status,
                     char **body)
{
    return ddz_wsc_http_get_with(host, port, path, NULL, timeout_ms, status, body);
}

int ddz_wsc_http_get_with(const char *host, int port, const char *path, const char *headers,
                          int timeout_ms, int *status, char **body)
{
    *body = NULL;
    *status = 0;
    int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
    int fd = -1, rc = connect_tcp(host, port, deadline, &fd);
    if (rc < 0)
        return rc;
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\nAccept: */*\r\n%s\r\n",
                     path, host, port, headers ? headers : "");
    if (n < 0 || (size_t)n >= sizeof req) {
        close(fd);
        return DDZ_EINVAL;
    }
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t w = send(fd, req + off, (size_t)n - off, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            close(fd);
            return DDZ_EIO;
        }
        int ready = wait_fd(fd, POLLOUT, deadline);
        if (ready <= 0) {
            close(fd);
            return ready == 0 ? DDZ_ETIMEOUT : DDZ_EIO;
        }
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, head_len = 0;
    long clen = -1;
    rc = 0;
    for (;;) {
        if (head_len && clen >= 0 && len - head_len >= (size_t)clen)
            break;
        if (len + 4096 + 1 > cap) {
            if (cap >= HTTP_MAX) {
                rc = DDZ_EIO;
                break;
            }
            size_t ncap = cap ? 2 * cap : 8192;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                rc = DDZ_ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = recv(fd, buf + len, cap - len - 1, 0);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                rc = DDZ_EIO;
                break;
            }
            int ready = wait_fd(fd, POLLIN, deadline);
            if (ready <= 0) {
                rc = ready == 0 ? DDZ_ETIMEOUT : DDZ_EIO;
                break;
            }
            continue;
        }
        len += (size_t)r;
        buf[len] = '\0';
        if (!head_len) {
            char *e = strstr(buf, "\r\n\r\n");
            if (e) {
                head_len = (size_t)(e - buf) + 4;
                if (parse_head(buf, head_len, status, &clen) < 0) {
                    rc = DDZ_EIO;
                    break;
                }
            }
        }
    }
    close(fd);
    if (rc == 0 && (!head_len || (clen >= 0 && len - head_len < (size_t)clen)))
        rc = DDZ_EIO;
    if (rc < 0) {
        free(buf);
        *status = 0;
        return rc;
    }
    size_t blen = len - head_len;
    if (clen >= 0 && blen > (size_t)clen)
        blen = (size_t)clen;
    memmove(buf, buf + head_len, blen);
    buf[blen] = '\0';
    *body = buf;
    return 0;
}
