// A static file server for the built site, bound to 127.0.0.1 only.
//   node web/serve.mjs <site dir> [port]
// Serves .wasm as application/wasm (for streaming compilation). Hardened against hostile
// requests (docs/bad-input.md): a malformed request gets a 4xx and the server keeps
// serving; paths that leave the site folder are refused (the check ends at a path
// separator, so a sibling folder whose name starts with the site's is outside); only GET
// and HEAD (405 otherwise); one byte range (206 / 416); `nosniff` on every answer and a
// Content-Security-Policy on /lab/; a folder without its trailing slash is redirected;
// files are streamed, never buffered, and at most MAX_OPEN_FILES are read at once (the
// rest wait in a bounded queue, past which the answer is 503).
// A file with a precompressed <file>.gz beside it (web/gzip-site.mjs writes them, no
// older than the file) goes gzip-encoded to a browser that accepts gzip and asks for the
// whole file (a range request gets the plain bytes). Every file carries an ETag (size
// and time of what is sent) with "no-cache": the browser asks each time and gets a 304
// for an unchanged file, so the next lesson takes the wasm core from its cache.
// With --watch (the authors' watch mode, web/watch.mjs) it also rebuilds a lesson's pages
// when its Markdown changes and adds a reload client to the .html pages it sends:
//   node web/serve.mjs <site dir> [port] --watch [--lessons lessons] [--icl build/bin/icl] [--wasm build/wasm/bin]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export const MAX_OPEN_FILES = 16;
export const MAX_WAITING = 512;

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
export function createServer(siteDir, { watch = null } = {}) {
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
        sendHtml(res, req, 200, watch.problemsPage());
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
              `<script type="module" src="/__icl/watch.js?v=${version}"></script>\n</body>\n</html>\n`));
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
        if (inLab) headers['Content-Security-Policy'] = LAB_CSP;
        let sent = st2;  // what goes out: the file, or its gzip copy
        if (!range && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
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
          let released = false;
          const done = () => { if (!released) { released = true; release(); } };
          if (closed || res.destroyed) { done(); return; }  // the client left while it waited
          const stream = fs.createReadStream(file, { start, end });
          stream.on('open', () => {
            if (!res.headersSent) res.writeHead(range ? 206 : 200, headers);
          });
          stream.on('error', () => { done(); plain(res, 404, 'not found'); });
          stream.on('close', done);
          res.on('close', () => { stream.destroy(); done(); });
          stream.pipe(res);
        });
        if (!queued) plain(res, 503, 'busy: too many reads at once, try again', { 'Retry-After': '1' });
      });
      });
    });
  };

  // Watch mode only: a page made in memory (the problem list, or a page with the client).
  const sendHtml = (res, req, status, html) => {
    res.writeHead(status, { 'Content-Type': types['.html'], 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
  const clientFiles = { '/__icl/watch.js': ['watch-client.js', types['.js']], '/__icl/watch.css': ['watch-client.css', types['.css']] };
  const watchEndpoint = (req, res, rel) => {
    if (rel === '/__icl/events') {
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
  const server = createServer(siteDir, { watch });
  server.listen(Number(positional[1] || 8000), '127.0.0.1', () => {
    console.log(`ICL Lab is served at http://127.0.0.1:${server.address().port}/  (Ctrl-C stops)`);
  });
}
