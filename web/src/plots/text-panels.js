// The panels that are text: scalars (named values with unit and help), tables and
// notes. Everything from the core is inserted as text, never as HTML.
import { fmt } from './common.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

export function drawScalars(panel, figure) {
  const list = el('dl', 'scalars');
  for (const item of panel.items || []) {
    const box = el('div', 'scalar');
    box.appendChild(el('dt', 'scalar-name', item.name));
    const dd = el('dd', 'scalar-value');
    const value = el('span', 'scalar-number', fmt(item.value));
    value.title = item.value === null ? 'not finite' : String(item.value);
    dd.appendChild(value);
    if (item.unit) dd.appendChild(el('span', 'scalar-unit', ` ${item.unit}`));
    box.appendChild(dd);
    if (item.help) box.appendChild(el('dd', 'scalar-help', item.help));
    list.appendChild(box);
  }
  figure.appendChild(list);
  return list;
}

export function drawTable(panel, figure) {
  const wrap = el('div', 'table-wrap');
  wrap.tabIndex = 0;  // scrollable by keyboard when wider than the screen
  const table = el('table', 'data-table');
  const head = el('thead');
  const hr = el('tr');
  for (const c of panel.columns || []) { const th = el('th', '', String(c)); th.scope = 'col'; hr.appendChild(th); }
  head.appendChild(hr);
  table.appendChild(head);
  const body = el('tbody');
  for (const row of panel.rows || []) {
    const tr = el('tr');
    for (const cell of row) tr.appendChild(el('td', /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(String(cell)) ? 'num' : '', String(cell)));
    body.appendChild(tr);
  }
  table.appendChild(body);
  wrap.appendChild(table);
  figure.appendChild(wrap);
  return wrap;
}

export function drawNote(panel, figure) {
  const p = el('p', 'note-text', panel.text || '');
  figure.appendChild(p);
  return p;
}
