// Browser test: a lesson page does not give a predict check's answer away. For every
// lesson page and every predict check with hide=result (docs/authoring.md), in headless
// Chromium:
//   - once the page is ready (its analytic demos computed), the check's demo shows its
//     note "Answer the check below or press Run…" and no drawn part of its result: no
//     element of its panels (headline, scalars, charts, the panels beside its controls)
//     is rendered, and the text a reader can see above the check does not hold the
//     predicted scalar's value as the page would show it;
//   - on one page per language, Run (or answering every check on the demo) shows the
//     result with that value, and the answers, stored, keep it shown after a reload.
// Training demos are not trained here: Run shows their result area at once and is stopped.
//   ctest --test-dir build/wasm -R browser-predictions   (playwright project browser-predictions)
import { test, verify, site, siteIndex, pageData, serveSite } from './harness.mjs';

const index = siteIndex();
const READY_MS = 60000;

// In the page: for each hide=result predict check, what a reader sees of its demo and
// of the text above it.
function readAboveChecks() {
  const data = JSON.parse(document.getElementById('lesson-data').textContent);
  const seen = (e) => e.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  const main = document.querySelector('main');
  const out = [];
  for (const check of data.checks) {
    if (check.type !== 'predict' || !check.hides_result) continue;
    const demo = document.querySelector(`section.demo[data-instance="${CSS.escape(check.grading.demo)}"]`);
    const checkSection = document.querySelector(`section.check[data-check="${CSS.escape(check.id)}"]`);
    // The value as the page shows it: its scalars panel draws it whether or not it is shown.
    const scalar = demo.querySelector(`.scalar[data-name="${CSS.escape(check.grading.scalar)}"] .scalar-number`);
    const value = scalar ? scalar.textContent : null;
    // The visible text above the check: every text node before it whose element is rendered.
    let above = '';
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!(checkSection.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_PRECEDING)) break;
      if (n.parentElement && seen(n.parentElement)) above += `${n.textContent} `;
    }
    const resultParts = [...demo.querySelectorAll('.panels *, .control-beside *, .result-headline, .demo-export')];
    const note = demo.querySelector('.held-note');
    out.push({
      id: check.id, demo: check.grading.demo, scalar: check.grading.scalar, value, state: demo.dataset.state,
      drawnParts: resultParts.length, shownParts: resultParts.filter(seen).length,
      noteShown: Boolean(note && seen(note)), panelsShown: seen(demo.querySelector('.panels')),
      // A value of two digits or more, as a number of its own (not inside a longer one);
      // a bare "1" or "0" says nothing about where it came from.
      valueAbove: value !== null && /\d.*\d/.test(value)
        && new RegExp(`(^|[^\\d.])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\d])`).test(above),
    });
  }
  return out;
}

// Every analytic demo computed: those that read a file start near the view, so each
// section is brought into view in turn.
async function settle(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: READY_MS });
  const names = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent)
    .demos.filter((d) => d.info.analytic).map((d) => d.name));
  for (const name of names) {
    const s = page.locator(`section.demo[data-instance="${name}"]`);
    await s.scrollIntoViewIfNeeded();
    await page.waitForFunction((n) => ['done', 'error'].includes(document.querySelector(`section.demo[data-instance="${CSS.escape(n)}"]`).dataset.state),
      name, { timeout: READY_MS });
  }
}

let served, origin;
test.beforeAll(async () => {
  served = await serveSite(site);
  origin = served.origin;
});
test.afterAll(() => { if (served) served.server.kill(); });

// The demo of a page's first hide=result predict check on an analytic demo (from the
// page's lesson data), or null.
function heldAnalytic(data) {
  const analytic = new Set(data.demos.filter((d) => d.info.analytic).map((d) => d.name));
  const check = data.checks.find((c) => c.type === 'predict' && c.hides_result && analytic.has(c.grading.demo));
  return check ? check.grading.demo : null;
}

for (const lang of Object.keys(index)) {
  let deep = false;  // Run, answers and a reload: on the first page with a held analytic demo
  for (const entry of index[lang]) {
    const held = deep ? null : heldAnalytic(pageData(`${lang}/${entry.id}.html`, 'lesson-data'));
    // A page's tests work on one load of it, in turn.
    test.describe(() => {
      test.describe.configure({ mode: 'serial' });
      let context, page, report = [];
      const errors = [];
      test.beforeAll(async ({ browser }) => {
        context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
        page = await context.newPage();
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${origin}/${lang}/${entry.id}.html`);
      });
      test.afterAll(async () => { if (context) await context.close(); });
      test(`${lang}/${entry.id}: above each predict check with hide=result, nothing of its answer shows`, async () => {
        await settle(page);
        report = await page.evaluate(readAboveChecks);
        for (const r of report) {
          const at = `${r.id} (${r.demo}:${r.scalar})`;
          verify(r.noteShown, `${at}: the note in place of the result is not shown`);
          verify(r.shownParts === 0, `${at}: ${r.shownParts} of ${r.drawnParts} parts of the result are shown before the answer`);
          verify(!r.valueAbove, `${at}: its value ${r.value} can be read above the check`);
        }
        verify(errors.length === 0, `page errors: ${errors.join('; ')}`);
      });
      if (held) {
        deep = true;
        const demo = held;
        test(`${lang}/${entry.id}: answering every check on ${demo} shows its result; stored, it stays shown after a reload`, async () => {
          const checks = report.filter((r) => r.demo === demo);
          verify(checks.length && checks.every((r) => r.state === 'done' && r.value !== null), `${demo}: not computed, or no value (${JSON.stringify(checks)})`);
          const section = page.locator(`section.demo[data-instance="${demo}"]`);
          const shown = () => page.evaluate(readAboveChecks).then((rs) => rs.find((r) => r.demo === demo));
          for (const [k, r] of checks.entries()) {
            const form = page.locator(`section.check[data-check="${r.id}"]`);
            await form.locator('input[type=radio]').first().check();
            await form.locator('button[type=submit]').click();
            await page.waitForFunction((id) => document.querySelector(`section.check[data-check="${CSS.escape(id)}"]`).dataset.answered, r.id);
            const now = await shown();
            if (k < checks.length - 1) verify(now.shownParts === 0, `${demo}: shown after ${r.id} while another check on it waits`);
            else verify(now.shownParts > 0 && !now.noteShown, `${demo}: still held after every check on it was answered`);
          }
          const values = await section.locator('.panels').innerText();
          verify(checks.every((r) => values.includes(r.value)), `${demo}: the values ${checks.map((r) => r.value)} are not shown`);
          await page.reload();
          await settle(page);
          const again = await shown();
          verify(again.shownParts > 0 && !again.noteShown, `${demo}: held again after a reload though its checks were answered`);
        });
      }
    });
  }

  // Run shows the result of a held demo: the first held analytic one, in a fresh context
  // (no stored answers), and the first held training demo (stopped at once).
  const withHeld = index[lang].map((e) => e.id);
  test(`${lang}: Run shows a held demo's result, analytic or training`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    let analyticDone = false, trainingDone = false;
    for (const id of withHeld) {
      if (analyticDone && trainingDone) break;
      await page.goto(`${origin}/${lang}/${id}.html`);
      await settle(page);
      for (const r of await page.evaluate(readAboveChecks)) {
        const training = r.state === 'idle';
        if (training ? trainingDone : analyticDone) continue;
        const section = page.locator(`section.demo[data-instance="${r.demo}"]`);
        await section.locator('button.run').click();
        if (!training) await page.waitForFunction((n) => document.querySelector(`section.demo[data-instance="${CSS.escape(n)}"]`).dataset.state === 'done', r.demo);
        const after = (await page.evaluate(readAboveChecks)).find((x) => x.id === r.id);
        verify(!after.noteShown && after.panelsShown && (training || after.shownParts > 0), `${id}/${r.demo}: still held after Run`);
        if (training) {
          await section.locator('button.run').click();  // Stop
          trainingDone = true;
        } else {
          verify((await section.locator('.panels').innerText()).includes(after.value), `${id}/${r.demo}: ${after.value} not shown after Run`);
          analyticDone = true;
        }
      }
    }
    verify(analyticDone && trainingDone, `no held ${analyticDone ? 'training' : 'analytic'} demo found in ${lang}`);
    await context.close();
  });
}
