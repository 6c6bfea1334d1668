/* wire.h - checks on the bytes a client sends that libwebsockets 4.1 does
 * not make, done on the bytes themselves as lws reads them.
 *
 * RFC 6455 5.1: a server MUST close the connection when a client sends an
 * unmasked frame. lws 4.1 accepts them: its parser notes the mask bit
 * (wsi->ws->this_frame_masked, private) and unmasks only if it is set; no
 * option enforces it (later lws versions check the bit only on the client
 * side), no public call tells whether a frame was masked, and no callback
 * sees the bytes before they are parsed (extensions get the payload already
 * unmasked). The one place the frame header can be seen without changing
 * lws is the read it makes: recv() on a plain socket, SSL_read() under TLS.
 * So this module defines both: the ddz binary's definitions take the
 * place of libc's and OpenSSL's for libwebsockets (ELF symbol
 * interposition; the real ones are called through recvfrom() and
 * dlsym(RTLD_NEXT)), and each read on a socket the server accepted and
 * registered with ddz_wire_track() is also fed to a small frame-header
 * scanner. Reads on any other descriptor (the bridge's and the load
 * tester's client sockets, anything else) pass through untouched.
 *
 * The scanner follows the stream from its first byte: the HTTP request
 * head up to its blank line, then, speculatively, frames: two header
 * bytes, the extended length, the mask, the payload skipped in one step. A
 * byte that cannot start a client frame (reserved bits or opcode: "GET",
 * "PRI" of HTTP/2) sends it back to reading a request head, and the HTTP/2
 * preface stops it for good (WebSocket over HTTP/2 is not checked). The
 * verdict only counts once the server says the connection is a WebSocket
 * (ddz_wire_attach() at LWS_CALLBACK_ESTABLISHED): from then on an
 * unmasked frame calls the hook given to ddz_wire_init() with the
 * connection's owner, before lws parses the frame.
 *
 * The same scanner measures the first request head of a connection: over
 * DDZ_WIRE_HEAD_MAX bytes or DDZ_WIRE_HEAD_LINES lines, lws 4.1 would drop
 * the connection without a word (its header table is full); instead the
 * client gets "431 Request Header Fields Too Large" and the close, and lws
 * sees the end of the stream before it parses the excess.
 *
 * Everything here runs on the loop thread, the only one that reads
 * sockets.
 */
#ifndef DDZ_WIRE_H
#define DDZ_WIRE_H

#include <stdbool.h>

#define DDZ_WIRE_HEAD_MAX 8192 /* bytes of a request head, request line included */
#define DDZ_WIRE_HEAD_LINES 64 /* lines of a request head */

/* Called, on the loop thread, inside lws's read of `owner`'s connection,
 * when it has sent an unmasked frame. It may ask for the connection's
 * close; it must not free anything. */
typedef void (*ddz_wire_violation_fn)(void *owner);

/* Prepares the table for descriptors 0..nofile-1 and sets the hook.
 * Returns 0, or -1 if out of memory (then nothing is checked). */
int ddz_wire_init(long nofile, ddz_wire_violation_fn on_unmasked);

/* Frees the table; reads are no longer checked. */
void ddz_wire_fini(void);

/* Starts following socket `fd`, just accepted, from its first byte
 * (forgetting whatever an earlier socket with that number left). Does
 * nothing for a descriptor outside the table. */
void ddz_wire_track(int fd);

/* `fd` is now a WebSocket connection of `owner` (NULL: no longer, before
 * the owner goes away). Returns true if it has already sent an unmasked
 * frame (in the bytes read with the handshake): close it. */
bool ddz_wire_attach(int fd, void *owner);

/* Counts since ddz_wire_init(), for /metrics: unmasked client frames
 * refused, and request heads refused with 431. */
long ddz_wire_unmasked_total(void);
long ddz_wire_too_large_total(void);

#endif
