// What a learner downloads and waits for, in headless Chromium (bench/run web).
//   node bench/web.mjs build/site [--phase-change]
// For every lesson page in both languages, each in a fresh browser context (an empty
// cache, as a first visit): the bytes of its first load (every response body as sent,
// fonts and the worker's fetches included, from navigation until the first demo result is drawn and
// the network is idle, the window not scrolled) and the first result's time after
// navigation (performance.now() when the first demo result is drawn), the median of
// FIRST_VISITS first visits with its spread. Beside it, its anchor: the same page's own
// first paint with JavaScript off (first-contentful-paint; its files are still fetched
// as the preload scanner finds them, none runs) — what the browser needs to show the
// page at all, before any demo; its median and spread over as many visits, taken
// alternately with the first ones. Then the same page again in a context that has
// already opened another lesson (the next lesson of a visit: the wasm core comes from
// the cache). Then /lab/ (WebGL through SwiftShader): the bytes until the app has
// started. Each figure is printed beside its budget:
//   lesson=<lang>/<id> first_load_bytes=<n> (budget 800000) first_result_ms=<ms> (budget 500; <lo>-<hi>) page_paint_no_js_ms=<ms> (<lo>-<hi>) next_visit_ms=<ms>
//   lab bytes=<n> (budget 4000000) start_ms=<ms>   (start_ms=failed (<why>) when /lab/ does not start)
// and the learner's longest wait: induction_heads in its English lesson page,
// Run pressed, until the page shows the phase change (its phase_step scalar >= 0) —
// the worker's slices, each slice's JSON, its message to the page and the drawing all
// included, as a learner waits for it:
//   phase_change_page ms=<ms> (budget 10000) step=<s>
// With --lanes, only the demos whose models train in workers of their own (core lanes, beyond
// induction_heads' phase change above): each in its English lesson page, Run pressed until
// the block is done, LANE_ROUNDS times as the site is, alternating with its anchor, the same
// page with the worker's helpers switched off (its script served with the two-core test
// made false: every lane trains in one worker, as before lanes); medians and spreads:
//   lanes_page demo=<id> ms=<ms> (<lo>-<hi>) one_worker_ms=<ms> (<lo>-<hi>) ratio=<ms/one_worker_ms>
// and each lane of the block's session alone in the site's wasm core under node (LANE_ROUNDS
// times, medians): what a machine with a core per worker waits, the drawing aside:
//   lanes_alone demo=<id> lane0_ms=<ms> lane1_ms=<ms> ... slowest_ms=<ms>
// With --runs, only every English page's demos that wait for Run (the training ones): each
// in a fresh context, Run pressed until the block is done, RUN_ROUNDS times; medians and
// spreads, then the longest of the medians — every wait a learner's Run costs:
//   run_page lesson=<id> demo=<instance> ms=<ms> (<lo>-<hi>)
//   run_page_longest lesson=<id> demo=<instance> ms=<ms>
//   browser_ui_pages=<n> (expected 0)   (the browser's own pages it opened meanwhile)
//   web: <k> of <n> figures within budget
import fs from 'node:fs';
import path from 'node:path';
import { loadCore, putAssets, startLane, stepUntil } from '../web/sitegen/node-core.mjs';
import { serveSite, launchChromium } from '../tests/browser/serve-and-launch.mjs';

const site = path.resolve(process.argv[2] || 'build/site');
const phaseOnly = process.argv.includes('--phase-change');  // only the phase change (bench/run web --phase-change)
const lanesOnly = process.argv.includes('--lanes');  // only the lanes' figures (bench/run web --lanes)
const LANE_DEMOS = ['fast_weights', 'momentum_attention'];
const LANE_ROUNDS = 3;
const runsOnly = process.argv.includes('--runs');  // every Run to done (bench/run web --runs)
const RUN_ROUNDS = 3;
const BUDGET = { lessonBytes: 800000, firstResultMs: 500, labBytes: 4000000, phaseChangeMs: 10000 };
const VIEWPORT = { width: 1280, height: 800 };
const FIRST_VISITS = 3;  // a fresh context's first visit varies by ±40 % here: medians

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[(s.length - 1) >> 1]; };
const spread = (xs) => `${Math.min(...xs)}-${Math.max(...xs)}`;

// The page's first-contentful-paint in a fresh context with JavaScript off; null when
// headless Chromium reports none within 15 s.
async function paintWithoutScripts(browser, url) {
  const context = await browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(url);
    // asked from here: with the page's scripts off, waitForFunction's polling in the page
    // missed the entry on some loads (its 15 s ran out)
    for (const until = Date.now() + 15000; Date.now() < until;) {
      const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime);
      if (fcp !== undefined) return Math.round(fcp);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return null;
  } finally {
    await context.close();
  }
}

// Bytes of every response the page and its workers receive: bodies as they travel
// (gzip-encoded where web/serve.mjs has a precompressed copy).
function countBytes(page) {
  const counter = { bytes: 0, pending: [] };
  page.on('requestfinished', (req) => {
    counter.pending.push(req.sizes().then((s) => { counter.bytes += s.responseBodySize; }, () => {}));
  });
  return counter;
}

// A page that carries its first demo's result (web/sitegen/site.mjs, firstResult: an
// analytic demo's result, or the first step of one that waits for Run) draws it as soon
// as that block is parsed (web/src/first-result.js); one with an analytic demo that needs
// no file draws its live result at once; a page with neither draws nothing before Run or
// a scroll (n/a).
async function firstResult(page, url, drawsAtLoad) {
  await page.goto(url);
  if (!drawsAtLoad) {
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000, polling: 20 });
    return 'n/a';
  }
  await page.waitForFunction(() => document.body.dataset.firstDrawMs, null, { timeout: 60000, polling: 20 });
  return Number(await page.evaluate(() => document.body.dataset.firstDrawMs));
}

// Each lane of a demo's session alone, in the site's wasm core under node, stepped to done
// through the worker API as a worker would (the whole session with every lane offloaded for
// lane 0, start_lane for the others): ms per lane, lane 0 first. The page's wait on a
// machine with a core per worker is about the slowest, plus the drawing.
let benchCore = null;
async function lanesAlone(demo, params) {
  if (!benchCore) benchCore = await loadCore(path.join(site, 'assets'));
  const core = benchCore;
  putAssets(core, path.join(site, 'lessons'), ['en/catalogue/common.json', `en/catalogue/${demo}.json`]);
  const setup = { demo, params: params || {} };
  const first = startLane(core, setup);
  core.drop(first.handle);
  const times = [];
  for (let k = 0; k < first.lanes; k += 1) {
    const t0 = performance.now();
    const { handle } = startLane(core, { ...setup, lane: k });
    stepUntil(core, handle, 50);
    times.push(Math.round(performance.now() - t0));
    core.drop(handle);
  }
  return times;
}

// A demo block's Run until it is done, in ms, in a fresh context; oneWorker serves the
// page's worker script with its helper switched off (the anchor of --lanes).
async function runToDone(url, instance, oneWorker) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  let patched = 0;
  if (oneWorker) {
    await context.route('**/worker.js', async (route) => {
      const response = await route.fetch();
      const text = await response.text();
      const body = text.replace('(navigator.hardwareConcurrency || 2) < 2', 'true');
      if (body !== text) patched += 1;
      const headers = { ...response.headers() };
      delete headers['content-encoding'];  // the body is the decoded text now, its length Playwright's
      delete headers['content-length'];
      await route.fulfill({ response, body, headers });
    });
  }
  const page = await context.newPage();
  await page.goto(url);
  const sel = `section.demo[data-instance="${instance}"]`;
  await page.waitForFunction((s) => document.body.dataset.ready === 'true' && document.querySelector(s).dataset.state === 'idle',
    sel, { timeout: 60000, polling: 50 });
  if (oneWorker && !patched) throw new Error('the worker script was not served patched: no one-worker anchor');
  const section = page.locator(sel);
  await section.scrollIntoViewIfNeeded();
  const t0 = await page.evaluate(() => performance.now());
  await section.locator('button.run').click();
  const handle = await page.waitForFunction((s) => {
    const b = document.querySelector(s);
    return b.dataset.state === 'done' || b.dataset.state === 'error' ? { at: performance.now(), state: b.dataset.state } : null;
  }, sel, { timeout: 600000, polling: 50 });
  const { at, state } = await handle.jsonValue();
  await context.close();
  if (state !== 'done') throw new Error(`${instance} ended in ${state}`);
  return Math.round(at - t0);
}

// The server and the browser are always stopped, whatever fails in between (a page
// that never draws, /lab/ that never starts): the process then exits.
const { server, origin } = await serveSite(site);
let browser = null;
try {
  browser = await launchChromium({ gl: true });
  // The browser's own pages opened during the run (browser_ui targets, such as the omnibox
  // popup launchChromium's flags keep out): 0, unless a later Chromium renamed those
  // features — then the figures above time the browser's UI as well.
  const cdp = await browser.newBrowserCDPSession();
  let browserUi = 0;
  cdp.on('Target.targetCreated', (e) => { if (e.targetInfo.type === 'browser_ui') browserUi += 1; });
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  let within = 0, total = 0;
  // note: more said inside the parentheses (a spread)
  const judge = (value, budget, note = '') => {
    if (typeof value !== 'number') return `${value} (budget ${budget}${note})`;
    total += 1;
    if (value <= budget) within += 1;
    return `${value} (budget ${budget}${note})`;
  };

  // Which pages draw a result at load (read from the built pages).
  const analyticOf = {};

  const index = JSON.parse(fs.readFileSync(path.join(site, 'index.json'), 'utf8'));
  // A built page's text and its lesson data (the demos with their info)
  const pageOf = (lang, id) => {
    const html = fs.readFileSync(path.join(site, lang, `${id}.html`), 'utf8');
    return { html, data: JSON.parse(html.match(/<script type="application\/json" id="lesson-data">([\s\S]*?)<\/script>/)[1]) };
  };
  for (const lang of ['en', 'ko']) {
    for (const entry of index[lang]) {
      const { html, data } = pageOf(lang, entry.id);
      // An analytic demo that reads a checkpoint waits until its block is near the view
      // (web/src/lesson.js): only one without files draws live at load.
      analyticOf[`${lang}/${entry.id}`] = html.includes('<script type="application/json" id="first-result">')
        || data.demos.some((d) => d.info.analytic && !(d.info.assets || []).length);
    }
  }
  for (const lang of phaseOnly || lanesOnly || runsOnly ? [] : ['en', 'ko']) {
    for (const entry of index[lang]) {
      const url = `${origin}/${lang}/${entry.id}.html`;
      let bytes = null, ms = null, next = null, firsts = [], paints = [];
      if (entry.demos.length) {
        const analytic = analyticOf[`${lang}/${entry.id}`];
        for (let visit = 0; visit < FIRST_VISITS; visit += 1) {
          // a page that draws nothing at load has no first result to repeat: its paint only
          if (visit === 0 || analytic) {
            const context = await browser.newContext({ viewport: VIEWPORT });
            const page = await context.newPage();
            const counter = visit === 0 ? countBytes(page) : null;
            firsts.push(await firstResult(page, url, analytic));
            if (visit === 0) {
              await page.waitForLoadState('networkidle');
              await Promise.all(counter.pending);
              bytes = counter.bytes;
              // the next lesson of the same visit: another page first, then this one
              const other = index[lang].find((e) => e.id !== entry.id && e.demos.length);
              if (other) await firstResult(page, `${origin}/${lang}/${other.id}.html`, false);
              next = await firstResult(page, url, analytic);
            }
            await context.close();
          }
          const paint = await paintWithoutScripts(browser, url);
          if (paint !== null) paints.push(paint);
        }
        ms = analytic ? median(firsts) : 'n/a';
      }
      const firstSpread = typeof ms === 'number' ? `; ${spread(firsts)}` : '';
      const paint = paints.length ? `${median(paints)} (${spread(paints)})` : null;
      console.log(`lesson=${lang}/${entry.id} first_load_bytes=${judge(bytes, BUDGET.lessonBytes)} first_result_ms=${judge(ms, BUDGET.firstResultMs, firstSpread)} page_paint_no_js_ms=${paint} next_visit_ms=${next}`);
    }
  }

  const induction = index.en.find((e) => e.demos.includes('induction_heads'));
  if (induction && !lanesOnly && !runsOnly) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto(`${origin}/en/${induction.id}.html`);
    const section = page.locator('section.demo[data-instance="induction_heads"]');
    await page.waitForFunction(() => document.body.dataset.ready === 'true'
      && document.querySelector('section.demo[data-instance="induction_heads"]').dataset.state === 'idle',
    null, { timeout: 60000, polling: 50 });
    await section.scrollIntoViewIfNeeded();
    // timed in the page, from the click to the first drawing whose phase_step is a number >= 0
    const t0 = await page.evaluate(() => performance.now());
    await section.locator('button.run').click();
    const handle = await page.waitForFunction(() => {
      const s = document.querySelector('section.demo[data-instance="induction_heads"]');
      const box = s.querySelector('.scalar[data-name="phase_step"]');  // the label is in words; the name is data
      const value = box && Number(box.querySelector('.scalar-number').title);
      if (value >= 0) return { at: performance.now(), step: value };
      return s.dataset.state === 'done' || s.dataset.state === 'error' ? { at: -1, step: -1 } : null;
    }, null, { timeout: 120000, polling: 20 });
    const { at, step } = await handle.jsonValue();
    const ms = at < 0 ? 'never' : Math.round(at - t0);
    console.log(`phase_change_page ms=${judge(ms, BUDGET.phaseChangeMs)} step=${step}`);
    await context.close();
  }

  if (runsOnly) {
    let longest = null;
    for (const entry of index.en) {
      for (const d of pageOf('en', entry.id).data.demos.filter((x) => !x.info.analytic)) {
        const times = [];
        for (let round = 0; round < RUN_ROUNDS; round += 1) times.push(await runToDone(`${origin}/en/${entry.id}.html`, d.name, false));
        const ms = median(times);
        console.log(`run_page lesson=${entry.id} demo=${d.name} ms=${ms} (${spread(times)})`);
        if (!longest || ms > longest.ms) longest = { lesson: entry.id, demo: d.name, ms };
      }
    }
    if (longest) console.log(`run_page_longest lesson=${longest.lesson} demo=${longest.demo} ms=${longest.ms}`);
  } else if (lanesOnly) {
    for (const demo of LANE_DEMOS) {
      const entry = index.en.find((e) => pageOf('en', e.id).html
        .includes(`data-instance="${demo}"`));
      if (!entry) { console.log(`lanes_page demo=${demo} not in an English page`); continue; }
      const withLanes = [], oneWorker = [];
      for (let round = 0; round < LANE_ROUNDS; round += 1) {
        withLanes.push(await runToDone(`${origin}/en/${entry.id}.html`, demo, false));
        oneWorker.push(await runToDone(`${origin}/en/${entry.id}.html`, demo, true));
      }
      const a = median(withLanes), b = median(oneWorker);
      console.log(`lanes_page demo=${demo} ms=${a} (${spread(withLanes)}) one_worker_ms=${b} (${spread(oneWorker)}) ratio=${(a / b).toFixed(2)}`);
      const block = pageOf('en', entry.id).data.demos.find((d) => d.name === demo);
      const alone = [];
      for (let round = 0; round < LANE_ROUNDS; round += 1) alone.push(await lanesAlone(block.demo, block.params));
      const laneMs = alone[0].map((_, k) => median(alone.map((r) => r[k])));
      console.log(`lanes_alone demo=${demo} ${laneMs.map((ms, k) => `lane${k}_ms=${ms}`).join(' ')} slowest_ms=${Math.max(...laneMs)}`);
    }
  } else if (phaseOnly) {
    // nothing more
  } else if (fs.existsSync(path.join(site, 'lab', 'index.html'))) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const counter = countBytes(page);
    const t0 = Date.now();
    let startMs;
    // A file of /lab/'s that does not come (4xx/5xx) or an uncaught error is a failed start
    // at once, not after the timeout.
    const broken = new Promise((resolve, reject) => {
      page.on('response', (r) => { if (r.status() >= 400) reject(new Error(`${r.url().replace(origin, '')} answered ${r.status()}`)); });
      page.on('pageerror', (e) => reject(e));
    });
    broken.catch(() => {});
    try {
      await page.goto(`${origin}/lab/`);
      // started: the loading notice is hidden once the runtime (and its packed data) is up
      // (or failed: lab-boot.js shows its error in the same box and keeps it)
      await Promise.race([broken, page.waitForFunction(() => {
        const s = document.getElementById('status');
        return s && (s.hidden || s.className === 'error');
      }, null, { timeout: 120000, polling: 50 })]);
      const status = await page.evaluate(() => document.getElementById('status').className === 'error' && document.getElementById('status').textContent);
      if (status) throw new Error(status);
      startMs = Date.now() - t0;
      await page.waitForLoadState('networkidle');
    } catch (e) {
      // /lab/ did not start: reported as such (its bytes are what did come), and the run
      // goes on to close the browser and the server.
      startMs = `failed (${String(e && e.message ? e.message : e).split('\n')[0].slice(0, 160)})`;
    }
    await Promise.all(counter.pending);
    if (typeof startMs !== 'number') total += 1;  // a failed start is a figure out of budget
    console.log(`lab bytes=${judge(counter.bytes, BUDGET.labBytes)} start_ms=${startMs}`);
    await context.close();
  } else {
    console.log('lab: not built (no lab/index.html in the site)');
  }
  console.log(`browser_ui_pages=${browserUi} (expected 0)`);
  console.log(`web: ${within} of ${total} figures within budget`);
} catch (e) {
  console.error(`web: stopped: ${e && e.stack ? e.stack : e}`);
  process.exitCode = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  server.kill();
}
