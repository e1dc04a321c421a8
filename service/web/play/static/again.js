// Play again: from a finished Gops game, a new game with the same seats, names, referee's seats and
// rules; from a Gofo table once a hand has ended, a new table like it (same seats, names, bots and
// options; fronts as at any new table). New games and tables have new tokens (and a Gops game new
// secrets for the salts), so the people's join links are new: the phone that asked shows them (or,
// when it is the only person at the table, goes to its seat).
import { call } from './api.js';
import { t } from './i18n.js';
import { h, fail, saveGame } from './ui.js';
import { randomHex } from './sha256.js';

const CLASSIC = { players: 2, resolution: 'none', unclaimed: 'carryover' };

/** The body that creates the same game again, from a view's `rules`, `match`, `names` and `bots`. */
export function sameGameAgain(view) {
  const options = {};
  for (const [key, value] of Object.entries(view.rules)) {
    if (value == null) continue;
    if (key === 'explicit_order' && view.rules.prize_order !== 'explicit') continue;
    options[key] = value;
  }
  const classic = Object.entries(CLASSIC).every(([key, value]) => view.rules[key] === value);
  const m = view.match || { format: 'single' };
  const match = { format: m.format };
  if (m.format === 'cumulative' || m.format === 'best_of') match.games = m.games;
  if (m.format === 'best_of' && m.tiebreak) match.tiebreak = m.tiebreak;
  if (m.format === 'target' && m.target != null) match.target = m.target;
  const body = { profile: classic ? 'classic' : 'standard', options, match };
  if ((view.names || []).some((name) => name)) body.names = view.names;
  if ((view.bots || []).length) body.bots = view.bots.map(({ seat, level }) => ({ seat, level }));
  return body;
}

/** The body that opens a Gofo table like the one `view` shows: its options (not a resumed session's ledger), names and bots. */
export function sameTableAgain(view) {
  const o = view.table.options;
  const body = { mode: o.mode, seats: o.seats, caja: o.caja, refill: o.refill, initial_front: o.initial_front, inauguration_front: o.inauguration_front };
  if (o.inauguration) body.inauguration = o.inauguration;
  if (o.turn_seconds != null) body.turn_seconds = o.turn_seconds;
  if ((view.names || []).some((name) => name)) body.names = view.names;
  if ((view.bots || []).length) body.bots = view.bots.map(({ seat, level }) => ({ seat, level }));
  return body;
}

/** Where the new game or table goes on this phone: its only person's seat, or the links for every seat. */
function openNew(kind, data, secrets = []) {
  const people = data.seat_tokens.map((token, seat) => (token ? seat : null)).filter((seat) => seat != null);
  const id = encodeURIComponent(data.id);
  if (people.length === 1) {
    const seat = people[0];
    location.hash = `${kind}=${id}&seat=${seat}&t=${encodeURIComponent(data.seat_tokens[seat])}${secrets[seat] ? `&k=${secrets[seat]}` : ''}`;
  } else {
    location.hash = `${kind}=${id}&host=${encodeURIComponent(data.host_token)}`;
  }
}

/** The button that makes it: `make()` creates and opens the new game; a refusal is said and the button is ready again. */
function againButton(id, label, make) {
  const button = h('button', { type: 'button', class: 'primary big', id }, label);
  button.addEventListener('click', async () => {
    if (button.disabled) return; // a second tap of a double tap: the first is making it
    button.disabled = true;
    try {
      await make();
    } catch (error) {
      fail(error);
      button.disabled = false;
    }
  });
  return button;
}

/** The end screen's "Play again" (null while the game is being played). */
export function playAgain(view) {
  if (!view || view.phase !== 'over') return null;
  const button = againButton('play-again', t('again.gops'), async () => {
    const r = await call('POST', '/v1/gops/games', { body: sameGameAgain(view) });
    const secrets = r.data.seat_tokens.map((token) => (token ? randomHex(32) : null));
    saveGame('gops', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, secrets });
    openNew('gops', r.data, secrets);
  });
  return h('section', { class: 'panel again', id: 'again' }, button, h('p', { class: 'hint' }, t('again.gops_hint')));
}

/** "New table like this", once a hand of the table has ended (null before: a Gofo table never ends by itself). */
export function tableAgain(view) {
  if (!view || !view.table.last_result) return null;
  const body = sameTableAgain(view);
  const button = againButton('play-again', t('again.gofo'), async () => {
    const r = await call('POST', '/v1/gofo/tables', { body });
    saveGame('gofo', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, mode: body.mode });
    openNew('gofo', r.data);
  });
  return h('section', { class: 'panel again', id: 'again' }, button, h('p', { class: 'hint' }, t('again.gofo_hint')));
}
