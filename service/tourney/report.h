/* report.h - what an organiser publishes: standings.json (spec §10),
 * standings.html (self-contained, readable in any browser) and a plain
 * text table for the terminal.
 *
 * standings.json: {"stage", "turn", "players": [{"id", "rank", "points",
 * "small", "byes", "faults", "status"}]} in rank order. `points` is the
 * Swiss 场分 total, or in the finals the 比赛分 with the carry-over (a JSON
 * integer when whole, else a real with one decimal); `small` is the
 * recorded small-score total of the stage that ranks the player (the
 * Swiss, capped; the finals for finalists once they begin).
 *
 * Files are replaced atomically: written to NAME.tmp, synced, renamed
 * over NAME, and the directory synced, so a reader (or a crash) sees the
 * old file or the new one, never a part.
 */
#ifndef DDZ_REPORT_H
#define DDZ_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "service/tourney/director.h"

/* One game, for the report's list of games and the finals crosstable. */
typedef struct ddz_report_game {
    ddz_tgame w;      /* where it was played */
    double scores[3]; /* small scores by seat */
    int fault_seat;   /* -1 if none */
    int line;         /* its line in games.jsonl (1-based) */
} ddz_report_game;

typedef struct ddz_report {
    const ddz_tourney *t;
    const char *const *ids;   /* player IDs */
    const char *const *specs; /* what plays for each (shown in the HTML), may be NULL */
    const ddz_report_game *games;
    int ngames;
    const char *title; /* e.g. the directory; may be NULL */
    const char *seed;  /* the seed in hex, shown; may be NULL */
} ddz_report;

/* Returns standings.json's object (a new reference), or NULL when out of
 * memory. */
json_t *ddz_report_standings(const ddz_report *r);

/* Writes standings.json to `path` atomically. Returns 0, DDZ_EIO or
 * DDZ_ENOMEM. */
int ddz_report_json(const ddz_report *r, const char *path);

/* Writes standings.html to `path` atomically. Returns 0, DDZ_EIO or
 * DDZ_ENOMEM. */
int ddz_report_html(const ddz_report *r, const char *path);

/* Prints the standings after the last finished turn as a plain table:
 * rank, ID, status, points, small, byes, faults and each turn's points. */
void ddz_report_text(const ddz_report *r, FILE *out);

/* Formats tenths of a point as "3", "3.5" or "-0.7" into `buf`. */
void ddz_report_points(int tenths, char *buf, size_t len);

#endif
