// The SCORM package as a learning platform runs it:
//   ctest --test-dir build/wasm -R browser-scorm   (playwright project browser-scorm)
// `icl lessons package` packs the built site (SCORM 1.2, then 2004); Python's zipfile
// (an independent reader) tests every entry's CRC and unpacks it; the manifest is parsed
// by Chromium's XML parser and its structure checked against the elements the SCORM
// content packaging spec requires (the ADL schemas are not in Debian, and on npm only
// inside a packaging tool with ~140 dependencies, so they are not used). Then a platform
// stand-in served on 127.0.0.1 hosts a lesson the way a platform does: a page that
// provides the run-time API with scorm-again (window.API / API_1484_11, committing to
// the stand-in's /commit) and the SCO in an <iframe>. The learner answers checks in
// headless Chromium; the test asserts what the platform receives: nothing before the
// page goes away, then on unload a commit with the status, the score (the page's own
// verdicts counted here) and suspend_data; and, in a fresh browser (no localStorage),
// the platform's kept suspend_data brings the answers back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { test, verify, root, icl, site, watchedContext } from './harness.mjs';

test.describe.configure({ mode: 'serial' });  // later tests use the packages and answers of earlier ones
const timeoutMs = 60000;
let tmp;

// Packs the site and unpacks it with Python's zipfile (which checks each CRC-32).
function pack(name, args) {
  const zip = path.join(tmp, `${name}.zip`), dir = path.join(tmp, name);
  execFileSync(icl, ['lessons', 'package', '--scorm', zip, '--site', site, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const bad = execFileSync('/usr/bin/python3', ['-c',
    'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip() or ""); z.extractall(sys.argv[2])', zip, dir]).toString().trim();
  verify(bad === '', `zipfile found a bad entry: ${bad}`);
  return dir;
}
const listFiles = (dir, base = dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? listFiles(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name)).split(path.sep).join('/')]);

// ---- the platform stand-in ---------------------------------------------------------
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.png': 'image/png', '.bin': 'application/octet-stream' };
const platform = { pkg: null, commits: [], kept: null, version: '1.2', lesson: '' };
const hostPage = (version, lesson) => `<!doctype html><html><head><meta charset="utf-8"><title>platform</title>
<script src="/scorm-again.js"></script></head><body>
<script>
// What a platform's player does: the run-time API in this window, the learner's kept
// data loaded into it, then the SCO in a frame.
const kept = ${JSON.stringify(platform.kept)};
const settings = { lmsCommitUrl: '/commit', autocommit: false, dataCommitFormat: 'json', logLevel: 5 };
${version === '1.2'
    ? 'window.API = new Scorm12API(settings);\nif (kept) window.API.loadFromJSON({ suspend_data: kept.suspend_data, core: { student_id: "s-1", student_name: "Learner, One" } });'
    : 'window.API_1484_11 = new Scorm2004API(settings);\nif (kept) window.API_1484_11.loadFromJSON({ suspend_data: kept.suspend_data, learner_id: "s-1" });'}
const frame = document.createElement('iframe');
frame.src = '/pkg/en/${lesson}.html';
frame.style.cssText = 'width:1000px;height:700px';
document.body.appendChild(frame);
</script></body></html>`;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'POST' && url.pathname === '/commit') {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      platform.commits.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":true,"errorCode":0}');
    });
    return;
  }
  let file = null;
  if (url.pathname === '/host.html') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(hostPage(platform.version, platform.lesson));
    return;
  }
  if (url.pathname === '/scorm-again.js') file = path.join(root, 'web/node_modules/scorm-again/dist/scorm-again.js');
  else if (url.pathname.startsWith('/pkg/')) file = path.join(platform.pkg, decodeURIComponent(url.pathname.slice(5)));
  const inside = file && (file.startsWith(`${platform.pkg}${path.sep}`) || url.pathname === '/scorm-again.js');
  if (!inside || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' }).end(fs.readFileSync(file));
});
let origin, browser;
test.beforeAll(async ({ browser: b }) => {
  browser = b;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-scorm-'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
});
test.afterAll(() => {
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const offSite = [];
const newContext = () => watchedContext(browser, {}, offSite);
// Opens the host page; -> the SCO's frame once its lesson is ready.
async function openLesson(context) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${origin}/host.html`);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: timeoutMs });
  return { page, frame, errors };
}
// Answers one check in the frame; -> the verdict the page showed ('correct' | 'wrong').
async function answer(frame, check, value) {
  const section = frame.locator(`section.check[data-check="${check.id}"]`);
  if (['numeric', 'text'].includes(check.type)) await section.locator('input.answer-text').fill(String(value));
  else for (const v of [].concat(value)) await section.locator(`input[value="${String(v)}"]`).check();
  await section.locator('button[type=submit]').click();
  await frame.waitForFunction((id) => ['correct', 'wrong'].includes(document.querySelector(`section.check[data-check="${id}"]`).dataset.verdict),
    check.id, { timeout: timeoutMs });
  return section.getAttribute('data-verdict');
}
// A right answer from the check's grading, where the check itself holds it.
function rightAnswer(check) {
  const g = check.grading || {};
  if (check.type === 'numeric') return g.answer ?? g.value;
  return g.answer;
}
const lastCommit = () => platform.commits[platform.commits.length - 1];

// ---- the package -------------------------------------------------------------------
let pkg12;
test('package (SCORM 1.2): every zip entry reads back; the manifest has the elements the spec requires and lists every file', async () => {
  pkg12 = pack('scorm12', []);
  const context = await newContext();
  const page = await context.newPage();
  const xml = fs.readFileSync(path.join(pkg12, 'imsmanifest.xml'), 'utf8');
  const files = listFiles(pkg12).filter((f) => f !== 'imsmanifest.xml').sort();
  const lessons = JSON.parse(fs.readFileSync(path.join(site, '..', 'lessons-json', 'index.json'), 'utf8')).en
    ?? null;
  const found = await page.evaluate(({ xml }) => {
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
    const CP = 'http://www.imsproject.org/xsd/imscp_rootv1p1p2', ADL = 'http://www.adlnet.org/xsd/adlcp_rootv1p2';
    const m = doc.documentElement;
    const kids = (el, name) => [...el.children].filter((c) => c.namespaceURI === CP && c.localName === name);
    const orgs = kids(m, 'organizations')[0];
    const org = orgs && kids(orgs, 'organization').find((o) => o.getAttribute('identifier') === orgs.getAttribute('default'));
    const resources = kids(kids(m, 'resources')[0], 'resource');
    const byId = Object.fromEntries(resources.map((r) => [r.getAttribute('identifier'), r]));
    const items = org ? kids(org, 'item') : [];
    return {
      root: `${m.namespaceURI} ${m.localName}`, identifier: m.getAttribute('identifier'),
      schema: kids(kids(m, 'metadata')[0], 'schema')[0]?.textContent, version: kids(kids(m, 'metadata')[0], 'schemaversion')[0]?.textContent,
      orgTitle: org && kids(org, 'title')[0]?.textContent,
      items: items.map((i) => {
        const r = byId[i.getAttribute('identifierref')];
        return { title: kids(i, 'title')[0]?.textContent, type: r?.getAttributeNS(ADL, 'scormtype'), href: r?.getAttribute('href'),
          deps: r ? kids(r, 'dependency').map((d) => byId[d.getAttribute('identifierref')]?.getAttributeNS(ADL, 'scormtype')) : [] };
      }),
      files: resources.flatMap((r) => kids(r, 'file').map((f) => decodeURIComponent(f.getAttribute('href')))),
      ids: resources.map((r) => r.getAttribute('identifier')),
    };
  }, { xml });
  verify(!found.error, `the manifest is not well-formed XML: ${found.error}`);
  verify(found.root === 'http://www.imsproject.org/xsd/imscp_rootv1p1p2 manifest', `root element ${found.root}`);
  verify(/^[A-Za-z_][\w.-]*$/.test(found.identifier), `manifest identifier ${found.identifier}`);
  verify(found.schema === 'ADL SCORM' && found.version === '1.2', `metadata ${found.schema} ${found.version}`);
  verify(found.orgTitle === 'ICL Lab', 'the default organization has a title');
  verify(new Set(found.ids).size === found.ids.length, 'resource identifiers are unique');
  if (lessons) verify(found.items.map((i) => i.title).join('|') === lessons.map((l) => l.title).join('|'), 'one item per lesson, in order, titled');
  for (const item of found.items) {
    verify(item.type === 'sco', `${item.title}: its resource is a sco (${item.type})`);
    verify(fs.existsSync(path.join(pkg12, item.href)), `${item.title}: launch file ${item.href} is in the package`);
    verify(item.deps.includes('asset'), `${item.title}: depends on the shared assets`);
  }
  const listed = [...new Set(found.files)].sort();
  verify(JSON.stringify(listed) === JSON.stringify(files), `files listed ${listed.length}, files in the package ${files.length}`);
  verify(!files.some((f) => f.endsWith('.gz')), 'no precompressed copies');
  await context.close();
});

// ---- SCORM 1.2 in a platform -------------------------------------------------------
const LESSON = 'dual-form';
const answered = {};  // check id -> verdict shown
let checks = [];
test(`SCORM 1.2: ${LESSON} answered in the platform's frame; nothing committed before unload; on unload the platform receives status, score and suspend_data`, async () => {
  Object.assign(platform, { pkg: pkg12, version: '1.2', lesson: LESSON, kept: null, commits: [] });
  const context = await newContext();
  const { page, frame, errors } = await openLesson(context);
  checks = await frame.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent).checks);
  // One choice check answered wrong on purpose, the others right where the check holds
  // its answer; predict checks get their first option (the page grades them on its demo).
  const wrongOne = checks.find((c) => c.type === 'choice');
  for (const c of checks) {
    let value = rightAnswer(c);
    if (c === wrongOne) value = c.options.map((o) => o.key).find((k) => k !== value);
    if (c.type === 'predict') value = c.options[0].key;
    answered[c.id] = await answer(frame, c, value);
    if (c === checks[0]) {
      // Partly answered: incomplete, reported to the API but not yet committed.
      const status = await page.evaluate(() => window.API.LMSGetValue('cmi.core.lesson_status'));
      verify(status === 'incomplete', `after one answer the status is ${status}`);
    }
  }
  verify(answered[wrongOne.id] === 'wrong', 'the wrong answer was graded wrong');
  const right = Object.values(answered).filter((v) => v === 'correct').length;
  verify(right >= 1 && right < checks.length, `right answers ${right} of ${checks.length}`);
  verify(platform.commits.length === 0, `committed ${platform.commits.length} times before the page went away`);
  // The platform closes the SCO (as a player does when the learner moves on).
  await page.evaluate(() => { document.querySelector('iframe').src = 'about:blank'; });
  await page.waitForFunction(() => true);
  for (let i = 0; i < 100 && !platform.commits.length; i++) await new Promise((r) => setTimeout(r, 100));
  verify(platform.commits.length >= 1, 'a commit reached the platform on unload');
  const core = lastCommit().cmi.core;
  verify(core.lesson_status === 'completed', `status ${core.lesson_status}`);
  const expected = Math.round((10000 * right) / checks.length) / 100;
  verify(Number(core.score.raw) === expected && Number(core.score.min) === 0 && Number(core.score.max) === 100,
    `score raw ${core.score.raw} (want ${expected} = ${right}/${checks.length}), min ${core.score.min}, max ${core.score.max}`);
  verify(core.exit === 'suspend', `exit ${core.exit}`);
  const suspend = lastCommit().cmi.suspend_data;
  verify(suspend.length <= 4096, `suspend_data ${suspend.length} characters`);
  const doc = JSON.parse(suspend);
  verify(doc.version === 2 && Object.keys(doc.checks[LESSON]).length === checks.length, 'suspend_data holds a record per check');
  for (const c of checks) verify(doc.checks[LESSON][c.id].correct === (answered[c.id] === 'correct'), `${c.id}: the kept verdict`);
  verify(errors.length === 0, `page errors: ${errors.join('; ')}`);
  platform.kept = { suspend_data: suspend };
  await context.close();
});

test('SCORM 1.2: a returning learner in a fresh browser (no localStorage) finds their answers from suspend_data', async () => {
  verify(platform.kept, 'the first visit kept suspend_data');
  platform.commits = [];
  const context = await newContext();
  const { frame } = await openLesson(context);
  for (const c of checks) {
    const shown = await frame.locator(`section.check[data-check="${c.id}"]`).getAttribute('data-answered');
    verify(shown === (answered[c.id] === 'correct' ? 'correct' : 'tried'), `${c.id}: shown as ${shown}, answered ${answered[c.id]}`);
  }
  const choice = checks.find((c) => c.type === 'choice');
  const kept = JSON.parse(platform.kept.suspend_data).checks[LESSON][choice.id].answer;
  verify(await frame.locator(`section.check[data-check="${choice.id}"] input[value="${kept}"]`).isChecked(), `${choice.id}: the answer ${kept} is chosen again`);
  await context.close();
});

test('SCORM 1.2: suspend_data the page cannot read is named to the learner, and the lesson still works', async () => {
  Object.assign(platform, { pkg: pkg12, version: '1.2', lesson: LESSON, kept: { suspend_data: '{"version": 2, "checks": [' }, commits: [] });
  const context = await newContext();
  const { frame } = await openLesson(context);
  const notices = await frame.locator('#notices').innerText();
  verify(notices.includes('could not be read'), `notices: ${notices}`);
  const c = checks.find((x) => x.type === 'truefalse');
  verify(await answer(frame, c, String(rightAnswer(c))) === 'correct', 'a check is still graded');
  await context.close();
});

test('suspend_data over SCORM 1.2\'s 4,096 characters: the longest answers are left out and named, every verdict is kept', async () => {
  const { suspendText } = await import(path.join(root, 'web/src/platform.js'));
  const record = (answer, correct) => ({ answer, correct, attempts: 1, at: 1764590400000, box: 1, due: 1764676800000 });
  const long = 'x'.repeat(3000), longer = 'y'.repeat(3500);
  const progress = { lang: 'en', checks: { L: { a: record('b', true), t1: record(long, false), t2: record(longer, true), m: record(['a', 'c'], true) }, other: { z: record('a', true) } } };
  const { text, trimmed } = suspendText(progress, 'L', 4096);
  verify(text.length <= 4096, `${text.length} characters`);
  verify(JSON.stringify(trimmed) === '["t2"]', `trimmed ${JSON.stringify(trimmed)} (the 3,500-character answer alone suffices)`);
  const doc = JSON.parse(text);
  verify(doc.version === 2 && !doc.checks.other, 'only this lesson, as a version 2 document');
  verify(doc.checks.L.t2.answer === null && doc.checks.L.t2.correct === true && doc.checks.L.t1.answer === long && doc.checks.L.m.answer.join() === 'a,c',
    'the left-out answer is null with its verdict; the others are whole');
  verify(progress.checks.L.t2.answer === longer, 'the page\'s own progress is untouched');
  const small = suspendText(progress, 'L', 64000);
  verify(small.trimmed.length === 0 && JSON.parse(small.text).checks.L.t2.answer === longer, 'SCORM 2004\'s 64,000 keeps everything');
});

test('SCORM 1.2: a typed answer too long for suspend_data is left out of it and named to the learner once; its verdict is kept', async () => {
  Object.assign(platform, { pkg: pkg12, version: '1.2', lesson: 'gpt3-in-context', kept: null, commits: [] });
  const context = await newContext();
  const { page, frame } = await openLesson(context);
  const all = await frame.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent).checks);
  const text = all.find((c) => c.type === 'text'), tf = all.find((c) => c.type === 'truefalse');
  verify(await answer(frame, text, 'x'.repeat(4000)) === 'wrong', 'the long answer graded');
  await answer(frame, tf, String(rightAnswer(tf)));
  const notices = await frame.locator('#notices').innerText();
  verify(notices.includes(text.id) && notices.split(text.id).length === 2, `notices: ${notices.slice(0, 300)}`);
  await page.evaluate(() => { document.querySelector('iframe').src = 'about:blank'; });
  for (let i = 0; i < 100 && !platform.commits.length; i++) await new Promise((r) => setTimeout(r, 100));
  const suspend = lastCommit().cmi.suspend_data;
  const kept = JSON.parse(suspend).checks['gpt3-in-context'];
  verify(suspend.length <= 4096 && kept[text.id].answer === null && kept[text.id].correct === false && kept[tf.id].correct === true,
    `suspend_data ${suspend.length} characters: ${suspend.slice(0, 200)}`);
  await context.close();
});

// ---- SCORM 2004 ----------------------------------------------------------------------
test('SCORM 2004 4th edition: the manifest says so; one answer gives incomplete, a scaled score and suspend_data on unload', async () => {
  const pkg = pack('scorm2004', ['--scorm-2004']);
  const xml = fs.readFileSync(path.join(pkg, 'imsmanifest.xml'), 'utf8');
  verify(xml.includes('<schemaversion>2004 4th Edition</schemaversion>') && xml.includes('xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"')
    && xml.includes('adlcp:scormType="sco"'), 'a 2004 4th edition manifest');
  Object.assign(platform, { pkg, version: '2004', lesson: LESSON, kept: null, commits: [] });
  const context = await newContext();
  const { page, frame } = await openLesson(context);
  const c = checks.find((x) => x.type === 'truefalse');
  const verdict = await answer(frame, c, String(rightAnswer(c)));
  verify(verdict === 'correct', `the right answer graded ${verdict}`);
  await page.evaluate(() => { document.querySelector('iframe').src = 'about:blank'; });
  for (let i = 0; i < 100 && !platform.commits.length; i++) await new Promise((r) => setTimeout(r, 100));
  verify(platform.commits.length >= 1, 'a commit reached the platform on unload');
  const cmi = lastCommit().cmi;
  verify(cmi.completion_status === 'incomplete', `completion ${cmi.completion_status}`);
  const scaled = Math.round(10000 / checks.length) / 10000;
  verify(Number(cmi.score.scaled) === scaled, `scaled ${cmi.score.scaled}, want ${scaled} (1/${checks.length})`);
  verify(JSON.parse(cmi.suspend_data).checks[LESSON][c.id].correct === true, 'suspend_data holds the answer');
  await context.close();
});

test('no request left 127.0.0.1', async () => {
  verify(offSite.length === 0, `off-site requests: ${offSite.slice(0, 5).join(', ')}`);
});
