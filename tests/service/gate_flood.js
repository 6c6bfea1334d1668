// gate_flood.js - the door's flood of issue 37 (docs/operations.md, "Budgets"): from
// ADDRS loopback addresses (127.0.2.1, 127.0.2.2, ...), PER sockets each
// (under --max-conns-per-ip) send one request head the gate used to hand to
// libwebsockets unanswered, then stay silent; meanwhile PROBES legitimate
// `GET /healthz` come one after the other, each from a fresh address
// (127.0.3.1, ...), and each must be answered `200 ok` within 3 s.
//
// Heads (--head):
//   connect  CONNECT host:22 HTTP/1.1 and a whole head (lws went raw: no
//            answer, no close, no deadline)
//   crcrlf   a head whose blank line is \r\r\n (the gate saw its end, lws
//            never did)
//   h2cnul   Upgrade: h2c\0x (lws read h2c and served HTTP/2 in clear)
//   half     half a head (the control: the gate holds it, sheds it first
//            near its cap and closes it at its deadline)
// With --reconnect, a flood socket the server closes is opened again at
// once (a sustained flood) rather than left closed.
//
// Traffic goes to the given loopback port only; at most ADDRS x PER + 1
// sockets are open at once, and the run ends after the probes.
//
// Usage: node gate_flood.js --port P [--head connect] [--addrs 10]
//        [--per 95] [--probes 40] [--reconnect 0|1] [--hold-ms 12000]
// Prints one JSON line: {"head":...,"flood_open":N (sockets open when the
// probes began),"probes":40,"failed":F,"probe_ms_median":M,
// "flood_open_after_hold":K (sockets the server still held after
// --hold-ms from the flood's start; 0 unless --reconnect 0)}.
'use strict';
const net = require('net');

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].slice(2)] = process.argv[i + 1];
const port = Number(args.port);
const kind = args.head || 'connect';
const addrs = Number(args.addrs || 10), per = Number(args.per || 95), probes = Number(args.probes || 40);
const reconnect = args.reconnect === '1';
const holdMs = Number(args['hold-ms'] || 12000);

const heads = {
    connect: 'CONNECT host:22 HTTP/1.1\r\nHost: host:22\r\n\r\n',
    crcrlf: 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\r\n',
    h2cnul: 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n' +
        'Upgrade: h2c\0x\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
    half: 'GET /healthz HTTP/1.1\r\nHo',
};
if (!port || !heads[kind]) {
    console.error('usage: node gate_flood.js --port P [--head connect|crcrlf|h2cnul] ...');
    process.exit(2);
}

let open = 0, stopping = false;

// One flood socket from `from`: sends the head, reads and drops whatever
// comes, and (with --reconnect) opens again once the server closes it.
function flood(from) {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    let counted = false;
    s.on('connect', () => { counted = true; open++; s.write(heads[kind], 'latin1'); });
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => {
        if (counted) open--;
        if (reconnect && !stopping) setTimeout(() => flood(from), 10);
    });
    return s;
}

// GET /healthz from `from`: resolves with the milliseconds it took, or -1
// if no `200` with the body `ok` came within 3 s.
function probe(from) {
    return new Promise(resolve => {
        const t0 = Date.now();
        const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
        let got = '';
        const done = ok => { clearTimeout(timer); s.destroy(); resolve(ok ? Date.now() - t0 : -1); };
        const timer = setTimeout(() => done(false), 3000);
        s.on('error', () => done(false));
        s.on('connect', () => s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
        s.on('data', d => { got += d.toString('latin1'); });
        s.on('close', () => done(got.startsWith('HTTP/1.1 200 ') && got.endsWith('\r\n\r\nok\n')));
    });
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

async function main() {
    const start = Date.now();
    const socks = [];
    for (let a = 0; a < addrs; a++)
        for (let i = 0; i < per; i++)
            socks.push(flood(`127.0.2.${a + 1}`));
    // every flood socket connected (or refused) and its head sent, then a
    // moment for the server to read them
    for (let t = 0; t < 100 && open < addrs * per; t++) await sleep(50);
    await sleep(1000);
    const floodOpen = open;
    const times = [];
    let failed = 0;
    for (let p = 0; p < probes; p++) {
        const ms = await probe(`127.0.3.${p + 1}`);
        if (ms < 0) failed++;
        else times.push(ms);
    }
    times.sort((x, y) => x - y);
    let after = null;
    if (!reconnect) {
        const left = start + holdMs - Date.now();
        if (left > 0) await sleep(left);
        after = open;
    }
    stopping = true;
    for (const s of socks) s.destroy();
    console.log(JSON.stringify({
        head: kind, reconnect, flood_sockets: addrs * per, flood_open: floodOpen, probes, failed,
        probe_ms_median: times.length ? times[times.length >> 1] : null,
        hold_ms: reconnect ? null : holdMs, flood_open_after_hold: after,
    }));
    process.exit(0);
}

main();
