// The page's words with placeholders (lessons/<lang>/catalogue/site.json) are called by
// name: words.pngOf({ title }). This reads every call of the form `words.key(...)`,
// `w.key(...)` or `this.words.key(...)` in web/src and checks, for each language, that
// the key's message has placeholders, that the call passes an object literal, and that
// the object names exactly the message's placeholders; then fills every message through
// web/src/i18n.js's wordsFor and checks that no placeholder of a called message survives.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wordsFor } from '../../web/src/i18n.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const placeholders = (text) => [...String(text).matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)(?::\.\d+f)?\}/g)].map((m) => m[1]);
const failures = [];
let calls = 0;

const sources = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.js')) sources.push(p);
  }
};
walk(path.join(root, 'web', 'src'));

// Call sites: `<words>.<key>(<argument>)` or `<words>['<key>'](<argument>)` with the argument up to its closing parenthesis.
const found = [];
for (const file of sources) {
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/\b(?:this\.words|words|w)(?:\.([A-Za-z]+)|\['([A-Za-z_.]+)'\])\(/g)) {
    let depth = 1, i = m.index + m[0].length;
    while (i < text.length && depth > 0) { if (text[i] === '(') depth++; else if (text[i] === ')') depth--; i++; }
    found.push({ file: path.relative(root, file), key: m[1] || m[2], arg: text.slice(m.index + m[0].length, i - 1).trim() });
  }
}

for (const lang of fs.readdirSync(path.join(root, 'lessons'))) {
  const file = path.join(root, 'lessons', lang, 'catalogue', 'site.json');
  if (!fs.existsSync(file)) continue;
  const messages = JSON.parse(fs.readFileSync(file, 'utf8'));
  const words = wordsFor(messages);
  for (const c of found) {
    if (!(c.key in messages)) continue;  // another object's method (words.push, ...)
    calls++;
    const want = placeholders(messages[c.key]).sort();
    if (want.length === 0) { failures.push(`${c.file}: ${lang} ${c.key} has no placeholder but is called`); continue; }
    if (!/^\{[\s\S]*\}$/.test(c.arg)) { failures.push(`${c.file}: ${c.key}(${c.arg}) passes no object of named values`); continue; }
    const names = [...c.arg.slice(1, -1).matchAll(/(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?=:|,|$)/g)].map((m) => m[1]).sort();
    if (JSON.stringify(names) !== JSON.stringify([...new Set(want)])) failures.push(`${c.file}: ${lang} ${c.key} wants {${want.join(', ')}}, the call names {${names.join(', ')}}`);
    const filled = words[c.key](Object.fromEntries(want.map((n) => [n, 7])));
    if (placeholders(filled).length) failures.push(`${lang} ${c.key}: "${filled}" still has a placeholder`);
  }
}

if (calls === 0) failures.push('no call of a message with placeholders was found in web/src');
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`words: ${calls} calls checked, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
