// Where a learner of the emergence lab waits (bench/run emergence):
//   node bench/emergence.mjs build/site build/bin/icl [--no-page]
// Three figures, each beside its budget:
// 1. One emergence run of the lab's default setup with one seed (a run is one model),
//    from Run until its ICL transition — the first evaluation whose ICL accuracy is past
//    halfway from the 2-way floor to 1 (the lab's own crossing, icl/fewshot_eval.h):
//    in the site's wasm core under node on one thread (stepped as the worker steps it,
//    evaluated every eval_every steps), natively (`icl run`, the whole run, the
//    transition's share of it by its step), and in the page (a lesson page built from
//    tests/browser/fixtures/labs/, the lab set to its defaults by the link, Run pressed
//    until done; the transition's time is the run's time × icl_step / steps):
//      transition_wasm ms=<ms> (budget 20000) cpu_ms=<ms> step=<s>
//      transition_native ms=<ms> cpu_ms=<ms> step=<s> run_ms=<ms>
//      transition_wasm_over_native cpu=<wasm cpu / native cpu>
//      transition_page ms=<ms> (budget 20000) step=<s> run_ms=<ms>
// 2. A 12-cell phase diagram over (B, α) = {1, 2, 4} × {0, 0.5, 1, 1.5}, each cell one
//    default-size run with one seed, over 2 workers: in wasm under node (2 worker threads,
//    6 cells each), and natively (2 `icl run` processes side by side, 6 cells each):
//      phase12_wasm_2workers ms=<ms> (budget 180000) cpu_ms=<ms>
//      phase12_native_2procs ms=<ms> (budget 36000: the page's 3 min / 5) cpu_ms=<ms> wasm_over_native=<wasm ms / native ms> cpu_ratio=<wasm cpu / native cpu>
//    (No phase-diagram panel is measured: these are the 12 runs such a panel starts.)
// cpu_ms is user + system time: on a machine shared with other work the wall clock
// measures the neighbours too, the CPU time much less so.
//   emergence: <k> of <n> figures within budget
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { loadCore, putAssets, startLane, stepUntil } from '../web/sitegen/node-core.mjs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const DEMO = 'emergence_lab';
const BUDGET = { transitionMs: 20000, phaseMs: 180000, nativeFactor: 5 };  // natively: the page's budget / 5
const CELLS = [1, 2, 4].flatMap((b) => [0, 0.5, 1, 1.5].map((a) => ({ burstiness: b, zipf: a })));

async function loadSiteCore(site) {
  const core = await loadCore(path.join(site, 'assets'));
  putAssets(core, path.join(site, 'lessons'), ['en/catalogue/common.json', `en/catalogue/${DEMO}.json`]);
  return core;
}

// The first evaluation past the bar in the ICL panel's first series (seed 0), or null.
function crossing(result, bar) {
  const panel = (result.panels || []).filter((p) => p.kind === 'lines')[0];
  const s = panel && panel.series[0];
  if (!s) return null;
  const k = s.y.findIndex((y) => y !== null && y >= bar);
  return k < 0 ? null : s.x[k];
}

// A command's stdout, wall ms and CPU ms (user + system, bash's `times` of its child): on a shared
// machine the CPU time is the figure that does not move with the neighbours' load.
function timed(cmd, args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn('bash', ['-c', '"$@" && times >&2', 'bash', cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => {
      // times: the shell's own user and system times, then its children's ("0m1.470s 0m0.008s")
      const m = err.match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/);
      if (code !== 0 || !m) return reject(new Error(`${cmd} ${args.join(' ')}: exit ${code} ${err.slice(0, 300)}`));
      const seconds = 60 * (Number(m[1]) + Number(m[3])) + Number(m[2]) + Number(m[4]);
      resolve({ out, ms: Math.round(performance.now() - t0), cpuMs: Math.round(seconds * 1000) });
    });
  });
}

// One run with one seed, stepped eval_every steps at a time; stops at its ICL transition.
function transitionWasm(core, params) {
  const { handle } = startLane(core, { demo: DEMO, params: { ...params, seeds: 1 } });
  const info = JSON.parse(core.demos('en')).find((d) => d.id === DEMO);
  const every = params.eval_every ?? info.params.find((p) => p.name === 'eval_every').default;
  const t0 = performance.now(), c0 = process.cpuUsage();
  let step = null;
  // 2-way ICL set: floor 1/2, halfway to 1
  stepUntil(core, handle, every, { snapshot: true, until: (r) => (step = crossing(r, 0.75)) !== null });
  const ms = Math.round(performance.now() - t0);
  const cpu = process.cpuUsage(c0);
  core.drop(handle);
  return { ms, step, cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

// Cells run one after another to done in this thread's own core.
async function cellsWasm(site, cells) {
  const core = await loadSiteCore(site);
  for (const cell of cells) {
    const { handle } = startLane(core, { demo: DEMO, params: { ...cell, seeds: 1 } });
    const result = stepUntil(core, handle, 1000);
    if (result.error) throw new Error(result.error);
    core.drop(handle);
  }
}

if (!isMainThread) {
  await cellsWasm(workerData.site, workerData.cells);
  parentPort.postMessage('done');
} else {
  const site = path.resolve(process.argv[2] || 'build/site');
  const icl = path.resolve(process.argv[3] || 'build/bin/icl');
  const noPage = process.argv.includes('--no-page');
  const figures = [];
  const line = (text, within) => { console.log(text); if (within !== undefined) figures.push(within); };

  // 1. the transition, wasm under node
  const core = await loadSiteCore(site);
  const t = transitionWasm(core, {});
  line(`transition_wasm ms=${t.ms} (budget ${BUDGET.transitionMs}) cpu_ms=${t.cpuMs} step=${t.step ?? 'never'}`, t.step !== null && t.ms <= BUDGET.transitionMs);

  // natively: the whole run, its crossing from the result (the CLI has no slices)
  const steps = JSON.parse(core.demos('en')).find((d) => d.id === DEMO).params.find((p) => p.name === 'steps').default;
  const n1 = await timed(icl, ['run', DEMO, '--set', 'seeds=1', '--json']);
  const nativeStep = crossing(JSON.parse(n1.out), 0.75);
  const share = nativeStep === null ? null : nativeStep / steps;
  line(`transition_native ms=${share === null ? 'never' : Math.round(n1.ms * share)} cpu_ms=${share === null ? 'never' : Math.round(n1.cpuMs * share)} step=${nativeStep ?? 'never'} run_ms=${n1.ms}`);
  console.log(`transition_wasm_over_native cpu=${share === null || t.step === null ? 'n/a' : (t.cpuMs / (n1.cpuMs * share)).toFixed(2)}`);

  // in the page
  if (!noPage) {
    const { root, serveSite, launchChromium } = await import('../tests/browser/serve-and-launch.mjs');
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-bench-emergence-'));
    execFileSync(icl, ['lessons', 'build', '--dir', path.join(root, 'tests/browser/fixtures/labs'), '--out', path.join(work, 'json')], { stdio: 'ignore' });
    execFileSync(process.execPath, [path.join(root, 'web/build-site.mjs'), '--out', path.join(work, 'site'), '--wasm', path.join(path.dirname(site), 'wasm', 'bin'),
      '--lessons', path.join(work, 'json')], { stdio: 'ignore' });
    const { server, origin } = await serveSite(path.join(work, 'site'));
    const browser = await launchChromium();
    const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
    // the lab's defaults (the fixture's short setup undone by the link), one seed
    const info = JSON.parse(core.demos('en')).find((d) => d.id === DEMO);
    const query = new URLSearchParams(info.params.map((p) => [`emergence.${p.name}`, String(p.name === 'seeds' ? 1 : p.default)]));
    await page.goto(`${origin}/en/labs.html?${query}`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60000 });
    const section = page.locator('section.demo[data-instance="emergence"]');
    const p0 = Date.now();
    await section.locator('button.run').click();
    await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('section.demo[data-instance="emergence"]').dataset.state), null, { timeout: 600000, polling: 50 });
    const runMs = Date.now() - p0;
    const [file] = await Promise.all([page.waitForEvent('download'), section.locator('.demo-export button', { hasText: 'JSON' }).click()]);
    const shown = JSON.parse(fs.readFileSync(await file.path(), 'utf8'));
    const step = crossing(shown.result, 0.75);
    const ms = step === null ? null : Math.round(runMs * step / shown.params.steps);
    line(`transition_page ms=${ms ?? 'never'} (budget ${BUDGET.transitionMs}) step=${step ?? 'never'} run_ms=${runMs}`, ms !== null && ms <= BUDGET.transitionMs);
    await browser.close();
    server.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }

  // 2. twelve cells over two workers
  const halves = [CELLS.filter((_, k) => k % 2 === 0), CELLS.filter((_, k) => k % 2 === 1)];
  const w0 = performance.now(), wc0 = process.cpuUsage();
  await Promise.all(halves.map((cells) => new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { site, cells } });
    w.on('message', resolve);
    w.on('error', reject);
  })));
  const wasmMs = Math.round(performance.now() - w0);
  const wc = process.cpuUsage(wc0);
  const wasmCpuMs = Math.round((wc.user + wc.system) / 1000);
  line(`phase12_wasm_2workers ms=${wasmMs} (budget ${BUDGET.phaseMs}) cpu_ms=${wasmCpuMs}`, wasmMs <= BUDGET.phaseMs);

  const n0 = performance.now();
  let nativeCpuMs = 0;
  await Promise.all(halves.map((cells) => (async () => {
    for (const c of cells) {
      nativeCpuMs += (await timed(icl, ['run', DEMO, '--set', 'seeds=1', '--set', `burstiness=${c.burstiness}`, '--set', `zipf=${c.zipf}`, '--json'])).cpuMs;
    }
  })()));
  const nativeMs = Math.round(performance.now() - n0);
  const nativeBudget = Math.round(BUDGET.phaseMs / BUDGET.nativeFactor);
  line(`phase12_native_2procs ms=${nativeMs} (budget ${nativeBudget}) cpu_ms=${nativeCpuMs} wasm_over_native=${(wasmMs / nativeMs).toFixed(2)} cpu_ratio=${(wasmCpuMs / nativeCpuMs).toFixed(2)}`, nativeMs <= nativeBudget);
  console.log(`emergence: ${figures.filter(Boolean).length} of ${figures.length} figures within budget`);
}
