// This phone's turn, noticed: a short vibration when a turn begins (once, not on every redraw), a
// sound if the player turned it on,
// the page title ("● Your turn — Gops"), and a screen kept awake while a game is on. Each one only
// where the browser has it (Wake Lock needs a secure context; vibration a phone that was tapped).
import { t } from './i18n.js';

const state = { mine: false, playing: false, lock: null, asking: false };

// The your-turn sound: off until the player turns it on (remembered on this phone); two short
// notes made by WebAudio, no sound file.
const SOUND = 'referee:sound';
let audio = null;

export function soundOn() {
  return localStorage.getItem(SOUND) === 'on';
}

/** Turn the sound on or off; turned on (a tap: the browser lets a page sound after one), it plays once. */
export function setSound(on) {
  localStorage.setItem(SOUND, on ? 'on' : 'off');
  if (on) chime();
}

function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    if (audio.state === 'suspended') audio.resume().catch(() => {});
    const start = audio.currentTime + 0.01;
    for (const [frequency, at] of [[660, 0], [880, 0.18]]) {
      const note = audio.createOscillator();
      const volume = audio.createGain();
      note.type = 'sine';
      note.frequency.value = frequency;
      volume.gain.setValueAtTime(0.0001, start + at);
      volume.gain.exponentialRampToValueAtTime(0.3, start + at + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.0001, start + at + 0.16);
      note.connect(volume).connect(audio.destination);
      note.start(start + at);
      note.stop(start + at + 0.17);
    }
  } catch {
    // no sound on this phone
  }
}

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
  if (mine && !state.mine && soundOn()) chime();
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
