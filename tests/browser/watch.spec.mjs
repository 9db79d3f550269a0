// The authors' watch mode (web/serve.mjs --watch, web/watch.mjs) in Debian's headless
// Chromium: on a temporary copy of one lesson (en + ko), a saved edit shows in the open
// page within a second of the write (median of 3 saves); a lint error then replaces the
// page with the problem at file:line, the offending source line shown as text (markup in
// it does not run); fixing it brings the lesson back; a lesson `icl lessons new` writes
// builds, its draft warning in the page's bar. The site folder the watch mode writes
// holds no trace of the reload client, and the pages keep their CSP (no console error).
//   ctest --test-dir build/wasm -R browser-watch   (playwright project browser-watch)
// Prints "watch: save -> new text shown in a, b, c ms (median m)"; every check is a soft
// one (the test goes on past it and fails at its end); WATCH_DEBUG=1 adds each reload's
// navigation timing and the server log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, expect, root, icl, wasmDir as wasm, serveSite } from './harness.mjs';

const LIMIT_MS = 1000;
let failed = 0;
const check = (cond, name, detail = '') => {
  if (!cond) failed++;
  expect.soft(Boolean(cond), `${name}${detail ? `: ${detail}` : ''}`).toBe(true);
};

let tmp, lessons, site, file, original, served;
test.beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-watch-test-'));
  lessons = path.join(tmp, 'lessons');
  site = path.join(tmp, 'site');
  for (const lang of ['en', 'ko']) {
    fs.mkdirSync(path.join(lessons, lang), { recursive: true });
    fs.copyFileSync(path.join(root, 'lessons', lang, '02-dual-form.md'), path.join(lessons, lang, '02-dual-form.md'));
    fs.cpSync(path.join(root, 'lessons', lang, 'catalogue'), path.join(lessons, lang, 'catalogue'), { recursive: true });
    fs.copyFileSync(path.join(root, 'lessons', lang, 'glossary.json'), path.join(lessons, lang, 'glossary.json'));  // its term links
  }
  file = path.join(lessons, 'en', '02-dual-form.md');
  original = fs.readFileSync(file, 'utf8');
});
test.afterAll(() => {
  if (served) {
    const log = served.log();
    console.log((failed || process.env.WATCH_DEBUG ? log : log.split('\n').filter((l) => / written in /.test(l)).join('\n')).trim());
    served.server.kill();
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// Polls pageFn(arg) in the page until it returns true, across the reloads (a navigation in
// flight throws): the time it did, or null after timeoutMs.
async function waitInPage(page, pageFn, arg, timeoutMs) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    try {
      if (await page.evaluate(pageFn, arg)) return Date.now();
    } catch { /* the page is reloading */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}
// The text of the page's <main> (the lesson's text, or the problem list) holds `wanted`.
const waitForText = (page, wanted, timeoutMs) =>
  waitInPage(page, (w) => { const main = document.querySelector('main'); return !!main && main.textContent.includes(w); }, wanted, timeoutMs);

test('a saved edit shows within a second; a lint error shows at file:line as text; a new lesson builds; the site holds no reload client', async ({ browser }) => {
  served = await serveSite(site, ['--watch', '--lessons', lessons, '--icl', icl, '--wasm', wasm]);
  const { origin } = served;
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  page.on('dialog', (d) => { errors.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
  await page.goto(`${origin}/en/dual-form.html`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => document.querySelector('h1') && document.querySelector('script[src^="/__icl/watch.js"]'));
  await page.waitForTimeout(200);  // the client's event stream connects

  // 1. Three edits, each a new sentence in the first paragraph; the median time from the
  // write to the new text in the page's DOM must be within LIMIT_MS.
  let edited = original;
  const times = [];
  for (let i = 0; i < 3; i++) {
    // An author saves every few seconds: the page has loaded and started its demo.
    await page.waitForLoadState('load');
    await page.waitForTimeout(300);
    const mark = `Watch mark ${i} ${Date.now()}`;
    edited = original.replace(/\n\nBefore asking whether/, `\n\n${mark}. Before asking whether`);
    if (edited === original) break;
    const t0 = Date.now();
    fs.writeFileSync(file, edited);
    const t1 = await waitForText(page, mark, 5000);
    times.push(t1 === null ? Infinity : t1 - t0);
    if (process.env.WATCH_DEBUG) {
      console.log(await page.evaluate((t0) => {
        const n = performance.getEntriesByType('navigation')[0];
        const at = (x) => Math.round(performance.timeOrigin + x - t0);
        return `navigation ${at(0)}, request ${at(n.requestStart)}, response ${at(n.responseStart)}-${at(n.responseEnd)}, interactive ${at(n.domInteractive)} ms after the write`;
      }, t0));
    }
  }
  check(times.length === 3, 'the test found the paragraph it edits');
  const median = [...times].sort((a, b) => a - b)[1];
  console.log(`watch: save -> new text shown in ${times.join(', ')} ms (median ${median})`);
  check(median <= LIMIT_MS, `a saved edit shows within ${LIMIT_MS} ms (median of 3)`, `${median} ms`);

  // 2. A lint error whose source line holds markup: the page lists it at file:line, as text.
  const lines = edited.split('\n');
  const at = lines.findIndex((l) => l.startsWith('```check id=dual-form-scores type=choice answer=b'));
  check(at >= 0, 'the test found the check it breaks');
  const hostile = '<img src=x onerror=window.__pwned=1>';
  lines[at] = lines[at].replace('answer=b', `answer=b note="${hostile}"`);
  fs.writeFileSync(file, lines.join('\n'));
  const where = `${file}:${at + 1}`;
  const shown = await waitForText(page, where, 3000);
  check(shown !== null, `the page shows the problem at ${path.basename(file)}:${at + 1}`);
  if (shown !== null) {
    const text = await page.evaluate(() => document.body.innerText);
    if (process.env.WATCH_DEBUG) console.log(text);
    check(text.includes("check key 'note=' does not apply to a choice check"), 'the page shows the lint message');
    check(text.includes(hostile), 'the offending line is shown as text, markup and all');
    check(await page.evaluate(() => document.querySelectorAll('main img').length === 0 && window.__pwned === undefined),
      'nothing from the lesson file runs as markup');
  }

  // 3. Fixed: the lesson comes back.
  fs.writeFileSync(file, original);
  check(await waitForText(page, 'Attention, with its shapes', 3000) !== null && !(await page.evaluate(() => document.body.innerText)).includes('Watch mark'),
    'the fixed lesson replaces the problem list');

  // 4. A new lesson (icl lessons new, en then ko) builds in the site as it is written.
  // The open page leaves the watched site first: this build rewrites lesson 2 (its "next"
  // link), and the reload its client then starts can cancel (net::ERR_ABORTED) or
  // interrupt the navigation below (seen on a busy 2-core machine).
  await page.goto('about:blank');
  for (const lang of ['en', 'ko']) execFileSync(icl, ['lessons', 'new', 'sinks', '--lang', lang, '--dir', lessons], { stdio: 'ignore' });
  // (up to 10 s: the two builds share a 2-core machine with other suites; the latency of a
  // save is held to its limit in part 1)
  let built = false;
  for (let t = Date.now(); !built && Date.now() - t < 10000; await new Promise((r) => setTimeout(r, 50))) {
    built = fs.existsSync(path.join(site, 'ko', 'sinks.html'));
  }
  // The new page's own client may still reload it (a later build of the same change).
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await page.goto(`${origin}/ko/sinks.html`, { waitUntil: 'domcontentloaded' });
      break;
    } catch (e) {
      if (!/interrupted|ERR_ABORTED/.test(e.message)) throw e;
      await page.waitForTimeout(200);
    }
  }
  // Polled, not read once: a reload the watch client starts (the en build finishing after
  // the ko one) can land between the navigation and the read and show a page still parsing.
  const lessonShown = built && await waitInPage(page, () =>
    location.pathname === '/ko/sinks.html' &&
    document.querySelectorAll('section.demo[data-instance="dual_form"]').length === 1 &&
    document.querySelectorAll('section.check[data-check="predict-sgd"]').length === 1 &&
    (document.querySelector('h1')?.textContent ?? '').includes('새 lesson'), undefined, 5000) !== null;
  check(lessonShown, 'a lesson from icl lessons new builds: one demo, one check',
    lessonShown ? '' : built ? await page.evaluate(() => `${location.pathname}: ${document.body.innerText.slice(0, 300)}`).catch((e) => e.message) : 'ko/sinks.html not written within 10 s');
  // Its lint warnings (a draft: one check where a lesson needs 4) are in the page's bar.
  check(await page.waitForFunction(() => { const b = document.querySelector('.icl-watch-warnings'); return b && !b.hidden && b.textContent.includes('ko/03-sinks.md:1: warning: the lesson has 1 checks'); },
    null, { timeout: 3000 }).then(() => true, () => false), "the page's warnings bar lists the draft's warning");
  check(errors.length === 0, 'no console error, no dialog (the CSP holds)', errors.join(' | '));

  // 5. What the watch mode wrote is the site as built: no reload client in it.
  const traces = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(html|js|css)$/.test(e.name) && /__icl|watch-client/.test(fs.readFileSync(p, 'utf8'))) traces.push(path.relative(site, p));
    }
  };
  walk(site);
  check(traces.length === 0, 'the site folder holds no trace of the reload client', traces.join(' '));
  await page.close();
});
