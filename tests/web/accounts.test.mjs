// accounts.test.mjs - a person's account in the browser (spec §15): sign
// up from the lobby and play on with no reload, the name is the account's
// on the table, another browser signs in to it, a password change signs the
// first out (it plays on as a guest), the account's page deletes it.
// Desktop and phone, Chinese and English; screenshots in artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, openPage, waitFor, shot } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
let env;
const contexts = [];

/* The page's errors but the refusals this test asks for (a short
 * password, a wrong one: chromium logs every 4xx answer as an error). */
const unexpected = (page) => page.errors.filter((e) => !/status of (400|401|409) /.test(e));

before(async () => { env = await startAll('serve-accounts.log'); });
after(async () => { await env.stop(contexts); });

/* Whether the page's connection was welcomed as account `name` (or as a
 * guest with null). */
async function welcomedAs(page, name) {
  await waitFor(`a welcome as ${name}`, () => page.evaluate((n) => {
    const w = window.__frames.filter((f) => f.type === 'welcome').pop();
    return !!w && (w.account ?? null) === n;
  }, name));
}

async function signUpOrIn(page, button, name, password) {
  await page.click('[data-test=acct-open]');
  await page.waitForSelector('[data-test=acct-dialog]');
  await page.fill('[data-test=acct-name]', name);
  await page.fill('[data-test=acct-password]', password);
  await page.click(`[data-test=${button}]`);
}

test('sign up in the lobby, play on as the account, sign in elsewhere, a password change signs the first out, delete (desktop, English)', async () => {
  const a = await openPage(env.browser, contexts, env.base + '/', { viewport: { width: 1280, height: 800 } });
  await a.waitForSelector('[data-test=acct-open]');
  // a password too short: said in the dialog, nothing made
  await signUpOrIn(a, 'acct-signup', 'Mei', 'short');
  await waitFor('the short password refused', async () => /8 characters/.test(await a.textContent('[data-test=acct-msg]')));
  await shot(a, 'accounts-dialog-error');
  await a.fill('[data-test=acct-password]', 'a long enough secret');
  // the browser's own key goes with the sign-up: its guest games become the account's
  const signup = a.waitForRequest((q) => q.url().endsWith('/api/accounts') && q.method() === 'POST');
  await a.click('[data-test=acct-signup]');
  const sent = (await signup).postDataJSON();
  assert.match(sent.me, /^[0-9a-f]{32}$/);
  assert.equal(sent.me, await a.evaluate(() => localStorage.getItem('ddz.me')));
  await welcomedAs(a, 'Mei');
  await a.waitForSelector('[data-test=acct-link]');
  assert.equal(await a.textContent('[data-test=acct-link]'), 'Mei');
  assert.equal(await a.$('[data-test=name]'), null, 'no name field: the name is the account\'s');
  await shot(a, 'accounts-lobby-signed-in');
  // play on with no reload: quick play seats the account under its name
  await a.click('[data-test=quick]');
  await a.waitForSelector('[data-test=controls]');
  await waitFor('the table naming us Mei', () => a.evaluate(() => {
    const s = window.__frames.filter((f) => f.type === 'state').pop();
    return !!s && s.seat !== null && !!s.players[s.seat] && s.players[s.seat].name === 'Mei';
  }));
  const b = await openPage(env.browser, contexts, env.base + '/', { viewport: { width: 1280, height: 800 } });
  // the same person signs in on the second browser
  await b.waitForSelector('[data-test=acct-open]');
  await signUpOrIn(b, 'acct-signin', 'MEI', 'wrong password');
  await waitFor('a wrong password said', async () => /Wrong name or password/.test(await b.textContent('[data-test=acct-msg]')));
  await b.fill('[data-test=acct-password]', 'a long enough secret');
  await b.click('[data-test=acct-signin]');
  await welcomedAs(b, 'Mei');
  // b changes the password on the account's page: a's session ends, a is a guest again
  await b.click('[data-test=acct-link]');
  await b.waitForSelector('[data-test=account-page]');
  await b.fill('[data-test=pw-old]', 'a long enough secret');
  await b.fill('[data-test=pw-new]', 'another long secret');
  await b.click('[data-test=pw-change]');
  await waitFor('the change confirmed', async () => /Password changed/.test(await b.textContent('[data-test=pw-msg]')));
  await shot(b, 'accounts-page-desktop');
  await welcomedAs(a, null);
  assert.equal(await a.evaluate(() => localStorage.getItem('ddz.session')), null, 'the ended session is forgotten');
  // b deletes the account (its password asked; the confirm accepted)
  b.on('dialog', (d) => d.accept());
  await b.fill('[data-test=del-password]', 'another long secret');
  await b.click('[data-test=acct-delete]');
  await welcomedAs(b, null);
  await b.waitForSelector('[data-test=acct-open]');
  // the name is not free again at once
  const r = await fetch(env.base + '/api/accounts', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Mei', password: 'a third long secret' }) });
  assert.equal(r.status, 409);
  assert.deepEqual(unexpected(a), []);
  assert.deepEqual(unexpected(b), []);
});

test('sign up and sign out on a phone, in Chinese', async () => {
  const p = await openPage(env.browser, contexts, env.base + '/', { viewport: PHONE, locale: 'zh-CN', mobile: true });
  await p.waitForSelector('[data-test=acct-open]');
  assert.match(await p.textContent('[data-test=acct-open]'), /登录/);
  await signUpOrIn(p, 'acct-signup', '小明', 'mima12345678');
  await welcomedAs(p, '小明');
  await p.waitForSelector('[data-test=acct-link]');
  assert.match(await p.textContent('[data-test=acct-box]'), /已登录/);
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the lobby fits the phone's width (${overflow} px over)`);
  await shot(p, 'accounts-lobby-phone');
  await p.click('[data-test=acct-signout]');
  await welcomedAs(p, null);
  await p.waitForSelector('[data-test=acct-open]');
  // signed out: the session is ended on the server too
  const r = await fetch(env.base + '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: '小明', password: 'mima12345678' }) });
  assert.equal(r.status, 200);
  await shot(p, 'accounts-signed-out-phone');
  assert.deepEqual(unexpected(p), []);
});
