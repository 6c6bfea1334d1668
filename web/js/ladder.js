// ladder.js - the rated ladder (`ddz serve --ladder`, spec §12): the
// ranking page (#/ladder: rating ± uncertainty, games, score per deal,
// faults, online status, the tables being played, a button to its
// delayed broadcast #/tv/ladder: tv.js) and a page per
// participant (#/ladder/NAME: its rating history drawn as an SVG chart
// from the data, and its recent deals: the hand it held, its table mates,
// its score and those it was compared with (the same hand at the other
// tables), each game opening in the replay viewer). Both poll GET /api/ladder[/NAME] every few seconds while shown.
import { h, replace, icon } from './dom.js';
import { t, rulesName, playerLabel } from './i18n.js';
import { go, langButton } from './shell.js';
import { Poller } from './poller.js';

const SVG = 'http://www.w3.org/2000/svg';

/* GET /api/ladder: the object, or null when no ladder runs. */
export async function fetchLadder() {
  try {
    const res = await fetch('/api/ladder', { cache: 'no-store' });
    const d = res.ok ? await res.json() : null;
    return d && d.running ? d : null;
  } catch {
    return null;
  }
}

/* GET /api/ladder/NAME: the object, or null (no such participant). */
async function fetchPlayer(name) {
  try {
    const res = await fetch('/api/ladder/' + encodeURIComponent(name), { cache: 'no-store' });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/* The button to a competition's delayed broadcast (tv.js): `kind` is
 * 'ladder' or 'tournament'. */
export function tvButton(kind) {
  return h('button.primary.tv-button', { onclick: () => go('#/tv/' + kind), dataset: { test: 'tv-link' } },
    icon('play'), ' ', t('tv.watch'));
}

function fixed(x, d = 1) {
  return typeof x === 'number' ? x.toFixed(d) : '';
}

function signedCell(x) {
  return h('td.num' + (x > 0 ? '.plus' : x < 0 ? '.minus' : ''), (x > 0 ? '+' : '') + fixed(x, 0));
}

function status(p) {
  if (p.suspended) return h('span.tag.st-disqualified', { title: p.suspended }, t('ladder.suspended'));
  if (p.playing) return h('span.tag.live', t('ladder.playing'));
  return p.connected ? h('span.tag.online', t('ladder.online')) : h('span.tag', t('ladder.offline'));
}

/* The online status as a coloured dot (the only status a phone shows). */
function dot(p) {
  const k = p.suspended ? 'suspended' : p.playing ? 'playing' : p.connected ? 'online' : 'offline';
  return h('span.dot.' + k, { title: t('ladder.' + k), 'aria-label': t('ladder.' + k), role: 'img', dataset: { test: 'status-' + k } });
}

/* A participant by a readable name (a hosted AI by its level: "电脑（强）"),
 * its raw id ("ai:strong:20") in the title where they differ (issue 38). */
function named(id, tag = 'div') {
  const label = playerLabel(id);
  return h(tag + '.pname', { title: label === id ? null : id, dataset: { test: 'pname', id } }, label);
}

function head(title, back) {
  return h('header.lobby-head',
    h('div.competition-title',
      h('button.ghost.back', { onclick: () => go(back), title: t('competition.lobby'), 'aria-label': t('competition.lobby') }, icon('back')),
      h('h1', icon('trophy'), ' ', title)),
    langButton());
}

export class Ladder extends Poller {
  fetch() { return fetchLadder(); }

  render() {
    if (!this.root) return;
    const d = this.data;
    const top = head(t('ladder.title'), '#/');
    if (d === undefined) {
      replace(this.root, h('div.lobby.competition.ladder', top, h('p.competition-note', t('competition.loading'))));
      return;
    }
    if (d === null) {
      replace(this.root, h('div.lobby.competition.ladder', top, h('section.panel', h('p', t('ladder.none')))));
      return;
    }
    replace(this.root, h('div.lobby.competition.ladder', top,
      h('p.competition-status', { dataset: { test: 'ladder-status' } },
        t('ladder.rules', { rules: rulesName(d.rules) }), ' · ', t('ladder.players', { n: d.players.length }),
        ' · ', t('ladder.deals', { n: d.deals })),
      h('div.ladder-grid',
        h('section.panel',
          h('h2', t('ladder.ranking')),
          this.ranking(d.players),
          h('p.competition-note', t('ladder.explain'))),
        h('section.panel.ladder-tables',
          h('div.tv-head', h('h2', t('ladder.tables')), tvButton('ladder')),
          h('p.competition-note', t('tv.why')),
          this.tables(d.tables)))));
  }

  ranking(players) {
    if (!players.length) return h('p.competition-note', t('ladder.empty'));
    return h('div.scroll', h('table.standings.ladder-table', { dataset: { test: 'ladder' } },
      h('thead', h('tr',
        h('th', '#'), h('th.left', t('competition.player')), h('th', t('ladder.rating')),
        h('th.hide-narrow', t('ladder.games')), h('th', t('ladder.perdeal')), h('th.hide-phone', t('competition.faults')),
        h('th.left.hide-phone', t('competition.status')))),
      h('tbody', players.map((p) => h('tr' + (p.connected ? '' : '.away'),
        h('td.num', String(p.rank)),
        h('td.left.id', dot(p), h('a', { href: '#/ladder/' + encodeURIComponent(p.name), title: p.name, dataset: { test: 'ladder-player' } }, playerLabel(p.name))),
        h('td.num', h('strong', fixed(p.rating)), h('small', ' ± ' + fixed(p.uncertainty))),
        h('td.num.hide-narrow', `${p.games}`, h('small.hide-phone', ' / ' + t('ladder.ndeals', { n: p.deals }))),
        signedCell(p.score_per_deal),
        h('td.num.hide-phone', String(p.faults)),
        h('td.left.hide-phone', status(p)))))));
  }

  tables(tables) {
    if (!tables.length) return h('p.competition-note', t('ladder.notables'));
    return h('div.rooms', tables.map((tb) => h('div.room',
      h('div.room-main',
        h('div.room-name',
          tb.deal == null ? t('ladder.tablenode', { t: tb.table, n: tb.tables, node: tb.node || '' })
            : t('ladder.table', { d: tb.deal, t: tb.table, n: tb.tables }),
          tb.over ? h('span.tag', t('ladder.tabledone')) : h('span.tag.live', t('competition.live'))),
        h('div.room-seats', tb.players.map((id, s) => h('span.rseat', h('small', t('seat.' + s) + ' '), playerLabel(id))))))));
  }
}

/* What the chart shows, in words for a screen reader (issue 25): the
 * number of deals, the first and the latest rating with its uncertainty,
 * the lowest and the highest. Just the chart's title without a history. */
export function chartSummary(hist) {
  if (!hist.length) return t('ladder.chart');
  const r = hist.map((p) => p.rating);
  const end = hist[hist.length - 1];
  return t('a11y.chart', { n: hist.length, first: fixed(r[0]), last: fixed(end.rating), u: fixed(end.uncertainty),
    lo: fixed(Math.min(...r)), hi: fixed(Math.max(...r)) });
}

/* The rating history as an SVG line with its ± uncertainty band. */
function chart(hist) {
  const el = (tag, attrs) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  // drawn at about its size on screen, so that its text stays readable on a phone
  const W = Math.round(Math.max(300, Math.min(720, window.innerWidth - 80)));
  const H = Math.round(W * 0.45), L = 40, R = 12, T = 12, B = 30;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-chart', role: 'img', 'aria-label': chartSummary(hist) });
  svg.dataset.test = 'rating-chart';
  svg.dataset.points = String(hist.length);
  if (!hist.length) return svg;
  let lo = Infinity, hi = -Infinity;
  for (const p of hist) {
    lo = Math.min(lo, p.rating - p.uncertainty);
    hi = Math.max(hi, p.rating + p.uncertainty);
  }
  if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
  const n = hist.length;
  const x = (i) => L + (n === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  // grid and the axis labels: five levels
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    svg.append(el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
    const lab = el('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' });
    lab.textContent = v.toFixed(0);
    svg.append(lab);
  }
  const first = el('text', { x: L, y: H - 8, class: 'axis' });
  first.textContent = '1';
  const last = el('text', { x: W - R, y: H - 8, 'text-anchor': 'end', class: 'axis' });
  last.textContent = t('ladder.dealn', { n });
  svg.append(first, last);
  const up = hist.map((p, i) => `${x(i).toFixed(1)},${y(p.rating + p.uncertainty).toFixed(1)}`);
  const down = hist.map((p, i) => `${x(i).toFixed(1)},${y(p.rating - p.uncertainty).toFixed(1)}`).reverse();
  svg.append(el('polygon', { points: up.concat(down).join(' '), class: 'band' }));
  svg.append(el('polyline', { points: hist.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' '), class: 'line' }));
  const end = hist[n - 1];
  svg.append(el('circle', { cx: x(n - 1), cy: y(end.rating), r: 4, class: 'dot' }));
  return svg;
}

export class LadderPlayer extends Poller {
  constructor(name) {
    super();
    this.name = name;
  }

  fetch() { return fetchPlayer(this.name); }

  render() {
    if (!this.root) return;
    const d = this.data;
    const top = head(named(this.name, 'span'), '#/ladder');
    if (d === undefined) {
      replace(this.root, h('div.lobby.competition.ladder', top, h('p.competition-note', t('competition.loading'))));
      return;
    }
    if (d === null) {
      replace(this.root, h('div.lobby.competition.ladder', top, h('section.panel', h('p', t('ladder.noplayer')))));
      return;
    }
    replace(this.root, h('div.lobby.competition.ladder', top,
      h('p.competition-status', { dataset: { test: 'player-status' } },
        h('strong', fixed(d.rating)), ' ± ', fixed(d.uncertainty), ' · ',
        t('ladder.stats', { games: d.games, deals: d.deals, faults: d.faults }), ' · ',
        t('ladder.perdeal'), ' ', (d.score_per_deal > 0 ? '+' : '') + fixed(d.score_per_deal, 0), ' ',
        status(d)),
      d.suspended ? h('div.notice', { dataset: { test: 'suspended' } }, t('ladder.why', { why: d.suspended })) : null,
      h('section.panel',
        h('h2', t('ladder.history')),
        d.history.length ? chart(d.history) : h('p.competition-note', t('ladder.nohistory'))),
      h('section.panel.ladder-deals',
        h('h2', t('ladder.recent')),
        this.deals(d.history))));
  }

  deals(hist) {
    if (!hist.length) return h('p.competition-note', t('ladder.nohistory'));
    const hands = { west: 0, south: 1, east: 2 };
    const replay = (id, label) => h('button.ghost.small', {
      onclick: () => go('#/replay/' + id),
      dataset: { test: 'replay-game' },
      title: t('over.replay'),
    }, label);
    const rows = hist.slice().reverse().map((p) => h('tr',
      h('td.left.hide-phone', new Date(p.at).toLocaleString()),
      h('td.left', { dataset: { test: 'hand' } }, p.hand ? t('seat.' + hands[p.hand]) : t('ladder.old')),
      h('td.left.opps.hide-phone', p.opponents.map((o) => named(o))),
      signedCell(p.score),
      h('td.left.opps', { dataset: { test: 'compared' } }, (p.compared || []).map((c) => h('div',
        named(c.name, 'span'), ' ', h('small', (c.score > 0 ? '+' : '') + fixed(c.score, 0)),
        c.game ? ' ' : null, c.game ? replay(c.game, '▶') : null))),
      h('td.num.hide-phone', fixed(p.rating)),
      h('td.left.replays', p.games.map((id, g) => id ? replay(id, String(g + 1)) : null))));
    return h('div.scroll', h('table.standings.games', { dataset: { test: 'deals' } },
      h('thead', h('tr', h('th.left.hide-phone', t('ladder.when')), h('th.left', t('ladder.hand')),
        h('th.left.hide-phone', t('ladder.opponents')), h('th', t('ladder.score')), h('th.left', t('ladder.compared')),
        h('th.hide-phone', t('ladder.rating')), h('th.left', t('ladder.replays')))),
      h('tbody', rows)));
  }
}
