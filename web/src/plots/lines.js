// Line plot of a "lines" panel: axes with ticks (linear or log), a legend, dashed
// series, error bands from y_err, and a hover / arrow-key read-out of every series'
// value at the nearest x.
import {
  svgEl, svgText, newSvg, fmt, makeScale, extent, drawAxes, seriesColour, DASHES, INK, MUTED,
  makeReadout, svgPoint, allIntegers,
} from './common.js';

const ok = (v) => v !== null && v !== undefined && Number.isFinite(v);

// Legend rows laid out left to right, wrapping at `width`; returns its height.
function drawLegend(g, series, width) {
  let x = 0, y = 14;
  const items = [];
  for (const [i, s] of series.entries()) {
    const w = 30 + Math.min(40, s.name.length) * 6.6 + 14;
    if (x > 0 && x + w > width) { x = 0; y += 18; }
    items.push({ i, s, x, y });
    x += w;
  }
  for (const { i, s, x: lx, y: ly } of items) {
    svgEl('line', { x1: lx, x2: lx + 22, y1: ly - 4, y2: ly - 4, stroke: seriesColour(i), 'stroke-width': 2.5,
      'stroke-dasharray': s.dashed ? '6 4' : DASHES[Math.floor(i / 8) % DASHES.length] || null }, g);
    svgText(g, lx + 28, ly, s.name.length > 40 ? `${s.name.slice(0, 39)}…` : s.name, { 'font-size': 12 });
  }
  return series.length ? y + 8 : 0;
}

export function drawLines(panel, figure, width) {
  const series = (panel.series || []).filter((s) => Array.isArray(s.x) && Array.isArray(s.y));
  const logX = Boolean(panel.log_x), logY = Boolean(panel.log_y);
  const svg = newSvg(width, 100, panel.title || 'line plot');
  const legend = svgEl('g', { transform: 'translate(56 4)' }, svg);
  const legendH = series.length > 1 || (series[0] && series[0].name) ? drawLegend(legend, series, width - 64) : 0;
  const plotH = Math.round(Math.min(320, Math.max(200, width * 0.5)));
  const height = legendH + plotH + 48;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('height', height);
  const box = { left: 56, right: width - 14, top: legendH + 10, bottom: legendH + 10 + plotH };

  const xs = [], ys = [];
  for (const s of series) {
    s.x.forEach((v) => xs.push(v));
    s.y.forEach((v, k) => {
      ys.push(v);
      const e = s.y_err && s.y_err[k];
      if (ok(v) && ok(e)) ys.push(v - e, v + e);
    });
  }
  const [x0, x1] = extent(xs, logX, 0);
  const [y0, y1] = extent(ys, logY);
  const x = makeScale(x0, x1, box.left, box.right, logX, allIntegers(xs));
  const y = makeScale(y0, y1, box.bottom, box.top, logY, allIntegers(ys));
  const axes = svgEl('g', {}, svg);
  drawAxes(axes, { x, y, box, xLabel: panel.x_label, yLabel: panel.y_label,
    xTicks: x.ticks(Math.max(3, Math.floor(width / 110))), yTicks: y.ticks(5) });

  const clip = `clip-${Math.random().toString(36).slice(2)}`;
  const defs = svgEl('defs', {}, svg);
  svgEl('rect', { x: box.left, y: box.top - 2, width: box.right - box.left, height: box.bottom - box.top + 4 },
    svgEl('clipPath', { id: clip }, defs));
  const data = svgEl('g', { 'clip-path': `url(#${clip})` }, svg);
  const px = (v) => (ok(v) ? x(v) : null);
  const py = (v) => (ok(v) ? y(v) : null);

  series.forEach((s, i) => {
    const colour = seriesColour(i);
    // Error band: the polygon through y+err forwards and y-err backwards.
    if (Array.isArray(s.y_err) && s.y_err.length === s.y.length && s.y_err.some(ok)) {
      const upper = [], lower = [];
      s.x.forEach((xv, k) => {
        const a = px(xv), hi = py(s.y[k] + s.y_err[k]), lo = py(logY ? Math.max(s.y[k] - s.y_err[k], y0) : s.y[k] - s.y_err[k]);
        if (a !== null && hi !== null && lo !== null && ok(s.y_err[k])) { upper.push(`${a},${hi}`); lower.unshift(`${a},${lo}`); }
      });
      if (upper.length > 1) svgEl('polygon', { points: [...upper, ...lower].join(' '), fill: colour, 'fill-opacity': 0.16, stroke: 'none' }, data);
    }
    let d = '', pen = false, points = 0;
    s.x.forEach((xv, k) => {
      const a = px(xv), b = py(s.y[k]);
      if (a === null || b === null) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${a.toFixed(1)},${b.toFixed(1)}`;
      pen = true;
      points++;
    });
    if (!s.markers) {
      svgEl('path', { d, fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-linejoin': 'round',
        'stroke-dasharray': s.dashed ? '6 4' : DASHES[Math.floor(i / 8) % DASHES.length] || null, class: 'series' }, data);
    }
    if (points <= 24 || s.markers) {
      s.x.forEach((xv, k) => {
        const a = px(xv), b = py(s.y[k]);
        if (a !== null && b !== null) svgEl('circle', { cx: a, cy: b, r: s.markers ? 4.5 : s.dashed ? 2.2 : 3, fill: s.dashed ? '#fff' : colour, stroke: colour, 'stroke-width': 1.5 }, data);
      });
    }
  });
  if (!series.some((s) => s.y.some(ok))) svgText(svg, (box.left + box.right) / 2, (box.top + box.bottom) / 2, '—', { 'text-anchor': 'middle', fill: MUTED });
  figure.appendChild(svg);

  // Hover: the distinct x values, nearest one to the pointer.
  const xValues = [...new Set(xs.filter((v) => ok(v) && (!logX || v > 0)))].sort((a, b) => a - b);
  const guide = svgEl('line', { y1: box.top, y2: box.bottom, stroke: INK, 'stroke-width': 1, 'stroke-dasharray': '2 2', visibility: 'hidden' }, svg);
  const marks = svgEl('g', {}, svg);
  const readout = makeReadout(figure);
  let current = -1;
  function showAt(k) {
    if (!xValues.length) return;
    current = Math.max(0, Math.min(xValues.length - 1, k));
    const xv = xValues[current];
    const gx = x(xv);
    guide.setAttribute('x1', gx);
    guide.setAttribute('x2', gx);
    guide.setAttribute('visibility', 'visible');
    marks.replaceChildren();
    const lines = [{ text: `${panel.x_label || 'x'} = ${fmt(xv)}` }];
    let topY = box.bottom;
    series.forEach((s, i) => {
      const k2 = s.x.indexOf(xv);
      if (k2 < 0) return;
      const yv = s.y[k2], e = s.y_err && s.y_err[k2];
      lines.push({ colour: seriesColour(i), text: `${s.name}: ${fmt(yv)}${ok(e) && s.y_err.length === s.y.length ? ` ± ${fmt(e)}` : ''}` });
      const b = py(yv);
      if (b !== null) {
        svgEl('circle', { cx: gx, cy: b, r: 4.5, fill: '#fff', stroke: seriesColour(i), 'stroke-width': 2 }, marks);
        topY = Math.min(topY, b);
      }
    });
    const scale = svg.getBoundingClientRect().width / width || 1;
    readout.show(lines, gx * scale, topY * scale);
  }
  function hide() {
    guide.setAttribute('visibility', 'hidden');
    marks.replaceChildren();
    readout.hide();
  }
  svg.addEventListener('pointermove', (e) => {
    const p = svgPoint(svg, e);
    if (p.x < box.left - 8 || p.x > box.right + 8) { hide(); return; }
    let best = 0, bestD = Infinity;
    xValues.forEach((v, k) => { const dd = Math.abs(x(v) - p.x); if (dd < bestD) { bestD = dd; best = k; } });
    showAt(best);
  });
  svg.addEventListener('pointerleave', hide);
  svg.addEventListener('blur', hide);
  svg.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      showAt(current < 0 ? 0 : current + (e.key === 'ArrowRight' ? 1 : -1));
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      showAt(e.key === 'Home' ? 0 : xValues.length - 1);
    } else if (e.key === 'Escape') hide();
  });
  svg.setAttribute('tabindex', '0');
  return svg;
}
