// The hint: off by default, switched on per phone. In a Gops seat's commit phase it shows the
// referee's equilibrium for that seat (GET …/seats/{seat}/hint with the seat's token): the mix over
// the bids, the expected point difference, and whether that is exact or an estimate.
import { call } from './api.js';
import { t, rankName } from './i18n.js';
import { h, mount, problemText } from './ui.js';

const KEY = 'referee:hints';

export function hintsOn() {
  return localStorage.getItem(KEY) === 'on';
}

function setHints(on) {
  localStorage.setItem(KEY, on ? 'on' : 'off');
}

/** "+2.3", "−0.7", "0". */
function signed(value) {
  const rounded = Math.round(value * 10) / 10;
  if (rounded === 0) return '0';
  return rounded > 0 ? `+${rounded}` : `−${Math.abs(rounded)}`;
}

function percent(p) {
  const n = Math.round(p * 100);
  return n === 0 ? '<1%' : `${n}%`;
}

function gopsHintBody(hint) {
  const shown = hint.actions.filter((a) => a.probability > 1e-9);
  return [
    h('ul', { class: 'hint-mix', id: 'hint-mix' }, shown.map((a) => {
      const bar = h('span', { class: 'hint-bar' });
      bar.style.width = `${Math.max(2, Math.round(a.probability * 100))}%`;
      return h('li', { data: { cards: a.cards.join(','), probability: a.probability } },
        h('span', { class: 'hint-cards' }, a.cards.map(rankName).join('+')),
        h('span', { class: 'hint-track' }, bar),
        h('span', { class: 'hint-pct' }, percent(a.probability)));
    })),
    h('p', { id: 'hint-value', data: { value: hint.value, exact: hint.exact ? 'yes' : 'no' } },
      t('hint.value', { value: signed(hint.value) }), ' ',
      h('span', { class: `hint-kind ${hint.exact ? 'exact' : 'estimate'}` }, hint.exact ? t('hint.exact') : t('hint.estimate'))),
  ];
}

/**
 * A Gops seat's hint panel, kept across the page's redraws: `panel(view)` gives the element to draw
 * (null once the game is over). The hint of a round is asked for once, when that seat may bid.
 */
export function gopsHints(id, seat, token) {
  const body = h('div', { class: 'hint-body', id: 'hint-body' });
  const toggle = h('button', { type: 'button', class: 'secondary hint-toggle', id: 'hint-toggle', on: { click: flip } });
  const panel = h('section', { class: 'panel hint', id: 'hint' }, toggle, body);
  let view = null;
  let asked = null; // the round (game and version of the hand) whose hint is shown or on its way

  function flip() {
    setHints(!hintsOn());
    asked = null;
    draw();
  }

  function draw() {
    const on = hintsOn();
    toggle.setAttribute('aria-pressed', on ? 'true' : 'false');
    toggle.textContent = `${t('hint.toggle')}: ${on ? t('hint.on') : t('hint.off')}`;
    panel.dataset.on = on ? 'yes' : 'no';
    if (!on || !view) { mount(body); return; }
    const bidding = view.legal_actions.some((a) => a.type === 'commit');
    if (!bidding) { asked = null; mount(body, h('p', { class: 'muted small' }, t('hint.next_bid'))); return; }
    const round = `${view.game_id}:${view.round}`;
    if (asked === round) return;
    asked = round;
    mount(body, h('p', { class: 'muted' }, t('hint.loading')));
    call('GET', `/v1/gops/games/${encodeURIComponent(id)}/seats/${seat}/hint`, { token }).then((r) => {
      if (asked !== round) return;
      mount(body, h('h2', {}, t('hint.title')), gopsHintBody(r.data));
    }, (error) => {
      if (asked !== round) return;
      const detail = error.code === 'hint_unavailable' && error.problem.detail ? error.problem.detail : problemText(error);
      mount(body, h('p', { class: 'muted small', id: 'hint-unavailable', data: { code: error.code } }, detail));
    });
  }

  return {
    panel(next) {
      view = next;
      if (!view || view.phase === 'over' || view.resigned.includes(seat)) return null;
      draw();
      return panel;
    },
  };
}
