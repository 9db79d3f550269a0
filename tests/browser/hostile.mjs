// Browser test of the lesson page against hostile text, in headless Chromium:
//   node tests/browser/hostile.mjs build/bin/icl build/wasm/bin
// Builds a site from tests/browser/fixtures/hostile/ (a lesson whose title, text,
// prompts, options and feedback hold <script>, onerror= and javascript: links, and a
// training demo that diverges) through the real pipeline: `icl lessons build`, then
// web/build-site.mjs. Then: no script from the lesson runs and its markup shows as
// text; a learner's answer holding HTML is kept as text, also after a reload; the
// page's Content Security Policy refuses an inline script and a script from another
// host; the diverging demo stops with "training diverged at step N" on the page.
// Ends with "hostile: N passed, M failed".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { root, serveSite, launchChromium } from './serve-and-launch.mjs';

const icl = path.resolve(process.argv[2] || 'build/bin/icl');
const wasm = path.resolve(process.argv[3] || 'build/wasm/bin');

let passed = 0, failed = 0;
async function test(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.message ? e.message.split('\n').slice(0, 6).join('\n     ') : e}`);
  }
}
function expect(cond, message) {
  if (!cond) throw new Error(message);
}

// ---- the site, built from the hostile lesson sources -----------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-hostile-'));
const json = path.join(work, 'lessons-json'), site = path.join(work, 'site');
execFileSync(icl, ['lessons', 'build', '--dir', path.join(root, 'tests/browser/fixtures/hostile'), '--out', json], { stdio: 'ignore' });
execFileSync(process.execPath, [path.join(root, 'web/build-site.mjs'), '--out', site, '--wasm', wasm, '--lessons', json], { stdio: 'ignore' });

const { server, origin } = await serveSite(site);
const browser = await launchChromium();
const context = await browser.newContext();
const page = await context.newPage();
const dialogs = [], pageErrors = [];
page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
page.on('pageerror', (e) => pageErrors.push(e.message));
// Every CSP refusal, recorded by the page itself from the start.
await page.addInitScript(() => {
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
});

// Markup that would run script if it had become HTML rather than text.
const LIVE = 'script, [onerror], [onmouseover], [onload], img[src="x"]';
const xss = () => page.evaluate(() => window.__xss);

for (const lang of ['en', 'ko']) {
  await test(`${lang}: the lesson's <script>, onerror= and javascript: show as text and never run`, async () => {
    await page.goto(`${origin}/${lang}/hostile.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    await page.hover('section.check[data-check="choice"] .option-text');
    await page.waitForTimeout(200);
    expect(await xss() === undefined, `a lesson script ran: window.__xss = ${await xss()}`);
    expect(dialogs.length === 0, `a dialog opened: ${dialogs.join(', ')}`);
    expect(await page.locator(`main :is(${LIVE})`).count() === 0, 'live markup from the lesson is in the page');
    const text = await page.locator('main').innerText();
    for (const shown of ["<script>window.__xss = 'inline script'</script>", '<img src="x" onerror=', "<script>window.__xss = 'prompt'</script>",
      '<b onmouseover=']) {
      expect(text.includes(shown), `the page does not show ${shown} as text`);
    }
    expect((await page.title()).includes('<script>alert("title")</script>'), `the title is not shown as text: ${await page.title()}`);
  });
}

await test('every link on the lesson page is http(s), mailto, relative or an anchor (the lint refuses javascript: links)', async () => {
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const hrefs = await page.evaluate(() => [...document.querySelectorAll('main a[href], main [src]')].map((a) => a.getAttribute('href') ?? a.getAttribute('src')));
  const bad = hrefs.filter((h) => /^[a-z][a-z0-9+.-]*:/i.test(h) && !/^(https?|mailto):/i.test(h));
  expect(bad.length === 0, `links with other schemes: ${bad.join(', ')}`);
});

await test('a learner answer holding HTML is graded and kept as text, also after a reload', async () => {
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
  expect(await section.getAttribute('data-verdict') === 'wrong', `verdict ${await section.getAttribute('data-verdict')}`);
  expect((await section.locator('.feedback').innerText()).includes("<img src=x onerror=\"window.__xss='feedback'\">"),
    'the lesson feedback with markup is not shown as text');
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  expect(await section.locator('input.answer-text').inputValue() === answer, 'the saved answer did not come back as the same text');
  expect(await xss() === undefined, `the answer ran as script: ${await xss()}`);
  expect(await page.locator(`main :is(${LIVE})`).count() === 0, 'live markup from the answer is in the page');
});

await test("the CSP refuses an inline script and a script from another host", async () => {
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(/script-src 'self'/.test(csp) && !/unsafe-inline/.test(csp), `weak script-src: ${csp}`);
  await page.evaluate(() => {
    const inline = document.createElement('script');
    inline.textContent = 'window.__inline = 1';
    document.body.appendChild(inline);
    const remote = document.createElement('script');
    remote.src = 'https://example.com/x.js';
    document.body.appendChild(remote);
  });
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => window.__inline) === undefined, 'an inline script ran');
  const v = await page.evaluate(() => window.__violations);
  expect(v.some((x) => x.directive === 'script-src-elem' && x.blocked === 'inline'), `no CSP refusal of the inline script: ${JSON.stringify(v)}`);
  expect(v.some((x) => x.blocked.startsWith('https://example.com')), `no CSP refusal of the other host: ${JSON.stringify(v)}`);
});

await test('a diverging training run stops with the step and the reason on the page', async () => {
  const demo = page.locator('section.demo[data-instance="diverging"]');
  await demo.locator('button.run').click();  // a training demo waits for Run
  await page.waitForFunction(() => ['done', 'error', 'stopped'].includes(document.querySelector('section.demo[data-instance="diverging"]').dataset.state),
    null, { timeout: 60000 });
  const message = await demo.locator('.demo-error').innerText();
  expect(/training diverged at step \d+: loss = .*lr 0.05 is too large\?/.test(message), `no divergence message: '${message}'`);
  const drawn = await demo.locator('.panels').evaluate((e) => e.querySelectorAll('svg path, .scalar').length);
  expect(drawn > 0, 'the diverged demo drew nothing (the last good state should still show)');
  expect(await demo.getAttribute('data-state') === 'error', `state ${await demo.getAttribute('data-state')}`);
});

await test('damaged stored progress: a notice, the readable answers kept, the damaged copy set aside', async () => {
  const stored = JSON.stringify({ version: 1, checks: { 'hostile/tf': { correct: true, answer: true }, 'hostile/num': { correct: 'yes' } } });
  await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), stored);
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const notices = await page.locator('.notice').allInnerTexts();
  expect(notices.some((t) => /reset/.test(t) && /set aside/.test(t)), `no notice: ${JSON.stringify(notices)}`);
  const kept = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  // Kept in the core's document (version 2, lesson -> check -> record): tf only.
  expect(kept.version === 2 && JSON.stringify(Object.keys(kept.checks.hostile)) === '["tf"]' &&
    kept.checks.hostile.tf.correct === true && kept.checks.hostile.tf.answer === true, `kept ${JSON.stringify(kept)}`);
  expect(await page.evaluate(() => localStorage.getItem('icl-lab.progress.corrupt')) === stored, 'the damaged copy was not set aside');
  expect(await page.locator('section.check[data-check="tf"]').getAttribute('data-answered') === 'correct', 'the kept answer is not shown');
  for (const truncated of [stored.slice(0, 40), '']) {
    await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), truncated);
    await page.goto(`${origin}/en/hostile.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    expect((await page.locator('.notice').allInnerTexts()).some((t) => /reset/.test(t)), `truncated '${truncated}': no notice`);
    expect(await page.evaluate(() => localStorage.getItem('icl-lab.progress.corrupt')) === truncated, `truncated '${truncated}' not set aside`);
  }
});

await test('a stored answer with an unknown option ("zzz") is dropped with a notice, and the check grades again', async () => {
  const stored = JSON.stringify({ version: 1, checks: { 'hostile/choice': { correct: false, answer: 'zzz', at: 5 } } });
  await page.evaluate((v) => localStorage.setItem('icl-lab.progress', v), stored);
  await page.goto(`${origin}/en/hostile.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const notices = await page.locator('.notice').allInnerTexts();
  expect(notices.some((t) => t.includes('"hostile/choice"') && t.includes("'zzz' is not one of the options")), `no notice: ${JSON.stringify(notices)}`);
  const section = page.locator('section.check[data-check="choice"]');
  expect(await section.locator('input[value="zzz"]').count() === 0, 'an option "zzz" appeared');
  await section.locator('input[value="a"]').check();
  await section.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('section.check[data-check="choice"]').dataset.verdict, null, { timeout: 30000 });
  expect(await section.getAttribute('data-verdict') === 'correct', `verdict ${await section.getAttribute('data-verdict')}: ${await section.locator('.verdict').innerText()}`);
  const kept = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  expect(kept.checks.hostile.choice.answer === 'a' && kept.checks.hostile.choice.attempts === 2, `stored ${JSON.stringify(kept)}`);
});

await test('no page error', async () => {
  expect(pageErrors.length === 0, pageErrors.join(' | '));
});

await browser.close();
server.kill();
fs.rmSync(work, { recursive: true, force: true });
console.log(`hostile: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
