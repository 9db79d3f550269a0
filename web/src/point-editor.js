// The control of a "points" parameter (core/demo_framework/icl/demo.h): an SVG plot where a
// click adds a point, a drag moves it and a click on a point (or Delete when it has the
// focus; arrow keys move it) removes it, beside a text field "x,y; x,y" for keyboard
// users and pasting. The core validates what is sent and names a bad point; the local
// reading here only keeps the plot in step with the text.
import { svgEl, svgText, makeScale, linearTicks, drawAxes, svgPoint, seriesColour, MUTED } from './plots/common.js';

const W = 320, H = 220;
const BOX = { left: 38, right: W - 10, top: 10, bottom: H - 26 };
const DRAG_PX = 4;  // a press that moves less than this is a click

const round = (v, step) => {
  const r = step > 0 ? Math.round(v / step) * step : v;
  return Number(r.toPrecision(6));
};

// "x,y; x,y" <-> [[x, y], ...]. Text that does not read as pairs of numbers gives null:
// it is sent as typed, and the core's message names the bad point.
export function pointsToText(points) {
  return (points || []).map(([x, y]) => `${x},${y}`).join('; ');
}
export function textToPoints(text) {
  const items = String(text).split(';').map((s) => s.trim()).filter((s) => s !== '');
  const out = [];
  for (const item of items) {
    const parts = item.split(',');
    if (parts.length !== 2) return null;
    const xy = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
    if (!xy.every(Number.isFinite)) return null;
    out.push(xy);
  }
  return out;
}

export function buildPointEditor(row, spec, value, id, described, onChange, words = {}) {
  const step = spec.step > 0 ? spec.step : 0;
  let points = Array.isArray(value) ? value.map((p) => [...p]) : (textToPoints(value) || []);
  const x = makeScale(spec.x_min, spec.x_max, BOX.left, BOX.right, false);
  const y = makeScale(spec.y_min, spec.y_max, BOX.bottom, BOX.top, false);
  const fromPx = (px, py) => [
    round(Math.min(spec.x_max, Math.max(spec.x_min, spec.x_min + ((px - BOX.left) / (BOX.right - BOX.left)) * (spec.x_max - spec.x_min))), step),
    round(Math.min(spec.y_max, Math.max(spec.y_min, spec.y_min + ((BOX.bottom - py) / (BOX.bottom - BOX.top)) * (spec.y_max - spec.y_min))), step),
  ];

  const wrap = document.createElement('div');
  wrap.className = 'point-editor';
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'point-plot', role: 'group',
    'aria-label': `${spec.name}: ${words.pointsHelp || 'click to add a point, drag to move, click a point to remove it'}`,
    'aria-describedby': described, 'data-count': points.length });
  const axes = svgEl('g', {}, svg);
  drawAxes(axes, { x, y, box: BOX, xLabel: '', yLabel: '',
    xTicks: linearTicks(spec.x_min, spec.x_max, 4), yTicks: linearTicks(spec.y_min, spec.y_max, 4) });
  svgEl('rect', { x: BOX.left, y: BOX.top, width: BOX.right - BOX.left, height: BOX.bottom - BOX.top,
    fill: 'transparent', class: 'point-area' }, svg);
  const layer = svgEl('g', {}, svg);
  const count = svgText(svg, BOX.right, BOX.top + 12, '', { 'text-anchor': 'end', fill: MUTED, 'font-size': 11 });

  const text = document.createElement('input');
  Object.assign(text, { type: 'text', id, name: spec.name, spellcheck: false, autocomplete: 'off' });
  text.className = 'point-text';
  text.setAttribute('aria-label', `${spec.name} (x,y; x,y)`);
  if (described) text.setAttribute('aria-describedby', described);
  text.setAttribute('inputmode', 'text');

  let pending = null;  // a frame's worth of drag moves, sent once per frame
  const send = (final) => {
    if (!final) {
      if (pending) return;
      pending = requestAnimationFrame(() => { pending = null; onChange(spec.name, points.map((p) => [...p]), false); });
      return;
    }
    if (pending) { cancelAnimationFrame(pending); pending = null; }
    onChange(spec.name, points.map((p) => [...p]), true);
  };

  const label = (k, p) => `${words.point || 'point'} ${k + 1}: x = ${p[0]}, y = ${p[1]}`;
  function draw(focusIndex = -1) {
    layer.replaceChildren();
    points.forEach((p, k) => {
      const dot = svgEl('circle', { cx: x(p[0]), cy: y(p[1]), r: 7, fill: seriesColour(0), stroke: '#fff', 'stroke-width': 2,
        tabindex: 0, role: 'button', class: 'point', 'aria-label': label(k, p), 'data-index': k }, layer);
      if (k === focusIndex) dot.focus();
    });
    count.textContent = `${points.length} / ${spec.max_count}`;
    svg.setAttribute('data-count', points.length);
    text.value = pointsToText(points);
  }

  // Pointer: press on a point = drag it (a click without moving removes it); press on
  // the empty plot = add a point there (a click, so a touch scroll does not add one).
  let drag = null;
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const target = e.target.closest && e.target.closest('.point');
    const at = svgPoint(svg, e);
    drag = { index: target ? Number(target.dataset.index) : -1, x0: at.x, y0: at.y, scale: at.scale, moved: false };
    if (target) {
      svg.setPointerCapture(e.pointerId);
      e.preventDefault();
    }
  });
  svg.addEventListener('pointermove', (e) => {
    if (!drag || drag.index < 0) return;
    const at = svgPoint(svg, e);
    if (!drag.moved && Math.hypot(at.x - drag.x0, at.y - drag.y0) * drag.scale < DRAG_PX) return;
    drag.moved = true;
    points[drag.index] = fromPx(at.x, at.y);
    const dot = layer.children[drag.index];
    dot.setAttribute('cx', x(points[drag.index][0]));
    dot.setAttribute('cy', y(points[drag.index][1]));
    text.value = pointsToText(points);
    send(false);
  });
  const release = (e) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    const at = svgPoint(svg, e);
    if (d.index >= 0) {
      if (d.moved) { draw(); send(true); return; }
      points.splice(d.index, 1);  // a click on a point removes it
      draw();
      send(true);
      return;
    }
    if (Math.hypot(at.x - d.x0, at.y - d.y0) * d.scale >= DRAG_PX) return;  // a scroll, not a click
    if (at.x < BOX.left || at.x > BOX.right || at.y < BOX.top || at.y > BOX.bottom) return;
    if (points.length >= spec.max_count) return;
    points.push(fromPx(at.x, at.y));
    draw();
    send(true);
  };
  svg.addEventListener('pointerup', release);
  svg.addEventListener('pointercancel', () => { drag = null; draw(); });

  // Keyboard on a focused point: arrows move it by one grid step (Shift: ten), Delete
  // or Backspace removes it.
  svg.addEventListener('keydown', (e) => {
    const target = e.target.closest && e.target.closest('.point');
    if (!target) return;
    const k = Number(target.dataset.index);
    const unit = (step || (spec.x_max - spec.x_min) / 100) * (e.shiftKey ? 10 : 1);
    const moves = { ArrowLeft: [-unit, 0], ArrowRight: [unit, 0], ArrowUp: [0, unit], ArrowDown: [0, -unit] };
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      points.splice(k, 1);
      draw(Math.min(k, points.length - 1));
      send(true);
    } else if (moves[e.key]) {
      e.preventDefault();
      const [dx, dy] = moves[e.key];
      points[k] = [round(Math.min(spec.x_max, Math.max(spec.x_min, points[k][0] + dx)), step),
        round(Math.min(spec.y_max, Math.max(spec.y_min, points[k][1] + dy)), step)];
      draw(k);
      send(true);
    }
  });

  // Text: read as the learner types (debounced) and on Enter or leaving the field.
  let timer = null;
  const commit = () => {
    clearTimeout(timer);
    const read = textToPoints(text.value);
    if (read) {
      points = read;
      const keep = text.value;
      draw();
      text.value = keep;
      onChange(spec.name, read, true);
    } else {
      onChange(spec.name, text.value, true);  // the core names what is wrong
    }
  };
  text.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(commit, 400); });
  text.addEventListener('change', commit);

  wrap.append(svg, text);
  row.appendChild(wrap);
  draw();
  return (v) => {
    const read = Array.isArray(v) ? v.map((p) => [...p]) : textToPoints(v);
    if (read) { points = read; draw(); } else { text.value = String(v); }
  };
}
