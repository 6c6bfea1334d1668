// lobby.js - the lobby: display name, quick play against hosted AIs, the
// room list, creating a room with every option of the protocol, joining by
// ID or invite link, and opening a replay.
import { h, replace } from './dom.js';
import { t, lang, rulesName, rulesDesc, roomLabel, playerLabel } from './i18n.js';
import { app, go, join, spectate, toast, playerName, setPlayerName, langButton } from './shell.js';
import { fetchTournament } from './tournament.js';
import { fetchLadder, tvButton } from './ladder.js';
import { myGamesPanel } from './mygames.js';
import { accountBox } from './account.js';

// Hosted AIs this client offers. The protocol has no request that lists
// them; an unknown name is answered with ENOTFOUND, which is shown.
const AIS = ['strong', 'greedy', 'random'];
// The same, as the room form's levels: easy, normal, strong.
const LEVELS = ['random', 'greedy', 'strong'];

// Rule sets where everyone passing ends the deal (spec §3), so that a room
// may deal again instead (the `redeal` option).
const REDEAL_RULES = new Set(['caai']);

function brand() {
  return h('div.brand',
    h('div.logo', { 'aria-hidden': 'true' }, h('span.lc.a', 'A'), h('span.lc.b', '\u2665\uFE0E'), h('span.lc.c', '\u265B\uFE0E')),
    h('div', h('h1', t('app.title')), h('p.sub', t('app.sub'))));
}


function field(label, input, cls = '') {
  return h('label.field' + (cls ? '.' + cls : ''), h('span', label), input);
}

/* Seated at a running table, going to another room hands that seat to the
 * AI: asks first, as 离开 does (issue 25). Resolves true to go ahead. */
async function mayLeaveTable() {
  return !app.table || app.table.confirmLeave();
}

function roomIdFrom(text) {
  text = text.trim();
  const m = /#\/(?:room|watch)\/([^/?#\s]+)/.exec(text);
  return m ? decodeURIComponent(m[1]) : text;
}

export class Lobby {
  mount(root) {
    this.root = root;
    this.tournamentName = null; // the name of the tournament the server runs, if any
    this.ladder = null; // how many take part in the server's ladder, if it runs one
    this.render();
    app.conn && app.conn.send({ type: 'list' });
    this.checkTournament();
    this.checkLadder();
    this.timer = setInterval(() => {
      if (document.hidden) return;
      app.conn.send({ type: 'list' });
      this.checkTournament();
      this.checkLadder();
    }, 5000);
  }

  // A ladder runs here: the lobby links to its page.
  async checkLadder() {
    const d = await fetchLadder();
    const n = d ? d.players.length : null;
    if (!this.root || n === this.ladder) return;
    this.ladder = n;
    this.render();
  }

  // A tournament runs here: the lobby links to its page.
  async checkTournament() {
    const d = await fetchTournament();
    const name = d ? d.name : null;
    if (!this.root || name === this.tournamentName) return;
    this.tournamentName = name;
    this.render();
  }

  unmount() {
    clearInterval(this.timer);
    this.root = null;
  }

  onLang() { this.render(); }

  onAccount() { this.render(); } // signed in or out: the name box changes

  render() {
    if (!this.root) return;
    const seated = app.table && app.table.seat !== null && app.table.roomId;
    // A redraw (the language arriving or changed, a competition starting)
    // keeps the parts of the form the person opened: a click that landed
    // just before it would otherwise be undone under her finger.
    const opened = [...this.root.querySelectorAll('details[data-test]')].filter((d) => d.open).map((d) => d.dataset.test);
    replace(this.root, h('div.lobby',
      h('header.lobby-head', brand(), langButton()),
      seated ? h('div.notice', h('span', t('lobby.seated', { room: roomLabel(app.table.room && app.table.room.name) || app.table.roomId })),
        h('button.primary', { onclick: () => go('#/room/' + app.table.roomId) }, t('lobby.back'))) : null,
      this.tournamentName ? h('div.notice.competition-notice', { dataset: { test: 'tournament-link' } }, h('span', t('lobby.tournament', { name: this.tournamentName })),
        h('div.competition-actions', h('button.primary', { onclick: () => go('#/tournament') }, t('lobby.tournamentopen')),
          tvButton('tournament'))) : null,
      this.ladder !== null ? h('div.notice.competition-notice', { dataset: { test: 'ladder-link' } }, h('span', t('lobby.ladder', { n: this.ladder })),
        h('div.competition-actions', h('button.primary', { onclick: () => go('#/ladder') }, t('lobby.ladderopen')),
          tvButton('ladder'))) : null,
      h('div.lobby-grid',
        h('section.panel.hero', this.nameForm(), this.quickForm()),
        h('section.panel.rooms-panel',
          h('div.panel-head', h('h2', t('rooms.title')),
            h('button.ghost', { onclick: () => app.conn.send({ type: 'list' }), dataset: { test: 'refresh' } }, '\u21BB ' + t('rooms.refresh'))),
          this.roomsEl = h('div.rooms'),
          this.createForm()),
        h('section.panel.side',
          this.joinForm(),
          this.replayForm(),
          myGamesPanel())),
      h('p.lobby-links', h('a', { href: '#/leaderboard', dataset: { test: 'leaderboard-link' } }, t('board.title')),
        h('a', { href: '#/puzzles', dataset: { test: 'puzzles-link' } }, t('pz.link'))),
      h('footer.fair', t('lobby.fair'))));
    for (const name of opened) {
      const d = this.root.querySelector(`details[data-test="${name}"]`);
      if (d) d.open = true;
    }
    this.update();
  }

  nameForm() {
    const input = h('input', { id: 'name', value: playerName(), maxlength: '32', placeholder: t('name.placeholder'),
      autocomplete: 'nickname', dataset: { test: 'name' } });
    const save = () => {
      if (setPlayerName(input.value)) toast(t('name.saved'), 'info');
      input.value = playerName();
    };
    input.addEventListener('change', save);
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') input.blur(); });
    // signed in, the name is the account's (spec §15): no field to change it
    if (app.account) return h('div.namebox', accountBox());
    return h('div.namebox', field(t('name.label'), input), accountBox());
  }

  quickForm() {
    const sel = h('select', { dataset: { test: 'quick-ai' } },
      h('option', { value: '' }, t('ai.default')),
      AIS.filter((a) => a !== 'strong').map((a) => h('option', { value: a }, t('ai.' + a))));
    return h('div.quick',
      h('h2', t('quick.title')),
      h('p', t('quick.desc')),
      h('div.quick-row',
        h('button.big.primary', { dataset: { test: 'quick' }, onclick: async () => {
          // seated at a running table: its seat goes to the AI, so ask as 离开 does (issue 25)
          if (!(await mayLeaveTable())) return;
          const msg = { type: 'quick' };
          if (sel.value) msg.ai = sel.value;
          app.conn.request(msg);
        } }, t('quick.button')),
        field(t('quick.ai'), sel, 'inline')),
      this.ratedForm());
  }

  /* Rated quick play (spec §15): for people signed in only. While the
   * server looks for a table (`queued`), the wait and a cancel (`leave`). */
  ratedForm() {
    if (!app.account) return null;
    const q = app.queued;
    if (q) {
      return h('div.rated-wait', { dataset: { test: 'rated-wait' }, role: 'status' },
        h('span.spinner', { 'aria-hidden': 'true' }),
        h('span', t('rated.waiting', { rating: Math.round(q.rating) })),
        h('button', { dataset: { test: 'rated-cancel' }, onclick: () => app.conn.send({ type: 'leave' }) }, t('rated.cancel')));
    }
    return h('div.rated',
      h('p', t('rated.desc')),
      h('button.big', { dataset: { test: 'rated-quick' }, onclick: async () => {
        if (!(await mayLeaveTable())) return;
        app.conn.send({ type: 'quick', rated: true });
      } }, t('rated.button')));
  }

  update() {
    if (!this.root || !this.roomsEl) return;
    this.updateRules();
    const rooms = app.rooms || [];
    if (!rooms.length) {
      replace(this.roomsEl, h('p.empty', t('rooms.none')));
      return;
    }
    replace(this.roomsEl, rooms.map((r) => {
      const free = r.seats.filter((s) => !s).length;
      return h('div.room', { dataset: { room: r.id } },
        h('div.room-main',
          h('div.room-name', roomLabel(r.name), r.password ? h('span.tag.lock', '\u{1F512}\uFE0E ' + t('rooms.locked')) : null,
            r.rated ? h('span.tag.rated', { dataset: { test: 'room-rated' } }, t('room.rated')) : null,
            h('span.tag' + (r.playing ? '.live' : ''), r.playing ? t('rooms.playing') : t('rooms.waiting'))),
          h('div.room-meta', h('span.rules', { title: rulesDesc(r.rules), dataset: { test: 'room-rules' } }, rulesName(r.rules)),
            ` · ${t('rooms.summary', { time: r.time, games: r.games })}`,
            r.spectators ? ' · ' + t('rooms.watchers', { n: r.spectators }) : ''),
          h('div.room-seats', r.seats.map((s, i) => h('span.rseat' + (s ? '' : '.free'),
            h('b', t('seat.' + i)), ' ', s ? playerLabel(s.name) : t('rooms.open'),
            // a hosted AI's label says it is a computer already
            s && s.kind !== 'human' && s.kind !== 'ai' ? h('small', ` ${t('kind.' + s.kind)}`) : null)))),
        h('div.room-actions',
          h('button.primary', { disabled: free === 0, dataset: { test: 'join' }, onclick: () => this.enter(r, 'join') },
            free ? t('rooms.join') : t('rooms.full')),
          h('button', { dataset: { test: 'watch' }, onclick: () => this.enter(r, 'watch') }, t('rooms.watch'))));
    }));
  }

  async enter(r, how) {
    if (!(await mayLeaveTable())) return;
    // A room that needs a password: the server answers EAUTH, and app.js
    // asks for it then.
    if (how === 'join') join(r.id);
    // a ladder table shows nothing of its deal while it is played (held,
    // spec §13) and lives for one game: its deals are watched on the TV
    else if (r.bots && /^Ladder deal \d+, table \d+\/\d+$/.test(r.name)) go('#/tv/ladder');
    else spectate(r.id);
  }

  createForm() {
    const num = (v, min, max) => h('input', { type: 'number', value: String(v), min: String(min), max: String(max), required: true });
    const f = {
      name: h('input', { maxlength: '40', placeholder: lang() === 'zh' ? '我的牌桌' : 'My table', name: 'name' }),
      rules: h('select', { name: 'rules', dataset: { test: 'rules' } }),
      time: num(30, 3, 300),
      games: num(6, 1, 100),
      priv: h('input', { type: 'checkbox', dataset: { test: 'private' } }),
      password: h('input', { type: 'password', maxlength: '64', autocomplete: 'new-password' }),
      fill: h('select', h('option', { value: '' }, t('create.fill.none')),
        AIS.map((a) => h('option', { value: 'ai:' + a }, t('kind.ai') + ': ' + t('ai.' + a)))),
      bots: h('input', { type: 'checkbox' }),
      autopass: h('input', { type: 'checkbox', checked: true }),
      grace: num(60, 0, 600),
      custody: h('select', { dataset: { test: 'custody' } }, h('option', { value: 'ai' }, t('create.custody.ai')),
        h('option', { value: 'fault' }, t('create.custody.fault'))),
      pause: num(3, 0, 30),
      // casual play deals again when everyone passes; competitions (and
      // CAAI's rule) count the deal as a game with no score (issue 25)
      redeal: h('input', { type: 'checkbox', checked: true, dataset: { test: 'redeal' } }),
      sitat: h('select', { dataset: { test: 'sitat' } }, h('option', { value: '' }, t('create.sit.any')),
        [0, 1, 2].map((i) => h('option', { value: String(i) }, t('seat.' + i)))),
      rated: h('input', { type: 'checkbox', dataset: { test: 'rated-room' } }),
    };
    // The common case in two choices (issue 38): how many people, the rest
    // hosted AIs of one level. The seat-by-seat form (engines, which seat is
    // ours, filling open seats) is behind a disclosure; while it is open it
    // is the one in effect, and the two choices are disabled.
    const people = h('select', { dataset: { test: 'people' } },
      [1, 2, 3].map((n) => h('option', { value: String(n), selected: n === 2 }, t('create.people.' + n))));
    const level = h('select', { dataset: { test: 'level' } },
      LEVELS.map((a) => h('option', { value: a, selected: a === 'greedy' }, t('ai.' + a))));
    const levelField = field(t('create.level'), level);
    people.addEventListener('change', () => { level.disabled = people.value === '3'; });
    // the seats already taken by each hosted AI: a rated room has each once
    const takenAis = () => seats.map((s) => s.sel.value).filter((v) => v.startsWith('ai:'));
    const seats = [0, 1, 2].map((i) => {
      const sel = h('select', { dataset: { test: 'seat' + i } },
        h('option', { value: '' }, t('create.seat.open')),
        AIS.map((a) => h('option', { value: 'ai:' + a }, t('kind.ai') + ': ' + t('ai.' + a))),
        h('option', { value: 'engine' }, t('create.seat.engine')));
      const eng = h('input.engine', { placeholder: t('create.engine.name'), maxlength: '40', hidden: true });
      sel.addEventListener('change', () => { eng.hidden = sel.value !== 'engine'; applyRated(); });
      return { sel, eng, el: h('div.seatopt', h('b', t('seat.' + i)), sel, eng) };
    });
    // The rule sets come from the server (the lobby's `rooms` event), each
    // with its one-line explanation under the choice.
    this.rulesSel = f.rules;
    this.rulesDescEl = h('p.rules-desc', { dataset: { test: 'rules-desc' } });
    this.redealEl = h('label.check', { dataset: { test: 'redeal-row' } }, f.redeal, h('span', t('create.redeal')));
    f.rules.addEventListener('change', () => this.updateRules());
    // Rated (spec §15): the form offers only what makes one rated game
    // comparable with another, as the server checks it (docs/decisions.md,
    // "Rated play"): no engines, no fill, no remote bots, no fault custody,
    // 10 s a move at least, each rated hosted AI once. "Just me + 2
    // computers" would seat one AI twice: rated quick play is that.
    const applyRated = () => {
      const on = f.rated.checked;
      people.options[0].disabled = on;
      if (on && people.value === '1') people.value = '2';
      level.disabled = this.seatwiseEl.open || people.value === '3';
      const seen = []; // an AI chosen before rated was checked stays in its first seat only
      for (const s of seats) {
        if (on && (s.sel.value === 'engine' || seen.includes(s.sel.value))) s.sel.value = '';
        s.eng.hidden = s.sel.value !== 'engine';
        if (s.sel.value) seen.push(s.sel.value);
      }
      const taken = takenAis();
      for (const s of seats) {
        for (const o of s.sel.options) o.disabled = on && (o.value === 'engine' || (o.value !== s.sel.value && taken.includes(o.value)));
      }
      f.fill.disabled = on;
      if (on) f.fill.value = '';
      f.bots.disabled = on;
      if (on) f.bots.checked = false;
      f.custody.querySelector('option[value=fault]').disabled = on;
      f.custody.disabled = on;
      if (on) f.custody.value = 'ai';
      f.time.min = on ? '10' : '3';
      if (on && +f.time.value < 10) f.time.value = '10';
    };
    f.rated.addEventListener('change', applyRated);
    people.addEventListener('change', applyRated);
    this.updateRules();
    const form = h('form.create', { dataset: { test: 'create-form' }, onsubmit: async (e) => {
      e.preventDefault();
      if (!(await mayLeaveTable())) return;
      const seatwise = this.seatwiseEl.open;
      const options = {
        rules: f.rules.value,
        time: +f.time.value, games: +f.games.value,
        private: f.priv.checked, bots: f.bots.checked, autopass: f.autopass.checked,
        grace: +f.grace.value, custody: f.custody.value, pause: +f.pause.value,
        redeal: !this.redealEl.hidden && f.redeal.checked,
        seats: seatwise
          ? seats.map((s) => (s.sel.value === 'engine' ? (s.eng.value.trim() ? 'engine:' + s.eng.value.trim() : null) : s.sel.value || null))
          // the people take the first seats, the creator the first of all
          : [0, 1, 2].map((i) => (i < +people.value ? null : 'ai:' + level.value)),
      };
      // The creator sits before `fill` takes the other open seats: there
      // must be an open seat to sit in.
      const open = options.seats.map((x, i) => (x === null ? i : -1)).filter((i) => i >= 0);
      const mine = seatwise && f.sitat.value !== '' ? +f.sitat.value : open[0];
      if (mine === undefined || !open.includes(mine)) {
        toast(t('create.noseat'));
        return;
      }
      if (seatwise && f.fill.value) options.fill = f.fill.value;
      if (f.name.value.trim()) options.name = f.name.value.trim();
      if (f.password.value) options.password = f.password.value;
      const msg = { type: 'create', options, seat: mine };
      if (app.account && f.rated.checked) msg.rated = true;
      app.conn.request(msg);
    } },
    h('div.form-grid',
      field(t('create.name'), f.name, 'wide'),
      h('div.rules-pick.wide', field(t('create.rules'), f.rules), this.rulesDescEl, this.redealEl),
      field(t('create.time'), f.time),
      field(t('create.games'), f.games),
      // for people signed in only: whoever sits must be (spec §15)
      app.account ? h('div.rated-pick.wide', { dataset: { test: 'rated-row' } },
        h('label.check', f.rated, h('span', t('create.rated'))), h('p.rules-desc', t('create.rated.desc'))) : null,
      h('div.players-pick.wide', field(t('create.people'), people), levelField),
      this.seatwiseEl = h('details.seatwise.wide', { dataset: { test: 'seatwise' },
        ontoggle: () => { people.disabled = this.seatwiseEl.open; applyRated(); } },
      h('summary', t('create.seatwise')),
      h('div.form-grid',
        h('fieldset.seats.wide', h('legend', t('create.seats')), seats.map((s) => s.el)),
        field(t('create.sitat'), f.sitat),
        field(t('create.fill'), f.fill))),
      h('label.check', f.priv, h('span', t('create.private'))),
      field(t('create.password'), f.password)),
    h('details.advanced', { dataset: { test: 'advanced' } }, h('summary', t('create.advanced')),
      h('div.form-grid',
        h('label.check', f.autopass, h('span', t('create.autopass'))),
        h('label.check', f.bots, h('span', t('create.bots'))),
        field(t('create.grace'), f.grace),
        field(t('create.custody'), f.custody),
        field(t('create.pause'), f.pause))),
    h('div.buttons', h('button.primary', { type: 'submit', dataset: { test: 'create' } }, t('create.submit'))));
    return h('details.create-box', { dataset: { test: 'create-box' } }, h('summary.button', '+ ' + t('create.open')), h('h3', t('create.title')), form);
  }

  /* The form's rule set choice: one option per rule set the server lists
   * (the choice kept), and the chosen one's explanation. */
  updateRules() {
    const sel = this.rulesSel;
    if (!sel) return;
    const names = app.rulesets && app.rulesets.length ? app.rulesets : ['caai'];
    const have = [...sel.options].map((o) => o.value);
    if (have.join() !== names.join()) {
      const keep = sel.value;
      replace(sel, names.map((r) => h('option', { value: r }, rulesName(r))));
      sel.value = names.includes(keep) ? keep : names[0];
    }
    this.rulesDescEl.textContent = rulesDesc(sel.value);
    // only where everyone passing ends the deal: botzone-ftl2 makes West
    // the landlord, botzone-ftl has no bidding
    if (this.redealEl) this.redealEl.hidden = !REDEAL_RULES.has(sel.value);
  }

  joinForm() {
    const input = h('input', { placeholder: t('joinid.placeholder'), dataset: { test: 'join-id' } });
    const id = () => roomIdFrom(input.value);
    return h('form.joinid', { onsubmit: async (e) => { e.preventDefault(); if (id() && await mayLeaveTable()) join(id()); } },
      h('h3', t('joinid.title')), input,
      h('div.buttons',
        h('button.primary', { type: 'submit' }, t('join.sit')),
        h('button', { type: 'button', onclick: async () => { if (id() && await mayLeaveTable()) spectate(id()); } }, t('join.watch'))));
  }

  replayForm() {
    const input = h('input', { type: 'number', min: '1', placeholder: t('replayid.placeholder') });
    return h('form.replayid', { onsubmit: (e) => {
      e.preventDefault();
      if (+input.value > 0) go('#/replay/' + (+input.value));
    } }, h('h3', t('replayid.title')), input, h('div.buttons', h('button', { type: 'submit' }, t('replayid.open'))));
  }
}
