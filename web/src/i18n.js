// The words of the page's controls, in the page's language. They are data, not code: the
// site build puts the language's catalogue (lessons/<lang>/catalogue/site.json over
// English's, so a key the language lacks shows in English) into each page's JSON block
// as "words". A message with placeholders ("Download “{title}” as PNG") becomes a
// function of its values, taken in the order `params` names them.
const params = {
  pngOf: ['title'], elapsed: ['seconds'], predictNote: ['demo'], urlBad: ['demo', 'problem'], urlUnknown: ['demos'],
  shareBad: ['problem'], urlBadEmbed: ['demo', 'problem'], pressRunModel: ['megabytes'], embedLessonUnknown: ['lesson'],
  reviewOf: ['index', 'count'], vocabulary: ['count'], ownRunNote: ['demo'], platformTrimmed: ['checks'], 'page.lessonOf': ['number'],
  answerTooLong: ['bytes', 'max'],
  'note.not_kept.text': ['problem'], 'note.resume_failed.text': ['problem'], 'note.kept_run.text': ['step', 'steps'], 'button.resume': ['step'],
};

// A catalogue message with its {name} placeholders filled: the grammar of the core's
// icl/texts.h ("{{" and "}}" are braces; {x:.2f} a number with two decimals; a name
// without a value stays as written). Values are text or numbers, never markup: the page
// puts the result into textContent.
export function fillTemplate(text, values) {
  return String(text).replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::\.(\d)f)?\}/g, (m, name, decimals) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    if (!values || !Object.prototype.hasOwnProperty.call(values, name) || values[name] === undefined) return m;
    const v = values[name];
    return decimals !== undefined && typeof v === 'number' ? v.toFixed(Number(decimals)) : String(v);
  });
}

// messages: the page's "words" (key -> text). A key no catalogue has shows as ⟦key⟧.
export function wordsFor(messages) {
  const out = {};
  for (const [key, text] of Object.entries(messages || {})) {
    const names = params[key];
    out[key] = names ? (...args) => fillTemplate(text, Object.fromEntries(names.map((n, i) => [n, args[i]]))) : text;
  }
  return new Proxy(out, { get: (o, key) => (key in o || typeof key !== 'string' ? o[key] : `⟦${key}⟧`) });
}
