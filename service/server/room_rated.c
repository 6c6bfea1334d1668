/* room_rated.c - a rated room's games: their players at the deal, their
 * rating at the end (room_rated.h). */
#include <stdio.h>
#include <string.h>

#include "rules/game.h"
#include "service/rating/people_rating.h"
#include "service/server/rated_games.h"
#include "service/server/room_rated.h"

/* The rated player of seat `s` now: its person's account, or its hosted
 * AI's id (a seat made with one, a stand-in, custody's AI); 0 for any
 * other. */
static int64_t seat_player(const rseat *s)
{
    if (s->player)
        return s->player->bot ? 0 : s->player->account;
    return s->spec[0] ? ddz_people_rating_ai_id(s->spec) : 0;
}

void ddz__room_rated_deal(ddz_room *r)
{
    r->rated_game = false;
    if (!r->opts.rated)
        return;
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        r->rated_player[i] = seat_player(&r->seats[i]);
        ok &= r->rated_player[i] != 0;
        for (int j = 0; j < i; j++)
            ok &= r->rated_player[i] != r->rated_player[j];
    }
    r->rated_game = ok;
    if (!ok)
        ddz__log(r->srv, "warn", r->id,
                 "game %lld is not rated: its seats are not three different rated players",
                 (long long)r->game_id);
}

/* Seat i's person (at the deal) left the game: not in the seat now, or
 * its connection gone (a closed tab not back by the game's end). */
static bool left(const ddz_room *r, int i)
{
    const rseat *s = &r->seats[i];
    return r->rated_player[i] > 0 &&
           !(s->player && s->player->account == r->rated_player[i] && s->player->conn);
}

static void submit(ddz_room *r, int landlord, bool landlord_won, unsigned forfeit)
{
    ddz_rated_game g = {.game = r->game_id,
                        .landlord = landlord,
                        .landlord_won = landlord_won,
                        .forfeit = forfeit,
                        .hold = r->hold};
    snprintf(g.rules, sizeof g.rules, "%s", r->rules->name);
    memcpy(g.player, r->rated_player, sizeof g.player);
    r->rated_game = false;                     /* once */
    (void)ddz__rated_games_submit(r->srv, &g); /* a failure is logged there */
}

void ddz__room_rated_over(ddz_room *r, int landlord, bool landlord_won)
{
    if (!r->opts.rated || !r->rated_game || landlord < 0)
        return;
    unsigned forfeit = 0;
    for (int i = 0; i < 3; i++)
        if (left(r, i))
            forfeit |= 1u << i;
    submit(r, landlord, landlord_won, forfeit);
}

void ddz__room_rated_abandoned(ddz_room *r)
{
    if (!r->opts.rated || !r->rated_game || !room_live(r))
        return;
    unsigned forfeit = 0;
    int first = -1;
    for (int i = 0; i < 3; i++)
        if (left(r, i)) {
            forfeit |= 1u << i;
            if (first < 0)
                first = i;
        }
    if (!forfeit)
        return; /* nobody left: the server stops, which rates nothing */
    int landlord = ddz_table_state(room_table(r))->landlord;
    if (landlord < 0)
        landlord = first;
    submit(r, landlord, !(forfeit >> landlord & 1), forfeit);
}
