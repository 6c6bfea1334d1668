// cluster.test.mjs - the web client follows a `redirect` (PROTOCOL.md,
// "Many nodes"): two `ddz serve` nodes share a database of their own on
// the PostgreSQL of the ctest fixture "pg" (DDZ_TEST_PG names the file with
// its URL); a page of node n1 lists a room of node n2, its Join is answered
// `redirect`, and the client connects to n2, says hello, repeats the join
// and shows the table, on a desktop and on a 390x844 phone. The rooms'
// hosts are plain WebSocket clients here (node --experimental-websocket)
// that play their seat. Screenshots go to tests/web/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { ART, DDZ, ROOT, freePort, launchBrowser, openPage as open, waitFor, shot, T } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let pgAdmin, dbName, browser;
const nodes = {};
const hosts = [];
const contexts = [];

function psql(url, sql) {
  const bin = fs.readdirSync('/usr/lib/postgresql').sort().map((v) => `/usr/lib/postgresql/${v}/bin/psql`)
    .filter((p) => fs.existsSync(p)).pop() || 'psql';
  execFileSync(bin, [url, '-q', '-c', sql], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function startNode(id, dbUrl) {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}/ws`;
  const fd = fs.openSync(path.join(ART, `serve-cluster-${id}.log`), 'w');
  const proc = spawn(DDZ, ['serve', '--port', String(port), '--bind', '127.0.0.1', '--db', dbUrl,
    '--node', id, '--public-url', url, '--web', path.join(ROOT, 'web'), '--ai-delay-ms', '30'],
  { stdio: ['ignore', fd, fd] });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`node ${id} to answer /healthz`, async () => (await fetch(base + '/healthz')).ok, 15000);
  nodes[id] = { proc, port, url, base };
}

/* A player of its own on `url` that creates a room (it sits at seat 2, an
 * AI at seat 1, seat 0 open) and plays its seat. Resolves to the room id. */
function host(url, name) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    hosts.push(ws);
    ws.onerror = () => reject(new Error(`host cannot connect to ${url}`));
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1, name }));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'welcome') {
        ws.send(JSON.stringify({ type: 'create', seat: 2,
          options: { name, games: 1, pause: 0, seats: [null, 'ai:greedy', null] } }));
      } else if (m.type === 'joined' && m.room) {
        resolve(m.room);
      } else if (m.type === 'turn' && m.seat === 2 && m.legal) {
        const msg = m.action === 'bid' ? { type: 'bid', seq: m.seq, bid: Math.max(...m.legal) }
          : { type: 'play', seq: m.seq, cards: m.legal[0] };
        ws.send(JSON.stringify(msg));
      } else if (m.type === 'error') {
        reject(new Error(`host: ${e.data}`));
      }
    };
  });
}

before(async () => {
  assert.equal(typeof WebSocket, 'function', 'run node with --experimental-websocket (node_test.sh does)');
  const f = process.env.DDZ_TEST_PG;
  assert.ok(f, 'DDZ_TEST_PG is not set: run under ctest (the "pg" fixture)');
  pgAdmin = fs.readFileSync(f, 'utf8').trim();
  assert.match(pgAdmin, /^postgres(ql)?:\/\//);
  dbName = 't_web_' + Math.random().toString(16).slice(2, 10);
  psql(pgAdmin, `CREATE DATABASE ${dbName}`);
  const dbUrl = pgAdmin.replace(/\/[^/]*$/, '/' + dbName);
  fs.mkdirSync(ART, { recursive: true });
  await startNode('n1', dbUrl);
  await startNode('n2', dbUrl);
  browser = await launchBrowser();
});

after(async () => {
  for (const ws of hosts) ws.close();
  for (const c of contexts) await c.close().catch(() => {});
  if (browser) await browser.close().catch(() => {});
  for (const n of Object.values(nodes)) {
    if (n.proc.exitCode === null) {
      n.proc.kill('SIGTERM');
      const killer = setTimeout(() => n.proc.kill('SIGKILL'), 5000);
      await once(n.proc, 'exit');
      clearTimeout(killer);
    }
  }
  if (dbName) psql(pgAdmin, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
});

/* A page of node n1, recording errors and every frame with the URL of the
 * socket it came on. */
function openPage({ viewport, mobile = false, locale = 'en-US' }) {
  return open(browser, contexts, nodes.n1.base + '/', { viewport, locale, mobile, withUrl: true });
}

async function followsRedirect(label, opts) {
  const room = await host(nodes.n2.url, `host-${label}`);
  assert.match(room, /^n2-[a-z0-9]{8}$/);
  const page = await openPage(opts);
  // node n1's lobby lists node n2's room (it polls `list` every 5 s)
  const row = `[data-room="${room}"]`;
  await page.waitForSelector(row, { timeout: T(15000) });
  await shot(page, `cluster-lobby-${label}`);
  await page.click(`${row} [data-test=join]`);
  // n1 answers with a redirect; the client goes to n2 and sits down there
  await page.waitForFunction((r) => location.hash === `#/room/${r}`, room, { timeout: T(10000) });
  await page.waitForSelector('[data-test=controls]', { timeout: T(10000) });
  const frames = await page.evaluate(() => window.__frames);
  const rd = frames.find((f) => f.m.type === 'redirect');
  assert.ok(rd, 'no redirect frame');
  assert.equal(rd.url, nodes.n1.url);
  assert.equal(rd.m.url, nodes.n2.url);
  assert.equal(rd.m.room, room);
  const joined = frames.find((f) => f.m.type === 'joined' && f.m.room === room);
  assert.ok(joined, 'never joined the room');
  assert.equal(joined.url, nodes.n2.url, 'joined on node n2');
  assert.equal(joined.m.seat, 0);
  // node n2's resume token is kept apart from n1's
  const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('ddz.resume')).sort());
  assert.deepEqual(keys, ['ddz.resume', `ddz.resume@${nodes.n2.url}`]);
  // the game runs at the table (the host and the AI play; we are dealt)
  await page.waitForSelector('[data-test=controls][data-seq]', { timeout: T(15000) });
  await shot(page, `cluster-table-${label}`);
  // a reload: the page's node again, the join redirected again, and node
  // n2 resumes the same player in the same seat (its own resume token)
  const me = frames.filter((f) => f.m.type === 'welcome' && f.url === nodes.n2.url).pop().m.you.id;
  await page.reload();
  await page.waitForSelector('[data-test=controls]', { timeout: T(15000) });
  await page.waitForFunction((u) => window.__frames.some((f) => f.url === u && f.m.type === 'state'),
    nodes.n2.url, { timeout: T(10000) });
  const after = await page.evaluate(() => window.__frames);
  const w2 = after.find((f) => f.m.type === 'welcome' && f.url === nodes.n2.url);
  assert.equal(w2.m.you.id, me, 'node n2 knew us again');
  const st = after.filter((f) => f.m.type === 'state' && f.url === nodes.n2.url).pop();
  assert.equal(st.m.room.id, room);
  assert.equal(st.m.seat, 0);
  assert.equal(await page.evaluate(() => location.hash), `#/room/${room}`);
  assert.deepEqual(page.errors, []);
}

test('the web client follows a redirect to the node of the room (desktop)', async () => {
  await followsRedirect('desktop', { viewport: DESKTOP });
});

test('the web client follows a redirect to the node of the room (phone)', async () => {
  await followsRedirect('phone', { viewport: PHONE, mobile: true, locale: 'zh-CN' });
});
