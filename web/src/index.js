// The index: each lesson's progress (checks whose last answer was right, out of its
// checks), how many checks are due for review (the core's schedule), and the learner's
// progress file: download, upload (merged by the core; a damaged file is refused and
// nothing changes), a CSV summary for a teacher, and a button that forgets it all.
import { CoreClient } from './core-client.js';
import { loadProgress, importProgress, clearProgress, recordOf, now } from './progress.js';
import { download } from './export.js';
import { notice } from './notices.js';

const client = new CoreClient(new URL('worker.js', import.meta.url));
client.onFatal = (message) => notice(`The progress engine could not start: ${message} / 진도 엔진을 시작할 수 없습니다`, 'error');
const cards = () => [...document.querySelectorAll('.lesson-card')];

async function show() {
  await client.ready;
  const loaded = await loadProgress(client);
  if (loaded.notice === 'reset') notice('Your saved progress could not be read and was reset. / 저장된 진도를 읽을 수 없어 초기화했습니다.', 'warning');
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
    meter.setAttribute('aria-label', 'checks answered correctly');
    const label = document.createElement('span');
    label.className = 'progress-label';
    label.textContent = `${correct} / ${checks.length} checks correct · 정답 ${correct}/${checks.length}`;
    box.replaceChildren(meter, label);
    card.dataset.correct = String(correct);
    card.classList.toggle('complete', correct === checks.length);
  }
  // Due for review: only checks these lessons still have.
  const due = await client.call('progress_due', loaded.text, now());
  const count = due.error ? 0 : due.due.filter((d) => known.has(`${d.lesson}/${d.check}`)).length;
  const box = document.getElementById('review-box');
  box.dataset.due = String(count);
  document.getElementById('review-due').textContent = count
    ? `${count} ${count === 1 ? 'check is' : 'checks are'} due for review · 복습할 문제 ${count}개`
    : 'Nothing is due for review now. · 지금 복습할 문제가 없습니다.';
  document.body.dataset.ready = 'true';
}

document.getElementById('forget-progress').addEventListener('click', () => {
  clearProgress();
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
  const r = text === null ? { error: 'the file is larger than 1 MiB' } : await importProgress(client, text);
  if (r.error) {
    notice(`Not imported: ${r.error === 'storage' ? 'this browser does not let the page save progress' : r.error}. Your progress is unchanged. / 가져오지 않았습니다. 진도는 그대로입니다.`, 'error');
  } else {
    notice(`Imported: ${r.added} new and ${r.updated} newer answers. / 가져왔습니다: 새 답 ${r.added}개, 더 최근 답 ${r.updated}개.`, 'info');
  }
  show();
});

show();
window.addEventListener('pageshow', (e) => { if (e.persisted) show(); });
