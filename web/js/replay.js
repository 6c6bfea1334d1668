// replay.js - the replay of a stored game (/#/replay/ID, from
// GET /api/games/ID, the spec §10 record; a private or password room's game
// is /#/replay/ID-KEY, its link from the `over` event): every hand face up, stepped
// through bid by bid and play by play. The record already holds the
// outcome, and the server adds the terms that explain its scores (`terms`,
// as the over event's): the viewer only moves cards from hands to the table
// and says what the terms say (terms.js), whatever the rule set. The
// record's `faults` tell which bids and plays the referee made for a seat
// that faulted, and those are marked. Under the controls, the post-game
// analysis (analysis.js), fetched once the record is in: a bar of who
// wins with best play along the game, and the plays that turned it.
import { h, replace, icon } from './dom.js';
import { t, bidText, scoreText } from './i18n.js';
import { cardEl, backEl, cardRow, sortHand, sortPlay } from './cards.js';
import { go, langButton } from './shell.js';
import { commitMatches } from './blake2b.js';
import { faultLines, sayLine } from './terms.js';
import { ANALYSIS_TRIES, analysisView, fetchAnalysis } from './analysis.js';

const SPEEDS = [0.5, 1, 2, 4];

/* Marks over the verdict bar that would cover each other (turning plays
 * next to each other on a phone, where a cell is a few pixels wide) are
 * stacked in rows, so that every one can be tapped: each mark goes to the
 * lowest row whose last mark is far enough to its left. Measured once the
 * bar is laid out. */
const MARK_GAP = 24; // px between two marks' centres in one row
const MARK_ROWS = 4;
function stackMarks(bar) {
  if (!bar) return;
  const cells = bar.querySelectorAll('.vcell').length;
  const w = bar.getBoundingClientRect().width / Math.max(1, cells);
  const last = [];
  let rows = 1;
  for (const b of bar.querySelectorAll('.vmark')) {
    const x = (+b.dataset.ply + 0.5) * w;
    let r = 0;
    while (r < MARK_ROWS - 1 && last[r] !== undefined && x - last[r] < MARK_GAP) r++;
    last[r] = x;
    rows = Math.max(rows, r + 1);
    if (r) b.classList.add('row' + r);
  }
  bar.classList.add('rows' + rows);
}

export class Replay {
  constructor(id, from = null) {
    this.id = String(id); // what the route says: ID, or ID-KEY
    // the seat drawn at the bottom: the one the link names (the player's
    // own, from its game-over panel), South otherwise; the viewer turns it
    this.bottom = [0, 1, 2].includes(from) ? from : 1;
    // the seat of the player who opened it (the link from their game-over
    // panel or their games list): seats are then named from it, 我, 上家,
    // 下家, as at the table, whichever seat is drawn below (issue 38)
    this.me = [0, 1, 2].includes(from) ? from : null;
    this.num = this.id.split('-')[0]; // the game's number, shown (never the key)
    this.rec = null;
    this.i = 0;
    this.playing = false;
    this.speed = 1;
    this.error = null;
    this.analysis = null; // GET /api/games/ID/analysis, once it is ready
    this.aState = 'loading'; // 'loading' (asked again while pending), 'ready', 'none'
    this.aTries = 0;
    this.open = -1; // the ply whose keeping plays are shown, -1: none
  }

  mount(root) {
    this.root = root;
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener('keydown', this.keyHandler);
    this.render();
    this.load(0);
  }

  unmount() {
    document.removeEventListener('keydown', this.keyHandler);
    if (this.centreWatch) this.centreWatch.disconnect();
    this.centreWatch = this.centreWatched = null;
    clearTimeout(this.timer);
    clearTimeout(this.retry);
    clearTimeout(this.aTimer);
    this.root = null;
  }

  onLang() { this.render(); }

  async load(attempt) {
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(this.id)}`, { cache: 'no-store' });
      if (res.status === 404) {
        // The store writes in the background: a game just over may lag.
        // one more try a second later, then say so (a wrong link is not
        // kept "loading" for seconds)
        if (attempt < 1 && this.root) {
          this.retry = setTimeout(() => this.load(attempt + 1), 1000);
          return;
        }
        this.error = t('replay.notfound', { id: this.num });
      } else if (!res.ok) {
        this.error = t('replay.error', { id: this.num });
      } else {
        this.rec = await res.json();
        this.steps = this.buildSteps(this.rec);
        this.i = 0;
        this.loadAnalysis();
      }
    } catch {
      this.error = t('replay.error', { id: this.num });
    }
    this.render();
  }

  /* Asks for the analysis; while the server computes it (202, or 503 when
   * it has too many in hand), again after its Retry-After, ANALYSIS_TRIES
   * times at most. */
  async loadAnalysis() {
    const got = await fetchAnalysis(this.id);
    if (!this.root) return;
    this.aTries++;
    if (got.state === 'pending' && this.aTries < ANALYSIS_TRIES) {
      this.aTimer = setTimeout(() => this.loadAnalysis(), got.ms);
      return;
    }
    // one entry per play, or it is not this record's: not shown
    const ok = got.state === 'ready' && got.data.plies.length === (this.rec.plays || []).length;
    this.analysis = ok ? got.data : null;
    this.aState = ok ? 'ready' : 'none';
    this.renderBoard();
  }

  /* Shows (or hides) the plays that would have kept the win at ply j, and
   * steps the replay to that play. */
  mark(j, from = 'analysis-mark') {
    this.open = this.open === j ? -1 : j;
    // the mark is drawn again: the keyboard stays on the new one
    this.refocus = `[data-test=${from}][data-ply="${j}"]`;
    this.go(this.plyStep[j]);
  }

  buildSteps(r) {
    // a fault's `at` is the number of plays before it (-1: while bidding,
    // after `bids` bids, all of them if it does not say); from then on the
    // referee acts for the seat. Where a fault ends the game nothing comes
    // after it, so nothing is marked.
    const faults = Array.isArray(r.faults) ? r.faults : [];
    const nbids = (r.bids || []).length;
    const byReferee = (seat, bids, plays) => faults.some((f) => f.seat === seat &&
      (f.at < 0 ? (plays > 0 || bids >= (f.bids ?? nbids)) : plays >= f.at));
    const steps = [{ kind: 'deal' }];
    (r.bids || []).forEach((b, k) => steps.push({ kind: 'bid', seat: b.seat, bid: b.bid, referee: byReferee(b.seat, k, -1) }));
    if (r.landlord !== null && r.landlord !== undefined) steps.push({ kind: 'landlord', seat: r.landlord });
    this.plyStep = [];
    (r.plays || []).forEach((p, j) => {
      this.plyStep.push(steps.length);
      steps.push({ kind: 'play', ply: j, seat: p.seat, cards: p.cards, auto: !!p.auto,
        referee: !!p.auto && byReferee(p.seat, Infinity, j) });
    });
    steps.push({ kind: 'result' });
    return steps;
  }

  /* The table after step i: hands, bids, the last action of each seat. */
  position(i) {
    const r = this.rec;
    const hands = r.hands.map((x) => [...x]);
    const bids = [null, null, null];
    const plays = [];
    let landlord = null;
    for (let j = 1; j <= i; j++) {
      const s = this.steps[j];
      if (s.kind === 'bid') bids[s.seat] = s.bid;
      else if (s.kind === 'landlord') { landlord = s.seat; hands[s.seat].push(...r.leftover); }
      else if (s.kind === 'play') {
        plays.push(s);
        hands[s.seat] = hands[s.seat].filter((c) => !s.cards.includes(c));
      }
    }
    const last = [null, null, null];
    for (const p of plays.slice(-3)) last[p.seat] = p;
    return { hands, bids, landlord, last, plays: plays.length, step: this.steps[i] };
  }

  name(s) {
    const n = (this.rec.names && this.rec.names[s]) || '';
    if (!n) return this.seatWord(s);
    if (/^ai:/.test(n)) return `${t('kind.ai')}·${this.seatWord(s, true)}`;
    return n;
  }

  /* A seat as its player says it: 我, 上家, 下家 when the replay is a
   * player's own game; the compass (西, 南, 东) for anyone else. */
  seatWord(s, short = false) {
    if (this.me === null) return t('seat.' + s);
    const d = (s - this.me + 3) % 3;
    return d === 0 ? t('seat.me') : t((d === 1 ? 'seat.next' : 'seat.prev') + (short ? '.short' : ''));
  }

  stepText(s) {
    switch (s.kind) {
      case 'deal': return t('replay.deal');
      case 'bid': return t('replay.bid', { name: this.name(s.seat),
        bid: s.referee ? t('table.standin.bid', { bid: bidText(s.bid) }) : bidText(s.bid) });
      case 'landlord': return t('replay.landlord', { name: this.name(s.seat) });
      case 'play':
        if (s.referee) {
          return (s.cards.length ? t('replay.plays', { name: this.name(s.seat) }) + ' · ' + t('table.standin.tag')
            : t('table.standin.pass') + ' · ' + this.name(s.seat));
        }
        return s.cards.length ? t('replay.plays', { name: this.name(s.seat) }) : (s.auto ? t('table.autopassed') + ' · ' + this.name(s.seat) : t('replay.passes', { name: this.name(s.seat) }));
      case 'result': return t('replay.result');
      default: return '';
    }
  }

  go(i) {
    if (!this.steps) return;
    this.i = Math.max(0, Math.min(this.steps.length - 1, i));
    if (this.i === this.steps.length - 1) this.playing = false;
    this.renderBoard();
  }

  toggle() {
    if (!this.steps) return;
    if (!this.playing && this.i === this.steps.length - 1) this.i = 0;
    this.playing = !this.playing;
    this.renderBoard();
    this.schedule();
  }

  schedule() {
    clearTimeout(this.timer);
    if (!this.playing) return;
    this.timer = setTimeout(() => {
      if (!this.root || !this.playing) return;
      this.go(this.i + 1);
      this.schedule();
    }, 900 / this.speed);
  }

  onKey(e) {
    const tag = (e.target && e.target.tagName) || '';
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) && e.target.type !== 'range') return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.i + 1); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.i - 1); }
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(Infinity);
    else if (e.key === ' ') { e.preventDefault(); this.toggle(); }
  }

  render() {
    if (!this.root) return;
    const top = h('header.topbar',
      h('button.ghost.back', { onclick: () => go('#/'), 'aria-label': t('table.lobby') }, icon('back'), h('span.label', t('table.lobby'))),
      h('div.title', h('b', t('replay.title', { id: this.num }))),
      h('div.tools',
        h('button.ghost', { onclick: () => { this.bottom = (this.bottom + 1) % 3; this.render(); }, title: t('table.rotate'), 'aria-label': t('table.rotate'),
          dataset: { test: 'replay-rotate' } }, icon('rotate'), h('span.label', this.me === null ? t('replay.from', { seat: t('seat.' + this.bottom) })
            : t('replay.from.rel', { seat: this.seatWord(this.bottom) }))),
        langButton()));
    if (!this.rec) {
      replace(this.root, h('div.table-view.replay', top,
        h('main.felt', h('section.center', h('div.status.big', { dataset: { test: 'replay-status' } }, this.error || t('replay.loading', { id: this.num }))))));
      return;
    }
    this.el = {
      felt: h('main.felt'),
      log: h('ol.log', { dataset: { test: 'replay-log' } }),
      bar: h('div.replay-bar'),
      analysis: h('div.analysis-wrap'),
    };
    for (const p of ['left', 'right', 'me']) this.el.felt.append(h('section.seat.pos-' + p));
    this.el.felt.append(h('section.center'));
    replace(this.root, h('div.table-view.replay', top,
      h('div.replay-body', this.el.felt, h('aside.logwrap', this.el.log)), this.el.analysis, this.el.bar));
    this.renderBoard();
  }

  renderBoard() {
    if (!this.root || !this.rec) return;
    // everything below is drawn again: a focused control (a mark, a step
    // button) is focused again once it is, so the keyboard stays where it was
    const f = document.activeElement;
    const test = f && f.dataset && f.dataset.test;
    const keep = test && this.root.contains(f)
      ? `[data-test=${test}]` + (f.dataset.ply !== undefined ? `[data-ply="${f.dataset.ply}"]` : '') : null;
    const r = this.rec;
    const pos = this.position(this.i);
    const end = this.i === this.steps.length - 1;
    // seen from this.bottom: the seat that plays after it on the right, as at the table
    const slots = {};
    for (let s = 0; s < 3; s++) slots[s] = ['me', 'right', 'left'][(s - this.bottom + 3) % 3];
    for (let s = 0; s < 3; s++) {
      const el = this.el.felt.querySelector('.pos-' + slots[s]);
      const turnish = pos.step.seat === s && pos.step.kind !== 'deal';
      el.className = `seat pos-${slots[s]}` + (turnish ? ' turn' : '') + (pos.landlord === s ? ' is-landlord' : '');
      el.dataset.seat = String(s);
      const info = h('div.info',
        h('div.avatar' + (pos.landlord === s ? '.landlord' : ''), [...this.name(s)][0].toUpperCase(),
          pos.landlord === s ? h('span.crown', '\u265B\uFE0E') : null),
        h('div.who', h('div.name', this.name(s)),
          h('div.badges', h('span.dir' + (this.me === null ? '' : '.rel'), { dataset: { test: 'replay-dir' } }, this.seatWord(s)),
            pos.landlord !== null ? (pos.landlord === s ? h('span.badge.landlord', t('role.landlord')) : h('span.badge.farmer', t('role.farmer'))) : null),
          this.seatExtra(s),
          end ? h('div.total' + (r.scores[s] > 0 ? '.plus' : r.scores[s] < 0 ? '.minus' : ''), scoreText(r.scores[s], true)) : null),
        h('div.count', h('span.mini-back'), h('b', String(pos.hands[s].length))));
      let said = null;
      const lp = pos.last[s];
      if (lp) {
        said = lp.cards.length
          ? h('div.said.play' + (lp.referee ? '.referee' : ''), cardRow(lp.cards, 'played'),
            lp.referee ? h('span.by-referee', t('table.standin.tag')) : null)
          : h('div.said.pass' + (lp.referee ? '.referee' : ''),
            lp.referee ? t('table.standin.pass') : lp.auto ? t('table.autopassed') : t('table.pass'));
      } else if (pos.bids[s] !== null && pos.plays === 0) {
        said = h('div.said.bidsay', bidText(pos.bids[s]));
      }
      const hand = h('div.oppo-hand.revealed' + (slots[s] === 'me' ? '.bottom' : ''), { dataset: { zone: 'hand', seat: String(s) } },
        h('div.cards', { vars: { '--n': String(pos.hands[s].length) } }, sortHand(pos.hands[s]).map((c) => cardEl(c))));
      const sayKey = said ? `${lp ? this.steps.indexOf(lp) : 'bid'}|${said.textContent}` : '';
      this.sayKeys = this.sayKeys || {};
      if (said && this.sayKeys[s] !== sayKey) said.classList.add('enter');
      this.sayKeys[s] = sayKey;
      replace(el, info, hand, h('div.saywrap', said));
    }
    // centre: bottom cards, the step, the result at the end
    const center = this.el.felt.querySelector('.center');
    const parts = [h('div.bottom-cards', h('span.label', t('table.leftover')),
      h('div.cards.leftover', pos.landlord !== null || end
        ? sortPlay(r.leftover).map((c) => cardEl(c))
        : [backEl(), backEl(), backEl()]))];
    parts.push(h('div.status', { dataset: { test: 'replay-step' } }, this.stepText(pos.step)));
    if (end) parts.push(this.resultEl());
    center.classList.toggle('at-end', end); // (a phone's centre is laid out for the result box)
    replace(center, parts);
    this.renderBar(end);
    this.renderAnalysis(pos);
    this.renderLog();
    // after what else this render changed (the analysis under the board
    // takes height from the centre), and again whenever the centre's size
    // changes (a phone's browser bars, a rotation)
    this.showResult();
    if (window.ResizeObserver && this.centreWatched !== center) { // (a full render makes a new centre)
      if (!this.centreWatch) this.centreWatch = new ResizeObserver(() => this.showResult());
      this.centreWatch.disconnect();
      this.centreWatch.observe(center);
      this.centreWatched = center;
    }
    const again = this.refocus || keep;
    this.refocus = null;
    const b = again && this.root.querySelector(again);
    if (b && !b.disabled && document.activeElement !== b) b.focus();
  }

  /* What a seat shows under its name besides its direction and role:
   * nothing here (the TV adds ratings). */
  seatExtra() { return null; }

  /* The controls under the board at step this.i (`end`: the last). */
  renderBar(end) {
    const n = this.steps.length - 1;
    const range = h('input', { type: 'range', min: '0', max: String(n), value: String(this.i), 'aria-label': t('replay.step', { i: this.i, n }) });
    range.addEventListener('input', () => this.go(+range.value));
    const speed = h('select', { 'aria-label': t('replay.speed') }, SPEEDS.map((s) => h('option', { value: String(s), selected: s === this.speed }, `${s}×`)));
    speed.addEventListener('change', () => { this.speed = +speed.value; this.schedule(); });
    replace(this.el.bar,
      h('div.transport',
        h('button', { onclick: () => this.go(0), disabled: this.i === 0, title: t('replay.first'), dataset: { test: 'replay-first' } }, icon('first')),
        h('button', { onclick: () => this.go(this.i - 1), disabled: this.i === 0, title: t('replay.prev'), dataset: { test: 'replay-prev' } }, icon('prev')),
        h('button.primary', { onclick: () => this.toggle(), title: this.playing ? t('replay.pause') : t('replay.play'), dataset: { test: 'replay-play' } },
          icon(this.playing ? 'pause' : 'play')),
        h('button', { onclick: () => this.go(this.i + 1), disabled: end, title: t('replay.next'), dataset: { test: 'replay-next' } }, icon('next')),
        h('button', { onclick: () => this.go(Infinity), disabled: end, title: t('replay.last'), dataset: { test: 'replay-last' } }, icon('last'))),
      range,
      h('span.stepno', { dataset: { test: 'replay-stepno' } }, t('replay.step', { i: this.i, n })),
      speed);
  }

  /* The steps beside the board, the current one in view. */
  renderLog() {
    // log: a play that turned the result is marked, its keeping plays a button away
    const plies = this.analysis ? this.analysis.plies : [];
    replace(this.el.log, this.steps.map((s, j) => {
      const gave = s.kind === 'play' && plies[s.ply] && plies[s.ply].gave;
      const li = h('li' + (j === this.i ? '.current' : '') + (j > this.i ? '.future' : '') + (gave ? '.gave' : ''), { onclick: () => this.go(j) },
        h('span', this.stepText(s)),
        s.kind === 'play' && s.cards.length ? cardRow(s.cards, 'tiny') : null,
        gave ? h('button.log-mark', { type: 'button', dataset: { test: 'log-mark', ply: String(s.ply) },
          'aria-expanded': this.open === s.ply ? 'true' : 'false',
          onclick: (e) => { e.stopPropagation(); this.mark(s.ply, 'log-mark'); } }, '\u25BC ' + t('analysis.log.mark')) : null);
      return li;
    }));
    const cur = this.el.log.querySelector('.current');
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
  }

  /* A centre too short for the result (a phone's, under the analysis)
   * scrolls: the result's headline is brought into it, not left below. */
  showResult() {
    const center = this.el && this.el.felt && this.el.felt.querySelector('.center');
    const res = center && center.classList.contains('at-end') && center.querySelector('.result');
    if (!res || center.scrollHeight <= center.clientHeight) return;
    // (from the boxes: the centre is no offsetParent, so the result's
    // offsetTop counts from further up and scrolled it past the top)
    const top = res.getBoundingClientRect().top - center.getBoundingClientRect().top;
    center.scrollTop = Math.max(0, center.scrollTop + top - 4);
  }

  /* The analysis under the board, at the position `pos`. */
  renderAnalysis(pos) {
    const wrap = this.el.analysis;
    if (this.aState !== 'ready') {
      replace(wrap, h('p.analysis-status', { role: 'status', dataset: { test: 'analysis-status' } },
        t(this.aState === 'loading' ? 'analysis.pending' : 'analysis.none')));
      return;
    }
    replace(wrap, analysisView({
      a: this.analysis,
      current: pos.plays - 1,
      open: this.open,
      name: (s) => this.name(s),
      cards: (j) => this.rec.plays[j].cards,
      go: (j) => this.go(this.plyStep[j]),
      mark: (j) => this.mark(j),
    }));
    stackMarks(wrap.querySelector('.verdict-bar'));
  }

  resultEl() {
    const r = this.rec;
    let head;
    if (r.aborted) head = t('replay.aborted');
    else if (r.landlord === null || r.landlord === undefined) head = t('over.allpass');
    else if (r.winner === null || r.winner === undefined) head = t('replay.result');
    else head = r.winner === r.landlord ? t('over.landlord.win') : t('over.farmers.win');
    const ok = commitMatches(r.seed, r.commit);
    return h('div.result', { dataset: { test: 'replay-result' } },
      h('h2', head),
      this.resultWhy(),
      h('p.' + (ok ? 'ok' : 'bad'), ok ? t('over.hash.ok') : t('over.hash.bad')));
  }

  /* Faults and how the scores came about, in the terms the server added
   * to the record (none when it could not replay it). */
  resultWhy() {
    const r = this.rec;
    const ctx = { landlord: r.landlord, scores: r.scores, name: (s) => this.name(s) };
    return [...faultLines(r.terms, ctx), sayLine(r.terms, ctx)];
  }
}
