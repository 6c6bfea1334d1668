// analysis.js - the post-game analysis on the replay page (issue 26), from
// GET /api/games/ID/analysis: for every play, which side wins with best
// play from there with every hand known (the server's exact search, within
// a budget: "unknown" where it ran out), the plays that turned a won
// position into a lost one, and for each such play the plays that would
// have kept the win (all of them, or at least the one that proved the
// position won). The server computes it on the first request: until
// then it answers 202 (or 503 when it has too many in hand), and the page
// asks again a bounded number of times.
//
// Shown as a bar along the game, as lichess's evaluation graph: one cell
// per play, coloured by the verdict after it; a mark over each play that
// turned the result (a button: its keeping plays, as cards); a legend, and
// a line per seat saying how many of its plays gave a win away.
import { h } from './dom.js';
import { t } from './i18n.js';
import { cardRow } from './cards.js';

export const ANALYSIS_TRIES = 40; // asks at most (about 40 s at Retry-After: 1)
const VERDICTS = ['landlord', 'farmers', 'unknown'];

/* One request. Returns {state: 'ready', data}, {state: 'pending', ms}
 * (ask again in ms: the server's Retry-After), or {state: 'none'} (the
 * game has none: not found, not analysable, or the request failed). */
export async function fetchAnalysis(id) {
  try {
    const res = await fetch(`/api/games/${encodeURIComponent(id)}/analysis`, { cache: 'no-store' });
    if (res.status === 200) {
      const data = await res.json();
      return Array.isArray(data.plies) ? { state: 'ready', data } : { state: 'none' };
    }
    if (res.status === 202 || res.status === 503) {
      const s = Number(res.headers.get('retry-after'));
      return { state: 'pending', ms: 1000 * (s > 0 && s < 30 ? s : 1) };
    }
  } catch { /* the network: nothing to show */ }
  return { state: 'none' };
}

const verdictOf = (v) => (VERDICTS.includes(v) ? v : 'unknown');

/* The bar's accessible summary: how the game went, in one sentence. */
export function barLabel(a) {
  const p = a.plies;
  if (!p.length) return t('analysis.label.none');
  const turned = p.filter((x) => x.gave).length;
  return t('analysis.label', {
    n: p.length,
    start: t('analysis.v.' + verdictOf(p[0].before)),
    end: t('analysis.v.' + verdictOf(p[p.length - 1].after)),
    turned,
  });
}

/* The per-seat lines: plays that gave a win away, of the seat's own plays. */
export function seatLines(a, name) {
  return (a.tally || []).map((x, s) => (x.gave
    ? t('analysis.seat.gave', { name: name(s), n: x.gave, m: x.positions })
    : t('analysis.seat.clean', { name: name(s), m: x.positions })));
}

/* The analysis section. `o`: {a: the analysis, current: the ply the
 * replay is at (-1 before the first), open: the ply whose keeping plays
 * are shown (-1: none), name(seat), cards(ply): the cards it played,
 * go(ply), mark(ply): show (or hide) a ply's keeping plays}. */
export function analysisView(o) {
  const { a } = o;
  const cells = a.plies.map((p, j) => {
    const v = verdictOf(p.after);
    const cell = h('span.vcell.' + v + (j === o.current ? '.current' : '') + (p.gave ? '.gave' : ''),
      { dataset: { ply: String(j), verdict: v }, title: t('analysis.cell', { i: j + 1, name: o.name(p.seat), v: t('analysis.v.' + v) }),
        onclick: () => (p.gave ? o.mark(j) : o.go(j)) });
    if (p.gave) {
      cell.append(h('button.vmark' + (j === o.open ? '.open' : ''), {
        type: 'button',
        'aria-label': t('analysis.mark', { i: j + 1, name: o.name(p.seat) }),
        'aria-expanded': j === o.open ? 'true' : 'false',
        dataset: { test: 'analysis-mark', ply: String(j) },
        onclick: (e) => { e.stopPropagation(); o.mark(j); },
      }, '\u25BC'));
    }
    return cell;
  });
  const bar = h('div.verdict-bar', { role: 'group', 'aria-label': barLabel(a), dataset: { test: 'analysis-bar' } }, cells);
  const legend = h('div.vlegend', { 'aria-hidden': 'true' },
    VERDICTS.map((v) => h('span.vkey', h('span.vswatch.' + v), t('analysis.legend.' + v))),
    h('span.vkey', h('span.vmark-key', '\u25BC'), t('analysis.legend.turned')));
  const parts = [bar, legend, h('ul.vseats', { dataset: { test: 'analysis-seats' } }, seatLines(a, o.name).map((l) => h('li', l)))];
  const p = a.plies[o.open];
  if (p) parts.push(keepsView(p, o));
  if (a.budget && a.budget.cut) parts.push(h('p.vnote', t('analysis.cut')));
  return h('section.analysis', { 'aria-label': t('analysis.title'), dataset: { test: 'analysis' } }, parts);
}

/* A play as the box shows it: its cards (as large as the table's own on
 * a phone: app.css .vkeeps), or the word for a pass. */
const playView = (k, cls) => (k.length ? cardRow(k, cls) : h('span.vpass' + (cls ? '.' + cls : ''), t('table.pass')));

/* What would have kept the win at ply `p`: every such play when the
 * server listed them; else the one that proved the position won (its
 * `witness`), which it always names, with a word that there may be more.
 * An analysis cached before witnesses existed has neither (the server
 * computes those again: this is for one read meanwhile). */
function keepsView(p, o) {
  const played = o.cards(p.ply);
  const witness = Array.isArray(p.witness) ? p.witness : null;
  let would;
  if (Array.isArray(p.keeps)) {
    would = h('div.vkeep-list', h('span', t('analysis.keeps.would', { n: p.keeps.length })),
      p.keeps.map((k) => playView(k, 'vkeep')));
  } else if (witness) {
    would = [h('div.vkeep-list', h('span', t('analysis.keeps.witness')), playView(witness, 'vkeep.witness')),
      h('p.vnote', t('analysis.keeps.more'))];
  } else {
    would = h('p', t('analysis.keeps.unknown'));
  }
  return h('div.vkeeps', { dataset: { test: 'analysis-keeps' }, role: 'region', 'aria-label': t('analysis.keeps.title') },
    h('div.vkeeps-head',
      h('b', t('analysis.keeps.head', { i: p.ply + 1, name: o.name(p.seat) })),
      h('button.ghost.vclose', { type: 'button', onclick: () => o.mark(p.ply), 'aria-label': t('analysis.keeps.close') }, '\u2715')),
    h('div.vplayed', h('span', t('analysis.keeps.played')), playView(played, '')),
    would);
}
