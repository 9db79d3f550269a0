// Text as HTML text or an attribute value: & < > " ' become character references. The
// site build writes its pages with it; share.js the <iframe> code a teacher copies.
export const escapeHtml = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
