// Gops at the table: create a game, hand out join links, bid from each phone, verify at the end.
import { call, watch } from './api.js';
import { t, rankName, points, listOf } from './i18n.js';
import { h, mount, fail, toast, settledToast, freshTap, field, select, number, joinLinks, saveGame, saveSeat, savedGame, seatName, joinBase, isLoopback, remembered, describedField, playAsFirstSeat, backToLinks } from './ui.js';
import { turnNotice } from './turn.js';
import { gopsStory } from './story.js';
import { bidCommitment, openCommitment, prizeCommitment, randomHex, seatSalt } from './sha256.js';
import { qrSvg } from './qr.js';
import * as frac from './frac.js';
import { showSeats } from './seats.js';
import { gopsHints } from './hints.js';
import { playAgain } from './again.js';
import { shareWatch, stepper } from './watch.js';
import { namesField, ownName } from './names.js';

const path = (id) => `/v1/gops/games/${encodeURIComponent(id)}`;

// A game made here gives every phase a deadline (which the host, or a seat, may then enforce), so
// a seat that never bids or reveals does not hold the table for good.
const DEFAULT_DEADLINE_SECONDS = 300;

// ------------------------------------------------------------------ create

/** Words for each option of a select, describing it (`prefix.value`). */
const hints = (prefix, values) => Object.fromEntries(values.map((v) => [v, t(`${prefix}.${v}`)]));

export function createPage(root) {
  const opt = (values) => values.map((v) => [v, t(`gops.opt.${v}`)]);
  const names = namesField('players', 7);
  const form = h('form', { class: 'stack', id: 'gops-create', novalidate: true },
    h('h1', {}, t('gops.new')),
    field(t('gops.profile'), select('profile', opt(['classic', 'standard']), 'classic'), t('gops.profile_hint')),
    field(t('gops.players'), number('players', 2, 2, 7)),
    names.element,
    field(t('gops.ranks'), number('ranks', 13, 1, 13)),
    describedField(t('gops.prize_order'), select('prize_order', opt(['shuffled', 'ascending', 'descending', 'reported']), 'shuffled'), hints('gops.opt_hint', ['shuffled', 'ascending', 'descending', 'reported'])),
    field(t('gops.visibility'), select('visibility', opt(['open', 'blind', 'dealer_sees_prize']), 'open')),
    h('details', { class: 'more' },
      h('summary', {}, t('more_options')),
      field(t('gops.resolution'), select('resolution', [['', t('profile_default')], ...opt(['none', 'split', 'highest_unique'])], '')),
      field(t('gops.unclaimed'), select('unclaimed', [['', t('profile_default')], ...opt(['carryover', 'discard'])], '')),
      field(t('gops.dealer_seat'), number('dealer_seat', 1, 1, 7), t('gops.dealer_seat_hint')),
      field(t('gops.bid_cards'), number('bid_cards', 1, 1, 13)),
      field(t('gops.open_prizes'), number('open_prizes', 1, 1, 13)),
      field(t('gops.deadline'), number('deadline_seconds', DEFAULT_DEADLINE_SECONDS, 1, 604800, t('none')), t('gops.deadline_hint'))),
    describedField(t('gops.match'), select('format', opt(['single', 'cumulative', 'best_of', 'target']), 'single'), hints('gops.opt_hint', ['single', 'cumulative', 'best_of', 'target'])),
    field(t('gops.games'), number('games', null, 1, 50, '3')),
    field(t('gops.target'), number('target', null, 1, 10000, '92')),
    h('p', { class: 'error', id: 'gops-form-problem', role: 'status', hidden: true }),
    h('button', { type: 'submit', class: 'primary big', id: 'gops-create-go' }, t('gops.create')));
  // Classic is a 2-player game: choosing it sets 2 players.
  form.elements.profile.addEventListener('change', () => {
    if (form.elements.profile.value === 'classic') form.elements.players.value = '2';
    form.elements.players.dispatchEvent(new Event('input', { bubbles: true }));
  });
  // A combination the referee would refuse is said before submitting, and cannot be submitted.
  const problem = form.querySelector('#gops-form-problem');
  const submit = form.querySelector('#gops-create-go');
  const checkForm = () => {
    const said = formProblems(form);
    problem.textContent = said.join(' ');
    problem.hidden = !said.length;
    submit.disabled = said.length > 0;
    return said;
  };
  form.addEventListener('input', checkForm);
  form.addEventListener('change', checkForm);
  // Only the fields the chosen match uses: Games for several games, Target for playing to a target.
  const showMatchFields = () => {
    const format = form.elements.format.value;
    form.elements.games.closest('.field').hidden = !(format === 'cumulative' || format === 'best_of');
    form.elements.target.closest('.field').hidden = format !== 'target';
  };
  form.elements.format.addEventListener('change', showMatchFields);
  showMatchFields();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (checkForm().length) return;
    const value = (name) => form.elements[name].value.trim();
    const int = (name) => (value(name) === '' ? undefined : Number(value(name)));
    const options = {};
    for (const name of ['players', 'ranks', 'bid_cards', 'open_prizes', 'deadline_seconds']) {
      if (int(name) !== undefined) options[name] = int(name);
    }
    for (const name of ['prize_order', 'visibility', 'resolution', 'unclaimed']) {
      if (value(name)) options[name] = value(name);
    }
    if (options.prize_order === 'shuffled') delete options.prize_order;
    if (options.visibility === 'dealer_sees_prize') options.dealer_seat = (int('dealer_seat') || 1) - 1;
    const match = { format: value('format') };
    if (match.format === 'cumulative' || match.format === 'best_of') match.games = int('games') || 3;
    if (match.format === 'target' && int('target')) match.target = int('target');
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const r = await call('POST', '/v1/gops/games', { body: { profile: value('profile'), options, match, names: names.names() } });
      // Each seat's secret, from which its phone derives its salts: in the seat's link only.
      const secrets = r.data.seat_tokens.map(() => randomHex(32));
      saveGame('gops', r.data.id, { host: r.data.host_token, seats: r.data.seat_tokens, secrets });
      location.hash = `gops=${encodeURIComponent(r.data.id)}&host=${encodeURIComponent(r.data.host_token)}`;
    } catch (error) {
      fail(error);
      button.disabled = false;
    }
  });
  names.bind(form);
  checkForm();
  mount(root, form);
}

/** What the referee would refuse in the Gops create form, in words (service/games/gops/rules.py). */
function formProblems(form) {
  const value = (name) => form.elements[name].value.trim();
  const whole = (name) => (/^\d+$/.test(value(name)) ? Number(value(name)) : value(name) === '' ? null : NaN);
  const out = [];
  const range = (name, label, min, max, needed = true) => {
    const n = whole(name);
    if ((n === null && needed) || Number.isNaN(n) || (n !== null && (n < min || n > max))) {
      out.push(t('gops.form.range', { field: t(label), min, max }));
      return null;
    }
    return n;
  };
  const players = range('players', 'gops.players', 2, 7);
  const ranks = range('ranks', 'gops.ranks', 1, 13);
  if (value('profile') === 'classic' && players !== null && players !== 2) out.push(t('gops.form.classic'));
  if (ranks !== null) {
    range('bid_cards', 'gops.bid_cards', 1, ranks, false);
    const open = range('open_prizes', 'gops.open_prizes', 1, ranks, false);
    if (open > 1 && value('visibility') !== 'open') out.push(t('gops.form.open_prizes'));
  }
  if (value('visibility') === 'dealer_sees_prize' && players !== null) range('dealer_seat', 'gops.dealer_seat', 1, players, false);
  range('deadline_seconds', 'gops.deadline', 1, 604800, false);
  const format = value('format');
  if (format === 'cumulative') range('games', 'gops.games', 1, 50, false);
  if (format === 'best_of' && whole('games') !== null && ![3, 5].includes(whole('games'))) out.push(t('gops.form.best_of'));
  if (format === 'target') range('target', 'gops.target', 1, 10000, false);
  return out;
}

// ------------------------------------------------------------------ shared rendering

function card(rank, { hidden = false, cls = '' } = {}) {
  return h('span', { class: `card ${hidden ? 'back' : ''} ${cls}`, data: { rank: hidden ? null : rank } },
    hidden ? '?' : rankName(rank));
}

function matchTotals(view) {
  if (view.result) return view.result.totals;
  const finished = view.games || [];
  const inPlay = view.game_number > finished.length;
  return view.scores.map((_, seat) => frac.sum([
    ...finished.map((g) => g.scores[seat]),
    ...(inPlay ? [view.scores[seat]] : []),
  ]));
}

function roundText(record) {
  const bids = Object.entries(record.bids).map(([seat, cards]) => `${seatName(Number(seat))}: ${cards.map(rankName).join('+')}`).join(' · ');
  let outcome;
  if (record.winners && record.winners.length) {
    outcome = t('gops.round_won', { who: record.winners.map(seatName).join(', '), points: Object.values(record.shares || {}).join(' + ') || '0' });
  } else if (record.carried) outcome = t('gops.round_carried');
  else outcome = t('gops.round_set_aside');
  return { bids, outcome };
}

function prizePanel(view) {
  const kids = [];
  if (view.phase === 'prize') {
    kids.push(h('p', { class: 'big-text', id: 'prize-status' }, t('gops.await_prize')));
  } else if (view.phase !== 'over') {
    const hidden = view.row.length > 0 && view.row.every((r) => r === null);
    kids.push(h('div', { class: 'prize-row', id: 'prize' },
      view.row.length ? view.row.map((r) => card(r, { hidden: r === null, cls: 'prize' })) : h('span', { class: 'muted' }, '—')));
    if (hidden) kids.push(h('p', { class: 'big-text', id: 'blind' }, t('gops.blind')));
    if (view.carry.length) kids.push(h('p', {}, t('gops.carry', { cards: view.carry.map(rankName).join(', ') })));
    if (view.pot_value != null) kids.push(h('p', { id: 'pot-value' }, t('gops.pot_value', { n: view.pot_value })));
  }
  return h('section', { class: 'panel prize-panel' }, h('h2', {}, view.row.length > 1 ? t('gops.prizes') : t('gops.prize')), kids);
}

function seatsTable(view, me) {
  const totals = matchTotals(view);
  const single = view.match.format === 'single';
  const rows = view.scores.map((score, seat) => {
    let status = '';
    if (view.resigned.includes(seat)) status = t('gops.resigned');
    else if (view.forfeited[String(seat)]) status = t('gops.forfeited');
    else if (view.phase === 'commit') status = view.committed.includes(seat) ? t('gops.committed') : t('gops.thinking');
    else if (view.phase === 'reveal') status = view.revealed.includes(seat) ? t('gops.revealed') : t('gops.revealing');
    else if (view.phase === 'choose' && view.chooser === seat) status = t('gops.choosing');
    return h('tr', { data: { seat, status: view.phase === 'commit' && view.committed.includes(seat) ? 'committed' : null }, class: seat === me ? 'me' : '' },
      h('th', { scope: 'row' }, seatName(seat), seat === me ? ` (${t('you')})` : ''),
      h('td', { class: 'num score' }, score),
      single ? null : h('td', { class: 'num total' }, totals[seat]),
      h('td', { class: 'num' }, String(view.hands[seat].length)),
      h('td', { class: 'status' }, status));
  });
  return h('section', { class: 'panel' },
    h('h2', {}, single ? t('gops.scores') : t('gops.scores_match', { n: view.game_number })),
    h('table', { class: 'scores', id: 'scores' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, t('gops.score')), single ? null : h('th', {}, t('gops.match_total')),
        h('th', {}, t('gops.cards_left')), h('th', {}, t('gops.status')))),
      h('tbody', {}, rows)));
}

function historyPanel(history, { open = false, id = 'history', title, state } = {}) {
  if (!history.length) return null;
  return h('details', { class: 'panel', id, ...(state ? remembered(state, open) : { open }) },
    h('summary', {}, title || t('gops.rounds_so_far', { n: history.length })),
    h('ol', { class: 'history' }, history.map((record) => {
      const { bids, outcome } = roundText(record);
      return h('li', { data: { round: record.round } },
        h('span', { class: 'pot' }, t('gops.prize_short'), ' ', (record.pot || record.row || []).map(rankName).join('+\u200b')), ' — ',
        h('span', { class: 'bids' }, bids), ' → ', h('strong', {}, outcome));
    })));
}

function lastRound(view) {
  const record = view.history[view.history.length - 1];
  if (!record) return null;
  const { bids, outcome } = roundText(record);
  return h('section', { class: 'panel last', id: 'last-round', data: { round: record.round } },
    h('h2', {}, t('gops.last_round', { n: record.round })),
    h('p', { class: 'bids' }, bids), h('p', { class: 'big-text' }, outcome));
}

function header(view) {
  const total = view.match.format === 'single' ? '' : ` · ${t('gops.game_n', { n: view.game_number })}`;
  const round = view.phase === 'over' ? t('gops.over') : t('gops.round_of', { n: view.round, of: view.rounds });
  return h('p', { class: 'crumbs', id: 'where' }, round, total);
}

/** The time left before the phase's deadline, as m:ss (kept current by the page's clock below). */
function timeLeft(at) {
  const seconds = Math.max(0, Math.ceil(at - Date.now() / 1000));
  return seconds > 0 ? t('gops.time_left', { time: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` }) : t('gops.time_up');
}

function countdown(view) {
  if (!view.deadline_at || view.phase === 'over') return null;
  return h('p', { class: 'countdown', id: 'countdown', data: { at: view.deadline_at } }, timeLeft(view.deadline_at));
}

// Once a second: the countdown's text, and the host's enforce button once the time is up (changed
// in place: a redraw under a finger can swallow a tap).
setInterval(() => {
  const el = document.getElementById('countdown');
  if (!el) return;
  const at = Number(el.dataset.at);
  el.textContent = timeLeft(at);
  const enforce = document.querySelector('#enforce[data-at]');
  if (enforce) enforce.disabled = Date.now() / 1000 < at;
}, 1000);

function resultPanel(view) {
  if (!view.result) return null;
  // A tie for the most points is a draw (a 0–0 game whose prizes were all set aside too).
  const winners = view.result.winners;
  const draw = winners.length > 1;
  let said = t('gops.no_winner');
  if (draw) said = t('gops.draw', { who: listOf(winners.map(seatName)), points: points(view.result.totals[winners[0]]) });
  else if (winners.length) said = t('gops.winners', { who: seatName(winners[0]) });
  return [h('section', { class: 'panel result', id: 'result', data: { outcome: draw ? 'draw' : winners.length ? 'win' : 'none' } },
    h('h2', {}, t('gops.result')),
    h('p', { class: 'big-text' }, said),
    h('p', {}, t('gops.totals', { totals: view.result.totals.map((s, i) => `${seatName(i)} ${s}`).join(' · ') }))),
  gopsStory(view.history, view.scores.length)];
}

// ------------------------------------------------------------------ verification

/**
 * Re-check a finished game's transcript in the browser: every bid commitment against its reveal
 * (and the bid the round recorded), every shuffled prize order against its commitment and against
 * the prizes turned up. Returns {ok, checked, problem}.
 */
export function verifyTranscript(transcript) {
  const games = (transcript.result && transcript.result.games) || [];
  const gameIds = new Map(games.map((g) => [g.game, g.game_id]));
  const commits = new Map();
  const reveals = new Map();
  for (const entry of transcript.entries) {
    const a = entry.action;
    const key = `${entry.game}|${a.round}|${a.seat}`;
    if (a.type === 'commit') commits.set(key, { ...a, game: entry.game });
    if (a.type === 'reveal') reveals.set(key, { ...a, game: entry.game });
  }
  let bids = 0;
  for (const [key, commit] of commits) {
    const reveal = reveals.get(key);
    if (!reveal) continue; // never opened: the seat forfeited or resigned
    const gameId = gameIds.get(commit.game) || transcript.id;
    const hash = bidCommitment(gameId, commit.round, commit.seat, reveal.cards, reveal.salt);
    if (hash !== commit.commitment) {
      return { ok: false, problem: t('verify.bid_mismatch', { game: commit.game, round: commit.round, seat: seatName(commit.seat) }) };
    }
    const game = games.find((g) => g.game === commit.game);
    const record = game && (game.history || []).find((r) => r.round === commit.round);
    const illegal = record && record.illegal && record.illegal[String(commit.seat)];
    if (record && !illegal && (record.bids[String(commit.seat)] || []).join(',') !== reveal.cards.join(',')) {
      return { ok: false, problem: t('verify.bid_recorded', { game: commit.game, round: commit.round, seat: seatName(commit.seat) }) };
    }
    bids += 1;
  }
  let orders = 0;
  for (const game of games) {
    if (!game.prize_commitment) continue;
    if (!game.prize_order || !game.prize_salt) {
      return { ok: false, problem: t('verify.order_missing', { game: game.game }) };
    }
    if (prizeCommitment(game.game_id, game.prize_order, game.prize_salt) !== game.prize_commitment) {
      return { ok: false, problem: t('verify.order_mismatch', { game: game.game }) };
    }
    if (transcript.rules.open_prizes === 1) {
      for (const record of game.history || []) {
        const pot = record.pot || [];
        if (pot.length && pot[pot.length - 1] !== game.prize_order[record.round - 1]) {
          return { ok: false, problem: t('verify.order_played', { game: game.game, round: record.round }) };
        }
      }
    }
    orders += 1;
  }
  return { ok: true, bids, orders };
}

async function verifyPanel(id, slot) {
  mount(slot, h('p', { class: 'muted' }, t('verify.checking')));
  try {
    const r = await call('GET', `${path(id)}/transcript`);
    const transcript = r.data;
    const outcome = verifyTranscript(transcript);
    const games = (transcript.result && transcript.result.games) || [];
    mount(slot,
      h('h2', {}, t('verify.title')),
      outcome.ok
        ? [h('p', { class: 'verdict ok', id: 'verdict', data: { verdict: 'verified' } }, '✔ ', t('verify.fair_play')),
          h('details', { class: 'why', id: 'verdict-how' }, h('summary', {}, t('verify.how')),
            h('p', {}, t('verify.ok', { bids: outcome.bids, orders: outcome.orders })))]
        : h('p', { class: 'verdict bad', id: 'verdict', data: { verdict: 'mismatch' } }, '✘ ', outcome.problem),
      games.map((g) => historyPanel(g.history || [], { open: true, id: `transcript-${g.game}`, title: t('verify.game_rounds', { n: g.game, scores: g.scores.join(' – ') }) })));
  } catch (error) {
    mount(slot, h('p', { class: 'verdict bad' }, problemTextSafe(error)));
  }
}

function problemTextSafe(error) {
  return (error && error.message) || String(error);
}

// ------------------------------------------------------------------ bids kept on this phone

const bidKey = (gameId, round, seat) => `referee:bid:${gameId}:${round}:${seat}`;

function saveBid(bid) {
  const text = JSON.stringify(bid);
  localStorage.setItem(bidKey(bid.game_id, bid.round, bid.seat), text);
  localStorage.setItem(`referee:bid:${bid.commitment}`, text);
}

function loadBid(view, seat) {
  const mine = view.commitments && view.commitments[String(seat)];
  const text = (mine && localStorage.getItem(`referee:bid:${mine}`)) || localStorage.getItem(bidKey(view.game_id, view.round, seat));
  if (!text) return null;
  const bid = JSON.parse(text);
  if (mine && bid.commitment !== mine) return null; // this phone's bid is not the one committed
  return bid;
}

// ------------------------------------------------------------------ a seat's page

export function seatPage(root, params) {
  const id = params.get('gops');
  const seat = Number(params.get('seat'));
  const token = params.get('t');
  const secret = /^[0-9a-f]{64}$/.test(params.get('k') || '') ? params.get('k') : null; // links without one: salts kept on this phone only
  if (token) saveSeat('gops', id, seat, location.hash.slice(1));
  let view = null;
  let selected = [];
  let busy = false;
  const hintPanel = gopsHints(id, seat, token);
  const myName = ownName('gops', id, seat, token, (next) => apply(next));
  const revealing = new Set();
  let verified = false;
  const verifySlot = h('section', { class: 'panel', id: 'verify' });
  const historyOpen = { open: null };

  const apply = (next) => {
    // A version already shown is not drawn again: a redraw under a finger can swallow a tap.
    if (!next || (view && next.version <= view.version)) return;
    if (view && (view.round !== next.round || view.game_number !== next.game_number)) selected = []; // a new round, or game 2's round 1 after game 1's
    view = next;
    document.body.dataset.version = String(view.version);
    showSeats(view);
    render();
    autoReveal();
  };

  async function send(move, body) {
    busy = true;
    render();
    try {
      const url = move === 'deadline' ? `${path(id)}/deadline` : `${path(id)}/seats/${seat}/${move}`;
      const r = await call('POST', url, { token, body });
      busy = false;
      settledToast();
      apply(r.data);
      render(); // the answer may be older than a view the stream already brought: still not busy
      return r.data;
    } catch (error) {
      busy = false;
      render();
      fail(error);
      return null;
    }
  }

  async function commit() {
    const action = view.legal_actions.find((a) => a.type === 'commit');
    if (!action || selected.length !== action.cards) return;
    const salt = secret ? seatSalt(secret, view.game_id, action.round, seat) : randomHex(32);
    const cards = [...selected].sort((a, b) => a - b);
    const commitment = bidCommitment(view.game_id, action.round, seat, cards, salt);
    saveBid({ game_id: view.game_id, round: action.round, seat, cards, salt, commitment });
    await send('commit', { round: action.round, commitment, game_id: view.game_id });
  }

  async function autoReveal() {
    const action = view.legal_actions.find((a) => a.type === 'reveal');
    if (!action) return;
    const key = `${view.game_id}:${action.round}`;
    if (revealing.has(key)) return;
    const bid = loadBid(view, seat) || recoverBid();
    if (!bid) return; // render() says this phone does not hold the salt
    revealing.add(key);
    const r = await send('reveal', { round: action.round, cards: bid.cards, salt: bid.salt, game_id: view.game_id });
    if (!r) setTimeout(() => { revealing.delete(key); if (view) autoReveal(); }, 2000);
  }

  /** The bid sealed from another phone, opened with the link's secret (null without one). */
  function recoverBid() {
    const commitment = view.commitments && view.commitments[String(seat)];
    if (!secret || !commitment) return null;
    const salt = seatSalt(secret, view.game_id, view.round, seat);
    const cards = openCommitment(commitment, view.game_id, view.round, seat, salt, { ranks: view.rules.ranks, cards: view.rules.bid_cards });
    if (!cards) return null;
    const bid = { game_id: view.game_id, round: view.round, seat, cards, salt, commitment };
    saveBid(bid);
    return bid;
  }

  function actionPanel() {
    const legal = Object.fromEntries(view.legal_actions.map((a) => [a.type, a]));
    const hand = view.hands[seat];
    const kids = [];
    const mineCommitted = view.committed.includes(seat);
    if (legal.commit) {
      const need = legal.commit.cards;
      kids.push(h('p', { class: 'big-text', id: 'prompt' }, need > 1 ? t('gops.pick_n', { n: need }) : t('gops.pick_one')));
    } else if (view.phase === 'commit' && mineCommitted) {
      const bid = loadBid(view, seat);
      kids.push(h('p', { class: 'big-text', id: 'prompt' }, bid ? t('gops.sealed', { cards: bid.cards.map(rankName).join('+') }) : t('gops.sealed_elsewhere')));
      kids.push(h('p', {}, t('gops.waiting_for', { who: view.awaiting.map(seatName).join(', ') })));
    } else if (view.phase === 'reveal') {
      if (legal.reveal && !loadBid(view, seat) && !recoverBid()) kids.push(h('p', { class: 'error', id: 'prompt' }, t('gops.no_salt')));
      else kids.push(h('p', { class: 'big-text', id: 'prompt' }, view.my_reveal ? t('gops.revealed_wait', { who: view.awaiting.map(seatName).join(', ') }) : t('gops.revealing_now')));
    } else if (legal.choose_prize) {
      kids.push(h('p', { class: 'big-text', id: 'prompt' }, t('gops.choose', { n: legal.choose_prize.picks || 1 })));
      kids.push(h('div', { class: 'cards' }, legal.choose_prize.ranks.map((rank) =>
        h('button', { type: 'button', class: 'card-button', data: { choose: rank }, disabled: busy, on: { click: () => send('choose', { rank, version: view.version }) } }, rankName(rank)))));
    } else if (view.phase === 'choose') {
      kids.push(h('p', { class: 'big-text', id: 'prompt' }, t('gops.other_chooses', { who: seatName(view.chooser) })));
    } else if (view.phase === 'prize') {
      kids.push(h('p', { id: 'prompt' }, t('gops.await_prize')));
    } else if (view.phase !== 'over') {
      kids.push(h('p', { id: 'prompt' }, view.resigned.includes(seat) || view.forfeited[String(seat)] ? t('gops.you_are_out') : '…'));
    }
    if (view.phase !== 'over') {
      kids.push(h('div', { class: 'cards hand', id: 'hand' }, hand.map((rank) => {
        const chosen = selected.includes(rank);
        return h('button', {
          type: 'button', class: `card-button ${chosen ? 'chosen' : ''}`, data: { card: rank },
          'aria-pressed': chosen ? 'true' : 'false', disabled: !legal.commit || busy,
          on: { click: () => toggle(rank, legal.commit) },
        }, rankName(rank));
      })));
      if (legal.commit) {
        const need = legal.commit.cards;
        kids.push(h('button', {
          type: 'button', class: 'primary big', id: 'bid', disabled: selected.length !== need || busy, on: { click: commit },
        }, selected.length ? t('gops.bid_cards', { cards: selected.map(rankName).join('+') }) : t('gops.bid')),
        h('p', { class: 'hint', id: 'explain-bid' }, t('gops.explain.bid')));
      }
    }
    if (legal.enforce_deadline) {
      kids.push(h('button', { type: 'button', class: 'secondary big', id: 'enforce', on: { click: () => send('deadline', { version: view.version }) } }, t('gops.enforce')),
        h('p', { class: 'hint', id: 'explain-enforce' }, t('gops.explain.enforce')));
    }
    return h('section', { class: 'panel action' }, h('h2', {}, t('gops.your_cards')), kids);
  }

  function toggle(rank, action) {
    if (!action || !freshTap(`gops:${rank}`)) return;
    if (selected.includes(rank)) selected = selected.filter((r) => r !== rank);
    else if (action.cards === 1) selected = [rank];
    else if (selected.length < action.cards) selected = [...selected, rank];
    render();
  }

  function render() {
    if (!view) return;
    const legal = view.legal_actions.map((a) => a.type);
    turnNotice({ mine: legal.includes('commit') || legal.includes('choose_prize'), playing: view.phase !== 'over', game: 'Gops' });
    mount(root,
      h('h1', {}, t('gops.title_seat', { seat: seatName(seat) })),
      myName.row(view, 'top'),
      header(view),
      countdown(view),
      view.phase === 'over' ? null : prizePanel(view),
      view.phase === 'over' ? null : actionPanel(),
      hintPanel.panel(view),
      lastRound(view),
      seatsTable(view, seat),
      myName.row(view, 'bottom'),
      resultPanel(view),
      playAgain(view),
      view.phase === 'over' ? shareWatch('gops', id) : null,
      view.phase === 'over' ? verifySlot : historyPanel(view.history, { state: historyOpen }),
      backToLinks('gops', id),
      legal.includes('resign') ? h('button', {
        type: 'button', class: 'danger', id: 'resign',
        on: { click: () => { if (confirm(t('gops.resign_confirm'))) send('resign', {}); } },
      }, t('gops.resign')) : null,
      legal.includes('resign') ? h('p', { class: 'hint', id: 'explain-resign' }, t('gops.explain.resign')) : null);
    document.body.dataset.phase = view.phase;
    if (view.phase === 'over' && !verified) {
      verified = true;
      verifyPanel(id, verifySlot);
    }
  }

  mount(root, h('p', { class: 'muted' }, t('loading')));
  call('GET', `${path(id)}/seats/${seat}`, { token }).then((r) => apply(r.data)).catch(fail);
  const live = watch({
    viewPath: `${path(id)}/seats/${seat}`, eventsPath: `${path(id)}/events`, token,
    onView: apply, onError: fail, onMode: liveBadge,
  });
  // Another language: the same page drawn again (the card picked, the panels opened stay).
  const redraw = () => { verified = false; render(); };
  return { stop: live.stop, redraw };
}

// ------------------------------------------------------------------ the host's page

export function hostPage(root, params) {
  const id = params.get('gops');
  const token = params.get('host');
  const saved = savedGame('gops', id);
  let view = null;
  let verified = false;
  const verifySlot = h('section', { class: 'panel', id: 'verify' });
  const historyOpen = { open: null };
  // The links stay as the host left them; until then open while nobody has played (a late player
  // is shown a QR by opening them again).
  const linksOpen = { open: null };

  const apply = (next) => {
    // A version already shown is not drawn again: a redraw under a finger can swallow a tap.
    if (!next || (view && next.version <= view.version)) return;
    if (!view && linksOpen.open == null) linksOpen.open = next.round === 1 && next.history.length === 0 && next.phase !== 'over';
    view = next;
    showSeats(view);
    render();
  };

  async function report(rank) {
    try {
      const r = await call('POST', `${path(id)}/prize`, { token, body: { rank, version: view.version } });
      apply(r.data);
    } catch (error) {
      fail(error);
    }
  }

  function links() {
    if (!saved || !saved.seats) return h('p', { class: 'muted' }, t('host.no_links'));
    const base = joinBase();
    const links = joinLinks('gops', id, saved.seats, saved.secrets);
    return h('details', { class: 'panel', id: 'links', ...remembered(linksOpen, true) },
      h('summary', {}, t('host.join_links')),
      isLoopback(base) ? loopbackWarning(base) : null,
      playAsFirstSeat(links),
      h('p', { class: 'hint' }, t('host.links_hint')),
      links.map(({ seat, url }) => h('div', { class: 'join', data: { seat } },
        h('h3', {}, seatName(seat)),
        qrSvg(url, t('host.qr_for', { seat: seatName(seat) })),
        h('input', { type: 'text', readonly: true, value: url, class: 'link', 'aria-label': t('host.link_for', { seat: seatName(seat) }), on: { focus: (e) => e.target.select() } }),
        h('a', { class: 'button secondary', href: url, target: '_blank', rel: 'noopener noreferrer' }, t('host.open_here')))));
  }

  function reportPanel() {
    if (!view || view.phase !== 'prize') return null;
    const seen = new Set(view.turned.filter((r) => r !== null));
    const ranks = Array.from({ length: view.rules.ranks }, (_, i) => i + 1).filter((r) => !seen.has(r));
    return h('section', { class: 'panel action', id: 'report' },
      h('h2', {}, t('host.report')),
      h('p', {}, t('host.report_hint')),
      h('div', { class: 'cards' }, ranks.map((rank) => h('button', { type: 'button', class: 'card-button', data: { report: rank }, on: { click: () => report(rank) } }, rankName(rank)))));
  }

  function render() {
    turnNotice({ mine: Boolean(view && view.phase === 'prize'), playing: Boolean(view && view.phase !== 'over'), game: 'Gops' });
    mount(root,
      h('h1', {}, t('host.title_gops')),
      h('p', { class: 'crumbs' }, t('host.game_id', { id })),
      links(),
      view ? [header(view), countdown(view), reportPanel(), view.phase === 'over' ? null : prizePanel(view), lastRound(view), seatsTable(view, -1), resultPanel(view), playAgain(view), shareWatch('gops', id),
        view.phase === 'over' ? verifySlot : historyPanel(view.history, { state: historyOpen })] : h('p', { class: 'muted' }, t('loading')),
      view && view.deadline_at && view.phase !== 'over' ? h('button', {
        type: 'button', class: 'secondary', id: 'enforce', data: { at: view.deadline_at },
        disabled: Date.now() / 1000 < view.deadline_at, on: { click: enforce },
      }, t('gops.enforce')) : null);
    if (view) document.body.dataset.phase = view.phase;
    if (view && view.phase === 'over' && !verified) {
      verified = true;
      verifyPanel(id, verifySlot);
    }
  }

  async function enforce() {
    try {
      const r = await call('POST', `${path(id)}/deadline`, { token, body: { version: view.version } });
      apply(r.data);
    } catch (error) {
      fail(error);
    }
  }

  render();
  call('GET', path(id), { token }).then((r) => apply(r.data)).catch(fail);
  const live = watch({ viewPath: path(id), eventsPath: `${path(id)}/events`, token, onView: apply, onError: fail, onMode: liveBadge });
  return { stop: live.stop, redraw: () => { verified = false; render(); } };
}

// ------------------------------------------------------------------ watching: read-only, no key

/**
 * A game step by step, round by round, with the chart up to that round: the public history only.
 * `state.at`: the round shown (null: the latest, following the game as it goes on).
 */
function replayPanel(view, state, redraw) {
  const history = view.history;
  if (!history.length) return h('section', { class: 'panel', id: 'replay' }, h('p', { class: 'muted' }, t('watch.no_rounds')));
  const at = state.at == null ? history.length : Math.min(state.at, history.length);
  const go = (n) => { state.at = n >= history.length ? null : Math.max(1, n); redraw(); };
  const record = history[at - 1];
  const { bids, outcome } = roundText(record);
  return h('section', { class: 'panel', id: 'replay', data: { at } },
    h('h2', {}, t('watch.replay')),
    stepper('replay', { at, of: history.length, label: t('watch.round_of', { n: record.round, of: history.length }), prev: t('watch.prev'), next: t('watch.next'), go }),
    h('p', { class: 'bids', id: 'replay-bids' }, bids),
    h('p', { class: 'big-text', id: 'replay-outcome' }, outcome),
    gopsStory(history.slice(0, at), view.scores.length, 'replay-story'));
}

/** A game watched without a key: what everyone may see, live, with the replay and the fairness check. */
export function watchPage(root, params) {
  const id = params.get('gops');
  let view = null;
  let verified = false;
  const verifySlot = h('section', { class: 'panel', id: 'verify' });
  const replay = { at: null };

  const apply = (next) => {
    // A version already shown is not drawn again: a redraw under a finger can swallow a tap.
    if (!next || (view && next.version <= view.version)) return;
    view = next;
    showSeats(view);
    render();
  };

  function render() {
    mount(root,
      h('h1', {}, t('watch.title')),
      h('p', { class: 'crumbs' }, t('host.game_id', { id })),
      h('p', { class: 'hint', id: 'watch-note' }, t('watch.note')),
      view ? [header(view), seatsTable(view, -1), resultPanel(view), replayPanel(view, replay, render),
        view.phase === 'over' ? verifySlot : null] : h('p', { class: 'muted' }, t('loading')));
    if (view) document.body.dataset.phase = view.phase;
    if (view && view.phase === 'over' && !verified) {
      verified = true;
      verifyPanel(id, verifySlot);
    }
  }

  render();
  call('GET', path(id)).then((r) => apply(r.data)).catch(fail);
  const live = watch({ viewPath: path(id), eventsPath: `${path(id)}/events`, onView: apply, onError: fail, onMode: liveBadge });
  return { stop: live.stop, redraw: () => { verified = false; render(); } };
}

/** Links on this computer's own address: what it means for the players, the fix one tap away. */
export function loopbackWarning(base) {
  return h('div', { class: 'warning', id: 'loopback' },
    h('p', {}, t('host.loopback', { base })),
    h('details', { class: 'why' }, h('summary', {}, t('host.loopback_how')), h('p', {}, t('host.loopback_fix'))));
}

export function liveBadge(mode) {
  document.body.dataset.live = mode;
  const badge = document.getElementById('live');
  if (badge) badge.textContent = t(`live.${mode}`);
}

export { toast };
