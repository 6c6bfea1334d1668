// tournament.js - the competition page (#/tournament): live standings of the
// tournament the server runs (`ddz serve --tournament`), the tables of the
// turn being played (click: watch it in the table view, hidden cards hidden
// as for any spectator; a tournament's plays are held, see below; the
// published games are broadcast at #/tv/tournament: tv.js) and the
// finished games (click: the replay viewer). A game is listed only once
// every table of its turn has played it (the server holds it back until
// then: `held_games`), so the page says how many are held.
// It polls GET /api/tournament every few seconds while shown.
import { h, replace, icon } from './dom.js';
import { t } from './i18n.js';
import { app, go, spectate, langButton } from './shell.js';
import { Poller } from './poller.js';
import { tvButton } from './ladder.js';

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

export class Tournament extends Poller {
  fetch() { return fetchTournament(); }

  watch(room) {
    app.fromTournament = true; // when the table ends, come back here
    spectate(room);
  }

  render() {
    if (!this.root) return;
    const d = this.data;
    const head = h('header.lobby-head',
      h('div.competition-title',
        h('button.ghost.back', { onclick: () => go('#/'), title: t('competition.lobby'), 'aria-label': t('competition.lobby') }, icon('back')),
        h('h1', icon('trophy'), ' ', t('tournament.title'))),
      langButton());
    if (d === undefined) {
      replace(this.root, h('div.lobby.competition', head, h('p.competition-note', t('competition.loading'))));
      return;
    }
    if (d === null) {
      replace(this.root, h('div.lobby.competition', head, h('section.panel', h('p', t('tournament.none')))));
      return;
    }
    const st = d.standings;
    const cur = d.current;
    const status = d.error ? t('tournament.stopped', { why: d.error })
      : d.done ? t('tournament.done')
        : t('tournament.playing', { stage: t('tournament.stage.' + cur.stage), turn: cur.turn });
    replace(this.root, h('div.lobby.competition', head,
      h('p.competition-status', { dataset: { test: 'competition-status' } },
        h('strong', d.name), ' · ', t('tournament.format.' + d.format), ' · ', t('tournament.games', { n: d.games_per_turn }),
        ' · ', status),
      h('div.competition-grid',
        h('section.panel.competition-standings',
          h('h2', t('tournament.standings'), st.turn ? h('small', ' ' + t('tournament.after', { stage: t('tournament.stage.' + st.stage), turn: st.turn })) : null),
          this.standings(st, d.done && !d.error)),
        h('section.panel.competition-tables',
          h('div.tv-head', h('h2', t('tournament.tables')), tvButton('tournament')),
          this.tables(cur)),
        h('section.panel.competition-games',
          h('h2', t('tournament.finished'), h('small', ' ' + t('tournament.count', { n: d.games_played }))),
          d.held_games ? h('p.competition-note', { dataset: { test: 'held' }, title: d.held_rule }, t('tournament.held', { n: d.held_games })) : null,
          this.games(d.games, d.held_games)))));
  }

  /* `over`: the tournament has finished, so nobody is still playing: the
   * first (ties share it) is the winner, the others have finished. */
  standings(st, over) {
    const shown = (p) => (!over || (p.status !== 'active' && p.status !== 'finalist') ? p.status
      : p.rank === 1 ? 'winner' : 'finished');
    return h('div.scroll', h('table.standings', { dataset: { test: 'standings' } },
      h('thead', h('tr',
        h('th', '#'), h('th.left', t('competition.player')), h('th', t('tournament.points')), h('th', t('tournament.small')),
        h('th.left', t('competition.status')), h('th.hide-phone', t('tournament.byes')), h('th', t('competition.faults')))),
      h('tbody', st.players.map((p) => h('tr.' + shown(p),
        h('td.num', String(p.rank)), h('td.left.id', shown(p) === 'winner' ? h('span.trophy', { 'aria-hidden': 'true' }, icon('trophy'), ' ') : null, p.id),
        h('td.num', num(p.points)), signed(p.small),
        h('td.left', h('span.tag.st-' + shown(p), { dataset: { test: 'player-status' } }, t('tournament.st.' + shown(p)))),
        h('td.num.hide-phone', String(p.byes)), h('td.num', String(p.faults)))))));
  }

  tables(cur) {
    if (!cur) return h('p.competition-note', t('tournament.notables'));
    const rows = cur.tables.map((tb) => {
      const players = h('div.room-seats', tb.players.map((id, s) =>
        h('span.rseat', h('small', t('seat.' + s) + ' '), id ?? '—')));
      let state;
      let action = null;
      if (tb.forfeited.length) state = h('span.tag', t('tournament.forfeited', { who: tb.forfeited.join(', ') }));
      else if (tb.waiting_s !== null) state = h('span.tag.lock', t('tournament.waiting', { s: tb.waiting_s }));
      else if (tb.room) {
        state = h('span.tag.live', t('competition.live'));
        action = h('button.primary', { onclick: () => this.watch(tb.room), dataset: { test: 'watch-table' } }, t('rooms.watch'));
      } else state = h('span.tag', tb.games_done > 0 ? t('tournament.tabledone') : t('tournament.queued'));
      return h('div.room',
        h('div.room-main',
          h('div.room-name', t('tournament.table', { k: tb.table }), state),
          h('div.room-meta', t('tournament.progress', { done: tb.games_done }),
            tb.held ? ' · ' + t('tournament.tableheld', { n: tb.held }) : ''),
          players),
        action ? h('div.room-actions', action) : null);
    });
    return h('div.rooms', rows,
      cur.byes.length ? h('p.competition-note', t('tournament.byeslist', { who: cur.byes.join(', ') })) : null);
  }

  games(games, held) {
    if (!games.length) return held ? null : h('p.competition-note', t('tournament.nogames'));
    return h('div.scroll', h('table.standings.games', { dataset: { test: 'games' } },
      h('thead', h('tr', h('th.left', t('tournament.where')), h('th.left', t('tournament.players')), h('th', t('tournament.scores')), h('th'))),
      h('tbody', games.map((g) => h('tr',
        h('td.left', `${t('tournament.stage.' + g.stage)} ${g.turn} · ${t('tournament.table', { k: g.table })} · ${g.game}`),
        h('td.left', g.players.join(' · ')),
        h('td.num', g.scores.map(num).join(' / ')),
        h('td', g.id ? h('button.ghost.small', { onclick: () => go('#/replay/' + g.id), dataset: { test: 'replay-game' } }, t('over.replay')) : null))))));
  }
}
