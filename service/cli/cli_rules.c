/* cli_rules.c - classify, moves and deal on the command line. */
#include "service/cli/cli_rules.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "service/cli/cli_args.h"
#include "proto/text.h"
#include "rules/error.h"
#include "rules/movegen.h"

static const char usage[] =
    "usage: ddz rules classify [--rules NAME] CODES\n"
    "       ddz rules moves --hand CODES [--follow CODES] [--rules NAME]\n"
    "       ddz rules deal --seed HEX64\n"
    "\n"
    "CODES is a comma-separated list of card codes 0..53 (spec §1): code c < 52\n"
    "has rank c/4 (0=3 ... 11=A, 12=2) and suit c%4; 52 is the small joker and\n"
    "53 the big joker.\n"
    "\n"
    "  classify CODES     print {\"type\",\"rank\",\"length\",\"kicker\",\"size\"} of a\n"
    "                     play, or {\"type\":\"invalid\"}\n"
    "    --rules NAME       rule set (default caai)\n"
    "  moves              print every legal play of a hand, one JSON array of\n"
    "                     rank indices per line\n"
    "    --hand CODES       the hand (at most 20 cards)\n"
    "    --follow CODES     the play to beat; without it the hand leads. When\n"
    "                       following, [] (pass) is listed last\n"
    "    --rules NAME       rule set (default caai)\n"
    "  deal --seed HEX64  print the deal of a 32-byte seed given as 64 hex\n"
    "                     digits: {\"seed\",\"commit\",\"hands\",\"leftover\"}\n"
    "\n"
    "Rule sets: caai (spec §4), botzone-ftl and botzone-ftl2 (spec §8: kickers never\n"
    "repeat, and the quad_straight type). An unknown name is a usage error (exit 2).\n";

static int bad(const char *what, const char *detail)
{
    fprintf(stderr, "ddz rules: %s: %s\n", what, detail);
    return 1;
}

static int parse_cards(const char *what, const char *s, ddz_cards *out)
{
    char err[128];
    if (ddz_text_parse_cards(s, out, err, sizeof err) < 0)
        return bad(what, err);
    return 0;
}

static void print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    if (s)
        puts(s);
    free(s);
    json_decref(j);
}

static json_t *combo_json(ddz_combo c)
{
    if (c.type == DDZ_INVALID)
        return json_pack("{s:s}", "type", "invalid");
    return json_pack("{s:s, s:i, s:i, s:s, s:i}", "type", ddz_type_name(c.type), "rank", c.rank,
                     "length", c.length, "kicker", ddz_kicker_name(c.kicker), "size", c.size);
}

/* The rule set called `name`, or NULL after a usage message. */
static const ddz_rules *rules_named(const char *name)
{
    const ddz_rules *rs = ddz_rules_find(name);
    if (!rs) {
        char what[200];
        snprintf(what, sizeof what, "--rules: unknown rule set (known: %s)", ddz_rules_names());
        ddz_cli_usage("rules", what);
    }
    return rs;
}

static int cmd_classify(int argc, char **argv)
{
    const char *codes = NULL, *rules_s = "caai";
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--rules") == 0)
            rules_s = argv[++i];
        else if (!codes)
            codes = argv[i];
        else
            return ddz_cli_usage("rules", "classify takes exactly one CODES argument");
    }
    if (!codes)
        return ddz_cli_usage("rules", "classify takes exactly one CODES argument");
    const ddz_rules *rs = rules_named(rules_s);
    if (!rs)
        return 2;
    ddz_cards cards;
    if (parse_cards("CODES", codes, &cards))
        return 1;
    if (cards == 0)
        return bad("CODES", "the card list is empty");
    print_json(combo_json(ddz_combo_classify(rs, ddz_cards_ranks(cards))));
    return 0;
}

static void print_ranks(ddz_ranks m)
{
    const char *sep = "";
    putchar('[');
    for (int r = 0; r < DDZ_NRANKS; r++)
        for (int i = 0; i < ddz_ranks_get(m, r); i++, sep = ",")
            printf("%s%d", sep, r);
    puts("]");
}

static int cmd_moves(int argc, char **argv)
{
    const char *hand_s = NULL, *follow_s = NULL, *rules_s = "caai";
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--hand") == 0)
            hand_s = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--follow") == 0)
            follow_s = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--rules") == 0)
            rules_s = argv[++i];
        else
            return ddz_cli_usage("rules", "moves: unexpected argument or missing value");
    }
    if (!hand_s)
        return ddz_cli_usage("rules", "moves: --hand is required");
    const ddz_rules *rs = rules_named(rules_s);
    if (!rs)
        return 2;
    ddz_cards hand, follow = 0;
    if (parse_cards("--hand", hand_s, &hand))
        return 1;
    if (ddz_cards_count(hand) > DDZ_HAND_MAX)
        return bad("--hand", "a hand holds at most 20 cards");
    ddz_combo last = {.type = DDZ_PASS};
    if (follow_s) {
        if (parse_cards("--follow", follow_s, &follow))
            return 1;
        if (follow & hand)
            return bad("--follow", "shares a card with --hand");
        last = ddz_combo_classify(rs, ddz_cards_ranks(follow));
        if (last.type == DDZ_INVALID || last.type == DDZ_PASS)
            return bad("--follow", "not a legal combination");
    }
    static ddz_move moves[DDZ_MOVES_MAX];
    int n = ddz_movegen(rs, ddz_cards_ranks(hand), follow_s ? &last : NULL, moves, DDZ_MOVES_MAX);
    if (n < 0)
        return bad("moves", ddz_strerror(n));
    for (int i = 0; i < n; i++)
        print_ranks(moves[i].ranks);
    return 0;
}

static json_t *cards_json(ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(codes[i]));
    return a;
}

static int cmd_deal(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--seed") != 0)
        return ddz_cli_usage("rules", "deal takes --seed HEX64");
    uint8_t seed[DDZ_SEED_BYTES], commit[DDZ_SEED_BYTES];
    char hex[65], chex[65];
    if (ddz_text_parse_seed(argv[2], seed) < 0)
        return bad("--seed", ddz_strerror(DDZ_ESEED));
    ddz_deal d;
    int rc = ddz_deal_from_seed(seed, &d);
    if (rc < 0)
        return bad("--seed", ddz_strerror(rc));
    ddz_deal_commit(seed, commit);
    ddz_text_format_seed(seed, hex);
    ddz_text_format_seed(commit, chex);
    json_t *hands = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(hands, cards_json(d.hand[s]));
    print_json(json_pack("{s:s, s:s, s:o, s:o}", "seed", hex, "commit", chex, "hands", hands,
                         "leftover", cards_json(d.leftover)));
    return 0;
}

int ddz_cli_rules(int argc, char **argv)
{
    if (argc < 2)
        return ddz_cli_usage("rules", "a command is required: classify, moves or deal");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "classify") == 0)
        return cmd_classify(argc - 1, argv + 1);
    if (strcmp(argv[1], "moves") == 0)
        return cmd_moves(argc - 1, argv + 1);
    if (strcmp(argv[1], "deal") == 0)
        return cmd_deal(argc - 1, argv + 1);
    fprintf(stderr, "ddz rules: unknown command '%s' (try 'ddz rules --help')\n", argv[1]);
    return 2;
}
