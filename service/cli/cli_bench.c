/* cli_bench.c - move generation and random self-play on one core, and
 * `ddz bench ai`: the strength and think time of a hosted AI.
 *
 * Self-play is what a search AI or a training loop does: deal from a seed,
 * bid, play uniformly random legal moves, score. Everything lives on the
 * stack or in static buffers: no heap allocation per game.
 *
 * `ddz bench ai` plays duplicate deals: every deal three times, the tested
 * AI in each seat once and two copies of the opponent in the other seats,
 * so luck of the cards cancels. Threads take every T-th deal, each with its
 * own AIs and one AI workspace that all of them decide in; every decision
 * depends only on its seed and view (ai:strong) or on a stream seeded per
 * game (ai:random), not on the workspace, so the results do not depend on
 * the number of threads unless a clock budget ends searches.
 */
#include "service/cli/cli_bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ai/ai.h"
#include "service/cli/cli_args.h"
#include "service/cli/cli_bench_analyze.h"
#include "ai/rng.h"
#include "service/match/match.h"
#include "rules/error.h"
#include "rules/game.h"
#include "rules/movegen.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static ddz_move moves[DDZ_MOVES_MAX];

/* A random hand of 1..20 cards and, half the time, a random play to follow
 * taken from the rest of the deck. */
static void random_position(const ddz_rules *rs, ddz_rng *r, ddz_cards *hand, ddz_combo *last,
                            int *follows)
{
    uint8_t deck[DDZ_NCARDS];
    for (int i = 0; i < DDZ_NCARDS; i++)
        deck[i] = (uint8_t)i;
    for (int i = DDZ_NCARDS - 1; i > 0; i--) {
        int j = (int)ddz_rng_below(r, (uint32_t)i + 1);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    int n = 1 + (int)ddz_rng_below(r, DDZ_HAND_MAX);
    *hand = 0;
    for (int i = 0; i < n; i++)
        *hand |= 1ULL << deck[i];
    *follows = 0;
    last->type = DDZ_PASS;
    if (ddz_rng_below(r, 2)) {
        ddz_cards other = 0;
        for (int i = n; i < n + 17; i++)
            other |= 1ULL << deck[i];
        int k = ddz_movegen(rs, ddz_cards_ranks(other), NULL, moves, DDZ_MOVES_MAX);
        if (k > 0) {
            *last = moves[ddz_rng_below(r, (uint32_t)k)].combo;
            *follows = 1;
        }
    }
}

typedef struct movegen_result {
    double positions_per_s, moves_per_s;
} movegen_result;

static movegen_result bench_movegen(const ddz_rules *rs, uint64_t seed, double seconds)
{
    enum { BATCH = 4096 };
    static ddz_cards hands[BATCH];
    static ddz_combo lasts[BATCH];
    static int follows[BATCH];
    ddz_rng r;
    ddz_rng_seed(&r, seed);
    for (int i = 0; i < BATCH; i++)
        random_position(rs, &r, &hands[i], &lasts[i], &follows[i]);

    long positions = 0, generated = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < BATCH; i++) {
            int k = ddz_movegen(rs, ddz_cards_ranks(hands[i]), follows[i] ? &lasts[i] : NULL, moves,
                                DDZ_MOVES_MAX);
            generated += k;
        }
        positions += BATCH;
        t = now();
    } while (t - t0 < seconds);
    return (movegen_result){positions / (t - t0), generated / (t - t0)};
}

/* Plays one game with uniformly random bids and plays; returns the number
 * of play decisions. */
static int selfplay_game(const ddz_rules *rs, ddz_rng *r, const uint8_t master[32], uint32_t k,
                         ddz_game *g)
{
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal d;
    ddz_deal_game_seed(master, k, seed);
    ddz_deal_from_seed(seed, &d);
    ddz_game_start(g, rs, &d, ddz_rules_early_penalty(rs, 0, 0));
    while (g->phase == DDZ_PHASE_BID) {
        int bids[DDZ_NBIDS_MAX];
        int n = ddz_rules_legal_bids(rs, g->bids, bids);
        ddz_game_bid(g, g->turn, bids[ddz_rng_below(r, (uint32_t)n)]);
    }
    int decisions = 0;
    while (g->phase == DDZ_PHASE_PLAY) {
        int s = g->turn;
        int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[s]),
                            ddz_game_leading(g) ? NULL : &g->last, moves, DDZ_MOVES_MAX);
        const ddz_move *m = &moves[ddz_rng_below(r, (uint32_t)n)];
        ddz_game_play(g, s, ddz_cards_pick(g->hand[s], m->ranks));
        decisions++;
    }
    return decisions;
}

typedef struct selfplay_result {
    double games_per_s, decisions_per_s;
    long games;
} selfplay_result;

static selfplay_result bench_selfplay(const ddz_rules *rs, uint64_t seed, double seconds)
{
    ddz_rng r;
    ddz_rng_seed(&r, seed);
    uint8_t master[32] = {0};
    memcpy(master, &seed, sizeof seed);
    ddz_game g;
    long games = 0, decisions = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 256; i++)
            decisions += selfplay_game(rs, &r, master, (uint32_t)games++, &g);
        t = now();
    } while (t - t0 < seconds);
    return (selfplay_result){games / (t - t0), decisions / (t - t0), games};
}

/* Games/s of a local match under `rs` with three seats of `spec` (no log). */
static double bench_referee(const ddz_rules *rs, const char *spec, int games)
{
    ddz_match_cfg cfg = {
        .spec = {spec, spec, spec}, .games = games, .time_s = 15, .ai_seed = 1, .rules = rs};
    char err[300];
    ddz_match *m = ddz_match_create(&cfg, err, sizeof err);
    if (!m) {
        fprintf(stderr, "ddz bench: %s\n", err);
        return 0;
    }
    double t0 = now();
    ddz_match_run(m);
    double t = now() - t0;
    long played = ddz_match_games_played(m);
    ddz_match_destroy(m);
    return played / t;
}

/* Games the referee benchmarks play in about `seconds`, from a short trial. */
static int calibrate(const ddz_rules *rs, const char *spec, double seconds)
{
    double rate = bench_referee(rs, spec, 50);
    double n = rate * seconds;
    return n < 50 ? 50 : n > 10000000 ? 10000000 : (int)n;
}

/* ---------------------------------------------------------------------- */
/* ddz bench ai                                                            */

enum { THINK_BINS = 10001 };

typedef struct side_stats {
    long games, ll_games, ll_wins, fm_games, fm_wins;
    long decisions;
    double think_sum, think_max; /* seconds */
    long think_ms[THINK_BINS];   /* decisions by whole milliseconds (last: more) */
    long long units;             /* search units spent (searching AIs) */
} side_stats;

typedef struct aibench {
    const ddz_rules *rules;
    const char *player, *opponent;
    int deals, threads, budget_ms;
    long units;
    uint8_t master[DDZ_SEED_BYTES];
    uint64_t seed;
    /* per thread */
    int next;                   /* first deal of the thread (its index) */
    side_stats side[2];         /* 0 = tested, 1 = opponents */
    double sum, sum2;           /* tested side's score per deal */
    double osum, osum2;         /* the opponents' seats' score per deal */
    long all_pass;              /* games nobody bid in */
    long deals_won, deals_lost; /* deals the tested player ended ahead, behind */
    int err;
} aibench;

static double think(ddz_ai *ai, const ddz_view *v, ddz_ai_workspace *ws, side_stats *st, int *bid,
                    ddz_cards *cards)
{
    double t0 = now();
    if (v->phase == DDZ_PHASE_BID)
        *bid = ddz_ai_bid(ai, v, ws);
    else
        *cards = ddz_ai_play(ai, v, ws);
    double t = now() - t0;
    st->decisions++;
    st->think_sum += t;
    if (t > st->think_max)
        st->think_max = t;
    int ms = (int)(t * 1e3);
    st->think_ms[ms < THINK_BINS - 1 ? ms : THINK_BINS - 1]++;
    st->units += ddz_ai_last_units(ai);
    return t;
}

/* Plays deal `k` three times; adds the results to `b`. Returns 0 or an
 * error (an illegal decision is a bug worth stopping for). */
static int bench_deal(aibench *b, ddz_ai *tested, ddz_ai_workspace *ws, int k)
{
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal d;
    ddz_deal_game_seed(b->master, (uint32_t)k, seed);
    if (ddz_deal_from_seed(seed, &d) < 0)
        return -1;
    double total = 0, opp = 0;
    for (int rot = 0; rot < 3; rot++) {
        int err;
        ddz_ai *seat_ai[3];
        for (int s = 0; s < 3; s++) {
            if (s == rot) {
                seat_ai[s] = tested;
                continue;
            }
            /* opponents afresh per game, seeded by deal and seat */
            uint64_t x = b->seed ^ ((uint64_t)k << 8 | (uint64_t)(rot * 3 + s));
            seat_ai[s] = ddz_ai_create(b->opponent, ddz__splitmix64(&x), b->budget_ms, &err);
            if (!seat_ai[s])
                return err;
            ddz_ai_set_budget(seat_ai[s], b->budget_ms, b->units);
        }
        ddz_game g;
        ddz_game_start(&g, b->rules, &d, ddz_rules_early_penalty(b->rules, 0, 0));
        int rc = 0;
        while (g.phase != DDZ_PHASE_OVER && rc == 0) {
            int s = g.turn, bid = 0;
            ddz_cards cards = 0;
            ddz_view v;
            ddz_view_of(&g, s, &v);
            think(seat_ai[s], &v, ws, &b->side[s == rot ? 0 : 1], &bid, &cards);
            rc = g.phase == DDZ_PHASE_BID ? ddz_game_bid(&g, s, bid) : ddz_game_play(&g, s, cards);
            if (rc < 0)
                fprintf(stderr, "ddz bench ai: deal %d seat %d (%s): illegal decision (%d)\n", k, s,
                        ddz_ai_name(seat_ai[s]), rc);
        }
        for (int s = 0; s < 3; s++)
            if (s != rot)
                ddz_ai_destroy(seat_ai[s]);
        if (rc < 0)
            return rc;
        /* sums kept on the scores' grid: botzone-ftl's (multiples of 0.005)
         * added as doubles drift, and a deal played the same way from every
         * seat would count as ahead or behind by a rounding error */
        total = ddz_score_add(total, g.score[rot]);
        for (int s = 0; s < 3; s++)
            if (s != rot)
                opp = ddz_score_add(opp, g.score[s]);
        if (g.landlord < 0) {
            b->all_pass++;
            continue;
        }
        for (int s = 0; s < 3; s++) {
            side_stats *st = &b->side[s == rot ? 0 : 1];
            bool won = (s == g.landlord) == (g.winner == g.landlord);
            st->games++;
            if (s == g.landlord) {
                st->ll_games++;
                st->ll_wins += won;
            } else {
                st->fm_games++;
                st->fm_wins += won;
            }
        }
    }
    /* ahead: above an opponent seat's average (opp / 2), which is total > 0
     * where scores sum to zero (caai, botzone-ftl2), and what counts under
     * botzone-ftl, where every side may score above 0 */
    b->deals_won += total > opp / 2;
    b->deals_lost += total < opp / 2;
    b->sum += total;
    b->sum2 += total * total;
    b->osum += opp;
    b->osum2 += opp * opp;
    return 0;
}

static void *bench_thread(void *arg)
{
    aibench *b = arg;
    int err;
    ddz_ai_workspace *ws = ddz_ai_workspace_create();
    if (!ws) {
        b->err = DDZ_ENOMEM;
        return NULL;
    }
    ddz_ai *tested = ddz_ai_create(b->player, b->seed, b->budget_ms, &err);
    if (!tested) {
        ddz_ai_workspace_destroy(ws);
        b->err = err;
        return NULL;
    }
    ddz_ai_set_budget(tested, b->budget_ms, b->units);
    for (int k = b->next; k < b->deals && b->err == 0; k += b->threads)
        b->err = bench_deal(b, tested, ws, k);
    ddz_ai_destroy(tested);
    ddz_ai_workspace_destroy(ws);
    return NULL;
}

/* Returns the think time (ms) that `q` of the decisions stay within. */
static double think_quantile(const side_stats *st, double q)
{
    long need = (long)ceil(q * (double)st->decisions), seen = 0;
    for (int i = 0; i < THINK_BINS; i++)
        if ((seen += st->think_ms[i]) >= need && need > 0)
            return i + 1;
    return 0;
}

static void print_side(const char *name, const side_stats *st, double per_deal, double ci,
                       int budget_ms, int json, bool last)
{
    double ll = st->ll_games ? 100.0 * st->ll_wins / st->ll_games : 0;
    double fm = st->fm_games ? 100.0 * st->fm_wins / st->fm_games : 0;
    double avg = st->decisions ? 1e3 * st->think_sum / st->decisions : 0;
    double units = st->decisions ? (double)st->units / st->decisions : 0;
    double p99 = think_quantile(st, 0.99);
    long over = 0;
    for (int i = budget_ms; budget_ms > 0 && i < THINK_BINS; i++)
        over += st->think_ms[i];
    if (json) {
        printf("{\"name\": \"%s\", \"games\": %ld, \"landlord_games\": %ld, "
               "\"landlord_wins\": %ld, \"farmer_games\": %ld, \"farmer_wins\": %ld, "
               "\"score_per_deal\": %.2f, \"ci95\": %.2f, \"decisions\": %ld, "
               "\"think_avg_ms\": %.3f, \"think_p99_ms\": %.0f, \"think_max_ms\": %.3f, "
               "\"over_budget\": %ld, \"units_per_decision\": %.1f}%s",
               name, st->games, st->ll_games, st->ll_wins, st->fm_games, st->fm_wins, per_deal, ci,
               st->decisions, avg, p99, 1e3 * st->think_max, over, units, last ? "" : ", ");
        return;
    }
    printf("%-8s %6ld %6ld %6.1f%% %6ld %6.1f%% %+8.1f +- %5.1f %8.2f %7.0f %8.1f %5ld %6.0f\n",
           name, st->games, st->ll_games, ll, st->fm_games, fm, per_deal, ci, avg, p99,
           1e3 * st->think_max, over, units);
}

static const char ai_usage[] =
    "usage: ddz bench ai [--player NAME] [--opponent NAME] [--deals N] [--budget MS]\n"
    "                    [--rollouts N] [--seed S] [--threads T] [--json]\n"
    "\n"
    "Plays N duplicate deals (default 1000), each three times: the player (default\n"
    "strong) in each seat once, two copies of the opponent (default greedy) in the\n"
    "others. Reports per side: games, win rate as landlord and as farmer, the mean\n"
    "small score per deal (three games) with its 95% confidence interval, the mean,\n"
    "99th percentile (1 ms steps) and maximum think time per decision (bids and\n"
    "plays, wall clock), how many decisions took the whole budget or more (over),\n"
    "and search units per decision; then the player's share of games won and of\n"
    "deals it ended ahead (its three scores summed).\n"
    "\n"
    "  --budget MS    wall-clock cap per decision (default 1000; 0 = none)\n"
    "  --rollouts N   search units per decision: one playout, or 256 nodes of\n"
    "                 endgame search (default: no cap). When this cap binds before\n"
    "                 the clock, results are reproducible and do not depend on T.\n"
    "  --seed S       deals come from the master seed whose first 8 bytes are S\n"
    "                 (little-endian, default 1); S also seeds the AIs\n"
    "  --threads T    threads sharing the deals, each with its own AIs (default 1)\n"
    "  --rules NAME   rule set (default caai); a deal counts as ahead when the\n"
    "                 player's total beats an opponent seat's average\n";

static int bench_ai(int argc, char **argv)
{
    aibench cfg = {.rules = &ddz_rules_caai,
                   .player = "strong",
                   .opponent = "greedy",
                   .deals = 1000,
                   .threads = 1,
                   .budget_ms = 1000,
                   .seed = 1};
    int json = 0, rollouts = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) {
            fputs(ai_usage, stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--player") == 0 && val) {
            cfg.player = argv[++i];
        } else if (strcmp(a, "--opponent") == 0 && val) {
            cfg.opponent = argv[++i];
        } else if (strcmp(a, "--deals") == 0 && val) {
            if (ddz_cli_int(argv[++i], 2, 100000000, &cfg.deals) < 0)
                return ddz_cli_usage("bench ai", "--deals must be a whole number from 2");
        } else if (strcmp(a, "--budget") == 0 && val) {
            if (ddz_cli_int(argv[++i], 0, 3600000, &cfg.budget_ms) < 0)
                return ddz_cli_usage("bench ai", "--budget must be 0..3600000 ms");
        } else if (strcmp(a, "--rollouts") == 0 && val) {
            if (ddz_cli_int(argv[++i], 0, 1000000000, &rollouts) < 0)
                return ddz_cli_usage("bench ai", "--rollouts must be a whole number from 0");
            cfg.units = rollouts;
        } else if (strcmp(a, "--seed") == 0 && val) {
            if (ddz_cli_u64(argv[++i], &cfg.seed) < 0)
                return ddz_cli_usage("bench ai", "--seed must be a whole number");
        } else if (strcmp(a, "--rules") == 0 && val) {
            if (!(cfg.rules = ddz_rules_find(argv[++i])))
                return ddz_cli_usage("bench ai", "--rules: unknown rule set");
        } else if (strcmp(a, "--threads") == 0 && val) {
            if (ddz_cli_int(argv[++i], 1, 64, &cfg.threads) < 0)
                return ddz_cli_usage("bench ai", "--threads must be 1..64");
        } else {
            fprintf(stderr, "ddz bench ai: unexpected argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (!ddz_ai_exists(cfg.player) || !ddz_ai_exists(cfg.opponent)) {
        fprintf(stderr, "ddz bench ai: unknown AI '%s'\n",
                ddz_ai_exists(cfg.player) ? cfg.opponent : cfg.player);
        return 2;
    }
    memset(cfg.master, 0, sizeof cfg.master);
    for (int i = 0; i < 8; i++)
        cfg.master[i] = (uint8_t)(cfg.seed >> (8 * i));

    /* per thread: its deals and results (about 160 KB each: the histograms) */
    aibench *b = calloc((size_t)cfg.threads + 1, sizeof *b), *all = b ? &b[cfg.threads] : NULL;
    pthread_t tid[64];
    if (!b) {
        fprintf(stderr, "ddz bench ai: out of memory\n");
        return 1;
    }
    double t0 = now();
    int started = 0;
    for (int t = 0; t < cfg.threads; t++, started++) {
        b[t] = cfg;
        b[t].next = t;
        if (pthread_create(&tid[t], NULL, bench_thread, &b[t]) != 0) {
            fprintf(stderr, "ddz bench ai: cannot start a thread\n");
            break;
        }
    }
    *all = cfg;
    if (started < cfg.threads)
        all->err = DDZ_ENOMEM;
    for (int t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        if (b[t].err && !all->err)
            all->err = b[t].err;
        all->sum += b[t].sum;
        all->sum2 += b[t].sum2;
        all->osum += b[t].osum;
        all->osum2 += b[t].osum2;
        all->all_pass += b[t].all_pass;
        all->deals_won += b[t].deals_won;
        all->deals_lost += b[t].deals_lost;
        for (int p = 0; p < 2; p++) {
            side_stats *a = &all->side[p], *x = &b[t].side[p];
            a->games += x->games;
            a->ll_games += x->ll_games;
            a->ll_wins += x->ll_wins;
            a->fm_games += x->fm_games;
            a->fm_wins += x->fm_wins;
            a->decisions += x->decisions;
            a->think_sum += x->think_sum;
            a->units += x->units;
            if (x->think_max > a->think_max)
                a->think_max = x->think_max;
            for (int i = 0; i < THINK_BINS; i++)
                a->think_ms[i] += x->think_ms[i];
        }
    }
    double seconds = now() - t0;
    if (all->err) {
        fprintf(stderr, "ddz bench ai: stopped: %s\n", ddz_strerror(all->err));
        free(b);
        return 1;
    }
    int n = cfg.deals;
    double mean = all->sum / n, var = (all->sum2 - n * mean * mean) / (n - 1);
    double ci = 1.96 * sqrt((var > 0 ? var : 0) / n);
    /* the opponents' seats' total per deal (minus the player's where scores
     * sum to zero) */
    double omean = all->osum / n, ovar = (all->osum2 - n * omean * omean) / (n - 1);
    double oci = 1.96 * sqrt((ovar > 0 ? ovar : 0) / n);
    if (json) {
        printf("{\"player\": \"%s\", \"opponent\": \"%s\", \"deals\": %d, \"games\": %d, "
               "\"budget_ms\": %d, \"rollouts\": %ld, \"seed\": %llu, \"threads\": %d, "
               "\"all_pass_games\": %ld, \"deals_won\": %ld, \"deals_lost\": %ld, "
               "\"seconds\": %.1f, \"sides\": [",
               cfg.player, cfg.opponent, n, 3 * n, cfg.budget_ms, cfg.units,
               (unsigned long long)cfg.seed, cfg.threads, all->all_pass, all->deals_won,
               all->deals_lost, seconds);
        print_side(cfg.player, &all->side[0], mean, ci, cfg.budget_ms, 1, false);
        print_side(cfg.opponent, &all->side[1], omean, oci, cfg.budget_ms, 1, true);
        printf("]}\n");
        free(b);
        return 0;
    }
    printf("%s vs two %s: %d deals x 3 seats = %d games (%ld all passed), budget %d ms%s and "
           "%ld rollouts%s a decision, seed %llu, %d thread%s, %.1f s\n",
           cfg.player, cfg.opponent, n, 3 * n, all->all_pass, cfg.budget_ms,
           cfg.budget_ms ? "" : " (none)", cfg.units, cfg.units ? "" : " (no limit)",
           (unsigned long long)cfg.seed, cfg.threads, cfg.threads == 1 ? "" : "s", seconds);
    printf("%-8s %6s %6s %7s %6s %7s %18s %8s %7s %8s %5s %6s\n", "side", "games", "landl", "won",
           "farmer", "won", "score/deal (95%CI)", "think ms", "p99", "max", "over", "units");
    print_side(cfg.player, &all->side[0], mean, ci, cfg.budget_ms, 0, false);
    print_side(cfg.opponent, &all->side[1], omean, oci, cfg.budget_ms, 0, true);
    const side_stats *me = &all->side[0];
    printf("%s won %.1f%% of its games, and ended %ld deals ahead (%.1f%%), %ld behind, %ld "
           "even\n",
           cfg.player, me->games ? 100.0 * (me->ll_wins + me->fm_wins) / me->games : 0,
           all->deals_won, 100.0 * all->deals_won / n, all->deals_lost,
           n - all->deals_won - all->deals_lost);
    free(b);
    return 0;
}

int ddz_cli_bench(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ai") == 0)
        return bench_ai(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "analyze") == 0)
        return ddz_cli_bench_analyze(argc - 1, argv + 1);
    int json = 0;
    double seconds = 2.0;
    uint64_t seed = 1;
    const ddz_rules *rs = &ddz_rules_caai;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            if (ddz_cli_double(argv[++i], 0, 86400, &seconds) < 0 || seconds == 0)
                return ddz_cli_usage("bench", "--seconds must be positive, at most 86400");
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            if (ddz_cli_u64(argv[++i], &seed) < 0)
                return ddz_cli_usage("bench", "--seed must be a whole number");
        } else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc) {
            if (!(rs = ddz_rules_find(argv[++i])))
                return ddz_cli_usage("bench", "--rules: unknown rule set");
        } else if (strcmp(argv[i], "--help") == 0) {
            puts("usage: ddz bench [--json] [--seconds S] [--seed N] [--rules NAME]\n"
                 "       ddz bench ai [--player NAME] [--opponent NAME] [--deals N] ... "
                 "(see ddz bench ai --help)\n"
                 "       ddz bench analyze [--deals N] [--budget-ms N] [--nodes N] ... "
                 "(see ddz bench analyze --help)\n"
                 "Measures, on one core, legal-move generation over random positions\n"
                 "and random self-play (deal, bid, play uniformly random legal moves,\n"
                 "score), and the referee's throughput in ddz match: three ai:random\n"
                 "seats in-process, and three 'ddz engine --ai random' processes over\n"
                 "pipes. Each part runs for about S seconds (default 2), under the\n"
                 "rule set NAME (default caai).");
            return 0;
        } else {
            fprintf(stderr, "ddz bench: unexpected argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    movegen_result mg = bench_movegen(rs, seed, seconds);
    selfplay_result sp = bench_selfplay(rs, seed, seconds);
    double ref_ai = bench_referee(rs, "ai:random", calibrate(rs, "ai:random", seconds));
    /* engines are this very binary, found through /proc */
    char self[4096], spec[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(spec, sizeof spec, "exec:%s engine --ai random --rules %s", self, rs->name);
    double ref_proc = bench_referee(rs, spec, calibrate(rs, spec, seconds));
    if (json) {
        printf("{\"movegen_positions_per_s\": %.0f, \"movegen_moves_per_s\": %.0f, "
               "\"selfplay_games_per_s\": %.0f, \"selfplay_decisions_per_s\": %.0f, "
               "\"referee_ai_games_per_s\": %.0f, \"referee_process_games_per_s\": %.0f, "
               "\"seconds_per_part\": %g, \"rules\": \"%s\"}\n",
               mg.positions_per_s, mg.moves_per_s, sp.games_per_s, sp.decisions_per_s, ref_ai,
               ref_proc, seconds, rs->name);
    } else {
        if (rs != &ddz_rules_caai)
            printf("rules      %s\n", rs->name);
        printf("movegen    %12.0f positions/s %12.0f moves/s\n", mg.positions_per_s,
               mg.moves_per_s);
        printf("self-play  %12.0f games/s     %12.0f decisions/s (%ld games)\n", sp.games_per_s,
               sp.decisions_per_s, sp.games);
        printf("referee    %12.0f games/s     (ddz match, three ai:random in-process)\n", ref_ai);
        printf("referee    %12.0f games/s     (ddz match, three 'ddz engine --ai random' "
               "processes)\n",
               ref_proc);
    }
    return 0;
}
