// app.js - the client's entry: one connection, a hash router
// (#/ lobby, #/room/ID table, #/watch/ID spectator, #/replay/ID replay,
// #/tournament the competition page, #/ladder the rated ladder,
// #/ladder/NAME a participant's page, #/tv/ladder and #/tv/tournament a
// competition's delayed broadcast, #/@/NAME a person's profile,
// #/leaderboard/RULES people's leaderboard, #/puzzles/RULES the puzzles) and
// the server's events. Views live in lobby.js, table.js, replay.js,
// tournament.js, ladder.js, tv.js, people.js and puzzles.js; what they share
// (the state, toasts, dialogs, navigation) is shell.js, which imports no
// page. What is legal always comes from the server.
import { Conn } from './net.js';
import { replace } from './dom.js';
import { t, onLang, errorText, roomLabel } from './i18n.js';
import { app, playerName, setPlayerName, nameChosen, chooseName, showBanner, ask, toast, go, setRouter, join, spectate } from './shell.js';
import { Lobby } from './lobby.js';
import { Table } from './table.js';
import { Replay } from './replay.js';
import { Tournament } from './tournament.js';
import { Ladder, LadderPlayer } from './ladder.js';
import { Tv } from './tv.js';
import { AccountPage, onWelcome, onHelloRefused, signInDialog } from './account.js';
import { session } from './session.js';
import { Profile, Leaderboard } from './people.js';
import { Puzzles } from './puzzles.js';

const root = document.getElementById('app');

/* ---- routing ---- */

/* A route's part as written, when it is no valid %-escape. */
function decoded(s) {
  try { return decodeURIComponent(s); } catch { return s; }
}

function parseRoute() {
  if (/^#\/tournament\/?$/.test(location.hash)) return { name: 'tournament' };
  if (/^#\/ladder\/?$/.test(location.hash)) return { name: 'ladder' };
  if (/^#\/account\/?$/.test(location.hash)) return { name: 'account' };
  const p = /^#\/@\/([^/?#]+)/.exec(location.hash);
  if (p) return { name: 'profile', id: decoded(p[1]) };
  const b = /^#\/leaderboard(?:\/([^/?#]+))?\/?$/.exec(location.hash);
  if (b) return { name: 'leaderboard', id: b[1] ? decoded(b[1]) : 'caai' };
  const z = /^#\/puzzles(?:\/([^/?#]+))?\/?$/.exec(location.hash);
  if (z) return { name: 'puzzles', id: z[1] ? decoded(z[1]) : 'caai' };
  const tv = /^#\/tv\/(ladder|tournament)\/?$/.exec(location.hash);
  if (tv) return { name: 'tv', id: tv[1] };
  const l = /^#\/ladder\/([^/?#]+)/.exec(location.hash);
  if (l) return { name: 'ladderPlayer', id: decodeURIComponent(l[1]) };
  const m = /^#\/(room|watch|replay)\/([^/?#]+)(?:\?(.*))?/.exec(location.hash);
  // ?name= (an invite: the room's name), ?from= (a replay: the seat below)
  return m ? { name: m[1], id: decodeURIComponent(m[2]), params: new URLSearchParams(m[3] || '') } : { name: 'lobby' };
}

function mount(view) {
  if (app.view === view) return;
  if (app.view) app.view.unmount();
  app.view = view;
  replace(root);
  view.mount(root);
}

function route() {
  const r = parseRoute();
  if (r.name === 'tournament') {
    if (!(app.view instanceof Tournament)) mount(new Tournament());
    return;
  }
  if (r.name === 'ladder') {
    if (!(app.view instanceof Ladder)) mount(new Ladder());
    return;
  }
  if (r.name === 'account') {
    if (!(app.view instanceof AccountPage)) mount(new AccountPage());
    return;
  }
  if (r.name === 'profile') {
    if (!(app.view instanceof Profile) || app.view.name !== r.id) mount(new Profile(r.id));
    return;
  }
  if (r.name === 'leaderboard') {
    if (!(app.view instanceof Leaderboard) || app.view.rules !== r.id) mount(new Leaderboard(r.id));
    return;
  }
  if (r.name === 'puzzles') {
    if (!(app.view instanceof Puzzles) || app.view.rules !== r.id) mount(new Puzzles(r.id));
    return;
  }
  if (r.name === 'tv') {
    if (!(app.view instanceof Tv) || app.view.kind !== r.id) mount(new Tv(r.id));
    return;
  }
  if (r.name === 'ladderPlayer') {
    if (!(app.view instanceof LadderPlayer) || app.view.name !== r.id) mount(new LadderPlayer(r.id));
    return;
  }
  if (r.name === 'replay') {
    const from = r.params.has('from') ? Number(r.params.get('from')) : null;
    if (!(app.view instanceof Replay) || app.view.id !== r.id) mount(new Replay(r.id, from));
    return;
  }
  if (r.name === 'room' || r.name === 'watch') {
    const tb = app.table;
    if (tb && tb.roomId === r.id) {
      mount(tb);
      return;
    }
    // Not in that room (yet): join it once connected and listed.
    app.pendingRoute = r;
    if (app.listed) actOnPendingRoute();
    if (!(app.view instanceof Lobby)) mount(new Lobby());
    return;
  }
  if (!(app.view instanceof Lobby)) mount(new Lobby());
}

function actOnPendingRoute() {
  const r = app.pendingRoute;
  app.pendingRoute = null;
  if (!r || (app.table && app.table.roomId === r.id)) return;
  if (r.name === 'watch') spectate(r.id);
  // signed in, the name is the account's: nothing to ask
  else if (!nameChosen && !app.account && isInvite(r)) askInviteeName(r);
  else join(r.id);
}

/* The room's name for a dialog: from the invite link, the lobby's list, or
 * its id. */
function roomTitle(id) {
  const r = parseRoute();
  const fromLink = r.id === id && r.params && r.params.get('name');
  const listed = (app.rooms || []).find((x) => x.id === id);
  return fromLink ? roomLabel(fromLink) : listed ? roomLabel(listed.name) : id;
}

/* An invite: a link with the room's name (what the table's Invite button
 * copies), or a room the lobby lists. A bare unknown id is just tried, and
 * the server's answer says what is wrong with it. */
function isInvite(r) {
  return !!(r.params && r.params.get('name')) || (app.rooms || []).some((x) => x.id === r.id);
}

/* Someone who opened an invite link without ever choosing a name is asked
 * for one (the generated one offered) before sitting down. */
async function askInviteeName(r) {
  const res = await ask({ title: t('invite.title', { room: roomTitle(r.id) }), text: t('invite.name'),
    input: { value: playerName(), test: 'invite-name' },
    buttons: [{ label: t('join.cancel'), value: null }, { label: t('invite.join'), value: 'go', primary: true }] });
  if (res.value !== 'go') {
    go('#/', { replaceState: true });
    return;
  }
  if (res.input && res.input.trim()) setPlayerName(res.input);
  chooseName();
  join(r.id);
}

// The server's words for a guest refused a rated seat (proto/PROTOCOL.md,
// "Rated play"), where a password room's refusal is the same EAUTH.
const RATED_NEEDS_ACCOUNT = 'rated play needs an account';
let askingRated = false; // that question is open

async function onJoinError(e) {
  const last = app.lastJoin;
  if (!last) return false;
  // a rated room seats only people signed in (spec §15): say so, and offer
  // the sign-in; once in, the new connection's first listing joins the
  // room of the route again
  if (e.code === 'EAUTH' && last.type === 'join' && e.message === RATED_NEEDS_ACCOUNT) {
    // an invitee's new name reconnects, and the new connection's listing
    // asks for the route's room again: one question for both refusals
    if (askingRated) return true;
    askingRated = true;
    const res = await ask({
      title: t('join.title', { room: roomTitle(last.room) }), text: t('join.rated'),
      buttons: [{ label: t('join.cancel'), value: null, test: 'rated-join-cancel' },
        { label: t('join.rated.signin'), value: 'in', primary: true, test: 'rated-join-signin' }],
    });
    if (res.value === 'in') await signInDialog('in');
    askingRated = false;
    if (!session() && !app.table) go('#/', { replaceState: true });
    return true;
  }
  if (e.code === 'EAUTH') {
    const res = await ask({
      title: t('join.title', { room: roomTitle(last.room) }),
      text: last.password ? t('join.password.wrong') : t('join.password'),
      input: { type: 'password', placeholder: '' },
      buttons: [{ label: t('join.cancel'), value: null },
        { label: last.type === 'join' ? t('join.sit') : t('join.watch'), value: 'go', primary: true }],
    });
    if (res.value === 'go') {
      if (last.type === 'join') join(last.room, { password: res.input, seat: last.seat });
      else spectate(last.room, { password: res.input });
    } else if (!app.table) go('#/', { replaceState: true });
    return true;
  }
  if (e.code === 'EFULL' && last.type === 'join') {
    const res = await ask({
      title: t('join.title', { room: roomTitle(last.room) }), text: t('join.full'),
      buttons: [{ label: t('join.cancel'), value: null }, { label: t('join.watch'), value: 'watch', primary: true }],
    });
    if (res.value === 'watch') spectate(last.room, { password: last.password });
    else if (!app.table) go('#/', { replaceState: true });
    return true;
  }
  return false;
}

/* ---- server events ---- */

/* A table view for room `id`, seat `seat`; a rating change already
 * heard (a resume may make the table after it came) is its to show: the
 * panel shows it only for the game it is of. */
function newTable(id, seat) {
  const tb = new Table(id, seat);
  if (app.lastRated) tb.rated = app.lastRated;
  return tb;
}

function onMessage(m) {
  switch (m.type) {
    case 'welcome':
      app.me = m.you;
      onWelcome(m);
      if (app.view && app.view.onAccount) app.view.onAccount();
      app.bye = false;
      app.listed = false;
      if (app.conn.lostSession && app.table) {
        toast(t('conn.seatlost'));
        app.table.destroy();
        app.table = null;
        const r = parseRoute();
        if (r.name === 'room' || r.name === 'watch') app.pendingRoute = r;
      } else if (app.table && app.table.seat === null) {
        // spectators are dropped with their connection: watch again
        app.pendingRoute = { name: 'watch', id: app.table.roomId };
        app.table.destroy();
        app.table = null;
      }
      app.conn.send({ type: 'list' }); // answered after any resumed `state`
      break;
    case 'rooms':
      app.rooms = m.rooms;
      if (Array.isArray(m.rules) && m.rules.length) app.rulesets = m.rules;
      if (app.view instanceof Lobby) app.view.update();
      if (!app.listed) {
        app.listed = true;
        if (!app.pendingRoute) {
          const r = parseRoute();
          if ((r.name === 'room' || r.name === 'watch') && !(app.table && app.table.roomId === r.id)) app.pendingRoute = r;
        }
        actOnPendingRoute();
      }
      break;
    case 'queued': // rated quick play: waiting for a table
      app.queued = m;
      if (app.view instanceof Lobby) app.view.render();
      break;
    case 'rated': // a rated game moved this person's rating
      app.lastRated = m; // a table made after it (a resume) shows it too
      if (app.table) app.table.onRated(m);
      break;
    case 'joined':
      app.lastJoin = null;
      if (app.queued) { // seated, or the wait cancelled
        app.queued = null;
        if (app.view instanceof Lobby) app.view.render();
      }
      if (m.room === null) {
        app.leaving = false;
        if (app.table) app.table.destroy();
        app.table = null;
        // a tournament table that ended takes its spectators back to the page they came from
        const back = app.fromTournament ? '#/tournament' : '#/';
        app.fromTournament = false;
        const page = app.view instanceof Replay || app.view instanceof Tournament ||
          app.view instanceof Ladder || app.view instanceof LadderPlayer;
        if (!page) go(back, { replaceState: parseRoute().name !== 'lobby' });
      } else {
        if (app.table && app.table.roomId !== m.room) { app.table.destroy(); app.table = null; }
        if (!app.table) app.table = newTable(m.room, m.seat);
        app.table.seat = m.seat;
        app.table.justJoined = true;
      }
      break;
    case 'state': {
      const fresh = !app.table || app.table.roomId !== m.room.id;
      if (fresh) {
        if (app.table) app.table.destroy();
        app.table = newTable(m.room.id, m.seat);
      }
      const tb = app.table;
      const navigate = fresh || tb.justJoined || !tb.gotState;
      tb.justJoined = false;
      tb.onState(m);
      if (navigate && !(app.view instanceof Replay)) {
        const hash = (m.seat === null ? '#/watch/' : '#/room/') + m.room.id;
        go(hash, { replaceState: parseRoute().name !== 'lobby' });
      }
      break;
    }
    case 'error': {
      if ((m.about === 'join' || m.about === 'spectate') && app.lastJoin) {
        onJoinError(m).then((handled) => {
          if (!handled) {
            toast(errorText(m));
            if (!app.table && parseRoute().name !== 'lobby') go('#/', { replaceState: true });
          }
        });
        break;
      }
      if (m.code === 'EAUTH' && !m.about) break; // "connected again elsewhere": the banner says it
      if (m.about === 'hello' && onHelloRefused(m)) break; // a session ended elsewhere: a guest again
      if (m.about === 'hello') {
        // a name the server refuses: fall back to a generated one
        toast(errorText(m));
        try { localStorage.removeItem('ddz.name'); } catch { /* storage off */ }
        app.conn.rename(playerName());
        break;
      }
      if (m.about === 'quick' && app.queued) {
        app.queued = null;
        if (app.view instanceof Lobby) app.view.render();
      }
      toast(errorText(m));
      if (app.table) app.table.onError(m);
      break;
    }
    case 'bye':
      app.bye = true;
      showBanner();
      break;
    default:
      if (app.table) app.table.onEvent(m);
  }
}

/* ---- start ---- */

function start() {
  app.conn = new Conn({ name: playerName(), onMessage, onStatus: showBanner });
  onLang(() => {
    document.title = `${t('app.title')} · ddz`;
    if (app.view && app.view.onLang) app.view.onLang();
    showBanner();
  });
  document.title = `${t('app.title')} · ddz`;
  setRouter(route);
  window.addEventListener('hashchange', route);
  route();
  // A page opened on a replay (the game-over panel opens one in a new tab)
  // reads the record over HTTP and needs no connection. Connecting would
  // resume this browser's session and take it, with its seat, from the
  // tab that is playing (issue 25). It connects once it leaves the replay.
  if (parseRoute().name === 'replay') {
    const later = () => {
      if (parseRoute().name === 'replay') return;
      window.removeEventListener('hashchange', later);
      app.conn.connect();
    };
    window.addEventListener('hashchange', later);
  } else {
    app.conn.connect();
  }
}

start();
