/* test_journal.c - the store's on-disk journal (service/store/journal.h)
 * by itself: no file until the first append, order kept across appends,
 * peek and remove, games found by id, the bound in entries and in bytes
 * dropping the oldest (counted), and a reopened file holding what was
 * pending (a node restarted during an outage). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/store/journal.h"

static char dir[64], path[96];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ddz_journal_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/j.db", dir);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(journal, .init = setup, .fini = teardown);

typedef struct seen {
    int n;
    int64_t seq[64];
    int64_t game[64];
    char body[64][32];
} seen;

static int keep(void *ctx, const ddz_journal_entry *e)
{
    seen *s = ctx;
    s->seq[s->n] = e->seq;
    s->game[s->n] = e->game;
    snprintf(s->body[s->n], sizeof s->body[s->n], "%s", e->body);
    s->n++;
    return 0;
}

static void append_one(ddz_journal *j, int64_t game, const char *body)
{
    ddz_journal_entry e = {.game = game, .body = body};
    cr_assert_eq(ddz_journal_append(j, &e, 1), 0);
}

static ddz_journal_counters counts(ddz_journal *j)
{
    ddz_journal_counters c;
    ddz_journal_stats(j, &c);
    return c;
}

Test(journal, no_file_until_needed_then_in_order)
{
    char err[200] = "";
    ddz_journal *j = ddz_journal_open(path, 0, 0, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    struct stat st;
    cr_assert_neq(stat(path, &st), 0, "a journal with nothing in it made its file");
    seen s = {0};
    cr_assert_eq(ddz_journal_peek(j, 10, keep, &s), 0);
    char *body = NULL;
    cr_assert_eq(ddz_journal_find_game(j, 7, &body), DDZ_ENOTFOUND);

    ddz_journal_entry two[2] = {{.game = 7, .body = "seven"}, {.game = 0, .body = "mine7"}};
    cr_assert_eq(ddz_journal_append(j, two, 2), 0);
    append_one(j, 8, "eight");
    cr_assert_eq(stat(path, &st), 0);
    ddz_journal_counters c = counts(j);
    cr_assert_eq(c.pending, 3);
    cr_assert_eq(c.bytes, strlen("seven") + strlen("mine7") + strlen("eight"));
    cr_assert_eq(c.appended, 3);

    cr_assert_eq(ddz_journal_peek(j, 2, keep, &s), 2, "peek gives at most max");
    cr_assert_str_eq(s.body[0], "seven");
    cr_assert_str_eq(s.body[1], "mine7");
    cr_assert_eq(s.game[0], 7);
    cr_assert_eq(s.game[1], 0);
    cr_assert_lt(s.seq[0], s.seq[1]);

    cr_assert_eq(ddz_journal_find_game(j, 8, &body), 0);
    cr_assert_str_eq(body, "eight");
    free(body);

    /* replayed: removed through the second; the third stays first */
    cr_assert_eq(ddz_journal_remove(j, s.seq[1]), 0);
    c = counts(j);
    cr_assert_eq(c.pending, 1);
    cr_assert_eq(c.removed, 2);
    cr_assert_eq(ddz_journal_find_game(j, 7, &body), DDZ_ENOTFOUND, "a replayed game is gone");
    seen t = {0};
    cr_assert_eq(ddz_journal_peek(j, 10, keep, &t), 1);
    cr_assert_str_eq(t.body[0], "eight");
    /* removing again (a replay whose remove is repeated) changes nothing */
    cr_assert_eq(ddz_journal_remove(j, s.seq[1]), 0);
    cr_assert_eq(counts(j).pending, 1);
    ddz_journal_close(j);
}

Test(journal, bound_in_entries_drops_the_oldest_and_counts_them)
{
    char err[200] = "";
    ddz_journal *j = ddz_journal_open(path, 5, 0, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    for (int i = 1; i <= 8; i++) {
        char b[16];
        snprintf(b, sizeof b, "g%d", i);
        append_one(j, i, b);
    }
    ddz_journal_counters c = counts(j);
    cr_assert_eq(c.pending, 5);
    cr_assert_eq(c.dropped, 3);
    cr_assert_eq(c.appended, 8);
    seen s = {0};
    cr_assert_eq(ddz_journal_peek(j, 64, keep, &s), 5);
    for (int i = 0; i < 5; i++) {
        char b[16];
        snprintf(b, sizeof b, "g%d", i + 4);
        cr_assert_str_eq(s.body[i], b, "the newest are kept, in order");
    }
    /* one append larger than the bound: the oldest of it go too */
    ddz_journal_entry many[7];
    char bodies[7][16];
    for (int i = 0; i < 7; i++) {
        snprintf(bodies[i], sizeof bodies[i], "h%d", i);
        many[i] = (ddz_journal_entry){.game = 100 + i, .body = bodies[i]};
    }
    cr_assert_eq(ddz_journal_append(j, many, 7), 0);
    c = counts(j);
    cr_assert_eq(c.pending, 5);
    cr_assert_eq(c.dropped, 10);
    seen t = {0};
    cr_assert_eq(ddz_journal_peek(j, 64, keep, &t), 5);
    cr_assert_str_eq(t.body[0], "h2");
    cr_assert_str_eq(t.body[4], "h6");
    ddz_journal_close(j);
}

Test(journal, bound_in_bytes)
{
    char err[200] = "";
    ddz_journal *j = ddz_journal_open(path, 0, 10, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    append_one(j, 1, "aaaa");
    append_one(j, 2, "bbbb");
    append_one(j, 3, "cccc"); /* 12 bytes: the first goes */
    ddz_journal_counters c = counts(j);
    cr_assert_eq(c.pending, 2);
    cr_assert_eq(c.bytes, 8);
    cr_assert_eq(c.dropped, 1);
    char *body = NULL;
    cr_assert_eq(ddz_journal_find_game(j, 1, &body), DDZ_ENOTFOUND);
    ddz_journal_entry big = {.game = 4, .body = "far too long for it"};
    cr_assert_eq(ddz_journal_append(j, &big, 1), DDZ_EINVAL, "an entry over the bound alone");
    cr_assert_eq(counts(j).pending, 2, "nothing dropped for it");
    ddz_journal_close(j);
}

Test(journal, reopened_it_holds_what_was_pending)
{
    char err[200] = "";
    ddz_journal *j = ddz_journal_open(path, 0, 0, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    for (int i = 1; i <= 4; i++)
        append_one(j, i, i % 2 ? "odd" : "even");
    seen s = {0};
    cr_assert_eq(ddz_journal_peek(j, 1, keep, &s), 1);
    cr_assert_eq(ddz_journal_remove(j, s.seq[0]), 0);
    ddz_journal_close(j);

    j = ddz_journal_open(path, 0, 0, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    ddz_journal_counters c = counts(j);
    cr_assert_eq(c.pending, 3, "a restart finds what was pending");
    cr_assert_eq(c.bytes, strlen("even") + strlen("odd") + strlen("even"));
    cr_assert_eq(c.appended, 0);
    append_one(j, 5, "five");
    seen t = {0};
    cr_assert_eq(ddz_journal_peek(j, 64, keep, &t), 4);
    cr_assert_eq(t.game[0], 2, "the oldest first, then the new");
    cr_assert_eq(t.game[3], 5);
    for (int i = 1; i < 4; i++)
        cr_assert_lt(t.seq[i - 1], t.seq[i]);
    ddz_journal_close(j);

    /* not a database: refused with the file named */
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("this is no SQLite file, and it is long enough to show it...........", f);
    fclose(f);
    char wal[128];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    j = ddz_journal_open(path, 0, 0, err, sizeof err);
    cr_assert_null(j);
    cr_assert(strstr(err, path) != NULL, "%s", err);
}
