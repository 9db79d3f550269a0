// What every plot shares: SVG element helpers, number formatting, axis ticks (linear
// and log), colour-blind-safe palettes, and a hover read-out. Plots style their SVG
// with presentation attributes, not CSS, so a PNG export (the SVG drawn into a canvas)
// looks the same as the page.

export const SVG_NS = 'http://www.w3.org/2000/svg';
// the pages' font stack (app.css), which says why each Korean face is named
export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans KR", "Apple SD Gothic Neo", "Malgun Gothic", NanumGothic, sans-serif';
export const INK = '#1f2328';
export const MUTED = '#59636e';
export const GRID = '#e3e6ea';

export function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

export function svgText(parent, x, y, text, attrs = {}) {
  const t = svgEl('text', { x, y, fill: INK, 'font-size': 12, 'font-family': FONT, ...attrs }, parent);
  t.textContent = text;
  return t;
}

export function newSvg(width, height, label) {
  return svgEl('svg', {
    viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label,
    xmlns: SVG_NS, class: 'plot-svg', 'font-family': FONT,
  });
}

// A number with no format of its own: the display rule of core/base/icl/format.h
// (display_number), row by row; null (the core's non-finite) shows as its dash.
export function fmt(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (v === 0) return '0';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  // printf's "%.4g": 4 significant digits, trailing zeros dropped; exponent form (signed,
  // two digits at least) when the rounded decimal exponent is < -4 or >= 4.
  const [mantissa, exp] = v.toExponential(3).split('e');
  const e = Number(exp);
  const trim = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
  if (e < -4 || e >= 4) return `${trim(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return trim(v.toFixed(3 - e));
}

// Tick labels: as short as the tick spacing allows.
function tickFmt(v, step) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(step && Math.abs(step / v) < 0.1 ? 1 : 0).replace('e+', 'e');
  // As many decimals as the step needs (0.25 -> 2), so neighbouring ticks differ.
  const unit = step || a;
  let decimals = 0;
  while (decimals < 6 && Math.abs(Math.round(unit * 10 ** decimals) - unit * 10 ** decimals) > 1e-6 * 10 ** decimals) decimals++;
  return v.toFixed(decimals);
}

// About `count` round ticks over [lo, hi]. integer: the axis counts something (every
// value on it is whole: steps, shots, layers), so a tick between two whole numbers would
// name a value that cannot occur — steps of 1, 2, 5, 10, ... only.
export function linearTicks(lo, hi, count = 5, integer = false) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw * (1 - 1e-9)) || 10 * mag;
  if (integer) step = step <= 1 ? 1 : [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step * (1 - 1e-9) && Number.isInteger(s)) || 10 * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return ticks.map((v) => ({ value: v, label: tickFmt(v, step) }));
}

// Powers of ten when the range spans decades; 1-2-5 steps, then every digit, then
// linear ticks when it spans less (a loss going from 0.40 to 0.21).
export function logTicks(lo, hi) {
  const a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
  const label = (v, e) => (e >= -2 && e <= 3 ? String(Number(v.toPrecision(3))) : `${Number((v / 10 ** e).toPrecision(3))}e${e}`);
  const within = (v) => v >= lo * 0.999 && v <= hi * 1.001;
  const every = Math.max(1, Math.ceil((b - a) / 6));
  const decades = [];
  for (let e = a; e <= b; e += every) if (within(10 ** e)) decades.push({ value: 10 ** e, label: label(10 ** e, e) });
  if (decades.length >= 3) return decades;
  for (const mantissas of [[1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const ticks = [];
    for (let e = a; e <= b; e++) {
      for (const m of mantissas) {
        const v = m * 10 ** e;
        if (within(v)) ticks.push({ value: v, label: label(v, e) });
      }
    }
    if (ticks.length >= 3 && ticks.length <= 10) return ticks;
  }
  return linearTicks(lo, hi, 4).filter((t) => t.value > 0);
}

// Whether every finite value is a whole number (an axis of counts: integer ticks).
export const allIntegers = (values) => values.some(Number.isFinite) && values.every((v) => !Number.isFinite(v) || Number.isInteger(v));

// A scale maps data to pixels; log scales drop values <= 0 (returned as null).
// integer: ticks only at whole numbers (linearTicks).
export function makeScale(lo, hi, p0, p1, log, integer = false) {
  if (log) {
    const l0 = Math.log10(lo), l1 = Math.log10(hi);
    const span = l1 - l0 || 1;
    const f = (v) => (v > 0 ? p0 + ((Math.log10(v) - l0) / span) * (p1 - p0) : null);
    f.ticks = () => logTicks(lo, hi);
    return f;
  }
  const span = hi - lo || 1;
  const f = (v) => p0 + ((v - lo) / span) * (p1 - p0);
  f.ticks = (n) => linearTicks(lo, hi, n, integer);
  return f;
}

// Extent of finite (and, for log axes, positive) values, padded a little for linear axes.
export function extent(values, log, pad = 0.05) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (v === null || !Number.isFinite(v) || (log && v <= 0)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) return log ? [1, 10] : [0, 1];
  if (log) {
    if (lo === hi) return [lo / 10, hi * 10];
    const f = (hi / lo) ** pad;  // the same padding, in log space
    return [lo / f, hi * f];
  }
  if (lo === hi) return lo === 0 ? [-1, 1] : [lo - Math.abs(lo) * 0.5, hi + Math.abs(hi) * 0.5];
  const p = (hi - lo) * pad;
  return [lo - p, hi + p];
}

// Okabe & Ito's palette (distinguishable with the common colour-vision deficiencies), its
// orange, pink, sky blue and yellow darkened so that every mark keeps 3:1 against the
// white plot (WCAG 2.1's non-text contrast; the browser suite's accessibility audit checks).
export const SERIES_COLOURS = ['#0072B2', '#C07000', '#009E73', '#C0679A', '#2B8CC4', '#D55E00', '#000000', '#8F7C00'];
export const seriesColour = (i) => SERIES_COLOURS[i % SERIES_COLOURS.length];
// Dash patterns cycle too, so series stay apart in greyscale prints.
export const DASHES = ['', '6 4', '2 3', '8 3 2 3'];

// Sequential: viridis (perceptually uniform, colour-blind safe), 9 stops.
const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];
// Diverging: blue – white – red (ColorBrewer RdBu, reversed), centred at 0.
const RDBU = ['#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7', '#fddbc7', '#f4a582', '#d6604d', '#b2182b'];

function hexToRgb(h) {
  const n = parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function ramp(stops) {
  const rgb = stops.map(hexToRgb);
  return (t) => {
    const x = Math.min(1, Math.max(0, t)) * (rgb.length - 1);
    const i = Math.min(rgb.length - 2, Math.floor(x));
    const f = x - i;
    const c = rgb[i].map((a, k) => Math.round(a + (rgb[i + 1][k] - a) * f));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  };
}
export const sequential = ramp(VIRIDIS);
export const diverging = ramp(RDBU);
export const SEQUENTIAL_STOPS = VIRIDIS;
export const DIVERGING_STOPS = RDBU;

// Draws x and y axes with ticks and labels into `g`.
export function drawAxes(g, { x, y, box, xLabel, yLabel, xTicks, yTicks }) {
  const { left, right, top, bottom } = box;
  for (const t of yTicks) {
    const py = y(t.value);
    if (py === null) continue;
    svgEl('line', { x1: left, x2: right, y1: py, y2: py, stroke: GRID, 'stroke-width': 1 }, g);
    svgText(g, left - 6, py + 4, t.label, { 'text-anchor': 'end', fill: MUTED, 'font-size': 11 });
  }
  for (const t of xTicks) {
    const px = x(t.value);
    if (px === null) continue;
    svgEl('line', { x1: px, x2: px, y1: bottom, y2: bottom + 4, stroke: MUTED }, g);
    svgText(g, px, bottom + 17, t.label, { 'text-anchor': 'middle', fill: MUTED, 'font-size': 11 });
  }
  svgEl('line', { x1: left, x2: right, y1: bottom, y2: bottom, stroke: MUTED }, g);
  svgEl('line', { x1: left, x2: left, y1: top, y2: bottom, stroke: MUTED }, g);
  if (xLabel) svgText(g, (left + right) / 2, bottom + 34, xLabel, { 'text-anchor': 'middle', 'font-size': 12 });
  if (yLabel) {
    svgText(g, 0, 0, yLabel, { 'text-anchor': 'middle', 'font-size': 12,
      transform: `translate(${12} ${(top + bottom) / 2}) rotate(-90)` });
  }
}

// A read-out box over a plot: show(html lines, x, y in the figure's pixels) / hide.
export function makeReadout(figure) {
  const box = document.createElement('div');
  box.className = 'readout';
  box.hidden = true;
  box.setAttribute('role', 'status');
  figure.appendChild(box);
  return {
    show(lines, px, py) {
      box.replaceChildren(...lines.map((l) => {
        const row = document.createElement('div');
        if (l.colour) {
          const sw = document.createElement('span');
          sw.className = 'swatch';
          sw.dataset.colour = l.colour;
          sw.style.background = l.colour;
          row.appendChild(sw);
        }
        row.append(l.text);
        return row;
      }));
      box.hidden = false;
      const w = figure.clientWidth;
      box.style.left = `${Math.min(Math.max(px + 12, 0), Math.max(0, w - box.offsetWidth - 4))}px`;
      box.style.top = `${Math.max(py - box.offsetHeight - 8, 0)}px`;
    },
    hide() { box.hidden = true; },
  };
}

// Pointer position in the SVG's own coordinates (the viewBox), whatever its CSS size.
export function svgPoint(svg, event) {
  const r = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  return { x: ((event.clientX - r.left) / r.width) * vb.width, y: ((event.clientY - r.top) / r.height) * vb.height,
    scale: r.width / vb.width };
}

// Width the plot should be drawn at: its column's, within bounds.
export function plotWidth(columnWidth, min = 280, max = 880) {
  const w = columnWidth || max;
  return Math.max(min, Math.min(max, Math.floor(w)));
}
