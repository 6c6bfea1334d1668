// absence.js - a person who is away from a casual table (spec §14): what the
// server decided, shown. Kept apart from table.js, which calls in at a few
// points (seat badges, the spectator's controls, the game-over panel, the
// `seat` event).
//
// The server decides everything: that a missed clock was one move made for
// the seat (`seat.player.missed`), that a hosted AI keeps a seat for someone
// (`seat.player.standin`), that this connection was stood up from its seat
// (`state.stood_up`) or sits when the game ends (`state.seat_next`). The one
// thing sent from here is `join`, which seats a stood-up person again.
import { h } from './dom.js';
import { t } from './i18n.js';
import { join, toast } from './shell.js';

/* The badges of seat `s`: a stand-in's, a missed clock's, and an open
 * seat's whose person is away (it waits for them). */
export function absenceBadges(tb, s) {
  const p = tb.players[s];
  if (!p) return tb.away && tb.away[s] ? [h('span.badge.warn.away', { dataset: { test: 'away' } }, t('absence.away'))] : [];
  const out = [];
  if (p.standin) {
    out.push(h('span.badge.warn.away', { dataset: { test: 'standin-for' }, title: t('absence.standin.title', { name: p.standin }) },
      t('absence.standin', { name: p.standin })));
  }
  if (p.missed === 1 && !p.custody) out.push(h('span.badge.warn', { dataset: { test: 'missed' } }, t('absence.missed')));
  return out;
}

/* A `seat` event: this seat's first missed clock is said once, as the move
 * the server makes for it (which follows as an ordinary bid or play). */
export function noteMissed(tb, m, was) {
  if (m.seat !== tb.seat || !m.player || m.player.missed !== 1 || (was && was.missed === 1)) return;
  toast(tb.g.phase === 'bid' ? t('absence.missed.bid') : t('absence.missed.play'), 'info');
}

/* A `seat` event: a person's seat that falls open (they left, or were
 * stood up) keeps their name, marked away, until someone sits there. */
export function noteAway(tb, m, was) {
  tb.away = tb.away || {};
  if (m.player) delete tb.away[m.seat];
  else if (was && was.kind === 'human') tb.away[m.seat] = was.name;
}

/* A `state`: the same for every seat it shows open that a person held
 * (the state that tells us we were stood up comes before the `seat`). */
export function noteAwayState(tb, players) {
  players.forEach((p, s) => noteAway(tb, { seat: s, player: p }, tb.players && tb.players[s]));
}

/* What a spectator's controls say when it is one because it was away: the
 * notice and the one tap that seats it again, or that it sits when the
 * game ends. Empty for anyone else. */
export function absenceBar(tb) {
  if (tb.seat !== null) return [];
  if (tb.stoodUp) {
    return [h('div.stood-up-bar', { dataset: { test: 'stood-up' }, role: 'status' },
      h('span.prompt', t('absence.stood')),
      sitAgainButton(tb, 'sit-again'))];
  }
  if (tb.seatNext) {
    return [h('div.stood-up-bar', { dataset: { test: 'seat-next' }, role: 'status' }, h('span.prompt', t('absence.next')))];
  }
  return [];
}

/* The button that seats a stood-up person again (also on the game-over
 * panel, which is modal and may be open when the clock stands them up). */
export function sitAgainButton(tb, test = 'sit-again-over') {
  return h('button.primary', { dataset: { test }, onclick: (e) => {
    e.currentTarget.disabled = true;
    join(tb.roomId);
  } }, t('absence.sit'));
}
