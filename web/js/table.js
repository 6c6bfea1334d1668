// table.js - one room as a player or a spectator sees it: the three seats
// around the felt, the hand, bidding and playing, the clock, the game-over
// explanation and the end of a turn.
//
// The room's rule set is shown in the top bar, as a label only; the
// game-over panel explains the score from the terms the server's rules sent
// (`over.breakdown.terms`, terms.js), and the plays the referee makes for a
// seat that faulted (after a `fault` event) are marked as its.
//
// Casual play (issue 15) lives in modules of its own: layout.js (the phone
// hand in rows), a11y.js (the live region, the modal panel), tracker.js
// (the card counter, the multiplier so far, tricks) and sound.js (WebAudio
// cues, the background tab's title).
//
// Nothing here knows a rule of the game. Bids and plays are allowed only
// when the server listed them in `turn.legal`; a selection is compared with
// those plays by its multiset of ranks (card coding, spec §1).
import { h, replace, icon } from './dom.js';
import { t, lang, bidText, rulesName, rulesShort, rulesDesc, scoreText, roomLabel } from './i18n.js';
import { playerLabel } from './i18n.js'; // competition seats (issue 25, item 5)
import { cardEl, backEl, cardRow, handRow, rankKey, sortHand, sortPlay, cardLabel } from './cards.js';
import { app, go, leave, toast, ask, dismissNotices, langButton } from './shell.js';
import { commitMatches } from './blake2b.js';
import { explainEl, faultLines } from './terms.js';
import { handRows } from './layout.js';
import { liveRegion, say, setInert, trapTab } from './a11y.js';
import { remaining, tricks } from './tracker.js';
import { cue, isMuted, setMuted, turnTitle, speak, calm } from './sound.js';
import { onAutoPlay, autoPlayBar, autoPlayButton, hintNext, phraseMenu, casualEvent, casualError, ct, noteAutoPlay, autoPlayLines } from './casual.js';
import { absenceBadges, absenceBar, noteMissed, noteAway, noteAwayState, sitAgainButton } from './absence.js';

const now = () => performance.now();

// The rule set of the usual bidding game: its name is no news at the table.
const DEFAULT_RULES = 'caai';

// The plays that get an effect of their own besides the bomb and the rocket
// (issue 25): combo -> its cue in sound.js and its look (.flash.fx-KIND)
const FX = { straight: 'straight', pair_straight: 'straight', trio_straight: 'plane', plane: 'plane' };

// A stored game's link: ID for a listed room's game, ID-KEY for a private or
// password room's, which the server serves under its key only.
const gameLink = (over) => (over.game_key ? `${over.game_id}-${over.game_key}` : `${over.game_id}`);

function emptyGame() {
  return {
    phase: 'waiting', game: 1, games: 1, commit: null, dealCommit: null,
    counts: [null, null, null], bids: [null, null, null], last: [null, null, null],
    landlord: null, bid: null, leftover: null, history: [], turn: null, hand: null,
    over: null, reveal: null, turnOver: null, freshCards: new Set(),
    // seats that faulted in this game, the referee acting for them after a
    // `fault` event (seat -> fault kind, null when only a snapshot told it)
    faulted: new Map(), bidByReferee: [false, false, false],
  };
}

export class Table {
  constructor(roomId, seat) {
    this.roomId = roomId;
    this.seat = seat;        // 0..2, or null for a spectator
    this.specBottom = 1;     // spectators look from South unless they rotate
    this.room = { id: roomId, name: roomId, options: {} };
    this.players = [null, null, null];
    this.totals = [0, 0, 0];
    this.autopass = true;
    this.g = emptyGame();
    this.sel = new Set();
    this.hint = -1;
    this.pending = false;    // an action was sent, not yet answered
    this.showOver = false;
    this.rematchAsked = false;
    this.gotState = false;
    this.root = null;
    this.clock = setInterval(() => this.tick(), 200);
  }

  destroy() {
    clearInterval(this.clock);
    turnTitle(false, '', `${t('app.title')} · ddz`);
    if (app.view === this) app.view = null;
    this.unmount();
  }

  /* ---- who sits where ---- */

  get bottom() { return this.seat ?? this.specBottom; }

  get rules() { return (this.room.options && this.room.options.rules) || 'caai'; }

  pos(s) {
    const d = (s - this.bottom + 3) % 3;
    return d === 0 ? 'me' : d === 1 ? 'right' : 'left';
  }

  name(s) {
    const p = this.players[s];
    if (!p) return (this.away && this.away[s]) || t('seat.' + s); // a person away keeps the name on the seat
    // a competition's table: its programs by their names, as its page lists them
    if (this.held) return playerLabel(p.name);
    if (p.kind === 'ai' && /^ai:/.test(p.name)) return `${t('kind.ai')}·${this.seatWord(s, true)}`;
    return p.name;
  }

  /* A seat as the players at the table say it (issue 25): 上家 (the seat
   * that plays before ours), 下家 (after ours), 我; a spectator, who has no
   * seat to count from, keeps the compass (西, 南, 东). */
  seatWord(s, short = false) {
    if (this.seat === null) return t('seat.' + s);
    const pos = this.pos(s);
    return t(pos === 'me' ? 'seat.me' : (pos === 'right' ? 'seat.next' : 'seat.prev') + (short ? '.short' : ''));
  }

  /* Who a seat is, for a screen reader: its name, and for a player its
   * place at the table where the name does not say it (a hosted AI's
   * does). */
  who(s) {
    const p = this.players[s];
    const name = this.name(s);
    return this.seat === null || !p || (p.kind === 'ai' && /^ai:/.test(p.name)) ? name : `${name} (${this.seatWord(s)})`;
  }

  myTurn(action) {
    const tu = this.g.turn;
    return this.seat !== null && tu && tu.seat === this.seat && (!action || tu.action === action);
  }

  legalPlays() {
    const tu = this.g.turn;
    if (!this.myTurn('play') || !Array.isArray(tu.legal)) return [];
    return tu.legal.filter((p) => p.length > 0);
  }

  canPass() {
    return this.myTurn('play') && Array.isArray(this.g.turn.legal) && this.g.turn.legal.some((p) => p.length === 0);
  }

  /* The selected cards if they make one of the server's legal plays. */
  selectionLegal() {
    if (!this.sel.size) return false;
    const key = rankKey([...this.sel]);
    return this.legalPlays().some((p) => rankKey(p) === key);
  }

  /* ---- server events ---- */

  onState(m) {
    this.gotState = true;
    this.room = m.room;
    this.seat = m.seat;
    this.totals = m.totals;
    this.restoreScores(m);
    this.autopass = m.autopass;
    this.held = !!m.held; // a spectator of a tournament table: no cards or plays until published
    this.stoodUp = !!m.stood_up; // away when the ready clock ran out: watching, one tap sits again (spec §14)
    this.seatNext = !!m.seat_next;
    const g = emptyGame();
    g.phase = m.phase;
    g.game = m.game;
    g.games = m.games;
    g.commit = m.commit;
    g.dealCommit = this.g.dealCommit && this.g.game === m.game ? this.g.dealCommit : m.commit;
    noteAwayState(this, m.players);
    this.players = m.players.map((p) => (p ? { name: p.name, kind: p.kind, connected: p.connected, custody: !!p.custody,
      missed: p.missed || 0, standin: p.standin || null } : null));
    const inGame = m.phase === 'bid' || m.phase === 'play' || m.phase === 'between';
    const known = this.g.game === m.game ? this.g.faulted : new Map();
    m.players.forEach((p, i) => {
      if (!p || !inGame) return;
      g.counts[i] = p.left ?? null;
      g.bids[i] = p.bid ?? null;
      if (p.faulted) {
        g.faulted.set(i, known.get(i) ?? null);
        g.bidByReferee[i] = p.bid === 0;
      }
      if (p.last) {
        g.last[i] = { cards: p.last.cards, combo: p.last.cards.length ? p.last.combo : 'pass', auto: false,
          referee: !!p.faulted };
      }
    });
    g.hand = m.hand ? sortHand(m.hand) : null;
    g.leftover = m.leftover;
    g.landlord = m.landlord;
    g.bid = m.bid;
    g.multiplier = m.multiplier;
    g.history = m.history || [];
    g.turn = m.turn ? { ...m.turn, deadline: now() + m.turn.deadline_ms } : null;
    if (m.phase === 'between' && this.g.over && this.g.game === m.game) {
      g.over = this.g.over;
      g.reveal = this.g.reveal;
      // the state sent at a game's end (the ready clock) keeps who the referee played for
      for (const [k, v] of this.g.faulted) if (!g.faulted.has(k)) g.faulted.set(k, v);
    }
    if (m.phase === 'turn_over') g.turnOver = this.g.turnOver || { totals: m.totals, games: m.games };
    // between games of a casual room: who is ready, and the ready clock (issue 25)
    this.ready = m.ready ? { seats: m.ready.seats, deadline: now() + m.ready.ms } : null;
    if (m.phase === 'turn_over' && !this.showOver) this.showOver = true;
    this.g = g;
    for (const c of [...this.sel]) if (!g.hand || !g.hand.includes(c)) this.sel.delete(c);
    this.pending = false;
    this.render();
  }

  onEvent(m) {
    const g = this.g;
    switch (m.type) {
      case 'seat': {
        // a person who left mid-turn: said in the room, not only a renamed seat (issue 25)
        const was = this.players[m.seat];
        if (was && was.kind === 'human' && m.seat !== this.seat && (!m.player || m.player.kind !== 'human')) {
          toast(m.player ? t('table.left.ai', { name: was.name }) : t('table.left', { name: was.name }), 'info');
        }
        this.players[m.seat] = m.player ? { ...m.player, custody: !!m.player.custody } : null;
        noteAutoPlay(this, m);
        noteMissed(this, m, was);
        noteAway(this, m, was);
        this.renderSeats();
        this.renderCenter();
        this.renderControls(); // auto-play on or off
        return;
      }
      case 'game': {
        const keep = { over: g.over };
        this.g = emptyGame();
        Object.assign(this.g, {
          phase: 'bid', game: m.game, games: m.games, commit: m.commit, dealCommit: m.commit,
          counts: [17, 17, 17], hand: m.hand ? sortHand(m.hand) : null,
        });
        this.lastOver = keep.over || this.lastOver;
        if (m.game === 1) { this.totals = [0, 0, 0]; this.scores = []; this.saveScores(); } // a new round (再来一轮) starts at zero
        this.sel.clear();
        this.hint = -1;
        this.pending = false;
        this.rematchAsked = false;
        this.ready = null;
        if (this.lastOverIsTurnOver) { this.showOver = false; this.lastOverIsTurnOver = false; } // a new turn began
        this.render();
        return;
      }
      case 'turn':
        g.turn = { ...m, deadline: now() + m.deadline_ms };
        if (m.seat === this.seat) { this.announceTurn(m); cue('turn'); }
        if (m.action === 'play') g.phase = 'play';
        this.hint = -1;
        // the game-over panel stays until dismissed: its note counts down
        // this turn's clock instead (issue 15)
        if (m.seat === this.seat) this.pending = false;
        // A follow with a single play that beats (the rocket on a bomb, say):
        // it is selected, so one tap on Play or Pass decides (issue 25)
        if (m.seat === this.seat && m.action === 'play' && this.canPass() && this.legalPlays().length === 1) {
          this.sel.clear();
          for (const c of this.legalPlays()[0]) this.setSel(c, true);
        }
        this.render();
        return;
      case 'bid_made':
        g.bids[m.seat] = m.bid;
        this.announce(t('a11y.said', { name: this.sayName(m.seat), what: bidText(m.bid) }));
        g.bidByReferee[m.seat] = g.faulted.has(m.seat);
        if (g.turn && g.turn.seat === m.seat) g.turn = null;
        if (m.seat === this.seat) this.pending = false;
        this.render();
        return;
      case 'leftover':
        g.landlord = m.landlord;
        g.leftover = m.cards;
        g.bid = m.bid;
        g.multiplier = m.multiplier; // the server's, from the start of play
        g.counts[m.landlord] = (g.counts[m.landlord] ?? 17) + m.cards.length;
        this.announce(t('a11y.landlord', { name: this.sayName(m.landlord), cards: m.cards.map(cardLabel).join(' ') }));
        if (m.landlord === this.seat && g.hand) {
          g.hand = sortHand([...g.hand, ...m.cards]);
          g.freshCards = new Set(m.cards);
        }
        this.render();
        return;
      case 'played': {
        // after its fault every action of a seat is the referee's (`auto`)
        const referee = m.auto && g.faulted.has(m.seat);
        g.history.push({ seat: m.seat, cards: m.cards, combo: m.combo, auto: m.auto, referee });
        g.multiplier = m.multiplier; // the server's: the rules' count of the bombs and the rocket
        g.last[m.seat] = { cards: m.cards, combo: m.combo, auto: m.auto, referee };
        g.counts[m.seat] = m.left;
        this.announce(t('a11y.said', { name: this.sayName(m.seat),
          what: m.cards.length ? `${t('combo.' + m.combo).replace(/[!！]$/, '')} ${sortPlay(m.cards).map(cardLabel).join(' ')}` : t('table.pass') }));
        if (g.turn && g.turn.seat === m.seat) g.turn = null;
        if (m.seat === this.seat) {
          this.pending = false;
          if (g.hand) g.hand = g.hand.filter((c) => !m.cards.includes(c));
          for (const c of m.cards) this.sel.delete(c);
          g.freshCards.clear();
        }
        if (m.combo === 'bomb' || m.combo === 'rocket') this.flash(t('combo.' + m.combo));
        else if (FX[m.combo] && !calm()) this.flash(t('combo.' + m.combo), FX[m.combo]);
        cue(m.combo === 'bomb' || m.combo === 'rocket' ? 'bomb' : FX[m.combo] || (m.cards.length ? 'play' : 'pass'));
        if (m.cards.length && (m.left === 1 || m.left === 2)) this.report(m.seat, m.left);
        this.render();
        return;
      }
      case 'fault':
        // the game goes on, the referee acting for the seat
        g.faulted.set(m.seat, m.kind);
        if (g.turn && g.turn.seat === m.seat) g.turn = null;
        if (m.seat === this.seat) this.pending = false;
        toast(t('table.fault.notice', { name: this.name(m.seat), kind: t('fault.' + m.kind) }), 'info');
        this.render();
        return;
      case 'over':
        if (m.redeal) {
          // everyone passed and the room deals again: nothing to score or
          // show but that; the new cards come in a moment
          g.turn = null;
          g.phase = 'between';
          g.landlord = null;
          this.totals = m.totals;
          this.sel.clear();
          toast(t('table.redeal'), 'info');
          this.announce(t('table.redeal'));
          this.render();
          return;
        }
        g.over = m;
        g.reveal = m.hands;
        g.turn = null;
        g.phase = 'between';
        g.landlord = m.landlord;
        this.totals = m.totals;
        this.lastOver = m;
        this.lastOverAt = now();
        this.noteScore(m);
        this.lastOverIsTurnOver = false;
        this.showOver = true;
        this.sel.clear();
        dismissNotices();
        this.announceOver(m);
        const b = m.breakdown || {};
        if (b.spring || b.anti_spring) {
          // spring is the game's big moment: its chime stands for the win's
          const k = b.spring ? 'fx.spring' : 'fx.anti_spring';
          if (!calm()) this.flash(t(k), 'spring');
          this.announce(t(k));
          cue('spring');
        } else if (this.seat !== null && m.winner !== null && m.winner !== undefined) {
          cue((this.seat === m.landlord) === (m.winner === m.landlord) ? 'win' : 'lose');
        }
        this.render();
        return;
      case 'turn_over':
        g.turnOver = m;
        g.phase = 'turn_over';
        this.totals = m.totals;
        this.showOver = true;
        this.lastOverIsTurnOver = true;
        this.render();
        return;
      default:
        casualEvent(this, m);
    }
  }

  /* A rated game's rating change (spec §15): shown on the game-over panel
   * of that game. */
  onRated(m) {
    this.rated = m;
    this.overKey = null;
    this.renderOver();
  }

  /* The line of the game-over panel that says the rating change of game
   * `over`, or null. */
  ratedLine(over) {
    const r = this.rated;
    if (!r || !over || r.game !== over.game_id) return null;
    const d = Math.round(r.rating - r.before);
    return h('div.rated-change', { dataset: { test: 'rating-change' } },
      h('p', t('rated.change', { before: Math.round(r.before), after: Math.round(r.rating), delta: (d > 0 ? '+' : '') + d })),
      r.forfeit ? h('p.note', t('rated.forfeit')) : null);
  }

  onError(m) {
    casualError(this, m);
    if (this.pending) {
      this.pending = false;
      this.renderControls();
    }
  }

  /* ---- actions ---- */

  send(msg) {
    if (app.conn.send(msg) === null) return false;
    this.pending = true;
    this.renderControls();
    return true;
  }

  bid(n) {
    const tu = this.g.turn;
    if (this.pending || !this.myTurn('bid') || !tu.legal.includes(n)) return;
    this.send({ type: 'bid', seq: tu.seq, bid: n });
  }

  play() {
    if (this.pending || !this.selectionLegal()) {
      if (this.sel.size && this.myTurn('play') && !this.pending) toast(t('table.select.invalid'), 'info');
      return;
    }
    this.send({ type: 'play', seq: this.g.turn.seq, cards: [...this.sel].sort((a, b) => a - b) });
  }

  pass() {
    if (this.pending || !this.canPass()) return;
    this.sel.clear();
    this.send({ type: 'play', seq: this.g.turn.seq, cards: [] });
    this.renderHandSelection();
  }

  hintNext() {
    hintNext(this); // the server's suggestions (casual.js)
  }

  clearSel() {
    this.sel.clear();
    this.hint = -1;
    this.renderHandSelection();
    this.renderControls();
  }

  /* ---- what a screen reader is told ---- */

  sayName(s) { return s === this.seat ? t('table.you') : this.name(s); }

  announce(text) { if (this.el) say(this.el.live, text); }

  /* A seat down to two cards or one calls it (报双, 报单), as at a real
   * table: in a voice where the browser has one, else a beep; and in
   * writing for a screen reader. */
  report(s, n) {
    const text = t('report.' + n);
    this.announce(t('a11y.said', { name: this.sayName(s), what: text }));
    speak(text.replace(/[!！]$/, ''), lang(), 'report' + n);
  }

  announceTurn(m) {
    if (m.action === 'bid') this.announce(t('table.your.bid'));
    else this.announce(Array.isArray(m.legal) && m.legal.some((p) => p.length === 0) ? t('table.your.follow') : t('table.your.lead'));
  }

  announceOver(o) {
    const me = this.seat;
    let text = t('over.title', { game: o.game });
    if (o.landlord === null || o.landlord === undefined) text += ': ' + t('over.allpass');
    else if (o.winner !== null && o.winner !== undefined) {
      const llWin = o.winner === o.landlord;
      text += ': ' + (me !== null ? ((me === o.landlord) === llWin ? t('over.you.win') : t('over.you.lose')) + ' ' : '') +
        (llWin ? t('over.landlord.win') : t('over.farmers.win'));
      if (me !== null) text += '. ' + t('a11y.score', { score: scoreText(o.scores[me], true) });
    }
    this.announce(text);
  }

  setAutopass(on) {
    app.conn.send({ type: 'autopass', on });
  }

  rematch() {
    if (app.conn.send({ type: 'rematch' }) !== null) {
      this.rematchAsked = true;
      this.renderOver();
    }
  }

  async leaveTable() {
    if (await this.confirmLeave()) leave();
  }

  /* Asks whether to leave a seat at a running table (its turn is handed to
   * a computer player). Resolves true to go ahead: at once when there is
   * nothing to hand over. The lobby's quick play asks it too (issue 25). */
  async confirmLeave() {
    const g = this.g;
    if (this.seat === null || !(g.phase === 'bid' || g.phase === 'play' || g.phase === 'between')) return true;
    const r = await ask({ title: t('table.leave'), text: t('table.leave.confirm'),
      buttons: [{ label: t('join.cancel'), value: null }, { label: t('table.leave'), value: 'leave', primary: true }] });
    return r.value === 'leave';
  }

  async invite() {
    // the room's name rides along, for the invitee's question before joining
    const name = this.room.name || ''; // as the server has it: the invitee's page translates it
    const link = `${location.origin}${location.pathname}#/room/${this.roomId}` + (name ? `?name=${encodeURIComponent(name)}` : '');
    try {
      await navigator.clipboard.writeText(link);
      toast(t('table.invite.copied'), 'info');
    } catch {
      await ask({ title: t('table.invite'), text: t('table.invite.prompt'), input: { value: link },
        buttons: [{ label: t('join.ok'), value: 'ok', primary: true }] });
    }
  }

  /* ---- mounting ---- */

  mount(root) {
    this.root = root;
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener('keydown', this.keyHandler);
    this.moveHandler = (e) => this.onPointerMove(e);
    this.upHandler = () => { this.drag = null; };
    window.addEventListener('pointermove', this.moveHandler);
    window.addEventListener('pointerup', this.upHandler);
    window.addEventListener('pointercancel', this.upHandler);
    this.build();
    this.render();
  }

  unmount() {
    if (!this.root) return;
    document.removeEventListener('keydown', this.keyHandler);
    window.removeEventListener('pointermove', this.moveHandler);
    window.removeEventListener('pointerup', this.upHandler);
    window.removeEventListener('pointercancel', this.upHandler);
    this.root = null;
    turnTitle(false, '', `${t('app.title')} · ddz`);
  }

  onLang() { this.overKey = null; this.build(); this.render(); }

  build() {
    const el = {};
    this.el = el;
    el.top = h('header.topbar');
    el.felt = h('main.felt', { onclick: (e) => { if (e.target === el.felt || e.target.classList.contains('center')) this.clearSel(); } });
    el.seats = {};
    for (const p of ['left', 'right', 'me']) {
      el.seats[p] = h('section.seat.pos-' + p);
      el.felt.append(el.seats[p]);
    }
    el.center = h('section.center');
    el.felt.append(el.center);
    el.controls = h('div.controls', { dataset: { test: 'controls' } });
    el.hand = h('div.hand', { dataset: { zone: 'hand' }, role: 'group', 'aria-label': t('a11y.hand'), onpointerdown: (e) => this.onPointerDown(e) });
    el.live = liveRegion();
    el.history = h('aside.history', { hidden: true, dataset: { test: 'history' }, 'aria-label': t('table.history') });
    el.handwrap = h('div.handwrap', el.hand);
    el.over = h('div.overlay', { hidden: true });
    el.flash = h('div.flash', { hidden: true });
    replace(this.root, h('div.table-view' + (this.seat === null ? '.spectating' : ''),
      el.top, el.felt, el.controls, el.handwrap, el.flash, el.history, el.over, el.live));
    this.handKey = null;
    this.overKey = null;
    this.sayKeys = {};
  }

  render() {
    if (!this.root) return;
    this.root.firstChild.classList.toggle('spectating', this.seat === null);
    this.renderTop();
    this.renderSeats();
    this.renderCenter();
    this.renderControls();
    this.renderHand();
    this.renderOver();
    this.renderHistory();
    this.tick();
  }

  /* The game's moves so far, trick by trick, newest first: the current
   * trick, the previous one, then the older ones. */
  renderHistory() {
    if (!this.root) return;
    const el = this.el.history;
    const g = this.g;
    el.hidden = !this.showHistory || g.phase === 'waiting';
    this.root.firstChild.classList.toggle('history-open', !el.hidden); // the table makes room for it (app.css)
    if (el.hidden) { replace(el); return; }
    const all = tricks(g.history);
    const title = (i) => (i === all.length - 1 ? t('table.trick.now') : i === all.length - 2 ? t('table.trick.prev') : t('table.trick.n', { n: i + 1 }));
    replace(el, h('h3', t('table.history'), h('button.ghost.small', { 'aria-label': t('over.close'), onclick: () => { this.showHistory = false; this.renderCenter(); this.renderHistory(); } }, '\u2715')),
      all.length ? null : h('p.empty', t('table.history.none')),
      all.map((tr, i) => ({ tr, i })).reverse().map(({ tr, i }) => h('section.trick' + (i === all.length - 2 ? '.prev' : ''), { dataset: { test: 'trick', n: String(i + 1) } },
        h('h4', title(i)),
        tr.map((p) => h('div.move', { dataset: { test: 'move', seat: String(p.seat), cards: p.cards.join(',') } },
          h('span.rname', this.name(p.seat)),
          p.cards.length ? cardRow(p.cards, 'tiny') : h('span.pass', t('table.pass')))))));
  }

  renderTop() {
    const g = this.g;
    const inGame = g.phase !== 'waiting';
    // the rule set, in a few letters on a phone (its explanation on hover),
    // where it is not the usual bidding game: a casual player need not
    // read "CAAI 1.0" (issue 38); the details under the counter name it
    const chips = this.rules === DEFAULT_RULES ? [] : [h('span.chip.rules', { title: rulesDesc(this.rules), dataset: { test: 'rules-chip' } },
      h('span.long', rulesName(this.rules)), h('span.short', rulesShort(this.rules)))];
    // a rated room says so, unless its name does (rated quick play's "Rated")
    if (this.room && this.room.options && this.room.options.rated && this.room.name !== 'Rated') {
      chips.push(h('span.chip.rated', { dataset: { test: 'rated-chip' } }, t('room.rated')));
    }
    if (inGame && g.phase !== 'turn_over') chips.push(h('span.chip', t('table.game', { game: g.game, games: g.games })));
    // the bid, once someone made one: where nobody bids (the rule set
    // names the landlord) its base of 1 is no bid
    if (g.bid && g.bids.some((b) => b !== null && b !== undefined)) chips.push(h('span.chip.gold', t('table.base', { bid: g.bid })));
    // the multiplier so far is the server's (null where the rule set has
    // none); the bombs and the rocket in its title are the plays it named
    const m = g.landlord !== null && g.landlord !== undefined && g.phase !== 'turn_over' ? g.multiplier : null;
    if (m) {
      const bombs = g.history.filter((p) => p.combo === 'bomb').length;
      const rocket = g.history.some((p) => p.combo === 'rocket');
      chips.push(h('span.chip.mult' + (m > 1 ? '.gold' : ''), { dataset: { test: 'mult', m: String(m) },
        title: t('table.bombs', { n: bombs }) + (rocket ? ' · ' + t('combo.rocket') : '') },
        h('span.long', `${t('over.mult')} `), `×${m}`));
    }
    if (this.seat === null) chips.push(h('span.chip.watch', t('table.watching')));
    replace(this.el.top,
      h('button.ghost.back', { onclick: () => (this.seat === null ? leave() : go('#/')), title: t('table.lobby'), 'aria-label': t('table.lobby'), dataset: { test: 'lobby' } },
        icon('back'), h('span.label', t('table.lobby'))),
      h('div.title', h('b', { dataset: { test: 'room-title' } }, roomLabel(this.room.name) || this.roomId), h('span.chips', chips)),
      h('div.tools',
        this.lastOver && !this.showOver ? h('button.ghost', { dataset: { test: 'lastgame' }, title: t('table.lastgame'), 'aria-label': t('table.lastgame'),
          onclick: () => { this.showOver = true; this.renderOver(); } }, icon('trophy'), h('span.label', t('table.lastgame'))) : null,
        h('button.ghost', { title: t('table.mute'), 'aria-label': t('table.mute'), 'aria-pressed': isMuted() ? 'true' : 'false', dataset: { test: 'mute' },
          onclick: () => { setMuted(!isMuted()); this.renderTop(); } }, icon(isMuted() ? 'mute' : 'sound')),
        this.seat === null ? h('button.ghost', { onclick: () => { this.specBottom = (this.specBottom + 1) % 3; this.render(); }, title: t('table.rotate'), 'aria-label': t('table.rotate') }, icon('rotate')) : null,
        // a competition's table (held) seats only its participants: nobody to invite
        this.held ? null : h('button.ghost', { onclick: () => this.invite(), title: t('table.invite'), 'aria-label': t('table.invite'), dataset: { test: 'invite' } }, icon('link'), h('span.label', t('table.invite'))),
        langButton(),
        this.seat !== null ? h('button.ghost.danger', { onclick: () => this.leaveTable(), title: t('table.leave'), 'aria-label': t('table.leave'), dataset: { test: 'leave' } }, icon('exit'), h('span.label', t('table.leave'))) : null));
  }

  seatBadges(s) {
    const p = this.players[s];
    const g = this.g;
    const out = [];
    if (g.landlord !== null && g.landlord !== undefined) {
      out.push(g.landlord === s ? h('span.badge.landlord', t('role.landlord')) : h('span.badge.farmer', t('role.farmer')));
    }
    if (p && p.kind !== 'human') out.push(h('span.badge.kind', t('kind.' + p.kind)));
    if (g.faulted.has(s)) out.push(h('span.badge.warn.standin', { dataset: { test: 'standin' } }, t('table.standin')));
    out.push(...absenceBadges(this, s));
    if (p && p.custody) out.push(h('span.badge.warn', t('table.custody')));
    else if (p && !p.connected) out.push(h('span.badge.warn', t('table.offline')));
    return out;
  }

  renderSeats() {
    if (!this.root) return;
    for (let s = 0; s < 3; s++) this.renderSeat(s);
  }

  renderSeat(s) {
    const g = this.g;
    const pos = this.pos(s);
    const el = this.el.seats[pos];
    const p = this.players[s];
    const turn = g.turn && g.turn.seat === s;
    el.className = `seat pos-${pos}` + (turn ? ' turn' : '') + (g.landlord === s ? ' is-landlord' : '') + (p ? '' : ' empty');
    el.dataset.seat = String(s);
    const initial = p ? [...this.name(s)][0].toUpperCase() : '?';
    const count = g.counts[s];
    const total = this.totals[s] || 0;
    const info = h('div.info',
      h('div.avatar' + (g.landlord === s ? '.landlord' : '') + (p && p.kind !== 'human' ? '.robot' : ''), initial,
        g.landlord === s ? h('span.crown', { 'aria-hidden': 'true' }, '\u265B\uFE0E') : null),
      h('div.who',
        h('div.name', this.name(s), s === this.seat ? h('span.you', ' (' + t('table.you') + ')') : null),
        h('div.badges',
          // a player's seats as players say them (上家, 下家, 我); a
          // spectator's by the compass, with their order from the bottom seat
          this.seat === null ? h('span.dir', t('seat.' + s)) : null,
          this.seat !== null || pos !== 'me' ? h('span.dir.rel', { dataset: { test: 'rel' },
            title: pos === 'me' ? null : t(pos === 'right' ? 'seat.next.long' : 'seat.prev.long') }, this.seat !== null ? this.seatWord(s)
            : t(pos === 'right' ? 'seat.next' : 'seat.prev')) : null,
          this.seatBadges(s)),
        h('div.total' + (total > 0 ? '.plus' : total < 0 ? '.minus' : ''), h('small', t('table.score')), scoreText(total, true))),
      count !== null && count !== undefined && pos !== 'me'
        ? h('div.count' + (count <= 2 && count > 0 ? '.alarm' : ''), { title: t('table.cards', { n: count }), role: 'img',
          'aria-label': t('a11y.count', { name: this.who(s), n: count }), dataset: { test: 'count' } },
          h('span.mini-back'), h('b', String(count)))
        : null,
      turn ? h('div.clock', { dataset: { clock: '1' }, role: 'timer' }, '') : null);

    // What the seat says: its bid while bidding, else its last play.
    let said = null;
    if (g.history.length === 0 && g.bids[s] !== null && g.bids[s] !== undefined && g.phase !== 'waiting') {
      said = h('div.said.bidsay' + (g.bidByReferee[s] ? '.referee' : ''),
        g.bidByReferee[s] ? t('table.standin.bid', { bid: bidText(g.bids[s]) }) : bidText(g.bids[s]));
    }
    const last = g.last[s];
    if (!said && last) {
      const stale = turn ? '.stale' : ''; // the seat is about to act again
      const ref = last.referee ? '.referee' : '';
      said = last.cards.length
        ? h('div.said.play' + stale + ref, { dataset: { zone: 'play', seat: String(s) } },
          cardRow(last.cards, 'played'), h('span.combo', t('combo.' + last.combo)),
          last.referee ? h('span.by-referee', t('table.standin.tag')) : null)
        : h('div.said.pass' + stale + ref,
          last.referee ? t('table.standin.pass') : last.auto ? t('table.autopassed') : t('table.pass'));
    }

    // The seat's hand: backs, or every card once the game is over.
    let hand = null;
    if (pos !== 'me') {
      if (g.reveal && g.reveal[s]) {
        hand = h('div.oppo-hand.revealed', { dataset: { zone: 'hand', seat: String(s) } },
          h('div.cards', { vars: { '--n': String(g.reveal[s].length) } }, sortHand(g.reveal[s]).map((c) => cardEl(c))));
      } else if (count) {
        hand = h('div.oppo-hand', { dataset: { zone: 'hand', seat: String(s) } },
          h('div.backs', Array.from({ length: Math.min(count, 20) }, () => backEl())));
      }
    } else if (this.seat === null) {
      // a spectator's bottom seat: backs, or its cards at the end
      if (g.reveal && g.reveal[s]) {
        hand = h('div.oppo-hand.revealed.bottom', { dataset: { zone: 'hand', seat: String(s) } },
          h('div.cards', { vars: { '--n': String(g.reveal[s].length) } }, sortHand(g.reveal[s]).map((c) => cardEl(c))));
      } else if (count) {
        hand = h('div.oppo-hand.bottom', { dataset: { zone: 'hand', seat: String(s) } },
          h('div.backs', Array.from({ length: Math.min(count, 20) }, () => backEl())),
          h('b.bcount', { role: 'img', 'aria-label': t('a11y.count', { name: this.who(s), n: count }) }, String(count)));
      }
    }
    // only a new action drops onto the table; a re-render does not replay it
    const acts = g.history.filter((x) => x.seat === s).length;
    const sayKey = said ? `${g.game}|${acts}|${g.bids[s]}|${last ? last.cards.join(',') : '-'}|${said.classList.contains('bidsay')}` : '';
    this.sayKeys = this.sayKeys || {};
    if (said && this.sayKeys[s] !== sayKey) said.classList.add('enter');
    this.sayKeys[s] = sayKey;
    replace(el, info, hand, h('div.saywrap', said));
  }

  renderCenter() {
    if (!this.root) return;
    const g = this.g;
    const parts = [];
    if (g.phase === 'waiting') {
      const n = this.players.filter((p) => p && !p.standin).length; // a stand-in's seat is open to a person
      parts.push(h('div.status.big', t('table.waiting', { n })));
      if (this.seat !== null) parts.push(h('p.status', t('table.waiting.share')),
        h('button.primary', { onclick: () => this.invite() }, t('table.invite')));
    } else {
      const left = g.leftover
        ? h('div.cards.leftover', { dataset: { zone: 'leftover' } }, sortPlay(g.leftover).map((c) => cardEl(c)))
        : h('div.cards.leftover', { dataset: { zone: 'leftover' } }, [backEl(), backEl(), backEl()]);
      parts.push(h('div.bottom-cards', h('span.label', t('table.leftover')), left));
      if (this.held) parts.push(h('div.status.held', { dataset: { test: 'held' } }, t('table.held')));
      if ((g.phase === 'bid' || g.phase === 'play') && !this.held) {
        parts.push(this.counterEl(), h('button.ghost.small.history-btn', { 'aria-expanded': this.showHistory ? 'true' : 'false', dataset: { test: 'history-btn' },
          onclick: () => { this.showHistory = !this.showHistory; this.renderCenter(); this.renderHistory(); } }, icon('list'), t('table.history')));
      }
      const tu = g.turn;
      if (tu && tu.seat !== this.seat) {
        parts.push(h('div.status', t(tu.action === 'bid' ? 'table.turn.bid' : 'table.turn.play', { name: this.name(tu.seat) })));
      } else if (g.phase === 'between' && !g.turn) {
        parts.push(h('div.status', t('table.between')));
      }
      parts.push(this.detailsEl());
    }
    replace(this.el.center, parts);
  }

  /* The table's details, folded (issue 38): the rule set with its
   * explanation and the deal's commitment, which a casual player need not
   * read but anyone may check. One element per table, so that it stays
   * open across re-renders; its contents follow the deal and the language. */
  detailsEl() {
    const g = this.g;
    if (!this.detailsBox) {
      this.detailsBody = h('div.details-body');
      this.detailsBox = h('details.table-details', { dataset: { test: 'table-details' } },
        this.detailsSummary = h('summary'), this.detailsBody);
    }
    const key = [lang(), this.rules, g.dealCommit].join('|');
    if (this.detailsKey !== key) {
      this.detailsKey = key;
      replace(this.detailsSummary, '\u24D8 ', t('table.details'));
      replace(this.detailsBody,
        h('p', h('b', t('table.details.rules') + ': '), h('span', { dataset: { test: 'details-rules' } }, rulesName(this.rules))),
        rulesDesc(this.rules) ? h('p.desc', rulesDesc(this.rules)) : null,
        g.dealCommit ? h('p', t('table.details.fair')) : null,
        g.dealCommit ? h('p.commit', { dataset: { test: 'commit' } }, t('table.commit') + ' ', h('code', g.dealCommit)) : null);
    }
    return this.detailsBox;
  }

  /* The card counter (记牌器): how many of each rank are still out, from
   * public information only (the deck less our hand and what was played),
   * strongest first as in the hand. */
  counterEl() {
    const left = remaining(this.seat !== null ? this.g.hand : null, this.g.history);
    const names = ['3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A', '2', t('counter.sj'), t('counter.bj')];
    return h('div.counter', { dataset: { test: 'counter' }, role: 'group', 'aria-label': t('counter.title') },
      h('span.label', t('counter.title')),
      h('div.cells', [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((r) => h('span.cnt' + (left[r] ? '' : '.none'),
        { dataset: { rank: String(r), left: String(left[r]) }, title: `${names[r]}: ${left[r]}` },
        h('b', names[r]), h('i', String(left[r]))))));
  }

  renderControls() {
    if (!this.root) return;
    const g = this.g;
    const c = this.el.controls;
    if (this.seat === null) { replace(c, ...absenceBar(this)); return; }
    const tu = g.turn;
    const row = [];
    if (onAutoPlay(this)) {
      row.push(autoPlayBar(this));
    } else if (this.myTurn('bid')) {
      row.push(h('span.prompt', t('table.your.bid')), h('span.clock.mine', { dataset: { clock: '1' }, role: 'timer' }));
      for (let n = 0; n <= 3; n++) {
        row.push(h('button.bid' + (n === 0 ? '' : '.primary'), {
          disabled: this.pending || !tu.legal.includes(n), dataset: { test: 'bid' + n },
          onclick: () => this.bid(n),
        }, n === 0 ? t('act.bid0') : t('act.bidn', { n })));
      }
    } else if (this.myTurn('play')) {
      const lead = !this.canPass();
      row.push(h('span.prompt', lead ? t('table.your.lead') : t('table.your.follow')), h('span.clock.mine', { dataset: { clock: '1' }, role: 'timer' }));
      row.push(
        h('button.pass', { disabled: this.pending || lead, dataset: { test: 'pass' }, onclick: () => this.pass() }, t('act.pass')),
        h('button.hint', { disabled: this.pending || !this.legalPlays().length, dataset: { test: 'hint' }, onclick: () => this.hintNext() }, t('act.hint')),
        h('button.play.primary', { disabled: this.pending || !this.selectionLegal(), dataset: { test: 'play' }, onclick: () => this.play() }, t('act.play')));
    } else if (g.phase === 'turn_over') {
      row.push(h('button.primary', { disabled: this.rematchAsked, dataset: { test: 'rematch2' }, onclick: () => this.rematch() }, t('turnover.rematch')));
    } else if (g.faulted.has(this.seat) && (g.phase === 'bid' || g.phase === 'play')) {
      const kind = g.faulted.get(this.seat);
      row.push(h('span.prompt.standin-note', { dataset: { test: 'standin-note' } },
        kind ? t('table.fault.you', { kind: t('fault.' + kind) }) : t('table.fault.you.nokind')));
    }
    c.dataset.seq = this.myTurn() ? String(tu.seq) : '';
    c.dataset.pending = this.pending ? '1' : '';
    const ap = h('input', { type: 'checkbox', checked: this.autopass, dataset: { test: 'autopass' } });
    ap.addEventListener('change', () => this.setAutopass(ap.checked));
    // The controls are rebuilt; a focused button keeps the focus in its
    // new self (kept across a rebuild where it is disabled, while a
    // request is out), or a keyboard player is dropped on the page, where
    // Space plays the selection.
    const active = document.activeElement;
    const keep = c.contains(active) && active.dataset.test ? active.dataset.test
      : !active || active === document.body ? this.ctlFocus : null;
    replace(c,
      h('span.keys', t('keys.help')),
      h('div.actions', row),
      h('div.side',
        this.sel.size ? h('button.ghost.small', { onclick: () => this.clearSel() }, t('act.clear')) : null,
        autoPlayButton(this), phraseMenu(this),
        h('label.toggle', { title: t('act.autopass') }, ap, h('span', t('act.autopass')))));
    this.ctlFocus = null;
    const again = keep && c.querySelector(`[data-test="${keep}"]`);
    if (again && !again.disabled) again.focus();
    else if (again) this.ctlFocus = keep;
    this.tick();
  }

  renderHand() {
    if (!this.root) return;
    const g = this.g;
    const hand = this.seat !== null && g.hand ? g.hand : [];
    const key = hand.join(',') + '|' + [...g.freshCards].join(',');
    if (key !== this.handKey) {
      this.handKey = key;
      const n = hand.length;
      this.el.hand.dataset.seat = String(this.seat ?? '');
      this.el.hand.classList.toggle('few', n <= 10);
      // rows for touch on a phone (the CSS uses them under 640 px only)
      const grid = handRows(n);
      this.el.hand.style.setProperty('--rows', String(grid.rows));
      replace(this.el.hand, hand.map((c, i) => h('div.slot', { vars: { '--i': String(i - (n - 1) / 2), '--n': String(n),
        '--r': String(grid.cells[i].r), '--c': String(grid.cells[i].c), '--k': String(grid.cells[i].k) } },
        cardEl(c, { class: g.freshCards.has(c) ? 'fresh' : '', role: 'button', tabindex: '-1', 'aria-pressed': 'false' }))));
    }
    this.el.handwrap.hidden = this.seat === null;
    this.renderHandSelection();
  }

  renderHandSelection() {
    if (!this.root) return;
    const cards = [...this.el.hand.querySelectorAll('.card')];
    // one tab stop for the hand (the card last focused), arrows move in it
    this.focusIdx = Math.max(0, Math.min(this.focusIdx || 0, cards.length - 1));
    cards.forEach((el, i) => {
      const on = this.sel.has(+el.dataset.code);
      el.classList.toggle('selected', on);
      el.setAttribute('aria-pressed', on ? 'true' : 'false');
      el.tabIndex = i === this.focusIdx ? 0 : -1;
    });
    const play = this.el.controls.querySelector('button.play');
    if (play) play.disabled = this.pending || !this.selectionLegal();
    const clear = this.el.controls.querySelector('.side .small');
    if (!!clear !== this.sel.size > 0) this.renderControls();
  }

  /* ---- the round's game-by-game scores (issue 25) ----
   * Kept per room in the tab's sessionStorage, with the last game, so that
   * a reload keeps 上一局 and the list (docs/decisions.md). */

  scoresKey() { return `ddz.scores.${this.roomId}`; }

  restoreScores(m) {
    if (this.scores && this.scoresFor === this.roomId) return;
    this.scoresFor = this.roomId;
    this.scores = [];
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.scoresKey()) || 'null');
      // only the round the room is in: a game number past the room's is a past round
      if (saved && Array.isArray(saved.scores) && saved.scores.every((x) => x.game <= m.game)) {
        this.scores = saved.scores;
        if (!this.lastOver && saved.last && (m.phase === 'bid' || m.phase === 'play')) this.lastOver = saved.last;
      }
    } catch { /* storage off */ }
    if (m.result && !this.lastOver) this.lastOver = m.result;
  }

  noteScore(o) {
    this.scores = (this.scores || []).filter((x) => x.game < o.game);
    this.scores.push({ game: o.game, landlord: o.landlord, winner: o.winner, multiplier: o.breakdown ? o.breakdown.multiplier : null,
      bid: o.breakdown ? o.breakdown.bid : null, scores: o.scores });
    this.saveScores(o);
  }

  saveScores(last) {
    try {
      sessionStorage.setItem(this.scoresKey(), JSON.stringify({ scores: this.scores || [], last: last || this.lastOver || null }));
    } catch { /* storage off */ }
  }

  /* The round so far, a row per game: result, landlord, multiplier, each seat's score. */
  scoresTable() {
    const list = this.scores || [];
    if (!list.length) return null;
    const who = (x) => (x.landlord === null || x.landlord === undefined ? t('over.allpass')
      : x.winner === x.landlord ? t('over.landlord.win') : t('over.farmers.win'));
    return h('details.round-scores', { dataset: { test: 'round-scores' } },
      h('summary', t('table.round.scores')),
      h('table.scores', h('thead', h('tr', h('th', '#'), h('th', t('table.round.result')), h('th', t('table.round.landlord')), h('th.num', t('over.mult')),
        [0, 1, 2].map((s) => h('th.num', this.name(s))))),
      h('tbody', list.map((x) => h('tr', { dataset: { game: String(x.game) } }, h('td', String(x.game)), h('td.word', who(x)),
        h('td.word', x.landlord === null || x.landlord === undefined ? '—' : this.name(x.landlord)),
        h('td.num', x.multiplier ? `×${x.multiplier}` : '—'),
        // the landlord's score marked, for a phone, where the landlord column is hidden
        [0, 1, 2].map((s) => h('td.num' + (s === x.landlord ? '.ll' : ''), scoreText(x.scores[s], true))))))));
  }

  /* ---- the game-over and turn-over panel ---- */

  renderOver() {
    if (!this.root) return;
    const o = this.el.over;
    const g = this.g;
    const over = g.over || this.lastOver;
    if (!this.showOver || (!over && !g.turnOver)) {
      // closed any way (Escape, 上一局's panel) while the room waits for us:
      // back at the table is ready, not left to the clock's 托管 (issue 25)
      if (!this.showOver && this.mustReady()) {
        app.conn.send({ type: 'ready' });
        this.ready.seats[this.seat] = true;
      }
      const was = !o.hidden;
      o.hidden = true;
      replace(o);
      this.overKey = null;
      this.modal(false, was);
      this.renderTop();
      return;
    }
    // Rebuilt only when what it says changes: a rebuild would replay its
    // animation, scroll it back up and fold the details a reader opened.
    const key = JSON.stringify([over && over.seed, !!g.turnOver, g.phase === 'turn_over', this.rematchAsked, this.seat, lang(),
      this.mustReady(), onAutoPlay(this), this.stoodUp]);
    if (key === this.overKey && !o.hidden) return;
    this.overKey = key;
    const opening = o.hidden;
    o.hidden = false;
    const panel = h('div.panel.gameover', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'over-title', tabindex: '-1', dataset: { test: 'gameover' } });
    if (over) panel.append(...this.overContent(over));
    const rated = this.ratedLine(over);
    if (rated) panel.append(rated);
    if (g.turnOver) panel.append(this.turnOverContent(g.turnOver));
    const rs = this.scoresTable();
    if (rs) panel.append(rs);
    const buttons = h('div.buttons');
    if (this.stoodUp) buttons.append(sitAgainButton(this));
    if (over && over.game_id) {
      buttons.append(h('a.button', { href: `#/replay/${gameLink(over)}` + (this.seat !== null ? `?from=${this.seat}` : ''), target: '_blank', rel: 'noopener', dataset: { test: 'replay-link' } }, '\u25B6 ' + t('over.replay')));
    }
    if (g.phase === 'turn_over') {
      if (this.seat !== null) {
        buttons.append(h('button.primary', { disabled: this.rematchAsked, dataset: { test: 'rematch' }, onclick: () => this.rematch() },
          this.rematchAsked ? t('turnover.waiting') : t('turnover.rematch')));
      }
      buttons.append(h('button', { dataset: { test: 'over-lobby' }, onclick: () => leave() }, t('turnover.lobby')));
    } else if (this.mustReady()) {
      // 继续: this seat is ready for the next game, which waits for it (issue 25)
      buttons.append(h('button.primary', { dataset: { test: 'continue' }, onclick: () => {
        app.conn.send({ type: 'ready' });
        this.ready.seats[this.seat] = true;
        this.showOver = false;
        this.renderOver();
      } }, t('over.continue')));
    } else {
      buttons.append(h('button' + (this.stoodUp ? '' : '.primary'), { dataset: { test: 'close-over' }, onclick: () => { this.showOver = false; this.renderOver(); } },
        g.phase === 'between' && !this.stoodUp ? t('over.next') : t('over.close')));
    }
    // 取消托管 stays at hand above the panel, which makes the table inert
    if (onAutoPlay(this)) {
      buttons.append(h('button', { dataset: { test: 'back-over' },
        onclick: () => app.conn.send({ type: 'custody', on: false }) }, ct('custody.back')));
    }
    panel.append(buttons);
    if (g.phase !== 'turn_over') panel.append(h('p.next-note', { dataset: { test: 'next-note' }, 'aria-live': 'polite' }));
    // a rebuild (the ready state arriving, say) keeps the focus in the panel
    const had = !opening && o.contains(document.activeElement) ? (document.activeElement.dataset.test || '') : null;
    replace(o, panel);
    this.renderTop();
    this.renderOverNote();
    this.modal(true, opening);
    if (had !== null) ((had && panel.querySelector(`[data-test="${had}"]`)) || panel).focus({ preventScroll: true });
  }

  /* The panel is modal: what is behind it is inert while it shows; it
   * takes the focus when it opens and gives it back when it closes. */
  modal(on, changed) {
    const e = this.el;
    setInert([e.top, e.felt, e.controls, e.handwrap], on);
    if (!changed) return;
    if (on) {
      this.overReturn = document.activeElement;
      // focused without scrolling: a panel taller than the window was
      // scrolled to its top edge, over the overlay's margin (issue 38)
      e.over.querySelector('.gameover').focus({ preventScroll: true });
      e.over.scrollTop = 0;
    } else {
      const back = this.overReturn;
      this.overReturn = null;
      if (back && back.isConnected && back !== document.body) back.focus();
    }
  }

  /* The line under the game-over panel's buttons: when the next deal comes
   * (the room's pause), then that it came behind the panel and how long
   * this seat's turn has left. The panel never closes by itself. */
  renderOverNote() {
    const el = this.root && !this.el.over.hidden && this.el.over.querySelector('[data-test=next-note]');
    if (!el) return;
    const g = this.g;
    const shown = g.over || this.lastOver;
    let text = '';
    let urgent = false;
    const next = this.el.over.querySelector('[data-test=close-over]');
    if (this.stoodUp) {
      text = ''; // no next game is coming for us: the panel's first button is the way back
    } else if (this.mustReady()) {
      const s = this.readyLeft();
      text = t('over.ready.in', { s });
      urgent = s <= 5;
    } else if (g.phase === 'between' && g.over) {
      const pause = Number(this.room.options && this.room.options.pause);
      const s = Number.isFinite(pause) ? Math.max(0, Math.ceil(pause - (now() - (this.lastOverAt || now())) / 1000)) : null;
      text = s ? t('over.next.in', { s }) : t('table.between');
    } else if (shown && g.game !== shown.game && (g.phase === 'bid' || g.phase === 'play')) {
      const tu = g.turn;
      const left = tu ? Math.max(0, Math.ceil((tu.deadline - now()) / 1000)) : 0;
      urgent = this.myTurn();
      text = urgent ? t('over.started.you', { game: g.game, s: left }) : t('over.started', { game: g.game });
      if (next) next.textContent = t('over.close');
    }
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('urgent', urgent);
  }

  overContent(over) {
    const me = this.seat;
    const out = [];
    const hasLandlord = over.landlord !== null && over.landlord !== undefined;
    const hasWinner = over.winner !== null && over.winner !== undefined;
    let headline;
    let cls = '';
    if (!hasLandlord) {
      // a fault in the bidding also leaves no landlord: say which it was
      headline = over.fault ? ct('over.fault.head') : t('over.allpass');
    } else if (!hasWinner) {
      headline = t('over.title', { game: over.game });
    } else {
      const llWin = over.winner === over.landlord;
      headline = llWin ? t('over.landlord.win') : t('over.farmers.win');
      if (me !== null) {
        // the side of the seat that emptied its hand won (where plays
        // score, the losing side scores too: a positive score is no win)
        const won = (me === over.landlord) === llWin;
        cls = won ? 'win' : 'lose';
        headline = (won ? t('over.you.win') : t('over.you.lose')) + ' — ' + headline;
      }
    }
    out.push(h('div.over-head.' + (cls || 'neutral'), h('small', t('over.title', { game: over.game })), h('h2', { id: 'over-title' }, headline)));
    // how the score came about, in the terms the server's rules sent
    const terms = (over.breakdown && over.breakdown.terms) || [];
    const ctx = { landlord: over.landlord, scores: over.scores, name: (s) => this.name(s) };
    out.push(...faultLines(terms, ctx));
    out.push(...autoPlayLines(this, over));
    // scores
    out.push(h('table.scores', h('thead', h('tr', h('th', ''), h('th', t('over.score')), h('th', t('over.total')))),
      h('tbody', [0, 1, 2].map((s) => h('tr' + (s === me ? '.me' : ''), { dataset: { seat: String(s) } },
        h('td', this.name(s), over.landlord === s ? h('span.badge.landlord', t('role.landlord')) : null),
        h('td.num' + (over.scores[s] > 0 ? '.plus' : over.scores[s] < 0 ? '.minus' : ''), { dataset: { test: 'score' } }, scoreText(over.scores[s], true)),
        h('td.num', scoreText(over.totals ? over.totals[s] : this.totals[s])))))));
    const why = explainEl(terms, ctx);
    if (why) out.push(why);
    // every hand
    if (over.hands) {
      out.push(h('div.reveal', h('h3', t('over.hands')), [0, 1, 2].map((s) => h('div.rhand',
        h('span.rname', this.name(s)),
        over.hands[s].length ? handRow(over.hands[s], 'tiny') : h('span.empty-hand', '—')))));
    }
    // fairness
    if (over.seed) {
      const shown = this.g.dealCommit && this.g.game === over.game ? this.g.dealCommit : over.commit;
      const ok = commitMatches(over.seed, over.commit);
      const same = !shown || shown === over.commit;
      const host = location.origin;
      out.push(h('details.verify', { dataset: { test: 'verify' } },
        h('summary', h('span.okmark' + (ok && same ? '' : '.bad'), ok && same ? '\u2713' : '\u2717'), ' ', t('over.verify')),
        h('dl',
          h('dt', t('over.commit')), h('dd', h('code', shown || over.commit)),
          h('dt', t('over.seed')), h('dd', h('code', { dataset: { test: 'seed' } }, over.seed))),
        h('p.' + (ok && same ? 'ok' : 'bad'), !same ? t('over.hash.changed') : ok ? t('over.hash.ok') : t('over.hash.bad')),
        over.dealt ? h('div.dealt', h('h4', t('over.dealt')), [0, 1, 2].map((s) => h('div.rhand',
          h('span.rname', t('seat.' + s)), handRow(over.dealt[s], 'tiny'))),
        h('div.rhand', h('span.rname', t('table.leftover')), cardRow(over.leftover || [], 'tiny'))) : null,
        h('p', t('over.verify.how')),
        h('pre', `ddz rules deal --seed ${over.seed}\n` +
          (over.game_id ? `curl -s ${host}/api/games/${gameLink(over)} > game.json\nddz verify game.json` : ''))));
    }
    return out;
  }

  turnOverContent(to) {
    const order = [0, 1, 2].sort((a, b) => to.totals[b] - to.totals[a]);
    return h('div.turnover', h('h2', t(to.games === 1 ? 'turnover.title.one' : 'turnover.title', { games: to.games })),
      h('ol.standings', order.map((s) => h('li' + (s === this.seat ? '.me' : ''),
        h('span', this.name(s)), h('b.num' + (to.totals[s] > 0 ? '.plus' : to.totals[s] < 0 ? '.minus' : ''),
          scoreText(to.totals[s], true))))));
  }

  /* Shows `text` big over the table for a moment; `kind` (a key of FX, or
   * 'spring') gives it that effect's look. */
  flash(text, kind) {
    if (!this.root) return;
    const f = this.el.flash;
    f.textContent = text;
    f.hidden = false;
    f.className = 'flash' + (kind ? ' fx-' + kind : '');
    f.dataset.fx = kind || 'boom';
    void f.offsetWidth; // restart the animation
    f.classList.add('go');
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { f.hidden = true; }, 1300);
  }

  /* ---- the clock ---- */

  /* Whether the room waits for this seat's 继续 between games. */
  mustReady() {
    return !!(this.ready && this.seat !== null && this.g.phase === 'between' && !this.ready.seats[this.seat]);
  }

  /* Whole seconds left on the ready clock. */
  readyLeft() {
    return this.ready ? Math.max(0, Math.ceil((this.ready.deadline - now()) / 1000)) : 0;
  }

  tick() {
    if (!this.root) return;
    const tu = this.g.turn;
    const left = tu ? Math.max(0, Math.ceil((tu.deadline - now()) / 1000)) : 0;
    const said = t('a11y.clock', { s: left });
    for (const el of this.root.querySelectorAll('[data-clock]')) {
      el.textContent = String(left);
      el.classList.toggle('warn', left <= 10 && left > 5); // an earlier warning (issue 25)
      el.classList.toggle('low', left <= 5);
      // the number alone means nothing to a screen reader (a timer is not
      // read out as it changes: the warning below is)
      if (el.getAttribute('aria-label') !== said) el.setAttribute('aria-label', said);
    }
    this.warnClock(tu, left);
    // a tick each second of the last five, on this seat's own clocks only
    const mine = this.myTurn() && !this.pending ? left : this.mustReady() ? this.readyLeft() : null;
    if (mine !== null && mine > 0 && mine <= 5 && mine !== this.lastTick) cue('tick');
    this.lastTick = mine;
    this.renderOverNote();
    // no marker once our action is on its way: the turn is as good as taken
    turnTitle(this.myTurn() && !this.pending, t('title.turn'), `${t('app.title')} · ddz`);
  }

  /* Once a turn, when our own clock is nearly out, a screen reader is told
   * what happens then (auto-play, or a fault where the room says so): at
   * 10 s left, or half the turn where turns are shorter than 20 s. */
  warnClock(tu, left) {
    if (!tu || !this.myTurn() || this.pending || onAutoPlay(this)) return;
    const key = `${this.g.game}|${tu.seq}`;
    const at = Math.min(10, Math.floor(tu.deadline_ms / 2000));
    if (left > at || left <= 0 || this.clockWarned === key) return;
    this.clockWarned = key;
    const fault = (this.room.options || {}).custody === 'fault';
    this.announce(t(fault ? 'a11y.clock.warn.fault' : 'a11y.clock.warn', { s: left }));
  }

  /* ---- selecting cards: click, or drag across ---- */

  cardAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const card = el && el.closest('.hand .card');
    return card && this.el.hand.contains(card) ? card : null;
  }

  onPointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const card = e.target.closest('.card');
    if (!card || !this.el.hand.contains(card)) return;
    e.preventDefault();
    const cards = [...this.el.hand.querySelectorAll('.card')];
    const idx = cards.indexOf(card);
    const code = +card.dataset.code;
    const mode = !this.sel.has(code);
    this.drag = { mode, last: idx, cards };
    this.setSel(code, mode);
    this.hint = -1;
    this.renderHandSelection();
  }

  onPointerMove(e) {
    if (!this.drag || !this.root) return;
    const card = this.cardAt(e.clientX, e.clientY);
    if (!card) return;
    const idx = this.drag.cards.indexOf(card);
    if (idx < 0 || idx === this.drag.last) return;
    const [a, b] = idx > this.drag.last ? [this.drag.last + 1, idx] : [idx, this.drag.last - 1];
    for (let i = a; i <= b; i++) this.setSel(+this.drag.cards[i].dataset.code, this.drag.mode);
    this.drag.last = idx;
    this.renderHandSelection();
  }

  setSel(code, on) {
    if (on) this.sel.add(code);
    else this.sel.delete(code);
  }

  /* ---- keyboard ---- */

  /* Keys on a focused hand card: Space or Enter selects or unselects it,
   * the arrows move along the hand (Home, End to its ends). Returns true
   * when the key was the card's. */
  onCardKey(e) {
    const card = e.target && e.target.closest && e.target.closest('.hand .card');
    if (!card || !this.el.hand.contains(card)) return false;
    const cards = [...this.el.hand.querySelectorAll('.card')];
    const i = cards.indexOf(card);
    const k = e.key;
    let to = null;
    if (k === ' ' || k === 'Enter') {
      e.preventDefault();
      const code = +card.dataset.code;
      this.setSel(code, !this.sel.has(code));
      this.hint = -1;
      this.focusIdx = i;
      this.renderHandSelection();
      return true;
    }
    if (k === 'ArrowRight' || k === 'ArrowDown') to = Math.min(cards.length - 1, i + 1);
    else if (k === 'ArrowLeft' || k === 'ArrowUp') to = Math.max(0, i - 1);
    else if (k === 'Home') to = 0;
    else if (k === 'End') to = cards.length - 1;
    if (to === null) return false;
    e.preventDefault();
    this.focusIdx = to;
    this.renderHandSelection();
    cards[to].focus();
    return true;
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const panelOpen = this.showOver && !this.el.over.hidden;
    if (panelOpen && trapTab(this.el.over.querySelector('.gameover'), e)) return;
    const tag = (e.target && e.target.tagName) || '';
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) || document.querySelector('dialog[open]')) return;
    const k = e.key;
    if (k === 'Escape') {
      if (this.showOver) { this.showOver = false; this.renderOver(); } else this.clearSel();
      return;
    }
    if (this.seat === null || panelOpen) return; // the game's keys wait behind the panel
    if (this.onCardKey(e)) return;
    // The game's shortcuts only from the hand or the page itself: a focused
    // button, link or switch keeps its own Enter and Space (Enter on a
    // focused Pass played the selected cards, issue 25).
    if (e.target && e.target.closest && e.target !== document.body &&
        e.target.closest('button, a[href], summary, [role=button], [role=switch], [role=tab], [contenteditable]')) return;
    if ((k === ' ' || k === 'Enter') && this.myTurn('play')) {
      e.preventDefault();
      this.play();
    } else if ((k === 'p' || k === 'P') && this.myTurn('play')) {
      this.pass();
    } else if ((k === 'h' || k === 'H') && this.myTurn('play')) {
      this.hintNext();
    } else if (/^[0-3]$/.test(k) && this.myTurn('bid')) {
      this.bid(+k);
    }
  }
}
