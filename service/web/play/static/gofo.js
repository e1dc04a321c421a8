// Gofo at the table: dealt tables (each phone sees only its own cards) and tabletop tables (one
// host phone runs a table played with real cards).
import { call, watch } from './api.js';
import { t, lang } from './i18n.js';
import { h, mount, fail, settledToast, freshTap, field, select, number, joinLinks, saveGame, saveSeat, savedGame, seatName, joinBase, isLoopback, remembered, describedField, playAsFirstSeat, backToLinks } from './ui.js';
import { turnNotice } from './turn.js';
import { gofoStory } from './story.js';
import { sha256hex } from './sha256.js';
import { showSeats } from './seats.js';
import { namesField, ownName } from './names.js';
import { gofoBotsField } from './bots.js';
import { gofoHints } from './hints.js';
import { qrSvg } from './qr.js';
import { liveBadge, loopbackWarning } from './gops.js';
import { tableAgain } from './again.js';
import { shareWatch } from './watch.js';

export const path = (id) => `/v1/gofo/tables/${encodeURIComponent(id)}`;
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

/** A face-up card (`data-code` names it, so a test can list every card a screen shows), or a card back. */
function cardEl(code, extra = {}) {
  if (code == null) return h('span', { class: 'card back small' }, '?');
  const { rank, suit } = parseCard(code);
  return h('span', { class: `card small suit-${suit}`, title: `${rank} ${suitName(suit)}`, ...extra, data: { code, ...(extra.data || {}) } },
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
          on: { click: () => { if (freshTap(`pick:${code}`)) onChange(on ? selected.filter((c) => c !== code) : [...selected, code]); } },
        }, String(rank));
      })))));
}

// ------------------------------------------------------------------ taps under a finger

// A double tap must not play for the next seat: at the tabletop host's phone the next seat's move
// is drawn where the finger still is. A button that sends a move takes no tap until HOLD_MS after
// the page drew a new version or got a move's answer; it is drawn enabled-looking meanwhile
// (`data-held`) and enabled in place afterwards, not redrawn (a redraw under a finger can swallow
// a tap).
const HOLD_MS = 300;
const hold = { until: 0, timer: null, drawn: null };

function settle() {
  hold.until = performance.now() + HOLD_MS;
  clearTimeout(hold.timer);
  hold.timer = setTimeout(() => {
    for (const el of document.querySelectorAll('#app [data-held]')) {
      delete el.dataset.held;
      el.disabled = false;
    }
  }, HOLD_MS);
}

/** Called by each render with what it draws (a version, the seat acting): something new holds the move buttons. */
function settleOn(drawn) {
  if (drawn !== hold.drawn) {
    hold.drawn = drawn;
    settle();
  }
}

/** A button that sends a move: disabled while a move is on its way, held just after. */
function moveState(ui, disabled = false) {
  const held = !ui.busy && !disabled && performance.now() < hold.until;
  return { disabled: ui.busy || disabled || held, held: held ? 'yes' : null };
}

// ------------------------------------------------------------------ create

export function createPage(root) {
  const names = namesField('seats', 6);
  const bots = gofoBotsField('seats', 'mode');
  const form = h('form', { class: 'stack', id: 'gofo-create', novalidate: true },
    h('h1', {}, t('gofo.new')),
    describedField(t('gofo.mode'), select('mode', [['dealt', t('gofo.mode.dealt')], ['tabletop', t('gofo.mode.tabletop')]], 'dealt'),
      { dealt: t('gofo.mode_hint.dealt'), tabletop: t('gofo.mode_hint.tabletop') }),
    field(t('gofo.seats'), number('seats', 5, 2, 6)),
    bots.element,
    names.element,
    field(t('gofo.caja'), number('caja', 100, 1, 1000000)),
    field(t('gofo.refill'), number('refill', 10, 1, 1000000)),
    field(t('gofo.initial_front'), number('initial_front', 30, 1, 1000000)),
    // A new caja's first front: the rule book lets its player choose 2× or 3× the refill
    // ("inauguración de caja"), so a table opened here asks him; "fixed" is for tables that agree one amount.
    describedField(t('gofo.inauguration'), select('inauguration', [['chosen', t('gofo.inauguration.chosen')], ['fixed', t('gofo.inauguration.fixed')]], 'chosen'),
      { chosen: t('gofo.inauguration_hint.chosen'), fixed: t('gofo.inauguration_hint.fixed') }),
    h('details', { class: 'more' },
      h('summary', {}, t('more_options')),
      field(t('gofo.inauguration_front'), number('inauguration_front', null, 1, 1000000, t('gofo.same_as_initial')), t('gofo.inauguration_front_hint')),
      field(t('gofo.turn_seconds'), number('turn_seconds', null, 5, 86400, t('none')))),
    h('button', { type: 'submit', class: 'primary big', id: 'gofo-create-go' }, t('gofo.create')));
  names.bind(form);
  bots.bind(form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const int = (name) => Number(form.elements[name].value);
    const body = { mode: form.elements.mode.value, seats: int('seats'), caja: int('caja'), refill: int('refill') };
    if (form.elements.initial_front.value) body.initial_front = int('initial_front');
    if (form.elements.inauguration.value === 'chosen') body.inauguration = 'chosen';
    if (form.elements.inauguration_front.value) body.inauguration_front = int('inauguration_front');
    if (form.elements.turn_seconds.value) body.turn_seconds = int('turn_seconds');
    if (names.names()) body.names = names.names();
    if (bots.bots()) body.bots = bots.bots();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const r = await call('POST', '/v1/gofo/tables', { body });
      saveGame('gofo', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, mode: body.mode });
      const people = r.data.seat_tokens.flatMap((token, seat) => (token ? [seat] : []));
      location.hash = people.length === 1 && body.bots // one player among the referee's bots: straight to that seat
        ? `gofo=${encodeURIComponent(r.data.id)}&seat=${people[0]}&t=${encodeURIComponent(r.data.seat_tokens[people[0]])}`
        : `gofo=${encodeURIComponent(r.data.id)}&host=${encodeURIComponent(r.data.host_token)}`;
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

/** The seats still to choose the first front of a new caja (a table with inauguration chosen, between hands). */
function pendingInaugurations(view) {
  return (view && view.table && view.table.inaugurations_pending) || [];
}

/** The seat to act: the hand's, or between hands the first seat still to inaugurate a new caja. */
function toAct(view) {
  if (view.hand) return view.hand.to_act;
  const pending = pendingInaugurations(view);
  return pending.length ? pending[0] : null;
}

export function handHeader(view) {
  const hand = view.hand;
  const pending = pendingInaugurations(view);
  if (!hand && pending.length) {
    return h('div', {},
      h('p', { class: 'crumbs', id: 'where' }, t('gofo.hand_n', { n: view.table.hand_number }), ' · ', t('gofo.inauguration_title')),
      h('p', { class: 'big-text', id: 'to-act', data: { seat: pending[0] } }, t('gofo.to_act', { who: pending.map(seatName).join(', ') })));
  }
  if (!hand) return h('p', { class: 'crumbs' }, t('loading'));
  return h('div', {},
    h('p', { class: 'crumbs', id: 'where' }, t('gofo.hand_n', { n: view.table.hand_number }), ' · ',
      t('gofo.phase', { phase: t(`gofo.phase.${hand.phase}`) })),
    hand.to_act == null ? null : h('p', { class: 'big-text', id: 'to-act', data: { seat: hand.to_act } }, t('gofo.to_act', { who: seatName(hand.to_act) })));
}

export function seatsTable(view, me) {
  const hand = view.hand;
  const rows = view.table.seats.map((s) => {
    const seat = s.seat;
    const marks = [];
    if (hand && hand.dealer === seat) marks.push(t('gofo.dealer'));
    if (hand && hand.mano === seat) marks.push(t('gofo.mano'));
    return h('tr', { class: `${seat === me ? 'me' : ''} ${hand && hand.to_act === seat ? 'to-act' : ''}`, data: { seat } },
      h('th', { scope: 'row' }, seatName(seat), seat === me ? ` (${t('you')})` : '', marks.length ? h('div', { class: 'small' }, marks.join(', ')) : null),
      h('td', { class: 'num resto' }, String(hand ? hand.resto[seat] : s.front)),
      h('td', { class: 'num committed' }, String(hand ? hand.committed[seat] : 0)),
      h('td', { class: 'status', data: { status: hand ? hand.status[seat] : null } }, hand ? t(`gofo.status.${hand.status[seat]}`) : ''),
      h('td', { class: 'num cards-held' }, hand && hand.card_counts ? String(hand.card_counts[seat]) : ''));
  });
  return h('section', { class: 'panel' },
    h('table', { class: 'scores', id: 'seats' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, t('gofo.resto')), h('th', { class: 'num' }, t('gofo.in_hand')), h('th', {}, t('gofo.status')), h('th', { class: 'num' }, t('gofo.cards_held')))),
      h('tbody', {}, rows)));
}

/**
 * For each pot, the one seat whose chips alone make it (an uncalled bet: nobody else put a chip in
 * it), else null. `put[s]`: what seat s put in this hand. A pot's chips lie between the level its
 * eligible seats all reached and the previous pot's (side pots are cut at the live seats' levels).
 */
export function soleBettors(pots, put) {
  let below = 0;
  return pots.map((pot) => {
    if (!pot.eligible.length) return null;
    const top = Math.min(...pot.eligible.map((s) => put[s]));
    const payers = put.map((c, s) => (c > below ? s : null)).filter((s) => s != null);
    below = top;
    return payers.length === 1 && pot.eligible.length === 1 && payers[0] === pot.eligible[0] ? payers[0] : null;
  });
}

export function potsPanel(hand) {
  if (!hand) return null;
  const sole = soleBettors(hand.pots, hand.committed);
  const pots = hand.pots.map((pot, i) => h('li', { data: { pot: i, amount: pot.amount, uncalled: sole[i] == null ? null : 'yes' } },
    sole[i] == null
      ? t('gofo.pot', { n: i + 1, amount: pot.amount, who: pot.eligible.map(seatName).join(', ') })
      : t('gofo.pot_uncalled', { amount: pot.amount, who: seatName(sole[i]) })));
  const bet = hand.bet
    ? h('p', { class: 'big-text', id: 'bet', data: { level: hand.bet.level } }, t('gofo.bet', { level: hand.bet.level }))
    : h('p', { id: 'bet' }, t('gofo.no_bet'));
  const discards = hand.discards.length ? h('div', { id: 'discards' },
    h('h3', {}, t('gofo.discards')),
    h('ul', {}, hand.discards.map((d) => h('li', {}, t('gofo.discard_record', { seat: seatName(d.seat), count: d.count }), ' ',
      (d.cards || []).map((c) => cardEl(c)))))) : null;
  return h('section', { class: 'panel', id: 'pots' }, h('h2', {}, t('gofo.pots')), pots.length ? h('ul', {}, pots) : null, bet, discards);
}

/**
 * The fronts a new caja may open with: the seat's legal action when this phone was given it, else
 * the table's `inauguration_fronts` (2× and 3× the refill, each at most the caja).
 */
function inaugurationFronts(view, legal) {
  const a = (legal || []).find((x) => x.type === 'inaugurate');
  if (a && Array.isArray(a.fronts)) return a.fronts;
  if (Array.isArray(view.table.inauguration_fronts)) return view.table.inauguration_fronts;
  const { refill, caja } = view.table.options;
  return [...new Set([Math.min(2 * refill, caja), Math.min(3 * refill, caja)])].sort((x, y) => x - y);
}

function frontLabel(front, { refill }) {
  const times = front === 2 * refill ? 2 : front === 3 * refill ? 3 : null;
  return times ? t('gofo.inaugurate_times', { times, n: front }) : t('gofo.inaugurate_caja', { n: front });
}

/**
 * Between hands: the seats that took a new caja choose its first front (inauguración de caja).
 * `movable`: the seats this phone moves for (its own; every seat at the tabletop host's), each with
 * a button per front; the others are waited for.
 */
function inaugurationPanel(view, movable, send, ui, legalFor = () => null) {
  const pending = pendingInaugurations(view);
  if (!pending.length) return null;
  const opts = view.table.options;
  return h('section', { class: 'panel action', id: 'inauguration' },
    h('h2', {}, t('gofo.inauguration_title')),
    h('p', { class: 'hint' }, t('gofo.inauguration_hint', { refill: opts.refill, caja: opts.caja })),
    pending.map((seat) => (movable.includes(seat)
      ? h('div', { class: 'move', data: { move: 'inaugurate', seat } },
        h('h3', {}, t('gofo.inaugurate_for', { seat: seatName(seat) })),
        h('div', { class: 'fronts' }, inaugurationFronts(view, legalFor(seat)).map((front) => h('button', {
          type: 'button', class: 'primary big', data: { action: 'inaugurate', seat, front, held: moveState(ui).held }, disabled: moveState(ui).disabled,
          on: { click: () => send('inaugurate', { front }, seat) },
        }, frontLabel(front, opts)))))
      : h('p', { class: 'big-text', data: { waiting: seat } }, t('gofo.inauguration_waiting', { seat: seatName(seat) })))));
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

// ------------------------------------------------------------------ fairness after a hand

const DECK_SEEN = 'referee:gofo-deck:';

/** Keep the first deck commitment this phone saw for a hand, to hold the referee to it afterwards. */
function rememberDeck(view) {
  const hand = view && view.hand;
  if (!hand || !hand.hand_id || !hand.deck_commitment) return;
  try {
    if (!localStorage.getItem(DECK_SEEN + hand.hand_id)) localStorage.setItem(DECK_SEEN + hand.hand_id, hand.deck_commitment);
  } catch { /* storage off: the other checks still run */ }
}

function seenDeck(handId) {
  try { return localStorage.getItem(DECK_SEEN + handId); } catch { return null; }
}

/**
 * The first-dealer draw: every round's draw deck and salt (opened in the transcript's
 * `dealer_draw` entries) hash to the commitment the table published, and the cards drawn are the
 * top of that deck, in order.
 */
export function verifyDraws(tableId, transcript, published = []) {
  const draws = transcript.entries.filter((e) => e.action && e.action.type === 'dealer_draw');
  for (const entry of draws) {
    const d = entry.draw || {};
    const order = Array.isArray(d.order) ? d.order : [];
    const digest = sha256hex(`gofo-draw-v1|${tableId}|${d.round}|${order.join(',')}|${d.salt}`);
    const listed = published.find((p) => p.round === d.round);
    if (digest !== d.commitment || (listed && listed.commitment !== d.commitment)) {
      return { ok: false, problem: t('verify.draw_mismatch', { round: d.round }) };
    }
    if ((entry.action.cards || []).some((card, i) => order[i] !== card)) {
      return { ok: false, problem: t('verify.draw_cards', { round: d.round }) };
    }
  }
  const opened = new Set(draws.map((e) => e.draw && e.draw.round));
  const unopened = published.find((p) => !opened.has(p.round));
  if (unopened) return { ok: false, problem: t('verify.draw_mismatch', { round: unopened.round }) };
  return { ok: true, n: draws.length };
}

/**
 * Everything a finished hand lets a phone re-check: the deck commitment is the one this phone saw
 * during the hand (`seen`), the deck opens every public card (dealt mode), and the first-dealer
 * draw matches its commitment. The first thing that does not match, or what was checked.
 */
export async function verifyHand({ tableId, deal, transcript, published, seen }) {
  let cards = null;
  if (deal) {
    if (seen && seen !== deal.commitment) return { ok: false, problem: t('verify.published_changed', { hand: deal.hand }) };
    const outcome = await verifyDeal(deal);
    if (!outcome.ok) return outcome;
    cards = outcome.n;
  }
  const draws = transcript ? verifyDraws(tableId, transcript, published) : { ok: true, n: 0 };
  if (!draws.ok) return draws;
  return { ok: true, cards, draws: draws.n };
}

const fairness = new Map(); // `${table}:${hand}` -> Promise<{outcome, transcript}>, fetched once

function checkHand(view) {
  const result = view.table.last_result;
  const key = `${view.id}:${result.hand}`;
  if (!fairness.has(key)) {
    const deal = view.table.last_deal;
    fairness.set(key, call('GET', `${path(view.id)}/transcript`)
      .then((r) => r.data, () => null)
      .then(async (transcript) => ({
        transcript,
        outcome: await verifyHand({ tableId: view.id, deal, transcript, published: view.table.draw_commitments || [], seen: deal && seenDeck(deal.hand_id) }),
      })));
  }
  return fairness.get(key);
}

export function describeEntry(entry) {
  const a = entry.action || {};
  const who = entry.seat != null ? seatName(entry.seat) : entry.by === 'referee' ? t('gofo.tx.referee') : t('gofo.tx.host');
  let what;
  let cards = null;
  switch (a.type) {
    case 'shuffle': what = t('gofo.tx.shuffle'); break;
    case 'create': what = t('gofo.tx.create'); break;
    case 'reshuffle': what = t('gofo.tx.reshuffle'); break;
    case 'dealer_draw': what = t('gofo.tx.dealer_draw', { cards: '' }); cards = a.cards; break;
    case 'open': what = `${t('gofo.act.open')} ${a.amount}`; break;
    case 'enter': what = a.blind ? t('gofo.tx.enter_blind') : t('gofo.act.enter'); break;
    case 'raise': case 'corta': case 'refiche': what = `${t(`gofo.act.${a.type}`)} +${a.amount}`; break;
    case 'discard': {
      const n = a.count != null ? a.count : (a.cards || []).length;
      what = n ? t('gofo.discard_n', { n }) : t('gofo.discard_none');
      cards = a.cards && a.cards.length ? a.cards : null;
      break;
    }
    case 'declare': what = `${t('gofo.act.declare')} ${a.points}`; break;
    case 'show': what = t('gofo.act.show'); cards = a.cards; break;
    case 'inaugurate': what = t('gofo.tx.inaugurate', { n: a.front }); break;
    default: what = t(`gofo.act.${a.type}`, {}, a.type);
  }
  return h('li', { data: { version: entry.version, type: a.type } },
    t('gofo.tx.line', { who, what }), entry.timeout ? ` ${t('gofo.tx.timeout')}` : '',
    cards ? h('span', { class: 'tx-cards' }, cards.map((c) => cardEl(c))) : null);
}

const BETWEEN_DISCARDS = new Set(['voy', 'corta', 'ver', 'no_ver', 'pass', 'refiche', 'raise', 'look']);
const CANTO = new Set(['declare', 'show', 'muck']);

/** The hand's transcript, round by round: the opening and entering, then each round of speaking and its discard. */
function handTranscript(transcript, hand, open) {
  const entries = transcript.entries.filter((e) => e.hand === hand || (hand === 1 && e.hand === 0));
  const groups = [{ title: t('gofo.tx.before'), items: [] }];
  let rounds = 0;
  let lastDiscard = false;
  for (const entry of entries) {
    const type = entry.action && entry.action.type;
    const speaking = type === 'voy' || type === 'corta';
    if (CANTO.has(type) && !groups[groups.length - 1].canto) {
      groups.push({ title: t('gofo.phase.canto'), items: [], canto: true });
    } else if ((speaking && rounds === 0) || (lastDiscard && BETWEEN_DISCARDS.has(type) && type !== 'look')) {
      rounds += 1;
      groups.push({ title: t('gofo.tx.round', { n: rounds }), items: [] });
    }
    if (type === 'discard') lastDiscard = true;
    else if (BETWEEN_DISCARDS.has(type)) lastDiscard = false;
    groups[groups.length - 1].items.push(describeEntry(entry));
  }
  return h('details', { class: 'transcript', id: 'hand-transcript', open: open.value, data: { hand },
    on: { toggle: (e) => { open.value = e.target.open; } } },
    h('summary', {}, t('gofo.transcript', { n: hand })),
    groups.filter((g) => g.items.length).map((g) => h('div', { class: 'tx-group' }, h('h3', {}, g.title), h('ol', { class: 'history' }, g.items))));
}

const transcriptOpen = { value: false };

/** A finished hand's result: each pot and who took it (or the uncalled bet returned), each seat's net, value and shown cards. */
export function handResult(result, potsId) {
  // What each seat put in: what it was paid less what it won. A pot only its bettor put chips in
  // (a bet nobody called) went back to him: it is not a pot won.
  const put = result.payouts ? result.payouts.map((paid, s) => paid - result.net[s]) : null;
  const returned = put ? soleBettors(result.pots, put) : result.pots.map(() => null);
  return [
    h('ul', { id: potsId }, result.pots.map((pot, i) => h('li', { data: { returned: returned[i] == null ? null : 'yes' } },
      returned[i] == null
        ? t('gofo.pot', { n: i + 1, amount: pot.amount, who: pot.winner == null ? '—' : seatName(pot.winner) })
        : t('gofo.pot_returned', { amount: pot.amount, who: seatName(returned[i]) })))),
    h('ul', { class: 'net' }, result.net.map((net, seat) => h('li', { data: { seat, net } },
      t('gofo.hand_result', { seat: seatName(seat), net: net > 0 ? `+${net}` : String(net) }),
      result.values && result.values[seat] != null ? ` · ${t('gofo.value', { n: result.values[seat] })}` : '',
      result.shown && result.shown[seat] ? h('div', {}, result.shown[seat].map((c) => cardEl(c))) : null))),
  ];
}

export function lastHandPanel(view) {
  const result = view.table.last_result;
  if (!result) return null;
  const slot = h('div', { id: 'deal-verdict' }, h('p', { class: 'muted' }, t('verify.checking')));
  const record = h('div', { id: 'hand-record' });
  checkHand(view).then(({ outcome, transcript }) => {
    const parts = [];
    if (outcome.ok && outcome.cards != null) parts.push(t('verify.deck_ok', { n: outcome.cards }));
    if (outcome.ok && outcome.draws) parts.push(t('verify.draw_ok', { n: outcome.draws }));
    mount(slot, outcome.ok
      ? (parts.length ? [h('p', { class: 'verdict ok', data: { verdict: 'verified' } }, '✔ ', t('verify.fair_deal')),
        h('details', { class: 'why', id: 'deal-how' }, h('summary', {}, t('verify.how')), h('p', {}, parts.join(' · ')))] : null)
      : h('p', { class: 'verdict bad', data: { verdict: 'mismatch' } }, '✘ ', outcome.problem));
    if (transcript && result.hand) mount(record, handTranscript(transcript, result.hand, transcriptOpen));
  });
  return h('section', { class: 'panel', id: 'last-hand', data: { hand: result.hand } },
    h('h2', {}, t('gofo.last_hand'), result.hand ? ` (${t('gofo.hand_n', { n: result.hand })})` : ''),
    handResult(result, 'last-pots'),
    slot,
    record);
}

// The ledger stays open or closed as the player left it, across redraws (reset for each page).
const ledgerOpen = { open: null };

export function ledgerPanel(id, view) {
  const slot = h('div', { id: 'ledger-hands' });
  const chart = h('div', { id: 'ledger-chart' });
  const show = async () => {
    try {
      const r = await call('GET', `${path(id)}/ledger`);
      mount(chart, gofoStory(r.data.results, view.table.seats.length));
      mount(slot, h('ol', {}, r.data.results.map((res) => h('li', {}, res.net.map((n, s) => `${seatName(s)} ${n > 0 ? '+' : ''}${n}`).join(' · ')))));
    } catch (error) {
      fail(error);
    }
  };
  return h('details', { class: 'panel', id: 'ledger', ...remembered(ledgerOpen, false, (e) => { if (e.target.open) show(); }) },
    h('summary', {}, t('gofo.ledger')),
    h('table', { class: 'scores' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, t('gofo.front')), h('th', { class: 'num' }, t('gofo.behind')),
        h('th', { class: 'num' }, t('gofo.cajas')), h('th', { class: 'num' }, t('gofo.balance')))),
      h('tbody', {}, view.table.seats.map((s) => h('tr', { data: { seat: s.seat } }, h('th', {}, seatName(s.seat)),
        h('td', { class: 'num' }, String(s.front)), h('td', { class: 'num' }, String(s.behind)),
        h('td', { class: 'num' }, String(s.cajas)), h('td', { class: 'num balance' }, String(s.balance)))))),
    chart,
    slot);
}

// ------------------------------------------------------------------ legal actions

/**
 * Tabletop: the cards known to be out of play, greyed in the pickers — the referee's `known_out`
 * (face-up discards still in the pile, cards kept to a player's right; a reported reshuffle puts
 * the pile back into the stock and clears it). A referee without it: every face-up card of the hand.
 */
function knownOut(hand) {
  if (Array.isArray(hand.known_out)) return new Set(hand.known_out);
  return new Set(hand.discards.flatMap((d) => d.cards || []).concat(hand.kept.flat()));
}

/**
 * The moves `hand.legal_actions` allows `seat`, each a button (amounts with their range, shown as
 * "+N" and as the level it raises the bet to). `send(move, body)` makes one. `ui` keeps choices
 * (cards picked, amounts) across re-renders.
 */
function actionsPanel(hand, seat, send, ui, { tabletop, title, id = 'actions' }) {
  const legal = hand.legal_actions || [];
  if (!legal.length) return null;
  const moves = [];
  const L = level(hand);
  const mine = hand.committed[seat];
  const button = (label, move, body, extra = {}) => {
    const state = moveState(ui, extra.disabled);
    return h('button', {
      type: 'button', class: extra.cls || 'primary big', data: { action: move, ...(extra.data || {}), held: state.held }, disabled: state.disabled,
      on: { click: () => { const sent = body(); if (sent) send(move, sent); } },
    }, label);
  };
  // An amount is sent exactly as typed, or not at all: out of its range (or not a whole number) it is
  // refused here, in words, and nothing is bet. The − and + buttons keep it within the range.
  const amountMove = (type, move, describe, levelled = false) => {
    const a = legal.find((x) => x.type === type);
    const key = `amount:${type}`;
    const whole = (text) => (/^\d+$/.test(String(text).trim()) ? Number(String(text).trim()) : NaN);
    const allowed = (n) => Number.isInteger(n) && n >= a.min && n <= a.max;
    const label = h('span', { class: 'amount-label', id: `amount-label-${type}` });
    const refused = h('p', { class: 'error', id: `amount-error-${type}`, role: 'alert' });
    const input = h('input', { type: 'number', id: `amount-${type}`, min: a.min, max: a.max, step: 1, value: ui[key] == null ? String(a.min) : String(ui[key]), inputmode: 'numeric' });
    /** The amount typed, if allowed (else null, and the page says why). */
    const check = () => {
      const n = whole(input.value);
      ui[key] = input.value;
      if (allowed(n)) {
        label.textContent = describe(n);
        label.hidden = false;
        refused.hidden = true;
        return n;
      }
      label.hidden = true;
      refused.textContent = input.value.trim()
        ? t('gofo.amount_refused', { typed: input.value.trim(), min: a.min, max: a.max })
        : t('gofo.amount_missing', { min: a.min, max: a.max });
      refused.hidden = false;
      return null;
    };
    const step = (by) => {
      const n = whole(input.value);
      input.value = String(Math.min(a.max, Math.max(a.min, Number.isNaN(n) ? a.min : n + by)));
      check();
    };
    input.addEventListener('input', check);
    input.addEventListener('change', check);
    check();
    return h('div', { class: 'move', data: { move: type } },
      h('div', { class: 'amount' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': '−', on: { click: () => step(-1) } }, '−'),
        input,
        h('button', { type: 'button', class: 'secondary', 'aria-label': '+', on: { click: () => step(1) } }, '+')),
      h('span', { class: 'hint', id: `range-${type}` }, levelled
        ? `${t('gofo.range', { min: `+${a.min}`, max: `+${a.max}` })} · ${t('gofo.range_to', { min: L + a.min, max: L + a.max })}`
        : t('gofo.range', { min: a.min, max: a.max })),
      label,
      refused,
      button(t(`gofo.act.${move.replace('-', '_')}`), move, () => {
        const n = check();
        if (n == null) { input.focus(); return null; }
        return { amount: n };
      }));
  };
  // Every move with what it does in a few words, under it (the game's own words, voy, corta, refiche, too).
  const explained = (el, type) => h('div', { class: 'explained', data: { explains: type } }, el,
    h('p', { class: 'hint', id: `explain-${type}` }, t(`gofo.explain.${type}`)));
  const raiseText = (n) => `${t('gofo.amount_plus', { n })} · ${t('gofo.amount_to', { to: L + n })}`;
  // At the canto the points pad, the move most made, comes first: above conceding and showing.
  const ordered = [...legal].sort((a, b) => Number(b.type === 'declare') - Number(a.type === 'declare'));
  for (const a of ordered) {
    const at = moves.length;
    switch (a.type) {
      case 'look': moves.push(button(t('gofo.act.look'), 'look', () => ({}), { cls: 'secondary big' })); break;
      case 'open': moves.push(amountMove('open', 'open', (n) => t('gofo.open_amount', { n }))); break;
      case 'enter':
        moves.push(button(`${a.blind ? t('gofo.act.enter_blind') : t('gofo.act.enter')} (+${hand.opening})`, 'enter', () => ({ blind: a.blind }), { data: { blind: a.blind } }));
        break;
      case 'decline': moves.push(button(t('gofo.act.decline'), 'decline', () => ({}), { cls: 'secondary big' })); break;
      case 'raise': moves.push(amountMove('raise', 'raise', raiseText, true)); break;
      // A corte with no bet in force is the first bet: its amount, not a raise of anything.
      case 'corta': moves.push(hand.bet ? amountMove('corta', 'corta', raiseText, true)
        : amountMove('corta', 'corta', (n) => t('gofo.corta_amount', { n }))); break;
      case 'refiche': moves.push(amountMove('refiche', 'refiche', raiseText, true)); break;
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
              on: { click: () => { if (!freshTap(`throw:${code}`)) return; ui.discard = picked.includes(code) ? picked.filter((c) => c !== code) : [...picked, code]; ui.render(); } },
            }, cardEl(code)))),
            button(picked.length ? t('gofo.discard_n', { n: picked.length }) : t('gofo.discard_none'), 'discard', () => ({ cards: picked }),
              { disabled: picked.length < a.min || picked.length > a.max })));
        } else {
          // Real cards: a count (nobody sees them), or the cards when they are thrown face up —
          // picked with the canto's card picker; cards already face up on the table are greyed.
          const counts = [];
          for (let n = a.min; n <= a.max; n++) counts.push(n);
          const faceUp = ui.faceUp || [];
          const known = knownOut(hand);
          moves.push(h('div', { class: 'move', data: { move: 'discard' } },
            h('p', {}, t('gofo.discard_count')),
            h('div', { class: 'picker' }, counts.map((n) => h('button', {
              type: 'button', class: 'secondary', data: { action: 'discard', count: n, held: moveState(ui).held }, disabled: moveState(ui).disabled,
              on: { click: () => send('discard', { count: n }) },
            }, n === 0 ? t('gofo.discard_none') : t('gofo.discard_n', { n })))),
            h('details', { id: 'discard-faceup', open: faceUp.length > 0 || ui.faceUpOpen,
              on: { toggle: (e) => { ui.faceUpOpen = e.target.open; } } },
              h('summary', {}, t('gofo.discard_faceup')),
              cardPicker(faceUp, a.max, (next) => { ui.faceUp = next; ui.render(); }, { disabled: known, id: 'discard-picker' }),
              button(t('gofo.discard_faceup_n', { n: faceUp.length }), 'discard', () => ({ cards: faceUp }),
                { data: { faceup: 'true' }, disabled: faceUp.length < Math.max(1, a.min) || faceUp.length > a.max }))));
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
        const known = knownOut(hand);
        // The referee takes only the cards worth what the seat declared: others are not offered.
        const declared = hand.canto && hand.canto.declared ? hand.canto.declared[seat] : null;
        const worth = picked.length === 5 ? handValue(picked) : null;
        const differs = worth != null && declared != null && worth !== declared;
        moves.push(h('div', { class: 'move', data: { move: 'show' } },
          h('p', {}, t('gofo.pick_five', { n: picked.length })),
          cardPicker(picked, 5, (next) => { ui.show = next; ui.render(); }, { disabled: known, id: 'show-picker' }),
          picked.length ? h('p', { class: 'big-text', id: 'show-value' }, t('gofo.value', { n: handValue(picked) })) : null,
          differs ? h('p', { class: 'error', id: 'show-differs' }, t('gofo.show_differs', { n: worth, declared })) : null,
          button(t('gofo.act.show'), 'show', () => ({ cards: ui.show }), { disabled: picked.length !== 5 || differs })));
        break;
      }
      default: break;
    }
    if (moves.length === at + 1) moves[at] = explained(moves[at], a.type === 'enter' && a.blind ? 'enter_blind' : a.type);
  }
  return h('section', { class: 'panel action', id, data: { seat } }, h('h2', {}, title), h('div', { class: 'moves' }, moves));
}

// The choices made for a move (amounts, cards picked, points) are taken when it is sent, not when
// its answer comes: by then the stream may have brought the next seat's moves (the host's phone),
// and what was picked for those must stay. A refused move gets its choices back.
const CHOICES = ['discard', 'faceUp', 'show', 'declare'];

function takeChoices(ui) {
  const taken = {};
  for (const key of Object.keys(ui)) {
    if (key.startsWith('amount:') || CHOICES.includes(key)) { taken[key] = ui[key]; delete ui[key]; }
  }
  ui.faceUpOpen = false;
  return taken;
}

function restoreChoices(ui, taken) {
  for (const [key, value] of Object.entries(taken)) {
    if (ui[key] == null || (Array.isArray(ui[key]) && !ui[key].length)) ui[key] = value;
  }
}

/** A turn deadline that has passed: anyone at the table may move the late seat (its silent move). */
let deadlineTimer = null;

function deadlineButton(id, view, token, apply, rerender) {
  const at = (view.hand && view.hand.turn_deadline_at) || view.table.inauguration_deadline_at;
  clearTimeout(deadlineTimer);
  if (!at || toAct(view) == null) return null;
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
    on: { click: async () => { try { apply((await call('POST', `${path(id)}/deadline`, { token, body: { version: view.version } })).data); } catch (error) { fail(error); } } },
  }, t('gofo.enforce', { seat: seatName(toAct(view)) }));
}

/** The answer of the move that ended a hand (its `hand_result`), shown until the next version. */
function handOverBanner(ended, view) {
  if (!ended || !view || ended.version !== view.version) return null;
  const result = ended.result;
  return h('p', { class: 'warning', id: 'hand-over', data: { hand: result.hand } },
    t('gofo.hand_over', { n: result.hand }), ' ',
    result.net.map((net, seat) => `${seatName(seat)} ${net > 0 ? `+${net}` : net}`).join(' · '));
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
  const seatPath = `${path(id)}/seats/${seat}`;
  if (token) saveSeat('gofo', id, seat, location.hash.slice(1));
  const myName = ownName('gofo', id, seat, token, (next) => apply(next));
  const hintPanel = gofoHints(id, seat, token, (code) => `${parseCard(code).rank} ${suitName(parseCard(code).suit)}`);
  let view = null;
  let ended = null; // {version, result}: the hand_result of the move that ended a hand
  const ui = { busy: false, render: () => render() };
  ledgerOpen.open = null;

  const apply = (next) => {
    // A version already shown is not drawn again: a redraw under a finger can swallow a tap.
    if (!next || (view && next.version <= view.version)) return;
    if (view && view.hand && next.hand && view.hand.hand_id !== next.hand.hand_id) { ui.discard = []; ui.show = []; ui.faceUp = []; }
    view = next;
    showSeats(view);
    rememberDeck(view);
    render();
  };

  async function send(move, body) {
    const version = view.version; // the version this screen showed: refused if the table moved on
    ui.busy = true;
    const taken = takeChoices(ui);
    render();
    try {
      const r = await call('POST', `${seatPath}/${move}`, { token, body: { ...body, version } });
      ui.busy = false;
      settle();
      settledToast();
      // The answer is this seat's view at the move's version (and the hand's result if it ended one).
      if (r.data && r.data.hand_result) ended = { version: r.data.version, result: r.data.hand_result };
      apply(r.data);
      render(); // the answer may be older than a view the stream already brought
    } catch (error) {
      ui.busy = false;
      settle();
      restoreChoices(ui, taken);
      render();
      fail(error);
    }
  }

  // An enforced deadline answers the public view (no cards of this seat): this seat's own view of
  // that version is asked for instead.
  const afterDeadline = () => call('GET', seatPath, { token }).then((r) => apply(r.data), fail);

  function render() {
    if (!view) return;
    const hand = view.hand;
    const tabletop = view.table.options.mode === 'tabletop';
    const turn = toAct(view);
    document.body.dataset.toAct = turn != null ? String(turn) : '';
    document.body.dataset.hand = String(view.table.hand_number);
    document.body.dataset.version = String(view.version);
    document.body.dataset.busy = ui.busy ? 'yes' : '';
    settleOn(view.version);
    turnNotice({ mine: turn === seat, playing: true, game: 'Gofo' });
    mount(root,
      h('h1', {}, t('gofo.title_seat', { seat: seatName(seat) })),
      myName.row(view, 'top'),
      handOverBanner(ended, view),
      handHeader(view),
      turn === seat ? h('p', { class: 'warning', id: 'your-turn' }, t('gofo.your_turn')) : null,
      inaugurationPanel(view, [seat], send, ui, () => (hand ? hand.legal_actions : null)),
      myCardsPanel(hand, seat),
      hand ? actionsPanel(hand, seat, send, ui, { tabletop, title: t('gofo.actions') }) : null,
      hintPanel.panel(view),
      turn !== seat ? deadlineButton(id, view, token, afterDeadline, render) : null,
      potsPanel(hand),
      seatsTable(view, seat),
      myName.row(view, 'bottom'),
      lastHandPanel(view),
      tableAgain(view),
      ledgerPanel(id, view),
      shareWatch('gofo', id),
      backToLinks('gofo', id));
  }

  mount(root, h('p', { class: 'muted' }, t('loading')));
  call('GET', seatPath, { token }).then((r) => apply(r.data)).catch(fail);
  const live = watch({ viewPath: seatPath, eventsPath: `${path(id)}/events`, token, onView: apply, onError: fail, onMode: liveBadge });
  return { stop: live.stop, redraw: render };
}

// ------------------------------------------------------------------ the host's page

// What the tabletop host may record for a seat that is not to act ('look' means nothing with real cards).
const OUT_OF_TURN = new Set(['muck', 'declare', 'reshuffle']);

// How long a tabletop host waits for a move's answer (which names the next seat's moves) after the
// stream brought that move's version, before it asks the referee for the seat's view itself.
const ANSWER_GRACE_MS = 2000;

export function hostPage(root, params) {
  const id = params.get('gofo');
  const token = params.get('host');
  const saved = savedGame('gofo', id);
  let view = null;
  // Tabletop: the seat to act with its legal actions ({version, hand}: that seat's hand). A move's
  // answer names them (`next`: the host may see them at a tabletop table), so the host's phone
  // draws the next turn from the answer alone; only a version no answer described (the first
  // load, a move another phone or the deadline made) takes that seat's view.
  let actor = null;
  let next = null; // the last answer's `next`, with its version
  let ended = null; // {version, result}: the hand_result of the move that ended a hand
  const ui = { busy: false, render: () => render() };
  let asked = 0;
  let actorFor = null; // the version whose seat to act is known or asked for (one request per version)
  let grace = null;
  ledgerOpen.open = null;
  // The links stay as the host left them; until then open while the first hand is on.
  const linksOpen = { open: null };
  const tabletop = () => (view ? view.table.options.mode === 'tabletop' : Boolean(saved && saved.mode === 'tabletop'));

  const apply = (incoming) => {
    // A version already shown is not drawn again: a redraw under a finger can swallow a tap.
    if (!incoming || (view && incoming.version <= view.version)) return false;
    if (view && view.hand && incoming.hand && view.hand.hand_id !== incoming.hand.hand_id) { ui.show = []; ui.faceUp = []; }
    if (!view && linksOpen.open == null) linksOpen.open = incoming.table.hand_number === 1;
    view = incoming;
    showSeats(view);
    rememberDeck(view);
    return true;
  };

  // A view from the stream, the poll or the first load.
  const onView = (incoming) => {
    if (!apply(incoming)) return;
    render();
    needActor();
  };

  // A move's or a deadline's answer: the view at its version, `next` (the seat to act and, at a
  // tabletop table, its legal actions) and `hand_result` (the hand it ended).
  function onAnswer(answer) {
    apply(answer);
    if (answer.hand_result) ended = { version: answer.version, result: answer.hand_result };
    const n = answer.next;
    if (n && view && answer.version === view.version) {
      asked += 1; // a seat view still on its way is not needed any more
      actorFor = view.version;
      next = { ...n, version: answer.version };
      actor = n.seat != null && Array.isArray(n.legal_actions) && answer.hand
        ? { version: answer.version, hand: { ...answer.hand, seat: n.seat, legal_actions: n.legal_actions } }
        : null;
    }
    render();
    needActor();
  }

  // Tabletop: the moves of the seat to act at a version no answer described. While a move of this
  // phone is on its way its answer will describe it (the stream often brings the version first), so
  // the seat's view is asked for only if that answer is late.
  function needActor() {
    clearTimeout(grace);
    if (!view || !tabletop()) return;
    const hand = view.hand;
    if (!hand || hand.to_act == null) { if (actor) { actor = null; render(); } return; }
    if (actorFor === view.version) return;
    if (ui.busy) {
      grace = setTimeout(() => { if (actorFor !== view.version) loadActor(); }, ANSWER_GRACE_MS);
      return;
    }
    loadActor();
  }

  async function loadActor() {
    const hand = view.hand;
    actorFor = view.version;
    const ticket = ++asked;
    try {
      const r = await call('GET', `${path(id)}/seats/${hand.to_act}`, { token });
      if (ticket !== asked) return;
      apply(r.data); // a tabletop seat's view holds nothing the host may not see
      if (r.data.version === view.version) actor = r.data;
      actorFor = r.data.version;
      render();
      needActor();
    } catch (error) {
      if (ticket === asked) actorFor = null;
      fail(error);
    }
  }

  // Tabletop, out of turn: a move of a seat that is not to act — a muck or a corrected declaration
  // at the canto, the dealer's report that the pile was reshuffled. The host picks the seat; its
  // legal actions are read then (a tap, not a move), and after each of its moves from the answer
  // (the mover's view).
  const aside = { seat: null, view: null, open: false, ui: { busy: false, render: () => render() } };

  async function pickAside(seat) {
    aside.seat = seat;
    aside.view = null;
    render();
    try {
      const r = await call('GET', `${path(id)}/seats/${seat}`, { token });
      if (aside.seat !== seat) return;
      aside.view = r.data;
      if (!apply(r.data)) render(); else { render(); needActor(); }
    } catch (error) {
      fail(error);
    }
  }

  async function sendAside(move, body) {
    const seat = aside.seat;
    const version = view.version; // the version this screen showed: refused if the table moved on
    ui.busy = true; // one move at a time: the seat to act's wait for this answer too
    aside.ui.busy = true;
    const taken = takeChoices(aside.ui);
    render();
    try {
      const r = await call('POST', `${path(id)}/seats/${seat}/${move}`, { token, body: { ...body, version } });
      ui.busy = false;
      aside.ui.busy = false;
      settle();
      settledToast();
      if (aside.seat === seat) aside.view = r.data;
      onAnswer(r.data);
    } catch (error) {
      ui.busy = false;
      aside.ui.busy = false;
      settle();
      restoreChoices(aside.ui, taken);
      render();
      needActor();
      fail(error);
    }
  }

  function asidePanel() {
    const hand = view && view.hand;
    if (!tabletop() || !hand || hand.phase === 'over') return null;
    const seat = aside.seat;
    const current = seat != null && aside.view && aside.view.version === view.version && aside.view.hand && aside.view.hand.seat === seat;
    const legal = current ? aside.view.hand.legal_actions.filter((a) => OUT_OF_TURN.has(a.type)) : [];
    let body = null;
    if (seat != null && seat !== hand.to_act) {
      if (!current) {
        body = aside.view
          ? h('button', { type: 'button', class: 'secondary big', id: 'aside-refresh', on: { click: () => pickAside(seat) } }, t('host.out_of_turn_again', { seat: seatName(seat) }))
          : h('p', { class: 'muted' }, t('loading'));
      } else if (legal.length) {
        body = actionsPanel({ ...aside.view.hand, legal_actions: legal }, seat, sendAside, aside.ui,
          { tabletop: true, title: t('gofo.actions_for', { seat: seatName(seat) }), id: 'aside-actions' });
      } else {
        body = h('p', { id: 'aside-none' }, t('host.out_of_turn_none', { seat: seatName(seat) }));
      }
    }
    return h('details', { class: 'panel', id: 'out-of-turn', open: aside.open, on: { toggle: (e) => { aside.open = e.target.open; } } },
      h('summary', {}, t('host.out_of_turn')),
      h('p', { class: 'hint' }, t('host.out_of_turn_hint')),
      h('div', { class: 'picker' }, view.table.seats.map((s) => h('button', {
        type: 'button', class: 'secondary', data: { aside: s.seat }, 'aria-pressed': seat === s.seat ? 'true' : 'false',
        disabled: s.seat === hand.to_act, on: { click: () => pickAside(s.seat) },
      }, seatName(s.seat)))),
      body);
  }

  async function send(move, body, seat = actor && actor.hand.seat) {
    if (seat == null) return;
    const version = view.version; // the version this screen showed: refused if the table moved on
    ui.busy = true;
    const taken = takeChoices(ui);
    render();
    try {
      const r = await call('POST', `${path(id)}/seats/${seat}/${move}`, { token, body: { ...body, version } });
      ui.busy = false;
      settle();
      settledToast();
      onAnswer(r.data); // the answer may be older than a view the stream already brought
    } catch (error) {
      ui.busy = false;
      settle();
      restoreChoices(ui, taken);
      render();
      needActor();
      fail(error);
    }
  }

  function links() {
    if (!saved || !saved.seats) return h('p', { class: 'muted' }, t('host.no_links'));
    const base = joinBase();
    const links = joinLinks('gofo', id, saved.seats);
    return h('details', { class: 'panel', id: 'links', ...remembered(linksOpen, true) },
      h('summary', {}, t('host.join_links')),
      isLoopback(base) ? loopbackWarning(base) : null,
      h('p', { class: 'seating', id: 'seating' }, t('host.seating_gofo')),
      playAsFirstSeat(links),
      h('p', { class: 'hint' }, t('host.links_hint')),
      links.map(({ seat, url }) => h('div', { class: 'join', data: { seat } },
        h('h3', {}, seatName(seat)),
        qrSvg(url, t('host.qr_for', { seat: seatName(seat) })),
        h('input', { type: 'text', readonly: true, value: url, class: 'link', 'aria-label': t('host.link_for', { seat: seatName(seat) }), on: { focus: (e) => e.target.select() } }),
        h('a', { class: 'button secondary', href: url, target: '_blank', rel: 'noopener noreferrer' }, t('host.open_here')))));
  }

  function render() {
    const table = tabletop();
    const hand = view && view.hand;
    const turn = view ? toAct(view) : null;
    document.body.dataset.toAct = turn != null ? String(turn) : '';
    document.body.dataset.hand = view ? String(view.table.hand_number) : '';
    document.body.dataset.version = view ? String(view.version) : '';
    document.body.dataset.busy = ui.busy ? 'yes' : '';
    const acting = table && actor && hand && actor.hand && actor.hand.seat === hand.to_act && actor.version === view.version;
    document.body.dataset.acting = acting ? String(actor.hand.seat) : '';
    if (view) settleOn(`${view.version}:${acting ? actor.hand.seat : ''}`);
    turnNotice({ mine: false, playing: Boolean(view), game: 'Gofo' });
    // Between hands at a tabletop table the host chooses for every seat that took a new caja.
    const legalFor = (seat) => (next && view && next.version === view.version && next.seat === seat ? next.legal_actions : null);
    mount(root,
      h('h1', {}, t('host.title_gofo')),
      h('p', { class: 'crumbs' }, t('host.table_id', { id })),
      table ? [h('p', { class: 'hint' }, t('host.run_table')), h('p', { class: 'hint', id: 'seating' }, t('host.seating_tabletop'))] : links(),
      view ? [
        handOverBanner(ended, view),
        handHeader(view),
        inaugurationPanel(view, table ? pendingInaugurations(view) : [], send, ui, legalFor),
        acting ? actionsPanel(actor.hand, actor.hand.seat, send, ui, { tabletop: true, title: t('gofo.actions_for', { seat: seatName(actor.hand.seat) }) }) : null,
        asidePanel(),
        deadlineButton(id, view, token, onAnswer, render),
        potsPanel(hand),
        seatsTable(view, -1),
        lastHandPanel(view),
        tableAgain(view),
        ledgerPanel(id, view),
        shareWatch('gofo', id),
      ] : h('p', { class: 'muted' }, t('loading')));
  }

  render();
  call('GET', path(id), { token }).then((r) => onView(r.data)).catch(fail);
  const live = watch({ viewPath: path(id), eventsPath: `${path(id)}/events`, token, onView, onError: fail, onMode: liveBadge });
  return { stop: live.stop, redraw: render };
}
