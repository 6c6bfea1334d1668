// account.js - a person's account (spec §15): signing up, in and out from
// the lobby with no page reload, and the account's own page (#/account),
// where its password is changed and the account deleted. The session the
// server hands out is kept in localStorage ("ddz.session") and said in
// every hello (net.js, through session.js); a guest plays exactly as
// before.
import { h, replace, icon } from './dom.js';
import { t, errorText } from './i18n.js';
import { app, toast, go, langButton } from './shell.js';
import { session, keepSession as keep } from './session.js';

/* One account request: resolves to {status, body, retry}. A network
 * failure is status 0, never a throw: every caller says something. */
async function api(method, path, body, withSession = false) {
  const headers = {};
  if (body) headers['Content-Type'] = 'application/json';
  if (withSession) headers.Authorization = 'Bearer ' + session();
  try {
    const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
    let json = {};
    try { json = await res.json(); } catch { /* an empty answer */ }
    return { status: res.status, body: json, retry: Number(res.headers.get('Retry-After')) || 0 };
  } catch {
    return { status: 0, body: {}, retry: 0 };
  }
}

/* What a failed request means to the person: the server's code in words,
 * "too many tries" with the wait, or "busy". */
function failText(r) {
  if (r.status === 429) return t('account.err.429', { s: r.retry || 60 });
  if (r.status === 503) return t('account.err.503');
  if (r.status === 0) return t('account.err.net');
  const code = r.body && r.body.error;
  return code ? errorText({ code, about: 'account' }) : t('err.generic', { code: r.status, message: '' });
}

/* The connection says hello again, now with (or without) the session:
 * the name becomes the account's, or the guest's again. A seat the guest
 * held is left, as a closed tab leaves it (docs/decisions.md). */
function reconnect() {
  app.conn.switchIdentity();
}

let announce = null; // what to say at the next welcome as an account

/* Called from the welcome (app.js): the account this connection plays as,
 * or null for a guest. */
export function onWelcome(m) {
  app.account = typeof m.account === 'string' ? m.account : null;
  // said once the server has taken the session: with the account's own
  // name, whatever case the person typed it in
  if (announce && app.account) toast(t(announce, { name: app.account }), 'info');
  announce = null;
}

/* Called when the server refuses the hello's session (ended elsewhere, a
 * password changed, the account deleted): play on as a guest. Returns
 * true when it was that. */
export function onHelloRefused(m) {
  if (m.code !== 'EAUTH' || !session()) return false;
  keep('');
  app.account = null;
  toast(t('account.ended'), 'info');
  reconnect();
  return true;
}

/* The sign-in / sign-up dialog: one form, two buttons. Resolves when it
 * closes (signed in or not). */
export function signInDialog(startWith = 'in') {
  return new Promise((resolve) => {
    const name = h('input', { type: 'text', autocomplete: 'username', maxlength: '32', required: true,
      placeholder: t('account.name'), dataset: { test: 'acct-name' } });
    const pass = h('input', { type: 'password', autocomplete: startWith === 'up' ? 'new-password' : 'current-password',
      required: true, placeholder: t('account.password'), dataset: { test: 'acct-password' } });
    const msg = h('p.acct-msg', { role: 'alert', dataset: { test: 'acct-msg' } });
    const dlg = h('dialog.dialog.acct-dialog', { dataset: { test: 'acct-dialog' } });
    let busy = false;
    const close = () => { dlg.close(); dlg.remove(); resolve(); };
    const submit = async (kind) => {
      if (busy) return;
      if (!name.value.trim() || !pass.value) { msg.textContent = t('account.fill'); return; }
      busy = true;
      msg.textContent = t('account.wait');
      const body = { name: name.value.trim(), password: pass.value };
      const r = kind === 'up' ? await api('POST', '/api/accounts', body) : await api('POST', '/api/sessions', body);
      busy = false;
      if ((kind === 'up' && r.status === 201) || (kind === 'in' && r.status === 200)) {
        keep(r.body.session);
        announce = kind === 'up' ? 'account.created' : 'account.signedin';
        close();
        reconnect();
        return;
      }
      msg.textContent = failText(r);
    };
    dlg.append(h('form', { method: 'dialog', onsubmit: (e) => { e.preventDefault(); submit('in'); } },
      h('h2', t('account.title')),
      h('p.desc', t('account.why')),
      h('label.field', h('span', t('account.name')), name),
      h('label.field', h('span', t('account.password')), pass),
      h('p.hint', t('account.rules')),
      msg,
      h('div.buttons',
        h('button.ghost', { type: 'button', onclick: close }, t('account.cancel')),
        h('button', { type: 'button', dataset: { test: 'acct-signup' }, onclick: () => submit('up') }, t('account.signup')),
        h('button.primary', { type: 'submit', dataset: { test: 'acct-signin' } }, t('account.signin')))));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); close(); });
    document.body.append(dlg);
    dlg.showModal();
    name.focus();
  });
}

/* Ends this browser's session (the server forgets it) and plays on as a
 * guest. */
export async function signOut() {
  await api('DELETE', '/api/sessions', null, true);
  keep('');
  app.account = null;
  toast(t('account.signedout'), 'info');
  reconnect();
}

/* The lobby's account line: who is signed in (a link to the account's
 * page, a sign-out), or a button to sign in or up. */
export function accountBox() {
  if (app.account) {
    return h('div.acct-box', { dataset: { test: 'acct-box' } },
      h('span', t('account.as'), ' ', h('a', { href: '#/account', dataset: { test: 'acct-link' } }, app.account)),
      h('a', { href: '#/@/' + encodeURIComponent(app.account), dataset: { test: 'acct-profile' } }, t('profile.link')),
      h('button.ghost.small', { dataset: { test: 'acct-signout' }, onclick: () => signOut() }, t('account.signout')));
  }
  return h('div.acct-box', { dataset: { test: 'acct-box' } },
    h('button.ghost.small', { dataset: { test: 'acct-open' }, onclick: () => signInDialog() }, t('account.open')));
}

/* #/account: the account's own page. */
export class AccountPage {
  mount(root) {
    this.root = root;
    this.render();
  }

  unmount() { this.root = null; }

  onLang() { this.render(); }

  onAccount() { this.render(); }

  render() {
    if (!this.root) return;
    const top = h('header.lobby-head',
      h('div.competition-title',
        h('button.ghost.back', { onclick: () => go('#/'), title: t('competition.lobby'), 'aria-label': t('competition.lobby') }, icon('back')),
        h('h1', t('account.title'))),
      langButton());
    if (!session()) {
      replace(this.root, h('div.lobby.account-page', { dataset: { test: 'account-page' } }, top,
        h('section.panel', h('p', t('account.none')),
          h('button.primary', { onclick: () => signInDialog().then(() => this.render()) }, t('account.open')))));
      return;
    }
    const pwMsg = h('p.acct-msg', { role: 'alert', dataset: { test: 'pw-msg' } });
    const oldPw = h('input', { type: 'password', autocomplete: 'current-password', dataset: { test: 'pw-old' } });
    const newPw = h('input', { type: 'password', autocomplete: 'new-password', dataset: { test: 'pw-new' } });
    const delMsg = h('p.acct-msg', { role: 'alert', dataset: { test: 'del-msg' } });
    const delPw = h('input', { type: 'password', autocomplete: 'current-password', dataset: { test: 'del-password' } });
    const change = async (e) => {
      e.preventDefault();
      pwMsg.classList.remove('ok');
      pwMsg.textContent = t('account.wait');
      const r = await api('POST', '/api/account/password', { old: oldPw.value, new: newPw.value }, true);
      if (r.status === 200) {
        oldPw.value = newPw.value = '';
        pwMsg.textContent = t('account.pw.done');
        pwMsg.classList.add('ok');
        return;
      }
      pwMsg.textContent = failText(r);
    };
    const remove = async (e) => {
      e.preventDefault();
      if (!confirm(t('account.delete.confirm'))) return;
      delMsg.textContent = t('account.wait');
      const r = await api('DELETE', '/api/account', { password: delPw.value }, true);
      if (r.status === 200 || r.status === 204) {
        keep('');
        app.account = null;
        toast(t('account.deleted'), 'info');
        reconnect();
        go('#/');
        return;
      }
      delMsg.textContent = failText(r);
    };
    replace(this.root, h('div.lobby.account-page', { dataset: { test: 'account-page' } }, top,
      h('section.panel',
        h('p', t('account.as'), ' ', h('b', { dataset: { test: 'account-name' } }, app.account || '…')),
        h('button', { dataset: { test: 'acct-signout' }, onclick: () => signOut().then(() => go('#/')) }, t('account.signout'))),
      h('section.panel', h('h2', t('account.pw.title')),
        h('form', { onsubmit: change },
          h('label.field', h('span', t('account.pw.old')), oldPw),
          h('label.field', h('span', t('account.pw.new')), newPw),
          pwMsg,
          h('button.primary', { type: 'submit', dataset: { test: 'pw-change' } }, t('account.pw.change')))),
      h('section.panel.danger', h('h2', t('account.delete.title')),
        h('p', t('account.delete.desc')),
        h('form', { onsubmit: remove },
          h('label.field', h('span', t('account.password')), delPw),
          delMsg,
          h('button.danger', { type: 'submit', dataset: { test: 'acct-delete' } }, t('account.delete'))))));
  }
}
