// A demo's controls, generated from its ParamSpecs (core/include/icl/demo.h): a slider
// and a number box for int/float (a log slider when the range spans 3+ decades), a
// checkbox for bool, a select for choice; each with a label and its help text.
// onChange(name, value, final) — final is false while a slider is being dragged.

const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};

const LOG_STEPS = 200;
const decimals = (step) => (step > 0 && step < 1 ? Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)) : 0);

export function buildControls(form, specs, values, idPrefix, onChange) {
  const setters = Object.create(null);
  for (const spec of specs) {
    const id = `${idPrefix}-${spec.name}`;
    const helpId = `${id}-help`;
    const row = el('div', { class: `control control-${spec.type}` });
    const label = el('label', { for: id, class: 'control-label' }, spec.name);
    const help = spec.help ? el('p', { id: helpId, class: 'control-help' }, spec.help) : null;
    const described = help ? helpId : null;
    if (spec.type === 'bool') {
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
      const useLog = !isInt && spec.min > 0 && spec.max / spec.min >= 1000;
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
    form.appendChild(row);
  }
  return setters;
}
