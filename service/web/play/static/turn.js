// This phone's turn, noticed: a short vibration when a turn begins (once, not on every redraw),
// the page title ("● Your turn — Gops"), and a screen kept awake while a game is on. Each one only
// where the browser has it (Wake Lock needs a secure context; vibration a phone that was tapped).
import { t } from './i18n.js';

const state = { mine: false, playing: false, lock: null, asking: false };

async function keepAwake() {
  if (!state.playing || state.asking || (state.lock && !state.lock.released)) return;
  if (!('wakeLock' in navigator) || document.visibilityState !== 'visible') return;
  state.asking = true;
  try {
    state.lock = await navigator.wakeLock.request('screen');
  } catch {
    state.lock = null; // refused (battery saver, a hidden page): the screen may sleep
  } finally {
    state.asking = false;
  }
  if (!state.playing) letSleep();
}

function letSleep() {
  const lock = state.lock;
  state.lock = null;
  if (lock && !lock.released) lock.release().catch(() => {});
}

// The browser releases the lock when the page is hidden: taken again when it is shown.
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') keepAwake(); });

/**
 * Called by each redraw of a game's page: `mine` — this phone has a move to make now; `playing` —
 * the game is still on; `game` — its name for the title.
 */
export function turnNotice({ mine, playing, game }) {
  if (mine && !state.mine && typeof navigator.vibrate === 'function'
      && (!navigator.userActivation || navigator.userActivation.hasBeenActive)) {
    try { navigator.vibrate([120, 80, 120]); } catch { /* not on this phone */ }
  }
  state.mine = mine;
  document.title = mine ? `● ${t('turn.yours')} — ${game}` : `${game} — ${t('app.title')}`;
  state.playing = playing;
  if (playing) keepAwake(); else letSleep();
}

/** Leaving a game's page: no turn, no lock, the page's own title. */
export function quiet() {
  state.mine = false;
  state.playing = false;
  letSleep();
  document.title = t('app.title');
}
