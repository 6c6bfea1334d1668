/* caai_seat.h - one CAAI engine process playing a seat: referee events in,
 * CAAI lines out, the engine's answers back as bids and plays.
 *
 * Loop-agnostic like service/engine.h: the owner polls the two fds (poll(2)
 * in `ddz match`, libwebsockets in `ddz serve`), calls the on_* functions,
 * and arms a timer for ddz_caai_seat_deadline(). Lines are written as soon
 * as they are queued and replies are matched in order; each acknowledgement
 * must come within the time limit counted from the previous reply. The
 * answers to BID WHAT and PLAY WHAT are timed by the table's clock, like
 * every seat's (spec §6); once the table gives up on one
 * (ddz_caai_seat_cancel), it is timed here too, so a hung engine is always
 * found.
 *
 * Faults (timeout, malformed or unexpected reply, wrong seat letter, crash,
 * flood, an answer the referee rejects) stop the engine and are reported
 * through the `fault` callback; ddz_caai_seat_start() starts it afresh for
 * the next game. A bad acknowledgement of GAMEOVER or ERROR is only noted
 * (spec §7: that game is already scored).
 */
#ifndef DDZ_CAAI_SEAT_H
#define DDZ_CAAI_SEAT_H

#include <stdbool.h>

#include "proto/caai.h"
#include "service/table/ev.h"

typedef struct ddz_caai_seat ddz_caai_seat;

typedef struct ddz_caai_seat_cb {
    void *ctx;
    /* The engine answered request `seq` (kind DDZ_EV_ASK_BID or
     * DDZ_EV_ASK_PLAY) with `bid` or `cards`. Returns the referee's verdict:
     * 0, or an error that the adapter charges as an illegal action. */
    int (*act)(void *ctx, ddz_caai_seat *s, int kind, uint32_t seq, int bid, ddz_cards cards);
    /* The engine failed with fault `kind` while handling a line of game
     * `game` (-1: between lines). It is already stopped. */
    void (*fault)(void *ctx, ddz_caai_seat *s, int kind, int game, const char *why);
    /* Something worth a log line that is not a fault. May be NULL. */
    void (*note)(void *ctx, ddz_caai_seat *s, const char *msg);
} ddz_caai_seat_cb;

/* Prepares an engine seat for `cmd` (run by /bin/sh), its stderr appended
 * to `stderr_log` (NULL = discarded), `time_s` seconds per interaction.
 * Starts nothing. Returns NULL on allocation failure. */
ddz_caai_seat *ddz_caai_seat_create(const char *cmd, const char *stderr_log, double time_s,
                                    const ddz_caai_seat_cb *cb);

/* (Re)starts the engine if it is not running and queues DOUDIZHUVER,
 * without waiting for the process (engine.h). Returns 0, or
 * DDZ_ESPAWN/DDZ_EIO/DDZ_ENOMEM (the seat stays broken); a child that
 * cannot be made is a crash fault when the end of its output is read. */
int ddz_caai_seat_start(ddz_caai_seat *s);

/* Sets how long a stopping engine gets between SIGTERM and SIGKILL (see
 * ddz_engine_limits; negative: SIGKILL at once). Nobody waits for it: the
 * engine module's spawner does. Takes effect at the next start. */
void ddz_caai_seat_set_kill_grace(ddz_caai_seat *s, int ms);

/* Sets the seat (0..2) the engine holds in the coming game. */
void ddz_caai_seat_set_seat(ddz_caai_seat *s, int seat);

/* Translates the table's event `ev` (ev.h) into the lines this engine must
 * hear (spec §7) and queues them: INFO and DEAL for the DDZ_EV_GAME that
 * carries this seat's hand, `info` filling INFO. Ignored while the engine
 * is broken. */
void ddz_caai_seat_event(ddz_caai_seat *s, const ddz_ev *ev, const ddz_caai_info *info);

/* Writes queued lines now (call after events; cheap when nothing waits). */
void ddz_caai_seat_flush(ddz_caai_seat *s);

/* The read fd became readable: reads, handles every complete reply. */
void ddz_caai_seat_on_readable(ddz_caai_seat *s);

/* The write fd became writable. */
void ddz_caai_seat_on_writable(ddz_caai_seat *s);

/* Charges a timeout if the reply awaited is overdue at `now` (monotonic
 * seconds, as ddz_caai_seat_now()). */
void ddz_caai_seat_check_time(ddz_caai_seat *s, double now);

/* The table no longer waits for the open BID WHAT / PLAY WHAT (the game
 * ended some other way): its answer, now stale, must still come within the
 * time limit, counted from now. */
void ddz_caai_seat_cancel(ddz_caai_seat *s);

/* Returns when the awaited reply is due (monotonic seconds), or -1. */
double ddz_caai_seat_deadline(const ddz_caai_seat *s);

/* Monotonic seconds. */
double ddz_caai_seat_now(void);

/* The engine's fds while it runs, else -1. */
int ddz_caai_seat_read_fd(const ddz_caai_seat *s);
int ddz_caai_seat_write_fd(const ddz_caai_seat *s);

/* True while queued bytes wait for the engine's stdin. */
bool ddz_caai_seat_wants_write(const ddz_caai_seat *s);

/* True when every queued line has been answered (or the engine is down). */
bool ddz_caai_seat_idle(const ddz_caai_seat *s);

/* True when the engine failed or is not running (restart before a game). */
bool ddz_caai_seat_broken(const ddz_caai_seat *s);

/* The engine's NAME in UTF-8, or "" before it answered. */
const char *ddz_caai_seat_name(const ddz_caai_seat *s);

/* Times the engine was started after the first. */
long ddz_caai_seat_restarts(const ddz_caai_seat *s);

/* Stops the engine (SIGTERM, grace, SIGKILL: engine.h, never waiting),
 * clears the queue. */
void ddz_caai_seat_stop(ddz_caai_seat *s);

/* Stops and frees; NULL is fine. */
void ddz_caai_seat_destroy(ddz_caai_seat *s);

#endif
