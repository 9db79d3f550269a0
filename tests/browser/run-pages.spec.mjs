// The `browser` suite (playwright project browser: run-pages, run-site and run-core):
//   ctest --test-dir build/wasm -R '^browser$'
// This file: every lesson in the site's index.json, both languages: the page loads with no
// console error, every demo runs to done and draws (training demos in English; in Korean
// they stand ready for Run), moving a slider changes the drawing, checks are graded right
// and wrong with feedback (Korean skips predict checks on training demos), progress
// survives a reload, a 375 px viewport does not scroll sideways, nothing is requested
// from another host; and the budgets, printed as
// "budget first_load_bytes=... first_result_ms=... redraw_ms=...".
// BROWSER_LESSONS=gpt3-in-context,... restricts the per-lesson tests to those lesson ids
// (for a targeted run); BROWSER_LANGS=en-XA,... to those languages (pseudo-locale.spec.mjs
// runs the per-lesson tests of its fixture language's page: BROWSER_LANGS=en-XA and
// -g 'en-XA/dual-form: '). (playwright -g <regex> runs only the tests whose names match.)
import { test, verify, expectNoErrors } from './harness.mjs';
import {
  servePages, screenshot, BUDGET, DEMO_TIMEOUT_MS, TRAINING_TIMEOUT_MS, origin, noForeignRequests, newContext, demosSettled, runAllDemos, index, langs, lessonData, lessonDemoParams, startNativeRuns, answersFor, answer, panelsHtml, countRuns, moveSlider, budgets, bytesSent,
} from './run-shared.mjs';

servePages();

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


noForeignRequests();

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

