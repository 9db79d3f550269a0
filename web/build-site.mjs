// Builds the static site: the lessons the core parsed (`icl lessons build` JSON) become
// one page per lesson and language plus an index, and an embed page per demo and
// language (for an <iframe> in a teacher's page); math is rendered by KaTeX here, at
// build time, so pages load no math code; the wasm core is copied beside them.
//
//   node web/build-site.mjs --out build/site --wasm build/wasm/bin --icl build/bin/icl
//   node web/build-site.mjs --out DIR --wasm build/wasm/bin --lessons DIR_WITH_INDEX_JSON
//
// With --icl the lesson JSON is made by `icl lessons build --out <out>/../lessons-json`;
// with --lessons an existing JSON tree is used (e.g. one built with --draft).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const katex = require('katex');
const { inlineStylesToClasses } = await import('./sitegen/inline-styles.mjs');
const { lessonPage, indexPage, reviewPage, embedPage } = await import('./sitegen/templates.mjs');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) fail(`unexpected argument '${argv[i]}'`);
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    args[argv[i].slice(2)] = argv[++i];
  }
  return args;
}

function fail(message) {
  console.error(`build-site: ${message}`);
  process.exit(1);
}

const args = parseArgs(process.argv.slice(2));
const out = path.resolve(args.out || 'build/site');
if (!args.wasm) fail('--wasm <folder with icl_core.js and icl_core.wasm> is required');
if (!args.lessons && !args.icl) fail('give --icl <icl binary> or --lessons <lesson JSON folder>');

// ---- the lesson JSON --------------------------------------------------------------
let lessonsDir = args.lessons && path.resolve(args.lessons);
if (!lessonsDir) {
  lessonsDir = path.join(path.dirname(out), 'lessons-json');
  fs.rmSync(lessonsDir, { recursive: true, force: true });
  try {
    execFileSync(path.resolve(args.icl), ['lessons', 'build', '--out', lessonsDir], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    fail(`'${args.icl} lessons build --out ${lessonsDir}' failed (its message is above)`);
  }
}
const readJson = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`cannot read ${file}: ${e.message}`);
  }
};
const index = readJson(path.join(lessonsDir, 'index.json'));
const langs = ['en', 'ko'];
for (const lang of langs) if (!Array.isArray(index[lang])) fail(`index.json has no "${lang}" list`);

// ---- the wasm core, loaded here to describe the demos the lessons use ---------------
const wasmJs = path.join(args.wasm, 'icl_core.js');
const wasmBin = path.join(args.wasm, 'icl_core.wasm');
const core = await require(path.resolve(wasmJs))({ wasmBinary: fs.readFileSync(wasmBin) });
const callCore = (name, ...a) => {
  const value = JSON.parse(core[name](...a));
  if (value && value.error) throw new Error(value.error);
  return value;
};
const demoInfo = {};
for (const lang of langs) demoInfo[lang] = Object.fromEntries(callCore('demos', lang).map((d) => [d.id, d]));

// The files a demo reads (DemoInfo.assets, relative to lessons/): handed to the core here
// before a lesson's demo is started for validation, and copied into the site below for
// the worker to fetch from <site>/lessons/.
const lessonSources = path.resolve(here, '..', 'lessons');
const assetSource = (id, name) => {
  const from = path.resolve(lessonSources, name);
  if (!from.startsWith(lessonSources + path.sep)) fail(`demo '${id}' lists asset '${name}' outside lessons/`);
  if (!fs.existsSync(from)) fail(`demo '${id}' needs lessons/${name}, which does not exist`);
  return from;
};
const assetsInCore = new Set();
const putAssets = (id) => {
  for (const name of demoInfo.en[id].assets || []) {
    if (assetsInCore.has(name)) continue;
    callCore('put_asset', name, new Uint8Array(fs.readFileSync(assetSource(id, name))));
    assetsInCore.add(name);
  }
};

// ---- math --------------------------------------------------------------------------
const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decodeEntities = (s) => s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
  if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  return entities[e.toLowerCase()] ?? m;
});
const mathWarnings = [];
function renderMath(html, where) {
  return html.replace(/<x-equation( type="display")?>([\s\S]*?)<\/x-equation>/g, (m, display, tex) => {
    const source = decodeEntities(tex);
    try {
      return katex.renderToString(source, { displayMode: Boolean(display), throwOnError: true, strict: 'ignore' });
    } catch (e) {
      mathWarnings.push(`${where}: ${e.message}`);
      return katex.renderToString(source, { displayMode: Boolean(display), throwOnError: false, strict: 'ignore' });
    }
  });
}

// Headings get ids numbered in page order, so the language switch can keep the place
// (the two translations have the same sections).
function numberHeadings(html, counter) {
  return html.replace(/<h([2-4])>/g, (m, level) => `<h${level} id="s${++counter.n}">`);
}

// ---- pages -------------------------------------------------------------------------
// The static import graph of an entry module under web/src (for <link rel=modulepreload>).
function moduleGraph(entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = fs.readFileSync(path.join(here, 'src', entry), 'utf8');
  for (const m of text.matchAll(/^import[^'"]*from\s+['"](\.[^'"]+)['"]/gm)) {
    moduleGraph(path.posix.normalize(path.posix.join(path.posix.dirname(entry), m[1])), seen);
  }
  return seen;
}
const lessonModules = [...moduleGraph('lesson.js')];
const indexModules = [...moduleGraph('index.js')];
const reviewModules = [...moduleGraph('review.js')];
const embedModules = [...moduleGraph('embed.js')];

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const styleClasses = new Map();  // inline style text -> class name (KaTeX's inline styles, see inline-styles.mjs)

const lessonsByLang = {};
for (const lang of langs) {
  lessonsByLang[lang] = index[lang].map((entry) => {
    const file = path.join(lessonsDir, lang, `${entry.id}.json`);
    const lesson = readJson(file);
    const where = `${lang}/${entry.id}`;
    const counter = { n: 0 };
    const blocks = lesson.blocks.map((b) => {
      if (b.kind === 'html') return { ...b, html: inlineStylesToClasses(numberHeadings(renderMath(b.html, where), counter), styleClasses) };
      if (b.kind === 'check') {
        const fix = (h) => (h ? inlineStylesToClasses(renderMath(h, where), styleClasses) : h);
        return { ...b, prompt_html: fix(b.prompt_html), feedback_html: fix(b.feedback_html),
          options: (b.options || []).map((o) => ({ ...o, html: fix(o.html), feedback_html: fix(o.feedback_html) })) };
      }
      if (b.kind === 'demo') {
        if (!demoInfo[lang][b.demo]) fail(`${where}: demo '${b.demo}' is not in the wasm core (known: ${Object.keys(demoInfo[lang]).join(', ')})`);
        // The core validates the lesson's parameters now, not in a learner's browser.
        try {
          putAssets(b.demo);
          const { handle } = callCore('start', b.demo, JSON.stringify(b.params || {}), lang, 1);
          core.drop(handle);
        } catch (e) {
          fail(`${where} line ${b.line}: ${e.message}`);
        }
      }
      return b;
    });
    return { ...lesson, blocks };
  });
}

for (const lang of langs) {
  fs.mkdirSync(path.join(out, lang), { recursive: true });
  const list = lessonsByLang[lang];
  list.forEach((lesson, i) => {
    const other = langs.find((l) => l !== lang);
    const html = lessonPage({
      lesson, lang, other,
      hasOther: lessonsByLang[other].some((l) => l.id === lesson.id),
      prev: list[i - 1], next: list[i + 1],
      demoInfo: demoInfo[lang], modules: lessonModules,
    });
    fs.writeFileSync(path.join(out, lang, `${lesson.id}.html`), html);
  });
  if (list.some((l) => l.id === 'review')) fail(`${lang}: a lesson may not have the id 'review' (${lang}/review.html is the review page)`);
  fs.writeFileSync(path.join(out, lang, 'review.html'), reviewPage({ lang, lessons: list, modules: reviewModules }));
}
// One embed page per demo the lessons run, per language: <lang>/embed/<demo>.html.
const usedDemos = new Set(langs.flatMap((l) => lessonsByLang[l].flatMap((x) => x.blocks.filter((b) => b.kind === 'demo').map((b) => b.demo))));
for (const lang of langs) {
  fs.mkdirSync(path.join(out, lang, 'embed'), { recursive: true });
  for (const id of usedDemos) {
    if (!/^[a-z0-9_]+$/.test(id)) fail(`demo id '${id}' cannot name an embed page (want a-z, 0-9 and _)`);
    const lessons = lessonsByLang[lang].flatMap((l) => l.blocks.filter((b) => b.kind === 'demo' && b.demo === id)
      .map((b) => ({ id: l.id, instance: b.name, params: b.params || {} })));
    const assetBytes = (demoInfo[lang][id].assets || []).reduce((n, name) => n + fs.statSync(assetSource(id, name)).size, 0);
    fs.writeFileSync(path.join(out, lang, 'embed', `${id}.html`),
      embedPage({ lang, demo: id, info: demoInfo[lang][id], lessons, assetBytes, modules: embedModules }));
  }
}
const indexData = Object.fromEntries(langs.map((lang) => [lang, lessonsByLang[lang].map((l) => ({
  id: l.id, title: l.title, order: l.order, summary: l.summary,
  checks: l.blocks.filter((b) => b.kind === 'check').map((b) => b.id),
  demos: l.blocks.filter((b) => b.kind === 'demo').map((b) => b.demo),
}))]));
fs.writeFileSync(path.join(out, 'index.html'), indexPage({ index: indexData, modules: indexModules }));
fs.writeFileSync(path.join(out, 'index.json'), JSON.stringify(indexData));

// ---- assets ------------------------------------------------------------------------
const copy = (from, to) => {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
};
fs.cpSync(path.join(here, 'src'), path.join(out, 'assets'), { recursive: true });
const katexDist = path.join(path.dirname(require.resolve('katex/package.json')), 'dist');
copy(path.join(katexDist, 'katex.min.css'), path.join(out, 'assets', 'katex', 'katex.min.css'));
for (const f of fs.readdirSync(path.join(katexDist, 'fonts')).filter((f) => f.endsWith('.woff2'))) {
  copy(path.join(katexDist, 'fonts', f), path.join(out, 'assets', 'katex', 'fonts', f));
}
// katex.min.css lists woff2, woff and ttf; browsers that read this CSS take woff2 first.
const katexCss = path.join(out, 'assets', 'katex', 'katex.min.css');
fs.writeFileSync(katexCss, fs.readFileSync(katexCss, 'utf8')
  .replace(/,url\(fonts\/[^)]+\.woff\) format\("woff"\)/g, '')
  .replace(/,url\(fonts\/[^)]+\.ttf\) format\("truetype"\)/g, ''));
fs.writeFileSync(path.join(out, 'assets', 'math-styles.css'),
  [...styleClasses].map(([style, cls]) => `.${cls}{${style.split(';').filter((d) => d.trim()).map((d) => `${d.trim()}!important`).join(';')}}`).join('\n') + '\n');
for (const id of usedDemos) {
  for (const name of demoInfo.en[id].assets || []) {
    copy(assetSource(id, name), path.join(out, 'lessons', name));
  }
}
copy(wasmJs, path.join(out, 'assets', 'icl_core.js'));
copy(wasmBin, path.join(out, 'assets', 'icl_core.wasm'));

const count = langs.map((l) => `${lessonsByLang[l].length} ${l}`).join(', ');
for (const w of mathWarnings) console.warn(`build-site: math: ${w}`);
console.log(`site: ${count} lessons, ${Object.keys(demoInfo.en).length} demos in the core, ${usedDemos.size} embed pages a language -> ${path.relative(process.cwd(), out) || '.'}`);
