// net.js - the WebSocket to /ws (proto/PROTOCOL.md): hello with the resume
// token kept in localStorage, reconnection with back-off, request ids so
// that an error can be matched to what was asked; and `me`, this browser's
// own key for its list of games (mygames.js). A `redirect` (a room of
// another node of a cluster, PROTOCOL.md "Many nodes") is followed: this
// connection gives way to one to the node named, which gets the request
// again; resume tokens are kept per node, since only the node that gave one
// knows it.
import { myKey } from './mygames.js';
import { session } from './session.js';

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const MAX_HOPS = 3;       // redirects in a row before giving up (PROTOCOL.md)
const TARGET_TRIES = 3;   // failed connections to a redirect's node before the page's own

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
    this.pending = new Map();    // id -> the request sent (to repeat it after a redirect)
    this.welcomed = false;
    this.target = null;          // a redirect's URL, null = the page's own node
    this.hops = 0;               // redirects followed in a row
    this.repeat = null;          // the request to send again once the new node says welcome
  }

  // One token per node: the page's own under 'ddz.resume' (as before
  // clusters), another node's under 'ddz.resume@URL'.
  get resumeKey() {
    return this.target ? 'ddz.resume@' + this.target : 'ddz.resume';
  }

  get resume() {
    try { return localStorage.getItem(this.resumeKey) || ''; } catch { return ''; }
  }

  set resume(v) {
    try { localStorage.setItem(this.resumeKey, v); } catch { /* storage off */ }
  }

  home() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws`;
  }

  url() {
    return this.target || this.home();
  }

  /* A `redirect`: connect to its node and ask there again. Returns an
   * error event for the app when it is not followed. */
  follow(msg) {
    const sent = msg.id !== undefined ? this.pending.get(msg.id) : null;
    const fail = (message) => ({ type: 'error', code: 'EREDIRECT', about: msg.about, id: msg.id,
      message });
    if (msg.url === this.url()) return fail(`the server sent us back to ${msg.url}`);
    if (++this.hops > MAX_HOPS) {
      this.hops = 0;
      return fail(`redirected ${MAX_HOPS} times in a row: ${msg.reason}`);
    }
    const req = sent ? { ...sent } : { type: msg.about };
    if (!sent && msg.room) req.room = msg.room;
    delete req.id;
    this.repeat = req;
    this.target = msg.url === this.home() ? null : msg.url;
    this.attempt = 0;
    this.connect();
    return null;
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
      const s = session(); // signed in: the account plays (spec §15)
      if (s) hello.session = s;
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
        // the redirected request goes first, so that the app's own first
        // requests (list) find it seated
        const again = this.repeat;
        this.repeat = null;
        if (again) this.send(again);
      }
      if (msg.type === 'redirect') {
        const err = this.follow(msg);
        if (err) this.onMessage(err);
        return;
      }
      if (msg.type === 'joined' || msg.type === 'state') this.hops = 0;
      if (msg.type === 'error' && msg.id !== undefined && this.pending.has(msg.id)) {
        msg.about = msg.about || this.pending.get(msg.id).type;
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
      // a redirect's node that cannot be reached any more (it died): back
      // to the page's own node, whose lobby lists what is left
      if (this.target && this.attempt >= TARGET_TRIES) this.target = null;
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

  /* A lobby request (quick play, create, join, watch): sent now, or,
   * while the connection is not welcomed yet (a page just opened, a
   * reconnection), kept and sent first once it is; a later one replaces
   * it. A click a moment too early is not lost. Returns the request's id,
   * or 0 when it was kept. */
  request(msg) {
    const id = this.send(msg);
    if (id !== null) return id;
    this.repeat = { ...msg };
    return 0;
  }

  /* Sends a request; returns its id, or null when not connected. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.welcomed) return null;
    const id = this.nextId++;
    this.pending.set(id, msg);
    if (this.pending.size > 200) this.pending.delete(this.pending.keys().next().value);
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  /* Says hello as someone else: signed in or out (spec §15). A new
   * player, not the resume token's, which was the other identity's (the
   * server refuses a session with a guest's token); the old socket closes
   * at the new welcome, as on any reconnection. */
  switchIdentity() {
    this.resume = null;
    this.connect();
  }

  /* A new display name takes effect with a new hello (same player). */
  rename(name) {
    this.name = name;
    if (this.ws) this.connect();
  }
}
