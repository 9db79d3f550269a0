// Browser checks of the embed pages (<lang>/embed/<demo>.html) and of the "Copy link" /
// "Copy embed code" buttons under a lesson's demos; run-core.spec.mjs calls embedChecks() with its
// helpers (contexts that block and record requests to other hosts, ...) as its tests are
// listed, and embedChecks() adds these tests to its file.
// - Every demo the lessons run, in both languages, in a fresh 375 px wide context: the
//   embed page loads with no console error and no CSP refusal, draws its first result
//   (one that waits for Run is run to its first drawing), its first load as sent (fonts
//   excluded) stays within the lesson pages' budget, and nothing scrolls sideways.
// - A parameter in the embed URL (en; one demo of each kind: analytic, training, with a
//   points and with a text parameter): its control shows it, and the result drawn was
//   computed with it (the JSON export's params; an analytic demo's drawing changes).
// - On lesson pages: a copied link and a copied <iframe> (pasted into a host page, 375 px
//   wide) reproduce the parameters, a typed prompt too; the core refuses a setup it
//   cannot take (a prompt of markup, a number past its range) and nothing is copied;
//   the embed's "Open in ICL Lab" leads back to the lesson with them.
// BROWSER_LESSONS (see run-pages.spec.mjs) keeps the embed pages of those lessons' demos only.
import fs from 'node:fs';
import { embedData as embedDataOf } from './harness.mjs';

// Records every CSP refusal in the page (and its frames) from the start.
const recordCsp = () => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`));
};
const cspRefusals = (frame) => frame.evaluate(() => window.__csp);
const noSidewaysScroll = (frame) => frame.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1
  && document.body.scrollWidth <= document.documentElement.clientWidth + 1);
const stripIds = (html) => html.replace(/(clip|grad)-[a-z0-9]+/g, '');

// A value for one parameter that differs from `now` and lies in its range: one step
// away for a number, the next option of a choice, the other side of a bool, a text
// without its last word, points without the last one (null where there is none).
function otherValue(spec, now) {
  if (spec.type === 'bool') return !now;
  if (spec.type === 'text') return now.trim().split(/\s+/).length > 1 ? now.trim().split(/\s+/).slice(0, -1).join(' ') : null;
  if (spec.type === 'points') return now.length > Math.max(1, spec.min_count) ? now.slice(0, -1) : null;
  if (spec.type === 'choice') return spec.choices.map((c) => (typeof c === 'object' ? c.value : c)).find((c) => c !== now) ?? null;
  if (spec.type !== 'int' && spec.type !== 'float') return null;
  const step = spec.step > 0 ? spec.step : spec.type === 'int' ? 1 : (spec.max - spec.min) / 10;
  const up = now + step <= spec.max;
  return Number((up ? now + step : now - step).toFixed(6));
}

export function embedChecks(h) {
  const { test, verify, newContext, expectNoErrors, demosSettled, bytesSent, index, langs, screenshot, timeoutMs } = h;
  const onlyLessons = process.env.BROWSER_LESSONS ? process.env.BROWSER_LESSONS.split(',') : null;
  const demosOf = (lang) => [...new Set(index[lang].filter((l) => !onlyLessons || onlyLessons.includes(l.id)).flatMap((l) => l.demos))];
  const embedUrl = (lang, demo, query = '') => `${h.origin()}/${lang}/embed/${demo}.html${query}`;

  // Waits for the page's demo to draw: runs one that waits for Run; a training demo is
  // stopped after its first drawing (its end is the lesson checks' business).
  const firstDrawing = async (frame) => {
    await demosSettled(frame);
    const section = frame.locator('section.demo');
    if (await section.getAttribute('data-state') === 'idle') await section.locator('button.run').click();
    await frame.waitForFunction(() => Number(document.querySelector('section.demo').dataset.draws) > 0
      && document.querySelector('section.demo').dataset.state !== 'error', null, { timeout: timeoutMs * 2, polling: 50 });
    if (await section.getAttribute('data-state') === 'running') await section.locator('button.run').click();
    return section;
  };
  const embedData = (frame) => frame.evaluate(() => JSON.parse(document.getElementById('embed-data').textContent));

  const largest = { bytes: 0, where: '' };
  test.describe(() => {
    test.afterAll(() => { if (largest.bytes) console.log(`     embed pages: largest first load ${largest.bytes} bytes (${largest.where})`); });
    // Every demo's embed page in English; in Korean every fourth (the same page code and
    // core; only the strings differ), to keep the test command's budget.
    for (const lang of langs) {
      for (const demo of demosOf(lang).filter((_, i) => lang === 'en' || i % 4 === 0)) {
        test(`embed ${lang}/${demo}: loads within the budget, draws its first result, no CSP refusal, 375 px without sideways scrolling`, async () => {
          const context = await newContext({ viewport: { width: 375, height: 740 } });
          await context.addInitScript(recordCsp);
          const page = await context.newPage();
          const bytes = bytesSent(page);
          await page.goto(embedUrl(lang, demo));
          await demosSettled(page);
          const data = await embedData(page);
          if (await page.locator('section.demo').getAttribute('data-state') !== 'idle') {
            await page.waitForFunction(() => document.body.dataset.firstDrawMs, null, { timeout: timeoutMs });
          }
          await page.waitForLoadState('networkidle');
          const sent = await bytes();
          if (sent > largest.bytes) Object.assign(largest, { bytes: sent, where: `${lang}/${demo}` });
          verify(sent <= h.budgetBytes, `first load ${sent} bytes, over ${h.budgetBytes}`);
          const section = await firstDrawing(page);
          const drawn = await section.locator('.panels').evaluate((e) => e.querySelectorAll('svg rect, svg path, svg image, .scalar, td, .note-text').length);
          verify(drawn > 0, 'the first result drew nothing');
          verify(await page.locator('h1.demo-title').innerText() === data.info.title, 'the page does not show the demo\'s title');
          await page.waitForTimeout(250);  // a redraw at the settled width
          verify(await noSidewaysScroll(page), `the page is ${await page.evaluate(() => document.documentElement.scrollWidth)} px wide at 375 px`);
          const refused = await cspRefusals(page);
          verify(refused.length === 0, `CSP refusals: ${refused.join(' | ')}`);
          await screenshot(page, `embed-${lang}-${demo}`);
          expectNoErrors(context, 'console');
          await context.close();
        });
      }
    }
  });

  const enDemos = demosOf('en');
  if (enDemos.length) test.describe(() => {
    let context, page;
    test.beforeAll(async () => {
      context = await newContext({ viewport: { width: 900, height: 900 } });
      await context.addInitScript(recordCsp);
      page = await context.newPage();
    });
    test.afterAll(async () => { if (context) await context.close(); });
    // The URL's parameters reach the controls and the core by one generic path (url-state.js
    // and the worker): one demo of each kind takes it — analytic, training, with a points
    // and with a text parameter — not all of them (the lesson pages move a control of
    // every demo; this kept the suite inside the test command's time).
    const kinds = (() => {
      const picked = new Set();
      const seen = {};
      for (const demo of enDemos) {
        const { info } = embedDataOf('en', demo);
        const kind = info.params.some((p) => p.type === 'points') ? 'points' : info.params.some((p) => p.type === 'text') ? 'text'
          : info.analytic ? 'analytic' : 'training';
        if (!seen[kind]) { seen[kind] = demo; picked.add(demo); }
      }
      return picked;
    })();
    for (const demo of enDemos.filter((d) => kinds.has(d))) {
      test(`embed en/${demo}: a parameter in the URL shows in its control and in the result drawn`, async () => {
        await page.goto(embedUrl('en', demo));
        await demosSettled(page);
        const data = await embedData(page);
        // An analytic demo's drawing at its defaults, at this page's width.
        const drawnDefault = data.info.analytic && await page.locator('section.demo').getAttribute('data-state') === 'done'
          ? stripIds(await page.locator('section.demo .panels').innerHTML()) : null;
        const settable = data.info.params.filter((p) => otherValue(p, p.default) !== null);
        const spec = settable.find((p) => !['text', 'points'].includes(p.type)) || settable[0];
        verify(spec, 'no parameter to set');
        const value = otherValue(spec, spec.default);
        const text = spec.type === 'points' ? value.map((p) => p.join(',')).join('; ') : String(value);
        await page.goto(embedUrl('en', demo, `?${encodeURIComponent(`${demo}.${spec.name}`)}=${encodeURIComponent(text)}`));
        const section = await firstDrawing(page);
        const id = `#p-${demo}-${spec.name}`;
        const shown = spec.type === 'bool' ? await page.locator(id).isChecked()
          : spec.type === 'points' ? await section.locator('input.point-text').inputValue()
            : ['int', 'float'].includes(spec.type) ? Number(await page.locator(`.control:has(${id}) .control-number`).inputValue())
              : await page.locator(id).inputValue();
        verify(shown === (spec.type === 'points' ? text : value), `${spec.name}: the control shows ${shown}, the URL said ${text}`);
        verify(await page.locator('.notice').count() === 0, `a valid link raised a notice: ${await page.locator('.notice').allInnerTexts()}`);
        const [download] = await Promise.all([page.waitForEvent('download'), section.locator('.demo-export button', { hasText: 'JSON' }).click()]);
        const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
        verify(JSON.stringify(exported.params[spec.name]) === JSON.stringify(value), `the result was computed with ${spec.name} = ${JSON.stringify(exported.params[spec.name])}, not ${text}`);
        if (drawnDefault) {
          await page.waitForFunction(() => document.querySelector('section.demo').dataset.state === 'done', null, { timeout: timeoutMs });
          verify(stripIds(await section.locator('.panels').innerHTML()) !== drawnDefault, `${spec.name} = ${text} drew the same as the defaults`);
        }
        verify((await cspRefusals(page)).length === 0, 'a CSP refusal');
        expectNoErrors(context, 'console');
      });
    }
    test('embed: garbage URL parameters and an unknown lesson give a notice, as text; the demo runs its own setup', async () => {
      const demo = enDemos[0];
      await page.goto(embedUrl('en', demo));
      await demosSettled(page);
      const own = await page.locator('section.demo').getAttribute('data-state') === 'done' ? stripIds(await page.locator('section.demo .panels').innerHTML()) : null;
      await page.goto(embedUrl('en', demo, `?${demo}.%3Cb%3Ex%3C%2Fb%3E=2&other.x=%3Cb%3E&lesson=no-such-lesson`));
      await demosSettled(page);
      const notices = await page.locator('.notice').allInnerTexts();
      verify(notices.some((n) => n.includes("unknown parameter '<b>x</b>'")), `no notice names the unknown parameter: ${JSON.stringify(notices)}`);
      verify(notices.some((n) => n.includes('other.x')), `no notice names the unknown demo: ${JSON.stringify(notices)}`);
      verify(notices.some((n) => n.includes('no-such-lesson')), `no notice names the unknown lesson: ${JSON.stringify(notices)}`);
      verify(await page.locator('.notice b').count() === 0, 'URL text was inserted as HTML');
      verify(await page.locator('section.demo').getAttribute('data-state') === (own ? 'done' : 'idle'), 'the demo did not start as without the link');
      if (own) verify(stripIds(await page.locator('section.demo .panels').innerHTML()) === own, 'the demo did not draw its own setup');
      expectNoErrors(context, 'console');
    });
  });

  // ---- the copy buttons of a lesson page ----------------------------------------------------
  // A lesson page's demo block: set a parameter, copy, and open what was copied.
  const copied = async (page, section, which) => {
    await section.locator(`button.copy-${which}`).click();
    const status = section.locator('.share-status');
    await page.waitForFunction((s) => s.textContent.length > 0, await status.elementHandle());
    const field = await section.locator('input.share-text').inputValue();
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    verify(clip === field, `the clipboard holds ${JSON.stringify(clip)}, the field ${JSON.stringify(field)}`);
    return field;
  };
  // Pastes iframe code into a blank host page 375 px wide; resolves to the embed frame.
  const hostPage = async (context, code) => {
    const host = await context.newPage();
    await host.setViewportSize({ width: 375, height: 900 });
    await host.setContent(`<!doctype html><meta name="viewport" content="width=device-width"><body>${code}</body>`);
    await host.waitForFunction(() => document.querySelector('iframe') && document.querySelector('iframe').contentWindow, null, { timeout: timeoutMs });
    let frame = null;
    for (let k = 0; k < 100 && !frame; k++) {
      frame = host.frames().find((f) => f.url().includes('/embed/'));
      if (!frame) await host.waitForTimeout(50);
    }
    verify(frame, 'the iframe did not load an embed page');
    await demosSettled(frame);
    return { host, frame };
  };

  const numericLesson = index.en.find((l) => (!onlyLessons || onlyLessons.includes(l.id)) && l.demos.length);
  if (numericLesson) {
    test(`en/${numericLesson.id}: "Copy link" and "Copy embed code" reproduce a changed parameter; the embed leads back to the lesson`, async () => {
      const context = await newContext({ viewport: { width: 1000, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
      await context.addInitScript(recordCsp);
      const page = await context.newPage();
      await page.goto(`${h.origin()}/en/${numericLesson.id}.html`);
      await demosSettled(page);
      const data = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent));
      const block = data.demos.find((d) => d.info.analytic && !(d.info.assets || []).length && d.info.params.some((p) => p.type === 'int' || p.type === 'float'));
      verify(block, `en/${numericLesson.id} has no analytic demo with a number to set`);
      const section = page.locator(`section.demo[data-instance="${block.name}"]`);
      const moved = await h.moveSlider(page, block.name, 0);
      const drawn = stripIds(await h.panelsHtml(page, block.name));

      const link = await copied(page, section, 'link');
      verify(await section.locator('.share-status').innerText() === 'Link copied', 'no "Link copied"');
      verify(new URL(link).hash === `#demo-${block.name}`, `the link ${link} does not lead to the demo block`);
      const other = await context.newPage();
      await other.goto(link);
      await demosSettled(other);
      verify(Number(await other.locator(`#p-${block.name}-${moved.name}`).inputValue()) === moved.to, `the copied link does not set ${moved.name} = ${moved.to}`);
      verify(stripIds(await h.panelsHtml(other, block.name)) === drawn, 'the copied link drew a different result');
      await other.close();

      const code = await copied(page, section, 'embed');
      verify(/^<iframe src="[^"<>]+" title="[^"<>]+" width="100%" height="\d+" [^<>]*><\/iframe>$/.test(code), `embed code: ${code}`);
      const { host, frame } = await hostPage(context, code);
      verify(Number(await frame.locator(`#p-${block.demo}-${moved.name}`).inputValue()) === moved.to, `the embed does not set ${moved.name} = ${moved.to}`);
      verify(await frame.locator('section.demo').getAttribute('data-state') === 'done', 'the embedded demo did not draw');
      await host.waitForTimeout(250);
      verify(await noSidewaysScroll(frame), 'the embed scrolls sideways in a 375 px host page');
      verify(await noSidewaysScroll(host), 'the host page scrolls sideways at 375 px');
      verify((await cspRefusals(frame)).length === 0, 'a CSP refusal in the embed');
      await screenshot(host, 'embed-in-host-phone');
      // "Open in ICL Lab": the lesson with the embed's current parameters.
      const back = await frame.locator('#embed-home').evaluate((a) => { a.dispatchEvent(new Event('focus')); return a.href; });
      verify(back.startsWith(`${h.origin()}/en/${numericLesson.id}.html?`) && back.endsWith(`#demo-${block.name}`), `"Open in ICL Lab" leads to ${back}`);
      const lesson = await context.newPage();
      await lesson.goto(back);
      await demosSettled(lesson);
      verify(Number(await lesson.locator(`#p-${block.name}-${moved.name}`).inputValue()) === moved.to, `"Open in ICL Lab" does not set ${moved.name} = ${moved.to}`);
      await Promise.all([lesson.close(), host.close()]);
      // A value the core refuses (typed past the range) is named, and nothing is copied.
      const box = section.locator(`.control:has(#p-${block.name}-${moved.name}) .control-number`);
      await box.fill('1e12');
      await box.press('Enter');
      await section.locator('button.copy-embed').click();
      const status = section.locator('.share-status');
      await status.filter({ hasText: 'Not copied' }).waitFor({ timeout: timeoutMs });
      verify((await status.innerText()).includes(moved.name), `the refusal does not name ${moved.name}: ${await status.innerText()}`);
      verify(await section.locator('input.share-text').isHidden(), 'a refused setup still shows text to copy');
      expectNoErrors(context, 'console');
      await context.close();
    });
  }

  const promptLesson = index.en.find((l) => (!onlyLessons || onlyLessons.includes(l.id)) && l.demos.includes('prompt_lab'));
  if (promptLesson) {
    test(`en/${promptLesson.id}: a typed prompt travels in the copied link and embed code; one holding markup is refused by the core, never copied`, async () => {
      const context = await newContext({ viewport: { width: 1000, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
      await context.addInitScript(recordCsp);
      const page = await context.newPage();
      await page.goto(`${h.origin()}/en/${promptLesson.id}.html#demo-prompt_lab`);
      await demosSettled(page);
      const section = page.locator('section.demo[data-instance="prompt_lab"]');
      const input = section.locator('input.control-text[name=prompt]');
      const status = section.locator('.share-status');
      const type = async (text) => {
        await input.fill(text);
        await input.press('Enter');
        await page.waitForFunction((t) => new URL(window.location.href).searchParams.get('prompt_lab.prompt') === t, text);
      };
      // Markup: the core names the word it does not know (under the field; the page's
      // address never takes a refused value); nothing is copied.
      await input.fill('"><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> ->');
      await input.press('Enter');
      await page.waitForFunction(() => /not in the vocabulary/.test(document.getElementById('p-prompt_lab-prompt-error').textContent));
      verify(!/script/.test(new URL(page.url()).searchParams.get('prompt_lab.prompt') || ''), `the address took the refused prompt: ${page.url()}`);
      for (const which of ['link', 'embed']) {
        await section.locator(`button.copy-${which}`).click();
        await status.filter({ hasText: 'Not copied' }).waitFor({ timeout: timeoutMs });
        verify(/'"><script>window\.pwned=1<\/script><img' \(word 1\) is not in the vocabulary/.test(await status.innerText()), `copy ${which}: ${await status.innerText()}`);
        verify(await section.locator('input.share-text').isHidden(), `copy ${which}: text to copy is shown for a refused prompt`);
      }
      // A prompt the core takes, with characters a URL and HTML must escape (> ; space).
      const prompt = 'dog -> Paris ; cat -> Tokyo ; dog ->';
      await type(prompt);
      const link = await copied(page, section, 'link');
      verify(new URL(link).searchParams.get('prompt_lab.prompt') === prompt, `the link carries ${new URL(link).searchParams.get('prompt_lab.prompt')}`);
      const code = await copied(page, section, 'embed');
      const src = code.match(/^<iframe src="([^"]*)"/)[1];
      verify(src.includes('&#38;') && !/[<>'"]|&(?!#38;)/.test(src), `the iframe's src is not escaped: ${src}`);
      const { host, frame } = await hostPage(context, code);
      const pasted = await host.evaluate(() => ({ iframes: document.querySelectorAll('iframe').length,
        other: document.body.querySelectorAll(':not(iframe)').length, src: document.querySelector('iframe').src }));
      verify(pasted.iframes === 1 && pasted.other === 0, `the pasted code made ${pasted.iframes} iframe(s) and ${pasted.other} other element(s)`);
      verify(new URL(pasted.src).searchParams.get('prompt_lab.prompt') === prompt, `the iframe carries ${new URL(pasted.src).searchParams.get('prompt_lab.prompt')}`);
      verify(await frame.locator('input.control-text[name=prompt]').inputValue() === prompt, 'the embed does not show the typed prompt');
      await frame.locator('section.demo button.run').click();  // a checkpoint demo waits for Run on an embed page
      await frame.waitForFunction(() => document.querySelector('section.demo').dataset.state === 'done', null, { timeout: timeoutMs });
      const bars = await frame.locator('figure[data-kind=bars]').first().innerText();
      verify(/Paris/.test(bars), `the embed's distribution does not show Paris: ${bars.slice(0, 200)}`);
      const ran = await Promise.all([page.evaluate(() => window.pwned), host.evaluate(() => window.pwned), frame.evaluate(() => window.pwned)]);
      verify(ran.every((v) => v === undefined), 'typed markup ran as script');
      verify((await cspRefusals(frame)).length === 0 && (await cspRefusals(page)).length === 0, 'a CSP refusal');
      await host.close();
      expectNoErrors(context, 'console');
      await context.close();
    });
  }
}
