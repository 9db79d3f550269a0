// Browser tests of what a learner does in a lab, in headless Chromium:
//   ctest --test-dir build/wasm -R browser-labs   (playwright project browser-labs)
// For every demo with a text or number field (its embed page, both languages): run it,
// type a new value into the field and click Run at once, as a learner does. The click
// must not stop the run the field's change started (the button turned into Stop under
// the pointer); the result drawn is the new setup's — for a demo that finishes in one
// step, exactly the one the site's wasm core computes under node for the typed value,
// and not the one for the old value. Then a value the core refuses: the error is shown
// and the earlier result is not left as if it were this setup's (cleared, or dimmed under
// a note that says so). And every demo's first result opens with a headline sentence and
// shows no identifier (snake_case) outside code and the export.
// LABS_DEMOS=prompt_lab,... and LABS_LANGS=en restrict the runs (while working on them).
import fs from 'node:fs';
import path from 'node:path';
import { test, verify, site, siteIndex, embedData, servedSite } from './harness.mjs';
import { loadCore, putAssets, stepUntil } from '../../web/sitegen/node-core.mjs';

const TIMEOUT_MS = 60000;

const index = siteIndex();
const onlyDemos = process.env.LABS_DEMOS ? process.env.LABS_DEMOS.split(',') : null;
const langs = Object.keys(index).filter((l) => !process.env.LABS_LANGS || process.env.LABS_LANGS.split(',').includes(l));

// The site's wasm core under node, for the Result a demo gives with given parameters.
let core;
test.beforeAll(async () => {
  core = await loadCore(path.join(site, 'assets'));
});
const given = new Set();
function alone(info, params, lang) {
  const files = ['en/catalogue/common.json', `en/catalogue/${info.id}.json`, ...(lang === 'en' ? [] : [`${lang}/catalogue/common.json`, `${lang}/catalogue/${info.id}.json`]), ...(info.assets || [])];
  const fresh = files.filter((name) => !given.has(name) && fs.existsSync(path.join(site, 'lessons', name)));
  putAssets(core, path.join(site, 'lessons'), fresh);
  fresh.forEach((name) => given.add(name));
  // every lane in this one session (none offloaded)
  const started = JSON.parse(core.start(info.id, JSON.stringify(params), lang, 1));
  if (started.error) return { error: started.error };
  const result = stepUntil(core, started.handle, 1000);
  core.drop(started.handle);
  return result;
}

// The field a learner types into: the demo's first text parameter, else its first
// number; a new value for it that the core takes, and one it refuses.
function fieldOf(info) {
  const text = info.params.find((p) => p.type === 'text' && p.default !== '');
  if (text) {
    const vocab = new Set(text.vocabulary || []);
    const words = ['Japan', '→', 'Asia', ';', 'Kenya', 'Africa', 'Peru'];
    const now = String(text.default).trim().split(/\s+/);
    const value = words.every((w) => vocab.has(w)) ? 'Japan → Asia ; Kenya → Africa ; Peru →'
      : now.length > 1 ? now.slice(0, -1).join(' ') : `${now[0]} ${now[0]}`;
    return { spec: text, selector: `#p-${info.id}-${text.name}`, value, typed: value, bad: `${value} qqzzy` };
  }
  const num = info.params.find((p) => p.type === 'int' || p.type === 'float');
  if (!num) return null;
  const step = num.step > 0 ? num.step : num.type === 'int' ? 1 : (num.max - num.min) / 10;
  const value = Number((num.default + step <= num.max ? num.default + step : num.default - step).toFixed(6));
  return { spec: num, selector: `#p-${info.id}-${num.name} ~ .control-number, .control-${num.type}:has(#p-${info.id}-${num.name}) .control-number`,
    value, typed: String(value), bad: String(num.max + 1000 * (Math.abs(num.max) + 1)) };
}

// An identifier: lower-case words joined by '_' (p_top, follows_label, n_points); a
// subscript in notation (x_i, W_KQ, y_1) is not one.
const IDENTIFIER = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_[a-z][a-z0-9]+\b/g;

const origin = servedSite(site);

const state = (page) => page.locator('section.demo').getAttribute('data-state');
const draws = async (page) => Number(await page.locator('section.demo').getAttribute('data-draws') || 0);
const exported = async (page) => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.demo-export button', { hasText: 'JSON' }).click()]);
  return JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
};

for (const lang of langs) {
  const demos = [...new Set(index[lang].flatMap((l) => l.demos))].filter((d) => !onlyDemos || onlyDemos.includes(d)).sort();
  for (const demo of demos) {
    const { info } = embedData(lang, demo);
    const field = fieldOf(info);
    if (!field) continue;
    // The three tests of a demo work on one page, in turn.
    test.describe(() => {
      test.describe.configure({ mode: 'serial' });
      let context, page, section, runButton;
      const errors = [];
      test.beforeAll(async ({ browser }) => {
        context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1000, height: 900 } });
        page = await context.newPage();
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${origin()}/${lang}/embed/${demo}.html`);
        await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: TIMEOUT_MS });
        section = page.locator('section.demo');
        runButton = section.locator('button.run');
      });
      test.afterAll(async () => { if (context) await context.close(); });

      test(`${lang}/${demo}: the first result opens with a headline and shows no identifier outside code and export`, async () => {
        if (await state(page) !== 'running' && await draws(page) === 0) await runButton.click();
        await page.waitForFunction(() => Number(document.querySelector('section.demo').dataset.draws) > 0, null, { timeout: TIMEOUT_MS });
        const read = await page.evaluate(() => {
          const parts = [...document.querySelectorAll('section.demo .panels, section.demo .control-beside')].map((e) => {
            const copy = e.cloneNode(true);
            copy.querySelectorAll('code, .demo-export').forEach((c) => c.remove());
            document.body.appendChild(copy);  // innerText needs it rendered
            const text = copy.innerText;
            copy.remove();
            return text;
          });
          const headline = document.querySelector('section.demo .result-headline');
          return { text: parts.join('\n'), headline: headline ? headline.textContent.trim() : '' };
        });
        verify(read.headline.length > 0, 'the result has no headline');
        verify(!/[{}⟦⟧]/.test(read.headline), `the headline has an unfilled placeholder: ${read.headline}`);
        const ids = [...new Set(read.text.match(IDENTIFIER) || [])];
        verify(ids.length === 0, `identifiers shown: ${ids.join(', ')}`);
      });

      test(`${lang}/${demo}: typing ${field.spec.name} and clicking Run shows the typed setup's result`, async () => {
      // A first result on screen (of the default setup): run it, a training demo to its first drawing.
        if (await state(page) !== 'running' && await draws(page) === 0) await runButton.click();
        await page.waitForFunction(() => Number(document.querySelector('section.demo').dataset.draws) > 0, null, { timeout: TIMEOUT_MS });
        if (await state(page) === 'running') await runButton.click();
        await page.waitForFunction(() => ['done', 'stopped', 'error'].includes(document.querySelector('section.demo').dataset.state), null, { timeout: TIMEOUT_MS });
        const before = await draws(page);
        // Type the new value and click Run straight away: the field is left by that click.
        const input = page.locator(field.selector).first();
        await input.click();
        await input.press('Control+a');
        await page.keyboard.type(field.typed);
        await runButton.click();
        const seen = [];
        for (let k = 0; k < 6; k++) {
          seen.push(await state(page));
          await page.waitForTimeout(50);
        }
        verify(!seen.includes('stopped'), `the click on Run stopped the run: states ${seen.join(' → ')}`);
        await page.waitForFunction((n) => Number(document.querySelector('section.demo').dataset.draws) > n
        && document.querySelector('section.demo').dataset.state !== 'error', before, { timeout: TIMEOUT_MS });
        if (info.analytic) {
          await page.waitForFunction(() => document.querySelector('section.demo').dataset.state === 'done', null, { timeout: TIMEOUT_MS });
          const shown = await exported(page);
          const params = { ...Object.fromEntries(info.params.map((p) => [p.name, p.default])), [field.spec.name]: field.value };
          const typed = alone(info, params, lang);
          const old = alone(info, { ...params, [field.spec.name]: field.spec.default }, lang);
          verify(!typed.error, `the core refused the typed value: ${typed.error}`);
          verify(JSON.stringify(typed.panels) !== JSON.stringify(old.panels), `the typed value gives the same result as the old one: no test`);
          verify(JSON.stringify(shown.result.panels) === JSON.stringify(typed.panels),
            `the result drawn is not the typed setup's (${JSON.stringify(shown.params[field.spec.name])})`);
        } else {
        // A training demo: its new run streams on; what is drawn is that run's, not the old one.
          const shown = await exported(page);
          verify(shown.params[field.spec.name] === field.value, `the result drawn is of ${field.spec.name} = ${shown.params[field.spec.name]}, not ${field.value}`);
          verify(['running', 'done'].includes(await state(page)), `the new run is ${await state(page)}`);
          if (await state(page) === 'running') await runButton.click();
        }
        const staleNote = section.locator('.stale-note');
        verify(!(await staleNote.isVisible()), 'the new result is marked as an earlier setup');
      });

      test(`${lang}/${demo}: a ${field.spec.name} the core refuses shows the error and does not pass the old result off as its own`, async () => {
        await page.waitForFunction(() => ['done', 'stopped', 'error'].includes(document.querySelector('section.demo').dataset.state), null, { timeout: TIMEOUT_MS });
        const input = page.locator(field.selector).first();
        await input.click();
        await input.press('Control+a');
        await page.keyboard.type(field.bad);
        await input.press('Enter');  // commits the field (and runs it), as leaving it does
        await page.waitForFunction(() => document.querySelector('section.demo').dataset.state === 'error', null, { timeout: 20000 });
        const alert = await page.evaluate(() => [...document.querySelectorAll('section.demo [role=alert]')].map((e) => (e.hidden ? '' : e.textContent)).join(' ').trim());
        verify(alert.length > 0, 'no error is shown');
        // Cleared, or dimmed under a visible note.
        await page.waitForTimeout(700);  // the note and the dimming wait 0.35 s (no flicker while a slider moves)
        const panels = await page.evaluate(() => {
          const p = document.querySelector('section.demo .panels');
          return { children: p.children.length, opacity: Number(getComputedStyle(p).opacity) };
        });
        const note = section.locator('.stale-note');
        const marked = (await note.isVisible()) && (await note.textContent()).trim().length > 0 && panels.opacity < 0.7;
        verify(panels.children === 0 || marked, `the old result stays as if it were this setup's (${panels.children} panels, opacity ${panels.opacity}, note ${await note.isVisible()})`);
        verify(errors.length === 0, `page errors: ${errors.join(' | ')}`);
      });
    });
  }
}

// Less at once: attention_dual's result opens with its headline, its numbers, "What to see"
// and one chart; the rest waits in a closed "More results", whose state the tab remembers.
if (langs.includes('en') && (!onlyDemos || onlyDemos.includes('attention_dual'))) {
  test('en/attention_dual: the headline, What to see and one chart open; the rest folded, opened once for the session', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const read = async () => {
      await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.querySelector('section.demo').dataset.state === 'done', null, { timeout: TIMEOUT_MS });
      return page.evaluate(() => {
        const panels = document.querySelector('section.demo .panels');
        const seen = (e) => e.checkVisibility();
        const charts = [...panels.querySelectorAll('figure.panel-lines, figure.panel-heatmap, figure.panel-bars')];
        const note = [...panels.querySelectorAll('figure.panel-note')].find((f) => /What to see/.test(f.textContent));
        const more = panels.querySelector('details.more-results');
        return {
          headline: Boolean(panels.querySelector('.result-headline') && seen(panels.querySelector('.result-headline'))),
          shownCharts: charts.filter(seen).length, allCharts: charts.length,
          noteFirst: Boolean(note && seen(note) && charts.length && note.compareDocumentPosition(charts[0]) & Node.DOCUMENT_POSITION_FOLLOWING),
          folded: more ? more.querySelectorAll('figure').length : 0, open: more ? more.open : null,
          summary: more ? more.querySelector('summary').textContent : '',
        };
      });
    };
    await page.goto(`${origin()}/en/embed/attention_dual.html`);
    const first = await read();
    verify(first.headline, 'no headline shown');
    verify(first.shownCharts === 1, `${first.shownCharts} charts shown open (of ${first.allCharts})`);
    verify(first.noteFirst, '"What to see" is not shown above the first chart');
    verify(first.open === false && first.folded >= 4 && first.summary === `More results (${first.folded})`, `the rest is not folded: ${JSON.stringify(first)}`);
    await page.locator('details.more-results > summary').click();
    await page.reload();
    const again = await read();
    verify(again.open === true && again.shownCharts === again.allCharts, `opened, then reloaded: ${JSON.stringify(again)}`);
    await context.close();
  });
}
