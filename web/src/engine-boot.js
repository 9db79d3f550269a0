// Starts the demo engine (worker.js and its wasm core) while the page is still
// loading, so the wasm module compiles in parallel with the page's own modules.
// Messages that arrive before lesson.js takes the worker over are kept for it.
'use strict';
(function startEngine() {
  if (window.iclEngine) return;  // lesson.js ran first and started its own
  const script = document.currentScript;
  const worker = new Worker(new URL('worker.js', script.src));
  const early = [];
  worker.onmessage = (e) => early.push(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    early.push({ type: 'fatal', message: e.message || 'the demo engine failed to load' });
  };
  window.iclEngine = { worker, early };
}());
