// engine_churn.js - engine rooms made and dropped while a bystander plays
// the timekeeper (issue 37, item 6): for SECONDS, each of CONNS connections
// from each of ADDRESSES client addresses creates a private room with two
// engine seats (engine:ENGINE), sitting in the third, and leaves it at
// once, again and again (within the frame rate: at most 8 rooms a second
// a connection); meanwhile a bystander on its own connection asks for the
// room list every 60 ms and times each answer, and every second a fresh
// connection times its hello. Prints one JSON line: the bystander's round
// trips (p50, p90, p99, max, in ms), the fresh hellos', and what the
// churners got (rooms joined, EBUSY, ERATE, no answer).
//
// Addresses other than the first are X-Forwarded-For hops 198.18.0.N: run
// the server with --trusted-proxy 127.0.0.1 (the bystander is 127.0.0.1 and
// the churners' first address too, so one address alone needs no proxy).
//
// A room's other options are its defaults (GRACE: --grace S sets it): the
// churner's seat, left mid-game, goes to a hosted AI and the engines play
// on until the room ends, so the engine budget (--max-engines) fills and
// rooms end and start engines as fast as the start budgets allow.
//
// Usage: node engine_churn.js --url ws://127.0.0.1:PORT/ws --engine NAME
//        [--seconds 10] [--addresses 4] [--conns 1] [--grace S] [--drop 1]
// (--drop 1: the churner drops its connection after `joined` and comes
// back with a new one, instead of sending `leave`)
'use strict';
const { connect, send, waitFor } = require('./rawws');

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].slice(2)] = process.argv[i + 1];
const url = new URL(args.url);
const seconds = Number(args.seconds || 10), nAddr = Number(args.addresses || 4);
const nConn = Number(args.conns || 1), engine = args.engine;
const grace = args.grace === undefined ? undefined : Number(args.grace); // undefined: the room's default
const drop = args.drop === '1'; // drop the connection instead of sending leave
if (!engine) throw new Error('--engine NAME is required');

const header = a => (a === 0 ? '' : `X-Forwarded-For: 198.18.0.${a}\r\n`);
const JOINED = '"type":"joined"', WELCOME = '"type":"welcome"', ROOMS = '"type":"rooms"';
const EBUSY = '"code":"EBUSY"', ERATE = '"code":"ERATE"';
const got = { joined: 0, busy: 0, rate: 0, lost: 0, errors: 0 };
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000; // ms, fractional
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function hello(a, name) {
    const s = await connect(url, header(a));
    s.on('error', () => {});
    send(s, { type: 'hello', version: 1, name });
    if (await waitFor(s, [WELCOME]) < 0) { s.destroy(); throw new Error('no welcome'); }
    return s;
}

// One churner: create, leave (or drop and come back), again, until the end.
async function churn(a, end) {
    let s = null;
    const seats = [`engine:${engine}`, `engine:${engine}`, null];
    while (now() < end) {
        const t0 = now();
        if (!s) {
            try {
                s = await hello(a, `churn${a}`);
            } catch (e) {
                got.errors++;
                await sleep(100);
                continue;
            }
        }
        s.text = ''; // what it hears is not kept
        const options = { seats, private: true };
        if (grace !== undefined) options.grace = grace;
        send(s, { type: 'create', seat: 2, options });
        const i = await waitFor(s, [JOINED, EBUSY, ERATE]);
        if (i === 0) {
            got.joined++;
            if (drop) {
                s.destroy();
                s = null;
            } else {
                const from = s.text.length;
                send(s, { type: 'leave' });
                await waitFor(s, ['"room":null'], from);
            }
        } else if (i === 1) {
            got.busy++;
        } else if (i === 2) {
            got.rate++;
        } else {
            got.lost++;
        }
        // two frames a cycle: 8 cycles a second stays under --rate 20
        const left = 125 - (now() - t0);
        if (left > 0) await sleep(left);
    }
    if (s) s.destroy();
}

function percentiles(v) {
    const x = [...v].sort((p, q) => p - q);
    const at = q => (x.length ? x[Math.min(x.length - 1, Math.floor(q * x.length))] : null);
    const r = t => (t === null ? null : Math.round(t * 10) / 10);
    return { n: x.length, p50: r(at(0.5)), p90: r(at(0.9)), p99: r(at(0.99)), max: r(x.length ? x[x.length - 1] : null) };
}

async function main() {
    const watcher = await hello(0, 'bystander');
    const end = now() + seconds * 1000;
    const churners = [];
    for (let a = 0; a < nAddr; a++)
        for (let c = 0; c < nConn; c++)
            churners.push(churn(a, end));
    const rtt = [], hellos = [];
    const fresh = (async () => {
        while (now() < end) {
            const t0 = now();
            try {
                const s = await hello(0, 'fresh');
                hellos.push(now() - t0);
                s.destroy();
            } catch (e) {
                hellos.push(5000);
            }
            await sleep(1000);
        }
    })();
    while (now() < end) {
        const t0 = now(), from = watcher.text.length;
        send(watcher, { type: 'list' });
        if (await waitFor(watcher, [ROOMS], from) < 0) rtt.push(5000);
        else rtt.push(now() - t0);
        if (watcher.text.length > 1e6) watcher.text = '';
        const left = 60 - (now() - t0); // 16 a second: within --rate 20
        if (left > 0) await sleep(left);
    }
    await Promise.all([...churners, fresh]);
    watcher.destroy();
    console.log(JSON.stringify({ seconds, addresses: nAddr, conns: nConn, engine,
        bystander_ms: percentiles(rtt), hello_ms: percentiles(hellos), churn: got }));
}

main().catch(e => { console.error(e.message); process.exit(1); });
