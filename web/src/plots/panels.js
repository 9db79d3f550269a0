// Draws one Result panel (core/demo/icl/demo.h) into a <figure> by its kind.
import { drawLines } from './lines.js';
import { drawHeatmap } from './heatmap.js';
import { drawBars } from './bars.js';
import { drawScalars, drawTable, drawNote } from './text-panels.js';
import { plotWidth } from './common.js';
import { describePanel } from './describe.js';

const drawers = { lines: drawLines, heatmap: drawHeatmap, bars: drawBars, scalars: drawScalars, table: drawTable, note: drawNote };
export const GRAPHIC_KINDS = new Set(['lines', 'heatmap', 'bars']);

// -> the <figure>, appended to `container`; `width` is the column's width in px.
export function drawPanel(panel, container, width) {
  const figure = document.createElement('figure');
  figure.className = `panel panel-${panel.kind}`;
  figure.dataset.kind = panel.kind;
  if (panel.title) {
    const cap = document.createElement('figcaption');
    cap.textContent = panel.title;
    figure.appendChild(cap);
  }
  container.appendChild(figure);
  const draw = drawers[panel.kind];
  if (!draw) {
    const p = document.createElement('p');
    p.className = 'note-text';
    p.textContent = `(a panel of kind "${panel.kind}" this page cannot draw yet)`;
    figure.appendChild(p);
    return figure;
  }
  const body = document.createElement('div');
  body.className = 'panel-body';
  figure.appendChild(body);
  draw(panel, body, plotWidth(width));
  // a chart's words for those who cannot see it: a summary sentence and its data as a table
  if (GRAPHIC_KINDS.has(panel.kind)) describePanel(panel, body, body.querySelector('svg.plot-svg'));
  return figure;
}
