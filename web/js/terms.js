// terms.js - how a game's scores came about, as the server's rules say it:
// the `terms` of over.breakdown (and of a record the server serves for a
// replay), each a kind with its numbers, in the order the rules computed
// them (proto/PROTOCOL.md, "Terms"). The page shows each kind its own way
// (an i18n key per kind, "term.KIND") and knows no rule set: what a score
// means is in the terms, never in the room's rule-set name, which is only a
// label. Nothing here computes a score: every number shown is a term's or a
// score the server sent.
import { h } from './dom.js';
import { t, scoreText } from './i18n.js';

// Where each kind is shown. A `fault` is a line above the scores; a
// `factor` an item of the list of what multiplied the stake, under its
// `head` (the product); `say` (and `stake`, both) gives the sentence that
// turns it into the scores; `side` kinds are drawn by sides (the
// landlord's, the farmers'); a `number` is not shown by itself, the words
// of the others quote it by its kind's name ({bid}, {farmer}, ...).
const ROLE = {
  bid: 'number', start: 'factor', base: 'factor', bombs: 'factor', rocket: 'factor',
  spring: 'factor', anti_spring: 'factor', multiplier: 'head', unit: 'say', stake: 'head',
  farmer: 'number', landlord: 'number', win: 'side', plays: 'side', points: 'side', mean: 'side',
  penalty: 'fault', forfeit: 'fault', award: 'number', standin: 'fault', all_faulted: 'fault',
};
const HEAD = { multiplier: 'term.multiplier', stake: 'term.stake' };
const SAY = { unit: 'term.unit', stake: 'term.stake.say', win: 'term.win.say' };

/* Every kind this page knows (a kind it does not is not shown). */
export const TERM_KINDS = Object.keys(ROLE);

/* A term's number as words show it: the server's, with a real minus sign. */
const num = (x) => scoreText(x).replace(/^-/, '\u2212');

const comboName = (c) => t('combo.' + c).replace(/[!！]$/, '');

/* The words of term `x` under `key`: {value}, {count}, {name} (its seat's),
 * {fault}, {combo}, and the number of the list's first term of each kind
 * without a seat by that kind's name ({bid}, {farmer}, ...). */
function words(key, x, terms, ctx, extra = {}) {
  const vars = {};
  for (const y of terms) if (y.seat === undefined && y.value !== undefined && !(y.term in vars)) vars[y.term] = num(y.value);
  if (x.value !== undefined) vars.value = num(x.value);
  if (x.count !== undefined) vars.count = x.count;
  if (x.seat !== undefined) vars.name = ctx.name(x.seat);
  if (x.fault) vars.fault = t('fault.' + x.fault);
  if (x.combo) vars.combo = comboName(x.combo);
  return t(key, { ...vars, ...extra });
}

/* What the terms say, as plain data (the DOM is built from it below, and
 * the unit tests read it): the fault lines, the sentence, the product and
 * its factors, the sides. `ctx` is {landlord, scores, name(seat)}. */
export function explainTerms(terms, ctx) {
  const list = Array.isArray(terms) ? terms : [];
  const out = { faults: [], say: null, head: null, factors: [], sides: [] };
  for (const x of list) {
    if (ROLE[x.term] === 'fault') out.faults.push({ seat: x.seat, text: words('term.' + x.term, x, list, ctx) });
    else if (ROLE[x.term] === 'factor') out.factors.push({ term: x.term, value: x.value, text: words('term.' + x.term, x, list, ctx) });
    if (HEAD[x.term] && !out.head) out.head = { term: x.term, value: x.value, text: words(HEAD[x.term], x, list, ctx) };
    if (SAY[x.term] && !out.say) out.say = { term: x.term, value: x.value, text: words(SAY[x.term], x, list, ctx) };
  }
  const of = (kind, s) => list.find((x) => x.term === kind && x.seat === s);
  const pointSeats = list.filter((x) => x.term === 'points').map((x) => x.seat);
  const plays = (s) => list.filter((x) => x.term === 'plays' && x.seat === s).map((x) => ({
    seat: s, combo: x.combo, count: x.count, points: x.value, text: words('term.plays', x, list, ctx), shown: num(x.value),
  }));
  const ll = ctx.landlord;
  if (pointSeats.includes(ll)) {
    const win = of('win', ll), pts = of('points', ll);
    out.sides.push({
      seats: [ll], win: win ? win.value : 0, plays: pts.value,
      text: words('term.points.landlord', pts, list, ctx, { win: num(win ? win.value : 0), score: num(ctx.scores[ll]) }),
      members: [{ seat: ll, name: null, plays: plays(ll) }],
    });
  }
  const farmers = pointSeats.filter((s) => s !== ll);
  const mean = list.find((x) => x.term === 'mean');
  if (farmers.length === 2 && mean) {
    const [a, b] = farmers;
    const win = of('win', a);
    out.sides.push({
      seats: farmers, win: win ? win.value : 0, plays: mean.value,
      text: words('term.mean', mean, list, ctx, {
        win: num(win ? win.value : 0), a: num(of('points', a).value), b: num(of('points', b).value), score: num(ctx.scores[a]),
      }),
      members: farmers.map((s) => ({ seat: s, name: ctx.name(s), points: num(of('points', s).value), plays: plays(s) })),
    });
  }
  return out;
}

/* The fault lines (`p.fault`), in the terms' order. */
export function faultLines(terms, ctx) {
  return explainTerms(terms, ctx).faults.map((f) => h('p.fault',
    { dataset: f.seat === undefined ? { test: 'fault' } : { test: 'fault', seat: String(f.seat) } }, f.text));
}

/* The sentence alone (the replay's result), or null. */
export function sayLine(terms, ctx) {
  const e = explainTerms(terms, ctx);
  return e.say ? h('p', { dataset: { term: e.say.term, value: String(e.say.value) } }, e.say.text) : null;
}

const typesEl = (plays) => (plays.length
  ? h('ul.ptypes', plays.map((p) => h('li',
    { dataset: { test: 'ptype', seat: String(p.seat), combo: p.combo, count: String(p.count), points: String(p.points) } },
    `${p.text} `, h('b', p.shown))))
  : h('span.noplays', t('term.plays.none')));

/* The game-over panel's explanation (`div.explain`), or null when the terms
 * explain no score (all passed; a fault's line says it all). */
export function explainEl(terms, ctx) {
  const e = explainTerms(terms, ctx);
  if (!e.say && !e.head && !e.factors.length && !e.sides.length) return null;
  const termData = (x) => ({ term: x.term, value: String(x.value) });
  return h('div.explain', { dataset: { test: 'breakdown' } },
    e.say ? h('p', { dataset: termData(e.say) }, e.say.text) : null,
    e.head || e.factors.length ? h('div.mult',
      e.head ? h('b', { dataset: termData(e.head) }, e.head.text) : null,
      h('ul', e.factors.map((f) => h('li', { dataset: termData(f) }, f.text)))) : null,
    e.sides.map((side) => h('div.score-side', { dataset: { test: 'side', seats: side.seats.join(','), win: scoreText(side.win), plays: scoreText(side.plays) } },
      h('p', side.text),
      side.members.map((m) => (m.name === null ? typesEl(m.plays)
        : h('div.score-seat', h('span.rname', m.name), h('b.fpts', m.points), typesEl(m.plays)))))));
}
