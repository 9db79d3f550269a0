// Builds the static site: the lessons the core parsed (`icl lessons build` JSON) become
// one page per lesson and language plus an index, and an embed page per demo and
// language (for an <iframe> in a teacher's page); math is rendered by KaTeX here, at
// build time, so pages load no math code; the wasm core is copied beside them.
//
//   node web/build-site.mjs --out build/site --wasm build/wasm/bin --icl build/bin/icl
//   node web/build-site.mjs --out DIR --wasm build/wasm/bin --lessons DIR_WITH_INDEX_JSON
//   ... --sources LESSONS_FOLDER     the lesson sources (catalogues, checkpoints; default lessons/)
//
// With --icl the lesson JSON is made by `icl lessons build --out <out>/../lessons-json`
// (which removes only the files it wrote before); with --lessons an existing JSON tree is
// used (e.g. one built with --draft).
//
// The output folder is never emptied wholesale: the build lists what it wrote in
// <out>/.icl-site-build.json (as `icl lessons build` does in .icl-lessons-build.json) and
// removes only those files (and web/gzip-site.mjs's .gz copies of them) before writing
// again. A non-empty folder without that list, which is not a previous build's, is refused.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { clearPreviousBuild, recordBuild } from './sitegen/out-dir.mjs';

const { createSite } = await import('./sitegen/site.mjs');

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
  try {
    execFileSync(path.resolve(args.icl), ['lessons', 'build', '--out', lessonsDir, ...(args.sources ? ['--dir', args.sources] : [])], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    fail(`'${args.icl} lessons build --out ${lessonsDir}' failed (its message is above)`);
  }
}

// ---- pages and assets --------------------------------------------------------------
const site = await createSite({ wasm: args.wasm, lessons: args.sources || undefined });
const { langs } = site;
const { lessonsByLang, problems, warnings } = site.load(lessonsDir);
if (problems.length) fail(problems.join('\nbuild-site: '));
let files;
try {
  files = site.outputs(lessonsByLang);
} catch (e) {
  fail(e.message);
}
const cleared = clearPreviousBuild(out);
if (cleared.error) fail(cleared.error);
const written = [];
for (const [name, text] of files) {
  fs.mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
  fs.writeFileSync(path.join(out, name), text);
  written.push(name);
}
try {
  written.push(...site.writeAssets(out, lessonsByLang));
} catch (e) {
  fail(e.message);
} finally {
  recordBuild(out, written);
}

const count = langs.map((l) => `${lessonsByLang[l].length} ${l}`).join(', ');
for (const w of warnings) console.warn(`build-site: math: ${w}`);
console.log(`site: ${count} lessons, ${Object.keys(site.demoInfo.en).length} demos in the core, ${site.usedDemos(lessonsByLang).size} embed pages a language -> ${path.relative(process.cwd(), out) || '.'}`);
