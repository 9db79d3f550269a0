// Draws the first demo's result that the site build computed with the same wasm core
// (web/sitegen/site.mjs, firstResult; inert JSON in <script id="first-result">) as soon as
// its block has been parsed and the styles are in — an async module that needs only the
// plots, so it runs while the rest of the page (its text, lesson.js's graph, the engine)
// is still loading. Not when the URL sets that demo up (the learner then sees only their
// own setup's result). lesson.js's DemoBlock takes the drawing over (showPrecomputed),
// and the live run replaces it.
import { drawPanel, splitPanels, moreResults } from './plots/panels.js';
import { readUrlParams } from './url-state.js';

// Resolves once find() returns something, re-asked as the parser adds nodes; null if the
// document finished parsing without it.
function whenParsed(find) {
  const now = find();
  if (now || document.readyState !== 'loading') return Promise.resolve(now || null);
  return new Promise((resolve) => {
    const done = (value) => {
      observer.disconnect();
      document.removeEventListener('DOMContentLoaded', last);
      resolve(value);
    };
    const observer = new MutationObserver(() => {
      const found = find();
      if (found) done(found);
    });
    const last = () => done(find() || null);
    observer.observe(document.documentElement, { childList: true, subtree: true });
    document.addEventListener('DOMContentLoaded', last);
  });
}

// The page's stylesheets, loaded (the panels are drawn at the column's width).
const stylesLoaded = () => Promise.all([...document.querySelectorAll('link[rel=stylesheet]')]
  .filter((link) => !link.sheet)
  .map((link) => new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  })));

async function drawFirst() {
  const tag = await whenParsed(() => document.getElementById('first-result'));
  if (!tag) return;
  const carried = JSON.parse(tag.textContent);
  if (readUrlParams(window.location.search, [carried.name]).byInstance[carried.name].length) return;
  // The block is complete once the parser has gone past it.
  const section = await whenParsed(() => {
    const s = document.querySelector(`section.demo[data-instance="${CSS.escape(carried.name)}"]`);
    return s && s.nextSibling ? s : null;
  });
  if (!section) return;
  await stylesLoaded();
  const body = section.querySelector('.demo-body');
  if (!body || body.firstChild || section.dataset.precomputed) return;  // lesson.js came first
  if (carried.caption) {
    const note = document.createElement('p');
    note.className = 'precomputed-note';
    note.textContent = carried.caption;
    note.hidden = Boolean(carried.held);
    body.appendChild(note);
  }
  if (carried.held) {
    // A predict check asks for this result: drawn, but hidden under the note until it is
    // answered or the learner runs the demo (demo-block.js, hold).
    const held = document.createElement('p');
    held.className = 'held-note';
    held.textContent = carried.heldNote;
    body.appendChild(held);
  }
  const panels = document.createElement('div');
  panels.className = 'panels';
  panels.setAttribute('aria-live', 'off');
  panels.hidden = Boolean(carried.held);
  body.appendChild(panels);
  const width = panels.clientWidth || body.clientWidth;  // held: hidden, no width of its own
  const holder = document.createDocumentFragment();
  // As demo-block.js draws it: what the result leads with open, the rest folded; a panel
  // beside a control goes beside it once lesson.js has built the controls.
  const { lead, rest } = splitPanels(carried.result, (p) => Boolean(p.beside));
  for (const panel of lead) drawPanel(panel, holder, width);
  for (const panel of carried.result.panels || []) if (panel.beside) drawPanel(panel, holder, width);
  if (rest.length && carried.moreResults) {
    const more = moreResults(carried.result.demo, carried.moreResults);
    for (const panel of rest) drawPanel(panel, more.querySelector('.panels-more'), width);
    holder.appendChild(more);
  }
  panels.appendChild(holder);
  section.dataset.precomputed = 'shown';
  if (!document.body.dataset.firstDrawMs) document.body.dataset.firstDrawMs = String(Math.round(performance.now()));
}

// The demo engine (engine-boot.js: the worker and its wasm core) starts once the carried
// result is drawn, so on a small machine the wasm compile does not take the CPU from it.
drawFirst().finally(() => {
  if (window.iclEngine) return;
  const boot = document.createElement('script');
  boot.src = new URL('engine-boot.js', import.meta.url).href;
  document.head.appendChild(boot);
});
