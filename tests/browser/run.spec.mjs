// Browser tests of the lesson pages in Debian's headless Chromium (playwright-core).
//   ctest --test-dir build/wasm -R '^browser$'   (playwright project browser)
// Serves the site with web/serve.mjs on a free 127.0.0.1 port and, for every lesson in
// the site's index.json and both languages: the page loads with no console error, every
// demo runs to done and draws (training demos in English; in Korean they stand ready for
// Run), moving a slider changes the drawing, checks are graded right and wrong with
// feedback (Korean skips predict checks on training demos), progress survives a reload, URL parameters reproduce
// a setup and garbage ones give a notice, nothing is requested from another host, and
// a 375 px viewport does not scroll sideways; every demo's embed page and the copy
// buttons (embed.mjs). Screenshots go to build/test-artifacts/ (whole pages with
// BROWSER_FULL_SHOTS=1).
// Prints the budgets as "budget first_load_bytes=... first_result_ms=... redraw_ms=...".
// BROWSER_LESSONS=gpt3-in-context,... restricts the per-lesson tests to those lesson ids
// (for a targeted run; the other tests run as always); BROWSER_LANGS=en-XA,... to those
// languages (pseudo-locale.spec.mjs runs the per-lesson tests of its fixture language's
// page: BROWSER_LANGS=en-XA and -g 'en-XA/dual-form: ').
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { test, verify, root, site, icl, binDir, siteIndex, pageData, serveSite, watchedContext, expectNoErrors } from './harness.mjs';
import { embedChecks } from './embed.mjs';

const require = createRequire(import.meta.url);  // loads the site's wasm core in node

const artifacts = path.join(root, 'build', 'test-artifacts');
// A picture of a page for a person to look at, build/test-artifacts/<name>.png: what the
// viewport shows; BROWSER_FULL_SHOTS=1 takes whole pages instead (2-5.6 s each on a long
// lesson page, measured on 6 of them: about 1.5 min over the 32 lesson pictures).
const fullShots = Boolean(process.env.BROWSER_FULL_SHOTS);
const screenshot = (page, name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: fullShots });

// Ceilings that catch a further regression. They were 1.5 MB / 1.5 s; this session's labs,
// progress and dual-attention code grew the wasm core to 1.31 MB and lesson 1 measured
// 1,823,113 B / 1,915 ms on a quiet machine. Issue 18 (0.8 MB / 0.5 s) is what brings
// them down; it is open. Lesson pages now carry their first result (web/sitegen/site.mjs):
// bench/run web, interleaved with the old site at load 9.6-14.6 on 2 cores, measured
// 1.25-1.9 s (median of 3) where the old pages took 2.3-3.6 s; one run here at load 14
// still took 3.1 s, so the first-result ceiling stays at 3 s on this machine.
const BUDGET = { firstLoadBytes: 0.8e6, firstResultMs: 3000, redrawMs: 100 };
const DEMO_TIMEOUT_MS = 30000;       // analytic demos, page start
const TRAINING_TIMEOUT_MS = 240000;  // every training demo of one page, run side by side

// ---- server and browser -------------------------------------------------------------
// (playwright -g <regex> runs only the tests whose names match, while working on them)
let served, origin, browser;
test.beforeAll(async ({ browser: b }) => {
  browser = b;
  served = await serveSite(site);
  origin = served.origin;
});
test.afterAll(() => { if (served) served.server.kill(); });

const foreignRequests = [];
// A context that records console errors, page errors and any request that leaves
// 127.0.0.1 (which it also blocks).
const newContext = (options = {}) => watchedContext(browser, { acceptDownloads: true, ...options }, foreignRequests);

// Waits until every demo on the page has settled: finished, stopped, failed, or (a
// training demo) waiting for Run.
async function demosSettled(page, timeout = DEMO_TIMEOUT_MS) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true'
    && [...document.querySelectorAll('section.demo')].every((s) => ['done', 'error', 'stopped', 'idle'].includes(s.dataset.state)),
  null, { timeout, polling: 50 });
}

// Presses Run on every computed demo whose result a predict check holds back
// (hide=result) and waits for it, so that its panels can be hovered and downloaded.
// (predictions.mjs tests the holding itself.)
async function showHeld(page) {
  const held = await page.evaluate(() => [...document.querySelectorAll('section.demo[data-held=true][data-state=done]')].map((s) => {
    s.querySelector('button.run').click();
    return s.dataset.instance;
  }));
  if (held.length) await demosSettled(page);
}

// Presses Run on every demo that waits for it (with analyticOnly, on the analytic ones
// that wait to come near the view), then waits for those to finish.
async function runAllDemos(page, { analyticOnly = false } = {}) {
  const analytic = (await lessonData(page)).demos.filter((d) => d.info.analytic).map((d) => d.name);
  const names = analyticOnly ? analytic : null;
  await page.evaluate((only) => document.querySelectorAll('section.demo[data-state=idle]').forEach((s) => {
    if (!only || only.includes(s.dataset.instance)) s.querySelector('button.run').click();
  }), names);
  await page.waitForFunction((only) => [...document.querySelectorAll('section.demo')]
    .every((s) => (only && !only.includes(s.dataset.instance)) || ['done', 'error', 'stopped'].includes(s.dataset.state)),
  names, { timeout: TRAINING_TIMEOUT_MS, polling: 100 });
}

// ---- the lessons ----------------------------------------------------------------------
const index = siteIndex();
const langs = Object.keys(index);  // every language the site was built with (en first)
const lessonData = (page) => page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent));

// A predict check's right option comes from its demo run natively by the `icl` command:
// its JSON Result, by the run's arguments. The runs start as a page starts training
// (startNativeRuns), on the core the page leaves free, and the check test awaits them
// (run one after the other inside that test, the check tests took a third of the suite).
const nativeRuns = new Map();
function nativeRun(check, demoParams, lang) {
  const g = check.grading;
  const text = (v) => (Array.isArray(v) ? v.map((p) => p.join(',')).join('; ') : v);  // points: "x,y; x,y"
  const sets = Object.entries(demoParams[g.demo].params).flatMap(([k, v]) => ['--set', `${k}=${text(v)}`]);
  const args = ['run', demoParams[g.demo].demo, ...sets, '--json', '--lang', lang];
  const key = JSON.stringify(args.slice(0, -1));  // scalars do not depend on the language
  if (!nativeRuns.has(key))
    nativeRuns.set(key, promisify(execFile)(icl, args, { maxBuffer: 64 << 20 }).then((r) => JSON.parse(r.stdout)));
  return nativeRuns.get(key);
}
// Each demo's parameters in the lesson's own setup, by block name.
function lessonDemoParams(data) {
  return Object.fromEntries(data.demos.map((d) => [d.name, { demo: d.demo,
    params: { ...Object.fromEntries(d.info.params.map((p) => [p.name, p.default])), ...d.params } }]));
}
// The runs the check test will need: on a page that does not train (train false), only
// those of predict checks on analytic demos.
function startNativeRuns(data, lang, train) {
  const demoParams = lessonDemoParams(data);
  const analytic = new Set(data.demos.filter((d) => d.info.analytic).map((d) => d.name));
  for (const c of data.checks)
    if (c.type === 'predict' && c.grading && Object.hasOwn(demoParams, c.grading.demo) && (train || analytic.has(c.grading.demo)))
      nativeRun(c, demoParams, lang).catch(() => {});  // a failed run is the check test's to report
}
// The right and a wrong answer to a check, from the lesson's own grading data.
async function answersFor(check, demoParams, lang) {
  const g = check.grading;
  const keys = (check.options || []).map((o) => o.key);
  switch (check.type) {
    case 'choice': return { right: g.answer, wrong: keys.find((k) => k !== g.answer) };
    case 'multi': {
      const wrong = keys.find((k) => !g.answer.includes(k)) ? [keys.find((k) => !g.answer.includes(k))] : [g.answer[0]].slice(0, g.answer.length - 1);
      return { right: g.answer, wrong: wrong.length ? wrong : null };
    }
    case 'truefalse': return { right: g.answer, wrong: !g.answer };
    case 'numeric': return { right: String(g.answer).replace('.', ','), wrong: String(g.answer + 10 * (g.tol || 1) + 1) };
    case 'text': return { right: `  ${g.accepted[0].toUpperCase()}! `, wrong: 'zzqx not an answer' };
    case 'predict': {
      const out = await nativeRun(check, demoParams, lang);
      const items = out.panels.filter((p) => p.kind === 'scalars').flatMap((p) => p.items);
      const value = items.find((i) => i.name === g.scalar).value;
      const inRange = ([lo, hi]) => (lo === null || value >= lo) && (hi === null || value < hi);
      const right = Object.keys(g.ranges).find((k) => inRange(g.ranges[k]));
      return { right, wrong: Object.keys(g.ranges).find((k) => k !== right) };
    }
    default: throw new Error(`unknown check type ${check.type}`);
  }
}

// The previous check's verdict and feedback, drawn just above, can move an input while
// it is clicked: Playwright then reports that the click did not change its state (seen
// once on the pseudo-locale page, whose longer texts reflow more). Tried again after the
// page settles; a third failure is a real one.
async function setCheckedSteadily(input, want) {
  for (let attempt = 1; ; attempt++) {
    try {
      await input.setChecked(want);
      return;
    } catch (e) {
      if (attempt >= 3 || !/did not change its state/.test(String(e && e.message))) throw e;
      await input.page().waitForTimeout(250);
    }
  }
}

// How many forms the page has submitted (a capturing listener, installed once per page
// load): tells a click that submitted a check's form from one that landed elsewhere.
const submitCount = (page) => page.evaluate(() => {
  if (!window.__iclSubmits) {
    window.__iclSubmits = { n: 0 };
    document.addEventListener('submit', () => { window.__iclSubmits.n += 1; }, true);
  }
  return window.__iclSubmits.n;
});

async function answer(page, check, value) {
  const section = page.locator(`section.check[data-check="${check.id}"]`);
  const before = await section.getAttribute('data-verdict');
  // The same reflow that can move an input (setCheckedSteadily) can move the submit button
  // between Playwright's check of the click point and the click (seen twice in fresh-clone
  // runs with another browser test beside it: the form never submitted, and the wait below
  // timed out). The answer is set again and the click repeated only when no form was
  // submitted; a third miss is a real failure.
  for (let attempt = 1; ; attempt++) {
    if (['numeric', 'text'].includes(check.type)) {
      await section.locator('input.answer-text').fill(value);
    } else {
      const values = Array.isArray(value) ? value.map(String) : [String(value)];
      // Every option's value and state in one round trip (two per option took ~100 ms a
      // check); only the options whose state must change are clicked.
      const inputs = section.locator('input');
      const options = await inputs.evaluateAll((es) => es.map((e) => ({ value: e.getAttribute('value'), type: e.type, checked: e.checked })));
      for (const [k, o] of options.entries()) {
        const want = values.includes(o.value);
        // Radios are unchecked by checking another one.
        if (want !== o.checked && (want || o.type === 'checkbox')) await setCheckedSteadily(inputs.nth(k), want);
      }
    }
    const submitted = await submitCount(page);
    await section.locator('button[type=submit]').click();
    const took = await page.waitForFunction((n) => window.__iclSubmits.n > n, submitted, { timeout: 5000 })
      .then(() => true, () => false);
    if (took) break;
    if (attempt >= 3) throw new Error(`check ${check.id}: three clicks on its submit button submitted nothing`);
  }
  try {
    await page.waitForFunction(([id]) => {
      const s = document.querySelector(`section.check[data-check="${id}"]`);
      return s.dataset.verdict && !s.dataset.grading;
    }, [check.id], { timeout: DEMO_TIMEOUT_MS });
  } catch (e) {
    const state = await section.evaluate((s) => JSON.stringify(s.dataset));
    throw new Error(`check ${check.id}: submitted, but no verdict within ${DEMO_TIMEOUT_MS} ms (its state: ${state})`);
  }
  return section.evaluate((s, was) => ({ verdict: s.dataset.verdict, before: was,
    text: s.querySelector('.verdict').innerText.trim() }), before);
}

// What a demo draws: its panels, and those drawn beside the control they answer.
const panelsHtml = (page, name) => page.locator(`section.demo[data-instance="${name}"]`)
  .evaluate((s) => [...s.querySelectorAll('.panels, .control-beside')].map((e) => e.innerHTML).join(''));

// Counts the runs the page asks its engine worker for (window.__iclRuns): installed
// before the page's scripts, it sees every 'run' message any Worker is posted.
const countRuns = () => {
  window.__iclRuns = 0;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === 'run') window.__iclRuns += 1;
    return post.call(this, message, ...rest);
  };
};

// Moves a slider by script (as a drag would: input events, then change) and
// resolves to the milliseconds until the demo's next drawing lands (the finished one
// for an analytic demo, the first streamed one for a training demo), with the runs the
// page asked its worker for by then (`runs`; with countRuns installed).
function moveSlider(page, name, sliderIndex) {
  return page.evaluate(([inst, k]) => new Promise((resolve) => {
    const section = document.querySelector(`section.demo[data-instance="${inst}"]`);
    const slider = section.querySelectorAll('input[type=range]')[k];
    const draws = Number(section.dataset.draws || 0);
    const runs = window.__iclRuns;
    const v = Number(slider.value), lo = Number(slider.min), hi = Number(slider.max), step = Number(slider.step) || 1;
    // A different value: one third of the way to the far end, on the step grid.
    const target = v - lo < hi - v ? v + Math.max(step, Math.round((hi - v) / 3 / step) * step) : v - Math.max(step, Math.round((v - lo) / 3 / step) * step);
    const analytic = JSON.parse(document.getElementById('lesson-data').textContent).demos.find((d) => d.name === inst).info.analytic;
    const obs = new MutationObserver(() => {
      // An analytic demo is timed to its finished redraw; a training demo to its first new slice.
      if (Number(section.dataset.draws) > draws && (!analytic || ['done', 'error'].includes(section.dataset.state))) {
        obs.disconnect();
        resolve({ ms: performance.now() - t0, name: slider.name, from: v, to: Number(slider.value), runs: window.__iclRuns - runs });
      }
    });
    obs.observe(section, { attributes: true });
    const t0 = performance.now();
    slider.value = String(target);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    slider.dispatchEvent(new Event('change', { bubbles: true }));
  }), [name, sliderIndex]);
}

const budgets = { firstLoadBytes: null, firstResultMs: null, redrawMs: [] };

// Counts the bytes a page receives as they travel (gzip-encoded where web/serve.mjs has a
// precompressed copy), fonts excluded; the returned function resolves to the total so far.
function bytesSent(page) {
  let bytes = 0;
  const sizes = [];
  page.on('requestfinished', (req) => {
    if (req.resourceType() === 'font') return;
    sizes.push(req.sizes().then((s) => { bytes += s.responseBodySize; }, () => {}));
  });
  return async () => { await Promise.all(sizes); return bytes; };
}

const onlyLessons = process.env.BROWSER_LESSONS ? process.env.BROWSER_LESSONS.split(',') : null;
const onlyLangs = process.env.BROWSER_LANGS ? process.env.BROWSER_LANGS.split(',') : null;
for (const lang of langs) {
  if (onlyLangs && !onlyLangs.includes(lang)) continue;
  for (const entry of index[lang]) {
    if (onlyLessons && !onlyLessons.includes(entry.id)) continue;
    const where = `${lang}/${entry.id}`;
    // A page's tests work on one load of it, in turn (a failure skips the rest of its tests).
    test.describe(() => {
      test.describe.configure({ mode: 'serial' });
      let context, page, bytes, data;
      test.beforeAll(async () => {
        context = await newContext({ viewport: { width: 1100, height: 900 } });
        await context.addInitScript(countRuns);
        page = await context.newPage();
        bytes = bytesSent(page);
      });
      test.afterAll(async () => { if (context) await context.close(); });
      // Training runs to done in English only: the Korean page runs the same core on the
      // same parameters, so there it is enough that every analytic demo finishes and every
      // training demo stands ready (the test command's budget).
      const train = lang === 'en';
      test(`${where}: loads, every demo ${train ? 'runs to done' : 'finishes or waits for Run'} and draws, no console error`, async () => {
        try {
          await loadsAndDraws();
        } finally {
          await screenshot(page, `${lang}-${entry.id}`);
        }
      });
      async function loadsAndDraws() {
        await page.goto(`${origin}/${lang}/${entry.id}.html`);
        await demosSettled(page);
        if (budgets.firstLoadBytes === null && await page.evaluate(() => Boolean(document.body.dataset.firstDrawMs))) {
          budgets.firstResultMs = Number(await page.evaluate(() => document.body.dataset.firstDrawMs));
          await page.waitForLoadState('networkidle');
          budgets.firstLoadBytes = await bytes();
        }
        startNativeRuns(await lessonData(page), lang, train);
        if (train) await runAllDemos(page);
        else await runAllDemos(page, { analyticOnly: true });  // those deferred until near the view
        data = await lessonData(page);
        for (const d of data.demos) {
          const s = page.locator(`section.demo[data-instance="${d.name}"]`);
          const state = await s.getAttribute('data-state');
          const ready = (train || d.info.analytic) ? state === 'done' : state === 'idle' || state === 'done';
          verify(ready, `demo ${d.name} ended as ${state}: ${await s.locator('.demo-error').innerText()}`);
          if (state === 'idle') continue;  // nothing drawn before Run
          const drawn = await s.locator('.panels').evaluate((e) => e.querySelectorAll('svg rect, svg path, svg image, .scalar, td, .note-text').length);
          verify(drawn > 0, `demo ${d.name} drew nothing`);
        }
        verify(await page.locator('.katex-error').count() === 0, 'a formula failed to render (KaTeX error)');
        // The prose is laid out as it nears the screen only until the page is ready (app.css);
        // after that a jump to a demo must land where it stays (a drag test caught 160 px).
        const skipping = await page.evaluate(() => [...document.querySelectorAll('.prose > *')]
          .filter((e) => getComputedStyle(e).contentVisibility !== 'visible').length);
        verify(skipping === 0, `${skipping} prose blocks still skip layout once the page is ready`);
        // Lesson text is md4c output with raw HTML off: nothing executable may appear in it.
        verify(await page.locator('main script, main iframe, main object, main embed').count() === 0, 'lesson text holds raw HTML elements');
        expectNoErrors(context, 'console');
      }

      // The first demo's result is in the page (the site build computed it, web/sitegen/site.mjs)
      // and drawn before the engine is ready: it must be the Result a fresh worker computes
      // for that block's setup, run as the page runs it (demo-block.js's withDefaults, seed 1):
      // an analytic demo's last Result, or the first slice of one that waits for Run.
      if (lang === 'en') {
        test(`${where}: the first result the page carries is the one the engine computes`, async () => {
          const firstDemo = data.demos[0];
          const got = await page.evaluate(async () => {
            const tag = document.getElementById('first-result');
            if (!tag) return null;
            const { name, result, stage, caption } = JSON.parse(tag.textContent);
            const lesson = JSON.parse(document.getElementById('lesson-data').textContent);
            const block = lesson.demos.find((d) => d.name === name);
            const { withDefaults } = await import(new URL('../assets/demo-block.js', window.location.href).href);
            const worker = new Worker(new URL('../assets/worker.js', window.location.href));
            const live = await new Promise((resolve) => {
              worker.onmessage = (e) => {
                if (e.data.type === 'ready') {
                  worker.postMessage({ type: 'run', run: 1, demo: block.demo, params: withDefaults(block.info, block.params), lang: lesson.lang, seed: 1 });
                } else if (e.data.type === 'result' && (e.data.result.done || stage === 'first-step')) resolve(e.data.result);
                else if (e.data.type === 'failed' || e.data.type === 'fatal') resolve({ failed: e.data.message });
              };
            });
            worker.terminate();
            return { name, stage, caption, shown: document.querySelector(`section.demo[data-instance="${CSS.escape(name)}"]`).dataset.precomputed,
              same: JSON.stringify(result) === JSON.stringify(live), panels: (result.panels || []).length, live: JSON.stringify(live).slice(0, 200) };
          });
          if (!firstDemo) { verify(got === null, 'a page with no demo carries a first result'); return; }
          verify(got !== null, `no first result in the page (its first demo is ${firstDemo.name})`);
          verify(got.name === firstDemo.name, `the page carries ${got.name}'s result; its first demo is ${firstDemo.name}`);
          verify(got.stage === (firstDemo.info.analytic ? 'final' : 'first-step'), `${got.name}: carried as '${got.stage}'`);
          // A first step is marked as such: never passed off as the finished run.
          verify(firstDemo.info.analytic || (got.caption && !got.caption.includes('⟦')), `${got.name}: a first step carried without its caption`);
          verify(got.shown === 'shown', `${got.name}: the carried result was not drawn`);
          verify(got.panels > 0, `${got.name}: the carried result has no panels`);
          verify(got.same, `${got.name}: the carried result differs from the engine's: ${got.live}`);
          expectNoErrors(context, 'console');
        });
      }

      test(`${where}: checks graded right and wrong with feedback, kept over a reload`, async () => {
        const demoParams = lessonDemoParams(data);
        const analytic = new Set(data.demos.filter((d) => d.info.analytic).map((d) => d.name));
        // A predict check on a training demo waits for that training: in English only.
        const graded = data.checks.filter((c) => train || c.type !== 'predict' || analytic.has(c.grading.demo));
        // A verdict shows only once its answer is stored (a reload or a closed tab right after
        // it keeps the answer): the moment a check's data-verdict is set, its stored record
        // must already say what the verdict says.
        await page.evaluate(() => {
          window.__iclVerdicts = [];
          new MutationObserver((ms) => {
            for (const m of ms) {
              const s = m.target, v = s.dataset.verdict;
              if (v !== 'correct' && v !== 'wrong') continue;
              let rec = null;
              try {
                const lessons = Object.values(JSON.parse(localStorage.getItem('icl-lab.progress')).checks || {});
                rec = lessons.map((l) => l[s.dataset.check]).find(Boolean) || null;
              } catch { rec = null; }
              window.__iclVerdicts.push({ id: s.dataset.check, verdict: v, stored: rec ? rec.correct : null });
            }
          }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-verdict'] });
        });
        for (const check of graded) {
          const { right, wrong } = await answersFor(check, demoParams, lang);
          if (wrong !== null && wrong !== undefined) {
            const r = await answer(page, check, wrong);
            verify(r.verdict === 'wrong', `check ${check.id}: wrong answer ${JSON.stringify(wrong)} graded '${r.verdict}': ${r.text}`);
            verify(r.text.length > 0, `check ${check.id}: no feedback for a wrong answer`);
          }
          const r = await answer(page, check, right);
          verify(r.verdict === 'correct', `check ${check.id}: right answer ${JSON.stringify(right)} graded '${r.verdict}': ${r.text}`);
        }
        const shown = await page.evaluate(() => window.__iclVerdicts);
        verify(shown.length >= graded.length, `${shown.length} verdicts seen for ${graded.length} checks`);
        for (const v of shown)
          verify(v.stored === (v.verdict === 'correct'), `check ${v.id}: '${v.verdict}' was shown while its stored record read ${v.stored}`);
        if (graded.length) {
          await page.reload();
          await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: DEMO_TIMEOUT_MS })
            .catch(async () => { throw new Error(`not ready ${DEMO_TIMEOUT_MS} ms after a reload: ${await page.evaluate(() => JSON.stringify(document.body.dataset))}`); });
          for (const check of graded) {
            const state = await page.locator(`section.check[data-check="${check.id}"]`).getAttribute('data-answered');
            verify(state === 'correct', `check ${check.id}: after a reload its progress reads '${state}'`);
          }
        }
        expectNoErrors(context, 'console');
      });

      test(`${where}: moving a slider changes the drawing`, async () => {
        for (const d of data.demos) {
          const slider = page.locator(`section.demo[data-instance="${d.name}"] input[type=range]`);
          if (await slider.count() === 0) continue;
          const before = await panelsHtml(page, d.name);
          const moved = await moveSlider(page, d.name, 0);
          // A panel that did not change keeps its figure (web/src/demo-block.js), so the HTML
          // changes only where the numbers do. A run's first slice can draw what the old
          // setting's did (bayes_posterior's k = 0 for any k_max): then a later one must differ.
          if (!d.info.analytic && await panelsHtml(page, d.name) === before) {
            await page.waitForFunction(([n, b]) => {
              const s = document.querySelector(`section.demo[data-instance="${n}"]`);
              return s.querySelector('.panels').innerHTML !== b || ['done', 'error', 'stopped'].includes(s.dataset.state);
            }, [d.name, before], { timeout: TRAINING_TIMEOUT_MS, polling: 50 });
          }
          const after = await panelsHtml(page, d.name);
          verify(after !== before, `demo ${d.name}: moving ${moved.name} ${moved.from} -> ${moved.to} left the drawing unchanged`);
          if (!d.info.analytic) {
          // The run button stops a running demo; the demo then says so.
            const stopped = await page.locator(`section.demo[data-instance="${d.name}"] button.run`).evaluate((b) => {
              const s = b.closest('section');
              if (s.dataset.state !== 'running') return true;
              b.click();
              return s.dataset.state === 'stopped';
            });
            verify(stopped, `demo ${d.name}: the stop button did not stop the run`);
          }
          if (d.info.analytic) {
          // A steady-state redraw (the first one also warms up the code paths), one run per
          // move: the slider's 'change' after its 'input' carries the same value.
            for (let k = 0; k < 3; k++) {
              const redraw = await moveSlider(page, d.name, 0);
              verify(redraw.runs === 1, `demo ${d.name}: one slider move asked the engine for ${redraw.runs} runs`);
              budgets.redrawMs.push(redraw.ms);
            }
          }
        }
        expectNoErrors(context, 'console');
      });

      test(`${where}: a 375 px wide screen does not scroll sideways`, async () => {
        await page.setViewportSize({ width: 375, height: 740 });
        await page.waitForTimeout(250);  // demos redraw at the new width
        const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth }));
        verify(widths.doc <= 376 && widths.body <= 376, `page is ${widths.doc} px wide at 375 px`);
        await screenshot(page, `${lang}-${entry.id}-phone`);
        expectNoErrors(context, 'console');
      });
    });
  }
}

// ---- URL parameters, exports, keyboard, stored progress ---------------------------------
const firstWithDemo = langs.flatMap((lang) => index[lang].map((e) => ({ lang, ...e }))).find((e) => e.demos.length);
if (firstWithDemo) test.describe(() => {
  test.describe.configure({ mode: 'serial' });  // one page, test after test
  const file = `${firstWithDemo.lang}/${firstWithDemo.id}.html`;
  let url, context, page;
  test.beforeAll(async () => {
    url = `${origin}/${file}`;
    context = await newContext({ viewport: { width: 1000, height: 900 } });
    page = await context.newPage();
  });
  test.afterAll(async () => { if (context) await context.close(); });
  // The lesson's data and the result it carries, as the page reads them (its JSON tags).
  const data = pageData(file, 'lesson-data');
  const firstResult = pageData(file, 'first-result', site, { optional: true });
  test(`${firstWithDemo.lang}/${firstWithDemo.id} loads for the URL, export and keyboard tests`, async () => {
    await page.goto(url);
    await demosSettled(page);
    verify(JSON.stringify(await lessonData(page)) === JSON.stringify(data), 'the page reads other lesson data than its file holds');
  });
  const numeric = (d) => d.info.params.some((p) => p.type === 'int' || p.type === 'float');
  const demo = data.demos.find((d) => d.info.analytic && numeric(d)) || data.demos.find(numeric);

  if (demo) {
    const spec = demo.info.params.find((p) => p.type === 'int' || p.type === 'float');
    const current = { ...Object.fromEntries(demo.info.params.map((p) => [p.name, p.default])), ...demo.params }[spec.name];
    const value = current === spec.max ? spec.min : spec.max;
    test('a URL with parameters reproduces them', async () => {
      await page.goto(`${url}?${encodeURIComponent(`${demo.name}.${spec.name}`)}=${value}`);
      await demosSettled(page);
      const shown = await page.locator(`#p-${demo.name}-${spec.name}`).inputValue();
      verify(Number(shown) === value, `slider ${spec.name} shows ${shown}, the URL said ${value}`);
      // The same link in a new page draws the same thing.
      const first = await panelsHtml(page, demo.name);
      const other = await context.newPage();
      await other.goto(page.url());
      await demosSettled(other);
      const second = await panelsHtml(other, demo.name);
      verify(first.replace(/(clip|grad)-[a-z0-9]+/g, '') === second.replace(/(clip|grad)-[a-z0-9]+/g, ''), 'the same link drew differently twice');
      await other.close();
      verify(await page.locator('.notice').count() === 0, 'a valid link raised a notice');
      expectNoErrors(context, 'console');
    });

    // A link that sets the first demo up never shows the lesson's own result, not even
    // for a moment: the page's carried result is for the lesson's setup only.
    const carried = firstResult ? firstResult.name : null;
    const carriedDemo = data.demos.find((d) => d.name === carried);
    const carriedSpec = carriedDemo && carriedDemo.info.params.find((p) => p.type === 'int' || p.type === 'float');
    if (carriedSpec) {
      test('a URL that sets up the first demo is not shown the result the page carries', async () => {
        const now = { ...Object.fromEntries(carriedDemo.info.params.map((p) => [p.name, p.default])), ...carriedDemo.params }[carriedSpec.name];
        const other = now === carriedSpec.max ? carriedSpec.min : carriedSpec.max;
        await page.goto(`${url}?${encodeURIComponent(`${carried}.${carriedSpec.name}`)}=${other}`);
        await demosSettled(page);
        const s = page.locator(`section.demo[data-instance="${carried}"]`);
        verify(await s.getAttribute('data-precomputed') === null, `${carried}: the lesson's result was drawn for a link that sets ${carriedSpec.name}=${other}`);
        // an analytic demo draws the link's setup; one that waits for Run draws nothing before Run
        if (carriedDemo.info.analytic) verify(Number(await s.getAttribute('data-draws')) >= 1, `${carried}: nothing drawn for the link`);
        else verify(await s.locator('.panels').evaluate((e) => e.childElementCount) === 0, `${carried}: drew before Run`);
        expectNoErrors(context, 'console');
      });
    }

    test('changing a parameter writes it into the URL; reset clears it', async () => {
      await page.goto(url);
      await demosSettled(page);
      const moved = await moveSlider(page, demo.name, 0);
      // (written once the core has taken the value: a moment after the slider moves)
      await page.waitForFunction((key) => new URL(window.location.href).searchParams.get(key) !== null, `${demo.name}.${moved.name}`)
        .catch(() => {});
      const query = new URL(page.url()).searchParams;
      verify(query.get(`${demo.name}.${moved.name}`) !== null, `URL ${page.url()} lacks ${demo.name}.${moved.name}`);
      await page.locator(`section.demo[data-instance="${demo.name}"] button.reset`).click();
      await page.waitForFunction(() => !window.location.search);
      expectNoErrors(context, 'console');
    });

    test('garbage URL parameters give a readable notice, and the page still works', async () => {
      await page.goto(`${url}?${encodeURIComponent(`${demo.name}.${spec.name}`)}=banana&no_such_demo.x=1&%3Cscript%3E=%3Cb%3E`);
      await demosSettled(page);
      const notices = await page.locator('.notice').allInnerTexts();
      verify(notices.some((n) => n.includes(spec.name) && /number|숫자/.test(n)), `no notice names '${spec.name}': ${JSON.stringify(notices)}`);
      verify(notices.some((n) => n.includes('no_such_demo')), `no notice names the unknown demo: ${JSON.stringify(notices)}`);
      verify(await page.locator('.notice b').count() === 0, 'URL text was inserted as HTML');
      verify(await page.locator(`section.demo[data-instance="${demo.name}"]`).getAttribute('data-state') === 'done', 'the demo did not run with the lesson setup');
      expectNoErrors(context, 'console');
    });

    test('URL parameters named constructor, __proto__ or toString give a notice, not a TypeError', async () => {
      await page.goto(`${url}?constructor.x=1&__proto__.y=2&toString.z=3&hasOwnProperty.w=4`);
      await demosSettled(page);
      const notices = await page.locator('.notice').allInnerTexts();
      verify(notices.some((n) => n.includes('constructor.x') && n.includes('__proto__.y') && n.includes('toString.z')),
        `no notice names the unknown parameters: ${JSON.stringify(notices)}`);
      verify(await page.locator(`section.demo[data-instance="${demo.name}"]`).getAttribute('data-state') === 'done', 'the demo did not run');
      expectNoErrors(context, 'console');
    });

    test('exports: CSV, JSON and PNG of a demo', async () => {
      await page.goto(url);
      await demosSettled(page);
      await showHeld(page);
      const section = page.locator(`section.demo[data-instance="${demo.name}"]`);
      const grab = async (locator) => {
        const [download] = await Promise.all([page.waitForEvent('download'), locator.click()]);
        return fs.readFileSync(await download.path());
      };
      const csv = (await grab(section.locator('.demo-export button', { hasText: 'CSV' }))).toString();
      verify(csv.startsWith('# ') && csv.split('\n').length > 3, `CSV looks empty: ${csv.slice(0, 80)}`);
      const json = JSON.parse((await grab(section.locator('.demo-export button', { hasText: 'JSON' }))).toString());
      verify(json.result && json.result.done && json.params, 'JSON export lacks result or params');
      const png = section.locator('button.png').first();
      if (await png.count()) {
        const bytes = await grab(png);
        verify(bytes.subarray(1, 4).toString() === 'PNG' && bytes.length > 2000, `PNG export is ${bytes.length} bytes`);
      }
      expectNoErrors(context, 'console');
    });

    test('keyboard: a labelled slider moved with the arrow keys reruns the demo', async () => {
      await page.goto(url);
      await demosSettled(page);
      const unlabelled = await page.evaluate(() => [...document.querySelectorAll('section.demo input, section.demo select, section.check input')]
        .filter((i) => !(i.labels && i.labels.length) && !i.getAttribute('aria-label')).map((i) => i.id || i.name));
      verify(unlabelled.length === 0, `controls without a label: ${unlabelled.join(', ')}`);
      const section = page.locator(`section.demo[data-instance="${demo.name}"]`);
      const draws = Number(await section.getAttribute('data-draws'));
      const slider = page.locator(`#p-${demo.name}-${spec.name}`);
      await slider.focus();
      await page.keyboard.press(value === spec.max ? 'ArrowRight' : 'ArrowLeft');
      await page.keyboard.press(value === spec.max ? 'ArrowRight' : 'ArrowLeft');
      await page.waitForFunction(([n, d]) => Number(document.querySelector(`section.demo[data-instance="${n}"]`).dataset.draws) > d, [demo.name, draws]);
      expectNoErrors(context, 'console');
    });
  }

  test('hover shows values on plots', async () => {
    await page.goto(url);
    await demosSettled(page);
    await showHeld(page);
    // the folded results too (opened, they stay open for the session)
    await page.evaluate(() => document.querySelectorAll('details.more-results').forEach((d) => { d.open = true; }));
    const svgs = page.locator('section.demo .panel-lines svg, section.demo .panel-heatmap svg, section.demo .panel-bars svg');
    const n = await svgs.count();
    for (let k = 0; k < n; k++) {
      const svg = svgs.nth(k);
      await svg.scrollIntoViewIfNeeded();
      const box = await svg.boundingBox();
      await page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.45);
      const readout = svg.locator('xpath=..').locator('.readout');
      await readout.waitFor({ state: 'visible', timeout: 2000 });
      const text = await readout.innerText();
      verify(/\d/.test(text), `plot ${k}: hover read-out has no number: ${text}`);
    }
    expectNoErrors(context, 'console');
  });

  test('corrupt stored progress is reset with a notice, never a broken page', async () => {
    for (const bad of ['{not json', '{"version":1,"checks":{"a/b":{"correct":"yes"}}}', '[]', 'null']) {
      await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), bad);
      await page.goto(`${origin}/index.html`);
      await page.waitForFunction(() => document.body.dataset.ready === 'true');
      const notices = await page.locator('.notice').allInnerTexts();
      verify(notices.some((t) => /reset/.test(t)), `stored ${bad}: no notice (${JSON.stringify(notices)})`);
      verify(await page.locator('.lesson-card').count() === index.en.length + index.ko.filter((l) => !index.en.some((e) => e.id === l.id)).length, 'index lists the wrong number of lessons');
      verify(await page.evaluate(() => localStorage.getItem('icl-lab.progress')) === null, `stored ${bad} was not cleared`);
    }
    await page.goto(url);
    await demosSettled(page);
    expectNoErrors(context, 'console');
  });
});

test('the index shows every lesson in both languages with the progress made above', async () => {
  const context = await newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  // Progress from answering: answer the first check of the first lesson that has one.
  const withCheck = index.en.find((l) => l.checks.length);
  if (withCheck) {
    await page.goto(`${origin}/en/${withCheck.id}.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const data = await lessonData(page);
    const check = data.checks[0];
    await answer(page, check, (await answersFor(check, lessonDemoParams(data), 'en')).right);
  }
  await page.goto(`${origin}/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  for (const lang of langs) {
    for (const l of index[lang]) {
      verify(await page.locator(`.lesson-card a[href="${lang}/${l.id}.html"]`).count() === 1, `index has no link to ${lang}/${l.id}`);
      // the course map lists it too, with its minutes of reading (the core's count)
      verify(await page.locator(`.course-map a[href="${lang}/${l.id}.html"]`).count() === 1, `the course map has no link to ${lang}/${l.id}`);
    }
  }
  if (withCheck) {
    const correct = await page.locator(`.lesson-card[data-lesson="${withCheck.id}"]`).getAttribute('data-correct');
    verify(correct === '1', `index shows ${correct} correct for ${withCheck.id}, expected 1`);
  }
  await page.setViewportSize({ width: 375, height: 740 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  verify(width <= 376, `index is ${width} px wide at 375 px`);
  await screenshot(page, 'index-phone');
  expectNoErrors(context, 'console');
  await context.close();
});

test('the language switch keeps the place and the parameters', async () => {
  const both = index.en.find((l) => index.ko.some((k) => k.id === l.id) && l.demos.length);
  if (!both) return;
  const context = await newContext({ viewport: { width: 1000, height: 700 } });
  const page = await context.newPage();
  await page.goto(`${origin}/en/${both.id}.html`);
  await demosSettled(page);
  const data = await lessonData(page);
  await moveSlider(page, data.demos[0].name, 0);
  const search = new URL(page.url()).search;
  await page.locator(`section.demo[data-instance="${data.demos[0].name}"]`).evaluate((e) => e.scrollIntoView({ block: 'start', behavior: 'instant' }));
  await page.waitForTimeout(100);
  await page.locator('a.lang-switch[hreflang="ko"]').click();
  await page.waitForURL(/\/ko\//);
  const target = new URL(page.url());
  verify(target.search === search, `the switch dropped the parameters: ${target.search} vs ${search}`);
  verify(target.hash === `#demo-${data.demos[0].name}`, `the switch went to '${target.hash}', not the demo in view`);
  await demosSettled(page);
  expectNoErrors(context, 'console');
  await context.close();
});

test('every panel kind draws from a fixture Result: axes, legend, log ticks, colour scales, error bars, text as text', async () => {
  const context = await newContext({ viewport: { width: 900, height: 900 } });
  const page = await context.newPage();
  const fixture = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'browser', 'fixtures', 'all-panels.json'), 'utf8'));
  // The large heatmap's values: a signed ramp, so the diverging scale spans both sides.
  const big = fixture.panels.find((p) => p.title === 'Large diverging');
  big.values = Array.from({ length: big.rows * big.cols }, (_, k) => (k % 64) - 31.5);
  await page.goto(`${origin}/index.html`);
  const report = await page.evaluate(async (result) => {
    const { drawPanel } = await import('/assets/plots/panels.js');
    const host = document.createElement('div');
    document.body.appendChild(host);
    const figures = result.panels.map((p) => drawPanel(p, host, 700));
    const texts = (f) => [...f.querySelectorAll('svg text')].map((t) => t.textContent);
    return {
      kinds: figures.map((f) => f.dataset.kind),
      scalars: [...figures[0].querySelectorAll('.scalar-number')].map((e) => e.textContent),
      logLegend: texts(figures[1]).filter((t) => t.startsWith('solid') || t.startsWith('dashed')),
      logTicks: texts(figures[1]),
      dashed: figures[1].querySelectorAll('path.series[stroke-dasharray]').length,
      bands: figures[1].querySelectorAll('polygon').length,
      linearTicks: texts(figures[2]),
      seqCells: figures[3].querySelectorAll('rect[fill^="rgb"]').length,
      missingCells: figures[3].querySelectorAll('rect[fill="#8c8c8c"]').length,
      bigImage: figures[4].querySelectorAll('image').length,
      gradientStops: figures[4].querySelectorAll('stop').length,
      bars: figures[5].querySelectorAll('rect.bar').length,
      errorLines: figures[5].querySelectorAll('line[stroke-width="1.5"]').length,
      tableHeader: figures[6].querySelector('th:nth-child(2)').innerHTML,
      noteHtml: figures[7].querySelector('.note-text').innerHTML,
      unknown: figures[8].textContent,
      injected: host.querySelectorAll('b, i, script').length,
      // Long bar labels (demo_labels' conditions, en and ko) at a wide and a narrow width:
      // each text drawn inside its figure, none cut off at an edge.
      cutLabels: [[700, 'en'], [360, 'en'], [700, 'ko'], [360, 'ko']].flatMap(([w, lang]) => {
        const labels = lang === 'en'
          ? ['gold labels', 'random labels (in the label space)', 'no demonstrations', 'inputs from another distribution', 'labels outside the label space', 'no format (x y x y …)']
          : ['정답 label', '무작위 label (label 공간 안)', 'demonstration 없음', '다른 분포의 입력', 'label 공간 밖의 label', '형식 없음 (x y x y …)'];
        const f = drawPanel({ kind: 'bars', title: 'conditions', y_label: 'accuracy', labels, values: [1, 0.25, 1, 0, 0, 0.25], errors: [] }, host, w);
        const box = f.querySelector('svg').getBoundingClientRect();
        return [...f.querySelectorAll('svg text')].map((t) => ({ t: t.textContent, r: t.getBoundingClientRect() }))
          .filter(({ r }) => r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
          .map(({ t }) => `${w}px ${lang}: ${t}`);
      }),
      // An axis of counts (every x and y a whole number): whole-number ticks only.
      countTicks: texts(drawPanel({ kind: 'lines', title: 'counts', x_label: 'shots', y_label: 'errors',
        series: [{ name: 'a', x: [0, 1, 2, 3], y: [0, 1, 3, 2] }] }, host, 700)).filter((t) => /^-?[\d.]+$/.test(t)),
    };
  }, fixture);
  verify(report.cutLabels.length === 0, `bar labels cut off at the figure's edge: ${report.cutLabels.join('; ')}`);
  verify(report.countTicks.length >= 4 && report.countTicks.every((t) => Number.isInteger(Number(t))), `ticks of a count axis: ${report.countTicks}`);
  verify(report.kinds.join(',') === 'scalars,lines,lines,heatmap,heatmap,bars,table,note,sparkles', `kinds ${report.kinds}`);
  verify(report.scalars[0] === '1.50e-7' && report.scalars[1] === '—', `scalars shown as ${report.scalars}`);
  verify(report.logLegend.length === 2, `legend entries: ${report.logLegend}`);
  verify(['1e-3', '0.01', '0.1', '1'].every((t) => report.logTicks.includes(t)) && ['10', '100'].every((t) => report.logTicks.includes(t)),
    `log ticks: ${report.logTicks}`);
  verify(report.dashed >= 1 && report.bands === 1, `dashed ${report.dashed}, error bands ${report.bands}`);
  for (const t of ['0.25', '0.50', '0.75']) verify(report.linearTicks.includes(t), `linear ticks lack ${t}: ${report.linearTicks}`);
  verify(report.seqCells === 5 && report.missingCells === 1, `sequential heatmap: ${report.seqCells} coloured cells, ${report.missingCells} missing (want 5 and 1)`);
  verify(report.bigImage === 1 && report.gradientStops === 9, `large heatmap: ${report.bigImage} image(s), ${report.gradientStops} scale stops`);
  verify(report.bars === 3 && report.errorLines === 9, `bars ${report.bars}, error-bar lines ${report.errorLines}`);
  verify(report.tableHeader === '&lt;i&gt;params&lt;/i&gt;' && report.noteHtml.includes('&lt;script&gt;'), 'core text was inserted as HTML');
  verify(report.unknown.includes('sparkles'), 'an unknown panel kind is not named');
  verify(report.injected === 0, 'markup from a Result reached the DOM');
  expectNoErrors(context, 'console');
  await context.close();
});

// ---- a text parameter: the learner types a prompt ---------------------------------------
// The first page with prompt_lab: typing a prompt redraws the distribution; an unknown
// word is named inline; markup typed in stays text; the shared URL draws the same.
const withPromptLab = langs.flatMap((lang) => index[lang].map((e) => ({ lang, ...e })))
  .find((e) => e.lang === 'en' && e.demos.some((d) => (d.demo || d) === 'prompt_lab'));
if (withPromptLab) test.describe(() => {
  let context, page;
  test.beforeAll(async () => {
    context = await newContext({ viewport: { width: 1000, height: 900 } });
    page = await context.newPage();
  });
  test.afterAll(async () => { if (context) await context.close(); });
  const typeInto = async (input, text) => {
    const section = input.locator('xpath=ancestor::section[contains(@class, "demo")]');
    const draws = Number(await section.getAttribute('data-draws') || 0);
    await input.fill(text);
    await input.press('Enter');
    return { section, draws };
  };
  test('prompt_lab: a typed prompt redraws the distribution; an unknown word is named inline; the link reproduces it', async () => {
    await page.goto(`${origin}/en/${withPromptLab.id}.html`);
    await demosSettled(page);
    const section = page.locator('section.demo[data-instance="prompt_lab"]');
    const input = section.locator('input.control-text[name=prompt]');
    const t0 = Date.now();
    const { draws } = await typeInto(input, 'dog -> Paris ; cat -> Tokyo ; dog ->');
    await page.waitForFunction(([n]) => {
      const s = document.querySelector('section.demo[data-instance="prompt_lab"]');
      return Number(s.dataset.draws) > n && s.dataset.state === 'done';
    }, [draws], { timeout: DEMO_TIMEOUT_MS });
    const redrawMs = Date.now() - t0;
    const bars = await section.locator('figure[data-kind=bars]').first().innerText();
    verify(/Paris/.test(bars), `the distribution after typing does not show Paris: ${bars.slice(0, 200)}`);
    const link = page.url();
    verify(new URL(link).searchParams.get('prompt_lab.prompt') === 'dog -> Paris ; cat -> Tokyo ; dog ->', `the URL lacks the prompt: ${link}`);
    // an unknown word: the core's message under the field, the old drawing kept
    await typeInto(input, 'hot -> frigid ; fast ->');
    const error = section.locator('#p-prompt_lab-prompt-error');
    await error.waitFor({ state: 'visible', timeout: DEMO_TIMEOUT_MS });
    const message = await error.innerText();
    verify(/'frigid' \(word 3\) is not in the vocabulary; nearest: /.test(message), `inline error: ${message}`);
    // markup stays text
    await typeInto(input, '<img src=x onerror="window.pwned=1"> ->');
    await page.waitForFunction(() => /not in the vocabulary/.test(document.getElementById('p-prompt_lab-prompt-error').textContent));
    verify(await error.locator('img').count() === 0 && !(await page.evaluate(() => window.pwned)), 'typed markup was rendered');
    // a refused value never reaches the address (a reload would then be refused too): the
    // URL keeps the last prompt the core took, through a 19,500-character one as well
    await typeInto(input, 'hot '.repeat(4875));
    await page.waitForFunction(() => /characters long/.test(document.getElementById('p-prompt_lab-prompt-error').textContent));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    const kept = page.url();
    verify(kept.length <= 8192 && new URL(kept).searchParams.get('prompt_lab.prompt') === 'dog -> Paris ; cat -> Tokyo ; dog ->',
      `the URL took a refused prompt (${kept.length} characters): ${kept.slice(0, 200)}`);
    // completion: a chip for the word being typed replaces it
    await input.fill('big -> small ; ho');
    await input.dispatchEvent('input');
    await section.locator('.control-suggest .chip', { hasText: /^hot$/ }).click();
    verify((await input.inputValue()).trim() === 'big -> small ; hot', `completion gave '${await input.inputValue()}'`);
    // the shared link: a new page draws the same result
    await typeInto(input, 'dog -> Paris ; cat -> Tokyo ; dog ->');
    await page.waitForFunction(() => document.querySelector('section.demo[data-instance="prompt_lab"]').dataset.state === 'done'
      && !document.getElementById('p-prompt_lab-prompt-error').textContent
      && /Paris/.test(document.querySelector('section.demo[data-instance="prompt_lab"] .panels').textContent));
    const mine = await section.locator('.panels').evaluate((e) => e.innerHTML);
    const other = await context.newPage();
    await other.goto(page.url());
    await demosSettled(other);
    const theirs = await other.locator('section.demo[data-instance="prompt_lab"] .panels').evaluate((e) => e.innerHTML);
    const strip = (h) => h.replace(/(clip|grad)-[a-z0-9]+/g, '');
    verify(strip(mine) === strip(theirs), 'the shared link drew a different result');
    verify(await other.locator('section.demo[data-instance="prompt_lab"] input.control-text[name=prompt]').inputValue() === 'dog -> Paris ; cat -> Tokyo ; dog ->', 'the shared link did not fill the prompt');
    await other.close();
    console.log(`     prompt_lab redraw after typing: ${redrawMs} ms (debounce and Enter included)`);
    expectNoErrors(context, 'console');
  });
});

test('the wasm API answers bad input with readable errors, never a crash', async () => {
  const core = await require(path.join(site, 'assets', 'icl_core.js'))({ wasmBinary: fs.readFileSync(path.join(site, 'assets', 'icl_core.wasm')) });
  const call = (fn, ...a) => JSON.parse(core[fn](...a));
  // Without its English catalogue a demo does not start, and says which file it lacks;
  // with it (the worker fetches and puts it first), a language without a folder is named.
  verify(/cannot read lessons\/en\/catalogue\/common\.json/.test(call('start', 'dual_form', '{}', 'en', 1).error), 'no catalogue: not named');
  for (const name of ['en/catalogue/common.json', 'en/catalogue/dual_form.json', 'ko/catalogue/common.json'])
    call('put_asset', name, new Uint8Array(fs.readFileSync(path.join(site, 'lessons', name))));
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
  const core = await require(path.join(site, 'assets', 'icl_core.js'))({ wasmBinary: fs.readFileSync(path.join(site, 'assets', 'icl_core.wasm')) });
  for (const name of ['en/catalogue/common.json', `en/catalogue/${demo}.json`])
    core.put_asset(name, new Uint8Array(fs.readFileSync(path.join(site, 'lessons', name))));
  const { handle } = JSON.parse(core.start(demo, JSON.stringify(shown.params), 'en', 1));
  let alone = {};
  while (!alone.done) alone = JSON.parse(core.step(handle, 1000, false));
  return { shown, alone };
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
// ---- a points parameter: drag a point and the curves move; add, remove, type ----------------
const withPoints = langs.flatMap((lang) => index[lang].map((e) => ({ lang, ...e }))).find((e) => e.demos.includes('regression_lab'));
if (withPoints) {
  test(`${withPoints.lang}/${withPoints.id}: the point editor — drag moves the curves, click adds, Delete removes, a bad point is named`, async () => {
    const context = await newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/${withPoints.lang}/${withPoints.id}.html`);
    await demosSettled(page);
    const section = page.locator('section.demo:has(svg.point-plot)').first();
    const name = await section.getAttribute('data-instance');
    const plot = section.locator('svg.point-plot');
    const drawsNow = async () => Number(await section.getAttribute('data-draws'));
    const settledAfter = (d) => page.waitForFunction(([n, k]) => {
      const s = document.querySelector(`section.demo[data-instance="${n}"]`);
      return Number(s.dataset.draws) > k && ['done', 'error'].includes(s.dataset.state);
    }, [name, d], { timeout: DEMO_TIMEOUT_MS });
    // Drag the third point 50 px up: the drawing changes and the URL carries the points.
    const before = await panelsHtml(page, name);
    const count0 = Number(await plot.getAttribute('data-count'));
    await plot.scrollIntoViewIfNeeded();
    const box = await section.locator('circle.point').nth(2).boundingBox();
    let d = await drawsNow();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 50, { steps: 6 });
    await page.mouse.up();
    await settledAfter(d);
    const after = await panelsHtml(page, name);
    verify(after !== before, 'dragging a point left the curves unchanged');
    const lsa = (html) => (html.match(/<path[^>]*class="series"[^>]*>/g) || []).join();
    verify(lsa(after) !== lsa(before), 'dragging a point moved no curve');
    const query = new URL(page.url()).searchParams.get(`${name}.points`);
    verify(query && query.split(';').length === count0, `URL points after the drag: ${query}`);
    verify(Number(await plot.getAttribute('data-count')) === count0, 'the drag changed the number of points');
    // A click on empty space adds a point; Delete on a focused point removes it.
    const pb = await plot.boundingBox();
    d = await drawsNow();
    await page.mouse.click(pb.x + pb.width * 0.9, pb.y + pb.height * 0.85);
    await settledAfter(d);
    verify(Number(await plot.getAttribute('data-count')) === count0 + 1, 'a click did not add a point');
    d = await drawsNow();
    await section.locator('circle.point').first().focus();
    await page.keyboard.press('Delete');
    await settledAfter(d);
    verify(Number(await plot.getAttribute('data-count')) === count0, 'Delete did not remove the point');
    // Typed points: a bad one is named with its bound, a good list redraws the plot.
    const field = section.locator('input.point-text');
    d = await drawsNow();
    await field.fill('0,1; 0.5,9');
    await field.press('Enter');
    await section.locator('.demo-error').waitFor({ state: 'visible', timeout: DEMO_TIMEOUT_MS });
    const message = await section.locator('.demo-error').innerText();
    verify(message.includes('point 2') && message.includes('[-4, 4]'), `the error does not name the point and its bound: ${message}`);
    await field.fill('-1,-1; 1,1');
    await field.press('Enter');
    await page.waitForFunction((n) => document.querySelector(`section.demo[data-instance="${n}"] svg.point-plot`).dataset.count === '2', name);
    await settledAfter(d);
    verify(await section.locator('.demo-error').isHidden(), 'the error stayed after a good list');
    expectNoErrors(context, 'console');
    await context.close();
  });
}

embedChecks({ test, verify, newContext, expectNoErrors, demosSettled, moveSlider, panelsHtml, bytesSent,
  origin: () => origin, index, langs, screenshot, budgetBytes: BUDGET.firstLoadBytes, timeoutMs: DEMO_TIMEOUT_MS });

test('no request left 127.0.0.1', async () => {
  verify(foreignRequests.length === 0, `requests to other hosts: ${[...new Set(foreignRequests)].join(', ')}`);
});

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : null; };
test(`budgets: first load ≤ ${BUDGET.firstLoadBytes / 1e6} MB, first result ≤ ${BUDGET.firstResultMs / 1000} s, analytic redraw ≤ ${BUDGET.redrawMs} ms`, async () => {
  const redraw = median(budgets.redrawMs);
  console.log(`budget first_load_bytes=${budgets.firstLoadBytes} first_result_ms=${budgets.firstResultMs} redraw_ms=${redraw === null ? 'n/a' : redraw.toFixed(1)}`
    + ` (limits ${BUDGET.firstLoadBytes} / ${BUDGET.firstResultMs} / ${BUDGET.redrawMs}; redraw is the median of ${budgets.redrawMs.length})`);
  verify(budgets.firstLoadBytes !== null, 'no lesson page with a demo was measured');
  verify(budgets.firstLoadBytes <= BUDGET.firstLoadBytes, `first load ${budgets.firstLoadBytes} bytes`);
  verify(budgets.firstResultMs <= BUDGET.firstResultMs, `first result after ${budgets.firstResultMs} ms`);
  verify(redraw === null || redraw <= BUDGET.redrawMs, `redraw ${redraw} ms`);
});

