#!/usr/bin/env node
// quick_game.js - plays one quick game (PROTOCOL.md `quick`: one person
// against two hosted AIs) against a running `ddz serve`, as a browser would,
// and prints the `over` event's game link (game_id, and -game_key for a
// private room's game such as quick play's) and seed on one line:
//     game_id=17-4c1f0e8a... seed=e55164c4...
//
// Usage: node [--experimental-websocket] quick_game.js ws://HOST:PORT/ws [TIMEOUT_S]
//
// Uses the global WebSocket of Node 22, or of Node 20 with
// --experimental-websocket: no npm package. It bids the highest legal value
// (so the game cannot end in three passes, which has no play) and plays the
// first legal play of every `turn`. Any `error` frame, a close before `over`,
// or the timeout (default 60 s) fails it with exit code 1 and a reason on
// stderr.
'use strict';

const url = process.argv[2];
const timeoutS = Number(process.argv[3] || 60);
if (!url) {
    console.error('usage: quick_game.js ws://HOST:PORT/ws [TIMEOUT_S]');
    process.exit(2);
}
if (typeof WebSocket !== 'function') {
    console.error('quick_game.js: no global WebSocket (Node 22, or Node 20 with --experimental-websocket)');
    process.exit(2);
}

let frames = 0;
let seat = null;
let done = false;
const fail = (why) => {
    if (done) return;
    done = true;
    console.error(`quick_game.js: ${why} (after ${frames} frames)`);
    process.exit(1);
};
const timer = setTimeout(() => fail(`no 'over' within ${timeoutS} s`), timeoutS * 1000);

const ws = new WebSocket(url);
const send = (msg) => ws.send(JSON.stringify(msg));
ws.onopen = () => send({ type: 'hello', version: 1, name: 'deploy-test' });
ws.onerror = (e) => fail(`WebSocket error: ${e.message || e.type}`);
ws.onclose = (e) => fail(`closed before 'over' (code ${e.code} ${e.reason})`);
ws.onmessage = (ev) => {
    frames++;
    let m;
    try {
        m = JSON.parse(ev.data);
    } catch (err) {
        return fail(`frame is not JSON: ${String(ev.data).slice(0, 80)}`);
    }
    switch (m.type) {
    case 'welcome':
        send({ type: 'quick' });
        break;
    case 'joined':
        seat = m.seat;
        break;
    case 'turn':
        if (m.seat !== seat || !Array.isArray(m.legal)) break;
        if (m.action === 'bid')
            send({ type: 'bid', seq: m.seq, bid: Math.max(...m.legal) });
        else
            send({ type: 'play', seq: m.seq, cards: m.legal[0] });
        break;
    case 'error':
        fail(`server error ${m.code}: ${m.message} (about ${m.about})`);
        break;
    case 'over':
        if (!Number.isInteger(m.game_id) || m.game_id <= 0)
            return fail(`'over' without a game_id: ${JSON.stringify(m)}`);
        done = true;
        clearTimeout(timer);
        // the game's link: ID-KEY, quick play being a private room
        console.log(`game_id=${m.game_key ? `${m.game_id}-${m.game_key}` : m.game_id} seed=${m.seed}`);
        ws.onclose = null;
        ws.close(1000);
        process.exitCode = 0;
        break;
    default:
        break;
    }
};
