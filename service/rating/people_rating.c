/* people_rating.c - one game's rating update (people_rating.h). */
#include "service/rating/people_rating.h"

#include <math.h>
#include <string.h>

/* Index -id - 1: the hosted AIs that have a rating, strongest first. */
static const char *const ai_names[DDZ_PEOPLE_RATING_AIS] = {"ai:strong", "ai:greedy", "ai:random"};

void ddz_people_rating_cfg(ddz_rating_cfg *c)
{
    ddz_rating_cfg_default(c);
    /* One game carries its deal's luck, which the ladder's duplicate deals
     * cancel: a larger performance spread makes one game weigh less. */
    c->beta = c->sigma0;
}

static bool valid(ddz_rating r)
{
    return isfinite(r.mu) && isfinite(r.sigma) && r.sigma > 0;
}

int ddz_people_rating_game(const ddz_rating_cfg *c, ddz_rating r[3], int landlord,
                           bool landlord_won)
{
    return ddz_people_rating_game_forfeit(c, r, landlord, landlord_won, 0);
}

int ddz_people_rating_game_forfeit(const ddz_rating_cfg *c, ddz_rating r[3], int landlord,
                                   bool landlord_won, unsigned forfeit)
{
    if (landlord == -1)
        return 0;
    if (landlord < 0 || landlord > 2 || forfeit > 7)
        return -1;
    for (int i = 0; i < 3; i++)
        if (!valid(r[i]))
            return -1;
    const double ll = landlord_won ? 1.0 : 0.0;
    /* Each seat's own update is from its own side of its events: one who
     * left scores 0 in every event it has, and its opponents keep the real
     * result (a farmer whose landlord left and who lost the game the
     * stand-in played on still lost it). */
    const double ll_own = forfeit >> landlord & 1 ? 0.0 : ll;
    ddz_rating out[3];
    /* The landlord: the full pairing of the landlord with both farmers,
     * which is the sum of its two pairwise updates from the pre-game
     * ratings; the farmers' entries of this update are not used (they
     * hold the farmer-farmer tie that a game does not contain). */
    ddz_rating all[3] = {r[landlord], r[(landlord + 1) % 3], r[(landlord + 2) % 3]};
    const double all_score[3] = {ll_own, 1.0 - ll_own, 1.0 - ll_own};
    if (ddz_rating_update(c, all, all_score, 3) != 0)
        return -1;
    out[landlord] = all[0];
    /* Each farmer: one pairwise event against the landlord's pre-game rating. */
    for (int k = 1; k <= 2; k++) {
        int f = (landlord + k) % 3;
        ddz_rating pair[2] = {r[landlord], r[f]};
        const double f_own = forfeit >> f & 1 ? 0.0 : 1.0 - ll;
        const double pair_score[2] = {1.0 - f_own, f_own};
        if (ddz_rating_update(c, pair, pair_score, 2) != 0)
            return -1;
        out[f] = pair[1];
    }
    memcpy(r, out, sizeof out);
    return 1;
}

double ddz_people_rating_shown(double mu)
{
    return DDZ_PEOPLE_RATING_BASE + DDZ_PEOPLE_RATING_SCALE * (mu - 25.0);
}

double ddz_people_rating_deviation(double sigma)
{
    return DDZ_PEOPLE_RATING_SCALE * sigma;
}

int64_t ddz_people_rating_ai_id(const char *name)
{
    for (int i = 0; name && i < DDZ_PEOPLE_RATING_AIS; i++)
        if (strcmp(name, ai_names[i]) == 0)
            return -(int64_t)i - 1;
    return 0;
}

const char *ddz_people_rating_ai_name(int64_t id)
{
    return id <= -1 && id >= -DDZ_PEOPLE_RATING_AIS ? ai_names[-id - 1] : NULL;
}
