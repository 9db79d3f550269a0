// The docs lint (ctest suite `docs`): every relative link and image of README.md and
// docs/*.md names a file of the repository (a `#fragment` is dropped; web addresses and
// in-page anchors are left alone), the README stays a first screen (at most 150 lines),
// and neither speaks of the tracker's "issue N", which a reader of the repository does
// not have. And the comments of core/, native/, web/src and web/sitegen explain the code
// rather than tell its measurement history: no dates, no "measured", "not kept", named
// processors or "N % faster" in them (the runs and their figures belong in
// docs/performance.md; a comment keeps the reason in a line).
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

// ---- comments of the source folders ----------------------------------------------------
const sourceRoots = ['core', 'native', 'web/src', 'web/sitegen'];
const sourceExt = /\.(h|hpp|cpp|cc|js|mjs|css)$/;
const storyRes = [
  [/\b(19|20)\d\d-\d\d-\d\d\b/, 'a date'],
  [/\bmeasured\b/i, '"measured"'],
  [/\bnot kept\b/i, '"not kept"'],
  [/\bZen ?\d\b/, 'a named processor'],
  [/\d ?% (faster|slower)\b/i, 'a speed-up figure'],
  [/GFLOP\/s/, 'a speed figure'],
  [/\bissues? \d+/i, 'a tracker number'],
];

// The comment text of each line of a C++/JS/CSS source: `//` to the end of the line (not
// after a ':', so 'http://' in a string is not one) and /* ... */ across lines.
export function commentsOf(text) {
  const out = [];
  let inBlock = false;
  text.split('\n').forEach((line, i) => {
    let rest = line;
    let found = '';
    for (;;) {
      if (inBlock) {
        const end = rest.indexOf('*/');
        if (end < 0) { found += ' ' + rest; break; }
        found += ' ' + rest.slice(0, end);
        rest = rest.slice(end + 2);
        inBlock = false;
        continue;
      }
      const m = rest.match(/(^|[^:'"\\])\/\/(.*)$|\/\*/);
      if (!m) break;
      if (m[0].endsWith('/*') && !m[0].includes('//')) {
        inBlock = true;
        rest = rest.slice(m.index + m[0].length);
        continue;
      }
      found += ' ' + m[2];
      break;
    }
    if (found.trim()) out.push({ line: i + 1, text: found });
  });
  return out;
}

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (sourceExt.test(e.name)) yield p;
  }
}

let sources = 0;
for (const r of sourceRoots) {
  const dir = path.join(root, r);
  if (!fs.existsSync(dir)) continue;
  for (const file of walk(dir)) {
    sources++;
    for (const { line, text } of commentsOf(fs.readFileSync(file, 'utf8'))) {
      for (const [re, what] of storyRes) {
        const m = text.match(re);
        if (m) problems.push(`${path.relative(root, file)}:${line}: ${what} in a comment ('${m[0]}'): a measurement story belongs in docs/performance.md`);
      }
    }
  }
}

const readmeLines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length - 1;
if (readmeLines > 150) problems.push(`README.md: ${readmeLines} lines; the first screen keeps to 150 (the rest belongs in docs/)`);

if (problems.length) {
  for (const p of problems) console.log(p);
  console.log(`docs: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`docs: ${docs.length} files, links resolve, README ${readmeLines} lines; ${sources} sources' comments tell no stories`);
