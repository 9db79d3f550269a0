// The web's number display (web/src/plots/common.js, fmt) follows the core's display
// rule (core/base/icl/format.h, display_number): every case the core's unit test checks
// ("format: the display rule ..." in tests/unit/test_texts.cpp, lines of the form
// CHECK(display_number(<value>) == "<text>")) is read from that file and checked here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt } from '../../web/src/plots/common.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const source = fs.readFileSync(path.join(root, 'tests', 'unit', 'test_texts.cpp'), 'utf8');
// The core hands the page a non-finite value as null.
const value = (expr) => {
  const e = expr.trim();
  if (/^std::nan\(""\)$/.test(e) || /^-?INFINITY$/.test(e)) return null;
  const v = Number(e);
  if (Number.isNaN(v)) throw new Error(`a value this test cannot read: ${e}`);
  return v;
};
const cases = [...source.matchAll(/CHECK\(display_number\(([^)]*(?:\([^)]*\))?)\) == "([^"]*)"\)/g)].map((m) => ({ expr: m[1], want: m[2] }));
const failures = [];
if (cases.length < 10) failures.push(`only ${cases.length} cases read from test_texts.cpp`);
for (const c of cases) {
  const got = fmt(value(c.expr));
  if (got !== c.want) failures.push(`fmt(${c.expr}) = "${got}", the core shows "${c.want}"`);
}
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`display: ${cases.length} cases, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
