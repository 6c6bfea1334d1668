/* ev.c - the transcript format of the one event type: a line a test can
 * compare, the same whichever program (table, runner, bridge) printed it. */
#include "service/table/ev.h"

#include <stdio.h>

#include "rules/game.h"

static int cards_text(ddz_cards c, char *buf, size_t len)
{
    if (!c)
        return snprintf(buf, len, "-");
    size_t n = 0;
    for (int code = 0; code < DDZ_NCARDS; code++)
        if (c & ((ddz_cards)1 << code)) {
            int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%d", n ? "," : "",
                             code);
            n += (size_t)w;
        }
    return (int)n;
}

int ddz_ev_format(const ddz_ev *ev, char *buf, size_t len)
{
    static const char seatc[] = "ABC";
    char to[8], cards[200];
    if (ev->to == DDZ_TO_ALL)
        snprintf(to, sizeof to, "all");
    else if (ev->to == DDZ_TO_WATCHERS)
        snprintf(to, sizeof to, "watch");
    else
        snprintf(to, sizeof to, "p%d", ev->to);
    cards_text(ev->cards, cards, sizeof cards);
    char who = ev->seat >= 0 && ev->seat < 3 ? seatc[ev->seat] : '-';
    switch (ev->kind) {
    case DDZ_EV_GAME:
        return snprintf(buf, len, "%s game %d seat %c hand %s", to, ev->game + 1, who, cards);
    case DDZ_EV_ASK_BID:
    case DDZ_EV_ASK_PLAY:
        return snprintf(buf, len, "%s ask %c %s seq %u due %lld", to, who,
                        ev->kind == DDZ_EV_ASK_BID ? "bid" : "play", ev->seq,
                        (long long)ev->deadline_ms);
    case DDZ_EV_BID:
        return snprintf(buf, len, "%s bid %c %d", to, who, ev->bid);
    case DDZ_EV_LEFTOVER:
        return snprintf(buf, len, "%s leftover %c %s", to, who, cards);
    case DDZ_EV_PLAY:
        return snprintf(buf, len, "%s play %c %s%s", to, who, ev->cards ? cards : "pass",
                        ev->autopass ? " auto" : "");
    case DDZ_EV_OVER:
        if (ev->fault_seat >= 0 && ev->seat < 0)
            return snprintf(buf, len, "%s over fault %c %s", to, seatc[ev->fault_seat % 3],
                            ddz_fault_name(ev->fault_kind));
        if (ev->fault_seat >= 0) /* the game went on after it */
            return snprintf(buf, len, "%s over winner %c fault %c %s", to, who,
                            seatc[ev->fault_seat % 3], ddz_fault_name(ev->fault_kind));
        return snprintf(buf, len, "%s over winner %c", to, who);
    case DDZ_EV_FAULT:
        return snprintf(buf, len, "%s fault %c %s", to, seatc[ev->fault_seat % 3],
                        ddz_fault_name(ev->fault_kind));
    case DDZ_EV_SERIES:
        return snprintf(buf, len, "%s series", to);
    }
    return snprintf(buf, len, "%s ?%d", to, ev->kind);
}
