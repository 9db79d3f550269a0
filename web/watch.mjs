// The authors' watch mode (`scripts/serve --watch`, or `node web/serve.mjs <site> [port]
// --watch ...`): when a lesson's Markdown under the lessons folder changes, the lint and
// lesson build run again (`icl lessons build --draft`), the site module (sitegen/site.mjs)
// prepares again only the lessons whose JSON changed and writes only the pages whose HTML
// changed, and the pages open in a browser reload. While the lint (or the site build)
// fails, every page is served as a list of the problems at file:line, as text; warnings
// (a draft's check count, KaTeX's) are listed in a bar at the foot of each page.
//
// Nothing of this is in the site folder: web/serve.mjs adds the reload client
// (web/watch-client.js, a same-origin module served at /__icl/watch.js) to the pages it
// sends in watch mode, and serves the event stream at /__icl/events.
//
// fs.watch without `recursive` (Node 18 on Linux has no recursive watch): one watcher per
// language folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { escapeHtml as esc } from './src/html-escape.js';
import { createSite, languagesOf } from './sitegen/site.mjs';
import { pageStart } from './sitegen/templates.mjs';

const DEBOUNCE_MS = 25;  // editors write a file in several steps (truncate, write, rename)

// "file:line: message" / "file:line: warning: message" / "file: message" (icl::to_string).
function parseDiagnostic(text) {
  const m = /^(.*?\.md)(?::(\d+))?: (warning: )?(.*)$/.exec(text);
  if (!m) return { text, file: '', line: 0, warning: false, message: text };
  return { text, file: m[1], line: Number(m[2] || 0), warning: Boolean(m[3]), message: m[4] };
}

// The source line a problem names, for the problem list (shown as text); none from a file
// that is not in the lessons folder (a link leading out of it).
function sourceLine(d, lessonsDir) {
  if (!d.file || d.line < 1) return '';
  try {
    const root = fs.realpathSync(lessonsDir);
    if (!fs.realpathSync(d.file).startsWith(root + path.sep)) return '';
    return fs.readFileSync(d.file, 'utf8').split(/\r?\n/)[d.line - 1] ?? '';
  } catch {
    return '';
  }
}

export function problemsPage(problems, version, lessonsDir = '.') {
  const items = problems.map((d) => {
    const where = d.file ? `${d.file}${d.line > 0 ? `:${d.line}` : ''}` : '';
    const line = sourceLine(d, lessonsDir);
    return `<li>${where ? `<code class="icl-watch-where">${esc(where)}</code>: ` : ''}${esc(where ? d.message : d.text)}` +
      `${line ? `\n<pre class="icl-watch-source">${esc(line)}</pre>` : ''}</li>`;
  }).join('\n');
  return `${pageStart({ lang: 'en', title: 'Lesson problems · ICL Lab' })}
<link rel="stylesheet" href="/__icl/watch.css">
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
</head>
<body class="icl-watch-problems" data-version="${version}">
<main>
<h1>The lessons do not build</h1>
<p>Fix these and save: the page reloads.</p>
<ol>
${items}
</ol>
</main>
<script type="module" src="/__icl/watch.js?v=${version}"></script>
</body>
</html>
`;
}

// Starts watching. lessonsDir: the Markdown tree (<dir>/en, <dir>/ko); out: the site
// folder served (its pages are rewritten in place; assets are copied once at start);
// icl: the icl binary; wasm: the folder of icl_core.js/.wasm.
// Returns { ready (a promise of the first build), state(), subscribe(fn) -> unsubscribe, close() }.
export async function startWatch({ lessonsDir, out, icl, wasm, draft = true, log = console.log }) {
  const site = await createSite({ wasm, lessons: lessonsDir });
  const jsonDir = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-watch-'));
  let version = 0;
  const pageVersion = new Map();  // page path in the site -> version it was last written at
  let problems = [];              // errors: the pages show them instead of the lesson
  let warnings = [];              // "file:line: warning: ..." and KaTeX's: a bar on each page
  let written = null;             // path -> text written last (null before the first build)
  const listeners = new Set();

  const state = () => ({ version, errors: problems.length > 0, pages: Object.fromEntries(pageVersion), warnings });
  const emit = () => { for (const fn of listeners) fn(state()); };

  const runLint = () => new Promise((resolve) => {
    const args = ['lessons', 'build', '--out', jsonDir, '--dir', lessonsDir, ...(draft ? ['--draft'] : [])];
    execFile(icl, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const lines = stdout.split('\n').filter((l) => l && !/^lessons: /.test(l));
      resolve({ ok: !err, diagnostics: lines.map(parseDiagnostic), stderr: stderr.trim(), spawnError: err && err.code === 'ENOENT' ? err.message : '' });
    });
  });

  const writeFile = (name, text) => {
    const file = path.join(out, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    fs.rmSync(`${file}.gz`, { force: true });  // a compressed copy of the old page must not be served
  };

  async function build() {
    const t0 = Date.now();
    const lint = await runLint();
    const tLint = Date.now() - t0;
    const errors = lint.diagnostics.filter((d) => !d.warning);
    warnings = lint.diagnostics.filter((x) => x.warning).map((d) => d.text);
    for (const w of warnings) log(`watch: ${w}`);
    if (!lint.ok) {
      problems = errors.length ? errors : [parseDiagnostic(lint.spawnError || lint.stderr || 'icl lessons build failed')];
    } else {
      const loaded = site.load(jsonDir);
      const tLoad = Date.now() - t0 - tLint;
      for (const w of loaded.warnings) log(`watch: math: ${w}`);
      warnings = warnings.concat(loaded.warnings.map((w) => `math: ${w}`));
      let files = null;
      problems = loaded.problems.map(parseDiagnostic);
      if (!problems.length) {
        try {
          files = site.outputs(loaded.lessonsByLang);
          if (written === null) site.writeAssets(out, loaded.lessonsByLang);
        } catch (e) {
          problems = [parseDiagnostic(e.message)];
        }
      }
      if (files) {
        const previous = written || new Map();
        const changed = [];
        version++;
        for (const [name, text] of files) {
          if (previous.get(name) === text) continue;
          // The first build compares with what is on disk (the site scripts/build made).
          if (written === null) {
            try { if (fs.readFileSync(path.join(out, name), 'utf8') === text) continue; } catch { /* new */ }
          }
          writeFile(name, text);
          changed.push(name);
          pageVersion.set(name, version);
        }
        for (const name of previous.keys()) {
          if (files.has(name)) continue;
          fs.rmSync(path.join(out, name), { force: true });
          fs.rmSync(path.join(out, `${name}.gz`), { force: true });
          pageVersion.set(name, version);
          changed.push(name);
        }
        written = files;
        log(`watch: ${loaded.prepared} lesson${loaded.prepared === 1 ? '' : 's'} prepared, ${changed.length} file${changed.length === 1 ? '' : 's'} written in ${Date.now() - t0} ms (lint ${tLint}, prepare ${tLoad})${changed.length ? ': ' + changed.slice(0, 6).join(' ') + (changed.length > 6 ? ' ...' : '') : ''}`);
        emit();
        return;
      }
    }
    version++;
    for (const d of problems) log(`watch: ${d.text}`);
    log(`watch: ${problems.length} problem${problems.length === 1 ? '' : 's'}; the pages show them (${Date.now() - t0} ms)`);
    emit();
  }

  // One build at a time; changes during a build start one more after it.
  let running = null, again = false, timer = null;
  const run = () => {
    running = build().catch((e) => log(`watch: ${e.stack || e}`)).finally(() => {
      running = null;
      if (again) { again = false; schedule(); }
    });
    return running;
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (running) again = true;
      else run();
    }, DEBOUNCE_MS);
  };

  const watchers = [];
  for (const lang of languagesOf(lessonsDir)) {
    const dir = path.join(lessonsDir, lang);
    try {
      watchers.push(fs.watch(dir, (event, name) => { if (!name || String(name).endsWith('.md') || String(name) === 'glossary.json') schedule(); }));
    } catch (e) {
      log(`watch: cannot watch ${dir}: ${e.message}`);
    }
  }
  const ready = run();
  return {
    ready,
    state,
    problemsPage: () => (problems.length ? problemsPage(problems, version, lessonsDir) : null),
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    async close() {
      for (const w of watchers) w.close();
      clearTimeout(timer);
      if (running) await running;
      fs.rmSync(jsonDir, { recursive: true, force: true });
    },
  };
}
