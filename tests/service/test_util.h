/* test_util.h - small helpers for the service tests: a free loopback port,
 * a whole file read into memory, counts of this test's own child processes
 * (by a marker in their command line, or by program), and a lock that makes
 * every SQLite read of a database wait. Every helper is `static inline`, so
 * a test that includes the header without using one of them still builds
 * with -Werror. */
#ifndef DDZ_TEST_SERVICE_UTIL_H
#define DDZ_TEST_SERVICE_UTIL_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Starts argv (NULL-terminated; argv[0] a path) as a child with stdout and
 * stderr appended to `log`, killed if the test dies. Returns its pid. */
static inline pid_t spawn_logged(const char *log, char *const argv[])
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* A loopback TCP port free at the time of the call (the kernel's pick). */
static inline int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* The contents of `path` as a malloc'd string; "" (malloc'd) if it cannot
 * be read. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(buf);
        return strdup("");
    }
    return buf;
}

/* The parent of process `pid` (field 4 of /proc/PID/stat), or -1 if the
 * process is gone. */
static inline pid_t proc_parent(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses */
    char *comm_end = strrchr(buf, ')');
    int ppid;
    if (!comm_end || sscanf(comm_end + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

/* True if `pid` descends from `ancestor`: its chain of parents reaches it. */
static inline bool proc_descends_from(pid_t pid, pid_t ancestor)
{
    pid_t p = proc_parent(pid);
    for (int depth = 0; p > 0 && depth < 4096; depth++) {
        if (p == ancestor)
            return true;
        p = proc_parent(p);
    }
    return false;
}

/* Counts the live processes started by this test process (its children,
 * their children, ...) whose command line contains `marker`. Processes
 * elsewhere on the machine never count, whatever they run; neither do
 * zombies, whose command line is empty. */
static inline int count_descendants(const char *marker)
{
    pid_t self = getpid();
    DIR *d = opendir("/proc");
    cr_assert_not_null(d, "cannot read /proc");
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[len] = '\0';
        if (strstr(buf, marker) && proc_descends_from((pid_t)pid, self))
            n++;
    }
    closedir(d);
    return n;
}

/* Whether process `pid` is alive and still runs `program` (argv[0]): false
 * once it exited, zombie or reaped. */
static inline bool program_alive(pid_t pid, const char *program)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    return len > 0 && strcmp(buf, program) == 0;
}

/* Finds the live processes started by this test process (its children,
 * their children, ...) whose argv[0] is `program` and, unless `arg` is
 * NULL, that have `arg` among their other arguments. Returns how many, and
 * stores up to `max` of their pids in `pids`. Unlike count_descendants(),
 * a process that only names `program` in its arguments (a server's
 * --engine option, a bridge's command) does not count; a zombie neither,
 * nor a child the program made of itself.
 * A test that must also see processes orphaned by a child that exited
 * makes itself their reaper first (prctl PR_SET_CHILD_SUBREAPER). */
static inline int find_program(const char *program, const char *arg, pid_t *pids, int max)
{
    pid_t self = getpid();
    DIR *d = opendir("/proc");
    cr_assert_not_null(d, "cannot read /proc");
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        if (len == 0 || strcmp(buf, program) != 0 || !proc_descends_from((pid_t)pid, self))
            continue;
        /* a child of the program itself is none of its runs (a sanitizer
         * build's leak check clones one as the program exits) */
        if (program_alive(proc_parent((pid_t)pid), program))
            continue;
        bool has = !arg;
        for (size_t i = strlen(buf) + 1; i < len && !has; i += strlen(buf + i) + 1)
            has = strcmp(buf + i, arg) == 0;
        if (has && n < max)
            pids[n] = (pid_t)pid;
        n += has;
    }
    closedir(d);
    return n;
}

/* Returns how many processes find_program() finds. */
static inline int count_program(const char *program, const char *arg)
{
    return find_program(program, arg, NULL, 0);
}

/* A child process holding every lock of a database's WAL index. */
typedef struct wal_lock {
    pid_t pid; /* the child holding the locks */
    int fd;    /* closing it lets the child go */
} wal_lock;

/* Makes every read and write of the WAL-mode SQLite database `db` by
 * ANOTHER process wait until wal_lock_release(): a child takes write locks
 * on bytes 120..127 of `db`-shm, the WAL index's write, checkpoint and
 * recovery locks and its five read-mark locks (the layout of
 * SQLite's documentation of the WAL format, walformat, section 2.3.1). A reader then
 * retries with growing sleeps, for about 10 s before it gives up with
 * SQLITE_PROTOCOL. A child, because POSIX record locks never conflict
 * within one process; the store under test may live in this one. The
 * database must be open (its -shm file exists). */
static inline wal_lock wal_lock_hold(const char *db)
{
    char shm[256];
    snprintf(shm, sizeof shm, "%s-shm", db);
    int status[2], hold[2];
    cr_assert_eq(pipe2(status, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(hold, O_CLOEXEC), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* async-signal-safe calls only: the parent may have threads */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(hold[1]);
        int fd = open(shm, O_RDWR | O_CLOEXEC);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 120, .l_len = 8};
        char ok = fd >= 0 && fcntl(fd, F_SETLKW, &fl) == 0 ? '1' : '0';
        if (write(status[1], &ok, 1) != 1 || ok != '1')
            _exit(1);
        char c;
        while (read(hold[0], &c, 1) > 0) /* until the parent closes its end */
            ;
        _exit(0);
    }
    close(status[1]);
    close(hold[0]);
    char ok = '0';
    cr_assert_eq(read(status[0], &ok, 1), 1, "the locking child died");
    close(status[0]);
    cr_assert_eq(ok, '1', "cannot lock %s", shm);
    return (wal_lock){.pid = pid, .fd = hold[1]};
}

/* Lets the database go: the child exits, its locks with it. */
static inline void wal_lock_release(wal_lock *l)
{
    if (l->pid <= 0)
        return;
    close(l->fd);
    waitpid(l->pid, NULL, 0);
    l->pid = 0;
}

#endif
