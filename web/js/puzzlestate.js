// puzzlestate.js - what the puzzles page (puzzles.js) keeps between its
// requests, with no DOM: the position as the person's line moves it (the
// three open hands, the play to beat and who made it), the list of puzzles
// just shown (sent as `recent` so that "Next" brings another), and a
// rating change in words. No rule lives here: whether a play is legal is
// the server's answer to the attempt (proto/PROTOCOL.md, "Puzzles").

/* At most this many recent ids travel (the server refuses more). */
export const RECENT_MAX = 50;
const RECENT_KEY = 'ddz.puzzles.recent';

/* `list` with `id` moved to its end (the newest), the oldest dropped past
 * RECENT_MAX. Returns a new array; ids that are not positive integers are
 * left out, since the server refuses the whole list for one of them. */
export function addRecent(list, id) {
  const ok = (x) => Number.isInteger(x) && x > 0;
  const out = (Array.isArray(list) ? list : []).filter((x) => ok(x) && x !== id);
  if (ok(id)) out.push(id);
  return out.slice(-RECENT_MAX);
}

/* The recent list kept in `storage` (localStorage), or [] when it holds
 * none, something else, or storage is off. */
export function readRecent(storage) {
  try {
    const v = JSON.parse(storage.getItem(RECENT_KEY) || '[]');
    return addRecent(Array.isArray(v) ? v : [], null);
  } catch {
    return [];
  }
}

/* Keeps `list` in `storage`; storage off: this page only remembers. */
export function writeRecent(storage, list) {
  try { storage.setItem(RECENT_KEY, JSON.stringify(list)); } catch { /* storage off */ }
}

/* The position a puzzle starts from: {hands, last, lastBy, toMove}
 * (hands copied, so the line never changes the puzzle read). */
export function startPosition(p) {
  return {
    hands: p.hands.map((x) => [...x]),
    last: Array.isArray(p.last) && p.last.length ? [...p.last] : null,
    lastBy: Array.isArray(p.last) && p.last.length ? p.last_by : null,
    toMove: p.turn,
  };
}

/* The position after `seat` plays `cards` ([] a pass) in `pos`: a new
 * position, `pos` unchanged. The play to beat stays with whoever made it
 * until a play covers it; the seats move in order 0, 1, 2. */
export function applyPlay(pos, seat, cards) {
  const hands = pos.hands.map((x, s) => (s === seat ? x.filter((c) => !cards.includes(c)) : [...x]));
  const played = cards.length > 0;
  return { hands, last: played ? [...cards] : pos.last, lastBy: played ? seat : pos.lastBy, toMove: (seat + 1) % 3 };
}

/* Whether the seat to move may pass: only with a play of another seat
 * to beat (a seat whose play the other two passed leads again). */
export function mayPass(pos) {
  return pos.last !== null && pos.lastBy !== pos.toMove;
}

/* A seat's side in a puzzle: 'landlord' or 'farmers'. */
export function sideOf(p, seat) {
  return seat === p.landlord ? 'landlord' : 'farmers';
}

/* A rating change as the page shows it, as the game-over panel shows a
 * game's (table.js): both rounded, and the difference rounded with a "+"
 * when it rose ("+12", "-3", "0"). */
export function ratingDelta(before, after) {
  const d = Math.round(after - before);
  return { before: Math.round(before), after: Math.round(after), delta: (d > 0 ? '+' : '') + d };
}
