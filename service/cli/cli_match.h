/* cli_match.h - `ddz match`: one table, N games, a results table (spec §10). */
#ifndef DDZ_CLI_MATCH_H
#define DDZ_CLI_MATCH_H

/* Runs `ddz match` with argv[0] == "match". Returns the exit status: 0, 1 if
 * the match could not run or its log could not be written, 2 on bad usage. */
int ddz_cli_match(int argc, char **argv);

#endif
