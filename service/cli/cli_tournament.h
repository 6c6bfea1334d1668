/* cli_tournament.h - `ddz tournament`: a CAAI tournament (Swiss
 * preliminaries and duplicate finals) run locally, resumable. */
#ifndef DDZ_CLI_TOURNAMENT_H
#define DDZ_CLI_TOURNAMENT_H

/* Runs `ddz tournament ARGS`. Returns the exit status: 0 when the
 * tournament is over, 1 on a failure while it runs (it can be resumed),
 * 2 for bad usage or a bad players file. */
int ddz_cli_tournament(int argc, char **argv);

#endif
