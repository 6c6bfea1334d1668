/* setup.c - players file, options, DIR/tournament.json and the draw, for
 * `ddz tournament` and `ddz serve --tournament`. */
#include "service/tourney/setup.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ai/ai.h"
#include "proto/text.h"
#include "rules/error.h"

enum { ID_MAX = 32, MAX_WORDS = 64 };

void ddz_tsetup_init(ddz_tsetup *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->format, sizeof s->format, "caai");
    s->turns = 4;
    s->games = 6;
    s->tables = 1;
    s->rules = &ddz_rules_caai;
}

/* A whole number in lo..hi. */
static int whole(const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

int ddz_tsetup_args(ddz_tsetup *s, int argc, char **argv, int flags, char *err, size_t errlen)
{
    bool cli = flags & DDZ_TSETUP_CLI;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli && strcmp(a, "--quiet") == 0) {
            s->quiet = true;
            continue;
        }
        if (!v) {
            snprintf(err, errlen, "%s: missing value or unknown option", a);
            return -1;
        }
        i++;
        const char *why = NULL;
        if (cli && strcmp(a, "--players") == 0) {
            s->players = v;
        } else if (cli && strcmp(a, "--dir") == 0) {
            s->dir = v;
        } else if (strcmp(a, "--format") == 0) {
            if (strcmp(v, "caai") != 0 && strcmp(v, "swiss") != 0 && strcmp(v, "finals") != 0)
                why = "--format is caai, swiss or finals";
            else
                snprintf(s->format, sizeof s->format, "%s", v);
        } else if (strcmp(a, "--turns") == 0) {
            if (whole(v, 1, DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS, &s->turns) < 0)
                why = "--turns must be a whole number 1..20";
        } else if (strcmp(a, "--games") == 0) {
            if (whole(v, 1, DDZ_TOURNEY_MAX_GAMES, &s->games) < 0)
                why = "--games must be a whole number 1..100";
        } else if (strcmp(a, "--seed") == 0) {
            if (ddz_text_parse_seed(v, s->dc.seed) < 0)
                why = "--seed must be 64 hexadecimal characters";
            s->seeded = true;
        } else if (strcmp(a, "--time") == 0) {
            char *end;
            double t = strtod(v, &end);
            if (!*v || *end || !(t > 0) || t > 86400)
                why = "--time must be a positive number of seconds";
            else
                s->time_s = t;
        } else if (strcmp(a, "--tables") == 0) {
            if (whole(v, 1, DDZ_TOURNEY_MAX_TABLES, &s->tables) < 0)
                why = "--tables must be a whole number from 1";
        } else if (strcmp(a, "--rules") == 0) {
            if (!(s->rules = ddz_rules_find(v))) {
                snprintf(err, errlen, "--rules: unknown rule set (known: %s)", ddz_rules_names());
                return -1;
            }
        } else if (strcmp(a, "--cuts") == 0) {
            if (strlen(v) >= sizeof s->cuts)
                why = "--cuts is 'none', 'scale' or numbers like 18,12,9";
            else
                snprintf(s->cuts, sizeof s->cuts, "%s", v);
        } else {
            snprintf(err, errlen, "%s: unknown option", a);
            return -1;
        }
        if (why) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
    }
    return 0;
}

int ddz_tsetup_options_file(ddz_tsetup *s, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    bool more = !feof(f);
    fclose(f);
    if (more) {
        snprintf(err, errlen, "%s: longer than %zu bytes", path, sizeof text - 1);
        return -1;
    }
    text[n] = '\0';
    char *words[MAX_WORDS];
    int nw = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        for (char *w = strtok(line, " \t\r"); w; w = strtok(NULL, " \t\r")) {
            if (w[0] == '#')
                break;
            if (nw == MAX_WORDS) {
                snprintf(err, errlen, "%s: too many words", path);
                return -1;
            }
            words[nw++] = w;
        }
    }
    char why[300];
    if (ddz_tsetup_args(s, nw, words, 0, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    return 0;
}

static bool id_ok(const char *s, size_t n)
{
    if (n == 0 || n > ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            return false;
    return true;
}

/* What is wrong with SPEC, or NULL. */
static const char *spec_problem(const char *spec, int flags)
{
    bool remote = flags & DDZ_TSETUP_REMOTE;
    if (strncmp(spec, "ai:", 3) == 0)
        return ddz_ai_exists(spec + 3) ? NULL : "no such hosted AI (known: random, greedy, strong)";
    if (strncmp(spec, "exec:", 5) == 0 || strncmp(spec, "botzone:", 8) == 0)
        return NULL;
    if (strncmp(spec, "bot:", 4) == 0 || strncmp(spec, "engine:", 7) == 0) {
        if (!remote)
            return "bot: and engine: players play in `ddz serve --tournament DIR`";
        const char *name = strchr(spec, ':') + 1;
        if (!*name || strlen(name) > 32)
            return "bot:NAME and engine:NAME take a name of 1..32 bytes";
        return NULL;
    }
    return remote ? "SPEC must be exec:COMMAND LINE, botzone:COMMAND LINE, ai:NAME, "
                    "engine:NAME or bot:TOKENNAME"
                  : "SPEC must be exec:COMMAND LINE, botzone:COMMAND LINE or ai:NAME";
}

int ddz_tsetup_players(ddz_tsetup *s, const char *path, int flags, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, firstline[DDZ_TOURNEY_MAX_PLAYERS], rc = 0;
    ssize_t len;
    s->ids = calloc(DDZ_TOURNEY_MAX_PLAYERS, sizeof *s->ids);
    s->specs = calloc(DDZ_TOURNEY_MAX_PLAYERS, sizeof *s->specs);
    if (!s->ids || !s->specs)
        rc = -2;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            snprintf(err, errlen, "%s:%d: a NUL byte", path, lineno);
            rc = -1;
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(p);
        while (n > 0 &&
               (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            p[--n] = '\0';
        if (n == 0 || p[0] == '#')
            continue;
        char *eq = strchr(p, '=');
        const char *why = NULL;
        size_t idlen = eq ? (size_t)(eq - p) : 0;
        while (idlen > 0 && (p[idlen - 1] == ' ' || p[idlen - 1] == '\t'))
            idlen--;
        char *spec = eq ? eq + 1 : NULL;
        while (spec && (*spec == ' ' || *spec == '\t'))
            spec++;
        if (!eq)
            why = "no '=': each line is ID=SPEC";
        else if (!id_ok(p, idlen))
            why = idlen == 0 ? "no ID before '='"
                             : "the ID may hold only letters, digits, '_', '-' and '.', at "
                               "most 32";
        else if (!*spec)
            why = "no SPEC after '='";
        else
            why = spec_problem(spec, flags);
        if (why) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
        p[idlen] = '\0';
        for (int i = 0; i < s->n && rc == 0; i++)
            if (strcmp(s->ids[i], p) == 0) {
                snprintf(err, errlen, "%s:%d: ID '%s' again (first on line %d)", path, lineno, p,
                         firstline[i]);
                rc = -1;
            }
        for (int i = 0; i < s->n && rc == 0; i++)
            if (strncmp(spec, "bot:", 4) == 0 && strcmp(s->specs[i], spec) == 0) {
                snprintf(err, errlen, "%s:%d: %s plays for '%s' already (line %d)", path, lineno,
                         spec, s->ids[i], firstline[i]);
                rc = -1;
            }
        if (rc)
            break;
        if (s->n == DDZ_TOURNEY_MAX_PLAYERS) {
            snprintf(err, errlen, "%s:%d: more than %d players", path, lineno,
                     DDZ_TOURNEY_MAX_PLAYERS);
            rc = -1;
            break;
        }
        firstline[s->n] = lineno;
        s->ids[s->n] = strdup(p);
        s->specs[s->n] = strdup(spec);
        s->n++;
        if (!s->ids[s->n - 1] || !s->specs[s->n - 1])
            rc = -2;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc == -2)
        snprintf(err, errlen, "out of memory");
    if (rc == 0 && s->n < 3) {
        snprintf(err, errlen, "%s: %d player%s; a tournament needs at least 3", path, s->n,
                 s->n == 1 ? "" : "s");
        rc = -1;
    }
    return rc;
}

static int parse_cuts(const char *v, ddz_tourney_opts *o)
{
    if (strcmp(v, "none") == 0) {
        memset(o->cut, 0, sizeof o->cut);
        return 0;
    }
    if (strcmp(v, "scale") == 0) {
        ddz_tourney_scale_cuts(o);
        return 0;
    }
    int vals[DDZ_TOURNEY_MAX_TURNS] = {0}, n = 0;
    const char *p = v;
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 0 || x > DDZ_TOURNEY_MAX_PLAYERS ||
            n == DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS)
            return -1;
        vals[n++] = (int)x;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    if (n == 0)
        return -1;
    memset(o->cut, 0, sizeof o->cut);
    if (n == 3) { /* the CAAI form: after turns 2, 3, 4 */
        for (int k = 0; k < 3; k++)
            o->cut[k + 1] = vals[k];
    } else {
        memcpy(o->cut, vals, sizeof vals);
    }
    return 0;
}

/* The settings that decide the games: a resumed run must have the same. */
static json_t *settings_json(const ddz_tsetup *s)
{
    json_t *ids = json_array(), *cuts = json_array();
    for (int i = 0; i < s->n; i++)
        json_array_append_new(ids, json_string(s->ids[i]));
    for (int k = 0; k < DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS; k++)
        json_array_append_new(cuts, json_integer(s->dc.opts.cut[k]));
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:o}", "seed", s->seed_hex, "format",
                     s->format, "rules", s->rules->name, "turns", s->dc.opts.swiss_turns, "games",
                     s->dc.opts.games, "cuts", cuts, "players", ids);
}

/* Checks s->dc against DIR/tournament.json or writes it; takes the seed
 * from the file when none was given. */
static int settings(ddz_tsetup *s, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tournament.json", dir);
    json_error_t je;
    json_t *old = json_load_file(path, 0, &je);
    if (!old && access(path, F_OK) == 0) {
        snprintf(err, errlen, "%s: %s", path, je.text);
        return -1;
    }
    if (old && !s->seeded) {
        const char *seed = json_string_value(json_object_get(old, "seed"));
        if (!seed || ddz_text_parse_seed(seed, s->dc.seed) < 0) {
            snprintf(err, errlen, "%s: no valid seed", path);
            json_decref(old);
            return -1;
        }
        ddz_text_format_seed(s->dc.seed, s->seed_hex);
    }
    json_t *now = settings_json(s);
    if (old) {
        const char *key;
        json_t *v;
        int rc = 0;
        json_object_foreach(now, key, v)
        {
            if (rc == 0 && !json_equal(v, json_object_get(old, key))) {
                char *was = json_dumps(json_object_get(old, key), JSON_COMPACT | JSON_ENCODE_ANY);
                char *is = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                snprintf(err, errlen,
                         "%s holds a tournament with %s %.200s, not %.200s: use another "
                         "directory, or the same options to resume",
                         dir, key, was ? was : "?", is ? is : "?");
                free(was);
                free(is);
                rc = -1;
            }
        }
        json_decref(old);
        json_decref(now);
        return rc;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc =
        now && json_dump_file(now, tmp, JSON_INDENT(1)) == 0 && rename(tmp, path) == 0 ? 0 : -1;
    json_decref(now);
    if (rc)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

int ddz_tsetup_finish(ddz_tsetup *s, const char *dir, char *err, size_t errlen)
{
    ddz_director_cfg *dc = &s->dc;
    ddz_tourney_defaults(&dc->opts, s->n);
    dc->opts.format = strcmp(s->format, "swiss") == 0    ? DDZ_TOURNEY_SWISS
                      : strcmp(s->format, "finals") == 0 ? DDZ_TOURNEY_FINALS
                                                         : DDZ_TOURNEY_CAAI;
    dc->opts.swiss_turns = s->turns;
    dc->opts.games = s->games;
    dc->opts.cap = (double)s->rules->deal_maxscore * s->games;
    if (s->cuts[0] && parse_cuts(s->cuts, &dc->opts) < 0) {
        snprintf(err, errlen, "--cuts is 'none', 'scale' or numbers like 18,12,9");
        return -1;
    }
    if (dc->opts.format == DDZ_TOURNEY_FINALS && s->n > DDZ_TOURNEY_FINALISTS) {
        snprintf(err, errlen, "--format finals takes at most 9 players, not %d", s->n);
        return -1;
    }
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!s->seeded)
        randombytes_buf(dc->seed, sizeof dc->seed);
    ddz_text_format_seed(dc->seed, s->seed_hex);
    if (settings(s, dir, err, errlen) < 0)
        return -1;
    /* The draw: each player's lot is a hash of the seed and its ID. */
    for (int i = 0; i < s->n; i++) {
        uint8_t h[16];
        crypto_generichash_state st;
        crypto_generichash_init(&st, dc->seed, sizeof dc->seed, sizeof h);
        crypto_generichash_update(&st, (const uint8_t *)"ddz-lot", 7);
        crypto_generichash_update(&st, (const uint8_t *)s->ids[i], strlen(s->ids[i]));
        crypto_generichash_final(&st, h, sizeof h);
        uint64_t lot = 0;
        for (int b = 7; b >= 0; b--)
            lot = lot << 8 | h[b];
        dc->opts.lot[i] = lot;
    }
    dc->rules = s->rules;
    dc->time_ms =
        (int)ceil((s->time_s > 0 ? s->time_s : s->rules->default_time_ms / 1000.0) * 1000);
    dc->tables = s->tables;
    dc->ids = (const char *const *)s->ids;
    return 0;
}

void ddz_tsetup_free(ddz_tsetup *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->ids[i]);
        free(s->specs[i]);
    }
    free(s->ids);
    free(s->specs);
    s->ids = s->specs = NULL;
    s->n = 0;
}
