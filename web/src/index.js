// The index: each lesson's progress from localStorage (checks answered correctly out
// of its checks), and a button that forgets it.
import { loadProgress, clearProgress, checkKey } from './progress.js';
import { notice } from './notices.js';

function show() {
  const { progress, notice: problem } = loadProgress();
  if (problem === 'reset') notice('Your saved progress could not be read and was reset. / 저장된 진도를 읽을 수 없어 초기화했습니다.', 'warning');
  for (const card of document.querySelectorAll('.lesson-card')) {
    const checks = card.dataset.checks ? card.dataset.checks.split(' ') : [];
    const correct = checks.filter((c) => {
      const p = progress.checks[checkKey(card.dataset.lesson, c)];
      return p && p.correct;
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
}

show();
document.getElementById('forget-progress').addEventListener('click', () => {
  clearProgress();
  show();
});
window.addEventListener('pageshow', show);
