/* cli_bench.h - `ddz bench`: the speed figures of docs/benchmarks.md. */
#ifndef DDZ_CLI_BENCH_H
#define DDZ_CLI_BENCH_H

/* Runs `ddz bench [--json] [--seconds S] [--seed N]` with argv[0] ==
 * "bench", or `ddz bench ai ...`, or `ddz bench analyze ...`
 * (cli_bench_analyze.h). Returns the exit status (0, or 2 on bad usage). */
int ddz_cli_bench(int argc, char **argv);

#endif
