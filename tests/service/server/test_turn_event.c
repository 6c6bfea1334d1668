/* test_turn_event.c - the `legal` list of a player's `turn` event
 * (service/server/seat_player.c): every play ddz_movegen gives, in its
 * order, whether the plays fit the stack buffer the server tries first or
 * need the heap (a 20-card lead often has more than 256). */
#include <criterion/criterion.h>

#include "rules/movegen.h"
#include "service/server/seat_player.h"
#include "service/table/table.h"

static ddz_move all[DDZ_MOVES_MAX];

/* Compares the turn event of the seat asked by `ask` with movegen's list. */
static int check_turn(const ddz_table *t, const ddz_ev *ask)
{
    const ddz_game *g = ddz_table_state(t);
    int n = ddz_movegen(g->rules, ddz_cards_ranks(g->hand[ask->seat]),
                        ddz_game_leading(g) ? NULL : &g->last, all, DDZ_MOVES_MAX);
    cr_assert_gt(n, 0);
    ddz_event_turn e;
    ddz_cards *plays = ddz__turn_event(t, ask, true, &e);
    cr_assert(e.has_legal);
    cr_assert_eq(e.nlegal, (size_t)n, "%zu legal plays sent, %d generated", e.nlegal, n);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(ddz_cards_ranks(plays[i]), all[i].ranks, "play %d differs", i);
        cr_assert_eq(plays[i] & ~g->hand[ask->seat], 0, "play %d holds cards not held", i);
    }
    free(plays);
    return n;
}

Test(turn_event, legal_plays_are_movegens_list_on_stack_and_heap)
{
    int most = 0, fewest = DDZ_MOVES_MAX, turns = 0;
    for (int series = 0; series < 40; series++) {
        ddz_table_cfg cfg = {.deals = 1, .time_ms = 1000, .rules = &ddz_rules_caai};
        for (int i = 0; i < DDZ_SEED_BYTES; i++)
            cfg.master[i] = (uint8_t)(series * 29 + i + 1);
        ddz_table t;
        cr_assert_eq(ddz_table_init(&t, &cfg), 0);
        cr_assert_eq(ddz_table_start(&t, 0, NULL), 0);
        ddz_ev ev;
        bool over = false;
        while (!over) {
            bool asked = false;
            ddz_ev ask = {0};
            while (ddz_table_next(&t, &ev)) {
                if (ddz_ev_is_ask(&ev))
                    ask = ev, asked = true;
                over |= ev.kind == DDZ_EV_OVER;
            }
            if (over || !asked)
                break;
            int player = ddz_table_player_at(&t, ask.seat);
            if (ask.kind == DDZ_EV_ASK_BID) {
                cr_assert_eq(ddz_table_bid(&t, player, ask.seq, 3, 0), 0);
                continue;
            }
            if (ddz_game_leading(ddz_table_state(&t)) && series % 4 == 0) {
                /* the same lead from a hand of many plays (3-7 as trios,
                 * 8-Q as singles): more than the server's stack holds */
                ddz_table rich = t;
                ddz_cards hand = 0;
                for (int r = 0; r < 10; r++)
                    for (int suit = 0; suit < (r < 5 ? 3 : 1); suit++)
                        hand |= (ddz_cards)1 << (4 * r + suit);
                rich.ref.game.hand[ask.seat] = hand;
                int n = check_turn(&rich, &ask);
                most = n > most ? n : most;
            }
            int n = check_turn(&t, &ask);
            turns++;
            most = n > most ? n : most;
            fewest = n < fewest ? n : fewest;
            /* the first play of the list: a lead's smallest, or the pass */
            const ddz_game *g = ddz_table_state(&t);
            ddz_cards pick = ddz_cards_pick(g->hand[ask.seat], all[0].ranks);
            cr_assert_eq(ddz_table_play(&t, player, ask.seq, pick, 0), 0);
        }
    }
    /* both of the server's paths were taken */
    cr_assert_gt(most, 256, "no turn had more than 256 plays (most %d in %d turns)", most, turns);
    cr_assert_leq(fewest, 256);
}
