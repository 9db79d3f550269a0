// The learner's progress in localStorage: which checks were answered, right or not,
// and the last answer. Keyed by lesson id and check id, so both languages share it.
//   {"version": 1, "checks": {"<lesson>/<check>": {"correct": bool, "answer": any, "at": ms}}}
// One setItem writes the whole value, so a write is atomic. A stored value that is not
// what this code wrote is set aside, never silently dropped: its text is kept under
// ASIDE_KEY, the check records in it that are still well-formed are kept, and the
// caller is told (notice 'reset').

const KEY = 'icl-lab.progress';
const ASIDE_KEY = 'icl-lab.progress.corrupt';
const VERSION = 1;

const isRecord = (c) => !!c && typeof c === 'object' && !Array.isArray(c) && typeof c.correct === 'boolean';
const isChecks = (c) => !!c && typeof c === 'object' && !Array.isArray(c);

function valid(p) {
  if (!p || typeof p !== 'object' || Array.isArray(p) || p.version !== VERSION) return false;
  return isChecks(p.checks) && Object.values(p.checks).every(isRecord);
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
  const kept = { version: VERSION, checks: {} };
  if (p && typeof p === 'object' && p.version === VERSION && isChecks(p.checks)) {
    for (const [k, c] of Object.entries(p.checks)) if (isRecord(c)) kept.checks[k] = c;
  }
  try {
    localStorage.setItem(ASIDE_KEY, text);
    if (Object.keys(kept.checks).length) localStorage.setItem(KEY, JSON.stringify(kept));
    else localStorage.removeItem(KEY);
  } catch { /* storage full or off: the notice still tells the learner */ }
  return { progress: kept, notice: 'reset' };
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
