// Page-level notices (a bad link, reset progress, an engine failure): text only.
export function notice(text, kind = 'info') {
  const box = document.getElementById('notices');
  if (!box) return;
  const p = document.createElement('p');
  p.className = `notice notice-${kind}`;
  p.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'notice-close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  close.addEventListener('click', () => p.remove());
  p.appendChild(close);
  box.appendChild(p);
}
