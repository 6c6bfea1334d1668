/* bot_procs.h - child processes of the competition tests (bridges, a
 * second server) and bot tokens: spawn with a log, wait with a bound, kill,
 * `ddz token add`; and a tournament's DIR (a file written, games.jsonl
 * counted). Include after serve_harness.h (it uses `srv`). Every helper is
 * `static inline`, so a test need not use them all. */
#ifndef DDZ_TEST_BOT_PROCS_H
#define DDZ_TEST_BOT_PROCS_H

typedef struct proc {
    pid_t pid;
    int code;
    char log[200];
} proc;

static inline void spawn(proc *p, const char *log, char *const argv[])
{
    snprintf(p->log, sizeof p->log, "%s", log);
    p->pid = spawn_logged(log, argv);
}

/* Waits up to `ms` for `p`; returns true once it exited (p->code set). */
static inline bool proc_wait(proc *p, int ms)
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

static inline void proc_kill(proc *p)
{
    if (p->pid) {
        kill(p->pid, SIGKILL);
        proc_wait(p, T(5000));
    }
}

static inline void token_add(const char *name, char out[80])
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

/* Writes `text` to the file `name` in the tournament's directory `dir`. */
static inline void tourney_file(const char *dir, const char *name, const char *text)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* The games in `dir`/games.jsonl (0 if there is no such file yet), a line
 * each; a last line without its newline is one the server is writing
 * (the 20-run loop read one once) and is not counted yet. Fails the test if
 * a whole line is no JSON or a game (stage, turn, table, game) is there
 * twice. */
static inline int tourney_games(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/games.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *l = NULL, keys[400][48];
    size_t cap = 0;
    int n = 0;
    ssize_t len;
    while ((len = getline(&l, &cap, f)) > 0) {
        if (l[len - 1] != '\n')
            break; /* the last line, still being written by the server: not a game yet */
        json_t *j = json_loads(l, 0, NULL);
        cr_assert_not_null(j, "a line of games.jsonl is no JSON: %s", l);
        json_t *t = json_object_get(j, "tournament");
        cr_assert_lt(n, 400);
        snprintf(keys[n], sizeof keys[n], "%s/%lld/%lld/%lld",
                 json_string_value(json_object_get(t, "stage")),
                 json_integer_value(json_object_get(t, "turn")),
                 json_integer_value(json_object_get(t, "table")),
                 json_integer_value(json_object_get(t, "game")));
        for (int k = 0; k < n; k++)
            cr_assert_str_neq(keys[k], keys[n], "game %s recorded twice", keys[n]);
        n++;
        json_decref(j);
    }
    free(l);
    fclose(f);
    return n;
}

#endif
