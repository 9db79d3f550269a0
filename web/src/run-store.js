// The browser's own store of long runs (IndexedDB), read and written by worker.js: one
// record a setup, keyed by demo + knobs + seed (the page makes the key), so that a long
// training run survives switching tabs and a reload, as the desktop app keeps it on disk.
//   record {v: 1, key, demo, params, seed, saved (ms since 1970), step, progress, done,
//           main: Checkpoint text (icl/demo.h) of the session this worker ran,
//           lanes: {k: Checkpoint text of lane k's session in helper k}, offloaded: [k, ...],
//           result: the last Result (done runs; the page shows it again on load)}
// Every function resolves, never throws: a store that cannot be opened (private
// browsing, storage switched off), a full one, or a record of another version answers
// {error: message}, and the run goes on unsaved.
/* exported IclRunStore */
'use strict';
const IclRunStore = (() => {
  const DB = 'icl-runs', STORE = 'runs', VERSION = 1;
  let opening = null;
  const message = (e) => (e && (e.message || e.name)) || String(e);

  function open() {
    if (!opening) {
      opening = new Promise((resolve) => {
        let req;
        try {
          req = indexedDB.open(DB, 1);
        } catch (e) {
          resolve({ error: `this browser keeps no runs (${message(e)})` });
          return;
        }
        req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'key' });
        req.onsuccess = () => resolve({ db: req.result });
        req.onerror = () => resolve({ error: `this browser keeps no runs (${message(req.error)})` });
        req.onblocked = () => resolve({ error: 'the store of runs is held by another tab' });
      });
    }
    return opening;
  }

  // One request in its own transaction: {value} or {error}.
  async function request(mode, make) {
    const { db, error } = await open();
    if (error) return { error };
    return new Promise((resolve) => {
      let tx, req;
      try {
        tx = db.transaction(STORE, mode);
        req = make(tx.objectStore(STORE));
      } catch (e) {
        resolve({ error: message(e) });
        return;
      }
      tx.oncomplete = () => resolve({ value: req.result });
      tx.onabort = tx.onerror = () => resolve({ error: message(tx.error || req.error) });
    });
  }

  // The record under key: {record}, {record: null} when there is none, or {error} when one
  // is there but is of another version or not a record (it is then deleted: the page says
  // so and starts afresh).
  async function get(key) {
    const got = await request('readonly', (s) => s.get(key));
    if (got.error) return { error: got.error };
    const r = got.value;
    if (r === undefined) return { record: null };
    if (!r || typeof r !== 'object' || r.v !== VERSION || typeof r.main !== 'string' || typeof r.demo !== 'string') {
      await remove(key);
      return { error: `the saved run is of another version of this site (${r && r.v !== undefined ? `version ${r.v}` : 'not a run'})` };
    }
    return { record: r };
  }

  // Stores it (over the key's last one). A full store answers {error} (QuotaExceededError).
  async function put(record) {
    const got = await request('readwrite', (s) => s.put({ ...record, v: VERSION }));
    return got.error ? { error: got.error } : {};
  }

  async function remove(key) {
    const got = await request('readwrite', (s) => s.delete(key));
    return got.error ? { error: got.error } : {};
  }

  return { get, put, remove, VERSION };
})();
