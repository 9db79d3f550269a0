// A demo's parameters in the page URL, so a shared link reproduces the setup:
//   lesson.html?dual_form.lr=0.05&dual_form.n_train=8#demo-dual_form
// Only values that differ from the lesson's setup are written. Reading gives raw
// "name=value" strings per demo instance; the core types and validates them.

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

// Rewrites the query for one instance: `changed` = {name: value} differing from the lesson.
export function writeUrlParams(instance, changed) {
  const url = new URL(window.location.href);
  for (const key of [...url.searchParams.keys()]) {
    if (key.startsWith(`${instance}.`)) url.searchParams.delete(key);
  }
  for (const [name, value] of Object.entries(changed)) url.searchParams.set(`${instance}.${name}`, String(value));
  window.history.replaceState(null, '', url);
}
