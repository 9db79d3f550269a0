// Glossary terms on a lesson page: a term link is a button (the site build makes it, see
// web/sitegen/site.mjs termButtons) that opens the term's gloss in place, just after it,
// and closes it again. Enter or Space toggle it (it is a button), Escape closes the open
// gloss and puts the focus back on its term. One listener on the document, so terms in
// check feedback that appears later work too.
//   initGlossary(document, { id: { term, html } })   // html: the gloss, built by the core
let count = 0;

function close(button) {
  const pop = button.ownerDocument.getElementById(button.getAttribute('aria-controls') || '');
  if (pop) pop.remove();
  button.setAttribute('aria-expanded', 'false');
  button.removeAttribute('aria-controls');
}

function open(button, entry) {
  const doc = button.ownerDocument;
  const pop = doc.createElement('span');
  pop.className = 'term-gloss';
  pop.id = `term-gloss-${++count}`;
  const name = doc.createElement('strong');
  name.textContent = entry.term;
  const text = doc.createElement('span');
  text.innerHTML = entry.html;  // the core's HTML of the lesson's own glossary, built with the site
  pop.append(name, ' — ', text);
  button.after(pop);
  button.setAttribute('aria-controls', pop.id);
  button.setAttribute('aria-expanded', 'true');
}

export function initGlossary(doc, glossary) {
  const entries = glossary || {};
  doc.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button.term') : null;
    if (!button) return;
    const entry = Object.prototype.hasOwnProperty.call(entries, button.dataset.term) ? entries[button.dataset.term] : null;
    if (!entry) return;
    if (button.getAttribute('aria-expanded') === 'true') close(button);
    else open(button, entry);
  });
  doc.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !(event.target instanceof Element)) return;
    const inside = event.target.closest('.term-gloss');
    const button = inside ? inside.previousElementSibling : event.target.closest('button.term');
    if (!button || !button.matches('button.term') || button.getAttribute('aria-expanded') !== 'true') return;
    close(button);
    button.focus();
  });
}
