// attack.js - the attacks of the budgets issue (docs/operations.md, "Budgets"), mixed
// into steady play by tests/service/soak.sh: for SECONDS, RATE attacks a
// second, in turn:
//   engines   create a room with two engine seats, sit, drop at once
//   ais       create a room with two hosted AIs, sit, drop at once
//   quick     quick play, drop at once
//   noread    say hello, stop reading, ask for 40 room lists, hang on 3 s
//   password  a wrong password for a room with one
//   pipeline  five pipelined GET /healthz: one whole answer, then the close
//   unmasked  an unmasked hello after the handshake: read as masked with the zero key,
//             welcomed (docs/decisions.md: lws 4.1.6 cannot see the mask bit)
//   bighead   a request head of 9 KB: 431
//   post      POST /: 405
// Each must be answered as PROTOCOL.md says (`joined`, or EBUSY when a
// budget is spent, ERATE for a room with engines past its address's start
// budget; EAUTH, or ERATE once the room or address is locked
// out); anything else, or no answer within 5 s, is unexpected. Rooms made
// here have a grace of GRACE seconds (default 5), so that they are gone
// soon after the attacks stop and the soak's end checks (no engine process
// left over, descriptors as before) still hold.
//
// Raw sockets (rawws.js), not a WebSocket library: a client that stops
// reading must really stop. Traffic goes to the given loopback URL only;
// the run is bounded by SECONDS and at most 300 attacks in flight.
//
// Usage: node attack.js --url ws://127.0.0.1:PORT/ws --seconds S --rate R
//        [--engine NAME] [--grace S]
// Prints one JSON line: {"attacks":N,"unexpected":U,"first_unexpected":...,
// "kinds":{"engines":[sent,answered],...},"busy":B,"locked":L}
'use strict';
const net = require('net');

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].slice(2)] = process.argv[i + 1];
const url = new URL(args.url);
const seconds = Number(args.seconds || 10), rate = Number(args.rate || 1);
const engine = args.engine || '', grace = Number(args.grace || 5);

const kinds = ['engines', 'ais', 'quick', 'noread', 'password', 'pipeline', 'unmasked', 'bighead', 'post']
    .filter(k => k !== 'engines' || engine);
const stats = Object.fromEntries(kinds.map(k => [k, [0, 0]]));
let attacks = 0, unexpected = 0, firstUnexpected = null, busy = 0, locked = 0, inFlight = 0;

function fail(kind, why) {
    unexpected++;
    if (!firstUnexpected) firstUnexpected = `${kind}: ${why}`;
}

const rawws = require('./rawws');
const connect = () => rawws.connect(url);
const send = rawws.send, waitFor = rawws.waitFor;

const JOINED = '"type":"joined"', EBUSY = '"code":"EBUSY"', EAUTH = '"code":"EAUTH"', ERATE = '"code":"ERATE"';

async function hello() {
    const s = await connect();
    s.on('error', () => {});
    send(s, { type: 'hello', version: 1, name: 'attacker' });
    if (await waitFor(s, ['"type":"welcome"']) < 0) { s.destroy(); throw new Error('no welcome'); }
    return s;
}

// One request; `ok` lists the answers it may get. Returns the index.
async function ask(s, kind, req, ok) {
    const from = s.text.length;
    send(s, req);
    const i = await waitFor(s, ok, from);
    if (i < 0) fail(kind, `no expected answer to ${req.type}: ${s.text.slice(from, from + 200)}`);
    return i;
}

let passwordRoom = null;

// Raw HTTP: writes `text`, resolves with everything the server sent until
// it closed the connection (or after 5 s: then `timedOut` is set).
function rawHttp(text) {
    return new Promise(resolve => {
        const s = net.connect(Number(url.port), url.hostname);
        const got = [];
        const timer = setTimeout(() => { s.destroy(); resolve({ text: Buffer.concat(got).toString('latin1'), timedOut: true }); }, 5000);
        s.on('error', () => {});
        s.on('data', d => got.push(d));
        s.on('close', () => { clearTimeout(timer); resolve({ text: Buffer.concat(got).toString('latin1'), timedOut: false }); });
        s.on('connect', () => s.write(text));
    });
}

async function httpAttack(kind) {
    const host = `Host: ${url.host}\r\n`;
    if (kind === 'pipeline') {
        const r = await rawHttp(`GET /healthz HTTP/1.1\r\n${host}\r\n`.repeat(5));
        const answers = r.text.split('HTTP/1.1 ').length - 1;
        if (r.timedOut || answers !== 1 || !r.text.startsWith('HTTP/1.1 200'))
            fail(kind, `${answers} answers${r.timedOut ? ', no close' : ''}: ${r.text.slice(0, 80)}`);
        return 0;
    }
    if (kind === 'bighead' || kind === 'post') {
        const req = kind === 'post' ? `POST / HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\n`
            : `GET / HTTP/1.1\r\n${host}X-Pad: ${'a'.repeat(9000)}\r\n\r\n`;
        const r = await rawHttp(req);
        const want = kind === 'post' ? 'HTTP/1.1 405' : 'HTTP/1.1 431';
        if (!r.text.startsWith(want)) fail(kind, `not ${want}: ${r.text.slice(0, 80)}`);
        return 0;
    }
    // unmasked: a WebSocket whose client forgets to mask, read as a frame
    // masked with the all-zero key (PROTOCOL.md): welcomed
    const s = await connect();
    s.on('error', () => {});
    const t = Buffer.from(JSON.stringify({ type: 'hello', version: 1, name: 'unmasked' }));
    s.raw = [];
    s.on('data', d => s.raw.push(d));
    s.write(Buffer.concat([Buffer.from([0x81, t.length]), t]));
    const welcomed = await new Promise(resolve => {
        const timer = setTimeout(() => resolve(false), 5000);
        s.on('data', () => {
            if (Buffer.concat(s.raw).includes('"type":"welcome"')) { clearTimeout(timer); resolve(true); }
        });
        s.on('close', () => { clearTimeout(timer); resolve(false); });
    });
    s.destroy();
    if (!welcomed) fail(kind, 'an unmasked hello was not welcomed');
    return 0;
}

async function attack(kind) {
    stats[kind][0]++;
    let s;
    try {
        if (['pipeline', 'unmasked', 'bighead', 'post'].includes(kind)) {
            const before = unexpected;
            await httpAttack(kind);
            if (unexpected === before) stats[kind][1]++;
            return;
        }
        s = await hello();
        let i = 0;
        if (kind === 'engines' || kind === 'ais') {
            const seat = kind === 'engines' ? `engine:${engine}` : 'ai:random';
            // ERATE: its address's engine starts are spent (--spawn-rate-ip)
            i = await ask(s, kind, { type: 'create', seat: 2, options: { seats: [seat, seat, null], grace, time: 60 } },
                [JOINED, EBUSY, ERATE]);
            busy += i === 1 || i === 2;
        } else if (kind === 'quick') {
            i = await ask(s, kind, { type: 'quick' }, [JOINED, EBUSY]);
            busy += i === 1;
        } else if (kind === 'noread') {
            s.pause(); // reads nothing more
            for (let k = 0; k < 40; k++) send(s, { type: 'list' });
            await new Promise(r => setTimeout(r, 3000));
        } else if (kind === 'password' && passwordRoom) {
            i = await ask(s, kind, { type: 'join', room: passwordRoom, password: `guess${attacks}` }, [EAUTH, ERATE]);
            locked += i === 1;
        }
        if (i >= 0) stats[kind][1]++;
    } catch (e) {
        fail(kind, e.message);
    } finally {
        if (s) s.destroy(); // drop, without a close frame
    }
}

async function main() {
    // the room guessed at: its holder stays, seated, until the end
    const holder = await hello();
    send(holder, { type: 'create', options: { password: 'not-a-guess', time: 60, private: true } });
    await waitFor(holder, [JOINED]);
    const m = /"type":"joined","room":"([a-z0-9]+)"/.exec(holder.text);
    passwordRoom = m ? m[1] : null;
    if (!passwordRoom) fail('password', 'no room to guess at');
    const keepalive = setInterval(() => { holder.text = ''; }, 5000); // what it hears is not kept

    const pending = new Set();
    const start = Date.now();
    for (let n = 0; Date.now() - start < seconds * 1000; n++) {
        const due = start + (n * 1000) / rate;
        if (due > Date.now()) await new Promise(r => setTimeout(r, due - Date.now()));
        if (inFlight >= 300) continue; // bounded: the server answers slowly
        attacks++;
        inFlight++;
        const p = attack(kinds[n % kinds.length]).finally(() => { inFlight--; pending.delete(p); });
        pending.add(p);
    }
    await Promise.all(pending);
    clearInterval(keepalive);
    holder.destroy();
    console.log(JSON.stringify({ attacks, unexpected, first_unexpected: firstUnexpected, kinds: stats, busy, locked }));
}

main().catch(e => { console.log(JSON.stringify({ attacks, unexpected: unexpected + 1, first_unexpected: e.message })); });
