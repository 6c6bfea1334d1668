// board.test.mjs - issue 40's whole path on a phone, in Chinese (spec §15):
// a new person signs up in the lobby, plays five rated quick games
// against the hosted AIs through the page, each game-over panel saying
// how her rating moved, and finds herself on the leaderboard (five rated
// games list an account) by the page's own links, with the rating the
// server has for her. Nothing is written into the database by the test.
// Screenshots in artifacts/ (board-*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, openPage, waitFor, shot, T, playToOver, signUp } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
const NAME = '小芳';
const GAMES = 5; // DDZ_STORE_BOARD_MIN_GAMES: the rated games that list an account
let env;
const contexts = [];

// the hosted AIs fill her table after 1 s (rated.c's shortest wait), so
// five games are five games' time, not five waits; and act at once (no
// 0.7 s pause a move: 41 s for the five games instead of 118 s, the
// chromium tests run one at a time). A hint refused by its rate (4 in 5 s)
// falls back to the legal plays in the page (casual.js), so play goes on.
before(async () => { env = await startAll('serve-board.log', ['--rated-fill-s', '1', '--ai-delay-ms', '0']); });
after(async () => { if (env) await env.stop(contexts); });

/* The page's errors but the refusals chromium logs for 4xx answers. */
const unexpected = (page) => page.errors.filter((e) => !/status of (400|401|404|409) /.test(e));

async function noOverflow(page, what) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(over <= 0, `${what}: ${over} px wider than the screen`);
}

/* One rated quick game from the lobby, played out with the hint's plays;
 * resolves to its `rated` frame once the panel has said it. `prev`: the
 * rating before it (1500 for her first game). */
async function ratedGame(page, k, prev) {
  const seen = await page.evaluate(() => window.__frames.filter((f) => f.type === 'rated').length);
  await page.click('[data-test=rated-quick]');
  await page.waitForSelector('[data-test=controls]', { timeout: T(20000) });
  assert.equal((await page.evaluate(() => window.__frames.filter((f) => f.type === 'state').pop())).room.options.rated, true);
  await playToOver(page, { ms: 60000 });
  await waitFor(`game ${k}'s rated frame`, () => page.evaluate((n) => window.__frames.filter((f) => f.type === 'rated').length > n, seen));
  const rated = await page.evaluate(() => window.__frames.filter((f) => f.type === 'rated').pop());
  assert.ok(!rated.forfeit, `game ${k} was played out, not forfeited`);
  // her rating before this game is the one the last game left
  assert.ok(Math.abs(rated.before - prev) < 0.05, `game ${k}: rated from ${rated.before}, the last game left ${prev}`);
  assert.notEqual(rated.rating, rated.before, `game ${k}: the rating moved`);
  await page.waitForSelector('[data-test=rating-change]', { timeout: T(10000) });
  const d = Math.round(rated.rating - rated.before);
  const line = `等级分 ${Math.round(rated.before)} → ${Math.round(rated.rating)}（${d > 0 ? '+' : ''}${d}）`;
  assert.ok((await page.textContent('[data-test=rating-change]')).includes(line), `game ${k}'s panel says ${line}`);
  // the refused hints' notes (see startAll above) gone before the picture
  await page.waitForFunction(() => !document.querySelector('.toast'), null, { timeout: T(10000) });
  await shot(page, `board-over-${k}`);
  // back to the lobby by the panel's own button, for the next game
  await page.click('[data-test=over-lobby]');
  await page.waitForSelector('[data-test=rated-quick]');
  return rated;
}

test('a new person signs up, plays five rated games and finds herself on the leaderboard (a phone, Chinese)', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await signUp(page, NAME, 'mima12345678');
  // before five rated games, nobody is listed; the board's back button returns to the lobby
  await page.click('[data-test=leaderboard-link]');
  await page.waitForSelector('[data-test=board-empty]');
  assert.match(await page.textContent('[data-test=board-empty]'), /还没有人上榜/);
  await page.waitForSelector('[data-test=board-you]'); // and how she gets there
  assert.match(await page.textContent('[data-test=board-you]'), /你还没有这种规则的排位赛对局/);
  await page.click('.lobby-head .back');
  await page.waitForSelector('[data-test=rated-quick]');
  let rating = 1500;
  const started = Date.now();
  for (let k = 1; k <= GAMES; k++) rating = (await ratedGame(page, k, rating)).rating;
  console.log(`five rated games in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  // the server's rating for her, as her profile and the board read it
  const r = await fetch(`${env.base}/api/players/${encodeURIComponent(NAME)}`);
  assert.equal(r.status, 200);
  const mine = (await r.json()).ratings.caai;
  assert.equal(mine.games, GAMES);
  assert.ok(Math.abs(mine.rating - rating) < 0.05, `the server has ${mine.rating}, the last panel said ${rating}`);

  // the lobby's link to the leaderboard, then her row there
  await page.click('[data-test=leaderboard-link]');
  await page.waitForSelector('[data-test=board-row]');
  assert.equal(new URL(page.url()).hash, '#/leaderboard');
  assert.match(await page.textContent('h1'), /排行榜/);
  const rows = await page.$$eval('[data-test=board-row]', (trs) => trs.map((tr) => ({ me: tr.classList.contains('me'),
    name: tr.querySelector('[data-test=board-player]').textContent, rating: tr.querySelector('[data-test=board-rating] strong').textContent,
    games: tr.lastElementChild.textContent })));
  assert.deepEqual(rows, [{ me: true, name: NAME, rating: mine.rating.toFixed(0), games: String(GAMES) }]);
  assert.equal(await page.$('[data-test=board-you]'), null, 'listed: her row, no line of her own besides');
  await noOverflow(page, 'the leaderboard');
  // her row on the screen, not under something else
  const hit = await page.$eval('[data-test=board-row].me [data-test=board-player]', (a) => {
    const b = a.getBoundingClientRect();
    const top = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return { inView: b.top >= 0 && b.bottom <= window.innerHeight && b.left >= 0 && b.right <= window.innerWidth, own: a.contains(top) };
  });
  assert.deepEqual(hit, { inView: true, own: true });
  await shot(page, 'board-leaderboard-phone');

  // her name there leads to her profile, with the same rating and games
  await page.click('[data-test=board-row].me [data-test=board-player]');
  await page.waitForSelector('[data-test=profile-rating]');
  assert.equal((await page.textContent('[data-test=profile-rating]')).split(' ')[0], mine.rating.toFixed(0));
  assert.equal(await page.textContent('[data-test=profile-count]'), String(GAMES));
  assert.deepEqual(unexpected(page), []);
});
