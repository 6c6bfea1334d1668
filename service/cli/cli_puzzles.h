/* cli_puzzles.h - `ddz puzzles FILE`: puzzles (残局) found in game records,
 * each proved by the exact solver (spec §16, ai/puzzle.h). */
#ifndef DDZ_CLI_PUZZLES_H
#define DDZ_CLI_PUZZLES_H

/* The default budget per position, and the solver's table (2^bits entries
 * of 16 bytes, 16 MB): a position of DDZ_PUZZLE_MAX_CARDS cards or fewer
 * takes far less (docs/benchmarks.md, "Puzzles"). */
enum {
    DDZ_PUZZLES_MS = 1000,
    DDZ_PUZZLES_NODES = 2000000,
    DDZ_PUZZLES_TT_BITS = 20,
};

/* Runs `ddz puzzles` with argv[0] == "puzzles". Reads FILE ("-" for
 * stdin), one JSON record (proto/record_json.h) per line, blank lines
 * skipped; verifies each (ddz_record_verify), replays its plays
 * (ai/analysis.h) and examines every position with few enough cards
 * (ai/puzzle.h), writing one JSON line per puzzle on stdout and a summary
 * line on stderr. Returns the process exit status: 0 when every line was a
 * record that verified, 1 when some line was not (one line on stderr for
 * each, naming it; the other lines are still read) or FILE cannot be
 * read, 2 on bad usage. */
int ddz_cli_puzzles(int argc, char **argv);

#endif
