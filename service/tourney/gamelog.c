/* gamelog.c - games.jsonl: read back, torn tail cut, appended a line at a
 * time. */
#include "service/tourney/gamelog.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/record_json.h"
#include "rules/error.h"

struct ddz_gamelog {
    int fd;
    const char *const *ids;
    int nids;
    int lines; /* records in the file */
    bool dirty;
    ddz_forfeits_each forfeit_each; /* reading forfeits.jsonl, not games.jsonl */
};

static int id_index(const ddz_gamelog *g, const char *id)
{
    for (int i = 0; i < g->nids; i++)
        if (strcmp(g->ids[i], id) == 0)
            return i;
    return -1;
}

/* Reads the `tournament` object of record `j` into *w. Returns 0 or
 * DDZ_EFIELD with the reason in `err`. */
static int where_from_json(const ddz_gamelog *g, const json_t *j, ddz_tgame *w, char *err,
                           size_t errlen)
{
    bool need_game = !g->forfeit_each; /* a forfeit is of a whole table */
    w->game = 0;
    const json_t *t = json_object_get(j, "tournament");
    if (!json_is_object(t)) {
        snprintf(err, errlen, "no \"tournament\" object: not a record of a tournament");
        return DDZ_EFIELD;
    }
    const char *stage = json_string_value(json_object_get(t, "stage"));
    if (!stage || (strcmp(stage, "swiss") != 0 && strcmp(stage, "finals") != 0)) {
        snprintf(err, errlen, "tournament.stage: not \"swiss\" or \"finals\"");
        return DDZ_EFIELD;
    }
    w->stage = strcmp(stage, "finals") == 0 ? DDZ_STAGE_FINALS : DDZ_STAGE_SWISS;
    static const char *const keys[3] = {"turn", "table", "game"};
    int *vals[3] = {&w->turn, &w->table, &w->game};
    for (int i = 0; i < 3; i++) {
        const json_t *v = json_object_get(t, keys[i]);
        if (!v && i == 2 && !need_game)
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 100000) {
            snprintf(err, errlen, "tournament.%s: not a whole number from 1", keys[i]);
            return DDZ_EFIELD;
        }
        *vals[i] = (int)json_integer_value(v);
    }
    const json_t *sid = json_object_get(t, "game_id");
    w->store_id = json_is_integer(sid) && json_integer_value(sid) > 0 ? json_integer_value(sid) : 0;
    const json_t *ps = json_object_get(t, "players");
    if (!json_is_array(ps) || json_array_size(ps) != 3) {
        snprintf(err, errlen, "tournament.players: not an array of three IDs");
        return DDZ_EFIELD;
    }
    for (int s = 0; s < 3; s++) {
        const char *id = json_string_value(json_array_get(ps, (size_t)s));
        if (!id || (w->player[s] = id_index(g, id)) < 0) {
            snprintf(err, errlen, "tournament.players[%d]: %s%s", s, id ? id : "not a string",
                     id ? " is not in the players file" : "");
            return DDZ_EFIELD;
        }
    }
    return 0;
}

/* Reads the whole file; cuts a torn last line off it. */
static int read_all(ddz_gamelog *g, ddz_gamelog_each each, void *ctx, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(g->fd, &st) < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return DDZ_EIO;
    }
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return DDZ_ENOMEM;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(g->fd, buf + got, size - got, (off_t)got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            free(buf);
            snprintf(err, errlen, "cannot read: %s", n < 0 ? strerror(errno) : "file shrank");
            return DDZ_EIO;
        }
        got += (size_t)n;
    }
    buf[size] = '\0';
    size_t end = size;
    while (end > 0 && buf[end - 1] != '\n')
        end--; /* the torn last line, if any */
    if (end < size && ftruncate(g->fd, (off_t)end) < 0) {
        free(buf);
        snprintf(err, errlen, "cannot cut the torn last line: %s", strerror(errno));
        return DDZ_EIO;
    }
    int rc = 0;
    char why[300];
    for (size_t at = 0; at < end && rc == 0;) {
        char *nl = memchr(buf + at, '\n', end - at);
        *nl = '\0';
        int line = g->lines + 1;
        json_error_t je;
        json_t *j = json_loads(buf + at, 0, &je);
        ddz_record rec;
        ddz_tgame w;
        if (!j) {
            snprintf(err, errlen, "line %d: not JSON: %s", line, je.text);
            rc = DDZ_EFIELD;
        } else if (g->forfeit_each) {
            unsigned absent = 0;
            const json_t *a = json_object_get(j, "absent");
            if ((rc = where_from_json(g, j, &w, why, sizeof why)) < 0) {
                snprintf(err, errlen, "line %d: %s", line, why);
            } else if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > 3) {
                snprintf(err, errlen, "line %d: absent: not an array of one to three IDs", line);
                rc = DDZ_EFIELD;
            } else {
                for (size_t i = 0; i < json_array_size(a); i++) {
                    const char *id = json_string_value(json_array_get(a, i));
                    int seat = -1;
                    for (int s = 0; id && s < 3; s++)
                        if (strcmp(g->ids[w.player[s]], id) == 0)
                            seat = s;
                    if (seat < 0) {
                        snprintf(err, errlen, "line %d: absent[%zu]: not a player of the table",
                                 line, i);
                        rc = DDZ_EFIELD;
                        break;
                    }
                    absent |= 1u << seat;
                }
                if (rc == 0 && (rc = g->forfeit_each(ctx, line, &w, absent)) < 0 && !err[0])
                    snprintf(err, errlen, "line %d: %s", line, ddz_strerror(rc));
            }
        } else if ((rc = ddz_record_from_json(j, &rec, why, sizeof why)) < 0) {
            snprintf(err, errlen, "line %d: %s", line, why);
            rc = DDZ_EFIELD;
        } else if ((rc = where_from_json(g, j, &w, why, sizeof why)) < 0) {
            snprintf(err, errlen, "line %d: %s", line, why);
        } else if ((rc = each(ctx, line, &w, &rec)) < 0) {
            if (!err[0])
                snprintf(err, errlen, "line %d: %s", line, ddz_strerror(rc));
        }
        json_decref(j);
        g->lines++;
        at = (size_t)(nl - buf) + 1;
    }
    free(buf);
    return rc;
}

ddz_gamelog *ddz_gamelog_open(const char *path, const char *const *ids, int n,
                              ddz_gamelog_each each, void *ctx, int *rc, char *err, size_t errlen)
{
    err[0] = '\0';
    ddz_gamelog *g = calloc(1, sizeof *g);
    if (!g) {
        *rc = DDZ_ENOMEM;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->ids = ids;
    g->nids = n;
    g->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (g->fd < 0) {
        *rc = DDZ_EIO;
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        free(g);
        return NULL;
    }
    if ((*rc = read_all(g, each, ctx, err, errlen)) < 0) {
        ddz_gamelog_close(g);
        return NULL;
    }
    return g;
}

int ddz_gamelog_append(ddz_gamelog *g, const ddz_tgame *w, const ddz_record *rec)
{
    json_t *j = ddz_record_to_json(rec);
    json_t *t = json_object();
    json_t *ps = json_array();
    if (!j || !t || !ps) {
        json_decref(j);
        json_decref(t);
        json_decref(ps);
        return DDZ_ENOMEM;
    }
    for (int s = 0; s < 3; s++)
        json_array_append_new(ps, json_string(g->ids[w->player[s]]));
    json_object_set_new(t, "stage", json_string(ddz_tourney_stage_name(w->stage)));
    json_object_set_new(t, "turn", json_integer(w->turn));
    json_object_set_new(t, "table", json_integer(w->table));
    json_object_set_new(t, "game", json_integer(w->game));
    json_object_set_new(t, "players", ps);
    if (w->store_id > 0) /* ddz serve's: where /api/games/ID replays it */
        json_object_set_new(t, "game_id", json_integer(w->store_id));
    json_object_set_new(j, "tournament", t);
    char *s = json_dumps(j, DDZ_RECORD_JSON_FLAGS);
    json_decref(j);
    if (!s)
        return DDZ_ENOMEM;
    size_t len = strlen(s);
    s[len++] = '\n'; /* json_dumps's NUL becomes the newline: one write(2) */
    ssize_t n;
    while ((n = write(g->fd, s, len)) < 0 && errno == EINTR)
        ;
    free(s);
    if (n != (ssize_t)len)
        return DDZ_EIO; /* a short write leaves a torn line, cut on the next start */
    g->dirty = true;
    return ++g->lines;
}

int ddz_gamelog_sync(ddz_gamelog *g)
{
    if (!g || !g->dirty)
        return 0;
    g->dirty = false;
    return fdatasync(g->fd) == 0 ? 0 : DDZ_EIO;
}

int ddz_gamelog_count(const ddz_gamelog *g)
{
    return g->lines;
}

int ddz_forfeits_load(const char *path, const char *const *ids, int n, ddz_forfeits_each each,
                      void *ctx, char *err, size_t errlen)
{
    err[0] = '\0';
    ddz_gamelog g = {.ids = ids, .nids = n, .forfeit_each = each};
    g.fd = open(path, O_RDWR | O_CLOEXEC);
    if (g.fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return DDZ_EIO;
    }
    int rc = read_all(&g, NULL, ctx, err, errlen);
    close(g.fd);
    return rc < 0 ? rc : g.lines;
}

int ddz_forfeits_append(const char *path, const char *const *ids, const ddz_tgame *w,
                        unsigned absent)
{
    json_t *ps = json_array(), *ab = json_array();
    for (int s = 0; s < 3; s++) {
        json_array_append_new(ps, json_string(ids[w->player[s]]));
        if (absent >> s & 1)
            json_array_append_new(ab, json_string(ids[w->player[s]]));
    }
    json_t *j = json_pack("{s:{s:s, s:i, s:i, s:o}, s:o}", "tournament", "stage",
                          ddz_tourney_stage_name(w->stage), "turn", w->turn, "table", w->table,
                          "players", ps, "absent", ab);
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!s)
        return DDZ_ENOMEM;
    size_t len = strlen(s);
    s[len++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ssize_t wr = -1;
    if (fd >= 0) {
        while ((wr = write(fd, s, len)) < 0 && errno == EINTR)
            ;
        if (wr == (ssize_t)len && fdatasync(fd) < 0)
            wr = -1;
        close(fd);
    }
    free(s);
    return wr == (ssize_t)len ? 0 : DDZ_EIO;
}

void ddz_gamelog_close(ddz_gamelog *g)
{
    if (!g)
        return;
    ddz_gamelog_sync(g);
    close(g->fd);
    free(g);
}
