/* table.c - the series around the referee: who sits where, the clock of
 * the open request, totals, and events addressed to their audience. */
#include "service/table/table.h"

#include <string.h>

#include "rules/error.h"

static void push(ddz_table *t, ddz_ev ev)
{
    /* One input emits at most a game's opening (3 + 1 + an ask), or a play,
     * two auto-passes, an ask, the end and the series' end; the driver
     * drains after every input. Overflowing is a driver bug that must not
     * become memory corruption. */
    if (t->qlen == DDZ_TABLE_QUEUE)
        return;
    t->q[(t->qhead + t->qlen++) % DDZ_TABLE_QUEUE] = ev;
}

bool ddz_table_next(ddz_table *t, ddz_ev *ev)
{
    if (t->qlen == 0)
        return false;
    *ev = t->q[t->qhead];
    t->qhead = (t->qhead + 1) % DDZ_TABLE_QUEUE;
    t->qlen--;
    return true;
}

static int maxscore(const ddz_table *t)
{
    return t->cfg.maxscore > 0 ? t->cfg.maxscore
                               : ddz_rules_maxscore(t->cfg.rules, t->cfg.played + t->games);
}

int ddz_table_init(ddz_table *t, const ddz_table_cfg *cfg)
{
    if (cfg->deals < 1 || cfg->time_ms < 1 || cfg->played < 0)
        return DDZ_EINVAL;
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    if (!t->cfg.rules)
        t->cfg.rules = &ddz_rules_caai;
    if (t->cfg.turn < 1)
        t->cfg.turn = 1;
    if (t->cfg.turns < t->cfg.turn)
        t->cfg.turns = t->cfg.turn;
    t->games = cfg->deals * (cfg->rotate ? 3 : 1);
    ddz_ref_cfg rc = {.rules = t->cfg.rules};
    ddz_ref_init(&t->ref, &rc);
    /* spec §6: a fault before the leftover costs maxscore / games, which is
     * the rule set's per-game maximum whatever the series' length. */
    t->ref.cfg.early_penalty =
        ddz_rules_early_penalty(t->cfg.rules, maxscore(t), t->cfg.played + t->games);
    for (int i = 0; i < 3; i++)
        t->player_at[i] = t->seat_of[i] = i;
    t->deadline_ms = -1;
    return 0;
}

void ddz_table_info_of(const ddz_table *t, ddz_table_info *info)
{
    *info = (ddz_table_info){
        .turn = t->cfg.turn,
        .turns = t->cfg.turns,
        .game = t->cfg.played + ddz_table_game(t) + 1,
        .games = t->cfg.played + t->games,
        .up = 0,
        .maxscore = maxscore(t),
        .time_s = (t->cfg.time_ms + 999) / 1000,
    };
}

/* Moves the referee's events into the table's queue, addressed: the same
 * values, with what only the table knows added. */
static void drain(ddz_table *t, int64_t now_ms)
{
    ddz_ev ev;
    while (ddz_ref_next(&t->ref, &ev)) {
        switch (ev.kind) {
        case DDZ_EV_GAME: {
            /* each player gets its own seat and hand, in player order; the
             * referee's public start goes to the spectators */
            const ddz_deal *d = &ddz_ref_record(&t->ref)->deal;
            for (int p = 0; p < 3; p++) {
                ddz_ev own = ev;
                own.to = (int8_t)p;
                own.seat = (int8_t)t->seat_of[p];
                own.cards = d->hand[t->seat_of[p]];
                push(t, own);
            }
            ev.to = DDZ_TO_WATCHERS;
            push(t, ev);
            continue;
        }
        case DDZ_EV_ASK_BID:
        case DDZ_EV_ASK_PLAY:
            t->deadline_ms = now_ms + t->cfg.time_ms;
            ev.deadline_ms = t->deadline_ms;
            break;
        case DDZ_EV_OVER: {
            const ddz_record *r = ddz_ref_record(&t->ref);
            /* everyone passed: the deal does not count, one more is dealt
             * (scores are 0 anyway, so the totals are the same either way) */
            t->redealt = t->cfg.redeal && !t->cfg.rotate && r->landlord < 0 && r->nfaults == 0 &&
                         t->games < DDZ_TABLE_GAMES_MAX;
            if (t->redealt)
                t->games++;
            for (int s = 0; s < 3; s++) {
                double *total = &t->totals[t->player_at[s]];
                *total = ddz_score_add(*total, r->scores[s]);
            }
            t->deadline_ms = -1;
            push(t, ev);
            if (t->next >= t->games)
                push(t, (ddz_ev){
                            .kind = DDZ_EV_SERIES, .to = DDZ_TO_ALL, .seat = -1, .game = ev.game});
            continue;
        }
        default:
            break;
        }
        push(t, ev);
    }
}

int ddz_table_start(ddz_table *t, int64_t now_ms, const char *const names[3])
{
    if (ddz_ref_running(&t->ref) || t->next >= t->games)
        return DDZ_EPHASE;
    int k = t->next, rotation = t->cfg.rotate ? k % 3 : 0;
    uint32_t deal = t->cfg.first_deal + (uint32_t)(t->cfg.rotate ? k / 3 : k);
    for (int s = 0; s < 3; s++) {
        t->player_at[s] = (s + rotation) % 3;
        t->seat_of[t->player_at[s]] = s;
        t->ref.cfg.autopass[s] = t->cfg.autopass[t->player_at[s]];
    }
    const char *by_seat[3];
    for (int s = 0; s < 3; s++)
        by_seat[s] = names ? names[t->player_at[s]] : NULL;
    uint8_t seed[DDZ_SEED_BYTES];
    ddz_deal_game_seed(t->cfg.master, deal, seed);
    int rc = ddz_ref_start(&t->ref, k, seed, by_seat);
    if (rc < 0)
        return rc;
    t->next++;
    drain(t, now_ms);
    return 0;
}

static int seat_of(const ddz_table *t, int player)
{
    return player >= 0 && player < 3 ? t->seat_of[player] : -1;
}

int ddz_table_bid(ddz_table *t, int player, uint32_t seq, int bid, int64_t now_ms)
{
    int seat = seat_of(t, player);
    if (seat < 0)
        return DDZ_EINVAL;
    int rc = ddz_ref_bid(&t->ref, seat, seq, bid);
    if (rc == 0)
        drain(t, now_ms);
    return rc;
}

int ddz_table_play(ddz_table *t, int player, uint32_t seq, ddz_cards cards, int64_t now_ms)
{
    int seat = seat_of(t, player);
    if (seat < 0)
        return DDZ_EINVAL;
    int rc = ddz_ref_play(&t->ref, seat, seq, cards);
    if (rc == 0)
        drain(t, now_ms);
    return rc;
}

int ddz_table_fault(ddz_table *t, int player, int kind, int64_t now_ms)
{
    int seat = seat_of(t, player);
    if (seat < 0)
        return DDZ_EINVAL;
    int rc = ddz_ref_fault(&t->ref, seat, kind);
    if (rc == 0)
        drain(t, now_ms);
    return rc;
}

int ddz_table_time(ddz_table *t, int64_t now_ms)
{
    if (!ddz_ref_running(&t->ref) || t->deadline_ms < 0 || now_ms < t->deadline_ms)
        return 0;
    ddz_ref_fault(&t->ref, t->ref.game.turn, DDZ_FAULT_TIMEOUT);
    drain(t, now_ms);
    return 1;
}

int64_t ddz_table_extend(ddz_table *t, int64_t now_ms)
{
    if (!ddz_ref_running(&t->ref) || t->deadline_ms < 0)
        return -1;
    t->deadline_ms = now_ms + t->cfg.time_ms;
    return t->deadline_ms;
}

void ddz_table_set_autopass(ddz_table *t, int player, bool on)
{
    if (player < 0 || player > 2)
        return;
    t->cfg.autopass[player] = on;
    t->ref.cfg.autopass[t->seat_of[player]] = on;
}

int ddz_table_abort(ddz_table *t)
{
    t->deadline_ms = -1;
    return ddz_ref_abort(&t->ref);
}
