/* report.c - standings.json, standings.html and the text table. */
#include "service/tourney/report.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/record_json.h"
#include "proto/text.h"
#include "rules/error.h"

void ddz_report_points(int tenths, char *buf, size_t len)
{
    int a = tenths < 0 ? -tenths : tenths;
    if (a % 10 == 0)
        snprintf(buf, len, "%s%d", tenths < 0 ? "-" : "", a / 10);
    else
        snprintf(buf, len, "%s%d.%d", tenths < 0 ? "-" : "", a / 10, a % 10);
}

/* Replaces `path` with `len` bytes of `data`: NAME.tmp, fsync, rename,
 * fsync of the directory. */
static int write_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return DDZ_EIO;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return DDZ_EIO;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            unlink(tmp);
            return DDZ_EIO;
        }
        done += (size_t)n;
    }
    if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        unlink(tmp);
        return DDZ_EIO;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd); /* the rename itself */
        close(dfd);
    }
    return 0;
}

static json_t *points_json(int tenths)
{
    return tenths % 10 == 0 ? json_integer(tenths / 10) : json_real(tenths / 10.0);
}

json_t *ddz_report_standings(const ddz_report *r)
{
    const ddz_tourney *t = r->t;
    json_t *o = json_object(), *ps = json_array();
    if (!o || !ps) {
        json_decref(o);
        json_decref(ps);
        return NULL;
    }
    json_object_set_new(o, "stage", json_string(ddz_tourney_stage_name(t->last_stage)));
    json_object_set_new(o, "turn", json_integer(t->last_turn));
    for (int k = 0; k < t->o.nplayers; k++) {
        int i = t->order[k];
        const ddz_tourney_player *p = &t->p[i];
        json_t *e = json_object();
        json_object_set_new(e, "id", json_string(r->ids[i]));
        json_object_set_new(e, "rank", json_integer(k + 1));
        json_object_set_new(e, "points", points_json(p->points));
        json_object_set_new(e, "small", ddz_score_json(p->small));
        json_object_set_new(e, "byes", json_integer(p->byes));
        json_object_set_new(e, "faults", json_integer(p->faults));
        json_object_set_new(e, "status", json_string(ddz_tourney_status_name(p->status)));
        json_array_append_new(ps, e);
    }
    json_object_set_new(o, "players", ps);
    return o;
}

int ddz_report_json(const ddz_report *r, const char *path)
{
    json_t *o = ddz_report_standings(r);
    if (!o)
        return DDZ_ENOMEM;
    char *s = json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
    json_decref(o);
    if (!s)
        return DDZ_ENOMEM;
    size_t len = strlen(s);
    char *withnl = realloc(s, len + 2);
    if (!withnl) {
        free(s);
        return DDZ_ENOMEM;
    }
    withnl[len++] = '\n';
    int rc = write_atomic(path, withnl, len);
    free(withnl);
    return rc;
}

/* ---- text ---- */

static const char dirname_of[3] = {'W', 'S', 'E'};

/* A turn's result for a player in a few characters: "3.5", "bye 4",
 * "abs -6", or "" when it was not in the turn. */
static void turn_cell(const ddz_tourney_pturn *pt, char *buf, size_t len)
{
    char pts[16];
    ddz_report_points(pt->points, pts, sizeof pts);
    switch (pt->kind) {
    case DDZ_TURN_PLAYED:
        snprintf(buf, len, "%s", pts);
        break;
    case DDZ_TURN_BYE:
        snprintf(buf, len, "bye %s", pts);
        break;
    case DDZ_TURN_ABSENT:
        snprintf(buf, len, "abs %s", pts);
        break;
    case DDZ_TURN_AWARDED:
        snprintf(buf, len, "fft %s", pts);
        break;
    default:
        snprintf(buf, len, "-");
    }
}

/* The global turn indices played so far, with their labels (S1.., F1..). */
static int turns_played(const ddz_tourney *t, char labels[][16])
{
    int n = t->gturn;
    for (int g = 0; g < n; g++) {
        int stage = DDZ_STAGE_SWISS;
        for (int i = 0; i < t->o.nplayers; i++)
            if (t->p[i].turn[g].kind != DDZ_TURN_NONE) {
                stage = t->p[i].turn[g].stage;
                break;
            }
        int first = stage == DDZ_STAGE_FINALS ? t->swiss_played : 0;
        snprintf(labels[g], 16, "%c%d", stage == DDZ_STAGE_FINALS ? 'F' : 'S', g - first + 1);
    }
    return n;
}

void ddz_report_text(const ddz_report *r, FILE *out)
{
    const ddz_tourney *t = r->t;
    char labels[DDZ_TOURNEY_MAX_TURNS][16];
    int nt = turns_played(t, labels);
    fprintf(out, "standings after %s turn %d\n", ddz_tourney_stage_name(t->last_stage),
            t->last_turn);
    fprintf(out, "%4s %-16s %-12s %7s %8s %4s %6s", "rank", "id", "status", "points", "small",
            "byes", "faults");
    for (int g = 0; g < nt; g++)
        fprintf(out, " %7s", labels[g]);
    fputc('\n', out);
    for (int k = 0; k < t->o.nplayers; k++) {
        int i = t->order[k];
        const ddz_tourney_player *p = &t->p[i];
        char pts[16], small[32];
        ddz_report_points(p->points, pts, sizeof pts);
        ddz_text_format_score(p->small, small, sizeof small);
        size_t width, n = ddz_text_fit_width(r->ids[i], 16, &width);
        fprintf(out, "%4d %.*s%*s %-12s %7s %8s %4d %6d", k + 1, (int)n, r->ids[i],
                (int)(16 - width), "", ddz_tourney_status_name(p->status), pts, small, p->byes,
                p->faults);
        for (int g = 0; g < nt; g++) {
            char cell[24];
            turn_cell(&p->turn[g], cell, sizeof cell);
            fprintf(out, " %7s", cell);
        }
        fputc('\n', out);
    }
    fflush(out);
}

/* ---- HTML ---- */

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
}

static const char css[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:110em;padding:0 1em;"
    "color:#1b1b1b}h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:"
    "2px solid #c0392b;padding-bottom:.2em}.meta{color:#555}table{border-collapse:collapse;"
    "margin:.6em 0}th,td{border:1px solid #ccc;padding:.25em .55em;text-align:right;"
    "vertical-align:top}th{background:#f4ecea}td.id,th.id,td.l{text-align:left}"
    "tr:nth-child(even) td{background:#fafafa}td "
    "small{color:#666;display:block;font-size:.78em;white-space:nowrap}"
    ".finalist td.id{font-weight:600}.eliminated td{color:#777}.disqualified td{color:#a00}"
    ".bye{color:#2a6f2a}.absent{color:#a00}td.status{font-size:.85em;text-align:left}tr "
    "td.self{background:#ddd}"
    "code{font-size:.85em}.games td{font-size:.88em}"
    /* on a phone the wide tables scroll by themselves, not the page */
    "table{display:block;overflow-x:auto;max-width:100%}.meta code{word-break:break-all}";

static void html_turn_cell(FILE *f, const ddz_tourney_pturn *pt)
{
    char pts[16], small[32];
    ddz_report_points(pt->points, pts, sizeof pts);
    ddz_text_format_score(pt->small, small, sizeof small);
    switch (pt->kind) {
    case DDZ_TURN_PLAYED:
        fprintf(f, "<td>%s<small>%s%s · T%d %c</small></td>", pts, pt->small > 0 ? "+" : "", small,
                pt->table + 1, dirname_of[pt->seat % 3]);
        break;
    case DDZ_TURN_BYE:
        fprintf(f, "<td class=bye>%s<small>bye</small></td>", pts);
        break;
    case DDZ_TURN_ABSENT:
        fprintf(f, "<td class=absent>%s<small>absent · T%d</small></td>", pts, pt->table + 1);
        break;
    case DDZ_TURN_AWARDED:
        fprintf(f, "<td>%s<small>forfeit won · T%d</small></td>", pts, pt->table + 1);
        break;
    default:
        fputs("<td></td>", f);
    }
}

static void html_standings(FILE *f, const ddz_report *r)
{
    const ddz_tourney *t = r->t;
    char labels[DDZ_TOURNEY_MAX_TURNS][16];
    int nt = turns_played(t, labels);
    fputs("<h2>Standings</h2>\n<table><tr><th>rank</th><th class=id>ID</th>"
          "<th class=id>player</th><th>status</th><th>points</th><th>small</th><th>byes</th>"
          "<th>faults</th>",
          f);
    for (int g = 0; g < nt; g++)
        fprintf(f, "<th>%s</th>", labels[g]);
    fputs("</tr>\n", f);
    for (int k = 0; k < t->o.nplayers; k++) {
        int i = t->order[k];
        const ddz_tourney_player *p = &t->p[i];
        char pts[16], small[32];
        ddz_report_points(p->points, pts, sizeof pts);
        ddz_text_format_score(p->small, small, sizeof small);
        fprintf(f, "<tr class=%s><td>%d</td><td class=id>", ddz_tourney_status_name(p->status),
                k + 1);
        esc(f, r->ids[i]);
        fputs("</td><td class=l><code>", f);
        esc(f, r->specs ? r->specs[i] : "");
        fprintf(f, "</code></td><td class=status>%s</td><td><b>%s</b>",
                ddz_tourney_status_name(p->status), pts);
        if (p->finalist && p->carry)
            fprintf(f, "<small>carry %d.%d</small>", p->carry / 10, p->carry % 10);
        fprintf(f, "</td><td>%s</td><td>%d</td><td>%d</td>", small, p->byes, p->faults);
        for (int g = 0; g < nt; g++)
            html_turn_cell(f, &p->turn[g]);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p class=meta>Each turn: points earned (场分 in the Swiss, 比赛分 in the "
          "finals), then the turn's small score, table and direction (W, S, E). Byes: "
          "average + 1 in the Swiss, 2.5 a deal in the finals.</p>\n",
          f);
}

/* The finals crosstable: for each pair of finalists, the turn and table
 * where they met and the row player's points in that turn. */
static void html_crosstable(FILE *f, const ddz_report *r)
{
    const ddz_tourney *t = r->t;
    int fin[DDZ_TOURNEY_FINALISTS], n = 0;
    for (int k = 0; k < t->o.nplayers && n < DDZ_TOURNEY_FINALISTS; k++)
        if (t->p[t->order[k]].finalist)
            fin[n++] = t->order[k];
    if (n == 0)
        return;
    fputs("<h2>Finals crosstable</h2>\n<table><tr><th class=id>finalist</th><th>seed</th>", f);
    for (int b = 0; b < n; b++) {
        fputs("<th>", f);
        esc(f, r->ids[fin[b]]);
        fputs("</th>", f);
    }
    fputs("<th>points</th></tr>\n", f);
    for (int a = 0; a < n; a++) {
        const ddz_tourney_player *pa = &t->p[fin[a]];
        fputs("<tr><td class=id>", f);
        esc(f, r->ids[fin[a]]);
        fprintf(f, "</td><td>%d</td>", pa->swiss_rank);
        for (int b = 0; b < n; b++) {
            if (a == b) {
                fputs("<td class=self></td>", f);
                continue;
            }
            const ddz_tourney_player *pb = &t->p[fin[b]];
            int met = -1;
            for (int g = t->swiss_played; g < t->gturn; g++)
                if (pa->turn[g].kind == DDZ_TURN_PLAYED && pb->turn[g].kind == DDZ_TURN_PLAYED &&
                    pa->turn[g].table == pb->turn[g].table)
                    met = g;
            if (met < 0) {
                fputs("<td></td>", f);
                continue;
            }
            char pts[16];
            ddz_report_points(pa->turn[met].points, pts, sizeof pts);
            fprintf(f, "<td>%s<small>F%d T%d</small></td>", pts, met - t->swiss_played + 1,
                    pa->turn[met].table + 1);
        }
        char pts[16];
        ddz_report_points(pa->points, pts, sizeof pts);
        fprintf(f, "<td><b>%s</b></td></tr>\n", pts);
    }
    fputs("</table>\n", f);
}

static void html_games(FILE *f, const ddz_report *r)
{
    if (r->ngames == 0)
        return;
    fputs("<h2>Games</h2>\n<p class=meta>Game id <code>STAGE-TURN-TABLE-GAME</code>; "
          "<code>games.jsonl:LINE</code> is its record, which <code>ddz verify</code> "
          "checks and the replay viewer shows.</p>\n<table class=games><tr><th class=id>game"
          "</th><th class=id>record</th><th class=id>West</th><th class=id>South</th>"
          "<th class=id>East</th><th>scores W / S / E</th><th class=id>fault</th></tr>\n",
          f);
    for (int i = 0; i < r->ngames; i++) {
        const ddz_report_game *g = &r->games[i];
        fprintf(f,
                "<tr><td class=id><code>%s-%d-%d-%d</code></td><td class=id>"
                "<code>games.jsonl:%d</code></td>",
                ddz_tourney_stage_name(g->w.stage), g->w.turn, g->w.table, g->w.game, g->line);
        for (int s = 0; s < 3; s++) {
            fputs("<td class=id>", f);
            esc(f, r->ids[g->w.player[s]]);
            fputs("</td>", f);
        }
        char sc[3][32];
        for (int s = 0; s < 3; s++)
            ddz_text_format_score(g->scores[s], sc[s], sizeof sc[s]);
        fprintf(f, "<td>%s / %s / %s</td><td class=id>", sc[0], sc[1], sc[2]);
        if (g->fault_seat >= 0)
            esc(f, r->ids[g->w.player[g->fault_seat % 3]]);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

int ddz_report_html(const ddz_report *r, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return DDZ_ENOMEM;
    const ddz_tourney *t = r->t;
    fputs("<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
          "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
          "<title>Tournament standings</title><style>",
          f);
    fputs(css, f);
    fputs("</style></head><body>\n<h1>Tournament standings", f);
    if (r->title) {
        fputs(" — ", f);
        esc(f, r->title);
    }
    fputs("</h1>\n<p class=meta>", f);
    if (t->last_turn == 0)
        fputs("No turn finished yet.", f);
    else
        fprintf(f, "After %s turn %d%s.", t->last_stage == DDZ_STAGE_FINALS ? "finals" : "Swiss",
                t->last_turn, t->done ? " — final standings" : "");
    fprintf(f, " %d players, %d games a turn.", t->o.nplayers, t->o.games);
    if (r->seed) {
        fputs(" Seed <code>", f);
        esc(f, r->seed);
        fputs("</code>.", f);
    }
    fputs("</p>\n", f);
    html_standings(f, r);
    html_crosstable(f, r);
    html_games(f, r);
    fputs("</body></html>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return DDZ_ENOMEM;
    }
    int rc = write_atomic(path, buf, len);
    free(buf);
    return rc;
}
