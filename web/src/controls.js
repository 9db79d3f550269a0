// A demo's controls, generated from its ParamSpecs (core/demo_framework/icl/demo.h): a slider
// and a number box for int/float (a log slider when the range spans 3+ decades), a
// checkbox for bool, a select for choice, a point editor for points (point-editor.js),
// a text field for text (its vocabulary as clickable chips, completions of the word
// being typed, the core's error inline); each with a label and its help text.
// onChange(name, value, final) — final is false while a slider is being dragged or a
// text is being typed (the page debounces those).
// The returned setters also hold inlineError(message): shows a core error next to the
// text field it names ("parameter 'prompt': ..."); false if no field matches.

import { buildPointEditor } from './point-editor.js';
import { el } from './dom.js';

const LOG_STEPS = 200;
const decimals = (step) => (step > 0 && step < 1 ? Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)) : 0);

// The word under the caret: [start, end) of the run of non-space characters around it.
const wordAt = (text, caret) => {
  let start = caret;
  let end = caret;
  while (start > 0 && !/\s/.test(text[start - 1])) start -= 1;
  while (end < text.length && !/\s/.test(text[end])) end += 1;
  return [start, end];
};

function textControl(spec, id, described, values, onChange, words, row, label) {
  const vocab = spec.vocabulary || [];
  const input = el('input', { type: 'text', id, name: spec.name, class: 'control-text', autocomplete: 'off',
    spellcheck: 'false', autocapitalize: 'off', 'aria-describedby': described });
  input.value = values[spec.name] ?? '';
  const error = el('p', { class: 'control-error', id: `${id}-error`, role: 'alert', hidden: '' });
  const suggest = el('div', { class: 'control-suggest', role: 'group', 'aria-label': words.completions });
  const emit = (final) => onChange(spec.name, input.value, final);
  // Insert a vocabulary word: replace the word being typed, or add at the caret.
  const insert = (word, replacePartial) => {
    const caret = input.selectionStart ?? input.value.length;
    let [start, end] = wordAt(input.value, caret);
    if (!replacePartial) { start = caret; end = caret; }
    const before = input.value.slice(0, start);
    const after = input.value.slice(end);
    const pre = before && !/\s$/.test(before) ? ' ' : '';
    const post = after && !/^\s/.test(after) ? ' ' : after ? '' : ' ';
    input.value = `${before}${pre}${word}${post}${after}`;
    const at = (before + pre + word + post).length;
    input.focus();
    input.setSelectionRange(at, at);
    showSuggestions();
    emit(true);
  };
  const chip = (word, replacePartial) => {
    const b = el('button', { type: 'button', class: 'chip' }, word);
    b.addEventListener('click', () => insert(word, replacePartial));
    return b;
  };
  // Completions: vocabulary words starting with the typed part (case ignored).
  function showSuggestions() {
    const caret = input.selectionStart ?? input.value.length;
    const [start] = wordAt(input.value, caret);
    const part = input.value.slice(start, caret).toLowerCase();
    suggest.replaceChildren();
    if (!part || !vocab.length) return;
    const hits = vocab.filter((w) => w.toLowerCase().startsWith(part) && w.toLowerCase() !== part).slice(0, 8);
    for (const w of hits) suggest.appendChild(chip(w, true));
  }
  let timer = null;
  input.addEventListener('input', () => {
    showSuggestions();
    clearTimeout(timer);
    timer = setTimeout(() => emit(false), 120);  // follow the typing, debounced
  });
  input.addEventListener('change', () => { clearTimeout(timer); emit(true); });
  input.addEventListener('keydown', (e) => {
    const first = suggest.querySelector('button');
    if (e.key === 'Tab' && !e.shiftKey && first && input.selectionStart === input.value.length) {
      e.preventDefault();  // Tab completes to the first suggestion at the end of the text
      insert(first.textContent, true);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(timer);
      emit(true);
    }
  });
  row.append(label, input, suggest);
  if (vocab.length) {
    const details = el('details', { class: 'control-vocab' });
    details.appendChild(el('summary', {}, words.vocabulary({ count: vocab.length })));
    const chips = el('div', { class: 'chips' });
    for (const w of vocab) chips.appendChild(chip(w, false));
    details.appendChild(chips);
    row.appendChild(details);
  }
  row.appendChild(error);
  return {
    set: (v) => { input.value = v ?? ''; suggest.replaceChildren(); },
    error: (message) => {
      error.hidden = !message;
      error.textContent = message || '';  // text only: nothing typed runs as markup
      if (message) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      input.setAttribute('aria-errormessage', `${id}-error`);
    },
  };
}

export function buildControls(form, specs, values, idPrefix, onChange, words = {}) {
  const setters = Object.create(null);
  const textErrors = Object.create(null);
  for (const spec of specs) {
    const id = `${idPrefix}-${spec.name}`;
    const helpId = `${id}-help`;
    const row = el('div', { class: `control control-${spec.type}` });
    const label = el('label', { for: id, class: 'control-label' }, spec.name);
    const help = spec.help ? el('p', { id: helpId, class: 'control-help' }, spec.help) : null;
    const described = help ? helpId : null;
    if (spec.type === 'points') {
      row.append(label);
      setters[spec.name] = buildPointEditor(row, spec, values[spec.name], id, described, onChange,
        { point: words.point, pointsHelp: words.pointsHelp });
    } else if (spec.type === 'text') {
      const t = textControl(spec, id, described, values, onChange, {
        completions: words.completions || 'Completions',
        vocabulary: words.vocabulary || ((n) => `Vocabulary (${n} words)`),
      }, row, label);
      setters[spec.name] = t.set;
      textErrors[spec.name] = t.error;
    } else if (spec.type === 'bool') {
      const box = el('input', { type: 'checkbox', id, name: spec.name, 'aria-describedby': described });
      box.checked = Boolean(values[spec.name]);
      box.addEventListener('change', () => onChange(spec.name, box.checked, true));
      row.append(box, label);
      setters[spec.name] = (v) => { box.checked = Boolean(v); };
    } else if (spec.type === 'choice') {
      const select = el('select', { id, name: spec.name, 'aria-describedby': described });
      for (const c of spec.choices || []) select.appendChild(el('option', { value: c }, c));
      select.value = values[spec.name];
      select.addEventListener('change', () => onChange(spec.name, select.value, true));
      row.append(label, select);
      setters[spec.name] = (v) => { select.value = v; };
    } else {
      const isInt = spec.type === 'int';
      const step = spec.step > 0 ? spec.step : isInt ? 1 : (spec.max - spec.min) / 100;
      const useLog = spec.log === true;  // the core's rule (ParamSpec::log_scale)
      const slider = el('input', { type: 'range', id, name: spec.name, 'aria-describedby': described });
      if (useLog) {
        Object.assign(slider, { min: 0, max: LOG_STEPS, step: 1 });
      } else {
        Object.assign(slider, { min: spec.min, max: spec.max, step });
      }
      const toSlider = (v) => (useLog ? Math.round((Math.log(v / spec.min) / Math.log(spec.max / spec.min)) * LOG_STEPS) : v);
      const fromSlider = (s) => {
        if (!useLog) return Number(s);
        const v = spec.min * (spec.max / spec.min) ** (Number(s) / LOG_STEPS);
        return Number(v.toPrecision(2));  // round numbers on a log scale: 0.0012, 0.034
      };
      const number = el('input', { type: 'text', inputmode: isInt ? 'numeric' : 'decimal', class: 'control-number',
        'aria-label': `${spec.name} (${spec.min} – ${spec.max})`, 'aria-describedby': described, size: 7 });
      const show = (v) => (useLog || !Number.isFinite(v) ? String(v) : v.toFixed(decimals(step)));
      const set = (v) => {
        slider.value = toSlider(v);
        number.value = show(v);
        slider.setAttribute('aria-valuetext', show(v));
      };
      set(values[spec.name]);
      slider.addEventListener('input', () => {
        const v = fromSlider(slider.value);
        number.value = show(v);
        slider.setAttribute('aria-valuetext', show(v));
        onChange(spec.name, v, false);
      });
      slider.addEventListener('change', () => onChange(spec.name, fromSlider(slider.value), true));
      // Typed values go to the core as typed; it names a value out of range.
      number.addEventListener('change', () => {
        const text = number.value.trim().replace(',', '.');
        const v = Number(text);
        if (text !== '' && Number.isFinite(v)) slider.value = toSlider(Math.min(spec.max, Math.max(spec.min, v)));
        onChange(spec.name, text === '' || !Number.isFinite(v) ? number.value : v, true);
      });
      const range = el('span', { class: 'control-range', 'aria-hidden': 'true' }, `${show(spec.min)} – ${show(spec.max)}`);
      row.append(label, el('div', { class: 'control-inputs' }), range);
      row.querySelector('.control-inputs').append(slider, number);
      setters[spec.name] = set;
    }
    if (help) row.appendChild(help);
    // Where a Result panel that answers this control is drawn (a panel's "beside").
    row.appendChild(el('div', { class: 'control-beside', 'data-for': spec.name }));
    form.appendChild(row);
  }
  // A core error that names a text parameter is shown under that field.
  Object.defineProperty(setters, 'inlineError', {
    enumerable: false,
    value: (message) => {
      let shown = false;
      for (const [name, show] of Object.entries(textErrors)) {
        const mine = Boolean(message) && message.includes(`parameter '${name}'`);
        show(mine ? message : '');
        shown = shown || mine;
      }
      return shown;
    },
  });
  return setters;
}
