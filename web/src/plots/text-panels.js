// The panels that are text: scalars (named values with unit and help), tables and
// notes. Everything from the core is inserted as text, never as HTML.
import { fmt } from './common.js';
import { el } from '../dom.js';


// A scalar shows its catalogue label (the core falls back to its help), never its
// identifier, which stays in the export; a value the catalogue puts in words (a yes/no
// flag) shows those words.
export function drawScalars(panel, figure) {
  const list = el('dl', { class: 'scalars' });
  for (const item of panel.items || []) {
    const box = el('div', { class: 'scalar' });
    box.dataset.name = item.name;
    const label = item.label || item.help || '';
    box.appendChild(el('dt', { class: 'scalar-name' }, label));
    const dd = el('dd', { class: 'scalar-value' });
    const value = el('span', { class: item.text ? 'scalar-number scalar-words' : 'scalar-number' }, item.text || fmt(item.value));
    value.title = item.value === null ? 'not finite' : String(item.value);
    dd.appendChild(value);
    if (item.unit && !item.text) dd.appendChild(el('span', { class: 'scalar-unit' }, ` ${item.unit}`));
    box.appendChild(dd);
    if (item.help && item.help !== label) box.appendChild(el('dd', { class: 'scalar-help' }, item.help));
    list.appendChild(box);
  }
  figure.appendChild(list);
  return list;
}

export function drawTable(panel, figure) {
  const wrap = el('div', { class: 'table-wrap' });
  wrap.tabIndex = 0;  // scrollable by keyboard when wider than the screen
  const table = el('table', { class: 'data-table' });
  const head = el('thead');
  const hr = el('tr');
  for (const c of panel.columns || []) { const th = el('th', {}, String(c)); th.scope = 'col'; hr.appendChild(th); }
  head.appendChild(hr);
  table.appendChild(head);
  const body = el('tbody');
  for (const row of panel.rows || []) {
    const tr = el('tr');
    for (const cell of row) tr.appendChild(el('td', { class: /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(String(cell)) ? 'num' : undefined }, String(cell)));
    body.appendChild(tr);
  }
  table.appendChild(body);
  wrap.appendChild(table);
  figure.appendChild(wrap);
  return wrap;
}

export function drawNote(panel, figure) {
  const p = el('p', { class: 'note-text' }, panel.text || '');
  figure.appendChild(p);
  return p;
}
