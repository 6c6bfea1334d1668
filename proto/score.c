/* score.c - a game's score as JSON (score.h). */
#include "proto/score.h"

#include <math.h>
#include <stdint.h>

#include "rules/error.h"
#include "rules/ruleset.h"

json_t *ddz_score_json(double x)
{
    if (x == floor(x) && fabs(x) < 9007199254740992.0) /* 2^53: whole and exact */
        return json_integer((json_int_t)x);
    return json_real(x);
}

int ddz_score_from_json(const json_t *v, double *out)
{
    if (!json_is_number(v))
        return DDZ_EFIELD;
    double x = json_number_value(v);
    if (!isfinite(x) || x < INT32_MIN || x > INT32_MAX)
        return DDZ_EFIELD;
    /* on the grid of DDZ_SCORE_DENOM (up to the rounding of reading a
     * decimal), then exactly the double k / DDZ_SCORE_DENOM */
    double u = x * DDZ_SCORE_DENOM, k = round(u);
    if (fabs(u - k) > 1e-3)
        return DDZ_EFIELD;
    *out = k / DDZ_SCORE_DENOM;
    return 0;
}
