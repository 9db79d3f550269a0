// "Copy link" and "Copy embed code" under a lesson's demo. The link leads to this demo
// block with its current parameters, written as the page's own URL writes them; the
// embed code is an <iframe> of the demo's embed page (<lang>/embed/<demo>.html) with the
// parameters that differ from the demo's defaults and the block to lead back to. The
// core checks the parameters (parse_params) before anything is copied; values travel
// URL-encoded and the iframe's attributes HTML-escaped. The copied text also shows in a
// read-only field (a value, never markup) for a browser that refuses the clipboard.
import { setUrlParams, paramText } from './url-state.js';
import { changedFrom, withDefaults } from './demo-block.js';
import { escapeHtml } from './html-escape.js';

const HEIGHT = { min: 420, max: 1600, undrawn: 720 };  // px of the iframe; a teacher may change it

function embedCode(url, title, height) {
  return `<iframe src="${escapeHtml(url)}" title="${escapeHtml(title)}" width="100%" height="${height}" `
    + 'style="border: 0; max-width: 100%;" loading="lazy"></iframe>';
}

export function addShareBar(demo, lessonId, words) {
  const { block, section, client } = demo;
  const button = (text) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'link-button';
    b.textContent = text;
    return b;
  };
  const bar = document.createElement('div');
  bar.className = 'demo-share';
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', words.shareLabel);
  const link = button(words.copyLink);
  link.classList.add('copy-link');
  const embed = button(words.copyEmbed);
  embed.classList.add('copy-embed');
  const status = document.createElement('span');
  status.className = 'share-status';
  status.setAttribute('role', 'status');
  const field = document.createElement('input');
  Object.assign(field, { type: 'text', readOnly: true, hidden: true, className: 'share-text', spellcheck: false });
  field.setAttribute('aria-label', words.shareField);
  bar.append(link, embed, status, field);
  section.querySelector('.demo-body').appendChild(bar);

  // The parameters that differ from `base`, once the core accepts them as a URL gives them.
  const checked = async (base) => {
    const changed = changedFrom(demo.params, base);
    const kvs = Object.entries(changed).map(([k, v]) => `${k}=${paramText(v)}`);
    const parsed = await client.call('parse_params', block.demo, JSON.stringify(kvs), document.documentElement.lang || 'en');
    return parsed.error ? { error: parsed.error } : { changed };
  };
  const copy = async (text, done) => {
    field.value = text;
    field.hidden = false;
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = done;
    } catch {
      field.focus();
      field.select();
      status.textContent = words.copyByHand;
    }
  };
  const refuse = (message) => {
    field.hidden = true;
    status.textContent = words.shareBad({ problem: message });
  };

  link.addEventListener('click', async () => {
    status.textContent = '';
    const { changed, error } = await checked(demo.urlBase);
    if (error) return refuse(error);
    const url = new URL(window.location.href);
    url.search = '';
    url.hash = `demo-${block.name}`;
    return copy(setUrlParams(url, block.name, changed).href, words.linkCopied);
  });
  embed.addEventListener('click', async () => {
    status.textContent = '';
    const { changed, error } = await checked(withDefaults(block.info));
    if (error) return refuse(error);
    const url = new URL(`embed/${block.demo}.html`, window.location.href);
    url.searchParams.set('lesson', lessonId);
    url.searchParams.set('block', block.name);
    setUrlParams(url, block.demo, changed);
    // About the block's height here (the embed page shows the same head and body).
    const height = demo.draws ? Math.min(HEIGHT.max, Math.max(HEIGHT.min, Math.round(section.offsetHeight + 40))) : HEIGHT.undrawn;
    return copy(embedCode(url.href, `${block.info.title} · ICL Lab`, height), words.embedCopied);
  });
}
