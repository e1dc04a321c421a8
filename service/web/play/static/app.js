// /play: routes on the fragment (#gops=<id>&seat=<n>&t=<token>, ...), which never leaves the phone.
import { lang, setLang, t } from './i18n.js';
import { selfTest } from './sha256.js';
import { h, mount, savedGames } from './ui.js';
import { quiet } from './turn.js';
import * as gops from './gops.js';
import * as gofo from './gofo.js';
import * as bots from './bots.js';
import { clearSeats } from './seats.js';

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
    saved.length ? h('section', { class: 'panel' },
      h('h2', {}, t('app.on_this_phone')),
      h('ul', { class: 'saved' }, saved.slice(0, 10).map((g) => h('li', {},
        h('a', { href: `#${g.kind}=${encodeURIComponent(g.id)}&host=${encodeURIComponent(g.host)}` },
          `${g.kind === 'gops' ? 'Gops' : 'Gofo'} ${g.id}`), ' ',
        h('span', { class: 'muted' }, new Date(g.at).toLocaleString(lang())))))) : null,
    // What the hashing self-test means to a player; what was tested, one tap away.
    h('details', { class: 'why small', id: 'sha-check', data: { ok: 'yes' } },
      h('summary', {}, `✔ ${t('app.sha_ok')}`), h('p', {}, t('app.sha_ok_how'))));
}

function route() {
  if (current && current.stop) current.stop();
  current = null;
  quiet();
  const root = document.getElementById('app');
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
  else if (params.get('gops') && params.has('seat')) { page('gops-seat'); current = gops.seatPage(root, params); }
  else if (params.get('gops')) { page('gops-host'); current = gops.hostPage(root, params); }
  else if (params.get('gofo') && params.has('seat')) { page('gofo-seat'); current = gofo.seatPage(root, params); }
  else if (params.get('gofo')) { page('gofo-host'); current = gofo.hostPage(root, params); }
  else { page('home'); home(root); }
}

function showLang() {
  const button = document.getElementById('lang');
  const other = lang() === 'es' ? 'en' : 'es';
  button.textContent = other.toUpperCase();
  button.setAttribute('aria-label', other === 'es' ? 'Español' : 'English');
  button.dataset.switchTo = other;
  document.documentElement.lang = lang();
  document.title = t('app.title');
}

document.getElementById('lang').addEventListener('click', () => {
  setLang(lang() === 'es' ? 'en' : 'es');
  showLang();
  // A game's page is drawn again in the other language, keeping what the player picked and opened.
  if (current && current.redraw) current.redraw();
  else route();
});
window.addEventListener('hashchange', route);
showLang();
route();
