// cards.js - how a card code (spec §1) looks: code c < 52 has rank c >> 2
// and suit c & 3 (hearts, diamonds, spades, clubs); 52 and 53 are the
// small and big jokers. Only the coding lives here, never a game rule:
// what may be played comes from the server.
import { h } from './dom.js';
import { t } from './i18n.js';

const RANKS = ['3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A', '2'];
const SUITS = ['\u2665\uFE0E', '\u2666\uFE0E', '\u2660\uFE0E', '\u2663\uFE0E']; // text, not emoji
const SUIT_NAMES = ['hearts', 'diamonds', 'spades', 'clubs'];

export const rankOf = (c) => (c < 52 ? c >> 2 : c - 39);
export const suitOf = (c) => (c < 52 ? c & 3 : -1);
export const isRed = (c) => (c < 52 ? (c & 3) < 2 : c === 53);

/* The identity of a play: its multiset of ranks ("0,0,5"). */
export function rankKey(codes) {
  return [...codes].map(rankOf).sort((a, b) => a - b).join(',');
}

/* Hand order: strongest on the left, as card players hold them. */
export function sortHand(codes) {
  return [...codes].sort((a, b) => rankOf(b) - rankOf(a) || b - a);
}

/* Played cards: grouped by rank, largest groups first (the trio of a
 * trio-with-kicker before its kicker), then by rank. */
export function sortPlay(codes) {
  const count = new Map();
  for (const c of codes) count.set(rankOf(c), (count.get(rankOf(c)) || 0) + 1);
  return [...codes].sort((a, b) =>
    count.get(rankOf(b)) - count.get(rankOf(a)) || rankOf(a) - rankOf(b) || a - b);
}

/* A card's accessible name: "Big joker", "♠A"; the face itself only has
 * room for "Big". */
export function cardLabel(c) {
  if (c === 52) return t('joker.small.long');
  if (c === 53) return t('joker.big.long');
  return `${SUITS[suitOf(c)].charAt(0)}${RANKS[rankOf(c)]}`;
}

/* A face-up card. Sized by the --cw custom property of its container. */
export function cardEl(c, extra = {}) {
  const cls = ['card', 'face', isRed(c) ? 'red' : 'black'];
  if (c >= 52) cls.push('joker', c === 53 ? 'big' : 'small');
  const el = h('div.' + cls.join('.'), {
    dataset: { code: String(c), rank: String(rankOf(c)) },
    title: cardLabel(c),
    'aria-label': cardLabel(c),
    role: 'img',
    ...extra,
  });
  if (c >= 52) {
    el.append(
      h('span.corner.jk', 'JOKER'.split('').map((ch) => h('b', ch))),
      h('span.pip', c === 53 ? '\u265B\uFE0E' : '\u2655\uFE0E'),
      h('span.jname', c === 53 ? t('joker.big') : t('joker.small')),
    );
    return el;
  }
  const r = RANKS[rankOf(c)], s = SUITS[suitOf(c)];
  el.classList.add(SUIT_NAMES[suitOf(c)]);
  if (r === '10') el.classList.add('ten');
  el.append(
    h('span.corner', h('b.r', r), h('i.s', s)),
    h('span.pip', h('i', s)),
  );
  return el;
}

export function backEl(extra = {}) {
  return h('div.card.back', { 'aria-hidden': 'true', ...extra }, h('span.pattern'));
}

/* A row of face-up cards: a play (grouped), or a hand (strongest first). */
export function cardRow(codes, cls = '', order = sortPlay) {
  return h('div.cards' + (cls ? '.' + cls : ''), order(codes).map((c) => cardEl(c)));
}

export function handRow(codes, cls = '') {
  return cardRow(codes, cls, sortHand);
}
