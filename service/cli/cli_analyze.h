/* cli_analyze.h - `ddz analyze FILE`: who was winning, play by play, in
 * finished games (spec §10, ai/analysis.h). */
#ifndef DDZ_CLI_ANALYZE_H
#define DDZ_CLI_ANALYZE_H

/* The default budget per position, and the solver's table (2^bits
 * entries of 16 bytes): docs/analysis.md says how they were
 * chosen. */
enum {
    DDZ_ANALYZE_MS = 1000,
    DDZ_ANALYZE_NODES = 2000000,
    DDZ_ANALYZE_TT_BITS = 22,
};

/* Runs `ddz analyze` with argv[0] == "analyze". Reads FILE ("-" for stdin),
 * one JSON record (proto/record_json.h) per line, blank lines skipped;
 * verifies each (ddz_record_verify) and analyses it (ai/analysis.h),
 * writing one JSON line per play, then one summary line per player name
 * and a last line of totals. Returns the process exit status: 0 when every
 * line was a record that verified, 1 when some line was not (one line on
 * stderr for each, naming it; the other lines are still analysed) or FILE
 * cannot be read, 2 on bad usage. */
int ddz_cli_analyze(int argc, char **argv);

#endif
