// The site build as a module: web/build-site.mjs runs it once; the watch mode of
// web/serve.mjs (web/watch.mjs) keeps it loaded and runs it again on each change to a
// lesson, so only what changed is done again: a lesson whose JSON is unchanged keeps its
// KaTeX rendering and demo validation, and a page whose HTML is unchanged is not written.
//
//   const site = await createSite({ wasm: 'build/wasm/bin', lessons: 'lessons' });  // lessons: the sources
//   site.langs                    // ['en', 'ko', ...]: en and each language folder
//   const { lessonsByLang, problems, warnings } = site.load(lessonJsonDir);  // problems: errors as values
//   site.outputs(lessonsByLang)   // Map(path in the site -> text): every page, index.json, math-styles.css
//   site.writeAssets(out)         // web/src, KaTeX's CSS and fonts, the wasm core, demo assets; the paths written
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inlineStylesToClasses } from './inline-styles.mjs';
import { escapeHtml } from '../src/html-escape.js';
import { splitPanels } from '../src/plots/layout.js';
import { fillTemplate } from '../src/i18n.js';
import { lessonPage, indexPage, reviewPage, embedPage } from './templates.mjs';
import { loadCore, callCore as callCoreOf, startLane, stepUntil } from './node-core.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.resolve(here, '..');
const require = createRequire(import.meta.url);
const katex = require('katex');

// Folder names the site keeps for its own files beside the language folders (core/host's
// kReservedFolders says the same): a language so named is refused, not built over them.
export const RESERVED_FOLDERS = ['lab', 'assets', 'lessons', 'embed', 'catalogue', 'checkpoints'];
const isLanguageFolder = (d) => d.isDirectory() && d.name !== 'en' && /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$/.test(d.name);

// The languages of a lessons folder, as the core's lint finds them (core/host's
// languages_of): en first, then each subfolder named by a language code, sorted; never a
// reserved name (reservedLanguages lists those found).
export function languagesOf(lessonsDir) {
  const found = fs.readdirSync(lessonsDir, { withFileTypes: true })
    .filter((d) => isLanguageFolder(d) && !RESERVED_FOLDERS.includes(d.name)).map((d) => d.name).sort();
  return ['en', ...found];
}

// Language folders named like one of the site's own folders: each a message.
export function reservedLanguages(lessonsDir) {
  return fs.readdirSync(lessonsDir, { withFileTypes: true })
    .filter((d) => isLanguageFolder(d) && RESERVED_FOLDERS.includes(d.name))
    .map((d) => `${path.join(lessonsDir, d.name)}: '${d.name}' cannot name a language: the site keeps its own pages in /${d.name}/ ` +
      `(reserved: ${RESERVED_FOLDERS.join(', ')}); rename the folder (a language code such as ko or pt-BR)`);
}

// ---- math --------------------------------------------------------------------------
const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decodeEntities = (s) => s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
  if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  return entities[e.toLowerCase()] ?? m;
});
// KaTeX's HTML for each TeX source met (the watch mode renders a lesson again after each
// save, and most of its math is as it was): (display ? 'D' : 'I') + TeX -> { html, error }.
const mathMemo = new Map();
function renderMath(html, where, warnings) {
  return html.replace(/<x-equation( type="display")?>([\s\S]*?)<\/x-equation>/g, (m, display, tex) => {
    const source = decodeEntities(tex);
    const key = (display ? 'D' : 'I') + source;
    let hit = mathMemo.get(key);
    if (!hit) {
      try {
        hit = { html: katex.renderToString(source, { displayMode: Boolean(display), throwOnError: true, strict: 'ignore' }) };
      } catch (e) {
        hit = { html: katex.renderToString(source, { displayMode: Boolean(display), throwOnError: false, strict: 'ignore' }), error: e.message };
      }
      if (mathMemo.size > 50000) mathMemo.clear();
      mathMemo.set(key, hit);
    }
    if (hit.error) warnings.push(`${where}: ${hit.error}`);
    return hit.html;
  });
}

// Headings get ids numbered in page order, so the language switch can keep the place
// (the two translations have the same sections).
function numberHeadings(html, counter) {
  return html.replace(/<h([2-4])>/g, (m, level) => `<h${level} id="s${++counter.n}">`);
}

// A glossary link, <a href="term:id">text</a> in the core's HTML, becomes a button that
// opens the term's gloss in place (web/src/glossary.js); `used` collects the ids. A link
// around math also holds the term's name as hidden text, its accessible name (axe finds
// no name in the rendered math).
function termButtons(html, used, glossary) {
  return html.replace(/<a href="term:([a-z0-9-]+)">([\s\S]*?)<\/a>/g, (m, id, text) => {
    used.add(id);
    const name = /<x-equation|class="katex/.test(text) && glossary && glossary[id] ? `<span class="visually-hidden">${escapeHtml(glossary[id].term)}</span>` : '';
    return `<button type="button" class="term" data-term="${id}" aria-expanded="false">${text}${name}</button>`;
  });
}

// The static import graph of an entry module under web/src (for <link rel=modulepreload>).
function moduleGraph(entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = fs.readFileSync(path.join(web, 'src', entry), 'utf8');
  for (const m of text.matchAll(/^import[^'"]*from\s+['"](\.[^'"]+)['"]/gm)) {
    moduleGraph(path.posix.normalize(path.posix.join(path.posix.dirname(entry), m[1])), seen);
  }
  return seen;
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

export async function createSite({ wasm, lessons = path.resolve(web, '..', 'lessons') }) {
  // ---- the wasm core, loaded here to describe the demos the lessons use -------------
  const core = await loadCore(wasm);
  const callCore = (name, ...a) => callCoreOf(core, name, ...a);
  // The demos' texts: every language's catalogues (lessons/<lang>/catalogue/*.json)
  // handed to the core as the assets "<lang>/catalogue/<file>" (icl/demo.h's load_texts),
  // and copied into the site for the worker to fetch.
  const lessonSources = path.resolve(lessons);
  const langs = languagesOf(lessonSources);
  const catalogues = [];  // "<lang>/catalogue/<file>.json"
  for (const lang of langs) {
    const dir = path.join(lessonSources, lang, 'catalogue');
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort() : []) {
      catalogues.push(`${lang}/catalogue/${f}`);
      callCore('put_asset', `${lang}/catalogue/${f}`, new Uint8Array(fs.readFileSync(path.join(dir, f))));
    }
  }
  // The pages' own words: each language's site.json over English's.
  const siteWords = (lang) => {
    const read = (l) => {
      const file = path.join(lessonSources, l, 'catalogue', 'site.json');
      return fs.existsSync(file) ? readJson(file) : {};
    };
    return { ...read('en'), ...(lang === 'en' ? {} : read(lang)) };
  };
  const words = Object.fromEntries(langs.map((l) => [l, siteWords(l)]));
  const site = { langs, words, langNames: Object.fromEntries(langs.map((l) => [l, words[l]['page.langName'] || l])) };
  const demoInfo = {};
  for (const lang of langs) {
    demoInfo[lang] = Object.fromEntries(callCore('demos', lang).map((d) => [d.id, d]));
    for (const d of Object.values(demoInfo[lang])) {
      const missing = JSON.stringify(d).match(/⟦[^⟧]*⟧/);
      if (missing) throw new Error(`lessons/${lang}/catalogue/${d.id}.json: demo '${d.id}' has no text for ${missing[0]} (nor has English)`);
    }
  }

  // The files a demo reads (DemoInfo.assets, relative to lessons/): handed to the core
  // before a lesson's demo is started for validation, and copied into the site for the
  // worker to fetch from <site>/lessons/.
  const assetSource = (id, name) => {
    const from = path.resolve(lessonSources, name);
    if (!from.startsWith(lessonSources + path.sep)) throw new Error(`demo '${id}' lists asset '${name}' outside lessons/`);
    if (!fs.existsSync(from)) throw new Error(`demo '${id}' needs lessons/${name}, which does not exist`);
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

  // A lesson page fetches first-result.js's small graph (the plots) first: it draws the
  // carried first result before the rest of lesson.js's graph is needed.
  const modules = {
    lesson: [...new Set([...moduleGraph('first-result.js'), ...moduleGraph('lesson.js')])], index: [...moduleGraph('index.js')],
    review: [...moduleGraph('review.js')], embed: [...moduleGraph('embed.js')],
  };
  const styleClasses = new Map();  // inline style text -> class name (KaTeX's inline styles, see inline-styles.mjs)
  const validated = new Set();     // demo + params the core started once already
  const firstResults = new Map();  // lang + demo + params -> the Result the page shows first (see firstResult)

  // One lesson's JSON (as `icl lessons build` wrote it) made ready for its page: math
  // rendered, headings numbered, each demo block's parameters validated by starting it.
  // Throws an Error naming the lesson and line when a demo refuses its parameters.
  function prepare(lang, lesson, warnings, glossary) {
    const where = `${lang}/${lesson.id}`;
    const counter = { n: 0 };
    const used = new Set();
    const terms = (html) => termButtons(html, used, glossary);
    const blocks = lesson.blocks.map((b) => {
      if (b.kind === 'html') return { ...b, html: terms(inlineStylesToClasses(numberHeadings(renderMath(b.html, where, warnings), counter), styleClasses)) };
      if (b.kind === 'check') {
        const fix = (h) => (h ? terms(inlineStylesToClasses(renderMath(h, where, warnings), styleClasses)) : h);
        return { ...b, prompt_html: fix(b.prompt_html), feedback_html: fix(b.feedback_html),
          options: (b.options || []).map((o) => ({ ...o, html: fix(o.html), feedback_html: fix(o.feedback_html) })) };
      }
      if (b.kind === 'demo') {
        if (!demoInfo[lang][b.demo]) throw new Error(`${where}: demo '${b.demo}' is not in the wasm core (known: ${Object.keys(demoInfo[lang]).join(', ')})`);
        // The core validates the lesson's parameters now, not in a learner's browser.
        const key = `${lang} ${b.demo} ${JSON.stringify(b.params || {})}`;
        if (!validated.has(key)) {
          try {
            putAssets(b.demo);
            const { handle } = callCore('start', b.demo, JSON.stringify(b.params || {}), lang, 1);
            core.drop(handle);
          } catch (e) {
            throw new Error(`${lesson.source || where}:${b.line}: ${e.message}`);
          }
          validated.add(key);
        }
      }
      return b;
    });
    // The glossary entries the page links (the core's lint saw that each exists), their math rendered.
    const entries = {};
    for (const id of used) {
      const e = glossary && glossary[id];
      if (e) entries[id] = { term: e.term, html: inlineStylesToClasses(renderMath(e.html, `${where} glossary '${id}'`, warnings), styleClasses) };
    }
    return { ...lesson, blocks, glossary: entries, firstResult: firstResult(lang, lesson, blocks) };
  }

  // What the page's first demo block shows at load, computed now by this same wasm core
  // exactly as the worker computes it (seed 1, the lesson's parameters), so the page can
  // draw it before its engine is ready (web/src/first-result.js, as soon as the block is
  // parsed): { name: instance, stage, result, caption? } or null.
  // - An analytic demo (stage 'final'): its Result stepped to done — what the page's live
  //   run draws (at once, or when a demo that reads a checkpoint comes near the view).
  // - A training or evaluation demo, which waits for Run (stage 'first-step'): the Result
  //   of the worker's first slice, step(handle, 1), with its lanes offloaded as the worker
  //   offloads them to its helper — what Run draws first, the setup before
  //   training; never the finished run, which would answer the lesson's predict checks
  //   before the learner presses Run (and cost minutes of build). `caption` says so.
  // lesson.js draws it only when the URL does not set that demo up; the live run replaces it.
  function firstResult(lang, lesson, blocks) {
    const b = blocks.find((x) => x.kind === 'demo');
    if (!b) return null;
    const analytic = Boolean(demoInfo[lang][b.demo].analytic);
    const key = `${lang} ${b.demo} ${JSON.stringify(b.params || {})}`;
    if (!firstResults.has(key)) {
      putAssets(b.demo);
      // lanes 1.. go to the worker's helpers: here too, so a training demo's first step
      // shows the page's progress (a lane's work counts once its state is in)
      const { handle } = startLane(core, { demo: b.demo, params: b.params || {}, lang });
      let result;
      try {
        result = analytic ? stepUntil(core, handle, 1 << 16, { snapshot: true, maxSlices: 1000 })
          : stepUntil(core, handle, 1, { snapshot: true, maxSlices: 1 });
      } finally {
        core.drop(handle);
      }
      // A result with an error, or an analytic one that never ends, is not drawn ahead:
      // the page waits for its engine.
      firstResults.set(key, result && !result.error && Array.isArray(result.panels) && (result.done || !analytic) ? result : null);
    }
    const result = firstResults.get(key);
    if (!result) return null;
    // A predict check with hide=result on this demo: first-result.js draws the result
    // hidden, under the note, as demo-block.js's hold() does.
    const held = blocks.some((c) => c.kind === 'check' && c.hides_result && c.grading && c.grading.demo === b.name)
      ? { held: true, heldNote: words[lang].heldNote ?? '⟦heldNote⟧' } : {};
    // The summary of its folded panels ("More results (n)"), as demo-block.js words it.
    const folded = splitPanels(result, (p) => Boolean(p.beside)).rest.length;
    const more = folded ? { moreResults: fillTemplate(words[lang].moreResults ?? '⟦moreResults⟧', { count: folded }) } : {};
    return analytic ? { name: b.name, stage: 'final', result, ...held, ...more }
      : { name: b.name, stage: 'first-step', result, caption: words[lang].firstStepShown ?? '⟦firstStepShown⟧', ...held, ...more };
  }

  // lang/id -> { text: the lesson JSON as read, lesson: prepared, warnings }
  const cache = new Map();

  // Reads <dir>/index.json and the lesson files it lists; a lesson whose file is as it
  // was last time is taken from the cache. Returns { lessonsByLang, problems, warnings,
  // prepared: how many lessons were prepared again }.
  function load(dir) {
    const problems = reservedLanguages(lessonSources), warnings = [];
    let prepared = 0;
    let index;
    try {
      index = readJson(path.join(dir, 'index.json'));
    } catch (e) {
      return { problems: [`cannot read ${path.join(dir, 'index.json')}: ${e.message}`], warnings, prepared };
    }
    // The glossaries (`icl lessons build` writes glossary.json: lang -> id -> {term, html});
    // a build without one has no term links.
    let glossaries = {};
    try {
      glossaries = readJson(path.join(dir, 'glossary.json'));
    } catch (e) {
      if (e.code !== 'ENOENT') problems.push(`cannot read ${path.join(dir, 'glossary.json')}: ${e.message}`);
    }
    const glossaryText = JSON.stringify(glossaries);
    const lessonsByLang = {};
    const seen = new Set();
    for (const lang of langs) {
      lessonsByLang[lang] = [];
      if (!Array.isArray(index[lang])) { problems.push(`index.json has no "${lang}" list (lessons/${lang}/ is a language folder)`); continue; }
      for (const entry of index[lang]) {
        const key = `${lang}/${entry.id}`;
        seen.add(key);
        let text;
        try {
          text = fs.readFileSync(path.join(dir, lang, `${entry.id}.json`), 'utf8');
        } catch (e) {
          problems.push(`cannot read ${lang}/${entry.id}.json: ${e.message}`);
          continue;
        }
        let hit = cache.get(key);
        if (!hit || hit.text !== text || hit.glossaryText !== glossaryText) {
          const w = [];
          try {
            hit = { text, glossaryText, lesson: prepare(lang, JSON.parse(text), w, glossaries[lang]), warnings: w };
          } catch (e) {
            cache.delete(key);
            problems.push(e.message);
            continue;
          }
          cache.set(key, hit);
          prepared++;
        }
        warnings.push(...hit.warnings);
        lessonsByLang[lang].push(hit.lesson);
      }
      if (lessonsByLang[lang].some((l) => l.id === 'review')) problems.push(`${lang}: a lesson may not have the id 'review' (${lang}/review.html is the review page)`);
    }
    for (const key of cache.keys()) if (!seen.has(key)) cache.delete(key);
    return { lessonsByLang, problems, warnings, prepared };
  }

  const usedDemos = (lessonsByLang) =>
    new Set(langs.flatMap((l) => lessonsByLang[l].flatMap((x) => x.blocks.filter((b) => b.kind === 'demo').map((b) => b.demo))));

  // Every generated file of the site, by its path in the site (posix): the lesson,
  // review, embed and index pages, index.json and math-styles.css.
  // A page is made again only when what it is made of changed: the prepared lessons (the
  // same objects while their JSON is unchanged) and the small values beside them.
  const pageMemo = new Map();  // path -> { deps, text }
  const page = (name, deps, make) => {
    const hit = pageMemo.get(name);
    if (hit && hit.deps.length === deps.length && hit.deps.every((d, i) => d === deps[i])) return hit.text;
    const text = make();
    pageMemo.set(name, { deps, text });
    return text;
  };

  function outputs(lessonsByLang) {
    const files = new Map();
    for (const lang of langs) {
      const list = lessonsByLang[lang];
      list.forEach((lesson, i) => {
        const has = langs.map((l) => lessonsByLang[l].some((x) => x.id === lesson.id));
        const translated = (l) => has[langs.indexOf(l)];
        const prev = list[i - 1], next = list[i + 1];
        files.set(`${lang}/${lesson.id}.html`, page(`${lang}/${lesson.id}.html`,
          [lesson, has.join(), prev && prev.id, prev && prev.title, next && next.id, next && next.title],
          () => lessonPage({ lesson, lang, site, translated, prev, next, demoInfo: demoInfo[lang], modules: modules.lesson })));
      });
      files.set(`${lang}/review.html`, page(`${lang}/review.html`, list.slice(), () => reviewPage({ lang, site, lessons: list, modules: modules.review })));
    }
    // One embed page per demo the lessons run, per language: <lang>/embed/<demo>.html.
    for (const lang of langs) {
      for (const id of usedDemos(lessonsByLang)) {
        if (!/^[a-z0-9_]+$/.test(id)) throw new Error(`demo id '${id}' cannot name an embed page (want a-z, 0-9 and _)`);
        const lessons = lessonsByLang[lang].flatMap((l) => l.blocks.filter((b) => b.kind === 'demo' && b.demo === id)
          .map((b) => ({ id: l.id, instance: b.name, params: b.params || {} })));
        const assetBytes = (demoInfo[lang][id].assets || []).reduce((n, name) => n + fs.statSync(assetSource(id, name)).size, 0);
        files.set(`${lang}/embed/${id}.html`, page(`${lang}/embed/${id}.html`, [JSON.stringify(lessons), assetBytes], () => embedPage({ lang, site, demo: id, info: demoInfo[lang][id], lessons, assetBytes, modules: modules.embed })));
      }
    }
    const indexData = Object.fromEntries(langs.map((lang) => [lang, lessonsByLang[lang].map((l) => ({
      id: l.id, title: l.title, order: l.order, number: l.number, summary: l.summary, minutes: l.minutes,
      checks: l.blocks.filter((b) => b.kind === 'check').map((b) => b.id),
      demos: l.blocks.filter((b) => b.kind === 'demo').map((b) => b.demo),
    }))]));
    files.set('index.html', indexPage({ index: indexData, site, modules: modules.index }));
    files.set('index.json', JSON.stringify(indexData));
    files.set('assets/math-styles.css',
      [...styleClasses].map(([style, cls]) => `.${cls}{${style.split(';').filter((d) => d.trim()).map((d) => `${d.trim()}!important`).join(';')}}`).join('\n') + '\n');
    return files;
  }

  // The files pages load that no lesson generates: web/src as assets/, KaTeX's CSS and
  // woff2 fonts, the wasm core, and the files the lessons' demos read.
  // Returns the paths it wrote, relative to out ("assets/app.css", ...).
  function writeAssets(out, lessonsByLang) {
    const written = [];
    const copy = (from, to) => {
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      written.push(path.relative(out, to).split(path.sep).join('/'));
    };
    const copyTree = (from, to) => {
      for (const d of fs.readdirSync(from, { withFileTypes: true })) {
        if (d.isDirectory()) copyTree(path.join(from, d.name), path.join(to, d.name));
        else if (d.isFile()) copy(path.join(from, d.name), path.join(to, d.name));
      }
    };
    copyTree(path.join(web, 'src'), path.join(out, 'assets'));
    const katexDist = path.join(path.dirname(require.resolve('katex/package.json')), 'dist');
    for (const f of fs.readdirSync(path.join(katexDist, 'fonts')).filter((f) => f.endsWith('.woff2'))) {
      copy(path.join(katexDist, 'fonts', f), path.join(out, 'assets', 'katex', 'fonts', f));
    }
    // katex.min.css lists woff2, woff and ttf; browsers that read this CSS take woff2 first.
    fs.mkdirSync(path.join(out, 'assets', 'katex'), { recursive: true });
    fs.writeFileSync(path.join(out, 'assets', 'katex', 'katex.min.css'), fs.readFileSync(path.join(katexDist, 'katex.min.css'), 'utf8')
      .replace(/,url\(fonts\/[^)]+\.woff\) format\("woff"\)/g, '')
      .replace(/,url\(fonts\/[^)]+\.ttf\) format\("truetype"\)/g, ''));
    written.push('assets/katex/katex.min.css');
    for (const id of usedDemos(lessonsByLang)) {
      for (const name of demoInfo.en[id].assets || []) copy(assetSource(id, name), path.join(out, 'lessons', name));
    }
    for (const name of catalogues) copy(path.join(lessonSources, name), path.join(out, 'lessons', name));
    copy(path.join(wasm, 'icl_core.js'), path.join(out, 'assets', 'icl_core.js'));
    copy(path.join(wasm, 'icl_core.wasm'), path.join(out, 'assets', 'icl_core.wasm'));
    return written;
  }

  return { langs, demoInfo, load, outputs, writeAssets, usedDemos };
}
