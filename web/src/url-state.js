// A demo's parameters in the page URL, so a shared link reproduces the setup:
//   lesson.html?dual_form.lr=0.05&dual_form.n_train=8#demo-dual_form
//   embed/dual_form.html?dual_form.lr=0.05   (an embed page: the instance is the demo)
// Only values that differ from the page's setup (the lesson's; an embed page's demo
// defaults) are written. Reading gives raw
// "name=value" strings per demo instance; the core types and validates them.
import { notice } from './notices.js';

// `byInstance` has no prototype: a URL naming `constructor.x`, `__proto__.x` or
// `toString.x` finds no demo there and is reported as unknown, never a TypeError.
export function readUrlParams(search, instanceNames) {
  const byInstance = Object.create(null);
  for (const n of instanceNames) byInstance[n] = [];
  const unknown = [];
  for (const [key, value] of new URLSearchParams(search)) {
    const dot = key.lastIndexOf('.');
    const instance = dot > 0 ? key.slice(0, dot) : '';
    if (Object.hasOwn(byInstance, instance)) byInstance[instance].push(`${key.slice(dot + 1)}=${value}`);
    else unknown.push(key);
  }
  return { byInstance, unknown };
}

// A value as the core reads it back: points [[x, y], ...] as "x,y; x,y".
export function paramText(value) {
  if (Array.isArray(value)) return value.map((p) => (Array.isArray(p) ? p.join(',') : String(p))).join('; ');
  return String(value);
}

// Sets one instance's parameters in `url` (a URL, changed in place and returned):
// `changed` = {name: value} differing from the setup the page starts from.
export function setUrlParams(url, instance, changed) {
  for (const key of [...url.searchParams.keys()]) {
    if (key.startsWith(`${instance}.`)) url.searchParams.delete(key);
  }
  for (const [name, value] of Object.entries(changed)) url.searchParams.set(`${instance}.${name}`, paramText(value));
  return url;
}

// The longest address the page writes: web/serve.mjs answers 414 past it (and Node's
// own limit on a request's head is 16 KiB), so a reload always reaches the page.
export const MAX_URL_LENGTH = 8192;

// Rewrites this page's query for one instance (see setUrlParams), with only what the
// core accepts: the values are checked first (parse_params, as a link's are), and a
// value it refuses, or an address past MAX_URL_LENGTH, leaves the address as it was (the
// demo shows the refusal). A later call wins over an earlier one still being checked.
// Resolves to whether the address was written.
const writes = Object.create(null);  // instance -> number of the newest call
export async function writeUrlParams(instance, changed, { client, demo, lang = 'en' } = {}) {
  const mine = (writes[instance] = (writes[instance] || 0) + 1);
  const kvs = Object.entries(changed).map(([name, value]) => `${name}=${paramText(value)}`);
  if (kvs.length && client) {
    let parsed;
    try {
      parsed = await client.call('parse_params', demo, JSON.stringify(kvs), lang);
    } catch {
      return false;
    }
    if (!parsed || parsed.error) return false;
  }
  if (writes[instance] !== mine) return false;
  const url = setUrlParams(new URL(window.location.href), instance, changed);
  if (url.href.length > MAX_URL_LENGTH) return false;
  window.history.replaceState(null, '', url);
  return true;
}

// The link's parameters, typed and validated by the core, applied to each DemoBlock
// (by instance name): a bad value or an unknown demo is a notice, as text. `search` is a
// query string or URLSearchParams. Resolves to the instance names the link set up.
export async function applyUrlParams(search, demoBlocks, client, words, options = {}) {
  const { byInstance, unknown } = readUrlParams(search, Object.keys(demoBlocks));
  if (unknown.length) notice(words.urlUnknown({ demos: unknown.join(', ') }), 'warning');
  const setUp = new Set();
  for (const [name, block] of Object.entries(demoBlocks)) {
    const kvs = byInstance[name];
    if (!kvs.length) continue;
    // (the core words a mistake in the page's language)
    const parsed = await client.call('parse_params', block.block.demo, JSON.stringify(kvs), document.documentElement.lang || 'en');
    if (parsed.error) {
      notice(words.urlBad({ demo: name, problem: parsed.error }), 'warning');
      block.section.dataset.urlError = 'true';
    } else {
      block.applyUrl(parsed.params, options);
      setUp.add(name);
    }
  }
  return setUp;
}

// Sets a link's href from make() whenever it is about to be followed (pressed, focused,
// clicked), so it carries the page's state of that moment (parameters, place).
// Returns the update, for a page to call when its state is first known.
export function hrefOnUse(link, make) {
  const update = () => link.setAttribute('href', make());
  for (const type of ['pointerdown', 'focus', 'click']) link.addEventListener(type, update);
  return update;
}
