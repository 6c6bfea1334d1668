// ai_rooms.js - memory held per quick-play room with two hosted AIs
// (issue 16): opens N connections, each asks for quick play against `AI`
// so the AIs think (it plays its own turns at once: the lowest bid, the
// first legal play); once every room has seen its AIs act, prints the
// server's RSS and heap before and after.
//
// Usage: node --experimental-websocket ai_rooms.js ws://HOST:PORT/ws PID N [AI]
// (the server needs --max-conns-per-ip and --max-rooms-per-ip >= N, and
// --max-ais >= 2N). Node 22 needs no flag.
'use strict';
const fs = require('fs');
const [url, pid, nStr, ai = 'strong'] = process.argv.slice(2);
const N = Number(nStr);
const http = url.replace(/^ws/, 'http').replace(/\/ws$/, '');

function rssKb() {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(m[1]);
}
async function heapBytes() {
    const t = await (await fetch(`${http}/metrics`)).text();
    const m = /^ddz_heap_bytes (\d+)/m.exec(t);
    return m ? Number(m[1]) : NaN;
}
function room() {
    return new Promise((resolve, reject) => {
        const ws = new WebSocket(url);
        let aiActs = 0;
        ws.onopen = () => ws.send(JSON.stringify({type: 'hello', version: 1, name: 'mem'}));
        ws.onerror = (e) => reject(new Error('socket error'));
        ws.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.type === 'welcome')
                ws.send(JSON.stringify({type: 'quick', ai}));
            else if (m.type === 'error')
                reject(new Error(JSON.stringify(m)));
            else if (m.type === 'turn' && m.legal && m.action === 'bid')
                ws.send(JSON.stringify({type: 'bid', seq: m.seq, bid: Math.min(...m.legal)}));
            else if (m.type === 'turn' && m.legal && m.action === 'play')
                ws.send(JSON.stringify({type: 'play', seq: m.seq, cards: m.legal[0]}));
            else if ((m.type === 'played' || m.type === 'bid_made') && m.seat !== 0 && ++aiActs === 2)
                resolve(ws); // both AIs have decided at least once (together)
        };
    });
}
(async () => {
    const rss0 = rssKb(), heap0 = await heapBytes();
    const socks = [];
    for (let i = 0; i < N; i += 50)
        socks.push(...await Promise.all(Array.from({length: Math.min(50, N - i)}, room)));
    await new Promise((r) => setTimeout(r, 2000)); // let the AIs' thinking settle
    const rss1 = rssKb(), heap1 = await heapBytes();
    console.log(JSON.stringify({rooms: N, ai, rss_kb: [rss0, rss1], heap: [heap0, heap1],
        rss_per_room: Math.round((rss1 - rss0) * 1024 / N),
        heap_per_room: Math.round((heap1 - heap0) / N)}));
    socks.forEach((s) => s.close());
    process.exit(0);
})().catch((e) => { console.error(e.message); process.exit(1); });
