// unit.test.mjs - the client's modules that need no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blake2b, bytesToHex, hexToBytes, commitMatches } from '../../web/js/blake2b.js';

test('BLAKE2b-512 of "abc" is the RFC 7693 answer', () => {
  assert.equal(bytesToHex(blake2b(new TextEncoder().encode('abc'), 64)),
    'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' +
    '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923');
});

test('the commitment of spec §2 known-answer seed', () => {
  const seed = [...Array(32).keys()].map((x) => x.toString(16).padStart(2, '0')).join('');
  const commit = 'cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6';
  assert.equal(bytesToHex(blake2b(hexToBytes(seed), 32)), commit);
  assert.ok(commitMatches(seed, commit));
  assert.ok(!commitMatches(seed.replace(/^00/, '01'), commit));
  assert.ok(!commitMatches('not hex', commit));
});

test('inputs longer than one block', () => {
  // BLAKE2b-256 of 200 zero bytes (two blocks), as Python's hashlib gives it
  assert.equal(bytesToHex(blake2b(new Uint8Array(200), 32)),
    'c978e85c0d32724ed4550cc0901a10e5412f3dcf29fd20ffe35a419f097dd113');
  // exactly one block, 128 bytes: the last block is not followed by an empty one
  assert.equal(bytesToHex(blake2b(new Uint8Array(128), 32)),
    '378d0caaaa3855f1b38693c1d6ef004fd118691c95c959d4efa950d6d6fcf7c1');
});

import { handRows, PER_ROW } from '../../web/js/layout.js';

test('the phone hand: two rows at most (10 cards a row), balanced, in hand order', () => {
  const rowsOf = (n) => {
    const { rows, cells } = handRows(n);
    const lens = Array.from({ length: rows }, (_, r) => cells.filter((x) => x.r === r).length);
    // every card's k is its row's length, and columns run 0..k-1 in order
    cells.forEach((x, i) => {
      assert.equal(x.k, lens[x.r]);
      if (i && cells[i - 1].r === x.r) assert.equal(x.c, cells[i - 1].c + 1);
      else assert.equal(x.c, 0);
    });
    return lens;
  };
  assert.equal(PER_ROW, 10);
  assert.deepEqual(rowsOf(0), []);
  assert.deepEqual(rowsOf(1), [1]);
  assert.deepEqual(rowsOf(10), [10]);
  assert.deepEqual(rowsOf(11), [6, 5]);
  assert.deepEqual(rowsOf(17), [9, 8]);
  assert.deepEqual(rowsOf(20), [10, 10]);
  for (let n = 1; n <= 20; n++) {
    const lens = rowsOf(n);
    assert.ok(lens.length <= 2, `n=${n}: ${lens} (three rows)`);
    assert.ok(Math.max(...lens) <= 10 && Math.max(...lens) - Math.min(...lens) <= 1, `n=${n}: ${lens}`);
  }
});

import { remaining, tricks } from '../../web/js/tracker.js';

test('the card counter counts the deck less my hand and every card played', () => {
  const full = remaining(null, []);
  assert.equal(full.reduce((a, b) => a + b, 0), 54);
  assert.deepEqual(full, [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1]);
  // my hand: the four 3s (0..3) and the big joker; played: a pair of 2s (48, 49), the small joker
  const left = remaining([0, 1, 2, 3, 53], [{ cards: [48, 49] }, { cards: [] }, { cards: [52] }]);
  assert.equal(left[0], 0);
  assert.equal(left[12], 2);
  assert.equal(left[13], 0);
  assert.equal(left[14], 0);
  assert.equal(left.reduce((a, b) => a + b, 0), 54 - 5 - 3);
});

test('the moves cut into tricks after two passes', () => {
  const P = (seat, cards) => ({ seat, cards });
  const h = [P(0, [1]), P(1, [5]), P(2, []), P(0, []), P(1, [9, 10]), P(2, []), P(0, [20, 21]), P(1, []), P(2, []), P(0, [30])];
  assert.deepEqual(tricks(h).map((x) => x.map((p) => p.seat)), [[0, 1, 2, 0], [1, 2, 0, 1, 2], [0]]);
  assert.deepEqual(tricks([]), []);
});

/* net.js's Conn with a fake WebSocket and storage: the redirect rules of
 * PROTOCOL.md ("Many nodes") without a browser. */
async function fakeConn() {
  const store = new Map();
  globalThis.localStorage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem: (k, v) => store.set(k, String(v)),
    removeItem: (k) => store.delete(k),
  };
  globalThis.navigator ??= { language: 'en' };
  globalThis.document ??= { documentElement: {} };
  globalThis.location = { protocol: 'http:', host: 'page:1' };
  globalThis.crypto ??= (await import('node:crypto')).webcrypto;
  const sockets = [];
  globalThis.WebSocket = class {
    static OPEN = 1;
    constructor(url) { this.url = url; this.sent = []; this.readyState = 0; sockets.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; }
    open() { this.readyState = 1; this.onopen(); }
    recv(m) { this.onmessage({ data: JSON.stringify(m) }); }
  };
  const { Conn } = await import('../../web/js/net.js');
  const got = [];
  const c = new Conn({ name: 'me', onMessage: (m) => got.push(m), onStatus: () => {} });
  return { c, sockets, got, store };
}

test('a redirect: the next node gets hello with its own token and the request again; 3 hops at most', async () => {
  const { c, sockets, got, store } = await fakeConn();
  c.connect();
  sockets[0].open();
  assert.equal(sockets[0].url, 'ws://page:1/ws');
  sockets[0].recv({ type: 'welcome', resume: 'r-home' });
  assert.equal(store.get('ddz.resume'), 'r-home');
  const id = c.send({ type: 'join', room: 'n2-abcdefgh', seat: 1 });
  sockets[0].recv({ type: 'redirect', url: 'ws://n2/ws', about: 'join', id, room: 'n2-abcdefgh', reason: 'r' });
  assert.equal(got.filter((m) => m.type === 'redirect').length, 0, 'the app never sees it');
  assert.equal(sockets.length, 2);
  assert.equal(sockets[1].url, 'ws://n2/ws');
  sockets[1].open();
  assert.deepEqual(sockets[1].sent[0].resume, undefined, 'n2 does not know the home token');
  sockets[1].recv({ type: 'welcome', resume: 'r-n2' });
  assert.equal(store.get('ddz.resume'), 'r-home', 'the home token is kept');
  assert.equal(store.get('ddz.resume@ws://n2/ws'), 'r-n2');
  assert.equal(sockets[0].readyState, 3, 'the old connection is closed');
  const again = sockets[1].sent[1];
  assert.equal(again.type, 'join');
  assert.equal(again.room, 'n2-abcdefgh');
  assert.equal(again.seat, 1);
  // nodes that keep sending us on: the fourth in a row is an error
  for (let hop = 2; hop <= 3; hop++) {
    const i = c.send({ type: 'spectate', room: 'x-abcdefgh' });
    sockets[hop - 1].recv({ type: 'redirect', url: `ws://n${hop + 1}/ws`, about: 'spectate', id: i, reason: 'r' });
    sockets[hop].open();
    sockets[hop].recv({ type: 'welcome', resume: 'r' + hop });
  }
  const i = c.send({ type: 'spectate', room: 'x-abcdefgh' });
  sockets[3].recv({ type: 'redirect', url: 'ws://n9/ws', about: 'spectate', id: i, reason: 'far' });
  assert.equal(sockets.length, 4, 'no fourth hop');
  const err = got.pop();
  assert.equal(err.type, 'error');
  assert.equal(err.code, 'EREDIRECT');
  assert.equal(err.about, 'spectate');
  // a redirect to where we are is an error too
  const k = c.send({ type: 'join', room: 'n4-abcdefgh' });
  sockets[3].recv({ type: 'redirect', url: 'ws://n4/ws', about: 'join', id: k, reason: 'here' });
  assert.equal(sockets.length, 4);
  assert.equal(got.pop().code, 'EREDIRECT');
});

/* Rated quick play is at one node of a cluster (PROTOCOL.md, "Many
 * nodes"): a rated quick redirected is asked again at the holder, whose
 * hello carries the account's session. */
test('a rated quick redirected: the holder gets hello with the session and the same quick', async () => {
  const { c, sockets, store } = await fakeConn();
  const s = 'ab'.repeat(32);
  store.set('ddz.session', s);
  c.connect();
  sockets[0].open();
  assert.equal(sockets[0].sent[0].session, s);
  sockets[0].recv({ type: 'welcome', resume: 'r-home' });
  const id = c.send({ type: 'quick', rated: true, rules: 'caai' });
  sockets[0].recv({ type: 'redirect', url: 'ws://n1/ws', about: 'quick', id,
    reason: 'rated quick play is on node n1' });
  assert.equal(sockets.length, 2);
  assert.equal(sockets[1].url, 'ws://n1/ws');
  sockets[1].open();
  const hello = sockets[1].sent[0];
  assert.equal(hello.type, 'hello');
  assert.equal(hello.session, s, 'the account plays at the holder too');
  sockets[1].recv({ type: 'welcome', resume: 'r-n1' });
  const again = sockets[1].sent[1];
  assert.equal(again.type, 'quick');
  assert.equal(again.rated, true);
  assert.equal(again.rules, 'caai');
  assert.equal(sockets[0].readyState, 3, 'the old connection is closed');
});

/* ---- terms.js: how a score came about, from the server's terms ---- */

/* The over frames of tests/proto/events.txt (the event codec's cases:
 * real frames, and hand-edited ones for the Botzone faults), by the
 * comment above each. */
async function overFrames() {
  const { readFile } = await import('node:fs/promises');
  const lines = (await readFile(new URL('../proto/events.txt', import.meta.url), 'utf8')).split('\n');
  const out = new Map();
  lines.forEach((l, i) => { if (l.startsWith('{"type":"over"')) out.set(lines[i - 1], JSON.parse(l)); });
  return out;
}

async function termsModule() {
  globalThis.localStorage ??= { getItem: () => null, setItem: () => {}, removeItem: () => {} };
  globalThis.navigator ??= { language: 'en' };
  globalThis.document ??= { documentElement: {} };
  const i18n = await import('../../web/js/i18n.js');
  return { ...i18n, ...(await import('../../web/js/terms.js')) };
}

const NAMES = ['West', 'South', 'East'];
const explainOver = (m, o) => m.explainTerms(o.breakdown.terms,
  { landlord: o.landlord, scores: o.scores, name: (s) => NAMES[s] });

test('the page knows every kind of term the protocol has, and words each shown kind in both languages', async () => {
  const m = await termsModule();
  const { readFile } = await import('node:fs/promises');
  const defs = JSON.parse(await readFile(new URL('../../proto/schema/defs.json', import.meta.url), 'utf8'));
  assert.deepEqual([...m.TERM_KINDS].sort(), [...defs.$defs.term.properties.term.enum].sort());
  // a kind that is shown has words; the numbers quoted by others need none
  const quoted = new Set(['bid', 'farmer', 'landlord', 'award', 'win', 'points']);
  for (const lang of ['en', 'zh']) {
    m.setLang(lang);
    for (const k of m.TERM_KINDS) {
      if (quoted.has(k)) continue;
      const key = k === 'win' ? 'term.win.say' : k === 'points' ? 'term.points.landlord' : 'term.' + k;
      assert.notEqual(m.t(key), key, `${lang}: ${key}`);
    }
  }
  m.setLang('en');
});

test('caai: bid x multiplier x 100, the multiplier\'s factors listed', async () => {
  const m = await termsModule();
  m.setLang('en');
  const frames = await overFrames();
  let e = explainOver(m, frames.get('# over: the landlord won'));
  assert.equal(e.say.text, 'Bid 3 × multiplier 1 = 3: the landlord wins or loses 2 × 100 × 3 = 600, each farmer 100 × 3 = 300.');
  assert.equal(e.head.text, 'Multiplier ×1');
  assert.deepEqual(e.factors.map((f) => f.text), ['starts at ×1']);
  assert.deepEqual([e.faults, e.sides], [[], []]);
  e = explainOver(m, frames.get('# over: a spring with the rocket (edited from a won game; scores not recomputed)'));
  assert.deepEqual(e.factors.map((f) => f.text), ['starts at ×1', 'rocket: ×2', 'spring (farmers never played): ×2']);
  assert.equal(e.head.text, 'Multiplier ×4');
  // a fault: its line only
  e = explainOver(m, frames.get('# over: a timeout fault in play (winner null)'));
  assert.deepEqual(e.faults, [{ seat: 2, text: 'East committed a fault (out of time) and pays the penalty' }]);
  assert.deepEqual([e.say, e.head, e.factors], [null, null, []]);
  // all passed: nothing
  e = explainOver(m, frames.get('# over: everybody passed (winner and landlord null)'));
  assert.deepEqual(e, { faults: [], say: null, head: null, factors: [], sides: [] });
  m.setLang('zh');
  e = explainOver(m, frames.get('# over: the landlord won'));
  assert.equal(e.say.text, '底分 3 × 倍数 1 = 3：地主输赢 2 × 100 × 3 = 600，每个农民 100 × 3 = 300。');
  m.setLang('en');
});

test('botzone-ftl: each side\'s win points and plays, the farmers\' mean; a fault\'s -1 and 2.5', async () => {
  const m = await termsModule();
  m.setLang('en');
  const frames = await overFrames();
  let e = explainOver(m, frames.get('# over: botzone-ftl, a game with breakdown.plays: what each seat\'s plays added, by type'));
  assert.match(e.say.text, /^The winning side scores 2/);
  assert.equal(e.head, null);
  assert.equal(e.sides.length, 2);
  const [ll, fs] = e.sides;
  assert.deepEqual([ll.seats, ll.win, ll.plays, ll.text], [[0], 0, 0.13, 'West (landlord): 0 + 0.13 = 0.13']);
  assert.deepEqual(ll.members[0].plays.map((p) => [p.text, p.shown]), [['Single ×11', '0.11'], ['Pair ×1', '0.02']]);
  assert.deepEqual([fs.seats, fs.win, fs.plays, fs.text], [[1, 2], 2, 0.1, 'Farmers: 2 + (0.16 + 0.04) ÷ 2 = 2.1 each']);
  assert.deepEqual(fs.members.map((x) => [x.name, x.points, x.plays.length]), [['South', '0.16', 3], ['East', '0.04', 2]]);
  e = explainOver(m, frames.get('# over: botzone-ftl, a fault ends the game: -1 for its side, 2.5 for the other (edited)'));
  assert.deepEqual(e.faults, [{ seat: 1, text: 'South committed a fault (left or crashed): that side scores −1, the other side 2.5' }]);
  assert.deepEqual([e.say, e.sides], [null, []]);
  m.setLang('zh');
  e = explainOver(m, frames.get('# over: botzone-ftl, a fault ends the game: -1 for its side, 2.5 for the other (edited)'));
  assert.equal(e.faults[0].text, 'South 犯规（退出或崩溃）：犯规方 −1 分，另一方 2.5 分');
  m.setLang('en');
});

test('botzone-ftl2: the faults the referee played on, the stake m and its factors; all three faulted', async () => {
  const m = await termsModule();
  m.setLang('en');
  const frames = await overFrames();
  let e = explainOver(m, frames.get('# over: botzone-ftl2, West timed out and the referee played on; the stake m (edited from a won game)'));
  assert.deepEqual(e.faults.map((f) => f.text), ['West faulted (out of time): the referee played for this seat from then on, and the game was scored as usual']);
  assert.equal(e.head.text, 'm = 3');
  assert.deepEqual(e.factors.map((f) => f.text), ['bid 3']);
  assert.equal(e.say.text, 'Stake m = 3: the landlord wins or loses 2m = 6, each farmer m = 3.');
  e = explainOver(m, frames.get('# over: botzone-ftl2, all three seats faulted: every score -1 (edited)'));
  assert.deepEqual(e.faults, [{ seat: undefined, text: 'All three seats faulted: the game ended there, every score −1' }]);
  assert.deepEqual([e.say, e.head], [null, null]);
  m.setLang('zh');
  e = explainOver(m, frames.get('# over: botzone-ftl2, West timed out and the referee played on; the stake m (edited from a won game)'));
  assert.equal(e.say.text, '倍数 m = 3：地主输赢 2m = 6，每个农民 m = 3。');
  assert.equal(e.faults[0].text, 'West 犯规（超时）：此后由裁判代打，本局照常计分');
  m.setLang('en');
  // a list without terms (an old client's frame, a record that did not replay) explains nothing
  assert.deepEqual(m.explainTerms(undefined, { landlord: 0, scores: [0, 0, 0], name: String }),
    { faults: [], say: null, head: null, factors: [], sides: [] });
});

import { RECENT_MAX, addRecent, readRecent, writeRecent, startPosition, applyPlay, mayPass, sideOf, ratingDelta } from '../../web/js/puzzlestate.js';

/* A localStorage of one's own (or one that throws, as when storage is off). */
function fakeStorage(broken = false) {
  const m = new Map();
  return {
    getItem: (k) => { if (broken) throw new Error('off'); return m.has(k) ? m.get(k) : null; },
    setItem: (k, v) => { if (broken) throw new Error('off'); m.set(k, String(v)); },
  };
}

test('puzzles: the recent list keeps the last 50 ids shown, newest last, each once', () => {
  assert.deepEqual(addRecent([], 7), [7]);
  assert.deepEqual(addRecent([3, 7, 9], 7), [3, 9, 7], 'shown again: moved to the end, not twice');
  let list = [];
  for (let id = 1; id <= RECENT_MAX + 5; id++) list = addRecent(list, id);
  assert.equal(list.length, RECENT_MAX);
  assert.deepEqual([list[0], list.at(-1)], [6, RECENT_MAX + 5], 'the oldest dropped');
  // what the server would refuse the whole list for is left out
  assert.deepEqual(addRecent([1, 0, -2, 2.5, '3', null, 4], 5), [1, 4, 5]);
  assert.deepEqual(addRecent(null, 1), [1]);
  const s = fakeStorage();
  assert.deepEqual(readRecent(s), []);
  writeRecent(s, [4, 5]);
  assert.deepEqual(readRecent(s), [4, 5]);
  s.setItem('ddz.puzzles.recent', '{"not": "a list"}');
  assert.deepEqual(readRecent(s), []);
  s.setItem('ddz.puzzles.recent', 'not JSON');
  assert.deepEqual(readRecent(s), []);
  const off = fakeStorage(true);
  writeRecent(off, [1]); // no throw
  assert.deepEqual(readRecent(off), []);
});

test('puzzles: the position moves with the line; a pass only with another seat\'s play to beat', () => {
  const p = { hands: [[0, 4], [8, 12, 52], [16]], landlord: 1, turn: 1, last: [2], last_by: 0 };
  let pos = startPosition(p);
  assert.deepEqual(pos, { hands: [[0, 4], [8, 12, 52], [16]], last: [2], lastBy: 0, toMove: 1 });
  assert.ok(mayPass(pos));
  pos = applyPlay(pos, 1, [52]);
  assert.deepEqual(p.hands[1], [8, 12, 52], 'the puzzle read is not changed');
  assert.deepEqual(pos, { hands: [[0, 4], [8, 12], [16]], last: [52], lastBy: 1, toMove: 2 });
  pos = applyPlay(applyPlay(pos, 2, []), 0, []);
  assert.deepEqual([pos.last, pos.lastBy, pos.toMove], [[52], 1, 1], 'both passed: the play stays its maker\'s');
  assert.ok(!mayPass(pos), 'its maker leads again');
  const lead = startPosition({ ...p, last: null, last_by: null });
  assert.deepEqual([lead.last, lead.lastBy], [null, null]);
  assert.ok(!mayPass(lead));
  assert.equal(sideOf(p, 1), 'landlord');
  assert.equal(sideOf(p, 2), 'farmers');
});

test('puzzles: a rating change in words, as the game-over panel says a game\'s', () => {
  assert.deepEqual(ratingDelta(1500, 1512.4), { before: 1500, after: 1512, delta: '+12' });
  assert.deepEqual(ratingDelta(1500.4, 1497.2), { before: 1500, after: 1497, delta: '-3' });
  assert.deepEqual(ratingDelta(1500, 1500.2), { before: 1500, after: 1500, delta: '0' });
});
