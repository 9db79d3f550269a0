// /lab/ keeps progress across a reload, in the lesson pages' document: the app in the
// browser answers a check (?answer=, its --answer), the page is reloaded and the app
// reports the answer read back from localStorage before it answers again (2 attempts
// stored); the lesson page of the same site then shows the check as answered (one
// format for both). Run by tests/app/lab.sh.
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
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const lines = [];
  page.on('console', (m) => lines.push(m.text()));
  const waitLine = async (re, what) => {
    for (let t = 0; t < 600; t++) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return hit;
      await page.waitForTimeout(100);
    }
    problems.push(`${what}: no console line ${re} (it has: ${lines.slice(-8).join(' | ')})`);
    return null;
  };
  await page.goto(`${origin}/lab/?lesson=dual-form&lang=en&answer=${encodeURIComponent(`${check}=${wrong}`)}`);
  await waitLine(new RegExp(`^check ${check}: incorrect`), 'answering in /lab/');
  lines.length = 0;
  await page.reload();
  await waitLine(/^progress: 1 checks answered/, 'after the reload');
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('icl-lab.progress')));
  const record = stored && stored.checks['dual-form'] && stored.checks['dual-form'][check];
  // The reload keeps ?answer=, so the app answered once more on top of what it read back.
  if (!record || record.answer !== wrong || record.correct !== false || record.attempts !== 2) problems.push(`stored: ${JSON.stringify(stored)}`);
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
