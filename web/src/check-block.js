// One check question: an answer form by type, graded by the core's grader (the same
// icl::grade the desktop app calls) in the worker, with feedback; the outcome is kept
// in the learner's progress. The prompt and feedback HTML come from the lesson build
// (md4c, raw HTML off); whatever the learner types only ever goes in as text.
import { recordAnswer, recordOf } from './progress.js';
import { el } from './dom.js';

const MAX_ANSWER_BYTES = 4096;   // icl/progress.h's Bounds::max_answer_bytes

export class CheckBlock {
  // progress: the stored document (restore() shows this check's record); onProgress(saved,
  // progress) after each answer is recorded; onAnswered() once the check has an answer
  // (graded now, or restored from an earlier visit).
  constructor({ check, section, client, words, lessonId, demoBlocks, onProgress, onAnswered = () => {} }) {
    Object.assign(this, { check, section, client, words, lessonId, demoBlocks, onProgress, onAnswered });
    this.build();
  }

  build() {
    const w = this.words, c = this.check;
    const body = this.section.querySelector('.check-body');
    const form = el('form', { class: 'check-form', novalidate: '' });
    const name = `answer-${c.id}`;
    const fieldset = el('fieldset');
    fieldset.appendChild(el('legend', { class: 'visually-hidden' }, w.yourAnswer));
    if (['choice', 'predict', 'multi'].includes(c.type)) {
      const type = c.type === 'multi' ? 'checkbox' : 'radio';
      for (const o of c.options || []) {
        const id = `${name}-${o.key}`;
        const label = el('label', { class: 'option', for: id });
        const input = el('input', { type, name, id, value: o.key });
        // the key is part of the option's name: an option that is only a formula would
        // otherwise have none a screen reader can say (KaTeX's MathML is not a text name)
        const key = el('span', { class: 'option-key' }, `${o.key})`);
        const text = el('span', { class: 'option-text' });
        text.innerHTML = o.html;  // lesson HTML from the build, not learner input
        label.append(input, key, text);
        fieldset.appendChild(label);
      }
    } else if (c.type === 'truefalse') {
      for (const [value, text] of [['true', w.trueLabel], ['false', w.falseLabel]]) {
        const id = `${name}-${value}`;
        const label = el('label', { class: 'option', for: id });
        label.append(el('input', { type: 'radio', name, id, value }), el('span', { class: 'option-text' }, text));
        fieldset.appendChild(label);
      }
    } else {
      const id = `${name}-text`;
      fieldset.appendChild(el('label', { for: id, class: 'visually-hidden' }, w.yourAnswer));
      const input = el('input', { type: 'text', id, name, class: 'answer-text', autocomplete: 'off',
        inputmode: c.type === 'numeric' ? 'decimal' : null, placeholder: c.type === 'numeric' ? w.numberHint : null,
        spellcheck: 'false' });
      fieldset.appendChild(input);
    }
    form.appendChild(fieldset);
    if (c.type === 'predict' && c.grading && c.grading.demo) {
      form.appendChild(el('p', { class: 'check-note' }, c.grading.run === 'own' ? w.ownRunNote({ demo: c.grading.demo }) : w.predictNote({ demo: c.grading.demo })));
    }
    const submit = el('button', { type: 'submit', class: 'primary' }, w.submit);
    form.appendChild(submit);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.form = form;
    this.submitButton = submit;
    this.verdict = el('div', { class: 'verdict', 'aria-live': 'polite' });
    body.append(form, this.verdict);
  }

  // The answer in the form the grader takes (quiz.h), or null when nothing is chosen.
  answer() {
    const c = this.check;
    const inputs = [...this.form.querySelectorAll('input')];
    if (c.type === 'multi') {
      const keys = inputs.filter((i) => i.checked).map((i) => i.value);
      return keys.length ? keys : null;
    }
    if (['choice', 'predict', 'truefalse'].includes(c.type)) {
      const chosen = inputs.find((i) => i.checked);
      if (!chosen) return null;
      return c.type === 'truefalse' ? chosen.value === 'true' : chosen.value;
    }
    const text = inputs[0].value;
    return text.trim() === '' ? null : text;
  }

  setAnswer(answer) {
    const inputs = [...this.form.querySelectorAll('input')];
    if (Array.isArray(answer)) inputs.forEach((i) => { i.checked = answer.includes(i.value); });
    else if (typeof answer === 'boolean' || ['choice', 'predict'].includes(this.check.type)) {
      inputs.forEach((i) => { i.checked = i.value === String(answer); });
    } else if (inputs[0] && typeof answer === 'string') inputs[0].value = answer;
  }

  restore(progress) {
    const saved = recordOf(progress, this.lessonId, this.check.id);
    if (!saved) return;
    if (saved.answer !== undefined && saved.answer !== null) this.setAnswer(saved.answer);
    this.section.dataset.answered = saved.correct ? 'correct' : 'tried';
    this.verdict.replaceChildren(el('p', { class: `verdict-line ${saved.correct ? 'is-correct' : 'is-tried'}` },
      saved.correct ? this.words.answeredBefore : this.words.triedBefore));
    this.onAnswered();
  }

  async submit() {
    const w = this.words, c = this.check;
    const answer = this.answer();
    if (answer === null) {
      this.show({ message: ['numeric', 'text'].includes(c.type) ? w.typeAnswer : w.chooseOne });
      return;
    }
    // Refused here, before it is graded and stored: a saved answer must read back
    // (icl/progress.h, Bounds::max_answer_bytes of JSON).
    const bytes = new TextEncoder().encode(JSON.stringify(answer)).length;
    if (bytes > MAX_ANSWER_BYTES) {
      this.show({ message: w.answerTooLong({ bytes, max: MAX_ANSWER_BYTES }) });
      return;
    }
    this.submitButton.disabled = true;
    this.section.dataset.grading = 'true';
    let result = null;
    if (c.type === 'predict' && c.grading && Object.hasOwn(this.demoBlocks, c.grading.demo)) {
      const demo = this.demoBlocks[c.grading.demo];
      this.verdict.replaceChildren(el('p', { class: 'check-note' }, c.grading.run === 'own' ? w.gradingOwnRun : w.gradingRun));
      result = await (c.grading.run === 'own' ? demo.currentResult() : demo.lessonResult());
    }
    const verdict = result && result.error && !result.panels
      ? result
      : await this.client.call('grade', JSON.stringify(c), JSON.stringify(answer), JSON.stringify(result),
        document.documentElement.lang || 'en');
    // Stored before it is shown: an answer the learner sees graded is one a reload (or a
    // closed tab) keeps. Storing takes two calls to the worker; shown first, a reload in
    // that gap lost the answer (the browser suite's reload caught it once in a fresh clone).
    const record = verdict.error ? null
      : await recordAnswer(this.client, this.lessonId, c.id, answer, verdict.correct)
        .catch(() => ({ progress: null, saved: false }));
    this.submitButton.disabled = false;
    delete this.section.dataset.grading;
    if (verdict.error) {
      this.show({ message: verdict.error });
      return;
    }
    this.show({ verdict });
    this.onAnswered();
    this.onProgress(record.saved, record.progress);
  }

  show({ verdict, message }) {
    const w = this.words;
    if (message) {
      this.section.dataset.verdict = 'error';
      this.verdict.replaceChildren(el('p', { class: 'verdict-line is-error', role: 'alert' }, message));
      return;
    }
    this.section.dataset.verdict = verdict.correct ? 'correct' : 'wrong';
    this.section.dataset.answered = verdict.correct ? 'correct' : 'tried';
    const line = el('p', { class: `verdict-line ${verdict.correct ? 'is-correct' : 'is-wrong'}` }, verdict.correct ? w.correct : w.wrong);
    const feedback = el('div', { class: 'feedback' });
    feedback.innerHTML = verdict.feedback_html || '';  // the lesson's feedback text, from the build
    const parts = [line, feedback];
    if (!verdict.correct && verdict.correct_answer) {
      const details = el('details', { class: 'correct-answer' });
      details.append(el('summary', {}, w.showAnswer), el('p', {}, String(verdict.correct_answer)));
      parts.push(details);
    }
    this.verdict.replaceChildren(...parts);
  }
}
