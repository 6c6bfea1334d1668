/* view_fixture.h - hand-built player views for the AI tests: cards by rank
 * names, a table in play, an opponent's play, and the check that a decided
 * play is legal. */
#ifndef DDZ_TEST_VIEW_FIXTURE_H
#define DDZ_TEST_VIEW_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "rules/combo.h"
#include "rules/view.h"

/* Returns cards for the ranks in `s` ("3456789TJQKA2" and w/W for the small
 * and big joker), taking for each rank the lowest suit not in `taken` nor
 * already chosen. */
static inline ddz_cards hand_of(const char *s, ddz_cards taken)
{
    static const char names[] = "3456789TJQKA2wW";
    ddz_cards c = 0;
    for (; *s; s++) {
        if (*s == ' ')
            continue;
        const char *p = strchr(names, *s);
        cr_assert(p && *p, "bad rank '%c'", *s);
        ddz_cards free = ddz_cards_of_rank(DDZ_CARDS_ALL & ~taken & ~c, (int)(p - names));
        cr_assert_neq(free, 0, "no card of rank '%c' left", *s);
        c |= free & (~free + 1);
    }
    return c;
}

/* The view under rule set `rs` of `seat` holding `hand` in play, with
 * `landlord` and the card counts `left`; the cards in `gone` were played by
 * the next seat ("" for none). The leftover is the landlord's three lowest
 * cards when that is `seat`, else the three lowest cards `seat` does not
 * hold. */
static inline ddz_view table_in(const ddz_rules *rs, int seat, int landlord, const char *hand,
                                const char *gone, const int left[3])
{
    ddz_cards h = hand_of(hand, 0), pool = landlord == seat ? h : DDZ_CARDS_ALL & ~h, left3 = 0;
    for (int i = 0; i < 3; i++)
        left3 |= pool & ~left3 & (~(pool & ~left3) + 1);
    ddz_view v;
    cr_assert_eq(ddz_view_deal(&v, rs, seat, landlord == seat ? h & ~left3 : h), 0);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(ddz_view_bid(&v, s, s == landlord ? 1 : 0), 0);
    cr_assert_eq(ddz_view_leftover(&v, landlord, left3), 0);
    cr_assert_eq(v.hand, h);
    v.played[(seat + 1) % 3] = hand_of(gone, h | (landlord == seat ? 0 : left3));
    for (int s = 0; s < 3; s++)
        v.left[s] = (uint8_t)left[s];
    cr_assert_eq(v.left[seat], ddz_cards_count(h));
    return v;
}

/* The same under caai. */
static inline ddz_view table(int seat, int landlord, const char *hand, const char *gone,
                             const int left[3])
{
    return table_in(&ddz_rules_caai, seat, landlord, hand, gone, left);
}

/* Seat `seat` (not the view's) plays the ranks `play` ("" passes); its
 * count in v->left is what it holds afterwards. */
static inline void opp_plays(ddz_view *v, int seat, const char *play)
{
    ddz_cards c = hand_of(play, v->hand | v->played[0] | v->played[1] | v->played[2]);
    int left = v->left[seat];
    v->left[seat] = (uint8_t)(left + ddz_cards_count(c)); /* as if it held them */
    cr_assert_eq(ddz_view_play(v, seat, c), 0);
    cr_assert_eq(v->left[seat], left);
}

/* The view's own cards of the ranks `ranks`. */
static inline ddz_cards ranks_in(const ddz_view *v, const char *ranks)
{
    return hand_of(ranks, ~v->hand & DDZ_CARDS_ALL);
}

/* Asserts that `c`, decided for `v`, is a play of its own cards: a legal
 * lead, or when following a pass or a play that beats the last. */
static inline void assert_legal_play(const ddz_view *v, ddz_cards c)
{
    cr_assert_eq(c & ~v->hand, 0, "plays only its own cards");
    ddz_combo cb = ddz_combo_classify(v->rules, ddz_cards_ranks(c));
    if (v->last_seat < 0)
        cr_assert(cb.type != DDZ_PASS && cb.type != DDZ_INVALID, "a legal lead");
    else
        cr_assert(cb.type == DDZ_PASS || (cb.type != DDZ_INVALID && ddz_combo_beats(cb, v->last)),
                  "a pass or a play that beats the last");
}

#endif
