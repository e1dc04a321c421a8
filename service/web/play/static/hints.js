// The hint: off by default, switched on per phone. In a Gops seat's commit phase it shows what the
// referee suggests for that seat (GET …/seats/{seat}/hint with the seat's token): the mix over the
// bids, the expected point difference (for two seats; else the seat's expected points), and whether
// that is exact or an estimate. At a dealt Gofo table, the seat's odds when it is to act.
import { call } from './api.js';
import { t, rankName, points } from './i18n.js';
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

export function percent(p) {
  if (p <= 0) return '0%';
  if (p >= 1) return '100%';
  const n = Math.round(p * 100);
  if (n === 0) return '<1%';
  return n === 100 ? '>99%' : `${n}%`;
}

/** A bid as its cards: "K", "K+Q". */
const bidText = (action) => action.cards.map(rankName).join('+');

/** With at least this weight on one bid, the hint says to bid it ("Bid the K") rather than a mix. */
const NEARLY_ALL = 0.95;
/** A mixed hint names its largest bids, at most this many, and puts the rest together. */
const FEW = 3;

/** What to bid, in words: "Bid the K", or "Bid at random: K 60%, Q 40%" (the largest few first). */
export function gopsAdvice(actions) {
  const shown = actions.filter((a) => a.probability > 1e-9).sort((a, b) => b.probability - a.probability);
  if (!shown.length) return '';
  if (shown[0].probability >= NEARLY_ALL) return t('hint.bid_one', { bid: bidText(shown[0]) });
  const named = shown.slice(0, FEW).map((a) => `${bidText(a)}\u00a0${percent(a.probability)}`); // "K 60%" kept on one line
  const rest = shown.slice(FEW).reduce((sum, a) => sum + a.probability, 0);
  if (rest > 1e-9) named.push(t('hint.others', { pct: percent(rest) }));
  return t('hint.bid_mix', { bids: named.join(', ') });
}

/** What the seat can expect from here, in words: ahead or behind its rival (two seats), or its own points. */
function gopsOutlook(value, players) {
  const rounded = Math.round(value * 10) / 10;
  if (players !== 2) return t('hint.expect_own', { points: points(rounded) });
  if (rounded === 0) return t('hint.expect_even');
  return t(rounded > 0 ? 'hint.expect_ahead' : 'hint.expect_behind', { points: points(Math.abs(rounded)) });
}

function gopsHintBody(hint, players) {
  const shown = hint.actions.filter((a) => a.probability > 1e-9);
  return [
    h('p', { class: 'big-text', id: 'hint-advice' }, gopsAdvice(hint.actions)),
    h('p', { id: 'hint-value', data: { value: hint.value, exact: hint.exact ? 'yes' : 'no' } },
      gopsOutlook(hint.value, players), ' ',
      h('span', { class: `hint-kind ${hint.exact ? 'exact' : 'estimate'}` }, hint.exact ? t('hint.exact') : t('hint.estimate'))),
    h('ul', { class: 'hint-mix', id: 'hint-mix' }, shown.map((a) => {
      const bar = h('span', { class: 'hint-bar' });
      bar.style.width = `${Math.max(2, Math.round(a.probability * 100))}%`;
      return h('li', { data: { cards: a.cards.join(','), probability: a.probability } },
        h('span', { class: 'hint-cards' }, bidText(a)),
        h('span', { class: 'hint-track' }, bar),
        h('span', { class: 'hint-pct' }, percent(a.probability)));
    })),
  ];
}

/**
 * A hint panel kept across the page's redraws: the switch, and below it the hint when it is on.
 * `shown(view)`: whether the panel is drawn at all; `when(view)`: a key naming the decision the seat
 * faces now (null: none), whose hint is asked for once at `url`; `show(data)`: what to draw of it.
 */
function hintBox({ url, token, shown, when, waiting, show }) {
  const body = h('div', { class: 'hint-body', id: 'hint-body' });
  const toggle = h('button', { type: 'button', class: 'secondary hint-toggle', id: 'hint-toggle', on: { click: flip } });
  const panel = h('section', { class: 'panel hint-panel', id: 'hint' }, toggle, body);
  let view = null;
  let asked = null; // the decision whose hint is shown or on its way

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
    if (!on || !view) { asked = null; mount(body); return; }
    const key = when(view);
    if (key == null) { asked = null; mount(body, h('p', { class: 'muted small' }, t(waiting))); return; }
    if (asked === key) return;
    asked = key;
    mount(body, h('p', { class: 'muted' }, t('hint.loading')));
    call('GET', url, { token }).then((r) => {
      if (asked === key) mount(body, show(r.data, view));
    }, (error) => {
      if (asked !== key) return;
      const detail = error.code === 'hint_unavailable' && error.problem.detail ? error.problem.detail : problemText(error);
      mount(body, h('p', { class: 'muted small', id: 'hint-unavailable', data: { code: error.code } }, detail));
    });
  }

  return {
    /** The panel to draw for `next` (null: none). */
    panel(next) {
      view = next;
      if (!view || !shown(view)) return null;
      draw();
      return panel;
    },
  };
}

/** A Gops seat's hint: in the commit phase, the mix over its bids the referee suggests (the
 * equilibrium's for two seats and one-card bids, else the level-8 bot's) and what the seat can expect. */
export function gopsHints(id, seat, token) {
  return hintBox({
    url: `/v1/gops/games/${encodeURIComponent(id)}/seats/${seat}/hint`,
    token,
    shown: (view) => view.phase !== 'over' && !view.resigned.includes(seat),
    when: (view) => (view.legal_actions.some((a) => a.type === 'commit') ? `${view.game_id}:${view.round}` : null),
    waiting: 'hint.next_bid',
    show: (data, view) => [h('h2', {}, t('hint.title')), gopsHintBody(data, view.rules.players)],
  });
}

/** A Gofo hint's suggested move in words: "Corta +4", "Discard 3 swords, 5 cups". */
function gofoMove(move, cardText) {
  if (!move || !move.type) return null;
  const name = t(`gofo.act.${move.type === 'enter' && move.blind ? 'enter_blind' : move.type}`, {}, move.type);
  const parts = [name];
  if (typeof move.amount === 'number') parts.push(`+${move.amount}`);
  if (Array.isArray(move.cards)) parts.push(move.cards.length ? move.cards.map(cardText).join(', ') : t('hint.stand_pat'));
  else if (typeof move.count === 'number') parts.push(String(move.count));
  return parts.join(' ');
}

function gofoHintBody(hint, cardText) {
  const kids = [];
  const move = gofoMove(hint.suggestion, cardText);
  if (move) kids.push(h('p', { class: 'big-text', id: 'hint-move', data: { move: hint.suggestion.type } }, t('hint.gofo_move', { move })));
  if (hint.value != null) kids.push(h('p', { id: 'hint-value', data: { value: hint.value } }, t('hint.gofo_value', { n: hint.value })));
  if (hint.bet) {
    // The referee's own numbers, only rounded to whole percents: the page computes no chance of its own.
    const { win_chance: win, pot_odds: odds, to_call: call, pot, rivals } = hint.bet;
    kids.push(h('p', { id: 'hint-odds', data: { win, odds } },
      t(rivals === 1 ? 'hint.gofo_win_one' : 'hint.gofo_win', { pct: percent(win), rivals }), ' ',
      call ? t('hint.gofo_odds', { pct: percent(odds), call, pot }) : t('hint.gofo_free'), ' ',
      h('span', { class: 'hint-kind estimate' }, t('hint.estimate'))));
  }
  if (hint.discards && hint.discards.length) {
    kids.push(h('table', { class: 'scores hint-discards', id: 'hint-discards' },
      h('thead', {}, h('tr', {}, h('th', {}, t('hint.gofo_throw')), h('th', { class: 'num' }, t('hint.gofo_expected')), h('th', { class: 'num' }, t('hint.gofo_improve')))),
      h('tbody', {}, hint.discards.slice(0, 5).map((d) => h('tr', { data: { cards: d.cards.join(',') } },
        h('td', {}, d.cards.length ? d.cards.map(cardText).join(', ') : t('hint.stand_pat')),
        h('td', { class: 'num' }, d.expected_value.toFixed(1)),
        h('td', { class: 'num' }, percent(d.improve)))))));
  }
  return kids;
}

/**
 * A dealt Gofo seat's hint: while the seat is to act, the move the strongest bot would make, the
 * hand's value, the chance to win against the pot odds, each discard's expected value and chance
 * to improve. `cardText(code)` names a card.
 */
export function gofoHints(id, seat, token, cardText) {
  return hintBox({
    url: `/v1/gofo/tables/${encodeURIComponent(id)}/seats/${seat}/hint`,
    token,
    shown: (view) => view.table.options.mode === 'dealt',
    when: (view) => (view.hand && view.hand.to_act === seat && (view.hand.legal_actions || []).length ? String(view.version) : null),
    waiting: 'hint.gofo_your_turn',
    show: (data) => [h('h2', {}, t('hint.gofo_title')), gofoHintBody(data, cardText)],
  });
}
