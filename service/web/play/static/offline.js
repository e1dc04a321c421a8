// Without the server: the page's files kept by a service worker where the origin allows one (a
// secure context: localhost, https; a phone on a plain-http LAN address gets none), and a line under
// the header while the server cannot be reached (live play needs it).
import { t } from './i18n.js';

let reachable = true;

function show() {
  const line = document.getElementById('offline');
  const down = !reachable || navigator.onLine === false;
  line.hidden = !down;
  line.textContent = down ? t(navigator.onLine === false ? 'offline.no_network' : 'offline.unreachable') : '';
  document.body.dataset.reachable = down ? 'no' : 'yes';
}

/** Register the service worker if this origin may have one; say on the body what became of it. */
function installable() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) {
    document.body.dataset.sw = 'unavailable';
    return;
  }
  document.body.dataset.sw = 'registering';
  navigator.serviceWorker.register('/play/sw.js', { scope: '/play' })
    .then(() => navigator.serviceWorker.ready)
    .then(() => { document.body.dataset.sw = 'on'; }, () => { document.body.dataset.sw = 'failed'; });
}

export function watchServer() {
  // api.js says after every call whether the server answered (any answer) or could not be reached.
  window.addEventListener('referee:reach', (event) => { reachable = event.detail; show(); });
  window.addEventListener('online', show);
  window.addEventListener('offline', show);
  installable();
  show();
}

/** The line again in the page's language. */
export const redrawOffline = show;
