// Driving a run in slices, in JS as core/demo_framework/icl/run_slices.h does in C++: a
// slice steps a session a budget of units; between slices the driver takes a snapshot of
// its Result when one is due and sizes the next slice. The page's worker (worker.js loads
// this with importScripts) and the node scripts (web/sitegen/node-core.mjs imports it)
// step runs through these functions. A plain script, so that both can load it: it sets
// one global, IclRunSlices.
//
//   const clock = sliceClock(1, 25, 250);  // slices of about 25 ms, a snapshot every 250 ms
//   const result = runSlice(core, handle, clock.budget, snapshotDue(clock, t0));
//   sliceTook(clock, ms);                  // the slice's time, by the caller's clock
//   if (result.panels) clock.postedMs = now;
'use strict';
globalThis.IclRunSlices = (() => {
  // The size of a run's slices and when its snapshots are due, by the caller's clock in
  // ms: budget, the units of the next slice; targetMs, the time a slice aims at (0: every
  // slice is `budget` units); postMs, the least time between two snapshots; postedMs,
  // when the last was taken, set by the caller (the first is due at once).
  function sliceClock(budget, targetMs, postMs) {
    return { budget: Math.max(1, budget), targetMs, postMs, postedMs: -Infinity };
  }

  // After a slice of `ms`: the next budget aims at targetMs — budget × target / ms, or
  // ×4 after a slice under 0.5 ms (too short to time) — between 1 and 65536 units.
  function sliceTook(clock, ms) {
    if (!(clock.targetMs > 0)) return;
    const next = Math.round(clock.budget * (ms > 0.5 ? clock.targetMs / ms : 4));
    clock.budget = Math.max(1, Math.min(65536, next));
  }

  // Whether a snapshot is due at `nowMs` (postMs since the last).
  function snapshotDue(clock, nowMs) {
    return !(nowMs - clock.postedMs < clock.postMs);
  }

  // One slice of the wasm core's session `handle`: `budget` units (WorkerApi's step),
  // with every panel when `snapshot`; its Result, parsed ({error} where the core answered
  // something that is not JSON). What the core throws is the caller's.
  function runSlice(core, handle, budget, snapshot) {
    const text = core.step(handle, budget, snapshot);
    try {
      return JSON.parse(text);
    } catch (e) {
      return { error: `the core answered something that is not JSON (${e.message})` };
    }
  }

  return Object.freeze({ sliceClock, sliceTook, snapshotDue, runSlice });
})();
