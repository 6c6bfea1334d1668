/* think_sched.h - which job a free worker of the think pool takes next,
 * and each owner's budget of thinking time.
 *
 * Jobs carry an owner key (ddz_think_job.key: the client address that made
 * the room, or a competition's own key). Each key has a queue (a lane);
 * a worker takes the oldest job of the lane that
 *   1. has the fewest jobs being worked on now (so one key cannot hold
 *      every worker while another key's job waits),
 *   2. then has been charged the least thinking time (start-time fair
 *      queuing: a key is charged each job's think time when it finishes,
 *      and a key that had nothing queued comes back level with the key
 *      served last, so it neither banks credit while quiet nor pays for
 *      what it did long ago),
 *   3. then was served the longest ago.
 * So a quiet key's job is taken by the next worker that comes free, however
 * many jobs a flooding key has queued, and keys that all want more share
 * the workers by thinking time, not by job count.
 *
 * The budget: a metered key (a client's rooms) may think `rate_us` a second
 * on average with `burst_us` at once (a token bucket of thinking time).
 * Past it its jobs are still taken in their fair turn but marked `lean`:
 * the pool has the AI decide within a short budget, so its seats still
 * move in time, only with less search, until the bucket has refilled.
 * Lean decisions are not charged to the bucket: a key thinks `rate_us` a
 * second at full strength on average, and whatever more it asks for runs
 * lean (and still only in its fair turn).
 *
 * Memory: a lane exists while its key has jobs (at most one per AI seat:
 * bounded by the hosted-AI budget) and, for a metered key, until its
 * bucket is full again, at most DDZ_THINK_IDLE_MAX of those idle lanes
 * (past it the one idle the longest is forgotten, its debt with it).
 *
 * No threads, no clock, no lock: the pool calls these under its own lock
 * and passes the time (µs, any monotonic origin), so a test can drive the
 * order step by step.
 */
#ifndef DDZ_THINK_SCHED_H
#define DDZ_THINK_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "service/seats/think.h"

#define DDZ_THINK_IDLE_MAX 4096 /* idle lanes remembered for their debt */

typedef struct ddz_think_sched ddz_think_sched;

/* What the scheduler holds now, for /metrics. */
typedef struct ddz_think_stats {
    long queued;      /* jobs waiting for a worker */
    long running;     /* jobs taken and not yet done */
    long keys;        /* lanes: keys with jobs, and metered keys still in debt */
    long lean;        /* jobs marked lean since the start */
    int64_t spent_us; /* the most any metered key has used of its burst now */
} ddz_think_stats;

/* Makes an empty scheduler with budget `b` (NULL, or a rate of 0: no key
 * is ever lean). Returns it, or NULL when out of memory. */
ddz_think_sched *ddz_think_sched_create(const ddz_think_budget *b);

/* Frees the scheduler and its lanes. Jobs still queued are NOT freed:
 * take them with ddz_think_sched_drain() first. NULL is fine. */
void ddz_think_sched_destroy(ddz_think_sched *s);

/* Queues `j` last in the lane of j->key (made if need be, with
 * j->metered) at `now`. Uses j->mail.next while queued. Returns 0, or
 * DDZ_ENOMEM (no lane could be made: `j` is still the caller's). */
int ddz_think_sched_put(ddz_think_sched *s, ddz_think_job *j, int64_t now);

/* Takes the job a free worker should run (the order above) at `now`, and
 * sets its `lean`. Returns it, or NULL when nothing is queued. The job
 * counts as running in its lane until ddz_think_sched_done(). */
ddz_think_job *ddz_think_sched_take(ddz_think_sched *s, int64_t now);

/* Says that `j`, taken by ddz_think_sched_take(), finished at `now`
 * after j->think_us of thinking: its key is charged for it. `j` itself is
 * no longer looked at (it may be freed). Never fails. */
void ddz_think_sched_done(ddz_think_sched *s, ddz_think_job *j, int64_t now);

/* Takes every job still queued, leaving the lanes empty. Returns their
 * chain (linked by mail.next, NULL-terminated), or NULL. */
ddz_think_job *ddz_think_sched_drain(ddz_think_sched *s);

/* Fills `out` with what the scheduler holds at `now`. */
void ddz_think_sched_stats(ddz_think_sched *s, int64_t now, ddz_think_stats *out);

#endif
