// "Play against the referee": a two-seat Gops game on one phone, the referee's bot in seat 2.
import { call } from './api.js';
import { t } from './i18n.js';
import { h, mount, fail, field, select, number, saveGame } from './ui.js';
import { randomHex } from './sha256.js';

/** The bots' levels, 1 to the strongest the page's meta tag names (service.games.levels.TOP_BOT_LEVEL). */
const TOP_LEVEL = Number(document.querySelector('meta[name="referee-top-bot-level"]').content);
export const LEVELS = Array.from({ length: TOP_LEVEL }, (_, i) => i + 1);
export const DEFAULT_LEVEL = 4;

/** The level picker: 1 (bids at random) to 8 (the exact equilibrium near the end), with the line saying so. */
export function levelField(name = 'level', label = t('bots.level')) {
  return field(label, select(name, LEVELS.map((n) => [n, t('bots.level_n', { n })]), DEFAULT_LEVEL), t('bots.levels_line'));
}

export function createPage(root) {
  const name = h('input', { type: 'text', name: 'name', id: 'f-name', maxlength: 24, autocomplete: 'nickname' });
  const form = h('form', { class: 'stack', id: 'referee-create', novalidate: true },
    h('h1', {}, t('bots.title')),
    h('p', {}, t('bots.intro')),
    levelField(),
    field(t('bots.ranks'), number('ranks', 13, 1, 13)),
    field(t('bots.your_name'), name),
    h('button', { type: 'submit', class: 'primary big', id: 'referee-create-go' }, t('bots.go')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const ranks = Number(form.elements.ranks.value) || 13;
    const body = {
      profile: 'classic',
      options: { ranks },
      bots: [{ seat: 1, level: Number(form.elements.level.value) }],
    };
    const mine = name.value.trim();
    if (mine) body.names = [mine, null];
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const r = await call('POST', '/v1/gops/games', { body });
      const secrets = r.data.seat_tokens.map((token) => (token ? randomHex(32) : null));
      saveGame('gops', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, secrets });
      // Straight to the player's own seat: the only seat with a token.
      const seat = r.data.seat_tokens.findIndex((token) => token);
      location.hash = `gops=${encodeURIComponent(r.data.id)}&seat=${seat}&t=${encodeURIComponent(r.data.seat_tokens[seat])}&k=${secrets[seat]}`;
    } catch (error) {
      fail(error);
      button.disabled = false;
    }
  });
  mount(root, form);
}

/**
 * On the Gofo create form, for a dealt table: how many of the last seats the referee plays, and at
 * what level. Put `element` in the form, then `bind(form)` (its `seatsName` and `modeName` fields
 * drive it). `bots()` gives the create body's list (undefined: none, or a tabletop table).
 */
export function gofoBotsField(seatsName, modeName) {
  const count = h('select', { name: 'bot_seats', id: 'f-bot_seats' });
  const level = levelField('bot_level', t('bots.fill_level'));
  level.querySelector('.hint').textContent = t('bots.gofo_levels_line');
  const panel = h('div', { class: 'stack', id: 'bots' }, field(t('bots.fill'), count, t('bots.fill_hint')), level);
  let form = null;
  const seats = () => Math.max(2, Math.min(6, Number(form.elements[seatsName].value) || 2));
  const dealt = () => form.elements[modeName].value === 'dealt';
  const draw = () => {
    const chosen = Math.min(Number(count.value) || 0, seats() - 1);
    mount(count, Array.from({ length: seats() }, (_, n) =>
      h('option', { value: n, selected: n === chosen }, n === 0 ? t('bots.fill_none') : t('bots.fill_n', { n }))));
    panel.hidden = !dealt();
  };
  return {
    element: panel,
    bind(owner) {
      form = owner;
      form.elements[seatsName].addEventListener('input', draw);
      form.elements[modeName].addEventListener('change', draw);
      draw();
    },
    bots() {
      const n = Number(count.value) || 0;
      if (!dealt() || n === 0) return undefined;
      const lvl = Number(panel.querySelector('select[name=bot_level]').value);
      return Array.from({ length: n }, (_, i) => ({ seat: seats() - n + i, level: lvl }));
    },
  };
}
