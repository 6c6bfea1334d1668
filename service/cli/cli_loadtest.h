/* cli_loadtest.h - `ddz loadtest`, the benchmark of `ddz serve`. */
#ifndef DDZ_CLI_LOADTEST_H
#define DDZ_CLI_LOADTEST_H

/* Runs `ddz loadtest --url URL [--tables N] [--seconds S] [--rate R]
 * [--client-rate R] [--pid PID] [--seed N] [--json]` with argv[0] ==
 * "loadtest". Prints the report of service/loadtest.h on stdout. Returns 0
 * when the run completed (even with errors: they are in the report), 1 when
 * it could not run, 2 on bad usage. */
int ddz_cli_loadtest(int argc, char **argv);

#endif
