/* wsclient.h - a small synchronous WebSocket client for tests and tools
 * (libwebsockets 4.1), speaking the JSON protocol of proto/PROTOCOL.md.
 *
 * Each ddz_wsc owns ONE lws context of its own: clients are independent, no
 * global state is shared between them, and a client is serviced only while
 * one of its own calls runs (or ddz_wsc_wait_any() runs on it). The kernel
 * buffers what arrives in between; a test juggling several clients polls
 * them with ddz_wsc_wait_any(). lws's log level is process-wide: every
 * connect sets it to errors only.
 *
 * Every wait is bounded by the caller's timeout: the lws service loop is
 * woken by a timer at the deadline, never by sleeping.
 *
 * Every text frame received is kept, in order, in the client's log until
 * ddz_wsc_close(): ddz_wsc_recv() and ddz_wsc_recv_type() return BORROWED
 * references into that log (valid until ddz_wsc_close(); json_incref to
 * keep one longer), and ddz_wsc_frame() walks the whole log, including
 * frames that recv_type skipped. A frame that is not JSON is logged as a
 * JSON string holding its text (or null if it is not UTF-8), so a check
 * that every frame is an object catches it.
 *
 * Every frame received is also checked against the event codec
 * (proto/event.h), the contract of what the server sends: it must parse
 * with ddz_event_parse_text() and print back to the same bytes. The parsed
 * event is kept beside the frame (ddz_wsc_event()); the first frame that
 * fails is described by ddz_wsc_contract().
 */
#ifndef DDZ_WSCLIENT_H
#define DDZ_WSCLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "proto/event.h"

typedef struct ddz_wsc ddz_wsc;

/* Connects to ws://host:port/path and waits up to `timeout_ms` for the
 * handshake. Returns the client, or NULL with a one-line reason in `err`
 * (errlen bytes, may be NULL): refused, timed out, handshake rejected. */
ddz_wsc *ddz_wsc_connect(const char *host, int port, const char *path, int timeout_ms, char *err,
                         size_t errlen);

/* Sends `text` as one text frame and waits (bounded, 5 s) until lws has
 * taken it. Returns 0, DDZ_EIO if the connection is closed, DDZ_ETIMEOUT if
 * it could not be written in time, or DDZ_ENOMEM. Frames that arrive
 * meanwhile are logged. */
int ddz_wsc_send(ddz_wsc *c, const char *text);

/* Serialises `msg` compactly, RELEASES it (reference stolen, also on
 * failure) and sends it as ddz_wsc_send() does. */
int ddz_wsc_send_json(ddz_wsc *c, json_t *msg);

/* Sends `len` bytes of `data` as one frame, binary if `binary`, with no
 * size limit and no check that the text is JSON or UTF-8: for error-path
 * tests (oversized frames, binary frames). Returns as ddz_wsc_send(). */
int ddz_wsc_send_raw(ddz_wsc *c, const void *data, size_t len, bool binary);

/* Returns the next frame not yet returned, waiting up to `timeout_ms` for
 * one (0 = only what has already arrived or arrives in one non-blocking
 * pass). Returns NULL on timeout or once the connection is closed and
 * every frame has been returned. The reference is BORROWED (see above). */
json_t *ddz_wsc_recv(ddz_wsc *c, int timeout_ms);

/* Like ddz_wsc_recv(), but skips frames whose "type" is not `type` (they
 * stay in the log) until one matches. The timeout covers the whole wait. */
json_t *ddz_wsc_recv_type(ddz_wsc *c, const char *type, int timeout_ms);

/* Services `c` for up to `timeout_ms` or until a frame arrives, without
 * consuming anything. Returns the number of frames waiting for recv. */
size_t ddz_wsc_poll(ddz_wsc *c, int timeout_ms);

/* Waits up to `timeout_ms` until any of the `n` clients has a frame waiting
 * for recv, servicing them all. Returns the index of the first such client,
 * or -1 on timeout or if every client is closed with nothing waiting. NULL
 * entries are skipped. */
int ddz_wsc_wait_any(ddz_wsc *const *cs, size_t n, int timeout_ms);

/* Returns true once the connection is closed (by either side, or lost). */
bool ddz_wsc_closed(const ddz_wsc *c);

/* Waits up to `timeout_ms` for the connection to close, servicing it (and
 * logging what arrives). Returns true if it is closed. */
bool ddz_wsc_wait_closed(ddz_wsc *c, int timeout_ms);

/* Returns the close status: 0 while open, the status of the peer's close
 * frame (1000, 1008, 1009, ...), 1005 if its close frame had none, 1006 if
 * the connection was lost without one, or 1000 after our own close. */
int ddz_wsc_close_status(const ddz_wsc *c);

/* Returns how many frames the log holds, and frame `i` of it (BORROWED;
 * NULL if i is out of range). */
size_t ddz_wsc_nframes(const ddz_wsc *c);
json_t *ddz_wsc_frame(const ddz_wsc *c, size_t i);

/* Returns how many frames ddz_wsc_recv() and ddz_wsc_recv_type() have
 * consumed: the frame returned last is number ddz_wsc_nread(c) - 1. */
size_t ddz_wsc_nread(const ddz_wsc *c);

/* Returns the event frame `i` parsed to (BORROWED, valid until
 * ddz_wsc_close()), or NULL if i is out of range or the frame broke the
 * contract: not a server event the codec parses, or one it does not print
 * back to the same bytes. */
const ddz_event *ddz_wsc_event(const ddz_wsc *c, size_t i);

/* Returns NULL while every frame received kept the contract (see above),
 * else a description of the first that did not: its number, the codec's
 * complaint and the start of its text (the client's own buffer). */
const char *ddz_wsc_contract(const ddz_wsc *c);

/* Closes the connection politely (a close frame, then up to 0.5 s for the
 * peer's answer) and frees the client, its log and every reference it
 * returned. NULL ok. */
void ddz_wsc_close(ddz_wsc *c);

/* A plain HTTP/1.1 GET of http://host:port/path on a blocking-free socket,
 * bounded by `timeout_ms`. Sets *status to the response status and *body to
 * a malloc'd, NUL-terminated body (the caller frees it). Returns 0,
 * DDZ_EIO (refused, reset, malformed response; *body NULL), DDZ_ETIMEOUT or
 * DDZ_ENOMEM. */
int ddz_wsc_http_get(const char *host, int port, const char *path, int timeout_ms, int *status,
                     char **body);

/* The same GET with `headers` (NULL or lines of "Name: value" each ending
 * in CRLF) added to the request. */
int ddz_wsc_http_get_with(const char *host, int port, const char *path, const char *headers,
                          int timeout_ms, int *status, char **body);

#endif
