// Browser test of the two training-data labs (emergence_lab, task_diversity_lab) on a
// lesson page, in headless Chromium:
//   ctest --test-dir build/wasm -R browser-lab-runs   (playwright project browser-lab-runs)
// Builds a site from tests/browser/fixtures/labs/ (one page, each lab with a short setup)
// through the real pipeline: `icl lessons build`, then web/build-site.mjs. Then, for each
// lab: Run finishes in the page's worker, numbers and the result's headline are drawn
// (and the emergence lab's "what changed" line); the JSON export is, panel for panel,
// the Result the same wasm core computes under node for the same setup; the CSV export
// holds every point of every curve drawn. A link that sets every knob sets every control
// (read back from the controls); a knob changed by hand is written to the address and
// survives a reload. A long emergence run kept in the browser (IndexedDB) is offered after a
// reload, resumed from its step and ends as the uninterrupted run; a kept run that does not
// read gives a warning and a fresh start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, verify, root, icl, wasmDir as wasm, serveSite } from './harness.mjs';
import { loadCore, putAssets, stepUntil } from '../../web/sitegen/node-core.mjs';

const TIMEOUT_MS = 60000;
test.describe.configure({ mode: 'serial' });  // one page, lab after lab

let work, site, core, served, origin, context, page, infos;
const errors = [];
test.beforeAll(async ({ browser }) => {
  // ---- the site, built from the fixture lesson --------------------------------------------
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-lab-runs-'));
  const json = path.join(work, 'lessons-json');
  site = path.join(work, 'site');
  execFileSync(icl, ['lessons', 'build', '--dir', path.join(root, 'tests/browser/fixtures/labs'), '--out', json], { stdio: 'ignore' });
  execFileSync(process.execPath, [path.join(root, 'web/build-site.mjs'), '--out', site, '--wasm', wasm, '--lessons', json], { stdio: 'ignore' });

  // The site's wasm core under node: the Result of a setup run to its end.
  core = await loadCore(path.join(site, 'assets'));
  putAssets(core, path.join(site, 'lessons'), ['en/catalogue/common.json', 'en/catalogue/emergence_lab.json',
    'en/catalogue/task_diversity_lab.json', 'checkpoints/emergence_grid.json']);  // the phase diagram's shipped background
  served = await serveSite(site);
  origin = served.origin;
  context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1000, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/en/labs.html`);
  await ready(page);
  infos = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent).demos
    .map((b) => ({ name: b.name, params: b.params || {}, info: b.info })));
});
test.afterAll(async () => {
  if (context) await context.close();
  if (served) served.server.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function alone(demo, params) {
  const started = JSON.parse(core.start(demo, JSON.stringify(params), 'en', 1));
  if (started.error) return { error: started.error };
  const result = stepUntil(core, started.handle, 1000);
  core.drop(started.handle);
  return result;
}

const LABS = [{ instance: 'emergence', demo: 'emergence_lab' }, { instance: 'diversity', demo: 'task_diversity_lab' }];

const sectionOf = (instance) => `section.demo[data-instance="${instance}"]`;
async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: TIMEOUT_MS });
}
async function runToEnd(page, instance) {
  const section = page.locator(sectionOf(instance));
  await section.locator('button.run').click();
  await page.waitForFunction((s) => ['done', 'error'].includes(document.querySelector(s).dataset.state), sectionOf(instance), { timeout: TIMEOUT_MS });
  verify(await section.getAttribute('data-state') === 'done', `${instance} ended in ${await section.getAttribute('data-state')}: ${await section.locator('.demo-error').textContent()}`);
}
async function download(page, instance, label) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.locator(`${sectionOf(instance)} .demo-export button`, { hasText: label }).click()]);
  return fs.readFileSync(await file.path(), 'utf8');
}
// What the controls of an instance show: a number box's text, else the control's value.
const shown = (page, instance) => page.evaluate((inst) => {
  const out = {};
  for (const row of document.querySelectorAll(`section.demo[data-instance="${inst}"] form.controls [id^="p-${inst}-"]`)) {
    const name = row.getAttribute('name');
    if (!name) continue;
    const number = row.parentElement.querySelector('.control-number');
    out[name] = number ? number.value : row.type === 'checkbox' ? String(row.checked) : row.value;
  }
  return out;
}, instance);

for (const { instance, demo } of LABS) {
  test(`${demo}: Run finishes in the page with numbers, its opening line${demo === 'emergence_lab' ? ' and the "what changed" line' : ''}`, async () => {
    await runToEnd(page, instance);
    const read = await page.evaluate((s) => {
      const section = document.querySelector(s);
      return { svgs: section.querySelectorAll('.panels svg').length, text: section.querySelector('.panels').innerText };
    }, sectionOf(instance));
    // The sentence the result opens with: the Result's headline where the catalogue has
    // one, else the demo's own opening line (its first panel: a note's text, or the title
    // the sentence is given as), read from the Result the page exports.
    const { result } = JSON.parse(await download(page, instance, 'JSON'));
    const first = result.panels[0] || {};
    const opening = result.headline || (first.kind === 'note' ? first.text : first.title) || '';
    verify(opening.trim().length > 20 && !/[{}⟦⟧]/.test(opening), `the result opens with '${opening}'`);
    verify(read.text.includes(opening.replace(/\*\*/g, '')), `the page does not show the opening line '${opening}'`);
    verify(/\d\.\d/.test(read.text), `no decimal number is shown: ${read.text.slice(0, 300)}`);
    verify(read.svgs >= 2, `${read.svgs} plots drawn`);
    if (demo === 'emergence_lab') {
      // the note's words come from the catalogue, one sentence a seed, each naming it
      const catalogue = JSON.parse(fs.readFileSync(path.join(site, 'lessons/en/catalogue/emergence_lab.json'), 'utf8'));
      const title = catalogue['note.changed.title'];
      verify(title && read.text.includes(title), `no "what changed" line (${title}) in: ${read.text.slice(-400)}`);
    }
  });

  test(`${demo}: the JSON export is the wasm core's Result for the setup, and the CSV holds every point of every curve`, async () => {
    const exported = JSON.parse(await download(page, instance, 'JSON'));
    const setup = infos.find((b) => b.name === instance);
    const params = { ...Object.fromEntries(setup.info.params.map((p) => [p.name, p.default])), ...setup.params };
    for (const [k, v] of Object.entries(params)) verify(exported.params[k] === Number(v) || exported.params[k] === v, `export's ${k} = ${exported.params[k]}, the setup's ${v}`);
    const mine = alone(demo, exported.params);
    verify(!mine.error, mine.error);
    verify(JSON.stringify(exported.result.panels) === JSON.stringify(mine.panels), 'the page\'s panels differ from the core\'s under node');
    const csv = await download(page, instance, 'CSV');
    const lines = mine.panels.filter((p) => p.kind === 'lines');
    verify(lines.length >= 2, `${lines.length} curve panels`);
    // a row per number drawn (and a header row per table), counted from the core's Result
    const rowsOf = (p) => ({
      scalars: 1 + p.items?.length, lines: 1 + p.series?.reduce((m, s) => m + s.x.length, 0), heatmap: 1 + p.rows,
      bars: 1 + p.labels?.length, table: 1 + p.rows?.length, note: 1,
    })[p.kind];
    const want = mine.panels.reduce((n, p) => n + rowsOf(p), 0);
    const rows = csv.split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('"#')).length;
    verify(rows === want, `the CSV has ${rows} rows, the Result's panels ${want}`);
    for (const p of lines) verify(csv.includes(`# lines: ${p.title}`), `the CSV lacks the panel '${p.title}'`);
  });
}

test('a link that sets every knob of both labs sets every control; a knob changed by hand survives a reload', async () => {
  // Each knob moved off the page's setup to another value in its range.
  const query = new URLSearchParams();
  const want = {};
  for (const { name, params, info } of infos) {
    want[name] = {};
    for (const p of info.params) {
      const now = params[p.name] !== undefined ? Number(params[p.name]) : p.default;
      let v;
      if (p.type === 'choice') v = p.choices.find((c) => c !== now);
      else if (p.type === 'bool') v = !now;
      else if (p.type === 'int') v = now + p.step <= p.max ? now + p.step : now - p.step;
      else v = Number((now + p.step <= p.max ? now + p.step : now - p.step).toFixed(6));
      query.set(`${name}.${p.name}`, String(v));
      want[name][p.name] = v;
    }
  }
  const other = await context.newPage();
  await other.goto(`${origin}/en/labs.html?${query}`);
  await ready(other);
  const notices = await other.locator('.notice, [role=alert]:not([hidden])').allTextContents();
  verify(notices.join('').trim() === '', `the link gave notices: ${notices.join(' | ')}`);
  for (const { name, info } of infos) {
    const controls = await shown(other, name);
    for (const p of info.params) {
      const got = controls[p.name];
      const ok = p.type === 'choice' || p.type === 'bool' ? got === String(want[name][p.name]) : Number(got) === want[name][p.name];
      verify(ok, `${name}.${p.name}: the control shows ${got}, the link says ${want[name][p.name]}`);
    }
  }
  await other.close();

  // By hand: the emergence lab's Zipf exponent typed into its box.
  await page.goto(`${origin}/en/labs.html`);
  await ready(page);
  const box = page.locator(`${sectionOf('emergence')} .control-inputs:has(#p-emergence-zipf) .control-number`);
  await box.click();
  await box.press('Control+a');
  await page.keyboard.type('1.25');
  await box.press('Tab');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('emergence.zipf') === '1.25', null, { timeout: 10000 });
  const section = page.locator(sectionOf('emergence'));
  if (await section.getAttribute('data-state') === 'running') await section.locator('button.run').click();
  await page.reload();
  await ready(page);
  verify((await shown(page, 'emergence')).zipf === '1.25', `after the reload the control shows zipf ${(await shown(page, 'emergence')).zipf}`);
  verify(errors.length === 0, `page errors: ${errors.join(' | ')}`);
});

test('a link with a knob past its range names it in a notice; that lab keeps its setup and the other takes its link', async () => {
  const other = await context.newPage();
  await other.goto(`${origin}/en/labs.html?emergence.burstiness=9&diversity.steps=50`);
  await ready(other);
  const notices = (await other.locator('#notices').innerText()).trim();
  verify(/burstiness/.test(notices) && /\[0, 8\]/.test(notices), `the notice does not name the knob and its range: '${notices}'`);
  const emergence = await shown(other, 'emergence');
  const page = infos.find((b) => b.name === 'emergence');
  const fixtureSteps = String(page.params.steps);
  verify(emergence.burstiness === String(page.info.params.find((p) => p.name === 'burstiness').default) && emergence.steps === fixtureSteps,
    `the emergence lab's controls changed: burstiness ${emergence.burstiness}, steps ${emergence.steps}`);
  verify((await shown(other, 'diversity')).steps === '50', `the other lab did not take its link: steps ${(await shown(other, 'diversity')).steps}`);
  await other.close();
});

// ---- a long run kept in the browser (IndexedDB, web/src/run-store.js) ----------------------
const KEPT_STEPS = 6000;
const KEPT_QUERY = `emergence.steps=${KEPT_STEPS}&emergence.eval_every=500`;
const progressOf = (tab) => tab.locator(`${sectionOf('emergence')} progress`).evaluate((p) => p.value);
// Starts the emergence lab of `query`, lets it pass a tenth of its steps, and hides the tab
// (the page asks the worker to keep the run at once) -> the page, left open.
async function startAndHide(query) {
  const tab = await context.newPage();
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto(`${origin}/en/labs.html?${query}`);
  await ready(tab);
  await tab.locator(`${sectionOf('emergence')} button.run`).click();
  await tab.waitForFunction((s) => document.querySelector(`${s} progress`).value > 0.1, sectionOf('emergence'), { timeout: TIMEOUT_MS });
  await tab.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  return tab;
}
// The offer after a reload: the step its button names.
async function offeredStep(tab) {
  const offer = tab.locator(`${sectionOf('emergence')} .kept-offer`);
  await offer.waitFor({ timeout: 10000 });
  const label = await offer.locator('button.resume').textContent();
  const step = Number((label.match(/(\d+)/) || [])[1]);
  verify(step > 0 && step < KEPT_STEPS, `the offer says '${label}'`);
  return step;
}

test('a reload offers the emergence lab\'s unfinished run; resumed, it goes on from its step and ends as the uninterrupted run; its result is kept', async () => {
  const tab = await startAndHide(KEPT_QUERY);
  const section = tab.locator(sectionOf('emergence'));
  // hidden, the run goes on (a worker is not paused by a hidden tab)
  // (and the worker's next periodic save holds its helper's lane too: it sends its lane's
  // checkpoint every 1.5 s)
  const hiddenAt = await progressOf(tab);
  await tab.waitForTimeout(3500);
  const later = await progressOf(tab);
  verify(later > hiddenAt, `hidden, the run did not go on (${hiddenAt} → ${later})`);
  await tab.reload();
  await ready(tab);
  const saved = await offeredStep(tab);
  await section.locator('.kept-offer button.resume').click();
  await tab.waitForFunction((s) => document.querySelector(`${s} progress`).value > 0, sectionOf('emergence'), { timeout: TIMEOUT_MS });
  const first = await progressOf(tab);
  verify(first >= saved / KEPT_STEPS, `resumed at progress ${first}, saved at step ${saved} of ${KEPT_STEPS}: it started over`);
  await tab.waitForFunction((s) => ['done', 'error'].includes(document.querySelector(s).dataset.state), sectionOf('emergence'), { timeout: 4 * TIMEOUT_MS });
  verify(await section.getAttribute('data-state') === 'done', `it ended in ${await section.getAttribute('data-state')}: ${await section.locator('.demo-error').textContent()}`);
  const exported = JSON.parse(await download(tab, 'emergence', 'JSON'));
  verify(exported.params.steps === KEPT_STEPS, `the export's steps: ${exported.params.steps}`);
  const straight = alone('emergence_lab', exported.params);
  verify(!straight.error, straight.error);
  verify(JSON.stringify(exported.result.panels) === JSON.stringify(straight.panels), 'the resumed run\'s panels differ from the uninterrupted run\'s under node');
  // a finished run's result is kept too: drawn again on load, with no offer
  await tab.reload();
  await ready(tab);
  await tab.waitForFunction((s) => document.querySelector(s).dataset.kept === 'shown', sectionOf('emergence'), { timeout: 10000 });
  verify(await section.locator('.kept-offer').count() === 0, 'a finished run is offered for resuming');
  const shownText = await section.locator('.panels').innerText();
  const headline = exported.result.headline || '';
  verify(headline && shownText.includes(headline.replace(/\*\*/g, '')), `the kept result does not show its headline '${headline}'`);
  await tab.close();
  verify(errors.length === 0, `page errors: ${errors.join(' | ')}`);
});

test('a kept run whose checkpoint does not read: resuming it says so in a warning and starts over from step 0', async () => {
  const query = `emergence.steps=${KEPT_STEPS}&emergence.eval_every=500&emergence.zipf=0.5`;
  const tab = await startAndHide(query);
  await tab.waitForTimeout(3500);
  await tab.locator(`${sectionOf('emergence')} button.run`).click();  // Stop: the run stays kept
  // The record's checkpoint cut in half, in the browser's own store.
  const cut = await tab.evaluate(() => new Promise((resolve, reject) => {
    const req = indexedDB.open('icl-runs', 1);
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const store = req.result.transaction('runs', 'readwrite').objectStore('runs');
      const all = store.getAll();
      all.onsuccess = () => {
        const r = all.result.find((x) => x.params && Number(x.params.zipf) === 0.5 && !x.done);
        if (!r) { resolve(0); return; }
        const whole = r.main.length;
        r.main = r.main.slice(0, whole >> 1);
        store.put(r).onsuccess = () => resolve(whole);
      };
    };
  }));
  verify(cut > 0, 'the stopped run was not kept');
  console.log(`     the kept checkpoint of emergence_lab (steps ${KEPT_STEPS}): ${cut} characters`);
  await tab.reload();
  await ready(tab);
  const saved = await offeredStep(tab);
  const section = tab.locator(sectionOf('emergence'));
  await section.locator('.kept-offer button.resume').click();
  await tab.locator('#notices').filter({ hasText: /could not be resumed/ }).waitFor({ timeout: TIMEOUT_MS });
  await tab.waitForFunction((s) => document.querySelector(`${s} progress`).value > 0, sectionOf('emergence'), { timeout: TIMEOUT_MS });
  const first = await progressOf(tab);
  verify(first < saved / KEPT_STEPS, `after the warning the run is at progress ${first}, the broken one was at step ${saved}: it did not start over`);
  // the fresh run goes on (to its end, as any run: not waited for here)
  await tab.waitForFunction(([s, p]) => document.querySelector(`${s} progress`).value > p, [sectionOf('emergence'), first], { timeout: TIMEOUT_MS });
  verify(await section.getAttribute('data-state') === 'running', `the fresh run is in state ${await section.getAttribute('data-state')}`);
  await tab.close();
  verify(errors.length === 0, `page errors: ${errors.join(' | ')}`);
});
