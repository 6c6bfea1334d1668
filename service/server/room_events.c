/* room_events.c - what a room's table tells it: every public event turned
 * into a protocol event (proto/event.h) serialised once for everyone at
 * the table, the end of each game stored and told (once durable: conn.h),
 * and the end of a turn.
 */
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_events.h"
#include "service/server/room_rated.h"
#include "service/server/room_seats.h"
#include "service/server/room_series.h"
#include "service/server/room_view.h"

static void turn_over(ddz_room *r)
{
    r->phase = PH_TURN_OVER;
    const char *names[3];
    const ddz_record *rec = ddz_table_record(room_table(r));
    for (int s = 0; s < 3; s++) {
        names[s] = rec->names[s];
        r->seats[s].rematch = r->seats[s].player == NULL;
    }
    double sums[3];
    for (int s = 0; s < 3; s++)
        sums[s] = ddz_table_total(room_table(r), s);
    ddz_store_add_turn(r->srv->store, r->id, r->turn_no, r->opts.games, names, sums);
    r->hold = ddz_store_ticket(r->srv->store); /* `turn_over` waits for the result */
    ddz_event e = {.type = DDZ_EVENT_TURN_OVER, .turn_over = {.games = r->opts.games}};
    ddz__room_totals(r, e.turn_over.totals);
    ddz__room_broadcast(r, &e);
}

void ddz__room_on_over(void *ctx, const ddz_record *record)
{
    ddz_room *r = ctx;
    ddz_record rec = *record;
    ddz__room_name_seats(r, &rec);
    r->asking = false;
    char key[DDZ_STORE_KEY_HEX + 1];
    const char *gkey = room_store_key(r, key);
    ddz_store_add_game(r->srv->store, r->game_id, r->id, gkey, &rec, false);
    /* the plug-ins hear of games anyone may read (the stock of puzzles
     * comes from them): a private room's game, read with its key, and a
     * competition's held game, whose deal other tables may still be
     * playing, give away no position */
    for (int i = 0; !gkey && !room_table(r)->redealt && i < r->srv->nplugins; i++)
        if (r->srv->plugin[i]->game_over)
            r->srv->plugin[i]->game_over(r->srv->plugin_self[i], r->game_id, &rec);
    for (int i = 0; i < 3; i++) /* "my games": who played it, by their browsers' hashes */
        if (r->seats[i].player && r->seats[i].player->has_me)
            ddz_store_add_mine(r->srv->store, r->game_id, i, r->seats[i].player->me);
    /* Durable before told: the `over` below (and all the room says after
     * it) waits in each connection's queue until the record and its "my
     * games" rows are committed or journaled, so that a server killed a
     * moment later has not told anyone of a game it then loses. */
    r->hold = ddz_store_ticket(r->srv->store);
    r->srv->m.games_finished++;
    if (!room_table(r)->redealt) { /* a deal dealt again is no game */
        bool won = rec.winner >= 0 ? rec.winner == rec.landlord
                                   : rec.landlord >= 0 && rec.scores[rec.landlord] > 0;
        ddz__room_rated_over(r, rec.landlord, won);
    }
    if (rec.fault_seat >= 0)
        r->srv->m.faults[rec.fault_kind < 5 ? rec.fault_kind : 0]++;

    ddz_event e = {.type = DDZ_EVENT_OVER};
    ddz_event_over *o = &e.over;
    ddz_event_over_fill(o, ddz_table_state(room_table(r)), &rec);
    o->game_id = r->game_id;
    _Static_assert(sizeof o->game_key == sizeof r->game_key, "one key, two modules");
    memcpy(o->game_key, r->game_key, sizeof o->game_key);
    ddz__room_totals(r, o->totals);
    bool redeal = !r->owned && room_table(r)->redealt;
    o->redeal = redeal;
    if (!redeal) { /* a deal dealt again has no result to come back to */
        r->last_over = *o;
        r->has_last_over = true;
    }
    ddz__room_broadcast(r, &e);
    if (!r->owned)
        ddz__room_settle_soon(r); /* people waiting to sit take their seats */
    if (r->owned) {
        r->phase = PH_BETWEEN; /* the director starts the next game */
    } else if (redeal) {
        ddz__room_begin_redeal(r);
    } else if (!ddz_table_done(room_table(r))) {
        ddz__room_begin_between(r);
    }
}

/* What everyone at the table hears; the seats already had their own. */
void ddz__room_on_event(void *ctx, const ddz_ev *ev)
{
    ddz_room *r = ctx;
    const ddz_game *g = ddz_table_state(room_table(r));
    ddz_event e = {0};
    switch (ev->kind) {
    case DDZ_EV_GAME:
        if (ev->to == DDZ_TO_WATCHERS) {
            ddz__game_event(room_table(r), ev, false, &e);
            ddz__room_send_event(r, &e, false, NULL);
        } else if (ev->to >= 0 && ev->to < 3 && r->seats[ev->to].custody &&
                   r->seats[ev->to].player && r->seats[ev->to].player->conn) {
            /* the AI in custody had the game; its player, watching, gets
             * its hand as its own seat would have */
            ddz__game_event(room_table(r), ev, true, &e);
            ddz__conn_send_held(r->seats[ev->to].player->conn, ddz_event_print(&e), r->hold);
        }
        break;
    case DDZ_EV_ASK_BID:
    case DDZ_EV_ASK_PLAY: {
        r->ask = *ev;
        r->asking = true;
        /* the player to act gets its own turn, with the legal answers */
        const rseat *actor = &r->seats[ev->seat];
        const ddz_seat *st = ddz_runner_seat_of(r->run, ev->seat);
        bool own = actor->player && st && st->ops->ask && !actor->custody;
        e.type = DDZ_EVENT_TURN;
        ddz__turn_event(room_table(r), ev, false, &e.turn);
        ddz__room_send_event(r, &e, true, own ? actor->player : NULL);
        break;
    }
    case DDZ_EV_BID:
        e = (ddz_event){.type = DDZ_EVENT_BID_MADE, .bid_made = {.seat = ev->seat, .bid = ev->bid}};
        ddz__room_broadcast(r, &e);
        break;
    case DDZ_EV_LEFTOVER:
        e = (ddz_event){.type = DDZ_EVENT_LEFTOVER,
                        .leftover = {.landlord = ev->seat,
                                     .cards = ev->cards,
                                     .bid = g->bid,
                                     .multiplier = g->rules->multiplier_so_far(g)}};
        ddz__room_broadcast(r, &e);
        break;
    case DDZ_EV_PLAY: /* the rules classified it: the event says how */
        e = (ddz_event){.type = DDZ_EVENT_PLAYED,
                        .played = {.seat = ev->seat,
                                   .cards = ev->cards,
                                   .combo = ev->combo,
                                   .autopass = ev->autopass,
                                   .left = ddz_cards_count(g->hand[ev->seat]),
                                   .multiplier = g->rules->multiplier_so_far(g)}};
        ddz__room_broadcast(r, &e);
        break;
    case DDZ_EV_FAULT: /* only where the game goes on (botzone-ftl2) */
        e = (ddz_event){.type = DDZ_EVENT_FAULT,
                        .fault = {.seat = ev->fault_seat, .kind = ev->fault_kind}};
        ddz__room_broadcast(r, &e);
        break;
    case DDZ_EV_SERIES:
        turn_over(r);
        break;
    default:
        break;
    }
}

void ddz__room_on_log(void *ctx, int player, bool warn, const char *msg)
{
    ddz_room *r = ctx;
    (void)player;
    ddz__log(r->srv, warn ? "warn" : "info", r->id, "%s", msg);
}

static bool humans_present(const ddz_room *r)
{
    for (int i = 0; i < 3; i++)
        if (r->seats[i].player && !r->seats[i].player->bot)
            return true;
    return false;
}

/* A short, human-friendly pause before a hosted AI acts when people play
 * or watch. A bot (a bridge) is no person: a table of programs plays at
 * their speed. */
int64_t ddz__room_think_delay(void *ctx)
{
    ddz_room *r = ctx;
    return humans_present(r) || r->nwatch ? r->srv->cfg.ai_delay_ms * 1000LL : 0;
}
