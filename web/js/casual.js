// casual.js - casual play at the table (issue 15): auto-play (托管) and
// "I'm back", the server's hints, quick phrases. Kept apart from table.js,
// which calls in at a few points, with its own strings in both languages.
//
// The server decides everything here: whether the seat is on auto-play
// (`seat.player.custody`), which plays to suggest (`hint`, ranked by the
// server's AI from this seat's own view), what a phrase number says (the
// fixed list of proto/PROTOCOL.md).
import { h } from './dom.js';
import { lang } from './i18n.js';
import { app, toast } from './shell.js';

const STRINGS = {
  en: {
    'custody.on': 'An AI is playing for you',
    'custody.back': "I'm back",
    'custody.ask': 'Auto-play',
    'custody.ask.title': 'Let an AI play for you until you come back',
    'hint.pass': 'Nothing beats it: pass',
    'phrase.title': 'Quick phrases',
    'over.fault.head': 'The game ended on a fault',
    'over.auto.you': 'An AI played for you in this game (auto-play): no fault was charged.',
    'over.auto.seat': '{name}: an AI played for them in this game (auto-play), no fault charged.',
  },
  zh: {
    'custody.on': '电脑正在为你托管',
    'custody.back': '取消托管',
    'custody.ask': '托管',
    'custody.ask.title': '让电脑代打，直到你回来',
    'hint.pass': '没有大过上家的牌：请不出',
    'phrase.title': '快捷语',
    'over.fault.head': '本局因犯规结束',
    'over.auto.you': '本局电脑为你托管代打，不算犯规。',
    'over.auto.seat': '{name}本局由电脑托管代打，不算犯规。',
  },
};

// The fixed list of proto/PROTOCOL.md, by number.
export const PHRASES = {
  en: ['Hello!', 'Good game!', 'Nice play!', 'Hurry up, please.', 'Sorry!', 'Thanks!',
    'Well played, partner!', 'Oops!', 'Come on!', 'Here comes a bomb!', 'One more game?', 'Bye!'],
  zh: ['你好！', '打得好！', '好牌！', '快点吧，等得花儿都谢了。', '不好意思！', '谢谢！',
    '配合得好！', '哎呀！', '加油！', '炸弹来了！', '再来一局？', '再见！'],
};

export function ct(key, vars) {
  const text = (STRINGS[lang()] || STRINGS.en)[key] || STRINGS.en[key] || key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : text;
}

export function phraseText(n) {
  const list = PHRASES[lang()] || PHRASES.en;
  return list[n] ?? '…';
}

const inGame = (tb) => ['bid', 'play', 'between'].includes(tb.g.phase);

/* ---- auto-play ---- */

/* Whether a hosted AI plays this browser's seat. */
export function onAutoPlay(tb) {
  const p = tb.seat !== null ? tb.players[tb.seat] : null;
  return !!(p && p.custody);
}

/* The controls while on auto-play: what is happening and the way back.
 * One element per table, moved rather than rebuilt by the controls'
 * re-renders (the AI plays fast: a rebuilt button would be hard to hit). */
export function autoPlayBar(tb) {
  if (!tb.autoBarEl || tb.autoBarLang !== lang()) {
    tb.autoBarEl = h('div.autoplay-bar', { dataset: { test: 'autoplay-bar' }, role: 'status' },
      h('span.prompt', ct('custody.on')),
      h('button.primary.back-from-auto', { dataset: { test: 'back' },
        onclick: () => app.conn.send({ type: 'custody', on: false }) }, ct('custody.back')));
    tb.autoBarLang = lang();
  }
  return tb.autoBarEl;
}

/* The button that asks for auto-play: seated, in a game, in a casual room. */
export function autoPlayButton(tb) {
  if (tb.seat === null || onAutoPlay(tb) || !inGame(tb) || (tb.room.options || {}).custody === 'fault') return null;
  return h('button.ghost.small.autoplay', { dataset: { test: 'autoplay' }, title: ct('custody.ask.title'),
    onclick: () => app.conn.send({ type: 'custody', on: true }) }, ct('custody.ask'));
}

/* Remembers the seats an AI played during the current game (a `seat`
 * event with custody), for the game-over panel. */
export function noteAutoPlay(tb, m) {
  if (!tb.autoSeen || tb.autoSeen.game !== tb.g.game) tb.autoSeen = { game: tb.g.game, seats: new Set() };
  if (m.player && m.player.custody) tb.autoSeen.seats.add(m.seat);
}

/* The game-over panel's lines about auto-play: who an AI played for in
 * that game (no fault was charged for it). */
export function autoPlayLines(tb, over) {
  const seats = new Set(tb.autoSeen && tb.autoSeen.game === over.game ? tb.autoSeen.seats : []);
  tb.players.forEach((p, s) => { if (p && p.custody) seats.add(s); });
  return [...seats].sort().map((s) => h('p.autoplay-note', { dataset: { test: 'autoplay-note', seat: String(s) } },
    s === tb.seat ? ct('over.auto.you') : ct('over.auto.seat', { name: tb.name(s) })));
}

/* ---- hints ---- */

/* The Hint button: the first press asks the server for this turn's
 * suggestions; each press selects the next one, round and round (the
 * legal plays instead when the server could not be asked). */
export function hintNext(tb) {
  const tu = tb.g.turn;
  if (!tb.myTurn('play') || !tu) return;
  const hs = tb.hints;
  if (hs && hs.seq === tu.seq) {
    if (hs.plays) cycle(tb);
    return; // asked, not yet answered
  }
  tb.hints = { seq: tu.seq, plays: null };
  if (app.conn.send({ type: 'hint' }) === null) {
    tb.hints.plays = [];
    cycle(tb);
  }
}

function cycle(tb) {
  // The server's list alone when it has one: it offers every shape that
  // keeps the bombs and the rocket whole, then those whole (ai/greedy.h);
  // the other legal plays appended after it spent a bomb as a pair, a
  // straight's card and a single. The legal plays only when the server
  // could not be asked.
  const server = tb.hints.plays;
  const plays = server.length ? server : tb.legalPlays();
  if (!plays.length) {
    if (tb.canPass()) toast(ct('hint.pass'), 'info');
    return;
  }
  tb.hint = (tb.hint + 1) % plays.length;
  tb.sel = new Set(plays[tb.hint]);
  tb.renderHandSelection();
  tb.renderControls();
}

/* ---- quick phrases ---- */

/* A speech bubble, drawn like dom.js's icons (no emoji font needed). */
function bubbleIcon() {
  const span = document.createElement('span');
  span.className = 'icon';
  span.setAttribute('aria-hidden', 'true');
  span.innerHTML = '<svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="2.2" ' +
    'stroke-linejoin="round" stroke-linecap="round"><path d="M4 5h16v11H10l-5 4v-4H4z"/><path d="M8 10h8M8 13h5"/></svg>';
  return span;
}

/* The phrase menu, one element per table so that it stays open across the
 * controls' re-renders. Seated players only. */
export function phraseMenu(tb) {
  if (tb.seat === null) return null;
  if (!tb.phraseEl || tb.phraseLang !== lang()) {
    const menu = h('details.phrases', { dataset: { test: 'phrases' } },
      h('summary', { title: ct('phrase.title'), 'aria-label': ct('phrase.title') }, bubbleIcon()),
      h('div.phrase-list', { role: 'menu' }, (PHRASES[lang()] || PHRASES.en).map((text, i) =>
        h('button.ghost.small', { role: 'menuitem', dataset: { test: 'phrase', phrase: String(i) },
          onclick: () => { app.conn.send({ type: 'phrase', phrase: i }); menu.open = false; } }, text))));
    tb.phraseEl = menu;
    tb.phraseLang = lang();
  }
  return tb.phraseEl;
}

/* Shows what seat `seat` said by its place at the table for a few seconds. */
function showPhrase(tb, seat, n) {
  if (!tb.root || !tb.el) return;
  const pos = tb.pos(seat);
  const old = tb.el.felt.querySelector(`.phrase-bubble[data-seat="${seat}"]`);
  if (old) old.remove();
  const b = h('div.phrase-bubble.pos-' + pos, { dataset: { test: 'phrase-bubble', seat: String(seat) }, role: 'status' },
    h('b', tb.name(seat) + ': '), phraseText(n));
  tb.el.felt.append(b);
  setTimeout(() => b.remove(), 4000);
}

/* ---- events ---- */

/* The events of this module; returns true if `m` was one. */
export function casualEvent(tb, m) {
  if (m.type === 'hint') {
    const hs = tb.hints;
    const tu = tb.g.turn;
    if (!hs || hs.seq !== m.seq || !tu || tu.seq !== m.seq) return true; // a turn ago
    hs.plays = m.plays;
    tb.hint = -1;
    cycle(tb);
    return true;
  }
  if (m.type === 'phrase') {
    showPhrase(tb, m.seat, m.phrase);
    return true;
  }
  return false;
}

/* An error about a hint (rate limit): the legal plays instead. */
export function casualError(tb, m) {
  if (m.about === 'hint' && tb.hints && !tb.hints.plays) {
    tb.hints.plays = [];
    cycle(tb);
  }
}
