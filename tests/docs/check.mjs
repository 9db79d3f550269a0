// The docs lint (ctest suite `docs`): every relative link and image of README.md and
// docs/*.md names a file of the repository (a `#fragment` is dropped; web addresses and
// in-page anchors are left alone), the README stays a first screen (at most 150 lines),
// and neither speaks of the tracker's "issue N", which a reader of the repository does
// not have.
//   node tests/docs/check.mjs [repository root]     (default: the current folder)
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] || '.');
const problems = [];

const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

// Inline links and images, [text](target) and ![alt](target "title"); code spans and
// fenced blocks are skipped, so an example of the syntax is not taken for a link.
const linkRe = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

export function linksOf(text) {
  const out = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) { fenced = !fenced; return; }
    if (fenced) return;
    const bare = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of bare.matchAll(linkRe)) out.push({ line: i + 1, target: m[1] });
  });
  return out;
}

for (const doc of docs) {
  const text = fs.readFileSync(path.join(root, doc), 'utf8');
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const file = decodeURIComponent(target.split('#')[0]);
    const resolved = path.resolve(path.dirname(path.join(root, doc)), file);
    if (!resolved.startsWith(root + path.sep) && resolved !== root) {
      problems.push(`${doc}:${line}: link '${target}' leaves the repository`);
    } else if (!fs.existsSync(resolved)) {
      problems.push(`${doc}:${line}: link '${target}' names no file (${path.relative(root, resolved)})`);
    }
  }
  text.split('\n').forEach((l, i) => {
    if (/\bissues? \d+/i.test(l)) problems.push(`${doc}:${i + 1}: "${l.match(/\bissues? \d+/i)[0]}" names the tracker, which a reader does not have`);
  });
}

const readmeLines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length - 1;
if (readmeLines > 150) problems.push(`README.md: ${readmeLines} lines; the first screen keeps to 150 (the rest belongs in docs/)`);

if (problems.length) {
  for (const p of problems) console.log(p);
  console.log(`docs: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`docs: ${docs.length} files, links resolve, README ${readmeLines} lines`);
