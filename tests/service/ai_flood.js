// ai_flood.js - one address keeps the think pool busy with quick-play
// rooms whose three seats are all hosted AIs (two AIs and the person's own
// seat in custody, 托管), while a player from another address plays quick
// play; prints how long that bystander's AIs take to move (issue 37: the
// AI workers must be shared fairly between addresses).
//
// Usage:
//   node --experimental-websocket ai_flood.js ws://HOST:PORT/ws ROOMS SECONDS [AI] [FLOOD_AI]
// ROOMS flood rooms (0: none, the baseline), then SECONDS of the
// bystander's quick play against AI (default strong); the flood's rooms
// seat FLOOD_AI (default strong). The server needs --trusted-proxy
// 127.0.0.1: the flood's connections say X-Forwarded-For: 10.37.0.1 (one
// client address), the bystander's are 127.0.0.1's own. Node 22 needs no
// flag.
//
// A move's time is from the `turn` that asks an AI seat to the `bid_made`
// or `played` of that seat (a pass the server makes for it, `auto`, is not
// counted): the --ai-delay-ms pause (700 ms by default while a person
// plays) plus the queue plus the AI's own thinking. Prints one JSON line:
// {rooms, seconds, moves, median_ms, p90_ms, max_ms, flood_moves}.
'use strict';
const [url, roomsStr, secondsStr, ai = 'strong', floodAi = 'strong'] = process.argv.slice(2);
const ROOMS = Number(roomsStr), SECONDS = Number(secondsStr);
if (!url || !(ROOMS >= 0) || !(SECONDS > 0)) {
    console.error('usage: ai_flood.js ws://HOST:PORT/ws ROOMS SECONDS [AI] [FLOOD_AI]');
    process.exit(2);
}
const FLOOD_ADDR = '10.37.0.1';
let floodMoves = 0;

// A client that plays its own turns at once (the lowest bid, the first
// legal play), says ready between games and asks for a rematch after a
// turn. `onMessage` sees every message first.
function player(headers, name, quickAi, onMessage) {
    const ws = new WebSocket(url, {headers});
    ws.onopen = () => ws.send(JSON.stringify({type: 'hello', version: 1, name}));
    ws.onmessage = (ev) => {
        const m = JSON.parse(ev.data);
        onMessage(ws, m);
        if (m.type === 'welcome')
            ws.send(JSON.stringify({type: 'quick', ai: quickAi}));
        else if (m.type === 'turn' && m.legal && m.action === 'bid')
            ws.send(JSON.stringify({type: 'bid', seq: m.seq, bid: Math.min(...m.legal)}));
        else if (m.type === 'turn' && m.legal && m.action === 'play')
            ws.send(JSON.stringify({type: 'play', seq: m.seq, cards: m.legal[0]}));
        else if (m.type === 'over')
            ws.send(JSON.stringify({type: 'ready'}));
        else if (m.type === 'turn_over')
            ws.send(JSON.stringify({type: 'rematch'}));
    };
    return ws;
}

// A flood room: resolves once its person's seat is in custody.
function floodRoom(i) {
    return new Promise((resolve, reject) => {
        const ws = player({'X-Forwarded-For': FLOOD_ADDR}, `flood${i}`, floodAi, (ws, m) => {
            if (m.type === 'error' && m.about !== 'custody')
                reject(new Error(JSON.stringify(m)));
            else if (m.type === 'game') // each game: the seat goes to the AI again
                ws.send(JSON.stringify({type: 'custody', on: true}));
            else if (m.type === 'seat' && m.seat === 0 && m.player && m.player.custody)
                resolve(ws);
            else if ((m.type === 'played' && !m.auto) || m.type === 'bid_made')
                floodMoves++;
        });
        ws.onerror = () => reject(new Error('flood socket error'));
    });
}

function quantile(xs, q) {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : null;
}

(async () => {
    const flood = [];
    for (let i = 0; i < ROOMS; i += 25)
        flood.push(...await Promise.all(
            Array.from({length: Math.min(25, ROOMS - i)}, (_, k) => floodRoom(i + k))));
    const floodMoves0 = floodMoves;
    const times = [];
    const asked = new Map(); // AI seat -> when its turn came
    const victim = player({}, 'bystander', ai, (ws, m) => {
        if (m.type === 'error')
            console.error('bystander:', JSON.stringify(m));
        else if (m.type === 'turn' && m.seat !== 0)
            asked.set(m.seat, performance.now());
        else if ((m.type === 'played' || m.type === 'bid_made') && m.seat !== 0) {
            const t0 = asked.get(m.seat);
            asked.delete(m.seat);
            if (t0 !== undefined && !m.auto)
                times.push(performance.now() - t0);
        }
    });
    victim.onerror = () => { console.error('bystander socket error'); process.exit(1); };
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const round = (x) => (x === null ? null : Math.round(x));
    console.log(JSON.stringify({rooms: ROOMS, seconds: SECONDS, ai, moves: times.length,
        median_ms: round(quantile(times, 0.5)), p90_ms: round(quantile(times, 0.9)),
        max_ms: round(times.length ? Math.max(...times) : null),
        flood_moves: floodMoves - floodMoves0}));
    victim.close();
    flood.forEach((s) => s.close());
    process.exit(0);
})().catch((e) => { console.error(e.message); process.exit(1); });
