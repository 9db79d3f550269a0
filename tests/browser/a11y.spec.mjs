// Accessibility of every page kind, in Debian's headless Chromium (ctest suite
// browser-a11y):
//   ctest --test-dir build/wasm -R browser-a11y   (playwright project browser-a11y)
// - axe-core (web/node_modules) audits the index, every lesson page in every language of
//   the site, the review pages and every embed page at WCAG 2.1 AA (tags wcag2a, wcag2aa,
//   wcag21a, wcag21aa): 0 violations. One load per page, its analytic demos drawn first.
// - On the same loads: every drawn chart (lines, heatmap, bars) is an image whose name is
//   a summary sentence with its numbers, followed by a "Data" disclosure that opens on a
//   table of them; each chart's marks keep 3:1 against the plot's background and its text
//   4.5:1 (WCAG 1.4.11 and 1.4.3; axe does not look inside SVG).
// - With reduced motion asked for, nothing on a lesson page transitions, animates or
//   scrolls smoothly.
// - Keyboard alone: on lesson 4's page, Tab reaches regression_lab's point editor, arrow
//   keys move a point and the demo redraws, Delete removes it, Tab reaches the text field
//   and a typed point is added; Tab goes on to the next check, whose focus ring keeps 3:1,
//   Space picks an answer and Enter on the submit button grades it.
// - Keyboard alone, in each language: Tab reaches a glossary term on lesson 5's page, Enter
//   opens its definition just below it (axe finds nothing with it open), Escape closes it
//   and leaves the focus on the term; Space opens it again and Enter closes it.
// A11Y_PAGES=<regex> restricts the audited pages by path (while working on them).
// Ends with a line counting the pages audited, the axe violations and the charts.
import fs from 'node:fs';
import path from 'node:path';
import { test, verify, root, site, siteIndex, serveSite } from './harness.mjs';

const axeSource = fs.readFileSync(path.join(root, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const SETTLE_MS = 60000;

// One server and one page for the file's tests (each test loads the page it needs).
let served, origin, context, page;
const pageErrors = [];
test.beforeAll(async ({ browser }) => {
  served = await serveSite(site);
  origin = served.origin;
  // bypassCSP: the pages allow only their own scripts; axe is put in by the test.
  context = await browser.newContext({ bypassCSP: true, viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
});

// Every page of the site a learner or a teacher opens.
const index = siteIndex();
const pages = ['index.html'];
for (const lang of Object.keys(index)) {
  const lessons = Array.isArray(index[lang]) ? index[lang] : index[lang].lessons || [];
  for (const l of lessons) pages.push(`${lang}/${l.id}.html`);
  if (fs.existsSync(path.join(site, lang, 'review.html'))) pages.push(`${lang}/review.html`);
  const embeds = path.join(site, lang, 'embed');
  if (fs.existsSync(embeds)) for (const f of fs.readdirSync(embeds).filter((x) => x.endsWith('.html')).sort()) pages.push(`${lang}/embed/${f}`);
}
const only = process.env.A11Y_PAGES ? new RegExp(process.env.A11Y_PAGES) : null;

// Loaded, its script ready and every demo settled (done, failed, or waiting for Run).
async function open(p) {
  await page.goto(`${origin}/${p}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true'
    && [...document.querySelectorAll('section.demo')].every((s) => ['done', 'error', 'stopped', 'idle'].includes(s.dataset.state)),
  null, { timeout: SETTLE_MS, polling: 100 });
}

async function audit() {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length,
      where: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}${n.any[0] ? ` — ${n.any[0].message}` : ''}`) }));
  }, TAGS);
}

// Charts: each one's name, its data table, and the contrast of its marks and text.
async function chartProblems() {
  return page.evaluate(async () => {
    const lum = (rgb) => {
      const [r, g, b] = rgb.map((c) => { const x = c / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const probe = document.createElement('span');
    document.body.appendChild(probe);
    const rgbOf = (colour) => {
      probe.style.color = '';
      probe.style.color = colour;
      const m = getComputedStyle(probe).color.match(/[\d.]+/g);
      return m ? m.slice(0, 3).map(Number) : null;
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const m = getComputedStyle(e).backgroundColor.match(/[\d.]+/g);
        if (m && (m.length < 4 || Number(m[3]) > 0.9)) return m.slice(0, 3).map(Number);
      }
      return [255, 255, 255];
    };
    const problems = [];
    const figures = [...document.querySelectorAll('figure.panel')].filter((f) => ['lines', 'heatmap', 'bars'].includes(f.dataset.kind));
    for (const [i, fig] of figures.entries()) {
      const what = `chart ${i + 1} (${fig.dataset.kind} "${(fig.querySelector('figcaption') || {}).textContent || ''}")`;
      const svg = fig.querySelector('svg.plot-svg');
      if (!svg) { problems.push(`${what}: no SVG`); continue; }
      const name = svg.getAttribute('aria-label') || '';
      if (svg.getAttribute('role') !== 'img' || !/\d/.test(name) || name.length < 20) problems.push(`${what}: its name is not a summary with numbers: "${name}"`);
      const details = fig.querySelector('details.plot-data');
      if (!details || !details.querySelector('summary')) { problems.push(`${what}: no data disclosure`); continue; }
      if (i < 3) {  // the table is built on opening: open the first few and read them
        details.open = true;
        await new Promise((r) => setTimeout(r, 0));
        const rows = details.querySelectorAll('table tbody tr').length;
        if (!rows) problems.push(`${what}: its data table is empty`);
        details.open = false;
      }
      const bg = background(svg);
      const marks = [];
      svg.querySelectorAll('path.series').forEach((e) => marks.push(e.getAttribute('stroke')));
      svg.querySelectorAll('rect.bar').forEach((e) => marks.push(e.getAttribute('fill')));
      svg.querySelectorAll('circle').forEach((e) => {
        const f = e.getAttribute('fill');
        marks.push(f && f !== '#fff' && f !== 'none' ? f : e.getAttribute('stroke'));
      });
      for (const c of new Set(marks.filter(Boolean))) {
        const rgb = rgbOf(c);
        if (rgb && ratio(rgb, bg) < 3) problems.push(`${what}: mark colour ${c} has ${ratio(rgb, bg).toFixed(2)}:1 against its background (needs 3:1)`);
      }
      for (const c of new Set([...svg.querySelectorAll('text')].map((t) => t.getAttribute('fill')).filter(Boolean))) {
        const rgb = rgbOf(c);
        if (rgb && ratio(rgb, bg) < 4.5) problems.push(`${what}: text colour ${c} has ${ratio(rgb, bg).toFixed(2)}:1 (needs 4.5:1)`);
      }
    }
    probe.remove();
    return { charts: figures.length, problems };
  });
}

let violations = 0, charts = 0;
for (const p of pages) {
  if (only && !only.test(p)) continue;
  test(`axe ${p}`, async () => {
    pageErrors.length = 0;
    await open(p);
    const found = await audit();
    const c = await chartProblems();
    // a point editor speaks the page's language (its name comes from the catalogue)
    if (!p.startsWith('en/') && p !== 'index.html') {
      const english = await page.$$eval('.point-plot, .point', (els) => els.map((e) => e.getAttribute('aria-label') || '')
        .filter((l) => /click to add|^point \d/.test(l)));
      if (english.length) c.problems.push(`the point editor speaks English here: "${english[0]}"`);
    }
    charts += c.charts;
    violations += found.reduce((n, v) => n + v.nodes, 0);
    const lines = found.map((v) => `${v.id} (${v.nodes}): ${v.help}\n       ${v.where.join('\n       ')}`);
    verify(!found.length && !c.problems.length && !pageErrors.length,
      [...lines, ...c.problems, ...pageErrors].join('\n'));
  });
}

test('reduced motion: nothing transitions, animates or scrolls smoothly', async () => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await open('en/dual-form.html');
  const moving = await page.evaluate(() => {
    const out = [];
    if (getComputedStyle(document.documentElement).scrollBehavior === 'smooth') out.push('html scrolls smoothly');
    for (const e of document.querySelectorAll('*')) {
      const s = getComputedStyle(e);
      const long = (v) => v.split(',').some((d) => parseFloat(d) > 0);
      if (long(s.transitionDuration) || long(s.animationDuration)) out.push(`${e.tagName.toLowerCase()}.${e.className}`);
      if (out.length > 5) break;
    }
    return out;
  });
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  verify(!moving.length, `with prefers-reduced-motion: reduce, still moving: ${moving.join(', ')}`);
});

// Presses Tab until `pred` holds for the focused element (at most `limit` presses).
async function tabTo(pred, arg, limit, what) {
  for (let k = 0; k < limit; k++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(pred, arg)) return k + 1;
  }
  throw new Error(`${limit} presses of Tab did not reach ${what}`);
}

test('keyboard alone: regression_lab\'s point editor and the next check', async () => {
  await open('en/learned-update-rules.html');
  const name = await page.evaluate(() => JSON.parse(document.getElementById('lesson-data').textContent)
    .demos.find((d) => d.demo === 'regression_lab').name);
  const sec = `section.demo[data-instance="${name}"]`;
  await page.evaluate(() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); });
  await tabTo((s) => document.activeElement.matches(`${s} .point`), sec, 1500, 'a point of the editor');
  const state = () => page.evaluate((s) => {
    const q = document.querySelector(s);
    return { text: q.querySelector('.point-text').value, count: Number(q.querySelector('.point-plot').dataset.count),
      draws: Number(q.dataset.draws || 0), focused: document.activeElement.getAttribute('aria-label') };
  }, sec);
  const before = await state();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowUp');
  const moved = await state();
  verify(moved.text !== before.text && moved.count === before.count, `arrow keys did not move the point: "${before.text}" -> "${moved.text}"`);
  verify(moved.focused && moved.focused !== before.focused, `the moved point lost the focus or its label did not follow (${moved.focused})`);
  await page.waitForFunction(([s, d]) => Number(document.querySelector(s).dataset.draws || 0) > d, [sec, before.draws], { timeout: 10000 });
  await page.keyboard.press('Delete');
  const removed = await state();
  verify(removed.count === before.count - 1, `Delete did not remove the point (${before.count} -> ${removed.count})`);
  await tabTo((s) => document.activeElement.matches(`${s} .point-text`), sec, 40, 'the points text field');
  await page.keyboard.press('End');
  await page.keyboard.type('; 0.5,0.5');
  await page.keyboard.press('Enter');
  await page.waitForFunction(([s, n]) => Number(document.querySelector(`${s} .point-plot`).dataset.count) === n, [sec, removed.count + 1], { timeout: 5000 });
  // on to the next check, answered and graded by keyboard
  await tabTo(() => Boolean(document.activeElement.closest('section.check') && document.activeElement.matches('input')), null, 400, 'a check');
  const check = await page.evaluate(() => {
    const e = document.activeElement;
    return { id: e.closest('section.check').dataset.check, type: e.type };
  });
  // the focus ring shows: an outline of 3:1 against what is around it (WCAG 1.4.11)
  const ring = await page.evaluate(() => {
    const lum = (rgb) => {
      const [r, g, b] = rgb.map((c) => { const x = c / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const e = document.activeElement, s = getComputedStyle(e);
    let bg = [255, 255, 255];
    for (let p = e.parentElement; p; p = p.parentElement) {
      const m = getComputedStyle(p).backgroundColor.match(/[\d.]+/g);
      if (m && (m.length < 4 || Number(m[3]) > 0.9)) { bg = m.slice(0, 3).map(Number); break; }
    }
    const o = s.outlineColor.match(/[\d.]+/g).slice(0, 3).map(Number);
    const [x, y] = [lum(o), lum(bg)].sort((p, q) => q - p);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth), ratio: (x + 0.05) / (y + 0.05), colour: s.outlineColor };
  });
  verify(ring.style !== 'none' && ring.width >= 2 && ring.ratio >= 3,
    `the focused answer's ring: ${ring.style} ${ring.width}px ${ring.colour}, ${ring.ratio.toFixed(2)}:1 (needs a visible outline of 3:1)`);
  if (check.type === 'text') await page.keyboard.type('1');
  else await page.keyboard.press('Space');
  await tabTo(() => document.activeElement.matches('section.check button[type=submit]'), null, 20, 'the check\'s submit button');
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => {
    const v = document.querySelector(`section.check[data-check="${id}"] .verdict`);
    return v && v.textContent.trim().length > 0;
  }, check.id, { timeout: SETTLE_MS });
});

test('keyboard alone: a glossary term opens its definition in place and Escape closes it', async () => {
  for (const lang of ['en', 'ko']) {
    await open(`${lang}/bayesian-task-inference.html`);
    await page.evaluate(() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); });
    await tabTo(() => document.activeElement.matches('button.term'), null, 200, `a glossary term (${lang})`);
    const term = await page.evaluate(() => ({ id: document.activeElement.dataset.term, text: document.activeElement.textContent }));
    const gloss = () => page.evaluate(() => {
      const b = document.activeElement;
      const pop = b.matches('button.term') ? document.getElementById(b.getAttribute('aria-controls') || '') : null;
      return { focused: b.matches('button.term'), expanded: b.getAttribute('aria-expanded'), shown: pop ? pop.textContent : null,
        visible: pop ? pop.getBoundingClientRect().height > 0 : false, count: document.querySelectorAll('.term-gloss').length };
    });
    await page.keyboard.press('Enter');
    const opened = await gloss();
    const entry = await page.evaluate((id) => JSON.parse(document.getElementById('lesson-data').textContent).glossary[id], term.id);
    verify(entry && opened.expanded === 'true' && opened.visible && opened.shown.startsWith(entry.term),
      `${lang}: Enter on the term "${term.text}" did not open its definition (${JSON.stringify(opened)})`);
    const found = await audit();
    verify(!found.length, `${lang}: with a definition open: ${found.map((v) => `${v.id}: ${v.help}`).join('; ')}`);
    await page.keyboard.press('Escape');
    const closed = await gloss();
    verify(closed.focused && closed.expanded === 'false' && closed.count === 0,
      `${lang}: Escape did not close the definition and keep the focus on its term (${JSON.stringify(closed)})`);
    await page.keyboard.press('Space');
    verify((await gloss()).expanded === 'true', `${lang}: Space did not open the definition again`);
    await page.keyboard.press('Enter');
    verify((await gloss()).count === 0, `${lang}: Enter on an open term did not close its definition`);
  }
});

test.afterAll(async () => {
  console.log(`a11y: ${pages.filter((p) => !only || only.test(p)).length} pages audited, ${violations} axe violations (nodes), ${charts} charts`);
  if (context) await context.close();
  if (served) served.server.kill();
});
