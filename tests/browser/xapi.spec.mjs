// xAPI statements from a package built with an LRS endpoint:
//   ctest --test-dir build/wasm -R browser-xapi   (playwright project browser-xapi)
// The package (`icl lessons package --xapi-endpoint ... --xapi-auth ...`) is served on
// one 127.0.0.1 port, an LRS stand-in on another (so the statements cross origins, with
// CORS, as they do to a real LRS). The stand-in answers as an LRS does (preflight, 200
// with the ids) and checks each request as xAPI 1.0.3 requires: POST to
// <endpoint>/statements, X-Experience-API-Version 1.0.x, the Authorization given, JSON
// statements each with a UUID id, an actor with an account, a verb IRI, an object id and
// an ISO timestamp. The learner works offline first: the statements wait in the queue
// and no request is made; back online, they arrive. A slow LRS does not slow grading.
// (A real LRS, Ralph, is a PyPI package, which this project's machines
// cannot install; the stand-in checks the protocol's shape, not a store.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { test, verify, root, icl, site, watchedContext } from './harness.mjs';

test.describe.configure({ mode: 'serial' });  // one page, one learner, statement by statement
const timeoutMs = 60000;
const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${server.address().port}`)));
const until = async (fn, what, ms = timeoutMs) => {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 100))) if (fn()) return;
  throw new Error(`timed out waiting for ${what}`);
};

// ---- the LRS stand-in --------------------------------------------------------------
const AUTH = 'Basic dGVhY2hlcjpjbGFzcy1rZXk=';
const lrs = { statements: [], problems: [], requests: 0, delayMs: 0 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
function statementProblems(s) {
  const p = [];
  if (!UUID.test(s.id || '')) p.push(`id ${s.id}`);
  if (!s.actor || s.actor.objectType !== 'Agent' || !s.actor.account || !s.actor.account.homePage || !s.actor.account.name) p.push('actor');
  if (!s.verb || !/^https?:\/\/\S+$/.test(s.verb.id || '') || !s.verb.display) p.push('verb');
  if (!s.object || s.object.objectType !== 'Activity' || !/^[a-z][a-z0-9+.-]*:\S+$/.test(s.object.id || '')) p.push('object');
  if (Number.isNaN(Date.parse(s.timestamp)) || !/Z$/.test(s.timestamp)) p.push('timestamp');
  return p;
}
const lrsServer = http.createServer((req, res) => {
  const cors = { 'Access-Control-Allow-Origin': req.headers.origin || '*', 'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Experience-API-Version',
    'Access-Control-Allow-Methods': 'POST, PUT, GET', 'Access-Control-Expose-Headers': 'X-Experience-API-Version' };
  if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
  lrs.requests++;
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', async () => {
    const problems = [];
    if (req.method !== 'POST' || req.url !== '/xapi/statements') problems.push(`${req.method} ${req.url}`);
    if (!/^1\.0(\.\d+)?$/.test(req.headers['x-experience-api-version'] || '')) problems.push(`X-Experience-API-Version ${req.headers['x-experience-api-version']}`);
    if (req.headers.authorization !== AUTH) problems.push(`Authorization ${req.headers.authorization}`);
    if (!/^application\/json/.test(req.headers['content-type'] || '')) problems.push(`Content-Type ${req.headers['content-type']}`);
    let list = [];
    try { list = [].concat(JSON.parse(body)); } catch { problems.push('body is not JSON'); }
    for (const s of list) for (const p of statementProblems(s)) problems.push(`statement ${s.id}: ${p}`);
    if (lrs.delayMs) await new Promise((r) => setTimeout(r, lrs.delayMs));
    if (problems.length) {
      lrs.problems.push(...problems);
      res.writeHead(400, { ...cors, 'X-Experience-API-Version': '1.0.3' }).end(problems.join('; '));
      return;
    }
    lrs.statements.push(...list);
    res.writeHead(200, { ...cors, 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3' }).end(JSON.stringify(list.map((s) => s.id)));
  });
});

// ---- the package, served -----------------------------------------------------------
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };
let tmp, pkg, origin, context, page;
const siteServer = http.createServer((req, res) => {
  const file = path.join(pkg, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(`${pkg}${path.sep}`) || !fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' }).end(fs.readFileSync(file));
});
const offSite = [];
const csp = [];
test.beforeAll(async ({ browser }) => {
  const lrsOrigin = await listen(lrsServer);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-xapi-'));
  const zip = path.join(tmp, 'pkg.zip');
  pkg = path.join(tmp, 'pkg');
  execFileSync(icl, ['lessons', 'package', '--scorm', zip, '--site', site, '--xapi-endpoint', `${lrsOrigin}/xapi`, '--xapi-auth', AUTH], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  execFileSync('/usr/bin/python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', zip, pkg]);
  origin = await listen(siteServer);
  context = await watchedContext(browser, {}, offSite);
  page = await context.newPage();
  page.on('console', (m) => { if (/Content Security Policy/.test(m.text())) csp.push(m.text()); });
});
test.afterAll(async () => {
  if (context) await context.close();
  lrsServer.close();
  siteServer.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});
const LESSON = 'dual-form';
let checks = [];
const of = (verb) => lrs.statements.filter((s) => s.verb.id === `http://adlnet.gov/expapi/verbs/${verb}`);

async function answer(check, value) {
  const section = page.locator(`section.check[data-check="${check.id}"]`);
  if (['numeric', 'text'].includes(check.type)) await section.locator('input.answer-text').fill(String(value));
  else {
    // A result drawn above can move the option while it is clicked (a layout shift under
    // load): a click that did not take is tried once more.
    for (const v of [].concat(value)) {
      const option = section.locator(`input[value="${String(v)}"]`);
      await option.check().catch(() => option.check());
    }
  }
  await section.locator('button[type=submit]').click();
  await page.waitForFunction((id) => ['correct', 'wrong'].includes(document.querySelector(`section.check[data-check="${id}"]`).dataset.verdict),
    check.id, { timeout: timeoutMs });
  return section.getAttribute('data-verdict');
}
const valueFor = (c) => (c.type === 'predict' ? c.options[0].key : c.type === 'numeric' ? c.grading.answer : c.grading.answer);

test('opening a lesson sends "attempted" with the configured headers and auth, across origins, no CSP refusal', async () => {
  await page.goto(`${origin}/en/${LESSON}.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: timeoutMs });
  checks = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent).checks);
  await until(() => of('attempted').length === 1, 'the attempted statement');
  const s = of('attempted')[0];
  verify(s.object.id === `urn:icl-lab:lesson:${LESSON}` && s.context.language === 'en', `object ${s.object.id}`);
  verify(lrs.problems.length === 0, `the LRS stand-in refused: ${lrs.problems.join('; ')}`);
  verify(csp.length === 0, `CSP: ${csp.join('; ')}`);
});

test('offline: answers are graded, their statements wait in localStorage and nothing is sent; online again, they arrive', async () => {
  const before = lrs.requests;
  await context.setOffline(true);
  const c1 = checks.find((c) => c.type === 'choice'), c2 = checks.find((c) => c.type === 'multi');
  const wrong = c1.options.map((o) => o.key).find((k) => k !== c1.grading.answer);
  verify(await answer(c1, wrong) === 'wrong', 'the wrong choice graded wrong');
  verify(await answer(c2, c2.grading.answer) === 'correct', 'the multi answer graded right');
  const queued = await page.evaluate(() => JSON.parse(localStorage.getItem('icl-lab.xapi-queue') || '[]').length);
  verify(queued === 2, `${queued} statements queued`);
  await new Promise((r) => setTimeout(r, 500));
  verify(lrs.requests === before, 'no request reached the LRS while offline');
  await context.setOffline(false);
  await until(() => of('answered').length === 2, 'the two answered statements');
  const [a, b] = of('answered');
  verify(a.object.id === `urn:icl-lab:check:${LESSON}/${c1.id}` && a.result.success === false && a.result.response === wrong,
    `first: ${a.object.id} ${a.result.success} ${a.result.response}`);
  verify(a.object.definition.interactionType === 'choice' && a.context.contextActivities.parent[0].id === `urn:icl-lab:lesson:${LESSON}`, 'interaction type and parent lesson');
  verify(b.result.success === true && b.result.response === c2.grading.answer.join('[,]'), `multi response ${b.result.response}`);
  verify(a.actor.account.name === b.actor.account.name && UUID.test(a.actor.account.name), 'one anonymous learner id');
  await until(() => page.evaluate(() => JSON.parse(localStorage.getItem('icl-lab.xapi-queue') || '[]').length === 0), 'the queue to empty');
});

test('a slow LRS does not slow grading; the last check answered sends "completed" once', async () => {
  lrs.delayMs = 4000;
  const rest = checks.filter((c) => !of('answered').some((s) => s.object.id.endsWith(`/${c.id}`)));
  for (const c of rest) {
    const t0 = Date.now();
    await answer(c, valueFor(c));
    if (c.type !== 'predict') verify(Date.now() - t0 < 3500, `${c.id} graded in ${Date.now() - t0} ms while the LRS takes 4 s`);
  }
  lrs.delayMs = 0;
  await until(() => of('answered').length === checks.length && of('completed').length === 1, 'every answer and one completed');
  verify(of('completed')[0].object.id === `urn:icl-lab:lesson:${LESSON}`, 'completed names the lesson');
});

test('a lab run with the learner\'s own parameters sends "interacted" with them', async () => {
  await page.goto(`${origin}/en/${LESSON}.html?dual_form.lr=0.05`);
  await until(() => of('interacted').length >= 1, 'the interacted statement');
  const s = of('interacted')[0];
  verify(s.object.id === `urn:icl-lab:lab:${LESSON}/dual_form` && s.result.extensions['urn:icl-lab:ext:params'].lr === 0.05,
    `${s.object.id} ${JSON.stringify(s.result.extensions)}`);
  verify(of('interacted').every((x) => x.result.extensions['urn:icl-lab:ext:params'].lr === 0.05), 'no statement for the lesson\'s own runs');
});

test('every statement passed the stand-in\'s checks; no request left 127.0.0.1', async () => {
  verify(lrs.problems.length === 0, `refused: ${lrs.problems.join('; ')}`);
  verify(offSite.length === 0, `off-site: ${offSite.join(', ')}`);
});
