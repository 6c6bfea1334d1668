// mygames.js - "my games" in the lobby (issue 15): this browser's recent
// games with their results, each opening the replay viewer.
//
// Who "me" is: a random key this browser makes once and keeps in
// localStorage ("ddz.me"), said in every hello as `me`. The server keeps
// only a hash of it with each game played, and answers GET /api/my-games
// with "Authorization: Bearer KEY" (never in the address, which ends up in
// logs and history). Another browser, or cleared storage, is another "me".
// Signed in, the bearer is the account's session instead: the account's
// games, from any device (a sign-up on this browser took its guest games).
import { h, replace } from './dom.js';
import { t, lang, scoreText } from './i18n.js';
import { session } from './session.js';

const STRINGS = {
  en: {
    title: 'My games', none: 'Games you finish here appear in this list.', error: 'Your games could not be loaded.',
    when: 'When', result: 'Result', score: 'Score', with: 'With', replay: 'Replay',
    win: 'Won', lose: 'Lost', nowin: 'No winner', landlord: 'landlord', farmer: 'farmer', refresh: 'Refresh',
    note: 'Kept for this browser: another device or cleared storage has its own list.',
    noteAccount: 'Kept for your account, on every device you sign in on.',
  },
  zh: {
    title: '我的对局', none: '在这里打完的牌局会列在这里。', error: '无法读取你的对局。',
    when: '时间', result: '结果', score: '得分', with: '牌友', replay: '回放',
    win: '胜', lose: '负', nowin: '无胜负', landlord: '地主', farmer: '农民', refresh: '刷新',
    note: '记录保存在本浏览器：换设备或清除存储后列表另起。',
    noteAccount: '记录保存在你的账号里，登录的每台设备都能看到。',
  },
};
const s = (k) => (STRINGS[lang()] || STRINGS.en)[k];

/* This browser's key: 32 lower-case hex digits, made once. "" when storage
 * is off (then there is no list to keep). */
export function myKey() {
  try {
    let k = localStorage.getItem('ddz.me') || '';
    if (!/^[0-9a-f]{32}$/.test(k)) {
      const b = crypto.getRandomValues(new Uint8Array(16));
      k = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      localStorage.setItem('ddz.me', k);
    }
    return k;
  } catch {
    return '';
  }
}

function when(ms) {
  const d = new Date(ms);
  return d.toLocaleString(lang() === 'zh' ? 'zh-CN' : 'en-GB', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function row(g) {
  const me = g.seat;
  const mine = Array.isArray(g.scores) ? g.scores[me] : 0;
  let result = s('nowin');
  if (g.winner !== null && g.landlord !== null) result = (me === g.landlord) === (g.winner === g.landlord) ? s('win') : s('lose');
  const role = g.landlord === null ? '' : ` · ${me === g.landlord ? s('landlord') : s('farmer')}`;
  // the others as they sat from this player's seat, 上家 (before us) then
  // 下家 (after us), named as the table names them: a hosted AI by its
  // place (电脑·上家), a person by name with the place (issue 38)
  const others = [2, 1].map((d) => {
    const i = (me + d) % 3;
    const n = g.names[i] || '?';
    const where = t(d === 1 ? 'seat.next' : 'seat.prev');
    return /^ai:/.test(n) ? `${t('kind.ai')}·${t(d === 1 ? 'seat.next.short' : 'seat.prev.short')}` : t('mygames.seat', { name: n, seat: where });
  }).map((n, i) => h('span.word', { dataset: { test: 'mygame-with' } }, (i ? ', ' : '') + n));
  // the replay names the seats from ours (我, 上家, 下家) and draws ours at the bottom
  const link = (g.key ? `${g.id}-${g.key}` : String(g.id)) + `?from=${me}`;
  return h('tr', { dataset: { test: 'mygame', id: String(g.id) } },
    h('td.when', when(g.finished_at)),
    // words never broken inside in a narrow column: 负 · 地主, not 地/主 (issue 25)
    h('td', h('span.word', result), role ? h('span.word', role) : null),
    h('td.num' + (mine > 0 ? '.plus' : mine < 0 ? '.minus' : ''), scoreText(mine, true)),
    h('td.with', others),
    h('td', h('a.button.small', { href: `#/replay/${link}`, dataset: { test: 'mygame-replay' } }, '\u25B6 ' + s('replay'))));
}

/* The lobby's "my games" panel; it loads its list at once. */
export function myGamesPanel() {
  const body = h('div.mygames-body');
  const box = h('div.mygames', { dataset: { test: 'mygames' } },
    h('div.panel-head', h('h3', s('title')),
      h('button.ghost.small', { onclick: () => load(body), dataset: { test: 'mygames-refresh' } }, '\u21BB ' + s('refresh'))),
    body, h('p.note', s(session() ? 'noteAccount' : 'note')));
  load(body);
  return box;
}

async function load(body) {
  let games = null;
  // the account's list when signed in; the browser's own when not, or when
  // the session was ended elsewhere (401)
  for (const key of [session(), myKey()]) {
    if (!key || games) continue;
    try {
      const r = await fetch('/api/my-games', { headers: { Authorization: `Bearer ${key}` }, cache: 'no-store' });
      if (r.ok) games = (await r.json()).games;
      else if (r.status !== 401) break;
    } catch { break; /* offline: said below */ }
  }
  if (!games) {
    replace(body, h('p.empty', s('error')));
  } else if (!games.length) {
    replace(body, h('p.empty', { dataset: { test: 'mygames-none' } }, s('none')));
  } else {
    replace(body, h('table',
      h('thead', h('tr', h('th.when', s('when')), h('th', s('result')), h('th.num', s('score')), h('th', s('with')), h('th', ''))),
      h('tbody', games.map(row))));
  }
}
