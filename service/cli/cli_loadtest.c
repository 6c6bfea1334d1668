/* cli_loadtest.c - `ddz loadtest` options. */
#include "service/cli/cli_loadtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/cli/cli_args.h"
#include "service/loadtest/loadtest.h"

static const char usage[] =
    "usage: ddz loadtest --url ws://HOST:PORT/ws [--tables N] [--seconds S]\n"
    "                    [--rate ACTIONS_PER_S] [--client-rate R] [--pid PID]\n"
    "                    [--setup S] [--seed N] [--insecure] [--json]\n"
    "                    [--reconnects R] [--bad-frames R] [--engine NAME\n"
    "                    --engine-tables N] [--kills R] [--sample S]\n"
    "                    [--overs FILE] [--sign-ins R [--sign-in-conns N]\n"
    "                    [--sign-in-addrs N]]\n"
    "\n"
    "The benchmark of `ddz serve` (`ddz bench` measures the rules core): opens\n"
    "3 x N WebSocket connections in one event loop, seats them at N private\n"
    "tables (100 games, no pause, 60 s per action) and has every client act\n"
    "on its turn at once. Reports actions per second, the latency from writing\n"
    "an action to its broadcast reaching all three clients of the table\n"
    "(p50/p90/p99/max), games finished, errors and the server's VmRSS.\n"
    "Traffic goes to URL only; the run stops by itself.\n"
    "\n"
    "  --tables N        tables of three connections (default 10)\n"
    "  --seconds S       measured window (default 10), after connecting\n"
    "  --rate R          total actions per second (default: as fast as allowed)\n"
    "  --client-rate R   most actions per second per connection (default 10;\n"
    "                    the server drops frames above its --rate, 20/s)\n"
    "  --pid PID         the server's pid: report its VmRSS at start and end\n"
    "  --setup S         bound on connecting and seating (default 10 + N/50 s)\n"
    "  --seed N          seed of the random plays (default 1)\n"
    "  --insecure        wss: accept a self-signed certificate\n"
    "  --json            one JSON object instead of the readable report\n"
    "  --overs FILE      append \"ID KEY\" of each game as its `over` reaches\n"
    "                    the table (KEY - if none): what clients were told\n"
    "\n"
    "Faults for a soak test, mixed into the window (R: total per second):\n"
    "  --reconnects R    seated clients drop their connection (close frame or\n"
    "                    shut socket) and resume their seat 0.2..1 s later\n"
    "  --bad-frames R    clients send malformed, illegal, oversized, binary or\n"
    "                    invalid UTF-8 frames; each must get the error (and\n"
    "                    close) proto/PROTOCOL.md specifies\n"
    "  --engine NAME     the server's --engine for engine tables\n"
    "  --engine-tables N tables of one client and two engine:NAME seats\n"
    "                    (--tables 0 for engine tables only)\n"
    "  --kills R         SIGKILL a random engine process of the server (--pid)\n"
    "  --sample S        read the server's VmRSS and open fds every S seconds\n"
    "                    (--pid); its fds are also read before and after\n"
    "  --sign-ins R      a flood of failed sign-ins (POST /api/sessions, a new\n"
    "                    name and a wrong password each), R a second over\n"
    "  --sign-in-conns N connections at once (default 64), from\n"
    "  --sign-in-addrs N loopback addresses round robin (default 1000; a\n"
    "                    server on 127.0.0.1 sees each as its own client)\n"
    "Anything that goes otherwise counts as an error.\n"
    "\n"
    "Raises its own open-file limit to the hard limit; the server needs one\n"
    "descriptor per connection too (ulimit -n, and ddz serve --max-conns).\n";

int ddz_cli_loadtest(int argc, char **argv)
{
    ddz_loadtest_cfg cfg = {.tables = 10, .seconds = 10, .seed = 1};
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (strcmp(a, "--insecure") == 0) {
            cfg.insecure = true;
            continue;
        }
        if (!v)
            return ddz_cli_usage("loadtest", "missing value or unknown option");
        i++;
        if (strcmp(a, "--url") == 0) {
            cfg.url = v;
        } else if (strcmp(a, "--tables") == 0) {
            if (ddz_cli_double(v, 0, 100000, &d) < 0 || d != (int)d)
                return ddz_cli_usage("loadtest", "--tables must be 0..100000");
            cfg.tables = (int)d;
        } else if (strcmp(a, "--engine-tables") == 0) {
            if (ddz_cli_double(v, 0, 100000, &d) < 0 || d != (int)d)
                return ddz_cli_usage("loadtest", "--engine-tables must be 0..100000");
            cfg.engine_tables = (int)d;
        } else if (strcmp(a, "--engine") == 0) {
            cfg.engine = v;
        } else if (strcmp(a, "--reconnects") == 0) {
            if (ddz_cli_double(v, 0, 1e5, &cfg.reconnect_rate) < 0)
                return ddz_cli_usage("loadtest", "--reconnects must be a non-negative number");
        } else if (strcmp(a, "--bad-frames") == 0) {
            if (ddz_cli_double(v, 0, 1e5, &cfg.bad_rate) < 0)
                return ddz_cli_usage("loadtest", "--bad-frames must be a non-negative number");
        } else if (strcmp(a, "--kills") == 0) {
            if (ddz_cli_double(v, 0, 1e4, &cfg.kill_rate) < 0)
                return ddz_cli_usage("loadtest", "--kills must be a non-negative number");
        } else if (strcmp(a, "--sign-ins") == 0) {
            if (ddz_cli_double(v, 0, 10000, &cfg.signin_rate) < 0)
                return ddz_cli_usage("loadtest", "--sign-ins must be 0..10000 a second");
        } else if (strcmp(a, "--sign-in-conns") == 0) {
            if (ddz_cli_int(v, 1, 256, &cfg.signin_threads) < 0)
                return ddz_cli_usage("loadtest", "--sign-in-conns must be 1..256");
        } else if (strcmp(a, "--sign-in-addrs") == 0) {
            if (ddz_cli_int(v, 1, 65000, &cfg.signin_addrs) < 0)
                return ddz_cli_usage("loadtest", "--sign-in-addrs must be 1..65000");
        } else if (strcmp(a, "--sample") == 0) {
            if (ddz_cli_double(v, 0.1, 86400, &cfg.sample_seconds) < 0)
                return ddz_cli_usage("loadtest", "--sample must be 0.1..86400 seconds");
        } else if (strcmp(a, "--seconds") == 0) {
            if (ddz_cli_double(v, 0.1, 86400, &cfg.seconds) < 0)
                return ddz_cli_usage("loadtest", "--seconds must be 0.1..86400");
        } else if (strcmp(a, "--rate") == 0) {
            if (ddz_cli_double(v, 0, 1e7, &cfg.rate) < 0)
                return ddz_cli_usage("loadtest", "--rate must be a non-negative number");
        } else if (strcmp(a, "--client-rate") == 0) {
            if (ddz_cli_double(v, 0.1, 1e6, &cfg.client_rate) < 0)
                return ddz_cli_usage("loadtest", "--client-rate must be positive");
        } else if (strcmp(a, "--setup") == 0) {
            if (ddz_cli_double(v, 0.1, 86400, &cfg.setup_seconds) < 0)
                return ddz_cli_usage("loadtest", "--setup must be positive");
        } else if (strcmp(a, "--pid") == 0) {
            if (ddz_cli_double(v, 1, 4194304, &d) < 0 || d != (int)d)
                return ddz_cli_usage("loadtest", "--pid must be a process id");
            cfg.pid = (int)d;
        } else if (strcmp(a, "--seed") == 0) {
            if (ddz_cli_u64(v, &cfg.seed) < 0)
                return ddz_cli_usage("loadtest", "--seed must be a whole number");
        } else if (strcmp(a, "--overs") == 0) {
            if (cfg.overs)
                fclose(cfg.overs);
            if (!(cfg.overs = fopen(v, "a")))
                return ddz_cli_usage("loadtest", "--overs: cannot open the file");
        } else {
            return ddz_cli_usage("loadtest", "unknown option");
        }
    }
    if (!cfg.url)
        return ddz_cli_usage("loadtest", "--url is required");
    ddz_loadtest_result res;
    int rc = ddz_loadtest_run(&cfg, &res);
    if (cfg.overs)
        fclose(cfg.overs);
    if (rc)
        return rc;
    ddz_loadtest_print(&res, json, stdout);
    return 0;
}
