/* cli_store.c - `ddz token` and `ddz export`: the database from the shell. */
#include "service/cli/cli_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "service/cli/cli_args.h"
#include "rules/error.h"
#include "service/store/store.h"

#define DB_HELP                                                                                    \
    "  --db PATH   the database: a SQLite file or a postgres:// URL (default:\n"                   \
    "              $DDZ_DB if set, else ddz.db in the\n"                                           \
    "              working directory)\n"

static const char token_usage[] =
    "usage: ddz token add NAME [--db PATH]\n"
    "       ddz token list [--db PATH]\n"
    "       ddz token revoke NAME [--db PATH]\n"
    "\n"
    "Manages the tokens with which bots log in to the server.\n"
    "\n"
    "  add NAME     creates a token for bot NAME and prints it on standard\n"
    "               output. The bot is shown under NAME, so NAME follows the\n"
    "               rules of a player's display name: 1 to 32 characters (at\n"
    "               most 63 bytes), no control, bidirectional or invisible\n"
    "               characters, not one of the server's own names (ai:...,\n"
    "               engine:...). The token is shown ONCE: the database keeps\n"
    "               only its BLAKE2b-256 hash. A name whose token was revoked\n"
    "               may be given a new one. Creates the database if it does\n"
    "               not exist.\n"
    "  list         prints every token, one per line, tab-separated: name,\n"
    "               creation time (ISO 8601, UTC), 'active' or 'revoked', and\n"
    "               for a name stored before these rules, what is wrong with\n"
    "               it (the server refuses that token: revoke it)\n"
    "  revoke NAME  revokes NAME's active token; bots using it can no longer\n"
    "               log in\n"
    "\n" DB_HELP "\n"
    "Exits 0 on success; 1 if the database cannot be opened or used, NAME\n"
    "already has an active token (add) or has none (revoke), with one line on\n"
    "stderr; 2 on bad usage.\n";

static const char export_usage[] =
    "usage: ddz export [--db PATH] [--all] [-o FILE]\n"
    "\n"
    "Writes the record of every stored game as one JSON object per line (spec\n"
    "§10, as `ddz match --log` writes them), in game id order; check them with\n"
    "'ddz verify FILE'.\n"
    "\n" DB_HELP "  --all       include the games cut short (e.g. by a server shutdown):\n"
    "              their lines carry \"aborted\": true, and a game cut before it\n"
    "              ended does not pass 'ddz verify' (\"the game is not over\").\n"
    "              By default only finished games are written.\n"
    "  -o FILE     write to FILE instead of standard output\n"
    "\n"
    "Exits 0 on success; 1 if the database is missing or cannot be read, or\n"
    "FILE cannot be written (one line on stderr); 2 on bad usage.\n";

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

static const char *default_db(void)
{
    const char *env = getenv("DDZ_DB");
    return env && *env ? env : "ddz.db";
}

/* Opens the database; unless `create`, it must exist already. Complains and
 * returns NULL on failure. */
static ddz_store *open_db(const char *cmd, const char *path, int create)
{
    struct stat st;
    /* a PostgreSQL URL names a database that the server keeps */
    if (!create && !ddz_store_is_url(path) && stat(path, &st) != 0) {
        if (errno == ENOENT)
            ddz_cli_complain(cmd, "%s: no such database (use --db PATH or set DDZ_DB)", path);
        else
            ddz_cli_complain(cmd, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char err[256];
    ddz_store *s = ddz_store_open(path, NULL, err, sizeof err);
    if (!s)
        ddz_cli_complain(cmd, "%s", err);
    return s;
}

/* Complains about code `rc` from the store, with the database's message for
 * DDZ_EDB; returns 1. */
static int store_error(const char *cmd, ddz_store *s, int rc)
{
    if (rc == DDZ_EDB) {
        ddz_store_counters c;
        ddz_store_stats(s, &c);
        return ddz_cli_complain(cmd, "database error: %s",
                                c.last_error[0] ? c.last_error : "unknown");
    }
    return ddz_cli_complain(cmd, "%s", ddz_strerror(rc));
}

/* What is wrong with `name` as a token's name, without the "NAME: " the
 * store's check begins with (in `buf`), or NULL if nothing. */
static const char *name_flaw(const char *name, char *buf, size_t len)
{
    if (ddz_store_token_name_check(name, buf, len) == 0)
        return NULL;
    return strncmp(buf, "NAME: ", 6) == 0 ? buf + 6 : buf;
}

static void print_token(void *ctx, const char *name, int64_t created_ms, bool revoked)
{
    (void)ctx;
    char when[32] = "?";
    time_t t = (time_t)(created_ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* an active token whose name the display-name rules refuse (stored
     * before them): the server logs nobody in with it; the operator is told
     * why, to revoke it */
    char why[128];
    const char *flaw = revoked ? NULL : name_flaw(name, why, sizeof why);
    if (flaw)
        printf("%s\t%s\tactive\trefused: %s\n", name, when, flaw);
    else
        printf("%s\t%s\t%s\n", name, when, revoked ? "revoked" : "active");
}

int ddz_cli_token(int argc, char **argv)
{
    const char *db = default_db(), *verb = NULL, *name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(token_usage, stdout);
            return 0;
        } else if (strcmp(a, "--db") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                return ddz_cli_usage("token", "--db needs a PATH");
            db = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return ddz_cli_usage("token", "unknown option");
        } else if (!verb) {
            verb = a;
        } else if (!name) {
            name = a;
        } else {
            return ddz_cli_usage("token", "too many arguments");
        }
    }
    if (!verb)
        return ddz_cli_usage("token", "add, list or revoke is required");
    bool add = strcmp(verb, "add") == 0, list = strcmp(verb, "list") == 0,
         revoke = strcmp(verb, "revoke") == 0;
    if (!add && !list && !revoke)
        return ddz_cli_usage("token", "unknown subcommand; use add, list or revoke");
    if (list && name)
        return ddz_cli_usage("token", "list takes no NAME");
    if (!list && !name)
        return ddz_cli_usage("token", "a NAME is required");
    char why[128], what[200];
    const char *flaw = add ? name_flaw(name, why, sizeof why) : NULL;
    if (flaw) {
        snprintf(what, sizeof what, "NAME must be a display name: %s", flaw);
        return ddz_cli_usage("token", what);
    }

    const char *cmd = add ? "token add" : list ? "token list" : "token revoke";
    ddz_store *s = open_db(cmd, db, add);
    if (!s)
        return 1;
    int rc, status = 0;
    if (add) {
        char token[DDZ_TOKEN_HEX + 1];
        rc = ddz_store_token_add(s, name, token);
        if (rc == 0) {
            printf("%s\n", token);
            fflush(stdout);
            fprintf(stderr,
                    "ddz token add: token for '%s' created; it cannot be shown again, "
                    "keep it now\n",
                    name);
        } else if (rc == DDZ_EINVAL) {
            status =
                ddz_cli_complain(cmd, "'%s' already has an active token (revoke it first)", name);
        } else if (rc == DDZ_EEXIST) {
            status = ddz_cli_complain(
                cmd, "'%s' is a person's account's name (or was, within 30 days): choose another",
                name);
        } else {
            status = store_error(cmd, s, rc);
        }
    } else if (revoke) {
        rc = ddz_store_token_revoke(s, name);
        if (rc == DDZ_ENOTFOUND)
            status = ddz_cli_complain(cmd, "no active token named '%s'", name);
        else if (rc < 0)
            status = store_error(cmd, s, rc);
    } else {
        rc = ddz_store_token_list(s, print_token, NULL);
        if (rc < 0)
            status = store_error(cmd, s, rc);
        else if (fflush(stdout) == EOF || ferror(stdout))
            status = ddz_cli_complain(cmd, "standard output: %s", strerror(errno));
    }
    ddz_store_close(s);
    return status;
}

int ddz_cli_export(int argc, char **argv)
{
    const char *db = default_db(), *out_path = NULL;
    bool all = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(export_usage, stdout);
            return 0;
        } else if (strcmp(a, "--all") == 0) {
            all = true;
        } else if (strcmp(a, "--db") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                return ddz_cli_usage("export",
                                     a[1] == 'o' ? "-o needs a FILE" : "--db needs a PATH");
            *(a[1] == 'o' ? &out_path : &db) = argv[++i];
        } else if (a[0] == '-') {
            return ddz_cli_usage("export", "unknown option");
        } else {
            return ddz_cli_usage("export", "unexpected argument");
        }
    }
    ddz_store *s = open_db("export", db, 0);
    if (!s)
        return 1;
    bool to_stdout = !out_path || strcmp(out_path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(out_path, "w");
    if (!out) {
        int e = errno;
        ddz_store_close(s);
        return ddz_cli_complain("export", "%s: %s", out_path, strerror(e));
    }
    int rc = ddz_store_export(s, out, all), status = 0;
    int e = errno;
    if (!to_stdout && fclose(out) != 0 && rc >= 0) {
        e = errno;
        rc = DDZ_EIO;
    }
    if (rc == DDZ_EIO)
        status = ddz_cli_complain("export", "%s: %s", to_stdout ? "standard output" : out_path,
                                  e ? strerror(e) : "write error");
    else if (rc < 0)
        status = store_error("export", s, rc);
    ddz_store_close(s);
    return status;
}
