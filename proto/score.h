/* score.h - a game's score as JSON, the same in records, events and the
 * rules' terms (score.c): whole scores as integers, others as reals on
 * the grid of DDZ_SCORE_DENOM. */
#ifndef DDZ_SCORE_H
#define DDZ_SCORE_H

#include <jansson.h>

/* Returns a new JSON number for score `x`: an integer when `x` is whole,
 * else a real. NULL when out of memory. */
json_t *ddz_score_json(double x);

/* Reads a score written by ddz_score_json (any JSON number): returns 0 and
 * sets *out to the nearest multiple of 1/DDZ_SCORE_DENOM (exactly the double
 * the rules compute for it), or DDZ_EFIELD when `v` is no number, not
 * finite, outside int32's range or not such a multiple (0.0005). */
int ddz_score_from_json(const json_t *v, double *out);

#endif
