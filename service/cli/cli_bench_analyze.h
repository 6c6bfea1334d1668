/* cli_bench_analyze.h - `ddz bench analyze`: how much of a game the
 * post-game analysis decides within its budget, how fast, and how often
 * the hosted AIs give a forced win away (docs/benchmarks.md, "Post-game analysis"). */
#ifndef DDZ_CLI_BENCH_ANALYZE_H
#define DDZ_CLI_BENCH_ANALYZE_H

/* Runs `ddz bench analyze [--deals N] [--budget-ms N] [--nodes N] [--seed S]
 * [--rollouts N] [--rules NAME] [--ais LIST]` with argv[0] == "analyze". Returns the exit
 * status: 0, 1 when an AI or the memory failed, 2 on bad usage. */
int ddz_cli_bench_analyze(int argc, char **argv);

#endif
