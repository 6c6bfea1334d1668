/* bot_procs.h - child processes of the competition tests (bridges, a
 * second server) and bot tokens: spawn with a log, wait with a bound, kill,
 * `ddz token add`. Include after serve_harness.h (it uses `srv`). */
#ifndef DDZ_TEST_BOT_PROCS_H
#define DDZ_TEST_BOT_PROCS_H

typedef struct proc {
    pid_t pid;
    int code;
    char log[200];
} proc;

static void spawn(proc *p, const char *log, char *const argv[])
{
    snprintf(p->log, sizeof p->log, "%s", log);
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
    p->pid = pid;
}

/* Waits up to `ms` for `p`; returns true once it exited (p->code set). */
static bool proc_wait(proc *p, int ms)
{
    int64_t deadline = now_ms() + ms;
    while (p->pid) {
        int status;
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            p->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            p->pid = 0;
            break;
        }
        if (now_ms() >= deadline)
            return false;
        poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
    return true;
}

static void proc_kill(proc *p)
{
    if (p->pid) {
        kill(p->pid, SIGKILL);
        proc_wait(p, T(5000));
    }
}

static void token_add(const char *name, char out[80])
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' token add '%s' --db '%s' 2>/dev/null", DDZ_BIN, name, srv.db);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    cr_assert(fgets(out, 80, f), "ddz token add printed nothing");
    out[strcspn(out, "\r\n")] = '\0';
    cr_assert_eq(pclose(f), 0);
    cr_assert_eq(strlen(out), 64);
}

#endif
