// absence.test.mjs - a person who is away from a casual table (spec §14) in
// a real browser: the replay opened from the game-over panel does not keep
// the person seated by magic; when the ready clock runs out they are stood
// up, told so, and one tap seats them again, on a desktop and a 390×844
// phone, in English and Chinese; one missed turn clock is one move made for
// them, said as a note and a badge, with no auto-play. Debian's chromium
// driven by playwright-core against a real `ddz serve` (a 4 s ready clock)
// started here.
//
// Run by node_test.sh (ctest): DDZ_BIN names the ddz binary. Every wait is
// on a condition with a bound. Screenshots go to tests/web/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage as open, startAll, shot, T, openCreateForm, playToOver } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let base, browser, stop;
const contexts = [];

before(async () => {
  ({ base, browser, stop } = await startAll('serve-absence.log', ['--ai-delay-ms', '30', '--ready-clock', '4']));
});

after(async () => { if (stop) await stop(contexts); });

const WORDS = {
  en: { stood: /didn.t press Continue in time/, sit: 'Sit down again' },
  zh: { stood: /没有及时点继续/, sit: '重新坐下' },
};

for (const [label, viewport, mobile, lang] of [['desktop', DESKTOP, false, 'en'], ['phone', PHONE, true, 'zh'],
  ['desktop', DESKTOP, false, 'zh'], ['phone', PHONE, true, 'en']]) {
  test(`${label} ${lang}: reading the replay is being away: stood up, told so, and one tap sits us again`, async () => {
    const page = await open(browser, contexts, base + '/', { viewport, mobile, locale: lang === 'en' ? 'en-US' : 'zh-CN' });
    await page.click('[data-test=quick]');
    await page.waitForSelector('.hand .card', { timeout: T(30000) });
    const mySeat = await page.evaluate(() => window.__frames.find((f) => f.type === 'joined').seat);
    await playToOver(page);
    const over = await page.evaluate(() => window.__frames.filter((f) => f.type === 'over').pop());
    // ▶ Replay: a new tab, and the player reads it instead of pressing Continue
    const [rp] = await Promise.all([page.context().waitForEvent('page'), page.click('[data-test=replay-link]')]);
    await rp.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
    await page.waitForFunction(() => window.__frames.some((f) => f.type === 'state' && f.stood_up), null, { timeout: T(20000) });
    const frames = await page.evaluate(() => window.__frames);
    assert.ok(!frames.some((f) => f.type === 'game' && f.game === over.game + 1), `${label}: dealt in while away`);
    assert.ok(!frames.some((f) => f.type === 'seat' && f.seat === mySeat && f.player && f.player.custody), `${label}: custody`);
    const seatEv = frames.filter((f) => f.type === 'seat' && f.seat === mySeat).pop();
    assert.equal(seatEv && seatEv.player, null, `${label}: our seat is not open (the room waits for us)`);
    await rp.close();
    await page.bringToFront();
    // the panel (still open, modal) offers the way back ...
    const onPanel = page.locator('[data-test=sit-again-over]');
    await onPanel.waitFor({ timeout: T(5000) });
    assert.equal((await onPanel.textContent()).trim(), WORDS[lang].sit);
    // no next game is coming for us: the panel does not promise one
    assert.equal((await page.textContent('[data-test=close-over]')).trim(), lang === 'en' ? 'Back to the table' : '回到牌桌');
    await shot(page, `i38-panel-${label}-${lang}`);
    // ... and closed, the table says what happened, with the one tap
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-test=gameover]', { state: 'detached', timeout: T(5000) });
    const bar = page.locator('[data-test=stood-up]');
    await bar.waitFor({ timeout: T(5000) });
    assert.match(await bar.textContent(), WORDS[lang].stood);
    // our seat waits for us, marked away, and the room says it waits for players
    await page.waitForSelector('[data-test=away]', { timeout: T(5000) });
    await page.waitForFunction(() => window.__frames.some((f) => f.type === 'state' && f.phase === 'waiting'), null, { timeout: T(5000) });
    const sit = page.locator('[data-test=sit-again]');
    assert.equal((await sit.textContent()).trim(), WORDS[lang].sit);
    // the button is whole and on screen (a phone's narrow controls)
    const box = await sit.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height,
      `${label}: the button is off screen: ${JSON.stringify(box)}`);
    assert.equal(await page.evaluate(() => { const b = document.querySelector('[data-test=sit-again]'); return b.scrollWidth <= b.clientWidth + 1; }), true,
      `${label}: the button's words are cut`);
    // Escape did not say ready for us: still stood up, nothing dealt
    assert.ok(!(await page.evaluate((g) => window.__frames.some((f) => f.type === 'game' && f.game === g + 1), over.game)));
    await shot(page, `i38-stood-up-${label}-${lang}`);
    await sit.click();
    await page.waitForFunction((g) => window.__frames.some((f) => f.type === 'game' && f.game === g + 1 && f.hand), over.game, { timeout: T(10000) });
    await page.waitForSelector('.hand .card', { timeout: T(10000) });
    assert.equal(await page.isVisible('[data-test=stood-up]'), false, `${label}: the notice stays once seated`);
    const joined = await page.evaluate(() => window.__frames.filter((f) => f.type === 'joined').pop());
    assert.equal(joined.seat, mySeat, `${label}: not given our seat back`);
    await shot(page, `i38-seated-again-${label}-${lang}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

/* ---- one missed clock is one move ---- */

for (const [label, viewport, mobile, lang] of [['desktop', DESKTOP, false, 'en'], ['phone', PHONE, true, 'zh']]) {
  test(`${label} ${lang}: one missed clock is one move made for us, said as such; no auto-play`, async () => {
    const page = await open(browser, contexts, base + '/', { viewport, mobile, locale: lang === 'en' ? 'en-US' : 'zh-CN' });
    await openCreateForm(page);
    await openCreateForm(page, { seatwise: true }); // seat by seat
    await page.selectOption('[data-test=seat1]', 'ai:greedy');
    await page.selectOption('[data-test=seat2]', 'ai:greedy');
    const numbers = await page.$$('.create input[type=number]'); // time, games
    await numbers[0].fill('3');
    await numbers[1].fill('1');
    // The note lives 4.7 s and the badge until our next missed clock (3 s
    // later) or the game's end, so a loaded machine can let either come and
    // go between two polls: the page writes down every one it shows.
    await page.evaluate(() => {
      window.__shown = { toasts: [], badges: [] };
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.toast')) {
          if (!el.dataset.seen) { el.dataset.seen = '1'; window.__shown.toasts.push(el.textContent); }
        }
        const b = document.querySelector('.seat.pos-me [data-test=missed]');
        if (b) window.__shown.badges.push(b.textContent.trim());
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.click('[data-test=create]');
    await page.waitForSelector('.hand .card', { timeout: T(30000) });
    // we do nothing: our clock runs out once
    const said = lang === 'en' ? /Time ran out/ : /超时/;
    await page.waitForFunction((re) => window.__shown.toasts.some((x) => new RegExp(re).test(x)), said.source, { timeout: T(30000) });
    const moved = await page.evaluate(() => window.__frames.some((f) => f.type === 'seat' && f.seat === 0 && f.player && f.player.missed === 1));
    assert.ok(moved, `${label}: no seat frame with missed 1`);
    await page.waitForFunction(() => window.__shown.badges.length > 0, null, { timeout: T(5000) });
    assert.equal(await page.evaluate(() => window.__shown.badges[0]), lang === 'en' ? 'Timed out' : '超时');
    assert.equal(await page.$('[data-test=autoplay-bar]'), null, `${label}: auto-play after one missed clock`);
    await shot(page, `i38-missed-${label}-${lang}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

/* ---- a stand-in keeps the seat ---- */

test('desktop zh and phone en: a room that fills with AIs: stood up, a stand-in keeps our seat, named for us, and gives way', async () => {
  for (const [label, viewport, mobile, lang] of [['desktop', DESKTOP, false, 'zh'], ['phone', PHONE, true, 'en']]) {
    const page = await open(browser, contexts, base + '/', { viewport, mobile, locale: lang === 'en' ? 'en-US' : 'zh-CN' });
    await openCreateForm(page);
    await openCreateForm(page, { seatwise: true }); // seat by seat: every seat a person's
    // the fill choice: the select whose first option is "no, wait for players"
    await page.evaluate(() => {
      const sel = [...document.querySelectorAll('.create select')].find((s) => [...s.options].some((o) => o.value === '') &&
        /wait for players|等玩家/.test(s.options[0].textContent));
      sel.value = 'ai:greedy';
    });
    await page.click('[data-test=create]');
    await page.waitForSelector('.hand .card', { timeout: T(30000) });
    const mySeat = await page.evaluate(() => window.__frames.find((f) => f.type === 'joined').seat);
    await playToOver(page);
    await page.waitForFunction(() => window.__frames.some((f) => f.type === 'state' && f.stood_up), null, { timeout: T(20000) });
    await page.keyboard.press('Escape');
    const badge = page.locator('[data-test=standin-for]');
    await badge.waitFor({ timeout: T(5000) });
    const me = await page.evaluate((s) => window.__frames.find((f) => f.type === 'state' && f.players[s]).players[s].name, mySeat);
    assert.equal((await badge.textContent()).trim(), lang === 'en' ? `for ${me}` : `替${me}`, `${label}: the stand-in's badge`);
    // nobody is left to play for: no game among the AIs
    assert.ok(!(await page.evaluate(() => window.__frames.some((f) => f.type === 'game' && f.game === 2))), `${label}: AIs dealt a game`);
    // the room waits for a person: the stand-in's seat is counted open
    assert.match(await page.textContent('.felt .status.big'), /2\/3/, `${label}: the seats counted`);
    await shot(page, `i38-standin-${label}-${lang}`);
    await page.click('[data-test=sit-again]');
    await page.waitForFunction(() => window.__frames.some((f) => f.type === 'game' && f.game === 2 && f.hand), null, { timeout: T(10000) });
    assert.equal(await page.$('[data-test=standin-for]'), null, `${label}: the stand-in stayed`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
