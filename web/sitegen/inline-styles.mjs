// KaTeX writes inline style="..." attributes (vertical offsets, strut heights). A strict
// Content-Security-Policy (style-src 'self') refuses those, so the site build moves each
// distinct style into a class of a generated stylesheet; `!important` there keeps the
// precedence an inline style had over katex.css.
//   html: KaTeX (or any) HTML; classes: Map(style text -> class name), shared across pages.
export function inlineStylesToClasses(html, classes) {
  return html.replace(/<([a-zA-Z][\w-]*)([^<>]*?)\sstyle="([^"]*)"([^<>]*)>/g, (m, tag, before, style, after) => {
    const key = style.trim();
    if (!classes.has(key)) classes.set(key, `ks${classes.size}`);
    const cls = classes.get(key);
    const attrs = `${before}${after}`;
    const withClass = /\sclass="/.test(attrs)
      ? attrs.replace(/\sclass="([^"]*)"/, (c, names) => ` class="${names} ${cls}"`)
      : `${attrs} class="${cls}"`;
    return `<${tag}${withClass}>`;
  });
}
