// session.js - the account session this browser holds (spec §15), kept in
// localStorage ("ddz.session"): read by the connection (net.js) for every
// hello, written by account.js. Imports nothing, so that the connection
// stays free of the page's shell.

const KEY = 'ddz.session';

/* The session this browser holds, or ''. */
export function session() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}

/* Keeps session `s`, or forgets it with ''. Storage off: signed in for
 * this page only, as far as the server remembers. */
export function keepSession(s) {
  try {
    if (s) localStorage.setItem(KEY, s);
    else localStorage.removeItem(KEY);
  } catch { /* storage off */ }
}
