/* cli_bench.c - move generation and random self-play on one core.
 *
 * Self-play is what a search AI or a training loop does: deal from a seed,
 * bid, play uniformly random legal moves, score. Everything lives on the
 * stack or in static buffers: no heap allocation per game.
 */
#include "cli_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ai/rng.h"
#include "match.h"
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
static void random_position(ddz_rng *r, ddz_cards *hand, ddz_combo *last, int *follows)
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
        int k = ddz_movegen(&ddz_rules_caai, ddz_cards_ranks(other), NULL, moves, DDZ_MOVES_MAX);
        if (k > 0) {
            *last = moves[ddz_rng_below(r, (uint32_t)k)].combo;
            *follows = 1;
        }
    }
}

typedef struct movegen_result {
    double positions_per_s, moves_per_s;
} movegen_result;

static movegen_result bench_movegen(uint64_t seed, double seconds)
{
    enum { BATCH = 4096 };
    static ddz_cards hands[BATCH];
    static ddz_combo lasts[BATCH];
    static int follows[BATCH];
    ddz_rng r;
    ddz_rng_seed(&r, seed);
    for (int i = 0; i < BATCH; i++)
        random_position(&r, &hands[i], &lasts[i], &follows[i]);

    long positions = 0, generated = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < BATCH; i++) {
            int k = ddz_movegen(&ddz_rules_caai, ddz_cards_ranks(hands[i]),
                                follows[i] ? &lasts[i] : NULL, moves, DDZ_MOVES_MAX);
            generated += k;
        }
        positions += BATCH;
        t = now();
    } while (t - t0 < seconds);
    return (movegen_result){positions / (t - t0), generated / (t - t0)};
}

/* Plays one game with uniformly random bids and plays; returns the number
 * of play decisions. */
static int selfplay_game(ddz_rng *r, const uint8_t master[32], uint32_t k, ddz_game *g)
{
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal d;
    ddz_deal_game_seed(master, k, seed);
    ddz_deal_from_seed(seed, &d);
    ddz_game_start(g, &ddz_rules_caai, &d, 350);
    while (g->phase == DDZ_PHASE_BID) {
        int high = 0;
        for (int s = 0; s < 3; s++)
            high = g->bids[s] > high ? g->bids[s] : high;
        int choice = (int)ddz_rng_below(r, (uint32_t)(4 - high)); /* 0 or high+1..3 */
        ddz_game_bid(g, g->turn, choice == 0 ? 0 : high + choice);
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

static selfplay_result bench_selfplay(uint64_t seed, double seconds)
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
            decisions += selfplay_game(&r, master, (uint32_t)games++, &g);
        t = now();
    } while (t - t0 < seconds);
    return (selfplay_result){games / (t - t0), decisions / (t - t0), games};
}

/* Games/s of a local match with three seats of `spec` (no log). */
static double bench_referee(const char *spec, int games)
{
    ddz_match_cfg cfg = {.spec = {spec, spec, spec}, .games = games, .time_s = 15, .ai_seed = 1};
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
static int calibrate(const char *spec, double seconds)
{
    double rate = bench_referee(spec, 50);
    double n = rate * seconds;
    return n < 50 ? 50 : n > 10000000 ? 10000000 : (int)n;
}

int ddz_cli_bench(int argc, char **argv)
{
    int json = 0;
    double seconds = 2.0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--help") == 0) {
            puts("usage: ddz bench [--json] [--seconds S] [--seed N]\n"
                 "Measures, on one core, legal-move generation over random positions\n"
                 "and random self-play (deal, bid, play uniformly random legal moves,\n"
                 "score), and the referee's throughput in ddz match: three ai:random\n"
                 "seats in-process, and three 'ddz engine --ai random' processes over\n"
                 "pipes. Each part runs for about S seconds (default 2).");
            return 0;
        } else {
            fprintf(stderr, "ddz bench: unexpected argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (!(seconds > 0)) {
        fprintf(stderr, "ddz bench: --seconds must be positive\n");
        return 2;
    }
    movegen_result mg = bench_movegen(seed, seconds);
    selfplay_result sp = bench_selfplay(seed, seconds);
    double ref_ai = bench_referee("ai:random", calibrate("ai:random", seconds));
    /* engines are this very binary, found through /proc */
    char self[4096], spec[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(spec, sizeof spec, "exec:%s engine --ai random", self);
    double ref_proc = bench_referee(spec, calibrate(spec, seconds));
    if (json) {
        printf("{\"movegen_positions_per_s\": %.0f, \"movegen_moves_per_s\": %.0f, "
               "\"selfplay_games_per_s\": %.0f, \"selfplay_decisions_per_s\": %.0f, "
               "\"referee_ai_games_per_s\": %.0f, \"referee_process_games_per_s\": %.0f, "
               "\"seconds_per_part\": %g}\n",
               mg.positions_per_s, mg.moves_per_s, sp.games_per_s, sp.decisions_per_s, ref_ai,
               ref_proc, seconds);
    } else {
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
