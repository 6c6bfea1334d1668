/* cli_serve.h - `ddz serve`: options and environment for service/server. */
#ifndef DDZ_CLI_SERVE_H
#define DDZ_CLI_SERVE_H

/* Runs `ddz serve` with argv[0] == "serve". Returns the exit status: 0 after
 * a clean shutdown, 1 if the service could not start, 2 on bad usage. */
int ddz_cli_serve(int argc, char **argv);

#endif
