/* cli_engine.h - `ddz engine`: a hosted AI as a CAAI 1.0 engine on
 * stdin/stdout, so it can enter any competition platform. */
#ifndef DDZ_CLI_ENGINE_H
#define DDZ_CLI_ENGINE_H

/* Runs `ddz engine [--ai NAME] [--seed N]` with argv[0] == "engine" until
 * stdin ends. Returns the exit status: 0, or 2 on bad usage. */
int ddz_cli_engine(int argc, char **argv);

#endif
