// rated.test.mjs - rated quick play in the browser (spec §15): signed in,
// the lobby offers 排位快速开始 / Rated quick play (a guest is not offered
// it), the wait shows with a cancel, the table found is played out, and the
// game-over panel says the rating change. Desktop in English, a phone in
// Chinese; screenshots in artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, openPage, waitFor, shot, T, playToOver, signUp } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
let env;
const contexts = [];

// hosted AIs fill the table after 2 s: the wait shows, and is short (the
// AIs keep their pause before acting: a person's hints are limited to 4 in 5 s)
before(async () => { env = await startAll('serve-rated.log', ['--rated-fill-s', '2']); });
after(async () => { await env.stop(contexts); });

/* The page's errors but the refusals chromium logs for 4xx answers. */
const unexpected = (page) => page.errors.filter((e) => !/status of (400|401|409) /.test(e));

async function ratedGame(page, label, zh) {
  // the wait, cancelled: back to the offer
  await page.click('[data-test=rated-quick]');
  await page.waitForSelector('[data-test=rated-wait]');
  assert.match(await page.textContent('[data-test=rated-wait]'), zh ? /正在匹配排位对局…你的等级分 1500/ : /Looking for a rated table… your rating 1500/);
  await shot(page, `rated-waiting-${label}`);
  await page.click('[data-test=rated-cancel]');
  await page.waitForSelector('[data-test=rated-quick]');
  // again, to the table the AIs fill
  await page.click('[data-test=rated-quick]');
  await page.waitForSelector('[data-test=controls]', { timeout: T(20000) });
  const state = await page.evaluate(() => window.__frames.filter((f) => f.type === 'state').pop());
  assert.equal(state.room.options.rated, true);
  assert.match(await page.textContent('.topbar'), zh ? /排位赛/ : /Rated/);
  await playToOver(page, { ms: 60000 });
  // the rating comes once the store applied it: the frame first, then the panel's line
  const types = () => page.evaluate(() => window.__frames.slice(-12).map((f) => f.type + (f.type === 'over' && f.redeal ? '(redeal)' : '')).join(' '));
  await waitFor('the rated frame', () => page.evaluate(() => window.__frames.some((f) => f.type === 'rated')), 30000)
    .catch(async (e) => { throw new Error(`${e.message}; last frames: ${await types()}`); });
  await page.waitForSelector('[data-test=rating-change]', { timeout: T(10000) })
    .catch(async (e) => { await shot(page, `rated-failed-${label}`); throw new Error(`${e.message}; last frames: ${await types()}`); });
  const said = await page.textContent('[data-test=rating-change]');
  const rated = await page.evaluate(() => window.__frames.filter((f) => f.type === 'rated').pop());
  assert.equal(rated.before, 1500);
  const d = Math.round(rated.rating - rated.before);
  const delta = (d > 0 ? '+' : '') + d;
  assert.ok(said.includes(zh ? `等级分 1500 → ${Math.round(rated.rating)}（${delta}）` : `Rating 1500 → ${Math.round(rated.rating)} (${delta})`), said);
  await shot(page, `rated-over-${label}`);
  return rated;
}

/* The person's profile after her first rated game: the rating the panel
 * said, one game, and that game's replay link (spec §15: the rating moves
 * and the person finds herself). */
async function ownProfile(page, name, rated, label, zh) {
  await page.goto(`${page.url().split('#')[0]}#/@/${encodeURIComponent(name)}`);
  await page.waitForSelector('[data-test=profile-rating]', { timeout: T(10000) });
  assert.equal(await page.textContent('[data-test=profile-name]'), name);
  assert.equal((await page.textContent('[data-test=profile-rating]')).split(' ')[0], String(Math.round(rated.rating)));
  assert.equal(await page.textContent('[data-test=profile-count]'), '1');
  assert.deepEqual(await page.$$eval('[data-test=profile-game]', (as) => as.map((a) => a.getAttribute('href'))), [`#/replay/${rated.game}`]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${label}: the profile fits (${overflow} px over)`);
  await shot(page, `rated-profile-${label}`);
  assert.match(await page.textContent('[data-test=profile]'), zh ? /等级分/ : /Rating/);
}

test('rated quick play, played out, the rating change shown (desktop, English)', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/', { viewport: { width: 1280, height: 800 } });
  await signUp(page, 'Rita', 'a long enough secret');
  await shot(page, 'rated-lobby-desktop');
  const rated = await ratedGame(page, 'desktop', false);
  await ownProfile(page, 'Rita', rated, 'desktop', false);
  assert.deepEqual(unexpected(page), []);
});

test('排位快速开始 on a phone, in Chinese', async () => {
  const page = await openPage(env.browser, contexts, env.base + '/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await signUp(page, '小红', 'mima12345678');
  assert.match(await page.textContent('[data-test=rated-quick]'), /排位快速开始/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the lobby fits the phone's width (${overflow} px over)`);
  await shot(page, 'rated-lobby-phone');
  const rated = await ratedGame(page, 'phone', true);
  await ownProfile(page, '小红', rated, 'phone', true);
  assert.deepEqual(unexpected(page), []);
});

test('a rated room of friends from the create form; a guest with the invite is told to sign in; the form on a phone', async () => {
  const { openCreateForm } = await import('./harness.mjs'); // imported here: this test's lines only
  // desktop, English: the host offers Rated only signed in, and the
  // checked form offers what a rated room allows
  const host = await openPage(env.browser, contexts, env.base + '/', { viewport: { width: 1280, height: 800 } });
  await openCreateForm(host);
  assert.equal(await host.$('[data-test=rated-room]'), null, 'a guest is not offered a rated room');
  await signUp(host, 'Hana', 'a long enough secret');
  await openCreateForm(host, { seatwise: true });
  await host.selectOption('[data-test=seat1]', 'engine');
  await host.fill('[data-test=create-form] input[type=number] >> nth=0', '5');
  await host.check('[data-test=rated-room]');
  assert.match(await host.textContent('[data-test=rated-row]'), /Everyone must be signed in; ratings move after each game/);
  const form = await host.evaluate(() => {
    const q = (s) => document.querySelector(s);
    return { engine: q('[data-test=seat1] option[value=engine]').disabled, seat1: q('[data-test=seat1]').value,
      one: q('[data-test=people] option[value="1"]').disabled, custody: q('[data-test=custody]').disabled,
      time: q('[data-test=create-form] input[type=number]').value, min: q('[data-test=create-form] input[type=number]').min };
  });
  assert.deepEqual(form, { engine: true, seat1: '', one: true, custody: true, time: '10', min: '10' });
  // each hosted AI once: the one in seat 2 is not offered for seat 1
  await host.selectOption('[data-test=seat2]', 'ai:strong');
  assert.equal(await host.$eval('[data-test=seat1] option[value="ai:strong"]', (o) => o.disabled), true);
  await host.fill('[data-test=create-form] input[name=name]', 'Friends, rated');
  await host.selectOption('[data-test=sitat]', '0');
  await shot(host, 'rated-room-form-desktop');
  await host.click('[data-test=create]');
  await host.waitForSelector('[data-test=rated-chip]');
  const state = await host.evaluate(() => window.__frames.filter((f) => f.type === 'state').pop());
  assert.equal(state.room.options.rated, true);
  assert.deepEqual(state.players.map((p) => p && p.kind), ['human', null, 'ai']);
  assert.match(await host.textContent('.topbar'), /Rated/);
  const invite = `${env.base}/#/room/${state.room.id}?name=${encodeURIComponent('Friends, rated')}`;

  // a guest with the invite: the room needs an account, a sign-in offered
  const guest = await openPage(env.browser, contexts, invite, { viewport: { width: 1280, height: 800 } });
  await guest.waitForSelector('dialog[open] [data-test=invite-name]');
  await guest.fill('dialog[open] [data-test=invite-name]', 'Gus');
  await guest.click('dialog[open] button.primary');
  await guest.waitForSelector('dialog[open] [data-test=rated-join-signin]');
  assert.match(await guest.textContent('dialog[open]'), /This is a rated room: only people signed in to an account may sit/);
  await shot(guest, 'rated-room-guest');
  await guest.click('dialog[open] [data-test=rated-join-signin]');
  await guest.waitForSelector('[data-test=acct-dialog]');
  await guest.click('[data-test=acct-dialog] button.ghost'); // not now: back to the lobby, seated nowhere
  await waitFor('the guest back in the lobby', async () => (await guest.evaluate(() => location.hash)) === '#/');
  assert.equal(await guest.$('[data-test=controls]'), null);

  // the friend, signed in, sits by the invite (no name asked: the account's)
  const friend = await openPage(env.browser, contexts, env.base + '/', { viewport: { width: 1280, height: 800 } });
  await signUp(friend, 'Ivo', 'another long secret');
  await friend.goto(invite);
  await waitFor('the friend seated', () => friend.evaluate(() => window.__frames.some((f) => f.type === 'joined' && f.seat === 1)));
  await friend.waitForSelector('[data-test=rated-chip]');
  await shot(friend, 'rated-room-friend');
  await host.waitForFunction(() => document.body.innerText.includes('Ivo')); // the host sees the friend
  assert.deepEqual(unexpected(host), []);
  assert.deepEqual(unexpected(friend), []);
  assert.deepEqual(unexpected(guest), []);

  // a phone, in Chinese: the form with 排位 checked fits
  const phone = await openPage(env.browser, contexts, env.base + '/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await signUp(phone, '小林', 'mima12345678');
  await openCreateForm(phone, { seatwise: true });
  await phone.check('[data-test=rated-room]');
  assert.match(await phone.textContent('[data-test=rated-row]'), /排位.*所有玩家都须登录/);
  await phone.click('[data-test=advanced] > summary');
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the rated form fits the phone's width (${overflow} px over)`);
  await phone.locator('[data-test=rated-row]').scrollIntoViewIfNeeded();
  await shot(phone, 'rated-room-form-phone');
  assert.deepEqual(unexpected(phone), []);
});
