// Players' names: typed on the create forms (optional), set by a seat from its own phone.
// A name is only ever put on the page as text.
import { call } from './api.js';
import { t } from './i18n.js';
import { h, mount, fail, toast } from './ui.js';
import { nameOf } from './seats.js';

export const NAME_MAX = 24;

/**
 * An optional name per seat on a create form, as many as the form's `countName` field (players or
 * seats) says: put `element` in the form, then `bind(form)`. `names()` gives the create body's list,
 * or undefined when none was typed.
 */
export function namesField(countName, max) {
  const list = h('div', { class: 'names-list' });
  const inputs = [];
  const panel = h('details', { class: 'more', id: 'names' }, h('summary', {}, t('names.title')), list);
  let form = null;
  const count = () => Math.min(max, Math.max(0, Number(form.elements[countName].value) || 0));
  const draw = () => {
    while (inputs.length < count()) {
      const n = inputs.length;
      inputs.push(h('label', { class: 'field' }, h('span', { class: 'label' }, t('names.seat', { n: n + 1 })),
        h('input', { type: 'text', name: `name-${n}`, id: `f-name-${n}`, maxlength: NAME_MAX, autocomplete: 'off' })));
    }
    mount(list, inputs.slice(0, count()));
  };
  return {
    element: panel,
    bind(owner) {
      form = owner;
      form.elements[countName].addEventListener('input', draw);
      draw();
    },
    names() {
      const typed = inputs.slice(0, count()).map((label) => label.querySelector('input').value.trim() || null);
      return typed.some((name) => name) ? typed : undefined;
    },
  };
}

/**
 * A seat's own name on its page, kept across redraws (what is being typed stays, and so does the
 * keyboard): `row(view, 'top')` gives the element while the seat has no name (where a player who
 * just joined sees it), `row(view, 'bottom')` once it has one; both null once the game is over.
 */
export function ownName(kind, id, seat, token, onView) {
  const input = h('input', { type: 'text', id: 'my-name', maxlength: NAME_MAX, autocomplete: 'nickname', 'aria-label': t('names.yours') });
  const save = h('button', { type: 'submit', class: 'secondary', id: 'my-name-save' }, t('names.save'));
  const label = h('label', { class: 'label', for: 'my-name' }, t('names.yours'));
  const form = h('form', { class: 'panel name-row', id: 'name-form', novalidate: true },
    label, h('div', { class: 'name-line' }, input, save));
  let shown = null; // the name the referee holds, last drawn
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name || name === shown) return;
    save.disabled = true;
    try {
      const base = kind === 'gops' ? `/v1/gops/games/${encodeURIComponent(id)}` : `/v1/gofo/tables/${encodeURIComponent(id)}`;
      const r = await call('POST', `${base}/seats/${seat}/name`, { token, body: { name } });
      input.blur();
      toast(t('names.saved'), 'info');
      onView(r.data);
    } catch (error) {
      // The referee's reason for a name is in English: the page says it in the player's words.
      if (error.code === 'invalid_request') toast(t('names.refused', { max: NAME_MAX }));
      else fail(error);
    } finally {
      save.disabled = false;
    }
  });
  return {
    row(view, where) {
      if (!view || view.phase === 'over') return null;
      const name = nameOf(seat);
      if ((where === 'top') === Boolean(name)) return null;
      if (document.activeElement === input) {
        queueMicrotask(() => { if (input.isConnected) input.focus(); }); // the page redraws around it
      } else if (name !== shown) {
        input.value = name || '';
      }
      shown = name;
      form.dataset.named = name ? 'yes' : 'no';
      label.textContent = t('names.yours'); // in the language the page is drawn in now
      input.setAttribute('aria-label', t('names.yours'));
      save.textContent = t('names.save');
      return form;
    },
  };
}
