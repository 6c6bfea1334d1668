/* cli_bench_analyze.c - `ddz bench analyze` (see cli_bench_analyze.h).
 *
 * Part one, reach and speed: N deals under each rule set, every seat
 * ai:greedy; three positions of each game (the first play, the first with
 * at most 30 cards left in all three hands, the first with at most 20)
 * decided by the solver within the budget, each from an empty table, so
 * that a figure says what solving the game from that point costs. Times
 * and the budget's clock are CPU time: the figures hold beside other work.
 *
 * Part two, who gives wins away: the same deals played with the tested AI
 * (ai:random, ai:greedy, ai:strong) in one seat and two ai:greedy in the
 * others, analysed by ai/analysis.h at a node budget (no clock: the same
 * verdicts on every machine); per role of the tested AI (landlord, the
 * farmer after the landlord, the farmer before it), its own plays, those
 * made from a won position, and those that gave the win away.
 */
#include "service/cli/cli_bench_analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ai/ai.h"
#include "ai/analysis.h"
#include "ai/rng.h"
#include "rules/deal.h"
#include "rules/error.h"
#include "rules/record.h"
#include "service/cli/cli_analyze.h"
#include "service/cli/cli_args.h"

static const char usage[] =
    "usage: ddz bench analyze [--deals N] [--budget-ms N] [--nodes N] [--seed S]\n"
    "                         [--blunder-nodes N] [--rotations 1|3] [--rollouts N]\n"
    "                         [--rules NAME] [--ais LIST] [--scores] [--no-reach]\n"
    "\n"
    "What the solver decides within a budget, and who gives wins away.\n"
    "Part one: N deals (default 1000) under each rule set, played by three\n"
    "ai:greedy; in each game three positions are solved, each from an empty\n"
    "table: the first play, the first position with at most 30 cards left in\n"
    "all, the first with at most 20. Reports per kind the share solved within\n"
    "the budget, the median, 99th percentile and maximum CPU time a position,\n"
    "and the nodes per CPU second. With --scores, the same for the search of\n"
    "the best score each side can force (`ddz analyze --scores`), each\n"
    "position from an empty table again.\n"
    "Part two: the same deals with ai:random, ai:greedy and ai:strong in turn\n"
    "in one seat against two ai:greedy (ai:strong at --rollouts units a\n"
    "decision, default 100, no clock); every play analysed as `ddz analyze`\n"
    "does, at --blunder-nodes a position and no clock, so that the games and\n"
    "the verdicts are the same on every machine. Per role of the tested AI:\n"
    "its plays, those from a position its side had won, those that gave the\n"
    "win away, and those with a verdict unknown. Last, the peak resident memory.\n"
    "\n"
    "  --budget-ms N     part one's budget a position in ms of CPU time (default\n"
    "                    1000; 0: none)\n"
    "  --nodes N         part one's node cap a position (default 0: none)\n"
    "  --blunder-nodes N part two's node budget a position (default 50000)\n"
    "  --rotations 1|3   part two: the tested AI in seat k mod 3 of deal k (1,\n"
    "                    the default), or in each seat (3: three games a deal)\n"
    "  --seed S          deals from the master seed whose first 8 bytes are S\n"
    "                    (little-endian, default 1)\n"
    "  --rules NAME      one rule set (default: each of them)\n"
    "  --ais LIST        part two's AIs, comma-separated (default\n"
    "                    random,greedy,strong; none: no part two)\n"
    "  --scores          part one: the best scores' search too\n"
    "  --no-reach        no part one\n";

/* The budget's clock and the times reported: this process's CPU time, so
 * that what is decided within "1 s" does not depend on what else the
 * machine runs (the process has one thread). */
static int64_t cpu_ns(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

enum { TESTED_MAX = 8 };

typedef struct config {
    int deals, ms, nodes, rollouts;
    int blunder_nodes; /* part two's node budget a position (no clock: the same on every machine) */
    int rotations;     /* part two: games a deal for each tested AI (1: in seat k mod 3;
                          3: each seat) */
    bool scores;       /* part one: the best scores of each position too */
    bool no_reach;     /* no part one */
    const char *ais[TESTED_MAX + 1]; /* the AIs of part two, NULL-terminated */
    char ais_buf[256];
    uint64_t seed;
    uint8_t master[DDZ_SEED_BYTES];
} config;

/* Plays deal `k` under `rs` with ais[seat] deciding, into record `r`.
 * Returns 0, or the error of an illegal decision (a bug). */
static int play(const config *c, const ddz_rules *rs, int k, ddz_ai *ais[3], ddz_ai_workspace *ws,
                ddz_record *r)
{
    uint8_t seed[DDZ_SEED_BYTES];
    memset(r, 0, sizeof *r);
    ddz_deal_game_seed(c->master, (uint32_t)k, seed);
    if (ddz_deal_from_seed(seed, &r->deal) < 0)
        return DDZ_ESEED;
    snprintf(r->rules, sizeof r->rules, "%s", rs->name);
    r->game = k;
    r->early_penalty = ddz_rules_early_penalty(rs, 0, 0);
    ddz_game g;
    ddz_game_start(&g, rs, &r->deal, r->early_penalty);
    while (g.phase != DDZ_PHASE_OVER) {
        int s = g.turn, rc;
        ddz_view v;
        ddz_view_of(&g, s, &v);
        if (g.phase == DDZ_PHASE_BID) {
            int bid = ddz_ai_bid(ais[s], &v, ws);
            if ((rc = ddz_game_bid(&g, s, bid)) < 0)
                return rc;
            r->bids[r->nbids++] = (int8_t)bid;
        } else {
            bool forced = ddz_game_must_pass(&g);
            ddz_cards cards = forced ? 0 : ddz_ai_play(ais[s], &v, ws);
            if ((rc = ddz_game_play(&g, s, cards)) < 0)
                return rc;
            r->plays[r->nplays++] =
                (ddz_record_play){.seat = (uint8_t)s, .autopass = forced, .cards = cards};
        }
    }
    ddz_record_finish(r, &g);
    for (int s = 0; s < 3; s++)
        snprintf(r->names[s], sizeof r->names[s], "ai:%s", ddz_ai_name(ais[s]));
    return 0;
}

/* Part one's figures: three positions of each game, named by where they
 * stand (the first play; the first with at most 30 cards left in all; the
 * first with at most 20). */
enum { CLASSES = 3 };
static const int class_cards[CLASSES] = {54, 30, 20};
static const char *const class_names[CLASSES] = {"first play", "<=30 cards", "<=20 cards"};

typedef struct reach {
    long positions, solved;
    long nodes;
    double seconds;
    double *times; /* CPU seconds per position, all of them */
    long ntimes, cap;
} reach;

static int add_time(reach *x, double t)
{
    if (x->ntimes == x->cap) {
        long cap = x->cap ? 2 * x->cap : 4096;
        double *p = realloc(x->times, (size_t)cap * sizeof *p);
        if (!p)
            return DDZ_ENOMEM;
        x->times = p;
        x->cap = cap;
    }
    x->times[x->ntimes++] = t;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Searches position `p` from an empty table within part one's budget: who
 * wins, or (score) the best score each side can force. Adds it to `x`. */
static int measure_one(const config *c, const ddz_rules *rs, const ddz_solver_pos *p,
                       ddz_solver *sv, bool score, reach *x)
{
    ddz_solver_forget(sv);
    ddz_solver_budget b = {.nodes = c->nodes};
    int64_t t0 = cpu_ns(NULL);
    if (c->ms) {
        b.clock = cpu_ns;
        b.deadline = t0 + (int64_t)c->ms * 1000000;
    }
    ddz_solver_score sc;
    int v = score ? ddz_solver_forced_score(sv, rs, p, &b, &sc) : ddz_solver_solve(sv, rs, p, &b);
    double t = (double)(cpu_ns(NULL) - t0) * 1e-9;
    x->nodes += ddz_solver_last(sv)->nodes;
    x->seconds += t;
    if (add_time(x, t) < 0)
        return DDZ_ENOMEM;
    x->positions++;
    x->solved += v >= 0;
    return 0;
}

/* Solves the three positions of the game of `r` (those a class names), each
 * from an empty table: the time is what deciding the game from there
 * takes, nothing of an earlier search helping. With c->scores, the best
 * scores of each too, into xs[]. */
static int measure(const config *c, const ddz_rules *rs, const ddz_record *r, ddz_solver *sv,
                   reach x[CLASSES], reach xs[CLASSES])
{
    ddz_game g;
    ddz_game_start(&g, rs, &r->deal, r->early_penalty);
    for (int i = 0; i < r->nbids; i++)
        ddz_game_bid(&g, i, r->bids[i]);
    int k = 0; /* the next class to find */
    for (int i = 0; i < r->nplays && g.phase == DDZ_PHASE_PLAY && k < CLASSES; i++) {
        int cards = ddz_cards_count(g.hand[0] | g.hand[1] | g.hand[2]);
        for (; k < CLASSES && cards <= class_cards[k]; k++) {
            ddz_solver_pos p;
            ddz_solver_pos_of_game(&g, &p);
            int rc = measure_one(c, rs, &p, sv, false, &x[k]);
            if (rc == 0 && c->scores)
                rc = measure_one(c, rs, &p, sv, true, &xs[k]);
            if (rc < 0)
                return rc;
        }
        ddz_game_play(&g, r->plays[i].seat, r->plays[i].cards);
    }
    return 0;
}

/* Part two's figures, per role of the tested AI. */
enum { ROLES = 3 };
static const char *const role_names[ROLES] = {"landlord", "farmer after", "farmer before"};

typedef struct blunders {
    long plays[ROLES], won[ROLES], gave[ROLES], unknown[ROLES];
} blunders;

static double pct(long a, long b)
{
    return b ? 100.0 * (double)a / (double)b : 0;
}

/* Plays deal `k` with `tested` in seat k mod 3 (or, with three rotations,
 * in each seat once), and analyses its plays. */
static int blunder_deal(const config *c, const ddz_rules *rs, int k, ddz_ai *tested,
                        ddz_ai_workspace *ws, ddz_solver *sv, blunders *bl)
{
    static ddz_record r;
    static ddz_analysis_ply ply;
    ddz_analysis_budget b = {.nodes = c->blunder_nodes};
    for (int i = 0; i < c->rotations; i++) {
        int rot = c->rotations == 3 ? i : k % 3;
        ddz_ai *ais[3];
        int err = 0;
        for (int s = 0; s < 3; s++) {
            uint64_t x = c->seed ^ ((uint64_t)k << 8 | (uint64_t)(rot * 3 + s));
            ais[s] = s == rot ? tested : ddz_ai_create("greedy", ddz__splitmix64(&x), 0, &err);
            if (!ais[s]) {
                for (int t = 0; t < s; t++)
                    if (t != rot)
                        ddz_ai_destroy(ais[t]);
                return err;
            }
        }
        int rc = play(c, rs, k, ais, ws, &r);
        for (int s = 0; s < 3; s++)
            if (s != rot)
                ddz_ai_destroy(ais[s]);
        if (rc < 0)
            return rc;
        ddz_analysis a;
        if (ddz_analysis_begin(&a, &r, rs, sv) < 0)
            return DDZ_EVERIFY;
        while (ddz_analysis_next(&a, sv, &b, &ply) == 1) {
            if (ply.seat != rot || ply.autopass)
                continue;
            int role = (rot - r.landlord + 3) % 3; /* 0 landlord, 1 after it, 2 before it */
            int mine = rot == r.landlord ? DDZ_VERDICT_LANDLORD : DDZ_VERDICT_FARMERS;
            bl->plays[role]++;
            bl->won[role] += ply.before == mine;
            bl->gave[role] += ply.gave;
            bl->unknown[role] +=
                ply.before == DDZ_VERDICT_UNKNOWN || ply.after == DDZ_VERDICT_UNKNOWN;
        }
    }
    return 0;
}

/* Prints part one's rows of one search under `rs`, one a class, and frees
 * their times. */
static void print_reach(const ddz_rules *rs, const char *search, reach x[CLASSES])
{
    for (int k = 0; k < CLASSES; k++) {
        reach *y = &x[k];
        qsort(y->times, (size_t)y->ntimes, sizeof *y->times, by_value);
        double med = y->ntimes ? y->times[y->ntimes / 2] : 0;
        /* nearest rank: the smallest time at or above 99% of them */
        double p99 = y->ntimes ? y->times[(long)ceil(0.99 * (double)y->ntimes) - 1] : 0;
        double max = y->ntimes ? y->times[y->ntimes - 1] : 0;
        printf("%-13s %-6s %-10s %9ld %9ld %6.1f%% %8.1f %8.0f %8.0f %7.2f\n", rs->name, search,
               class_names[k], y->positions, y->solved, pct(y->solved, y->positions), 1e3 * med,
               1e3 * p99, 1e3 * max, y->seconds > 0 ? (double)y->nodes / y->seconds * 1e-6 : 0);
        free(y->times);
    }
}

/* Part one under `rs`: prints its rows, one a class (and search). */
static int run_reach(const config *c, const ddz_rules *rs, ddz_solver *sv, ddz_ai_workspace *ws)
{
    static ddz_record r;
    reach x[CLASSES] = {0}, xs[CLASSES] = {0};
    int rc = 0;
    for (int k = 0; k < c->deals && rc == 0; k++) {
        ddz_ai *ais[3];
        int err = 0, made = 0;
        for (; made < 3; made++) {
            uint64_t s = c->seed ^ ((uint64_t)k << 8 | (uint64_t)(9 + made));
            if (!(ais[made] = ddz_ai_create("greedy", ddz__splitmix64(&s), 0, &err)))
                break;
        }
        rc = made < 3 ? err : play(c, rs, k, ais, ws, &r);
        for (int s = 0; s < made; s++)
            ddz_ai_destroy(ais[s]);
        if (rc == 0)
            rc = measure(c, rs, &r, sv, x, xs);
    }
    if (rc < 0) {
        for (int k = 0; k < CLASSES; k++)
            free(x[k].times), free(xs[k].times);
        return rc;
    }
    print_reach(rs, "win", x);
    if (c->scores)
        print_reach(rs, "score", xs);
    fflush(stdout);
    return 0;
}

/* Part two under `rs` for the AI called `name`: prints its rows. */
static int run_blunders(const config *c, const ddz_rules *rs, const char *name, ddz_solver *sv,
                        ddz_ai_workspace *ws)
{
    int err = 0, rc = 0;
    ddz_ai *tested = ddz_ai_create(name, c->seed, 0, &err);
    if (!tested)
        return err;
    ddz_ai_set_budget(tested, 0, c->rollouts);
    blunders bl = {0};
    for (int k = 0; k < c->deals && rc == 0; k++)
        rc = blunder_deal(c, rs, k, tested, ws, sv, &bl);
    ddz_ai_destroy(tested);
    if (rc < 0)
        return rc;
    for (int role = 0; role < ROLES; role++)
        printf("%-13s ai:%-7s %-13s %6ld %6ld %5ld %8.1f%% %7.1f%%\n", rs->name, name,
               role_names[role], bl.plays[role], bl.won[role], bl.gave[role],
               pct(bl.gave[role], bl.won[role]), pct(bl.unknown[role], bl.plays[role]));
    fflush(stdout);
    return 0;
}

/* Reads the list of part two's AIs ("none": no part two). Returns 0 or -1. */
static int parse_ais(const char *list, config *c)
{
    memset(c->ais, 0, sizeof c->ais);
    if (strcmp(list, "none") == 0)
        return 0;
    if (strlen(list) >= sizeof c->ais_buf)
        return -1;
    strcpy(c->ais_buf, list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(c->ais_buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (n == TESTED_MAX || !ddz_ai_exists(t))
            return -1;
        c->ais[n++] = t;
    }
    return n > 0 ? 0 : -1;
}

int ddz_cli_bench_analyze(int argc, char **argv)
{
    config c = {.deals = 1000,
                .ms = 1000,
                .nodes = 0,
                .blunder_nodes = 50000,
                .rotations = 1,
                .rollouts = 100,
                .seed = 1};
    parse_ais("random,greedy,strong", &c);
    const ddz_rules *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool val = i + 1 < argc;
        if (strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--deals") == 0 && val) {
            if (ddz_cli_int(argv[++i], 1, 1000000, &c.deals) < 0)
                return ddz_cli_usage("bench analyze", "--deals must be 1..1000000");
        } else if (strcmp(a, "--budget-ms") == 0 && val) {
            if (ddz_cli_int(argv[++i], 0, 3600000, &c.ms) < 0)
                return ddz_cli_usage("bench analyze", "--budget-ms must be 0..3600000");
        } else if (strcmp(a, "--nodes") == 0 && val) {
            if (ddz_cli_int(argv[++i], 0, 2000000000, &c.nodes) < 0)
                return ddz_cli_usage("bench analyze", "--nodes must be 0..2000000000");
        } else if (strcmp(a, "--blunder-nodes") == 0 && val) {
            if (ddz_cli_int(argv[++i], 1, 2000000000, &c.blunder_nodes) < 0)
                return ddz_cli_usage("bench analyze", "--blunder-nodes must be 1..2000000000");
        } else if (strcmp(a, "--scores") == 0) {
            c.scores = true;
        } else if (strcmp(a, "--no-reach") == 0) {
            c.no_reach = true;
        } else if (strcmp(a, "--rotations") == 0 && val) {
            if (ddz_cli_int(argv[++i], 1, 3, &c.rotations) < 0 || c.rotations == 2)
                return ddz_cli_usage("bench analyze", "--rotations must be 1 or 3");
        } else if (strcmp(a, "--rollouts") == 0 && val) {
            if (ddz_cli_int(argv[++i], 1, 1000000000, &c.rollouts) < 0)
                return ddz_cli_usage("bench analyze", "--rollouts must be a whole number from 1");
        } else if (strcmp(a, "--seed") == 0 && val) {
            if (ddz_cli_u64(argv[++i], &c.seed) < 0)
                return ddz_cli_usage("bench analyze", "--seed must be a whole number");
        } else if (strcmp(a, "--ais") == 0 && val) {
            if (parse_ais(argv[++i], &c) < 0)
                return ddz_cli_usage("bench analyze",
                                     "--ais: a comma-separated list of AI names, or none");
        } else if (strcmp(a, "--rules") == 0 && val) {
            if (!(only = ddz_rules_find(argv[++i])))
                return ddz_cli_usage("bench analyze", "--rules: unknown rule set");
        } else {
            return ddz_cli_usage("bench analyze", "unknown option");
        }
    }
    if (c.ms == 0 && c.nodes == 0)
        return ddz_cli_usage("bench analyze", "--budget-ms 0 and --nodes 0: give one of them");
    for (int i = 0; i < 8; i++)
        c.master[i] = (uint8_t)(c.seed >> (8 * i));
    ddz_solver *sv = ddz_solver_create(DDZ_ANALYZE_TT_BITS);
    ddz_ai_workspace *ws = ddz_ai_workspace_create();
    if (!sv || !ws) {
        fprintf(stderr, "ddz bench analyze: out of memory\n");
        ddz_solver_destroy(sv);
        ddz_ai_workspace_destroy(ws);
        return 1;
    }
    printf("part one: %d ms of CPU, %d nodes a position (0: none); part two: %d nodes a "
           "position, %d game(s) a deal, ai:strong at %d units a decision; seed %llu\n",
           c.ms, c.nodes, c.blunder_nodes, c.rotations, c.rollouts, (unsigned long long)c.seed);
    int rc = 0;
    if (!c.no_reach) {
        printf("\nthree ai:greedy, %d deals: positions solved within the budget, each from an "
               "empty table; CPU ms a position\n",
               c.deals);
        printf("%-13s %-6s %-10s %9s %9s %7s %8s %8s %8s %7s\n", "rules", "search", "from",
               "positions", "solved", "share", "median", "p99", "max", "Mnode/s");
    }
    for (int i = 0; rc == 0 && !c.no_reach && ddz_rules_at(i); i++)
        if (!only || only == ddz_rules_at(i))
            rc = run_reach(&c, ddz_rules_at(i), sv, ws);
    if (c.ais[0] && rc == 0) {
        printf("\nthe tested AI in one seat against two ai:greedy: its own plays by role, those "
               "from a won position, those that gave it away\n");
        printf("%-13s %-10s %-13s %6s %6s %5s %9s %8s\n", "rules", "tested", "role", "plays", "won",
               "gave", "gave/won", "unknown");
    }
    for (int i = 0; rc == 0 && ddz_rules_at(i); i++) {
        if (only && only != ddz_rules_at(i))
            continue;
        for (int t = 0; rc == 0 && c.ais[t]; t++)
            rc = run_blunders(&c, ddz_rules_at(i), c.ais[t], sv, ws);
    }
    ddz_solver_destroy(sv);
    ddz_ai_workspace_destroy(ws);
    if (rc < 0) {
        fprintf(stderr, "ddz bench analyze: %s\n", ddz_strerror(rc));
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024);
    return 0;
}
