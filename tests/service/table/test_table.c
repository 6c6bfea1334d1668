/* test_table.c - the pure table, fed from transcripts in data files.
 *
 * Each transcript in tests/service/table/ (README.txt there explains it) holds
 * inputs (`> ...`) and, after each, exactly what the table emitted, one line
 * per event with its audience (`< p1 ...`, `< all ...`, `< watch ...`) and
 * the verdict or result of the input (`= ...`). A seat's view of the game
 * is the lines addressed to it or to all, byte for byte. Set
 * DDZ_TRANSCRIPT_UPDATE=1 to rewrite the expected lines after a deliberate
 * change (then read the diff).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/text.h"
#include "rules/error.h"
#include "rules/movegen.h"
#include "service/table/table.h"

typedef struct out {
    char **line;
    size_t n, cap;
} out;

static void add(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(out *o, const char *fmt, ...)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->line = realloc(o->line, o->cap * sizeof *o->line);
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->line[o->n++] = strdup(buf);
}

static void free_out(out *o)
{
    for (size_t i = 0; i < o->n; i++)
        free(o->line[i]);
    free(o->line);
}

static void drain(ddz_table *t, out *o, uint32_t *seq)
{
    ddz_ev ev;
    char buf[400];
    while (ddz_table_next(t, &ev)) {
        ddz_ev_format(&ev, buf, sizeof buf);
        add(o, "< %s", buf);
        if (ddz_ev_is_ask(&ev))
            *seq = ev.seq;
        if (ev.kind == DDZ_EV_OVER) {
            const ddz_record *r = ddz_table_record(t);
            char sc[6][32];
            for (int s = 0; s < 3; s++) {
                ddz_text_format_score(r->scores[s], sc[s], sizeof sc[s]);
                ddz_text_format_score(ddz_table_total(t, s), sc[3 + s], sizeof sc[3 + s]);
            }
            add(o, "= scores %s %s %s totals %s %s %s", sc[0], sc[1], sc[2], sc[3], sc[4], sc[5]);
            /* every fault beyond the first (botzone-ftl2) */
            if (r->nfaults > 1 || (r->nfaults == 1 && r->winner >= 0)) {
                char line[200];
                int n = snprintf(line, sizeof line, "= faults");
                for (int i = 0; i < r->nfaults; i++)
                    n += snprintf(line + n, sizeof line - (size_t)n, " %c:%s@%d",
                                  'A' + r->faults[i].seat, ddz_fault_name(r->faults[i].kind),
                                  r->faults[i].at);
                add(o, "%s", line);
            }
        }
    }
}

static const char *verdict(int rc)
{
    return rc == 0 ? "OK" : ddz_errname(rc);
}

/* The player to move plays its lowest legal play (passing only when it
 * must): a deterministic way to reach the end of a game. */
static int play_lowest(ddz_table *t, uint32_t seq, int64_t now)
{
    const ddz_game *g = ddz_table_state(t);
    ddz_move moves[DDZ_MOVES_MAX];
    int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[g->turn]),
                        ddz_game_leading(g) ? NULL : &g->last, moves, DDZ_MOVES_MAX);
    ddz_cards pick = 0;
    for (int i = 0; i < n && !pick; i++)
        pick = ddz_cards_pick(g->hand[g->turn], moves[i].ranks);
    return ddz_table_play(t, ddz_table_player_at(t, g->turn), seq, pick, now);
}

/* Runs one input line; appends what it caused to `o`. */
static void input(ddz_table *t, const char *line, out *o, uint32_t *seq)
{
    char cmd[16] = "", a[200] = "", b[200] = "", c[200] = "";
    long long now = 0;
    int n = sscanf(line, "%15s %199s %199s %199s", cmd, a, b, c);
    int rc = 0;
    if (strcmp(cmd, "start") == 0) {
        now = atoll(a);
        const char *names[3] = {"west", "south", "east"};
        rc = ddz_table_start(t, now, names);
    } else if (strcmp(cmd, "bid") == 0 && n == 4) {
        /* bid PLAYER BID NOW (answering the last request) */
        rc = ddz_table_bid(t, atoi(a), *seq, atoi(b), atoll(c));
    } else if (strcmp(cmd, "stale") == 0 && n == 3) {
        /* stale PLAYER NOW: a pass answering an older request */
        rc = ddz_table_play(t, atoi(a), *seq - 1, 0, atoll(b));
    } else if (strcmp(cmd, "play") == 0 && n == 4) {
        /* play PLAYER CARDS|pass NOW */
        ddz_cards cards = 0;
        if (strcmp(b, "pass") != 0)
            cr_assert_eq(ddz_text_parse_cards(b, &cards, NULL, 0), 0, "bad cards %s", b);
        rc = ddz_table_play(t, atoi(a), *seq, cards, atoll(c));
    } else if (strcmp(cmd, "lowest") == 0) {
        rc = play_lowest(t, *seq, atoll(a));
    } else if (strcmp(cmd, "run") == 0) {
        /* lowest plays until the game ends */
        while (rc == 0 && ddz_table_running(t) && ddz_table_state(t)->phase == DDZ_PHASE_PLAY) {
            rc = play_lowest(t, *seq, atoll(a));
            drain(t, o, seq);
        }
    } else if (strcmp(cmd, "fault") == 0) {
        /* fault PLAYER KIND [NOW] */
        rc = ddz_table_fault(t, atoi(a), ddz_fault_from_name(b), n == 4 ? atoll(c) : 0);
    } else if (strcmp(cmd, "time") == 0) {
        rc = ddz_table_time(t, atoll(a));
    } else if (strcmp(cmd, "autopass") == 0) {
        ddz_table_set_autopass(t, atoi(a), atoi(b));
    } else if (strcmp(cmd, "info") == 0) {
        ddz_table_info i;
        ddz_table_info_of(t, &i);
        add(o, "= info %d,%d,%d,%d,%d,%d,%d", i.turn, i.turns, i.game, i.games, i.up, i.maxscore,
            i.time_s);
        return;
    } else {
        cr_assert_fail("unknown input: %s", line);
    }
    drain(t, o, seq);
    if (strcmp(cmd, "time") == 0)
        add(o, "= %s", rc ? "timeout" : "no timeout");
    else
        add(o, "= %s", verdict(rc < 0 ? rc : 0));
}

static void parse_cfg(const char *line, ddz_table_cfg *cfg)
{
    *cfg = (ddz_table_cfg){.deals = 1, .time_ms = 15000};
    char key[32], val[80];
    const char *p = line + 3;
    int used;
    while (sscanf(p, " %31[^=]=%79s%n", key, val, &used) == 2) {
        p += used;
        if (strcmp(key, "deals") == 0)
            cfg->deals = atoi(val);
        else if (strcmp(key, "rotate") == 0)
            cfg->rotate = atoi(val);
        else if (strcmp(key, "time") == 0)
            cfg->time_ms = atoi(val);
        else if (strcmp(key, "played") == 0)
            cfg->played = atoi(val);
        else if (strcmp(key, "first_deal") == 0)
            cfg->first_deal = (uint32_t)atoi(val);
        else if (strcmp(key, "maxscore") == 0)
            cfg->maxscore = atoi(val);
        else if (strcmp(key, "redeal") == 0)
            cfg->redeal = atoi(val);
        else if (strcmp(key, "autopass") == 0)
            for (int i = 0; i < 3 && val[i]; i++)
                cfg->autopass[i] = val[i] == '1';
        else if (strcmp(key, "master") == 0)
            cr_assert_eq(ddz_text_parse_seed(val, cfg->master), 0);
        else if (strcmp(key, "rules") == 0)
            cr_assert_not_null(cfg->rules = ddz_rules_find(val), "unknown rules %s", val);
        else
            cr_assert_fail("unknown cfg key %s", key);
    }
}

/* Plays the transcript at `path`; returns the number of mismatches. */
static int run_transcript(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    out file = {0}, got = {0};
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        add(&file, "%s", line);
    }
    fclose(f);

    ddz_table t;
    uint32_t seq = 0;
    bool ready = false;
    out expect = {0};
    for (size_t i = 0; i < file.n; i++) {
        const char *l = file.line[i];
        if (l[0] == '<' || l[0] == '=') {
            add(&expect, "%s", l);
            continue;
        }
        add(&got, "%s", l); /* inputs and comments, for the update */
        if (strncmp(l, "cfg", 3) == 0) {
            ddz_table_cfg cfg;
            parse_cfg(l, &cfg);
            cr_assert_eq(ddz_table_init(&t, &cfg), 0, "%s: bad cfg", path);
            ready = true;
        } else if (l[0] == '>') {
            cr_assert(ready, "%s: input before cfg", path);
            input(&t, l + 2, &got, &seq);
        }
    }
    /* compare the output lines only, in order */
    int bad = 0;
    size_t j = 0;
    for (size_t i = 0; i < got.n; i++) {
        const char *l = got.line[i];
        if (l[0] != '<' && l[0] != '=')
            continue;
        if (j >= expect.n || strcmp(l, expect.line[j]) != 0) {
            if (!bad)
                cr_log_error("%s: output line %zu:\n  expected: %s\n  got:      %s", path, j + 1,
                             j < expect.n ? expect.line[j] : "(nothing)", l);
            bad++;
        }
        j++;
    }
    if (j != expect.n) {
        if (!bad)
            cr_log_error("%s: expected %zu output lines, got %zu", path, expect.n, j);
        bad++;
    }
    if (bad && getenv("DDZ_TRANSCRIPT_UPDATE")) {
        FILE *w = fopen(path, "w");
        for (size_t i = 0; i < got.n; i++)
            fprintf(w, "%s\n", got.line[i]);
        fclose(w);
        bad = 0;
    }
    free_out(&file);
    free_out(&got);
    free_out(&expect);
    return bad;
}

Test(table, transcripts)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/service/table", DDZ_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert(d);
    int files = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0 || strcmp(e->d_name, "README.txt") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        bad += run_transcript(path) > 0;
        files++;
    }
    closedir(d);
    cr_assert_geq(files, 6, "transcripts missing");
    cr_assert_eq(bad, 0, "%d transcript(s) differ", bad);
}

/* Over many random games under each rule set with random faults and
 * timeouts: every event reaches only those who may know it, a seat that
 * faulted is never asked again in that game, and the series adds up. */
Test(table, events_reach_only_who_may_know)
{
    static const ddz_rules *const sets[] = {&ddz_rules_caai, &ddz_rules_botzone_ftl,
                                            &ddz_rules_botzone_ftl2};
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int standins = 0;
    for (int series = 0; series < 300; series++) {
        ddz_table_cfg cfg = {
            .deals = 2, .rotate = series % 2, .time_ms = 1000, .rules = sets[series % 3]};
        bool play_on = cfg.rules->fault_policy == DDZ_FAULTPOLICY_PLAY_ON;
        for (int i = 0; i < DDZ_SEED_BYTES; i++)
            cfg.master[i] = (uint8_t)(series * 31 + i);
        for (int p = 0; p < 3; p++)
            cfg.autopass[p] = (series >> p) & 1;
        ddz_table t;
        cr_assert_eq(ddz_table_init(&t, &cfg), 0);
        int64_t now = 0;
        double sum[3] = {0};
        while (!ddz_table_done(&t)) {
            cr_assert_eq(ddz_table_start(&t, now, NULL), 0);
            const ddz_deal deal = ddz_table_record(&t)->deal;
            ddz_ev ev;
            uint32_t seq = 0;
            bool over = false;
            while (!over) {
                while (ddz_table_next(&t, &ev)) {
                    if (ev.to >= 0) {
                        /* only a player's own start reaches it alone */
                        cr_assert_eq(ev.kind, DDZ_EV_GAME);
                        cr_assert_eq(ev.seat, ddz_table_seat_of(&t, ev.to));
                        cr_assert_eq(ev.cards, deal.hand[ev.seat]);
                    } else if (ev.to == DDZ_TO_WATCHERS) {
                        cr_assert_eq(ev.kind, DDZ_EV_GAME);
                        cr_assert_eq(ev.cards, 0, "spectators see no hand");
                    } else {
                        cr_assert_neq(ev.kind, DDZ_EV_GAME);
                    }
                    if (ddz_ev_is_ask(&ev)) {
                        seq = ev.seq;
                        cr_assert_eq(ev.deadline_ms, now + cfg.time_ms);
                        cr_assert(!ddz_game_faulted(ddz_table_state(&t), ev.seat),
                                  "a seat that faulted is asked");
                    }
                    if (ev.kind == DDZ_EV_FAULT)
                        cr_assert(play_on, "a fault announced under %s", cfg.rules->name);
                    if (ev.kind == DDZ_EV_PLAY && play_on &&
                        ddz_game_faulted(ddz_table_state(&t), ev.seat))
                        standins++;
                    if (ev.kind == DDZ_EV_OVER) {
                        over = true;
                        for (int s = 0; s < 3; s++) {
                            double *x = &sum[ddz_table_player_at(&t, s)];
                            *x = ddz_score_add(*x, ddz_table_record(&t)->scores[s]);
                        }
                    }
                }
                if (over)
                    break;
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                const ddz_game *g = ddz_table_state(&t);
                int player = ddz_table_player_at(&t, g->turn);
                now += 10;
                if (rng % 97 == 0) {
                    now += cfg.time_ms;
                    cr_assert_eq(ddz_table_time(&t, now), 1);
                } else if (rng % 89 == 0) {
                    int f = ddz_table_fault(&t, (int)((rng >> 8) % 3), DDZ_FAULT_CRASH, now);
                    cr_assert(f == 0 || (f == DDZ_EPHASE && play_on), "fault: %d", f);
                } else if (g->phase == DDZ_PHASE_BID) {
                    int bids[DDZ_NBIDS_MAX];
                    int n = ddz_rules_legal_bids(g->rules, g->bids, bids);
                    cr_assert_eq(ddz_table_bid(&t, player, seq, bids[(rng >> 8) % n], now), 0);
                } else {
                    cr_assert_eq(play_lowest(&t, seq, now), 0);
                }
            }
        }
        for (int p = 0; p < 3; p++)
            cr_assert_eq(ddz_table_total(&t, p), sum[p], "totals are the sum of the records");
    }
    cr_log_info("%d plays made by the table for faulty seats", standins);
    cr_assert_gt(standins, 100);
}

/* Redeals stop at DDZ_TABLE_GAMES_MAX games: a table where everyone always
 * passes still ends its series, and no game number leaves the protocol's
 * range; without `redeal` the first all-pass game counts. */
Test(table, redeals_are_bounded)
{
    for (int redeal = 0; redeal < 2; redeal++) {
        ddz_table t;
        ddz_table_cfg cfg = {.deals = 3, .time_ms = 1000, .redeal = redeal};
        cr_assert_eq(ddz_table_init(&t, &cfg), 0);
        int started = 0, redealt = 0;
        ddz_ev ev;
        uint32_t seq = 0;
        while (ddz_table_start(&t, 0, NULL) == 0) {
            started++;
            for (int b = 0; b < 3; b++) {
                while (ddz_table_next(&t, &ev))
                    if (ddz_ev_is_ask(&ev))
                        seq = ev.seq;
                const ddz_game *g = ddz_table_state(&t);
                cr_assert_eq(ddz_table_bid(&t, ddz_table_player_at(&t, g->turn), seq, 0, 0), 0);
            }
            while (ddz_table_next(&t, &ev))
                cr_assert_lt(ev.game, DDZ_TABLE_GAMES_MAX);
            redealt += t.redealt;
        }
        cr_assert(ddz_table_done(&t));
        if (redeal) {
            cr_assert_eq(started, DDZ_TABLE_GAMES_MAX, "%d games", started);
            cr_assert_eq(redealt, DDZ_TABLE_GAMES_MAX - 3);
        } else {
            cr_assert_eq(started, 3, "%d games", started);
            cr_assert_eq(redealt, 0);
        }
    }
}
