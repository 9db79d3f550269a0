// Browser test of the lesson page against hostile text, in headless Chromium:
//   ctest --test-dir build/wasm -R browser-hostile   (playwright project browser-hostile;
//   add -g <regex> to the playwright command to run some tests only)
// Builds a site from tests/browser/fixtures/hostile/ (a lesson whose title, text,
// prompts, options and feedback hold <script>, onerror= and javascript: links, and a
// training demo that diverges) through the real pipeline: `icl lessons build`, then
// web/build-site.mjs. Then: no script from the lesson runs and its markup shows as
// text; a learner's answer holding HTML is kept as text, also after a reload; the
// page's Content Security Policy refuses an inline script and a script from another
// host; the diverging demo stops with "training diverged at step N" on the page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, verify, root, icl, wasmDir as wasm, serveSite } from './harness.mjs';

test.describe.configure({ mode: 'serial' });  // one page, and what earlier tests stored
let browser, work, served, origin, context, page;
const dialogs = [], pageErrors = [];
test.beforeAll(async ({ browser: b }) => {
  browser = b;
  // ---- the site, built from the hostile lesson sources -----------------------------------
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-hostile-'));
  const json = path.join(work, 'lessons-json'), site = path.join(work, 'site');
  execFileSync(icl, ['lessons', 'build', '--dir', path.join(root, 'tests/browser/fixtures/hostile'), '--out', json], { stdio: 'ignore' });
  execFileSync(process.execPath, [path.join(root, 'web/build-site.mjs'), '--out', site, '--wasm', wasm, '--lessons', json], { stdio: 'ignore' });

  served = await serveSite(site);
  origin = served.origin;
  context = await browser.newContext();
  page = await context.newPage();
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Every CSP refusal, recorded by the page itself from the start.
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
  });
});
test.afterAll(async () => {
  if (context) await context.close();
  if (served) served.server.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Markup that would run script if it had become HTML rather than text.
const LIVE = 'script, [onerror], [onmouseover], [onload], img[src="x"]';
const xss = () => page.evaluate(() => window.__xss);

for (const lang of ['en', 'ko']) {
  test(`${lang}: the lesson's <script>, onerror= and javascript: show as text and never run`, async () => {
    await page.goto(`${origin}/${lang}/hostile.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    await page.hover('section.check[data-check="choice"] .option-text');
    await page.waitForTimeout(200);
    verify(await xss() === undefined, `a lesson script ran: window.__xss = ${await xss()}`);
    verify(dialogs.length === 0, `a dialog opened: ${dialogs.join(', ')}`);
    verify(await page.locator(`main :is(${LIVE})`).count() === 0, 'live markup from the lesson is in the page');
    const text = await page.locator('main').innerText();
    for (const shown of ["<script>window.__xss = 'inline script'</script>", '<img src="x" onerror=', "<script>window.__xss = 'prompt'</script>",
      '<b onmouseover=']) {
      verify(text.includes(shown), `the page does not show ${shown} as text`);
    }
    verify((await page.title()).includes('<script>alert("title")</script>'), `the title is not shown as text: ${await page.title()}`);
  });
}

test('every link on the lesson page is http(s), mailto, relative or an anchor (the lint refuses javascript: links)', async () => {
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const hrefs = await page.evaluate(() => [...document.querySelectorAll('main a[href], main [src]')].map((a) => a.getAttribute('href') ?? a.getAttribute('src')));
  const bad = hrefs.filter((h) => /^[a-z][a-z0-9+.-]*:/i.test(h) && !/^(https?|mailto):/i.test(h));
  verify(bad.length === 0, `links with other schemes: ${bad.join(', ')}`);
});

test('a learner answer holding HTML is graded and kept as text, also after a reload', async () => {
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const answer = `<img src=x onerror="window.__xss='answer'"><script>window.__xss='answer2'</script>`;
  const section = page.locator('section.check[data-check="word"]');
  await section.locator('input.answer-text').fill(answer);
  await section.locator('button[type=submit]').click();
  await page.waitForFunction(() => {
    const s = document.querySelector('section.check[data-check="word"]');
    return s.dataset.verdict && !s.dataset.grading;
  }, null, { timeout: 30000 });
  verify(await section.getAttribute('data-verdict') === 'wrong', `verdict ${await section.getAttribute('data-verdict')}`);
  verify((await section.locator('.feedback').innerText()).includes("<img src=x onerror=\"window.__xss='feedback'\">"),
    'the lesson feedback with markup is not shown as text');
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  verify(await section.locator('input.answer-text').inputValue() === answer, 'the saved answer did not come back as the same text');
  verify(await xss() === undefined, `the answer ran as script: ${await xss()}`);
  verify(await page.locator(`main :is(${LIVE})`).count() === 0, 'live markup from the answer is in the page');
});

test("the CSP refuses an inline script and a script from another host", async () => {
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  verify(/script-src 'self'/.test(csp) && !/unsafe-inline/.test(csp), `weak script-src: ${csp}`);
  await page.evaluate(() => {
    const inline = document.createElement('script');
    inline.textContent = 'window.__inline = 1';
    document.body.appendChild(inline);
    const remote = document.createElement('script');
    remote.src = 'https://example.com/x.js';
    document.body.appendChild(remote);
  });
  await page.waitForTimeout(300);
  verify(await page.evaluate(() => window.__inline) === undefined, 'an inline script ran');
  const v = await page.evaluate(() => window.__violations);
  verify(v.some((x) => x.directive === 'script-src-elem' && x.blocked === 'inline'), `no CSP refusal of the inline script: ${JSON.stringify(v)}`);
  verify(v.some((x) => x.blocked.startsWith('https://example.com')), `no CSP refusal of the other host: ${JSON.stringify(v)}`);
});

test('a diverging training run stops with the step and the reason on the page', async () => {
  const demo = page.locator('section.demo[data-instance="diverging"]');
  await demo.locator('button.run').click();  // a training demo waits for Run
  await page.waitForFunction(() => ['done', 'error', 'stopped'].includes(document.querySelector('section.demo[data-instance="diverging"]').dataset.state),
    null, { timeout: 60000 });
  const message = await demo.locator('.demo-error').innerText();
  verify(/training diverged at step \d+: loss = .*lr 0.05 is too large\?/.test(message), `no divergence message: '${message}'`);
  const drawn = await demo.locator('.panels').evaluate((e) => e.querySelectorAll('svg path, .scalar').length);
  verify(drawn > 0, 'the diverged demo drew nothing (the last good state should still show)');
  verify(await demo.getAttribute('data-state') === 'error', `state ${await demo.getAttribute('data-state')}`);
});

test('damaged stored progress: a notice, the readable answers kept, the damaged copy set aside', async () => {
  const stored = JSON.stringify({ version: 1, checks: { 'hostile/tf': { correct: true, answer: true }, 'hostile/num': { correct: 'yes' } } });
  await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), stored);
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const notices = await page.locator('.notice').allInnerTexts();
  verify(notices.some((t) => /reset/.test(t) && /set aside/.test(t)), `no notice: ${JSON.stringify(notices)}`);
  const kept = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  // Kept in the core's document (version 2, lesson -> check -> record): tf only.
  verify(kept.version === 2 && JSON.stringify(Object.keys(kept.checks.hostile)) === '["tf"]' &&
    kept.checks.hostile.tf.correct === true && kept.checks.hostile.tf.answer === true, `kept ${JSON.stringify(kept)}`);
  verify(await page.evaluate(() => localStorage.getItem('icl-lab.progress.corrupt')) === stored, 'the damaged copy was not set aside');
  verify(await page.locator('section.check[data-check="tf"]').getAttribute('data-answered') === 'correct', 'the kept answer is not shown');
  for (const truncated of [stored.slice(0, 40), '']) {
    await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), truncated);
    await page.goto(`${origin}/en/hostile.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    verify((await page.locator('.notice').allInnerTexts()).some((t) => /reset/.test(t)), `truncated '${truncated}': no notice`);
  }
  // Each damaged value set aside under a key of its own: none overwrote another.
  const aside = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('icl-lab.progress.corrupt'))
    .map((k) => localStorage.getItem(k)));
  for (const v of [stored, stored.slice(0, 40), '']) verify(aside.includes(v), `'${v}' is not among the set-aside copies: ${JSON.stringify(aside)}`);
});

test('a stored answer with an unknown option ("zzz") is dropped with a notice, and the check grades again', async () => {
  const stored = JSON.stringify({ version: 1, checks: { 'hostile/choice': { correct: false, answer: 'zzz', at: 5 } } });
  await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), stored);
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const notices = await page.locator('.notice').allInnerTexts();
  verify(notices.some((t) => t.includes('"hostile/choice"') && t.includes("'zzz' is not one of the options")), `no notice: ${JSON.stringify(notices)}`);
  const section = page.locator('section.check[data-check="choice"]');
  verify(await section.locator('input[value="zzz"]').count() === 0, 'an option "zzz" appeared');
  await section.locator('input[value="a"]').check();
  await section.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('section.check[data-check="choice"]').dataset.verdict, null, { timeout: 30000 });
  verify(await section.getAttribute('data-verdict') === 'correct', `verdict ${await section.getAttribute('data-verdict')}: ${await section.locator('.verdict').innerText()}`);
  const kept = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  verify(kept.checks.hostile.choice.answer === 'a' && kept.checks.hostile.choice.attempts === 2, `stored ${JSON.stringify(kept)}`);
});

// Answers `times` times, one after another, on the check `id` of `p`.
async function answerRepeatedly(p, id, times) {
  const section = p.locator(`section.check[data-check="${id}"]`);
  for (let i = 0; i < times; i++) {
    if (id === 'choice') await section.locator(`input[value="${i % 2 ? 'a' : 'b'}"]`).check();
    else await section.locator('input.answer-text').fill(id === 'num' ? String(i) : `w${i}`);
    await section.locator('button[type=submit]').click();
    await p.waitForFunction((c) => { const s = document.querySelector(`section.check[data-check="${c}"]`); return !s.dataset.grading && s.dataset.verdict; },
      id, { timeout: 30000 });
  }
}

test('three tabs answering at the same moment keep every answer (3 x 12)', async () => {
  // A context of their own: empty storage, no other page of this suite holding records.
  const tabContext = await browser.newContext();
  const tabs = [];
  for (let i = 0; i < 3; i++) {
    const tab = await tabContext.newPage();
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    await tab.goto(`${origin}/en/hostile.html`);
    await tab.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    tabs.push(tab);
  }
  const ids = ['word', 'choice', 'num'];
  await Promise.all(tabs.map((tab, i) => answerRepeatedly(tab, ids[i], 12)));
  // Each tab merges its own records back when another tab's write arrives; wait for quiet.
  let attempts = null;
  for (let t = 0; t < 50; t++) {
    const kept = JSON.parse(await tabs[0].evaluate(() => localStorage.getItem('icl-lab.progress')) || '{"checks": {}}');
    attempts = ids.map((id) => ((kept.checks.hostile || {})[id] || {}).attempts || 0);
    if (attempts.every((a) => a === 12)) break;
    await tabs[0].waitForTimeout(100);
  }
  await tabContext.close();
  verify(attempts.every((a) => a === 12), `attempts kept per tab: ${attempts.join(', ')} (want 12 each)`);
});

test('a 4,900-character text answer is refused where it is typed, with a message, and nothing is stored', async () => {
  await page.evaluate(() => localStorage.removeItem('icl-lab.progress'));
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const section = page.locator('section.check[data-check="word"]');
  await section.locator('input.answer-text').fill('x'.repeat(4900));
  await section.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('section.check[data-check="word"]').dataset.verdict, null, { timeout: 30000 });
  verify(await section.getAttribute('data-verdict') === 'error', `verdict ${await section.getAttribute('data-verdict')}`);
  const message = await section.locator('.verdict').innerText();
  verify(/too long to be saved: 4902 bytes, more than the 4096/.test(message), `message: '${message}'`);
  verify(await page.evaluate(() => localStorage.getItem('icl-lab.progress')) === null, 'the long answer was stored');
});

test('progress written in an added language ("lang": "fr") is read, not reset', async () => {
  const stored = JSON.stringify({ version: 2, lang: 'fr', last_lesson: 'hostile',
    checks: { hostile: { tf: { answer: true, correct: true, attempts: 1, at: 5, box: 1, due: 6 } } } });
  await page.evaluate((v) => { localStorage.clear(); localStorage.setItem('icl-lab.progress', v); }, stored);
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const notices = await page.locator('.notice').allInnerTexts();
  verify(!notices.some((t) => /reset/.test(t)), `a reset notice: ${JSON.stringify(notices)}`);
  verify(await page.locator('section.check[data-check="tf"]').getAttribute('data-answered') === 'correct', 'the answer is not shown');
  verify(await page.evaluate(() => Object.keys(localStorage).every((k) => !k.startsWith('icl-lab.progress.corrupt'))), 'set aside');
});

test('the index: "forget my progress" asks first, keeps a copy, and restores it; an import past the bounds is refused', async () => {
  const stored = JSON.stringify({ version: 2, checks: { hostile: { tf: { answer: true, correct: true, attempts: 3, at: 5, box: 2, due: 6 } } } });
  const index = await context.newPage();
  index.on('pageerror', (e) => pageErrors.push(e.message));
  let confirmAnswer = false;
  const asked = [];
  index.on('dialog', (d) => { asked.push(d.message()); return confirmAnswer ? d.accept() : d.dismiss(); });
  await index.goto(`${origin}/index.html`);
  await index.evaluate((v) => { localStorage.clear(); localStorage.setItem('icl-lab.progress', v); }, stored);
  await index.reload();
  await index.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  verify(await index.locator('#restore-progress').isHidden(), 'a restore button with nothing to restore');
  await index.click('#forget-progress');   // dismissed: nothing changes
  verify(asked.length === 1 && /A copy is kept/.test(asked[0]), `asked: ${JSON.stringify(asked)}`);
  verify(await index.evaluate(() => localStorage.getItem('icl-lab.progress')) === stored, 'forgotten without a yes');
  confirmAnswer = true;
  await index.click('#forget-progress');
  await index.waitForFunction(() => localStorage.getItem('icl-lab.progress') === null, null, { timeout: 10000 });
  verify(await index.evaluate(() => localStorage.getItem('icl-lab.progress.forgotten')) === stored, 'no copy kept');
  await index.locator('#restore-progress').waitFor({ state: 'visible', timeout: 10000 });
  await index.click('#restore-progress');
  await index.waitForFunction(() => localStorage.getItem('icl-lab.progress') !== null, null, { timeout: 10000 });
  const back = JSON.parse(await index.evaluate(() => localStorage.getItem('icl-lab.progress')));
  verify(back.checks.hostile.tf.attempts === 3 && back.checks.hostile.tf.correct === true, `restored ${JSON.stringify(back)}`);
  // 10,500 records under 1 MiB, whose merged form would be written past it: refused whole.
  const before = await index.evaluate(() => localStorage.getItem('icl-lab.progress'));
  const records = {};
  for (let i = 0; i < 10500; i++) records[`c${i}`] = { answer: 'a', correct: true, attempts: 1, at: 1764590400000, box: 1, due: 1764590400000 };
  const big = JSON.stringify({ version: 2, checks: { l: records } });
  verify(big.length < 1 << 20, `the import is ${big.length} bytes`);
  await index.setInputFiles('#import-progress', { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(big) });
  await index.waitForFunction(() => [...document.querySelectorAll('.notice')].some((n) => /Not imported/.test(n.textContent)), null, { timeout: 30000 });
  verify(await index.evaluate(() => localStorage.getItem('icl-lab.progress')) === before, 'the stored progress changed');
  await index.close();
});

test('no page error', async () => {
  verify(pageErrors.length === 0, pageErrors.join(' | '));
});
