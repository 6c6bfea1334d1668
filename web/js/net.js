// net.js - the WebSocket to /ws (proto/PROTOCOL.md): hello with the resume
// token kept in localStorage, reconnection with back-off, request ids so
// that an error can be matched to what was asked; and `me`, this browser's
// own key for its list of games (mygames.js).
import { myKey } from './mygames.js';

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

export class Conn {
  constructor({ name, onMessage, onStatus }) {
    this.name = name;
    this.onMessage = onMessage;  // (msg) => void, every server frame
    this.onStatus = onStatus;    // ({state, retryIn?}) => void
    this.ws = null;
    this.state = 'idle';         // idle | connecting | open | lost | replaced
    this.attempt = 0;
    this.timer = null;
    this.nextId = 1;
    this.pending = new Map();    // id -> request type
    this.welcomed = false;
  }

  get resume() {
    try { return localStorage.getItem('ddz.resume') || ''; } catch { return ''; }
  }

  set resume(v) {
    try { localStorage.setItem('ddz.resume', v); } catch { /* storage off */ }
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws`;
  }

  connect() {
    clearTimeout(this.timer);
    // An open old socket is left to the server, which closes it once the
    // new one says hello with the same resume token ("replaced"): closing
    // it first would make a player in a waiting room lose the seat.
    const old = this.ws;
    this.welcomed = false;
    this.setState('connecting');
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: 'hello', version: 1, name: this.name };
      if (this.resume) hello.resume = this.resume;
      const me = myKey(); // "my games" (mygames.js)
      if (me) hello.me = me;
      this.sentResume = hello.resume || '';
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'welcome') {
        this.welcomed = true;
        this.attempt = 0;
        this.resumed = this.sentResume !== '' && this.sentResume === msg.resume;
        this.lostSession = this.sentResume !== '' && this.sentResume !== msg.resume;
        this.resume = msg.resume;
        if (old && old.readyState <= WebSocket.OPEN) old.close();
        this.setState('open');
      }
      if (msg.type === 'error' && msg.id !== undefined && this.pending.has(msg.id)) {
        msg.about = msg.about || this.pending.get(msg.id);
      }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.welcomed = false;
      this.ws = null;
      this.pending.clear();
      if (e.reason === 'replaced') {
        this.setState('replaced');
        return;
      }
      this.scheduleReconnect();
    };
  }

  scheduleReconnect() {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const delay = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.attempt++;
    this.retryAt = Date.now() + delay;
    this.setState('lost');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  setState(s) {
    this.state = s;
    this.onStatus({ state: s, retryAt: this.retryAt });
  }

  /* Sends a request; returns its id, or null when not connected. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.welcomed) return null;
    const id = this.nextId++;
    this.pending.set(id, msg.type);
    if (this.pending.size > 200) this.pending.delete(this.pending.keys().next().value);
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  /* A new display name takes effect with a new hello (same player). */
  rename(name) {
    this.name = name;
    if (this.ws) this.connect();
  }
}
