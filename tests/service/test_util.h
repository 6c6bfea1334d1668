/* test_util.h - small helpers for the service tests: a free loopback port,
 * a whole file read into memory, and a count of this test's own child
 * processes. Every helper is `static inline`, so a test that includes the
 * header without using one of them still builds with -Werror. */
#ifndef DDZ_TEST_SERVICE_UTIL_H
#define DDZ_TEST_SERVICE_UTIL_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

#endif
