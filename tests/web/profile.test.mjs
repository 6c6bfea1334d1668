// profile.test.mjs - people's profile and leaderboard pages (spec §15,
// issue 40) in the browser: a profile shows each rule set's rating ±
// deviation, its games, a chart with one point per rated game, the win
// rates as landlord and as farmer, and its rated games, each opening its
// replay; the leaderboard lists the accounts with at least 5 rated games
// by rating, each linking to its profile, and not those with fewer; an
// unknown name says so; /@/NAME (the address to share) opens the profile;
// the signed-in person reaches her profile from the lobby and her account
// page from it; her place on the board when its rows do not hold her (below
// them, under 5 games, no rated game) and on her profile. Desktop in English, a phone in Chinese without sideways
// scrolling. Screenshots in artifacts/.
//
// How the ratings are made: the accounts over HTTP, the games for real (a
// WebSocket client from Node against two ai:random seats, as
// analysis.test.mjs), and, as rated play does not write them yet, the
// ratings and their history written into the server's SQLite file with
// the sqlite3 command (the tables of service/store/store_sqlite.c,
// schema 8) while the server runs (WAL: its reads see them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startAll, openPage, waitFor, shot, T, randomListedGame } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'a long enough secret';
let env;
const contexts = [];
let gameIds = []; // the real games, in the order played

/* The page's errors but the answers this test asks for (an unknown
 * name's 404, an unknown rule set's 400: chromium logs every 4xx answer
 * as an error). */
const unexpected = (page) => page.errors.filter((e) => !/status of (400|404) /.test(e));

/* What people see of a Weng-Lin mu and sigma (docs/decisions.md,
 * "People's ratings"): 1500 + 40 (mu - 25) ± 40 sigma. */
const shown = (mu) => 1500 + 40 * (mu - 25);
const dev = (sigma) => 40 * sigma;

/* Each account's rating under caai: its history (mu, sigma after each of
 * its rated games, the newest last) and counts. Ren has fewer than 5
 * games (not on the board, though rated highest); Zoe none. */
const PEOPLE = {
  Mei: { hist: [[25.9, 8.0], [26.8, 7.6], [25.7, 7.3], [27.1, 7.0], [28.0, 6.8]], ll: [2, 1], farmer: [3, 2] },
  Lin: { hist: [[26, 8], [27.5, 7], [28.4, 6], [29.2, 5.5], [30.0, 5.0]], games: 7, ll: [4, 3], farmer: [3, 2] },
  Kai: { hist: [[24, 8], [23.5, 7], [23.1, 6.6], [23.4, 6.3], [23.0, 6.0]], ll: [1, 0], farmer: [4, 2] },
  Ren: { hist: [[30, 8], [33, 7], [35, 6]], ll: [3, 3], farmer: [0, 0] },
  Zoe: null,
};

async function post(path, body) {
  const r = await fetch(env.base + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

function sqlText(s) {
  return "'" + s.replace(/'/g, "''") + "'";
}

/* The rows rated play will write, for PEOPLE, under caai: history rows on
 * the real games (a day apart, the newest now), the rating row. */
function seedSql() {
  const day = 86400000, now = Date.now();
  const lines = ['.timeout 10000', 'BEGIN;'];
  for (const [name, p] of Object.entries(PEOPLE)) {
    if (!p) continue;
    const who = `(SELECT id FROM accounts WHERE name = ${sqlText(name)})`;
    p.hist.forEach(([mu, sigma], i) => {
      const at = now - (p.hist.length - 1 - i) * day;
      lines.push(`INSERT INTO people_rating_hist(player, rules, game, at_ms, mu, sigma) VALUES (${who}, 'caai', ${gameIds[i]}, ${at}, ${mu}, ${sigma});`);
    });
    const [mu, sigma] = p.hist[p.hist.length - 1];
    lines.push(`INSERT INTO people_ratings(player, rules, mu, sigma, games, ll_games, ll_wins, farmer_games, farmer_wins) VALUES (${who}, 'caai', ${mu}, ${sigma}, ${p.games || p.hist.length}, ${p.ll[0]}, ${p.ll[1]}, ${p.farmer[0]}, ${p.farmer[1]});`);
  }
  lines.push('COMMIT;');
  return lines.join('\n') + '\n';
}

before(async () => {
  assert.equal(typeof WebSocket, 'function', 'run node with --experimental-websocket (node_test.sh does)');
  assert.doesNotThrow(() => execFileSync('sqlite3', ['--version']), 'the sqlite3 command is needed (bash deploy/deps.sh installs it)');
  env = await startAll('serve-profile.log', ['--ai-delay-ms', '0']);
  for (const name of Object.keys(PEOPLE)) assert.equal((await post('/api/accounts', { name, password: PASSWORD })).status, 201, name);
  while (gameIds.length < 5) {
    try {
      gameIds.push((await randomListedGame(env.base, 'rated seed')).game_id);
    } catch (e) {
      if (!/no game: .*"over"/.test(String(e))) throw e; // an all-pass deal: another
    }
  }
  execFileSync('sqlite3', [env.db], { input: seedSql() });
  const r = await fetch(env.base + '/api/players/Mei');
  assert.equal(r.status, 200);
  assert.deepEqual((await r.json()).games, gameIds.slice().reverse(), 'the newest rated first');
});

after(async () => { if (env) await env.stop(contexts); });

async function noOverflow(page, what) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(over <= 0, `${what}: ${over} px wider than the screen`);
}

async function texts(page, sel) {
  return page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));
}

test('a profile, its replays and the leaderboard; an unknown name; her own profile from the lobby (desktop, English)', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/#/@/mei', { viewport: DESKTOP });
  await page.waitForSelector('[data-test=profile-rules][data-rules=caai]');
  assert.equal(await page.textContent('[data-test=profile-name]'), 'Mei', 'the name as made, whatever case the link has');
  const mei = PEOPLE.Mei, [mu, sigma] = mei.hist[mei.hist.length - 1];
  assert.equal(await page.textContent('[data-test=profile-rating]'), `${shown(mu).toFixed(0)} ± ${dev(sigma).toFixed(0)}`);
  assert.equal(await page.textContent('[data-test=profile-count]'), '5');
  assert.equal(await page.textContent('[data-test=profile-ll]'), '50% (1/2)');
  assert.equal(await page.textContent('[data-test=profile-farmer]'), '67% (2/3)');
  // one point per history row, the last at the rating
  const chart = await page.$eval('[data-test=profile-chart]', (svg) => ({ points: svg.dataset.points,
    dots: svg.querySelectorAll('circle').length, label: svg.getAttribute('aria-label') }));
  assert.equal(chart.points, '5');
  assert.equal(chart.dots, 5);
  assert.match(chart.label, /5 rated games: from 1536 to 1620/);
  // the games, the newest first, each a replay link
  const links = await page.$$eval('[data-test=profile-game]', (as) => as.map((a) => a.getAttribute('href')));
  assert.deepEqual(links, gameIds.slice().reverse().map((id) => '#/replay/' + id));
  await shot(page, 'profile-desktop');
  await page.click('[data-test=profile-game] >> nth=0');
  await page.waitForSelector('[data-test=replay-next]');
  assert.equal(new URL(page.url()).hash, '#/replay/' + gameIds[4]);
  await shot(page, 'profile-replay-desktop');
  await page.goBack();
  await page.waitForSelector('[data-test=profile-board]');

  // its rule set's leaderboard: 5 games or more, by rating; Ren (3) and Zoe (0) not
  await page.click('[data-test=profile-board]');
  await page.waitForSelector('[data-test=board-row]');
  assert.equal(new URL(page.url()).hash, '#/leaderboard/caai');
  assert.deepEqual(await texts(page, '[data-test=board-player]'), ['Lin', 'Mei', 'Kai']);
  assert.deepEqual(await texts(page, '[data-test=board-rating]'), ['1700 ± 200', '1620 ± 272', '1420 ± 240']);
  await shot(page, 'profile-leaderboard-desktop');
  await page.click('[data-test=board-player] >> nth=0');
  await page.waitForSelector('[data-test=profile-rules]');
  assert.equal(await page.textContent('[data-test=profile-name]'), 'Lin');
  assert.equal(await page.textContent('[data-test=profile-count]'), '7');

  // an unknown name, through the address to share
  await page.goto(env.base + '/@/Nobody');
  await page.waitForSelector('[data-test=profile-missing]');
  assert.equal(new URL(page.url()).hash, '#/@/Nobody');
  assert.match(await page.textContent('[data-test=profile-missing]'), /No player named “Nobody”/);
  await shot(page, 'profile-missing-desktop');
  // a rule set this server does not rate
  await page.goto(env.base + '/#/leaderboard/nonesuch');
  await page.waitForSelector('[data-test=board-empty]');
  assert.match(await page.textContent('[data-test=board-empty]'), /rates no such rule set/);
  await shot(page, 'profile-leaderboard-norules-desktop');

  // signed in as Mei: the lobby's account box leads to her profile, which
  // leads to her account page; the lobby's link to the leaderboard marks her
  await page.goto(env.base + '/#/');
  await page.click('[data-test=acct-open]');
  await page.fill('[data-test=acct-name]', 'Mei');
  await page.fill('[data-test=acct-password]', PASSWORD);
  await page.click('[data-test=acct-signin]');
  await page.click('[data-test=acct-profile]');
  await page.waitForSelector('[data-test=profile-account]');
  await shot(page, 'profile-own-desktop');
  await page.click('[data-test=profile-account]');
  await page.waitForSelector('[data-test=account-page]');
  await page.goto(env.base + '/#/');
  await page.waitForSelector('[data-test=leaderboard-link]');
  await shot(page, 'profile-lobby-link-desktop');
  await page.click('[data-test=leaderboard-link]');
  await page.waitForSelector('[data-test=board-row]');
  await waitFor('her row marked', async () => (await texts(page, '[data-test=board-row].me [data-test=board-player]')).join() === 'Mei');
  assert.equal(await page.$('[data-test=board-you]'), null, 'on the board: no line of her own besides her row');
  // her profile says her place there
  await page.click('[data-test=board-row].me [data-test=board-player]');
  await page.waitForSelector('[data-test=profile-rank]');
  assert.equal((await page.textContent('[data-test=profile-rank]')).trim(), '#2');
  assert.deepEqual(unexpected(page), []);
});

/* Signs `name` in through the lobby's dialog on a fresh page. */
async function signedIn(name, opts) {
  const page = await openPage(env.browser, contexts, env.base + '/', opts);
  await page.click('[data-test=acct-open]');
  await page.fill('[data-test=acct-name]', name);
  await page.fill('[data-test=acct-password]', PASSWORD);
  await page.click('[data-test=acct-signin]');
  await page.waitForSelector('[data-test=rated-quick]');
  return page;
}

test('her own place when the board does not list her: below its rows, under 5 games, no rated game', async () => {
  // Mei (2nd) under a board cut to its first row, as one below the 50
  // rows the server lists sees it: the answer trimmed on its way to the page
  const page = await signedIn('Mei', { viewport: DESKTOP });
  await page.route('**/api/leaderboard?*', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.players = body.players.slice(0, 1);
    await route.fulfill({ response: res, json: body });
  });
  await page.click('[data-test=leaderboard-link]');
  await page.waitForSelector('[data-test=board-you]');
  assert.deepEqual(await texts(page, '[data-test=board-row] [data-test=board-player]'), ['Lin']);
  const mei = PEOPLE.Mei, [mu] = mei.hist[mei.hist.length - 1];
  const you = await page.$eval('[data-test=board-you]', (tr) => ({ me: tr.classList.contains('me'), tag: tr.tagName,
    cells: [...tr.cells].map((td) => td.textContent.trim()) }));
  assert.deepEqual(you, { me: true, tag: 'TR', cells: ['2', 'Mei', `${shown(mu).toFixed(0)} ± ${dev(mei.hist[4][1]).toFixed(0)}`, '5'] });
  await shot(page, 'profile-leaderboard-below-desktop');
  assert.deepEqual(unexpected(page), []);

  // Ren, 3 rated games, on a phone in Chinese: the games still to play
  const ren = await signedIn('Ren', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await ren.click('[data-test=leaderboard-link]');
  await ren.waitForSelector('[data-test=board-you]');
  assert.deepEqual(await texts(ren, '[data-test=board-player]'), ['Lin', 'Mei', 'Kai']);
  const [rmu, rsigma] = PEOPLE.Ren.hist[2];
  assert.equal((await ren.textContent('[data-test=board-you]')).trim(),
    `你：等级分 ${shown(rmu).toFixed(0)} ± ${dev(rsigma).toFixed(0)}，已打 3 局排位赛，打满 5 局即可上榜。`);
  await noOverflow(ren, 'the leaderboard with her line');
  await shot(ren, 'profile-leaderboard-few-phone');
  // her profile has no place on the board
  await ren.goto(env.base + '/#/@/Ren');
  await ren.waitForSelector('[data-test=profile-rating]');
  assert.equal(await ren.$('[data-test=profile-rank]'), null);
  assert.deepEqual(unexpected(ren), []);

  // Zoe, no rated game: how to start one
  const zoe = await signedIn('Zoe', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await zoe.click('[data-test=leaderboard-link]');
  await zoe.waitForSelector('[data-test=board-you]');
  assert.match(await zoe.textContent('[data-test=board-you]'), /你还没有这种规则的排位赛对局：在大厅点“排位快速开始”即可开始/);
  assert.deepEqual(unexpected(zoe), []);
});

test('a profile, the leaderboard and the empty states on a phone, in Chinese', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/@/lin', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await page.waitForSelector('[data-test=profile-rules]');
  assert.equal(await page.textContent('[data-test=profile-name]'), 'Lin');
  const panel = await page.textContent('[data-test=profile-rules]');
  assert.match(panel, /等级分/);
  assert.match(panel, /地主胜率/);
  assert.match(panel, /农民胜率/);
  assert.equal(await page.textContent('[data-test=profile-ll]'), '75% (3/4)');
  assert.equal(await page.$eval('[data-test=profile-chart]', (svg) => svg.querySelectorAll('circle').length), 5);
  assert.match(await page.textContent('.people-games h2'), /最近对局/);
  await noOverflow(page, 'the profile');
  await shot(page, 'profile-phone');
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await shot(page, 'profile-phone-games');

  await page.click('[data-test=profile-board]');
  await page.waitForSelector('[data-test=board-row]');
  assert.match(await page.textContent('h1'), /排行榜/);
  assert.deepEqual(await texts(page, '[data-test=board-player]'), ['Lin', 'Mei', 'Kai']);
  await noOverflow(page, 'the leaderboard');
  // the table fits its box, or scrolls inside it
  const box = await page.$eval('[data-test=board-scroll]', (el) => ({ over: el.scrollWidth - el.clientWidth,
    scrolls: getComputedStyle(el).overflowX }));
  assert.ok(box.over <= 0 || box.scrolls === 'auto', `the table overflows its box by ${box.over} px`);
  await shot(page, 'profile-leaderboard-phone');

  // another rule set: nobody rated there yet
  await page.selectOption('[data-test=board-rules]', 'botzone-ftl');
  await page.waitForSelector('[data-test=board-empty]');
  assert.equal(new URL(page.url()).hash, '#/leaderboard/botzone-ftl');
  assert.match(await page.textContent('[data-test=board-empty]'), /还没有人上榜/);
  await shot(page, 'profile-leaderboard-empty-phone');

  // the lobby's link, on the phone
  await page.goto(env.base + '/#/');
  await page.waitForSelector('[data-test=leaderboard-link]');
  assert.equal(await page.textContent('[data-test=leaderboard-link]'), '排行榜');
  await noOverflow(page, 'the lobby');

  // an account without rated games, and no account at all
  await page.goto(env.base + '/#/@/Zoe');
  await page.waitForSelector('[data-test=profile-empty]');
  assert.match(await page.textContent('[data-test=profile-empty]'), /还没有排位赛对局/);
  assert.match(await page.textContent('[data-test=profile-nogames]'), /还没有排位赛对局/);
  await noOverflow(page, 'an empty profile');
  await shot(page, 'profile-empty-phone');
  await page.goto(env.base + '/#/@/' + encodeURIComponent('无此人'));
  await page.waitForSelector('[data-test=profile-missing]');
  assert.match(await page.textContent('[data-test=profile-missing]'), /没有名为“无此人”的玩家/);
  await shot(page, 'profile-missing-phone');
  assert.deepEqual(unexpected(page), []);
});
