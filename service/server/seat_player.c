/* seat_player.c - a person (or a remote bot) at a table, over its
 * WebSocket connection.
 *
 * What everyone at the table hears (bids, plays, the end) the room
 * serialises once and sends to every connection; this adapter sends what
 * is the player's own: the start of a game with its hand, and its turn
 * with the legal plays. A player who is away keeps the seat; its events
 * are dropped and a state snapshot catches it up when it comes back.
 */
#include <stdlib.h>

#include "proto/text.h"
#include "rules/error.h"
#include "rules/movegen.h"
#include "service/server/srv_internal.h"

typedef struct player_seat {
    ddz_seat base;
    ddz_player *player;
} player_seat;

json_t *ddz__legal_json(const ddz_table *t, int action, int seat)
{
    json_t *a = json_array();
    const ddz_game *g = ddz_table_state(t);
    if (action == DDZ_EV_ASK_BID) {
        int bids[DDZ_NBIDS_MAX];
        int n = ddz_rules_legal_bids(g->rules, g->bids, bids);
        for (int i = 0; i < n; i++)
            json_array_append_new(a, json_integer(bids[i]));
        return a;
    }
    ddz_move *moves = malloc(DDZ_MOVES_MAX * sizeof *moves);
    if (!moves)
        return a;
    int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[seat]),
                        ddz_game_leading(g) ? NULL : &g->last, moves, DDZ_MOVES_MAX);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, ddz_msg_cards(ddz_cards_pick(g->hand[seat], moves[i].ranks)));
    free(moves);
    return a;
}

json_t *ddz__turn_json(const ddz_table *t, const ddz_tev *ask, bool with_legal)
{
    int64_t left = ask->deadline_ms - ddz__now_us() / 1000;
    json_t *j = json_pack("{s:s, s:i, s:s, s:i, s:I}", "type", "turn", "seat", ask->seat, "action",
                          ask->action == DDZ_EV_ASK_BID ? "bid" : "play", "seq", (int)ask->seq,
                          "deadline_ms", (json_int_t)(left > 0 ? left : 0));
    if (with_legal)
        json_object_set_new(j, "legal", ddz__legal_json(t, ask->action, ask->seat));
    return j;
}

json_t *ddz__game_json(const ddz_table *t, const ddz_tev *ev, bool with_hand)
{
    char commit[65];
    ddz_text_format_seed(ddz_table_record(t)->commit, commit);
    return json_pack("{s:s, s:i, s:i, s:s, s:o}", "type", "game", "game", ev->game + 1, "games",
                     t->games, "commit", commit, "hand",
                     with_hand ? ddz_msg_cards(ev->cards) : json_null());
}

static void player_deliver(ddz_seat *s, const ddz_tev *ev, const ddz_table *t)
{
    player_seat *ps = (player_seat *)s;
    if (ev->kind == DDZ_TEV_GAME && ps->player->conn)
        ddz__conn_send(ps->player->conn, ddz__game_json(t, ev, true));
}

static void player_ask(ddz_seat *s, const ddz_tev *ev, const ddz_table *t)
{
    player_seat *ps = (player_seat *)s;
    if (ps->player->conn)
        ddz__conn_send(ps->player->conn, ddz__turn_json(t, ev, true));
}

static const char *player_name(const ddz_seat *s)
{
    return ((const player_seat *)s)->player->name;
}

static bool player_connected(const ddz_seat *s)
{
    return ((const player_seat *)s)->player->conn != NULL;
}

static void player_close(ddz_seat *s)
{
    free(s);
}

static const ddz_seat_ops human_ops = {
    .kind = "human",
    .deliver = player_deliver,
    .ask = player_ask,
    .name = player_name,
    .connected = player_connected,
    .close = player_close,
};

/* A bot is a program: an illegal action is its fault at once (SPEC 6),
 * whatever the room, since a CAAI engine behind `ddz bridge` cannot try
 * again. */
static const ddz_seat_ops bot_ops = {
    .kind = "bot",
    .deliver = player_deliver,
    .ask = player_ask,
    .name = player_name,
    .connected = player_connected,
    .close = player_close,
};

ddz_seat *ddz__seat_player_create(ddz_srv *srv, ddz_player *p)
{
    player_seat *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->base = (ddz_seat){.ops = p->bot ? &bot_ops : &human_ops,
                          .loop = &srv->loop.base,
                          .player = -1,
                          .program = p->bot};
    ps->player = p;
    return &ps->base;
}
