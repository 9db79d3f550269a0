// The index: each lesson's progress (checks whose last answer was right, out of its
// checks), how many checks are due for review (the core's schedule), and the learner's
// progress file: download, upload (merged by the core; a damaged file is refused and
// nothing changes), a CSV summary for a teacher, and a button that forgets it all —
// after asking, keeping a copy that a second button restores.
import { CoreClient } from './core-client.js';
import { loadProgress, importProgress, clearProgress, hasForgotten, restoreProgress, recordOf, now } from './progress.js';
import { download } from './export.js';
import { notice } from './notices.js';
import { fillTemplate } from './i18n.js';

// The index speaks to every learner: each sentence in each language of the site, English
// first (its words: lessons/<lang>/catalogue/site.json's index*, carried in the page).
const { langs, words } = JSON.parse(document.getElementById('index-data').textContent);
// (a value may be a function of the language: a text of the catalogue itself)
const sayIn = (l, key, values = {}) => fillTemplate(words[l][key] ?? words.en[key] ?? `⟦${key}⟧`,
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'function' ? v(l) : v])));
const say = (key, values) => [...new Set(langs.map((l) => sayIn(l, key, values)))].join(' · ');

const client = new CoreClient(new URL('worker.js', import.meta.url));
client.onFatal = (message) => notice(say('indexEngineFailed', { message }), 'error');
const cards = () => [...document.querySelectorAll('.lesson-card')];

async function show() {
  await client.ready;
  const loaded = await loadProgress(client);
  if (loaded.notice === 'reset') notice(say('indexReset'), 'warning');
  const { progress } = loaded;
  const known = new Set();
  for (const card of cards()) {
    const checks = card.dataset.checks ? card.dataset.checks.split(' ') : [];
    for (const c of checks) known.add(`${card.dataset.lesson}/${c}`);
    const correct = checks.filter((c) => {
      const r = recordOf(progress, card.dataset.lesson, c);
      return r && r.correct;
    }).length;
    const box = card.querySelector('.card-progress');
    if (!checks.length) { box.replaceChildren(); continue; }
    const meter = document.createElement('progress');
    meter.max = checks.length;
    meter.value = correct;
    meter.setAttribute('aria-label', say('indexCorrectLabel'));
    const label = document.createElement('span');
    label.className = 'progress-label';
    label.textContent = say('indexCorrect', { correct, count: checks.length });
    box.replaceChildren(meter, label);
    card.dataset.correct = String(correct);
    card.classList.toggle('complete', correct === checks.length);
  }
  // Due for review: only checks these lessons still have.
  const due = await client.call('progress_due', loaded.text, now());
  const count = due.error ? 0 : due.due.filter((d) => known.has(`${d.lesson}/${d.check}`)).length;
  const box = document.getElementById('review-box');
  box.dataset.due = String(count);
  document.getElementById('review-due').textContent = say(count === 0 ? 'indexNothingDue' : count === 1 ? 'indexDueOne' : 'indexDue', { count });
  document.body.dataset.ready = 'true';
}

// The restore button exists while a forgotten copy does.
const forget = document.getElementById('forget-progress');
const restore = document.createElement('button');
restore.type = 'button';
restore.id = 'restore-progress';
restore.className = 'link-button';
restore.textContent = say('indexRestoreProgress');
forget.after(restore);
const showRestore = () => { restore.hidden = !hasForgotten(); };
showRestore();
forget.addEventListener('click', async () => {
  if (!window.confirm(say('indexForgetConfirm'))) return;
  await clearProgress();
  showRestore();
  show();
});
restore.addEventListener('click', async () => {
  const r = await restoreProgress(client);
  if (r.error) notice(say('indexNotImported', { problem: r.error === 'storage' ? (l) => sayIn(l, 'indexNoStorage') : r.error }), 'error');
  else notice(say('indexRestored', { added: r.added, updated: r.updated }), 'info');
  showRestore();
  show();
});
document.getElementById('export-progress').addEventListener('click', async () => {
  const { text } = await loadProgress(client);
  download('icl-lab-progress.json', new Blob([text], { type: 'application/json' }));
});
document.getElementById('summary-csv').addEventListener('click', async () => {
  const { text } = await loadProgress(client);
  const r = await client.call('progress_csv', text);
  if (r.error) notice(r.error, 'error');
  else download('icl-lab-summary.csv', new Blob([r.csv], { type: 'text/csv' }));
});
const upload = document.getElementById('import-progress');
upload.addEventListener('change', async () => {
  const file = upload.files && upload.files[0];
  upload.value = '';
  if (!file) return;
  const text = file.size > (1 << 20) ? null : await file.text();
  const r = text === null ? { error: (l) => sayIn(l, 'indexTooLarge') } : await importProgress(client, text);
  if (r.error) notice(say('indexNotImported', { problem: r.error === 'storage' ? (l) => sayIn(l, 'indexNoStorage') : r.error }), 'error');
  else notice(say('indexImported', { added: r.added, updated: r.updated }), 'info');
  show();
});

show();
window.addEventListener('pageshow', (e) => { if (e.persisted) show(); });
