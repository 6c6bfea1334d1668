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
#include <string.h>

#include "rules/error.h"
#include "rules/movegen.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/seat_player.h"

typedef struct player_seat {
    ddz_seat base;
    ddz_player *player;
} player_seat;

#define TURN_MOVES_FEW 256 /* plays generated on the stack (4 KiB) */

ddz_cards *ddz__turn_event(const ddz_table *t, const ddz_ev *ask, bool with_legal,
                           ddz_event_turn *out)
{
    int64_t left = ask->deadline_ms - ddz__now_us() / 1000;
    *out = (ddz_event_turn){
        .seat = ask->seat,
        .action = ask->kind == DDZ_EV_ASK_BID ? DDZ_EVENT_ACT_BID : DDZ_EVENT_ACT_PLAY,
        .seq = ask->seq,
        .deadline_ms = left > 0 ? left : 0,
        .has_legal = with_legal,
    };
    if (!with_legal)
        return NULL;
    const ddz_game *g = ddz_table_state(t);
    if (ask->kind == DDZ_EV_ASK_BID) {
        int bids[DDZ_NBIDS_MAX];
        int n = ddz_rules_legal_bids(g->rules, g->bids, bids);
        for (int i = 0; i < n; i++)
            out->legal_bids |= (uint8_t)(1u << bids[i]);
        return NULL;
    }
    /* Almost every hand has far fewer plays than DDZ_MOVES_MAX: they are
     * generated on the stack first, and on the heap only when they do not
     * fit. (A 64 KiB malloc at every turn made glibc consolidate its free
     * lists each time: 5% of the loop's time at 10,000 connections.) */
    ddz_move few[TURN_MOVES_FEW], *moves = few;
    ddz_ranks hand = ddz_cards_ranks(g->hand[ask->seat]);
    const ddz_combo *last = ddz_game_leading(g) ? NULL : &g->last;
    int n = ddz_movegen(g->rules, hand, last, few, TURN_MOVES_FEW);
    if (n == DDZ_ENOSPC) {
        moves = malloc(DDZ_MOVES_MAX * sizeof *moves);
        if (!moves)
            return NULL;
        n = ddz_movegen(g->rules, hand, last, moves, DDZ_MOVES_MAX);
    }
    ddz_cards *plays = n > 0 ? malloc((size_t)n * sizeof *plays) : NULL;
    for (int i = 0; plays && i < n; i++)
        plays[i] = ddz_cards_pick(g->hand[ask->seat], moves[i].ranks);
    if (moves != few)
        free(moves);
    out->legal = plays;
    out->nlegal = plays ? (size_t)n : 0;
    return plays;
}

void ddz__game_event(const ddz_table *t, const ddz_ev *ev, bool with_hand, ddz_event *out)
{
    *out = (ddz_event){.type = DDZ_EVENT_GAME,
                       .game = {.game = ev->game + 1,
                                .games = t->games,
                                .has_hand = with_hand,
                                .hand = with_hand ? ev->cards : 0}};
    memcpy(out->game.commit, ddz_table_record(t)->commit, sizeof out->game.commit);
}

static void player_deliver(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    player_seat *ps = (player_seat *)s;
    if (ev->kind != DDZ_EV_GAME || !ps->player->conn)
        return;
    ddz_event e;
    ddz__game_event(t, ev, true, &e);
    ddz__conn_send(ps->player->conn, ddz_event_print(&e));
}

static void player_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    player_seat *ps = (player_seat *)s;
    if (!ps->player->conn)
        return;
    ddz_event e = {.type = DDZ_EVENT_TURN};
    ddz_cards *plays = ddz__turn_event(t, ev, true, &e.turn);
    char *text = ddz_event_dump(&e); /* straight: every legal play, the move's biggest frame */
    if (text)
        ddz__conn_send_text(ps->player->conn, text, strlen(text));
    free(text);
    free(plays);
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

/* A bot is a program: an illegal action is its fault at once (spec §6),
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

int ddz__seat_player_act(ddz_seat *s, const ddz_player *p, int action, uint32_t seq, int bid,
                         ddz_cards cards)
{
    if (!s || (s->ops != &human_ops && s->ops != &bot_ops) || ((player_seat *)s)->player != p ||
        !s->host.act)
        return DDZ_ETURN;
    return s->host.act(s->host.ctx, s, action, seq, bid, cards);
}

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
