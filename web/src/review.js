// The review page: the checks the core's schedule says are due (answered wrongly, or
// answered right long enough ago), asked one at a time with the same CheckBlock, grader
// and feedback as the lesson pages. A predict check is graded with its demo run in the
// lesson's setup, as on the lesson page.
import { pageClient } from './core-client.js';
import { CheckBlock } from './check-block.js';
import { loadProgress, loadProgressFor, now } from './progress.js';
import { wordsFor } from './i18n.js';
import { notice } from './notices.js';
import { initGlossary } from './glossary.js';

const data = JSON.parse(document.getElementById('review-data').textContent);
initGlossary(document, data.glossary);
const words = wordsFor(data.words);
const client = pageClient(words);

const byKey = new Map(data.checks.map((c) => [`${c.lesson}/${c.check.id}`, c]));
const status = document.getElementById('review-status');
const section = document.getElementById('review-check');
const next = document.getElementById('review-next');
let queue = [];
let pos = 0;

function showItem() {
  next.hidden = true;
  const item = queue[pos];
  if (!item) {
    section.hidden = true;
    section.dataset.check = '';
    status.textContent = words.reviewDone;
    document.body.dataset.reviewDone = 'true';
    return;
  }
  status.textContent = words.reviewOf({ index: pos + 1, count: queue.length });
  section.hidden = false;
  section.dataset.check = item.check.id;
  for (const k of ['answered', 'verdict', 'grading']) delete section.dataset[k];
  document.getElementById('review-where').textContent = `${words.fromLesson} ${item.lessonTitle}`;
  section.querySelector('.check-prompt').innerHTML = item.check.prompt_html || '';  // lesson HTML from the build
  section.querySelector('.check-body').replaceChildren();
  // A predict check's demo, run in the lesson's setup when the answer is graded.
  const demoBlocks = item.demo ? {
    [item.check.grading.demo]: { lessonResult: () => client.runToEnd({ demo: item.demo.demo, params: item.demo.params, lang: data.lang, seed: 1 }) },
  } : {};
  new CheckBlock({ check: item.check, section, client, words, lessonId: item.lesson, demoBlocks,
    onProgress: (saved) => {
      if (!saved) notice(words.storageOff, 'warning');
      next.hidden = false;
    } });
}

next.addEventListener('click', () => {
  pos += 1;
  showItem();
  section.querySelector('input')?.focus();
});

async function start() {
  await client.ready;
  // Answers saved under the lesson a check came from (its "from") move to the lesson that
  // holds it now, as on that lesson's page, so they come up for review there.
  const moved = new Map();
  for (const c of data.checks) if (c.check.from) moved.set(c.lesson, [...(moved.get(c.lesson) || []), c.check]);
  for (const [lesson, checks] of moved) await loadProgressFor(client, lesson, checks);
  const loaded = await loadProgress(client);
  if (loaded.notice === 'reset') notice(words.progressReset, 'warning');
  if (loaded.notice === 'unavailable') notice(words.storageOff, 'warning');
  const due = await client.call('progress_due', loaded.text, now());
  queue = due.error ? [] : due.due.map((d) => byKey.get(`${d.lesson}/${d.check}`)).filter(Boolean);
  document.body.dataset.due = String(queue.length);
  showItem();
  document.body.dataset.ready = 'true';
}
start();
