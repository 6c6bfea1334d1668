/* cli_bridge.h - `ddz bridge`: options of service/bridge.h's driver. */
#ifndef DDZ_CLI_BRIDGE_H
#define DDZ_CLI_BRIDGE_H

/* Runs `ddz bridge --url URL [options] -- COMMAND [ARG...]` with argv[0] ==
 * "bridge". Returns the exit status of ddz_bridge_run(), or 2 on bad usage
 * (one line on stderr). */
int ddz_cli_bridge(int argc, char **argv);

#endif
