// puzzles.test.mjs - the puzzles page (残局, issue 42, spec §16) against a
// server whose stock comes from its own games: listed rooms where a client
// plays beside two hosted AIs until the stock has puzzles. Then, through
// the page: (a) desktop, English, a guest: the puzzle with all three hands
// open, a losing first play, the failed panel with the winning plays as
// cards and the source game's replay; (b) the next puzzle, solved through
// the page's cards and Play button; (c) a phone, Chinese: a new person
// signs up, opens 残局 from the lobby, solves one and fails one, the rating
// moving with each, and a second try at the same puzzle moves nothing.
//
// The ORACLE (the page never gets the winning plays before a failure): a
// throwaway guest attempt (guests are unrated: it costs nothing) with the
// line so far and a candidate play, the candidates being `ddz rules
// moves`' legal plays: `continue`/`solved` means the candidate wins;
// `failed` at that play tells the winning plays there (`solutions`, with
// `at` the index of the losing play).
//
// The `game` link, `you` and `rated` for a signed-in person, /puzzles'
// 302 and GET /api/puzzles/ID are asserted too.
// Screenshots in artifacts/ (puzzles-*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startAll, openPage, waitFor, shot, T, signUp, DDZ } from './harness.mjs';
import { startPosition, applyPlay, mayPass, ratingDelta } from '../../web/js/puzzlestate.js';

const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const NEED = 2; // puzzles in the stock: (c) rates a solved one and a failed one
let env;
const contexts = [];

const rankOf = (c) => (c < 52 ? c >> 2 : c - 39);
const metric = (text, name) => {
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line ? Number(line.split(' ')[1]) : 0;
};

/* One listed room: a client at West (the highest bid, a random legal
 * play, ready after each game) and two ai:greedy, 100 games with no
 * pause; returns the socket (closed by the caller). */
function fillerRoom(base, k) {
  const ws = new WebSocket(base.replace('http', 'ws') + '/ws');
  ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1, name: 'Filler' + k }));
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === 'welcome') {
      ws.send(JSON.stringify({ type: 'create', seat: 0,
        options: { name: 'puzzle stock ' + k, games: 100, pause: 0, redeal: true, seats: [null, 'ai:greedy', 'ai:greedy'] } }));
    } else if (m.type === 'turn' && m.seat === 0 && m.legal) {
      ws.send(JSON.stringify(m.action === 'bid' ? { type: 'bid', seq: m.seq, bid: Math.max(...m.legal) }
        : { type: 'play', seq: m.seq, cards: m.legal[Math.floor(Math.random() * m.legal.length)] }));
    } else if (m.type === 'over') {
      ws.send(JSON.stringify({ type: 'ready' }));
    }
  };
  return ws;
}

before(async () => {
  // the AIs act at once, and the fillers' clients may answer as fast
  env = await startAll('serve-puzzles.log', ['--ai-delay-ms', '0', '--rate', '1000']);
  const rooms = [0, 1, 2].map((k) => fillerRoom(env.base, k));
  const started = Date.now();
  try {
    await waitFor(`${NEED} puzzles in the stock`, async () => {
      const m = await (await fetch(env.base + '/metrics')).text();
      if (metric(m, 'ddz_puzzle_positions_total{result="puzzle"}') < NEED) return false;
      return (await fetch(env.base + '/api/puzzles/next?rules=caai')).status === 200;
    }, 240000, 250);
  } finally {
    for (const ws of rooms) ws.close();
  }
  console.log(`the stock had ${NEED} puzzles after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const any = await (await fetch(env.base + '/api/puzzles/next?rules=caai')).json();
  const one = await fetch(`${env.base}/api/puzzles/${any.id}`);
  assert.equal(one.status, 200, 'GET /api/puzzles/ID');
  assert.equal((await one.json()).id, any.id);
});
after(async () => { if (env) await env.stop(contexts); });

/* The page's errors but the refusals chromium logs for 4xx answers. */
const unexpected = (page) => page.errors.filter((e) => !/status of (400|401|404|409) /.test(e));

/* A picture once the notes (the welcome after signing up) are gone. */
async function calmShot(page, name) {
  await page.waitForFunction(() => !document.querySelector('.toast'), null, { timeout: T(10000) });
  await shot(page, name);
}

async function noOverflow(page, what) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(over <= 0, `${what}: ${over} px wider than the screen`);
}

/* Every puzzle the page read (GET next), by id. */
function recordPuzzles(page) {
  page.puzzles = new Map();
  page.on('response', async (r) => {
    if (!r.url().includes('/api/puzzles/next') || r.status() !== 200) return;
    try {
      const p = await r.json();
      page.puzzles.set(p.id, p);
    } catch { /* the page left */ }
  });
}

/* The puzzle the page shows, once ready for a play. */
async function shown(page) {
  await page.waitForSelector('[data-test=pz-board][data-state=ready]');
  const id = Number(await page.getAttribute('[data-test=pz-board]', 'data-id'));
  await waitFor(`puzzle ${id}'s JSON`, () => page.puzzles.has(id));
  return page.puzzles.get(id);
}

/* A guest's attempt (no Authorization: unrated, free): its JSON answer;
 * a busy server is asked again, bounded. */
async function guestAttempt(id, plays) {
  let out;
  await waitFor(`an answer to attempt ${JSON.stringify(plays)}`, async () => {
    const r = await fetch(`${env.base}/api/puzzles/${id}/attempt`, { method: 'POST',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ plays }) });
    if (r.status === 503) return false;
    assert.equal(r.status, 200, `attempt ${JSON.stringify(plays)}: ${r.status}`);
    out = await r.json();
    return true;
  }, 30000, 200);
  return out;
}

/* The legal plays of seat `pos.toMove` as card codes of its hand, a pass
 * ([]) last when it may pass (`ddz rules moves` lists rank indices). */
function legalPlays(rules, pos) {
  const hand = pos.hands[pos.toMove];
  const args = ['rules', 'moves', '--hand', hand.join(','), '--rules', rules];
  if (mayPass(pos)) args.push('--follow', pos.last.join(','));
  const r = spawnSync(DDZ, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').filter(Boolean).map((line) => {
    const left = [...hand];
    return JSON.parse(line).map((rank) => left.splice(left.findIndex((c) => rankOf(c) === rank), 1)[0]);
  });
}

/* A winning play for the person after `plays` (the position `pos`), by
 * the oracle. */
async function winningPlay(p, pos, plays) {
  for (const cand of legalPlays(p.rules, pos)) {
    const a = await guestAttempt(p.id, [...plays, cand]);
    if (a.result !== 'failed') return cand;
    // the solutions where the mistake was: the first play's are the
    // puzzle's; a later one's only with `at` (the lead's part)
    const there = plays.length === 0 || (Number.isInteger(a.at) && a.at === plays.length);
    if (there && a.solutions.length) return a.solutions[0];
  }
  throw new Error(`no winning play after ${JSON.stringify(plays)}`);
}

/* A losing first play of puzzle p and the solutions the server tells. */
async function losingFirstPlay(p) {
  for (const cand of legalPlays(p.rules, startPosition(p))) {
    const a = await guestAttempt(p.id, [cand]);
    if (a.result === 'failed') return { play: cand, solutions: a.solutions };
  }
  throw new Error(`puzzle ${p.id}: every first play wins`);
}

/* The page plays `cards` (a pass for []) and resolves to the server's
 * answer to that attempt, once the page has shown it. */
async function playOnPage(page, cards) {
  await page.waitForSelector('[data-test=pz-board][data-state=ready]');
  for (const c of cards) await page.click(`[data-test=pz-hand] .card[data-code="${c}"]`);
  const sel = await page.$$eval('[data-test=pz-hand] .card.selected', (els) => els.map((e) => Number(e.dataset.code)));
  assert.deepEqual(sel.sort((a, b) => a - b), [...cards].sort((a, b) => a - b), 'the cards clicked are the ones selected');
  const [res] = await Promise.all([
    // past a busy answer (503), which the page asks again
    page.waitForResponse((r) => r.url().endsWith('/attempt') && r.request().method() === 'POST' && r.status() !== 503),
    page.click(cards.length ? '[data-test=pz-play]' : '[data-test=pz-pass]'),
  ]);
  assert.equal(res.status(), 200);
  const a = await res.json();
  await page.waitForSelector(a.result === 'continue' ? '[data-test=pz-board][data-state=ready]' : `[data-test=pz-result][data-result=${a.result}]`);
  return a;
}

/* Solves the page's puzzle through its cards and buttons, the oracle
 * choosing each play; resolves to the last answer (solved). */
async function solveOnPage(page, p, midShot = null) {
  let pos = startPosition(p);
  const plays = [];
  for (let guard = 0; guard < 30; guard++) {
    const w = await winningPlay(p, pos, plays);
    const a = await playOnPage(page, w);
    assert.notEqual(a.result, 'failed', `the oracle's play ${JSON.stringify(w)} failed`);
    if (a.result === 'solved') return a;
    plays.push(w);
    pos = applyPlay(pos, p.turn, w);
    a.replies.forEach((c, i) => { pos = applyPlay(pos, (p.turn + 1 + i) % 3, c); });
    // the page's hands are the oracle's
    const mine = await page.$$eval('[data-test=pz-hand] .card', (els) => els.map((e) => Number(e.dataset.code)));
    assert.deepEqual(mine.sort((x, y) => x - y), [...pos.hands[p.turn]].sort((x, y) => x - y));
    if (midShot && guard === 0) {
      // the replies on the table, the play to beat marked (or her lead)
      if (mayPass(pos)) {
        assert.equal(await page.$eval(`[data-test=pz-seat][data-seat="${pos.lastBy}"] [data-test=pz-said]`, (e) => e.classList.contains('tobeat')), true);
        assert.equal(await page.$eval('[data-test=pz-pass]', (b) => b.disabled), false, 'a pass is offered');
      } else {
        assert.equal(await page.$eval('[data-test=pz-pass]', (b) => b.disabled), true, 'she leads: no pass');
      }
      await calmShot(page, midShot);
    }
  }
  throw new Error('the puzzle was not solved in 30 plays');
}

/* The puzzle on the page: three open hands of the puzzle's cards, the
 * person's the seat to move, the landlord marked, the play to beat. */
async function assertOpenHands(page, p) {
  const seats = await page.$$eval('[data-test=pz-seat]', (els) => els.map((e) => ({
    seat: Number(e.dataset.seat), landlord: e.classList.contains('landlord'), me: e.classList.contains('me'),
    cards: [...e.querySelectorAll('.card')].filter((c) => !c.closest('[data-test=pz-said]')).map((c) => Number(c.dataset.code)),
  })));
  assert.equal(seats.length, 3);
  for (const s of seats) {
    assert.deepEqual(s.cards.sort((a, b) => a - b), [...p.hands[s.seat]].sort((a, b) => a - b), `seat ${s.seat}'s hand, face up`);
    assert.equal(s.landlord, s.seat === p.landlord);
    assert.equal(s.me, s.seat === p.turn);
  }
  if (p.last && p.last.length) {
    const said = await page.$eval(`[data-test=pz-seat][data-seat="${p.last_by}"] [data-test=pz-said]`,
      (e) => ({ tobeat: e.classList.contains('tobeat'), cards: [...e.querySelectorAll('.card')].map((c) => Number(c.dataset.code)) }));
    assert.equal(said.tobeat, true, 'the play to beat is marked at the seat that made it');
    assert.deepEqual([...said.cards].sort((a, b) => a - b), [...p.last].sort((a, b) => a - b));
  }
}

/* The solutions the failed panel shows, each as sorted codes. */
async function shownSolutions(page) {
  return page.$$eval('[data-test=pz-solution]', (els) => els.map((e) => [...e.querySelectorAll('.card')].map((c) => Number(c.dataset.code)).sort((a, b) => a - b)));
}
const sortedAll = (xs) => xs.map((x) => [...x].sort((a, b) => a - b));

let desktop; // the guest's page of (a), kept for (b)
let failedId; // the puzzle (a) failed

test('(a) a guest opens /puzzles, fails a puzzle and sees its solutions and source game (desktop, English)', async () => {
  {
    const r = await fetch(env.base + '/puzzles', { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/#/puzzles');
  }
  const page = await openPage(env.browser, contexts, 'about:blank', { viewport: DESKTOP });
  recordPuzzles(page);
  await page.goto(env.base + '/puzzles');
  desktop = page;
  const p = await shown(page);
  assert.equal(new URL(page.url()).hash, '#/puzzles');
  assert.equal(p.rules, 'caai');
  await assertOpenHands(page, p);
  const side = p.turn === p.landlord ? 'landlord' : 'farmers';
  assert.equal(await page.textContent('[data-test=pz-goal]'), `Your side: ${side} — play first and win`);
  assert.match(await page.textContent('[data-test=pz-guest]'), /unrated until you sign in/);
  assert.equal(await page.$eval('[data-test=pz-rules]', (s) => s.value), 'caai');
  assert.deepEqual(await page.$$eval('[data-test=pz-rules] option', (o) => o.map((x) => x.textContent)),
    ['CAAI 1.0', 'Botzone FTL', 'Botzone FTL2']);
  await calmShot(page, 'puzzles-desktop-en');

  failedId = p.id;
  const lose = await losingFirstPlay(p);
  const a = await playOnPage(page, lose.play);
  assert.equal(a.result, 'failed');
  assert.equal(await page.textContent('[data-test=pz-verdict]'), 'Failed ✗');
  assert.deepEqual(await shownSolutions(page), sortedAll(lose.solutions), 'the winning plays, as cards');
  assert.ok(lose.solutions.length >= 1);
  // the line as played: the losing play, the person's seat
  const line = await page.$$eval('[data-test=pz-result] [data-test=pz-line] li', (li) => li.length);
  assert.equal(line, a.line.length);
  assert.equal(await page.$('[data-test=pz-rated]'), null, 'a guest is not rated');
  await calmShot(page, 'puzzles-failed-desktop-en');
  {
    assert.ok(Number.isInteger(a.game), 'the failed answer names its game');
    const href = await page.getAttribute('[data-test=pz-replay]', 'href');
    assert.equal(href, `#/replay/${a.game}`);
    await page.click('[data-test=pz-replay]');
    await page.waitForSelector('[data-test=replay-log]');
    assert.equal(new URL(page.url()).hash, `#/replay/${a.game}`);
    await page.goBack();
    await page.waitForSelector('[data-test=pz-board]');
  }
  assert.deepEqual(unexpected(page), []);
});

test('(b) the next puzzle, solved through the page (desktop, English)', async () => {
  const page = desktop;
  // from the failed panel its Next button; back from the replay, the page
  // has read the next one already
  if (await page.$('[data-test=pz-next]')) await page.click('[data-test=pz-next]');
  await waitFor('another puzzle', async () => {
    const id = Number(await page.getAttribute('[data-test=pz-board][data-state=ready]', 'data-id').catch(() => NaN));
    return id && id !== failedId;
  });
  // the one just shown travels as recent
  const recent = await page.evaluate(() => JSON.parse(localStorage.getItem('ddz.puzzles.recent')));
  assert.ok(recent.includes(failedId) && recent.length >= 2, `recent ${JSON.stringify(recent)}`);
  const p = await shown(page);
  await assertOpenHands(page, p);
  const a = await solveOnPage(page, p, 'puzzles-midline-desktop-en');
  assert.equal(a.result, 'solved');
  assert.equal(await page.textContent('[data-test=pz-verdict]'), 'Solved ✓');
  assert.equal(await page.$('[data-test=pz-solutions]'), null, 'solved: no solutions shown');
  assert.equal(await page.$$eval('[data-test=pz-result] [data-test=pz-line] li', (li) => li.length), a.line.length);
  assert.equal(await page.getAttribute('[data-test=pz-replay]', 'href'), `#/replay/${a.game}`);
  await calmShot(page, 'puzzles-solved-desktop-en');
  // the back button goes to the lobby, whose link comes back
  await page.click('[data-test=pz-back]');
  await page.waitForSelector('[data-test=puzzles-link]');
  await page.click('[data-test=puzzles-link]');
  await page.waitForSelector('[data-test=pz-board]');
  assert.deepEqual(unexpected(page), []);
});

test('(c) a new person solves one and fails one, rated once each (a phone, Chinese)', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  recordPuzzles(page);
  await signUp(page, '解题人', 'mima12345678');
  await page.click('[data-test=puzzles-link]');
  const p1 = await shown(page);
  assert.equal(await page.$('[data-test=pz-guest]'), null, 'signed in: no guest line');
  const side = p1.turn === p1.landlord ? '地主' : '农民';
  assert.equal(await page.textContent('[data-test=pz-goal]'), `你方：${side}先出，必胜`);
  await assertOpenHands(page, p1);
  await noOverflow(page, 'the puzzle');
  {
    assert.ok(p1.you && typeof p1.you.rating === 'number', 'signed in: next says her puzzle rating');
    assert.match(await page.textContent('[data-test=pz-you]'), new RegExp(`${Math.round(p1.you.rating)}`));
  }
  await calmShot(page, 'puzzles-phone-zh');

  // solved: her first attempt at p1, rated
  const s = await solveOnPage(page, p1);
  assert.equal(await page.textContent('[data-test=pz-verdict]'), '破解成功 ✓');
  await noOverflow(page, 'the solved panel');
  let rating = null;
  {
    assert.ok(s.rated, 'her first attempt is rated');
    assert.ok(s.rated.after > s.rated.before, 'a puzzle solved raises her rating');
    const d = ratingDelta(s.rated.before, s.rated.after);
    assert.ok((await page.textContent('[data-test=pz-rated]')).includes(`残局等级分 ${d.before} → ${d.after}（${d.delta}）`));
    rating = s.rated.after;
  }
  await calmShot(page, 'puzzles-solved-phone-zh');

  // failed: the next puzzle (another one: p1 is recent), rated
  await page.click('[data-test=pz-next]');
  await waitFor('another puzzle', async () => {
    const id = Number(await page.getAttribute('[data-test=pz-board][data-state=ready]', 'data-id').catch(() => NaN));
    return id && id !== p1.id;
  });
  const p2 = await shown(page);
  assert.ok(Math.abs(p2.you.rating - rating) < 0.05, `next says ${p2.you.rating}, the panel said ${rating}`);
  const lose = await losingFirstPlay(p2);
  const f = await playOnPage(page, lose.play);
  assert.equal(f.result, 'failed');
  assert.equal(await page.textContent('[data-test=pz-verdict]'), '破解失败 ✗');
  assert.deepEqual(await shownSolutions(page), sortedAll(lose.solutions));
  await noOverflow(page, 'the failed panel');
  {
    assert.ok(f.rated, 'her first attempt at p2 is rated');
    assert.ok(Math.abs(f.rated.before - rating) < 0.05);
    assert.ok(f.rated.after < f.rated.before, 'a puzzle failed lowers her rating');
    const d = ratingDelta(f.rated.before, f.rated.after);
    assert.ok((await page.textContent('[data-test=pz-rated]')).includes(`${d.before} → ${d.after}（${d.delta}）`));
  }
  await calmShot(page, 'puzzles-failed-phone-zh');

  // again at p2: a repeat, not rated
  await page.click('[data-test=pz-again]');
  const g = await playOnPage(page, lose.play);
  assert.equal(g.result, 'failed');
  assert.equal(g.rated, undefined, 'a repeat is not rated');
  assert.equal(await page.$('[data-test=pz-rated]'), null);
  assert.ok(await page.$('[data-test=pz-unrated]'));
  assert.deepEqual(unexpected(page), []);
});

test('(d) what the page does with an empty stock, a busy server, a refused session, and a rated answer (a phone, Chinese)', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/#/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  recordPuzzles(page);
  await page.waitForSelector('[data-test=puzzles-link]');
  await waitFor('the lobby connected', () => page.evaluate(() => window.__frames.some((f) => f.type === 'rooms')));

  // a session the server refuses (401): dropped, as a refused hello drops
  // it, and the puzzle read again as a guest
  const auths = [];
  await page.route('**/api/puzzles/next*', (route) => {
    const a = route.request().headers().authorization || null;
    auths.push(a);
    if (a) return route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"EAUTH","message":"no such session"}' });
    return route.continue();
  });
  await page.evaluate(() => localStorage.setItem('ddz.session', 'no-such-session'));
  await page.click('[data-test=puzzles-link]');
  await page.waitForSelector('[data-test=pz-board][data-state=ready]');
  assert.deepEqual(auths, ['Bearer no-such-session', null]);
  assert.equal(await page.evaluate(() => localStorage.getItem('ddz.session')), null, 'the session is forgotten');
  await page.waitForSelector('[data-test=pz-guest]');
  assert.ok(await page.evaluate(() => [...document.querySelectorAll('.toast')].some((x) => /登录已失效/.test(x.textContent))), 'and said');
  await page.unroute('**/api/puzzles/next*');

  // no puzzle of these rules (the stock is caai's): said as a fact, no error
  await page.selectOption('[data-test=pz-rules]', 'botzone-ftl2');
  await page.waitForSelector('[data-test=pz-empty]');
  assert.equal(new URL(page.url()).hash, '#/puzzles/botzone-ftl2');
  assert.match(await page.textContent('[data-test=pz-empty]'), /这种规则还没有残局——残局取自打完的公开对局/);
  assert.equal(await page.$('[data-test=pz-error]'), null);
  assert.equal(await page.$('.toast.error'), null, 'no error toast');
  await page.selectOption('[data-test=pz-rules]', 'caai');
  const p = await shown(page);

  // busy (503): asked once more after Retry-After, then said, the line kept
  let busy = 1; // how many attempts to answer 503
  let asked = 0;
  await page.route('**/attempt', (route) => {
    asked++;
    if (busy-- > 0) return route.fulfill({ status: 503, headers: { 'Retry-After': '1' }, contentType: 'application/json', body: '{"error":"EBUSY"}' });
    return route.continue();
  });
  const first = await winningPlay(p, startPosition(p), []);
  await playOnPage(page, first); // the 503, then the answer
  assert.equal(asked, 2, 'a 503 is asked again once');
  const lineLength = await page.$$eval('[data-test=pz-board] [data-test=pz-line] li', (li) => li.length);
  if (await page.$('[data-test=pz-board][data-state=ready]')) {
    busy = 2;
    asked = 0;
    const mine = await page.$$eval('[data-test=pz-hand] .card', (els) => els.map((e) => Number(e.dataset.code)));
    await page.click(`[data-test=pz-hand] .card[data-code="${mine[mine.length - 1]}"]`);
    await page.click('[data-test=pz-play]');
    await waitFor('the busy note', () => page.evaluate(() => [...document.querySelectorAll('.toast')].some((x) => /服务器正忙/.test(x.textContent))));
    await page.waitForSelector('[data-test=pz-board][data-state=ready]');
    assert.equal(asked, 2, 'asked twice, then said');
    assert.equal(await page.$$eval('[data-test=pz-board] [data-test=pz-line] li', (li) => li.length), lineLength, 'the line as it was');
  } else {
    console.log(`puzzle ${p.id} was solved in one play: the second 503 is not tried`);
  }
  await page.unroute('**/attempt');

  // a rated answer with its game (the server's fields, added here so that
  // the page's drawing of them is checked whatever the server sends)
  await page.click('[data-test=pz-back]');
  await page.click('[data-test=puzzles-link]');
  const q = await shown(page);
  await page.route('**/attempt', async (route) => {
    const res = await route.fetch();
    const j = await res.json();
    if (j.result !== 'continue') Object.assign(j, { game: 1, ply: 30,
      rated: { before: 1500, after: 1487.6, deviation: 320, puzzle_before: 1500, puzzle_after: 1512.4 } });
    await route.fulfill({ response: res, json: j });
  });
  const lose = await losingFirstPlay(q);
  await playOnPage(page, lose.play);
  assert.equal(await page.textContent('[data-test=pz-rated] p'), '残局等级分 1500 → 1488（-12）');
  assert.match(await page.textContent('[data-test=pz-rated]'), /本题：1500 → 1512/);
  assert.equal(await page.getAttribute('[data-test=pz-replay]', 'href'), '#/replay/1');
  await noOverflow(page, 'the failed panel with its rating and game');
  await calmShot(page, 'puzzles-rated-phone-zh');
  await page.unroute('**/attempt');
  assert.deepEqual(unexpected(page).filter((e) => !/status of 503 /.test(e)), []);
});
