// A long run kept in this browser (worker.js + run-store.js) offered again on load: for a
// training demo whose current setup has a saved unfinished run, "Resume the run from step
// s" or "Start over" — never dropped in silence; a finished one's result is drawn again,
// under a note saying it is the last run of this setup kept here.
import { notice } from './notices.js';

const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};

// Sorted keys: the same setup gives the same text whatever order its knobs came in.
const stable = (v) => (Array.isArray(v) ? `[${v.map(stable).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable(v[k])}`).join(',')}}`
    : JSON.stringify(v));
export const keptKey = (demo, params, seed = 1) => `${demo}|${seed}|${stable(params)}`;

// What the block says when the worker could not keep or resume a run (onKept of client.run).
export function keptEvent(block, type, error) {
  const w = block.words;
  if (type === 'kept' && error && !block.keptWarned) {
    block.keptWarned = true;
    notice(w['note.not_kept.text']({ problem: error }), 'warning');
  } else if (type === 'resumed' && error) {
    notice(w['note.resume_failed.text']({ problem: error }), 'warning');
  }
}

// Looks for a run of the block's current setup kept in this browser and offers it.
export async function offerKept(block) {
  if (block.analytic) return;
  const params = { ...block.params };
  const key = keptKey(block.block.demo, params);
  const { record, error } = await block.client.stored(key);
  const w = block.words;
  if (error) {
    if (!/keeps no runs/.test(error)) notice(w['note.resume_failed.text']({ problem: error }), 'warning');
    return;
  }
  if (!record || block.stop || keptKey(block.block.demo, block.params) !== key) return;  // none, or the learner moved on
  if (record.done && record.result) {
    block.showKept(record.result, params, w['note.kept_result.text']);
    return;
  }
  const steps = Number(params.steps) || record.step;
  const offer = el('div', { class: 'kept-offer', role: 'group' });
  offer.appendChild(el('p', {}, w['note.kept_run.text']({ step: Math.min(record.step, steps), steps })));
  const resume = el('button', { type: 'button', class: 'resume' }, w['button.resume']({ step: Math.min(record.step, steps) }));
  const over = el('button', { type: 'button', class: 'start-over' }, w['button.discard_kept']);
  offer.append(resume, over);
  resume.addEventListener('click', () => { offer.remove(); block.run({ resume: true }); });
  over.addEventListener('click', () => { offer.remove(); block.client.forget(key); block.run(); });
  block.offer = offer;
  block.section.querySelector('.demo-bar').after(offer);
}
