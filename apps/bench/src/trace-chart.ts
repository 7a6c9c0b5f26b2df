import type { Measurement } from './harness.ts';
import type { IterationTrace } from './types.ts';

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

/** Ticks from 0 at 1, 2 or 5 times a power of ten, about `count` of them. */
function ticks(max: number, count: number): { step: number; top: number } {
  if (!(max > 0)) return { step: 1, top: 1 };
  const raw = max / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * pow >= raw) ?? 10) * pow;
  return { step, top: Math.ceil(max / step) * step };
}

/** 1200 -> 1.2k, 3400000 -> 3.4M: short axis labels. */
const short = (v: number) =>
  v >= 1e9
    ? `${+(v / 1e9).toFixed(2)}G`
    : v >= 1e6
      ? `${+(v / 1e6).toFixed(2)}M`
      : v >= 1e3
        ? `${+(v / 1e3).toFixed(2)}k`
        : `${+v.toFixed(2)}`;

/**
 * Per-iteration chart of one traced traversal, after the Mini-Gunrock paper's Figures 6-7: the input frontier's
 * size per iteration as an area (left axis, vertices) and the iteration's MTEPS as a line (right axis: edges the
 * step inspected over its GPU time).
 */
export function traceChart(m: Measurement, trace: IterationTrace): string {
  const k = trace.frontier.length;
  if (k === 0) return '';
  const times = trace.timesMs ?? [];
  const mteps = trace.edges.map((e, i) => (times[i] ? e / times[i]! / 1e3 : 0));
  const W = 620;
  const H = 340;
  const L = 70;
  const R = 70;
  const T = 52;
  const B = 48;
  const fx = ticks(Math.max(1, k - 1), 8);
  fx.step = Math.max(1, fx.step);
  fx.top = Math.max(1, Math.ceil((k - 1) / fx.step) * fx.step);
  const fl = ticks(Math.max(...trace.frontier), 5);
  const fr = ticks(Math.max(...mteps), 5);
  const sx = (i: number) => L + (k === 1 ? 0 : (i / fx.top) * (W - L - R));
  const syL = (v: number) => H - B - (v / fl.top) * (H - T - B);
  const syR = (v: number) => H - B - (v / fr.top) * (H - T - B);
  const p: string[] = [];
  const title = m.graph ? m.name : `${m.name}, n=${m.n}`;
  p.push(
    `<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold" font-size="13">${esc(title)}</text>`,
  );
  p.push(
    `<text x="${W / 2}" y="34" text-anchor="middle" font-size="11">${trace.source === undefined ? '' : `source ${trace.source}, `}${k} iterations, untimed traced run; ${times.length > 0 ? `MTEPS = edges inspected / ${trace.clock === 'wall' ? 'wall' : 'GPU'} time of the step` : 'no step times (no timestamps): MTEPS not shown'}</text>`,
  );
  // Grid and axes.
  for (let v = 0; v <= fl.top * (1 + 1e-9); v += fl.step) {
    p.push(`<line x1="${L}" y1="${syL(v)}" x2="${W - R}" y2="${syL(v)}" stroke="#eee"/>`);
    p.push(
      `<text x="${L - 6}" y="${syL(v) + 4}" text-anchor="end" font-size="11" fill="#1f77b4">${short(v)}</text>`,
    );
  }
  for (let v = 0; v <= fr.top * (1 + 1e-9); v += fr.step) {
    p.push(`<text x="${W - R + 6}" y="${syR(v) + 4}" font-size="11" fill="#d62728">${short(v)}</text>`);
  }
  for (let i = 0; i <= fx.top; i += fx.step) {
    p.push(`<line x1="${sx(i)}" y1="${H - B}" x2="${sx(i)}" y2="${H - B + 5}" stroke="#333"/>`);
    p.push(`<text x="${sx(i)}" y="${H - B + 18}" text-anchor="middle" font-size="11">${i}</text>`);
  }
  // Frontier area (left axis).
  const area = trace.frontier.map((f, i) => `L${sx(i).toFixed(1)},${syL(f).toFixed(1)}`).join(' ');
  p.push(
    `<path d="M${sx(0)},${syL(0)} ${area} L${sx(k - 1).toFixed(1)},${syL(0)} Z" fill="#1f77b4" fill-opacity="0.35" stroke="#1f77b4"/>`,
  );
  // MTEPS line (right axis).
  const line = mteps.map((v, i) => `${i ? 'L' : 'M'}${sx(i).toFixed(1)},${syR(v).toFixed(1)}`).join(' ');
  p.push(`<path d="${line}" fill="none" stroke="#d62728" stroke-width="2"/>`);
  if (k <= 60) {
    for (const [i, v] of mteps.entries()) {
      p.push(`<circle cx="${sx(i)}" cy="${syR(v)}" r="2.5" fill="#d62728"/>`);
    }
  }
  p.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/>`);
  p.push(`<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#1f77b4"/>`);
  p.push(`<line x1="${W - R}" y1="${T}" x2="${W - R}" y2="${H - B}" stroke="#d62728"/>`);
  p.push(
    `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle" font-size="12">iteration (${trace.algorithm === 'bfs' ? 'BFS level' : 'step'})</text>`,
  );
  const midY = (T + H - B) / 2;
  p.push(
    `<text x="16" y="${midY}" text-anchor="middle" font-size="12" fill="#1f77b4" transform="rotate(-90 16 ${midY})">frontier (vertices), area</text>`,
  );
  p.push(
    `<text x="${W - 14}" y="${midY}" text-anchor="middle" font-size="12" fill="#d62728" transform="rotate(90 ${W - 14} ${midY})">MTEPS per step, line</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" role="img"><title>${esc(title)}</title>${p.join('')}</svg>`;
}
