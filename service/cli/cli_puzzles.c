/* cli_puzzles.c - `ddz puzzles FILE`: puzzles from game records (spec §16). */
#include "service/cli/cli_puzzles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai/analysis.h"
#include "ai/puzzle.h"
#include "rules/record.h"
#include "rules/ruleset.h"
#include "service/cli/cli_args.h"
#include "service/cli/cli_verify.h"

static const char usage[] =
    "usage: ddz puzzles FILE [--max-cards N] [--rules NAME] [--budget-ms N] [--nodes N]\n"
    "\n"
    "Puzzles (残局, spec §16) from game records, one JSON object per line as\n"
    "`ddz match --log`, `ddz tournament` (DIR/games.jsonl) and `ddz export`\n"
    "write them (blank lines are skipped; FILE '-' reads standard input). Each\n"
    "record is verified as `ddz verify` does and replayed from the landlord's\n"
    "first play; every position with at most N cards in the three hands is\n"
    "solved exactly, every hand known. A position is a puzzle when the side to\n"
    "move wins with best play and fewer than half of the mover's legal plays\n"
    "(a pass included when passing is legal) keep that win. One line per\n"
    "puzzle, in the order of the file:\n"
    "  {\"game\":G,\"ply\":I,\"rules\":R,\"hands\":[[C...] x3],\"landlord\":L,\"turn\":S,\n"
    "   \"last\":[C...]|null,\"last_by\":S|null,\"side\":\"landlord\"|\"farmers\",\n"
    "   \"solutions\":[[C...]...],\"moves\":M,\"difficulty\":D}\n"
    "G is the record's \"game\", I the index of the play made in the position\n"
    "(auto-passes count), hands the cards each seat holds (seat order), C card\n"
    "codes, last the play to beat and last_by its seat (null when the mover\n"
    "leads), side the mover's side (which wins), solutions every play of the\n"
    "mover that keeps the win and only those (a pass as []), M how many legal\n"
    "plays the mover has, D the difficulty: log2(M / solutions), rounded to\n"
    "0.01, larger is harder (always above 1: fewer than half win).\n"
    "\n"
    "  --max-cards N  positions with at most N cards in all (default %d; 1..54)\n"
    "  --rules NAME   only the records played under rule set NAME (the others\n"
    "                 are skipped and counted); default: every record, each\n"
    "                 under its own rule set\n"
    "  --budget-ms N  clock budget per position, in milliseconds (default %d;\n"
    "                 0: none)\n"
    "  --nodes N      search nodes per position (default %d; 0: none)\n"
    "A position the budget cannot decide is skipped and counted as undecided.\n"
    "\n"
    "Last, one line on stderr:\n"
    "  ddz puzzles: G games, P positions tried, Q puzzles, U undecided, B bad lines,\n"
    "  K other rules, T s\n"
    "A line that is not JSON, not a record, or a record that does not verify\n"
    "gets one line on stderr naming it (as `ddz verify` words it); the other\n"
    "lines are still read, and the exit status is then 1. A file that cannot\n"
    "be read exits 1; bad usage exits 2.\n";

static int64_t monotonic_ns(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef struct run {
    ddz_solver *solver;
    ddz_puzzle *puzzle;       /* one examination at a time (some 100 KB) */
    const ddz_rules *only;    /* --rules; NULL: every record */
    int max_cards;            /* --max-cards */
    long nodes;               /* --nodes; 0: none */
    int64_t ns;               /* --budget-ms in ns; 0: none */
    long games, tried, found; /* records read, positions examined, puzzles */
    long undecided, bad, other;
} run;

/* Prints `c` as an array of card codes (a pass: []). */
static void print_cards(ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    putchar('[');
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", codes[i]);
    putchar(']');
}

/* Prints the puzzle in `g` (the position before ply `ply` of record `r`),
 * `last` being the cards of the play to beat. */
static void print_puzzle(const ddz_record *r, int ply, const ddz_game *g, ddz_cards last,
                         const ddz_puzzle *pz)
{
    printf("{\"game\":%d,\"ply\":%d,\"rules\":\"%s\",\"hands\":[", r->game, ply, g->rules->name);
    for (int s = 0; s < 3; s++) {
        if (s)
            putchar(',');
        print_cards(g->hand[s]);
    }
    printf("],\"landlord\":%d,\"turn\":%d,\"last\":", g->landlord, g->turn);
    if (g->last_seat < 0) {
        fputs("null,\"last_by\":null", stdout);
    } else {
        print_cards(last);
        printf(",\"last_by\":%d", g->last_seat);
    }
    printf(",\"side\":\"%s\",\"solutions\":[",
           pz->side == DDZ_SIDE_LANDLORD ? "landlord" : "farmers");
    for (int k = 0; k < pz->nsolutions; k++) {
        if (k)
            putchar(',');
        print_cards(ddz_cards_pick(g->hand[g->turn], pz->solutions[k]));
    }
    printf("],\"moves\":%d,\"difficulty\":%.2f}\n", pz->nmoves,
           ddz_puzzle_difficulty(pz->nmoves, pz->nsolutions));
}

/* Examines the positions of the record on one line. Returns 0, or 1 after
 * complaining about the line. */
static int puzzles_line(run *u, const char *line, size_t len, long lineno)
{
    static ddz_record r; /* some 10 KB: not on the stack */
    const ddz_rules *rs;
    if (ddz_cli_read_record("puzzles", line, len, lineno, &r, &rs))
        return 1;
    if (u->only && rs != u->only) {
        u->other++;
        return 0;
    }
    u->games++;
    ddz_analysis a;
    if (ddz_analysis_begin(&a, &r, rs, u->solver) < 0) {
        /* not reached: it verified */
        ddz_cli_complain("puzzles", "line %ld (game %d): does not replay", lineno, r.game);
        return 1;
    }
    ddz_cards last = 0; /* the cards of the latest play that was not a pass */
    const ddz_game *g;
    while ((g = ddz_analysis_position(&a))) {
        ddz_solver_pos p;
        int ply = a.next;
        if (ddz_solver_pos_of_game(g, &p) == 0 && ddz_puzzle_cards(&p) <= u->max_cards) {
            ddz_solver_budget b = {.nodes = u->nodes};
            if (u->ns > 0) {
                b.clock = monotonic_ns;
                b.deadline = monotonic_ns(NULL) + u->ns;
            }
            u->tried++;
            int rc = ddz_puzzle_find(u->solver, rs, &p, &b, u->puzzle);
            if (rc == 1) {
                print_puzzle(&r, ply, g, last, u->puzzle);
                u->found++;
            } else if (rc < 0) {
                u->undecided++;
            }
        }
        if (r.plays[ply].cards)
            last = r.plays[ply].cards;
        ddz_analysis_skip(&a);
    }
    return 0;
}

/* ddz_cli_each_line()'s call for a line: a bad one is counted. */
static int each_line(void *ctx, const char *line, size_t len, long lineno)
{
    run *u = ctx;
    if (!puzzles_line(u, line, len, lineno))
        return 0;
    u->bad++;
    return 1;
}

int ddz_cli_puzzles(int argc, char **argv)
{
    const char *path = NULL;
    int max_cards = DDZ_PUZZLE_MAX_CARDS, ms = DDZ_PUZZLES_MS, nodes = DDZ_PUZZLES_NODES;
    const ddz_rules *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(usage, DDZ_PUZZLE_MAX_CARDS, DDZ_PUZZLES_MS, DDZ_PUZZLES_NODES);
            return 0;
        } else if (strcmp(argv[i], "--max-cards") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 1, DDZ_NCARDS, &max_cards) < 0)
                return ddz_cli_usage("puzzles", "--max-cards must be 1..54");
        } else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc) {
            if (!(only = ddz_rules_find(argv[++i]))) {
                char what[200];
                snprintf(what, sizeof what, "--rules: unknown rule set (known: %s)",
                         ddz_rules_names());
                return ddz_cli_usage("puzzles", what);
            }
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 3600000, &ms) < 0)
                return ddz_cli_usage("puzzles", "--budget-ms must be 0..3600000");
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 2000000000, &nodes) < 0)
                return ddz_cli_usage("puzzles", "--nodes must be 0..2000000000");
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return ddz_cli_usage("puzzles", "unknown option");
        } else if (path) {
            return ddz_cli_usage("puzzles", "exactly one FILE is required");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return ddz_cli_usage("puzzles", "exactly one FILE is required");
    if (ms == 0 && nodes == 0)
        return ddz_cli_usage("puzzles", "--budget-ms 0 and --nodes 0 would let a large "
                                        "position search for ever: give one of them");

    int64_t t0 = monotonic_ns(NULL);
    run u = {.only = only, .max_cards = max_cards, .nodes = nodes, .ns = (int64_t)ms * 1000000};
    u.solver = ddz_solver_create(DDZ_PUZZLES_TT_BITS);
    u.puzzle = malloc(sizeof *u.puzzle);
    if (!u.solver || !u.puzzle) {
        ddz_cli_complain("puzzles", "out of memory");
        ddz_solver_destroy(u.solver);
        free(u.puzzle);
        return 1;
    }
    int status = ddz_cli_each_line("puzzles", path, each_line, &u);
    if (status == 2) { /* no file: nothing to sum up */
        free(u.puzzle);
        ddz_solver_destroy(u.solver);
        return 1;
    }
    fprintf(stderr,
            "ddz puzzles: %ld games, %ld positions tried, %ld puzzles, %ld undecided, "
            "%ld bad lines, %ld other rules, %.2f s\n",
            u.games, u.tried, u.found, u.undecided, u.bad, u.other,
            (double)(monotonic_ns(NULL) - t0) / 1e9);
    free(u.puzzle);
    ddz_solver_destroy(u.solver);
    return status;
}
