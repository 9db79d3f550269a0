// The page and a teacher's learning platform. Two ways, each only when it is there:
//  - SCORM: a platform that launched the lesson as a SCO puts its run-time API in a
//    window above the page (API for SCORM 1.2, API_1484_11 for 2004). The page reports
//    completion (every check attempted), a score (checks right / checks, in percent) and
//    the learner's progress (this lesson's records of the progress document) in
//    suspend_data, and commits when the page goes away; a learner who comes back gets
//    the suspend_data merged into their progress, so their answers are there.
//  - xAPI: a package built with an LRS endpoint (icl lessons package --xapi-endpoint)
//    carries it in <meta name="icl-xapi-endpoint">; the page then sends statements there
//    (xapi.js). Without it nothing is sent.
// Without either, nothing here does anything and nothing leaves the page.

// SCORM 1.2 allows 4,096 characters of suspend_data; 2004 allows 64,000.
export const SUSPEND_LIMIT = { '1.2': 4096, 2004: 64000 };

// The nearest SCORM API in the windows above (parents, then the opener's), as the
// SCORM run-time environment specifies the search. -> {api, version} | null
export function findScormApi(start = window) {
  const search = (w) => {
    for (let i = 0; w && i < 10; i++) {
      try {
        if (w.API_1484_11) return { api: w.API_1484_11, version: '2004' };
        if (w.API) return { api: w.API, version: '1.2' };
      } catch { return null; }  // a window of another origin: the search ends there
      if (w.parent === w) break;
      w = w.parent;
    }
    return null;
  };
  let found = search(start);
  try { if (!found && start.opener) found = search(start.opener); } catch { /* opener of another origin */ }
  return found;
}

// This lesson's records as a progress document (version 2, the core's format) that
// fits in `limit` characters: when it does not, the longest answers are left out one by
// one (their verdict, attempts and dates stay) and named in `trimmed`, so the page can
// tell the learner which answers the platform will not keep. -> {text, trimmed: [check]}
export function suspendText(progress, lessonId, limit) {
  const records = JSON.parse(JSON.stringify((progress.checks || {})[lessonId] || {}));
  const doc = { version: 2, lang: progress.lang || 'en', checks: { [lessonId]: records } };
  const trimmed = [];
  let text = JSON.stringify(doc);
  while (text.length > limit) {
    let longest = null;
    for (const [id, r] of Object.entries(records)) {
      if (r.answer === null || r.answer === undefined) continue;
      if (!longest || JSON.stringify(r.answer).length > JSON.stringify(records[longest].answer).length) longest = id;
    }
    if (!longest) break;  // records without answers that still do not fit: cannot happen for a lesson's few checks
    records[longest].answer = null;
    trimmed.push(longest);
    text = JSON.stringify(doc);
  }
  return { text, trimmed };
}

// {attempted, correct, total} of this lesson's checks in the progress document.
export function lessonScore(progress, lessonId, checks) {
  const records = (progress.checks || {})[lessonId] || {};
  let attempted = 0, correct = 0;
  for (const c of checks) {
    const r = records[c.id];
    if (!r) continue;
    attempted++;
    if (r.correct) correct++;
  }
  return { attempted, correct, total: checks.length };
}

// One SCORM session of a lesson page. Every call to the platform's API is wrapped: a
// platform that throws or answers "false" costs the learner nothing on the page.
export class ScormSession {
  constructor({ api, version }) {
    Object.assign(this, { api, version, open: false, finished: false });
    const v12 = version === '1.2';
    this.call = (name12, name04, ...args) => {
      try { return this.api[v12 ? name12 : name04](...args); } catch { return 'false'; }
    };
    this.set = (k12, k04, value) => this.call('LMSSetValue', 'SetValue', v12 ? k12 : k04, String(value));
    this.get = (k12, k04) => String(this.call('LMSGetValue', 'GetValue', v12 ? k12 : k04) ?? '');
  }

  // -> the suspend_data the platform kept ('' when none), or null when it refused to start.
  start() {
    this.open = String(this.call('LMSInitialize', 'Initialize', '')) === 'true';
    if (!this.open) return null;
    // Exit "suspend": the platform keeps suspend_data for the learner's next visit.
    this.set('cmi.core.exit', 'cmi.exit', 'suspend');
    return this.get('cmi.suspend_data', 'cmi.suspend_data');
  }

  // The learner's identity as the platform knows it, for xAPI's actor. -> {id, name}
  learner() {
    if (!this.open) return null;
    const id = this.get('cmi.core.student_id', 'cmi.learner_id');
    return id ? { id, name: this.get('cmi.core.student_name', 'cmi.learner_name') } : null;
  }

  // Reports the lesson's state. -> {trimmed: [check ids whose answers were left out]}
  report(progress, lessonId, checks) {
    if (!this.open || this.finished) return { trimmed: [] };
    const s = lessonScore(progress, lessonId, checks);
    const done = s.total > 0 && s.attempted === s.total;
    this.set('cmi.core.lesson_status', 'cmi.completion_status', done ? 'completed' : 'incomplete');
    if (s.attempted > 0 && s.total > 0) {
      const percent = Math.round((10000 * s.correct) / s.total) / 100;
      this.set('cmi.core.score.min', 'cmi.score.min', 0);
      this.set('cmi.core.score.max', 'cmi.score.max', 100);
      this.set('cmi.core.score.raw', 'cmi.score.raw', percent);
      if (this.version !== '1.2') this.set('', 'cmi.score.scaled', Math.round((10000 * s.correct) / s.total) / 10000);
    }
    const { text, trimmed } = suspendText(progress, lessonId, SUSPEND_LIMIT[this.version]);
    this.set('cmi.suspend_data', 'cmi.suspend_data', text);
    return { trimmed };
  }

  // Commits and ends the session (the page is going away). Once.
  finish() {
    if (!this.open || this.finished) return;
    this.finished = true;
    this.call('LMSCommit', 'Commit', '');
    this.call('LMSFinish', 'Terminate', '');
  }
}

// The xAPI setting a package wrote into the page, or null.
export function xapiSetting(doc = document) {
  const endpoint = doc.querySelector('meta[name="icl-xapi-endpoint"]');
  if (!endpoint || !endpoint.content) return null;
  const auth = doc.querySelector('meta[name="icl-xapi-auth"]');
  return { endpoint: endpoint.content, auth: auth ? auth.content : '' };
}
