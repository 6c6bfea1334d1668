/* cli_analyze.c - `ddz analyze FILE`: post-game analysis of game records. */
#include "service/cli/cli_analyze.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai/analysis.h"
#include "proto/record_json.h"
#include "rules/record.h"
#include "rules/ruleset.h"
#include "service/cli/cli_args.h"
#include "service/cli/cli_verify.h"

static const char usage[] =
    "usage: ddz analyze FILE [--budget-ms N] [--nodes N] [--scores]\n"
    "\n"
    "Post-game analysis (spec §10). Reads game records, one JSON object per\n"
    "line as `ddz match --log`, `ddz tournament` (DIR/games.jsonl) and\n"
    "`ddz export` write them (blank lines are skipped; FILE '-' reads standard\n"
    "input), verifies each as `ddz verify` does, and replays its plays from\n"
    "the landlord's first. For each play it decides, with every hand known,\n"
    "which side wins with best play by both sides, before the play and after\n"
    "it, and writes one line:\n"
    "  {\"game\":G,\"ply\":I,\"seat\":S,\"before\":W,\"after\":W,\"keeps\":K,\"witness\":P}\n"
    "G is the record's \"game\", I the index into its \"plays\" (auto-passes\n"
    "count), W \"landlord\", \"farmers\" or \"unknown\" (the budget ran out). K is\n"
    "null, or, when the play turned a win of the mover's side into a loss,\n"
    "the plays that would have kept it, as arrays of the mover's card codes\n"
    "(null when the budget ran out listing them). P is null, or, when the\n"
    "play gave the win away, one play that would have kept it whatever the\n"
    "budget: the one that proved the position won.\n"
    "A game that all passed has no plays; one a fault ended, none after it.\n"
    "\n"
    "Then one line per player (the records' \"names\"; a tournament's player\n"
    "ids for records that carry them, as DIR/games.jsonl's do), over the plays\n"
    "the player made itself (not the referee's auto-passes):\n"
    "  {\"player\":NAME,\"positions\":N,\"gave\":N,\"took\":N,\"unknown\":N}\n"
    "gave: plays that gave away a forced win; took: plays that took a win\n"
    "from a lost position (0 whenever both verdicts are known: best play\n"
    "cannot be beaten); unknown: plays with a verdict unknown before or after.\n"
    "A last line totals the run:\n"
    "  {\"games\":N,\"plays\":N,\"unknown\":N,\"bad_lines\":N}\n"
    "\n"
    "  --budget-ms N  clock budget per position, in milliseconds (default %d;\n"
    "                 0: none)\n"
    "  --nodes N      search nodes per position (default %d; 0: none)\n"
    "  --scores       also the best score each side can force: each play's line\n"
    "                 gains \"forced\":{\"landlord\":X,\"farmer\":Y} (the scores\n"
    "                 the landlord and each farmer can force before the play, in\n"
    "                 the rule set's scores; null when the budget ran out) and\n"
    "                 \"cost\":C (the mover's side's forced score before the play\n"
    "                 minus after it, >= 0; null when either is unknown); each\n"
    "                 player's line gains \"scored\":N (plays whose cost is\n"
    "                 known), \"costly\":N (of them, those that cost points) and\n"
    "                 \"cost\":X (the points they cost in all). A score search\n"
    "                 takes more nodes than a verdict: twice the budget a play.\n"
    "Positions of more than some 30 cards are seldom decided within the\n"
    "default budget (docs/analysis.md, \"Post-game analysis\"); the endgames nearly always\n"
    "are. Listing the keeping plays is one more position's budget.\n"
    "\n"
    "A line that is not JSON, not a record, or a record that does not verify\n"
    "gets one line on stderr naming it (as `ddz verify` words it); the other\n"
    "lines are still analysed, and the exit status is then 1. A file that\n"
    "cannot be read exits 1; bad usage exits 2.\n";

static int64_t monotonic_ns(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The totals of one player name over the file. */
typedef struct player {
    char name[DDZ_NAME_MAX];
    long positions, gave, took, unknown;
    long scored, costly;
    double cost;
} player;

typedef struct run {
    ddz_solver *solver;
    ddz_analysis_budget budget;
    player *players; /* in order of first appearance */
    size_t nplayers, cap;
    long games, plays, unknown, bad;
} run;

/* Returns the index of player `name` in u->players, added if new; -1 when
 * out of memory. An index, not a pointer: adding the next player may move
 * the array. */
static long player_of(run *u, const char *name)
{
    for (size_t i = 0; i < u->nplayers; i++)
        if (strcmp(u->players[i].name, name) == 0)
            return (long)i;
    if (u->nplayers == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 16;
        player *p = realloc(u->players, cap * sizeof *p);
        if (!p)
            return -1;
        u->players = p;
        u->cap = cap;
    }
    player *p = &u->players[u->nplayers];
    memset(p, 0, sizeof *p);
    /* names and ids are shorter than DDZ_NAME_MAX (checked when read) */
    memcpy(p->name, name, strnlen(name, sizeof p->name - 1));
    return (long)u->nplayers++;
}

/* Prints a JSON string (jansson's escaping: the names are UTF-8, checked
 * when the record was read). */
static void print_string(const char *s)
{
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "\"\"", stdout);
    free(t);
    json_decref(j);
}

/* Prints `c` as an array of card codes (a pass: []), or null when not
 * `some`. */
static void print_cards(bool some, ddz_cards c)
{
    if (!some) {
        fputs("null", stdout);
        return;
    }
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    putchar('[');
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", codes[i]);
    putchar(']');
}

static void print_ply(const ddz_record *r, const ddz_analysis_ply *p, bool scores)
{
    printf("{\"game\":%d,\"ply\":%d,\"seat\":%d,\"before\":\"%s\",\"after\":\"%s\",\"keeps\":",
           r->game, p->ply, p->seat, ddz_verdict_name(p->before), ddz_verdict_name(p->after));
    if (p->nkeeps < 0)
        fputs("null", stdout);
    else
        putchar('[');
    for (int k = 0; k < p->nkeeps; k++) {
        if (k)
            putchar(',');
        print_cards(true, ddz_cards_pick(p->hand, p->keeps[k]));
    }
    if (p->nkeeps >= 0)
        putchar(']');
    fputs(",\"witness\":", stdout);
    print_cards(p->gave && p->witnessed, ddz_cards_pick(p->hand, p->witness));
    if (p->scored_before)
        printf(",\"forced\":{\"landlord\":%.10g,\"farmer\":%.10g}", p->score_before.landlord,
               p->score_before.farmer);
    if (p->scored_before && p->scored_after)
        printf(",\"cost\":%.10g", p->cost);
    if (scores) {
        if (!p->scored_before)
            fputs(",\"forced\":null", stdout);
        if (!p->scored_before || !p->scored_after)
            fputs(",\"cost\":null", stdout);
    }
    fputs("}\n", stdout);
}

/* Reads a tournament's player ids (the record's "tournament": {"players":
 * [ID x 3]}, DIR/games.jsonl) into ids[]. Returns 1, or 0 when the line
 * has none: the summary then counts the record's names. A tournament's
 * players often share a name (two seats of `ai:greedy`), never an id. */
static int tournament_ids(const char *line, size_t len, char ids[3][DDZ_NAME_MAX])
{
    json_t *j = json_loadb(line, len, 0, NULL);
    json_t *t = json_object_get(j, "tournament"); /* NULL-safe */
    json_t *ps = json_object_get(t, "players");
    int ok = json_is_array(ps) && json_array_size(ps) == 3;
    for (int s = 0; ok && s < 3; s++) {
        const char *id = json_string_value(json_array_get(ps, (size_t)s));
        ok = id && id[0] && strlen(id) < DDZ_NAME_MAX;
        if (ok)
            snprintf(ids[s], DDZ_NAME_MAX, "%s", id);
    }
    json_decref(j);
    return ok;
}

/* Analyses the record on one line. Returns 0, 1 after complaining about the
 * line, or -1 when out of memory. */
static int analyze_line(run *u, const char *line, size_t len, long lineno)
{
    static ddz_record r; /* some 10 KB: not on the stack */
    const ddz_rules *rs;
    if (ddz_cli_read_record("analyze", line, len, lineno, &r, &rs))
        return 1;
    long who[3];
    char ids[3][DDZ_NAME_MAX];
    int by_id = tournament_ids(line, len, ids);
    for (int s = 0; s < 3; s++)
        if ((who[s] = player_of(u, by_id ? ids[s] : r.names[s])) < 0)
            return -1;
    ddz_analysis a;
    if (ddz_analysis_begin(&a, &r, rs, u->solver) < 0) {
        /* not reached: it verified */
        ddz_cli_complain("analyze", "line %ld (game %d): does not replay", lineno, r.game);
        return 1;
    }
    static ddz_analysis_ply p;
    while (ddz_analysis_next(&a, u->solver, &u->budget, &p) == 1) {
        print_ply(&r, &p, u->budget.scores);
        u->plays++;
        u->unknown += p.before == DDZ_VERDICT_UNKNOWN || p.after == DDZ_VERDICT_UNKNOWN;
    }
    for (int s = 0; s < 3; s++) {
        player *w = &u->players[who[s]];
        w->positions += a.tally[s].positions;
        w->gave += a.tally[s].gave;
        w->took += a.tally[s].took;
        w->unknown += a.tally[s].unknown;
        w->scored += a.tally[s].scored;
        w->costly += a.tally[s].costly;
        w->cost += a.tally[s].cost;
    }
    u->games++;
    return 0;
}

/* ddz_cli_each_line()'s call for a line: a bad one is counted, and no
 * memory ends the run. */
static int each_line(void *ctx, const char *line, size_t len, long lineno)
{
    run *u = ctx;
    int rc = analyze_line(u, line, len, lineno);
    if (rc < 0) {
        ddz_cli_complain("analyze", "out of memory");
        return -1;
    }
    if (rc > 0)
        u->bad++;
    return rc > 0;
}

int ddz_cli_analyze(int argc, char **argv)
{
    const char *path = NULL;
    int ms = DDZ_ANALYZE_MS, nodes = DDZ_ANALYZE_NODES;
    bool scores = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(usage, DDZ_ANALYZE_MS, DDZ_ANALYZE_NODES);
            return 0;
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 3600000, &ms) < 0)
                return ddz_cli_usage("analyze", "--budget-ms must be 0..3600000");
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 2000000000, &nodes) < 0)
                return ddz_cli_usage("analyze", "--nodes must be 0..2000000000");
        } else if (strcmp(argv[i], "--scores") == 0) {
            scores = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return ddz_cli_usage("analyze", "unknown option");
        } else if (path) {
            return ddz_cli_usage("analyze", "exactly one FILE is required");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return ddz_cli_usage("analyze", "exactly one FILE is required");
    if (ms == 0 && nodes == 0)
        return ddz_cli_usage("analyze", "--budget-ms 0 and --nodes 0 would let a full deal "
                                        "search for ever: give one of them");

    run u = {.budget = {.nodes = nodes,
                        .ns = (int64_t)ms * 1000000,
                        .clock = ms ? monotonic_ns : NULL,
                        .scores = scores}};
    u.solver = ddz_solver_create(DDZ_ANALYZE_TT_BITS);
    if (!u.solver)
        return ddz_cli_complain("analyze", "out of memory");
    int status = ddz_cli_each_line("analyze", path, each_line, &u);
    if (status == 2) { /* no file: nothing to sum up */
        ddz_solver_destroy(u.solver);
        return 1;
    }
    for (size_t i = 0; i < u.nplayers; i++) {
        const player *p = &u.players[i];
        fputs("{\"player\":", stdout);
        print_string(p->name);
        printf(",\"positions\":%ld,\"gave\":%ld,\"took\":%ld,\"unknown\":%ld", p->positions,
               p->gave, p->took, p->unknown);
        if (scores)
            printf(",\"scored\":%ld,\"costly\":%ld,\"cost\":%.10g", p->scored, p->costly, p->cost);
        fputs("}\n", stdout);
    }
    printf("{\"games\":%ld,\"plays\":%ld,\"unknown\":%ld,\"bad_lines\":%ld}\n", u.games, u.plays,
           u.unknown, u.bad);
    free(u.players);
    ddz_solver_destroy(u.solver);
    return status;
}
