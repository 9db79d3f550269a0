// What the browser suites (through harness.mjs and playwright.config.mjs), the desktop
// app's browser test and the benchmarks start with: the site served by web/serve.mjs on a
// free 127.0.0.1 port, and Debian's Chromium headless through playwright-core from
// web/node_modules.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { chromium } = createRequire(path.join(root, 'web', 'package.json'))('playwright-core');

// Serves `site` (with serve.mjs's further `args`, e.g. --watch); resolves to { server,
// origin, log } once serve.mjs prints its URL; log() is all it has printed so far.
export async function serveSite(site, args = []) {
  const server = spawn(process.execPath, [path.join(root, 'web', 'serve.mjs'), site, '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  // However the suite ends (an uncaught error too), the server goes with it: left running it
  // holds the suite's stderr open and ctest waits for it until its timeout (25 minutes).
  process.on('exit', () => server.kill());
  let text = '';
  server.stdout.on('data', (d) => { text += d; });
  const origin = await new Promise((resolve, reject) => {
    server.stdout.on('data', () => {
      const m = text.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${text}`)));
  });
  return { server, origin, log: () => text };
}

// gl: WebGL2 through SwiftShader (for /lab/) instead of no GPU at all.
// The omnibox popup's WebUI off: headless Chromium 156 loads it (chrome://omnibox-popup,
// 200-400 requests) into every new context's window, on the same two cores as the page
// under test; a learner's browser loads it once, not with each page. With it, a fresh
// context's first paint of en/gpt3-in-context was 412-648 ms, without it 280-360 ms
// (bench/web.mjs's figures measure the page, not the browser's own UI).
export function chromiumLaunchOptions({ gl = false } = {}) {
  return {
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', gl ? '--use-gl=swiftshader' : '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
      ...(gl ? ['--enable-unsafe-swiftshader'] : [])],
  };
}
export function launchChromium(options) {
  return chromium.launch(chromiumLaunchOptions(options));
}
