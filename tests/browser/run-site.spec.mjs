// The `browser` suite (see run-pages.spec.mjs), the site as a whole: URL parameters
// reproduce a setup and garbage ones give a notice, exports, keyboard, hover and stored
// progress on one page; the index with the progress made; the language switch; every
// panel kind from a fixture Result; prompt_lab's typed prompt; the point editor.
import fs from 'node:fs';
import path from 'node:path';
import { test, verify, root, site, pageData, expectNoErrors } from './harness.mjs';
import {
  servePages, screenshot, DEMO_TIMEOUT_MS, origin, noForeignRequests, newContext, demosSettled, showHeld, index, langs, lessonData, lessonDemoParams, answersFor, answer, panelsHtml, moveSlider,
} from './run-shared.mjs';

servePages();

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
        const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), locator.click({ timeout: 30000 })]);
        return fs.readFileSync(await download.path());
      };
      const csv = (await grab(section.locator('.demo-export button', { hasText: 'CSV' }))).toString();
      verify(csv.startsWith('# ') && csv.split('\n').length > 3, `CSV looks empty: ${csv.slice(0, 80)}`);
      const json = JSON.parse((await grab(section.locator('.demo-export button', { hasText: 'JSON' }))).toString());
      verify(json.result && json.result.done && json.params, 'JSON export lacks result or params');
      // a chart shown open (the rest of a result is folded under "More results")
      const png = section.locator('button.png:visible').first();
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
  // the core's display rule (display_number): 4 significant digits, exponent signed with two digits
  verify(report.scalars[0] === '1.5e-07' && report.scalars[1] === '—', `scalars shown as ${report.scalars}`);
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


noForeignRequests();
