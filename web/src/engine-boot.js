// Starts the demo engine (worker.js and its wasm core) while the page is still
// loading, so the wasm module compiles in parallel with the page's own modules.
// Messages that arrive before lesson.js takes the worker over are kept for it.
'use strict';
(function startEngine() {
  const script = document.currentScript;
  const worker = new Worker(new URL('worker.js', script.src));
  const early = [];
  worker.onmessage = (e) => early.push(e.data);
  window.iclEngine = { worker, early };
}());
