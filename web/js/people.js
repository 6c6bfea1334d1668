// people.js - people's pages (spec §15): a person's profile (#/@/NAME:
// per rule set the rating ± deviation, games, a rating-over-time chart
// drawn as inline SVG from the history points, the win rates as landlord
// and as farmer, a link to that rule set's leaderboard; the recent rated
// games with replay links) and the leaderboard of a rule set
// (#/leaderboard/RULES: rank, name linking to the profile, rating ±
// deviation, games; for one signed in and not among its rows, her own
// place under them or the games she still needs, from her profile's
// "rank"). Each reads its GET once when shown
// (/api/players/NAME, /api/leaderboard?rules=R): a rating moves after a
// game, not while one looks. The server sends /@/NAME here too (a link to
// share).
import { h, replace, icon } from './dom.js';
import { t, lang, rulesName } from './i18n.js';
import { app, go, langButton } from './shell.js';

const SVG = 'http://www.w3.org/2000/svg';

/* The rule sets in the order people know them; others the server rates
 * come after, by name. */
const KNOWN_RULES = ['caai', 'botzone-ftl', 'botzone-ftl2'];

function rulesOrder(names) {
  const known = KNOWN_RULES.filter((r) => names.includes(r));
  return known.concat(names.filter((r) => !KNOWN_RULES.includes(r)).sort());
}

/* GET `path`: {status, body}; a network failure is status 0. */
async function getJson(path) {
  try {
    const res = await fetch(path, { cache: 'no-store' });
    let body = null;
    try { body = await res.json(); } catch { /* not JSON */ }
    return { status: res.status, body };
  } catch {
    return { status: 0, body: null };
  }
}

/* A profile's address in the client. */
export function profileHref(name) {
  return '#/@/' + encodeURIComponent(name);
}

/* Dates in the page's language, not the browser's. */
function locale() {
  return lang() === 'zh' ? 'zh-CN' : 'en';
}

function sameName(a, b) {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

function fixed(x) {
  return typeof x === 'number' ? x.toFixed(0) : '';
}

function head(...title) {
  return h('header.lobby-head',
    h('div.competition-title',
      h('button.ghost.back', { onclick: () => go('#/'), title: t('competition.lobby'), 'aria-label': t('competition.lobby') }, icon('back')),
      h('h1', ...title)),
    langButton());
}

/* A page that reads one GET when shown: subclasses give path() and
 * render() (this.res: undefined while loading, else {status, body}). */
class OneRead {
  mount(root) {
    this.root = root;
    this.res = undefined;
    this.render();
    this.load();
  }

  unmount() { this.root = null; }

  onLang() { this.render(); }

  onAccount() { this.render(); } // "you" marks follow who is signed in

  async load() {
    this.res = undefined;
    this.render();
    const res = await getJson(this.path());
    if (!this.root) return;
    this.res = res;
    this.render();
  }

  /* The page while loading or when the read failed (not a 404): a panel,
   * or null when there is data to show. */
  pending(cls, top) {
    if (this.res === undefined)
      return h('div.lobby.people.' + cls, top, h('p.competition-note', { dataset: { test: 'people-loading' } }, t('people.loading')));
    if (this.res.status === 200 && this.res.body) return null;
    // no such name (404) or rule set (400): the page says what is missing
    if (this.res.status === 404 || this.res.status === 400) return undefined;
    return h('div.lobby.people.' + cls, top,
      h('section.panel', { dataset: { test: 'people-error' } },
        h('p', t('people.error')),
        h('button.primary', { onclick: () => this.load() }, t('people.retry'))));
  }
}

/* "55% (6/11)", or a dash before any game in that role. */
function rateText(wins, games) {
  if (!games) return '—';
  return `${Math.round((100 * wins) / games)}% (${wins}/${games})`;
}

/* The rating after each game, in words for a screen reader. */
function chartSummary(points) {
  const r = points.map((p) => p[1]);
  return t('profile.chartsum', { n: r.length, first: fixed(r[0]), last: fixed(r[r.length - 1]),
    lo: fixed(Math.min(...r)), hi: fixed(Math.max(...r)) });
}

/* The rating over time as an SVG line with a dot for every rated game,
 * evenly spaced (a game is the step, not a day). */
function chart(points) {
  const el = (tag, attrs) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  // drawn at about its size on screen, so its text stays readable on a phone
  const W = Math.round(Math.max(300, Math.min(720, window.innerWidth - 80)));
  // flatter on a wide screen, taller on a phone: a slope must stay readable
  const H = Math.round(W * (W < 500 ? 0.62 : 0.4)), L = 44, R = 14, T = 12, B = 28;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-chart people-chart', role: 'img', 'aria-label': chartSummary(points) });
  svg.dataset.test = 'profile-chart';
  svg.dataset.points = String(points.length);
  let lo = Math.min(...points.map((p) => p[1])), hi = Math.max(...points.map((p) => p[1]));
  // a margin above and below, the axis at round tens
  const pad = Math.max(10, (hi - lo) * 0.1);
  lo = Math.floor((lo - pad) / 10) * 10;
  hi = Math.ceil((hi + pad) / 10) * 10;
  const n = points.length;
  const x = (i) => L + (n === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  for (let k = 0; k <= 3; k++) {
    const v = lo + ((hi - lo) * k) / 3;
    svg.append(el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
    const lab = el('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' });
    lab.textContent = v.toFixed(0);
    svg.append(lab);
  }
  const first = el('text', { x: L, y: H - 8, class: 'axis' });
  first.textContent = new Date(points[0][0]).toLocaleDateString(locale());
  const last = el('text', { x: W - R, y: H - 8, 'text-anchor': 'end', class: 'axis' });
  last.textContent = t('profile.gamen', { n });
  svg.append(first, last);
  svg.append(el('polyline', { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' '), class: 'line' }));
  points.forEach((p, i) => {
    const c = el('circle', { cx: x(i).toFixed(1), cy: y(p[1]).toFixed(1), r: i === n - 1 ? 4.5 : 3, class: i === n - 1 ? 'dot' : 'pt' });
    const tip = el('title', {});
    tip.textContent = `${new Date(p[0]).toLocaleString(locale())} · ${p[1].toFixed(1)}`;
    c.append(tip);
    svg.append(c);
  });
  return svg;
}

/* #/@/NAME: a person's profile. */
export class Profile extends OneRead {
  constructor(name) {
    super();
    this.name = name;
  }

  path() { return '/api/players/' + encodeURIComponent(this.name); }

  render() {
    if (!this.root) return;
    const d = this.res && this.res.body;
    const shown = this.res && this.res.status === 200 && d ? d.name : this.name;
    const top = head(h('span.pname', { dataset: { test: 'profile-name' } }, shown));
    const wait = this.pending('profile', top);
    if (wait) {
      replace(this.root, wait);
      return;
    }
    if (wait === undefined) {
      replace(this.root, h('div.lobby.people.profile', top,
        h('section.panel', { dataset: { test: 'profile-missing' } },
          h('p', t('profile.missing', { name: this.name })),
          h('p', h('a', { href: '#/leaderboard' }, t('board.title'))))));
      return;
    }
    const mine = sameName(app.account, d.name);
    const rules = rulesOrder(Object.keys(d.ratings || {}));
    const hist = d.history || {};
    const games = d.games || [];
    replace(this.root, h('div.lobby.people.profile', { dataset: { test: 'profile' } }, top,
      mine ? h('div.notice.people-mine', h('span', t('profile.mine')),
        h('a.button', { href: '#/account', dataset: { test: 'profile-account' } }, t('profile.account'))) : null,
      rules.length ? rules.map((r) => this.rulesPanel(r, d.ratings[r], hist[r] || []))
        : h('section.panel', { dataset: { test: 'profile-empty' } }, h('p', t('profile.norated')),
          h('p', h('a', { href: '#/leaderboard' }, t('board.title')))),
      h('section.panel.people-games',
        h('h2', t('profile.recent')),
        games.length ? h('ul.people-game-list', { dataset: { test: 'profile-games' } }, games.map((id) => h('li',
          h('a', { href: '#/replay/' + id, dataset: { test: 'profile-game', id: String(id) } }, icon('play'), ' ', t('profile.game', { id })))))
          : h('p.competition-note', { dataset: { test: 'profile-nogames' } }, t('profile.nogames')))));
  }

  rulesPanel(rules, r, points) {
    return h('section.panel.people-rules', { dataset: { test: 'profile-rules', rules } },
      h('div.panel-head',
        h('h2', rulesName(rules)),
        h('a.board-link', { href: '#/leaderboard/' + encodeURIComponent(rules), dataset: { test: 'profile-board' } },
          icon('trophy'), ' ', t('profile.board'),
          r.rank ? h('span.board-rank', { dataset: { test: 'profile-rank' } }, ' ' + t('profile.rank', { rank: r.rank })) : null)),
      h('div.people-stats',
        h('div.stat', h('small', t('people.rating')),
          h('b', { dataset: { test: 'profile-rating' } }, fixed(r.rating), h('small', ' ± ' + fixed(r.deviation)))),
        h('div.stat', h('small', t('people.games')), h('b', { dataset: { test: 'profile-count' } }, String(r.games))),
        h('div.stat', h('small', t('profile.llrate')), h('b', { dataset: { test: 'profile-ll' } }, rateText(r.ll_wins, r.ll_games))),
        h('div.stat', h('small', t('profile.farmerrate')), h('b', { dataset: { test: 'profile-farmer' } }, rateText(r.farmer_wins, r.farmer_games)))),
      points.length ? chart(points) : h('p.competition-note', t('profile.nohistory')));
  }
}

/* #/leaderboard/RULES: the top accounts of a rule set. */
export class Leaderboard extends OneRead {
  constructor(rules) {
    super();
    this.rules = rules;
  }

  path() { return '/api/leaderboard?rules=' + encodeURIComponent(this.rules); }

  /* Signed in and not among the rows read (below them, or under 5 rated
   * games): her own profile too, for the line that says where she stands
   * (this.you: its {status, body}, undefined until read). */
  async load() {
    const seq = (this.seq = (this.seq || 0) + 1);
    this.you = undefined;
    this.youFor = app.account;
    await super.load();
    const me = app.account;
    const rows = this.res && this.res.status === 200 && this.res.body ? this.res.body.players || [] : null;
    if (!this.root || seq !== this.seq || !me || !rows || rows.some((p) => sameName(me, p.name))) return;
    const you = await getJson('/api/players/' + encodeURIComponent(me));
    if (!this.root || seq !== this.seq) return;
    this.you = you;
    this.render();
  }

  // another person signed in (or out): her own line is read again
  onAccount() {
    if (app.account !== this.youFor) this.load();
    else this.render();
  }

  /* Her own place when the rows read do not hold her: a row under the
   * table with her rank (she is on the board, below its rows), or a line
   * saying her rating and the games still to play; null when there is
   * nothing to add. */
  youRow(players) {
    const me = app.account;
    const d = this.you && this.you.status === 200 && this.you.body;
    if (!me || !d || players.some((p) => sameName(me, p.name))) return null;
    const r = (d.ratings || {})[this.rules];
    if (r && r.rank) {
      return h('tbody.board-you',
        h('tr.gap', { 'aria-hidden': 'true' }, h('td', { colspan: 4 }, '⋯')),
        h('tr.me', { dataset: { test: 'board-you' } },
          h('td.num', { dataset: { test: 'board-you-rank' } }, String(r.rank)),
          h('td.left.id', h('a', { href: profileHref(d.name), dataset: { test: 'board-player' } }, d.name)),
          h('td.num', { dataset: { test: 'board-rating' } }, h('strong', fixed(r.rating)), h('small', ' ± ' + fixed(r.deviation))),
          h('td.num', String(r.games))));
    }
    return h('p.notice.board-you', { dataset: { test: 'board-you' } },
      r ? t('board.you.few', { rating: fixed(r.rating), dev: fixed(r.deviation), games: r.games, n: 5 })
        : t('board.you.none', { rated: t('rated.button') }));
  }

  picker() {
    const names = rulesOrder([...new Set(KNOWN_RULES.concat(app.rulesets || [], [this.rules]))]);
    const sel = h('select', { dataset: { test: 'board-rules' }, 'aria-label': t('board.rules') },
      names.map((r) => h('option', { value: r, selected: r === this.rules }, rulesName(r))));
    sel.addEventListener('change', () => go('#/leaderboard/' + encodeURIComponent(sel.value), { replaceState: true }));
    return h('label.field.inline.board-pick', h('span', t('board.rules')), sel);
  }

  render() {
    if (!this.root) return;
    const top = head(icon('trophy'), ' ', t('board.title'));
    const wait = this.pending('board', top);
    if (wait) {
      replace(this.root, wait);
      return;
    }
    if (wait === undefined) { // not a rule set this server rates
      replace(this.root, h('div.lobby.people.board', top,
        h('section.panel', h('div.panel-head.board-head', this.picker()),
          h('p', { dataset: { test: 'board-empty' } }, t('board.norules')))));
      return;
    }
    const players = this.res.body.players || [];
    const you = this.youRow(players);
    const youBelow = you && you.tagName === 'TBODY';
    replace(this.root, h('div.lobby.people.board', { dataset: { test: 'board' } }, top,
      h('section.panel',
        h('div.panel-head.board-head', this.picker(), h('p.competition-note', t('board.min', { n: 5 }))),
        players.length ? h('div.scroll-box', { dataset: { test: 'board-scroll' } },
          h('table.standings.board-table', { dataset: { test: 'board-table' } },
            h('thead', h('tr', h('th', '#'), h('th.left', t('competition.player')), h('th', t('people.rating')), h('th', t('people.games')))),
            h('tbody', players.map((p, i) => h('tr' + (sameName(app.account, p.name) ? '.me' : ''), { dataset: { test: 'board-row' } },
              h('td.num', String(i + 1)),
              h('td.left.id', h('a', { href: profileHref(p.name), dataset: { test: 'board-player' } }, p.name)),
              h('td.num', { dataset: { test: 'board-rating' } }, h('strong', fixed(p.rating)), h('small', ' ± ' + fixed(p.deviation))),
              h('td.num', String(p.games))))),
            youBelow ? you : null))
          : h('p.competition-note', { dataset: { test: 'board-empty' } }, t('board.empty', { n: 5 })),
        you && !youBelow ? you : null)));
  }
}
