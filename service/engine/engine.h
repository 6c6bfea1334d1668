/* engine.h - one CAAI engine child process (spec §7), independent of any event loop.
 *
 * A ddz_engine owns a child started as `/bin/sh -c "exec COMMAND"`, its
 * stdin and stdout pipes and its process group. Nothing here waits for a
 * process: the child is made, signalled and reaped by the module's spawner
 * thread, so a start and a stop cost the caller a few system calls
 * (pipes, a queued request), whatever the machine's load or the engine's
 * manners. Only ddz_engine_wait_started(), ddz_engine_wait_gone() and
 * ddz_engine_settle() block, for programs and tests that want to wait; an
 * event loop never calls them. The caller polls two file descriptors:
 *
 *     read_fd   POLLIN  -> ddz_engine_on_readable(), then ddz_engine_next_line()
 *                          until it returns 0
 *     write_fd  POLLOUT -> ddz_engine_flush(), only while ddz_engine_wants_write()
 *
 * Both work from the moment ddz_engine_spawn() returns, before the child
 * runs: lines sent wait in the pipe.
 *
 * Faults (spec §6): exit or closed stdout is DDZ_ECRASH (DDZ_ESPAWN if the
 * child could not be started at all), more than `max_output` bytes since
 * the last ddz_engine_reset_budget() is DDZ_EFLOOD, a line longer than
 * `max_line` is DDZ_ETOOLONG. They are sticky: once
 * ddz_engine_on_readable() has returned one, it returns the same code without
 * reading, and the caller should stop polling read_fd and stop the engine.
 * Lines completed before the fault can still be popped.
 *
 * An engine is ended with SIGTERM to its process group, then SIGKILL after
 * the grace, never by closing its stdin (engines spin or hang on EOF). The
 * spawner keeps the engine's zombie until its last signal to the group, so
 * the process group id cannot be reused while it is signalled.
 *
 * Requirements on the program, since children are process-wide:
 * - do not reap children behind our back (SIGCHLD set to SIG_IGN, or
 *   waitpid(-1, ...)): an exited engine stays a zombie until the spawner,
 *   asked by ddz_engine_stop(), has signalled its group for the last time;
 * - the child is sent SIGKILL when the THREAD that made it exits
 *   (PR_SET_PDEATHSIG, so engines die with a crashed server): that thread
 *   is the spawner, started at the first spawn and never ended, so the
 *   engines die with the process and with nothing else;
 * - engines live in their own process group, so a terminal's ^C does not
 *   reach them: the program must destroy its engines when it exits, and
 *   let their stops finish (ddz_engine_settle(); an atexit handler of this
 *   module does so too, for up to 2 s). Otherwise only the engines
 *   themselves die with the process, not their own children.
 * No SIGPIPE disposition is needed: writes block SIGPIPE for the calling
 * thread and discard the one they raised.
 * Grandchildren that leave the process group (setsid, setpgid) escape
 * ddz_engine_stop(); nothing short of a cgroup could follow them.
 *
 * Thread safety: one engine is used by one thread at a time; different
 * engines, and the module's functions without an engine, from any thread.
 */
#ifndef DDZ_ENGINE_H
#define DDZ_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DDZ_ENGINE_MAX_LINE 4096         /* default ddz_engine_limits.max_line */
#define DDZ_ENGINE_MAX_OUTPUT (1u << 20) /* default ddz_engine_limits.max_output */
#define DDZ_ENGINE_KILL_GRACE_MS 200     /* default ddz_engine_limits.kill_grace_ms */

/* A field left 0 takes its default. */
typedef struct ddz_engine_limits {
    size_t max_line;   /* longest line, without its \n or \r\n, in bytes */
    size_t max_output; /* bytes the engine may write between budget resets */
    int kill_grace_ms; /* SIGTERM -> SIGKILL delay; negative: SIGKILL at once */
} ddz_engine_limits;

typedef struct ddz_engine ddz_engine;

/* Starts `/bin/sh -c "exec COMMAND"` with COMMAND = `cmdline`, so shell
 * quoting works and, for a simple command, the child pid is the engine
 * itself. Because of the `exec`, COMMAND must begin with a program name
 * (not an assignment or a builtin such as `exit`; use `env` or `sh -c`).
 * The child gets: stdin and stdout from pipes, stderr appended to
 * `stderr_log` (created 0644 less the umask if missing; NULL = /dev/null), no
 * other open fds, all signals at their default action and none blocked, its
 * own process group. `lim` NULL means all defaults.
 *
 * NEVER WAITS for the child: the pipes and the log are opened here, and
 * the child is made by the spawner thread (a clone sharing the memory,
 * then one execve), which starts with the first call. The engine is
 * usable at once; ddz_engine_pid() is -1 until the child exists.
 *
 * A child that cannot be made (clone or exec of /bin/sh failed) is NOT
 * reported here: the caller reads the end of its output as DDZ_ESPAWN. A
 * program that does not exist neither: the shell exits 127 and the caller
 * sees DDZ_ECRASH on the first read.
 *
 * Returns the engine, or NULL with *err (if `err` is not NULL) set to
 * DDZ_EINVAL (empty cmdline or bad limits), DDZ_EIO (log file cannot be
 * opened), DDZ_ESPAWN (no pipe, or no spawner thread could be started) or
 * DDZ_ENOMEM. */
ddz_engine *ddz_engine_spawn(const char *cmdline, const char *stderr_log,
                             const ddz_engine_limits *lim, int *err);

/* Returns the fd to poll for POLLIN (the engine's stdout, non-blocking). */
int ddz_engine_read_fd(const ddz_engine *e);

/* Returns the fd to poll for POLLOUT while ddz_engine_wants_write() (the
 * engine's stdin, non-blocking). */
int ddz_engine_write_fd(const ddz_engine *e);

/* Returns true while queued bytes wait for the engine to read its stdin. */
bool ddz_engine_wants_write(const ddz_engine *e);

/* Queues `line` plus "\n" and writes as much as the pipe takes now.
 * Returns 0 (the rest, if any, stays queued for ddz_engine_flush()),
 * DDZ_EINVAL if `line` contains '\n' (nothing is queued), DDZ_ECRASH if the
 * engine closed its stdin, DDZ_EIO on another write error, DDZ_ENOMEM.
 * Write errors are sticky: later calls return the same code. */
int ddz_engine_send(ddz_engine *e, const char *line);

/* Writes queued bytes until done or the pipe is full; never blocks.
 * Returns 0, DDZ_ECRASH (stdin closed) or DDZ_EIO, sticky as in send. */
int ddz_engine_flush(ddz_engine *e);

/* Reads what the engine wrote, without blocking, and checks it against the
 * limits. Reads at most a bounded amount per call so that one flooding
 * engine cannot hold the loop; poll again if more is pending.
 * Returns 0, DDZ_ECRASH at end of file (the engine exited or closed its
 * stdout), DDZ_EFLOOD, DDZ_ETOOLONG, DDZ_EIO (read error) or DDZ_ENOMEM;
 * errors are sticky. Pop the lines with ddz_engine_next_line() after EVERY
 * call, whatever it returned: lines read before a fault stay available, and
 * unpopped lines use memory. */
int ddz_engine_on_readable(ddz_engine *e);

/* Pops the next complete line into `buf` (NUL-terminated), without its
 * "\n" or "\r\n", and stores its length in *len. At end of file, a last
 * line without "\n" is returned too.
 * Returns 1 if a line was popped (an empty line has *len == 0), 0 if no
 * complete line is available yet, DDZ_ENOSPC if `size` < line length + 1
 * (the line stays queued; a buffer of max_line + 1 bytes always fits), or
 * DDZ_ESYNTAX if the line contains a NUL byte: that line IS popped and
 * copied whole into `buf` with *len set, for logging, but must be treated as
 * a malformed message (spec §7), since C string parsers would see only the
 * part before the NUL. */
int ddz_engine_next_line(ddz_engine *e, char *buf, size_t size, size_t *len);

/* Starts a new output budget (call at each game or turn, as the referee's
 * policy says). */
void ddz_engine_reset_budget(ddz_engine *e);

/* Returns true while the engine process may be running: until it has
 * exited, been reaped after a stop, or is known never to have started.
 * Never reaps (see the top of this file). */
bool ddz_engine_alive(ddz_engine *e);

/* Returns the engine's exit code 0..255, 128 + signal number if a signal
 * killed it (the shell's convention), or -1 while it runs, if it never
 * started, or if another part of the program reaped it. After a stop, the
 * status is known once the engine is gone (ddz_engine_gone()). */
int ddz_engine_exit_status(ddz_engine *e);

/* Returns the child's pid, which is also its process group id, or -1
 * while the spawner has not made it yet (or never will). Valid as a live
 * process only until ddz_engine_stop(). */
pid_t ddz_engine_pid(const ddz_engine *e);

/* BLOCKS until the spawner has made the child (or failed to, or skipped
 * it for a stop that came first), at most `timeout_ms` (< 0: no limit).
 * Not for an event loop: for tests and for programs that need the pid.
 * Returns 0 or DDZ_ETIMEOUT. */
int ddz_engine_wait_started(ddz_engine *e, int timeout_ms);

/* Ends the engine and its process group, NEVER WAITING: asks the
 * spawner, which sends SIGTERM to the group (SIGKILL at once with a
 * negative kill grace), SIGKILL to it once the engine has exited or the
 * grace has run out (always, so that grandchildren ignoring SIGTERM die
 * too), then reaps the engine. An engine whose child the spawner has not
 * made yet is never started. Leaves the fds open (the caller may still
 * have them in its loop) until destroy. Idempotent. */
void ddz_engine_stop(ddz_engine *e);

/* Returns true once a stopped engine's process is reaped (or was never
 * started): its pid may then be another process's. */
bool ddz_engine_gone(const ddz_engine *e);

/* BLOCKS until a stopped engine is gone, at most `timeout_ms` (< 0: no
 * limit); the grace plus the moment SIGKILL takes bounds it. Not for an
 * event loop. Returns 0, DDZ_ETIMEOUT, or DDZ_EINVAL if the engine was not
 * stopped. */
int ddz_engine_wait_gone(ddz_engine *e, int timeout_ms);

/* Stops the engine if needed and frees it; its process ends as
 * ddz_engine_stop() says, after this returns. Its fds are closed now if
 * the engine is gone, else by the spawner once it is, so that the engine
 * hears SIGTERM before the end of its input (spec §7). Either way the
 * caller must not use them any more. NULL is a no-op. */
void ddz_engine_destroy(ddz_engine *e);

/* Starts the spawner thread now if it is not running (ddz_engine_spawn()
 * starts it otherwise): a server does so at its start, so that the thread
 * and its two descriptors are there from the beginning. Returns 0, or
 * DDZ_ESPAWN (no memory or no thread). */
int ddz_engine_prepare(void);

/* BLOCKS until every engine stopped so far (by any thread) is gone, at
 * most `timeout_ms` (< 0: no limit): what a program calls before it exits
 * (the engines' process groups are killed; their children do not die with
 * us). Not for an event loop. Returns 0 (also when no engine was ever
 * started) or DDZ_ETIMEOUT. */
int ddz_engine_settle(int timeout_ms);

/* Returns how many stopped engines are not gone yet (in their grace, or
 * dying): a gauge for /metrics. */
long ddz_engine_stopping(void);

#endif
