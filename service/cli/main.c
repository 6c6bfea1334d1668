/* main.c - the `ddz` command: one binary, subcommands. */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "service/cli/cli_analyze.h"
#include "service/cli/cli_bench.h"
#include "service/cli/cli_bridge.h"
#include "service/cli/cli_engine.h"
#include "service/cli/cli_loadtest.h"
#include "service/cli/cli_match.h"
#include "service/cli/cli_puzzles.h"
#include "service/cli/cli_rules.h"
#include "service/cli/cli_serve.h"
#include "service/cli/cli_store.h"
#include "service/cli/cli_tournament.h"
#include "service/cli/cli_verify.h"

static const char usage[] =
    "usage: ddz COMMAND [ARGS]\n"
    "\n"
    "Dou Dizhu (CAAI 1.0 rules; Botzone's with --rules): referee, engines, online service.\n"
    "\n"
    "commands:\n"
    "  serve [--port 8080] [--db PATH] [--web DIR] ...\n"
    "                                  the online service (browser client, /ws, /api)\n"
    "  rules classify [--rules NAME] CODES\n"
    "                                  classify a play (JSON)\n"
    "  rules moves --hand CODES [--follow CODES] [--rules NAME]\n"
    "                                  list every legal play, one per line\n"
    "  rules deal --seed HEX64         the deal of a seed, with its commitment\n"
    "  match --seat A=SPEC --seat B=SPEC --seat C=SPEC [--games N] [--seed HEX64]\n"
    "        [--time S] [--log FILE] [--rotate] [--rules NAME]\n"
    "                                  play games at one table (SPEC: exec:CMD, ai:NAME)\n"
    "  engine [--ai NAME] [--budget MS]\n"
    "                                  a hosted AI as a CAAI engine on stdin/stdout\n"
    "  bench [--json] [--seconds S] [--rules NAME]\n"
    "                                  move generation and self-play speed\n"
    "  bench ai [--opponent NAME] [--deals N] [--budget MS] [--rollouts N] [--threads T]\n"
    "                                  a hosted AI's strength in duplicate deals\n"
    "  bench analyze [--deals N] [--budget-ms N] [--nodes N]\n"
    "                                  what ddz analyze decides, how fast; who gives wins away\n"
    "  verify FILE                     check game records (JSON lines) by replaying them\n"
    "  analyze FILE [--budget-ms N] [--nodes N]\n"
    "                                  who was winning, play by play, in game records\n"
    "  puzzles FILE [--max-cards N] [--rules NAME]\n"
    "                                  endgames where few plays win, found in game records\n"
    "  token add NAME | list | revoke NAME [--db PATH]\n"
    "                                  manage bot login tokens (database: $DDZ_DB or ddz.db)\n"
    "  export [--db PATH] [--all] [-o FILE]\n"
    "                                  stored game records as JSON lines\n"
    "  bridge --url URL --token T [--room ID] -- COMMAND...\n"
    "                                  play a local CAAI engine in a room of a server\n"
    "  loadtest --url URL [--tables N] [--seconds S] [--rate R] [--json]\n"
    "                                  benchmark a server with many playing clients\n"
    "\n"
    "Run 'ddz COMMAND --help' for a command's options.\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"rules", ddz_cli_rules},           {"serve", ddz_cli_serve},
    {"bench", ddz_cli_bench},           {"verify", ddz_cli_verify},
    {"match", ddz_cli_match},           {"engine", ddz_cli_engine},
    {"token", ddz_cli_token},           {"export", ddz_cli_export},
    {"bridge", ddz_cli_bridge},         {"loadtest", ddz_cli_loadtest},
    {"tournament", ddz_cli_tournament}, {"analyze", ddz_cli_analyze},
    {"puzzles", ddz_cli_puzzles},
};

int main(int argc, char **argv)
{
    if (sodium_init() < 0) {
        fputs("ddz: libsodium failed to initialise\n", stderr);
        return 1;
    }
    if (argc < 2) {
        fputs("ddz: a command is required (try 'ddz --help')\n", stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ddz: unknown command '%s' (try 'ddz --help')\n", argv[1]);
    return 2;
}
