// /lab/ keeps progress across a reload, in the lesson pages' document: the app in the
// browser answers a check (its --answer, scripted through window.iclLabScriptedArguments);
// a link with ?answer= then opens the lesson without answering or storing anything; a
// reload reads the answer back (1 attempt stored); the lesson page of the same site then
// shows the check as answered (one format for both). Run by tests/app/lab.sh.
//   node tests/app/lab-progress.mjs build/site
// Exits 0 when every step held, else prints what did not.
import fs from 'node:fs';
import path from 'node:path';
import { root, serveSite, launchChromium } from '../browser/serve-and-launch.mjs';

const site = path.resolve(process.argv[2] || 'build/site');
const source = fs.readFileSync(path.join(root, 'lessons', 'en', '02-dual-form.md'), 'utf8');
const [, check, right] = source.match(/^```check id=(\S+) type=choice answer=([a-z])/m);
const wrong = right === 'a' ? 'b' : 'a';

const { server, origin } = await serveSite(site);
const browser = await launchChromium({ gl: true });
const problems = [];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const lines = [];
  const waitLine = async (page, re, what) => {
    for (let t = 0; t < 600; t++) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return hit;
      await page.waitForTimeout(100);
    }
    problems.push(`${what}: no console line ${re} (it has: ${lines.slice(-8).join(' | ')})`);
    return null;
  };
  // A scripted answer (the test's hook, not the URL).
  const scripted = await context.newPage();
  scripted.on('console', (m) => lines.push(m.text()));
  await scripted.addInitScript((answer) => { window.iclLabScriptedArguments = ['--answer', answer]; }, `${check}=${wrong}`);
  await scripted.goto(`${origin}/lab/?lesson=dual-form&lang=en`);
  await waitLine(scripted, new RegExp(`^check ${check}: incorrect`), 'answering in /lab/');
  await scripted.close();
  const before = await (async () => {
    const p = await context.newPage();
    await p.goto(`${origin}/index.html`);
    const v = await p.evaluate(() => localStorage.getItem('icl-lab.progress'));
    await p.close();
    return v;
  })();
  // A link that carries an answer only opens the lesson: nothing is answered or stored.
  lines.length = 0;
  const page = await context.newPage();
  page.on('console', (m) => lines.push(m.text()));
  await page.goto(`${origin}/lab/?lesson=dual-form&lang=en&answer=${encodeURIComponent(`${check}=${right}`)}`);
  await waitLine(page, /^progress: 1 checks answered/, 'opening /lab/ with ?answer=');
  await page.waitForTimeout(1500);
  if (lines.some((l) => l.startsWith(`check ${check}:`))) problems.push(`a URL answered the check: ${lines.join(' | ')}`);
  const after = await page.evaluate(() => localStorage.getItem('icl-lab.progress'));
  if (after !== before) problems.push(`a URL changed the stored progress: ${before} -> ${after}`);
  lines.length = 0;
  await page.reload();
  await waitLine(page, /^progress: 1 checks answered/, 'after the reload');
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  const record = stored && stored.checks['dual-form'] && stored.checks['dual-form'][check];
  if (!record || record.answer !== wrong || record.correct !== false || record.attempts !== 1) problems.push(`stored: ${JSON.stringify(stored)}`);
  // The lesson page reads the same record.
  await page.goto(`${origin}/en/dual-form.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60000 });
  const answered = await page.locator(`section.check[data-check="${check}"]`).getAttribute('data-answered');
  if (answered !== 'tried') problems.push(`the lesson page shows the /lab/ answer as '${answered}', not 'tried'`);
  const checked = await page.locator(`section.check[data-check="${check}"] input[value="${wrong}"]`).isChecked();
  if (!checked) problems.push('the lesson page does not show the /lab/ answer chosen');
} finally {
  await browser.close();
  server.kill();
}
if (problems.length) console.log(problems.join('\n'));
process.exit(problems.length ? 1 : 0);
