// Fuzzes web/serve.mjs with raw requests for FUZZ_SECONDS (default 10): random
// methods, targets built from path pieces (percent-encoded NUL, slashes, dots,
// backslashes, broken escapes, long and non-ASCII names), random Range headers and
// malformed request lines. Fails if the server dies, stops answering, answers 5xx (but
// 503 busy), or ever sends a byte of the files beside the site folder.
//   node tests/fuzz/fuzz_serve.mjs            (run by tests/fuzz/run.sh)
// Ends with "fuzz fuzz_serve: ok, N requests in S s" or "... FAILED".
import { makeSite, startServer, raw } from '../server/run.mjs';
import fs from 'node:fs';

const seconds = Number(process.env.FUZZ_SERVE_SECONDS || process.env.FUZZ_SECONDS || 10);
let seed = Number(process.env.FUZZ_SEED || Date.now() % 2147483647) || 1;
const startSeed = seed;
const rand = () => { seed = (seed * 48271) % 2147483647; return seed / 2147483647; };
const pick = (a) => a[Math.floor(rand() * a.length)];

const pieces = ['', 'index.html', 'lab', 'lab/', 'digits.txt', 'big.data', 'fifo.json', 'link-out.txt', '..', '.', '%2e%2e',
  '%2f', '%5c', '\\', '%00', '%', '%E0%A4%A', '%ff', 'site-secret', '..%2fsite-secret%2fs.txt', 'outside.txt', '//',
  '%2e', '?a=1', '#x', 'é', '%C3%A9', 'a'.repeat(300), '\u2028', ';', '*', '~', 'CON', 'nul', '%0a', '%0d%0a'];
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE', 'PATCH', 'GeT', 'X'.repeat(40), ''];

function target() {
  const n = 1 + Math.floor(rand() * 5);
  let t = rand() < 0.1 ? '*' : '/';
  for (let i = 0; i < n; i++) t += pick(pieces) + (rand() < 0.7 ? '/' : '');
  return rand() < 0.1 ? 'http://127.0.0.1' + t : t;
}

function range() {
  const forms = [() => `bytes=${Math.floor(rand() * 20)}-${Math.floor(rand() * 20)}`, () => `bytes=-${Math.floor(rand() * 20)}`,
    () => `bytes=${Math.floor(rand() * 1e9)}-`, () => 'bytes=0-1,3-4', () => 'bytes=x-y', () => 'items=0-1', () => 'bytes=-',
    () => `bytes=${'9'.repeat(30)}-`];
  return pick(forms)();
}

function request() {
  if (rand() < 0.08) return pick(['\r\n\r\n', 'GET\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n',
    'GET /\0 HTTP/1.1\r\n\r\n', 'GET / HTTP/1.1\r\nX: ' + 'y'.repeat(20000) + '\r\n\r\n', '\x16\x03\x01\x00']);
  let text = `${pick(methods)} ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`;
  if (rand() < 0.4) text += `Range: ${range()}\r\n`;
  if (rand() < 0.1) text += 'Transfer-Encoding: chunked\r\n';
  return text + '\r\n';
}

const { base, site } = makeSite();
const { child, port } = await startServer(site);
let died = false;
child.on('exit', () => { died = true; });
let count = 0, failure = '';
const until = Date.now() + seconds * 1000;
try {
  while (Date.now() < until && !failure) {
    const batch = [];
    for (let i = 0; i < 8; i++) {
      const text = request();
      // Bytes with no request line yet (blank lines, a TLS hello): the server may wait
      // for the rest, as any HTTP server does; they only must not break it.
      const incomplete = !/^[^\r\n]*\r\n/.test(text.replace(/^(\r\n)+/, '')) || /^\r\n/.test(text);
      batch.push(raw(port, text, incomplete ? 500 : 5000).then((r) => {
        if (incomplete && r.error === 'timeout') { count++; return; }
        count++;
        if ((r.body || '').includes('SECRET')) failure = `served a file outside the site for ${JSON.stringify(text.slice(0, 200))}`;
        else if (r.status >= 500 && r.status !== 503) failure = `status ${r.status} for ${JSON.stringify(text.slice(0, 200))}`;
        else if (r.error === 'timeout') failure = `no answer in 5 s for ${JSON.stringify(text.slice(0, 200))}`;
      }));
    }
    await Promise.all(batch);
    if (died) failure = 'the server exited';
  }
  const alive = await raw(port, 'GET /digits.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  if (!failure && alive.status !== 200) failure = `the server stopped answering (status ${alive.status} ${alive.error || ''})`;
} finally {
  child.kill();
  fs.rmSync(base, { recursive: true, force: true });
}
if (failure) {
  console.log(`fuzz fuzz_serve: FAILED (FUZZ_SEED=${startSeed}): ${failure}`);
  process.exitCode = 1;
} else {
  console.log(`fuzz fuzz_serve: ok, ${count} requests in ${seconds} s (FUZZ_SEED=${startSeed})`);
}
