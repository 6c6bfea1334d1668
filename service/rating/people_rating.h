/* people_rating.h - the rating of people and hosted AIs from one game
 * (SPEC §15): the ladder's Weng-Lin update (service/rating/rating.h)
 * applied to a Dou Dizhu game, the landlord against two farmers.
 *
 * A game is two pairwise events, landlord against each farmer, both from
 * the ratings as they stood before the game. The landlord's two updates
 * are combined (the method's full pairing over the landlord's two
 * opponents); the farmers are never compared with each other: they are
 * teammates, and their equal result is no tie between them. A game with
 * no landlord (every seat passed the bid) rates nothing.
 *
 * What people see is not mu and sigma but a rating on a familiar scale:
 * rating = 1500 + 40 (mu - 25), deviation = 40 sigma (docs/decisions.md,
 * "People's ratings").
 *
 * Players are numbers: an account's id (> 0), or a hosted AI's fixed
 * negative id (ddz_people_rating_ai_id).
 *
 * Pure computation: no I/O, no allocation, no globals. */
#ifndef DDZ_PEOPLE_RATING_H
#define DDZ_PEOPLE_RATING_H

#include <stdbool.h>
#include <stdint.h>

#include "service/rating/rating.h"

#define DDZ_PEOPLE_RATING_BASE 1500.0 /* the shown rating of mu0 */
#define DDZ_PEOPLE_RATING_SCALE 40.0  /* shown points per unit of mu */
#define DDZ_PEOPLE_RATING_AIS 3       /* hosted AIs with a rating: ids -1..-3 */

/* Fills `c` with people's constants: the ladder's (mu0 25, sigma0 25/3,
 * kappa 1e-4, tau sigma0/100) but beta = sigma0, twice the ladder's,
 * because one game is one deal's luck where the ladder compares duplicate
 * deals (docs/decisions.md). */
void ddz_people_rating_cfg(ddz_rating_cfg *c);

/* Updates the ratings `r` of a game's three seats (seat order) whose
 * landlord was seat `landlord` (0..2; -1 for a game where everyone passed)
 * and whose landlord won (`landlord_won`) or lost. Returns 1 (rated), 0
 * (landlord -1: nothing rated, `r` unchanged) or -1 (`r` unchanged) for a
 * landlord out of range or a rating that is not finite or has sigma <= 0. */
int ddz_people_rating_game(const ddz_rating_cfg *c, ddz_rating r[3], int landlord,
                           bool landlord_won);

/* As ddz_people_rating_game, but the seats of mask `forfeit` (bit s: seat
 * s) left the game (SPEC §14's stand-up, a closed tab not back by its end):
 * each is rated as having lost to every opponent it had (a landlord to
 * both farmers, a farmer to the landlord), whatever the game's result;
 * everyone else is rated by the real result. Returns as
 * ddz_people_rating_game (-1 too for a mask over 7). */
int ddz_people_rating_game_forfeit(const ddz_rating_cfg *c, ddz_rating r[3], int landlord,
                                   bool landlord_won, unsigned forfeit);

/* Returns the rating shown for `mu`: 1500 + 40 (mu - 25). */
double ddz_people_rating_shown(double mu);

/* Returns the deviation shown for `sigma`: 40 sigma. */
double ddz_people_rating_deviation(double sigma);

/* Returns the fixed player id of hosted AI `name` ("ai:strong" -1,
 * "ai:greedy" -2, "ai:random" -3), or 0 for any other name (NULL too). */
int64_t ddz_people_rating_ai_id(const char *name);

/* Returns the name of hosted AI id `id` (-1..-3), or NULL for any other. */
const char *ddz_people_rating_ai_name(int64_t id);

#endif
