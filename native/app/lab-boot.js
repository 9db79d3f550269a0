// The ImGui app compiled to WebAssembly (native/app); it draws into the canvas with
// WebGL2 and runs demos in slices of each animation frame. The query string becomes
// its command line: ?lesson=dual-form&lang=ko, ?demo=lsa_training&run-demos, ?review
// (nothing else: see appArguments).
// Progress is kept in localStorage, in the lesson pages' document (icl/progress.h).
// A page reached as /lab (no trailing slash) would look for its files one folder up:
// it moves to /lab/ first (any static server; web/serve.mjs redirects by itself).
(function () {
  if (!/\/$/.test(location.pathname) && !/\.html$/.test(location.pathname)) {
    location.replace(location.pathname + '/' + location.search + location.hash);
  }
})();
var statusBox = document.getElementById('status');
var canvas = document.getElementById('canvas');
canvas.addEventListener('contextmenu', function (event) { event.preventDefault(); });
// A link may open a lesson, a demo or the review, never answer a check: ?answer= (the
// app's --answer) is not read from the URL. A test scripts answers by setting
// window.iclLabScriptedArguments (["--answer", "<check>=<value>", ...]) before this runs.
var appArguments = [];
new URLSearchParams(location.search).forEach(function (value, key) {
  if (['lesson', 'demo', 'lang', 'run-demos', 'review'].indexOf(key) < 0) return;
  appArguments.push('--' + key);
  if (key !== 'run-demos' && key !== 'review') appArguments.push(value);
});
if (Array.isArray(window.iclLabScriptedArguments)) {
  window.iclLabScriptedArguments.forEach(function (a) { appArguments.push(String(a)); });
}
// The app's own messages ("icl-lab: --lang must be en or ko, not 'fr'") are shown on the
// page, as text, not only on the console.
function showError(text) {
  statusBox.hidden = false;
  if (statusBox.className === 'error') {
    statusBox.textContent += '\n' + text;
  } else {
    statusBox.className = 'error';
    statusBox.textContent = text;
  }
}
/* exported Module */ // read by the Emscripten loader script that runs after this one
var Module = {
  arguments: appArguments,
  canvas: canvas,
  print: function (text) { console.log(text); },
  printErr: function (text) {
    console.warn(text);
    if (/^icl-lab: /.test(text)) showError(text);
  },
  setStatus: function (text) {
    if (statusBox.className === 'error') return;
    statusBox.textContent = text || '';
    statusBox.hidden = !text;
  },
  onRuntimeInitialized: function () {
    if (statusBox.className !== 'error') statusBox.hidden = true;
    canvas.focus();
  },
  onAbort: function (what) { showError('ICL Lab stopped: ' + what); },
};
