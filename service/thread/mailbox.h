/* mailbox.h - how a thread hands work to another: a FIFO of items with
 * its lock, its wakeup, its bound and its end, in one place.
 *
 * The think pool, the store's writer, reader and ids threads, the cluster's
 * thread and the ladder's queues hand items over these; the lead thread
 * and the store's ids thread sleep on one as a doorbell. An item embeds a ddz_mail (so putting
 * allocates nothing, as a ddz_timer is embedded in what it times); DDZ_MAIL_ITEM() finds the item
 * again.
 *
 * Who waits how:
 *   - a worker thread blocks in ddz_mailbox_take() until an item comes or
 *     the box is closed, and says ddz_mailbox_done() when it has finished
 *     what it took (until then those items count against the bound, and
 *     ddz_mailbox_flush() waits for them);
 *   - an event loop is not blocked: it takes with ddz_mailbox_get(), after
 *     the thread that put woke it its own way (lws_cancel_service), or
 *     polls the box's descriptor (created with `with_fd`) beside its
 *     sockets;
 *   - a thread with nothing queued to it, only told to look again, sleeps
 *     in ddz_mailbox_wait() until ddz_mailbox_poke(), the close, or its
 *     timeout: a doorbell.
 *
 * The end is chosen when closing: DDZ_MAILBOX_DRAIN lets the takers empty
 * the box first (the store's writes), DDZ_MAILBOX_DROP stops them at once
 * (a decision nobody waits for any more); what is left is the owner's, to
 * take with ddz_mailbox_get_all() and free.
 *
 * Every function may be called from any thread, and none calls out: the
 * box's lock is never held outside these functions, so a caller may hold
 * its own lock around any of them.
 */
#ifndef DDZ_MAILBOX_H
#define DDZ_MAILBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The link an item embeds. A chain (what ddz_mailbox_take and get_all
 * return) is linked by `next`, oldest first, NULL-terminated. */
typedef struct ddz_mail {
    struct ddz_mail *next;
} ddz_mail;

/* The item of type `type` whose ddz_mail member `field` is at `m`, or
 * NULL if m is NULL (what a get of an empty box returns). */
#define DDZ_MAIL_ITEM(m, type, field) ((type *)ddz__mail_item((m), offsetof(type, field)))

static inline void *ddz__mail_item(ddz_mail *m, size_t offset)
{
    return m ? (void *)((char *)m - offset) : NULL;
}

typedef struct ddz_mailbox ddz_mailbox;

enum ddz_mailbox_end {
    DDZ_MAILBOX_DROP,  /* takers stop at once; what is queued stays for the owner */
    DDZ_MAILBOX_DRAIN, /* takers take what is queued, then stop */
};

/* Makes an open, empty box. `max` bounds the items queued plus those taken
 * and not yet done (0: no bound). With `with_fd`, ddz_mailbox_fd() is
 * readable whenever there is news (a put, a poke, the close) until the next
 * ddz_mailbox_get or get_all. Returns the box, or NULL (errno set) when out
 * of memory or descriptors. */
ddz_mailbox *ddz_mailbox_create(size_t max, bool with_fd);

/* Frees the box. Items still in it are NOT freed (the box does not know
 * them): take them first. The threads that used it must be done with it.
 * NULL is fine. */
void ddz_mailbox_destroy(ddz_mailbox *mb);

/* Queues `m` last and wakes a taker. Returns 0, DDZ_EBUSY if the bound is
 * reached, or DDZ_EINVAL if the box is closed; refused, `m` is still the
 * caller's. */
int ddz_mailbox_put(ddz_mailbox *mb, ddz_mail *m);

/* Queues the chain `first` (which may be NULL) before everything queued,
 * in its order: items taken out with ddz_mailbox_get_all() that are to be
 * tried again before what came meanwhile. Never refused: not by the bound
 * (they were held already) nor by the close. */
void ddz_mailbox_put_front(ddz_mailbox *mb, ddz_mail *first);

/* Makes `m` the only item queued: a box that holds the latest of
 * something, where only the newest matters. Returns the chain of the items
 * it replaced (NULL if none), or `m` itself if the box is closed; either
 * way what is returned is the caller's to free. Not bounded. */
ddz_mail *ddz_mailbox_replace(ddz_mailbox *mb, ddz_mail *m);

/* Blocks until an item is queued or the box is closed, then takes up to
 * `max` (at least 1) of the oldest items. Returns their chain and sets *n
 * (if not NULL) to how many; they count against the bound until
 * ddz_mailbox_done(). Returns NULL once the box is closed: at once with
 * DDZ_MAILBOX_DROP, when it is empty with DDZ_MAILBOX_DRAIN. */
ddz_mail *ddz_mailbox_take(ddz_mailbox *mb, size_t max, size_t *n);

/* ddz_mailbox_take() that waits at most `timeout_ms` (< 0: no limit) for
 * an item. Returns NULL (and *n = 0) when the time ran out with nothing
 * queued, or once the box is closed as ddz_mailbox_take() does:
 * ddz_mailbox_closed() tells the two apart. */
ddz_mail *ddz_mailbox_take_for(ddz_mailbox *mb, size_t max, size_t *n, int timeout_ms);

/* Says that `n` items taken with ddz_mailbox_take() are finished: they no
 * longer count against the bound, and ddz_mailbox_flush() waits no more
 * for them. */
void ddz_mailbox_done(ddz_mailbox *mb, size_t n);

/* Never waits. Takes the oldest item, finished at once (it does not count
 * against the bound). Returns it, or NULL if none is queued. Empties the
 * descriptor. Works on a closed box too. */
ddz_mail *ddz_mailbox_get(ddz_mailbox *mb);

/* ddz_mailbox_get() of every item queued. Returns their chain, or NULL. */
ddz_mail *ddz_mailbox_get_all(ddz_mailbox *mb);

/* Closes the box: puts are refused from now on, and the takers end as
 * `end` says. Wakes every taker and waiter. Closing again changes nothing. */
void ddz_mailbox_close(ddz_mailbox *mb, enum ddz_mailbox_end end);

/* Returns whether the box was closed. */
bool ddz_mailbox_closed(ddz_mailbox *mb);

/* Rings the doorbell: the next ddz_mailbox_wait() (or the current one)
 * returns at once. Pokes before that wait count as one. */
void ddz_mailbox_poke(ddz_mailbox *mb);

/* Sleeps until the box is poked or closed, or `timeout_ms` passed (< 0:
 * no limit), and consumes the poke. Items queued do not end it: a box is
 * either a queue or a doorbell. Returns true if poked or closed, false if
 * the time ran out. */
bool ddz_mailbox_wait(ddz_mailbox *mb, int timeout_ms);

/* Blocks until every item put before the call is finished (done, or
 * taken with ddz_mailbox_get). A box nobody takes from never flushes. */
void ddz_mailbox_flush(ddz_mailbox *mb);

/* Returns the number of items queued plus those taken and not yet done:
 * what the bound counts. */
size_t ddz_mailbox_count(ddz_mailbox *mb);

/* Returns the descriptor to poll for news (POLLIN), or -1 if the box was
 * made without one. It stays the box's: never read or close it. */
int ddz_mailbox_fd(const ddz_mailbox *mb);

#endif
