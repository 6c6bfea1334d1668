/* engine.c - a CAAI engine child process: spawn, pipes, limits, stop.
 *
 * The child needs PR_SET_PDEATHSIG, which posix_spawn cannot set: an engine
 * that spins on EOF (SPEC 7) would otherwise outlive a crashed server
 * forever. It is started the way glibc's posix_spawn starts one, with
 * clone(CLONE_VM | CLONE_VFORK) on a small stack of its own, not with fork:
 * fork copied the server's page tables and write-protected every page of
 * its heap (each later write by any thread then faulted), and took the
 * address space's lock for as long, all on the event loop (issue 24). The
 * child shares the parent's memory until it execs, so between clone and
 * exec it makes system calls only (no malloc, no lock, nothing another
 * thread may hold), reports an error through its argument block instead of
 * a pipe, and runs unsanitized (an ASan stack switch would confuse the
 * runtime). The calling thread is suspended until the child has exec'd
 * /bin/sh or died: a few system calls and the kernel's half of one execve,
 * whatever the size of the server; docs/decisions.md weighs this against a
 * spawner thread.
 *
 * Input buffer layout: ibuf[ihead, iline) holds complete lines not yet
 * popped (each ends in '\n' and was checked against max_line when read),
 * ibuf[iline, ilen) the partial line still being received.
 */
#include "service/engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules/error.h"

/* Reads go straight into the input buffer with at least this much room. */
#define READ_CHUNK (16u * 1024u)
/* At most this much is read per on_readable call, so that an engine writing
 * as fast as we read cannot keep the caller's loop inside one call. */
#define READ_PER_CALL (256u * 1024u)

struct ddz_engine {
    pid_t pid;             /* the child; also its process group id */
    int pidfd;             /* pollable exit notification, -1 if the kernel lacks it */
    int in_fd;             /* our write end of the engine's stdin */
    int out_fd;            /* our read end of the engine's stdout */
    ddz_engine_limits lim; /* with defaults filled in */

    char *ibuf;   /* bytes read, see the layout at the top */
    size_t icap;  /* allocated size of ibuf */
    size_t ihead; /* first byte not popped */
    size_t iline; /* start of the partial line */
    size_t ilen;  /* end of the bytes read */
    size_t used;  /* bytes read since the budget was reset */
    bool eof;     /* read() returned 0 */
    int rerr;     /* sticky read-side fault, 0 if none */

    char *obuf;   /* bytes queued for the engine's stdin */
    size_t ocap;  /* allocated size of obuf */
    size_t ohead; /* first byte not written */
    size_t olen;  /* end of the queued bytes */
    int werr;     /* sticky write-side fault, 0 if none */

    bool exited; /* the child has exited (a zombie until reaped) */
    bool reaped; /* waited for: pid and group id may now belong to others */
    int status;  /* see ddz_engine_exit_status(), -1 unknown */
};

/* ---- the child, between clone and exec --------------------------------- */

/* Its stack: execve's arguments live in the parent's memory, so the child
 * needs only room for a few frames of system call wrappers. */
#define CHILD_STACK (64u * 1024u)

/* What the child is given. It lives on the parent's stack, which the child
 * may read and write since it shares the memory (CLONE_VM) while the parent
 * is suspended (CLONE_VFORK). */
typedef struct child_args {
    int in_fd, out_fd, log_fd; /* the engine's stdin, stdout and stderr, all above 2 */
    pid_t parent;              /* the process that must be alive after prctl */
    char *const *argv;         /* /bin/sh's arguments */
    int err;                   /* set by the child: errno of what failed before exec */
} child_args;

#define CHILD_CODE __attribute__((no_sanitize_address, noinline))

/* Reports errno to the parent and dies. */
CHILD_CODE static _Noreturn void child_fail(child_args *a)
{
    a->err = errno ? errno : EINVAL;
    _exit(127);
}

/* Marks every fd from 3 up close-on-exec (the engine keeps 0..2 only). */
CHILD_CODE static void child_cloexec_from_3(void)
{
    if (close_range(3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
        return;
    /* Kernels before 5.11: try every fd number the process may hold. */
    struct rlimit rl;
    long max = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        max = (long)rl.rlim_cur;
    for (long fd = 3; fd < max; fd++)
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

CHILD_CODE static int child_main(void *arg)
{
    child_args *a = arg;
    /* The parent blocked every signal around clone, so no handler inherited
     * from it (which would run on shared memory) can run here before the
     * dispositions are reset; without CLONE_SIGHAND they are the child's own
     * copy. sigaction fails harmlessly for SIGKILL, SIGSTOP and libc's
     * internal signals. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &sa, NULL);

    /* Own process group, so that stop can signal grandchildren too. Done
     * before exec, which the parent waits for, so the group always exists
     * by the time the parent may signal it. */
    if (setpgid(0, 0) < 0)
        child_fail(a);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        child_fail(a);
    if (getppid() != a->parent) /* the parent died before prctl took effect */
        _exit(127);

    /* The parent moved these fds above 2, so no dup2 clobbers another. */
    if (dup2(a->in_fd, 0) < 0 || dup2(a->out_fd, 1) < 0 || dup2(a->log_fd, 2) < 0)
        child_fail(a);
    child_cloexec_from_3();

    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv("/bin/sh", a->argv);
    child_fail(a);
}

/* ---- spawning ---------------------------------------------------------- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Moves *fd to a number above 2 (keeping it close-on-exec). If the program
 * runs with stdin, stdout or stderr closed, pipe2 can return 0..2, and the
 * child's dup2 onto 0..2 would then overwrite another of its fds. */
static int move_above_stdio(int *fd)
{
    if (*fd > 2)
        return 0;
    int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (nfd < 0)
        return -1;
    close(*fd);
    *fd = nfd;
    return 0;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int fill_limits(ddz_engine_limits *out, const ddz_engine_limits *lim)
{
    ddz_engine_limits d = {DDZ_ENGINE_MAX_LINE, DDZ_ENGINE_MAX_OUTPUT, DDZ_ENGINE_KILL_GRACE_MS};
    if (lim) {
        if (lim->max_line)
            d.max_line = lim->max_line;
        if (lim->max_output)
            d.max_output = lim->max_output;
        if (lim->kill_grace_ms)
            d.kill_grace_ms = lim->kill_grace_ms;
    }
    /* Keeps max_line + 2 and buffer doubling clear of overflow. */
    if (d.max_line > SIZE_MAX / 4 || d.max_output > SIZE_MAX / 4)
        return DDZ_EINVAL;
    *out = d;
    return 0;
}

ddz_engine *ddz_engine_spawn(const char *cmdline, const char *stderr_log,
                             const ddz_engine_limits *lim, int *err)
{
    static const char prefix[] = "exec ";
    int rc = 0;
    ddz_engine *e = NULL;
    char *script = NULL;
    int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, log_fd = -1;
    void *stack = MAP_FAILED;

    if (!cmdline || !*cmdline) {
        rc = DDZ_EINVAL;
        goto fail;
    }
    e = calloc(1, sizeof *e);
    script = malloc(sizeof prefix + strlen(cmdline));
    if (!e || !script) {
        rc = DDZ_ENOMEM;
        goto fail;
    }
    rc = fill_limits(&e->lim, lim);
    if (rc)
        goto fail;
    memcpy(script, prefix, sizeof prefix - 1);
    strcpy(script + sizeof prefix - 1, cmdline);

    log_fd = open(stderr_log ? stderr_log : "/dev/null",
                  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
    if (log_fd < 0) {
        rc = DDZ_EIO;
        goto fail;
    }
    /* All ends close-on-exec: the child's ends lose the flag in dup2, and
     * no other child spawned meanwhile by another thread inherits any. */
    if (pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0 ||
        move_above_stdio(&in_p[0]) < 0 || move_above_stdio(&out_p[1]) < 0 ||
        move_above_stdio(&log_fd) < 0 ||
        /* Our ends only: each pipe end is its own open file description,
         * so the engine's ends stay blocking as programs expect. */
        set_nonblock(in_p[1]) < 0 || set_nonblock(out_p[0]) < 0) {
        rc = DDZ_ESPAWN;
        goto fail;
    }

    stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED) {
        rc = DDZ_ESPAWN;
        goto fail;
    }

    char sh[] = "sh", dash_c[] = "-c";
    char *argv[] = {sh, dash_c, script, NULL};
    child_args args = {in_p[0], out_p[1], log_fd, getpid(), argv, 0};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* Returns once the child has exec'd or exited (CLONE_VFORK). SIGCHLD:
     * it is reaped like a forked child. The stack grows down. */
    pid_t pid =
        clone(child_main, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, CHILD_STACK);
    stack = MAP_FAILED;
    if (pid < 0) {
        errno = clone_errno;
        rc = DDZ_ESPAWN;
        goto fail;
    }
    close_fd(&in_p[0]);
    close_fd(&out_p[1]);
    close_fd(&log_fd);

    /* The child's report is final: it has exec'd /bin/sh (0) or failed. */
    if (__atomic_load_n(&args.err, __ATOMIC_ACQUIRE) != 0) {
        /* The child has _exit'ed or is about to: reap it. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        rc = DDZ_ESPAWN;
        goto fail;
    }

    free(script);
    e->pid = pid;
    e->pidfd = pidfd_open(pid, 0); /* -1 on kernels before 5.3: stop polls instead */
    e->in_fd = in_p[1];
    e->out_fd = out_p[0];
    e->status = -1;
    return e;

fail:
    close_fd(&in_p[0]);
    close_fd(&in_p[1]);
    close_fd(&out_p[0]);
    close_fd(&out_p[1]);
    close_fd(&log_fd);
    if (stack != MAP_FAILED)
        munmap(stack, CHILD_STACK);
    free(script);
    free(e);
    if (err)
        *err = rc;
    return NULL;
}

int ddz_engine_read_fd(const ddz_engine *e)
{
    return e->out_fd;
}

int ddz_engine_write_fd(const ddz_engine *e)
{
    return e->in_fd;
}

pid_t ddz_engine_pid(const ddz_engine *e)
{
    return e->pid;
}

/* ---- writing ----------------------------------------------------------- */

/* write(2) that turns a closed pipe into EPIPE without killing the process
 * and without touching the process-wide SIGPIPE disposition: SIGPIPE is
 * blocked in this thread for the call, and the one the write raised (it is
 * sent to the writing thread) is taken off the pending set before
 * unblocking. A SIGPIPE already pending beforehand is not ours to discard. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t n = write(fd, buf, len);
    int saved = errno;
    if (n < 0 && saved == EPIPE && !was_pending) {
        static const struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return n;
}

bool ddz_engine_wants_write(const ddz_engine *e)
{
    return !e->werr && e->ohead < e->olen;
}

int ddz_engine_flush(ddz_engine *e)
{
    if (e->werr)
        return e->werr;
    while (e->ohead < e->olen) {
        ssize_t n = write_nosigpipe(e->in_fd, e->obuf + e->ohead, e->olen - e->ohead);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            e->werr = errno == EPIPE ? DDZ_ECRASH : DDZ_EIO;
            return e->werr;
        }
        e->ohead += (size_t)n;
    }
    e->ohead = e->olen = 0;
    return 0;
}

int ddz_engine_send(ddz_engine *e, const char *line)
{
    if (strchr(line, '\n'))
        return DDZ_EINVAL;
    if (e->werr)
        return e->werr;
    size_t n = strlen(line);
    if (e->ohead > 0) {
        memmove(e->obuf, e->obuf + e->ohead, e->olen - e->ohead);
        e->olen -= e->ohead;
        e->ohead = 0;
    }
    if (n > SIZE_MAX / 4 - e->olen)
        return DDZ_ENOMEM;
    if (e->ocap - e->olen < n + 1) {
        size_t cap = e->ocap ? e->ocap : 256;
        while (cap - e->olen < n + 1)
            cap *= 2;
        char *p = realloc(e->obuf, cap);
        if (!p)
            return DDZ_ENOMEM;
        e->obuf = p;
        e->ocap = cap;
    }
    memcpy(e->obuf + e->olen, line, n);
    e->obuf[e->olen + n] = '\n';
    e->olen += n + 1;
    return ddz_engine_flush(e);
}

/* ---- reading ----------------------------------------------------------- */

/* Length of a line of `n` bytes (without its '\n') once a final '\r' is
 * dropped: CRLF and LF engines are both accepted (SPEC 7). */
static size_t line_length(const char *s, size_t n)
{
    return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

/* Makes room for `want` more bytes: first by dropping popped bytes, then by
 * growing. Growth is bounded by the output budget plus one line. */
static int make_room(ddz_engine *e, size_t want)
{
    if (e->icap - e->ilen >= want)
        return 0;
    if (e->ihead > 0) {
        memmove(e->ibuf, e->ibuf + e->ihead, e->ilen - e->ihead);
        e->ilen -= e->ihead;
        e->iline -= e->ihead;
        e->ihead = 0;
        if (e->icap - e->ilen >= want)
            return 0;
    }
    size_t cap = e->icap ? e->icap : want;
    while (cap - e->ilen < want)
        cap *= 2;
    char *p = realloc(e->ibuf, cap);
    if (!p)
        return DDZ_ENOMEM;
    e->ibuf = p;
    e->icap = cap;
    return 0;
}

/* Finds the line ends in the new bytes ibuf[from, ilen) and checks every
 * completed line, and the partial one, against max_line. An over-long line
 * and whatever follows it are dropped. */
static int scan_lines(ddz_engine *e, size_t from)
{
    const char *nl;
    while ((nl = memchr(e->ibuf + from, '\n', e->ilen - from)) != NULL) {
        size_t end = (size_t)(nl - e->ibuf);
        if (line_length(e->ibuf + e->iline, end - e->iline) > e->lim.max_line) {
            e->ilen = e->iline;
            return DDZ_ETOOLONG;
        }
        e->iline = from = end + 1;
    }
    /* + 1: the partial line may yet end in "\r\n". Checking it now, not
     * when its '\n' comes, bounds what an engine can make us buffer. */
    if (e->ilen - e->iline > e->lim.max_line + 1) {
        e->ilen = e->iline;
        return DDZ_ETOOLONG;
    }
    return 0;
}

int ddz_engine_on_readable(ddz_engine *e)
{
    if (e->rerr)
        return e->rerr;
    size_t total = 0;
    while (total < READ_PER_CALL) {
        int rc = make_room(e, READ_CHUNK);
        if (rc)
            return e->rerr = rc;
        ssize_t n = read(e->out_fd, e->ibuf + e->ilen, e->icap - e->ilen);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return e->rerr = DDZ_EIO;
        }
        if (n == 0) {
            e->eof = true;
            /* A last line without '\n' is kept for next_line if it fits. */
            if (line_length(e->ibuf + e->iline, e->ilen - e->iline) > e->lim.max_line) {
                e->ilen = e->iline;
                return e->rerr = DDZ_ETOOLONG;
            }
            return e->rerr = DDZ_ECRASH;
        }
        total += (size_t)n;
        /* Bytes past the budget are dropped: they are the flood. */
        size_t take = (size_t)n, left = e->lim.max_output - e->used;
        bool flood = take > left;
        if (flood)
            take = left;
        e->used += take;
        size_t from = e->ilen;
        e->ilen += take;
        rc = scan_lines(e, from);
        if (rc)
            return e->rerr = rc;
        if (flood)
            return e->rerr = DDZ_EFLOOD;
    }
    return 0;
}

int ddz_engine_next_line(ddz_engine *e, char *buf, size_t size, size_t *len)
{
    const char *start;
    size_t n, skip;
    if (e->ihead < e->iline) {
        /* Always found: complete lines end in '\n'. */
        start = e->ibuf + e->ihead;
        const char *nl = memchr(start, '\n', e->iline - e->ihead);
        n = (size_t)(nl - start);
        skip = n + 1;
    } else if (e->eof && e->rerr == DDZ_ECRASH && e->ilen > e->iline) {
        start = e->ibuf + e->iline; /* the last line had no '\n' */
        n = e->ilen - e->iline;
        skip = n;
    } else {
        return 0;
    }
    n = line_length(start, n);
    if (size < n + 1)
        return DDZ_ENOSPC;
    memcpy(buf, start, n);
    buf[n] = '\0';
    *len = n;
    e->ihead += skip;
    if (e->iline < e->ihead)
        e->iline = e->ihead;
    if (e->ihead == e->ilen) /* all popped: start again at the front for free */
        e->ihead = e->iline = e->ilen = 0;
    return memchr(buf, '\0', n) ? DDZ_ESYNTAX : 1;
}

void ddz_engine_reset_budget(ddz_engine *e)
{
    e->used = 0;
}

/* ---- exit and stop ----------------------------------------------------- */

static int status_from_siginfo(const siginfo_t *si)
{
    return si->si_code == CLD_EXITED ? si->si_status : 128 + si->si_status;
}

/* Notes whether the child has exited, WITHOUT reaping it (WNOWAIT): while
 * the zombie exists, its pid and process group id cannot be reused, so
 * signalling the group in stop cannot hit a stranger. */
static void check_exit(ddz_engine *e)
{
    if (e->exited)
        return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)e->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == ECHILD) /* reaped by someone else: nothing left to do */
            e->exited = e->reaped = true;
        return;
    }
    if (si.si_pid == e->pid) {
        e->exited = true;
        e->status = status_from_siginfo(&si);
    }
}

bool ddz_engine_alive(ddz_engine *e)
{
    check_exit(e);
    return !e->exited;
}

int ddz_engine_exit_status(ddz_engine *e)
{
    check_exit(e);
    return e->status;
}

static long elapsed_ms(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* Waits up to `ms` for the child to exit, without reaping it. */
static void wait_exit(ddz_engine *e, int ms)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        check_exit(e);
        if (e->exited)
            return;
        long left = ms - elapsed_ms(&start);
        if (left <= 0)
            return;
        if (e->pidfd >= 0) {
            /* A pidfd becomes readable when the process exits. */
            struct pollfd p = {.fd = e->pidfd, .events = POLLIN};
            poll(&p, 1, (int)left);
        } else {
            static const struct timespec step = {0, 2 * 1000 * 1000};
            nanosleep(&step, NULL);
        }
    }
}

void ddz_engine_stop(ddz_engine *e)
{
    check_exit(e);
    if (e->reaped)
        return;
    /* The group is signalled even if the engine already exited, since its
     * children may not have; the engine's zombie holds the group id. */
    kill(-e->pid, SIGTERM);
    if (e->lim.kill_grace_ms > 0)
        wait_exit(e, e->lim.kill_grace_ms);
    kill(-e->pid, SIGKILL);
    int st;
    pid_t r;
    while ((r = waitpid(e->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r == e->pid)
        e->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    e->exited = e->reaped = true;
}

void ddz_engine_destroy(ddz_engine *e)
{
    if (!e)
        return;
    ddz_engine_stop(e);
    close_fd(&e->in_fd);
    close_fd(&e->out_fd);
    close_fd(&e->pidfd);
    free(e->ibuf);
    free(e->obuf);
    free(e);
}
