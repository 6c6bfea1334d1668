/* cli_serve.c - `ddz serve` options; every option also has a DDZ_*
 * environment variable (the flag wins), for containers. */
#include "service/cli/cli_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ai/ai.h"
#include "service/cli/cli_args.h"
#include "service/cluster/cluster.h"
#include "service/net/evloop.h"
#include "service/seats/seats.h"
#include "service/server/analyst.h"
#include "service/ladder/ladder_srv.h"
#include "service/puzzles/puzzles_srv.h"
#include "service/server/server.h"
#include "service/store/journal.h"
#include "service/store/pg_conn.h"
#include "service/store/store.h"
#include "service/tourney/tourney_srv.h"

static const char usage[] =
    "usage: ddz serve [--port N] [--bind ADDR] [--db PATH|URL] [--db-queue N] [--web DIR]\n"
    "                 [--db-journal PATH] [--db-journal-max N] [--db-journal-mb N]\n"
    "                 [--db-timeout MS]\n"
    "                 [--tls-cert FILE --tls-key FILE] [--engine NAME=[botzone:]CMD]...\n"
    "                 [--engine-logs DIR] [--max-conns N] [--origins LIST]\n"
    "                 [--ai-delay-ms N] [--ready-clock S] [--rated-fill-s S]\n"
    "                 [--idle S] [--rate N]\n"
    "                 [--ai NAME] [--quiet] [--resume-keep S] [--signups-per-hour N]\n"
    "                 [--event-loop auto|epoll|poll]\n"
    "                 [--max-engines N] [--max-ais N] [--max-idle-rooms N]\n"
    "                 [--max-rooms-per-ip N] [--max-conns-per-ip N] [--trusted-proxy ADDR]\n"
    "                 [--max-queued-bytes N] [--max-queue-per-conn N] [--password-tries N]\n"
    "                 [--analysis-jobs N] [--ai-think-per-ip MS]\n"
    "                 [--spawn-rate N] [--spawn-rate-room N] [--spawn-rate-ip N]\n"
    "                 [--tournament DIR [--tournament-late S]]\n"
    "                 [--ladder] [--ladder-engine NAME]... [--ladder-ai NAME[:MS]]...\n"
    "                 [--ladder-rules NAME] [--ladder-time S] [--ladder-tables N]\n"
    "                 [--ladder-max N] [--node ID --public-url URL]\n"
    "\n"
    "Serves the browser client over HTTP and the JSON protocol over WebSocket at\n"
    "/ws (proto/PROTOCOL.md), game records at /api/games/ID, /healthz and\n"
    "/metrics. Stops cleanly on SIGTERM or SIGINT.\n"
    "\n"
    "  --port N            TCP port (DDZ_PORT, default 8080)\n"
    "  --bind ADDR         listen on this address only (DDZ_BIND, default all)\n"
    "  --db PATH|URL       SQLite database, or a PostgreSQL postgres:// URL\n"
    "                      (DDZ_DB, default ddz.db)\n"
    "  --node ID           this node's id in a cluster, [a-z0-9]{1,16}, the prefix\n"
    "                      of its room ids (DDZ_NODE); needs a postgres:// --db and\n"
    "                      --public-url: every node's lobby lists every room\n"
    "  --public-url URL    ws(s)://HOST[:PORT]/PATH where clients of other nodes\n"
    "                      reach this one (DDZ_PUBLIC_URL)\n"
    "  --db-queue N        games and turn results held for the database writer\n"
    "                      before new ones are dropped (DDZ_DB_QUEUE, default 10000)\n"
    "  --db-journal PATH   with a postgres:// --db, the file that keeps the writes\n"
    "                      the database could not take while away, replayed when\n"
    "                      it is back and at the next start (DDZ_DB_JOURNAL,\n"
    "                      default ./ddz-journal-HASH.db: HASH of --db and --node)\n"
    "  --db-journal-max N  writes the journal keeps before it drops the oldest\n"
    "                      (DDZ_DB_JOURNAL_MAX, default 100000)\n"
    "  --db-journal-mb N   megabytes it keeps before it drops the oldest\n"
    "                      (DDZ_DB_JOURNAL_MB, default 256)\n"
    "  --db-timeout MS     with a postgres:// --db, how long any round trip with the\n"
    "                      database may take before it is given up and its\n"
    "                      connection dropped: a write then goes to the journal, a\n"
    "                      read answers 503 (DDZ_DB_TIMEOUT, 100..600000, default 3000)\n"
    "  --web DIR           static client (DDZ_WEB, default ./web or the installed copy)\n"
    "  --tls-cert FILE     PEM certificate: serve HTTPS and WSS (DDZ_TLS_CERT)\n"
    "  --tls-key FILE      PEM private key (DDZ_TLS_KEY)\n"
    "  --engine NAME=CMD   register a local program, seated as engine:NAME: CMD is\n"
    "                      a CAAI 1.0 engine's command line (or exec:COMMAND), or\n"
    "                      botzone:COMMAND for a Botzone bot (spec §11, one-shot or\n"
    "                      keep-running, as the bot chooses)\n"
    "  --engine-logs DIR   engines' stderr files (DDZ_ENGINE_LOGS, default discarded)\n"
    "  --tournament DIR    run the tournament of DIR/players and DIR/options (as\n"
    "                      ddz tournament, plus bot:TOKENNAME and engine:NAME\n"
    "                      players), resuming it; results in DIR, live at\n"
    "                      /api/tournament (DDZ_TOURNAMENT)\n"
    "  --tournament-late S seconds a table waits for an absent bot before it\n"
    "                      forfeits (DDZ_TOURNAMENT_LATE, default 300)\n"
    "  --ladder            run the rated ladder (spec §12; GET /api/ladder): bots\n"
    "                      join with ddz bridge --ladder (DDZ_LADDER=1; any ladder\n"
    "                      option below turns it on too)\n"
    "  --ladder-engine NAME  the operator engine NAME (an --engine) plays in it\n"
    "  --ladder-ai NAME[:MS] the hosted AI NAME plays in it (MS: its budget per\n"
    "                      decision), a fixed reference point\n"
    "  --ladder-rules NAME the ladder's rule set (DDZ_LADDER_RULES, default caai)\n"
    "  --ladder-time S     seconds per bid or play at the ladder (DDZ_LADDER_TIME,\n"
    "                      default 10)\n"
    "  --ladder-tables N   ladder tables played at once, 2..64 (DDZ_LADDER_TABLES, default 4)\n"
    "  --ladder-max N      ladder participants known at most (DDZ_LADDER_MAX,\n"
    "                      default 100)\n"
    "  --max-conns N       connection cap (DDZ_MAX_CONNS, default 5000)\n"
    "  --origins LIST      comma-separated allowed Origin headers (DDZ_ORIGINS,\n"
    "                      default any)\n"
    "  --ai-delay-ms N     pause before a hosted AI acts when people watch\n"
    "                      (DDZ_AI_DELAY_MS, default 700)\n"
    "  --ready-clock S     seconds a casual room waits between games for a person's\n"
    "                      ready before standing them up (DDZ_READY_CLOCK, 2..120,\n"
    "                      default 20)\n"
    "  --rated-fill-s S    seconds a person waits for rated quick play before hosted\n"
    "                      AIs fill the table (DDZ_RATED_FILL_S, 1..600, default 20)\n"
    "  --idle S            ping a connection idle this long, drop it 10 s later\n"
    "                      (DDZ_IDLE, default 20)\n"
    "  --rate N            frames per second a client may send (DDZ_RATE, default 20)\n"
    "  --resume-keep S     seconds a player who dropped, at no table, is kept for a\n"
    "                      resume (DDZ_RESUME_KEEP, default 120)\n"
    "  --signups-per-hour N  accounts one client address may make in an hour\n"
    "                      (DDZ_SIGNUPS_PER_HOUR, default 5)\n"
    "  --ai NAME           hosted AI for quick play and custody (DDZ_AI)\n"
    "  --quiet             no log lines on stderr (DDZ_QUIET=1)\n"
    "  --event-loop K      auto (epoll, or poll() if lws's libev plugin cannot be\n"
    "                      loaded), epoll, or poll (DDZ_EVENT_LOOP, default auto)\n"
    "\n"
    "Budgets (docs/operations.md, \"Budgets\"): what clients can make the server hold.\n"
    "  --max-engines N     engine processes: engine seats live rooms may reserve\n"
    "                      (DDZ_MAX_ENGINES, default 64)\n"
    "  --max-ais N         hosted AI objects (DDZ_MAX_AIS, default 2000)\n"
    "  --max-idle-rooms N  rooms nobody is connected to; past it the one idle the\n"
    "                      longest closes (DDZ_MAX_IDLE_ROOMS, default 1000)\n"
    "  --max-rooms-per-ip N  live rooms created from one address\n"
    "                      (DDZ_MAX_ROOMS_PER_IP, default 50)\n"
    "  --max-conns-per-ip N  connections from one address (DDZ_MAX_CONNS_PER_IP,\n"
    "                      default 100)\n"
    "  --trusted-proxy ADDR  a reverse proxy: its connections are counted as the\n"
    "                      last hop of X-Forwarded-For (DDZ_TRUSTED_PROXY)\n"
    "  --max-queued-bytes N  unsent output over all connections; past it the\n"
    "                      connections with the most are cut (DDZ_MAX_QUEUED_BYTES,\n"
    "                      default 67108864: 64 MiB)\n"
    "  --max-queue-per-conn N  unsent output of one connection before it is cut\n"
    "                      (DDZ_MAX_QUEUE_PER_CONN, default 262144: 256 KiB)\n"
    "  --password-tries N  wrong room passwords a minute per room and per address,\n"
    "                      then a lockout of 1 min doubling up to 1 h\n"
    "                      (DDZ_PASSWORD_TRIES, default 5)\n"
    "  --analysis-jobs N   post-game analyses queued or running at once (0..64;\n"
    "                      0: none, every one not cached is refused 503)\n"
    "                      (DDZ_ANALYSIS_JOBS, default 8)\n"
    "  --spawn-rate N      engine processes started a second in all; a Botzone\n"
    "                      bot's start waits for it within the turn's time, a room\n"
    "                      with engine seats is refused EBUSY while it is spent\n"
    "                      (DDZ_SPAWN_RATE, default 50)\n"
    "  --spawn-rate-room N  engine processes one room starts a second\n"
    "                      (DDZ_SPAWN_RATE_ROOM, default 10)\n"
    "  --ai-think-per-ip MS  milliseconds of hosted-AI thinking a second the rooms\n"
    "                      of one address get at full strength, ten seconds' worth\n"
    "                      at once; past it their AIs decide within 50 ms until it\n"
    "                      refills (DDZ_AI_THINK_PER_IP, default 1000)\n"
    "  --spawn-rate-ip N   engine processes started a second for the rooms of one\n"
    "                      client address; a room with engine seats is refused\n"
    "                      ERATE while it is spent (DDZ_SPAWN_RATE_IP, default 20)\n";

#define DB_QUEUE_MAX 1000000    /* --db-queue: a million games' records are some 2 GB */
#define DB_JOURNAL_MAX 10000000 /* --db-journal-max: ten million writes, some 20 GB */
#define DB_JOURNAL_MB 1048576   /* --db-journal-mb: 1 TiB */
#define DB_TIMEOUT_MAX 600000   /* --db-timeout: 10 minutes, in ms */

_Static_assert(DDZ_STORE_QUEUE_MAX == 10000,
               "the usage and docs/operations.md give --db-queue's default");
_Static_assert(DDZ_PG_TIMEOUT_MS == 3000,
               "the usage and docs/operations.md give --db-timeout's default");
_Static_assert(
    DDZ_JOURNAL_MAX_ENTRIES == 100000 && DDZ_JOURNAL_MAX_BYTES == (INT64_C(256) << 20),
    "the usage and docs/operations.md give --db-journal-max's and --db-journal-mb's defaults");

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ddz_cli_serve(int argc, char **argv)
{
    ddz_server_cfg cfg = {.port = 8080, .db_path = "ddz.db", .ai_delay_ms = 700};
    const char *env;
    /* environment first, flags override */
    if ((env = getenv("DDZ_PORT")) && ddz_cli_int(env, 1, 65535, &cfg.port) < 0)
        return ddz_cli_usage("serve", "DDZ_PORT must be a port number");
    cfg.bind = getenv("DDZ_BIND");
    if ((env = getenv("DDZ_DB")))
        cfg.db_path = env;
    cfg.web_dir = getenv("DDZ_WEB");
    cfg.tls_cert = getenv("DDZ_TLS_CERT");
    cfg.tls_key = getenv("DDZ_TLS_KEY");
    cfg.engine_log_dir = getenv("DDZ_ENGINE_LOGS");
    cfg.tournament_dir = getenv("DDZ_TOURNAMENT");
    cfg.tournament_late_s = 300;
    if ((env = getenv("DDZ_TOURNAMENT_LATE")) &&
        ddz_cli_int(env, 0, 86400, &cfg.tournament_late_s) < 0)
        return ddz_cli_usage("serve", "DDZ_TOURNAMENT_LATE must be 0..86400");
    cfg.ladder = (env = getenv("DDZ_LADDER")) && strcmp(env, "1") == 0;
    cfg.ladder_rules = getenv("DDZ_LADDER_RULES");
    if ((env = getenv("DDZ_LADDER_TIME")) && ddz_cli_int(env, 3, 300, &cfg.ladder_time_s) < 0)
        return ddz_cli_usage("serve", "DDZ_LADDER_TIME must be 3..300");
    if ((env = getenv("DDZ_LADDER_TABLES")) && ddz_cli_int(env, 2, 64, &cfg.ladder_tables) < 0)
        return ddz_cli_usage("serve", "DDZ_LADDER_TABLES must be 2..64");
    if ((env = getenv("DDZ_LADDER_MAX")) && ddz_cli_int(env, 3, 256, &cfg.ladder_max) < 0)
        return ddz_cli_usage("serve", "DDZ_LADDER_MAX must be 3..256");
    cfg.origins = getenv("DDZ_ORIGINS");
    cfg.default_ai = getenv("DDZ_AI");
    if ((env = getenv("DDZ_DB_QUEUE")) && ddz_cli_int(env, 1, DB_QUEUE_MAX, &cfg.db_queue) < 0)
        return ddz_cli_usage("serve", "DDZ_DB_QUEUE must be 1..1000000");
    int analysis_jobs = -1; /* --analysis-jobs, -1: not given */
    if ((env = getenv("DDZ_ANALYSIS_JOBS")) &&
        ddz_cli_int(env, 0, DDZ_ANALYST_JOBS_MAX, &analysis_jobs) < 0)
        return ddz_cli_usage("serve", "DDZ_ANALYSIS_JOBS must be 0..64");
    cfg.db_journal = getenv("DDZ_DB_JOURNAL");
    if ((env = getenv("DDZ_DB_JOURNAL_MAX")) &&
        ddz_cli_int(env, 1, DB_JOURNAL_MAX, &cfg.db_journal_max) < 0)
        return ddz_cli_usage("serve", "DDZ_DB_JOURNAL_MAX must be 1..10000000");
    if ((env = getenv("DDZ_DB_JOURNAL_MB")) &&
        ddz_cli_int(env, 1, DB_JOURNAL_MB, &cfg.db_journal_mb) < 0)
        return ddz_cli_usage("serve", "DDZ_DB_JOURNAL_MB must be 1..1048576");
    if ((env = getenv("DDZ_DB_TIMEOUT")) &&
        ddz_cli_int(env, 100, DB_TIMEOUT_MAX, &cfg.db_timeout_ms) < 0)
        return ddz_cli_usage("serve", "DDZ_DB_TIMEOUT must be 100..600000");
    if ((env = getenv("DDZ_MAX_CONNS")) && ddz_cli_int(env, 1, 1000000, &cfg.max_conns) < 0)
        return ddz_cli_usage("serve", "DDZ_MAX_CONNS must be a positive number");
    if ((env = getenv("DDZ_AI_DELAY_MS")) && ddz_cli_int(env, 0, 10000, &cfg.ai_delay_ms) < 0)
        return ddz_cli_usage("serve", "DDZ_AI_DELAY_MS must be 0..10000");
    if ((env = getenv("DDZ_READY_CLOCK")) && ddz_cli_int(env, 2, 120, &cfg.ready_s) < 0)
        return ddz_cli_usage("serve", "DDZ_READY_CLOCK must be 2..120");
    if ((env = getenv("DDZ_RATED_FILL_S")) && ddz_cli_int(env, 1, 600, &cfg.rated_fill_s) < 0)
        return ddz_cli_usage("serve", "DDZ_RATED_FILL_S must be 1..600");
    if ((env = getenv("DDZ_IDLE")) && ddz_cli_int(env, 1, 3600, &cfg.idle_s) < 0)
        return ddz_cli_usage("serve", "DDZ_IDLE must be 1..3600");
    if ((env = getenv("DDZ_RATE")) && ddz_cli_int(env, 1, 100000, &cfg.rate) < 0)
        return ddz_cli_usage("serve", "DDZ_RATE must be a positive number");
    if ((env = getenv("DDZ_RESUME_KEEP")) && ddz_cli_int(env, 1, 86400, &cfg.resume_keep_s) < 0)
        return ddz_cli_usage("serve", "DDZ_RESUME_KEEP must be 1..86400");
    if ((env = getenv("DDZ_SIGNUPS_PER_HOUR")) &&
        ddz_cli_int(env, 1, 100000, &cfg.signups_per_hour) < 0)
        return ddz_cli_usage("serve", "DDZ_SIGNUPS_PER_HOUR must be 1..100000");
    cfg.quiet = (env = getenv("DDZ_QUIET")) && strcmp(env, "1") == 0;
    ddz_evloop_kind loop_kind;
    if ((env = getenv("DDZ_EVENT_LOOP")) && ddz_evloop_parse(env, &loop_kind) == 0)
        cfg.event_loop = (int)loop_kind;
    cfg.trusted_proxy = getenv("DDZ_TRUSTED_PROXY");
    cfg.node = getenv("DDZ_NODE");
    cfg.public_url = getenv("DDZ_PUBLIC_URL");
    /* the budgets: a positive number each, bytes up to 2 GB */
    const struct {
        const char *var, *flag;
        int *to;
        int max;
    } limits[] = {
        {"DDZ_MAX_ENGINES", "--max-engines", &cfg.max_engines, 1000000},
        {"DDZ_MAX_AIS", "--max-ais", &cfg.max_ais, 1000000},
        {"DDZ_MAX_IDLE_ROOMS", "--max-idle-rooms", &cfg.max_idle_rooms, 1000000},
        {"DDZ_MAX_ROOMS_PER_IP", "--max-rooms-per-ip", &cfg.max_rooms_per_ip, 1000000},
        {"DDZ_MAX_CONNS_PER_IP", "--max-conns-per-ip", &cfg.max_conns_per_ip, 1000000},
        {"DDZ_MAX_QUEUED_BYTES", "--max-queued-bytes", &cfg.max_queued_bytes, 2000000000},
        {"DDZ_MAX_QUEUE_PER_CONN", "--max-queue-per-conn", &cfg.max_queue_per_conn, 2000000000},
        {"DDZ_PASSWORD_TRIES", "--password-tries", &cfg.password_tries, 1000000},
        {"DDZ_SPAWN_RATE", "--spawn-rate", &cfg.spawn_rate, 1000000},
        {"DDZ_SPAWN_RATE_ROOM", "--spawn-rate-room", &cfg.spawn_rate_room, 1000000},
        {"DDZ_AI_THINK_PER_IP", "--ai-think-per-ip", &cfg.ai_think_per_ip, 1000000},
        {"DDZ_SPAWN_RATE_IP", "--spawn-rate-ip", &cfg.spawn_rate_ip, 1000000},
    };
    const size_t nlimits = sizeof limits / sizeof limits[0];
    for (size_t k = 0; k < nlimits; k++)
        if ((env = getenv(limits[k].var)) && ddz_cli_int(env, 1, limits[k].max, limits[k].to) < 0) {
            char msg[80];
            snprintf(msg, sizeof msg, "%s must be 1..%d", limits[k].var, limits[k].max);
            return ddz_cli_usage("serve", msg);
        }

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t k = 0;
        while (k < nlimits && strcmp(a, limits[k].flag) != 0)
            k++;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--quiet") == 0) {
            cfg.quiet = true;
            continue;
        }
        if (strcmp(a, "--ladder") == 0) {
            cfg.ladder = true;
            continue;
        }
        if (!v)
            return ddz_cli_usage("serve", "missing value or unknown option");
        i++;
        if (strcmp(a, "--port") == 0) {
            if (ddz_cli_int(v, 1, 65535, &cfg.port) < 0)
                return ddz_cli_usage("serve", "--port must be 1..65535");
        } else if (strcmp(a, "--bind") == 0) {
            cfg.bind = v;
        } else if (strcmp(a, "--db") == 0) {
            cfg.db_path = v;
        } else if (strcmp(a, "--analysis-jobs") == 0) {
            if (ddz_cli_int(v, 0, DDZ_ANALYST_JOBS_MAX, &analysis_jobs) < 0)
                return ddz_cli_usage("serve", "--analysis-jobs must be 0..64");
        } else if (strcmp(a, "--db-queue") == 0) {
            if (ddz_cli_int(v, 1, DB_QUEUE_MAX, &cfg.db_queue) < 0)
                return ddz_cli_usage("serve", "--db-queue must be 1..1000000");
        } else if (strcmp(a, "--db-journal") == 0) {
            cfg.db_journal = v;
        } else if (strcmp(a, "--db-journal-max") == 0) {
            if (ddz_cli_int(v, 1, DB_JOURNAL_MAX, &cfg.db_journal_max) < 0)
                return ddz_cli_usage("serve", "--db-journal-max must be 1..10000000");
        } else if (strcmp(a, "--db-journal-mb") == 0) {
            if (ddz_cli_int(v, 1, DB_JOURNAL_MB, &cfg.db_journal_mb) < 0)
                return ddz_cli_usage("serve", "--db-journal-mb must be 1..1048576");
        } else if (strcmp(a, "--db-timeout") == 0) {
            if (ddz_cli_int(v, 100, DB_TIMEOUT_MAX, &cfg.db_timeout_ms) < 0)
                return ddz_cli_usage("serve", "--db-timeout must be 100..600000");
        } else if (strcmp(a, "--web") == 0) {
            cfg.web_dir = v;
        } else if (strcmp(a, "--tls-cert") == 0) {
            cfg.tls_cert = v;
        } else if (strcmp(a, "--tls-key") == 0) {
            cfg.tls_key = v;
        } else if (strcmp(a, "--engine") == 0) {
            /* NAME=COMMAND is split in place (argv[i] is v): nothing to
             * allocate, so no usage error can leak a name */
            char *arg = argv[i], *eq = strchr(arg, '=');
            if (!eq || eq == arg || !eq[1])
                return ddz_cli_usage("serve", "--engine takes NAME=COMMAND");
            if (cfg.nengines == DDZ_SERVER_MAX_ENGINES)
                return ddz_cli_usage("serve", "too many --engine options");
            /* the protocol is read here, once: the rest of the server
             * carries it beside the command */
            int protocol;
            const char *cmd = ddz_seat_program_parse(eq + 1, &protocol);
            if (!cmd)
                return ddz_cli_usage("serve", "--engine NAME=PROTOCOL:COMMAND: the command is "
                                              "missing");
            *eq = '\0';
            char *name = arg;
            for (int e = 0; e < cfg.nengines; e++)
                if (strcmp(cfg.engine_name[e], name) == 0)
                    return ddz_cli_usage("serve", "--engine: a NAME may be given once");
            cfg.engine_name[cfg.nengines] = name;
            cfg.engine_protocol[cfg.nengines] = protocol;
            cfg.engine_cmd[cfg.nengines++] = cmd;
        } else if (strcmp(a, "--engine-logs") == 0) {
            cfg.engine_log_dir = v;
        } else if (strcmp(a, "--tournament") == 0) {
            cfg.tournament_dir = v;
        } else if (strcmp(a, "--tournament-late") == 0) {
            if (ddz_cli_int(v, 0, 86400, &cfg.tournament_late_s) < 0)
                return ddz_cli_usage("serve", "--tournament-late must be 0..86400 seconds");
        } else if (strcmp(a, "--ladder-engine") == 0 || strcmp(a, "--ladder-ai") == 0) {
            bool ai = strcmp(a, "--ladder-ai") == 0;
            int *n = ai ? &cfg.nladder_ais : &cfg.nladder_engines;
            if (*n == 16)
                return ddz_cli_usage("serve", "too many --ladder-engine or --ladder-ai options");
            (ai ? cfg.ladder_ai : cfg.ladder_engine)[(*n)++] = v;
        } else if (strcmp(a, "--ladder-rules") == 0) {
            cfg.ladder_rules = v;
        } else if (strcmp(a, "--ladder-time") == 0) {
            if (ddz_cli_int(v, 3, 300, &cfg.ladder_time_s) < 0)
                return ddz_cli_usage("serve", "--ladder-time must be 3..300 seconds");
        } else if (strcmp(a, "--ladder-tables") == 0) {
            if (ddz_cli_int(v, 2, 64, &cfg.ladder_tables) < 0)
                return ddz_cli_usage("serve", "--ladder-tables must be 2..64 (a deal is played at "
                                              "two tables at least)");
        } else if (strcmp(a, "--ladder-max") == 0) {
            if (ddz_cli_int(v, 3, 256, &cfg.ladder_max) < 0)
                return ddz_cli_usage("serve", "--ladder-max must be 3..256");
        } else if (strcmp(a, "--max-conns") == 0) {
            if (ddz_cli_int(v, 1, 1000000, &cfg.max_conns) < 0)
                return ddz_cli_usage("serve", "--max-conns must be a positive number");
        } else if (strcmp(a, "--origins") == 0) {
            cfg.origins = v;
        } else if (strcmp(a, "--event-loop") == 0) {
            ddz_evloop_kind k;
            if (ddz_evloop_parse(v, &k) < 0)
                return ddz_cli_usage("serve", "--event-loop must be auto, epoll or poll");
            cfg.event_loop = (int)k;
        } else if (strcmp(a, "--ai-delay-ms") == 0) {
            if (ddz_cli_int(v, 0, 10000, &cfg.ai_delay_ms) < 0)
                return ddz_cli_usage("serve", "--ai-delay-ms must be 0..10000");
        } else if (strcmp(a, "--ready-clock") == 0) {
            if (ddz_cli_int(v, 2, 120, &cfg.ready_s) < 0)
                return ddz_cli_usage("serve", "--ready-clock must be 2..120");
        } else if (strcmp(a, "--rated-fill-s") == 0) {
            if (ddz_cli_int(v, 1, 600, &cfg.rated_fill_s) < 0)
                return ddz_cli_usage("serve", "--rated-fill-s must be 1..600");
        } else if (strcmp(a, "--idle") == 0) {
            if (ddz_cli_int(v, 1, 3600, &cfg.idle_s) < 0)
                return ddz_cli_usage("serve", "--idle must be 1..3600");
        } else if (strcmp(a, "--rate") == 0) {
            if (ddz_cli_int(v, 1, 100000, &cfg.rate) < 0)
                return ddz_cli_usage("serve", "--rate must be a positive number");
        } else if (strcmp(a, "--signups-per-hour") == 0) {
            if (ddz_cli_int(v, 1, 100000, &cfg.signups_per_hour) < 0)
                return ddz_cli_usage("serve", "--signups-per-hour must be 1..100000");
        } else if (strcmp(a, "--resume-keep") == 0) {
            if (ddz_cli_int(v, 1, 86400, &cfg.resume_keep_s) < 0)
                return ddz_cli_usage("serve", "--resume-keep must be 1..86400");
        } else if (k < nlimits) {
            if (ddz_cli_int(v, 1, limits[k].max, limits[k].to) < 0) {
                char msg[80];
                snprintf(msg, sizeof msg, "%s must be 1..%d", a, limits[k].max);
                return ddz_cli_usage("serve", msg);
            }
        } else if (strcmp(a, "--trusted-proxy") == 0) {
            cfg.trusted_proxy = v;
        } else if (strcmp(a, "--node") == 0) {
            cfg.node = v;
        } else if (strcmp(a, "--public-url") == 0) {
            cfg.public_url = v;
        } else if (strcmp(a, "--ai") == 0) {
            cfg.default_ai = v;
        } else {
            return ddz_cli_usage("serve", "unknown option");
        }
    }
    if (!cfg.tls_cert != !cfg.tls_key)
        return ddz_cli_usage("serve", "--tls-cert and --tls-key go together");
    if (!cfg.node != !cfg.public_url)
        return ddz_cli_usage("serve", "--node and --public-url go together");
    if (cfg.node && !ddz_cluster_node_valid(cfg.node))
        return ddz_cli_usage("serve", "--node must be 1..16 of a-z and 0-9");
    if (cfg.public_url &&
        ((strncmp(cfg.public_url, "ws://", 5) != 0 && strncmp(cfg.public_url, "wss://", 6) != 0) ||
         strlen(cfg.public_url) >= DDZ_EVENT_URL_MAX))
        return ddz_cli_usage("serve", "--public-url must be a ws:// or wss:// URL");
    if (cfg.node && !ddz_cluster_is_pg_url(cfg.db_path))
        return ddz_cli_usage("serve", "--node needs a PostgreSQL --db (postgres://...)");
    if (cfg.default_ai && !ddz_ai_exists(cfg.default_ai))
        return ddz_cli_usage("serve", "--ai names no hosted AI");
    if (!cfg.web_dir)
        cfg.web_dir = is_dir("web") ? "web" : DDZ_DEFAULT_WEB;
    if (!is_dir(cfg.web_dir)) {
        fprintf(stderr, "ddz serve: web directory '%s' not found (use --web DIR)\n", cfg.web_dir);
        return 1;
    }
    /* 0 in the config is the default: no analyses at all is -1 there */
    cfg.analysis_jobs = analysis_jobs < 0 ? 0 : analysis_jobs == 0 ? -1 : analysis_jobs;
    /* the competitions it hosts: an `enlist` naming none is the
     * tournament's if one is configured, else the ladder's */
    static const ddz_plugin *const plugins[] = {&ddz_tourney_plugin, &ddz_ladder_plugin,
                                                &ddz_puzzles_plugin};
    cfg.plugins = plugins;
    cfg.nplugins = 3;
    return ddz_server_run(&cfg);
}
