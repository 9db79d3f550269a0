// The HTML of the index and of a lesson page. Lesson text comes from the core's md4c
// rendering (raw HTML disabled) with math already rendered; demo and check blocks get
// their frame here and come alive in assets/lesson.js. Pages carry their data in a
// JSON block (type="application/json" is data, not script, so the CSP allows it).
import { escapeHtml as esc } from '../src/html-escape.js';
import { fillTemplate } from '../src/i18n.js';

// Everything fetched comes from this origin; no inline script or style; the wasm module
// may be compiled (worker); images may be blob:/data: (PNG export, heatmap images).
export const CSP = [
  "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'",
  "img-src 'self' blob: data:", "font-src 'self'", "connect-src 'self'", "worker-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'none'",
].join('; ');

// JSON inside <script type="application/json">: "<" escaped so no "</script>" can end it.
const jsonData = (value) => JSON.stringify(value).replace(/</g, '\\u003c');

// The page's own words come from its language's catalogue (lessons/<lang>/catalogue/
// site.json over English's; site.mjs merges them): the "page.*" keys here, the rest in the
// page's data for the browser (web/src/i18n.js). `words` below is that merged object.
const say = (words, key, values) => fillTemplate(words[`page.${key}`] ?? `⟦page.${key}⟧`, values);

// The links to the page in the other languages, each named in its own language
// (langNames[l]); href(l) is null where that language lacks the page.
function langSwitches({ lang, langs, langNames, words, href }) {
  return `<span class="lang-switches">${langs.filter((l) => l !== lang).map((l) => {
    const to = href(l);
    return to ? `<a class="lang-switch" hreflang="${esc(l)}" lang="${esc(l)}" href="${esc(to)}">${esc(langNames[l])}</a>`
      : `<span class="lang-switch missing" lang="${esc(l)}" title="${esc(say(words, 'otherMissing'))}">${esc(langNames[l])}</span>`;
  }).join('')}</span>`;
}

// The start of every HTML page the project serves (the site's and the watch mode's
// problem list): doctype, language, charset, the content security policy, viewport and
// title. The caller adds its own links and closes </head>.
export function pageStart({ lang, title }) {
  return `<!doctype html>
<html lang="${esc(lang)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${esc(title)}</title>`;
}

// modules: every ES module the page imports, preloaded in parallel from the start
// instead of one import level at a time (the worker, so the first result, waits on them).
// early: an async module run as soon as it has loaded, not after the whole page.
function head({ lang, title, depth, css = [], modules = [], engine = false, early = null }) {
  const up = '../'.repeat(depth);
  return `${pageStart({ lang, title })}
${engine ? `<script async src="${up}assets/engine-boot.js"></script>` : ''}
${early ? `<script type="module" async src="${up}assets/${early}"></script>` : ''}
${css.map((c) => `<link rel="stylesheet" href="${up}assets/${c}">`).join('\n')}
<link rel="stylesheet" href="${up}assets/app.css">
${modules.map((m) => `<link rel="modulepreload" href="${up}assets/${m}">`).join('\n')}
<link rel="icon" href="${up}assets/icon.svg" type="image/svg+xml">
</head>`;
}

// heading: h2 in a lesson, h1 on an embed page; aside: HTML beside the kicker.
function demoFrame(block, info, words, { heading = 'h2', aside = '' } = {}) {
  const title = info ? info.title : block.demo;
  const kicker = `<p class="kicker">${esc(say(words, 'demo'))}</p>`;
  return `<section class="demo" id="demo-${esc(block.name)}" data-instance="${esc(block.name)}" aria-labelledby="demo-${esc(block.name)}-title">
<div class="demo-head">
${aside ? `<div class="demo-kicker-row">${kicker}${aside}</div>` : kicker}
<${heading} class="demo-title" id="demo-${esc(block.name)}-title">${esc(title)}</${heading}>
${info && info.summary ? `<p class="demo-summary">${esc(info.summary)}</p>` : ''}
${info && info.paper ? `<p class="demo-paper">${esc(info.paper)}</p>` : ''}
</div>
<div class="demo-body"></div>
</section>`;
}

function checkFrame(block, words) {
  return `<section class="check" id="check-${esc(block.id)}" data-check="${esc(block.id)}" aria-labelledby="check-${esc(block.id)}-title">
<p class="kicker" id="check-${esc(block.id)}-title">${esc(say(words, 'check'))}</p>
<div class="check-prompt">${block.prompt_html || ''}</div>
<div class="check-body"></div>
</section>`;
}

// site: { langs, langNames, words } (words[lang]: that language's merged catalogue);
// translated(l): whether language l has this lesson.
export function lessonPage({ lesson, lang, site, translated, prev, next, demoInfo, modules }) {
  const words = site.words[lang];
  const body = lesson.blocks.map((b) => {
    if (b.kind === 'html' && b.box) {
      const title = say(words, `box.${b.box}`);
      // The reproduce box (commands, build and timing details) starts collapsed; the others are framed.
      if (b.box === 'reproduce') return `<details class="box-reproduce"><summary>${esc(title)}</summary><div class="prose">${b.html}</div></details>`;
      return `<aside class="box box-${esc(b.box)}" aria-labelledby="box-${esc(b.box)}">
<p class="box-title" id="box-${esc(b.box)}">${esc(title)}</p>
<div class="prose">${b.html}</div>
</aside>`;
    }
    if (b.kind === 'html') return `<div class="prose">${b.html}</div>`;
    if (b.kind === 'demo') return demoFrame(b, demoInfo[b.demo], words);
    if (b.kind === 'check') return checkFrame(b, words);
    return '';
  }).join('\n');
  // What lesson.js needs: demo instances with their lesson parameters and the demo's
  // schema, and the checks exactly as the core's grader takes them.
  const data = {
    lang, words, id: lesson.id, title: lesson.title,
    demos: lesson.blocks.filter((b) => b.kind === 'demo').map((b) => ({ name: b.name, demo: b.demo, params: b.params || {}, info: demoInfo[b.demo],
      ...(b.show ? { show: b.show } : {}), ...(b.hide ? { hide: b.hide } : {}) })),
    checks: lesson.blocks.filter((b) => b.kind === 'check'),
    glossary: lesson.glossary || {},
  };
  const nav = (where) => `<nav class="lesson-nav ${where}" aria-label="${esc(say(words, 'prev'))} / ${esc(say(words, 'next'))}">
${prev ? `<a rel="prev" href="${esc(prev.id)}.html"><span>← ${esc(say(words, 'prev'))}</span>${esc(prev.title)}</a>` : '<span></span>'}
${next ? `<a rel="next" href="${esc(next.id)}.html"><span>${esc(say(words, 'next'))} →</span>${esc(next.title)}</a>` : '<span></span>'}
</nav>`;
  // The first demo's carried result (site.mjs, firstResult) sits before <main>: parsed
  // before the block it is drawn into, so first-result.js can draw it while the rest of
  // the page is still arriving.
  return `${head({ lang, title: `${lesson.title} · ICL Lab`, depth: 1, css: ['katex/katex.min.css', 'math-styles.css'], modules, engine: !lesson.firstResult,
    early: lesson.firstResult ? 'first-result.js' : null })}
<body class="lesson-page">
<a class="skip" href="#main">${esc(say(words, 'skip'))}</a>
<header class="top">
<a class="brand" href="../index.html">ICL Lab</a>
<span class="top-sep">/</span><a class="top-home" href="../index.html">${esc(say(words, 'home'))}</a>
${langSwitches({ lang, ...site, words, href: (l) => (translated(l) ? `../${l}/${lesson.id}.html` : null) })}
</header>
<div id="notices" class="notices" aria-live="polite"></div>
${lesson.firstResult ? `<script type="application/json" id="first-result">${jsonData(lesson.firstResult)}</script>\n` : ''}<main id="main" class="lesson">
<p class="kicker">${esc(say(words, 'lessonOf', { number: lesson.number ?? lesson.order }))}${lesson.minutes ? ` · ${esc(say(words, 'minutes', { n: lesson.minutes }))}` : ''}</p>
<h1>${esc(lesson.title)}</h1>
${lesson.summary ? `<p class="lead">${esc(lesson.summary)}</p>` : ''}
<noscript><p class="notice">${esc(say(words, 'noscript'))}</p></noscript>
${body}
${nav('bottom')}
</main>
<script type="application/json" id="lesson-data">${jsonData(data)}</script>
<script type="module" src="../assets/lesson.js"></script>
</body>
</html>
`;
}

// The embed page of one demo in one language (<lang>/embed/<demo>.html): the demo
// alone, for an <iframe>; embed.js brings it to life. lessons: [{id, instance, params}],
// one per demo block of this language's lessons, for the link back ("Open in ICL Lab");
// assetBytes: what its files weigh (it waits for Run before fetching them).
export function embedPage({ lang, site, demo, info, lessons, assetBytes, modules }) {
  const words = site.words[lang];
  const back = lessons.length ? `../${esc(lessons[0].id)}.html#demo-${esc(lessons[0].instance)}` : '../../index.html';
  const aside = `<a class="embed-home" id="embed-home" href="${back}" target="_blank" rel="noopener">${esc(say(words, 'openInLab'))} ↗</a>`;
  return `${head({ lang, title: `${info.title} · ICL Lab`, depth: 2, modules, engine: true })}
<body class="embed-page">
<div id="notices" class="notices" aria-live="polite"></div>
<main id="main" class="embed">
${demoFrame({ name: demo, demo }, info, words, { heading: 'h1', aside })}
<noscript><p class="notice">${esc(say(words, 'embedNoscript'))}</p></noscript>
</main>
<script type="application/json" id="embed-data">${jsonData({ lang, words, demo, info, lessons, assetBytes })}</script>
<script type="module" src="../../assets/embed.js"></script>
</body>
</html>
`;
}

// The review page of one language: the checks due for review, asked one at a time
// (review.js picks them with the core's schedule). It carries every check of the
// language's lessons, and for a predict check the demo whose result grades it.
export function reviewPage({ lang, site, lessons, modules }) {
  const words = site.words[lang];
  const checks = [];
  for (const lesson of lessons) {
    const demos = Object.fromEntries(lesson.blocks.filter((b) => b.kind === 'demo').map((b) => [b.name, { demo: b.demo, params: b.params || {} }]));
    for (const b of lesson.blocks.filter((x) => x.kind === 'check')) {
      const demo = b.type === 'predict' && b.grading && demos[b.grading.demo] ? demos[b.grading.demo] : null;
      checks.push({ lesson: lesson.id, lessonTitle: lesson.title, check: b, demo });
    }
  }
  return `${head({ lang, title: `${say(words, 'review')} · ICL Lab`, depth: 1, css: ['katex/katex.min.css', 'math-styles.css'], modules, engine: true })}
<body class="lesson-page review-page">
<a class="skip" href="#main">${esc(say(words, 'skip'))}</a>
<header class="top">
<a class="brand" href="../index.html">ICL Lab</a>
<span class="top-sep">/</span><a class="top-home" href="../index.html">${esc(say(words, 'home'))}</a>
${langSwitches({ lang, ...site, words, href: (l) => `../${l}/review.html` })}
</header>
<div id="notices" class="notices" aria-live="polite"></div>
<main id="main" class="lesson">
<h1>${esc(say(words, 'review'))}</h1>
<p class="lead" id="review-status" aria-live="polite"></p>
<section class="check" id="review-check" hidden>
<p class="kicker" id="review-where"></p>
<div class="check-prompt"></div>
<div class="check-body"></div>
</section>
<p><button type="button" class="primary" id="review-next" hidden>${esc(say(words, 'next'))} →</button></p>
</main>
<script type="application/json" id="review-data">${jsonData({ lang, words, checks, glossary: Object.assign({}, ...lessons.map((l) => l.glossary || {})) })}</script>
<script type="module" src="../assets/review.js"></script>
</body>
</html>
`;
}

// The course map on the index: the lessons in the groups site.json's page.mapGroups names
// ("key: id id | key: id | key: *"), each group under its page.map.<key> heading, each
// lesson with its minutes of reading (the core's count, at 200 words a minute). A lesson
// no group names joins the group of the lessons on both sides of it (a lesson split in
// two stays in its view), else the group marked *.
export function mapGroups(spec, lessons) {
  const groups = String(spec || '').split('|').map((g) => g.split(':')).filter((g) => g.length === 2)
    .map(([key, ids]) => ({ key: key.trim(), ids: ids.trim().split(/\s+/).filter(Boolean), lessons: [] }));
  const groupOf = new Map();
  for (const g of groups) for (const id of g.ids) if (id !== '*') groupOf.set(id, g);
  const rest = groups.find((g) => g.ids.includes('*'));
  const sorted = lessons.slice().sort((a, b) => a.order - b.order);
  sorted.forEach((lesson, i) => {
    let g = groupOf.get(lesson.id);
    if (!g) {
      const before = sorted.slice(0, i).reverse().find((x) => groupOf.has(x.id));
      const after = sorted.slice(i + 1).find((x) => groupOf.has(x.id));
      g = before && after && groupOf.get(before.id) === groupOf.get(after.id) ? groupOf.get(before.id) : rest;
    }
    if (g) g.lessons.push(lesson);
  });
  for (const g of groups) g.lessons.sort((a, b) => a.order - b.order);
  return groups.filter((g) => g.lessons.length);
}

function courseMap({ index, site, inEach }) {
  const en = site.words.en;
  const groups = mapGroups(en['page.mapGroups'], index.en);
  if (!groups.length) return '';
  const others = site.langs.filter((l) => l !== 'en');
  const byId = Object.fromEntries(others.map((l) => [l, Object.fromEntries((index[l] || []).map((x) => [x.id, x]))]));
  const item = (lesson) => `<li><a href="en/${esc(lesson.id)}.html" hreflang="en">${esc(lesson.order)}. ${esc(lesson.title)}</a>${
    others.filter((l) => byId[l][lesson.id]).map((l) => ` <a class="map-translation" lang="${esc(l)}" hreflang="${esc(l)}" href="${esc(l)}/${esc(lesson.id)}.html">${esc(byId[l][lesson.id].title)}</a>`).join('')
  } <span class="map-minutes">${esc(say(en, 'minutes', { n: lesson.minutes }))}</span></li>`;
  const total = index.en.reduce((n, l) => n + (l.minutes || 0), 0);
  return `<section class="course-map" aria-labelledby="course-map-title">
<h2 id="course-map-title">${esc(say(en, 'mapHeading'))}</h2>
${inEach((l, w, attr) => `<p class="map-intro"${attr}>${esc(say(w, 'mapIntro', { minutes: total }))}</p>`)}
${groups.map((g) => `<div class="map-group map-${esc(g.key)}">
<h3>${esc(say(en, `map.${g.key}`))}</h3>
${others.map((l) => `<p class="map-group-translation" lang="${esc(l)}">${esc(say(site.words[l], `map.${g.key}`))}</p>`).join('\n')}
<ul>
${g.lessons.map(item).join('\n')}
</ul>
</div>`).join('\n')}
</section>`;
}

// The index is English first (the reference every language follows); each lesson's card
// links its translations, each in its own language, and the review box each language's
// review page. Its words are the catalogues' (site.json's page.* here, index* in
// index.js): a sentence the page says to every learner is said in each language.
export function indexPage({ index, site, modules }) {
  const others = site.langs.filter((l) => l !== 'en');
  const en = site.words.en;
  const inEach = (render) => site.langs.map((l) => render(l, site.words[l], l === 'en' ? '' : ` lang="${esc(l)}"`)).join('\n');
  const byId = Object.fromEntries(others.map((l) => [l, Object.fromEntries((index[l] || []).map((x) => [x.id, x]))]));
  const count = (n, one, many) => say(en, n === 1 ? one : many, { n });
  const card = (lesson) => `<li class="lesson-card" data-lesson="${esc(lesson.id)}" data-checks="${esc(lesson.checks.join(' '))}">
<span class="card-order">${esc(lesson.number ?? lesson.order)}</span>
<div class="card-text">
<h2><a href="en/${esc(lesson.id)}.html" hreflang="en">${esc(lesson.title)}</a></h2>
${others.filter((l) => byId[l][lesson.id]).map((l) => `<p class="card-translation" lang="${esc(l)}"><a href="${esc(l)}/${esc(lesson.id)}.html" hreflang="${esc(l)}">${esc(byId[l][lesson.id].title)}</a></p>`).join('\n')}
${lesson.summary ? `<p class="card-summary">${esc(lesson.summary)}</p>` : ''}
<p class="card-meta">${lesson.minutes ? `${esc(say(en, 'minutes', { n: lesson.minutes }))} · ` : ''}${esc(count(lesson.demos.length, 'demoCountOne', 'demoCount'))} · ${esc(count(lesson.checks.length, 'checkCountOne', 'checkCount'))}</p>
<div class="card-progress" aria-live="polite"></div>
</div>
</li>`;
  // index.js's words, each language's (its notices speak to every learner)
  const data = { langs: site.langs, words: Object.fromEntries(site.langs.map((l) => [l, Object.fromEntries(
    Object.entries(site.words[l]).filter(([k]) => k.startsWith('index')))])) };
  const lab = '<a href="lab/">/lab/</a>';
  return `${head({ lang: 'en', title: say(en, 'indexTitle'), depth: 0, modules })}
<body class="index-page">
<a class="skip" href="#main">${esc(say(en, 'skipLessons'))}</a>
<header class="top"><a class="brand" href="index.html">ICL Lab</a></header>
<div id="notices" class="notices" aria-live="polite"></div>
<main id="main" class="index">
<h1>${esc(say(en, 'indexHeading'))}</h1>
${inEach((l, w, attr) => `<p class="lead"${attr}>${esc(say(w, 'indexLead'))}</p>`)}
${inEach((l, w, attr) => `<p class="index-sources"${attr}>${esc(say(w, 'indexSources'))}</p>`)}
${courseMap({ index, site, inEach })}
<ol class="lessons">
${index.en.map(card).join('\n')}
</ol>
<section class="review-box" id="review-box" aria-live="polite">
<p id="review-due"></p>
<p>${site.langs.map((l) => `<a href="${esc(l)}/review.html" hreflang="${esc(l)}"${l === 'en' ? '' : ` lang="${esc(l)}"`}>${esc(say(site.words[l], 'reviewDue'))}</a>`).join(' · ')}</p>
</section>
${inEach((l, w, attr) => `<p class="progress-note"${attr}>${esc(say(w, 'progressKept')).replace('{lab}', lab)}</p>`)}
<p class="progress-note progress-actions">
<button type="button" id="export-progress" class="link-button">${esc(say(en, 'exportProgress'))}</button>
<label class="link-button" for="import-progress">${esc(say(en, 'importProgress'))}</label><input type="file" id="import-progress" class="visually-hidden" accept=".json,application/json">
<button type="button" id="summary-csv" class="link-button">${esc(say(en, 'summaryCsv'))}</button>
<button type="button" id="forget-progress" class="link-button">${esc(say(en, 'forgetProgress'))}</button>
</p>
</main>
<script type="application/json" id="index-data">${jsonData(data)}</script>
<script type="module" src="assets/index.js"></script>
</body>
</html>
`;
}
