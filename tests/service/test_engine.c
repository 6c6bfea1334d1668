/* test_engine.c - engine child processes, with shell commands as fake engines.
 *
 * Nothing here sleeps to synchronise: every wait is a poll() on the
 * engine's fds, or on a pidfd for its exit, or the module's own waits
 * (ddz_engine_wait_started/_gone, ddz_engine_settle), bounded by WAIT_MS.
 */
#include <criterion/criterion.h>
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_clock.h"
#include "rules/error.h"
#include "service/engine/engine.h"

#define WAIT_MS T(5000) /* bound on any single wait; the tests take milliseconds */

/* Waits for the next line, flushing queued input meanwhile. Returns what
 * ddz_engine_next_line returned (1, DDZ_ESYNTAX, DDZ_ENOSPC), or once no
 * line is left the engine's sticky read error, or 0 after WAIT_MS. */
static int wait_line(ddz_engine *e, char *buf, size_t size, size_t *len)
{
    long deadline = now_ms() + WAIT_MS;
    int err = 0;
    for (;;) {
        int r = ddz_engine_next_line(e, buf, size, len);
        if (r != 0)
            return r;
        if (err)
            return err;
        long left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p[2] = {
            {.fd = ddz_engine_read_fd(e), .events = POLLIN},
            {.fd = ddz_engine_wants_write(e) ? ddz_engine_write_fd(e) : -1, .events = POLLOUT},
        };
        int n = poll(p, 2, (int)left);
        cr_assert(n >= 0 || errno == EINTR);
        if (p[1].revents)
            ddz_engine_flush(e);
        if (p[0].revents)
            err = ddz_engine_on_readable(e);
    }
}

static void expect_line(ddz_engine *e, const char *want)
{
    char buf[8192];
    size_t len = 99;
    int r = wait_line(e, buf, sizeof buf, &len);
    cr_assert_eq(r, 1, "waiting for \"%s\": got %d (%s)", want, r, ddz_errname(r));
    cr_assert_str_eq(buf, want);
    cr_assert_eq(len, strlen(want));
}

/* Pops lines until the engine's read error; returns it, with the number of
 * lines popped in *nlines (if not NULL). */
static int expect_error(ddz_engine *e, long *nlines)
{
    char buf[8192];
    size_t len;
    long count = 0;
    int r;
    while ((r = wait_line(e, buf, sizeof buf, &len)) == 1)
        count++;
    if (nlines)
        *nlines = count;
    return r;
}

/* Waits for the engine's child to exist: the spawner makes it. */
static pid_t started_pid(ddz_engine *e)
{
    cr_assert_eq(ddz_engine_wait_started(e, WAIT_MS), 0, "the spawner did not start it");
    pid_t pid = ddz_engine_pid(e);
    cr_assert_gt(pid, 1);
    return pid;
}

/* Waits for the engine process to exit, through a pidfd of our own. */
static void wait_exited(ddz_engine *e)
{
    int fd = pidfd_open(started_pid(e), 0);
    cr_assert(fd >= 0, "pidfd_open: %s", strerror(errno));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, WAIT_MS), 1, "engine did not exit");
    close(fd);
    cr_assert_not(ddz_engine_alive(e));
}

/* True if `pid` is no longer running. A killed grandchild is reparented to
 * pid 1, which in some containers never reaps it, so a zombie counts too. */
static bool not_running(pid_t pid)
{
    if (kill(pid, 0) < 0)
        return errno == ESRCH;
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')'); /* the name may contain spaces */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Waits for a process that is not our child to end: SIGKILL sent to a
 * grandchild takes effect asynchronously, after kill() has returned. */
static bool ends_soon(pid_t pid)
{
    int fd = pidfd_open(pid, 0);
    if (fd < 0)
        return errno == ESRCH;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, WAIT_MS);
    close(fd);
    return n == 1 && not_running(pid);
}

/* Children of this process (any thread's), as /proc lists them: zombies
 * included, so an engine not reaped counts. */
static int count_children(void)
{
    DIR *d = opendir("/proc/self/task");
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *t;
    while ((t = readdir(d))) {
        if (t->d_name[0] == '.')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", t->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
            n++;
    }
    closedir(d);
    return n;
}

/* Destroys `e` (which returns at once), waits for the spawner to finish
 * the stop, and checks that the process was reaped. */
static void destroy_and_check_gone(ddz_engine *e)
{
    pid_t pid = started_pid(e);
    ddz_engine_destroy(e);
    cr_assert_eq(ddz_engine_settle(WAIT_MS), 0, "the stop did not finish");
    cr_assert_eq(kill(pid, 0), -1, "engine %d still exists", (int)pid);
    cr_assert_eq(errno, ESRCH);
}

static ddz_engine *spawn(const char *cmd, const ddz_engine_limits *lim)
{
    int err = 0;
    ddz_engine *e = ddz_engine_spawn(cmd, NULL, lim, &err);
    cr_assert_not_null(e, "spawn %s: %s", cmd, ddz_strerror(err));
    return e;
}

/* Starts the spawner thread (its mailbox's pipe stays open for the life
 * of the process) so that descriptors can be counted around an engine. */
static void warm_spawner(void)
{
    ddz_engine *e = spawn("true", NULL);
    ddz_engine_destroy(e);
    cr_assert_eq(ddz_engine_settle(WAIT_MS), 0);
}

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/ddz_engine_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

static size_t read_file(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

static pid_t read_pid_file(const char *path)
{
    char buf[32];
    read_file(path, buf, sizeof buf);
    pid_t pid = (pid_t)atoi(buf);
    cr_assert_gt(pid, 1, "no pid in %s", path);
    return pid;
}

/* ---- lines ------------------------------------------------------------- */

Test(engine, cat_echoes_lines_and_empty_line_is_not_no_line, .timeout = HANG(20))
{
    ddz_engine *e = spawn("cat", NULL);
    char buf[16];
    size_t len = 99;
    cr_assert_eq(ddz_engine_next_line(e, buf, sizeof buf, &len), 0);
    cr_assert_eq(ddz_engine_send(e, "DOUDIZHUVER 1.0"), 0);
    cr_assert_eq(ddz_engine_send(e, ""), 0);
    cr_assert_eq(ddz_engine_send(e, "x y"), 0);
    expect_line(e, "DOUDIZHUVER 1.0");
    expect_line(e, "");
    expect_line(e, "x y");
    cr_assert_eq(ddz_engine_next_line(e, buf, sizeof buf, &len), 0);
    cr_assert(ddz_engine_alive(e));
    cr_assert_eq(ddz_engine_exit_status(e), -1);
    destroy_and_check_gone(e);
}

Test(engine, quoted_command_answers_then_exits_cleanly, .timeout = HANG(20))
{
    ddz_engine *e = spawn("sh -c 'read x; echo \"NAME $x\"'", NULL);
    cr_assert_eq(ddz_engine_send(e, "DOUDIZHUVER 1.0"), 0);
    expect_line(e, "NAME DOUDIZHUVER 1.0");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    cr_assert_eq(ddz_engine_on_readable(e), DDZ_ECRASH, "faults are sticky");
    wait_exited(e);
    cr_assert_eq(ddz_engine_exit_status(e), 0);
    destroy_and_check_gone(e);
}

Test(engine, crlf_and_lf_and_last_line_without_newline, .timeout = HANG(20))
{
    ddz_engine *e = spawn("printf 'A\\r\\nB\\n\\r\\n\\nlast\\r'", NULL);
    expect_line(e, "A");
    expect_line(e, "B");
    expect_line(e, "");
    expect_line(e, "");
    expect_line(e, "last");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    ddz_engine_destroy(e);
}

Test(engine, nul_byte_is_popped_but_reported, .timeout = HANG(20))
{
    ddz_engine *e = spawn("printf 'a\\0b\\nok\\n'", NULL);
    char buf[16];
    size_t len = 0;
    cr_assert_eq(wait_line(e, buf, sizeof buf, &len), DDZ_ESYNTAX);
    cr_assert_eq(len, 3);
    cr_assert(buf[0] == 'a' && buf[1] == '\0' && buf[2] == 'b' && buf[3] == '\0');
    expect_line(e, "ok");
    ddz_engine_destroy(e);
}

Test(engine, small_buffer_leaves_line_queued, .timeout = HANG(20))
{
    ddz_engine *e = spawn("echo 0123456789", NULL);
    char buf[11];
    size_t len = 0;
    cr_assert_eq(wait_line(e, buf, 10, &len), DDZ_ENOSPC);
    cr_assert_eq(ddz_engine_next_line(e, buf, 11, &len), 1);
    cr_assert_str_eq(buf, "0123456789");
    ddz_engine_destroy(e);
}

Test(engine, send_rejects_embedded_newline, .timeout = HANG(20))
{
    ddz_engine *e = spawn("cat", NULL);
    cr_assert_eq(ddz_engine_send(e, "PLAY A3\nPLAY B4"), DDZ_EINVAL);
    cr_assert_not(ddz_engine_wants_write(e));
    cr_assert_eq(ddz_engine_send(e, "after"), 0);
    expect_line(e, "after");
    destroy_and_check_gone(e);
}

/* ---- limits ------------------------------------------------------------ */

Test(engine, line_of_max_line_bytes_passes_one_more_is_too_long, .timeout = HANG(20))
{
    ddz_engine_limits lim = {.max_line = 10};
    ddz_engine *e = spawn("printf '0123456789\\r\\n0123456789\\n01234567890\\nafter\\n'", &lim);
    expect_line(e, "0123456789");
    expect_line(e, "0123456789");
    cr_assert_eq(expect_error(e, NULL), DDZ_ETOOLONG, "the line and what follows are dropped");
    ddz_engine_destroy(e);
}

Test(engine, default_max_line_is_4096, .timeout = HANG(20))
{
    ddz_engine *e = spawn("printf '%4096s\\n%4097s\\n' x y", NULL);
    char buf[DDZ_ENGINE_MAX_LINE + 1];
    size_t len = 0;
    cr_assert_eq(wait_line(e, buf, sizeof buf, &len), 1);
    cr_assert_eq(len, 4096);
    cr_assert_eq(wait_line(e, buf, sizeof buf, &len), DDZ_ETOOLONG);
    ddz_engine_destroy(e);
}

Test(engine, partial_line_is_too_long_before_its_newline, .timeout = HANG(20))
{
    /* The engine stays alive and silent: the fault must not wait for '\n'. */
    ddz_engine_limits lim = {.max_line = 10};
    ddz_engine *e = spawn("sh -c 'printf 0123456789AB; exec sleep 1000'", &lim);
    cr_assert_eq(expect_error(e, NULL), DDZ_ETOOLONG);
    cr_assert(ddz_engine_alive(e));
    destroy_and_check_gone(e);
}

Test(engine, endless_lines_are_a_flood_at_the_budget, .timeout = HANG(20))
{
    ddz_engine *e = spawn("yes", NULL);
    long lines;
    cr_assert_eq(expect_error(e, &lines), DDZ_EFLOOD);
    cr_assert_eq(lines, DDZ_ENGINE_MAX_OUTPUT / 2, "every byte up to the budget is kept");
    cr_assert(ddz_engine_alive(e));
    destroy_and_check_gone(e);
}

Test(engine, zeros_without_newline_are_too_long_or_a_flood, .timeout = HANG(20))
{
    ddz_engine *e = spawn("head -c 2000000 /dev/zero", NULL);
    cr_assert_eq(expect_error(e, NULL), DDZ_ETOOLONG);
    ddz_engine_destroy(e);

    ddz_engine_limits lim = {.max_line = 4u << 20};
    e = spawn("head -c 2000000 /dev/zero", &lim);
    cr_assert_eq(expect_error(e, NULL), DDZ_EFLOOD);
    ddz_engine_destroy(e);
}

/* Two bursts of 700000 bytes: over a 1 MiB budget only without a reset. */
#define BURSTS "sh -c 'yes | head -c 700000; read x; yes | head -c 700000; read x'"

static long pop_lines(ddz_engine *e, long n)
{
    char buf[16];
    size_t len;
    long i = 0;
    while (i < n && wait_line(e, buf, sizeof buf, &len) == 1)
        i++;
    return i;
}

Test(engine, budget_reset_allows_more_output, .timeout = HANG(20))
{
    ddz_engine *e = spawn(BURSTS, NULL);
    cr_assert_eq(pop_lines(e, 350000), 350000);
    ddz_engine_reset_budget(e);
    cr_assert_eq(ddz_engine_send(e, "next game"), 0);
    cr_assert_eq(pop_lines(e, 350000), 350000);
    cr_assert_eq(ddz_engine_send(e, "done"), 0);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    ddz_engine_destroy(e);
}

Test(engine, budget_without_reset_floods, .timeout = HANG(20))
{
    ddz_engine *e = spawn(BURSTS, NULL);
    cr_assert_eq(pop_lines(e, 350000), 350000);
    cr_assert_eq(ddz_engine_send(e, "next game"), 0);
    long lines;
    cr_assert_eq(expect_error(e, &lines), DDZ_EFLOOD);
    cr_assert_eq(lines, DDZ_ENGINE_MAX_OUTPUT / 2 - 350000);
    destroy_and_check_gone(e);
}

/* ---- exits and crashes ------------------------------------------------- */

Test(engine, exit_code_is_reported, .timeout = HANG(20))
{
    ddz_engine *e = spawn("sh -c 'exit 3'", NULL);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    wait_exited(e);
    cr_assert_eq(ddz_engine_exit_status(e), 3);
    ddz_engine_stop(e);
    cr_assert_eq(ddz_engine_exit_status(e), 3, "stop keeps the status of an engine that exited");
    destroy_and_check_gone(e);
}

Test(engine, death_by_signal_is_128_plus_signal, .timeout = HANG(20))
{
    ddz_engine *e = spawn("sh -c 'kill -KILL $$'", NULL);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    wait_exited(e);
    cr_assert_eq(ddz_engine_exit_status(e), 128 + SIGKILL);
    destroy_and_check_gone(e);
}

Test(engine, missing_program_is_a_prompt_crash_with_127, .timeout = HANG(20))
{
    make_tmpdir();
    char log[128], text[512];
    snprintf(log, sizeof log, "%s/engine.log", tmpdir);
    long t0 = now_ms();
    int err = 0;
    ddz_engine *e = ddz_engine_spawn("/nonexistent/engine --level 3", log, NULL, &err);
    cr_assert_not_null(e, "the shell starts even if the program does not exist");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    wait_exited(e);
    cr_assert_eq(ddz_engine_exit_status(e), 127);
    destroy_and_check_gone(e);
    cr_assert_lt(now_ms() - t0, T(2000));
    read_file(log, text, sizeof text);
    cr_assert_not_null(strstr(text, "/nonexistent/engine"), "log: %s", text);
    remove_tmpdir();
}

Test(engine, bad_arguments_and_unwritable_log, .timeout = HANG(20))
{
    int err = 0;
    cr_assert_null(ddz_engine_spawn("", NULL, NULL, &err));
    cr_assert_eq(err, DDZ_EINVAL);
    cr_assert_null(ddz_engine_spawn("cat", "/nonexistent/dir/engine.log", NULL, &err));
    cr_assert_eq(err, DDZ_EIO);
    cr_assert_null(ddz_engine_spawn(NULL, NULL, NULL, NULL));
    ddz_engine_destroy(NULL);
}

Test(engine, send_to_exited_engine_is_a_crash_not_sigpipe, .timeout = HANG(20))
{
    /* SIGPIPE at its default would kill this test process. */
    signal(SIGPIPE, SIG_DFL);
    ddz_engine *e = spawn("true", NULL);
    wait_exited(e);
    cr_assert_eq(ddz_engine_send(e, "DOUDIZHUVER 1.0"), DDZ_ECRASH);
    cr_assert_eq(ddz_engine_send(e, "again"), DDZ_ECRASH, "write faults are sticky");
    cr_assert_eq(ddz_engine_flush(e), DDZ_ECRASH);
    cr_assert_not(ddz_engine_wants_write(e));
    sigset_t pending;
    sigpending(&pending);
    cr_assert_not(sigismember(&pending, SIGPIPE), "the SIGPIPE raised was discarded");
    ddz_engine_destroy(e);
}

/* ---- stopping ---------------------------------------------------------- */

Test(engine, sigterm_ignored_means_sigkill_after_grace, .timeout = HANG(20))
{
    ddz_engine_limits lim = {.kill_grace_ms = 100};
    ddz_engine *e = spawn("sh -c 'trap \"\" TERM; echo ready; while :; do :; done'", &lim);
    expect_line(e, "ready");
    long t0 = now_ms();
    ddz_engine_stop(e);
    cr_assert_eq(ddz_engine_wait_gone(e, WAIT_MS), 0);
    long took = now_ms() - t0;
    cr_assert_geq(took, 100);
    cr_assert_lt(took, T(2000));
    cr_assert(ddz_engine_gone(e));
    cr_assert_eq(ddz_engine_exit_status(e), 128 + SIGKILL);
    cr_assert_not(ddz_engine_alive(e));
    ddz_engine_stop(e); /* idempotent */
    destroy_and_check_gone(e);
}

Test(engine, sigterm_obeyed_is_quick, .timeout = HANG(20))
{
    ddz_engine_limits lim = {.kill_grace_ms = 3000};
    ddz_engine *e = spawn("cat", &lim);
    started_pid(e);
    long t0 = now_ms();
    ddz_engine_stop(e);
    cr_assert_eq(ddz_engine_wait_gone(e, WAIT_MS), 0);
    cr_assert_lt(now_ms() - t0, BELOW(1000, 3000), "the grace is an upper bound, not a delay");
    cr_assert_eq(ddz_engine_exit_status(e), 128 + SIGTERM);
    destroy_and_check_gone(e);
}

/* Issue 37: a stop used to wait on the caller's thread for the engine to
 * exit, up to the grace, then for SIGKILL to take (a blocking waitpid):
 * an event loop stopping engines that ignore SIGTERM waited the grace for
 * each. Now the caller only asks; the spawner thread waits out every
 * grace at once, and reaps each engine (no zombie is left). 8 engines
 * with a grace of 300 ms: the stops cost the caller 2.4 s before, now a
 * few system calls. */
Test(engine, stop_never_waits_for_the_grace, .timeout = HANG(30))
{
    enum { N = 8, GRACE = 300 };
    int children = count_children();
    ddz_engine_limits lim = {.kill_grace_ms = GRACE};
    ddz_engine *e[N];
    for (int i = 0; i < N; i++) {
        e[i] = spawn("sh -c 'trap \"\" TERM; echo ready; exec sleep 1000'", &lim);
        expect_line(e[i], "ready");
    }
    cr_assert_eq(count_children(), children + N);
    long t0 = now_ms();
    for (int i = 0; i < N; i++)
        ddz_engine_stop(e[i]);
    long took = now_ms() - t0;
    cr_assert_lt(took, BELOW(50, GRACE), "stopping %d engines held the caller %ld ms", N, took);
    cr_assert_geq(ddz_engine_stopping(), 1, "none in its grace");
    for (int i = 0; i < N; i++) {
        cr_assert_eq(ddz_engine_wait_gone(e[i], WAIT_MS), 0, "engine %d not reaped", i);
        cr_assert_eq(ddz_engine_exit_status(e[i]), 128 + SIGKILL, "it ignored SIGTERM");
    }
    long all = now_ms() - t0;
    cr_assert_geq(all, GRACE, "SIGKILL came before the grace");
    cr_assert_lt(all, GRACE + T(1000), "the graces ran one after another: %ld ms", all);
    cr_assert_eq(ddz_engine_stopping(), 0);
    cr_assert_eq(count_children(), children, "a child is left (a zombie, or not killed)");
    for (int i = 0; i < N; i++)
        ddz_engine_destroy(e[i]);
}

/* Nor does a start wait for the child: the caller never makes it (a
 * clone suspended the caller until the child had exec'd, which under load
 * was most of an event loop's time). The child belongs to the spawner
 * thread: the calling thread has no child of its own. */
Test(engine, the_calling_thread_makes_no_child, .timeout = HANG(20))
{
    ddz_engine *e = spawn("cat", NULL);
    pid_t pid = started_pid(e);
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert_eq(n, 0, "the calling thread made child %s (engine %d)", buf, (int)pid);
    cr_assert_eq(ddz_engine_send(e, "ping"), 0);
    expect_line(e, "ping");
    destroy_and_check_gone(e);
}

static void *spawn_cat(void *arg)
{
    *(ddz_engine **)arg = spawn("cat", NULL);
    return NULL;
}

/* The death signal (PR_SET_PDEATHSIG) fires when the THREAD that made the
 * child exits: an engine started from a thread that then ends must live
 * on, since the spawner made it (before, it was killed with the thread). */
Test(engine, an_engine_outlives_the_thread_that_started_it, .timeout = HANG(20))
{
    ddz_engine *e = NULL;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, spawn_cat, &e), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_not_null(e);
    started_pid(e);
    cr_assert_eq(ddz_engine_send(e, "still here"), 0);
    expect_line(e, "still here");
    cr_assert(ddz_engine_alive(e));
    destroy_and_check_gone(e);
}

/* A fork copies only the thread that called it: the child of a program
 * that has started engines has no spawner until it starts its own. */
Test(engine, the_child_of_a_fork_starts_engines_too, .timeout = HANG(20))
{
    warm_spawner();
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int err = 0;
        ddz_engine *e = ddz_engine_spawn("cat", NULL, NULL, &err);
        bool ok = e && ddz_engine_wait_started(e, WAIT_MS) == 0 && ddz_engine_pid(e) > 1 &&
                  ddz_engine_send(e, "forked") == 0;
        char buf[64];
        size_t len;
        ok = ok && wait_line(e, buf, sizeof buf, &len) == 1 && strcmp(buf, "forked") == 0;
        ddz_engine_destroy(e);
        ok = ok && ddz_engine_settle(WAIT_MS) == 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child could not use an engine");
}

/* A stop may come before the spawner has made the child: the child is
 * then never made, and either way nothing is left behind. */
Test(engine, stop_right_after_spawn_leaves_nothing, .timeout = HANG(20))
{
    int children = count_children();
    for (int i = 0; i < 20; i++) {
        ddz_engine *e = spawn("cat", NULL);
        ddz_engine_stop(e);
        cr_assert_eq(ddz_engine_wait_gone(e, WAIT_MS), 0);
        int st = ddz_engine_exit_status(e);
        cr_assert(st == -1 || st == 128 + SIGTERM, "status %d", st);
        cr_assert_eq(ddz_engine_wait_started(e, 0), 0, "gone before its start was handled");
        ddz_engine_destroy(e);
    }
    cr_assert_eq(count_children(), children);
}

Test(engine, grandchildren_die_with_the_engine, .timeout = HANG(20))
{
    /* `trap "" TERM` is inherited by both sleep and cat: all ignore SIGTERM. */
    make_tmpdir();
    char cmd[512], pidfile[128];
    snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", tmpdir);
    snprintf(cmd, sizeof cmd,
             "sh -c 'trap \"\" TERM; sleep 1000 >/dev/null & echo $! >%s; echo ready; exec cat'",
             pidfile);
    ddz_engine_limits lim = {.kill_grace_ms = 50};
    ddz_engine *e = spawn(cmd, &lim);
    expect_line(e, "ready");
    pid_t grandchild = read_pid_file(pidfile);
    cr_assert_eq(kill(grandchild, 0), 0);
    destroy_and_check_gone(e);
    cr_assert(ends_soon(grandchild), "grandchild %d survived", (int)grandchild);
    remove_tmpdir();
}

Test(engine, grandchild_of_an_exited_engine_dies_at_destroy, .timeout = HANG(20))
{
    ddz_engine *e = spawn("sh -c 'sleep 1000 >/dev/null 2>&1 & echo $!'", NULL);
    char buf[32];
    size_t len;
    cr_assert_eq(wait_line(e, buf, sizeof buf, &len), 1);
    pid_t grandchild = (pid_t)atoi(buf);
    cr_assert_gt(grandchild, 1);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    wait_exited(e);
    cr_assert_eq(kill(grandchild, 0), 0, "still running after the engine exited");
    destroy_and_check_gone(e);
    cr_assert(ends_soon(grandchild), "grandchild %d survived", (int)grandchild);
}

/* ---- what the child inherits, what the parent keeps --------------------- */

Test(engine, child_gets_clean_signals_and_no_extra_fds, .timeout = HANG(20))
{
    /* Dirty the parent: an ignored signal, a blocked one, an inheritable fd. */
    signal(SIGUSR1, SIG_IGN);
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, NULL);
    int devnull = open("/dev/null", O_RDONLY);
    cr_assert_eq(dup2(devnull, 200), 200);
    close(devnull);

    /* grep is the engine itself (exec), reading its own status. Not sh's
     * status: dash blocks signals for a moment while it forks. */
    ddz_engine *e = spawn("grep -E '^Sig(Blk|Ign)' /proc/self/status", NULL);
    expect_line(e, "SigBlk:\t0000000000000000");
    expect_line(e, "SigIgn:\t0000000000000000");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    ddz_engine_destroy(e);

    e = spawn("readlink /proc/self/fd/200", NULL);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH, "fd 200 was inherited");
    wait_exited(e);
    cr_assert_eq(ddz_engine_exit_status(e), 1);
    ddz_engine_destroy(e);

    e = spawn("sh -c 'ls /proc/$$/fd'", NULL);
    expect_line(e, "0");
    expect_line(e, "1");
    expect_line(e, "2");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH, "no fd beyond 2");
    ddz_engine_destroy(e);

    sigset_t mask;
    sigprocmask(SIG_BLOCK, NULL, &mask);
    cr_assert(sigismember(&mask, SIGUSR2), "the parent's mask is restored after fork");
    close(200);
}

/* The descriptors of this process, as "fd -> target" lines. Threads of
 * the test runner may open descriptors of their own at any time, so tests
 * compare what the engine opened, not counts. */
static void fd_snapshot(char *out, size_t cap)
{
    DIR *d = opendir("/proc/self/fd");
    cr_assert_not_null(d);
    size_t n = 0;
    out[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
            continue;
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = '\0';
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s -> %s\n", e->d_name, target);
    }
    closedir(d);
}

Test(engine, parent_fds_are_nonblocking_cloexec_and_all_closed, .timeout = HANG(20))
{
    static char before[16384], during[16384], after[16384];
    warm_spawner();
    fd_snapshot(before, sizeof before);
    ddz_engine *e = spawn("cat", NULL);
    started_pid(e); /* the spawner has closed the child's ends */
    int fds[2] = {ddz_engine_read_fd(e), ddz_engine_write_fd(e)};
    for (int i = 0; i < 2; i++) {
        cr_assert(fcntl(fds[i], F_GETFL) & O_NONBLOCK);
        cr_assert(fcntl(fds[i], F_GETFD) & FD_CLOEXEC);
    }
    fd_snapshot(during, sizeof during);
    ddz_engine_destroy(e);
    cr_assert_eq(ddz_engine_settle(WAIT_MS), 0); /* the spawner's pidfd is closed too */
    fd_snapshot(after, sizeof after);
    /* every descriptor the engine opened is closed again */
    int opened = 0;
    for (char *line = during; *line;) {
        char *end = strchr(line, '\n');
        *end = '\0';
        if (!strstr(before, line)) {
            opened++;
            cr_assert_null(strstr(after, line), "left open: %s", line);
        }
        line = end + 1;
    }
    cr_assert_geq(opened, 2, "the engine's pipes were seen");
}

Test(engine, stderr_is_appended_to_the_log, .timeout = HANG(20))
{
    make_tmpdir();
    char log[128], fresh[128], text[256];
    snprintf(log, sizeof log, "%s/old.log", tmpdir);
    snprintf(fresh, sizeof fresh, "%s/new.log", tmpdir);
    FILE *f = fopen(log, "w");
    fputs("old\n", f);
    fclose(f);

    int err = 0;
    ddz_engine *e = ddz_engine_spawn("sh -c 'echo >&2 hello; echo done'", log, NULL, &err);
    cr_assert_not_null(e, "%s", ddz_strerror(err));
    expect_line(e, "done");
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    ddz_engine_destroy(e);
    read_file(log, text, sizeof text);
    cr_assert_str_eq(text, "old\nhello\n");

    umask(022);
    e = ddz_engine_spawn("sh -c 'echo >&2 fresh'", fresh, NULL, &err);
    cr_assert_not_null(e);
    cr_assert_eq(expect_error(e, NULL), DDZ_ECRASH);
    ddz_engine_destroy(e);
    read_file(fresh, text, sizeof text);
    cr_assert_str_eq(text, "fresh\n");
    struct stat st;
    cr_assert_eq(stat(fresh, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644);
    remove_tmpdir();
}

/* ---- writing ----------------------------------------------------------- */

Test(engine, send_never_blocks_on_an_engine_that_does_not_read, .timeout = HANG(20))
{
    ddz_engine *e = spawn("sh -c 'echo ready; exec sleep 1000'", NULL);
    expect_line(e, "ready");
    char line[101];
    memset(line, 'x', 100);
    line[100] = '\0';
    long t0 = now_ms();
    for (int i = 0; i < 3000; i++) /* 303 000 bytes, far over a pipe's 64 KiB */
        cr_assert_eq(ddz_engine_send(e, line), 0);
    cr_assert(ddz_engine_wants_write(e));
    cr_assert_eq(ddz_engine_flush(e), 0);
    cr_assert(ddz_engine_wants_write(e));
    cr_assert_lt(now_ms() - t0, T(1000));
    destroy_and_check_gone(e);
}

Test(engine, queued_output_reaches_a_slow_reader, .timeout = HANG(20))
{
    ddz_engine *e = spawn("cat", NULL);
    char line[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(line, sizeof line, "PLAY A%d", i);
        cr_assert_eq(ddz_engine_send(e, line), 0);
    }
    for (int i = 0; i < 20000; i++) {
        snprintf(line, sizeof line, "PLAY A%d", i);
        expect_line(e, line);
    }
    cr_assert_not(ddz_engine_wants_write(e));
    destroy_and_check_gone(e);
}

/* ---- starting without copying the server (issue 24) ---- */

/* Descriptors this process holds now. */
static int count_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    cr_assert_not_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Minor page faults taken by this thread so far. */
static long thread_minflt(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_minflt;
}

/* A fork marked every private page of the caller's write-protected, so
 * each write to its heap after a spawn took a fault (a copy while the
 * child lived): with a server of a few hundred MB, the event loop paid for
 * its whole heap at every Botzone turn. A child that shares the memory
 * until exec (clone with CLONE_VM | CLONE_VFORK) leaves the pages as they
 * were. Counted, not timed: writes to 32 MiB of touched pages fault 8192
 * times after a fork, none after such a start. */
Test(engine, spawn_leaves_the_callers_memory_writable, .timeout = HANG(20))
{
    const size_t size = 32u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(mem, MAP_FAILED);
    madvise(mem, size, MADV_NOHUGEPAGE); /* one fault a page, not one per 2 MiB */
    memset(mem, 1, size);
    ddz_engine *e = spawn("cat", NULL);
    long before = thread_minflt();
    for (size_t off = 0; off < size; off += page)
        mem[off] = 2;
    long faults = thread_minflt() - before;
    cr_assert_lt(faults, (long)(size / page / 8),
                 "%ld page faults writing %zu pages after a spawn: the caller's memory was "
                 "write-protected (forked)",
                 faults, size / page);
    cr_assert(ddz_engine_alive(e));
    cr_assert_eq(ddz_engine_send(e, "ping"), 0);
    expect_line(e, "ping");
    destroy_and_check_gone(e);
    munmap(mem, size);
}

/* An error in the child before exec reaches the caller as DDZ_ESPAWN at
 * the end of the engine's output (the spawner made the child, not the
 * caller), and leaves no child and no descriptor behind: a command line
 * longer than the kernel takes for one argument (MAX_ARG_STRLEN, 128 KiB)
 * makes the exec of /bin/sh fail with E2BIG. */
Test(engine, exec_failure_is_espawn_with_no_zombie_or_fd_left, .timeout = HANG(20))
{
    size_t n = 200 * 1024;
    char *cmd = malloc(n + 1);
    cr_assert_not_null(cmd);
    memcpy(cmd, "true ", 5);
    memset(cmd + 5, 'x', n - 5);
    cmd[n] = '\0';
    warm_spawner();
    int fds = count_open_fds();
    int err = 0;
    ddz_engine *e = ddz_engine_spawn(cmd, NULL, NULL, &err);
    free(cmd);
    cr_assert_not_null(e, "%s", ddz_strerror(err));
    cr_assert_eq(expect_error(e, NULL), DDZ_ESPAWN);
    cr_assert_eq(ddz_engine_pid(e), -1);
    cr_assert_not(ddz_engine_alive(e));
    ddz_engine_destroy(e);
    cr_assert_eq(ddz_engine_settle(WAIT_MS), 0);
    cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left to reap");
    cr_assert_eq(errno, ECHILD);
    cr_assert_eq(count_open_fds(), fds, "a descriptor leaked");
}
