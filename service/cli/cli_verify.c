/* cli_verify.c - `ddz verify FILE`: check a file of game records. */
#include "service/cli/cli_verify.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/cli/cli_args.h"
#include "proto/record_json.h"
#include "rules/record.h"
#include "rules/ruleset.h"

static const char usage[] =
    "usage: ddz verify FILE\n"
    "\n"
    "Checks game records: one JSON object per line, as `ddz match --log`\n"
    "writes them (blank lines are skipped; FILE '-' reads standard input).\n"
    "Each record is replayed under the rule set its \"rules\" field names\n"
    "(caai if absent), checking:\n"
    "  - commit is BLAKE2b-256(seed), and hands and leftover are the seed's deal;\n"
    "  - every bid and play is legal and made in turn, and every pass marked\n"
    "    \"auto\" was made for a seat that could not beat the last play;\n"
    "  - every fault of \"faults\" is charged where it says (\"at\", or \"bids\"\n"
    "    during bidding) and \"fault\" is the first; under botzone-ftl2, where\n"
    "    the game goes on, every later action of a faulty seat is its\n"
    "    stand-in's (bid 0; pass when following; its lowest card on lead),\n"
    "    plays marked \"auto\";\n"
    "  - the game ends with the last play, or the fault that ended it;\n"
    "  - landlord, winner, bombs, rocket, spring, anti_spring, multiplier and\n"
    "    scores are what the replay gives under the rule set (spec §5-§6 for\n"
    "    caai, spec §8 for botzone-ftl and botzone-ftl2).\n"
    "A record cannot prove who caused a fault or its kind (the kind does not\n"
    "change the scores), nor a fault that changed nothing that was played or\n"
    "scored, nor the names, nor which game of a match it was.\n"
    "\n"
    "When every record checks out, prints 'N records verified' and exits 0.\n"
    "Otherwise stops at the first bad line with one line on stderr naming the\n"
    "line, the game and the field, and exits 1, e.g.\n"
    "  ddz verify: line 3 (game 2): scores[1]: -400, should be -200\n"
    "A file that cannot be read also exits 1; bad usage exits 2.\n";

int ddz_cli_read_record(const char *cmd, const char *line, size_t len, long lineno, ddz_record *r,
                        const ddz_rules **rs)
{
    json_error_t jerr;
    json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        ddz_cli_complain(cmd, "line %ld: invalid JSON at column %d: %s", lineno, jerr.column,
                         jerr.text);
        return 1;
    }
    /* Name the game in messages as soon as it can be read at all. */
    char game[48] = "";
    json_t *g = json_is_object(j) ? json_object_get(j, "game") : NULL;
    if (json_is_integer(g))
        snprintf(game, sizeof game, " (game %lld)", (long long)json_integer_value(g));

    char err[256];
    int rc = ddz_record_from_json(j, r, err, sizeof err);
    json_decref(j);
    if (rc < 0) {
        ddz_cli_complain(cmd, "line %ld%s: %s", lineno, game, err);
        return 1;
    }
    *rs = ddz_rules_find(r->rules);
    if (!*rs) {
        ddz_cli_complain(cmd, "line %ld%s: rules: unknown rule set '%s'", lineno, game, r->rules);
        return 1;
    }
    if (ddz_record_verify(r, *rs, err, sizeof err) < 0) {
        ddz_cli_complain(cmd, "line %ld%s: %s", lineno, game, err);
        return 1;
    }
    return 0;
}

/* Checks the record on one line; returns 0, or 1 after complaining. */
static int verify_line(const char *line, size_t len, long lineno)
{
    static ddz_record r; /* some 10 KB: not on the stack of every line */
    const ddz_rules *rs;
    return ddz_cli_read_record("verify", line, len, lineno, &r, &rs);
}

/* ddz_cli_each_line()'s call for a line: the first that fails ends the
 * run; *ctx counts those verified. */
static int each_line(void *ctx, const char *line, size_t len, long lineno)
{
    if (verify_line(line, len, lineno))
        return -1;
    (*(long *)ctx)++;
    return 0;
}

int ddz_cli_verify(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc != 2)
        return ddz_cli_usage("verify", "exactly one FILE is required");
    const char *path = argv[1];
    if (path[0] == '-' && path[1] != '\0')
        return ddz_cli_usage("verify", "unknown option");

    long verified = 0;
    int status = ddz_cli_each_line("verify", path, each_line, &verified);
    if (status == 0)
        printf("%ld records verified\n", verified);
    return status ? 1 : 0;
}
