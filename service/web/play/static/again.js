// Play again: from a finished Gops game, a new game with the same seats, names, referee's seats and
// rules. New games have new tokens (and new secrets for the salts), so the people's join links are
// new: the phone that asked shows them (or, when it is the only person at the table, goes to its seat).
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

/** Where the new game goes on this phone: its only person's seat, or the links for every seat. */
function openNewGame(data, secrets) {
  const people = data.seat_tokens.map((token, seat) => (token ? seat : null)).filter((seat) => seat != null);
  if (people.length === 1) {
    const seat = people[0];
    location.hash = `gops=${encodeURIComponent(data.id)}&seat=${seat}&t=${encodeURIComponent(data.seat_tokens[seat])}&k=${secrets[seat]}`;
  } else {
    location.hash = `gops=${encodeURIComponent(data.id)}&host=${encodeURIComponent(data.host_token)}`;
  }
}

/** The end screen's "Play again" (null while the game is being played). */
export function playAgain(view) {
  if (!view || view.phase !== 'over') return null;
  const button = h('button', { type: 'button', class: 'primary big', id: 'play-again' }, t('again.gops'));
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const r = await call('POST', '/v1/gops/games', { body: sameGameAgain(view) });
      const secrets = r.data.seat_tokens.map((token) => (token ? randomHex(32) : null));
      saveGame('gops', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, secrets });
      openNewGame(r.data, secrets);
    } catch (error) {
      fail(error);
      button.disabled = false;
    }
  });
  return h('section', { class: 'panel again', id: 'again' }, button, h('p', { class: 'hint' }, t('again.gops_hint')));
}
