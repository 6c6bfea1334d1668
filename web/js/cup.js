// cup.js - the competition page (#/tournament): live standings of the
// tournament the server runs (`ddz serve --tournament`), the tables of the
// turn being played (click: watch it in the table view, hidden cards hidden
// as for any spectator) and the finished games (click: the replay viewer).
// It polls GET /api/tournament every few seconds while shown.
import { h, replace, icon } from './dom.js';
import { t } from './i18n.js';
import { app, go, spectate, langButton } from './shell.js';
import { Poller } from './poller.js';

/* GET /api/tournament: the object, or null when none runs. */
export async function fetchTournament() {
  try {
    const res = await fetch('/api/tournament', { cache: 'no-store' });
    const d = res.ok ? await res.json() : null;
    return d && d.running ? d : null;
  } catch {
    return null;
  }
}

function num(x) {
  return typeof x === 'number' ? String(Math.round(x * 10) / 10) : '';
}

function signed(x) {
  return h('td.num' + (x > 0 ? '.plus' : x < 0 ? '.minus' : ''), (x > 0 ? '+' : '') + num(x));
}

export class Cup extends Poller {
  fetch() { return fetchTournament(); }

  watch(room) {
    app.fromCup = true; // when the table ends, come back here
    spectate(room);
  }

  render() {
    if (!this.root) return;
    const d = this.data;
    const head = h('header.lobby-head',
      h('div.cup-title',
        h('button.ghost.back', { onclick: () => go('#/'), title: t('cup.lobby'), 'aria-label': t('cup.lobby') }, icon('back')),
        h('h1', icon('trophy'), ' ', t('cup.title'))),
      langButton());
    if (d === undefined) {
      replace(this.root, h('div.lobby.cup', head, h('p.cup-note', t('cup.loading'))));
      return;
    }
    if (d === null) {
      replace(this.root, h('div.lobby.cup', head, h('section.panel', h('p', t('cup.none')))));
      return;
    }
    const st = d.standings;
    const cur = d.current;
    const status = d.error ? t('cup.stopped', { why: d.error })
      : d.done ? t('cup.done')
        : t('cup.playing', { stage: t('cup.stage.' + cur.stage), turn: cur.turn });
    replace(this.root, h('div.lobby.cup', head,
      h('p.cup-status', { dataset: { test: 'cup-status' } },
        h('strong', d.name), ' · ', t('cup.format.' + d.format), ' · ', t('cup.games', { n: d.games_per_turn }),
        ' · ', status),
      h('div.cup-grid',
        h('section.panel.cup-standings',
          h('h2', t('cup.standings'), st.turn ? h('small', ' ' + t('cup.after', { stage: t('cup.stage.' + st.stage), turn: st.turn })) : null),
          this.standings(st)),
        h('section.panel.cup-tables',
          h('h2', t('cup.tables')),
          this.tables(cur)),
        h('section.panel.cup-games',
          h('h2', t('cup.finished'), h('small', ' ' + t('cup.count', { n: d.games_played }))),
          this.games(d.games)))));
  }

  standings(st) {
    return h('div.scroll', h('table.standings', { dataset: { test: 'standings' } },
      h('thead', h('tr',
        h('th', '#'), h('th.left', t('cup.player')), h('th', t('cup.points')), h('th', t('cup.small')),
        h('th.left', t('cup.status')), h('th', t('cup.byes')), h('th', t('cup.faults')))),
      h('tbody', st.players.map((p) => h('tr.' + p.status,
        h('td.num', String(p.rank)), h('td.left.id', p.id), h('td.num', num(p.points)), signed(p.small),
        h('td.left', h('span.tag.st-' + p.status, t('cup.st.' + p.status))),
        h('td.num', String(p.byes)), h('td.num', String(p.faults)))))));
  }

  tables(cur) {
    if (!cur) return h('p.cup-note', t('cup.notables'));
    const rows = cur.tables.map((tb) => {
      const players = h('div.room-seats', tb.players.map((id, s) =>
        h('span.rseat', h('small', t('seat.' + s) + ' '), id ?? '—')));
      let state;
      let action = null;
      if (tb.forfeited.length) state = h('span.tag', t('cup.forfeited', { who: tb.forfeited.join(', ') }));
      else if (tb.waiting_s !== null) state = h('span.tag.lock', t('cup.waiting', { s: tb.waiting_s }));
      else if (tb.room) {
        state = h('span.tag.live', t('cup.live'));
        action = h('button.primary', { onclick: () => this.watch(tb.room), dataset: { test: 'watch-table' } }, t('rooms.watch'));
      } else state = h('span.tag', tb.games_done > 0 ? t('cup.tabledone') : t('cup.queued'));
      return h('div.room',
        h('div.room-main',
          h('div.room-name', t('cup.table', { k: tb.table }), state),
          h('div.room-meta', t('cup.progress', { done: tb.games_done })),
          players),
        action ? h('div.room-actions', action) : null);
    });
    return h('div.rooms', rows,
      cur.byes.length ? h('p.cup-note', t('cup.byeslist', { who: cur.byes.join(', ') })) : null);
  }

  games(games) {
    if (!games.length) return h('p.cup-note', t('cup.nogames'));
    return h('div.scroll', h('table.standings.games', { dataset: { test: 'games' } },
      h('thead', h('tr', h('th.left', t('cup.where')), h('th.left', t('cup.players')), h('th', t('cup.scores')), h('th'))),
      h('tbody', games.map((g) => h('tr',
        h('td.left', `${t('cup.stage.' + g.stage)} ${g.turn} · ${t('cup.table', { k: g.table })} · ${g.game}`),
        h('td.left', g.players.join(' · ')),
        h('td.num', g.scores.map(num).join(' / ')),
        h('td', g.id ? h('button.ghost.small', { onclick: () => go('#/replay/' + g.id), dataset: { test: 'replay-game' } }, t('over.replay')) : null))))));
  }
}
