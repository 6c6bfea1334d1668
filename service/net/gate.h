/* gate.h - every client socket from its accept to its close: counted
 * against its client's address at the door, and, on plain HTTP, held by
 * ddz until its first request head is whole and read, then handed to
 * libwebsockets with that head, and watched until lws has answered it.
 *
 * Why ddz reads the head itself: lws 4.1.6 drops a connection without a
 * word when a request head overflows its header table, keeps a socket that
 * sends nothing for about 10 s, gives no hook before it parses, and reads
 * some heads other than as RFC 9112 says: a CONNECT becomes a raw socket
 * nobody answers or times out, a head ended by "\r\r\n" never ends, a NUL
 * cuts a header value short ("Upgrade: h2c\0x" read as h2c), a field name
 * that is the start of one it knows swallows the lines after it. The
 * listener (listener.h) accepts every socket itself, so a socket can stay
 * ddz's until its head is read: the gate watches the sockets it holds in
 * an epoll set of its own (one descriptor, adopted into lws's loop like the
 * listening socket: the sockets themselves are never in lws's loop twice,
 * and leaving the set is an explicit EPOLL_CTL_DEL on a live descriptor),
 * reads the head into a bounded buffer (DDZ_GATE_HEAD_MAX bytes,
 * DDZ_GATE_HEAD_LINES lines) and judges it with http_head.h's strict
 * grammar (which says what is accepted: GET, HEAD, POST, PUT, DELETE and
 * OPTIONS on an origin-form target, HTTP/1.0 or 1.1, CRLF lines, no
 * control bytes, no field lws would read otherwise, Upgrade websocket or
 * none; tests/fuzz/fuzz_gate.c checks lws reads each accepted head the
 * same way), and then either
 *  - hands the socket to lws with lws_adopt_socket_vhost_readbuf() (public
 *    API: lws 4.1's adopt.c appends the bytes to the new wsi's buflist, of
 *    any length, and services them at once), so lws parses the same bytes
 *    it would have read;
 *  - answers "400 Bad Request" to a head the grammar refuses, "431 Request
 *    Header Fields Too Large" to one over its bounds, and closes, lingering
 *    to let the client's excess go (a close with unread input would reset
 *    the connection before the client reads the answer);
 *  - refuses HTTP/2 in clear (the prior-knowledge preface, or an upgrade
 *    to h2c): nothing here is served over HTTP/2 without TLS;
 *  - closes it when the head does not come in time: DDZ_GATE_DEADLINE_US,
 *    or DDZ_GATE_BUSY_DEADLINE_US when its address is near its budget or
 *    the process near its socket cap.
 * That deadline, counted from the accept, holds after the handover too,
 * until lws has answered: the owner calls ddz_gate_answered() when it
 * writes an answer's head or a WebSocket is established; a handed socket
 * still unanswered at the deadline is closed (lws_set_timeout(...,
 * LWS_TO_KILL_SYNC)), and it stays sheddable near the cap as a held head
 * is; a request the owner takes up (a store read) is given the time its
 * answer needs (ddz_gate_extend()). Under TLS lws does the handshake, so
 * the head cannot be read here: the socket is counted and handed over at
 * once (lws's own header table applies; docs/decisions.md), and bound by
 * the same deadline from the accept until lws answers (an HTTP/2
 * connection once its first stream is answered).
 *
 * Each socket is counted from its accept to its close, whatever it became
 * (a request, a WebSocket, refused, timed out): the owner's admit() says
 * whether it may be had and under what tag it is counted, and release()
 * is called exactly once for it; after the handover, when lws destroys
 * its wsi (the owner forwards LWS_CALLBACK_WSI_DESTROY to
 * ddz_gate_wsi_destroyed()).
 *
 * Everything here runs on the loop thread.
 */
#ifndef DDZ_GATE_H
#define DDZ_GATE_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "service/net/http_head.h"
#include "service/table/loop.h"

#define DDZ_GATE_HEAD_MAX DDZ_HTTP_HEAD_MAX     /* bytes of a request head, request line included */
#define DDZ_GATE_HEAD_LINES DDZ_HTTP_HEAD_LINES /* lines of a request head */
/* for a whole head and then lws's answer to it, from the accept */
#define DDZ_GATE_DEADLINE_US (10 * 1000000LL)
/* A request body the gate reads with its head, at most (ddz_gate_body()) */
#define DDZ_GATE_BODY_MAX 4096
#define DDZ_GATE_BUSY_DEADLINE_US (2 * 1000000LL) /* the same under pressure */

/* The lws_protocols entry (an initializer) the gate's epoll descriptor is
 * adopted under; list it in the vhost's protocols. */
int ddz_gate_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                      size_t len);
#define DDZ_GATE_PROTOCOL                                                                          \
    {                                                                                              \
        "ddz-gate", ddz_gate_callback, 0, 0, 0, NULL, 0                                            \
    }

typedef struct ddz_gate_ops {
    /* A socket from `peer` was accepted. Returns the tag it is counted
     * under, or NULL to refuse it (the gate closes it at once). Sets *busy
     * when the tag is near its budget: its head gets the short deadline. */
    void *(*admit)(void *ctx, const struct sockaddr *peer, socklen_t len, bool *busy);
    /* How many sockets `tag` holds: when the process nears its cap, the
     * pending heads (held, or handed and unanswered) of the heaviest tag
     * are closed first. */
    long (*weight)(void *ctx, void *tag);
    /* The socket counted under `tag` is closed. */
    void (*release)(void *ctx, void *tag);
} ddz_gate_ops;

typedef struct ddz_gate_sock ddz_gate_sock;

typedef struct ddz_gate {
    int epfd;             /* the epoll set of held sockets, -1 if none */
    struct lws *wsi;      /* epfd in lws's loop */
    struct lws_vhost *vh; /* sockets are handed over here */
    ddz_loop *loop;       /* deadlines */
    bool tls;             /* lws does TLS: nothing is held */
    long cap;             /* client sockets the process may hold */
    ddz_gate_ops ops;
    void *ctx;
    ddz_gate_sock *held; /* sockets held (reading a head, or lingering), oldest first */
    ddz_gate_sock *held_tail;
    ddz_gate_sock *waiting; /* sockets handed to lws and not yet answered, oldest first */
    ddz_gate_sock *waiting_tail;
    ddz_gate_sock *handing; /* the socket being handed over, during the call that does it */
    long open;              /* sockets counted and not yet released */
    long nheld;
    long nwaiting;
    /* totals, for /metrics */
    long refused;   /* admit() said no */
    long bad;       /* answered 400: a head the grammar refuses (http_head.h) */
    long too_large; /* answered 431 */
    long timed_out; /* closed for a head that did not come in time */
    long late;      /* handed over, and closed unanswered at the deadline */
    long shed;      /* pending heads closed because the process neared its cap */
    long h2c;       /* HTTP/2 in clear refused */
} ddz_gate;

/* The body of the request being handed over to lws in this call (the
 * gate read it after the head: a POST, PUT or DELETE with a Content-Length
 * of 1 to DDZ_GATE_BODY_MAX; lws was told the Content-Length is 0, its
 * digits made zeros), valid until the handover returns: the owner takes
 * it in LWS_CALLBACK_HTTP, which lws runs inside the handover. Sets *len;
 * returns NULL (and *len 0) when there is none. Under TLS the gate reads
 * nothing: lws reads the body itself. */
const char *ddz_gate_body(ddz_gate *g, struct lws *wsi, size_t *len);

/* Prepares `g` to hand sockets to `vh` (whose protocols include
 * DDZ_GATE_PROTOCOL), with deadlines on `loop`; `tls`: lws does TLS on
 * this vhost; `cap`: client sockets the process may hold. Returns 0, or -1
 * if the epoll set could not be made or adopted (then ddz_gate_admit()
 * still counts, and hands every socket over at once). */
int ddz_gate_init(ddz_gate *g, struct lws_vhost *vh, ddz_loop *loop, bool tls, long cap,
                  const ddz_gate_ops *ops, void *ctx);

/* Takes socket `fd`, just accepted from `peer` (non-blocking): counts it
 * and holds it for its head, or hands it to lws, or closes it (refused).
 * Returns 0 if the socket is kept (held or handed over), -1 if it was
 * closed. */
int ddz_gate_admit(ddz_gate *g, int fd, const struct sockaddr *peer, socklen_t len);

/* Closes the most expendable pending socket of the address holding the
 * most sockets (ddz_gate_admit() does so near the cap; the listener, for a
 * socket numbered past it, rather than shed the newcomer at the door: the
 * other descriptors the process holds may have brought it there before the
 * gate's count did). Returns true if one was closed, false if no address
 * holds more than one pending socket. */
bool ddz_gate_shed_heaviest(ddz_gate *g);

/* lws has answered `wsi` (call it where an answer's head is written, a
 * static file's headers are added, or a WebSocket is established): the
 * socket the gate handed over is no longer bound by its deadline, nor
 * shed. Works inside the handover's own call too (lws answers there what
 * it can at once). Does nothing for any other wsi, or twice. */
void ddz_gate_answered(ddz_gate *g, struct lws *wsi);

/* The owner took `wsi`'s request up and will answer it within `within_us`
 * (a read of the store, bounded by its own timeout): a handed socket not
 * yet answered whose deadline comes sooner gets that long from now, so
 * that its answer (a 503 at worst) is not cut off; it stays sheddable.
 * Does nothing for any other wsi, or one answered. */
void ddz_gate_extend(ddz_gate *g, struct lws *wsi, int64_t within_us);

/* Forward LWS_CALLBACK_WSI_DESTROY here (it reaches protocols[0] for every
 * wsi of the vhost): releases the count of a socket the gate handed over.
 * Does nothing for any other wsi. */
void ddz_gate_wsi_destroyed(ddz_gate *g, struct lws *wsi);

/* An lws log emitter (for lws_set_log_level()): lws 4.1.6 logs every
 * adoption with bytes already read, the gate's handover, as an error
 * ("adopt_socket_readbuf: calling service"), which it is not; those lines
 * are dropped, every other is written as lwsl_emit_stderr() writes it. */
void ddz_gate_lws_log(int level, const char *line);

/* Closes every socket still held (releasing each), stops the deadlines of
 * those handed over, and lets the epoll set go; call before the loop's
 * timers and lws_context_destroy() go. Sockets handed over are released
 * as lws destroys them. Never fails. */
void ddz_gate_fini(ddz_gate *g);

#endif
