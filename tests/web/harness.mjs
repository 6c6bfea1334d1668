// harness.mjs - what the browser tests share: a `ddz serve` on a free port
// with a temporary database, Debian's chromium through playwright-core,
// bounded waits, and screenshots once animations have finished.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const ART = path.join(HERE, 'artifacts');
export const DDZ = process.env.DDZ_BIN || path.join(ROOT, 'build', 'ddz');
export const CHROMIUM = process.env.DDZ_CHROMIUM || '/usr/bin/chromium';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/* How many times longer than on an idle machine with the Release build a
 * wait may take: DDZ_TEST_SLOWDOWN, which ctest sets for the build under
 * test (tests/test_clock.h says how it is chosen). */
export const SLOWDOWN = Math.max(1, Number(process.env.DDZ_TEST_SLOWDOWN) || 1);

/* How much slower than idle the machine is right now: the one-minute load
 * per core, between 1 and 4. Read at every wait, since other builds come
 * and go during a run: a quick-play game, its replay and a phone's
 * botzone-ftl2 game ran out of a fixed 10 s while two other builds shared
 * the two cores, and DDZ_TEST_SLOWDOWN is only set under ctest. */
export function loadFactor() {
  const perCore = os.loadavg()[0] / Math.max(1, os.cpus().length);
  return Math.min(4, Math.max(1, perCore));
}

/* The bound of a wait for what takes `ms` on an idle machine: generous,
 * since it only decides how long a broken test takes to fail; scaled by
 * DDZ_TEST_SLOWDOWN and by the load of the moment. */
export const T = (ms) => Math.round(ms * SLOWDOWN * loadFactor());

/* A room's clock, in seconds a move, for a test that must act within it
 * or waits for it to run out: `s` on an idle machine, three times that on
 * a slower run (a 5 s clock ran out on a loaded machine between the test
 * seeing its turn and its click). Not T()'s factor: a test that waits for
 * the clock to run out pays for every second of it. */
export const clockS = (s) => s * Math.min(SLOWDOWN, 3);

/* Polls fn until it is truthy, for at most T(ms); throws naming `what`.
 * The default is for a server round trip or a page's render, with room
 * for a loaded machine; a wait for a whole game passes its own. */
export async function waitFor(what, fn, ms = 30000, every = 50) {
  const end = Date.now() + T(ms);
  let last;
  while (Date.now() < end) {
    try {
      if (await fn()) return;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
}

/* Debian's chromium, headless (playwright gives every launch a fresh
 * temporary user-data-dir). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
  });
}

/* A fresh context of `browser` (pushed to `contexts`, for stop) with one
 * page at `url` that records console and page errors (page.errors) and
 * every WebSocket frame the client receives, in the page before the client
 * sees it: window.__frames holds the parsed frames, or with withUrl
 * {url, m}, the socket's URL and the frame. */
export async function openPage(browser, contexts, url, { viewport, locale = 'en-US', mobile = false, withUrl = false } = {}) {
  const ctx = await browser.newContext({ viewport, locale, isMobile: mobile, hasTouch: mobile });
  ctx.setDefaultTimeout(T(30000)); // clicks and navigations, as every wait
  contexts.push(ctx);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.addInitScript((withSocketUrl) => {
    const Native = window.WebSocket;
    window.__frames = [];
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => {
          try {
            const m = JSON.parse(e.data);
            window.__frames.push(withSocketUrl ? { url: this.url, m } : m);
          } catch { /* not JSON */ }
        });
      }
    };
  }, withUrl);
  await page.goto(url);
  return page;
}

/* Starts `ddz serve` (its log in artifacts/LOG) and chromium; returns
 * {base, browser, stop, db} (db: the server's SQLite file). */
export async function startAll(log, serveArgs = []) {
  fs.mkdirSync(ART, { recursive: true });
  assert.ok(fs.existsSync(DDZ), `ddz binary not found at ${DDZ}`);
  assert.ok(fs.existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (bash deploy/deps.sh installs it)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-web-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const fd = fs.openSync(path.join(ART, log), 'w');
  const server = spawn(DDZ, ['serve', '--port', String(port), '--bind', '127.0.0.1', '--db', path.join(tmp, 'web.db'),
    '--web', path.join(ROOT, 'web'), ...serveArgs], { stdio: ['ignore', fd, fd] });
  await waitFor('the server to answer /healthz', async () => (await fetch(base + '/healthz')).ok, 15000);
  const browser = await launchBrowser();
  const stop = async (contexts = []) => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close().catch(() => {});
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      const killer = setTimeout(() => server.kill('SIGKILL'), 5000);
      await once(server, 'exit');
      clearTimeout(killer);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  return { base, browser, stop, db: path.join(tmp, 'web.db') };
}

/* Lets transitions and entrance animations finish (the endless ones, a
 * pulse, never do). */
export async function settle(page) {
  await page.waitForFunction(() => document.getAnimations().every((a) =>
    a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity), null, { timeout: T(10000) }).catch(() => {});
}

export async function shot(page, name) {
  await settle(page);
  await page.screenshot({ path: path.join(ART, name + '.png') });
}

/* Waits for this page's next decision: 'bid', 'play', or 'over' (the
 * game-over panel is open). */
export async function decision(page, ms = 30000) {
  const hd = await page.waitForFunction(() => {
    if (document.querySelector('[data-test=gameover]')) return 'over';
    const c = document.querySelector('[data-test=controls]');
    if (!c || !c.dataset.seq || c.dataset.pending) return false;
    if (document.querySelector('[data-test=bid0]:not(:disabled)')) return 'bid';
    if (document.querySelector('[data-test=hint]:not(:disabled)')) return 'play';
    return false;
  }, null, { timeout: T(ms), polling: 30 });
  return hd.jsonValue();
}

/* Opens the lobby's create form and, with `seatwise`, its seat-by-seat
 * part, whatever a redraw left open: a click on an open summary would close
 * it again. Waits (bounded) for each to be open. */
export async function openCreateForm(page, { seatwise = false } = {}) {
  const parts = ['[data-test=create-box]'];
  if (seatwise) parts.push('[data-test=seatwise]');
  for (const sel of parts) {
    await waitFor(`${sel} open`, async () => {
      const d = await page.$(sel);
      if (!d) return false;
      if (await d.evaluate((e) => e.open)) return true;
      await page.click(`${sel} > summary`, { timeout: T(5000) }).catch(() => {});
      return false;
    }, 30000, 100);
  }
}

/* One game of a listed room (its id readable without a key) on the server
 * at `base`: a client at West bidding the most and playing a random legal
 * play, two ai:random seats, in a room named `room`. Resolves to its
 * `over` (with its game_id); rejects with "no game: …" for an all-pass
 * deal or a refusal (the caller plays another), and after T(30 s). Needs
 * node's WebSocket (node_test.sh turns it on). */
export function randomListedGame(base, room = 'a random game') {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(base.replace('http', 'ws') + '/ws');
    const timer = setTimeout(() => { ws.close(); reject(new Error('the game did not end in time')); }, T(30000));
    const done = (f, x) => { clearTimeout(timer); ws.close(); f(x); };
    ws.onerror = () => done(reject, new Error('cannot connect'));
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1, name: 'Ana' }));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'welcome') {
        ws.send(JSON.stringify({ type: 'create', seat: 0,
          options: { name: room, games: 1, pause: 0, seats: [null, 'ai:random', 'ai:random'] } }));
      } else if (m.type === 'turn' && m.seat === 0 && m.legal) {
        ws.send(JSON.stringify(m.action === 'bid' ? { type: 'bid', seq: m.seq, bid: Math.max(...m.legal) }
          : { type: 'play', seq: m.seq, cards: m.legal[Math.floor(Math.random() * m.legal.length)] }));
      } else if (m.type === 'over' && m.landlord !== null && m.game_id) {
        done(resolve, m);
      } else if (m.type === 'over' || m.type === 'error') {
        done(reject, new Error('no game: ' + e.data)); // an all-pass deal, or refused
      }
    };
  });
}

/* Plays this page's seat with the highest bid and the hint's first play
 * until the game-over panel opens (at most 100 of our turns). `onPlay`
 * runs on each of our turns to play, before we act; it returns true when
 * it acted itself. `ms`: the wait for each of our turns (decision()). */
export async function playToOver(page, { onPlay, ms = 30000 } = {}) {
  for (let guard = 0; guard < 100; guard++) {
    const d = await decision(page, ms);
    if (d === 'over') return;
    if (d === 'bid') {
      const bids = await page.$$eval('[data-test^=bid]:not(:disabled)', (b) => b.map((x) => x.dataset.test));
      await page.click(`[data-test=${bids.sort().pop()}]`);
    } else {
      if (onPlay && await onPlay()) continue; // it acted itself
      await page.click('[data-test=hint]');
      await page.click('[data-test=play]');
    }
  }
  throw new Error('the game did not end');
}

/* Signs a new person up through the lobby's own dialog (a guest, who is
 * not offered rated play before), as `name` with `password`; resolves once
 * the lobby offers rated quick play, which only an account is offered. */
export async function signUp(page, name, password) {
  await page.waitForSelector('[data-test=acct-open]');
  assert.equal(await page.$('[data-test=rated-quick]'), null, 'a guest is not offered rated play');
  await page.click('[data-test=acct-open]');
  await page.waitForSelector('[data-test=acct-dialog]');
  await page.fill('[data-test=acct-name]', name);
  await page.fill('[data-test=acct-password]', password);
  await page.click('[data-test=acct-signup]');
  await page.waitForSelector('[data-test=rated-quick]');
}
