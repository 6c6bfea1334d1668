// pages.test.mjs - issue 25, second round of casual play: the
// competition pages and the client's words in
// both languages, and what must not overlap on the table, on a desktop
// (1280x800) and a phone (390x844, touch).
//
// Run by node_test.sh (ctest): DDZ_BIN names the ddz binary. Every wait is
// on a condition with a bound (harness T()), never a fixed sleep.
// Screenshots go to tests/web/artifacts/, named after the items.
import { test, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { openPage as open, startAll, settle, shot, T, waitFor, decision, openCreateForm } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const servers = [];
after(async () => { for (const s of servers) await s.stop(s.contexts); });

/* A server with `args` (its log in artifacts/LOG); {base, page(path, opts)}.
 * The table tests' servers wait the longest ready clock (--ready-clock 120):
 * they look at layouts between games, for longer than 20 s on a loaded
 * machine, and a person who does not say ready is stood up (spec §14). */
async function serve(log, args = []) {
  const s = await startAll(log, args);
  s.contexts = [];
  servers.push(s);
  s.page = (p, { viewport = DESKTOP, locale = 'en-US', mobile = false } = {}) =>
    open(s.browser, s.contexts, s.base + p, { viewport, locale, mobile });
  return s;
}

/* A server running a ladder of hosted AIs only: a deal every second or
 * two when nobody watches. One for the file. */
let ladder = null;
function ladderServer() {
  ladder ??= serve('serve-pages-ladder.log', ['--ladder-ai', 'greedy', '--ladder-ai', 'random',
    '--ladder-ai', 'strong:20', '--ladder-time', '3', '--ai-delay-ms', '100']);
  return ladder;
}

/* ---- item 7: words in the viewer's language ---- */

test('item 7: the default AI, competition rooms, the ladder\'s rule set and the jokers are named in words, in both languages', async () => {
  const s = await ladderServer();
  const words = {
    en: { strong: 'Strong', room: /^Ladder · deal \d+ · table \d\/3$/, rules: /rules CAAI 1\.0/, big: 'Big joker', small: 'Small joker' },
    zh: { strong: '强', room: /^天梯 · 第 \d+ 副 · \d\/3 桌$/, rules: /规则 CAAI 1\.0/, big: '大王', small: '小王' },
  };
  for (const [label, opts] of [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }]]) {
    const w = words[label.slice(-2)];
    const page = await s.page('/', opts);
    // the quick-play opponents name the default, and the room form offers it
    await page.waitForSelector('[data-test=quick-ai]', { timeout: T(30000) });
    const quick = await page.$$eval('[data-test=quick-ai] option', (o) => o.map((x) => x.textContent));
    assert.ok(quick[0].includes(w.strong), `${label}: the default opponent is named: ${quick[0]}`);
    assert.ok(!quick.slice(1).some((x) => x.includes(w.strong)), `${label}: the default is offered once`);
    // a ladder table in the room list: in words, whole
    await page.waitForFunction(() => [...document.querySelectorAll('.room-name')].some((e) => /Ladder|天梯/.test(e.textContent)), null, { timeout: T(30000) });
    const names = await page.$$eval('.room-name', (els) => els.map((e) => ({ text: e.firstChild.textContent, cut: e.scrollWidth > e.clientWidth + 1 })));
    const lad = names.filter((n) => /Ladder|天梯/.test(n.text));
    for (const n of lad) {
      assert.match(n.text, w.room, `${label}: a ladder room's name`);
      assert.ok(!n.cut, `${label}: ${n.text} is cut`);
    }
    const seats = await page.$$eval('.room-seats', (els) => els.map((e) => e.textContent).join(' '));
    assert.ok(!/\bai:/.test(seats), `${label}: raw AI names in the room list: ${seats}`);
    await shot(page, `i25-7-lobby-${label}`);
    // the jokers' accessible names
    const jokers = await page.evaluate(async () => {
      const { cardEl } = await import('/js/cards.js');
      return [53, 52].map((c) => cardEl(c).getAttribute('aria-label'));
    });
    assert.deepEqual(jokers, [w.big, w.small], `${label}: the jokers' names`);
    // the ladder page names its rule set
    await page.goto(s.base + '/#/ladder');
    await page.waitForSelector('[data-test=ladder-status]', { timeout: T(30000) });
    assert.match(await page.textContent('[data-test=ladder-status]'), w.rules, `${label}: the ladder's rules`);
    const tables = await page.textContent('.ladder-tables');
    assert.ok(!/\bai:/.test(tables), `${label}: raw AI names on the ladder page: ${tables}`);
    await shot(page, `i25-7-ladder-${label}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

/* ---- item 9: the tournament page after the end ---- */

test('item 9: a finished tournament marks its winner and nobody as still playing; a phone shows every finished game\'s score and replay without sideways scrolling', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddz-pages-t-'));
  fs.writeFileSync(path.join(dir, 'players'),
    'alpha=ai:greedy\nbeta=ai:random\ngamma=ai:greedy\ndelta=ai:random\nomega=ai:greedy\nsigma=ai:random\n');
  fs.writeFileSync(path.join(dir, 'options'), `--format swiss --turns 1 --games 3 --time 5 --seed ${'09'.repeat(32)}\n`);
  try {
    const s = await serve('serve-pages-tournament.log', ['--tournament', dir]);
    await waitFor('the tournament to finish', async () => {
      const d = await (await fetch(s.base + '/api/tournament')).json();
      return d.done;
    }, 120000, 200);
    const words = { en: { winner: 'winner', active: 'active' }, zh: { winner: '冠军', active: '参赛中' } };
    for (const [label, opts] of [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }],
      ['phone-en', { viewport: PHONE, mobile: true }]]) {
      const w = words[label.slice(-2)];
      const page = await s.page('/#/tournament', opts);
      await page.waitForSelector('[data-test=standings] tbody tr', { timeout: T(30000) });
      const rows = await page.$$eval('[data-test=standings] tbody tr', (rs) => rs.map((r) => ({
        rank: r.querySelector('td').textContent, status: r.querySelector('[data-test=player-status]').textContent })));
      assert.ok(!rows.some((r) => r.status === w.active), `${label}: nobody is still playing: ${JSON.stringify(rows)}`);
      assert.deepEqual(rows.filter((r) => r.status === w.winner).map((r) => r.rank), ['1'], `${label}: the first is the winner`);
      await page.waitForSelector('[data-test=replay-game]', { timeout: T(30000) });
      if (opts.mobile) {
        // every game's score and button on screen, nothing to scroll sideways
        const off = await page.$$eval('[data-test=games] td', (tds) => tds.filter((e) => {
          const r = e.getBoundingClientRect();
          return r.width && (r.right > innerWidth || r.left < 0);
        }).map((e) => e.textContent));
        assert.deepEqual(off, [], `${label}: cells past the screen's edge`);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${label}: the page scrolls sideways`);
        const wide = await page.$$eval('.competition .scroll', (els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
        assert.equal(wide, 0, `${label}: a table scrolls sideways`);
      }
      await page.$eval('[data-test=games]', (e) => e.scrollIntoView());
      await shot(page, `i25-9-tournament-${label}`);
      await page.click('[data-test=replay-game] >> nth=0');
      await page.waitForSelector('[data-test=replay-next]', { timeout: T(30000) });
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/* ---- item 6: nothing on the table covers anything else ---- */

/* Pairs of elements of the page whose boxes intersect (each selector may
 * match several; hidden ones have no box). */
function overlaps(page, pairs) {
  return page.evaluate((pairs) => {
    const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect()).filter((r) => r.width && r.height);
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const out = [];
    for (const [x, y] of pairs) {
      for (const a of boxes(x)) for (const b of boxes(y)) if (hit(a, b)) out.push(`${x} × ${y}`);
      // (the boxes, rounded, name where they met when one fails)
    }
    return [...new Set(out)];
  }, pairs);
}

const TABLE_PAIRS = [
  ['.seat.pos-left .said', '.counter'], ['.seat.pos-right .said', '.counter'],
  ['.history:not([hidden])', '.hand .card'], ['.history:not([hidden])', '.controls .side'],
  ['.history:not([hidden])', '.controls .actions'],
  // (the commitment is folded under the centre's details since issue 38:
  // their summary is what lies on the felt)
  ['.seat.pos-me .said', '.table-details > summary'], ['.seat.pos-me .said', '.counter'],
];

/* Opens the moves panel with its button, or closes it with its own ✕ (on a
 * phone the open panel lies over the button, as a sheet does). */
async function toggleMoves(page, open) {
  if (open) await page.click('[data-test=history-btn]');
  else if (await page.$('.history:not([hidden])')) await page.click('.history h3 button');
}

test('item 6 and 13: passes, the card counter, the moves panel, the hand, the controls and the commitment line never cover each other; the opponents\' boxes match on a phone', async () => {
  const s = await serve('serve-pages-table.log', ['--ai-delay-ms', '30', '--ready-clock', '120']);
  for (const [label, opts] of [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }]]) {
    const page = await s.page('/', opts);
    await page.click('[data-test=quick]');
    await page.waitForSelector('.hand .card', { timeout: T(30000) });
    const found = new Set();
    let shotPass = false, shotMoves = false, passes = 0, checks = 0;
    for (let guard = 0; guard < 120; guard++) {
      const d = await decision(page, 60000);
      if (d === 'over') break;
      if (d === 'bid') {
        const bids = await page.$$eval('[data-test^=bid]:not(:disabled)', (b) => b.map((x) => x.dataset.test));
        await page.click(`[data-test=${bids.sort().pop()}]`);
        continue;
      }
      // our turn to play: look with the moves panel closed, then open
      for (const open of [false, true]) {
        const shown = await page.$('.history:not([hidden])');
        if (!!shown !== open) await toggleMoves(page, open);
        await page.waitForFunction((o) => !!document.querySelector('.history:not([hidden])') === o, open, { timeout: T(10000) });
        for (const o of await overlaps(page, TABLE_PAIRS)) {
          if (!found.has(o)) await shot(page, `i25-6-overlap-${label}`); // what it looked like
          found.add(o);
        }
        checks++;
      }
      await toggleMoves(page, false); // closed again
      const sidePass = await page.$('.seat.pos-left .said.pass, .seat.pos-right .said.pass');
      if (sidePass) passes++;
      if (sidePass && !shotPass) { shotPass = true; await shot(page, `i25-6-pass-${label}`); }
      if (!opts.mobile) {
        // the two opponents' boxes: the same height (item 13, on a phone below)
      } else {
        const hs = await page.$$eval('.seat.pos-left .info, .seat.pos-right .info', (els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
        if (hs.length === 2 && Math.abs(hs[0] - hs[1]) > 1) found.add(`opponents' boxes ${hs.join(' and ')} px high`);
      }
      if (opts.mobile && checks === 4) {
        // one box with a badge more than the other (a stand-in, custody):
        // still the same height
        const hs = await page.evaluate(() => {
          const b = document.querySelector('.seat.pos-left .info .badges');
          for (let i = 0; i < 4; i++) { const x = document.createElement('span'); x.className = 'badge'; x.textContent = '托管中'; b.append(x); }
          return [...document.querySelectorAll('.seat.pos-left .info, .seat.pos-right .info')].map((e) => Math.round(e.getBoundingClientRect().height));
        });
        if (Math.abs(hs[0] - hs[1]) > 1) found.add(`opponents' boxes ${hs.join(' and ')} px high with a badge more`);
        await shot(page, `i25-13-boxes-${label}`);
      }
      if (!shotMoves && checks > 6) {
        shotMoves = true;
        await toggleMoves(page, true);
        await page.waitForSelector('.history:not([hidden])', { timeout: T(10000) });
        await shot(page, `i25-6-moves-${label}`);
        await toggleMoves(page, false);
      }
      await page.click('[data-test=hint]');
      await page.click('[data-test=play]');
    }
    assert.ok(checks > 0, `${label}: looked at the table on our turns`);
    assert.deepEqual([...found], [], `${label}: elements that cover each other`);
    await shot(page, `i25-6-end-${label}`);
    assert.deepEqual(page.errors, []);
    // the game's replay at its end: the result box beside the last plays
    const over = await page.evaluate(() => window.__frames.filter((f) => f.type === 'over' && !f.redeal).pop());
    const rp = await s.page(`/#/replay/${over.game_id}-${over.game_key}`, opts);
    await rp.waitForSelector('[data-test=replay-last]', { timeout: T(30000) });
    await rp.click('[data-test=replay-last]');
    await rp.waitForSelector('[data-test=replay-result]', { timeout: T(30000) });
    const rOver = await overlaps(rp, [['[data-test=replay-result]', '.seat .said'], ['[data-test=replay-result]', '.seat .info'],
      ['[data-test=replay-result]', '.seat .oppo-hand']]);
    await shot(rp, `i25-6-replay-end-${label}`);
    // the replay's boxes are as high as what they hold (no stretching to match)
    const tall = await rp.$$eval('.seat .info', (els) => els.map((e) => e.getBoundingClientRect().height).filter((x) => x > 120));
    assert.deepEqual(tall, [], `${label}: a replay's seat box stretched`);
    assert.deepEqual(rOver, [], `${label}: the replay's result box covers the table`);
    assert.deepEqual(rp.errors, []);
    await rp.close();
    await page.close();
  }
});

/* ---- issue 38, item 7: words and layout of the casual client ---- */

/* How many rows the cards under `sel` take: their distinct tops. */
const rowsOf = (page, sel) => page.$$eval(sel, (els) => new Set(els.map((e) => Math.round(e.getBoundingClientRect().top))).size);

const WORDS38 = {
  en: { levels: ['Easy', 'Normal', 'Strong'], total: 'Round total', replay: 'Replay', me: 'me', next: 'next', prev: 'previous',
    ai: { next: 'AI·next', prev: 'AI·prev' }, with: /AI·prev, AI·next/, compass: /West|South|East/, rules: 'CAAI 1.0' },
  zh: { levels: ['简单', '普通', '强'], total: '本轮累计', replay: '回放', me: '我', next: '下家', prev: '上家',
    ai: { next: '电脑·下家', prev: '电脑·上家' }, with: /电脑·上家, 电脑·下家/, compass: /[西南东]/, rules: 'CAAI 1.0' },
};

test('issue 38 item 7: the room form in two choices, no jargon on the table, tools clear of the cards, two phone rows, one-row revealed hands, the panel off the top edge, seats named from ours in my games and the replay', async () => {
  const s = await serve('serve-pages-38.log', ['--ai-delay-ms', '30', '--ready-clock', '120']);
  for (const [label, opts] of [['desktop-en', {}], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }]]) {
    const w = WORDS38[label.slice(-2)];
    const page = await s.page('/', opts);
    // d: the form asks how many people and the computers' level; the
    // seat-by-seat form is folded
    await openCreateForm(page);
    assert.deepEqual(await page.$$eval('[data-test=level] option', (o) => o.map((x) => x.textContent)), w.levels, `${label}: the levels`);
    assert.equal(await page.$$eval('[data-test=people] option', (o) => o.length), 3);
    assert.ok(!(await page.isVisible('[data-test=seat0]')), `${label}: the seat-by-seat form is folded`);
    await page.locator('[data-test=people]').scrollIntoViewIfNeeded();
    await shot(page, `i38-7d-form-${label}`);
    await page.selectOption('[data-test=people]', '1');
    await page.selectOption('[data-test=level]', 'random');
    await page.fill('.create input[type=number] >> nth=1', '1'); // one game a round: the round's panel at its end
    await page.click('[data-test=create]');
    await page.waitForSelector('.hand .card', { timeout: T(30000) });
    const state = await page.evaluate(() => window.__frames.filter((f) => f.type === 'state').pop());
    const seat = state.seat;
    assert.deepEqual(state.players.map((p, i) => (i === seat ? 'me' : p && p.name)).filter((x) => x !== 'me'), ['ai:random', 'ai:random'],
      `${label}: two easy computers`);
    // j: no CAAI, Botzone, BLAKE2b or budget in ms on the table; the
    // details name the rules and the commitment when opened
    const jargon = /CAAI|Botzone|BLAKE2b|\d+ ms\b/;
    assert.ok(!jargon.test(await page.innerText('.table-view')), `${label}: jargon on the table`);
    await page.click('[data-test=table-details] > summary');
    assert.equal(await page.textContent('[data-test=details-rules]'), w.rules);
    assert.match(await page.textContent('[data-test=commit]'), /[0-9a-f]{64}/);
    await shot(page, `i38-7j-details-${label}`);
    await page.click('[data-test=table-details] > summary');
    let looked = false;
    for (let guard = 0; guard < 120; guard++) {
      const d = await decision(page, 60000);
      if (d === 'over') break;
      if (d === 'bid') {
        const bids = await page.$$eval('[data-test^=bid]:not(:disabled)', (b) => b.map((x) => x.dataset.test));
        await page.click(`[data-test=${bids.sort().pop()}]`);
        continue;
      }
      if (!looked && (await page.$$('.hand .card')).length >= 17) {
        looked = true;
        // e: the side tools (auto-pass, auto-play, phrases) clear of the
        // hand, with the moves panel closed and open
        for (const open of [false, true]) {
          await toggleMoves(page, open);
          await page.waitForFunction((o) => !!document.querySelector('.history:not([hidden])') === o, open, { timeout: T(10000) });
          await settle(page);
          const hits = await overlaps(page, [['.controls .side > *', '.hand .card'], ['.controls .side > *', '.controls .actions > *']]);
          if (hits.length) await shot(page, `i38-7e-overlap-${label}`);
          assert.deepEqual(hits, [], `${label}: the side tools cover (moves panel ${open ? 'open' : 'closed'})`);
        }
        await shot(page, `i38-7e-moves-${label}`);
        await toggleMoves(page, false);
        // h: a phone's hand of 17 or more takes two rows at most (by the
        // slots: a selected card rises in its slot; a desktop fans one row)
        if (opts.mobile) assert.equal(await rowsOf(page, '.hand .slot'), 2, `${label}: the hand's rows`);
        await shot(page, `i38-7h-hand-${label}`);
      }
      await page.click('[data-test=hint]');
      await page.click('[data-test=play]');
    }
    assert.ok(looked, `${label}: a turn with the whole hand came`);
    // g, i, c: the round's panel clear of the top edge; its words
    await page.waitForSelector('[data-test=gameover]', { timeout: T(30000) });
    await page.waitForSelector('[data-test=rematch]', { timeout: T(30000) });
    await settle(page);
    const top = await page.$eval('[data-test=gameover]', (e) => e.getBoundingClientRect().top);
    assert.ok(top >= 8, `${label}: the round's panel ${top} px from the top`);
    // taller with the round's games listed: still clear of the top
    await page.click('[data-test=round-scores] > summary');
    await settle(page);
    const top2 = await page.$eval('[data-test=gameover]', (e) => e.getBoundingClientRect().top);
    assert.ok(top2 >= 8, `${label}: the round's panel, opened further, ${top2} px from the top`);
    assert.match(await page.textContent('.turnover h2'), label.endsWith('en') ? /Round over — 1 game played/ : /本轮结束 —— 共 1 局/);
    const panel = await page.innerText('[data-test=gameover]');
    assert.ok(panel.includes(w.total) && !/Turn total/.test(panel), `${label}: the round's total is named ${w.total}`);
    assert.equal((await page.textContent('[data-test=replay-link]')).replace(/^\u25B6\s*/, ''), w.replay);
    assert.ok(!/录像|recording/i.test(panel), `${label}: one word for a replay`);
    await shot(page, `i38-7g-panel-${label}`);
    const href = await page.getAttribute('[data-test=replay-link]', 'href');
    // f: the revealed hands behind it, each in one row inside its seat
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-test=gameover]', { state: 'detached', timeout: T(10000) });
    for (const sel of ['.seat.pos-left .oppo-hand.revealed .card', '.seat.pos-right .oppo-hand.revealed .card']) {
      if (await page.$(sel)) assert.equal(await rowsOf(page, sel), 1, `${label}: ${sel} in one row`);
    }
    await shot(page, `i38-7f-revealed-${label}`);
    // b: the replay opened by the player names the seats from ours
    assert.match(href, new RegExp(`\\?from=${seat}$`));
    const rp = await s.page('/' + href, opts);
    await rp.waitForSelector('[data-test=replay-dir]', { timeout: T(30000) });
    const dirs = await rp.$$eval('[data-test=replay-dir]', (els) => Object.fromEntries(els.map((e) => [e.closest('.seat').dataset.seat, e.textContent])));
    assert.deepEqual(dirs, { [seat]: w.me, [(seat + 1) % 3]: w.next, [(seat + 2) % 3]: w.prev }, `${label}: the replay's seats`);
    assert.equal(await rp.textContent(`.seat[data-seat="${(seat + 1) % 3}"] .name`), w.ai.next);
    // f in the replay: every side hand, 17 cards, in one row
    for (const p of ['left', 'right']) assert.equal(await rowsOf(rp, `.seat.pos-${p} .oppo-hand .card`), 1, `${label}: the replay's ${p} hand in one row`);
    await shot(rp, `i38-7b-replay-${label}`);
    // m: at the end, with the analysis under the board, the result box
    // leaves the bottom cards' label uncovered
    await rp.click('[data-test=replay-last]');
    await rp.waitForSelector('[data-test=replay-result]', { timeout: T(30000) });
    await rp.waitForFunction(() => !document.querySelector('[data-test=analysis-status]') ||
      !/Analysing|正在分析/.test(document.querySelector('[data-test=analysis-status]').textContent), null, { timeout: T(60000) });
    await settle(rp);
    // nothing the table shows under the result box: the bottom cards'
    // label, the seats' plays and hands (each the topmost element at its
    // centre, the result box not)
    const covered = () => rp.evaluate(() => {
      const out = [];
      const box = document.querySelector('[data-test=replay-result]');
      for (const e of document.querySelectorAll('.center .bottom-cards .label, .seat .said, .seat .oppo-hand .card')) {
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (hit && box.contains(hit)) out.push(e.className || e.tagName);
      }
      return [...new Set(out)];
    });
    await shot(rp, `i38-7m-replay-end-${label}`);
    assert.deepEqual(await covered(), [], `${label}: the result box covers`);
    if (opts.mobile) {
      // a phone with its browser's bars (less height): the centre shrinks
      await rp.setViewportSize({ width: PHONE.width, height: 640 });
      await rp.click('[data-test=replay-prev]');
      await rp.click('[data-test=replay-last]');
      await rp.waitForSelector('[data-test=replay-result]', { timeout: T(30000) });
      await settle(rp);
      const seen = await rp.$eval('[data-test=replay-result]', (e) => {
        const r = e.getBoundingClientRect(), c = e.closest('.center').getBoundingClientRect();
        return Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top);
      });
      assert.ok(seen > 20, `${label}: the result box is scrolled into the centre, 640 px high (${seen} px of it shown)`);
      await shot(rp, `i38-7m-replay-end-short-${label}`);
      assert.deepEqual(await covered(), [], `${label}: the result box covers, 640 px high`);
    }
    assert.deepEqual(rp.errors, []);
    await rp.close();
    // a: my games names the others from our seat
    await page.click('[data-test=lobby]');
    await waitFor('the game in my games', async () => {
      if (await page.$('[data-test=mygame]')) return true;
      await page.click('[data-test=mygames-refresh]');
      return false;
    }, 30000, 300);
    const withText = await page.$eval('[data-test=mygame] .with', (e) => e.textContent);
    assert.match(withText, w.with, `${label}: my games names the others`);
    assert.ok(!w.compass.test(withText), `${label}: compass words in my games: ${withText}`);
    assert.match(await page.getAttribute('[data-test=mygame-replay]', 'href'), new RegExp(`\\?from=${seat}$`));
    await page.locator('[data-test=mygames]').scrollIntoViewIfNeeded();
    await shot(page, `i38-7a-mygames-${label}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('issue 38 item 7 k, l: the ladder ranking fits a phone; a participant\'s page names a hosted AI in words, its raw id in a title', async () => {
  const s = await ladderServer();
  for (const [label, opts, strong] of [['desktop-en', {}, 'Computer (strong)'], ['phone-zh', { viewport: PHONE, mobile: true, locale: 'zh-CN' }, '电脑（强）']]) {
    const page = await s.page('/#/ladder', opts);
    await page.waitForSelector('[data-test=ladder-player]', { timeout: T(60000) });
    const fit = await page.$eval('[data-test=ladder]', (e) => ({ table: e.scrollWidth, box: e.parentElement.clientWidth }));
    assert.ok(fit.table <= fit.box + 1, `${label}: the ranking is ${fit.table} px in a ${fit.box} px box`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${label}: the page scrolls sideways`);
    const names = await page.$$eval('[data-test=ladder-player]', (a) => a.map((x) => ({ text: x.textContent, title: x.title })));
    assert.ok(names.some((n) => n.text === strong && n.title === 'ai:strong:20'), `${label}: ${JSON.stringify(names)}`);
    await shot(page, `i38-7k-ladder-${label}`);
    await page.goto(s.base + '/#/ladder/' + encodeURIComponent('ai:strong:20'));
    await page.waitForSelector('[data-test=player-status]', { timeout: T(60000) });
    await page.waitForSelector('[data-test=deals]', { timeout: T(60000) });
    assert.equal(await page.textContent('h1 [data-test=pname]'), strong);
    assert.equal(await page.getAttribute('h1 [data-test=pname]', 'title'), 'ai:strong:20');
    const text = await page.innerText('body');
    assert.ok(!/\bai:|\d+ ms\b/.test(text), `${label}: raw ids on the participant's page: ${text.slice(0, 400)}`);
    await shot(page, `i38-7l-player-${label}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('issue 38 item 7 d: the room form\'s default is 2 people and a normal computer; 3 people need no level; the seat-by-seat form, once open, is the one sent', async () => {
  const s = await serve('serve-pages-38d.log', ['--ready-clock', '120']);
  const page = await s.page('/');
  await openCreateForm(page);
  assert.equal(await page.inputValue('[data-test=people]'), '2');
  assert.equal(await page.inputValue('[data-test=level]'), 'greedy');
  await page.selectOption('[data-test=people]', '3');
  assert.ok(await page.isDisabled('[data-test=level]'), 'no computers: no level to choose');
  await page.selectOption('[data-test=people]', '2');
  assert.ok(!(await page.isDisabled('[data-test=level]')));
  await page.click('[data-test=seatwise] > summary');
  // (the disclosure's toggle event comes a task after the click)
  await page.waitForFunction(() => document.querySelector('[data-test=people]').disabled &&
    document.querySelector('[data-test=level]').disabled, null, { timeout: T(10000) });
  await page.click('[data-test=seatwise] > summary'); // folded again: the two choices count
  await page.waitForFunction(() => !document.querySelector('[data-test=people]').disabled, null, { timeout: T(10000) });
  await page.click('[data-test=create]');
  await page.waitForSelector('.table-view', { timeout: T(30000) });
  await page.waitForFunction(() => window.__frames.some((f) => f.type === 'state'), null, { timeout: T(30000) });
  const st = await page.evaluate(() => window.__frames.filter((f) => f.type === 'state').pop());
  assert.equal(st.seat, 0, 'the creator sits in the first seat');
  assert.equal(st.players[1], null, 'a seat open for the friend');
  assert.equal(st.players[2] && st.players[2].name, 'ai:greedy', 'a normal computer in the last');
  assert.deepEqual(page.errors, []);
  await page.close();
});
