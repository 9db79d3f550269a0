// Runs every demo instance that a predict check in the lessons refers to, with the
// lesson's parameters and the default seed, and checks that the real scalar falls in
// exactly one option's half-open range [lo, hi) — and in the option that the lesson's
// feedback explains (tests/lessons/predict-expectations.json). Range membership is
// computed here, independently of the core grader.
//   node tests/lessons/predict-ranges.mjs build/bin/icl [lessons-dir]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const icl = process.argv[2] || 'build/bin/icl';
const lessonsDir = process.argv[3] || 'lessons';
const here = dirname(fileURLToPath(import.meta.url));
const expected = JSON.parse(readFileSync(join(here, 'predict-expectations.json'), 'utf8'));

const out = mkdtempSync(join(tmpdir(), 'icl-lessons-'));
let failures = 0, checked = 0;
const fail = (msg) => { failures++; console.log('FAIL ' + msg); };
try {
  execFileSync(icl, ['lessons', 'build', '--out', out, '--dir', lessonsDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8'));
  const results = new Map();  // demo + params -> Result JSON
  const seen = new Set();
  for (const lang of Object.keys(index)) {
    for (const entry of index[lang]) {
      const lesson = JSON.parse(readFileSync(join(out, lang, entry.id + '.json'), 'utf8'));
      const instances = new Map();
      for (const b of lesson.blocks) if (b.kind === 'demo') instances.set(b.name, b);
      for (const b of lesson.blocks) {
        if (b.kind !== 'check' || b.type !== 'predict') continue;
        if (b.grading.run === 'own') continue;  // graded against the learner's own run: no fixed answer
        const key = `${lesson.id}/${b.id}`;
        const where = `${lang}/${key}`;
        const inst = instances.get(b.grading.demo);
        if (!inst) { fail(`${where}: no demo instance '${b.grading.demo}' on the page`); continue; }
        const sets = Object.entries(inst.params).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
        const cacheKey = inst.demo + ' ' + sets.join(' ');
        if (!results.has(cacheKey))
          results.set(cacheKey, JSON.parse(execFileSync(icl, ['run', inst.demo, ...sets, '--json'], { encoding: 'utf8' })));
        const result = results.get(cacheKey);
        const items = result.panels.filter(p => p.kind === 'scalars').flatMap(p => p.items);
        const item = items.find(i => i.name === b.grading.scalar);
        if (!item || typeof item.value !== 'number') { fail(`${where}: the demo has no finite scalar '${b.grading.scalar}'`); continue; }
        const v = item.value;
        const hits = Object.entries(b.grading.ranges)
          .filter(([, [lo, hi]]) => (lo === null || v >= lo) && (hi === null || v < hi))
          .map(([k]) => k);
        checked++;
        if (hits.length !== 1) { fail(`${where}: ${b.grading.scalar} = ${v} lies in ${hits.length} ranges (${hits.join(',')})`); continue; }
        if (!(key in expected)) { fail(`${where}: no expectation in predict-expectations.json`); continue; }
        if (hits[0] !== expected[key]) fail(`${where}: ${b.grading.scalar} = ${v} is option ${hits[0]}, the lesson explains ${expected[key]}`);
        else if (!seen.has(key)) console.log(`ok   ${key}: ${b.grading.scalar} = ${v.toPrecision(4)} -> ${hits[0]}`);
        seen.add(key);
      }
    }
  }
  for (const key of Object.keys(expected)) if (!key.startsWith('_') && !seen.has(key)) fail(`${key}: expected but no such predict check`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.log(`predict checks: ${checked} graded against real results, ${failures} failures`);
process.exit(failures ? 1 : 0);
