// Inline SVG charts for the report: a bar histogram and a line with points. Drawn here, server side,
// because a page must open without a network and the report's charts are few and simple.
import type { Histogram } from './summarize';

const W = 360;
const H = 180;
const PAD = { left: 44, right: 10, top: 22, bottom: 34 };

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function frame(title: string, body: string, yMax: number, yFmt: (y: number) => string): string {
  const innerH = H - PAD.top - PAD.bottom;
  const ticks = [0, 0.5, 1].map((f) => {
    const y = PAD.top + innerH * (1 - f);
    return `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}" class="grid"/><text x="${PAD.left - 4}" y="${y + 3}" text-anchor="end">${escapeHtml(yFmt(yMax * f))}</text>`;
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}"><text x="${W / 2}" y="14" text-anchor="middle" class="title">${escapeHtml(title)}</text>${ticks.join('')}${body}</svg>`;
}

export function histogramSvg(title: string, h: Histogram): string {
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const max = Math.max(1, ...h.counts);
  const bw = innerW / Math.max(1, h.counts.length);
  const every = Math.ceil(h.counts.length / 6);
  const bars = h.counts.map((c, i) => {
    const bh = (c / max) * innerH;
    const x = PAD.left + i * bw;
    const [lo, hi] = h.edges[i]!;
    const range = lo === hi ? `${h.labels[i]}` : `[${lo.toPrecision(4)}, ${hi.toPrecision(4)})`;
    const label = i % every === 0 ? `<text x="${x + bw / 2}" y="${H - PAD.bottom + 13}" text-anchor="middle">${escapeHtml(h.labels[i]!)}</text>` : '';
    return `<rect x="${x + 1}" y="${PAD.top + innerH - bh}" width="${Math.max(1, bw - 2)}" height="${bh}"><title>${escapeHtml(range)}: ${c}</title></rect>${label}`;
  });
  return frame(title, bars.join(''), max, (y) => String(Math.round(y)));
}

/** A line over integer x (k), y in [0, 1]. */
export function lineSvg(title: string, points: readonly { k: number; value: number }[]): string {
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const kMin = points[0]?.k ?? 1;
  const kMax = points.at(-1)?.k ?? 1;
  const xOf = (k: number) => PAD.left + (kMax === kMin ? innerW / 2 : ((k - kMin) / (kMax - kMin)) * innerW);
  const yOf = (v: number) => PAD.top + innerH * (1 - v);
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${xOf(p.k).toFixed(1)},${yOf(p.value).toFixed(1)}`).join('');
  const every = Math.ceil(points.length / 8);
  const dots = points.map(
    (p, i) =>
      `<circle cx="${xOf(p.k).toFixed(1)}" cy="${yOf(p.value).toFixed(1)}" r="3"><title>pass@${p.k} = ${p.value.toFixed(4)}</title></circle>` +
      (i % every === 0 || i === points.length - 1 ? `<text x="${xOf(p.k).toFixed(1)}" y="${H - PAD.bottom + 13}" text-anchor="middle">${p.k}</text>` : ''),
  );
  return frame(title, `<path d="${path}" class="line"/>${dots.join('')}<text x="${W / 2}" y="${H - 4}" text-anchor="middle">k</text>`, 1, (y) => y.toFixed(1));
}
