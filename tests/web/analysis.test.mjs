// analysis.test.mjs - the post-game analysis on the replay page (issue 26):
// games played by a WebSocket client from Node (random plays, against two
// ai:random seats: wins are thrown away often) until one has a play that
// turned the result; its replay fetches the analysis (202 while the server
// computes it, asked again), draws the verdict bar with one cell per play,
// marks the plays that turned the result, and shows the plays that would
// have kept the win, by click and by keyboard; on a 1280×800 desktop in
// English and a 390×844 phone in Chinese, without sideways scrolling, its
// cards as readable as the table's own on the phone. Where the keeping
// plays were not all listed (the search's budget), the box shows the one
// that proved the position won, in both languages and on both screens.
//
// Run by node_test.sh (ctest) with Node's WebSocket. Every wait is on a
// condition with a bound. Screenshots go to tests/web/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage as open, startAll, shot, T, waitFor, randomListedGame } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let base, browser, stop;
const contexts = [];

before(async () => {
  assert.equal(typeof WebSocket, 'function', 'run node with --experimental-websocket (node_test.sh does)');
  ({ base, browser, stop } = await startAll('serve-analysis.log', ['--ai-delay-ms', '0']));
});

after(async () => { if (stop) await stop(contexts); });

function openPage(p, opts = {}) {
  return open(browser, contexts, base + p, { viewport: DESKTOP, ...opts });
}

/* The replay page's analysis, once drawn: its cells and marks. */
async function barOf(page) {
  // the bar, or the page saying there is none (then fail at once, saying why)
  await page.waitForFunction(() => document.querySelector('[data-test=analysis-bar]') ||
    /No analysis|没有分析/.test(document.querySelector('[data-test=analysis-status]')?.textContent || ''),
  null, { timeout: T(20000), polling: 50 });
  const none = await page.$('[data-test=analysis-status]');
  if (none) {
    const id = page.url().split('/').pop();
    const res = await fetch(`${base}/api/games/${id}/analysis`);
    assert.fail(`game ${id}: no analysis shown; the server says ${res.status} ${await res.text()}`);
  }
  return page.evaluate(() => {
    const bar = document.querySelector('[data-test=analysis-bar]');
    return {
      label: bar.getAttribute('aria-label'),
      role: bar.getAttribute('role'),
      cells: bar.querySelectorAll('.vcell').length,
      marks: [...bar.querySelectorAll('[data-test=analysis-mark]')].map((b) => +b.dataset.ply),
    };
  });
}

/* Asserts that the mark box's cards read as well as the table's own on
 * this page: their rank glyphs at least the size of those of the cards
 * on the felt (the hands and plays shown), and never below 13 px. Like is
 * compared with like: a 10's two digits are drawn smaller than the other
 * ranks on every card (app.css .card.ten), so sizes are read from the
 * cards' own font size, which the glyphs are drawn in proportion to (a
 * box showing a 10 failed against a felt without one). */
async function readable(page) {
  const m = await page.evaluate(() => {
    const size = (el) => parseFloat(getComputedStyle(el).fontSize);
    const glyph = (card) => size(card.querySelector('.corner .r')) / size(card); // the rank's em on this card
    const box = [...document.querySelectorAll('[data-test=analysis-keeps] .card.face')];
    const felt = [...document.querySelectorAll('.table-view .card.face')].filter((e) => !e.closest('[data-test=analysis-keeps]'));
    const cards = [...document.querySelectorAll('[data-test=analysis-keeps] .card')];
    // a rank's em on a card, but a 10's (a joker has no corner rank)
    const plain = Math.max(...[...document.querySelectorAll('.card.face:not(.ten)')].filter((c) => c.querySelector('.corner .r')).map(glyph));
    return { box: box.map(size), felt: felt.map(size), plain, heights: cards.map((c) => c.getBoundingClientRect().height) };
  });
  assert.ok(m.box.length > 0 && m.felt.length > 0, `cards in the box and on the felt: ${JSON.stringify(m)}`);
  const least = Math.min(...m.box), felt = Math.max(...m.felt);
  assert.ok(least >= felt && least * m.plain >= 13,
    `the box's cards (${least}px, rank glyphs ${least * m.plain}px) at least the felt's (${felt}px) and their glyphs 13px`);
  assert.ok(Math.min(...m.heights) >= 44, `the box's cards at least 44px high: ${m.heights}`);
}

test('the verdict bar along a replayed game, its turning plays and what would have kept the win', async () => {
  // games until one has a turning play with keeping plays listed; each
  // replay fetches its analysis as a visitor's would (202 first)
  let game = null, page = null, analysis = null;
  for (let k = 0; k < 10 && !game; k++) {
    let over;
    try { over = await randomListedGame(base, 'analysis'); } catch (e) { if (/no game/.test(e.message)) continue; throw e; }
    page = await openPage(`/#/replay/${over.game_id}`);
    const bar = await barOf(page);
    const rec = await (await fetch(`${base}/api/games/${over.game_id}`)).json();
    assert.equal(bar.cells, rec.plays.length, 'one cell per play');
    assert.equal(bar.role, 'group');
    assert.match(bar.label, new RegExp(`\\(${rec.plays.length} plays\\)`), 'the bar says what it shows');
    analysis = await (await fetch(`${base}/api/games/${over.game_id}/analysis`)).json();
    const turning = analysis.plies.filter((p) => p.gave).map((p) => p.ply);
    assert.deepEqual(bar.marks, turning, 'a mark on each play that turned the result');
    if (analysis.plies.some((p) => p.gave && Array.isArray(p.keeps) && p.keeps.length)) game = { over, rec };
    else await page.context().close();
  }
  assert.ok(game, 'ten random games without a turning play whose keeping plays are known');
  assert.deepEqual(page.errors, []);
  const ply = analysis.plies.find((p) => p.gave && Array.isArray(p.keeps) && p.keeps.length);
  const mark = `[data-test=analysis-mark][data-ply="${ply.ply}"]`;
  assert.match(await page.getAttribute(mark, 'aria-label'), new RegExp(`^Play ${ply.ply + 1} by .* gave the win away`));

  // the per-seat summary: three lines, the seat's count of plays that gave
  const seats = await page.$$eval('[data-test=analysis-seats] li', (l) => l.map((x) => x.textContent));
  assert.equal(seats.length, 3);
  analysis.tally.forEach((x, s) => assert.ok(x.gave ? seats[s].includes(`${x.gave} of ${x.positions}`)
    : seats[s].includes('no play'), seats[s]));

  // clicked: the replay steps to that play and the keeping plays show as cards
  await page.click(mark);
  await page.waitForSelector('[data-test=analysis-keeps]', { timeout: T(5000) });
  const keeps = await page.$$eval('[data-test=analysis-keeps] .vkeep', (k) => k.map((x) =>
    [...x.querySelectorAll('.card')].map((c) => +c.dataset.code).sort((a, b) => a - b)));
  assert.deepEqual(keeps, ply.keeps.map((k) => [...k].sort((a, b) => a - b)), 'the keeping plays, card by card');
  assert.equal(await page.getAttribute(`[data-test=analysis-bar] .vcell[data-ply="${ply.ply}"]`, 'class'),
    `vcell ${ply.after} current gave`, 'the replay is at that play');
  assert.equal(await page.getAttribute(mark, 'aria-expanded'), 'true');
  // the play list marks it too (desktop: the list is shown)
  assert.equal(await page.locator(`[data-test=log-mark][data-ply="${ply.ply}"]`).count(), 1);
  await shot(page, 'analysis-desktop-en');

  // by keyboard: the mark keeps the focus; Enter closes and opens it again
  assert.ok(await page.evaluate((sel) => document.activeElement === document.querySelector(sel), mark),
    'the focus stays on the mark');
  await page.keyboard.press('Enter');
  await waitFor('the keeping plays to close', async () => (await page.locator('[data-test=analysis-keeps]').count()) === 0, 5000);
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-test=analysis-keeps]', { timeout: T(5000) });
  // stepping on moves the current cell
  await page.keyboard.press('ArrowRight');
  await waitFor('the next cell to be current', async () =>
    (await page.getAttribute(`[data-test=analysis-bar] .vcell[data-ply="${ply.ply + 1}"]`, 'class') || '').includes('current'), 5000);
  assert.ok(await page.evaluate((sel) => document.activeElement === document.querySelector(sel), mark),
    'the bar drawn again keeps the focus on the mark');
  assert.deepEqual(page.errors, []);

  // a phone in Chinese: the same bar, no sideways scrolling, the keeping plays by tap
  const phone = await openPage(`/#/replay/${game.over.game_id}`, { viewport: PHONE, mobile: true, locale: 'zh-CN' });
  const pbar = await barOf(phone);
  assert.equal(pbar.cells, game.rec.plays.length);
  assert.match(pbar.label, /最佳应对/, 'the label in Chinese');
  // every mark can be hit where it is drawn: none covers another (turning
  // plays side by side are a few pixels apart on a phone)
  const hidden = await phone.$$eval('[data-test=analysis-mark]', (ms) => ms.filter((m) => {
    const r = m.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) !== m;
  }).map((m) => m.dataset.ply));
  assert.deepEqual(hidden, [], 'marks covered by others');
  await phone.tap(mark);
  await phone.waitForSelector('[data-test=analysis-keeps]', { timeout: T(5000) });
  assert.match(await phone.textContent('[data-test=analysis-keeps]'), /送掉了胜局/);
  const fits = await phone.evaluate(() => ({
    doc: document.documentElement.scrollWidth, win: window.innerWidth,
    bar: document.querySelector('[data-test=analysis-bar]').getBoundingClientRect().right,
  }));
  assert.ok(fits.doc <= fits.win && fits.bar <= fits.win, `no sideways scrolling: ${JSON.stringify(fits)}`);
  await readable(phone);
  await shot(phone, 'analysis-phone-zh');
  assert.deepEqual(phone.errors, []);

  // where the server ran out of budget listing the keeping plays, the box
  // still shows one: the play that proved the position won (its witness),
  // in both languages, on a desktop and a phone (the analysis made up from
  // the real one: that ply's keeps not listed)
  assert.ok(Array.isArray(ply.witness) && ply.keeps.some((k) => k.join() === ply.witness.join()),
    'the server names a witness among the keeping plays');
  const unlisted = structuredClone(analysis);
  Object.assign(unlisted.plies[ply.ply], { keeps: null });
  const witness = [...ply.witness].sort((a, b) => a - b);
  for (const [viewport, mobile, locale, words, name] of [
    [DESKTOP, false, 'en-US', /This would have kept it:.*Perhaps others too/, 'analysis-witness-desktop-en'],
    [DESKTOP, false, 'zh-CN', /这样出能保住胜局：.*可能还有别的出法/, 'analysis-witness-desktop-zh'],
    [PHONE, true, 'en-US', /This would have kept it:.*Perhaps others too/, 'analysis-witness-phone-en'],
    [PHONE, true, 'zh-CN', /这样出能保住胜局：.*可能还有别的出法/, 'analysis-witness-phone-zh'],
  ]) {
    const w = await openPage('/', { viewport, mobile, locale });
    await w.route('**/analysis', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(unlisted) }));
    await w.goto(`${base}/#/replay/${game.over.game_id}`);
    await barOf(w);
    if (mobile) await w.tap(mark); else await w.click(mark);
    await w.waitForSelector('[data-test=analysis-keeps] .vkeep', { timeout: T(5000) });
    const text = await w.textContent('[data-test=analysis-keeps]');
    assert.match(text, words, `${name}: the witness is named: ${text}`);
    assert.doesNotMatch(text, /ran out of budget listing them\.|未能列出。$/, `${name}: not the old "none listed"`);
    const shown = await w.$$eval('[data-test=analysis-keeps] .vkeep', (k) => k.map((x) =>
      [...x.querySelectorAll('.card')].map((c) => +c.dataset.code).sort((a, b) => a - b)));
    assert.deepEqual(shown, [witness], `${name}: the witness, card by card`);
    if (mobile) await readable(w);
    await shot(w, name);
    assert.deepEqual(w.errors, []);
    await w.context().close();
  }

  // turning plays side by side (as the server may say: here three made
  // up from the real analysis) are stacked over the bar, each one tappable
  const crowd = await openPage('/', { viewport: PHONE, mobile: true, locale: 'zh-CN' });
  const made = structuredClone(analysis);
  const at = Math.floor(made.plies.length / 2);
  for (const j of [at, at + 1, at + 2]) Object.assign(made.plies[j], { gave: true, keeps: [[]] });
  await crowd.route('**/analysis', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(made) }));
  await crowd.goto(`${base}/#/replay/${game.over.game_id}`);
  await barOf(crowd);
  const covered = await crowd.$$eval('[data-test=analysis-mark]', (ms) => ms.filter((m) => {
    const r = m.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) !== m;
  }).map((m) => m.dataset.ply));
  assert.deepEqual(covered, [], 'marks side by side are stacked, none covered');
  await crowd.tap(`[data-test=analysis-mark][data-ply="${at + 1}"]`);
  await crowd.waitForSelector('[data-test=analysis-keeps] .vpass.vkeep', { timeout: T(5000) });
  await shot(crowd, 'analysis-phone-stacked');
  assert.deepEqual(crowd.errors, []);
});
