// Gofo at the table: dealt tables (each phone sees only its own cards) and tabletop tables (one
// host phone runs a table played with real cards).
import { call, watch } from './api.js';
import { t, lang } from './i18n.js';
import { h, mount, fail, field, select, number, joinLinks, saveGame, savedGame, seatName, joinBase, isLoopback } from './ui.js';
import { sha256hex } from './sha256.js';
import { qrSvg } from './qr.js';
import { liveBadge } from './gops.js';

const path = (id) => `/v1/gofo/tables/${encodeURIComponent(id)}`;
const SUITS = ['o', 'c', 'e', 'b'];
const RANKS = [3, 4, 5, 6, 7, 11, 12];
const SUIT_NAMES = {
  es: { o: 'oros', c: 'copas', e: 'espadas', b: 'bastos' },
  en: { o: 'coins', c: 'cups', e: 'swords', b: 'clubs' },
};

// ------------------------------------------------------------------ cards

function parseCard(code) {
  return { rank: Number(code.slice(0, -1)), suit: code.slice(-1) };
}

function suitName(suit) {
  return (SUIT_NAMES[lang()] || SUIT_NAMES.en)[suit];
}

function cardEl(code, extra = {}) {
  if (code == null) return h('span', { class: 'card back small' }, '?');
  const { rank, suit } = parseCard(code);
  return h('span', { class: `card small suit-${suit}`, title: `${rank} ${suitName(suit)}`, ...extra },
    h('span', {}, String(rank), h('span', { class: 'suit' }, suitName(suit))));
}

const cardValue = (rank) => (rank === 11 ? 8 : rank === 12 ? 9 : rank);

/** The value of five cards: the best suit's sum of at most four cards (as the referee counts it). */
export function handValue(codes) {
  let best = 0;
  for (const suit of SUITS) {
    const values = codes.map(parseCard).filter((c) => c.suit === suit).map((c) => cardValue(c.rank)).sort((a, b) => b - a);
    best = Math.max(best, values.slice(0, 4).reduce((a, b) => a + b, 0));
  }
  return best;
}

/** A 28-card picker (no typing codes): tap to select up to `limit` cards. */
function cardPicker(selected, limit, onChange, { disabled = new Set(), id } = {}) {
  return h('div', { class: 'picker-wrap', id },
    SUITS.map((suit) => h('div', { class: 'picker-suit' },
      h('span', { class: 'label' }, suitName(suit)),
      h('div', { class: 'picker' }, RANKS.map((rank) => {
        const code = `${rank}${suit}`;
        const on = selected.includes(code);
        return h('button', {
          type: 'button', class: `suit-${suit}`, 'aria-pressed': on ? 'true' : 'false', data: { pick: code },
          disabled: disabled.has(code) || (!on && selected.length >= limit),
          on: { click: () => onChange(on ? selected.filter((c) => c !== code) : [...selected, code]) },
        }, String(rank));
      })))));
}

// ------------------------------------------------------------------ create

export function createPage(root) {
  const form = h('form', { class: 'stack', id: 'gofo-create', novalidate: true },
    h('h1', {}, t('gofo.new')),
    field(t('gofo.mode'), select('mode', [['dealt', t('gofo.mode.dealt')], ['tabletop', t('gofo.mode.tabletop')]], 'dealt')),
    field(t('gofo.seats'), number('seats', 5, 2, 6)),
    field(t('gofo.caja'), number('caja', 100, 1, 1000000)),
    field(t('gofo.refill'), number('refill', 10, 1, 1000000)),
    field(t('gofo.initial_front'), number('initial_front', 30, 1, 1000000)),
    h('details', { class: 'more' },
      h('summary', {}, t('more_options')),
      field(t('gofo.inauguration_front'), number('inauguration_front', null, 1, 1000000, t('gofo.same_as_initial'))),
      field(t('gofo.turn_seconds'), number('turn_seconds', null, 5, 86400, t('none')))),
    h('button', { type: 'submit', class: 'primary big', id: 'gofo-create-go' }, t('gofo.create')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const int = (name) => Number(form.elements[name].value);
    const body = { mode: form.elements.mode.value, seats: int('seats'), caja: int('caja'), refill: int('refill') };
    if (form.elements.initial_front.value) body.initial_front = int('initial_front');
    if (form.elements.inauguration_front.value) body.inauguration_front = int('inauguration_front');
    if (form.elements.turn_seconds.value) body.turn_seconds = int('turn_seconds');
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const r = await call('POST', '/v1/gofo/tables', { body });
      saveGame('gofo', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, mode: body.mode });
      location.hash = `gofo=${encodeURIComponent(r.data.id)}&host=${encodeURIComponent(r.data.host_token)}`;
    } catch (error) {
      fail(error);
      button.disabled = false;
    }
  });
  mount(root, form);
}

// ------------------------------------------------------------------ shared panels

function level(hand) {
  return hand.bet ? hand.bet.level : Math.max(0, ...hand.committed);
}

function handHeader(view) {
  const hand = view.hand;
  if (!hand) return h('p', { class: 'crumbs' }, t('loading'));
  return h('div', {},
    h('p', { class: 'crumbs', id: 'where' }, t('gofo.hand_n', { n: view.table.hand_number }), ' · ',
      t('gofo.phase', { phase: t(`gofo.phase.${hand.phase}`) })),
    hand.to_act == null ? null : h('p', { class: 'big-text', id: 'to-act', data: { seat: hand.to_act } }, t('gofo.to_act', { who: seatName(hand.to_act) })));
}

function seatsTable(view, me) {
  const hand = view.hand;
  const rows = view.table.seats.map((s) => {
    const seat = s.seat;
    const marks = [];
    if (hand && hand.dealer === seat) marks.push(t('gofo.dealer'));
    if (hand && hand.mano === seat) marks.push(t('gofo.mano'));
    return h('tr', { class: `${seat === me ? 'me' : ''} ${hand && hand.to_act === seat ? 'to-act' : ''}`, data: { seat } },
      h('th', { scope: 'row' }, seatName(seat), seat === me ? ` (${t('you')})` : '', marks.length ? h('div', { class: 'small' }, marks.join(', ')) : null),
      h('td', { class: 'num' }, String(hand ? hand.resto[seat] : s.front)),
      h('td', { class: 'num' }, String(hand ? hand.committed[seat] : 0)),
      h('td', { class: 'status' }, hand ? t(`gofo.status.${hand.status[seat]}`) : ''),
      h('td', { class: 'num' }, hand && hand.card_counts ? String(hand.card_counts[seat]) : ''));
  });
  return h('section', { class: 'panel' },
    h('table', { class: 'scores', id: 'seats' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, t('gofo.resto')), h('th', { class: 'num' }, t('gofo.in_hand')), h('th', {}, t('gofo.status')), h('th', {}, ''))),
      h('tbody', {}, rows)));
}

function potsPanel(hand) {
  if (!hand) return null;
  const pots = hand.pots.map((pot, i) => h('li', { data: { pot: i } },
    t('gofo.pot', { n: i + 1, amount: pot.amount, who: pot.eligible.map(seatName).join(', ') })));
  const bet = hand.bet
    ? h('p', { class: 'big-text', id: 'bet', data: { level: hand.bet.level } }, t('gofo.bet', { level: hand.bet.level }))
    : h('p', { id: 'bet' }, t('gofo.no_bet'));
  const discards = hand.discards.length ? h('div', { id: 'discards' },
    h('h3', {}, t('gofo.discards')),
    h('ul', {}, hand.discards.map((d) => h('li', {}, t('gofo.discard_record', { seat: seatName(d.seat), count: d.count }), ' ',
      (d.cards || []).map((c) => cardEl(c)))))) : null;
  return h('section', { class: 'panel', id: 'pots' }, h('h2', {}, t('gofo.pots')), pots.length ? h('ul', {}, pots) : null, bet, discards);
}

async function verifyDeal(deal) {
  const hand = deal.hand;
  // The reshuffle keys: one leaf per possible reshuffle (v2), or one key opened whole (v1).
  if (Array.isArray(deal.reshuffle_key_leaves)) {
    if (sha256hex(`gofo-reshuffle-keys-v2|${deal.hand_id}|${deal.reshuffle_key_leaves.join(',')}`) !== deal.reshuffle_key_hash) {
      return { ok: false, problem: t('verify.key_mismatch', { hand }) };
    }
    for (const k of deal.reshuffle_keys || []) {
      if (sha256hex(`gofo-reshuffle-key-v2|${deal.hand_id}|${k.number}|${k.key}`) !== deal.reshuffle_key_leaves[k.number - 1]) {
        return { ok: false, problem: t('verify.key_mismatch', { hand }) };
      }
    }
  } else if (sha256hex(`gofo-reshuffle-key-v1|${deal.hand_id}|${deal.reshuffle_key}`) !== deal.reshuffle_key_hash) {
    return { ok: false, problem: t('verify.key_mismatch', { hand }) };
  }
  if (sha256hex(`gofo-deck-v2|${deal.hand_id}|${deal.leaves.join(',')}|${deal.reshuffle_key_hash}`) !== deal.commitment) {
    return { ok: false, problem: t('verify.deck_mismatch', { hand }) };
  }
  for (const o of deal.openings) {
    if (sha256hex(`gofo-card-v1|${deal.hand_id}|${o.position}|${o.card}|${o.salt}`) !== deal.leaves[o.position]) {
      return { ok: false, problem: t('verify.leaf_mismatch', { hand, position: o.position }) };
    }
  }
  return { ok: true, n: deal.openings.length };
}

function lastHandPanel(view) {
  const result = view.table.last_result;
  if (!result) return null;
  const slot = h('div', { id: 'deal-verdict' });
  const deal = view.table.last_deal;
  if (deal) {
    verifyDeal(deal).then((outcome) => mount(slot, outcome.ok
      ? h('p', { class: 'verdict ok', data: { verdict: 'verified' } }, '✔ ', t('verify.deck_ok', { n: outcome.n }))
      : h('p', { class: 'verdict bad', data: { verdict: 'mismatch' } }, '✘ ', outcome.problem)));
  }
  return h('section', { class: 'panel', id: 'last-hand', data: { hand: result.hand } },
    h('h2', {}, t('gofo.last_hand'), result.hand ? ` (${t('gofo.hand_n', { n: result.hand })})` : ''),
    h('ul', {}, result.pots.map((pot, i) => h('li', {}, t('gofo.pot', { n: i + 1, amount: pot.amount, who: pot.winner == null ? '—' : seatName(pot.winner) })))),
    h('ul', { class: 'net' }, result.net.map((net, seat) => h('li', { data: { seat, net } },
      t('gofo.hand_result', { seat: seatName(seat), net: net > 0 ? `+${net}` : String(net) }),
      result.values && result.values[seat] != null ? ` · ${t('gofo.value', { n: result.values[seat] })}` : '',
      result.shown && result.shown[seat] ? h('div', {}, result.shown[seat].map((c) => cardEl(c))) : null))),
    slot);
}

function ledgerPanel(id, view) {
  const slot = h('div', { id: 'ledger-hands' });
  const show = async () => {
    try {
      const r = await call('GET', `${path(id)}/ledger`);
      mount(slot, h('ol', {}, r.data.results.map((res) => h('li', {}, res.net.map((n, s) => `${seatName(s)} ${n > 0 ? '+' : ''}${n}`).join(' · ')))));
    } catch (error) {
      fail(error);
    }
  };
  return h('details', { class: 'panel', id: 'ledger', on: { toggle: (e) => { if (e.target.open) show(); } } },
    h('summary', {}, t('gofo.ledger')),
    h('table', { class: 'scores' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, t('gofo.front')), h('th', { class: 'num' }, t('gofo.behind')),
        h('th', { class: 'num' }, t('gofo.cajas')), h('th', { class: 'num' }, t('gofo.balance')))),
      h('tbody', {}, view.table.seats.map((s) => h('tr', { data: { seat: s.seat } }, h('th', {}, seatName(s.seat)),
        h('td', { class: 'num' }, String(s.front)), h('td', { class: 'num' }, String(s.behind)),
        h('td', { class: 'num' }, String(s.cajas)), h('td', { class: 'num balance' }, String(s.balance)))))),
    slot);
}

// ------------------------------------------------------------------ legal actions

/**
 * The moves `hand.legal_actions` allows `seat`, each a button (amounts with their range, shown as
 * "+N" and as the level it raises the bet to). `send(move, body)` makes one. `ui` keeps choices
 * (cards picked, amounts) across re-renders.
 */
function actionsPanel(hand, seat, send, ui, { tabletop, title }) {
  const legal = hand.legal_actions || [];
  if (!legal.length) return null;
  const moves = [];
  const L = level(hand);
  const mine = hand.committed[seat];
  const button = (label, move, body, extra = {}) => h('button', {
    type: 'button', class: extra.cls || 'primary big', data: { action: move, ...(extra.data || {}) }, disabled: ui.busy || extra.disabled,
    on: { click: () => send(move, body()) },
  }, label);
  const amountMove = (type, move, describe) => {
    const a = legal.find((x) => x.type === type);
    const key = `amount:${type}`;
    const value = Math.min(a.max, Math.max(a.min, ui[key] == null ? a.min : ui[key]));
    const label = h('span', { class: 'amount-label', id: `amount-label-${type}` }, describe(value));
    const input = h('input', { type: 'number', id: `amount-${type}`, min: a.min, max: a.max, value: String(value), inputmode: 'numeric' });
    const set = (v) => {
      const n = Math.min(a.max, Math.max(a.min, Number(v) || a.min));
      ui[key] = n;
      input.value = String(n);
      label.textContent = describe(n);
    };
    input.addEventListener('input', () => { ui[key] = Number(input.value); label.textContent = describe(Math.min(a.max, Math.max(a.min, Number(input.value) || a.min))); });
    input.addEventListener('change', () => set(input.value));
    return h('div', { class: 'move', data: { move: type } },
      h('div', { class: 'amount' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': '−', on: { click: () => set(Number(input.value) - 1) } }, '−'),
        input,
        h('button', { type: 'button', class: 'secondary', 'aria-label': '+', on: { click: () => set(Number(input.value) + 1) } }, '+')),
      h('span', { class: 'hint' }, t('gofo.range', { min: a.min, max: a.max })),
      label,
      button(t(`gofo.act.${move.replace('-', '_')}`), move, () => ({ amount: Math.min(a.max, Math.max(a.min, Number(input.value) || a.min)) })));
  };
  const raiseText = (n) => `${t('gofo.amount_plus', { n })} · ${t('gofo.amount_to', { to: L + n })}`;
  for (const a of legal) {
    switch (a.type) {
      case 'look': moves.push(button(t('gofo.act.look'), 'look', () => ({}), { cls: 'secondary big' })); break;
      case 'open': moves.push(amountMove('open', 'open', (n) => t('gofo.open_amount', { n }))); break;
      case 'enter':
        moves.push(button(`${a.blind ? t('gofo.act.enter_blind') : t('gofo.act.enter')} (+${hand.opening})`, 'enter', () => ({ blind: a.blind }), { data: { blind: a.blind } }));
        break;
      case 'decline': moves.push(button(t('gofo.act.decline'), 'decline', () => ({}), { cls: 'secondary big' })); break;
      case 'raise': moves.push(amountMove('raise', 'raise', raiseText)); break;
      case 'corta': moves.push(amountMove('corta', 'corta', raiseText)); break;
      case 'refiche': moves.push(amountMove('refiche', 'refiche', raiseText)); break;
      case 'pass': moves.push(button(t('gofo.act.pass'), 'pass', () => ({}), { cls: 'secondary big' })); break;
      case 'voy': moves.push(button(t('gofo.act.voy'), 'voy', () => ({}), { cls: 'secondary big' })); break;
      case 'ver': {
        const owe = Math.min(L - mine, hand.resto[seat]);
        moves.push(button(`${t('gofo.act.ver')} (+${owe})`, 'ver', () => ({})));
        break;
      }
      case 'no_ver': moves.push(button(t('gofo.act.no_ver'), 'no-ver', () => ({}), { cls: 'danger big' })); break;
      case 'muck': moves.push(button(t('gofo.act.muck'), 'muck', () => ({}), { cls: 'danger big' })); break;
      case 'reshuffle': moves.push(button(t('gofo.act.reshuffle'), 'reshuffle', () => ({}), { cls: 'secondary big' })); break;
      case 'discard':
        if (!tabletop && a.cards) {
          const picked = (ui.discard || []).filter((c) => a.cards.includes(c));
          moves.push(h('div', { class: 'move', data: { move: 'discard' } },
            h('p', {}, t('gofo.discard_pick', { min: a.min, max: a.max })),
            h('div', { class: 'cards' }, a.cards.map((code) => h('button', {
              type: 'button', class: `card-button suit-${parseCard(code).suit}`, 'aria-pressed': picked.includes(code) ? 'true' : 'false', data: { throw: code },
              on: { click: () => { ui.discard = picked.includes(code) ? picked.filter((c) => c !== code) : [...picked, code]; ui.render(); } },
            }, cardEl(code)))),
            button(picked.length ? t('gofo.discard_n', { n: picked.length }) : t('gofo.discard_none'), 'discard', () => ({ cards: picked }),
              { disabled: picked.length < a.min || picked.length > a.max })));
        } else {
          const counts = [];
          for (let n = a.min; n <= a.max; n++) counts.push(n);
          moves.push(h('div', { class: 'move', data: { move: 'discard' } },
            h('p', {}, t('gofo.discard_count')),
            h('div', { class: 'picker' }, counts.map((n) => h('button', {
              type: 'button', class: 'secondary', data: { action: 'discard', count: n }, disabled: ui.busy,
              on: { click: () => send('discard', { count: n }) },
            }, n === 0 ? t('gofo.discard_none') : t('gofo.discard_n', { n }))))));
        }
        break;
      case 'declare': {
        const points = [];
        for (let n = a.min; n <= a.max; n++) points.push(n);
        const chosen = ui.declare;
        moves.push(h('div', { class: 'move', data: { move: 'declare' } },
          h('p', {}, t('gofo.points')),
          h('div', { class: 'picker points' }, points.map((n) => h('button', {
            type: 'button', 'aria-pressed': chosen === n ? 'true' : 'false', data: { points: n },
            on: { click: () => { ui.declare = n; ui.render(); } },
          }, String(n)))),
          button(chosen ? `${t('gofo.act.declare')} ${chosen}` : t('gofo.act.declare'), 'declare', () => ({ points: ui.declare }), { disabled: !chosen })));
        break;
      }
      case 'show': {
        if (!tabletop) {
          moves.push(button(t('gofo.act.show'), 'show', () => ({})));
          break;
        }
        const picked = ui.show || [];
        const known = new Set(hand.discards.flatMap((d) => d.cards || []).concat(hand.kept.flat()));
        moves.push(h('div', { class: 'move', data: { move: 'show' } },
          h('p', {}, t('gofo.pick_five', { n: picked.length })),
          cardPicker(picked, 5, (next) => { ui.show = next; ui.render(); }, { disabled: known, id: 'show-picker' }),
          picked.length ? h('p', { class: 'big-text', id: 'show-value' }, t('gofo.value', { n: handValue(picked) })) : null,
          button(t('gofo.act.show'), 'show', () => ({ cards: ui.show }), { disabled: picked.length !== 5 })));
        break;
      }
      default: break;
    }
  }
  return h('section', { class: 'panel action', id: 'actions', data: { seat } }, h('h2', {}, title), h('div', { class: 'moves' }, moves));
}

/** A turn deadline that has passed: anyone at the table may move the late seat (its silent move). */
let deadlineTimer = null;

function deadlineButton(id, view, token, apply, rerender) {
  const at = view.hand && view.hand.turn_deadline_at;
  clearTimeout(deadlineTimer);
  if (!at) return null;
  const wait = at * 1000 - Date.now();
  if (wait > 0) {
    const page = document.body.dataset.page;
    const hash = location.hash;
    // Show the button when the time runs out (no new version comes then), if this page is still open.
    deadlineTimer = setTimeout(() => { if (document.body.dataset.page === page && location.hash === hash) rerender(); }, wait + 250);
    return null;
  }
  return h('button', {
    type: 'button', class: 'secondary big', id: 'enforce',
    on: { click: async () => { try { apply((await call('POST', `${path(id)}/deadline`, { token, body: {} })).data); } catch (error) { fail(error); } } },
  }, t('gofo.enforce', { seat: seatName(view.hand.to_act) }));
}

function myCardsPanel(hand, seat) {
  if (!hand || !hand.my_cards) return null;
  const hidden = Math.max(0, (hand.card_counts ? hand.card_counts[seat] : 0) - hand.my_cards.length);
  return h('section', { class: 'panel', id: 'my-cards' },
    h('h2', {}, t('gofo.your_cards')),
    h('div', { class: 'cards' },
      hand.my_cards.map((code) => cardEl(code, { data: { mycard: code } })),
      Array.from({ length: hidden }, () => cardEl(null))),
    hidden && !hand.looked[seat] ? h('p', {}, t('gofo.not_looked')) : null,
    hand.my_value != null ? h('p', { class: 'big-text', id: 'my-value' }, t('gofo.value', { n: hand.my_value })) : null);
}

// ------------------------------------------------------------------ a seat's page

export function seatPage(root, params) {
  const id = params.get('gofo');
  const seat = Number(params.get('seat'));
  const token = params.get('t');
  let view = null;
  const ui = { busy: false, render: () => render() };

  const apply = (next) => {
    if (!next || (view && next.version < view.version)) return;
    if (view && view.hand && next.hand && view.hand.hand_id !== next.hand.hand_id) { ui.discard = []; ui.show = []; }
    view = next;
    render();
  };

  async function send(move, body) {
    ui.busy = true;
    render();
    try {
      const r = await call('POST', `${path(id)}/seats/${seat}/${move}`, { token, body });
      ui.busy = false;
      for (const key of Object.keys(ui)) if (key.startsWith('amount:')) delete ui[key];
      ui.discard = [];
      ui.declare = undefined;
      apply(r.data);
      render(); // the answer may be older than a view the stream already brought
    } catch (error) {
      ui.busy = false;
      render();
      fail(error);
    }
  }

  function render() {
    if (!view) return;
    const hand = view.hand;
    const tabletop = view.table.options.mode === 'tabletop';
    document.body.dataset.toAct = hand && hand.to_act != null ? String(hand.to_act) : '';
    document.body.dataset.hand = String(view.table.hand_number);
    document.body.dataset.version = String(view.version);
    mount(root,
      h('h1', {}, t('gofo.title_seat', { seat: seatName(seat) })),
      handHeader(view),
      hand && hand.to_act === seat ? h('p', { class: 'warning', id: 'your-turn' }, t('gofo.your_turn')) : null,
      myCardsPanel(hand, seat),
      hand ? actionsPanel(hand, seat, send, ui, { tabletop, title: t('gofo.actions') }) : null,
      hand && hand.to_act !== seat ? deadlineButton(id, view, token, apply, render) : null,
      potsPanel(hand),
      seatsTable(view, seat),
      lastHandPanel(view),
      ledgerPanel(id, view));
  }

  mount(root, h('p', { class: 'muted' }, t('loading')));
  call('GET', `${path(id)}/seats/${seat}`, { token }).then((r) => apply(r.data)).catch(fail);
  return watch({ viewPath: `${path(id)}/seats/${seat}`, eventsPath: `${path(id)}/events`, token, onView: apply, onError: fail, onMode: liveBadge });
}

// ------------------------------------------------------------------ the host's page

export function hostPage(root, params) {
  const id = params.get('gofo');
  const token = params.get('host');
  const saved = savedGame('gofo', id);
  let view = null;
  let actor = null; // tabletop: the seat view of the seat to act (its legal actions)
  const ui = { busy: false, render: () => render() };
  let asked = 0;

  const apply = (next) => {
    if (!next || (view && next.version < view.version)) return;
    if (view && view.hand && next.hand && view.hand.hand_id !== next.hand.hand_id) { ui.show = []; }
    view = next;
    render();
    if (view.table.options.mode === 'tabletop') loadActor();
  };

  // The move's answer is the mover's view; whose turn is next, with what legal actions, takes a
  // second request (an API gap: issue 11 item 3).
  async function loadActor() {
    const hand = view && view.hand;
    if (!hand || hand.to_act == null) { actor = null; render(); return; }
    const ticket = ++asked;
    try {
      const r = await call('GET', `${path(id)}/seats/${hand.to_act}`, { token });
      if (ticket !== asked) return;
      actor = r.data;
      render();
    } catch (error) {
      fail(error);
    }
  }

  async function send(move, body) {
    if (!actor) return;
    const seat = actor.hand.seat;
    ui.busy = true;
    render();
    try {
      const r = await call('POST', `${path(id)}/seats/${seat}/${move}`, { token, body });
      ui.busy = false;
      for (const key of Object.keys(ui)) if (key.startsWith('amount:')) delete ui[key];
      ui.declare = undefined;
      if (move === 'show') ui.show = [];
      actor = null;
      const before = view && view.version;
      apply(r.data);
      render(); // the answer may be older than a view the stream already brought
      if (view && view.version === before) loadActor(); // then nothing asked for the next seat's moves
    } catch (error) {
      ui.busy = false;
      render();
      fail(error);
    }
  }

  function links() {
    if (!saved || !saved.seats) return h('p', { class: 'muted' }, t('host.no_links'));
    const base = joinBase();
    return h('details', { class: 'panel', id: 'links', open: !view || view.table.hand_number === 1 },
      h('summary', {}, t('host.join_links')),
      isLoopback(base) ? h('p', { class: 'warning', id: 'loopback' }, t('host.loopback', { base })) : null,
      h('p', { class: 'hint' }, t('host.links_hint')),
      joinLinks('gofo', id, saved.seats).map(({ seat, url }) => h('div', { class: 'join', data: { seat } },
        h('h3', {}, seatName(seat)),
        qrSvg(url, t('host.qr_for', { seat: seatName(seat) })),
        h('input', { type: 'text', readonly: true, value: url, class: 'link', 'aria-label': t('host.link_for', { seat: seatName(seat) }), on: { focus: (e) => e.target.select() } }),
        h('a', { class: 'button secondary', href: url, target: '_blank', rel: 'noopener noreferrer' }, t('host.open_here')))));
  }

  function render() {
    const tabletop = view ? view.table.options.mode === 'tabletop' : saved && saved.mode === 'tabletop';
    const hand = view && view.hand;
    document.body.dataset.toAct = hand && hand.to_act != null ? String(hand.to_act) : '';
    document.body.dataset.hand = view ? String(view.table.hand_number) : '';
    document.body.dataset.version = view ? String(view.version) : '';
    const acting = tabletop && actor && hand && actor.hand && actor.hand.seat === hand.to_act && actor.version === view.version;
    document.body.dataset.acting = acting ? String(actor.hand.seat) : '';
    mount(root,
      h('h1', {}, t('host.title_gofo')),
      h('p', { class: 'crumbs' }, t('host.table_id', { id })),
      tabletop ? h('p', { class: 'hint' }, t('host.run_table')) : links(),
      view ? [
        handHeader(view),
        acting ? actionsPanel(actor.hand, actor.hand.seat, send, ui, { tabletop: true, title: t('gofo.actions_for', { seat: seatName(actor.hand.seat) }) }) : null,
        deadlineButton(id, view, token, apply, render),
        potsPanel(hand),
        seatsTable(view, -1),
        lastHandPanel(view),
        ledgerPanel(id, view),
      ] : h('p', { class: 'muted' }, t('loading')));
  }

  render();
  call('GET', path(id), { token }).then((r) => apply(r.data)).catch(fail);
  return watch({ viewPath: path(id), eventsPath: `${path(id)}/events`, token, onView: apply, onError: fail, onMode: liveBadge });
}
