// The page's side of worker.js: calls as promises, demo runs as streams of Results.
// If the worker dies (a trap in the wasm module) it is started again and the runs
// that were going are told, so a demo shows an error instead of hanging.
import { notice } from './notices.js';

const MAX_RESTARTS = 3;

export class CoreClient {
  // engine: {worker, early} from engine-boot.js (a worker already started, with the
  // messages it sent so far), or null to start one here.
  constructor(workerUrl, engine = null) {
    this.workerUrl = workerUrl;
    this.nextId = 1;
    this.calls = new Map();  // req -> {resolve}
    this.runs = new Map();   // run -> {onResult, onFail}
    this.restarts = 0;
    this.onFatal = null;
    this.start(engine);
  }

  start(engine = null) {
    this.worker = engine ? engine.worker : new Worker(this.workerUrl);
    this.ready = new Promise((resolve) => { this.markReady = resolve; });
    this.worker.onmessage = (e) => this.receive(e.data);
    if (engine) for (const msg of engine.early.splice(0)) this.receive(msg);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.crashed(e.message || 'the worker failed');
    };
  }

  receive(msg) {
    if (msg.type === 'ready') {
      this.version = msg.version;
      this.markReady(msg.version);
    } else if (msg.type === 'reply') {
      const c = this.calls.get(msg.req);
      this.calls.delete(msg.req);
      if (c) c.resolve(msg.value);
    } else if (msg.type === 'result') {
      const r = this.runs.get(msg.run);
      if (!r) return;
      if (msg.result.done) this.runs.delete(msg.run);
      r.onResult(msg.result, msg.ms);
    } else if (msg.type === 'kept' || msg.type === 'resumed') {
      const r = this.runs.get(msg.run);
      if (r && r.onKept) r.onKept(msg.type, msg.error);
    } else if (msg.type === 'failed') {
      const r = this.runs.get(msg.run);
      this.runs.delete(msg.run);
      if (r) r.onFail(msg.message);
    } else if (msg.type === 'fatal') {
      this.crashed(msg.message);
    }
  }

  crashed(message) {
    this.worker.terminate();
    for (const [, r] of this.runs) r.onFail(`the demo engine stopped (${message})`);
    this.runs.clear();
    for (const [, c] of this.calls) c.resolve({ error: `the demo engine stopped (${message})` });
    this.calls.clear();
    if (this.onFatal) this.onFatal(message, this.restarts < MAX_RESTARTS);
    if (this.restarts++ < MAX_RESTARTS) this.start();
  }

  // Resolves to the core's answer (an object that may be {error}).
  call(fn, ...args) {
    const req = this.nextId++;
    return new Promise((resolve) => {
      this.calls.set(req, { resolve });
      this.worker.postMessage({ type: 'call', req, fn, args });
    });
  }

  // Streams Results to onResult(result, msSinceStart) until one has done = true, or
  // onFail(message). Returns stop(). keep: a key under which the worker keeps the run's
  // checkpoint in the browser (run-store.js); resume: go on from the one kept there.
  // onKept('kept', error): it could not be kept; onKept('resumed', error): it went on from
  // the saved run, or (error) started afresh.
  run({ demo, params, lang, seed = 1, keep, resume = false }, onResult, onFail, onKept = null) {
    const run = this.nextId++;
    this.runs.set(run, { onResult, onFail, onKept });
    this.worker.postMessage({ type: 'run', run, demo, params, lang, seed, keep, resume });
    return () => {
      if (!this.runs.delete(run)) return;
      this.worker.postMessage({ type: 'stop', run });
    };
  }

  // The run kept under key: {record} (null: none) or {error}; forget(key) deletes it.
  stored(key) { return this.ask('stored', key); }
  forget(key) { return this.ask('forget', key); }
  ask(type, key) {
    const req = this.nextId++;
    return new Promise((resolve) => {
      this.calls.set(req, { resolve });
      this.worker.postMessage({ type, req, key });
    });
  }
  // Keep every kept run's checkpoint now (the page is being hidden or left).
  saveNow() { this.worker.postMessage({ type: 'save' }); }

  // Runs to the end and resolves to the last Result (or {error}).
  runToEnd(spec) {
    return new Promise((resolve) => {
      this.run(spec, (result) => { if (result.done) resolve(result); }, (message) => resolve({ error: message }));
    });
  }
}

// The client of a page with demos or checks: takes over the worker that engine-boot.js
// (an async script in the head) has usually started already, and says on the page when
// the engine fails. words: the page's i18n table.
export function pageClient(words) {
  const client = new CoreClient(new URL('worker.js', import.meta.url), window.iclEngine || null);
  window.iclEngine = window.iclEngine || { taken: true };
  // A hidden tab may be frozen or discarded, a left page is: its long runs are kept first.
  const save = () => client.saveNow();
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save(); });
  window.addEventListener('pagehide', save);
  client.onFatal = (message, restarting) => notice(`${words.engineFailed}: ${message} — ${restarting ? words.restarting : words.noRestart}`, 'error');
  return client;
}
