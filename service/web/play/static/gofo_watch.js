// A Gofo table watched read-only (#gofo=<id>&watch=1): no seat's key, so only what is public — the
// table's public view and stream (the pots, the bets, who is to act; nobody's cards until the canto
// shows them) and its transcript — followed live, and the table replayed hand by hand and, within a
// hand, move by move, with each finished hand's result and the ledger's chart up to it.
import { call, watch } from './api.js';
import { t } from './i18n.js';
import { h, mount, fail } from './ui.js';
import { gofoStory } from './story.js';
import { showSeats } from './seats.js';
import { liveBadge } from './gops.js';
import { stepper } from './watch.js';
import { path, handHeader, potsPanel, seatsTable, describeEntry, handResult, lastHandPanel, ledgerPanel } from './gofo.js';

/** The transcript's entries hand by hand: [hand 1's, hand 2's, …] (the table's opening counts in hand 1). */
export function entriesByHand(transcript) {
  const hands = [];
  for (const entry of transcript.entries) {
    const n = Math.max(1, entry.hand);
    while (hands.length < n) hands.push([]);
    hands[n - 1].push(entry);
  }
  return hands;
}

/**
 * The table step by step. `state.hand` / `state.move`: the hand and move shown (null: the latest,
 * following the table as it goes on). A hand stepped to is shown whole, its result under it; ◀ ▶ of
 * the moves then walk it from its first move.
 */
function replayPanel(transcript, seats, state, redraw) {
  const hands = entriesByHand(transcript);
  if (!hands.length) return h('section', { class: 'panel', id: 'replay' }, h('p', { class: 'muted' }, t('watch.no_moves')));
  const last = hands.length;
  const hand = state.hand == null ? last : Math.min(state.hand, last);
  const moves = hands[hand - 1];
  const at = state.move == null ? moves.length : Math.min(state.move, moves.length);
  const goHand = (n) => { state.hand = n >= last ? null : Math.max(1, n); state.move = null; redraw(); };
  const goMove = (n) => {
    state.hand = hand === last ? null : hand;
    state.move = hand === last && n >= moves.length ? null : Math.max(1, Math.min(n, moves.length));
    redraw();
  };
  const results = transcript.results || [];
  const result = at === moves.length ? results.find((r) => r.hand === hand) : null;
  // The ledger up to the hand shown: its own result only once the replay reached its end.
  const upTo = results.filter((r) => r.hand < hand || (result && r.hand === hand));
  return h('section', { class: 'panel', id: 'replay', data: { hand, move: at } },
    h('h2', {}, t('watch.replay_gofo')),
    stepper('replay-hand', { at: hand, of: last, label: t('watch.hand_of', { n: hand, of: last }), prev: t('watch.prev_hand'), next: t('watch.next_hand'), go: goHand }),
    stepper('replay-move', { at, of: moves.length, label: t('watch.move_of', { n: at, of: moves.length }), prev: t('watch.prev_move'), next: t('watch.next_move'), go: goMove }),
    h('ol', { class: 'history', id: 'replay-moves' }, moves.slice(0, at).map((entry, i) => {
      const line = describeEntry(entry);
      if (i === at - 1) line.classList.add('now');
      return line;
    })),
    result ? h('div', { id: 'replay-result', data: { hand } }, h('h3', {}, t('watch.hand_result', { n: hand })), handResult(result, 'replay-pots')) : null,
    gofoStory(upTo, seats, 'replay-story'));
}

export function watchPage(root, params) {
  const id = params.get('gofo');
  let view = null;
  let transcript = null;
  let asked = 0; // the latest transcript asked for: an older answer arriving late is not drawn
  const replay = { hand: null, move: null };

  // Each new version: its public view, and the transcript up to it (the replay's moves).
  const apply = (next) => {
    if (!next || (view && next.version <= view.version)) return;
    view = next;
    showSeats(view);
    render();
    const ticket = ++asked;
    call('GET', `${path(id)}/transcript`).then((r) => {
      if (ticket !== asked) return;
      transcript = r.data;
      render();
    }, fail);
  };

  function render() {
    document.body.dataset.version = view ? String(view.version) : '';
    document.body.dataset.hand = view ? String(view.table.hand_number) : '';
    mount(root,
      h('h1', {}, t('watch.title_gofo')),
      h('p', { class: 'crumbs' }, t('host.table_id', { id })),
      h('p', { class: 'hint', id: 'watch-note' }, t('watch.note_gofo')),
      view ? [handHeader(view), potsPanel(view.hand), seatsTable(view, -1),
        transcript ? replayPanel(transcript, view.table.seats.length, replay, render) : null,
        lastHandPanel(view), ledgerPanel(id, view)] : h('p', { class: 'muted' }, t('loading')));
  }

  render();
  call('GET', path(id)).then((r) => apply(r.data)).catch(fail);
  const live = watch({ viewPath: path(id), eventsPath: `${path(id)}/events`, onView: apply, onError: fail, onMode: liveBadge });
  return { stop: live.stop, redraw: render };
}
