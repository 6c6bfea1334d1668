// rawws.js - the raw WebSocket client of the attack and load scripts
// (attack.js, engine_churn.js): a socket, a handshake with any extra
// header lines (X-Forwarded-For behind --trusted-proxy), masked text frames
// out, and the server's unmasked text frames appended to `s.text` to be
// searched. Pings are answered (lws closes a client that does not answer
// them). Raw sockets, not a WebSocket library: a client that stops reading
// must really stop, and a test needs to set headers.
'use strict';
const net = require('net');

// Connects to `url` (a URL object) and completes the handshake within 5 s.
// Resolves with the socket (s.text grows as frames come; s.waiter, if set,
// is called after each batch), rejects if refused or timed out.
function connect(url, headers = '') {
    return new Promise((resolve, reject) => {
        const s = net.connect(Number(url.port), url.hostname);
        let buf = '';
        const timer = setTimeout(() => { s.destroy(); reject(new Error('handshake timed out')); }, 5000);
        s.on('error', e => { clearTimeout(timer); reject(e); });
        s.on('connect', () => s.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n` +
            'Upgrade: websocket\r\nConnection: Upgrade\r\n' +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
            `${headers}\r\n`));
        const onData = d => {
            buf += d.toString('latin1');
            const end = buf.indexOf('\r\n\r\n');
            if (end < 0) return;
            clearTimeout(timer);
            s.removeListener('data', onData);
            if (!buf.startsWith('HTTP/1.1 101')) { s.destroy(); reject(new Error('handshake refused')); return; }
            s.text = '';
            let raw = Buffer.from(buf.slice(end + 4), 'latin1');
            const frames = x => {
                raw = Buffer.concat([raw, x]);
                for (;;) {
                    if (raw.length < 2) break;
                    let len = raw[1] & 127, at = 2;
                    if (len === 126) {
                        if (raw.length < 4) break;
                        len = raw.readUInt16BE(2);
                        at = 4;
                    } else if (len === 127) {
                        if (raw.length < 10) break;
                        len = Number(raw.readBigUInt64BE(2));
                        at = 10;
                    }
                    if (raw.length < at + len) break;
                    const op = raw[0] & 15, payload = raw.subarray(at, at + len);
                    if (op === 9) // ping: pong with its payload, masked with key 0
                        s.write(Buffer.concat([Buffer.from([0x8a, 0x80 | payload.length]), Buffer.alloc(4), payload]));
                    else if (op === 1 || op === 0)
                        s.text += payload.toString('latin1');
                    raw = raw.subarray(at + len);
                }
                if (s.waiter) s.waiter();
            };
            s.on('data', frames);
            frames(Buffer.alloc(0));
            resolve(s);
        };
        s.on('data', onData);
    });
}

// Sends `obj` as one masked text frame (mask key 0: the bytes go as they are).
function send(s, obj) {
    const t = Buffer.from(JSON.stringify(obj));
    const h = t.length < 126 ? Buffer.from([0x81, 0x80 | t.length])
        : Buffer.from([0x81, 0x80 | 126, t.length >> 8, t.length & 255]);
    s.write(Buffer.concat([h, Buffer.alloc(4), t]));
}

// Resolves with the index of the first of `needles` seen after `from`
// characters of the text, or -1 after `ms` (default 5 s) or a close.
function waitFor(s, needles, from = 0, ms = 5000) {
    return new Promise(resolve => {
        const check = () => {
            for (let i = 0; i < needles.length; i++)
                if (s.text.indexOf(needles[i], from) >= 0) { done(i); return true; }
            return false;
        };
        const done = i => { clearTimeout(timer); s.waiter = null; s.removeListener('close', closed); resolve(i); };
        const closed = () => { if (!check()) done(-1); };
        const timer = setTimeout(() => done(-1), ms);
        s.on('close', closed);
        if (!check()) s.waiter = check;
    });
}

module.exports = { connect, send, waitFor };
