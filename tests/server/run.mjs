// The static server (web/serve.mjs) against hostile requests (docs/bad-input.md): each
// case starts from what a tester broke. The server runs in a child process, as
// `scripts/serve` runs it, so a crash or its memory is seen from outside.
//   node tests/server/run.mjs
// Ends with "server: N passed, M failed".
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// A site folder "site" and, beside it, "site-secret" whose name starts with the site's.
export function makeSite() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'icl-serve-'));
  const site = path.join(base, 'site');
  fs.mkdirSync(path.join(site, 'lab'), { recursive: true });
  fs.mkdirSync(path.join(base, 'site-secret'));
  fs.writeFileSync(path.join(base, 'site-secret', 's.txt'), 'SECRET-OUTSIDE-THE-SITE');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'SECRET-OUTSIDE-THE-SITE');
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>index</title>');
  fs.writeFileSync(path.join(site, 'lab', 'index.html'), '<!doctype html><title>lab</title>');
  fs.mkdirSync(path.join(site, 'en', 'embed'), { recursive: true });
  fs.writeFileSync(path.join(site, 'en', 'attention.html'), '<!doctype html><title>lesson</title>');
  fs.writeFileSync(path.join(site, 'en', 'embed', 'gpt_scaling.html'), '<!doctype html><title>embed</title>');
  fs.writeFileSync(path.join(site, 'digits.txt'), '0123456789');
  fs.writeFileSync(path.join(site, 'big.data'), Buffer.alloc(8 << 20, 7));
  fs.symlinkSync(path.join(base, 'outside.txt'), path.join(site, 'link-out.txt'));
  // Precompressed copies as web/gzip-site.mjs writes them: a fresh one, and a stale one
  // (older than its file, as after a rebuild that did not compress again).
  fs.writeFileSync(path.join(site, 'page.js'), 'console.log("page");\n'.repeat(200));
  execFileSync(process.execPath, [path.join(repo, 'web', 'gzip-site.mjs'), site]);
  fs.writeFileSync(path.join(site, 'stale.js'), 'NEW CONTENT\n'.repeat(50));
  fs.writeFileSync(path.join(site, 'stale.js.gz'), zlib.gzipSync('OLD CONTENT\n'.repeat(50)));
  const past = new Date(Date.now() - 60000);
  fs.utimesSync(path.join(site, 'stale.js.gz'), past, past);
  execFileSync('mkfifo', [path.join(site, 'fifo.json')]);
  return { base, site };
}

export function startServer(site, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repo, 'web', 'serve.mjs'), site, '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`serve.mjs exited (${code})`)));
  });
}

// One raw request; resolves to { status, headers, body } or { error }.
export function raw(port, text, timeoutMs = 3000) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => { socket.destroy(); resolve({ status: 0, headers: {}, body: '', error: 'timeout' }); }, timeoutMs);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (e) => { clearTimeout(timer); resolve({ status: 0, headers: {}, body: '', error: e.code || String(e) }); });
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(all);
      const [head, ...rest] = all.split('\r\n\r\n');
      const headers = {};
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: m ? Number(m[1]) : 0, headers, body: rest.join('\r\n\r\n') });
    });
  });
}

const get = (port, target, extra = '', method = 'GET') =>
  raw(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`);

function rssKb(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

async function main() {
  const { base, site } = makeSite();
  const { child, port } = await startServer(site);
  let pass = 0, fail = 0;
  const check = (name, ok, detail) => {
    if (ok) pass++;
    else { fail++; console.log(`FAIL ${name}: ${detail}`); }
  };
  const alive = async () => (await get(port, '/digits.txt')).status === 200;
  try {
    for (const target of ['/%00', '/a%00b.html', '/%', '/%E0%A4%A', '/..%5c..%5cetc%5cpasswd']) {
      const r = await get(port, target);
      check(`malformed ${target}`, r.status >= 400 && r.status < 500 && await alive(), `status ${r.status} ${r.error || ''}`);
    }
    for (const target of ['/..%2fsite-secret%2fs.txt', '/../site-secret/s.txt', '/%2e%2e/outside.txt', '/link-out.txt']) {
      const r = await get(port, target);
      check(`outside ${target}`, r.status >= 400 && !(r.body || '').includes('SECRET'), `status ${r.status}: ${r.body}`);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH']) {
      const r = await get(port, '/index.html', '', method);
      check(`method ${method}`, r.status === 405 && /GET/.test(r.headers.allow || ''), `status ${r.status}`);
    }
    const long = await get(port, `/index.html?prompt=${'x'.repeat(9000)}`);
    check('a URL past 8192 characters is a 414', long.status === 414 && await alive(), `status ${long.status}`);
    const head = await get(port, '/digits.txt', '', 'HEAD');
    check('HEAD', head.status === 200 && head.headers['content-length'] === '10' && head.body === '', JSON.stringify(head));
    const plain = await get(port, '/index.html');
    check('nosniff', plain.headers['x-content-type-options'] === 'nosniff', JSON.stringify(plain.headers));
    const ranges = [['bytes=2-4', 206, '234', 'bytes 2-4/10'], ['bytes=7-', 206, '789', 'bytes 7-9/10'],
      ['bytes=-2', 206, '89', 'bytes 8-9/10'], ['bytes=5-100', 206, '56789', 'bytes 5-9/10'],
      ['bytes=10-', 416, null, 'bytes */10'], ['bytes=x', 200, '0123456789', undefined]];
    for (const [range, status, body, cr] of ranges) {
      const r = await get(port, '/digits.txt', `Range: ${range}\r\n`);
      check(`range ${range}`, r.status === status && (body === null || r.body === body) && r.headers['content-range'] === cr,
        `${r.status} '${r.body}' ${r.headers['content-range']}`);
    }
    const lab = await get(port, '/lab?lesson=x');
    check('/lab redirects to /lab/', lab.status === 301 && lab.headers.location === '/lab/?lesson=x', JSON.stringify(lab.headers));
    const twoSlashes = await get(port, '/.//lab');  // the path is //lab: the redirect must not name a host
    check('//lab redirects on this host', twoSlashes.status === 301 && twoSlashes.headers.location === '/lab/', JSON.stringify(twoSlashes.headers));
    const labPage = await get(port, '/lab/');
    check('/lab/ has a CSP', labPage.status === 200 && /script-src 'self' 'wasm-unsafe-eval'/.test(labPage.headers['content-security-policy'] || ''),
      JSON.stringify(labPage.headers));
    // Framing: the CSP goes as a header (a <meta> cannot carry frame-ancestors), with
    // X-Frame-Options, on every page but the embed pages.
    for (const target of ['/', '/index.html', '/en/attention.html', '/lab/']) {
      const r = await get(port, target);
      const csp = r.headers['content-security-policy'] || '';
      check(`${target} may not be framed`, r.status === 200 && /frame-ancestors 'none'/.test(csp) && /script-src 'self'/.test(csp) &&
        r.headers['x-frame-options'] === 'DENY', JSON.stringify(r.headers));
    }
    const embed = await get(port, '/en/embed/gpt_scaling.html');
    check('an embed page may be framed', embed.status === 200 && /script-src 'self'/.test(embed.headers['content-security-policy'] || '') &&
      !/frame-ancestors/.test(embed.headers['content-security-policy']) &&
      !embed.headers['x-frame-options'], JSON.stringify(embed.headers));
    // gzip only where its q-value is above 0 (a token merely containing "gzip" is another).
    for (const [accept, gz] of [['gzip;q=0, identity', false], ['identity, not-gzip', false], ['GZIP;Q=0.5', true],
      ['*;q=0.1', true], ['gzip;q=0, *', false], ['x-gzip', true], ['identity;q=1, gzip;q=0.001', true]]) {
      const r = await get(port, '/page.js', `Accept-Encoding: ${accept}\r\n`);
      check(`Accept-Encoding: ${accept}`, r.status === 200 && (r.headers['content-encoding'] === 'gzip') === gz, JSON.stringify(r.headers));
    }
    // gzip: the copy beside the file to a browser that accepts it, decoding to the file;
    // the plain file to one that does not, to a range request, and when the copy is stale.
    const pageJs = fs.readFileSync(path.join(site, 'page.js'));
    const gzOk = fs.existsSync(path.join(site, 'page.js.gz')) && !fs.existsSync(path.join(site, 'digits.txt.gz'));
    check('gzip-site writes a copy only where it saves bytes', gzOk, fs.readdirSync(site).join(' '));
    const zipped = await new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/page.js', headers: { 'Accept-Encoding': 'gzip, deflate' }, agent: false }, (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
      });
    });
    check('gzip when accepted', zipped.headers['content-encoding'] === 'gzip' && zipped.body.length < pageJs.length / 4 &&
      zlib.gunzipSync(zipped.body).equals(pageJs) && zipped.headers['content-length'] === String(zipped.body.length) &&
      /Accept-Encoding/.test(zipped.headers.vary || ''), JSON.stringify(zipped.headers));
    const unzipped = await get(port, '/page.js');
    check('plain when gzip is not accepted', !unzipped.headers['content-encoding'] && unzipped.body === pageJs.toString('latin1'),
      JSON.stringify(unzipped.headers));
    const rangeGz = await get(port, '/page.js', 'Accept-Encoding: gzip\r\nRange: bytes=0-6\r\n');
    check('a range request gets plain bytes', rangeGz.status === 206 && !rangeGz.headers['content-encoding'] && rangeGz.body === 'console',
      `${rangeGz.status} ${JSON.stringify(rangeGz.headers)} '${rangeGz.body}'`);
    const stale = await get(port, '/stale.js', 'Accept-Encoding: gzip\r\n');
    check('a stale gzip copy is not sent', !stale.headers['content-encoding'] && stale.body.startsWith('NEW CONTENT'),
      JSON.stringify(stale.headers));
    // ETag: the same file asked again with its validator is a 304 without a body; a changed
    // file is sent again.
    const first = await get(port, '/page.js', 'Accept-Encoding: gzip\r\n');
    const again = await get(port, '/page.js', `Accept-Encoding: gzip\r\nIf-None-Match: ${first.headers.etag}\r\n`);
    check('304 for an unchanged file', first.headers.etag && again.status === 304 && again.body === '', `${again.status} ${first.headers.etag}`);
    const plainTag = (await get(port, '/page.js')).headers.etag;
    check('the plain and the gzip answer have different validators', plainTag && plainTag !== first.headers.etag, `${plainTag} ${first.headers.etag}`);
    const oldTag = (await get(port, '/stale.js')).headers.etag;
    fs.writeFileSync(path.join(site, 'stale.js'), 'NEWER CONTENT\n'.repeat(60));
    const changed = await get(port, '/stale.js', `If-None-Match: ${oldTag}\r\n`);
    check('a changed file is sent again', changed.status === 200 && changed.body.startsWith('NEWER'), `${changed.status}`);

    const fifo = await get(port, '/fifo.json');
    check('a FIFO is not opened', fifo.status === 404 && await alive(), `status ${fifo.status} ${fifo.error || ''}`);

    // 100 clients open an 8 MiB file and read nothing: streamed, the server's memory
    // stays flat (buffered, it held 100 copies: 800 MiB).
    const before = rssKb(child.pid);
    const requests = [];
    for (let i = 0; i < 100; i++) {
      requests.push(new Promise((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/big.data', agent: false }, (res) => {
          res.pause();
          resolve({ req, res });
        });
        req.on('error', () => resolve({ req }));
        setTimeout(() => resolve({ req }), 400);
      }));
    }
    const open = await Promise.all(requests);
    await new Promise((r) => setTimeout(r, 300));
    const grown = (rssKb(child.pid) - before) / 1024;
    check('100 parallel reads of an 8 MiB file', grown < 120, `the server grew by ${grown.toFixed(0)} MiB`);
    for (const o of open) o.req.destroy();
    await new Promise((r) => setTimeout(r, 200));
    check('alive after the parallel reads', await alive(), 'no answer');
    // Stalled and idle clients, on a server with short timeouts: 20 clients ask for the
    // 8 MiB file and never read (more than the 16 file slots); another file is still
    // served at once, and the server closes the stalled and the idle connections.
    const quick = await startServer(site, ['--idle-ms', '1000', '--stall-ms', '200']);
    const stalled = [];
    try {
      for (let i = 0; i < 20; i++) {
        const s = net.connect(quick.port, '127.0.0.1');
        s.pause();
        const entry = { socket: s, closedAt: 0 };
        s.on('close', () => { entry.closedAt = Date.now(); });
        s.on('error', () => {});
        s.write('GET /big.data HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        stalled.push(entry);
      }
      const idle = net.connect(quick.port, '127.0.0.1');
      const idleEntry = { closedAt: 0 };
      idle.on('close', () => { idleEntry.closedAt = Date.now(); });
      idle.on('error', () => {});
      await new Promise((r) => setTimeout(r, 600));
      const t0 = Date.now();
      const other = await raw(quick.port, 'GET /digits.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 1000);
      check('another file is served while 20 readers stall', other.status === 200 && other.body === '0123456789',
        `${other.status} ${other.error || ''} after ${Date.now() - t0} ms`);
      // A paused client sees the close only when it reads again: wait past the idle time,
      // then read; a connection the server closed ends short of the file.
      await new Promise((r) => setTimeout(r, 2200));
      for (const e of stalled) {
        e.bytes = 0;
        e.socket.on('data', (d) => { e.bytes += d.length; });
        e.socket.resume();
      }
      const started = Date.now();
      while (Date.now() - started < 3000 && (stalled.some((e) => !e.closedAt) || !idleEntry.closedAt)) {
        await new Promise((r) => setTimeout(r, 100));
      }
      check('stalled connections are closed', stalled.every((e) => e.closedAt && e.bytes < 8 << 20),
        `${stalled.filter((e) => !e.closedAt).length} of 20 still open; bytes ${stalled.map((e) => e.bytes).join(' ')}`);
      check('an idle connection is closed', idleEntry.closedAt > 0, 'still open after 6 s');
      const after = await raw(quick.port, 'GET /digits.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 1000);
      check('served after the stalled clients left', after.status === 200, `${after.status} ${after.error || ''}`);
      // A reader that stalls and then reads gets the whole file.
      const whole = await new Promise((resolve) => {
        const req = http.get({ host: '127.0.0.1', port: quick.port, path: '/big.data', agent: false }, (res) => {
          res.pause();
          let n = 0;
          setTimeout(() => { res.on('data', (d) => { n += d.length; }); res.on('end', () => resolve(n)); res.resume(); }, 500);
        });
        req.on('error', () => resolve(-1));
      });
      check('a reader that pauses then reads gets the whole file', whole === 8 << 20, `${whole} bytes`);
    } finally {
      for (const e of stalled) e.socket.destroy();
      quick.child.kill();
    }
  } finally {
    child.kill();
    fs.rmSync(base, { recursive: true, force: true });
  }
  console.log(`server: ${pass} passed, ${fail} failed`);
  process.exitCode = fail ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
