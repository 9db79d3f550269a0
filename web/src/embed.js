// An embed page (<lang>/embed/<demo>.html): one demo alone, for an <iframe> in a
// teacher's slides or course page. Its parameters come from the URL as on a lesson page
// (`?<demo>.<name>=<value>`, against the demo's defaults, typed and validated by the
// core), and Reset comes back to them. "Open in ICL Lab" leads to the demo block the
// link names (`lesson=<id>&block=<instance>`, else the first block with this demo) with
// the current parameters. A demo that reads a checkpoint waits for Run, like a training demo, so the
// page's first load stays within the budget a lesson page keeps.
import { pageClient } from './core-client.js';
import { DemoBlock, changedFrom, withDefaults } from './demo-block.js';
import { applyUrlParams, setUrlParams, hrefOnUse } from './url-state.js';
import { wordsFor } from './i18n.js';
import { notice } from './notices.js';

const data = JSON.parse(document.getElementById('embed-data').textContent);
const shared = wordsFor(data.words);
const words = { ...shared, resetHint: shared.resetHintEmbed, urlBad: shared.urlBadEmbed };
const client = pageClient(words);

const section = document.querySelector('section.demo');
const demo = new DemoBlock({ block: { name: data.demo, demo: data.demo, params: {}, info: data.info }, section, client, lang: data.lang, words });

const query = new URLSearchParams(window.location.search);
const lessonId = query.get('lesson');
const blockName = query.get('block');
query.delete('lesson');
query.delete('block');
const home = data.lessons.find((l) => l.id === lessonId && l.instance === blockName)
  || data.lessons.find((l) => l.id === lessonId) || data.lessons[0];
const homeLink = document.getElementById('embed-home');
const updateHome = home ? hrefOnUse(homeLink, () => {
    const url = new URL(`../${home.id}.html`, window.location.href);
    setUrlParams(url, home.instance, changedFrom(demo.params, withDefaults(data.info, home.params)));
    url.hash = `demo-${home.instance}`;
    return url.href;
  }) : () => {};

async function start() {
  await client.ready;
  if (lessonId !== null && home && home.id !== lessonId) notice(words.embedLessonUnknown({ lesson: lessonId }), 'warning');
  const blocks = Object.create(null);
  blocks[data.demo] = demo;
  await applyUrlParams(query, blocks, client, words, { home: true });
  if (demo.analytic && !(data.info.assets || []).length) {
    demo.run();
  } else {
    demo.idle();
    if (demo.analytic) demo.setStatus(words.pressRunModel({ megabytes: (data.assetBytes / 1e6).toFixed(1) }));
  }
  updateHome();
  document.body.dataset.ready = 'true';
}
start();
