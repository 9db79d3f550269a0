// The learner's progress in localStorage: which checks were answered, right or not,
// and the last answer. Keyed by lesson id and check id, so both languages share it.
// A stored value that is not what this code wrote is reset, and the caller is told.
//   {"version": 1, "checks": {"<lesson>/<check>": {"correct": bool, "answer": any, "at": ms}}}

const KEY = 'icl-lab.progress';
const VERSION = 1;

function valid(p) {
  if (!p || typeof p !== 'object' || Array.isArray(p) || p.version !== VERSION) return false;
  if (!p.checks || typeof p.checks !== 'object' || Array.isArray(p.checks)) return false;
  return Object.values(p.checks).every((c) => c && typeof c === 'object' && typeof c.correct === 'boolean');
}

// -> {progress, notice: null | 'reset' | 'unavailable'}
export function loadProgress() {
  const empty = { version: VERSION, checks: {} };
  let text;
  try {
    text = localStorage.getItem(KEY);
  } catch {
    return { progress: empty, notice: 'unavailable' };
  }
  if (text === null) return { progress: empty, notice: null };
  let p;
  try {
    p = JSON.parse(text);
  } catch {
    p = null;
  }
  if (valid(p)) return { progress: p, notice: null };
  try { localStorage.removeItem(KEY); } catch { /* reported as reset anyway */ }
  return { progress: empty, notice: 'reset' };
}

export function saveProgress(progress) {
  try {
    localStorage.setItem(KEY, JSON.stringify(progress));
    return true;
  } catch {
    return false;
  }
}

export function clearProgress() {
  try { localStorage.removeItem(KEY); } catch { /* nothing to clear */ }
}

export const checkKey = (lessonId, checkId) => `${lessonId}/${checkId}`;
