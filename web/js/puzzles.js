// puzzles.js - the puzzles page (残局, issue 42, spec §16): #/puzzles and
// #/puzzles/RULES. One endgame at a time with all three hands open, the
// person at the seat to move (`turn`): she selects cards and plays (or
// passes), the page sends her whole line (POST /api/puzzles/ID/attempt:
// the server is stateless and replays it), shows the other seats' replies
// one by one, and goes on until the server says solved or failed. Then a
// result panel: on a failure the winning plays the server tells only now,
// the whole line, the source game's replay and the rating change when the
// server sends them, "Next puzzle" (GET /api/puzzles/next with the ids
// just shown as `recent`). Signed in, the requests carry the session so
// that the first attempt at a puzzle is rated; a refused session drops to
// guest as the connection does. What is legal is always the server's
// answer: an illegal play is refused (400 EILLEGAL) and chosen again.
import { h, replace, icon } from './dom.js';
import { t, rulesName, errorText } from './i18n.js';
import { app, go, toast, langButton } from './shell.js';
import { cardEl, cardRow, handRow, sortHand } from './cards.js';
import { session } from './session.js';
import { onHelloRefused, signInDialog } from './account.js';
import { addRecent, readRecent, writeRecent, startPosition, applyPlay, mayPass, sideOf, ratingDelta } from './puzzlestate.js';

/* The rule sets in the order the lobby's create form lists them. */
const KNOWN_RULES = ['caai', 'botzone-ftl', 'botzone-ftl2'];
/* How long each reply of the other seats stays alone on the table before
 * the next: long enough to see who answered what. */
const REPLY_MS = 450;
/* A 503's Retry-After is honoured up to this many seconds, once. */
const RETRY_MAX_S = 5;

const storage = () => { try { return window.localStorage; } catch { return null; } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const calm = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/* One request with the session when there is one: {status, body, retry};
 * a network failure is status 0, never a throw. */
async function request(method, path, body) {
  const headers = {};
  if (body) headers['Content-Type'] = 'application/json';
  const s = session();
  if (s) headers.Authorization = 'Bearer ' + s;
  try {
    const res = await fetch(path, { method, headers, cache: 'no-store', body: body ? JSON.stringify(body) : undefined });
    let json = null;
    try { json = await res.json(); } catch { /* not JSON */ }
    return { status: res.status, body: json, retry: Number(res.headers.get('Retry-After')) || 1 };
  } catch {
    return { status: 0, body: null, retry: 0 };
  }
}

/* A request as the page makes it: a refused session (401) drops to guest,
 * as a refused hello does (account.js), and is asked again without it; a
 * busy server (503) is asked once more after its Retry-After. */
async function call(method, path, body) {
  let r = await request(method, path, body);
  if (r.status === 401 && session()) {
    onHelloRefused({ code: 'EAUTH' });
    r = await request(method, path, body);
  }
  if (r.status === 503) {
    await sleep(Math.min(RETRY_MAX_S, Math.max(1, r.retry)) * 1000);
    r = await request(method, path, body);
  }
  return r;
}

/* Whether a play answer is one of the server's, as PROTOCOL.md says. */
function isAnswer(b) {
  return b && (b.result === 'continue' || b.result === 'solved' || b.result === 'failed');
}

/* The page. `rules`: the rule set of its puzzles. */
export class Puzzles {
  constructor(rules) {
    this.rules = rules;
  }

  mount(root) {
    this.root = root;
    this.seq = 0; // a request answered after another started is dropped
    this.load();
  }

  unmount() {
    this.root = null;
    this.seq++;
  }

  onLang() { this.render(); }

  onAccount() { this.render(); } // signed in or out: the guest line changes

  /* Reads the next puzzle of the rules, not one of those just shown. */
  async load() {
    const seq = ++this.seq;
    this.p = null;
    this.state = 'loading';
    this.render();
    const recent = readRecent(storage());
    const q = '?rules=' + encodeURIComponent(this.rules) + (recent.length ? '&recent=' + recent.join(',') : '');
    const r = await call('GET', '/api/puzzles/next' + q);
    if (!this.root || seq !== this.seq) return;
    if (r.status === 200 && r.body && Array.isArray(r.body.hands)) {
      writeRecent(storage(), addRecent(recent, r.body.id));
      this.you = r.body.you; // the person's puzzle rating, signed in (absent for a guest)
      this.start(r.body);
    } else {
      // no puzzle of these rules yet: said as a fact, not as an error
      this.state = r.status === 404 ? 'empty' : r.status === 503 ? 'busy' : 'error';
    }
    this.render();
  }

  /* Puzzle `p` from its position: nothing played yet. */
  start(p) {
    this.p = p;
    this.pos = startPosition(p);
    this.plays = []; // the person's plays, as sent
    this.line = []; // every play shown, {seat, cards}
    this.said = [null, null, null]; // each seat's last action in the current round
    if (this.pos.last) this.said[this.pos.lastBy] = this.pos.last;
    this.fresh = null; // the seat whose action just came (its entrance animation)
    this.sel = new Set();
    this.result = null;
    this.state = 'ready';
  }

  again() {
    this.seq++;
    this.start(this.p);
    this.render();
  }

  /* Seat `seat` plays `cards` on the page's own position. */
  step(seat, cards) {
    // a seat that leads (nothing to beat, or its own play passed by both)
    // starts a new round: the others' old actions go
    if (this.pos.last === null || this.pos.lastBy === seat) this.said = [null, null, null];
    this.pos = applyPlay(this.pos, seat, cards);
    this.line.push({ seat, cards });
    this.said[seat] = cards;
    this.fresh = seat;
  }

  /* Shows the server's plays `plays` ({seat, cards}) one after another. */
  async reveal(plays, seq) {
    for (const x of plays) {
      if (!calm()) await sleep(REPLY_MS);
      if (!this.root || seq !== this.seq) return false;
      this.step(x.seat, x.cards);
      this.render();
    }
    return true;
  }

  /* The person plays `cards` ([]: a pass). */
  async play(cards) {
    if (this.state !== 'ready' || !this.p) return;
    const seq = this.seq;
    const plays = [...this.plays, cards];
    this.state = 'checking';
    this.render();
    const r = await call('POST', `/api/puzzles/${encodeURIComponent(this.p.id)}/attempt`, { plays });
    if (!this.root || seq !== this.seq) return;
    if (r.status === 200 && isAnswer(r.body)) {
      const res = r.body, me = this.p.turn;
      this.plays = plays;
      this.sel.clear();
      this.step(me, cards);
      this.state = 'replying';
      this.render();
      let rest;
      if (res.result === 'continue') {
        rest = (res.replies || []).map((c, i) => ({ seat: (me + 1 + i) % 3, cards: c }));
      } else {
        // the line's plays not shown yet: a partner's reply that won, say
        rest = (Array.isArray(res.line) ? res.line : []).slice(this.line.length);
      }
      if (!(await this.reveal(rest, seq))) return;
      if (res.result === 'continue') {
        this.state = 'ready';
      } else {
        this.result = res;
        this.state = 'done';
      }
    } else {
      this.state = 'ready';
      if (r.status === 400 && r.body && r.body.error === 'EILLEGAL') toast(t('pz.illegal'), 'info');
      else if (r.status === 404) this.state = 'gone';
      else if (r.status === 503 || r.status === 0) toast(t('pz.busy'));
      else toast(errorText({ code: (r.body && r.body.error) || String(r.status), message: (r.body && r.body.message) || '' }));
    }
    this.render();
  }

  /* ---- drawing ---- */

  render() {
    if (!this.root) return;
    const top = h('header.lobby-head',
      h('div.competition-title',
        h('button.ghost.back', { onclick: () => go('#/'), title: t('competition.lobby'), 'aria-label': t('competition.lobby'),
          dataset: { test: 'pz-back' } }, icon('back')),
        h('h1', t('pz.title'))),
      langButton());
    let body;
    if (this.state === 'loading') body = h('section.panel', h('p.competition-note', { dataset: { test: 'pz-loading' } }, t('pz.loading')));
    else if (this.state === 'empty') body = h('section.panel', h('p', { dataset: { test: 'pz-empty' } }, t('pz.empty')));
    else if (this.state === 'busy' || this.state === 'error' || this.state === 'gone') {
      body = h('section.panel', { dataset: { test: 'pz-error' } },
        h('p', t(this.state === 'busy' ? 'pz.busy' : this.state === 'gone' ? 'pz.gone' : 'pz.error')),
        h('button.primary', { onclick: () => this.load() }, this.state === 'gone' ? t('pz.next') : t('people.retry')));
    } else {
      body = [this.state === 'done' ? this.resultPanel() : null, this.board()];
    }
    replace(this.root, h('div.lobby.people.puzzles', { dataset: { test: 'puzzles' } }, top, this.bar(), body));
  }

  /* The rule set, and the person's standing: her puzzle rating, or as a
   * guest that puzzles are unrated until she signs in. */
  bar() {
    const names = [...new Set(KNOWN_RULES.concat(app.rulesets || [], [this.rules]))];
    const sel = h('select', { dataset: { test: 'pz-rules' }, 'aria-label': t('pz.rules') },
      names.map((r) => h('option', { value: r, selected: r === this.rules }, rulesName(r))));
    sel.addEventListener('change', () => go('#/puzzles/' + encodeURIComponent(sel.value), { replaceState: true }));
    const signedIn = !!(app.account || session());
    const you = this.you && typeof this.you.rating === 'number'
      ? h('p.pz-you', { dataset: { test: 'pz-you' } }, t('pz.yourrating', { rating: Math.round(this.you.rating), dev: Math.round(this.you.deviation || 0) }))
      : null;
    return h('div.pz-bar',
      h('label.field.inline', h('span', t('pz.rules')), sel),
      signedIn ? you
        : h('p.pz-guest', { dataset: { test: 'pz-guest' } }, h('span', t('pz.guest')), ' ',
          h('button.ghost.small', { dataset: { test: 'pz-signin' }, onclick: () => signInDialog('in') }, t('pz.signin'))));
  }

  seatName(s) {
    return t('seat.' + s);
  }

  board() {
    const p = this.p, me = p.turn, pos = this.pos;
    const ready = this.state === 'ready';
    const side = sideOf(p, me);
    let status;
    if (this.state === 'done') status = null;
    else if (!ready) status = h('span', t('pz.waiting'));
    else if (mayPass(pos)) status = h('span.pz-tobeat', t('pz.tobeat', { seat: this.seatName(pos.lastBy) }), cardRow(pos.last, 'tiny'));
    else status = h('span', this.plays.length ? t('pz.yourturn') : t('pz.lead'));
    const playBtn = h('button.primary', { dataset: { test: 'pz-play' }, disabled: !ready || !this.sel.size,
      onclick: () => this.play(sortHand([...this.sel])) }, t('pz.play'));
    this.playBtn = playBtn;
    return h('section.panel.pz-board', { dataset: { test: 'pz-board', state: this.state, id: String(p.id) } },
      h('div.pz-head',
        h('h2', t('pz.number', { id: p.id }), ' ', h('small', rulesName(p.rules))),
        h('p.pz-goal', { dataset: { test: 'pz-goal' } }, t('pz.goal', { side: t('pz.side.' + side) }))),
      h('div.pz-others', [1, 2].map((k) => this.seatEl((me + k) % 3))),
      this.seatEl(me),
      status ? h('p.pz-status', { dataset: { test: 'pz-status' }, role: 'status' }, status) : null,
      this.state === 'done' ? null : h('div.pz-actions',
        h('button', { dataset: { test: 'pz-pass' }, disabled: !ready || !mayPass(pos), onclick: () => this.play([]) }, t('pz.pass')),
        h('button.ghost.pz-clear', { dataset: { test: 'pz-clear' }, disabled: !ready, onclick: () => this.clearSel() }, t('pz.clear')),
        playBtn),
      this.line.length && this.state !== 'done'
        ? h('div.pz-linebox', h('h3', t('pz.line')), this.lineEl(this.line)) : null);
  }

  /* One seat: its name, role and card count, its last action this round,
   * and its hand face up (the person's to choose from). */
  seatEl(s) {
    const p = this.p, me = s === p.turn, hand = this.pos.hands[s];
    const said = this.said[s];
    const tobeat = this.pos.last && this.pos.lastBy === s && this.state !== 'done';
    return h('div.pz-seat' + (me ? '.me' : '') + (s === p.landlord ? '.landlord' : ''), { dataset: { test: 'pz-seat', seat: String(s) } },
      h('div.pz-seat-head',
        h('b', this.seatName(s)),
        h('span.tag' + (s === p.landlord ? '.pz-ll' : ''), { dataset: { test: 'pz-role' } }, t(s === p.landlord ? 'role.landlord' : 'role.farmer')),
        me ? h('span.tag.pz-me', t('pz.you')) : null,
        h('small.pz-count', t('pz.cards', { n: hand.length })),
        said === null ? null : h('span.pz-said' + (tobeat ? '.tobeat' : '') + (this.fresh === s ? '.pz-in' : ''), { dataset: { test: 'pz-said' } },
          said.length ? cardRow(said, 'tiny') : h('span.pass', t('pz.passed')))),
      me ? this.handEl(hand) : handRow(hand, 'pz-open'));
  }

  /* The person's hand: a card toggles in and out of the selection. */
  handEl(hand) {
    const ready = this.state === 'ready';
    const cards = sortHand(hand).map((c) => {
      const on = this.sel.has(c);
      const el = cardEl(c, { role: 'button', tabindex: ready ? '0' : '-1', 'aria-pressed': on ? 'true' : 'false' });
      if (on) el.classList.add('selected');
      const toggle = () => {
        if (this.state !== 'ready') return;
        if (this.sel.has(c)) this.sel.delete(c);
        else this.sel.add(c);
        const now = this.sel.has(c);
        el.classList.toggle('selected', now);
        el.setAttribute('aria-pressed', now ? 'true' : 'false');
        if (this.playBtn) this.playBtn.disabled = !this.sel.size;
      };
      el.addEventListener('click', toggle);
      el.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          toggle();
        }
      });
      return el;
    });
    return h('div.cards.pz-hand', { dataset: { test: 'pz-hand' }, role: 'group', 'aria-label': t('pz.a11y.hand') }, cards);
  }

  clearSel() {
    this.sel.clear();
    this.render();
  }

  /* A line of plays, each with its seat. */
  lineEl(line) {
    return h('ol.pz-line', { dataset: { test: 'pz-line' } }, line.map((x) => h('li' + (x.seat === this.p.turn ? '.mine' : ''),
      h('b', this.seatName(x.seat)),
      x.cards.length ? cardRow(x.cards, 'tiny') : h('span.pass', t('pz.passed')))));
  }

  resultPanel() {
    const res = this.result, ok = res.result === 'solved';
    const sols = Array.isArray(res.solutions) ? res.solutions : [];
    const rated = res.rated && typeof res.rated.before === 'number' ? res.rated : null;
    let ratedEl = null;
    if (rated) {
      const d = ratingDelta(rated.before, rated.after);
      const pz = typeof rated.puzzle_before === 'number' ? ratingDelta(rated.puzzle_before, rated.puzzle_after) : null;
      ratedEl = h('div.rated-change', { dataset: { test: 'pz-rated' } },
        h('p', t('pz.rating', d)),
        pz ? h('p.note', t('pz.puzzlerating', pz)) : null);
    } else if (this.you && session()) {
      // signed in where the server rates puzzles: a repeat is not rated
      ratedEl = h('p.competition-note', { dataset: { test: 'pz-unrated' } }, t('pz.unrated'));
    }
    const line = Array.isArray(res.line) ? res.line : this.line;
    return h('section.panel.pz-result' + (ok ? '.solved' : '.failed'), { dataset: { test: 'pz-result', result: res.result } },
      h('h2', { dataset: { test: 'pz-verdict' } }, t(ok ? 'pz.solved' : 'pz.failed')),
      h('p', ok ? t('pz.solved.desc') : Number.isInteger(res.at) && this.plays.length > 1 ? t('pz.failed.at', { n: res.at + 1 }) : t('pz.failed.desc')),
      ok ? null : h('div.pz-solutions-box',
        h('h3', t('pz.solutions')),
        sols.length ? h('div.pz-solutions', { dataset: { test: 'pz-solutions' } },
          sols.map((c) => h('div.pz-sol', { dataset: { test: 'pz-solution' } }, c.length ? cardRow(c, 'tiny') : h('span.pass', t('pz.passed')))))
          : h('p.competition-note', t('pz.solutions.none'))),
      ratedEl,
      h('h3', t('pz.line.all')),
      this.lineEl(line),
      h('div.pz-actions',
        Number.isInteger(res.game) ? h('a.button.ghost.pz-replay', { href: '#/replay/' + res.game, dataset: { test: 'pz-replay' } },
          icon('play'), ' ', t('pz.replay')) : null,
        h('button', { dataset: { test: 'pz-again' }, onclick: () => this.again() }, t('pz.again')),
        h('button.primary', { dataset: { test: 'pz-next' }, onclick: () => this.load() }, t('pz.next'))));
  }
}
