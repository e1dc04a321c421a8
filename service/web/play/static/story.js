// The story of a game as a picture: each seat's score (Gops) or balance (a Gofo session) after
// every round or hand, as a line chart in plain SVG drawn here. Each seat has a colour, a dash and
// a marker of its own (readable without colour), a legend below in HTML (it wraps on a phone), and
// the same story in words for screen readers (the SVG's <title> and <desc>).
import { t, rankName } from './i18n.js';
import { h, seatName } from './ui.js';
import * as frac from './frac.js';

const SVG = 'http://www.w3.org/2000/svg';
// Okabe–Ito: told apart by colour-blind eyes too; all dark enough on white.
const COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8a6a00', '#56b4e9', '#000000'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2', '10 4', '4 4'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond', 'circle', 'square', 'triangle'];

function s(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) el.setAttribute(k, String(v));
  for (const kid of kids.flat()) if (kid != null) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}

function marker(kind, x, y, colour) {
  const r = 3.5;
  if (kind === 'square') return s('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour });
  if (kind === 'triangle') return s('path', { d: `M${x} ${y - r - 1}L${x + r + 1} ${y + r}L${x - r - 1} ${y + r}Z`, fill: colour });
  if (kind === 'diamond') return s('path', { d: `M${x} ${y - r - 1}L${x + r + 1} ${y}L${x} ${y + r + 1}L${x - r - 1} ${y}Z`, fill: colour });
  return s('circle', { cx: x, cy: y, r, fill: colour });
}

/** Round numbers for an axis from `lo` to `hi`: about five, at 1, 2 or 5 × 10^k apart, whole (points and chips are counted whole). */
function ticks(lo, hi) {
  const span = Math.max(1, hi - lo);
  const raw = span / 4;
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((v) => v >= raw) || raw);
  const out = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 100) / 100);
  return out;
}

/**
 * A line chart: `xs` the labels of the points (round or hand numbers, the first one the start),
 * `series` [{seat, values}] one value per label, `strip` (optional) a row of short labels under the
 * axis, one per point after the start, each coloured by the seat it names ({text, seat}), named
 * `stripTitle` at its left.
 */
export function lineChart({ id, title, desc, xTitle, xs, series, strip, stripTitle }) {
  const W = 340;
  const left = 42;
  const right = 10;
  const top = 10;
  const plotH = 150;
  const stripH = strip ? 22 : 0;
  const H = top + plotH + 20 + stripH + 18;
  const all = series.flatMap((x) => x.values);
  let lo = Math.min(0, ...all);
  let hi = Math.max(1, ...all);
  const ys = ticks(lo, hi);
  lo = Math.min(lo, ys[0]);
  hi = Math.max(hi, ys[ys.length - 1]);
  const n = xs.length;
  const X = (i) => left + (n > 1 ? (i * (W - left - right)) / (n - 1) : 0);
  const Y = (v) => top + plotH - ((v - lo) * plotH) / (hi - lo || 1);
  const every = Math.ceil(n / 12); // x labels: at most a dozen
  // The strip's labels shrink to the room between two points (a bold digit is about 0.65 em wide).
  const room = n > 1 ? (W - left - right) / (n - 1) : W;
  const longest = strip ? Math.max(1, ...strip.map((cell) => cell.text.length)) : 1;
  const stripFont = Math.max(8, Math.min(15, Math.floor((room - 2) / (0.65 * longest))));
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', id, 'aria-labelledby': `${titleId} ${descId}` },
    s('title', { id: titleId }, title),
    s('desc', { id: descId }, desc),
    ys.map((v) => s('g', { class: 'grid' },
      s('line', { x1: left, x2: W - right, y1: Y(v), y2: Y(v), stroke: v === 0 ? '#000' : '#bbb', 'stroke-width': v === 0 ? 1.5 : 1 }),
      s('text', { x: left - 4, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 14 }, String(v)))),
    xs.map((label, i) => (i % every === 0 || i === n - 1
      ? s('text', { x: X(i), y: top + plotH + 16, 'text-anchor': 'middle', 'font-size': 14 }, String(label)) : null)),
    series.map((line, k) => s('g', { class: 'series', 'data-seat': line.seat },
      s('polyline', {
        points: line.values.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(' '),
        fill: 'none', stroke: COLOURS[k % COLOURS.length], 'stroke-width': 2.5, 'stroke-dasharray': DASHES[k % DASHES.length] || null,
        'stroke-linejoin': 'round',
      }),
      line.values.map((v, i) => (n <= 16 || i === n - 1 ? marker(MARKERS[k % MARKERS.length], X(i), Y(v), COLOURS[k % COLOURS.length]) : null)))),
    strip ? strip.map((cell, i) => s('text', {
      x: X(i + 1), y: top + plotH + 20 + 17, 'text-anchor': 'middle', 'font-size': stripFont, 'font-weight': 800,
      fill: cell.seat == null ? '#555' : COLOURS[series.findIndex((x) => x.seat === cell.seat) % COLOURS.length], class: 'strip',
    }, cell.text)) : null,
    strip && stripTitle ? s('text', { x: left - 4, y: top + plotH + 20 + 17, 'text-anchor': 'end', 'font-size': 12 }, stripTitle) : null,
    s('text', { x: W - right, y: H - 3, 'text-anchor': 'end', 'font-size': 13 }, xTitle));
  const legend = h('ul', { class: 'legend' }, series.map((line, k) => h('li', { data: { seat: line.seat } },
    s('svg', { viewBox: '0 0 28 12', width: 28, height: 12, 'aria-hidden': 'true' },
      s('line', { x1: 1, x2: 27, y1: 6, y2: 6, stroke: COLOURS[k % COLOURS.length], 'stroke-width': 2.5, 'stroke-dasharray': DASHES[k % DASHES.length] || null }),
      marker(MARKERS[k % MARKERS.length], 14, 6, COLOURS[k % COLOURS.length])),
    ' ', line.label)));
  return h('figure', { class: 'story' }, svg, legend);
}

const number = (text) => { const [n, d] = frac.parse(text); return Number(n) / Number(d); };

/** A Gops game's rounds: each seat's points after every round, and who took each prize. */
export function gopsStory(history, seats, id = 'gops-story') {
  if (!history.length) return null;
  const totals = Array.from({ length: seats }, () => ['0']);
  const strip = [];
  const lines = [];
  for (const record of history) {
    for (let seat = 0; seat < seats; seat++) {
      const share = (record.shares || {})[String(seat)];
      totals[seat].push(frac.sum([totals[seat][totals[seat].length - 1], share || '0']));
    }
    const pot = record.pot || record.row || [];
    const prize = pot.map(rankName).join('+');
    const winners = record.winners || [];
    // Under the axis, the prize of each round in its taker's colour ("K+": with prizes carried over).
    strip.push({ text: pot.length ? `${rankName(pot[pot.length - 1])}${pot.length > 1 ? '+' : ''}` : '—', seat: winners.length === 1 ? winners[0] : null });
    lines.push(t('story.gops_round', {
      n: record.round, prize,
      who: winners.length ? winners.map(seatName).join(', ') : t('story.nobody'),
      scores: totals.map((tt, seat) => `${seatName(seat)} ${tt[tt.length - 1]}`).join(', '),
    }));
  }
  const series = totals.map((values, seat) => ({ seat, values: values.map(number), label: `${seatName(seat)}: ${values[values.length - 1]}` }));
  return h('section', { class: 'panel', id },
    h('h2', {}, t('story.gops_title')),
    lineChart({
      id: `${id}-chart`, title: t('story.gops_title'), desc: lines.join(' '), xTitle: t('story.rounds'),
      xs: [0, ...history.map((r) => r.round)], series, strip, stripTitle: t('gops.prize_short'),
    }),
    h('p', { class: 'hint' }, t('story.gops_hint')));
}

/** A Gofo session: each seat's balance after every hand (the ledger's results, added up). */
export function gofoStory(results, seats, id = 'gofo-story') {
  if (!results.length) return null;
  const balances = Array.from({ length: seats }, () => [0]);
  const lines = [];
  results.forEach((result, i) => {
    for (let seat = 0; seat < seats; seat++) {
      const b = balances[seat];
      b.push(b[b.length - 1] + (result.net[seat] || 0));
    }
    lines.push(t('story.gofo_hand', { n: result.hand || i + 1, balances: balances.map((b, seat) => `${seatName(seat)} ${b[b.length - 1]}`).join(', ') }));
  });
  const signed = (v) => (v > 0 ? `+${v}` : String(v));
  const series = balances.map((values, seat) => ({ seat, values, label: `${seatName(seat)}: ${signed(values[values.length - 1])}` }));
  return h('div', { id },
    lineChart({
      id: `${id}-chart`, title: t('story.gofo_title'), desc: lines.join(' '), xTitle: t('story.hands'),
      xs: [0, ...results.map((r, i) => r.hand || i + 1)], series,
    }));
}
