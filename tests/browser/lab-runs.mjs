// Browser test of the two training-data labs (emergence_lab, task_diversity_lab) on a
// lesson page, in headless Chromium:
//   node tests/browser/lab-runs.mjs build/bin/icl build/wasm/bin
// Builds a site from tests/browser/fixtures/labs/ (one page, each lab with a short setup)
// through the real pipeline: `icl lessons build`, then web/build-site.mjs. Then, for each
// lab: Run finishes in the page's worker, numbers and the result's headline are drawn
// (and the emergence lab's "what changed" line); the JSON export is, panel for panel,
// the Result the same wasm core computes under node for the same setup; the CSV export
// holds every point of every curve drawn. A link that sets every knob sets every control
// (read back from the controls); a knob changed by hand is written to the address and
// survives a reload.
// Ends with "lab-runs: N passed, M failed".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { root, serveSite, launchChromium } from './serve-and-launch.mjs';

const require = createRequire(import.meta.url);
const icl = path.resolve(process.argv[2] || 'build/bin/icl');
const wasm = path.resolve(process.argv[3] || 'build/wasm/bin');
const TIMEOUT_MS = 60000;

let passed = 0, failed = 0;
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.message ? e.message.split('\n').slice(0, 6).join('\n     ') : e}`);
  }
}
function expect(cond, message) {
  if (!cond) throw new Error(message);
}

// ---- the site, built from the fixture lesson --------------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-lab-runs-'));
const json = path.join(work, 'lessons-json'), site = path.join(work, 'site');
execFileSync(icl, ['lessons', 'build', '--dir', path.join(root, 'tests/browser/fixtures/labs'), '--out', json], { stdio: 'ignore' });
execFileSync(process.execPath, [path.join(root, 'web/build-site.mjs'), '--out', site, '--wasm', wasm, '--lessons', json], { stdio: 'ignore' });

// The site's wasm core under node: the Result of a setup run to its end.
const core = await require(path.join(site, 'assets', 'icl_core.js'))({ wasmBinary: fs.readFileSync(path.join(site, 'assets', 'icl_core.wasm')) });
for (const name of ['en/catalogue/common.json', 'en/catalogue/emergence_lab.json', 'en/catalogue/task_diversity_lab.json',
  'checkpoints/emergence_grid.json']) {  // the phase diagram's shipped background
  core.put_asset(name, new Uint8Array(fs.readFileSync(path.join(site, 'lessons', name))));
}
function alone(demo, params) {
  const started = JSON.parse(core.start(demo, JSON.stringify(params), 'en', 1));
  if (started.error) return { error: started.error };
  let result = {};
  while (!result.done) result = JSON.parse(core.step(started.handle, 1000, false));
  core.drop(started.handle);
  return result;
}

const { origin } = await serveSite(site);
const browser = await launchChromium();
const LABS = [{ instance: 'emergence', demo: 'emergence_lab' }, { instance: 'diversity', demo: 'task_diversity_lab' }];

const sectionOf = (instance) => `section.demo[data-instance="${instance}"]`;
async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: TIMEOUT_MS });
}
async function runToEnd(page, instance) {
  const section = page.locator(sectionOf(instance));
  await section.locator('button.run').click();
  await page.waitForFunction((s) => ['done', 'error'].includes(document.querySelector(s).dataset.state), sectionOf(instance), { timeout: TIMEOUT_MS });
  expect(await section.getAttribute('data-state') === 'done', `${instance} ended in ${await section.getAttribute('data-state')}: ${await section.locator('.demo-error').textContent()}`);
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

const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1000, height: 900 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
await page.goto(`${origin}/en/labs.html`);
await ready(page);
const infos = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent).demos
  .map((b) => ({ name: b.name, params: b.params || {}, info: b.info })));

for (const { instance, demo } of LABS) {
  await test(`${demo}: Run finishes in the page with numbers, its opening line${demo === 'emergence_lab' ? ' and the "what changed" line' : ''}`, async () => {
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
    expect(opening.trim().length > 20 && !/[{}⟦⟧]/.test(opening), `the result opens with '${opening}'`);
    expect(read.text.includes(opening.replace(/\*\*/g, '')), `the page does not show the opening line '${opening}'`);
    expect(/\d\.\d/.test(read.text), `no decimal number is shown: ${read.text.slice(0, 300)}`);
    expect(read.svgs >= 2, `${read.svgs} plots drawn`);
    if (demo === 'emergence_lab') {
      // the note's words come from the catalogue, one sentence a seed, each naming it
      const catalogue = JSON.parse(fs.readFileSync(path.join(site, 'lessons/en/catalogue/emergence_lab.json'), 'utf8'));
      const title = catalogue.what_changed || catalogue.messages?.what_changed;
      expect(title && read.text.includes(title), `no "what changed" line (${title}) in: ${read.text.slice(-400)}`);
    }
  });

  await test(`${demo}: the JSON export is the wasm core's Result for the setup, and the CSV holds every point of every curve`, async () => {
    const exported = JSON.parse(await download(page, instance, 'JSON'));
    const setup = infos.find((b) => b.name === instance);
    const params = { ...Object.fromEntries(setup.info.params.map((p) => [p.name, p.default])), ...setup.params };
    for (const [k, v] of Object.entries(params)) expect(exported.params[k] === Number(v) || exported.params[k] === v, `export's ${k} = ${exported.params[k]}, the setup's ${v}`);
    const mine = alone(demo, exported.params);
    expect(!mine.error, mine.error);
    expect(JSON.stringify(exported.result.panels) === JSON.stringify(mine.panels), 'the page\'s panels differ from the core\'s under node');
    const csv = await download(page, instance, 'CSV');
    const lines = mine.panels.filter((p) => p.kind === 'lines');
    expect(lines.length >= 2, `${lines.length} curve panels`);
    // a row per number drawn (and a header row per table), counted from the core's Result
    const rowsOf = (p) => ({
      scalars: 1 + p.items?.length, lines: 1 + p.series?.reduce((m, s) => m + s.x.length, 0), heatmap: 1 + p.rows,
      bars: 1 + p.labels?.length, table: 1 + p.rows?.length, note: 1,
    })[p.kind];
    const want = mine.panels.reduce((n, p) => n + rowsOf(p), 0);
    const rows = csv.split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('"#')).length;
    expect(rows === want, `the CSV has ${rows} rows, the Result's panels ${want}`);
    for (const p of lines) expect(csv.includes(`# lines: ${p.title}`), `the CSV lacks the panel '${p.title}'`);
  });
}

await test('a link that sets every knob of both labs sets every control; a knob changed by hand survives a reload', async () => {
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
  expect(notices.join('').trim() === '', `the link gave notices: ${notices.join(' | ')}`);
  for (const { name, info } of infos) {
    const controls = await shown(other, name);
    for (const p of info.params) {
      const got = controls[p.name];
      const ok = p.type === 'choice' || p.type === 'bool' ? got === String(want[name][p.name]) : Number(got) === want[name][p.name];
      expect(ok, `${name}.${p.name}: the control shows ${got}, the link says ${want[name][p.name]}`);
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
  expect((await shown(page, 'emergence')).zipf === '1.25', `after the reload the control shows zipf ${(await shown(page, 'emergence')).zipf}`);
  expect(errors.length === 0, `page errors: ${errors.join(' | ')}`);
});

await test('a link with a knob past its range names it in a notice; that lab keeps its setup and the other takes its link', async () => {
  const other = await context.newPage();
  await other.goto(`${origin}/en/labs.html?emergence.burstiness=9&diversity.steps=50`);
  await ready(other);
  const notices = (await other.locator('#notices').innerText()).trim();
  expect(/burstiness/.test(notices) && /\[0, 8\]/.test(notices), `the notice does not name the knob and its range: '${notices}'`);
  const emergence = await shown(other, 'emergence');
  const page = infos.find((b) => b.name === 'emergence');
  const fixtureSteps = String(page.params.steps);
  expect(emergence.burstiness === String(page.info.params.find((p) => p.name === 'burstiness').default) && emergence.steps === fixtureSteps,
    `the emergence lab's controls changed: burstiness ${emergence.burstiness}, steps ${emergence.steps}`);
  expect((await shown(other, 'diversity')).steps === '50', `the other lab did not take its link: steps ${(await shown(other, 'diversity')).steps}`);
  await other.close();
});

await test('a reload resumes the emergence lab\'s run from its saved step; it ends as the uninterrupted run, and its result is kept', async () => {
  // Long enough to be saved mid-way (the worker keeps a run every 3 s and when the tab is hidden).
  const steps = 3000, query = `emergence.steps=${steps}&emergence.seeds=2`;
  const tab = await context.newPage();
  await tab.goto(`${origin}/en/labs.html?${query}`);
  await ready(tab);
  const section = tab.locator(sectionOf('emergence'));
  await section.locator('button.run').click();
  await tab.waitForFunction((s) => document.querySelector(`${s} progress`).value > 0.1, sectionOf('emergence'), { timeout: TIMEOUT_MS });
  // Hidden: the page asks the worker to keep the run at once; the run goes on (a worker is not
  // paused by a hidden tab), so progress still grows after it.
  await tab.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const hiddenAt = await section.locator('progress').evaluate((p) => p.value);
  await tab.waitForTimeout(3500);
  const later = await section.locator('progress').evaluate((p) => p.value);
  expect(later > hiddenAt, `hidden, the run did not go on (${hiddenAt} → ${later})`);
  await tab.reload();
  await ready(tab);
  const offer = section.locator('.kept-offer');
  await offer.waitFor({ timeout: 10000 });
  const label = await offer.locator('button.resume').textContent();
  const saved = Number((label.match(/step (\d+)/) || [])[1]);
  expect(saved > 0 && saved < steps, `the offer says '${label}'`);
  const draws = Number(await section.getAttribute('data-draws') || 0);
  await offer.locator('button.resume').click();
  await tab.waitForFunction(([s, d]) => Number(document.querySelector(s).dataset.draws) > d, [sectionOf('emergence'), draws], { timeout: TIMEOUT_MS });
  const first = await section.locator('progress').evaluate((p) => p.value);
  expect(first >= 0.9 * saved / steps, `resumed at progress ${first}, saved at step ${saved} of ${steps}: it started over`);
  await tab.waitForFunction((s) => ['done', 'error'].includes(document.querySelector(s).dataset.state), sectionOf('emergence'), { timeout: 4 * TIMEOUT_MS });
  expect(await section.getAttribute('data-state') === 'done', `it ended in ${await section.getAttribute('data-state')}: ${await section.locator('.demo-error').textContent()}`);
  const exported = JSON.parse(await download(tab, 'emergence', 'JSON'));
  const straight = alone('emergence_lab', exported.params);
  expect(JSON.stringify(exported.result.panels) === JSON.stringify(straight.panels), 'the resumed run\'s panels differ from the uninterrupted run\'s under node');
  await tab.reload();  // a finished run's result is kept too, drawn again on load
  await ready(tab);
  await tab.waitForFunction((s) => document.querySelector(s).dataset.kept === 'shown', sectionOf('emergence'), { timeout: 10000 });
  await tab.close();
});

await browser.close();
fs.rmSync(work, { recursive: true, force: true });
console.log(`lab-runs: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
