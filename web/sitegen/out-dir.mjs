// The site build's output folder: what a previous build wrote is listed in
// <out>/.icl-site-build.json ({"written_by", "files": ["index.html", "en/x.html", ...]},
// the convention of `icl lessons build`'s .icl-lessons-build.json), and a build removes
// only those files before writing again. Anything else in the folder (a teacher's own
// files, the desktop app under lab/) is kept; a non-empty folder with no list that is
// not an earlier site build is refused rather than written over.
import fs from 'node:fs';
import path from 'node:path';

export const MANIFEST = '.icl-site-build.json';

// A listed name the build may remove: relative, forward slashes, no "..", "." or empty
// part (a hand-edited list cannot reach outside the folder).
const usable = (name) => typeof name === 'string' && name.length > 0 && name.length < 1024 && !name.includes('\0') &&
  !name.includes('\\') && name.split('/').every((part) => part !== '' && part !== '.' && part !== '..');

// Clears the files a previous build listed; {error} (nothing removed) for a folder that
// holds other things and no list, or is not a folder.
export function clearPreviousBuild(out) {
  let entries;
  try {
    const st = fs.lstatSync(out);
    if (!st.isDirectory()) return { error: `--out ${out} is not a folder; nothing was written` };
    entries = fs.readdirSync(out);
  } catch (e) {
    if (e.code === 'ENOENT') return {};
    return { error: `cannot read --out ${out}: ${e.message}` };
  }
  if (entries.length === 0) return {};
  let listed = null;
  try {
    const m = JSON.parse(fs.readFileSync(path.join(out, MANIFEST), 'utf8'));
    if (m && Array.isArray(m.files)) listed = m.files;
  } catch { /* no list, or not one */ }
  if (!listed) {
    // A site built before builds kept the list: its own files are written over, and
    // nothing else is removed.
    const earlier = ['index.html', 'index.json', 'assets/icl_core.wasm'].every((f) => fs.existsSync(path.join(out, f)));
    if (earlier) return { earlier: true };
    return { error: `--out ${out} is not empty and no earlier site build wrote it (it has no ${MANIFEST}): its files are ` +
      'kept and nothing was written; give an empty or a new folder' };
  }
  const root = path.resolve(out);
  const folders = new Set();
  for (const name of listed.filter(usable)) {
    for (const file of [name, `${name}.gz`]) {  // web/gzip-site.mjs's copy beside it
      const full = path.join(root, file);
      try {
        if (fs.lstatSync(full).isDirectory()) continue;
        fs.unlinkSync(full);
      } catch { continue; }
    }
    for (let dir = path.dirname(path.join(root, name)); dir.startsWith(root + path.sep); dir = path.dirname(dir)) folders.add(dir);
  }
  // Folders the build made and that are now empty go too (deepest first).
  for (const dir of [...folders].sort((a, b) => b.length - a.length)) {
    try { fs.rmdirSync(dir); } catch { /* not empty: someone else's files are in it */ }
  }
  return {};
}

// Records the files this build wrote (paths relative to out, with forward slashes).
export function recordBuild(out, written) {
  const files = [...new Set(written.map((f) => f.split(path.sep).join('/')))].sort();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, MANIFEST), JSON.stringify({ written_by: 'web/build-site.mjs', files }, null, 1) + '\n');
}
