// A chart's text alternative: one summary sentence (the SVG's accessible name, read in
// place of the picture) and the panel's numbers as a table behind a
// "Data" disclosure. The table is built when the disclosure opens, so a page of large
// heatmaps pays nothing for it until someone asks. The words are the page's catalogue
// (lessons/<lang>/catalogue/site.json, "plot.*"), English where a page has none.
import { fmt } from './common.js';
import { fillTemplate } from '../i18n.js';

const ENGLISH = {
  'plot.data': 'Data',
  'plot.lines': '{title}: a line plot of {series} against {x}, from {x0} to {x1}; last values {ends}.',
  'plot.heatmap': '{title}: a heatmap of {rows} rows by {cols} columns, values from {min} to {max}.',
  'plot.bars': '{title}: a bar chart of {count} bars: {bars}.',
  'plot.row': 'row',
  'plot.empty': '{title}: no values yet.',
};
let pageWords = null;

// The page's words, read once from its JSON block (lesson, embed or review page).
function words() {
  if (!pageWords) {
    let found = null;
    for (const id of ['lesson-data', 'embed-data', 'review-data', 'index-data']) {
      const node = document.getElementById(id);
      if (!node) continue;
      try { found = JSON.parse(node.textContent).words || null; } catch { found = null; }
      if (found) break;
    }
    if (!found) return ENGLISH;  // not parsed yet: ask again next time
    pageWords = found;
  }
  return pageWords;
}
const say = (key, values) => fillTemplate(words()[key] || ENGLISH[key], values);
const ok = (v) => v !== null && v !== undefined && Number.isFinite(v);

// -> the summary sentence of a lines, heatmap or bars panel.
export function summarise(panel) {
  const title = panel.title || panel.kind;
  if (panel.kind === 'lines') {
    const series = (panel.series || []).filter((s) => Array.isArray(s.x) && Array.isArray(s.y));
    const xs = series.flatMap((s) => s.x.filter(ok));
    if (!xs.length) return say('plot.empty', { title });
    const ends = series.map((s) => {
      let k = s.y.length - 1;
      while (k >= 0 && !ok(s.y[k])) k--;
      return `${s.name || panel.y_label || 'y'} ${k >= 0 ? fmt(s.y[k]) : '—'}`;
    });
    return say('plot.lines', { title, series: series.map((s) => s.name || panel.y_label || 'y').join(', '),
      x: panel.x_label || 'x', x0: fmt(Math.min(...xs)), x1: fmt(Math.max(...xs)), ends: ends.join(', ') });
  }
  if (panel.kind === 'heatmap') {
    const finite = (panel.values || []).filter(ok);
    if (!finite.length) return say('plot.empty', { title });
    let min = Infinity, max = -Infinity;
    for (const v of finite) { if (v < min) min = v; if (v > max) max = v; }
    return say('plot.heatmap', { title, rows: panel.rows | 0, cols: panel.cols | 0, min: fmt(min), max: fmt(max) });
  }
  const labels = panel.labels || [], values = panel.values || [];
  if (!values.length) return say('plot.empty', { title });
  return say('plot.bars', { title, count: values.length,
    bars: values.map((v, k) => `${labels[k] ?? k + 1} ${fmt(v)}`).join(', ') });
}

// The panel's numbers as rows and columns of text: { head: [...], rows: [[...]] }.
export function dataTable(panel) {
  if (panel.kind === 'lines') {
    const series = (panel.series || []).filter((s) => Array.isArray(s.x) && Array.isArray(s.y));
    const xs = [...new Set(series.flatMap((s) => s.x.filter(ok)))].sort((a, b) => a - b);
    const rows = xs.map((x) => [fmt(x), ...series.map((s) => {
      const k = s.x.indexOf(x);
      if (k < 0) return '';
      const e = Array.isArray(s.y_err) && s.y_err.length === s.y.length ? s.y_err[k] : null;
      return `${fmt(s.y[k])}${ok(e) ? ` ± ${fmt(e)}` : ''}`;
    })]);
    return { head: [panel.x_label || 'x', ...series.map((s) => s.name || panel.y_label || 'y')], rows };
  }
  if (panel.kind === 'heatmap') {
    const rows = panel.rows | 0, cols = panel.cols | 0, values = panel.values || [];
    const rl = panel.row_labels || [], cl = panel.col_labels || [];
    const head = ['', ...Array.from({ length: cols }, (_, c) => String(cl[c] ?? c + 1))];
    return { head, rows: Array.from({ length: rows }, (_, r) =>
      [String(rl[r] ?? `${say('plot.row', {})} ${r + 1}`), ...Array.from({ length: cols }, (_, c) => fmt(values[r * cols + c]))]) };
  }
  const labels = panel.labels || [], values = panel.values || [];
  const errors = Array.isArray(panel.errors) && panel.errors.length === values.length ? panel.errors : [];
  return { head: ['', panel.y_label || ''], rows: values.map((v, k) => [String(labels[k] ?? k + 1),
    `${fmt(v)}${ok(errors[k]) ? ` ± ${fmt(errors[k])}` : ''}`]) };
}

// Gives `svg` (role img) the summary as its name and appends to `figure` the "Data"
// disclosure, whose table is built on first opening.
export function describePanel(panel, figure, svg) {
  if (svg) svg.setAttribute('aria-label', summarise(panel));
  const details = document.createElement('details');
  details.className = 'plot-data';
  const summary = document.createElement('summary');
  summary.textContent = say('plot.data', {});
  details.appendChild(summary);
  details.addEventListener('toggle', () => {
    if (!details.open || details.querySelector('table')) return;
    const { head, rows } = dataTable(panel);
    const table = document.createElement('table');
    const caption = document.createElement('caption');
    caption.textContent = panel.title || '';
    table.appendChild(caption);
    const tr = document.createElement('tr');
    for (const h of head) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = h;
      tr.appendChild(th);
    }
    table.createTHead().appendChild(tr);
    const body = table.createTBody();
    for (const row of rows) {
      const r = body.insertRow();
      row.forEach((cell, i) => {
        const c = document.createElement(i === 0 ? 'th' : 'td');
        if (i === 0) c.scope = 'row';
        c.textContent = cell;
        r.appendChild(c);
      });
    }
    details.appendChild(table);
  });
  figure.appendChild(details);
}
