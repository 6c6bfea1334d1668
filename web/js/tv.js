// tv.js - watching a competition as a delayed broadcast (#/tv/ladder,
// #/tv/tournament), as lichess TV does. A competition's deal is held until
// every table has played it (spec §13, "Nothing early"), so a live table
// shows nobody any card; once a deal is published, its game is an ordinary
// record at /api/games/ID. The page asks the competition's API for `tv`
// (the newest published game: the ladder's from the table whose players
// are rated highest, the tournament's the newest listed), replays that
// record play by play with every hand open at a fixed pace (the record
// holds no times: TV_STEP_MS a bid or play), keeps the result on screen
// for TV_END_MS, then asks again and moves to the newest published game;
// while nothing newer is published it keeps the last one on screen and
// asks every TV_POLL_MS. It never leaves a game before its end. The board
// is the replay viewer's (replay.js), without its controls: a broadcast
// is not seeked. Choices: docs/decisions.md, "Watching a competition".
import { h, replace, icon } from './dom.js';
import { t, playerLabel } from './i18n.js';
import { go, langButton } from './shell.js';
import { Replay } from './replay.js';
import { fetchLadder } from './ladder.js';
import { fetchTournament } from './tournament.js';

export const TV_STEP_MS = 1000; // a bid or a play, as a person follows it
export const TV_END_MS = 6000; // the result stays on screen
const TV_POLL_MS = 2000; // asked again while nothing newer is published

function fixed(x) {
  return typeof x === 'number' ? x.toFixed(1) : '';
}

export class Tv extends Replay {
  constructor(kind) {
    super('');
    this.kind = kind === 'tournament' ? 'tournament' : 'ladder';
    this.tv = null; // the API's `tv` of the game shown
    this.state = 'loading'; // 'loading', 'none' (no such competition), 'waiting' (nothing published yet), 'showing'
    this.next = false; // the game shown ended, nothing newer published yet
  }

  mount(root) {
    this.root = root;
    this.render();
    this.tune();
  }

  unmount() {
    clearTimeout(this.timer);
    clearTimeout(this.tuneTimer);
    this.root = null;
  }

  /* Asks the competition which game is on, and shows it from its start
   * if it is not the one shown; otherwise asks again a little later. */
  async tune() {
    clearTimeout(this.tuneTimer);
    const d = this.kind === 'ladder' ? await fetchLadder() : await fetchTournament();
    if (!this.root) return;
    const tv = d && d.tv;
    if (!tv || (this.tv && tv.game === this.tv.game) || !(await this.load(tv))) {
      if (!this.root) return;
      if (!this.rec) {
        this.state = d ? 'waiting' : 'none';
        this.render();
      } else if (this.i === this.steps.length - 1 && !this.next) {
        this.next = true;
        this.renderBar(true);
      }
      this.tuneTimer = setTimeout(() => this.tune(), TV_POLL_MS);
    }
  }

  /* Reads game `tv.game` (published: served by its id) and starts it.
   * Returns whether it did. */
  async load(tv) {
    let rec = null;
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(tv.game)}`, { cache: 'no-store' });
      if (res.ok) rec = await res.json();
    } catch { /* asked again */ }
    if (!this.root || !rec || !Array.isArray(rec.hands)) return false;
    this.tv = tv;
    this.id = this.num = String(tv.game);
    this.rec = rec;
    this.steps = this.buildSteps(rec);
    this.i = 0;
    this.sayKeys = {};
    this.next = false;
    this.state = 'showing';
    this.render();
    this.schedule();
    return true;
  }

  /* One step every TV_STEP_MS; after the last, the result for TV_END_MS,
   * then the newest game. */
  schedule() {
    clearTimeout(this.timer);
    if (!this.root || !this.steps) return;
    const end = this.i >= this.steps.length - 1;
    this.timer = setTimeout(() => {
      if (!this.root) return;
      if (end) {
        this.tune();
        return;
      }
      this.i++;
      this.renderBoard();
      this.schedule();
    }, end ? TV_END_MS : TV_STEP_MS);
  }

  // a broadcast is not seeked, paused or analysed
  go() {}
  toggle() {}
  onKey() {}
  renderAnalysis() {}

  name(s) {
    const n = (this.tv && this.tv.players && this.tv.players[s]) || (this.rec.names && this.rec.names[s]) || '';
    return n ? playerLabel(n) : t('seat.' + s);
  }

  /* A ladder player's rating as the deal left it. */
  seatExtra(s) {
    const r = this.tv && this.tv.ratings;
    if (!r || typeof r[s] !== 'number') return null;
    return h('div.tv-rating', { dataset: { test: 'tv-rating' } },
      t('tv.rating', { r: fixed(r[s]), u: fixed(this.tv.uncertainties && this.tv.uncertainties[s]) }));
  }

  /* Which deal and table is on, in words. */
  where() {
    const tv = this.tv;
    if (!tv) return '';
    if (this.kind === 'ladder') return t('ladder.table', { d: tv.deal, t: tv.table, n: tv.tables });
    return t('tv.tournament.where', { stage: t('tournament.stage.' + tv.stage), turn: tv.turn, k: tv.table, g: tv.deal });
  }

  renderBar(end) {
    const n = this.rec.plays ? this.rec.plays.length : 0;
    const done = this.position(this.i).plays;
    replace(this.el.bar, h('p.tv-status', { role: 'status', dataset: { test: 'tv-status' } },
      end ? (this.next ? t('tv.next') : t('tv.over')) : t('tv.progress', { i: done, n }),
      ' · ', h('span.tv-delay', t('tv.delayed'))));
  }

  render() {
    if (!this.root) return;
    const back = this.kind === 'ladder' ? '#/ladder' : '#/tournament';
    const title = t(this.kind === 'ladder' ? 'tv.ladder' : 'tv.tournament');
    const top = h('header.topbar',
      h('button.ghost.back', { onclick: () => go(back), 'aria-label': t('tv.back'), dataset: { test: 'tv-back' } },
        icon('back'), h('span.label', t('tv.back'))),
      h('div.title', h('b', title), this.tv ? h('small.tv-where', { dataset: { test: 'tv-where' } }, ' · ' + this.where()) : null),
      h('div.tools', langButton()));
    const attrs = { dataset: { test: 'tv', game: this.tv ? String(this.tv.game) : '' } };
    if (!this.rec) {
      const say = this.state === 'none' ? t(this.kind === 'ladder' ? 'ladder.none' : 'tournament.none')
        : this.state === 'waiting' ? t('tv.waiting') : t('competition.loading');
      replace(this.root, h('div.table-view.replay.tv', attrs, top,
        h('main.felt', h('section.center', h('div.status.big', { dataset: { test: 'tv-status' } }, say)))));
      return;
    }
    this.el = { felt: h('main.felt'), log: h('ol.log', { dataset: { test: 'replay-log' } }), bar: h('div.replay-bar.tv-bar') };
    for (const p of ['left', 'right', 'me']) this.el.felt.append(h('section.seat.pos-' + p));
    this.el.felt.append(h('section.center'));
    replace(this.root, h('div.table-view.replay.tv', attrs, top,
      h('div.replay-body', this.el.felt, h('aside.logwrap', this.el.log)), this.el.bar));
    this.renderBoard();
  }
}
