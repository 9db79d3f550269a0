// Heatmap of a "heatmap" panel: cells coloured by value (diverging blue–white–red
// centred at 0 for signed data, viridis for sequential), row/column labels, a colour
// scale with ticks, and a hover / arrow-key read-out of the cell's value.
import {
  svgEl, svgText, newSvg, fmt, linearTicks, sequential, diverging, SEQUENTIAL_STOPS, DIVERGING_STOPS,
  MUTED, INK, makeReadout, svgPoint,
} from './common.js';

const ok = (v) => v !== null && v !== undefined && Number.isFinite(v);
// Past this many cells they are one raster image, not SVG rects: induction_heads' 48 x 48
// attention maps as 2 x 2304 rects, redrawn four times a second while it trains, kept the
// page's main thread 96 % busy (a CPU profile over 8 s: 0.3 s idle); as images, 60 % idle.
const MANY_CELLS = 400;
const MISSING = '#8c8c8c';

export function drawHeatmap(panel, figure, width) {
  const rows = Math.max(0, panel.rows | 0), cols = Math.max(0, panel.cols | 0);
  const values = Array.isArray(panel.values) ? panel.values : [];
  const rowLabels = panel.row_labels || [], colLabels = panel.col_labels || [];
  const isDiverging = panel.scale === 'diverging';
  const finite = values.filter(ok);
  let lo = finite.length ? Math.min(...finite) : 0, hi = finite.length ? Math.max(...finite) : 1;
  if (isDiverging) { const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1; lo = -m; hi = m; }
  if (hi === lo) { hi = lo + 1; }
  // A missing (non-finite) value is grey: white means 0 on the diverging scale.
  const colour = (v) => (ok(v) ? (isDiverging ? diverging : sequential)((v - lo) / (hi - lo)) : MISSING);

  const showRowLabels = rowLabels.length === rows && rows <= 40;
  const showColLabels = colLabels.length === cols && cols <= 40;
  const longestRow = showRowLabels ? Math.max(...rowLabels.map((l) => String(l).length), 1) : 0;
  const left = (panel.y_label ? 22 : 4) + (showRowLabels ? Math.min(90, 8 + longestRow * 6.8) : 28);
  const legendW = 64;
  const cellW = Math.max(2, (width - left - legendW - 8) / Math.max(cols, 1));
  const cellH = Math.max(2, Math.min(cellW, 34, 420 / Math.max(rows, 1)));
  const gridW = cellW * cols, gridH = cellH * rows;
  const rotateCols = showColLabels && colLabels.some((l) => String(l).length * 6.5 > cellW);
  const colLabelH = showColLabels ? (rotateCols ? Math.min(70, 10 + Math.max(...colLabels.map((l) => String(l).length)) * 5.5) : 18) : 18;
  const top = 8;
  const height = top + gridH + colLabelH + (panel.x_label ? 22 : 4) + 6;
  const svg = newSvg(width, Math.max(height, 120), panel.title || 'heatmap');

  if (rows * cols > MANY_CELLS) {
    const canvas = document.createElement('canvas');
    canvas.width = cols;
    canvas.height = rows;
    const ctx = canvas.getContext('2d');
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        ctx.fillStyle = colour(values[r * cols + c]);
        ctx.fillRect(c, r, 1, 1);
      }
    }
    svgEl('image', { x: left, y: top, width: gridW, height: gridH, href: canvas.toDataURL('image/png'),
      preserveAspectRatio: 'none', 'image-rendering': 'pixelated' }, svg);
  } else {
    const cells = svgEl('g', {}, svg);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        svgEl('rect', { x: (left + c * cellW).toFixed(2), y: (top + r * cellH).toFixed(2),
          width: (cellW + 0.3).toFixed(2), height: (cellH + 0.3).toFixed(2), fill: colour(values[r * cols + c]) }, cells);
      }
    }
  }
  svgEl('rect', { x: left, y: top, width: gridW, height: gridH, fill: 'none', stroke: MUTED, 'stroke-width': 0.5 }, svg);

  // Labels: all when few, else every k-th index.
  const every = (px) => Math.max(1, Math.ceil(14 / px));
  const rStep = showRowLabels ? every(cellH) : Math.max(1, Math.ceil(rows / 8));
  for (let r = 0; r < rows; r += rStep) {
    const label = showRowLabels ? String(rowLabels[r]) : String(r);
    svgText(svg, left - 5, top + (r + 0.5) * cellH + 4, label, { 'text-anchor': 'end', 'font-size': 11, fill: MUTED });
  }
  const cStep = showColLabels ? (rotateCols ? every(cellW) : 1) : Math.max(1, Math.ceil(cols / 8));
  for (let c = 0; c < cols; c += cStep) {
    const label = showColLabels ? String(colLabels[c]) : String(c);
    const cx = left + (c + 0.5) * cellW, cy = top + gridH + 14;
    if (rotateCols) svgText(svg, cx, cy - 6, label, { 'text-anchor': 'end', 'font-size': 11, fill: MUTED, transform: `rotate(-55 ${cx} ${cy - 6})` });
    else svgText(svg, cx, cy, label, { 'text-anchor': 'middle', 'font-size': 11, fill: MUTED });
  }
  if (panel.x_label) svgText(svg, left + gridW / 2, top + gridH + colLabelH + 16, panel.x_label, { 'text-anchor': 'middle' });
  if (panel.y_label) svgText(svg, 0, 0, panel.y_label, { 'text-anchor': 'middle', transform: `translate(12 ${top + gridH / 2}) rotate(-90)` });

  // Colour scale: a gradient bar with ticks.
  const id = `grad-${Math.random().toString(36).slice(2)}`;
  const grad = svgEl('linearGradient', { id, x1: 0, y1: 1, x2: 0, y2: 0 }, svgEl('defs', {}, svg));
  const stops = isDiverging ? DIVERGING_STOPS : SEQUENTIAL_STOPS;
  stops.forEach((s, k) => svgEl('stop', { offset: k / (stops.length - 1), 'stop-color': s }, grad));
  const barX = left + gridW + 14, barH = Math.max(60, Math.min(gridH, 220));
  svgEl('rect', { x: barX, y: top, width: 12, height: barH, fill: `url(#${id})`, stroke: MUTED, 'stroke-width': 0.5 }, svg);
  for (const t of linearTicks(lo, hi, 4)) {
    const ty = top + barH - ((t.value - lo) / (hi - lo)) * barH;
    svgEl('line', { x1: barX + 12, x2: barX + 16, y1: ty, y2: ty, stroke: MUTED }, svg);
    svgText(svg, barX + 18, ty + 4, t.label, { 'font-size': 10, fill: MUTED });
  }
  figure.appendChild(svg);

  const outline = svgEl('rect', { width: cellW, height: cellH, fill: 'none', stroke: INK, 'stroke-width': 2, visibility: 'hidden' }, svg);
  const readout = makeReadout(figure);
  let cur = null;
  function showAt(r, c) {
    if (!rows || !cols) return;
    r = Math.max(0, Math.min(rows - 1, r));
    c = Math.max(0, Math.min(cols - 1, c));
    cur = { r, c };
    outline.setAttribute('x', left + c * cellW);
    outline.setAttribute('y', top + r * cellH);
    outline.setAttribute('visibility', 'visible');
    const rl = rowLabels[r] !== undefined ? rowLabels[r] : r, cl = colLabels[c] !== undefined ? colLabels[c] : c;
    const scale = svg.getBoundingClientRect().width / width || 1;
    readout.show([
      { text: `${panel.y_label || 'row'}: ${rl}` },
      { text: `${panel.x_label || 'column'}: ${cl}` },
      { colour: colour(values[r * cols + c]), text: fmt(values[r * cols + c]) },
    ], (left + (c + 1) * cellW) * scale, (top + r * cellH) * scale);
  }
  function hide() { outline.setAttribute('visibility', 'hidden'); readout.hide(); }
  svg.addEventListener('pointermove', (e) => {
    const p = svgPoint(svg, e);
    const c = Math.floor((p.x - left) / cellW), r = Math.floor((p.y - top) / cellH);
    if (r < 0 || c < 0 || r >= rows || c >= cols) { hide(); return; }
    showAt(r, c);
  });
  svg.addEventListener('pointerleave', hide);
  svg.addEventListener('blur', hide);
  svg.addEventListener('keydown', (e) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const [dr, dc] = moves[e.key];
      showAt(cur ? cur.r + dr : 0, cur ? cur.c + dc : 0);
    } else if (e.key === 'Escape') hide();
  });
  svg.setAttribute('tabindex', '0');
  return svg;
}
