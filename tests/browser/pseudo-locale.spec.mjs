// A language is a folder. A fixture language, en-XA — a pseudo-locale: every catalogue
// text of English accented and bracketed ("Run" -> "[Ŕûñ]"), placeholders kept — is made
// at test time in a temporary lessons tree (English's catalogues and lesson 2, and its
// pseudo translation, which lacks one text on purpose). Then, with no C++ change:
// - the lint finds the language and lists what it lacks against English (a warning);
// - the site build makes its pages; the index and the language switch list it, named in
//   its own words; its page shows its words, and its worker computes the demo's result
//   with its texts (the panel titles are bracketed), the lacking text in English, no
//   ⟦missing key⟧ anywhere, no console error; a link's bad parameter is refused in its words;
//   and the browser suite's page checks (tests/browser/run-pages.spec.mjs) pass on it;
// - the CLI lists the demos in it, and the desktop app opens the lesson in it (under Xvfb,
//   when icl-lab was built) and refuses a language that has no folder.
//   ctest --test-dir build/wasm -R pseudo-locale   (playwright project pseudo-locale)
// Every check is a soft one: a test goes on past it and fails at its end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync, spawn } from 'node:child_process';
import { test, expect, root, binDir as bin, icl, wasmDir as wasm, serveSite } from './harness.mjs';

const check = (cond, message) => expect.soft(Boolean(cond), message).toBe(true);
const bad = (message) => check(false, message);

// ---- the fixture language ------------------------------------------------------------
const accents = { a: 'å', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', w: 'ŵ', y: 'ý', z: 'ž', A: 'Å', E: 'É', O: 'Ö', R: 'Ŕ', S: 'Š', T: 'Ţ' };
// Accents the letters outside {placeholders} and brackets the whole: "[Ŕûñ {n}]".
const pseudo = (text) => `[${text.split(/(\{[^}]*\})/).map((part, i) => (i % 2 ? part : part.replace(/[A-Za-z]/g, (c) => accents[c] || c))).join('')}]`;

// The temporary lessons tree and its site, made before the tests (and made again in a new
// worker after a failure).
let tree, lessons, english, title, site, siteError = null;
const lessonFile = '02-dual-form.md';
test.beforeAll(() => {
  tree = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'icl-pseudo-'));
  lessons = path.join(tree, 'lessons');
  fs.mkdirSync(path.join(lessons, 'en', 'catalogue'), { recursive: true });
  fs.mkdirSync(path.join(lessons, 'en-XA', 'catalogue'), { recursive: true });
  fs.copyFileSync(path.join(root, 'lessons', 'en', lessonFile), path.join(lessons, 'en', lessonFile));
  english = {};
  for (const f of fs.readdirSync(path.join(root, 'lessons', 'en', 'catalogue')).filter((x) => x.endsWith('.json'))) {
    const messages = JSON.parse(fs.readFileSync(path.join(root, 'lessons', 'en', 'catalogue', f), 'utf8'));
    english[f] = messages;
    fs.writeFileSync(path.join(lessons, 'en', 'catalogue', f), JSON.stringify(messages));
    const translated = Object.fromEntries(Object.entries(messages).map(([k, v]) => [k, k === 'page.langName' ? 'Pseudo' : pseudo(v)]));
    if (f === 'dual_form.json') delete translated.summary;  // lacking: English shows
    fs.writeFileSync(path.join(lessons, 'en-XA', 'catalogue', f), JSON.stringify(translated));
  }
  // The glossary the lesson's term links name, English's in both (its glosses hold TeX,
  // which the pseudo accents would break).
  for (const l of ['en', 'en-XA']) fs.copyFileSync(path.join(root, 'lessons', 'en', 'glossary.json'), path.join(lessons, l, 'glossary.json'));
  const lessonText = fs.readFileSync(path.join(root, 'lessons', 'en', lessonFile), 'utf8');
  title = lessonText.match(/^title: (.*)$/m)[1];
  fs.writeFileSync(path.join(lessons, 'en-XA', lessonFile), lessonText.replace(/^title: .*$/m, `title: ${pseudo(title)}`));

  site = path.join(tree, 'site');
  try {
    execFileSync(process.execPath, [path.join(root, 'web', 'build-site.mjs'), '--out', site, '--wasm', wasm, '--icl', icl, '--sources', lessons],
      { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    siteError = String(e.stderr || e.message);
  }
});
test.afterAll(() => { if (tree) fs.rmSync(tree, { recursive: true, force: true }); });

// ---- the lint and the CLI --------------------------------------------------------------
test('the lint lists what en-XA lacks; the CLI lists the demos in en-XA', () => {
  const lint = spawnSync(icl, ['lessons', 'check', '--dir', lessons], { encoding: 'utf8' });
  const lintOut = lint.stdout + lint.stderr;
  check(lint.status === 0, `lessons check failed (${lint.status}): ${lintOut}`);
  check(/en-XA\/catalogue\/dual_form\.json: warning: lacks 1 of English's texts \(summary\)/.test(lintOut),
    `the lint does not list what en-XA lacks: ${lintOut}`);
  const demos = spawnSync(icl, ['demos', '--lang', 'en-XA'], { encoding: 'utf8', env: { ...process.env, ICL_LESSONS_DIR: lessons } });
  check(demos.status === 0 && demos.stdout.includes(`dual_form                ${pseudo(english['dual_form.json'].title)}`),
    `icl demos --lang en-XA: ${demos.status} ${demos.stdout.slice(0, 300)}${demos.stderr}`);
});

// ---- the site ----------------------------------------------------------------------------
test('the site build makes en-XA\'s pages: its words, its demo result, its error texts; the page checks pass on it', async ({ browser }) => {
  check(siteError === null, `the site build failed: ${siteError}`);
  if (fs.existsSync(path.join(site, 'en-XA', 'dual-form.html'))) {
    const { server, origin } = await serveSite(site);
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}/index.html`);
      const xaTitle = await page.locator('.lesson-card a[hreflang="en-XA"][href="en-XA/dual-form.html"]').textContent().catch(() => null);
      check(xaTitle === pseudo(title), `the index does not link the en-XA lesson by its title: ${xaTitle}`);
      check(await page.locator('a[href="en-XA/review.html"]').count() === 1, 'the index has no en-XA review link');

      await page.goto(`${origin}/en-XA/dual-form.html`);
      await page.waitForFunction(() => document.body.dataset.ready === 'true'
      && [...document.querySelectorAll('section.demo')].some((s) => s.dataset.state === 'done' && Number(s.dataset.draws) > 0),
      null, { timeout: 60000, polling: 50 });
      check(await page.evaluate(() => document.documentElement.lang) === 'en-XA', 'the page is not lang="en-XA"');
      const toEnglish = page.locator('a.lang-switch[hreflang="en"]');
      check(await toEnglish.count() === 1 && (await toEnglish.textContent()) === english['site.json']['page.langName'],
        'the switch does not lead to English by its name');
      const demo = page.locator('section.demo').first();
      const kicker = await demo.locator('.kicker').first().textContent();
      check(kicker === pseudo(english['site.json']['page.demo']), `the demo's kicker is not en-XA's word: ${kicker}`);
      check((await demo.locator('.demo-summary').textContent()) === english['dual_form.json'].summary,
        'the summary en-XA lacks is not shown in English');
      const drawn = await demo.locator('.demo-body').textContent();
      const firstPanelTitle = pseudo(english['dual_form.json'][Object.keys(english['dual_form.json']).find((k) => !k.startsWith('param.') && k !== 'title' && k !== 'summary')]);
      check(drawn.includes('[') && /[åéîöû]/.test(drawn), `the demo's result is not in en-XA: ${drawn.slice(0, 200)}`);
      check(drawn.includes(firstPanelTitle), `the first panel title ${firstPanelTitle} is not drawn`);
      const body = await page.evaluate(() => document.body.innerText);
      check(!body.includes('⟦'), `a text is missing (⟦key⟧): ${body.slice(body.indexOf('⟦'), body.indexOf('⟦') + 60)}`);
      check(errors.length === 0, `console errors: ${errors.join(' | ')}`);

      // A link's bad value is worded by the core in the page's language (common.json's
      // error.* texts): the notice holds en-XA's text with the values filled in.
      await page.goto(`${origin}/en-XA/dual-form.html?dual_form.lr=99#demo-dual_form`);
      await page.waitForFunction(() => document.querySelector('#notices .notice'), null, { timeout: 30000, polling: 50 });
      const said = await page.locator('#notices').textContent();
      const wanted = pseudo(english['common.json']['error.param_out_of_range']).replace('{name}', 'lr').replace('{value}', '99');
      check(said.includes(wanted.slice(0, wanted.indexOf('{min}'))), `the bad link's notice is not en-XA's error text: ${said.slice(0, 300)}`);
    } catch (e) {
      bad(`the en-XA page: ${e.message.split('\n')[0]}`);
    } finally {
      server.kill();
    }
    // The browser suite's own checks of a lesson page, on en-XA's: it loads with no console
    // error and its demos draw, its checks are graded right and wrong and kept over a
    // reload, a slider redraws, 375 px does not scroll sideways.
    // (a playwright run of its own, on this site, its output in the tree; the worker's TEST_*
    // variables are not passed on)
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TEST_|PW_|PLAYWRIGHT_)/.test(k) || k === 'PW_DISABLE_TS_ESM'));
    const suite = spawnSync(path.join(root, 'web', 'node_modules', '.bin', 'playwright'),
      ['test', '-c', path.join(root, 'tests', 'browser', 'playwright.config.mjs'), '--project', 'browser', '-g', 'en-XA/dual-form: ',
        '--reporter', 'line', '--output', path.join(tree, 'playwright')], {
        cwd: root, encoding: 'utf8', env: { ...env, ICL_SITE: site, BROWSER_LANGS: 'en-XA', ICL_LESSONS_DIR: lessons } });
    const passed = (suite.stdout.match(/(\d+) passed/) || [])[1];
    check(suite.status === 0 && Number(passed) >= 4 && !/\d+ (failed|skipped|flaky)/.test(suite.stdout),
      `the browser suite's page checks on en-XA/dual-form: ${suite.status}\n${suite.stdout.slice(-1500)}${suite.stderr.slice(-500)}`);
  } else bad('the site has no en-XA/dual-form.html');
});

// ---- the desktop app ---------------------------------------------------------------------
test('the desktop app opens the lesson in en-XA and refuses a language with no folder', async () => {
  const app = path.join(bin, 'icl-lab');
  const hasXvfb = spawnSync('sh', ['-c', 'command -v Xvfb']).status === 0;
  test.skip(!fs.existsSync(app) || !hasXvfb, 'no icl-lab or no Xvfb');
  {
    let display = 99;
    while (fs.existsSync(`/tmp/.X${display}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${display}`)) display++;
    const xvfb = spawn('Xvfb', [`:${display}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    for (let i = 0; i < 50 && !fs.existsSync(`/tmp/.X11-unix/X${display}`); i++) await new Promise((r) => setTimeout(r, 100));
    const env = { ...process.env, DISPLAY: `:${display}`, XDG_STATE_HOME: path.join(tree, 'state') };
    const shot = path.join(tree, 'xa.png');
    const run = spawnSync(app, ['--lessons', lessons, '--lang', 'en-XA', '--lesson', 'dual-form', '--frames', '4', '--screenshot', shot],
      { encoding: 'utf8', env });
    check(run.status === 0 && /^lesson dual-form en-XA$/m.test(run.stdout) && fs.existsSync(shot) && fs.statSync(shot).size > 10000,
      `icl-lab --lang en-XA: status ${run.status}, ${run.stdout.slice(0, 200)} ${run.stderr.slice(0, 300)}`);
    check(!/font .* not found|⟦/.test(run.stderr), `icl-lab --lang en-XA: ${run.stderr.slice(0, 300)}`);
    const none = spawnSync(app, ['--lessons', lessons, '--lang', 'fr', '--frames', '1'], { encoding: 'utf8', env });
    check(none.status === 2 && none.stderr.includes("no language 'fr' in the lessons folder (it has en, en-XA"),
      `icl-lab --lang fr: ${none.status} ${none.stderr}`);
    xvfb.kill();
  }
});
