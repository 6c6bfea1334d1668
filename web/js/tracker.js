// tracker.js - what a player may work out at the table from public
// information only: how many cards of each rank are still out (记牌器:
// the deck less the viewer's own hand and every card played), the
// multiplier so far, and the game's moves cut into tricks. It reads the
// card coding (SPEC 1) and the scoring of SPEC 5 / Botzone's rule sets; it
// never sees another seat's hand.

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

/* Whether a play is a bomb (four cards of one rank) or the rocket (both
 * jokers): the plays that raise the multiplier. */
export const isBomb = (cards) => cards.length === 4 && cards.every((c) => rankOf(c) === rankOf(cards[0]) && c < 52);
export const isRocket = (cards) => cards.length === 2 && cards.includes(52) && cards.includes(53);

/* multiplier(rules, history) -> the multiplier so far, or null where the
 * rule set has none (botzone-ftl scores by play type). caai (SPEC 5): ×(1 +
 * bombs), ×2 for the rocket; botzone-ftl2: ×2 for every bomb and the
 * rocket. Spring is only known at the end and not counted. */
export function multiplier(rules, history) {
  if (rules === 'botzone-ftl') return null;
  let bombs = 0;
  let rocket = false;
  for (const p of history || []) {
    if (isBomb(p.cards)) bombs++;
    else if (isRocket(p.cards)) rocket = true;
  }
  const m = rules === 'botzone-ftl2' ? 2 ** bombs : 1 + bombs;
  return { m: m * (rocket ? 2 : 1), bombs, rocket };
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
