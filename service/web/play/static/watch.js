// Watching a game or a table read-only, for Gops and Gofo alike: the link to share (no seat's key in
// it: the phone that opens it reads only the public view, stream and transcript) and the ◀ n of m ▶
// steps a replay is walked with.
import { t } from './i18n.js';
import { h, joinBase } from './ui.js';
import { qrSvg } from './qr.js';

/** The read-only link to a Gops game (`kind` gops) or a Gofo table (gofo), for any phone on the network. */
export function watchUrl(kind, id) {
  return `${joinBase()}/play#${kind}=${encodeURIComponent(id)}&watch=1`;
}

/** "Watch or share": the read-only link and its QR code, for the end screen and the host's and seats' pages. */
export function shareWatch(kind, id) {
  const url = watchUrl(kind, id);
  return h('details', { class: 'panel', id: 'share' },
    h('summary', {}, t('watch.share')),
    h('p', { class: 'hint' }, t(kind === 'gofo' ? 'watch.share_hint_gofo' : 'watch.share_hint')),
    qrSvg(url, t('watch.share')),
    h('input', { type: 'text', readonly: true, value: url, class: 'link', id: 'share-link', 'aria-label': t('watch.share'), on: { focus: (e) => e.target.select() } }),
    h('a', { class: 'button secondary', href: url, id: 'share-open' }, t('watch.open')));
}

/**
 * One row of replay steps: ◀ label ▶, with ids `${prefix}-prev`, `${prefix}-at`, `${prefix}-next`.
 * `at` is 1-based, out of `of`; `go(n)` shows step n (the caller keeps it within 1..of).
 */
export function stepper(prefix, { at, of, label, prev, next, go }) {
  return h('div', { class: 'replay-steps', id: `${prefix}-steps`, data: { at, of } },
    h('button', { type: 'button', class: 'secondary', id: `${prefix}-prev`, disabled: at <= 1, 'aria-label': prev, on: { click: () => go(at - 1) } }, '◀'),
    h('span', { id: `${prefix}-at`, class: 'big-text' }, label),
    h('button', { type: 'button', class: 'secondary', id: `${prefix}-next`, disabled: at >= of, 'aria-label': next, on: { click: () => go(at + 1) } }, '▶'));
}
