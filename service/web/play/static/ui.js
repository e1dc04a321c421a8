// Small DOM helpers shared by the pages.
import { t, lang } from './i18n.js';
import { seatLabel } from './seats.js';

/** h('button', {class: 'big', on: {click}}, 'text', child...) */
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'ref') value(el); // told the element once it exists
    else if (key === 'on') for (const [name, fn] of Object.entries(value)) el.addEventListener(name, fn);
    else if (key === 'data') for (const [k, v] of Object.entries(value)) { if (v != null) el.dataset[k] = String(v); }
    else if (key === 'value') el.value = value;
    else if (key === 'checked' || key === 'disabled' || key === 'selected') el[key] = Boolean(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, kids);
  return el;
}

function append(el, kids) {
  for (const kid of kids.flat(Infinity)) {
    if (kid == null || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
}

// A redraw between a finger's down and up swallows the tap: the button pressed is gone when it is
// released, so it gets no click (a card tapped as another seat's bid arrived stayed unpicked). While
// a pointer is down, `mount` keeps what a root is to show instead of drawing it; once every pointer
// is up, after the click the release makes, the last of it is drawn (unless the click drew the root
// itself meanwhile).
const pressed = new Set();
const heldDraws = new Map(); // root -> kids
document.addEventListener('pointerdown', (event) => { pressed.add(event.pointerId); }, { capture: true });
for (const type of ['pointerup', 'pointercancel']) {
  document.addEventListener(type, (event) => { pressed.delete(event.pointerId); drawHeldSoon(); }, { capture: true });
}
window.addEventListener('blur', () => { pressed.clear(); drawHeldSoon(); }); // a release this page never hears of

function drawHeldSoon() {
  if (pressed.size || !heldDraws.size) return;
  setTimeout(() => {
    if (pressed.size) return;
    for (const [root, kids] of heldDraws) draw(root, kids);
    heldDraws.clear();
  });
}

function draw(root, kids) {
  root.replaceChildren();
  append(root, kids);
}

export function mount(root, ...kids) {
  if (pressed.size) {
    heldDraws.set(root, kids);
    return;
  }
  heldDraws.delete(root);
  draw(root, kids);
}

let toastTimer = null;
export function toast(message, kind = 'error') {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 6000);
}

/** A move went through: an error said about an earlier one is no longer true. */
export function settledToast() {
  const el = document.getElementById('toast');
  if (el && !el.hidden && el.classList.contains('error')) {
    el.hidden = true;
    clearTimeout(toastTimer);
  }
}

// Codes whose words name only the kind of refusal: the referee's own reason follows them.
const REASON_FOLLOWS = new Set(['invalid_options', 'invalid_request', 'illegal_action', 'wrong_phase']);
// Codes whose reason names the limit broken (how much, how many).
const LIMIT_NAMED = new Set(['opening_too_large', 'opening_too_small', 'bet_below_minimum', 'bet_above_resto', 'bad_discard_count', 'wrong_card_count', 'bad_points']);

/** The fields a refused request named, each with the referee's words: "Players: Must be …". */
function fieldErrors(errors, out = []) {
  for (const [name, value] of Object.entries(errors || {})) {
    if (Array.isArray(value)) {
      // The label of the form on screen first (Gops and Gofo name some fields alike).
      const games = (document.body.dataset.page || '').startsWith('gofo') ? ['gofo', 'gops'] : ['gops', 'gofo'];
      const label = t(`${games[0]}.${name}`, {}, null) || t(`${games[1]}.${name}`, {}, null) || name;
      out.push(`${label}: ${value.join(' ')}`);
    } else if (value && typeof value === 'object') {
      fieldErrors(value, out);
    }
  }
  return out;
}

/**
 * A problem+json refusal in the reader's language: the page's words for a code it knows, followed
 * (for a code that names only the kind of refusal) by the referee's reason — its `detail`, or the
 * fields a refused request named; an unknown code: the referee's reason alone.
 */
export function problemText(error) {
  if (error && error.code === 'timeout') return t('error.timeout');
  if (error && error.status === 0) return t('error.network');
  const code = error && error.code;
  const known = code ? t(`error.${code}`, {}, null) : null;
  const problem = (error && error.problem) || {};
  const fields = fieldErrors(problem.errors);
  const reason = fields.length ? fields.join(' · ') : problem.detail || (error && error.message);
  // The referee's own words (English) follow the page's words for a code that names only the kind
  // of refusal; for one whose limit they name (an amount, a count), on an English page.
  const said = fields.length ? fields.join(' · ') : problem.detail;
  const follows = said && said !== known && (REASON_FOLLOWS.has(code) || (LIMIT_NAMED.has(code) && lang() === 'en'));
  if (known && !follows) return known;
  if (known) return `${known.replace(/\.$/, '')} — ${said}`;
  return reason || t('error.unknown');
}

export function fail(error) {
  toast(problemText(error));
}

/** The origin join links use (REFEREE_PUBLIC_URL, else the page's origin), from the page's meta tag. */
export function joinBase() {
  const meta = document.querySelector('meta[name="referee-join-base"]');
  const value = meta && meta.content;
  return value && /^https?:\/\//.test(value) ? value.replace(/\/+$/, '') : location.origin;
}

export function isLoopback(url) {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  } catch {
    return false;
  }
}

// Games this phone created (host token and seat tokens), so the host page survives a reload, and
// the seat it last played in each game (My games on the home page).
const SAVED = 'referee:games';

export function saveGame(kind, id, record) {
  const all = JSON.parse(localStorage.getItem(SAVED) || '{}');
  all[`${kind}:${id}`] = { ...(all[`${kind}:${id}`] || {}), ...record, kind, id, at: Date.now() };
  localStorage.setItem(SAVED, JSON.stringify(all));
}

/** A seat this phone opened (its link's fragment, `hash`): listed under My games to get back in. */
export function saveSeat(kind, id, seat, hash) {
  saveGame(kind, id, { joined: { seat, hash } });
}

export function savedGame(kind, id) {
  const all = JSON.parse(localStorage.getItem(SAVED) || '{}');
  return all[`${kind}:${id}`] || null;
}

export function savedGames() {
  const all = JSON.parse(localStorage.getItem(SAVED) || '{}');
  return Object.values(all).sort((a, b) => b.at - a.at);
}

// A double tap on a card is one choice: a second tap on the same card this soon after the first, with
// no tap between them, does not take back what the first did (a phone's double tap comes well within
// it). A tap elsewhere between the two (Bid) makes the second a choice of its own: the same card
// picked again in the next game, quickly, is picked.
const DOUBLE_TAP_MS = 400;
let lastTap = { key: null, at: -Infinity, tap: 0 };
let taps = 0; // clicks on the page so far, counted before any handler sees them
document.addEventListener('click', () => { taps += 1; }, { capture: true });

/** Whether a tap on the card `key` counts: not when it is the very next tap after one on the same card,
 * within DOUBLE_TAP_MS. */
export function freshTap(key) {
  const now = performance.now();
  const repeat = key === lastTap.key && now - lastTap.at < DOUBLE_TAP_MS && taps === lastTap.tap + 1;
  lastTap = { key, at: now, tap: taps };
  return !repeat;
}

// A double tap that opens a page: its second tap lands on the new page, on whatever is drawn under the
// finger (a double tap on Play picked the card drawn where the button was). A page opened by a tap
// takes no taps until DOUBLE_TAP_MS after it (`settling`: pointer-events none).
let lastPointerAt = -Infinity;
let settleTimer = null;
document.addEventListener('pointerdown', () => { lastPointerAt = performance.now(); }, { capture: true });

/** Make `page` (a new page's box) ignore taps while a tap that opened it may still have a second one coming. */
export function settleAfterTap(page) {
  clearTimeout(settleTimer);
  const left = DOUBLE_TAP_MS - (performance.now() - lastPointerAt);
  if (left <= 0) return;
  page.classList.add('settling');
  settleTimer = setTimeout(() => page.classList.remove('settling'), left);
}

/** A labelled form control. */
export function field(label, control, hint) {
  return h('label', { class: 'field' }, h('span', { class: 'label' }, label), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

export function select(name, options, value) {
  return h('select', { name, id: `f-${name}` }, options.map(([v, label]) => h('option', { value: v, selected: String(v) === String(value) }, label)));
}

export function number(name, value, min, max, placeholder) {
  return h('input', { type: 'number', name, id: `f-${name}`, value: value == null ? '' : String(value), min, max, inputmode: 'numeric', placeholder });
}

/** Join links and QR codes, one per seat the referee does not play (a bot's token is null); the token
 * (and the seat's secret, if any) ride in the fragment. */
export function joinLinks(kind, id, tokens, secrets = []) {
  return tokens.flatMap((token, seat) => {
    if (!token) return [];
    const secret = secrets[seat] ? `&k=${secrets[seat]}` : '';
    const url = `${joinBase()}/play#${kind}=${encodeURIComponent(id)}&seat=${seat}&t=${encodeURIComponent(token)}${secret}`;
    return [{ seat, url }];
  });
}

/** The seat as players know it: the referee's bot, the player's name, else "Seat N". */
export function seatName(seat) {
  return seatLabel(seat) || t('seat_n', { n: seat + 1 });
}

/**
 * A <details> that keeps what the player did with it across redraws: its props `{open, ref, on}` for
 * h(). `state.open` is null until the player opens or closes it (`fallback` is drawn meanwhile). A tap
 * counts even when the page redraws before its toggle event arrives: the element last drawn is read.
 */
export function remembered(state, fallback, onToggle) {
  if (state.el && state.el.open !== state.drawn) state.open = state.el.open;
  const open = state.open == null ? fallback : state.open;
  state.drawn = open;
  let drawn = true; // the toggle event of an element drawn open is not the player's
  return {
    open,
    ref: (el) => { state.el = el; },
    on: {
      toggle: (e) => {
        if (drawn && open && e.target.open) { drawn = false; if (onToggle) onToggle(e); return; }
        drawn = false;
        if (e.target === state.el) state.open = e.target.open;
        if (onToggle) onToggle(e);
      },
    },
  };
}

/** A labelled select whose hint describes the option chosen (`hints`: value → words). */
export function describedField(label, control, hints) {
  const hint = h('span', { class: 'hint', id: `${control.id}-hint` });
  const show = () => { hint.textContent = hints[control.value] || ''; hint.hidden = !hint.textContent; };
  control.addEventListener('change', show);
  show();
  return h('label', { class: 'field' }, h('span', { class: 'label' }, label), control, hint);
}

/** The creator's own seat, one tap: its link opened in this tab (the host page is one tap back). */
export function playAsFirstSeat(links) {
  const first = links[0];
  if (!first) return null;
  return h('a', { class: 'button primary big', id: 'play-as', href: first.url }, t('host.play_as', { seat: seatName(first.seat) }));
}

/** On a seat's page of a game this phone created: the way back to its links and QR codes. */
export function backToLinks(kind, id) {
  const saved = savedGame(kind, id);
  if (!saved || !saved.host) return null;
  return h('a', { class: 'button secondary', id: 'to-links', href: `#${kind}=${encodeURIComponent(id)}&host=${encodeURIComponent(saved.host)}` }, t('host.back_to_links'));
}
