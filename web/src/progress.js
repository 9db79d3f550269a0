// The learner's progress in localStorage: the document of the core's icl/progress.h
// (the same one the desktop app keeps in a file and /lab/ keeps here), read, written,
// merged and scheduled by the core through the worker ('progress_*' calls); this file
// only moves its text in and out of storage. One setItem writes the whole value, and
// every answer re-reads the stored text first (under a Web Lock where the browser has
// them), so two tabs answering do not drop each other's answers. A stored value the
// core cannot read is set aside under ASIDE_KEY, never silently dropped; the records in
// it that are still well-formed are kept, and the caller is told (notice 'reset').

const KEY = 'icl-lab.progress';
const ASIDE_KEY = 'icl-lab.progress.corrupt';

// The clock of the review schedule (ms). Tests replace Date.now to fix it.
export const now = () => Date.now();

function stored() {
  try {
    return { text: localStorage.getItem(KEY) };
  } catch {
    return { text: null, off: true };
  }
}

function store(text) {
  try {
    localStorage.setItem(KEY, text);
    return true;
  } catch {
    return false;
  }
}

const locked = (fn) => (navigator.locks ? navigator.locks.request(KEY, fn) : fn());

// Reads the stored document. -> {text, progress, due, notice: null | 'reset' | 'unavailable'}
export async function loadProgress(client) {
  const { text, off } = stored();
  const empty = await client.call('progress_read', '', now());
  if (off) return { ...empty, notice: 'unavailable' };
  if (text === null) return { ...empty, notice: null };
  const read = text.trim() === '' ? { error: 'empty' } : await client.call('progress_read', text, now());
  if (!read.error && read.skipped === 0) return { ...read, notice: null };
  const kept = read.error ? empty : read;
  try {
    localStorage.setItem(ASIDE_KEY, text);
    if (Object.keys(kept.progress.checks).length) localStorage.setItem(KEY, kept.text);
    else localStorage.removeItem(KEY);
  } catch { /* storage full or off: the notice still tells the learner */ }
  return { ...kept, notice: 'reset' };
}

// Records a graded answer: re-reads what is stored (another tab may have written),
// adds the answer and stores the result. -> {progress, saved: bool}
export function recordAnswer(client, lessonId, checkId, answer, correct) {
  return locked(async () => {
    const current = await loadProgress(client);
    const r = await client.call('progress_record', current.text, lessonId, checkId, JSON.stringify(answer), correct, now());
    if (r.error) return { progress: current.progress, saved: false };
    return { progress: r.progress, saved: store(r.text) };
  });
}

// Merges an exported file's text into the stored progress. A damaged file is refused
// ({error}) and nothing changes. -> {added, updated} | {error}
export function importProgress(client, fileText) {
  return locked(async () => {
    const current = await loadProgress(client);
    const r = await client.call('progress_merge', current.text, fileText);
    if (r.error) return r;
    if (!store(r.text)) return { error: 'storage' };
    return r;
  });
}

// Reads the stored document for a page that shows `checks` of lesson `lessonId`:
// answers that no longer fit their check (an option the check does not have) are
// dropped by the core, and the fitted document stored. -> loadProgress's answer plus
// {dropped: [message, ...]}
export function loadProgressFor(client, lessonId, checks) {
  return locked(async () => {
    const loaded = await loadProgress(client);
    const fit = await client.call('progress_fit', loaded.text, lessonId, JSON.stringify(checks));
    if (fit.error || !fit.dropped.length) return { ...loaded, dropped: [] };
    if (!loaded.notice) store(fit.text);
    return { ...loaded, text: fit.text, progress: fit.progress, dropped: fit.dropped };
  });
}

export function clearProgress() {
  try { localStorage.removeItem(KEY); } catch { /* nothing to clear */ }
}

// A record of the document, or undefined.
export const recordOf = (progress, lessonId, checkId) => (progress.checks[lessonId] || {})[checkId];
