// Builds the static site into --out from the core's own listings.
//   node web/build-site.mjs --out build/site --wasm build/wasm/bin --icl build/bin/icl
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const out = args.out || 'build/site';
fs.mkdirSync(out, { recursive: true });

const esc = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const demos = execFileSync(args.icl, ['demos']).toString().trim().split('\n').filter(Boolean)
  .map((line) => { const m = line.match(/^(\S+)\s+(.*)$/); return { id: m[1], title: m[2] }; });
const items = demos.map((d) => `<li><code>${esc(d.id)}</code> ${esc(d.title)}</li>`).join('\n');
fs.writeFileSync(path.join(out, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ICL Lab</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>ICL Lab</h1><p>Demos the core registers:</p><ul>
${items || '<li>(none yet)</li>'}
</ul></body></html>
`);
for (const f of ['icl_core.js', 'icl_core.wasm']) fs.copyFileSync(path.join(args.wasm, f), path.join(out, f));
console.log(`site: ${demos.length} demos listed in ${out}/index.html`);
