// shell.js - what every page of the client shares, and nothing of any
// page: the connection's state (`app`), the player's name, toasts, the
// connection banner, dialogs, navigation (go: the router itself is the
// entry's, app.js, which registers it) and the lobby requests. Pages import
// this, never app.js: calls go one way, app.js -> pages -> shell.js.
import { h, replace } from './dom.js';
import { t, lang, setLang } from './i18n.js';

const banner = document.getElementById('banner');
const toasts = document.getElementById('toasts');

export const app = {
  conn: null,
  me: null,           // welcome.you
  rooms: [],
  rulesets: ['caai'], // what rooms may take: the lobby's `rooms` event lists them
  table: null,        // Table: the room we sit or watch in
  view: null,         // the mounted view
  listed: false,      // the first `rooms` after a welcome came back
  pendingRoute: null, // an invite link to act on once connected
  lastJoin: null,     // the last join/spectate asked, for password retries
  fromTournament: false,     // watching a tournament table opened from the competition page
  leaving: false,     // this page asked to leave its room (not the room that closed)
};

/* ---- names ---- */

function defaultName() {
  const n = 100 + Math.floor(Math.random() * 900);
  return (lang() === 'zh' ? '玩家' : 'Player') + n;
}

// whether the name in use was chosen (typed, or kept from an earlier visit)
// rather than generated on this visit: an invitee is asked for one
export let nameChosen = false;
try { nameChosen = !!localStorage.getItem('ddz.name'); } catch { /* storage off */ }

export function playerName() {
  let n = '';
  try { n = localStorage.getItem('ddz.name') || ''; } catch { /* storage off */ }
  if (!n) {
    n = defaultName();
    try { localStorage.setItem('ddz.name', n); } catch { /* storage off */ }
  }
  return n;
}

export function setPlayerName(n) {
  n = n.trim().slice(0, 32);
  if (!n || n === app.conn.name) return false;
  try { localStorage.setItem('ddz.name', n); } catch { /* storage off */ }
  nameChosen = true;
  app.conn.rename(n);
  return true;
}

/* ---- toasts, banner, dialogs ---- */

/* Removes the notices (info toasts) still showing: what they said is stale
 * once a panel that says more, the game over, opens over them. */
export function dismissNotices() {
  for (const el of toasts.querySelectorAll('.toast.info')) el.remove();
}

export function toast(text, kind = 'error') {
  const el = h('div.toast.' + kind, { role: kind === 'error' ? 'alert' : 'status' }, text);
  toasts.append(el);
  setTimeout(() => el.classList.add('gone'), 4200);
  setTimeout(() => el.remove(), 4700);
}

let bannerTimer = null;
export function showBanner() {
  clearInterval(bannerTimer);
  const c = app.conn;
  if (c.state === 'open' || c.state === 'idle') {
    banner.hidden = true;
    document.body.classList.remove('offline');
    return;
  }
  document.body.classList.toggle('offline', c.state !== 'connecting');
  banner.hidden = false;
  const paint = () => {
    if (c.state === 'connecting') {
      replace(banner, h('span', t(app.bye ? 'conn.bye' : 'conn.connecting')));
    } else if (c.state === 'replaced') {
      replace(banner, h('span', t('conn.replaced')),
        h('button', { onclick: () => c.connect() }, t('conn.usehere')));
    } else {
      const s = Math.max(0, Math.ceil((c.retryAt - Date.now()) / 1000));
      replace(banner, h('span', app.bye ? t('conn.bye') : t('conn.lost', { s })),
        h('button', { onclick: () => c.connect() }, t('conn.retry')));
    }
  };
  paint();
  if (c.state === 'lost') bannerTimer = setInterval(paint, 500);
}

/* ask({title, text, input: {type, placeholder}, buttons: [{label, value,
 * primary}]}) -> Promise of {value, input} (value null when dismissed). */
export function ask({ title, text, input, buttons }) {
  return new Promise((resolve) => {
    const field = input ? h('input', { type: input.type || 'text', placeholder: input.placeholder || '',
      value: input.value || '', autocomplete: 'off', dataset: input.test ? { test: input.test } : undefined }) : null;
    const dlg = h('dialog.dialog');
    const done = (value) => {
      dlg.close();
      dlg.remove();
      resolve({ value, input: field ? field.value : null });
    };
    dlg.append(h('form', { method: 'dialog', onsubmit: (e) => { e.preventDefault(); done(buttons.find((b) => b.primary)?.value ?? null); } },
      h('h2', title),
      text ? h('p', text) : null,
      field,
      h('div.buttons', buttons.map((b) => h('button' + (b.primary ? '.primary' : ''),
        { type: b.primary ? 'submit' : 'button', onclick: b.primary ? null : () => done(b.value),
          dataset: b.test ? { test: b.test } : undefined }, b.label)))));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(null); });
    document.body.append(dlg);
    dlg.showModal();
    if (field) field.focus();
  });
}

/* Marks the name in use as chosen (an invitee answered the dialog). */
export function chooseName() { nameChosen = true; }

/* ---- navigation ---- */

let router = () => {};

/* The entry (app.js) says how a hash is shown. */
export function setRouter(fn) { router = fn; }

export function go(hash, { replaceState = false } = {}) {
  if (location.hash === hash) { router(); return; }
  if (replaceState) {
    history.replaceState(null, '', hash);
    router();
  } else {
    location.hash = hash;
  }
}

/* ---- lobby requests ---- */

export function join(room, { password, seat } = {}) {
  app.lastJoin = { type: 'join', room, password, seat };
  const msg = { type: 'join', room };
  if (password) msg.password = password;
  if (seat !== undefined && seat !== null) msg.seat = seat;
  app.conn.request(msg);
}

export function spectate(room, { password } = {}) {
  app.lastJoin = { type: 'spectate', room, password };
  app.leaving = false;
  const msg = { type: 'spectate', room };
  if (password) msg.password = password;
  app.conn.request(msg);
}

export function leave() {
  app.leaving = true;
  app.conn.send({ type: 'leave' });
}

export function toggleLang() { setLang(lang() === 'zh' ? 'en' : 'zh'); }

/* The button that switches the language, on every page. */
export function langButton() {
  return h('button.lang.ghost', { title: t('lang.switch'), 'aria-label': t('lang.switch'), onclick: toggleLang,
    dataset: { test: 'lang' } }, t('lang.other'));
}
