/* engine.c - a CAAI engine child process: spawn, pipes, limits, stop.
 *
 * Two threads share an engine. The caller's (an event loop) owns the
 * pipes and the buffers; the module's spawner thread owns the process: it
 * makes the child, signals its group and reaps it. They share a `proc`
 * record, handed over through a mailbox (service/thread/mailbox.h) and
 * read through atomics, so that nothing the caller does waits for a
 * process: a start is two pipes and a queued request, a stop a queued
 * request (issue 37: the loop was in the vfork wait and the stop's
 * waitpid a third of the time under churned engine rooms).
 *
 * The child needs PR_SET_PDEATHSIG, which posix_spawn cannot set: an engine
 * that spins on EOF (spec §7) would otherwise outlive a crashed server
 * forever. It is started the way glibc's posix_spawn starts one, with
 * clone(CLONE_VM | CLONE_VFORK) on a small stack of its own, not with fork:
 * fork copied the server's page tables and write-protected every page of
 * its heap (each later write by any thread then faulted), and took the
 * address space's lock for as long (issue 24). The child shares the
 * parent's memory until it execs, so between clone and exec it makes
 * system calls only (no malloc, no lock, nothing another thread may hold),
 * reports an error through its argument block instead of a pipe, and runs
 * unsanitized (an ASan stack switch would confuse the runtime). The
 * spawner thread is suspended until the child has exec'd /bin/sh or died;
 * the caller is not. The death signal fires when the thread that made the
 * child exits, so the spawner never exits: it lives as long as the
 * process, started at the first spawn.
 *
 * The pipes are made by the caller before the child exists, so the caller
 * has its descriptors at once: what it writes waits in the pipe, and a
 * child that could not be started shows as the end of its output (the
 * spawner closes the child's ends), read as DDZ_ESPAWN.
 *
 * Stopping: SIGTERM to the group, SIGKILL to it when the engine exits or
 * the grace runs out (whichever is first: grandchildren that ignore
 * SIGTERM die too), then the engine is reaped. The spawner waits for the
 * exits on pidfds (Linux 5.3; a 10 ms tick without them) and for the
 * graces with poll's timeout, for every stopping engine at once. It reaps
 * only engines it was asked to stop, and only after its last signal to the
 * group: until then the zombie holds the pid and the group id.
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
#include <stdatomic.h>
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
#include "service/thread/mailbox.h"

/* Reads go straight into the input buffer with at least this much room. */
#define READ_CHUNK (16u * 1024u)
/* At most this much is read per on_readable call, so that an engine writing
 * as fast as we read cannot keep the caller's loop inside one call. */
#define READ_PER_CALL (256u * 1024u)

typedef struct proc proc;

/* A request to the spawner: a proc embeds one for its start and one for
 * its stop, so that asking allocates nothing. */
typedef struct req {
    ddz_mail mail;
    proc *p;
} req;

/* The process, shared by the engine (the caller's thread) and the
 * spawner. Fields marked "spawner" are the spawner's alone. */
struct proc {
    char *script;                       /* "exec COMMAND"; the spawner frees it */
    int child_in, child_out, child_log; /* the child's ends; the spawner closes them */
    int our_in, our_out;                /* the engine's ends once destroyed, closed when gone
                                           (under sp.mu), -1 while the engine has them */
    int kill_grace_ms;                  /* < 0: SIGKILL at once */
    req start, stop;                    /* the two requests */
    atomic_bool stop_asked;             /* set by the engine before its stop request */
    atomic_int pid;                     /* 0 until started, -1 if it never was */
    atomic_int spawn_err;               /* DDZ_ESPAWN if the start failed, set before `started` */
    atomic_bool started;                /* the start was handled (pid or spawn_err is final) */
    atomic_bool gone;                   /* reaped, or never started and stopped */
    atomic_int status;                  /* once gone: as ddz_engine_exit_status(), -1 unknown */
    atomic_int refs;                    /* the engine's and the spawner's */
    int pidfd;                          /* spawner: exit notification, -1 if none */
    int64_t kill_at_us;                 /* spawner: SIGKILL due (stopping, not killed) */
    bool killed;                        /* spawner: SIGKILL sent to the group */
    proc *next;                         /* spawner: the stopping list */
};

struct ddz_engine {
    proc *p;               /* the process */
    bool stop_sent;        /* ddz_engine_stop() ran: p is the spawner's to signal */
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

    bool exited; /* seen exited before the stop (a zombie until reaped) */
    int status;  /* see ddz_engine_exit_status(), -1 unknown */
};

/* ---- the child, between clone and exec --------------------------------- */

/* Its stack: execve's arguments live in the parent's memory, so the child
 * needs only room for a few frames of system call wrappers. */
#define CHILD_STACK (64u * 1024u)

/* What the child is given. It lives on the spawner's stack, which the
 * child may read and write since it shares the memory (CLONE_VM) while the
 * spawner is suspended (CLONE_VFORK). */
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
    /* The spawner thread blocks every signal, so no handler inherited
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

    /* The caller moved these fds above 2, so no dup2 clobbers another. */
    if (dup2(a->in_fd, 0) < 0 || dup2(a->out_fd, 1) < 0 || dup2(a->log_fd, 2) < 0)
        child_fail(a);
    child_cloexec_from_3();

    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv("/bin/sh", a->argv);
    child_fail(a);
}

/* ---- the spawner thread ----------------------------------------------- */

/* The one spawner of the process (children are the process's, not a
 * module's: one thread makes and reaps them all). */
static struct {
    pthread_mutex_t mu; /* guards the fields below and the waits on `cv` */
    pthread_cond_t cv;  /* broadcast when a start is handled or an engine is gone */
    bool running;       /* the thread was started: `box` and `cv` are set up */
    ddz_mailbox *box;   /* requests for the thread, never closed */
    long stopping;      /* stops asked whose engine is not gone yet */
} sp = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void proc_release(proc *p)
{
    if (atomic_fetch_sub(&p->refs, 1) == 1) {
        free(p->script);
        free(p);
    }
}

/* Wakes whoever waits in ddz_engine_wait_started/_gone or settle. The flag
 * they wait for is set before: they test it holding `mu`, so taking `mu`
 * here means none can miss the broadcast. */
static void announce(void)
{
    pthread_mutex_lock(&sp.mu);
    pthread_cond_broadcast(&sp.cv);
    pthread_mutex_unlock(&sp.mu);
}

/* Clones the child of `p` on `stack`. Returns its pid once it has exec'd
 * /bin/sh, or -1 (nothing left to reap). */
static pid_t clone_child(proc *p, void *stack)
{
    char sh[] = "sh", dash_c[] = "-c";
    char *argv[] = {sh, dash_c, p->script, NULL};
    child_args args = {p->child_in, p->child_out, p->child_log, getpid(), argv, 0};
    /* Every signal is blocked in this thread (spawner_start), so no
     * handler runs in the child before it resets the dispositions.
     * Returns once the child has exec'd or exited (CLONE_VFORK). SIGCHLD:
     * it is reaped like a forked child. The stack grows down. */
    pid_t pid =
        clone(child_main, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
    if (pid < 0)
        return -1;
    /* The child's report is final: it has exec'd /bin/sh (0) or failed. */
    if (__atomic_load_n(&args.err, __ATOMIC_ACQUIRE) != 0) {
        /* it has _exit'ed or is about to: reap it */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    return pid;
}

/* A start request: the child is made unless its engine was stopped
 * meanwhile. Its pid, or its failure, is published BEFORE the child's
 * ends close: the engine's end of output then finds it. */
static void do_start(proc *p, void *stack)
{
    bool cancelled = atomic_load(&p->stop_asked);
    pid_t pid = cancelled ? -1 : clone_child(p, stack);
    if (pid > 0) {
        p->pidfd = pidfd_open(pid, 0); /* -1 on kernels before 5.3: a tick instead */
        atomic_store(&p->pid, pid);
    } else {
        atomic_store(&p->pid, -1);
        if (!cancelled)
            atomic_store(&p->spawn_err, DDZ_ESPAWN);
    }
    atomic_store(&p->started, true);
    close_fd(&p->child_in);
    close_fd(&p->child_out);
    close_fd(&p->child_log);
    free(p->script);
    p->script = NULL;
    announce();
}

/* The engine of `p` is gone (reaped, or never started) with `status`. */
static void finish(proc *p, int status)
{
    close_fd(&p->pidfd);
    atomic_store(&p->status, status);
    /* `gone` and the pipes handed over by ddz_engine_destroy() change
     * together, under `mu`: each pipe end is closed by one side */
    pthread_mutex_lock(&sp.mu);
    atomic_store(&p->gone, true);
    close_fd(&p->our_in); /* before the count: settle() promises them closed */
    close_fd(&p->our_out);
    sp.stopping--;
    pthread_cond_broadcast(&sp.cv);
    pthread_mutex_unlock(&sp.mu);
    proc_release(p);
}

/* A stop request: SIGTERM to the group (SIGKILL with a negative grace),
 * and onto the stopping list. The group is signalled even if the engine
 * already exited, since its children may not have; the engine's zombie
 * holds the group id. */
static void do_stop(proc *p, proc **stopping, int64_t now)
{
    pid_t pid = atomic_load(&p->pid);
    if (pid <= 0) { /* never started: its start came first in the box */
        finish(p, -1);
        return;
    }
    p->killed = p->kill_grace_ms < 0;
    kill(-pid, p->killed ? SIGKILL : SIGTERM);
    p->kill_at_us = now + (int64_t)p->kill_grace_ms * 1000;
    p->next = *stopping;
    *stopping = p;
}

/* Moves a stopping engine on: reaps it once it has exited (after SIGKILL
 * to what is left of its group), or sends SIGKILL when the grace is over.
 * Returns true when it is gone (`p` may be freed). */
static bool progress(proc *p, int64_t now)
{
    pid_t pid = atomic_load(&p->pid);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* WNOWAIT: the zombie stays until the group's last signal */
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno != ECHILD)
            return false;
        finish(p, -1); /* reaped by another part of the program */
        return true;
    }
    if (si.si_pid == pid) {
        kill(-pid, SIGKILL);
        int st = 0;
        pid_t r;
        while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
            ;
        finish(p, r != pid ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return true;
    }
    if (!p->killed && now >= p->kill_at_us) {
        kill(-pid, SIGKILL);
        p->killed = true;
    }
    return false;
}

/* The thread: waits for requests (the box's descriptor), for stopping
 * engines to exit (their pidfds) and for the next grace to run out (the
 * timeout), all in one poll. Never returns: see the top of the file. */
static void *spawner_main(void *stack)
{
    proc *stopping = NULL;
    struct pollfd *fds = NULL;
    size_t cap = 0;
    for (;;) {
        int64_t now = now_us();
        size_t n = 0;
        for (proc **pp = &stopping; *pp;) {
            proc *p = *pp, *next = p->next;
            if (progress(p, now)) {
                *pp = next;
            } else {
                pp = &p->next;
                n++;
            }
        }
        if (n + 1 > cap) {
            struct pollfd *f = realloc(fds, (n + 1) * sizeof *f);
            if (f) {
                fds = f;
                cap = n + 1;
            }
        }
        int timeout = -1;
        bool tick = false;
        size_t nfds = 1;
        if (cap >= 1)
            fds[0] = (struct pollfd){.fd = ddz_mailbox_fd(sp.box), .events = POLLIN};
        for (proc *p = stopping; p; p = p->next) {
            if (p->pidfd >= 0 && nfds < cap)
                fds[nfds++] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
            else
                tick = true; /* no pidfd (old kernel), or no memory for one more */
            if (!p->killed) {
                int64_t left_ms = (p->kill_at_us - now + 999) / 1000;
                if (left_ms < 0)
                    left_ms = 0;
                if (timeout < 0 || left_ms < timeout)
                    timeout = (int)left_ms;
            }
        }
        if (tick && (timeout < 0 || timeout > 10))
            timeout = 10;
        if (cap >= 1)
            poll(fds, nfds, timeout);
        else
            poll(NULL, 0, 10); /* no memory even for the box's entry */
        ddz_mail *m = ddz_mailbox_get_all(sp.box);
        now = now_us();
        while (m) {
            req *r = DDZ_MAIL_ITEM(m, req, mail);
            m = m->next;
            if (r == &r->p->start)
                do_start(r->p, stack);
            else
                do_stop(r->p, &stopping, now);
        }
    }
    return NULL;
}

static void settle_at_exit(void)
{
    ddz_engine_settle(2000);
}

/* In the child of a fork, the spawner thread does not exist (a fork copies
 * only the thread that called it): a child that starts engines starts a
 * spawner of its own. The box and its requests are the parent's; they
 * are let go, not freed. */
static void forget_after_fork(void)
{
    sp.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    sp.running = false;
    sp.box = NULL;
    sp.stopping = 0;
}

/* Starts the spawner once. Returns 0, or DDZ_ESPAWN (no memory, no
 * thread: tried again at the next spawn). */
static int spawner_start(void)
{
    pthread_mutex_lock(&sp.mu);
    if (sp.running) {
        pthread_mutex_unlock(&sp.mu);
        return 0;
    }
    int rc = DDZ_ESPAWN;
    /* One stack for every child: the spawner makes them one at a time. */
    void *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    sp.box = stack != MAP_FAILED ? ddz_mailbox_create(0, true) : NULL;
    if (sp.box) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&sp.cv, &ca);
        pthread_condattr_destroy(&ca);
        /* Born with every signal blocked: the process's signals go to its
         * other threads, and the children start with all blocked. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_t th;
        int e = pthread_create(&th, NULL, spawner_main, stack);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e == 0) {
            pthread_detach(th);
            sp.running = true;
            /* a program that returns from main without settling still
             * gives its stopping engines their grace and their SIGKILL */
            static bool hooked;
            if (!hooked) {
                atexit(settle_at_exit);
                pthread_atfork(NULL, NULL, forget_after_fork);
                hooked = true;
            }
            rc = 0;
        } else {
            pthread_cond_destroy(&sp.cv);
            ddz_mailbox_destroy(sp.box);
            sp.box = NULL;
        }
    }
    if (rc && stack != MAP_FAILED)
        munmap(stack, CHILD_STACK);
    pthread_mutex_unlock(&sp.mu);
    return rc;
}

/* Waits, holding `mu` between tests, until `done(arg)` or `timeout_ms`
 * (< 0: no limit). Returns 0 or DDZ_ETIMEOUT. */
static int wait_until(bool (*done)(const void *arg), const void *arg, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms >= 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
    }
    int rc = 0;
    pthread_mutex_lock(&sp.mu);
    while (!done(arg)) {
        if (timeout_ms < 0) {
            pthread_cond_wait(&sp.cv, &sp.mu);
        } else if (pthread_cond_timedwait(&sp.cv, &sp.mu, &until) == ETIMEDOUT) {
            rc = done(arg) ? 0 : DDZ_ETIMEOUT;
            break;
        }
    }
    pthread_mutex_unlock(&sp.mu);
    return rc;
}

int ddz_engine_prepare(void)
{
    return spawner_start();
}

static bool none_stopping(const void *arg)
{
    (void)arg;
    return sp.stopping == 0;
}

int ddz_engine_settle(int timeout_ms)
{
    pthread_mutex_lock(&sp.mu);
    bool running = sp.running;
    pthread_mutex_unlock(&sp.mu);
    return running ? wait_until(none_stopping, NULL, timeout_ms) : 0;
}

long ddz_engine_stopping(void)
{
    pthread_mutex_lock(&sp.mu);
    long n = sp.stopping;
    pthread_mutex_unlock(&sp.mu);
    return n;
}

/* ---- spawning ---------------------------------------------------------- */

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
    proc *p = NULL;
    char *script = NULL;
    int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, log_fd = -1;

    if (!cmdline || !*cmdline) {
        rc = DDZ_EINVAL;
        goto fail;
    }
    e = calloc(1, sizeof *e);
    p = calloc(1, sizeof *p);
    script = malloc(sizeof prefix + strlen(cmdline));
    if (!e || !p || !script) {
        rc = DDZ_ENOMEM;
        goto fail;
    }
    rc = fill_limits(&e->lim, lim);
    if (!rc)
        rc = spawner_start();
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
     * no other child started meanwhile by another thread inherits any. */
    if (pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0 ||
        move_above_stdio(&in_p[0]) < 0 || move_above_stdio(&out_p[1]) < 0 ||
        move_above_stdio(&log_fd) < 0 ||
        /* Our ends only: each pipe end is its own open file description,
         * so the engine's ends stay blocking as programs expect. */
        set_nonblock(in_p[1]) < 0 || set_nonblock(out_p[0]) < 0) {
        rc = DDZ_ESPAWN;
        goto fail;
    }

    *p = (proc){.script = script,
                .child_in = in_p[0],
                .child_out = out_p[1],
                .child_log = log_fd,
                .kill_grace_ms = e->lim.kill_grace_ms,
                .start = {.p = p},
                .stop = {.p = p},
                .our_in = -1,
                .our_out = -1,
                .pidfd = -1};
    atomic_init(&p->stop_asked, false);
    atomic_init(&p->pid, 0);
    atomic_init(&p->spawn_err, 0);
    atomic_init(&p->started, false);
    atomic_init(&p->gone, false);
    atomic_init(&p->status, -1);
    atomic_init(&p->refs, 2);
    e->p = p;
    e->in_fd = in_p[1];
    e->out_fd = out_p[0];
    e->status = -1;
    /* never refused: the box is unbounded and never closed */
    ddz_mailbox_put(sp.box, &p->start.mail);
    return e;

fail:
    close_fd(&in_p[0]);
    close_fd(&in_p[1]);
    close_fd(&out_p[0]);
    close_fd(&out_p[1]);
    close_fd(&log_fd);
    free(script);
    free(p);
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
    pid_t pid = atomic_load(&e->p->pid);
    return pid > 0 ? pid : -1;
}

static bool started(const void *arg)
{
    return atomic_load(&((const proc *)arg)->started);
}

int ddz_engine_wait_started(ddz_engine *e, int timeout_ms)
{
    return wait_until(started, e->p, timeout_ms);
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
 * dropped: CRLF and LF engines are both accepted (spec §7). */
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
            /* the spawner publishes a failed start before closing the
             * child's end of the pipe */
            return e->rerr = atomic_load(&e->p->spawn_err) ? DDZ_ESPAWN : DDZ_ECRASH;
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

/* Notes whether the child has exited. Before the stop, asks the kernel
 * WITHOUT reaping (WNOWAIT: the spawner reaps only what it was asked to
 * stop, so the pid is still ours to ask about); after it, the pid may
 * already be someone else's, and only the spawner's word counts. */
static void check_exit(ddz_engine *e)
{
    if (e->exited)
        return;
    proc *p = e->p;
    if (e->stop_sent) {
        if (atomic_load(&p->gone)) {
            e->exited = true;
            e->status = atomic_load(&p->status);
        }
        return;
    }
    pid_t pid = atomic_load(&p->pid);
    if (pid < 0) { /* it could not be started: it never ran */
        e->exited = true;
        return;
    }
    if (pid == 0) /* still starting */
        return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == ECHILD) /* reaped by someone else: nothing left to know */
            e->exited = true;
        return;
    }
    if (si.si_pid == pid) {
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

void ddz_engine_stop(ddz_engine *e)
{
    if (e->stop_sent)
        return;
    check_exit(e); /* keeps the status of an engine that exited by itself */
    e->stop_sent = true;
    atomic_store(&e->p->stop_asked, true); /* a start not made yet is not made */
    pthread_mutex_lock(&sp.mu);
    sp.stopping++;
    pthread_mutex_unlock(&sp.mu);
    ddz_mailbox_put(sp.box, &e->p->stop.mail); /* after its start: the box is FIFO */
}

bool ddz_engine_gone(const ddz_engine *e)
{
    return e->stop_sent && atomic_load(&e->p->gone);
}

static bool gone(const void *arg)
{
    return atomic_load(&((const proc *)arg)->gone);
}

int ddz_engine_wait_gone(ddz_engine *e, int timeout_ms)
{
    if (!e->stop_sent)
        return DDZ_EINVAL;
    int rc = wait_until(gone, e->p, timeout_ms);
    check_exit(e);
    return rc;
}

void ddz_engine_destroy(ddz_engine *e)
{
    if (!e)
        return;
    ddz_engine_stop(e);
    /* The engine hears SIGTERM before the end of its input (spec §7: an
     * engine is never ended by closing its stdin), so while it is not gone
     * the spawner closes our ends of its pipes, once it is. */
    pthread_mutex_lock(&sp.mu);
    if (!atomic_load(&e->p->gone)) {
        e->p->our_in = e->in_fd;
        e->p->our_out = e->out_fd;
        e->in_fd = e->out_fd = -1;
    }
    pthread_mutex_unlock(&sp.mu);
    close_fd(&e->in_fd);
    close_fd(&e->out_fd);
    free(e->ibuf);
    free(e->obuf);
    proc_release(e->p);
    free(e);
}
