// The wasm core under node (the site generator and the benchmarks), driven the way the
// page's worker (web/src/worker.js) drives it: one place for loading it, handing it
// files as assets, starting a session's lane 0 alone (its lanes k >= 1 offloaded, as the
// worker hands them to its helpers) or lane k alone, and stepping a session.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import '../src/run-slices.js';  // sets IclRunSlices: the page's worker steps a run through it too

const { runSlice } = globalThis.IclRunSlices;

const require = createRequire(import.meta.url);

// dir: the folder of icl_core.js and icl_core.wasm.
export async function loadCore(dir) {
  const js = path.resolve(dir, 'icl_core.js');
  return require(js)({ wasmBinary: fs.readFileSync(path.join(dir, 'icl_core.wasm')) });
}

// Calls core[name](...args) and parses its JSON; a value with an error throws it.
export function callCore(core, name, ...args) {
  const value = JSON.parse(core[name](...args));
  if (value && value.error) throw new Error(value.error);
  return value;
}

// Each name ("en/catalogue/common.json", ...) as an asset, read from dir/<name>.
export function putAssets(core, dir, names) {
  for (const name of names) core.put_asset(name, new Uint8Array(fs.readFileSync(path.join(dir, name))));
}

// Lane `lane` of a demo's session alone: lane 0 is the session with its lanes 1..n-1
// offloaded (it waits for their states, as in the page's worker); lane k >= 1 is what
// the worker's helper k runs. Returns { handle, lanes }.
export function startLane(core, { demo, params = {}, lang = 'en', seed = 1, lane = 0 }) {
  const args = [demo, JSON.stringify(params), lang, seed];
  if (lane > 0) return callCore(core, 'start_lane', ...args, lane);
  const started = callCore(core, 'start', ...args);
  for (let k = 1; k < (started.lanes || 1); k++) callCore(core, 'offload', started.handle, k);
  return started;
}

// Steps a session `budget` units a slice until it is done, has an error, waits for an
// offloaded lane, until(result) says stop or after maxSlices slices; returns the last
// Result (snapshot: every slice's Result carries its panels; a core answer that is not
// JSON is a Result with an error).
export function stepUntil(core, handle, budget, { snapshot = false, until = () => false, maxSlices = Infinity } = {}) {
  let result = {};
  for (let i = 0; i < maxSlices; i++) {
    result = runSlice(core, handle, budget, snapshot);
    if (result.done || result.waiting || result.error || until(result)) break;
  }
  return result;
}
