// tv.test.mjs - watching a competition (#/tv/ladder, #/tv/tournament): a
// delayed broadcast of the published deals, every hand open, one game from
// its first play to its last, then the newest published one; reached from
// the lobby and the competition pages, on a desktop (1280x800) and a phone
// (390x844, touch), in English and Chinese.
//
// Run by node_test.sh (ctest): DDZ_BIN names the ddz binary. Every wait is
// on a condition with a bound (harness T()), never a fixed sleep.
// Screenshots go to tests/web/artifacts/tv-*.png.
import { test, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { openPage as open, startAll, shot, T, waitFor } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const servers = [];
after(async () => { for (const s of servers) await s.stop(s.contexts); });

/* A server with `args` (its log in artifacts/LOG); {base, page(path, opts)}. */
async function serve(log, args = []) {
  const s = await startAll(log, args);
  s.contexts = [];
  servers.push(s);
  s.page = (p, { viewport = DESKTOP, locale = 'en-US', mobile = false } = {}) =>
    open(s.browser, s.contexts, s.base + p, { viewport, locale, mobile });
  return s;
}

const WORDS = {
  en: { title: 'Ladder TV', watch: 'Watch', over: /^Game over/, greedy: 'Computer (normal)', rating: /rating \d+\.\d ± \d+\.\d/, where: /Deal (\d+) · table \d of \d/ },
  zh: { title: '天梯直播', watch: '观看', over: /^本局结束/, greedy: '电脑（普通）', rating: /评分 \d+\.\d ± \d+\.\d/, where: /第 (\d+) 副 · 第 \d \/ \d 桌/ },
};

/* What the watch page shows now: the game id, the deal, the cards face
 * up in the hands and on the table, whether the result is up. */
function look(page) {
  return page.evaluate(() => {
    const tv = document.querySelector('[data-test=tv]');
    return {
      game: tv ? tv.dataset.game : '',
      where: (document.querySelector('[data-test=tv-where]') || {}).textContent || '',
      hands: document.querySelectorAll('[data-zone=hand] .card.face').length,
      backs: document.querySelectorAll('[data-zone=hand] .card.back').length,
      result: !!document.querySelector('[data-test=replay-result]'),
      status: (document.querySelector('[data-test=tv-status]') || {}).textContent || '',
    };
  });
}

/* Follows the watch page until it has shown one game to its result and
 * moved on to another, which it shows from its deal (every hand still
 * whole): returns both games' looks. A game never changes before its
 * result was on screen. The result is photographed as `shotName`. */
async function followOneGame(page, label, shotName) {
  const w = WORDS[label.slice(-2)];
  let first = null, seen = null, sawEnd = false, next = null;
  await waitFor(`${label}: a game shown to its end, then the next`, async () => {
    const l = await look(page);
    if (!l.game) return false;
    if (!first) first = l;
    if (l.game === first.game) {
      assert.equal(l.backs, 0, `${label}: a hand hidden on the TV`);
      if (!sawEnd && l.result && w.over.test(l.status)) {
        sawEnd = true;
        await shot(page, shotName);
      }
      seen = l;
      return false;
    }
    // the game changed: only after the first one's result was shown
    assert.ok(sawEnd && seen.result, `${label}: left game ${first.game} before its end (${seen.status})`);
    next = l;
    return true;
  }, 180000, 100);
  // the new game starts at its deal: no card has left a hand yet
  assert.ok(next.hands >= 51, `${label}: game ${next.game} shown from its start (${next.hands} cards in the hands)`);
  return { first, next };
}

test('watching the ladder: the lobby and the ladder page lead to its TV, which shows one published game whole with every hand open, then the newest', async () => {
  const s = await serve('serve-tv-ladder.log', ['--ladder-ai', 'greedy', '--ladder-ai', 'random',
    '--ladder-ai', 'strong:20', '--ladder-time', '3']);
  const runs = [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }]];
  const pages = [];
  for (const [label, opts] of runs) {
    const w = WORDS[label.slice(-2)];
    // the lobby offers the ladder's TV beside its page
    const page = await s.page('/', opts);
    await page.waitForSelector('[data-test=ladder-link] [data-test=tv-link]', { timeout: T(30000) });
    assert.equal((await page.textContent('[data-test=ladder-link] [data-test=tv-link]')).trim(), w.watch);
    await shot(page, `tv-lobby-${label}`);
    await page.click('[data-test=ladder-link] [data-test=tv-link]');
    await page.waitForFunction(() => location.hash === '#/tv/ladder', null, { timeout: T(30000) });
    await page.waitForSelector('[data-test=tv][data-game]:not([data-game=""]) [data-zone=hand] .card.face', { timeout: T(30000) });
    pages.push([label, page]);
  }
  // both follow a game at once (a game lasts some 40 s at a play a second)
  const followed = await Promise.all(pages.map(async ([label, page]) => {
    const w = WORDS[label.slice(-2)];
    const l = await look(page);
    assert.match(await page.textContent('header .title'), new RegExp(w.title));
    assert.match(l.where, w.where, `${label}: the deal and table are said`);
    const felt = await page.textContent('.felt');
    assert.ok(felt.includes(w.greedy), `${label}: the players are named: ${felt}`);
    assert.match(felt, w.rating, `${label}: with their ratings`);
    assert.ok(!/\bai:/.test(felt), `${label}: raw AI names: ${felt}`);
    await shot(page, `tv-ladder-${label}`);
    return [label, page, await followOneGame(page, label, `tv-ladder-result-${label}`)];
  }));
  for (const [label, page, { first, next }] of followed) {
    const w = WORDS[label.slice(-2)];
    const d1 = Number(w.where.exec(first.where)[1]), d2 = Number(w.where.exec(next.where)[1]);
    assert.ok(d2 > d1, `${label}: moved on to a newer deal (${d1} then ${d2})`);
    // the game shown is a published one: the API names it or a newer one
    const api = await (await fetch(s.base + '/api/ladder')).json();
    assert.ok(api.tv.deal >= d2, `${label}: the API's TV is deal ${api.tv.deal}, the page shows ${d2}`);
    assert.deepEqual(page.errors, [], `${label}: console errors`);
  }
  // the ladder page leads there too, in the other language on each device
  for (const [label, opts] of [['desktop-zh', { locale: 'zh-CN' }], ['phone-en', { viewport: PHONE, mobile: true }]]) {
    const w = WORDS[label.slice(-2)];
    const page = await s.page('/#/ladder', opts);
    await page.waitForSelector('[data-test=ladder] tbody tr', { timeout: T(30000) });
    assert.equal(await page.$('[data-test=watch-table]'), null, `${label}: no live table to watch (it shows nothing)`);
    await page.waitForSelector('[data-test=tv-link]', { timeout: T(30000) });
    await shot(page, `tv-ladder-page-${label}`);
    await page.click('[data-test=tv-link]');
    await page.waitForSelector('[data-test=tv][data-game]:not([data-game=""]) [data-zone=hand] .card.face', { timeout: T(30000) });
    assert.match(await page.textContent('[data-test=tv-where]'), w.where);
    await shot(page, `tv-ladder-${label}`);
    // back to the ladder page
    await page.click('[data-test=tv-back]');
    await page.waitForFunction(() => location.hash === '#/ladder', null, { timeout: T(30000) });
    assert.deepEqual(page.errors, [], `${label}: console errors`);
  }
  // a ladder room's 观战 / Watch in the lobby's list opens the TV too (the
  // held table itself shows nothing); the room may close before the click
  const page = await s.page('/');
  await waitFor('a ladder room watched from the lobby', async () => {
    if (await page.evaluate(() => location.hash === '#/tv/ladder')) return true;
    const b = await page.$('.room:has(.room-name:text-matches("^Ladder")) [data-test=watch]');
    if (b) await b.click().catch(() => {}); // it may be gone by now
    return false;
  }, 30000, 200);
  await page.waitForSelector('[data-test=tv][data-game]:not([data-game=""]) [data-zone=hand] .card.face', { timeout: T(30000) });
  assert.deepEqual(page.errors, []);
});

test('watching a tournament: its TV shows the newest published game with every hand open, from the competition page', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-tv-t-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true })); // once its server stopped
  fs.writeFileSync(path.join(dir, 'players'),
    'alpha=ai:greedy\nbeta=ai:random\ngamma=ai:greedy\ndelta=ai:random\nomega=ai:greedy\nsigma=ai:random\n');
  fs.writeFileSync(path.join(dir, 'options'), `--format swiss --turns 1 --games 2 --time 5 --seed ${'07'.repeat(32)}\n`);
  const s = await serve('serve-tv-tournament.log', ['--tournament', dir]);
  for (const [label, opts] of [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }]]) {
    const page = await s.page('/#/tournament', opts);
    await page.waitForSelector('[data-test=standings] tbody tr', { timeout: T(30000) });
    await page.waitForSelector('[data-test=tv-link]', { timeout: T(30000) });
    await page.click('[data-test=tv-link]');
    await page.waitForFunction(() => location.hash === '#/tv/tournament', null, { timeout: T(30000) });
    await page.waitForSelector('[data-test=tv][data-game]:not([data-game=""]) [data-zone=hand] .card.face', { timeout: T(30000) });
    const api = await (await fetch(s.base + '/api/tournament')).json();
    const l = await look(page);
    assert.equal(l.game, String(api.tv.game), `${label}: the newest published game`);
    assert.ok(l.hands > 0 && l.backs === 0, `${label}: every hand open (${l.hands} up, ${l.backs} down)`);
    assert.match(l.where, label.endsWith('zh') ? /第 \d+ 桌 · 第 \d+ 局/ : /table \d+ · game \d+/);
    await shot(page, `tv-tournament-${label}`);
    assert.deepEqual(page.errors, [], `${label}: console errors`);
  }
});
