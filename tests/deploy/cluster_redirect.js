#!/usr/bin/env node
// cluster_redirect.js - through the proxy of deploy/cluster/nginx.conf: a
// room made on node n2 (at PROXY/n/n2/ws) is listed by node n1 (at
// PROXY/n/n1/ws), a join of it there is answered `redirect` to n2's public
// URL, and following it (a new connection, hello, the join again) seats us.
// Prints "ok ROOM" and exits 0, else a reason on stderr and exit 1.
//
// Usage: node --experimental-websocket cluster_redirect.js ws://HOST:PORT [TIMEOUT_S]
'use strict';

const base = process.argv[2];
const timeoutS = Number(process.argv[3] || 30);
if (!base || typeof WebSocket !== 'function') {
    console.error('usage: node --experimental-websocket cluster_redirect.js ws://HOST:PORT');
    process.exit(2);
}
const fail = (why) => {
    console.error('cluster_redirect.js: ' + why);
    process.exit(1);
};
setTimeout(() => fail(`no result within ${timeoutS} s`), timeoutS * 1000);

/* A connection whose frames are awaited one type at a time. */
function open(url, name) {
    return new Promise((resolve, reject) => {
        const ws = new WebSocket(url);
        const queue = [];
        let waiter = null;
        ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === 'error') fail(`${url}: ${e.data}`);
            queue.push(m);
            if (waiter) waiter();
        };
        ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
        ws.onopen = () => {
            const c = {
                ws,
                send: (m) => ws.send(JSON.stringify(m)),
                async next(type) {
                    for (;;) {
                        const i = queue.findIndex((m) => m.type === type);
                        if (i >= 0) return queue.splice(i, 1)[0];
                        await new Promise((r) => { waiter = r; });
                    }
                },
            };
            c.send({ type: 'hello', version: 1, name });
            c.next('welcome').then(() => resolve(c));
        };
    });
}

(async () => {
    const n2 = `${base}/n/n2/ws`, n1 = `${base}/n/n1/ws`;
    const host = await open(n2, 'host');
    host.send({ type: 'create', seat: 2, options: { seats: [null, 'ai:greedy', null] } });
    const room = (await host.next('joined')).room;
    if (!/^n2-/.test(room)) fail(`room ${room} of node n2 has no n2- prefix`);
    const alice = await open(n1, 'alice');
    for (let i = 0; ; i++) {
        if (i > 50) fail(`node n1 never listed room ${room}`);
        alice.send({ type: 'list' });
        const r = await alice.next('rooms');
        if (r.rooms.some((x) => x.id === room)) break;
        await new Promise((r) => setTimeout(r, 100));
    }
    alice.send({ type: 'join', room, id: 1 });
    const rd = await alice.next('redirect');
    if (rd.url !== n2 || rd.room !== room || rd.about !== 'join' || rd.id !== 1)
        fail(`unexpected redirect ${JSON.stringify(rd)}`);
    alice.ws.close();
    const again = await open(rd.url, 'alice');
    again.send({ type: 'join', room });
    const j = await again.next('joined');
    if (j.room !== room || j.seat === null) fail(`joined ${JSON.stringify(j)}`);
    console.log('ok ' + room);
    process.exit(0);
})().catch((e) => fail(e.message));
