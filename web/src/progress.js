// The learner's progress in localStorage: the document of the core's icl/progress.h
// (the same one the desktop app keeps in a file and /lab/ keeps here), read, written,
// merged and scheduled by the core through the worker ('progress_*' calls); this file
// only moves its text in and out of storage. One setItem writes the whole value, and
// every answer re-reads the stored text first, under a Web Lock where the browser has
// them. The lock alone does not keep two tabs' answers: each tab reads its own copy of
// localStorage, which another tab's write reaches a few ms later, so a tab can read,
// under the lock, a value that lacks the other's last answer. So each tab keeps the text
// it last stored and, when another tab's write arrives ('storage' event), merges its own
// records back in (the later answer per record wins) and stores again if any were
// missing; writes stop once every tab finds its records there.
// A stored value the core cannot read is set aside under a key of its own (ASIDE_KEY,
// then ASIDE_KEY-<ms>-<n>: copies never overwrite each other), never silently dropped;
// the records in it that are still well-formed are kept, and the caller is told
// (notice 'reset'). Forgetting the progress keeps a copy under FORGOTTEN_KEY.

const KEY = 'icl-lab.progress';
const ASIDE_KEY = 'icl-lab.progress.corrupt';
const FORGOTTEN_KEY = 'icl-lab.progress.forgotten';

// The clock of the review schedule (ms). Tests replace Date.now to fix it.
export const now = () => Date.now();

function stored() {
  try {
    return { text: localStorage.getItem(KEY) };
  } catch {
    return { text: null, off: true };
  }
}

// The text this tab last stored, and the worker that merges it back (see above).
let mine = null;
let repairClient = null;
function repair(event) {
  if (event.key !== KEY && event.key !== null) return;
  if (event.newValue === null) { mine = null; return; }   // forgotten (or cleared) on purpose
  if (mine === null || !repairClient) return;
  locked(async () => {
    const { text } = stored();
    if (text === null || mine === null) return;
    const r = await repairClient.call('progress_merge', text, mine, now());
    if (!r.error && (r.added > 0 || r.updated > 0)) store(r.text, repairClient);
  });
}

function store(text, client) {
  try {
    localStorage.setItem(KEY, text);
  } catch {
    return false;
  }
  mine = text;
  if (client && !repairClient) {
    repairClient = client;
    window.addEventListener('storage', repair);
  }
  return true;
}

// Keeps `text` under a set-aside key no other copy holds. -> the key, or null
function setAside(text) {
  let key = ASIDE_KEY;
  for (let n = 0; localStorage.getItem(key) !== null; n++) key = `${ASIDE_KEY}-${now()}-${n}`;
  localStorage.setItem(key, text);
  return key;
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
    setAside(text);
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
    if (r.error) return { progress: current.progress, saved: false, error: r.error };
    return { progress: r.progress, saved: store(r.text, client) };
  });
}

// Merges an exported file's text into the stored progress. A damaged file is refused
// ({error}) and nothing changes. -> {added, updated} | {error}
export function importProgress(client, fileText) {
  return locked(async () => {
    const current = await loadProgress(client);
    const r = await client.call('progress_merge', current.text, fileText, now());
    if (r.error) return r;
    if (!store(r.text, client)) return { error: 'storage' };
    return r;
  });
}

// Reads the stored document for a page that shows `checks` of lesson `lessonId`:
// answers that no longer fit their check (an option the check does not have) are
// dropped by the core, answers saved under the lesson a check came from (its "from")
// moved to this one, and the fitted document stored. -> loadProgress's answer plus
// {dropped: [message, ...]}
export function loadProgressFor(client, lessonId, checks) {
  return locked(async () => {
    const loaded = await loadProgress(client);
    const fit = await client.call('progress_fit', loaded.text, lessonId, JSON.stringify(checks));
    if (fit.error || (!fit.dropped.length && !fit.moved)) return { ...loaded, dropped: [] };
    if (!loaded.notice) store(fit.text, client);
    return { ...loaded, text: fit.text, progress: fit.progress, dropped: fit.dropped };
  });
}

// Forgets the stored progress, keeping it under FORGOTTEN_KEY (one copy: the last
// forgotten progress) for restoreProgress. The caller asks the learner first.
export function clearProgress() {
  return locked(() => {
    try {
      const text = localStorage.getItem(KEY);
      if (text !== null && text.trim() !== '') localStorage.setItem(FORGOTTEN_KEY, text);
      localStorage.removeItem(KEY);
      mine = null;
    } catch { /* nothing to clear */ }
  });
}

// Whether a forgotten copy can be restored.
export function hasForgotten() {
  try { return localStorage.getItem(FORGOTTEN_KEY) !== null; } catch { return false; }
}

// Merges the forgotten copy back into the stored progress (an import of it), then
// drops the copy. -> importProgress's answer
export async function restoreProgress(client) {
  let text = null;
  try { text = localStorage.getItem(FORGOTTEN_KEY); } catch { /* storage off */ }
  if (text === null) return { error: 'nothing to restore' };
  const r = await importProgress(client, text);
  if (!r.error) try { localStorage.removeItem(FORGOTTEN_KEY); } catch { /* kept */ }
  return r;
}

// A record of the document, or undefined.
export const recordOf = (progress, lessonId, checkId) => (progress.checks[lessonId] || {})[checkId];
