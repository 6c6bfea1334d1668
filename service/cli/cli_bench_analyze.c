/* cli_bench_analyze.c - `ddz bench analyze` (see cli_bench_analyze.h).
 *
 * Part one, reach and speed: N deals under each rule set, every seat
 * ai:greedy; every position before a play is decided by the solver within
 * the budget, the table kept from one position of a game to the next and
 * forgotten between games, as `ddz analyze` does. Counted by the cards left
 * in all three hands: all positions (from the first play), those with at
 * most 30 cards left, those with at most 20.
 *
 * Part two, who gives wins away: the same deals, each played three times
 * with the tested AI (ai:random, ai:greedy, ai:strong) in one seat and two
 * ai:greedy in the others (duplicate, as `ddz bench ai`), analysed by
 * ai/analysis.h; per role of the tested AI (landlord, the farmer after the
 * landlord, the farmer before it), its own plays, those made from a won
 * position, and those that gave the win away.
 */
#include "service/cli/cli_bench_analyze.h"

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
    "                         [--rollouts N] [--rules NAME] [--ais LIST]\n"
    "\n"
    "What `ddz analyze` decides within its budget, and who gives wins away.\n"
    "Part one: N deals (default 20) under each rule set, played by three\n"
    "ai:greedy; every position before a play is solved within the budget.\n"
    "Reports the share solved among all positions, those with at most 30 cards\n"
    "left in all, and at most 20; the median, 99th percentile and maximum time\n"
    "per position; the nodes per second.\n"
    "Part two: the same deals, three times each, with ai:random, ai:greedy and\n"
    "ai:strong (--rollouts units a decision, default 100, no clock: the same\n"
    "games on every machine) in one seat against two ai:greedy; per role of the\n"
    "tested AI, its plays, those from a position its side had won, and those\n"
    "that gave the win away. Last, the peak resident memory.\n"
    "\n"
    "  --budget-ms N, --nodes N  the budget per position, as `ddz analyze`'s\n"
    "  --seed S       deals from the master seed whose first 8 bytes are S\n"
    "                 (little-endian, default 1)\n"
    "  --rules NAME   one rule set (default: each of them)\n"
    "  --ais LIST     part two's AIs, comma-separated (default random,greedy,strong;\n"
    "                 none: no part two)\n";

static int64_t monotonic_ns(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

enum { TESTED_MAX = 8 };

typedef struct config {
    int deals, ms, nodes, rollouts;
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

/* Part one's figures. */
enum { CLASSES = 3 };
static const int class_cards[CLASSES] = {54, 30, 20};

typedef struct reach {
    long positions[CLASSES], solved[CLASSES];
    long nodes;
    double seconds;
    double *times; /* seconds per position, all of them */
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

/* Solves every position of the game of `r` before a play. */
static int measure(const config *c, const ddz_rules *rs, const ddz_record *r, ddz_solver *sv,
                   reach *x)
{
    ddz_game g;
    ddz_game_start(&g, rs, &r->deal, r->early_penalty);
    for (int i = 0; i < r->nbids; i++)
        ddz_game_bid(&g, i, r->bids[i]);
    ddz_solver_forget(sv);
    for (int i = 0; i < r->nplays && g.phase == DDZ_PHASE_PLAY; i++) {
        ddz_solver_pos p;
        ddz_solver_pos_of_game(&g, &p);
        int cards = ddz_cards_count(g.hand[0] | g.hand[1] | g.hand[2]);
        ddz_solver_budget b = {.nodes = c->nodes};
        int64_t t0 = monotonic_ns(NULL);
        if (c->ms) {
            b.clock = monotonic_ns;
            b.deadline = t0 + (int64_t)c->ms * 1000000;
        }
        int v = ddz_solver_solve(sv, rs, &p, &b);
        double t = (double)(monotonic_ns(NULL) - t0) * 1e-9;
        x->nodes += ddz_solver_last(sv)->nodes;
        x->seconds += t;
        if (add_time(x, t) < 0)
            return DDZ_ENOMEM;
        for (int k = 0; k < CLASSES; k++)
            if (cards <= class_cards[k]) {
                x->positions[k]++;
                x->solved[k] += v > 0;
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

/* Plays deal `k` three times with `tested` in each seat, and analyses. */
static int blunder_deal(const config *c, const ddz_rules *rs, int k, ddz_ai *tested,
                        ddz_ai_workspace *ws, ddz_solver *sv, blunders *bl)
{
    static ddz_record r;
    static ddz_analysis_ply ply;
    ddz_analysis_budget b = {
        .nodes = c->nodes, .ns = (int64_t)c->ms * 1000000, .clock = c->ms ? monotonic_ns : NULL};
    for (int rot = 0; rot < 3; rot++) {
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

/* Part one under `rs`: prints its row. */
static int run_reach(const config *c, const ddz_rules *rs, ddz_solver *sv, ddz_ai_workspace *ws)
{
    static ddz_record r;
    reach x = {0};
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
            rc = measure(c, rs, &r, sv, &x);
    }
    if (rc < 0) {
        free(x.times);
        return rc;
    }
    qsort(x.times, (size_t)x.ntimes, sizeof *x.times, by_value);
    double med = x.ntimes ? x.times[x.ntimes / 2] : 0;
    double p99 = x.ntimes ? x.times[(long)((double)(x.ntimes - 1) * 0.99)] : 0;
    double max = x.ntimes ? x.times[x.ntimes - 1] : 0;
    printf("%-13s %5d %9ld %6.1f%% %6.1f%% %6ld %6.1f%% %6ld %8.1f %7.0f %7.0f %7.1f\n", rs->name,
           c->deals, x.positions[0], pct(x.solved[0], x.positions[0]),
           pct(x.solved[1], x.positions[1]), x.positions[1], pct(x.solved[2], x.positions[2]),
           x.positions[2], 1e3 * med, 1e3 * p99, 1e3 * max,
           x.seconds > 0 ? (double)x.nodes / x.seconds * 1e-6 : 0);
    free(x.times);
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
    config c = {
        .deals = 20, .ms = DDZ_ANALYZE_MS, .nodes = DDZ_ANALYZE_NODES, .rollouts = 100, .seed = 1};
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
    printf("budget a position: %d ms, %d nodes (0: none); ai:strong at %d units a decision, "
           "seed %llu\n",
           c.ms, c.nodes, c.rollouts, (unsigned long long)c.seed);
    int rc = 0;
    printf("\nthree ai:greedy: positions before a play solved within the budget, by cards "
           "left in all; time a position\n");
    printf("%-13s %5s %9s %7s %7s %6s %7s %6s %8s %7s %7s %7s\n", "rules", "deals", "positions",
           "all", "<=30", "n", "<=20", "n", "median", "p99", "max", "Mnode/s");
    for (int i = 0; rc == 0 && ddz_rules_at(i); i++)
        if (!only || only == ddz_rules_at(i))
            rc = run_reach(&c, ddz_rules_at(i), sv, ws);
    if (c.ais[0] && rc == 0) {
        printf("\nthe tested AI in each seat against two ai:greedy: its own plays by role, those "
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
