// The one DOM helper: el('p', { class: 'x', id: 'y' }, 'text') makes an element with
// those attributes (undefined and null ones left out) and that text. Text is set as
// textContent, never parsed as HTML.
export const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
