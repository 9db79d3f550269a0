// Beside every file of the built site that compresses well, its gzip (<file>.gz), for
// web/serve.mjs (and any static host that serves precompressed files) to send to a
// browser that accepts gzip: the wasm core travels at about a third of its size. A copy
// is written only when it saves at least a tenth; an old copy of a file that no longer
// compresses (or no longer exists) is removed.
//   node web/gzip-site.mjs <site dir>
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const compressible = /\.(html|js|mjs|css|json|svg|wasm|icl|data|txt)$/;

function gzipBeside(dir) {
  let raw = 0, sent = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const [r, s] = gzipBeside(file);
      raw += r;
      sent += s;
    } else if (entry.name.endsWith('.gz')) {
      if (!fs.existsSync(file.slice(0, -3))) fs.rmSync(file);
    } else if (compressible.test(entry.name)) {
      const bytes = fs.readFileSync(file);
      const gz = zlib.gzipSync(bytes, { level: 9 });
      raw += bytes.length;
      if (gz.length < bytes.length * 0.9) {
        fs.writeFileSync(`${file}.gz`, gz);
        sent += gz.length;
      } else {
        fs.rmSync(`${file}.gz`, { force: true });
        sent += bytes.length;
      }
    }
  }
  return [raw, sent];
}

const site = process.argv[2];
if (!site || !fs.statSync(site, { throwIfNoEntry: false })?.isDirectory()) {
  console.error('usage: node web/gzip-site.mjs <site dir>');
  process.exit(2);
}
const [raw, sent] = gzipBeside(site);
console.log(`gzip: ${(raw / 1e6).toFixed(2)} MB of text and wasm travel as ${(sent / 1e6).toFixed(2)} MB`);
