// Downloads of a demo's result: every panel as CSV (one section a panel), the Result
// JSON as the core wrote it, and a plot as PNG (its SVG drawn into a canvas at 2x).

export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const cell = (v) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const line = (cells) => cells.map(cell).join(',');

// One CSV with a "# title" line before each panel's table.
export function resultToCsv(result) {
  const out = [];
  for (const p of result.panels || []) {
    out.push(line([`# ${p.kind}: ${p.title || ''}`]));
    if (p.kind === 'scalars') {
      out.push(line(['name', 'value', 'unit']));
      for (const s of p.items || []) out.push(line([s.name, s.value, s.unit]));
    } else if (p.kind === 'lines') {
      out.push(line(['series', p.x_label || 'x', p.y_label || 'y', 'y_err']));
      for (const s of p.series || []) s.x.forEach((x, k) => out.push(line([s.name, x, s.y[k], (s.y_err || [])[k]])));
    } else if (p.kind === 'heatmap') {
      out.push(line(['', ...(p.col_labels && p.col_labels.length === p.cols ? p.col_labels : [...Array(p.cols).keys()])]));
      for (let r = 0; r < p.rows; r++) {
        const label = p.row_labels && p.row_labels.length === p.rows ? p.row_labels[r] : r;
        out.push(line([label, ...p.values.slice(r * p.cols, (r + 1) * p.cols)]));
      }
    } else if (p.kind === 'bars') {
      out.push(line(['label', p.y_label || 'value', 'error']));
      (p.labels || []).forEach((l, k) => out.push(line([l, p.values[k], (p.errors || [])[k]])));
    } else if (p.kind === 'table') {
      out.push(line(p.columns || []));
      for (const r of p.rows || []) out.push(line(r));
    } else if (p.kind === 'note') {
      out.push(line([p.text]));
    }
    out.push('');
  }
  return out.join('\n');
}

export function downloadCsv(result, name) {
  download(`${name}.csv`, new Blob([resultToCsv(result)], { type: 'text/csv' }));
}

export function downloadJson(result, params, name) {
  download(`${name}.json`, new Blob([JSON.stringify({ params, result }, null, 1)], { type: 'application/json' }));
}

// The SVG, with its title on top, rendered at 2x into a PNG.
export function downloadPng(svg, title, name) {
  const vb = svg.viewBox.baseVal;
  const titleH = title ? 28 : 0;
  const clone = svg.cloneNode(true);
  clone.setAttribute('width', vb.width);
  clone.setAttribute('height', vb.height);
  const data = new XMLSerializer().serializeToString(clone);
  const img = new Image();
  const url = URL.createObjectURL(new Blob([data], { type: 'image/svg+xml' }));
  img.onload = () => {
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = vb.width * scale;
    canvas.height = (vb.height + titleH) * scale;
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, vb.width, vb.height + titleH);
    if (title) {
      ctx.fillStyle = '#1f2328';
      ctx.font = '600 14px system-ui, sans-serif';
      ctx.fillText(title, 8, 19, vb.width - 16);
    }
    ctx.drawImage(img, 0, titleH, vb.width, vb.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => download(`${name}.png`, blob), 'image/png');
  };
  img.src = url;
}
