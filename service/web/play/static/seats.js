// Who sits where in the game on screen: the players' names and the seats the referee plays (bots),
// from the last view a page applied. seatName() in ui.js reads them; a name is only ever text.
import { t } from './i18n.js';

let names = [];
let bots = new Map();

/** Remember the names and bots of `view` (a Gops or Gofo view, or a move's answer carrying one). */
export function showSeats(view) {
  if (!view) return;
  if (Array.isArray(view.names)) names = view.names;
  const list = view.bots || (view.table && view.table.bots);
  if (Array.isArray(list)) bots = new Map(list.map((b) => [b.seat, b.level]));
}

/** Forget them (a new page). */
export function clearSeats() {
  names = [];
  bots = new Map();
}

/** The level of the bot playing `seat`, or null for a player's seat. */
export function botLevel(seat) {
  return bots.has(seat) ? bots.get(seat) : null;
}

/**
 * "🤖 Referee · level 8" for a bot ("🤖 Referee 3 · level 8", by its seat's number, when the
 * referee plays several seats), the player's name, or null (no name: the caller says "Seat N").
 */
export function seatLabel(seat) {
  if (bots.has(seat)) {
    return bots.size > 1 ? t('bots.seat_n', { n: seat + 1, level: bots.get(seat) }) : t('bots.seat', { level: bots.get(seat) });
  }
  const name = names[seat];
  return typeof name === 'string' && name ? name : null;
}

/** The seat's own name, or null. */
export function nameOf(seat) {
  const name = names[seat];
  return typeof name === 'string' && name ? name : null;
}
