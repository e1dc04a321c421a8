// /play: routes on the fragment (#gops=<id>&seat=<n>&t=<token>, ...), which never leaves the phone.
import { lang, setLang, t } from './i18n.js';
import { selfTest } from './sha256.js';
import { h, mount, savedGames, settleAfterTap } from './ui.js';
import { quiet, soundOn, setSound } from './turn.js';
import * as gops from './gops.js';
import * as gofo from './gofo.js';
import * as gofoWatch from './gofo_watch.js';
import * as bots from './bots.js';
import { clearSeats } from './seats.js';
import { RULES, drawRules } from './rules.js';
import { watchServer, redrawOffline } from './offline.js';

let current = null;

function home(root) {
  const saved = savedGames();
  mount(root,
    h('h1', {}, t('app.title')),
    h('p', {}, t('app.intro')),
    h('div', { class: 'stack' },
      h('a', { class: 'button primary big', href: '#new=gops', id: 'new-gops' }, t('app.new_gops')),
      h('a', { class: 'button primary big', href: '#new=gofo', id: 'new-gofo' }, t('app.new_gofo')),
      h('a', { class: 'button secondary big', href: '#new=referee', id: 'new-referee' }, t('bots.play'))),
    // My games: the games this phone created (their links and QR codes) or played a seat in, the
    // latest first, to get back in.
    saved.length ? h('section', { class: 'panel', id: 'my-games' },
      h('h2', {}, t('app.on_this_phone')),
      h('ul', { class: 'saved' }, saved.slice(0, 10).map((g) => h('li', { data: { kind: g.kind, id: g.id } },
        h('strong', {}, `${g.kind === 'gops' ? 'Gops' : 'Gofo'} ${g.id}`), ' ',
        h('span', { class: 'muted' }, new Date(g.at).toLocaleString(lang())),
        h('div', { class: 'saved-links' },
          g.host ? h('a', { class: 'saved-host', href: `#${g.kind}=${encodeURIComponent(g.id)}&host=${encodeURIComponent(g.host)}` }, t('app.saved_links')) : null,
          g.joined ? h('a', { class: 'saved-seat', href: `#${g.joined.hash}` }, t('app.saved_seat', { n: g.joined.seat + 1 })) : null))))) : null,
    h('p', { class: 'small', id: 'docs-link' }, t('app.docs'), ' ', h('a', { href: '/docs' }, '/docs')),
    // What the hashing self-test means to a player; what was tested, one tap away.
    h('details', { class: 'why small', id: 'sha-check', data: { ok: 'yes' } },
      h('summary', {}, `✔ ${t('app.sha_ok')}`), h('p', {}, t('app.sha_ok_how'))));
}

function route() {
  if (current && current.stop) current.stop();
  current = null;
  quiet();
  // Each page draws into a box of its own: what a page left behind still does (a read on its way)
  // draws into a box no longer shown.
  const root = h('div', { class: 'page' });
  document.getElementById('app').replaceChildren(root);
  settleAfterTap(root);
  document.body.dataset.page = '';
  document.body.dataset.phase = '';
  clearSeats();
  window.scrollTo(0, 0);
  if (!selfTest()) {
    mount(root, h('p', { class: 'error', id: 'sha-check', data: { ok: 'no' } }, t('app.sha_failed')));
    return;
  }
  const params = new URLSearchParams(location.hash.slice(1));
  const page = (name) => { document.body.dataset.page = name; };
  if (params.get('new') === 'gops') { page('gops-new'); gops.createPage(root); }
  else if (params.get('new') === 'gofo') { page('gofo-new'); gofo.createPage(root); }
  else if (params.get('new') === 'referee') { page('referee-new'); bots.createPage(root); }
  else if (params.get('gops') && params.has('watch')) { page('gops-watch'); current = gops.watchPage(root, params); }
  else if (params.get('gops') && params.has('seat')) { page('gops-seat'); current = gops.seatPage(root, params); }
  else if (params.get('gops')) { page('gops-host'); current = gops.hostPage(root, params); }
  else if (params.get('gofo') && params.has('watch')) { page('gofo-watch'); current = gofoWatch.watchPage(root, params); }
  else if (params.get('gofo') && params.has('seat')) { page('gofo-seat'); current = gofo.seatPage(root, params); }
  else if (params.get('gofo')) { page('gofo-host'); current = gofo.hostPage(root, params); }
  else { page('home'); home(root); }
}

/** The your-turn sound's switch in the bar: off until turned on. */
function showSound() {
  const button = document.getElementById('sound');
  const on = soundOn();
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
  button.setAttribute('aria-label', t(on ? 'sound.on' : 'sound.off'));
  button.title = t(on ? 'sound.on' : 'sound.off');
}

document.getElementById('sound').addEventListener('click', () => {
  setSound(!soundOn());
  showSound();
});

// How to play: the header's "?" opens the rules over any screen (the game on screen first) and closes them.
const rulesPanel = document.getElementById('rules');
const rulesButton = document.getElementById('rules-open');

function drawnRules() {
  const page = document.body.dataset.page || '';
  const game = page.startsWith('gofo') ? 'gofo' : page.startsWith('gops') || page.startsWith('referee') ? 'gops' : null;
  drawRules(rulesPanel, game).addEventListener('click', () => showRules(false));
}

function showRules(open) {
  if (open) drawnRules();
  rulesPanel.hidden = !open;
  rulesButton.setAttribute('aria-expanded', open ? 'true' : 'false');
  if (open) rulesPanel.scrollIntoView({ block: 'start' });
}

rulesButton.addEventListener('click', () => showRules(rulesPanel.hidden));

function showLang() {
  const button = document.getElementById('lang');
  const other = lang() === 'es' ? 'en' : 'es';
  button.textContent = other.toUpperCase();
  button.setAttribute('aria-label', other === 'es' ? 'Español' : 'English');
  button.dataset.switchTo = other;
  document.documentElement.lang = lang();
  document.title = t('app.title');
  // "Add to Home screen" names the page in its language: one manifest per language (manifest.en/es).
  const manifest = document.getElementById('manifest');
  const wanted = `/play/assets/manifest.${lang()}.webmanifest`;
  if (manifest.getAttribute('href') !== wanted) manifest.setAttribute('href', wanted);
  rulesButton.setAttribute('aria-label', RULES[lang()].open);
  rulesButton.title = RULES[lang()].open;
  if (!rulesPanel.hidden) drawnRules();
  redrawOffline();
  showSound();
}

document.getElementById('lang').addEventListener('click', () => {
  setLang(lang() === 'es' ? 'en' : 'es');
  showLang();
  // A game's page is drawn again in the other language, keeping what the player picked and opened.
  if (current && current.redraw) current.redraw();
  else route();
});
window.addEventListener('hashchange', route);
watchServer();
showLang();
route();
