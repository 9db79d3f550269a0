// Draws one Result panel (core/demo_framework/icl/demo.h) into a <figure> by its kind.
import { drawLines } from './lines.js';
import { drawHeatmap } from './heatmap.js';
import { drawBars } from './bars.js';
import { drawScalars, drawTable, drawNote } from './text-panels.js';
import { plotWidth } from './common.js';
import { describePanel } from './describe.js';

export { splitPanels } from './layout.js';

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

// Whether a demo's "More results" is open, remembered for the tab's session.
const moreKey = (demo) => `icl-more-results:${demo}`;
export function moreOpen(demo) {
  try { return window.sessionStorage.getItem(moreKey(demo)) === 'open'; } catch { return false; }
}
function rememberMore(demo, open) {
  try { window.sessionStorage.setItem(moreKey(demo), open ? 'open' : 'closed'); } catch { /* storage off: forgotten */ }
}

// The folded part: a <details> whose summary says how many panels it holds; its
// contents go into the returned element's `.panels-more`.
export function moreResults(demo, summaryText) {
  const details = document.createElement('details');
  details.className = 'more-results';
  details.open = moreOpen(demo);
  details.addEventListener('toggle', () => rememberMore(demo, details.open));
  const summary = document.createElement('summary');
  summary.textContent = summaryText;
  const inner = document.createElement('div');
  inner.className = 'panels-more';
  details.append(summary, inner);
  return details;
}
