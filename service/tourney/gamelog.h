/* gamelog.h - a tournament's games.jsonl: spec §10's records with the
 * `tournament` field, read back on resume and appended to as games end.
 *
 *     "tournament": {"stage": "swiss"|"finals", "turn": T, "table": K,
 *                    "game": G, "players": [ID x3 by seat]}   (T, K, G from 1)
 *
 * The file is the tournament's source of truth. Each record is one
 * write(2) of a whole line, so a process killed at any moment (SIGKILL
 * included) leaves at most one torn last line, which reading cuts off.
 * ddz_gamelog_sync() makes what was written durable (fdatasync): the
 * driver calls it once per pass of its loop, so the games of every table
 * that ended together share one sync; a SIGKILL loses nothing written,
 * since the kernel holds it, and a power cut at most that last pass.
 */
#ifndef DDZ_GAMELOG_H
#define DDZ_GAMELOG_H

#include <stdbool.h>
#include <stddef.h>

#include "service/tourney/director.h"

typedef struct ddz_gamelog ddz_gamelog;

/* Called for each record read: `line` is its 1-based line number. Returns
 * 0 to go on, or a negative code to stop the reading with it. */
typedef int (*ddz_gamelog_each)(void *ctx, int line, const ddz_tgame *w, const ddz_record *rec);

/* Opens (creating) `path` for appending after reading every record in it:
 * a last line without its newline (a torn write) is cut off the file; the
 * `tournament` players are mapped to indices in ids[0..n). Returns the log,
 * or NULL with a one-line reason in `err` (with the line number for a line
 * that is not a tournament record of these players) and *rc = DDZ_EIO,
 * DDZ_EFIELD or what `each` returned. */
ddz_gamelog *ddz_gamelog_open(const char *path, const char *const *ids, int n,
                              ddz_gamelog_each each, void *ctx, int *rc, char *err, size_t errlen);

/* Appends one record. Returns its 1-based line number, or DDZ_EIO /
 * DDZ_ENOMEM. */
int ddz_gamelog_append(ddz_gamelog *g, const ddz_tgame *w, const ddz_record *rec);

/* Makes every record appended durable. Returns 0 or DDZ_EIO. */
int ddz_gamelog_sync(ddz_gamelog *g);

/* Returns the number of records in the file. */
int ddz_gamelog_count(const ddz_gamelog *g);

/* ---- forfeits.jsonl: the tables forfeited under the lateness rule ----
 *
 * A forfeit is no game, so it has no record in games.jsonl (which stays
 * spec §10's records, for `ddz verify`): it is one line of forfeits.jsonl
 * beside it,
 *
 *     {"tournament": {"stage", "turn", "table", "players": [ID x3]},
 *      "absent": [ID...]}
 *
 * appended and synced when the forfeit is decided (at most once a table),
 * and handed back to the director on resume (ddz_director_replay_forfeit). */

/* Called for each forfeit read (w->game is 0, `absent` bits by seat).
 * Returns 0 to go on or a negative code to stop. */
typedef int (*ddz_forfeits_each)(void *ctx, int line, const ddz_tgame *w, unsigned absent);

/* Reads `path` (a missing file holds none; a torn last line is cut off).
 * Returns the number of forfeits, or DDZ_EIO / DDZ_EFIELD / DDZ_ENOMEM /
 * what `each` returned, with a one-line reason in `err`. */
int ddz_forfeits_load(const char *path, const char *const *ids, int n, ddz_forfeits_each each,
                      void *ctx, char *err, size_t errlen);

/* Appends one forfeit to `path` (created if need be) and syncs it.
 * Returns 0, DDZ_EIO or DDZ_ENOMEM. */
int ddz_forfeits_append(const char *path, const char *const *ids, const ddz_tgame *w,
                        unsigned absent);

/* Syncs and closes; NULL is fine. */
void ddz_gamelog_close(ddz_gamelog *g);

#endif
