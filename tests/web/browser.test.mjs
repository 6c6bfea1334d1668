// browser.test.mjs - the web client in a real browser (Debian's chromium,
// driven by playwright-core) against a real `ddz serve` started here on a
// free port with a temporary database.
//
// Run by node_test.sh (ctest): DDZ_BIN names the ddz binary. Every
// wait is on a condition with a bound, never a fixed sleep. Screenshots
// go to tests/web/artifacts/ (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, ART, DDZ, CHROMIUM, freePort, waitFor, settle, shot, T, clockS, openCreateForm } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 740 };

let server, base, browser, tmp;
const contexts = [];

/* ---- the server ---- */

before(async () => {
  fs.mkdirSync(ART, { recursive: true });
  assert.ok(fs.existsSync(DDZ), `ddz binary not found at ${DDZ}`);
  assert.ok(fs.existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (bash deploy/deps.sh installs it)`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-web-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const log = fs.openSync(path.join(ART, 'serve.log'), 'w');
  server = spawn(DDZ, ['serve', '--port', String(port), '--bind', '127.0.0.1', '--db', path.join(tmp, 'web.db'),
    '--web', path.join(ROOT, 'web'), '--ai-delay-ms', '50'], { stdio: ['ignore', log, log] });
  await waitFor('the server to answer /healthz', async () => (await fetch(base + '/healthz')).ok, 15000);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright gives every launch a fresh temporary user-data-dir
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    const killer = setTimeout(() => server.kill('SIGKILL'), 5000);
    await once(server, 'exit');
    clearTimeout(killer);
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/* ---- pages ---- */

/* A fresh browser context (own storage) with one page that records
 * console errors, page errors and every WebSocket frame it receives. */
async function openPage({ viewport = DESKTOP, locale = 'en-US', path: p = '/', mobile = false, init = null } = {}) {
  const ctx = await browser.newContext({ viewport, locale, isMobile: mobile, hasTouch: mobile });
  ctx.setDefaultTimeout(T(30000)); // clicks and navigations, as every wait
  contexts.push(ctx);
  const page = await ctx.newPage();
  page.errors = [];
  page.frames = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    try { page.frames.push(JSON.parse(f.payload)); } catch { /* not JSON */ }
  }));
  // The same frames recorded inside the page, before the client sees them,
  // so that a check can read them and the DOM in one step.
  await page.addInitScript(() => {
    const Native = window.WebSocket;
    window.__frames = [];
    window.__sockets = [];
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        window.__sockets.push(this);
        this.addEventListener('message', (e) => {
          try { window.__frames.push(JSON.parse(e.data)); } catch { /* not JSON */ }
        });
      }
    };
  });
  if (init) await page.addInitScript(init);
  await page.goto(base + p);
  return page;
}

const roomOf = (page) => /#\/(?:room|watch)\/([^/]+)/.exec(page.url())?.[1];

/* Card codes shown face up in a part of the page. */
async function faceCodes(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => +e.dataset.code));
}

/* Nothing face up but the page's own hand and what was played or revealed
 * to it (the leftover), judged in the page from the frames it received
 * since it was loaded: played cards, the leftover, state snapshots. */
async function assertNoHiddenCards(page, label) {
  const r = await page.evaluate(() => {
    const over = !!document.querySelector('[data-test=gameover]') ||
      window.__frames.some((f) => f.type === 'over' && !f.redeal && !window.__frames.slice(window.__frames.indexOf(f)).some((g) => g.type === 'game'));
    const seen = new Set();
    for (const f of window.__frames) {
      if (f.type === 'game') { seen.clear(); (f.hand || []).forEach((c) => seen.add(c)); }
      if (f.type === 'played' || f.type === 'leftover') f.cards.forEach((c) => seen.add(c));
      if (f.type === 'state') {
        (f.hand || []).forEach((c) => seen.add(c));
        (f.leftover || []).forEach((c) => seen.add(c));
        (f.history || []).forEach((p) => p.cards.forEach((c) => seen.add(c)));
      }
    }
    const faces = [...document.querySelectorAll('.card.face')].map((e) => +e.dataset.code);
    return {
      over,
      leaked: faces.filter((c) => !seen.has(c)),
      others: document.querySelectorAll('[data-zone=hand]:not(.hand) .card.face').length,
    };
  });
  if (r.over) return; // the game is over: every hand is public
  assert.deepEqual(r.leaked, [], `${label}: face-up cards never revealed to this page`);
  assert.equal(r.others, 0, `${label}: another seat's hand is face up`);
}

/* A point where the card with this code is the topmost element: cards in
 * the hand overlap and lean, so a fixed offset may hit a neighbour. */
async function cardPoint(page, code) {
  await settle(page); // a card lifted or lowered a moment ago is still moving
  const p = await page.evaluate((c) => {
    const el = document.querySelector(`.hand .card[data-code="${c}"]`);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    for (let y = r.top + 12; y < r.bottom - 4; y += 6) {
      for (let x = r.left + 3; x < r.right - 3; x += 3) {
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('.card') === el) return { x, y };
      }
    }
    return null;
  }, code);
  assert.ok(p, `card ${code} can be reached`);
  return p;
}

async function clickCard(page, code) {
  const p = await cardPoint(page, code);
  await page.mouse.click(p.x, p.y);
}

/* ---- playing by clicking ---- */

/* Waits until this page must act ('bid' | 'play') or the game is over
 * ('over'); returns that and the turn's seq. */
async function nextDecision(page, lastSeq, ms = 45000) {
  const h = await page.waitForFunction((prev) => {
    if (document.querySelector('[data-test=gameover]')) return { what: 'over' };
    const c = document.querySelector('[data-test=controls]');
    if (!c || !c.dataset.seq || c.dataset.seq === prev || c.dataset.pending) return false;
    if (document.querySelector('[data-test=bid0]')) return { what: 'bid', seq: c.dataset.seq };
    if (document.querySelector('[data-test=hint]:not(:disabled)')) return { what: 'play', seq: c.dataset.seq };
    return false;
  }, lastSeq, { timeout: T(ms), polling: 30 });
  return h.jsonValue();
}

/* Waits until a hint has selected cards (it asks the server first). */
async function hinted(page) {
  await page.waitForFunction(() => document.querySelectorAll('.hand .card.selected').length > 0, null, { timeout: T(15000), polling: 20 });
}

/* Clicks through one whole game on `page`; returns counters. `hooks.after`
 * runs after each action of ours (for reloads and spectator checks). */
async function playGame(page, { rnd = Math.random, hooks = {}, useKeys = false } = {}) {
  const n = { bids: 0, plays: 0, passes: 0, hints: 0, manual: 0, keys: 0 };
  let seq = '';
  for (let guard = 0; guard < 80; guard++) {
    const d = await nextDecision(page, seq);
    if (d.what === 'over') return n;
    if (d.what === 'play' && hooks.beforePlay && await hooks.beforePlay(n)) {
      seq = ''; // the page was reloaded: the same turn is asked again
      continue;
    }
    seq = d.seq;
    if (d.what === 'bid') {
      const enabled = await page.$$eval('[data-test^=bid]:not(:disabled)', (b) => b.map((x) => x.dataset.test));
      assert.ok(enabled.includes('bid0'), 'passing a bid is always allowed');
      const pick = enabled[Math.floor(rnd() * enabled.length)];
      if (useKeys && n.keys < 1) {
        await page.keyboard.press(pick.slice(3));
        n.keys++;
      } else {
        await page.click(`[data-test=${pick}]`);
      }
      n.bids++;
    } else {
      const canPass = await page.isEnabled('[data-test=pass]');
      if (canPass && rnd() < 0.3) {
        await page.click('[data-test=pass]');
        n.passes++;
      } else if (useKeys && n.keys < 3 && n.plays > 0) {
        await page.keyboard.press('h');
        await hinted(page);
        await page.keyboard.press('Space');
        n.keys++;
        n.plays++;
      } else {
        // Hint asks the server, then cycles through its suggestions and
        // the other legal plays; sometimes press it twice.
        const times = 1 + Math.floor(rnd() * 2);
        for (let i = 0; i < times; i++) {
          await page.click('[data-test=hint]');
          await hinted(page);
        }
        n.hints += times;
        const chosen = await faceCodes(page, '.hand .card.selected');
        assert.ok(chosen.length > 0, 'a hint selects cards');
        assert.ok(await page.isEnabled('[data-test=play]'), 'play is enabled for a hinted play');
        if (n.manual === 0) {
          // select the same cards by hand: clear, then click each one's corner
          await page.keyboard.press('Escape');
          assert.ok(!(await page.isEnabled('[data-test=play]')), 'play is disabled with nothing selected');
          for (const c of chosen) await clickCard(page, c);
          const again = await faceCodes(page, '.hand .card.selected');
          assert.deepEqual(again.sort((a, b) => a - b), chosen.sort((a, b) => a - b));
          n.manual++;
        }
        await page.click('[data-test=play]');
        n.plays++;
      }
    }
    if (hooks.after) await hooks.after(n);
  }
  throw new Error('the game did not end');
}

/* ---- the tests ---- */

let quick = null; // the quick-play page, its room and its game id

test('the lobby loads in English and Chinese with no console errors', async () => {
  const page = await openPage({ locale: 'en-US' });
  await page.waitForSelector('[data-test=quick]');
  await waitFor('the rooms list', async () => page.frames.some((f) => f.type === 'rooms'));
  assert.match(await page.textContent('[data-test=quick]'), /Play vs AI/);
  await shot(page, 'lobby');
  await page.click('[data-test=lang]');
  assert.match(await page.textContent('[data-test=quick]'), /人机对战/);
  await page.reload();
  await page.waitForSelector('[data-test=quick]');
  assert.match(await page.textContent('[data-test=quick]'), /人机对战/, 'the language is remembered');
  const name = await page.inputValue('[data-test=name]');
  assert.ok(name.length > 0, 'a display name is chosen');
  await page.fill('[data-test=name]', 'Lin');
  await page.press('[data-test=name]', 'Enter');
  await page.reload();
  assert.equal(await page.inputValue('[data-test=name]'), 'Lin', 'the name is remembered');
  // the create form offers every room option: the people and the level,
  // and seat by seat behind its disclosure
  await openCreateForm(page);
  await openCreateForm(page, { seatwise: true });
  for (const sel of ['[data-test=people]', '[data-test=level]', '[data-test=seat0]', '[data-test=seat1]', '[data-test=seat2]', '[data-test=create]']) {
    assert.ok(await page.isVisible(sel), sel);
  }
  const phone = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
  await phone.waitForSelector('[data-test=quick]');
  await shot(phone, 'lobby-phone');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(phone.errors, []);
  await page.close();
  await phone.close();
});

test('an unknown room is reported in words', async () => {
  const page = await openPage({ path: '/#/room/nosuchroom' });
  const t = await page.waitForSelector('.toast', { timeout: T(30000) });
  assert.match(await t.textContent(), /does not exist/);
  await page.waitForSelector('[data-test=quick]'); // back in the lobby
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a click before the page is connected is not lost: quick play goes once the server says welcome', async () => {
  const page = await openPage({ init: () => {
    // every frame the page sends waits until the test lets them go: the
    // lobby is drawn, its connection open but not welcomed (no hello yet)
    window.__held = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (window.__held) window.__held.push([this, data]);
      else send.call(this, data);
    };
    window.__release = () => {
      const held = window.__held;
      window.__held = null;
      for (const [ws, data] of held) send.call(ws, data);
    };
  } });
  await page.waitForFunction(() => window.__held && window.__held.length > 0, null, { timeout: T(30000) }); // the hello, held
  await page.click('[data-test=quick]');
  assert.equal(await page.evaluate(() => window.__held.length), 1, 'nothing but the hello before the welcome');
  await page.evaluate(() => window.__release());
  await page.waitForSelector('.hand .card', { timeout: T(30000) });
  assert.ok(await page.evaluate(() => window.__frames.some((f) => f.type === 'joined')), 'seated by the quick play asked for early');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('quick play: a whole game by clicking, a reload mid-game, a spectator who sees no hidden card', async () => {
  const page = await openPage({ locale: 'en-US' });
  await page.click('[data-test=quick]');
  await page.waitForSelector('.hand .card', { timeout: T(30000) });
  const room = roomOf(page);
  assert.ok(room, 'the table has its own address');
  assert.equal(await page.$$eval('.hand .card', (c) => c.length), 17);

  // a spectator in a second context, by the room's address
  const spec = await openPage({ locale: 'zh-CN', path: `/#/watch/${room}` });
  await spec.waitForSelector('.table-view.spectating', { timeout: T(30000) });
  assert.equal(await spec.$$eval('.hand .card', (c) => c.length), 0, 'a spectator has no hand');

  let reloaded = false;
  let dragged = false;
  let actions = 0;
  let tableShot = false;
  const hooks = {
    after: async (n) => {
        actions++;
        await assertNoHiddenCards(page, 'player');
        await assertNoHiddenCards(spec, 'spectator');
        if (!tableShot && n.plays >= 2) {
          tableShot = true;
          await shot(page, 'table');
          await shot(spec, 'spectator');
        }
      },
      // On our turn (so that our hand is settled): once, select three
      // cards by dragging across them; later, reload and come back.
      beforePlay: async (n) => {
        if (!dragged) {
          dragged = true;
          // (a follow with one play that beats comes selected: start clear)
          await page.keyboard.press('Escape');
          await page.waitForFunction(() => document.querySelectorAll('.hand .card.selected').length === 0, null, { timeout: T(5000) });
          const first = await page.$$eval('.hand .card', (els) => els.slice(0, 3).map((e) => +e.dataset.code));
          const box = [];
          for (const c of first) box.push(await cardPoint(page, c));
          await page.mouse.move(box[0].x, box[0].y);
          await page.mouse.down();
          await page.mouse.move(box[1].x, box[1].y, { steps: 4 });
          await page.mouse.move(box[2].x, box[2].y, { steps: 4 });
          await page.mouse.up();
          // the selection is drawn on the next frame, late on a loaded machine
          await page.waitForFunction(() => document.querySelectorAll('.hand .card.selected').length >= 3, null, { timeout: T(5000) }).catch(() => {});
          assert.equal((await faceCodes(page, '.hand .card.selected')).length, 3, 'a drag selects the cards it crosses');
          await page.keyboard.press('Escape');
          assert.equal((await faceCodes(page, '.hand .card.selected')).length, 0, 'Escape clears the selection');
        }
        if (reloaded || actions < 3) return false;
        reloaded = true;
        const before = (await faceCodes(page, '.hand .card')).sort((a, b) => a - b);
        await page.reload();
        await page.waitForSelector('.hand .card', { timeout: T(30000) });
        assert.equal(roomOf(page), room, 'the reload is back at the same table');
        const after = (await faceCodes(page, '.hand .card')).sort((a, b) => a - b);
        assert.deepEqual(after, before, 'the same hand after the reload');
        await page.waitForSelector('[data-test=hint]:not(:disabled)', { timeout: T(30000) });
        return true;
      },
  };
  // Play games until one had it all (a game may end early, e.g. when
  // everyone passes the bidding).
  const counts = { plays: 0, passes: 0, hints: 0, manual: 0 };
  for (let game = 1; ; game++) {
    const c = await playGame(page, { useKeys: true, hooks });
    for (const k of Object.keys(counts)) counts[k] += c[k];
    if (reloaded && counts.manual > 0 && c.plays + c.passes > 0) break;
    assert.ok(game < 6, 'five games without a chance to reload');
    await page.click('[data-test=continue], [data-test=close-over]');
  }
  assert.ok(counts.plays + counts.passes > 0, 'we played');
  assert.ok(counts.hints > 0 && counts.manual > 0);
  assert.ok(reloaded, 'the game lasted long enough to reload');

  // Game over, checked on both pages at once: the next game starts after
  // the room's pause (3 s), and its first bid closes the player's panel.
  const [over] = await Promise.all([
    (async () => {
      // every hand, the score explained, the seed next to the commitment
      await page.waitForSelector('[data-test=gameover]');
      const o = (await page.evaluate(() => window.__frames)).filter((f) => f.type === 'over' && !f.redeal).pop();
      assert.ok(o, 'an over event arrived');
      const text = await page.textContent('[data-test=gameover]');
      if (o.landlord !== null && !o.fault) assert.match(text, /Bid \d × multiplier \d+/);
      await page.click('[data-test=verify] summary');
      assert.equal(await page.textContent('[data-test=seed]'), o.seed);
      assert.match(await page.textContent('[data-test=verify]'), /BLAKE2b-256\(seed\) = commitment ✓/);
      const href = await page.getAttribute('[data-test=replay-link]', 'href');
      // quick play is a private room: its game is linked under its key
      assert.match(o.game_key, /^[0-9a-f]{32}$/);
      assert.equal(href, `#/replay/${o.game_id}-${o.game_key}?from=${(await page.evaluate(() => window.__frames.find((f) => f.type === 'state'))).seat}`); // seen from our seat
      await shot(page, 'gameover');
      // the commitment this page was told when the game was dealt (or in
      // the snapshot after its reload), before the over that revealed it
      await waitFor('the over frame', async () => page.frames.some((f) => f.type === 'over' && !f.redeal && f.seed === o.seed));
      const at = page.frames.findIndex((f) => f.type === 'over' && !f.redeal && f.seed === o.seed);
      const dealt = page.frames.slice(0, at).reverse().find((f) => f.type === 'game' || (f.type === 'state' && f.commit));
      assert.equal(dealt.commit, o.commit, 'the commitment was shown before the deal');
      return o;
    })(),
    (async () => {
      // the spectator sees every remaining hand now
      await spec.waitForSelector('[data-test=gameover]', { timeout: T(30000) });
      await spec.waitForFunction(() => {
        const o = window.__frames.filter((f) => f.type === 'over' && !f.redeal).pop();
        return o && document.querySelectorAll('[data-zone=hand] .card.face').length ===
          o.hands.reduce((a, h) => a + h.length, 0);
      }, null, { timeout: T(30000) });
      await shot(spec, 'spectator-gameover');
    })(),
  ]);
  quick = { room, over };
  assert.deepEqual(page.errors, []);
  assert.deepEqual(spec.errors, []);
  await spec.close();
  await page.close();
});

test('the replay of the finished game steps to the end', async () => {
  assert.ok(quick, 'needs the quick-play game');
  const { over } = quick;
  const page = await openPage({ path: `/#/replay/${over.game_id}-${over.game_key}` });
  await page.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
  const all = await page.$$eval('[data-zone=hand] .card.face', (c) => c.length);
  assert.equal(all, 51, 'the deal shows all three hands');
  let steps = 0;
  while (await page.isEnabled('[data-test=replay-next]')) {
    await page.click('[data-test=replay-next]');
    if (++steps > 300) throw new Error('the replay never ends');
  }
  await page.waitForSelector('[data-test=replay-result]');
  const m = /(\d+) of (\d+)|(\d+) \/ (\d+)/.exec(await page.textContent('[data-test=replay-stepno]'));
  assert.ok(m && m[1] === m[2], 'the step counter is at the end');
  for (let s = 0; s < 3; s++) {
    const n = await page.$$eval(`[data-zone=hand][data-seat="${s}"] .card`, (c) => c.length);
    assert.equal(n, over.hands[s].length, `seat ${s} ends with the cards the game ended with`);
  }
  await shot(page, 'replay');
  await page.click('[data-test=replay-first]');
  assert.equal(await page.$$eval('[data-zone=hand] .card.face', (c) => c.length), 51);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('two people at one table with an AI: a private room by invite link with a password, then a rematch', async () => {
  const a = await openPage({ locale: 'en-US' });
  await a.waitForSelector('[data-test=quick]');
  await openCreateForm(a);
  await a.fill('.create input[name=name]', 'Web test room');
  await openCreateForm(a, { seatwise: true }); // seat by seat
  await a.selectOption('[data-test=seat2]', 'ai:greedy');
  const numbers = await a.$$('.create input[type=number]');
  await numbers[1].fill('1'); // games per turn
  await a.check('[data-test=private]');
  await a.fill('.create input[type=password]', 'sesame');
  await a.click('[data-test=create]');
  await a.waitForSelector('.table-view', { timeout: T(30000) });
  const room = roomOf(a);
  assert.ok(room);
  await a.waitForSelector('.center .status.big'); // waiting for players

  // the friend opens the invite link on a phone and types the password
  const b = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true, path: `/#/room/${room}` });
  await b.waitForSelector('dialog[open] input', { timeout: T(30000) });
  await b.fill('dialog[open] input', 'sesame');
  await b.click('dialog[open] button.primary');
  await b.waitForSelector('.hand .card', { timeout: T(30000) });
  await a.waitForSelector('.hand .card', { timeout: T(30000) });
  assert.equal(roomOf(b), room);

  let phoneShot = false;
  const [ca, cb] = await Promise.all([
    playGame(a),
    playGame(b, { hooks: { after: async (n) => {
      await assertNoHiddenCards(b, 'phone player');
      if (!phoneShot && n.plays >= 1) { phoneShot = true; await shot(b, 'table-phone'); }
    } } }),
  ]);
  assert.ok(ca.bids + cb.bids >= 1);
  await b.waitForSelector('[data-test=gameover]');
  await shot(b, 'gameover-phone');

  // one game per turn: the turn is over
  await a.waitForSelector('[data-test=rematch]', { timeout: T(30000) });
  // a dropped connection: a banner, a reconnection, the same seat
  // What the banner says is recorded as it changes: the first retry comes
  // after half a second, and a loaded machine can read it only after that.
  await a.evaluate(() => {
    const b = document.getElementById('banner');
    window.__bannerSaid = [];
    new MutationObserver(() => { if (!b.hidden) window.__bannerSaid.push(b.textContent); })
      .observe(b, { childList: true, subtree: true, characterData: true, attributes: true });
    window.__sockets[window.__sockets.length - 1].close();
  });
  await a.waitForFunction(() => window.__bannerSaid.some((s) => /reconnect/i.test(s)), null, { timeout: T(15000) });
  await a.waitForSelector('#banner', { state: 'hidden', timeout: T(15000) });
  assert.equal(roomOf(a), room);
  // both ask for a rematch
  await a.waitForSelector('[data-test=rematch]', { timeout: T(30000) });
  await b.waitForSelector('[data-test=rematch]', { timeout: T(30000) });
  await a.click('[data-test=rematch]');
  await b.click('[data-test=rematch]');
  await Promise.all([a, b].map((p) => p.waitForFunction(() =>
    !document.querySelector('[data-test=gameover]') && document.querySelectorAll('.hand .card').length >= 17, null, { timeout: T(15000) })));
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.close();
  await b.close();
});

/* ---- Botzone's rule sets ---- */

/* The stored record of the game an `over` event ended (spec §10), read the
 * way the game-over panel links it: the store writes on its own thread, so
 * it may take a moment to be served. */
async function fetchRecord(over) {
  const url = `${base}/api/games/${over.game_id}${over.game_key ? '-' + over.game_key : ''}`;
  let rec = null;
  await waitFor(`the record of game ${over.game_id}`, async () => {
    const res = await fetch(url);
    if (res.status === 200) rec = await res.json();
    return rec !== null;
  });
  return rec;
}

/* A play's combination type as the server's classifier reads it under a
 * rule set (`ddz rules classify`), to count a record's plays by type. */
function classify(rules, cards) {
  return JSON.parse(execFileSync(DDZ, ['rules', 'classify', '--rules', rules, cards.join(',')], { encoding: 'utf8' })).type;
}

/* A score as the record has it, shown with its sign: decimals as they are. */
const shown = (x) => (x > 0 ? '+' : '') + String(x);

/* Nothing sticks out sideways: the page, and the game-over panel, are no
 * wider than the viewport (phone layout). */
async function assertFits(page, label) {
  const r = await page.evaluate(() => {
    const panel = document.querySelector('[data-test=gameover]');
    const wide = [...document.querySelectorAll('[data-test=gameover] *, .topbar *, .create *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 1)
      .map((e) => e.className || e.tagName);
    return { page: document.documentElement.scrollWidth, vw: innerWidth,
      panel: panel ? panel.scrollWidth - panel.clientWidth : 0, wide: wide.slice(0, 5) };
  });
  assert.ok(r.page <= r.vw, `${label}: the page is ${r.page}px wide in a ${r.vw}px viewport`);
  assert.ok(r.panel <= 1, `${label}: the game-over panel scrolls sideways by ${r.panel}px`);
  assert.deepEqual(r.wide, [], `${label}: elements past the right edge`);
}

/* Opens the lobby's create form and checks its rule set choice: one option
 * per rule set the server listed, each explained in a line that is visible
 * and changes with the choice. Leaves `choose` chosen; returns the
 * explanations by rule set. */
async function chooseRules(page, choose) {
  await page.waitForSelector('[data-test=quick]');
  await waitFor('the rooms list', async () => page.frames.some((f) => f.type === 'rooms'));
  const listed = page.frames.find((f) => f.type === 'rooms').rules;
  assert.deepEqual(listed, ['caai', 'botzone-ftl', 'botzone-ftl2'], 'the lobby lists the three rule sets');
  await openCreateForm(page);
  const offered = await page.$$eval('[data-test=rules] option', (o) => o.map((x) => x.value));
  assert.deepEqual(offered, listed, 'the form offers what the server listed');
  const desc = {};
  for (const r of listed) {
    await page.selectOption('[data-test=rules]', r);
    assert.ok(await page.isVisible('[data-test=rules-desc]'), `${r}: the explanation is visible`);
    desc[r] = (await page.textContent('[data-test=rules-desc]')).trim();
    assert.ok(desc[r].length > 20, `${r}: explained in a line: "${desc[r]}"`);
  }
  assert.equal(new Set(Object.values(desc)).size, listed.length, 'each rule set has its own explanation');
  await page.selectOption('[data-test=rules]', choose);
  assert.equal((await page.textContent('[data-test=rules-desc]')).trim(), desc[choose]);
  return desc;
}

/* Fills the rest of the create form: two greedy AIs at South and East,
 * `games` games of `time` seconds a move, `pause` seconds between games
 * (More options), and creates; we sit at West. */
async function createWithAIs(page, { games = 1, time = 30, pause = null, custody = null } = {}) {
  await openCreateForm(page, { seatwise: true }); // seat by seat
  await page.selectOption('[data-test=seat1]', 'ai:greedy');
  await page.selectOption('[data-test=seat2]', 'ai:greedy');
  if (pause !== null || custody !== null) await page.click('.create .advanced summary');
  if (custody !== null) await page.selectOption('[data-test=custody]', custody);
  const numbers = await page.$$('.create input[type=number]'); // time, games; grace, pause
  await numbers[0].fill(String(time));
  await numbers[1].fill(String(games));
  if (pause !== null) await numbers[3].fill(String(pause));
  await page.click('[data-test=create]');
  await page.waitForSelector('.hand .card', { timeout: T(30000) });
  return roomOf(page);
}

test('botzone-ftl: created through the form, played to the end, each seat\'s points by type as the record has them', async () => {
  const page = await openPage({ locale: 'en-US' });
  const desc = await chooseRules(page, 'botzone-ftl2');
  assert.match(desc.caai, /Competition rules/);
  assert.match(desc['botzone-ftl'], /West is always the landlord/);
  assert.match(desc['botzone-ftl2'], /referee/);
  await shot(page, 'create-rules');
  await page.selectOption('[data-test=rules]', 'botzone-ftl');
  const room = await createWithAIs(page);
  assert.ok(room);

  // the table says which rules it plays
  assert.equal((await page.innerText('[data-test=rules-chip]')).trim(), 'Botzone FTL');
  assert.equal(await page.getAttribute('[data-test=rules-chip]', 'title'), desc['botzone-ftl']);
  // no bidding: West (we) is the landlord with the leftover, 20 cards
  await page.waitForFunction(() => document.querySelectorAll('.hand .card').length === 20, null, { timeout: T(30000) });
  let tableShot = false;
  await playGame(page, { hooks: { after: async (n) => {
    if (!tableShot && n.plays >= 2) { tableShot = true; await shot(page, 'table-ftl'); }
  } } });
  await page.waitForSelector('[data-test=gameover]');
  const over = (await page.evaluate(() => window.__frames)).filter((f) => f.type === 'over' && !f.redeal).pop();
  const rec = await fetchRecord(over);
  assert.equal(rec.rules, 'botzone-ftl');
  assert.equal(rec.landlord, 0);
  assert.ok(rec.winner !== null && !rec.fault, 'the game was played to its end');

  // the scores as the record has them, decimals and all
  for (let s = 0; s < 3; s++) {
    const cell = (await page.textContent(`[data-test=gameover] tr[data-seat="${s}"] [data-test=score]`)).trim();
    assert.equal(cell, shown(rec.scores[s]), `seat ${s}'s score`);
  }
  // every seat's plays by type: counted from the record by the server's classifier
  const want = [{}, {}, {}];
  for (const p of rec.plays) {
    if (!p.cards.length) continue;
    const type = classify('botzone-ftl', p.cards);
    want[p.seat][type] = (want[p.seat][type] || 0) + 1;
  }
  const items = await page.$$eval('[data-test=ptype]', (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
  const got = [{}, {}, {}];
  const points = [0, 0, 0];
  for (const it of items) {
    got[+it.seat][it.combo] = +it.count;
    points[+it.seat] += +it.points;
    assert.ok(+it.points > 0, `${it.combo}: points`);
    assert.ok(it.text.includes(`×${it.count}`) && it.text.includes(String(+it.points)), `shown: ${it.text}`);
  }
  assert.deepEqual(got, want, 'the plays by type are the record\'s');
  // win points + play points = the record's score: the landlord's own, the
  // farmers' mean
  const sides = await page.$$eval('[data-test=side]', (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
  assert.equal(sides.length, 2);
  const llWon = rec.winner === rec.landlord;
  for (const side of sides) {
    const seats = side.seats.split(',').map(Number);
    const isLL = seats.includes(rec.landlord);
    const plays = seats.reduce((a, s) => a + points[s], 0) / seats.length;
    assert.ok(Math.abs(+side.plays - plays) < 1e-9, `${side.seats}: play points ${side.plays} vs ${plays}`);
    assert.equal(+side.win, isLL === llWon ? 2 : 0, `${side.seats}: the winning side scores 2`);
    for (const s of seats) {
      assert.ok(Math.abs(+side.win + +side.plays - rec.scores[s]) < 1e-9, `seat ${s}: ${side.win} + ${side.plays} vs ${rec.scores[s]}`);
    }
    assert.ok(side.text.includes(`= ${rec.scores[seats[0]]}`), `the sum is shown: ${side.text}`);
  }
  assert.match(await page.textContent('[data-test=breakdown]'), /winning side scores 2/);
  await shot(page, 'gameover-ftl');
  await page.setViewportSize(PHONE);
  await assertFits(page, 'botzone-ftl game over on a phone');
  await shot(page, 'gameover-ftl-phone');

  // the lobby lists the room with its rule set
  const look = await openPage({ viewport: PHONE, locale: 'en-US', mobile: true });
  await look.waitForSelector(`[data-room="${room}"] [data-test=room-rules]`, { timeout: T(30000) });
  assert.equal((await look.textContent(`[data-room="${room}"] [data-test=room-rules]`)).trim(), 'Botzone FTL');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(look.errors, []);
  await look.close();
  await page.close();
});

test('botzone-ftl2 on a phone, in Chinese: a fault by the clock, the referee plays on, the stake as the record has it', async () => {
  const page = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
  const desc = await chooseRules(page, 'botzone-ftl2');
  assert.match(desc['botzone-ftl2'], /裁判代打/);
  await assertFits(page, 'the create form on a phone');
  await page.$eval('.create .rules-pick', (e) => e.scrollIntoView({ block: 'start' }));
  await shot(page, 'create-rules-phone');
  // 5 s a move (on an idle machine): we bid and play once by clicking,
  // then let the clock run out. 30 s between games: the next deal would
  // close the panel (30 s is the most a room allows). A competition room:
  // in a casual one the clock hands the seat to an AI.
  const room = await createWithAIs(page, { games: 3, time: clockS(5), pause: 30, custody: 'fault' });
  assert.ok(room);
  // notices, recorded as they come (one may be gone by the time we look)
  await page.evaluate(() => {
    window.__toasts = [];
    new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => window.__toasts.push(n.textContent))))
      .observe(document.getElementById('toasts'), { childList: true });
  });
  // a phone shows the rule set in a few letters, its explanation on a tap
  assert.equal((await page.innerText('[data-test=rules-chip]')).trim(), 'FTL2');
  assert.equal(await page.getAttribute('[data-test=rules-chip]', 'title'), desc['botzone-ftl2']);
  await assertFits(page, 'the table on a phone');
  // a spectator on a desktop, to see the referee at work from outside
  const spec = await openPage({ locale: 'zh-CN', path: `/#/watch/${room}` });
  await spec.waitForSelector('.table-view.spectating', { timeout: T(30000) });
  assert.equal((await spec.innerText('[data-test=rules-chip]')).trim(), 'Botzone 斗地主2');

  let over = null;
  for (let game = 1; !over; game++) {
    assert.ok(game <= 3, 'three games without a turn of ours to let run out');
    let seq = '';
    let played = 0;
    for (;;) {
      const d = await nextDecision(page, seq);
      if (d.what === 'over') break;
      seq = d.seq;
      if (d.what === 'bid') {
        await page.click('[data-test=bid0]');
      } else if (played === 0) {
        await page.click('[data-test=hint]');
        await hinted(page);
        await page.click('[data-test=play]');
        played++;
      } else {
        // our turn: do nothing until the server's clock charges us
        await page.waitForFunction(() => window.__frames.some((f) => f.type === 'fault'), null, { timeout: T(15000) + clockS(5) * 1000 });
        over = 'fault';
        break;
      }
    }
    if (!over) {
      await page.click('[data-test=continue], [data-test=close-over]');
      await page.waitForFunction(() => !document.querySelector('[data-test=gameover]'), null, { timeout: T(30000) });
    }
  }
  // everyone was told; our seat says the referee plays for it
  const fault = await page.evaluate(() => window.__frames.filter((f) => f.type === 'fault').pop());
  assert.equal(fault.seat, 0);
  assert.equal(fault.kind, 'timeout');
  const notices = await page.evaluate(() => window.__toasts);
  assert.ok(notices.some((n) => /超时.*裁判代打/.test(n)), `a notice of the fault: ${JSON.stringify(notices)}`);
  // our seat's mark, and (while the game lasts) the note in our controls,
  // read in one look: the game may end any moment; the mark is drawn a
  // frame after the notice, late on a loaded machine
  await page.waitForSelector('.seat.pos-me [data-test=standin], [data-test=gameover]', { timeout: T(15000) });
  const look = await page.evaluate(() => ({
    over: !!document.querySelector('[data-test=gameover]'),
    badge: document.querySelector('.seat.pos-me [data-test=standin]')?.textContent,
    note: document.querySelector('[data-test=standin-note]')?.textContent,
  }));
  assert.match(look.badge || '', /裁判代打/);
  if (!look.over) assert.match(look.note || '', /超时/);
  // the referee's next action for us is marked as its, at our seat and
  // the spectator's West; both look at once (the game may end soon)
  const refSeat = '[data-seat="0"] .said.referee';
  await Promise.all([page, spec].map((p) => p.waitForSelector(`${refSeat}, [data-test=gameover]`, { timeout: T(20000) })));
  await Promise.all([[page, 'table-standin-phone'], [spec, 'table-standin']].map(async ([p, name]) => {
    if (await p.$('[data-test=gameover]')) return; // over already: nothing to see at the table
    assert.match(await p.textContent(refSeat), /裁判代打/);
    await shot(p, name);
  }));
  // the spectator sees West marked as the referee's too
  assert.match(await spec.textContent('[data-seat="0"] [data-test=standin]'), /裁判代打/);
  await page.waitForSelector('[data-test=gameover]', { timeout: T(45000) });
  const end = (await page.evaluate(() => window.__frames)).filter((f) => f.type === 'over' && !f.redeal).pop();
  const rec = await fetchRecord(end);
  assert.equal(rec.rules, 'botzone-ftl2');
  assert.deepEqual([rec.faults[0].seat, rec.faults[0].kind], [0, 'timeout']);
  const mine = rec.plays.map((p, i) => ({ ...p, i })).filter((p) => p.seat === 0 && p.i >= rec.faults[0].at);
  assert.ok(mine.length > 0 && mine.every((p) => p.auto), 'the referee made every play of ours after the fault');

  // the panel: our fault, the stake and the scores as the record has them
  const panel = await page.textContent('[data-test=gameover]');
  assert.match(await page.textContent('[data-test=fault]'), /犯规（超时）.*裁判代打/);
  for (let s = 0; s < 3; s++) {
    const cell = (await page.textContent(`[data-test=gameover] tr[data-seat="${s}"] [data-test=score]`)).trim();
    assert.equal(cell, shown(rec.scores[s]), `seat ${s}'s score`);
  }
  if (rec.winner !== null) {
    const m = rec.multiplier;
    // the server's terms, shown: the stake m and the bid it starts from
    const bd = await page.$eval('[data-test=breakdown]', (e) => ({
      text: e.textContent,
      m: e.querySelector('b[data-term=stake]')?.dataset.value,
      bid: e.querySelector('li[data-term=base]')?.dataset.value,
    }));
    assert.equal(+bd.m, m, 'the stake m is the record\'s multiplier');
    assert.equal(+bd.bid, Math.max(1, ...rec.bids.map((b) => b.bid)), 'the bid (West at 1 if everyone passed)');
    assert.ok(bd.text.includes(`2m = ${2 * m}`) && bd.text.includes(`m = ${m}`), bd.text);
    const ll = rec.landlord;
    const sign = rec.winner === ll ? 1 : -1;
    for (let s = 0; s < 3; s++) assert.equal(rec.scores[s], s === ll ? 2 * sign * m : -sign * m, `seat ${s}: ±2m / ∓m`);
    if (rec.bombs) assert.match(bd.text, new RegExp(`炸弹 ${rec.bombs} 个：×${2 ** rec.bombs}`));
  } else {
    assert.match(panel, /三家都犯规/);
  }
  await assertFits(page, 'botzone-ftl2 game over on a phone');
  await shot(page, 'gameover-ftl2-phone');
  await page.setViewportSize(DESKTOP);
  await shot(page, 'gameover-ftl2');

  // the replay marks the referee's plays from the record's faults
  const replay = await openPage({ locale: 'en-US', path: `/#/replay/${end.game_id}` });
  await replay.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
  const marked = await replay.$$eval('.logwrap li', (li) => li.filter((x) => /referee/.test(x.textContent)).length);
  assert.equal(marked, mine.length, 'one marked step per play the referee made');
  await replay.click('[data-test=replay-last]');
  await replay.waitForSelector('[data-test=replay-result]');
  if (rec.winner !== null) assert.match(await replay.textContent('[data-test=replay-result]'), new RegExp(`m = ${rec.multiplier}`));
  await shot(replay, 'replay-ftl2');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(spec.errors, []);
  assert.deepEqual(replay.errors, []);
  await spec.close();
  await replay.close();
  await page.close();
});

/* ---- the competition page ---- */

test('a tournament on the server: the competition page, a live table to watch, a finished game to replay', async () => {
  // A second server runs a small Swiss tournament: five hosted AIs and a
  // remote bot through `ddz bridge --enlist` (its table is the slow one,
  // paced by the bridge, so there is a live table to watch).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-tournament-'));
  const db = path.join(dir, 'tournament.db');
  const tdir = path.join(dir, 'tournament');
  fs.mkdirSync(tdir);
  const tok = await new Promise((resolve, reject) => {
    const p = spawn(DDZ, ['token', 'add', 'webbot', '--db', db], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error('ddz token add: ' + code))));
  });
  fs.writeFileSync(path.join(tdir, 'players'),
    'webbot=bot:webbot\nalpha=ai:greedy\nbeta=ai:random\ngamma=ai:greedy\ndelta=ai:random\nomega=ai:greedy\n');
  fs.writeFileSync(path.join(tdir, 'options'), `--format swiss --turns 2 --games 12 --time 5 --seed ${'07'.repeat(32)}\n`);
  const port = await freePort();
  const tBase = `http://127.0.0.1:${port}`;
  const log = fs.openSync(path.join(ART, 'serve-tournament.log'), 'w');
  const srv = spawn(DDZ, ['serve', '--port', String(port), '--bind', '127.0.0.1', '--db', db,
    '--web', path.join(ROOT, 'web'), '--tournament', tdir], { stdio: ['ignore', log, log] });
  let bot;
  try {
    await waitFor('the tournament server', async () => (await fetch(tBase + '/healthz')).ok, 15000);
    bot = spawn(DDZ, ['bridge', '--url', `ws://127.0.0.1:${port}/ws`, '--token', tok, '--enlist', '--quiet',
      '--', DDZ, 'engine', '--ai', 'greedy'], { stdio: ['ignore', log, log] });

    const page = await openPage({ path: '/' });
    await page.goto(tBase + '/');
    await page.waitForSelector('[data-test=tournament-link]', { timeout: T(15000) });
    await shot(page, 'tournament-lobby');
    await page.click('[data-test=tournament-link] button');
    await page.waitForSelector('[data-test=standings] tbody tr', { timeout: T(30000) });
    assert.equal(await page.$$eval('[data-test=standings] tbody tr', (r) => r.length), 6, 'six players ranked');
    // the bot's table is being played: watch it
    await page.waitForSelector('[data-test=watch-table]', { timeout: T(20000) });
    await shot(page, 'tournament');
    // A table can end between the page's last poll and the click (on a
    // loaded machine one did): then the watch view finds no room and goes
    // back to the lobby. Click a live table again until one is watched.
    await waitFor('a live table watched', async () => {
      const url = page.url();
      if (/#\/watch\//.test(url)) return !!(await page.$('[data-zone=hand]'));
      if (!/#\/tournament/.test(url)) await page.goto(tBase + '/#/tournament');
      const watch = await page.$('[data-test=watch-table]');
      if (watch) await watch.click().catch(() => {}); // it may be gone by now
      return false;
    }, 30000, 200);
    await assertNoHiddenCards(page, 'a tournament table');
    // its games are held (every table plays the same deals): the spectator
    // is told so, and is sent none of their plays
    await page.waitForSelector('[data-test=held]', { timeout: T(15000) });
    assert.equal(await page.$$eval('[data-zone=play] .card.face, [data-zone=leftover] .card.face, [data-test=counter]', (c) => c.length), 0,
      'no plays of a held game');
    assert.equal(await page.$('[data-test=invite]'), null, 'an invite to a table only its participants sit at');
    await shot(page, 'tournament-table');
    await assertNoHiddenCards(page, 'a tournament table, later');
    // back to the page: a finished game opens in the replay viewer
    await page.goto(tBase + '/#/tournament');
    await page.waitForSelector('[data-test=replay-game]', { timeout: T(20000) });
    await page.click('[data-test=replay-game]');
    await page.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
    assert.equal(await page.$$eval('[data-zone=hand] .card.face', (c) => c.length), 51, 'the replay shows the deal');
    assert.deepEqual(page.errors, []);
    await page.close();

    const phone = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
    await phone.goto(tBase + '/#/tournament');
    await phone.waitForSelector('[data-test=standings] tbody tr', { timeout: T(30000) });
    assert.match(await phone.textContent('h1'), /比赛/);
    await shot(phone, 'tournament-phone');
    assert.deepEqual(phone.errors, []);
    await phone.close();
  } finally {
    for (const p of [bot, srv]) {
      if (p && p.exitCode === null) {
        p.kill('SIGTERM');
        const killer = setTimeout(() => p.kill('SIGKILL'), 5000);
        await once(p, 'exit');
        clearTimeout(killer);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/* ---- the ladder ---- */

test('a ladder on the server: the ranking, a participant\'s rating chart, a deal\'s game in the replay viewer, on a phone too', async () => {
  // A third server runs a ladder: a remote bot through `ddz bridge
  // --ladder`, an operator engine and hosted AIs.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-ladder-'));
  const db = path.join(dir, 'ladder.db');
  const tok = await new Promise((resolve, reject) => {
    const p = spawn(DDZ, ['token', 'add', 'webbot', '--db', db], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error('ddz token add: ' + code))));
  });
  const port = await freePort();
  const lb = `http://127.0.0.1:${port}`;
  const log = fs.openSync(path.join(ART, 'serve-ladder.log'), 'w');
  const srv = spawn(DDZ, ['serve', '--port', String(port), '--bind', '127.0.0.1', '--db', db,
    '--web', path.join(ROOT, 'web'), '--engine', `eng=${DDZ} engine --ai greedy`, '--ladder-engine', 'eng',
    '--ladder-ai', 'greedy', '--ladder-ai', 'random', '--ladder-ai', 'strong:20', '--ladder-time', '5'],
  { stdio: ['ignore', log, log] });
  let bot;
  try {
    await waitFor('the ladder server', async () => (await fetch(lb + '/healthz')).ok, 15000);
    bot = spawn(DDZ, ['bridge', '--url', `ws://127.0.0.1:${port}/ws`, '--token', tok, '--ladder', '--quiet',
      '--', DDZ, 'engine', '--ai', 'greedy'], { stdio: ['ignore', log, log] });
    // some deals rated, the bot among them
    await waitFor('the bot to have played deals', async () => {
      const d = await (await fetch(lb + '/api/ladder')).json();
      const me = d.players.find((p) => p.name === 'webbot');
      return me && me.deals >= 4 && d.players.every((p) => p.deals >= 2);
    }, 60000, 200);

    const page = await openPage({ path: '/' });
    await page.goto(lb + '/');
    await page.waitForSelector('[data-test=ladder-link]', { timeout: T(15000) });
    await shot(page, 'ladder-lobby');
    await page.click('[data-test=ladder-link] button');
    await page.waitForSelector('[data-test=ladder] tbody tr', { timeout: T(30000) });
    const rows = await page.$$eval('[data-test=ladder] tbody tr', (r) => r.map((x) => x.textContent));
    assert.equal(rows.length, 5, 'five participants ranked');
    assert.ok(rows.some((r) => /webbot/.test(r) && /online|playing/.test(r)), `the bot is online: ${rows}`);
    assert.ok(rows.every((r) => /\d+\.\d ± \d+\.\d/.test(r)), `rating ± uncertainty on every row: ${rows}`);
    // the table shown is the API's order
    const api = await (await fetch(lb + '/api/ladder')).json();
    assert.equal(api.players.length, 5);
    await shot(page, 'ladder');
    // a participant's page: the chart is drawn from its history
    await page.click('[data-test=ladder-player] >> text=webbot');
    await page.waitForURL(/#\/ladder\/webbot/, { timeout: T(30000) });
    await page.waitForSelector('[data-test=rating-chart] polyline', { timeout: T(30000) });
    const hist = (await (await fetch(lb + '/api/ladder/webbot')).json()).history;
    const chart = await page.$eval('[data-test=rating-chart]', (s) => ({
      points: +s.dataset.points,
      vertices: s.querySelector('polyline').getAttribute('points').trim().split(/\s+/).length,
      width: s.getBoundingClientRect().width,
    }));
    assert.ok(chart.points >= 4 && chart.points <= hist.length + 3, `chart of ${chart.points} deals vs ${hist.length}`);
    assert.equal(chart.vertices, chart.points, 'one vertex a deal');
    assert.ok(chart.width > 500, `the chart is ${chart.width}px wide`);
    // a screen reader is told what the chart shows (issue 25)
    const said = await page.$eval('[data-test=rating-chart]', (s) => [s.getAttribute('role'), s.getAttribute('aria-label')]);
    assert.equal(said[0], 'img');
    assert.match(said[1], new RegExp(`^Rating after each of ${chart.points} deals: from -?[\\d.]+ to -?[\\d.]+ ± [\\d.]+; lowest -?[\\d.]+, highest -?[\\d.]+$`), said[1]);
    // each deal row says the hand held and whom the result was compared with
    // (the same hand at the other tables: never the bot itself)
    const hands = await page.$$eval('[data-test=hand]', (c) => c.map((x) => x.textContent));
    assert.ok(hands.length >= 4 && hands.every((x) => /^(West|South|East)$/.test(x)), `hands: ${hands}`);
    const compared = await page.$$eval('[data-test=compared]', (c) => c.map((x) => x.textContent));
    assert.ok(compared.every((x) => x.length > 0 && !/webbot/.test(x)), `compared with: ${compared}`);
    await shot(page, 'ladder-player');
    // a deal's game opens in the replay viewer
    await page.click('[data-test=replay-game]');
    await page.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
    assert.equal(await page.$$eval('[data-zone=hand] .card.face', (c) => c.length), 51, 'the replay shows the deal');
    assert.deepEqual(page.errors, []);
    await page.close();

    const phone = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
    await phone.goto(lb + '/#/ladder');
    await phone.waitForSelector('[data-test=ladder] tbody tr', { timeout: T(30000) });
    assert.match(await phone.textContent('h1'), /天梯/);
    await shot(phone, 'ladder-phone');
    await phone.goto(lb + '/#/ladder/' + encodeURIComponent('ai:greedy'));
    await phone.waitForSelector('[data-test=rating-chart] polyline', { timeout: T(30000) });
    const fit = await phone.evaluate(() => ({
      page: document.documentElement.scrollWidth, vw: innerWidth,
      chart: document.querySelector('[data-test=rating-chart]').getBoundingClientRect().right,
      deals: document.querySelector('[data-test=deals]').getBoundingClientRect().right,
    }));
    assert.ok(fit.page <= fit.vw && fit.chart <= fit.vw, `the player page fits the phone: ${JSON.stringify(fit)}`);
    // the deals' table too: hand, score, the comparisons and the game, no sideways scrolling
    assert.ok(fit.deals <= fit.vw, `the deals fit the phone: ${JSON.stringify(fit)}`);
    await shot(phone, 'ladder-player-phone');
    assert.deepEqual(phone.errors, []);
    await phone.close();
  } finally {
    for (const p of [bot, srv]) {
      if (p && p.exitCode === null) {
        p.kill('SIGTERM');
        const killer = setTimeout(() => p.kill('SIGKILL'), 5000);
        await once(p, 'exit');
        clearTimeout(killer);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/* ---- casual play (issue 15): hints, phrases, auto-play ---- */

/* Clicks the highest bid we may make (bid0 if that is all), so that we are
 * likely the landlord and lead; returns the next decision after bidding. */
async function bidHigh(page) {
  let seq = '';
  for (;;) {
    const d = await nextDecision(page, seq);
    if (d.what !== 'bid') return d;
    seq = d.seq;
    const enabled = await page.$$eval('[data-test^=bid]:not(:disabled)', (b) => b.map((x) => x.dataset.test));
    await page.click(`[data-test=${enabled.sort().pop()}]`);
  }
}

/* Takes our seat back from the AI ("I'm back"). The AI may play a game
 * out meanwhile: its panel is modal and never closes by itself, so it is
 * closed first, as a user would (Escape); it can also open between a look
 * and the click (a loaded machine), so this looks again until the seat is
 * ours. Closing the panel between games says ready, which takes the seat
 * back by itself (spec §14) and deals the next game: the look after it
 * comes before any click, since a click waiting for a "取消托管" that is
 * gone (up to T(1000), 10 s on a loaded run) let our next bid clock run
 * out (CI: two missed clocks, custody again, the test's bid never made). */
async function takeSeatBack(page) {
  await waitFor('our seat back from the AI', async () => {
    if (!(await page.$('[data-test=autoplay-bar]'))) return true;
    if (await page.$('[data-test=gameover]')) {
      await page.keyboard.press('Escape');
      return false;
    }
    await page.click('[data-test=back]', { timeout: 1000 }).catch(() => {});
    return false;
  }, 30000, 100);
}

test('casual play on a desktop: the server\'s hint, a quick phrase, auto-play asked for and taken back', async () => {
  const page = await openPage({ locale: 'en-US' });
  const spec = { page: null };
  let d;
  for (let game = 1; ; game++) {
    assert.ok(game <= 5, 'five games without a play turn');
    if (game === 1) {
      await page.click('[data-test=quick]');
      await page.waitForSelector('.hand .card', { timeout: T(30000) });
    }
    d = await bidHigh(page);
    if (d.what === 'play') break;
    await page.click('[data-test=continue], [data-test=close-over]');
  }
  const room = roomOf(page);
  spec.page = await openPage({ locale: 'zh-CN', path: `/#/watch/${room}` });
  await spec.page.waitForSelector('.table-view.spectating', { timeout: T(30000) });

  // Hint: one request to the server, its first suggestion selected
  await page.click('[data-test=hint]');
  await hinted(page);
  const hint = await page.evaluate(() => window.__frames.filter((f) => f.type === 'hint').pop());
  assert.ok(hint && hint.plays.length > 0, 'a hint frame with suggestions arrived');
  const selected = (await faceCodes(page, '.hand .card.selected')).sort((a, b) => a - b);
  assert.deepEqual(selected, hint.plays[0], 'the first press selects the server\'s first suggestion');
  const hand = await faceCodes(page, '.hand .card');
  for (const p of hint.plays) for (const c of p) assert.ok(hand.includes(c), `hinted card ${c} is in the hand`);
  assert.ok(await page.isEnabled('[data-test=play]'), 'the hinted play can be played');
  await shot(page, 'casual-hint');
  // a second press: the next suggestion (or the next legal play), no new request
  await page.click('[data-test=hint]');
  const frames = await page.evaluate(() => window.__frames.filter((f) => f.type === 'hint').length);
  assert.equal(frames, 1, 'cycling needs no second request');
  await page.click('[data-test=play]');

  // A quick phrase: by our seat on our page and on the spectator's, in each one's language
  await page.click('[data-test=phrases] summary');
  await page.click('[data-test=phrase][data-phrase="1"]');
  await page.waitForSelector('[data-test=phrase-bubble][data-seat="0"]', { timeout: T(15000) });
  assert.match(await page.textContent('[data-test=phrase-bubble]'), /Good game!/);
  await spec.page.waitForSelector('[data-test=phrase-bubble][data-seat="0"]', { timeout: T(15000) });
  assert.match(await spec.page.textContent('[data-test=phrase-bubble]'), /打得好/);
  await shot(page, 'casual-phrase');
  await shot(spec.page, 'casual-phrase-spectator');

  // Auto-play on request: the bar says so and offers the way back
  await page.waitForSelector('[data-test=autoplay]', { timeout: T(30000) });
  await page.click('[data-test=autoplay]');
  await page.waitForSelector('[data-test=autoplay-bar]', { timeout: T(15000) });
  assert.match(await page.textContent('[data-test=autoplay-bar]'), /An AI is playing for you/);
  assert.match(await page.textContent('.seat.pos-me'), /AI playing/);
  await waitFor('the AI to play for us', async () => page.evaluate(() => {
    const at = window.__frames.findIndex((f) => f.type === 'seat' && f.seat === 0 && f.player && f.player.custody);
    return at >= 0 && window.__frames.slice(at).some((f) => f.type === 'played' && f.seat === 0 || f.type === 'over' && !f.redeal);
  }), 20000);
  await shot(page, 'casual-autoplay');
  await takeSeatBack(page);
  assert.ok(await page.evaluate(() => window.__frames.some((f) => f.type === 'seat' && f.seat === 0 && f.player && !f.player.custody &&
    window.__frames.indexOf(f) > window.__frames.findIndex((g) => g.type === 'seat' && g.player && g.player.custody))),
  'the seat is ours again');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(spec.page.errors, []);
  await spec.page.close();
  await page.close();
});

test('casual play on a phone, in Chinese: the clock runs out twice, an AI plays on with no fault, "取消托管" takes the seat back, a phrase, a hint', async () => {
  const page = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
  await page.waitForSelector('[data-test=quick]');
  await openCreateForm(page);
  const room = await createWithAIs(page, { games: 4, time: clockS(3), pause: 2 });
  assert.ok(room);
  // a phrase while our clock runs (a phrase is not a move: the clock goes on)
  await page.click('[data-test=phrases] summary');
  await shot(page, 'casual-phrases-menu-phone');
  await page.click('[data-test=phrase][data-phrase="8"]');
  await page.waitForSelector('[data-test=phrase-bubble][data-seat="0"]', { timeout: T(15000) });
  assert.match(await page.textContent('[data-test=phrase-bubble]'), /加油/);
  await assertFits(page, 'a phrase on a phone');
  await shot(page, 'casual-phrase-phone');
  // we do nothing: our first clock that runs out is one move made for us
  // (spec §14), the second in a row puts the seat on auto-play (the AI may
  // then end the game quickly: the panel may be open over the bar)
  // A game may end after our first miss (everyone passed, our pass the
  // last: a full run was stood up waiting for the bar there): then 继续,
  // and the next game's clocks.
  for (let game = 1; ; game++) {
    assert.ok(game <= 3, 'no auto-play in three games');
    const seen = await page.waitForFunction(() => {
      const bar = document.querySelector('[data-test=autoplay-bar]');
      if (bar && bar.offsetParent !== null) return 'bar';
      return document.querySelector('[data-test=continue]') ? 'over' : false;
    }, null, { timeout: T(20000) + 2 * clockS(3) * 1000, polling: 100 });
    if ((await seen.jsonValue()) === 'bar') break;
    await page.click('[data-test=continue]');
  }
  assert.match(await page.textContent('[data-test=autoplay-bar]'), /电脑正在为你托管/);
  assert.match(await page.textContent('[data-test=back]'), /取消托管/);
  await assertFits(page, 'the auto-play bar on a phone');
  await shot(page, 'casual-autoplay-phone');
  // the AI plays the game to its end: no fault
  const overInCustody = () => {
    const at = window.__frames.findIndex((f) => f.type === 'seat' && f.seat === 0 && f.player && f.player.custody);
    return at >= 0 ? window.__frames.slice(at).find((f) => f.type === 'over' && !f.redeal) || null : null;
  };
  await page.waitForFunction(overInCustody, null, { timeout: T(60000) });
  const over = await page.evaluate(overInCustody);
  assert.equal(over.fault, null, 'running out of time in a casual room is no fault');
  await page.waitForSelector('[data-test=gameover]', { timeout: T(15000) });
  assert.match(await page.textContent('[data-test=autoplay-note][data-seat="0"]'), /本局电脑为你托管代打，不算犯规/);
  assert.doesNotMatch(await page.textContent('[data-test=gameover] .over-head'), /犯规/);
  assert.equal(await page.$('[data-test=fault]'), null, 'no fault line');
  await shot(page, 'casual-autoplay-over-phone');
  // still on auto-play; close the panel (Escape: it may be gone already,
  // or the next game's may open meanwhile) and take the seat back
  await page.waitForSelector('[data-test=back]', { timeout: T(30000) });
  await takeSeatBack(page);
  // our turns are ours again: the next play turn's hint, on a phone
  let d;
  for (let game = 2; ; game++) {
    assert.ok(game <= 4, 'no play turn of ours in three games');
    d = await bidHigh(page);
    if (d.what === 'play') break;
    await page.keyboard.press('Escape');
  }
  await page.click('[data-test=hint]');
  await hinted(page);
  const hint = await page.evaluate(() => window.__frames.filter((f) => f.type === 'hint').pop());
  assert.deepEqual((await faceCodes(page, '.hand .card.selected')).sort((a, b) => a - b), hint.plays[0]);
  await assertFits(page, 'a hint on a phone');
  await shot(page, 'casual-hint-phone');
  await page.click('[data-test=play]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

/* A quick game that an AI plays for us to its end (auto-play on request);
 * returns its `over` frame. */
async function quickGameOnAutoPlay(page) {
  await page.click('[data-test=quick]');
  await page.waitForSelector('.hand .card', { timeout: T(30000) });
  await page.waitForSelector('[data-test=autoplay]', { timeout: T(30000) });
  await page.click('[data-test=autoplay]');
  await page.waitForFunction(() => window.__frames.some((f) => f.type === 'over' && !f.redeal), null, { timeout: T(60000) });
  return page.evaluate(() => window.__frames.find((f) => f.type === 'over' && !f.redeal));
}

/* Back in the lobby, waits (refreshing) for the game in "my games". */
async function myGameListed(page, over) {
  // the game-over panel stays until dismissed (the table behind is inert)
  if (await page.$('[data-test=continue], [data-test=close-over]')) await page.click('[data-test=continue], [data-test=close-over]');
  await page.click('[data-test=lobby]');
  await page.waitForSelector('[data-test=mygames]', { timeout: T(30000) });
  await waitFor('the game in my games', async () => {
    if (await page.$(`[data-test=mygame][data-id="${over.game_id}"]`)) return true;
    await page.click('[data-test=mygames-refresh]');
    return false;
  }, 30000, 300);
}

test('my games: each browser lists the games it played, a game opens in the replay viewer (desktop and phone)', async () => {
  const page = await openPage({ locale: 'en-US' });
  const over = await quickGameOnAutoPlay(page);
  await myGameListed(page, over);
  const row = await page.textContent(`[data-test=mygame][data-id="${over.game_id}"]`);
  const score = over.scores[0];
  assert.ok(row.includes(score > 0 ? `+${score}` : String(score)), `the row shows our score ${score}: ${row}`);
  assert.match(row, /AI/, 'the row names who else played');
  await page.$eval('[data-test=mygames]', (e) => e.scrollIntoView({ block: 'center' }));
  await shot(page, 'mygames');

  // another browser (its own key), on a phone: its own game only
  const phone = await openPage({ viewport: PHONE, locale: 'zh-CN', mobile: true });
  await phone.waitForSelector('[data-test=mygames-none]', { timeout: T(30000) });
  const overPhone = await quickGameOnAutoPlay(phone);
  await myGameListed(phone, overPhone);
  // (the AI goes on playing each browser's quick games: the lists grow)
  const ids = async (p) => p.$$eval('[data-test=mygame]', (r) => r.map((x) => +x.dataset.id));
  const overs = async (p) => p.evaluate(() => window.__frames.filter((f) => f.type === 'over' && !f.redeal).map((f) => f.game_id));
  const desktopGames = await overs(page);
  for (const id of await ids(phone)) assert.ok(!desktopGames.includes(id), `the desktop's game ${id} is on the phone's list`);
  await phone.$eval('[data-test=mygames]', (e) => e.scrollIntoView({ block: 'center' }));
  await assertFits(phone, 'my games on a phone');
  await shot(phone, 'mygames-phone');
  // the list opens the replay, under the private game's key
  const href = await phone.getAttribute('[data-test=mygame-replay]', 'href');
  // (with our seat: the replay names the seats from it, 我, 上家, 下家)
  const phoneSeat = await phone.evaluate(() => window.__frames.find((f) => f.type === 'joined').seat);
  assert.equal(href, `#/replay/${overPhone.game_id}-${overPhone.game_key}?from=${phoneSeat}`);
  await phone.click('[data-test=mygame-replay]');
  await phone.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
  assert.equal(await phone.$$eval('[data-zone=hand] .card.face', (c) => c.length), 51, 'the replay shows the deal');
  await shot(phone, 'mygames-replay-phone');

  // the desktop's list is its own too
  await page.click('[data-test=mygames-refresh]');
  await page.waitForSelector('[data-test=mygame]', { timeout: T(30000) });
  const phoneGames = await overs(phone);
  for (const id of await ids(page)) assert.ok(!phoneGames.includes(id), `the phone's game ${id} is on the desktop's list`);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(phone.errors, []);
  await phone.close();
  await page.close();
});
