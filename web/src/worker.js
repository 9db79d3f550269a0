// The Web Worker that hosts the wasm core. It runs demo sessions in bounded step()
// slices (about SLICE_MS of work each), posts every slice's Result to the page, and
// yields between slices so that "stop", a new run or a grade request is handled at
// once. It computes nothing itself: every number comes from the core.
//
// page -> worker: {type: 'call', req, fn: 'demos'|'parse_params'|'grade'|'progress_*', args: [...]}
//                 {type: 'run', run, demo, params, lang, seed}   (fetches the demo's
//                  assets from <site>/lessons/<name> first, once, then starts it;
//                  with lane: k, only the run's lane k — what a helper is sent)
//                 {type: 'stop', run}
//                  (a run may carry keep: a key, under which run-store.js keeps its checkpoint
//                   every SAVE_MS, on 'save' and at its end; with resume: true it goes on from
//                   the record kept under that key — a helper's lane run gets its lane's
//                   checkpoint text as resumeFrom)
//                 {type: 'save'}                               (keep every kept run now: the page is hidden)
//                 {type: 'stored', req, key} | {type: 'forget', req, key}
//                                                              (the record under key, for the page's offer)
// worker -> page: {type: 'ready', version} | {type: 'fatal', message}
//                 {type: 'reply', req, value}                 (value may be {error})
//                 {type: 'result', run, result, ms}           (result is the core's JSON)
//                 {type: 'failed', run, message}              (could not start / crashed)
//                 {type: 'kept', run, error}                  (its checkpoint could not be kept)
//                 {type: 'resumed', run, error}               (error: the saved run could not go on,
//                                                              and the run started afresh)
//
// A run whose core session has lanes (icl/demo.h's Session::lanes: induction_heads' 1-layer
// control, fast_weights' delta-rule and softmax models) hands each lane k >= 1 to helper k:
// this same script in another worker, made on first need, which trains it side by side and
// sends its states back (WorkerApi's offload, start_lane, take_lane); lane k of every run
// goes to the same helper k. The page sees one run; its last Result is the one-worker Result.
/* global IclCore */
'use strict';
// The wasm core's bytes are asked for before its loader script, so the two travel at
// once; the module compiles while it streams in (instantiateStreaming).
const wasmResponse = fetch(new URL('icl_core.wasm', self.location.href));
importScripts('icl_core.js', 'run-store.js', 'run-slices.js');
/* global IclRunStore, IclRunSlices */
const { sliceClock, sliceTook, snapshotDue, runSlice } = IclRunSlices;

// Each slice aims at this much work (a training demo's unit is one optimizer step).
const SLICE_MS = 25;
// A running demo's Result is asked of the core (and posted) at most this often, and
// always at its end: a snapshot is the JSON of every panel, parsed, cloned and drawn, and a
// training demo's charts change only at its evaluations, so four a second loses nothing.
const POST_MS = 250;
// A kept run's checkpoint is stored this often (and when the page is hidden, and at its
// end); a lane's helper sends its lane's a little more often.
const SAVE_MS = 3000;
const LANE_SAVE_MS = 1500;
let core = null;
const runs = new Map();  // run id -> {handle, clock (run-slices.js), started, lanes: [lane run ids], waiting}
let ticking = false;
const wake = new MessageChannel();

// ---- the helpers: lane k of a run in helper k, a worker of its own ----------------------
const HELPER_NAME = 'icl-lanes';
const helpers = [];         // [k]: helper k's Worker; false where there is none (it failed)
let nextLane = 1;
const laneOf = new Map();   // lane run id -> {run, lane}

// Helper k, made on first need; null where there are none (one core, a helper itself).
function helperWorker(k) {
  if (self.name.startsWith(HELPER_NAME) || typeof Worker !== 'function' || (navigator.hardwareConcurrency || 2) < 2) return null;
  if (helpers[k] !== undefined) return helpers[k] || null;
  helpers[k] = false;
  let w;
  try {
    w = new Worker(self.location.href, { name: `${HELPER_NAME}-${k}` });
  } catch (e) {
    return null;
  }
  w.onmessage = (e) => fromHelper(k, e.data);
  w.onerror = (e) => { e.preventDefault(); helperFailed(k, e.message || 'it could not start'); };
  helpers[k] = w;
  return w;
}

// A run whose lane failed fails with the lane's message.
function failRun(run, message) {
  if (!runs.has(run)) return;
  postMessage({ type: 'failed', run, message });
  drop(run);
}

function helperFailed(k, message) {
  const w = helpers[k];
  helpers[k] = false;  // later runs train lane k here
  if (w) w.terminate();
  const lost = new Set();
  for (const [id, link] of laneOf) {
    if (link.lane !== k) continue;
    laneOf.delete(id);
    lost.add(link.run);
  }
  for (const run of lost) failRun(run, `the worker of lane ${k} stopped: ${message}`);
}

function fromHelper(k, msg) {
  if (msg.type === 'fatal') { helperFailed(k, msg.message); return; }
  const link = laneOf.get(msg.run);
  if (!link) return;  // a lane of a run stopped meanwhile
  if (msg.type === 'failed') { failRun(link.run, msg.message); return; }
  if (msg.type !== 'result') return;
  const r = runs.get(link.run);
  if (!r) return;
  if (typeof msg.checkpoint === 'string') r.laneCheckpoints[link.lane] = msg.checkpoint;
  if (msg.result.state) {
    const answer = parse(core.take_lane(r.handle, link.lane, JSON.stringify(msg.result.state)));
    if (answer.error) { failRun(link.run, answer.error); return; }
  }
  if (msg.result.done) laneOf.delete(msg.run);
  r.waiting = false;  // its next slice shows the lane's state, or ends the run
  schedule();
}

// After core.start: hands each lane k >= 1 of a run to helper k, where there is one. A
// resumed run's record says which lanes were trained elsewhere: exactly those, each from
// its own checkpoint; the answer is a problem where one of them has no helper here.
function offloadLanes(run, r, msg, lanes, record = null) {
  if (!(lanes > 1) || msg.lane) return null;
  const wanted = record ? new Set(record.offloaded || []) : null;
  for (let k = 1; k < lanes; k++) {
    if (wanted && !wanted.has(k)) continue;
    const w = helperWorker(k);
    if (!w) {
      if (wanted) return `it was trained in ${wanted.size + 1} workers, and this page has fewer`;
      continue;  // then this worker trains it
    }
    if (parse(core.offload(r.handle, k)).error) continue;
    const id = `lane-${nextLane++}`;
    laneOf.set(id, { run, lane: k });
    r.lanes.push(id);
    r.offloaded.push(k);
    const resumeFrom = record && record.lanes ? record.lanes[k] : undefined;
    w.postMessage({ type: 'run', run: id, demo: msg.demo, params: msg.params, lang: msg.lang, seed: msg.seed ?? 1, lane: k,
      keep: Boolean(msg.keep), resumeFrom });
  }
  return null;
}

// Stores a kept run's checkpoint (its own session's, and its lanes' as their helpers last
// sent them) under its key; a demo that keeps none is not asked again.
function keepRun(run, r, result) {
  r.savedAt = performance.now();
  let main;
  try {
    main = typeof core.checkpoint === 'function' ? core.checkpoint(r.handle) : 'null';
  } catch (e) {
    main = 'null';
  }
  if (main === 'null' || main.startsWith('{"error"')) { r.keep = null; return; }
  // where it goes on from: the step of its own session's or of a lane's checkpoint, the
  // earliest (a lane's helper sends its lane's only now and then; one yet unsent is at 0)
  const stepOf = (text) => {
    const steps = text ? [...text.matchAll(/"step":(\d+)/g)] : [];
    return steps.length ? Number(steps[steps.length - 1][1]) : 0;
  };
  const step = Math.min(stepOf(main), ...r.offloaded.map((k) => stepOf(r.laneCheckpoints[k])));
  const record = { key: r.keep, demo: r.demo, params: r.params, seed: r.seed, saved: Date.now(),
    step, progress: result.progress || 0, done: Boolean(result.done),
    main, lanes: { ...r.laneCheckpoints }, offloaded: r.offloaded, result: result.done ? result : null };
  IclRunStore.put(record).then(({ error }) => {
    if (error && !r.keepWarned) {
      r.keepWarned = true;
      postMessage({ type: 'kept', run, error });
    }
  });
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return { error: `the core answered something that is not JSON (${e.message})` };
  }
}

// Ends a run's session here and its lanes in their helpers.
function end(r) {
  for (const id of r.lanes) {
    const link = laneOf.get(id);
    if (link && laneOf.delete(id) && helpers[link.lane]) helpers[link.lane].postMessage({ type: 'stop', run: id });
  }
  try { core.drop(r.handle); } catch (e) { /* the module is past saving; the page restarts the worker */ }
}

function drop(run) {
  const r = runs.get(run);
  if (!r) return;
  runs.delete(run);
  end(r);
}

// One slice of the oldest unfinished run that is not waiting for a lane's state; then
// yield through a message so new messages are read before the next slice.
function tick() {
  ticking = false;
  const first = [...runs].find(([, v]) => !v.waiting);
  if (!first) return;
  const [run, r] = first;
  runs.delete(run);  // re-inserted at the back: round robin between runs
  const t0 = performance.now();
  let result;
  try {
    result = runSlice(core, r.handle, r.clock.budget, snapshotDue(r.clock, t0));  // the first slice's always
  } catch (e) {
    postMessage({ type: 'failed', run, message: `the core stopped: ${e && e.message ? e.message : e}` });
    postMessage({ type: 'fatal', message: String(e && e.message ? e.message : e) });
    return;
  }
  const ms = performance.now() - t0;
  if (result.error && !Array.isArray(result.panels)) {
    postMessage({ type: 'failed', run, message: result.error });
    end(r);
    schedule();
    return;
  }
  sliceTook(r.clock, ms);
  if (Array.isArray(result.panels) || result.state || result.done) {  // not a slice that only says where the run is
    const now = performance.now();
    r.clock.postedMs = now;
    const out = { type: 'result', run, result, ms: now - r.started };
    // a kept lane's checkpoint goes to the worker that offloaded it
    if (r.keep && typeof core.checkpoint === 'function' && result.state && (result.done || !(now - r.savedAt < LANE_SAVE_MS))) {
      r.savedAt = now;
      out.checkpoint = core.checkpoint(r.handle);
    }
    postMessage(out);
  }
  if (r.keep && !self.name.startsWith(HELPER_NAME) && (result.done ? !result.error : !(performance.now() - r.savedAt < SAVE_MS))) {
    keepRun(run, r, result);
  }
  if (result.done) {
    end(r);  // its lanes are done too, unless it stopped on a problem first
  } else {
    r.progress = result.progress;
    r.waiting = Boolean(result.waiting);  // its own work done: ticks again when a lane's state comes
    runs.set(run, r);
  }
  schedule();
}

function schedule() {
  if (ticking || ![...runs.values()].some((r) => !r.waiting)) return;
  ticking = true;
  wake.port2.postMessage(0);
}
wake.port1.onmessage = tick;

function call(fn, args) {
  if (!['demos', 'parse_params', 'grade', 'version', 'progress_read', 'progress_record', 'progress_merge',
    'progress_due', 'progress_fit', 'progress_csv'].includes(fn)) return { error: `unknown call '${fn}'` };
  if (typeof core[fn] !== 'function') return { error: `this build of the core has no '${fn}'` };
  try {
    return parse(core[fn](...args));
  } catch (e) {
    return { error: `the core failed in ${fn}: ${e && e.message ? e.message : e}` };
  }
}

// The files each demo reads (DemoInfo.assets), and those already handed to the core.
let assetsOf = {};
const assetsLoaded = new Set();
const loading = new Set();    // runs waiting for their assets
const cancelled = new Set();  // ... of which these were stopped meanwhile

// One fetch per file even when several demos of a page ask for it at once (lesson 1's
// shots_curve and prompt_lab both read the task checkpoint).
const fetching = new Map();
function fetchAsset(name) {
  if (!fetching.has(name)) {
    fetching.set(name, fetch(new URL(`../lessons/${name}`, self.location.href)).then(async (res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    }).finally(() => fetching.delete(name)));
  }
  return fetching.get(name);
}

// Fetched side by side, handed over in order. `optional` names may be absent (a
// language's catalogue that lacks a file: English shows); they are not asked again.
async function loadAssets(names, optional = new Set()) {
  const todo = names.filter((name) => !assetsLoaded.has(name));
  const got = await Promise.all(todo.map((name) => fetchAsset(name).then((bytes) => ({ bytes }), (e) => ({ e }))));
  for (let i = 0; i < todo.length; i++) {
    const name = todo[i], { bytes, e } = got[i];
    if (assetsLoaded.has(name)) continue;  // another run handed it over meanwhile
    if (e) {
      if (optional.has(name)) { assetsLoaded.add(name); continue; }
      return `the file '${name}' this demo needs could not be loaded (${e && e.message ? e.message : e})`;
    }
    const answer = parse(core.put_asset(name, bytes));
    if (answer.error) return answer.error;
    assetsLoaded.add(name);
  }
  return null;
}

// The catalogues a text comes from (icl/texts.h's load_catalogue): English always, the
// learner's language over it where it has them. A run's are common and its demo's
// (icl/demo.h's load_texts); the calls that word a learner's mistake read common's.
const LANG_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$/;
function catalogueNames(files, lang) {
  if (!files.every((f) => /^[a-z0-9_]+$/.test(f))) return { names: [], optional: new Set() };  // the core refuses it by name
  const of = (l) => files.map((f) => `${l}/catalogue/${f}.json`);
  return lang === 'en' ? { names: of('en'), optional: new Set() } : { names: [...of('en'), ...of(lang)], optional: new Set(of(lang)) };
}
const langOf = (lang) => (LANG_CODE.test(lang || '') ? lang : 'en');
const WORDED_CALLS = ['parse_params', 'grade'];  // their last argument is the learner's language

const pending = [];
function handle(msg) {
  if (msg.type === 'call') {
    const args = msg.args || [];
    const texts = WORDED_CALLS.includes(msg.fn) ? catalogueNames(['common'], langOf(args[args.length - 1])) : null;
    const missing = texts ? texts.names.filter((name) => !assetsLoaded.has(name)) : [];
    // (if they cannot be fetched, the core answers in English)
    if (missing.length) loadAssets(missing, texts.optional).then(() => postMessage({ type: 'reply', req: msg.req, value: call(msg.fn, args) }));
    else postMessage({ type: 'reply', req: msg.req, value: call(msg.fn, args) });
  } else if (msg.type === 'run') {
    const texts = catalogueNames(['common', msg.demo], langOf(msg.lang));
    const missing = [...(assetsOf[msg.demo] || []), ...texts.names].filter((name) => !assetsLoaded.has(name));
    if (missing.length) {
      loading.add(msg.run);
      loadAssets(missing, texts.optional).then((problem) => {
        loading.delete(msg.run);
        if (cancelled.delete(msg.run)) return;
        if (problem) postMessage({ type: 'failed', run: msg.run, message: problem });
        else handle(msg);
      });
      return;
    }
    if (msg.resume && msg.keep && !msg.lane && msg.record === undefined) {  // the record first
      loading.add(msg.run);
      IclRunStore.get(msg.keep).then(({ record, error }) => {
        loading.delete(msg.run);
        if (cancelled.delete(msg.run)) return;
        handle({ ...msg, record: record || null, problem: error || (record ? '' : 'it is no longer kept in this browser') });
      });
      return;
    }
    const started = performance.now();
    let answer;
    try {
      const args = [msg.demo, JSON.stringify(msg.params || {}), msg.lang || 'en', msg.seed ?? 1];
      answer = parse(msg.lane ? core.start_lane(...args, msg.lane) : core.start(...args));
    } catch (e) {
      answer = { error: `the core failed to start ${msg.demo}: ${e && e.message ? e.message : e}` };
    }
    if (answer.error) {
      postMessage({ type: 'failed', run: msg.run, message: answer.error });
      return;
    }
    const r = { handle: answer.handle, clock: sliceClock(1, SLICE_MS, POST_MS), started, lanes: [], waiting: false, keep: msg.keep || null,
      demo: msg.demo, params: msg.params, seed: msg.seed ?? 1, savedAt: performance.now(), laneCheckpoints: {}, offloaded: [] };
    // A resumed run: the same lanes offloaded, then its own checkpoint (a lane's in its helper).
    // A saved run that cannot go on is said, forgotten, and the run starts afresh.
    const record = msg.resume ? msg.record : null;
    let problem = msg.resume && !msg.lane ? msg.problem || '' : '';
    if (record && !problem) problem = offloadLanes(msg.run, r, msg, answer.lanes, record) || parse(core.resume(r.handle, record.main)).error || '';
    if (msg.lane && msg.resumeFrom) {
      const e = parse(core.resume(r.handle, msg.resumeFrom)).error;
      if (e) {
        postMessage({ type: 'failed', run: msg.run, message: e });
        end(r);
        return;
      }
    }
    if (msg.resume && !msg.lane) {
      if (problem) {
        end(r);
        if (msg.keep) IclRunStore.remove(msg.keep);
        postMessage({ type: 'resumed', run: msg.run, error: problem });
        handle({ ...msg, resume: false, record: undefined, problem: undefined });
        return;
      }
      postMessage({ type: 'resumed', run: msg.run, error: '' });
    }
    // A new run goes first: an analytic demo redraws before a long run's next slice.
    const rest = [...runs];
    runs.clear();
    runs.set(msg.run, r);
    for (const [k, v] of rest) runs.set(k, v);
    if (!record) offloadLanes(msg.run, r, msg, answer.lanes);
    schedule();
  } else if (msg.type === 'stop') {
    if (loading.has(msg.run)) cancelled.add(msg.run);
    else drop(msg.run);
  } else if (msg.type === 'save') {
    for (const [run, r] of runs) if (r.keep) keepRun(run, r, { progress: r.progress || 0, done: false });
  } else if (msg.type === 'stored') {
    IclRunStore.get(msg.key).then((value) => postMessage({ type: 'reply', req: msg.req, value }));
  } else if (msg.type === 'forget') {
    IclRunStore.remove(msg.key).then((value) => postMessage({ type: 'reply', req: msg.req, value }));
  }
}

onmessage = (e) => {
  if (!core) pending.push(e.data);
  else handle(e.data);
};

// Emscripten's hook: instantiate from the response fetched above (streaming where the
// server says application/wasm, else from its bytes); the loader's own fetch is skipped.
function instantiateWasm(imports, receive) {
  wasmResponse
    .then((res) => {
      if (!res.ok) throw new Error(`icl_core.wasm: HTTP ${res.status}`);
      return WebAssembly.instantiateStreaming(res.clone(), imports)
        .catch(() => res.arrayBuffer().then((bytes) => WebAssembly.instantiate(bytes, imports)));
    })
    .then((r) => receive(r.instance, r.module))
    .catch((e) => postMessage({ type: 'fatal', message: `the wasm core did not load: ${e && e.message ? e.message : e}` }));
  return {};  // asynchronous: the exports come through receive()
}

IclCore({ instantiateWasm }).then((module) => {
  core = module;
  const infos = parse(core.demos('en'));
  if (Array.isArray(infos)) assetsOf = Object.fromEntries(infos.map((d) => [d.id, d.assets || []]));
  postMessage({ type: 'ready', version: parse(core.version()).version });
  for (const msg of pending.splice(0)) handle(msg);
}, (e) => {
  postMessage({ type: 'fatal', message: `the wasm core did not load: ${e && e.message ? e.message : e}` });
});
