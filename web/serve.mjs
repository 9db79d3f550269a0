// A static file server for the built site, bound to 127.0.0.1 only.
//   node web/serve.mjs <site dir> [port]
// Serves .wasm as application/wasm (for streaming compilation). Hardened against hostile
// requests (docs/bad-input.md): a malformed request gets a 4xx and the server keeps
// serving; paths that leave the site folder are refused (the check ends at a path
// separator, so a sibling folder whose name starts with the site's is outside); only GET
// and HEAD (405 otherwise); one byte range (206 / 416); `nosniff` on every answer and a
// Content-Security-Policy header on every page: frame-ancestors 'none' and
// X-Frame-Options: DENY (no other site may frame a lesson, the index or the review page),
// except the embed pages (<lang>/embed/*.html), which exist to be framed; a folder without
// its trailing slash is redirected; files are streamed, never buffered, and at most
// MAX_OPEN_FILES are read at once (the rest wait in a bounded queue, past which the answer
// is 503). A reader that stops reading gives its slot up after STALL_MS (its file waits,
// paused, and takes a slot again when the reader drains), and a connection with nothing
// sent or received for IDLE_MS is closed, so slow or stalled clients cannot hold the
// server; at most MAX_PARKED paused files stay open (past that the oldest is dropped).
// A file with a precompressed <file>.gz beside it (web/gzip-site.mjs writes them, no
// older than the file) goes gzip-encoded to a browser whose Accept-Encoding gives gzip
// (or *) a q-value above 0, and asks for the whole file (a range request gets the plain
// bytes). Every file carries an ETag (size
// and time of what is sent) with "no-cache": the browser asks each time and gets a 304
// for an unchanged file, so the next lesson takes the wasm core from its cache.
// With --watch (the authors' watch mode, web/watch.mjs) it also rebuilds a lesson's pages
// when its Markdown changes and adds a reload client to the .html pages it sends:
//   node web/serve.mjs <site dir> [port] --watch [--lessons lessons] [--icl build/bin/icl] [--wasm build/wasm/bin]
// --idle-ms N and --stall-ms N change the two timeouts (the tests use short ones).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CSP as PAGE_CSP } from './sitegen/templates.mjs';
import { MAX_URL_LENGTH } from './src/url-state.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const MAX_OPEN_FILES = 16;
export const MAX_WAITING = 512;
export const MAX_PARKED = 256;
export const IDLE_MS = 30000;
export const STALL_MS = 2000;

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff',
  '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8', '.bin': 'application/octet-stream',
};

// The desktop app in the browser (/lab/): its own scripts and the wasm module only;
// 'wasm-unsafe-eval' lets the page compile WebAssembly, and nothing else is evaluated.
// native/app/lab.html carries the same policy in a <meta> for other servers.
export const LAB_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
  "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The site's pages carry their CSP in a <meta> (web/sitegen/templates.mjs), which cannot
// say who may frame them; the header says it. Embed pages are made to be framed by any
// page, a teacher's file:// page or an about:blank frame included, which
// `frame-ancestors *` would refuse: their header names no frame-ancestors.
export const PAGE_CSP_HEADER = `${PAGE_CSP}; frame-ancestors 'none'`;
export const EMBED_CSP_HEADER = PAGE_CSP;

// The headers that keep a page from being framed by another site, for a path of the site
// (decoded, with a leading slash) and the file it names; {} for a file that is not a page.
export function frameHeaders(rel, file) {
  if (rel === '/lab' || rel.startsWith('/lab/')) return { 'Content-Security-Policy': LAB_CSP, 'X-Frame-Options': 'DENY' };
  if (!file.endsWith('.html')) return {};
  if (/^\/[^/]+\/embed\/[^/]+\.html$/.test(rel)) return { 'Content-Security-Policy': EMBED_CSP_HEADER };
  return { 'Content-Security-Policy': PAGE_CSP_HEADER, 'X-Frame-Options': 'DENY' };
}

// Whether an Accept-Encoding header accepts gzip: an entry gzip (or x-gzip) with a
// q-value above 0, or else * above 0 (RFC 9110 12.5.3). "gzip;q=0", "identity" and
// "not-gzip" do not.
export function acceptsGzip(header) {
  if (typeof header !== 'string') return false;
  let gzip = null, star = null;
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((x) => x.trim());
    let q = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q)) q = 0;
    const token = name.toLowerCase();
    if (token === 'gzip' || token === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (token === '*') star = Math.max(star ?? 0, q);
  }
  return gzip !== null ? gzip > 0 : star !== null && star > 0;
}

// One range of "bytes=a-b", "bytes=a-" or "bytes=-n" within a file of `size` bytes:
// {start, end} (inclusive), null to send the whole file (no header, several ranges, a
// form we do not read), or 'unsatisfiable'.
export function parseRange(header, size) {
  if (typeof header !== 'string') return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start, end;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;  // invalid: ignore the header
  }
  if (!Number.isSafeInteger(start) || start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

// watch: what startWatch (web/watch.mjs) returns, for the watch mode's pages and events.
export function createServer(siteDir, { watch = null, idleMs = IDLE_MS, stallMs = STALL_MS } = {}) {
  const root = path.resolve(siteDir);
  let realRoot = root;
  try { realRoot = fs.realpathSync(root); } catch { /* served as 404s */ }
  let open = 0;
  const waiting = [];
  const release = () => {
    open--;
    const next = waiting.shift();
    if (next) next();
  };
  // Runs `job(done)` when fewer than MAX_OPEN_FILES reads are under way; false when the
  // queue is full.
  const acquire = (job) => {
    if (open < MAX_OPEN_FILES) {
      open++;
      job();
      return true;
    }
    if (waiting.length >= MAX_WAITING) return false;
    waiting.push(() => { open++; job(); });
    return true;
  };
  // Files paused behind a stalled reader, oldest first: each entry's drop() closes its
  // connection.
  const parked = new Set();

  const plain = (res, status, text, extra = {}) => {
    if (res.headersSent) { res.destroy(); return; }
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache', ...extra });
    res.end(text + '\n');
  };

  const handle = (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      plain(res, 405, 'method not allowed', { Allow: 'GET, HEAD' });
      return;
    }
    if (req.url.length > MAX_URL_LENGTH) {  // the pages never write a longer address
      plain(res, 414, `URI too long: more than ${MAX_URL_LENGTH} characters`);
      return;
    }
    let url, rel;
    try {
      url = new URL(req.url, 'http://127.0.0.1');
      rel = decodeURIComponent(url.pathname);
    } catch {
      plain(res, 400, 'bad request');
      return;
    }
    if (rel.includes('\0') || rel.includes('\\')) {
      plain(res, 400, 'bad request: the path holds a NUL or a backslash');
      return;
    }
    if (watch && rel.startsWith('/__icl/')) {
      watchEndpoint(req, res, rel);
      return;
    }
    let file = path.join(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) {
      plain(res, 403, 'forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) {
        if (!url.pathname.endsWith('/')) {
          // /lab -> /lab/, so the page's relative links resolve inside the folder. The
          // location is a path on this host (leading slashes collapsed: never //host).
          const location = url.pathname.replace(/^\/+/, '/') + '/' + url.search;
          plain(res, 301, 'moved to ' + location, { Location: location });
          return;
        }
        file = path.join(file, 'index.html');
      }
      const inLab = rel === '/lab' || rel.startsWith('/lab/');
      const watched = watch && !inLab && file.endsWith('.html');
      if (watched && watch.problemsPage()) {  // the lint fails: every page lists the problems
        sendHtml(res, req, 200, watch.problemsPage(), frameHeaders(rel, file));
        return;
      }
      fs.realpath(file, (err1, real) => {
      // A link inside the site that leads out of it is outside too.
      if (!err1 && real !== realRoot && !real.startsWith(realRoot + path.sep)) {
        plain(res, 403, 'forbidden');
        return;
      }
      fs.stat(file, (err2, st2) => {
        if (err1 || err2 || !st2.isFile()) {  // a FIFO, a device or a folder is never opened
          plain(res, 404, 'not found');
          return;
        }
        if (watched) {  // the page as built, with the reload client
          const version = watch.state().version;
          fs.readFile(file, 'utf8', (err3, html) => {
            if (err3) { plain(res, 404, 'not found'); return; }
            sendHtml(res, req, 200, html.replace(/<\/body>\s*<\/html>\s*$/,
              `<script type="module" src="/__icl/watch.js?v=${version}"></script>\n</body>\n</html>\n`), frameHeaders(rel, file));
          });
          return;
        }
        const range = parseRange(req.headers.range, st2.size);
        if (range === 'unsatisfiable') {
          plain(res, 416, 'range not satisfiable', { 'Content-Range': `bytes */${st2.size}` });
          return;
        }
        const headers = {
          'Content-Type': types[path.extname(file)] || 'application/octet-stream',
          'Cache-Control': 'no-cache',
          'X-Content-Type-Options': 'nosniff',
          'Accept-Ranges': 'bytes',
          Vary: 'Accept-Encoding',
        };
        Object.assign(headers, frameHeaders(rel.endsWith('/') ? rel + 'index.html' : rel, file));
        let sent = st2;  // what goes out: the file, or its gzip copy
        if (!range && acceptsGzip(req.headers['accept-encoding'])) {
          try {
            const gz = fs.statSync(`${file}.gz`);
            if (gz.isFile() && gz.mtimeMs >= st2.mtimeMs) {
              file = `${file}.gz`;
              sent = gz;
              headers['Content-Encoding'] = 'gzip';
            }
          } catch { /* no compressed copy */ }
        }
        headers.ETag = `"${sent.size.toString(16)}-${Math.round(sent.mtimeMs).toString(16)}${sent === st2 ? '' : '-gz'}"`;
        if (!range && req.headers['if-none-match'] === headers.ETag) {
          res.writeHead(304, headers);
          res.end();
          return;
        }
        const start = range ? range.start : 0;
        const end = range ? range.end : sent.size - 1;
        headers['Content-Length'] = String(Math.max(0, end - start + 1));
        if (range) headers['Content-Range'] = `bytes ${start}-${end}/${st2.size}`;
        if (req.method === 'HEAD' || sent.size === 0) {
          res.writeHead(range ? 206 : 200, headers);
          res.end();
          return;
        }
        let closed = false;
        res.on('close', () => { closed = true; });
        const queued = acquire(() => {
          let holding = true;  // this file holds one of the MAX_OPEN_FILES slots
          const done = () => { if (holding) { holding = false; release(); } };
          if (closed || res.destroyed) { done(); return; }  // the client left while it waited
          const stream = fs.createReadStream(file, { start, end });
          let stallTimer = null;
          const entry = { drop: () => res.destroy() };
          const unpark = () => { parked.delete(entry); clearTimeout(stallTimer); stallTimer = null; };
          stream.on('open', () => {
            if (!res.headersSent) res.writeHead(range ? 206 : 200, headers);
          });
          stream.on('data', (chunk) => {
            if (res.write(chunk)) return;
            // The reader is behind: wait for it; if it stays behind, give the slot to others.
            stream.pause();
            stallTimer = setTimeout(() => {
              done();
              parked.add(entry);
              if (parked.size > MAX_PARKED) parked.values().next().value.drop();
              // Still behind after idleMs more: the connection is closed, whatever the
              // socket's own timer says (a trickle of acknowledgements can keep that alive).
              stallTimer = setTimeout(() => entry.drop(), idleMs);
            }, stallMs);
          });
          res.on('drain', () => {
            if (!stream.isPaused() || closed) return;
            const wasParked = !holding;
            unpark();
            if (!wasParked) { stream.resume(); return; }
            const again = acquire(() => {
              holding = true;
              if (closed || res.destroyed) { done(); return; }
              stream.resume();
            });
            if (!again) res.destroy();
          });
          stream.on('end', () => res.end());
          stream.on('error', () => { done(); plain(res, 404, 'not found'); });
          stream.on('close', done);
          res.on('close', () => { unpark(); stream.destroy(); done(); });
        });
        if (!queued) plain(res, 503, 'busy: too many reads at once, try again', { 'Retry-After': '1' });
      });
      });
    });
  };

  // Watch mode only: a page made in memory (the problem list, or a page with the client).
  const sendHtml = (res, req, status, html, extra = {}) => {
    res.writeHead(status, { 'Content-Type': types['.html'], 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
  const clientFiles = { '/__icl/watch.js': ['watch-client.js', types['.js']], '/__icl/watch.css': ['watch-client.css', types['.css']] };
  const watchEndpoint = (req, res, rel) => {
    if (rel === '/__icl/events') {
      req.socket.setTimeout(0);  // the reload channel is quiet until a lesson changes
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      const send = (state) => res.write(`data: ${JSON.stringify(state)}\n\n`);
      send(watch.state());
      const unsubscribe = watch.subscribe(send);
      res.on('close', unsubscribe);
      return;
    }
    const client = clientFiles[rel];
    if (!client) { plain(res, 404, 'not found'); return; }
    fs.readFile(path.join(here, client[0]), (err, data) => {
      if (err) { plain(res, 404, 'not found'); return; }
      res.writeHead(200, { 'Content-Type': client[1], 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : data);
    });
  };

  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch (e) {  // nothing a request holds may stop the server
      try { plain(res, 400, 'bad request'); } catch { res.destroy(); }
    }
  });
  // A connection that sends and receives nothing for idleMs (a client that stopped
  // reading, an idle keep-alive, a request that never ends) is closed; so are slow headers.
  server.setTimeout(idleMs);
  server.headersTimeout = Math.min(server.headersTimeout, idleMs);
  server.requestTimeout = Math.min(server.requestTimeout || Infinity, idleMs * 2);
  server.keepAliveTimeout = Math.min(server.keepAliveTimeout, idleMs);
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const positional = [], options = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--watch') options.watch = true;
    else if (['--idle-ms', '--stall-ms'].includes(argv[i]) && /^[1-9]\d{0,6}$/.test(argv[i + 1] || '')) options[argv[i] === '--idle-ms' ? 'idleMs' : 'stallMs'] = Number(argv[++i]);
    else if (['--lessons', '--icl', '--wasm'].includes(argv[i]) && i + 1 < argv.length) options[argv[i].slice(2)] = argv[++i];
    else if (argv[i].startsWith('--')) { console.error(`serve: unknown or incomplete option '${argv[i]}'`); process.exit(2); }
    else positional.push(argv[i]);
  }
  const siteDir = positional[0] || 'build/site';
  let watch = null;
  if (options.watch) {
    const { startWatch } = await import('./watch.mjs');
    const lessonsDir = options.lessons || 'lessons';
    watch = await startWatch({ lessonsDir, out: siteDir, icl: options.icl || 'build/bin/icl', wasm: options.wasm || 'build/wasm/bin' });
    await watch.ready;
    console.log(`watch: rebuilding the pages of ${lessonsDir}/*/*.md as they change; open pages reload`);
  }
  const server = createServer(siteDir, { watch, idleMs: options.idleMs, stallMs: options.stallMs });
  server.listen(Number(positional[1] || 8000), '127.0.0.1', () => {
    console.log(`ICL Lab is served at http://127.0.0.1:${server.address().port}/  (Ctrl-C stops)`);
  });
}
