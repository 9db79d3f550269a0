// The `browser` suite (see run-pages.spec.mjs), the core behind the pages: the wasm API
// under bad input, training streamed from workers to the one-worker Result, review on a
// fixed clock, progress exported to the desktop app and back, and every demo's embed
// page and the copy buttons (embed.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, verify, site, binDir, expectNoErrors } from './harness.mjs';
import {
  servePages, screenshot, BUDGET, DEMO_TIMEOUT_MS, TRAINING_TIMEOUT_MS, origin, noForeignRequests, newContext, demosSettled, index, langs, lessonData, answersFor, answer, panelsHtml, moveSlider, bytesSent,
} from './run-shared.mjs';
import { embedChecks } from './embed.mjs';
import { loadCore, putAssets, callCore, stepUntil } from '../../web/sitegen/node-core.mjs';

servePages();

test('the wasm API answers bad input with readable errors, never a crash', async () => {
  const core = await loadCore(path.join(site, 'assets'));
  const call = (fn, ...a) => JSON.parse(core[fn](...a));
  // Without its English catalogue a demo does not start, and says which file it lacks;
  // with it (the worker fetches and puts it first), a language without a folder is named.
  verify(/cannot read lessons\/en\/catalogue\/common\.json/.test(call('start', 'dual_form', '{}', 'en', 1).error), 'no catalogue: not named');
  putAssets(core, path.join(site, 'lessons'), ['en/catalogue/common.json', 'en/catalogue/dual_form.json', 'ko/catalogue/common.json']);
  const cases = [
    [call('start', 'no_such_demo', '{}', 'en', 1).error, /unknown demo 'no_such_demo'/],
    [call('start', 'dual_form', '[1]', 'en', 1).error, /must be a JSON object/],
    [call('start', 'dual_form', '{not json', 'en', 1).error, /not valid JSON/],
    [call('start', 'dual_form', '{}', 'fr', 1).error, /unknown language 'fr'/],
    [call('start', 'dual_form', '{}', 'en', -1).error, /seed/],
    [call('step', 12345, 1, true).error, /no demo session/],
    [call('step', 12345, 1, false).error, /no demo session/],
    [call('parse_params', 'dual_form', '["lr=banana"]', 'en').error, /lr/],
    [call('parse_params', 'dual_form', '["lr=banana"]', 'ko').error, /매개변수 'lr' = 'banana'은\(는\) 수가 아닙니다/],
    [call('parse_params', 'dual_form', '{"lr": 1}', 'en').error, /array/],
    [call('grade', '[]', '"a"', 'null', 'en').error, /JSON object/],
    [call('grade', '{"type": "choice", "grading": {"answer": "a"}, "options": [{"key": "a"}]}', '7', 'null', 'en').error, /./],
    [call('put_asset', 'x', 'not bytes').error, /Uint8Array/],
  ];
  cases.forEach(([message, pattern], k) => verify(typeof message === 'string' && pattern.test(message), `case ${k}: ${message}`));
  // And a good run still works after all that.
  const { handle } = call('start', 'dual_form', '{}', 'en', 1);
  const result = call('step', handle, 1, false);  // done in one slice: the Result, snapshot or not
  verify(result.done && result.panels.length > 0, 'dual_form did not run after the bad calls');
  call('drop', handle);
});

// ---- progress: review on a fixed clock, export / import with the desktop app -----------
// The page's clock (Date.now, which the review schedule reads) is set by the test
// through localStorage 'icl-test-now': each page starts at that time, and the clock runs
// on from there (a clock that stands still would stall code that waits on it).
const T0 = 1764590400000;  // 2025-12-01T12:00:00Z
async function clockedContext() {
  const context = await newContext({ viewport: { width: 1000, height: 900 } });
  await context.addInitScript(() => {
    const real = Date.now.bind(Date);
    const start = real();
    let base = 0;
    try { base = Number(localStorage.getItem('icl-test-now')) || 0; } catch { /* about:blank */ }
    Date.now = () => (base ? base + (real() - start) : real());
  });
  return context;
}
const setNow = (page, ms) => page.evaluate((v) => localStorage.setItem('icl-test-now', String(v)), ms);
const storedProgress = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('icl-lab.progress')));
const answerRecords = (doc) => Object.entries(doc.checks).flatMap(([l, cs]) => Object.entries(cs).map(([c, r]) =>
  JSON.stringify([l, c, r.answer, r.correct, r.at]))).sort();
const reviewLesson = index.en.find((l) => l.checks.length >= 2);
// (one folder per worker process: the review test writes the export, the next one reads it)
const exported = path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), `icl-progress-${process.pid}`, 'web.json');

// A demo block's last Result as the page exports it (its JSON button), and the same demo
// with the same parameters and seed 1 trained by the site's wasm core alone, under node.
async function shownAndAlone(page, sel, demo) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`${sel} .demo-export button`, { hasText: 'JSON' }).click()]);
  const shown = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  const core = await loadCore(path.join(site, 'assets'));
  putAssets(core, path.join(site, 'lessons'), ['en/catalogue/common.json', `en/catalogue/${demo}.json`]);
  // every lane in this one session (none offloaded), as one worker would train them
  const { handle } = callCore(core, 'start', demo, JSON.stringify(shown.params), 'en', 1);
  return { shown, alone: stepUntil(core, handle, 1000) };
}

// The worker asks the core for a Result at most every 250 ms of a run (web/src/worker.js,
// POST_MS) and always for the last: one per 25 ms slice cost the page a quarter of its time.
// induction_heads' 1-layer control trains in a second worker (the core's lanes), and the
// page's last Result is the one the same wasm core gives trained in one, here under node.
test('a training demo streams a Result at most every 250 ms and its last one; its control trains in a second worker to the same Result', async () => {
  const context = await newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  const lesson = index.en.find((e) => e.demos.includes('induction_heads'));
  await page.goto(`${origin}/en/${lesson.id}.html?induction_heads.steps=300`);
  const sel = 'section.demo[data-instance="induction_heads"]';
  await page.waitForFunction((s) => document.body.dataset.ready === 'true' && document.querySelector(s).dataset.state === 'idle',
    sel, { timeout: DEMO_TIMEOUT_MS, polling: 50 });
  const before = await page.evaluate((s) => ({ draws: Number(document.querySelector(s).dataset.draws || 0), t: performance.now() }), sel);
  await page.locator(`${sel} button.run`).click();
  await page.waitForFunction((s) => document.querySelector(s).dataset.state === 'done', sel, { timeout: TRAINING_TIMEOUT_MS, polling: 50 });
  const after = await page.evaluate((s) => ({ draws: Number(document.querySelector(s).dataset.draws || 0), t: performance.now(),
    steps: document.querySelector(`${s} .scalar-number`).title }), sel);
  const draws = after.draws - before.draws, ms = after.t - before.t;
  console.log(`     induction_heads, 300 steps: ${draws} drawings in ${Math.round(ms)} ms`);
  verify(after.steps === '300', `the last drawing shows step ${after.steps}, not the run's last (300)`);
  verify(draws <= ms / 250 + 2, `${draws} drawings in ${Math.round(ms)} ms: more than one a 250 ms`);
  verify(ms < 1000 || draws >= 2, `${draws} drawing in ${Math.round(ms)} ms: the run did not stream`);
  verify(workers.length === 2 && workers.every((u) => u.endsWith('/assets/worker.js')), `workers: ${workers.join(', ')}`);
  const { shown, alone } = await shownAndAlone(page, sel, 'induction_heads');
  verify(shown.params.steps === 300 && shown.result.done && alone.error === '', `params ${JSON.stringify(shown.params)}, error ${alone.error}`);
  verify(JSON.stringify(shown.result.panels) === JSON.stringify(alone.panels), 'the page\'s last Result differs from the one-worker run\'s');
  expectNoErrors(context, 'induction_heads run');
  await context.close();
});

// fast_weights trains each of its three models in a worker of its own (lanes 1 and 2 in two
// helpers); the page's last Result is the one the same wasm core gives trained in one.
test('fast_weights trains its three models in three workers to the one-worker Result', async () => {
  const context = await newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  const lesson = index.en.find((e) => fs.readFileSync(path.join(site, 'en', `${e.id}.html`), 'utf8').includes('data-instance="fast_weights"'));
  await page.goto(`${origin}/en/${lesson.id}.html?fast_weights.steps=40&fast_weights.seeds=2&fast_weights.width=16&fast_weights.sequences=1`);
  const sel = 'section.demo[data-instance="fast_weights"]';
  await page.waitForFunction((s) => document.body.dataset.ready === 'true' && document.querySelector(s).dataset.state === 'idle',
    sel, { timeout: DEMO_TIMEOUT_MS, polling: 50 });
  await page.locator(`${sel} button.run`).click();
  await page.waitForFunction((s) => document.querySelector(s).dataset.state === 'done', sel, { timeout: TRAINING_TIMEOUT_MS, polling: 50 });
  verify(workers.length === 3 && workers.every((u) => u.endsWith('/assets/worker.js')), `workers: ${workers.join(', ')}`);
  const { shown, alone } = await shownAndAlone(page, sel, 'fast_weights');
  verify(shown.params.steps === 40 && shown.params.seeds === 2 && shown.result.done && alone.error === '',
    `params ${JSON.stringify(shown.params)}, error ${alone.error}`);
  const seeds = shown.result.panels.find((p) => p.kind === 'table').rows;
  verify(seeds.length === 2 && seeds.every((row) => !row.includes('…')), `the per-seed table: ${JSON.stringify(seeds)}`);
  verify(JSON.stringify(shown.result.panels) === JSON.stringify(alone.panels), 'the page\'s last Result differs from the one-worker run\'s');
  expectNoErrors(context, 'fast_weights run');
  await context.close();
});

test('review: a check answered wrongly comes back as due on the index and the review page (fixed clock)', async () => {
  const context = await clockedContext();
  const page = await context.newPage();
  await page.goto(`${origin}/index.html`);
  await setNow(page, T0);
  await page.goto(`${origin}/en/${reviewLesson.id}.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const data = await lessonData(page);
  const [check, other] = data.checks.filter((c) => c.type !== 'predict');
  const demoParams = {};
  let r = await answer(page, check, (await answersFor(check, demoParams, 'en')).wrong);
  verify(r.verdict === 'wrong', `the wrong answer was graded ${r.verdict}`);
  r = await answer(page, other, (await answersFor(other, demoParams, 'en')).right);
  verify(r.verdict === 'correct', `the right answer was graded ${r.verdict}`);
  const dueOnIndex = async () => {
    await page.goto(`${origin}/index.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    return page.locator('#review-box').getAttribute('data-due');
  };
  verify(await dueOnIndex() === '0', 'a check is due at once; a miss should come back after 10 minutes');
  await setNow(page, T0 + 11 * 60000);
  verify(await dueOnIndex() === '1', `11 minutes later the index shows ${await page.locator('#review-box').getAttribute('data-due')} due, not 1`);
  await page.goto(`${origin}/en/review.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  verify(await page.locator('#review-check').getAttribute('data-check') === check.id, 'the review page does not ask the missed check');
  r = await answer(page, check, (await answersFor(check, demoParams, 'en')).right);
  verify(r.verdict === 'correct' && r.text.length > 0, `review: the right answer graded ${r.verdict}, feedback '${r.text}'`);
  await page.locator('#review-next').click();
  verify(await page.evaluate(() => document.body.dataset.reviewDone) === 'true', 'the review did not end after its one due check');
  // The right answer in box 1 comes back after a day, not before.
  await setNow(page, T0 + 12 * 3600000);
  verify(await dueOnIndex() === '0', 'a right answer was due again before a day had passed');
  await setNow(page, T0 + 2 * 86400000);
  verify(await dueOnIndex() === '2', 'both checks should be due two days later');
  // The learner's export, for the next test.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-progress').click()]);
  fs.mkdirSync(path.dirname(exported), { recursive: true });
  await download.saveAs(exported);
  const csv = await Promise.all([page.waitForEvent('download'), page.locator('#summary-csv').click()]);
  const csvText = fs.readFileSync(await csv[0].path(), 'utf8');
  verify(csvText.startsWith('lesson,check,correct,attempts,last_answered\r\n') &&
    new RegExp(`\\n${reviewLesson.id},${check.id},true,2,2025-12-01T12:1[1-4]:\\d\\dZ\\r\\n`).test(csvText), `summary CSV: ${csvText}`);
  expectNoErrors(context, 'console');
  await context.close();
});

test('progress exported from the page, imported into the desktop app and back keeps every answer; a damaged upload is refused', async () => {
  const app = process.env.ICL_LAB_BIN || path.join(binDir, 'icl-lab');
  verify(fs.existsSync(exported), 'no export from the previous test');
  verify(fs.existsSync(app), `no desktop app at ${app} (scripts/build native)`);
  const state = path.join(path.dirname(exported), 'state');
  const env = { ...process.env, XDG_STATE_HOME: state };
  execFileSync(app, ['--import', exported], { env });
  const back = path.join(path.dirname(exported), 'desktop.json');
  execFileSync(app, ['--export', back], { env });
  const web = JSON.parse(fs.readFileSync(exported, 'utf8'));
  const desktop = JSON.parse(fs.readFileSync(back, 'utf8'));
  verify(answerRecords(web).length >= 2, `the export holds ${answerRecords(web).length} answers`);
  verify(JSON.stringify(answerRecords(desktop)) === JSON.stringify(answerRecords(web)), `the desktop app's export differs: ${JSON.stringify(answerRecords(desktop))}`);
  // Back into a fresh browser that already has an answer of its own: both kept.
  const context = await clockedContext();
  const page = await context.newPage();
  await page.goto(`${origin}/index.html`);
  await page.evaluate(() => localStorage.setItem('icl-lab.progress', JSON.stringify({ version: 1, checks: { 'own/answer': { correct: true, answer: 'b', at: 5 } } })));
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  await page.locator('#import-progress').setInputFiles(back);
  await page.waitForFunction(() => [...document.querySelectorAll('.notice')].some((n) => /Imported/.test(n.textContent)));
  const merged = await storedProgress(page);
  verify(merged.version === 2 && merged.checks.own && merged.checks.own.answer, 'the browser\'s own answer was dropped by the import');
  for (const rec of answerRecords(web)) verify(answerRecords(merged).includes(rec), `lost in the round trip: ${rec}`);
  // A damaged file: refused with a message, nothing changed.
  const before = await page.evaluate(() => localStorage.getItem('icl-lab.progress'));
  const damaged = path.join(path.dirname(exported), 'damaged.json');
  fs.writeFileSync(damaged, fs.readFileSync(back, 'utf8').replace(/"correct": *true/, '"correct": "yes"'));
  await page.locator('#import-progress').setInputFiles(damaged);
  await page.waitForFunction(() => [...document.querySelectorAll('.notice')].some((n) => /Not imported/.test(n.textContent)));
  verify(await page.evaluate(() => localStorage.getItem('icl-lab.progress')) === before, 'a refused import changed the stored progress');
  expectNoErrors(context, 'console');
  await context.close();
});

embedChecks({ test, verify, newContext, expectNoErrors, demosSettled, moveSlider, panelsHtml, bytesSent,
  origin: () => origin, index, langs, screenshot, budgetBytes: BUDGET.firstLoadBytes, timeoutMs: DEMO_TIMEOUT_MS });

noForeignRequests();
