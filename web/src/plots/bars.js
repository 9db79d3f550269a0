// Bar chart of a "bars" panel: one bar per label from 0 (or the data's floor on the
// negative side), error bars when "errors" has one entry per bar, hover read-out.
import {
  svgEl, svgText, newSvg, fmt, makeScale, extent, drawAxes, seriesColour, INK, makeReadout, svgPoint, allIntegers,
} from './common.js';

const ok = (v) => v !== null && v !== undefined && Number.isFinite(v);

// The width of a label at font size 11, estimated before it is drawn: a Hangul or CJK
// character takes about a full em, a Latin one a little over half.
const LABEL_PX = 11, LINE_PX = 13, ANGLE = 50 * Math.PI / 180;
const labelWidth = (s) => [...String(s)].reduce((w, ch) => w + (ch.codePointAt(0) >= 0x1100 ? LABEL_PX : LABEL_PX * 0.6), 0);

// A label broken at spaces into lines no wider than `room`; null when a word alone is
// wider, or when it would take more than three lines (the labels are then rotated).
function wrapLabel(label, room) {
  const lines = [];
  for (const word of String(label).split(/\s+/).filter(Boolean)) {
    if (labelWidth(word) > room) return null;
    const last = lines.length ? `${lines[lines.length - 1]} ${word}` : null;
    if (last !== null && labelWidth(last) <= room) lines[lines.length - 1] = last;
    else lines.push(word);
  }
  return lines.length <= 3 ? lines : null;
}

export function drawBars(panel, figure, width) {
  const labels = panel.labels || [], values = panel.values || [];
  const errors = Array.isArray(panel.errors) && panel.errors.length === values.length ? panel.errors : [];
  const n = values.length;
  // Labels under their bars, broken into lines when long; rotated when a line cannot fit
  // (then the plot moves right and the labels get the height they need: none is cut off).
  const text = labels.map((l, k) => String(l ?? k));
  const wrapped = text.map((l) => wrapLabel(l, (width - 68) / Math.max(n, 1) - 6));
  const rotate = wrapped.some((w) => w === null);
  const longest = Math.max(0, ...text.map(labelWidth));
  const left = rotate ? Math.max(56, Math.ceil(labelWidth(text[0] || '') * Math.cos(ANGLE) - (width - 68) / Math.max(n, 1) / 2 + 4)) : 56;
  const labelH = rotate ? Math.ceil(longest * Math.sin(ANGLE) + LABEL_PX + 12)
    : 8 + LINE_PX * Math.max(1, ...wrapped.map((w) => w.length));
  const plotH = Math.round(Math.min(280, Math.max(180, width * 0.42)));
  const height = 12 + plotH + labelH + 8;
  const svg = newSvg(width, height, panel.title || 'bar chart');
  const box = { left, right: width - 12, top: 12, bottom: 12 + plotH };
  const all = [0];
  values.forEach((v, k) => { all.push(v); if (ok(v) && ok(errors[k])) all.push(v - errors[k], v + errors[k]); });
  const [y0, y1] = extent(all, false);
  const y = makeScale(y0, y1, box.bottom, box.top, false, allIntegers(all));
  const band = (box.right - box.left) / Math.max(n, 1);
  const x = (k) => box.left + band * (k + 0.5);
  drawAxes(svgEl('g', {}, svg), { x: () => null, y, box, yLabel: panel.y_label, xTicks: [], yTicks: y.ticks(5) });
  const barW = Math.max(2, Math.min(56, band * 0.7));
  const zero = y(Math.max(y0, Math.min(0, y1)));
  values.forEach((v, k) => {
    const cx = x(k);
    if (ok(v)) {
      const top = Math.min(y(v), zero), h = Math.abs(y(v) - zero);
      svgEl('rect', { x: cx - barW / 2, y: top, width: barW, height: Math.max(h, 0.5), fill: seriesColour(0), class: 'bar' }, svg);
      if (ok(errors[k])) {
        const a = y(v - errors[k]), b = y(v + errors[k]);
        svgEl('line', { x1: cx, x2: cx, y1: a, y2: b, stroke: INK, 'stroke-width': 1.5 }, svg);
        for (const e of [a, b]) svgEl('line', { x1: cx - 5, x2: cx + 5, y1: e, y2: e, stroke: INK, 'stroke-width': 1.5 }, svg);
      }
    }
    const label = text[k];
    if (rotate) svgText(svg, cx, box.bottom + 12, label, { 'text-anchor': 'end', 'font-size': LABEL_PX, transform: `rotate(-50 ${cx} ${box.bottom + 12})` });
    else wrapped[k].forEach((line, j) => svgText(svg, cx, box.bottom + 15 + j * LINE_PX, line, { 'text-anchor': 'middle', 'font-size': LABEL_PX }));
  });
  svgEl('line', { x1: box.left, x2: box.right, y1: zero, y2: zero, stroke: INK, 'stroke-width': 1 }, svg);
  figure.appendChild(svg);

  const readout = makeReadout(figure);
  const hi = svgEl('rect', { y: box.top, height: box.bottom - box.top, fill: INK, 'fill-opacity': 0.06, visibility: 'hidden' }, svg);
  let cur = -1;
  function showAt(k) {
    if (!n) return;
    cur = Math.max(0, Math.min(n - 1, k));
    hi.setAttribute('x', box.left + band * cur);
    hi.setAttribute('width', band);
    hi.setAttribute('visibility', 'visible');
    const scale = svg.getBoundingClientRect().width / width || 1;
    const e = errors[cur];
    readout.show([{ text: String(labels[cur] ?? cur) },
      { colour: seriesColour(0), text: `${panel.y_label || 'value'}: ${fmt(values[cur])}${ok(e) ? ` ± ${fmt(e)}` : ''}` }],
    x(cur) * scale, (ok(values[cur]) ? y(values[cur]) : box.bottom) * scale);
  }
  function hide() { hi.setAttribute('visibility', 'hidden'); readout.hide(); }
  svg.addEventListener('pointermove', (ev) => {
    const p = svgPoint(svg, ev);
    const k = Math.floor((p.x - box.left) / band);
    if (k < 0 || k >= n) { hide(); return; }
    showAt(k);
  });
  svg.addEventListener('pointerleave', hide);
  svg.addEventListener('blur', hide);
  svg.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
      ev.preventDefault();
      showAt(cur < 0 ? 0 : cur + (ev.key === 'ArrowRight' ? 1 : -1));
    } else if (ev.key === 'Escape') hide();
  });
  svg.setAttribute('tabindex', '0');
  return svg;
}
