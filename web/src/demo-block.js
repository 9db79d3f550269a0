// One demo on a lesson page: controls from its ParamSpecs, run / stop / reset, a
// progress bar, the streamed Results drawn panel by panel, downloads, and its
// parameters mirrored in the URL. The core computes; this only asks and draws.
import { buildControls } from './controls.js';
import { drawPanel, GRAPHIC_KINDS, splitPanels, moreResults } from './plots/panels.js';
import { downloadCsv, downloadJson, downloadPng } from './export.js';
import { writeUrlParams, paramText } from './url-state.js';
import { textToPoints } from './point-editor.js';
import { el } from './dom.js';
import { keptKey, keptEvent, offerKept } from './kept-run.js';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// How long an analytic demo's run started by a changed control goes on before Run becomes Stop.
const STOP_SHOWN_AFTER_MS = 600;

// A demo's full setup: its defaults (DemoInfo.params) under the given parameters; a
// lesson writes points as "x,y; x,y", held here as [[x, y], ...] like the editor's.
export function withDefaults(info, params = {}) {
  const full = { ...Object.fromEntries(info.params.map((p) => [p.name, p.default])), ...params };
  for (const p of info.params) {
    const v = full[p.name];
    if (p.type === 'points' && typeof v === 'string' && textToPoints(v)) full[p.name] = textToPoints(v);
  }
  return full;
}

// A headline as a paragraph: its text as text, each **span** in <strong>.
function headlineElement(text) {
  const p = el('p', { class: 'result-headline' });
  String(text).split('**').forEach((part, k) => {
    if (part) p.appendChild(k % 2 ? el('strong', {}, part) : document.createTextNode(part));
  });
  return p;
}

// The parameters of `params` that differ from `base` (what a URL carries).
export const changedFrom = (params, base) => Object.fromEntries(Object.entries(params).filter(([k, v]) => !same(v, base[k])));

export class DemoBlock {
  // block: {name, demo, params, info} from the page data; section: its <section>.
  constructor({ block, section, client, lang, words }) {
    Object.assign(this, { block, section, client, lang, words });
    this.info = block.info;
    this.analytic = Boolean(this.info.analytic);
    this.lessonParams = withDefaults(this.info, block.params);
    // What the page's URL is written against: the page's own setup (a lesson's, an
    // embed page's defaults), also when a link makes its setup the one Reset returns to.
    this.urlBase = this.lessonParams;
    this.params = { ...this.lessonParams };
    this.result = null;
    this.resultParams = null;
    this.stop = null;
    this.draws = 0;
    this.waiters = [];  // lessonResult() calls waiting for the running lesson setup
    this.ownWaiters = [];  // currentResult() calls waiting for the learner's running setup
    this.build();
  }

  build() {
    const w = this.words;
    const body = this.section.querySelector('.demo-body');
    const form = el('form', { class: 'controls', novalidate: '' });
    form.addEventListener('submit', (e) => e.preventDefault());
    const fieldset = el('fieldset');
    fieldset.appendChild(el('legend', {}, w.parameters));
    form.appendChild(fieldset);
    // The lesson may show only some controls (show= / hide= on its demo block); the others keep its values.
    const visible = (spec) => (this.block.show ? this.block.show.includes(spec.name) : !(this.block.hide || []).includes(spec.name));
    this.setters = buildControls(fieldset, this.info.params.filter(visible), this.params, `p-${this.block.name}`, (name, value, final) => this.changed(name, value, final), this.words);

    const bar = el('div', { class: 'demo-bar' });
    this.runButton = el('button', { type: 'button', class: 'run', 'data-shows': 'run' }, w.run);
    // The button does what it showed when the press began. Pressing it takes the focus
    // from a field the learner just typed into, and that field's change starts a run
    // before the click arrives: that click means Run, not the Stop it would find.
    const shown = () => this.runButton.dataset.shows === 'stop';
    this.runButton.addEventListener('pointerdown', () => { this.pressStops = shown(); });
    this.runButton.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') this.pressStops = shown(); });
    // A press released elsewhere gives no click: forget it, so a later click reads the button anew.
    window.addEventListener('pointerup', () => setTimeout(() => { this.pressStops = undefined; }, 0), true);
    this.runButton.addEventListener('click', () => this.pressed());
    const reset = el('button', { type: 'button', class: 'reset', title: w.resetHint }, w.reset);
    reset.addEventListener('click', () => this.reset());
    this.progress = el('progress', { max: 1, value: 0, 'aria-label': w.progress });
    this.status = el('span', { class: 'status', role: 'status' }, w.loading);
    bar.append(this.runButton, reset, this.progress, this.status);

    this.error = el('p', { class: 'demo-error', role: 'alert', hidden: '' });
    // Said above the panels when they show another setup than the controls do.
    this.staleNote = el('p', { class: 'stale-note', hidden: '' });
    // first-result.js may have drawn the page's carried result here already: kept.
    this.note = body.querySelector(':scope > .precomputed-note');
    this.panels = body.querySelector(':scope > .panels') || el('div', { class: 'panels', 'aria-live': 'off' });
    // Said in place of the result while a predict check on it waits for its answer (hold()).
    this.heldNote = body.querySelector(':scope > .held-note') || el('p', { class: 'held-note', hidden: '' }, w.heldNote);
    const exportBar = el('div', { class: 'demo-export', role: 'group', 'aria-label': w.exportLabel });
    exportBar.appendChild(el('span', { class: 'export-label' }, `${w.exportLabel}:`));
    const csv = el('button', { type: 'button', class: 'link-button' }, w.exportCsv);
    csv.addEventListener('click', () => this.result && downloadCsv(this.result, this.fileName()));
    const json = el('button', { type: 'button', class: 'link-button' }, w.exportJson);
    json.addEventListener('click', () => this.result && downloadJson(this.result, this.resultParams, this.fileName()));
    exportBar.append(csv, json);
    this.exportBar = exportBar;
    exportBar.hidden = true;
    body.append(form, bar, this.error, ...(this.note ? [this.note] : []), this.staleNote, this.heldNote, this.panels, exportBar);

    // Redraw at the new width when the column changes size (phone rotation).
    let lastWidth = 0;
    new ResizeObserver(() => {
      const width = this.panels.clientWidth;
      if (Math.abs(width - lastWidth) > 8 && this.result) { lastWidth = width; this.draw(); }
      lastWidth = width || lastWidth;
    }).observe(this.panels);
  }

  fileName() {
    // Typed texts may hold spaces, arrows and slashes, points semicolons: keep a file name plain.
    return `${this.block.name}-${Object.entries(this.resultParams || {}).map(([k, v]) => `${k}_${paramText(v)}`).join('-')}`
      .replace(/[^\w.=-]+/gu, '_').slice(0, 120);
  }

  // The URL's parameters (already typed and validated by the core) over the lesson's;
  // with home, Reset comes back to them (an embed page: the setup its link gave).
  applyUrl(params, { home = false } = {}) {
    this.params = { ...this.lessonParams, ...params };
    if (home) this.lessonParams = { ...this.params };
    for (const [k, v] of Object.entries(this.params)) if (this.setters[k]) this.setters[k](v);
    this.markStale();
  }

  changed(name, value, final) {
    this.params = { ...this.params, [name]: value };
    writeUrlParams(this.block.name, changedFrom(this.params, this.urlBase), { client: this.client, demo: this.block.demo, lang: this.lang });
    // Analytic demos follow the slider; training demos restart when it is let go. A
    // slider's 'change' repeats the value of its last 'input', which an analytic demo is
    // already computing or showing: starting it again would pay for the same result twice.
    if (this.analytic ? !(this.runParams && same(this.runParams, this.params)) : final) this.run({ byControl: true });
    else this.markStale();
  }

  // Run or Stop, as the button showed when the press began (pointerdown / keydown). A Run
  // press while the current setup is already running (started by the field this press
  // left) lets that run go on.
  pressed() {
    const stops = this.pressStops ?? this.runButton.dataset.shows === 'stop';
    this.pressStops = undefined;
    if (stops && this.stop) this.halt();
    else if (!(this.stop && this.runParams && same(this.runParams, this.params))) this.run();
  }

  // Panels that show another setup than the controls (a run stopped before its first
  // result, a setup the core refused, a change not yet run) are dimmed under a note that
  // says so; the page never shows an old answer as if it were the new one's.
  markStale(failed = false) {
    const stale = Boolean(this.result) && !same(this.resultParams, this.params);
    const failedHere = failed || (this.section.dataset.state === 'error' && stale);
    this.panels.classList.toggle('stale', stale);
    for (const slot of Object.values(this.slots || {})) slot.classList.toggle('stale', stale);
    this.section.dataset.stale = stale ? 'true' : 'false';
    this.staleNote.hidden = !stale;
    this.staleNote.textContent = !stale ? '' : failedHere ? this.words.staleAfterError
      : this.stop ? this.words.staleRunning : this.words.staleNote;
  }

  // on: a predict check with hide=result asks the learner to predict this demo's result,
  // and has no answer yet. The controls (the setup) stay; the result — headline, panels,
  // the panels beside controls, downloads — is computed and drawn as usual but not shown,
  // until the check is answered or the learner runs the demo (run() without `auto`).
  hold(on) {
    this.held = Boolean(on);
    this.section.dataset.held = this.held ? 'true' : 'false';
    this.heldNote.hidden = !this.held;
    this.panels.hidden = this.held;
    if (this.note) this.note.hidden = this.held;  // "Stored in this page: ..." says what is shown
    for (const slot of this.section.querySelectorAll('.control-beside')) slot.hidden = this.held;
    this.exportBar.hidden = this.held || !this.result;
  }

  reset() {
    this.params = { ...this.lessonParams };
    for (const [k, v] of Object.entries(this.params)) if (this.setters[k]) this.setters[k](v);
    writeUrlParams(this.block.name, changedFrom(this.params, this.urlBase), { client: this.client, demo: this.block.demo, lang: this.lang });
    this.run();
  }

  // The Result the site build computed for the lesson's own setup with this same wasm
  // core (web/sitegen/site.mjs, firstResult), drawn while the engine loads: the final one
  // of an analytic demo, or the first step of one that waits for Run (stage 'first-step',
  // shown under `caption` with its progress). The first live run replaces it, and no
  // check or own-run answer is taken from it.
  showPrecomputed({ result, stage, caption }) {
    this.result = result;
    this.resultParams = { ...this.lessonParams };
    this.precomputed = true;
    this.section.dataset.precomputed = 'shown';
    if (caption && !this.note) {
      this.note = el('p', { class: 'precomputed-note' }, caption);
      this.note.hidden = Boolean(this.held);
      this.panels.before(this.note);
    }
    if (stage === 'first-step') this.progress.value = result.progress || 0;
    this.draw();
    this.markStale();
  }

  // The button's face: 'run', 'rerun' or 'stop', after `delay` ms (a pending change is dropped).
  setButton(face, delay = 0) {
    clearTimeout(this.buttonTimer);
    const show = () => { this.runButton.textContent = this.words[face]; this.runButton.dataset.shows = face; };
    if (delay > 0) this.buttonTimer = setTimeout(show, delay);
    else show();
  }

  // byControl: started by a changed control, not by Run. An analytic demo's such run (one
  // per pause in typing, a quick recompute) shows Stop only once it has gone on for a
  // moment, so the button does not turn into Stop under a learner reaching for Run.
  // auto: started by the page (an analytic demo at load, a check's grading), not by the
  // learner: a held result stays held.
  // resume: a training demo goes on from the run of this setup kept in the browser
  // (kept-run.js); every training demo's run is kept there as it goes.
  run({ byControl = false, auto = false, resume = false } = {}) {
    if (!auto && this.held) this.hold(false);
    if (this.stop) this.stop();
    if (this.offer) { this.offer.remove(); this.offer = null; }
    const w = this.words;
    const params = { ...this.params };
    this.runParams = params;  // what the newest run computes (changed() compares)
    this.section.dataset.state = 'running';
    this.setStatus(w.queued);
    this.setButton('stop', byControl && this.analytic ? STOP_SHOWN_AFTER_MS : 0);
    this.progress.value = 0;
    const t0 = performance.now();
    const keep = this.analytic ? undefined : keptKey(this.block.demo, params);
    this.stop = this.client.run({ demo: this.block.demo, params, lang: this.lang, seed: 1, keep, resume },
      (result) => {
        this.precomputed = false;
        if (this.note) { this.note.remove(); this.note = null; }
        this.result = result;
        this.resultParams = params;
        if (result.done) this.finished(result.error ? 'error' : 'done');
        this.progress.value = result.done ? 1 : result.progress || 0;
        const seconds = (performance.now() - t0) / 1000;
        const took = seconds >= 0.5 ? ` · ${w.elapsed({ seconds: seconds.toFixed(1) })}` : '';
        this.setStatus(result.done ? `${w.done}${took}` : `${w.running} ${Math.round((result.progress || 0) * 100)}%`);
        this.showError(result.error ? `${w.failed}: ${result.error}` : '');
        this.markStale();
        if (result.done) this.drawNow();
        else this.scheduleDraw();
      },
      (message) => {
        this.runParams = null;  // the engine failed, not the setup: it may run again
        this.finished('error');
        this.setStatus(w.failed);
        this.showError(message);
        this.markStale(true);
      },
      (type, error) => keptEvent(this, type, error));
    this.markStale();
  }

  // A finished run of the current setup kept in this browser (kept-run.js), drawn again
  // under `caption`.
  showKept(result, params, caption) {
    this.result = result;
    this.resultParams = params;
    this.section.dataset.kept = 'shown';
    this.precomputed = false;
    if (!this.note) {
      this.note = el('p', { class: 'precomputed-note' });
      this.note.hidden = Boolean(this.held);
      this.panels.before(this.note);
    }
    this.note.textContent = caption;
    this.progress.value = 1;
    this.setButton('rerun');
    this.draw();
    this.markStale();
  }

  // A training demo waits for Run: it can take seconds of CPU, which a page should
  // not spend on load (a phone's battery, the other demos' first drawing).
  idle() {
    this.section.dataset.state = 'idle';
    this.setButton('run');
    this.setStatus(this.words.pressRun);
    offerKept(this);
  }

  halt() {
    if (this.stop) this.stop();
    this.runParams = null;  // stopped before its result: the same setup runs again
    this.finished('stopped');
    this.setStatus(this.words.stopped);
    this.markStale();
  }

  finished(state) {
    this.stop = null;
    const done = state === 'done' && this.result && same(this.resultParams, this.lessonParams);
    for (const resolve of this.waiters.splice(0)) resolve(done ? this.result : { error: this.words.failed });
    const own = state === 'done' && this.result && same(this.resultParams, this.params);
    for (const resolve of this.ownWaiters.splice(0)) resolve(own ? this.result : { error: this.words.failed });
    this.section.dataset.state = state;
    this.setButton('rerun');
  }

  setStatus(text) { this.status.textContent = text; }

  showError(message) {
    // An error about a text the learner typed is shown under that field.
    const inline = this.setters.inlineError ? this.setters.inlineError(message) : false;
    this.error.hidden = !message || inline;
    this.error.textContent = inline ? '' : message;
  }

  drawNow() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.draw();
  }

  // Results can arrive more often than frames: draw the newest once per frame.
  scheduleDraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.draw();
    });
  }

  draw() {
    const result = this.result;
    if (!result) return;
    // Drawn detached at the panel column's width (read once: no layout in between),
    // then swapped in one step, so a redraw does not flicker or thrash layout.
    const width = this.panels.clientWidth || this.panels.parentElement.clientWidth;  // held: hidden, no width of its own
    const holder = document.createDocumentFragment();
    // The result opens with its headline (the core's sentence; **x** is bold).
    if (result.headline) holder.appendChild(headlineElement(result.headline));
    // A panel with "beside" is drawn next to the control it answers, in that control's slot.
    this.slots = this.slots || Object.fromEntries([...this.section.querySelectorAll('.control-beside')].map((s) => [s.dataset.for, s]));
    const besides = new Map(Object.values(this.slots).map((slot) => [slot, document.createDocumentFragment()]));
    // A panel the same as last time at the same width keeps its figure: while a model
    // trains, most panels change only at its evaluations (induction_heads: one step in 40).
    const previous = this.figures || new Map();
    this.figures = new Map();
    const place = (panel, into, at) => {
      const key = `${at} ${panel.beside || ''} ${JSON.stringify(panel)}`;
      const kept = previous.get(key);
      if (kept) {
        previous.delete(key);
        into.appendChild(kept);
        this.figures.set(key, kept);
        return;
      }
      const figure = drawPanel(panel, into, at);
      this.figures.set(key, figure);
      if (GRAPHIC_KINDS.has(panel.kind)) {
        const svg = figure.querySelector('svg');
        const png = el('button', { type: 'button', class: 'link-button png', 'aria-label': this.words.pngOf({ title: panel.title || panel.kind }) }, this.words.exportPng);
        png.addEventListener('click', () => downloadPng(svg, panel.title, `${this.fileName()}-${panel.kind}`));
        const cap = figure.querySelector('figcaption') || figure.insertBefore(el('figcaption'), figure.firstChild);
        cap.appendChild(png);
      }
    };
    for (const panel of result.panels || []) {
      const slot = panel.beside ? this.slots[panel.beside] : null;
      if (slot) place(panel, besides.get(slot), slot.clientWidth || width);
    }
    // Its headline numbers, what to see and its main chart open; the rest folded.
    const { lead, rest } = splitPanels(result, (p) => Boolean(p.beside && this.slots[p.beside]));
    for (const panel of lead) place(panel, holder, width);
    if (rest.length) {
      const more = moreResults(this.block.demo, this.words.moreResults({ count: rest.length }));
      for (const panel of rest) place(panel, more.querySelector('.panels-more'), width);
      holder.appendChild(more);
    }
    this.panels.replaceChildren(holder);
    for (const [slot, fragment] of besides) slot.replaceChildren(fragment);
    this.exportBar.hidden = Boolean(this.held);
    this.draws += 1;
    this.section.dataset.draws = String(this.draws);
    // The page's first drawn result, for the page-speed budget the browser tests read
    // (and the first one the engine computed on this page, drawn after it).
    const now = String(Math.round(performance.now()));
    if (!document.body.dataset.firstDrawMs) document.body.dataset.firstDrawMs = now;
    if (!this.precomputed && !document.body.dataset.firstLiveDrawMs) document.body.dataset.firstLiveDrawMs = now;
  }

  // The Result of the learner's current setup, run to the end (own-run checks).
  async currentResult() {
    if (!this.stop && !this.precomputed && this.result && this.result.done && same(this.resultParams, this.params)) return this.result;
    const finished = new Promise((resolve) => this.ownWaiters.push(resolve));
    if (!this.stop) this.run({ auto: true });
    return finished;
  }

  // The Result of this demo in the lesson's own setup, run to the end (for predict
  // checks). When the demo shows that setup, the run happens in view.
  async lessonResult() {
    if (!same(this.params, this.lessonParams)) {
      return this.client.runToEnd({ demo: this.block.demo, params: this.lessonParams, lang: this.lang, seed: 1 });
    }
    if (!this.precomputed && this.result && this.result.done && same(this.resultParams, this.lessonParams)) return this.result;
    const finished = new Promise((resolve) => this.waiters.push(resolve));
    if (!this.stop) this.run({ auto: true });
    return finished;
  }
}
