/* cli_bridge.c - `ddz bridge` options. */
#include "service/cli/cli_bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/bridge/bridge.h"
#include "service/cli/cli_args.h"
#include "service/net/evloop.h"
#include "service/seats/seats.h"

static const char usage[] =
    "usage: ddz bridge --url ws[s]://HOST:PORT/ws --token T [--room ID | --enlist | --ladder] "
    "[--seat N]\n"
    "                  [--name NAME] [--botzone] [options] -- COMMAND [ARG...]\n"
    "\n"
    "Runs a local CAAI 1.0 engine (or, with --botzone, a Botzone bot) and plays\n"
    "it in a room of a `ddz serve`, translating the room's events to its\n"
    "protocol and its answers back, so it plays online unchanged. COMMAND runs\n"
    "as given (no shell; use sh -c for one).\n"
    "\n"
    "A CAAI engine is started at the first game and serves every turn (INFO\n"
    "counts them); one that fails or exits is started again for the next game.\n"
    "A Botzone bot (spec §11) is started for each request with the whole\n"
    "requests/responses history, or kept for the rest of the game if it prints\n"
    ">>>BOTZONE_REQUEST_KEEP_RUNNING<<< after its answer; it plays whatever\n"
    "rule set the room plays (caai, botzone-ftl, botzone-ftl2), which its\n"
    "requests carry. The room's clock times every answer (a bot's start\n"
    "included). A bad answer stops the program and sends nothing: the room's\n"
    "clock then charges our seat, and the room's rule set decides what\n"
    "follows; an illegal bid or play is the server's to charge.\n"
    "\n"
    "  --url URL           the server's WebSocket (required)\n"
    "  --token T           bot token from `ddz token add` (or DDZ_TOKEN)\n"
    "  --room ID           room to join; without it: the first listed room that\n"
    "                      allows bots, has no password and a free seat, else a\n"
    "                      new room with bots allowed (see --fill)\n"
    "  --enlist            play in the competition the server runs (ddz serve\n"
    "                      --tournament): the server seats us table after table,\n"
    "                      as the token's name, until the tournament is over\n"
    "  --ladder            play in the server's rated ladder (ddz serve --ladder):\n"
    "                      seated table after table, as the token's name, for as\n"
    "                      long as we run (released only if suspended for faults)\n"
    "  --seat N            0..2 or A..C (default: any free seat)\n"
    "  --password P        the room's password\n"
    "  --name NAME         hello name (a token's own name is shown instead)\n"
    "  --turns N           leave after N turns (default: ask for rematches)\n"
    "  --fill ai:NAME      in a room we create, hosted AIs take the other seats\n"
    "  --time S            in a room we create, seconds per action\n"
    "  --games N           in a room we create, games per turn\n"
    "  --rules NAME        in a room we create, the rule set (caai, botzone-ftl,\n"
    "                      botzone-ftl2; default caai); a room joined plays its own\n"
    "  --botzone           COMMAND is a Botzone bot, not a CAAI engine\n"
    "  --engine-log FILE   append the program's stderr to FILE (default: ours)\n"
    "  --retries N         reconnect attempts after a drop (default 8; back-off\n"
    "                      1, 2, 4 ... 30 s, resuming the seat)\n"
    "  --insecure          wss: accept a self-signed certificate\n"
    "  --quiet             warnings only on stderr\n"
    "  --event-loop K      auto (epoll, else poll()), epoll or poll (default auto)\n"
    "\n"
    "Exit status: 0 after --turns, when released (--enlist, --ladder) or on\n"
    "SIGINT/SIGTERM;\n"
    "1 when the server refuses the token or the room, or the program fails 3\n"
    "times before it ever answered a request or said its name; 2 bad usage;\n"
    "3 when the server shuts down, cannot be reached or the connection is lost.\n";

/* Joins argv into one shell command line, every word single-quoted.
 * Returns malloc'd text or NULL. */
static char *shell_join(int argc, char **argv)
{
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += 3 + 4 * strlen(argv[i]);
    char *s = malloc(cap), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        if (i)
            *p++ = ' ';
        *p++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *c;
            }
        }
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

int ddz_cli_bridge(int argc, char **argv)
{
    ddz_bridge_cfg cfg = {.retries = 8, .opts = {.seat = -1}};
    cfg.opts.token = getenv("DDZ_TOKEN");
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--insecure") == 0) {
            cfg.insecure = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            cfg.quiet = true;
            continue;
        }
        if (strcmp(a, "--enlist") == 0) {
            cfg.opts.enlist = true;
            continue;
        }
        if (strcmp(a, "--ladder") == 0) {
            cfg.opts.enlist = true;
            cfg.opts.competition = "ladder";
            continue;
        }
        if (strcmp(a, "--botzone") == 0) {
            cfg.protocol = DDZ_SEAT_BOTZONE;
            continue;
        }
        if (!v)
            return ddz_cli_usage("bridge", "missing value or unknown option");
        i++;
        if (strcmp(a, "--url") == 0) {
            cfg.url = v;
        } else if (strcmp(a, "--token") == 0) {
            cfg.opts.token = v;
        } else if (strcmp(a, "--room") == 0) {
            cfg.opts.room = v;
        } else if (strcmp(a, "--seat") == 0) {
            if (strlen(v) == 1 && v[0] >= 'A' && v[0] <= 'C')
                cfg.opts.seat = v[0] - 'A';
            else if (ddz_cli_int(v, 0, 2, &cfg.opts.seat) < 0)
                return ddz_cli_usage("bridge", "--seat must be 0..2 or A..C");
        } else if (strcmp(a, "--password") == 0) {
            cfg.opts.password = v;
        } else if (strcmp(a, "--name") == 0) {
            if (!*v || strlen(v) > 32)
                return ddz_cli_usage("bridge", "--name must be 1..32 bytes");
            cfg.opts.name = v;
        } else if (strcmp(a, "--turns") == 0) {
            if (ddz_cli_int(v, 1, 1000000, &cfg.opts.turns) < 0)
                return ddz_cli_usage("bridge", "--turns must be a positive number");
        } else if (strcmp(a, "--fill") == 0) {
            if (strncmp(v, "ai:", 3) != 0 || !v[3])
                return ddz_cli_usage("bridge", "--fill takes ai:NAME");
            cfg.opts.fill = v;
        } else if (strcmp(a, "--time") == 0) {
            if (ddz_cli_int(v, 3, 300, &cfg.opts.time) < 0)
                return ddz_cli_usage("bridge", "--time must be 3..300");
        } else if (strcmp(a, "--games") == 0) {
            if (ddz_cli_int(v, 1, 100, &cfg.opts.games) < 0)
                return ddz_cli_usage("bridge", "--games must be 1..100");
        } else if (strcmp(a, "--rules") == 0) {
            if (!ddz_rules_find(v)) {
                char what[160];
                snprintf(what, sizeof what, "--rules: unknown rule set (known: %s)",
                         ddz_rules_names());
                return ddz_cli_usage("bridge", what);
            }
            cfg.opts.rules = v;
        } else if (strcmp(a, "--engine-log") == 0) {
            cfg.engine_log = v;
        } else if (strcmp(a, "--retries") == 0) {
            if (ddz_cli_int(v, 0, 1000, &cfg.retries) < 0)
                return ddz_cli_usage("bridge", "--retries must be 0..1000");
        } else if (strcmp(a, "--event-loop") == 0) {
            ddz_evloop_kind k;
            if (ddz_evloop_parse(v, &k) < 0)
                return ddz_cli_usage("bridge", "--event-loop must be auto, epoll or poll");
            cfg.event_loop = (int)k;
        } else {
            return ddz_cli_usage("bridge", "unknown option");
        }
    }
    if (!cfg.url)
        return ddz_cli_usage("bridge", "--url is required");
    if (cfg.opts.enlist && (cfg.opts.room || cfg.opts.turns || cfg.opts.fill))
        return ddz_cli_usage("bridge",
                             "--enlist and --ladder go without --room, --turns and --fill");
    if (cfg.opts.enlist && !cfg.opts.token)
        return ddz_cli_usage("bridge", "--enlist and --ladder need --token (or DDZ_TOKEN)");
    if (i >= argc)
        return ddz_cli_usage("bridge", "the program's command is missing after --");
    if (cfg.opts.token && !*cfg.opts.token)
        cfg.opts.token = NULL;
    char *cmd = shell_join(argc - i, argv + i);
    if (!cmd)
        return 1;
    cfg.engine_cmd = cmd;
    int rc = ddz_bridge_run(&cfg);
    free(cmd);
    return rc;
}
