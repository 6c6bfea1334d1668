/* cli_store.h - `ddz token` (bot tokens) and `ddz export` (game records as
 * JSON lines), on the database of service/store.h. */
#ifndef DDZ_CLI_STORE_H
#define DDZ_CLI_STORE_H

/* Runs `ddz token add NAME | list | revoke NAME [--db PATH]` with argv[0] ==
 * "token". The database is --db PATH, else $DDZ_DB if set and not empty,
 * else ddz.db in the working directory; `add` creates it if missing, `list`
 * and `revoke` require it. Returns the exit status: 0; 1 when the database
 * cannot be opened or used, the name already has an active token (add) or
 * has none (revoke), with one line on stderr; 2 on bad usage. */
int ddz_cli_token(int argc, char **argv);

/* Runs `ddz export [--db PATH] [--all] [-o FILE]` with argv[0] == "export":
 * writes the record of every finished game, and with --all of every aborted
 * game too, as JSON lines in game id order to FILE (standard output by
 * default). Returns 0; 1 when the database is missing or cannot be read or
 * FILE cannot be written (one line on stderr); 2 on bad usage. */
int ddz_cli_export(int argc, char **argv);

#endif
