// tracker.js - what a player may work out at the table from public
// information only: how many cards of each rank are still out (记牌器:
// the deck less the viewer's own hand and every card played), and the
// game's moves cut into tricks. It reads the card coding (spec §1) and
// knows no rule set: what a play is and what it multiplies come with it
// from the server (`played.combo`, `played.multiplier`); it never sees
// another seat's hand.

// the rank of a card code (as cards.js has it; this module stays free of
// the DOM so that node can test it)
const rankOf = (c) => (c < 52 ? c >> 2 : c - 39);

export const RANK_COUNT = 15; // 3 … 2 (0..12), small joker (13), big joker (14)
const fullOf = (r) => (r >= 13 ? 1 : 4);

/* remaining(hand, history) -> array of RANK_COUNT numbers: the cards of
 * each rank neither in `hand` (the viewer's; null for a spectator) nor
 * played in `history` ([{cards}]). Never fails. */
export function remaining(hand, history) {
  const left = Array.from({ length: RANK_COUNT }, (_, r) => fullOf(r));
  for (const c of hand || []) left[rankOf(c)]--;
  for (const p of history || []) for (const c of p.cards) left[rankOf(c)]--;
  return left;
}

/* tricks(history) -> the moves cut into tricks, oldest first: a trick
 * starts with a play made after two passes in a row (the leader's). */
export function tricks(history) {
  const out = [];
  let passes = 0;
  for (const p of history || []) {
    if (!out.length || (p.cards.length && passes >= 2)) out.push([]);
    out[out.length - 1].push(p);
    passes = p.cards.length ? 0 : passes + 1;
  }
  return out;
}
