// What every browser spec shares: @playwright/test (loaded from web/node_modules, where
// npm installs it), the paths the ctest suites hand over, the static server, and a
// browser context that records console and page errors and blocks any request that
// leaves 127.0.0.1. Chromium itself is Debian's, launched by the `browser` fixture with
// the options in playwright.config.mjs.
//   ICL_SITE   the built site (scripts/build site), default build/site
//   ICL_BIN    the folder of the native `icl` and `icl-lab`, default build/bin
//   ICL_WASM   the folder of the wasm core (icl_core.js/.wasm), default build/wasm/bin
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root, serveSite } from './serve-and-launch.mjs';

const playwrightTest = createRequire(path.join(root, 'web', 'package.json'))('@playwright/test');
export const { test, expect } = playwrightTest;
export { root, serveSite };

export const site = path.resolve(root, process.env.ICL_SITE || 'build/site');
export const binDir = path.resolve(root, process.env.ICL_BIN || 'build/bin');
export const icl = path.join(binDir, 'icl');
export const wasmDir = path.resolve(root, process.env.ICL_WASM || 'build/wasm/bin');

// The suites' own assertion: a condition and the message that says what went wrong (the
// error's stack starts at the caller, so the report shows the spec's line).
export function verify(cond, message) {
  if (cond) return;
  const error = new Error(message);
  Error.captureStackTrace(error, verify);
  throw error;
}

const local = (url) => {
  const u = new URL(url);
  return u.hostname === '127.0.0.1' || ['data:', 'blob:'].includes(u.protocol);
};

// A context whose pages' console errors, page errors and workers' console errors are
// collected in context.errors; any request that leaves 127.0.0.1 is blocked and recorded
// in `offSite` (an array the suite checks at its end).
export async function watchedContext(browser, options = {}, offSite = []) {
  const context = await browser.newContext(options);
  context.errors = [];
  await context.route('**/*', (route) => {
    if (!local(route.request().url())) {
      offSite.push(route.request().url());
      return route.abort();
    }
    return route.continue();
  });
  context.on('request', (req) => { if (!local(req.url())) offSite.push(req.url()); });
  context.on('page', (page) => {
    page.on('console', (m) => { if (m.type() === 'error') context.errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => context.errors.push(`page error: ${e.message}`));
    page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') context.errors.push(`worker console: ${m.text()}`); }));
  });
  return context;
}

// Throws with every error the context has seen since the last call (and forgets them).
export function expectNoErrors(context, what) {
  const errors = context.errors.splice(0);
  verify(errors.length === 0, `${what}: ${errors.join(' | ')}`);
}

// Serves `dir` for the file's tests (test.beforeAll) and stops it after them; -> a getter
// of the origin.
export function servedSite(dir, args = []) {
  let served = null;
  test.beforeAll(async () => { served = await serveSite(typeof dir === 'function' ? dir() : dir, args); });
  test.afterAll(() => { if (served) served.server.kill(); });
  return () => served.origin;
}

// The built site's index.json ({ lang: [lesson entries] }), read when the tests are listed;
// without it, one failing test that says to build the site.
export function siteIndex(dir = site) {
  const file = path.join(dir, 'index.json');
  if (!fs.existsSync(file)) {
    test('the built site is there', () => verify(false, `no ${file}: build the site first (scripts/build site)`));
    return {};
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// The JSON a built page carries in <script type="application/json" id="...">, as the
// page reads it: a lesson page's lesson-data, an embed page's embed-data. Without the tag,
// null if `optional`, else an error.
export function pageData(file, id, dir = site, { optional = false } = {}) {
  const html = fs.readFileSync(path.join(dir, file), 'utf8');
  const m = html.match(new RegExp(`<script type="application/json" id="${id}">([\\s\\S]*?)</script>`));
  if (!m && optional) return null;
  verify(m, `${file} has no ${id}`);
  return JSON.parse(m[1]);
}
export const embedData = (lang, demo, dir = site) => pageData(`${lang}/embed/${demo}.html`, 'embed-data', dir);
