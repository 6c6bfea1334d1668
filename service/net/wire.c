/* wire.c - the frame-header scanner on the bytes lws reads, and the recv()
 * and SSL_read() that feed it (see wire.h). */
#include "service/net/wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

enum { PH_OFF, PH_HEAD, PH_FRAMES };                /* what the stream is read as */
enum { FR_B0, FR_B1, FR_LEN, FR_MASK, FR_PAYLOAD }; /* where in a frame */
static const char h2_preface[] = "PRI * HTTP/2.0";  /* the start of HTTP/2 */

typedef struct wire {
    uint8_t phase;     /* PH_* */
    uint8_t fr;        /* FR_*, in PH_FRAMES */
    uint8_t need;      /* bytes left of the extended length or of the mask */
    uint8_t pri;       /* bytes of the head matching h2_preface, 0xff once not */
    bool masked;       /* the current frame has a mask */
    bool unmasked;     /* an unmasked frame was read (since the last head) */
    bool too_large;    /* the first request head went over the limits */
    uint32_t heads;    /* complete request heads read */
    uint32_t head_len; /* bytes of the request head so far */
    uint32_t line_len; /* bytes of its current line, CR and LF aside */
    uint32_t lines;    /* its complete lines */
    uint64_t payload;  /* payload bytes left to skip */
    void *owner;       /* the WebSocket connection, NULL before the upgrade */
} wire;

/* Process-wide because recv() and SSL_read() carry no context: the table
 * of followed sockets, indexed by descriptor, and the hook. Only the loop
 * thread touches them (wire.h). */
static wire *table;
static long table_len;
static ddz_wire_violation_fn hook;
static long unmasked_total, too_large_total;

static const char answer_431[] = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "Content-Length: 32\r\n"
                                 "Connection: close\r\n\r\n"
                                 "request header fields too large\n";

int ddz_wire_init(long nofile, ddz_wire_violation_fn on_unmasked)
{
    ddz_wire_fini();
    table = calloc((size_t)nofile, sizeof *table); /* pages are touched as sockets come */
    if (!table)
        return -1;
    table_len = nofile;
    hook = on_unmasked;
    unmasked_total = too_large_total = 0;
    return 0;
}

void ddz_wire_fini(void)
{
    free(table);
    table = NULL;
    table_len = 0;
    hook = NULL;
}

static wire *entry(int fd)
{
    return table && fd >= 0 && fd < table_len ? &table[fd] : NULL;
}

static void start_head(wire *w)
{
    w->phase = PH_HEAD;
    w->head_len = w->line_len = w->lines = 0;
    w->pri = 0;
    w->unmasked = false;
}

void ddz_wire_track(int fd)
{
    wire *w = entry(fd);
    if (!w)
        return;
    *w = (wire){0};
    start_head(w);
}

bool ddz_wire_attach(int fd, void *owner)
{
    wire *w = entry(fd);
    if (!w)
        return false;
    w->owner = owner;
    if (!owner || !w->unmasked)
        return false;
    w->phase = PH_OFF;
    unmasked_total++;
    return true;
}

long ddz_wire_unmasked_total(void)
{
    return unmasked_total;
}

long ddz_wire_too_large_total(void)
{
    return too_large_total;
}

/* ---- the scanner ---- */

/* One byte of a request head. */
static void head_byte(wire *w, unsigned char c)
{
    w->head_len++;
    if (!w->heads && (w->head_len > DDZ_WIRE_HEAD_MAX || w->lines > DDZ_WIRE_HEAD_LINES)) {
        /* only the first: an answer to an earlier request may be owed */
        w->too_large = true;
        w->phase = PH_OFF;
        return;
    }
    if (w->pri != 0xff) {
        if (c == (unsigned char)h2_preface[w->pri]) {
            if (++w->pri == sizeof h2_preface - 1) {
                w->phase = PH_OFF; /* HTTP/2: frames of its own */
                return;
            }
        } else {
            w->pri = 0xff;
        }
    }
    if (c == '\r')
        return;
    if (c != '\n') {
        w->line_len++;
        return;
    }
    if (w->line_len || !w->lines) {
        w->lines += w->line_len != 0; /* empty lines before the request line are allowed */
        w->line_len = 0;
        return;
    }
    /* the blank line: what follows may be frames, if this was an upgrade */
    w->heads++;
    w->phase = PH_FRAMES;
    w->fr = FR_B0;
}

/* A client sent an unmasked frame. */
static void unmasked(wire *w)
{
    w->unmasked = true;
    if (w->owner) {
        w->phase = PH_OFF; /* the connection is being closed */
        unmasked_total++;
        if (hook)
            hook(w->owner);
    }
}

/* The frame's length is read: its mask follows, or its payload. */
static void after_length(wire *w)
{
    if (w->masked) {
        w->need = 4;
        w->fr = FR_MASK;
    } else {
        w->fr = w->payload ? FR_PAYLOAD : FR_B0;
    }
}

/* Scans `len` bytes read from the socket of `w`. */
static void scan(wire *w, const unsigned char *p, size_t len)
{
    while (len && w->phase != PH_OFF) {
        if (w->phase == PH_HEAD) {
            head_byte(w, *p++);
            len--;
            continue;
        }
        if (w->fr == FR_PAYLOAD) {
            size_t skip = w->payload < len ? (size_t)w->payload : len;
            w->payload -= skip;
            p += skip;
            len -= skip;
            if (!w->payload)
                w->fr = FR_B0;
            continue;
        }
        unsigned char c = *p++;
        len--;
        switch (w->fr) {
        case FR_B0: {
            unsigned op = c & 0x0f;
            if ((c & 0x70) || (op >= 3 && op <= 7) || op >= 0xb) {
                /* not a frame a client may send: a WebSocket is closed by
                 * lws for it; anything else is another request head */
                if (w->owner) {
                    w->phase = PH_OFF;
                } else {
                    start_head(w);
                    head_byte(w, c);
                }
                break;
            }
            w->fr = FR_B1;
            break;
        }
        case FR_B1:
            w->masked = c & 0x80;
            if (!w->masked) {
                unmasked(w);
                if (w->phase == PH_OFF)
                    return;
                /* not a WebSocket yet, maybe never: the length still says
                 * where the next frame would start */
            }
            w->payload = c & 0x7f;
            if (w->payload >= 126) {
                w->need = w->payload == 126 ? 2 : 8;
                w->payload = 0;
                w->fr = FR_LEN;
            } else {
                after_length(w);
            }
            break;
        case FR_LEN:
            w->payload = w->payload << 8 | c;
            if (!--w->need)
                after_length(w);
            break;
        case FR_MASK:
            if (!--w->need)
                w->fr = w->payload ? FR_PAYLOAD : FR_B0;
            break;
        }
    }
}

/* The first request head is too large: answers 431 on the connection
 * (through `ssl` if not NULL) and lets the client's excess go, so that the
 * close does not reset the connection before the client reads the answer.
 * lws is told the stream ended. */
static void refuse_head(int fd, SSL *ssl)
{
    too_large_total++;
    if (ssl) {
        SSL_write(ssl, answer_431, (int)sizeof answer_431 - 1);
        return;
    }
    send(fd, answer_431, sizeof answer_431 - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_WR);
    char sink[4096];
    for (int i = 0; i < 16 && recvfrom(fd, sink, sizeof sink, MSG_DONTWAIT, NULL, NULL) > 0; i++)
        ;
}

/* Scans what a read on `fd` returned (`n` bytes); returns what lws is to
 * see of it: `n`, or 0 (the end of the stream) once the head was refused. */
static long feed(int fd, SSL *ssl, const void *buf, long n)
{
    wire *w = entry(fd);
    if (!w || w->phase == PH_OFF)
        return w && w->too_large ? 0 : n;
    scan(w, buf, (size_t)n);
    if (!w->too_large)
        return n;
    refuse_head(fd, ssl);
    return 0;
}

/* ---- the reads lws makes ---- */

/* libwebsockets reads a plain socket with recv(); recvfrom() with no
 * address is the same call, and is not interposed. */
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (n > 0 && !(flags & MSG_PEEK))
        n = feed(fd, NULL, buf, n);
    return n;
}

/* libwebsockets reads a TLS connection with SSL_read(): the bytes are seen
 * decrypted, on the way out of OpenSSL's. */
int SSL_read(SSL *ssl, void *buf, int num)
{
    typedef int (*ssl_read_fn)(SSL *, void *, int);
    static ssl_read_fn real; /* found once, on the loop thread */
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "SSL_read");
        if (!sym) {
            errno = ENOSYS;
            return -1;
        }
        memcpy(&real, &sym, sizeof real);
    }
    int n = real(ssl, buf, num);
    if (n > 0)
        n = (int)feed(SSL_get_fd(ssl), ssl, buf, n);
    return n;
}
