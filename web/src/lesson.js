// A lesson page: starts the worker with the wasm core, brings the demo and check
// blocks to life, applies parameters from the URL (validated by the core), and keeps
// the reader's place across the language switch.
import { pageClient } from './core-client.js';
import { DemoBlock } from './demo-block.js';
import { CheckBlock } from './check-block.js';
import { importProgress, loadProgressFor, recordOf } from './progress.js';
import { findScormApi, lessonScore, ScormSession, xapiSetting } from './platform.js';
import { applyUrlParams, hrefOnUse, readUrlParams } from './url-state.js';
import { addShareBar } from './share.js';
import { wordsFor } from './i18n.js';
import { notice } from './notices.js';
import { initGlossary } from './glossary.js';

const data = JSON.parse(document.getElementById('lesson-data').textContent);
const words = wordsFor(data.words);
const client = pageClient(words);
initGlossary(document, data.glossary);

const demoBlocks = Object.create(null);  // by instance name; no prototype to collide with
for (const block of data.demos) {
  const section = document.querySelector(`section.demo[data-instance="${CSS.escape(block.name)}"]`);
  demoBlocks[block.name] = new DemoBlock({ block, section, client, lang: data.lang, words });
  addShareBar(demoBlocks[block.name], data.id, words);
}
// A demo a predict check with hide=result asks about holds its result back until every
// such check on it is answered (now, or stored from an earlier visit) or the learner runs
// it: demo name -> the ids of its checks still unanswered.
const unanswered = new Map();
for (const check of data.checks) {
  if (check.type !== 'predict' || !check.hides_result || !Object.hasOwn(demoBlocks, check.grading.demo)) continue;
  if (!unanswered.has(check.grading.demo)) unanswered.set(check.grading.demo, new Set());
  unanswered.get(check.grading.demo).add(check.id);
}
for (const name of unanswered.keys()) demoBlocks[name].hold(true);
function answered(check) {
  const open = check.type === 'predict' && unanswered.get(check.grading.demo);
  if (!open || !open.delete(check.id) || open.size) return;
  demoBlocks[check.grading.demo].hold(false);
}

// The first demo's result in the lesson's setup, computed by the site build with the
// same core (inert JSON, never run; first-result.js has usually drawn it already, as soon
// as the block was parsed): shown now, before the engine is ready — unless the URL sets
// that demo up, when the learner must see their own setup's result only.
const first = document.getElementById('first-result');
if (first) {
  const carried = JSON.parse(first.textContent);
  const block = demoBlocks[carried.name];
  if (block && !readUrlParams(window.location.search, [carried.name]).byInstance[carried.name].length) block.showPrecomputed(carried);
}

const checkBlocks = data.checks.map((check) => {
  const section = document.querySelector(`section.check[data-check="${CSS.escape(check.id)}"]`);
  return new CheckBlock({ check, section, client, words, lessonId: data.id, demoBlocks,
    onAnswered: () => answered(check),
    onProgress: (saved, progress) => {
      if (!saved) notice(words.storageOff, 'warning');
      if (progress) reportToPlatform(progress);
      if (progress && xapi) {
        const r = recordOf(progress, data.id, check.id);
        if (r) xapi.answered(data, check, r.answer, r.correct);
        const s = lessonScore(progress, data.id, data.checks);
        if (!wasComplete && s.attempted === s.total) {
          wasComplete = true;
          xapi.completed(data);
        }
      }
    } });
});

// A learning platform that launched this page as a SCO (platform.js): null outside one.
const scormFound = findScormApi();
const scorm = scormFound ? new ScormSession(scormFound) : null;
let lastTrimmed = '';  // said once, until the checks left out change
function reportToPlatform(progress) {
  if (!scorm) return;
  const { trimmed } = scorm.report(progress, data.id, data.checks);
  const named = trimmed.join(', ');
  if (named && named !== lastTrimmed) notice(words.platformTrimmed({ checks: named }), 'warning');
  lastTrimmed = named;
}
// The teacher's LRS, when the package names one (started in start(), once the
// platform, if any, has said who the learner is).
const xapiSet = xapiSetting();
let xapi = null;
let wasComplete = true;  // set from the stored progress in start()
const sameParams = (a, b) => JSON.stringify(Object.entries(a || {}).sort()) === JSON.stringify(Object.entries(b || {}).sort());
if (scorm) {
  // The platform keeps what was reported when the page goes away (a reload, the next
  // lesson, the platform closing the frame).
  window.addEventListener('pagehide', () => scorm.finish());
  window.addEventListener('beforeunload', () => scorm.finish());
}

// The language switch keeps the place: the section (or demo / check) at the top of
// the window becomes the other page's #fragment, and the demo parameters carry over.
for (const langSwitch of document.querySelectorAll('a.lang-switch')) {
  const base = langSwitch.getAttribute('href');
  hrefOnUse(langSwitch, () => {
    const anchors = [...document.querySelectorAll('main h2[id], main h3[id], main h4[id], section.demo, section.check')];
    let place = '';
    for (const a of anchors) {
      if (a.getBoundingClientRect().top <= 90) place = a.id;
      else break;
    }
    return `${base}${window.location.search}${place ? `#${place}` : ''}`;
  });
}

const deferred = new Map();  // section -> DemoBlock waiting to come near the view
const nearView = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    nearView.unobserve(e.target);
    const block = deferred.get(e.target);
    deferred.delete(e.target);
    if (block && block.section.dataset.state === 'idle') block.run({ auto: true });
  }
}, { rootMargin: '100% 0px' }) : null;

async function start() {
  await client.ready;
  // What the platform kept from the learner's last visit joins the stored progress (the
  // core's merge: the later answer of a check wins), before the page shows the answers.
  const kept = scorm ? scorm.start() : null;
  if (kept) {
    const merged = await importProgress(client, kept);
    if (merged.error) notice(words.platformUnreadable, 'warning');
  }
  // The saved answers, read (and checked against this lesson's checks) by the core.
  const loaded = await loadProgressFor(client, data.id, data.checks);
  if (loaded.notice === 'reset') notice(words.progressReset, 'warning');
  if (loaded.notice === 'unavailable') notice(words.storageOff, 'warning');
  for (const message of loaded.dropped) notice(message, 'warning');
  for (const block of checkBlocks) block.restore(loaded.progress);
  reportToPlatform(loaded.progress);
  if (xapiSet) {
    // Loaded only where a teacher set an endpoint: other pages do not carry it.
    const { XapiSender } = await import('./xapi.js');
    xapi = new XapiSender({ ...xapiSet, lang: data.lang, learner: scorm ? scorm.learner() : null });
    const s = lessonScore(loaded.progress, data.id, data.checks);
    wasComplete = s.total > 0 && s.attempted === s.total;
    xapi.attempted(data);
    // A finished run the learner set up (other parameters than the lesson's) is a lab run.
    const lastSent = new Map();
    for (const [name, block] of Object.entries(demoBlocks)) {
      new MutationObserver(() => {
        if (block.section.dataset.state === 'done' && block.resultParams && !sameParams(block.resultParams, block.lessonParams)
            && !sameParams(block.resultParams, lastSent.get(name))) {
          lastSent.set(name, { ...block.resultParams });
          xapi.ranLab(data, name, block.block.demo, block.resultParams);
        }
      }).observe(block.section, { attributes: true, attributeFilter: ['data-state'] });
    }
  }
  const setUp = await applyUrlParams(window.location.search, demoBlocks, client, words);
  for (const [name, block] of Object.entries(demoBlocks)) {
    if (block.analytic && nearView && (block.info.assets || []).length && !setUp.has(name)) {
      // An analytic demo that reads a file (a checkpoint) starts when its block comes
      // within a screen of the view, so a page's first load carries only what its first
      // screens draw; one the link sets up starts at once.
      block.idle();
      block.setStatus('');
      deferred.set(block.section, block);
      nearView.observe(block.section);
    } else if (block.analytic) block.run({ auto: true });
    else block.idle();
  }
  document.body.dataset.ready = 'true';
}
start();
