// The reload client of the authors' watch mode (web/watch.mjs). web/serve.mjs adds it to
// the pages it sends in watch mode as /__icl/watch.js?v=<build version the page is of>;
// it is never part of the built site. It listens to /__icl/events (same origin, which
// the pages' CSP allows) and reloads the page when this page was written again, or when
// the lessons start or stop failing the lint (the server then sends the problem list).
// The lint's warnings are listed in a bar at the foot of the page, as text.
const served = Number(new URL(import.meta.url).searchParams.get('v') || 0);
const onProblems = document.body.classList.contains('icl-watch-problems');
let page = location.pathname.replace(/^\/+/, '');
if (page === '' || page.endsWith('/')) page += 'index.html';
page = decodeURIComponent(page);

let bar = null;
function showWarnings(warnings) {
  if (!bar) {
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = '/__icl/watch.css';
    document.head.append(css);
    bar = document.createElement('details');
    bar.className = 'icl-watch-warnings';
    bar.append(document.createElement('summary'), document.createElement('ul'));
    document.body.append(bar);
  }
  bar.hidden = warnings.length === 0;
  bar.querySelector('summary').textContent = `watch: ${warnings.length} lint warning${warnings.length === 1 ? '' : 's'}`;
  bar.querySelector('ul').replaceChildren(...warnings.map((w) => {
    const li = document.createElement('li');
    li.textContent = w;
    return li;
  }));
}

const events = new EventSource('/__icl/events');
events.onmessage = (e) => {
  let m;
  try { m = JSON.parse(e.data); } catch { return; }
  const rewritten = (m.pages && m.pages[page]) > served;
  if (m.errors !== onProblems || (onProblems && m.version > served) || (!m.errors && rewritten)) {
    events.close();
    location.reload();
    return;
  }
  showWarnings(Array.isArray(m.warnings) ? m.warnings.map(String) : []);
};
