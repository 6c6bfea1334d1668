/* think.h - hosted AI decisions off the event loop.
 *
 * A searching AI may think for a second; the server's loop must not wait
 * for it. Jobs go to worker threads; a finished job is handed back through
 * ddz_think_done() on the loop thread, which the pool wakes with `wake`
 * (lws_cancel_service in the server). The AI object and the view are owned
 * by the job while it is in flight: nothing else may touch them. An owner
 * that no longer wants the answer sets `cancel` (the AI may stop early) and
 * lets go of the job by clearing `owner`; ddz_seat_ai_done() then frees it.
 *
 * Workers take jobs fairly between their owners' keys, not first come
 * first served, and a key past its budget of thinking time has its AIs
 * decide within a short budget (think_sched.h).
 */
#ifndef DDZ_THINK_H
#define DDZ_THINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ai/ai.h"
#include "service/thread/mailbox.h"

/* A key: the client address that owns a room (budget.h's form), or a
 * competition's own ("(ladder)"); at most this many bytes with its NUL. */
#define DDZ_THINK_KEY_MAX 48

/* The budget of thinking time per key, in milliseconds so that a flag
 * can give it (think_sched.h says what it means). */
typedef struct ddz_think_budget {
    int64_t rate_us;  /* thinking a metered key may use a second; 0 = no limit */
    int64_t burst_us; /* what it may use beyond its rate at once */
    int lean_ms;      /* a lean decision's budget, at most */
} ddz_think_budget;

typedef struct ddz_think_job {
    ddz_ai *ai;    /* the AI to ask; in flight: owned by the job */
    ddz_view view; /* what its seat knows */
    int kind;      /* DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY */
    uint32_t seq;  /* the request it answers */
    int seat;
    int bid;                     /* result, bids */
    ddz_cards cards;             /* result, plays */
    int64_t think_us;            /* how long the decision took */
    void *owner;                 /* the loop's object waiting for it; NULL once orphaned */
    atomic_int cancel;           /* set by the owner: the answer is no longer wanted */
    int own_ai;                  /* the owner let go of the AI: free it when done */
    long *ai_count;              /* with own_ai: the count to take the AI off when freed, or NULL */
    char key[DDZ_THINK_KEY_MAX]; /* whose thinking it is: the fair share's key */
    bool metered;                /* the key's budget of thinking time applies */
    int budget_ms;               /* the AI's own budget per decision (0: its default) */
    bool lean;                   /* set by the pool: decided within the lean budget */
    ddz_mail mail;               /* the pool's queue link */
} ddz_think_job;

typedef struct ddz_think ddz_think;

/* Starts `threads` workers (1..8; outside, the nearest), each with its own AI
 * workspace (ai/ai.h: about 10 MB of virtual memory, committed as its
 * searches touch it), in which it runs every decision it takes. `budget`:
 * the thinking time of each metered key (think_sched.h); NULL = none. When
 * not every worker can be started (out of memory, no thread), the pool runs
 * with those that were. `wake(ctx)` is called from a worker after each job
 * finishes, without the pool's lock held (so it may call back into the
 * pool); it must be safe from any thread. Returns NULL when not even one
 * worker could be started. */
ddz_think *ddz_think_create(int threads, const ddz_think_budget *budget, void (*wake)(void *ctx),
                            void *ctx);

/* Queues `job` in the lane of job->key (ownership passes to the pool until
 * ddz_think_done returns it). Returns 0, or DDZ_ENOMEM (the job is still
 * the caller's). */
int ddz_think_submit(ddz_think *t, ddz_think_job *job);

/* Fills `out` with the scheduler's counts now (think_sched.h). Any
 * thread. */
struct ddz_think_stats;
void ddz_think_get_stats(ddz_think *t, struct ddz_think_stats *out);

/* Pops a finished job, or NULL. Loop thread only. */
ddz_think_job *ddz_think_done(ddz_think *t);

/* Stops the workers after their current job and frees every job left,
 * finished or not (their owners must be gone). */
void ddz_think_destroy(ddz_think *t);

#endif
