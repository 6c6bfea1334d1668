/* cli_engine.c - the CAAI engine loop around a hosted AI.
 *
 * The engine learns the game only from the referee's lines and keeps its
 * view with rules/view.h, exactly as an outside engine would. Lines it
 * cannot parse are reported on stderr and not answered: the referee's time
 * limit then decides, and our engine never invents an answer.
 */
#include "service/cli/cli_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai/ai.h"
#include "ai/strong.h"
#include "service/cli/cli_args.h"
#include "proto/caai.h"
#include "rules/error.h"

static const char usage[] =
    "usage: ddz engine [--ai NAME] [--seed N] [--budget MS] [--rollouts N] [--rules NAME]\n"
    "                  [--endgame score|win]\n"
    "\n"
    "Speaks CAAI 1.0 on stdin/stdout with a hosted AI deciding.\n"
    "  --ai NAME      random, greedy or strong (default greedy)\n"
    "  --seed N       seed of the AI's random stream (default 1)\n"
    "  --budget MS    wall-clock budget per decision of a searching AI\n"
    "                 (default: the AI's own, 1000 ms for strong)\n"
    "  --rollouts N   search units per decision of a searching AI (default: no\n"
    "                 limit); without --budget, decisions are reproducible\n"
    "  --rules NAME   the rule set the referee plays (default caai; CAAI lines do\n"
    "                 not say it): caai, botzone-ftl or botzone-ftl2\n"
    "  --endgame MODE how ai:strong values a play in the endgame's exact search:\n"
    "                 score (default: the score its side can force, bombs and\n"
    "                 spring to come included) or win (who wins, at the stake so\n"
    "                 far: the first solver's way; for A/B tests)\n";

static void reply(const ddz_caai_msg *m)
{
    char buf[DDZ_CAAI_FORMAT_MAX];
    if (ddz_caai_format(m, buf, sizeof buf) >= 0) {
        puts(buf);
        fflush(stdout);
    }
}

static void ok(int of)
{
    reply(&(ddz_caai_msg){.kind = DDZ_CAAI_OK, .seat = -1, .ok_of = (uint8_t)of});
}

int ddz_cli_engine(int argc, char **argv)
{
    const char *name = "greedy";
    uint64_t seed = 1;
    int budget_ms = 0, units = 0, endgame = DDZ_STRONG_ENDGAME_SCORE;
    const ddz_rules *rules = &ddz_rules_caai;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "--ai") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            if (ddz_cli_u64(argv[++i], &seed) < 0)
                return ddz_cli_usage("engine", "--seed must be a whole number");
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 3600000, &budget_ms) < 0)
                return ddz_cli_usage("engine", "--budget must be 0..3600000 ms");
        } else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc) {
            if (!(rules = ddz_rules_find(argv[++i])))
                return ddz_cli_usage("engine", "--rules: unknown rule set");
        } else if (strcmp(argv[i], "--endgame") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "score") == 0)
                endgame = DDZ_STRONG_ENDGAME_SCORE;
            else if (strcmp(m, "win") == 0)
                endgame = DDZ_STRONG_ENDGAME_WIN;
            else
                return ddz_cli_usage("engine", "--endgame must be score or win");
        } else if (strcmp(argv[i], "--rollouts") == 0 && i + 1 < argc) {
            if (ddz_cli_int(argv[++i], 0, 1000000000, &units) < 0)
                return ddz_cli_usage("engine", "--rollouts must be a whole number from 0");
        } else {
            fprintf(stderr, "ddz engine: unknown option '%s' (try 'ddz engine --help')\n", argv[i]);
            return 2;
        }
    }
    int err;
    ddz_ai *ai = ddz_ai_create(name, seed, budget_ms, &err);
    if (!ai) {
        fprintf(stderr, "ddz engine: %s AI '%s'\n",
                err == DDZ_ENOTFOUND ? "unknown" : "cannot create", name);
        return 2;
    }
    ddz_ai_set_budget(ai, budget_ms, units);
    ddz_ai_set_endgame(ai, endgame);
    ddz_ai_workspace *ws = ddz_ai_workspace_create();
    if (!ws) {
        fprintf(stderr, "ddz engine: out of memory\n");
        ddz_ai_destroy(ai);
        return 2;
    }
    ddz_view v;
    ddz_view_deal(&v, rules, 0, 0);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        ddz_caai_msg m, out = {.seat = -1};
        char why[128];
        if (ddz_caai_parse(line, (size_t)len, &m, why, sizeof why) < 0) {
            fprintf(stderr, "ddz engine: ignoring '%.*s': %s\n", (int)strcspn(line, "\r\n"), line,
                    why);
            continue;
        }
        int rc = 0;
        switch (m.kind) {
        case DDZ_CAAI_VERSION:
            out.kind = DDZ_CAAI_NAME;
            snprintf(out.name, sizeof out.name, "ddz-%s", name);
            reply(&out);
            break;
        case DDZ_CAAI_INFO:
            ok(DDZ_CAAI_INFO);
            break;
        case DDZ_CAAI_DEAL:
            rc = ddz_view_deal(&v, rules, m.seat, m.cards);
            ok(DDZ_CAAI_DEAL);
            break;
        case DDZ_CAAI_BID:
            rc = ddz_view_bid(&v, m.seat, m.bid);
            ok(DDZ_CAAI_BID);
            break;
        case DDZ_CAAI_BID_WHAT:
            out.kind = DDZ_CAAI_BID;
            out.seat = (int8_t)v.seat;
            out.bid = (int8_t)ddz_ai_bid(ai, &v, ws);
            rc = ddz_view_bid(&v, v.seat, out.bid);
            reply(&out);
            break;
        case DDZ_CAAI_LEFTOVER:
            rc = ddz_view_leftover(&v, m.seat, m.cards);
            ok(DDZ_CAAI_LEFTOVER);
            break;
        case DDZ_CAAI_PLAY_WHAT:
            out.kind = DDZ_CAAI_PLAY;
            out.seat = (int8_t)v.seat;
            out.cards = ddz_ai_play(ai, &v, ws);
            rc = ddz_view_play(&v, v.seat, out.cards);
            reply(&out);
            break;
        case DDZ_CAAI_PLAY:
            rc = ddz_view_play(&v, m.seat, m.cards);
            ok(DDZ_CAAI_PLAY);
            break;
        case DDZ_CAAI_GAMEOVER:
            ok(DDZ_CAAI_GAMEOVER);
            break;
        case DDZ_CAAI_ERROR:
            ok(DDZ_CAAI_ERROR);
            break;
        default:
            fprintf(stderr, "ddz engine: ignoring '%s': not a referee message\n",
                    ddz_caai_keyword(m.kind));
        }
        if (rc < 0)
            fprintf(stderr, "ddz engine: '%.*s' contradicts what I know: %s\n",
                    (int)strcspn(line, "\r\n"), line, ddz_strerror(rc));
    }
    free(line);
    ddz_ai_destroy(ai);
    ddz_ai_workspace_destroy(ws);
    return 0;
}
