// xAPI statements to the learning record store a teacher configured (platform.js's
// xapiSetting: the package carries the endpoint in a <meta>; without it this file is
// never used and nothing is sent). The statements, in the xAPI 1.0.3 vocabulary:
//   attempted  a lesson        when its page opens
//   answered   a check         with result.response (an option key, true/false, the
//                              typed text, a multi answer's keys joined by "[,]") and
//                              result.success
//   completed  a lesson        when its last unanswered check is answered
//   interacted a lab           a run the learner set up (parameters other than the
//                              lesson's), its parameters in result.extensions
// Activity ids are URNs (urn:icl-lab:lesson:<id>, urn:icl-lab:check:<lesson>/<check>,
// urn:icl-lab:lab:<lesson>/<instance>), the same on every copy of the site, so a class
// report reads them whatever address served the pages (core/course/class_report).
// The actor is the platform's learner when the page runs in one (SCORM), otherwise an
// anonymous id this browser keeps (a random UUID, nothing about the person).
//
// Sending never blocks the page: a statement goes into a queue in localStorage and the
// queue is posted in the background; when the network is down or the LRS does not
// answer, the statements wait (in this and later visits) and go when the browser is
// back online. A statement the LRS refuses as malformed (400) is moved aside under
// REFUSED_KEY, not resent and not lost.

const QUEUE_KEY = 'icl-lab.xapi-queue';
const REFUSED_KEY = 'icl-lab.xapi-refused';
const LEARNER_KEY = 'icl-lab.xapi-learner';
const MAX_QUEUE = 2000;   // statements kept while offline (a lesson sends tens)
const BATCH = 50;

const VERB = (name) => ({ id: `http://adlnet.gov/expapi/verbs/${name}`, display: { 'en-US': name } });
const INTERACTION = { choice: 'choice', multi: 'choice', predict: 'choice', truefalse: 'true-false', numeric: 'numeric', text: 'fill-in' };

export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function readList(key) {
  try { return JSON.parse(localStorage.getItem(key) || '[]'); } catch { return []; }
}
function writeList(key, list) {
  try { localStorage.setItem(key, JSON.stringify(list)); return true; } catch { return false; }
}

// The answer as an xAPI response string.
export function responseOf(type, answer) {
  if (Array.isArray(answer)) return answer.join('[,]');
  return String(answer);
}

export class XapiSender {
  // learner: {id, name} from the platform, or null (an anonymous id is used).
  constructor({ endpoint, auth, lang, learner }) {
    Object.assign(this, { endpoint, auth, lang, sending: false, memory: [], retryMs: 2000, timer: null });
    this.actor = this.makeActor(learner);
    window.addEventListener('online', () => this.flush());
    window.addEventListener('pagehide', () => this.flush({ keepalive: true }));
    this.flush();  // what earlier visits left
  }

  makeActor(learner) {
    const homePage = window.location.origin;
    if (learner && learner.id) return { objectType: 'Agent', ...(learner.name ? { name: learner.name } : {}), account: { homePage, name: learner.id } };
    let id = null;
    try { id = localStorage.getItem(LEARNER_KEY); } catch { /* storage off */ }
    if (!id) {
      id = uuid();
      try { localStorage.setItem(LEARNER_KEY, id); } catch { /* one id for this visit */ }
    }
    return { objectType: 'Agent', account: { homePage, name: id } };
  }

  lessonActivity(lesson) {
    return { objectType: 'Activity', id: `urn:icl-lab:lesson:${lesson.id}`,
      definition: { type: 'http://adlnet.gov/expapi/activities/lesson', name: { [this.lang]: lesson.title } } };
  }

  statement(verb, object, { result, lesson } = {}) {
    return { id: uuid(), actor: this.actor, verb: VERB(verb), object, ...(result ? { result } : {}),
      context: { language: this.lang, ...(lesson ? { contextActivities: { parent: [this.lessonActivity(lesson)] } } : {}) },
      timestamp: new Date().toISOString() };
  }

  attempted(lesson) { this.send(this.statement('attempted', this.lessonActivity(lesson))); }
  completed(lesson) { this.send(this.statement('completed', this.lessonActivity(lesson), { result: { completion: true } })); }

  answered(lesson, check, answer, correct) {
    const object = { objectType: 'Activity', id: `urn:icl-lab:check:${lesson.id}/${check.id}`,
      definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: INTERACTION[check.type] || 'other' } };
    this.send(this.statement('answered', object, { lesson, result: { success: !!correct, response: responseOf(check.type, answer) } }));
  }

  ranLab(lesson, instance, demo, params) {
    const object = { objectType: 'Activity', id: `urn:icl-lab:lab:${lesson.id}/${instance}`,
      definition: { type: 'http://adlnet.gov/expapi/activities/simulation', name: { [this.lang]: demo } } };
    this.send(this.statement('interacted', object, { lesson, result: { extensions: { 'urn:icl-lab:ext:params': params } } }));
  }

  send(statement) {
    const queue = readList(QUEUE_KEY);
    queue.push(statement);
    // Over the bound (a long time offline) the oldest go first; the console says so.
    if (queue.length > MAX_QUEUE) console.warn(`xAPI: ${queue.splice(0, queue.length - MAX_QUEUE).length} old statements dropped (queue full)`);
    if (!writeList(QUEUE_KEY, queue)) this.memory.push(statement);
    setTimeout(() => this.flush(), 0);
  }

  // Posts the queue in batches; never throws, never awaited by the page.
  async flush({ keepalive = false } = {}) {
    if (this.sending || (navigator.onLine === false && !keepalive)) return;
    this.sending = true;
    try {
      for (;;) {
        const stored = readList(QUEUE_KEY);
        const batch = [...stored, ...this.memory].slice(0, BATCH);
        if (!batch.length) break;
        const headers = { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3' };
        if (this.auth) headers.Authorization = this.auth;
        let status = 0;
        try {
          status = (await fetch(`${this.endpoint}statements`, { method: 'POST', headers, body: JSON.stringify(batch), keepalive, credentials: 'omit' })).status;
        } catch { status = 0; }
        const sent = new Set(batch.map((s) => s.id));
        const drop = () => {
          writeList(QUEUE_KEY, readList(QUEUE_KEY).filter((s) => !sent.has(s.id)));
          this.memory = this.memory.filter((s) => !sent.has(s.id));
        };
        // 409: the LRS has statements with these ids already (an answer lost on the way back).
        if ((status >= 200 && status < 300) || status === 409) { drop(); this.retryMs = 2000; continue; }
        if (status === 400) { writeList(REFUSED_KEY, [...readList(REFUSED_KEY), ...batch].slice(-MAX_QUEUE)); drop(); continue; }
        // Offline, unreachable, auth refused, busy: try again later, less often each time.
        if (!keepalive && !this.timer) {
          this.timer = setTimeout(() => { this.timer = null; this.flush(); }, this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, 60000);
        }
        break;
      }
    } finally {
      this.sending = false;
    }
  }
}
