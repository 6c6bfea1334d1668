/* botzone_testbot.c - a scriptable Botzone-protocol bot (spec §11) for tests:
 * caai_testengine's twin.
 *
 * One-shot mode (the default): reads one line {"requests", "responses",
 * "data", "globaldata"}, answers one line {"response", "data",
 * "globaldata"} and exits. With --keep-running it prints
 * >>>BOTZONE_REQUEST_KEEP_RUNNING<<< after each answer and then reads the
 * next request alone, one line, until stdin closes.
 *
 * It plays legally: it rebuilds its hand from the requests (the first play
 * request's `own`, plus `publiccard` when it is the landlord, less its own
 * plays) and answers the first play ddz_movegen() lists under caai (when
 * following, the first that beats the last play in `history`). It bids one
 * more than the highest earlier bid while that is at most 3, else 0.
 *
 * It checks what it is given: `data` must be what it asked to keep last
 * turn of the game (the number of its responses so far), else it exits 7.
 * `globaldata` counts its asks over the whole match, so that misbehaviour
 * can be aimed at the K-th ask (from 1) whatever the mode:
 *
 *   --timeout-at K       at ask K, never answer (sleeps until killed)
 *   --garbage-at K       at ask K, answer "XYZZY 42" (not JSON)
 *   --no-response-at K   at ask K, answer {"debug": "..."} (no response)
 *   --wrong-type-at K    at ask K, answer {"response": "hello"}
 *   --illegal-at K       at play requests from ask K on (with --once: the
 *                        first only), play the lowest card code it does not
 *                        hold
 *   --crash-at K         at ask K, exit(3) without answering
 *   --flood-at K         at ask K, write output without newlines forever
 *   --big-data-at K      at ask K, answer with `data` of 100 KiB
 *   --string-bids        answer bid requests with a string ("1", not 1)
 *   --die-after-keep K   at ask K, answer, print the keep-running line, then
 *                        exit(0) (implies nothing without --keep-running)
 *   --hold FILE          with --die-after-keep: after that answer, wait
 *                        until FILE exists before printing the keep-running
 *                        line (a test makes the answer and the line arrive
 *                        apart, at a moment of its choosing)
 *   --once FILE          misbehave only if FILE does not exist, and create it
 *                        then (a failed answer keeps no globaldata, so
 *                        without it the same ask K comes again next game)
 *   --ignore-term        ignore SIGTERM (only SIGKILL ends it)
 *   --keep-running       keep-running mode
 *   --rules NAME         the rule set it plays by (default caai): Botzone's
 *                        requests do not say, a bot knows its game
 *   --log FILE           append every line received, as received, to FILE
 */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/msg.h"
#include "rules/cards.h"
#include "rules/combo.h"
#include "rules/movegen.h"
#include "rules/ruleset.h"

static long at_flood, at_bigdata;
static bool string_bids;
static long at_timeout, at_garbage, at_noresp, at_wrongtype, at_illegal, at_crash, at_diekeep;
static bool keep_running;
static const ddz_rules *rules = &ddz_rules_caai; /* --rules */
static const char *log_path, *once_path, *hold_path;

static json_t *requests, *responses;
static long asks; /* over the match, from globaldata */

static ddz_cards cards_of(json_t *a)
{
    ddz_cards c = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) c |= 1ULL << json_integer_value(v);
    return c;
}

static void logline(const char *line)
{
    if (!log_path)
        return;
    FILE *f = fopen(log_path, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

static void say(const char *line)
{
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Returns `cond`, except that with --once only the first true counts. */
static bool fire(bool cond)
{
    if (!cond)
        return false;
    if (!once_path)
        return true;
    int fd = open(once_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

/* Returns true if the misbehaviour aimed at ask K should happen now. */
static bool at(long k)
{
    return fire(k && asks == k);
}

/* The answer to the last request, given every request and earlier answer. */
static json_t *decide(void)
{
    size_t n = json_array_size(requests);
    json_t *last = json_array_get(requests, n - 1);
    json_t *bid = json_object_get(last, "bid");
    if (bid) {
        json_int_t best = 0;
        size_t i;
        json_t *v;
        json_array_foreach(bid, i, v) if (json_integer_value(v) > best) best =
            json_integer_value(v);
        json_int_t b = best < 3 ? best + 1 : 0;
        if (string_bids) {
            char t[8];
            snprintf(t, sizeof t, "%d", (int)b);
            return json_string(t);
        }
        return json_integer(b);
    }
    ddz_cards hand = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(requests, i);
        if (json_object_get(r, "history") && json_object_get(r, "own")) {
            hand = cards_of(json_object_get(r, "own"));
            json_t *ll = json_object_get(r, "landlord"), *pos = json_object_get(r, "pos");
            /* botzone-ftl (no `landlord`): the landlord's `own` holds its
             * 20 cards already, and a farmer's never gets the leftover */
            if (ll && pos && json_integer_value(ll) == json_integer_value(pos))
                hand |= cards_of(json_object_get(r, "publiccard"));
        }
        if (i + 1 < n && json_object_get(r, "history"))
            hand &= ~cards_of(json_array_get(responses, i));
    }
    if (at_illegal && asks >= at_illegal && fire(true)) {
        for (int c = 0; c < DDZ_NCARDS; c++)
            if (!(hand & (1ULL << c))) {
                json_t *a = json_array();
                json_array_append_new(a, json_integer(c));
                return a;
            }
    }
    json_t *h = json_object_get(last, "history");
    ddz_cards prev = cards_of(json_array_get(h, 1));
    if (!prev)
        prev = cards_of(json_array_get(h, 0));
    ddz_combo lc = ddz_combo_classify(rules, ddz_cards_ranks(prev));
    static ddz_move moves[DDZ_MOVES_MAX];
    int k = ddz_movegen(rules, ddz_cards_ranks(hand), prev ? &lc : NULL, moves, DDZ_MOVES_MAX);
    ddz_cards play = k > 0 ? ddz_cards_pick(hand, moves[0].ranks) : 0;
    return ddz_msg_cards(play);
}

/* Answers the last request (asks already counted). */
static void answer(void)
{
    if (at(at_timeout))
        for (;;)
            pause();
    if (at(at_crash))
        _exit(3);
    if (at(at_flood))
        for (;;)
            fputs("flood", stdout);
    if (at(at_garbage)) {
        say("XYZZY 42");
        return;
    }
    json_t *out = json_object();
    if (at(at_noresp))
        json_object_set_new(out, "debug", json_string("no response today"));
    else if (at(at_wrongtype))
        json_object_set_new(out, "response", json_string("hello"));
    else
        json_object_set_new(out, "response", decide());
    json_t *r = json_object_get(out, "response");
    json_array_append(responses, r ? r : json_null());
    char num[32];
    snprintf(num, sizeof num, "%zu", json_array_size(responses));
    json_object_set_new(out, "data", json_string(num));
    if (at(at_bigdata)) {
        char *big = malloc(100 * 1024 + 1);
        memset(big, 'x', 100 * 1024);
        big[100 * 1024] = '\0';
        json_object_set_new(out, "data", json_string(big));
        free(big);
    }
    snprintf(num, sizeof num, "%ld", asks);
    json_object_set_new(out, "globaldata", json_string(num));
    char *text = json_dumps(out, JSON_COMPACT);
    say(text);
    free(text);
    json_decref(out);
}

static long opt(int *i, int argc, char **argv)
{
    const char *eq = strchr(argv[*i], '=');
    if (eq)
        return atol(eq + 1);
    if (*i + 1 < argc && argv[*i + 1][0] >= '0' && argv[*i + 1][0] <= '9')
        return atol(argv[++*i]);
    return 1;
}

static int run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define IS(name) (strncmp(a, name, strlen(name)) == 0)
        if (IS("--timeout-at"))
            at_timeout = opt(&i, argc, argv);
        else if (IS("--flood-at"))
            at_flood = opt(&i, argc, argv);
        else if (IS("--big-data-at"))
            at_bigdata = opt(&i, argc, argv);
        else if (IS("--string-bids"))
            string_bids = true;
        else if (IS("--garbage-at"))
            at_garbage = opt(&i, argc, argv);
        else if (IS("--no-response-at"))
            at_noresp = opt(&i, argc, argv);
        else if (IS("--wrong-type-at"))
            at_wrongtype = opt(&i, argc, argv);
        else if (IS("--illegal-at"))
            at_illegal = opt(&i, argc, argv);
        else if (IS("--crash-at"))
            at_crash = opt(&i, argc, argv);
        else if (IS("--die-after-keep"))
            at_diekeep = opt(&i, argc, argv);
        else if (IS("--ignore-term"))
            signal(SIGTERM, SIG_IGN);
        else if (IS("--keep-running"))
            keep_running = true;
        else if (IS("--rules") && i + 1 < argc && ddz_rules_find(argv[i + 1]))
            rules = ddz_rules_find(argv[++i]);
        else if (IS("--once") && i + 1 < argc)
            once_path = argv[++i];
        else if (IS("--hold") && i + 1 < argc)
            hold_path = argv[++i];
        else if (IS("--log") && i + 1 < argc)
            log_path = argv[++i];
        else {
            fprintf(stderr, "botzone_testbot: unknown option %s\n", a);
            return 2;
        }
#undef IS
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n <= 0)
        return 4;
    line[strcspn(line, "\n")] = '\0';
    logline(line);
    json_t *in = json_loads(line, 0, NULL);
    if (!in)
        return 5;
    requests = json_incref(json_object_get(in, "requests"));
    responses = json_deep_copy(json_object_get(in, "responses"));
    const char *data = json_string_value(json_object_get(in, "data"));
    const char *gdata = json_string_value(json_object_get(in, "globaldata"));
    if (!requests || !responses || !data || !gdata)
        return 5;
    char want[32] = "";
    if (json_array_size(responses))
        snprintf(want, sizeof want, "%zu", json_array_size(responses));
    if (strcmp(data, want) != 0) {
        fprintf(stderr, "botzone_testbot: data \"%s\", expected \"%s\"\n", data, want);
        return 7;
    }
    asks = atol(gdata);
    for (;;) {
        asks++;
        answer();
        if (!keep_running)
            return 0;
        bool die = at(at_diekeep);
        /* bounded: a test that never makes the file is not waited for
         * longer than a minute */
        for (int ms = 0; die && hold_path && access(hold_path, F_OK) != 0 && ms < 60000; ms++)
            usleep(1000);
        say(">>>BOTZONE_REQUEST_KEEP_RUNNING<<<");
        if (die)
            return 0;
        n = getline(&line, &cap, stdin);
        if (n <= 0)
            return 0;
        line[strcspn(line, "\n")] = '\0';
        logline(line);
        json_t *req = json_loads(line, 0, NULL);
        if (!req || !json_is_object(req) || json_object_get(req, "requests"))
            return 6;
        json_array_append_new(requests, req);
    }
}

/* Ends with _exit(): in the sanitizer build the leak check at a normal exit
 * takes about a second, and a one-shot bot exits after every answer (the
 * Botzone tests took over ten minutes there). The bot is a test tool: the
 * leak check is for the programs under test. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    fflush(NULL);
    _exit(rc);
}
