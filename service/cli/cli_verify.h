/* cli_verify.h - `ddz verify FILE`: replay game records and check them
 * (spec §2, §10). */
#ifndef DDZ_CLI_VERIFY_H
#define DDZ_CLI_VERIFY_H

#include <stddef.h>

#include "rules/record.h"

/* Runs `ddz verify` with argv[0] == "verify". Reads FILE ("-" for stdin),
 * one JSON record (proto/record_json.h) per line, blank lines ignored, and
 * verifies each with ddz_record_verify() under the rule set its `rules`
 * names. Returns the process exit status: 0 when every record verifies
 * ("N records verified" on stdout), 1 at the first line that does not parse,
 * decode or verify, or when FILE cannot be read (one line on stderr naming
 * the line, the game and the field), 2 on bad usage. */
int ddz_cli_verify(int argc, char **argv);

/* Reads the record on line `lineno` of a records file (`line`, `len`
 * bytes) into *r and its rule set into *rs, and verifies it as `ddz
 * verify` does. Returns 0, or 1 after one line on stderr, "ddz CMD: line
 * N (game G): why", for a line that is not JSON, not a record, of an
 * unknown rule set, or that does not verify. */
int ddz_cli_read_record(const char *cmd, const char *line, size_t len, long lineno, ddz_record *r,
                        const ddz_rules **rs);

#endif
