// The JS slice rule (web/src/run-slices.js, which the page's worker and the node scripts
// step runs through) against the C++ one's unit test, case by case: the budgets worked
// out by hand in tests/unit/test_run_slices.cpp, read from it, then when a snapshot is due,
// a clock without a target, and a slice of a stand-in core.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import '../../web/src/run-slices.js';

const { sliceClock, sliceTook, snapshotDue, runSlice } = globalThis.IclRunSlices;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const source = fs.readFileSync(path.join(root, 'tests', 'unit', 'test_run_slices.cpp'), 'utf8');
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

// {budget, ms, next} of the budget test: the next budget after a slice of ms, aiming at 25 ms
const table = source.match(/cases\[\] = \{([^;]*)\};/);
const cases = table ? [...table[1].matchAll(/\{(\d+), ([\d.]+), (\d+)\}/g)].map((m) => m.slice(1).map(Number)) : [];
check(cases.length >= 5, `only ${cases.length} budget cases read from test_run_slices.cpp`);
for (const [budget, ms, next] of cases) {
  const clock = sliceClock(budget, 25, 250);
  sliceTook(clock, ms);
  check(clock.budget === next, `${budget} units in ${ms} ms: next ${clock.budget}, the C++ rule's ${next}`);
}
// worked out here: 2 × 25 / 3 = 16.67 -> 17; 100 × 25 / 0.6 = 4166.67 -> 4167; 0.5 ms is
// too short to time (a slice is timed over 0.5 ms): 100 × 4; 20000 × 4 -> 65536
for (const [budget, ms, next] of [[2, 3, 17], [100, 0.6, 4167], [100, 0.5, 400], [20000, 0.1, 65536]]) {
  const clock = sliceClock(budget, 25, 250);
  sliceTook(clock, ms);
  check(clock.budget === next, `${budget} units in ${ms} ms: next ${clock.budget}, expected ${next}`);
}
const fixed = sliceClock(1, 0, 30);  // no target: every slice is the same
sliceTook(fixed, 0.01);
sliceTook(fixed, 900);
check(fixed.budget === 1, `a clock without a target changed its budget to ${fixed.budget}`);
check(sliceClock(0, 25, 0).budget === 1, 'a clock of 0 units');

const clock = sliceClock(1, 25, 250);
check(snapshotDue(clock, 0), 'the first snapshot is not due at once');
clock.postedMs = 100;
check(!snapshotDue(clock, 349), 'a snapshot due 249 ms after the last');
check(snapshotDue(clock, 350), 'no snapshot due 250 ms after the last');

// a slice hands the core its handle, budget and snapshot flag; an answer that is not JSON is an error
const asked = [];
const core = (answer) => ({ step: (...args) => { asked.push(args); return answer; } });
const result = runSlice(core('{"progress":0.5,"waiting":true}'), 7, 12, true);
check(result.progress === 0.5 && result.waiting === true, `the slice's Result: ${JSON.stringify(result)}`);
check(JSON.stringify(asked[0]) === '[7,12,true]', `the core was asked step(${asked[0]})`);
const broken = runSlice(core('{"panels": ['), 7, 1, false);
check(typeof broken.error === 'string' && broken.error.includes('not JSON'), `a broken answer gave ${JSON.stringify(broken)}`);

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`run-slices: ${cases.length + 4} budget cases and the snapshot, fixed-clock and slice checks, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
