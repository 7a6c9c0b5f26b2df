import type { AnchorFile } from './anchors.ts';
import { type BenchReport, traversalHtmlTable } from './report.ts';
import { traceChart } from './trace-chart.ts';

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

interface Series {
  label: string;
  points: { x: number; y: number }[];
  dashed?: boolean;
}

/** A y axis from 0 with 4-6 ticks at 1, 2 or 5 times a power of ten, and the decimals those ticks need. */
function niceAxis(dataMax: number): { step: number; max: number; decimals: number } {
  if (!(dataMax > 0)) return { step: 0.2, max: 1, decimals: 1 };
  const raw = (dataMax * 1.05) / 5;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * pow >= raw) ?? 10) * pow;
  return {
    step,
    max: Math.ceil((dataMax * 1.05) / step) * step,
    decimals: Math.max(0, -Math.floor(Math.log10(step) + 1e-9)),
  };
}

/** An SVG line chart: log2(n) on x, throughput on y, one line per series, with axes, ticks and a legend. */
function lineChart(title: string, yLabel: string, series: readonly Series[]): string {
  const L = 70;
  // The legend is as wide as its longest label (about 6.5 px a character at 11 px), so none is cut off.
  const R = Math.max(120, 48 + 6.5 * Math.max(0, ...series.map((s) => s.label.length)));
  const W = L + 370 + R;
  // Tall enough for the legend (18 px a line), so no series is cut off.
  const H = Math.max(340, 36 + 8 + 18 * series.length + 16);
  const T = 36;
  const B = 48;
  const pts = series.flatMap((s) => s.points);
  if (pts.length === 0) return '';
  const xs = pts.map((p) => p.x);
  const x0 = Math.min(...xs);
  const x1 = Math.max(x0 + 1, ...xs);
  const { step, max: yMax, decimals } = niceAxis(Math.max(...pts.map((p) => p.y)));
  const sx = (x: number) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y: number) => H - B - (y / yMax) * (H - T - B);
  const parts: string[] = [];
  parts.push(
    `<text x="${W / 2 - R / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
  );
  parts.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/>`);
  parts.push(`<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`);
  for (let x = Math.ceil(x0); x <= x1; x++) {
    parts.push(`<line x1="${sx(x)}" y1="${H - B}" x2="${sx(x)}" y2="${H - B + 5}" stroke="#333"/>`);
    parts.push(`<text x="${sx(x)}" y="${H - B + 18}" text-anchor="middle" font-size="11">2^${x}</text>`);
  }
  for (let i = 0; i * step <= yMax * (1 + 1e-9); i++) {
    const y = i * step;
    parts.push(`<line x1="${L - 5}" y1="${sy(y)}" x2="${W - R}" y2="${sy(y)}" stroke="#eee"/>`);
    parts.push(
      `<text x="${L - 8}" y="${sy(y) + 4}" text-anchor="end" font-size="11">${y.toFixed(decimals)}</text>`,
    );
  }
  parts.push(
    `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle" font-size="12">items (n)</text>`,
  );
  parts.push(
    `<text x="16" y="${(T + H - B) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${(T + H - B) / 2})">${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    // Past the eighth series colours repeat: a dash pattern per round tells them apart.
    const dash = s.dashed ? '6 4' : ['', '2 3', '10 3 2 3'][Math.floor(i / COLORS.length) % 3]!;
    const dashAttr = dash ? ` stroke-dasharray="${dash}"` : '';
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    const d = sorted.map((p, j) => `${j ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dashAttr}/>`);
    for (const p of sorted) parts.push(`<circle cx="${sx(p.x)}" cy="${sy(p.y)}" r="3" fill="${color}"/>`);
    const ly = T + 8 + i * 18;
    parts.push(
      `<line x1="${W - R + 12}" y1="${ly}" x2="${W - R + 36}" y2="${ly}" stroke="${color}" stroke-width="2"${dashAttr}/>`,
    );
    parts.push(`<text x="${W - R + 42}" y="${ly + 4}" font-size="11">${esc(s.label)}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" role="img"><title>${esc(title)}</title>${parts.join('')}</svg>`;
}

/** What an item is, where the family's items are not plain elements. */
const ITEM_UNITS: Record<string, string> = {
  algorithms: ' (BFS/SSSP: harmonic-mean TEPS)',
  operators: ' (edges or vertices walked)',
  build: ' (input edges)',
  load: ' (CSR arcs)',
};

const BANDWIDTH_FAMILIES = new Set(['copy', 'transform', 'lbs', 'segreduce', 'compact']);

/** The self-contained HTML report: environment, one chart per primitive family, and the full table. */
export function htmlReport(report: BenchReport, tableHtml: string): string {
  const charts: string[] = [];
  const families = [...new Set(report.measurements.map((m) => m.family))];
  const anchors = report.anchors?.results ?? [];
  for (const family of families) {
    const bw = BANDWIDTH_FAMILIES.has(family);
    const metric = bw ? 'bytesPerSec' : 'itemsPerSec';
    // Chosen graphs (--graph, --kron, ...) have one size each: their figures are in the tables, not a by-size chart.
    const ms = report.measurements.filter((m) => m.family === family && m.valid && !m.graph);
    if (ms.length === 0) continue;
    const anchorName = anchorFor(family, report.anchors);
    const anchorPoints = anchors.filter((a) => a.name === anchorName);
    // Mega units below 1 G/s (software adapters, small sizes), so the axis does not read 0.00 throughout.
    const top = Math.max(0, ...ms.map((m) => m[metric]), ...anchorPoints.map((a) => a[metric]));
    const scale = top >= 1e9 ? 1e9 : 1e6;
    const prefix = scale === 1e9 ? 'G' : 'M';
    const names = [...new Set(ms.map((m) => m.name))];
    const series: Series[] = names.map((name) => ({
      label: name,
      points: ms.filter((m) => m.name === name).map((m) => ({ x: Math.log2(m.n), y: m[metric] / scale })),
    }));
    if (anchorName) {
      series.push({
        label: anchorName,
        dashed: true,
        points: anchorPoints.map((a) => ({ x: Math.log2(a.n), y: a[metric] / scale })),
      });
    }
    charts.push(
      lineChart(
        `${family}: ${bw ? 'bandwidth' : 'throughput'} by size`,
        bw ? `${prefix}B/s moved (min. traffic)` : `${prefix} items/s${ITEM_UNITS[family] ?? ''}`,
        series,
      ),
    );
  }
  const traces = report.measurements
    .filter((m) => m.valid && m.trace)
    .map((m) => traceChart(m, m.trace!))
    .filter((svg) => svg !== '');
  const traversals = traversalHtmlTable(report);
  const a = report.adapter;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Weft bench report</title>
<style>body{font-family:sans-serif;margin:24px;max-width:1400px}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:nth-child(-n+2),th{text-align:left}
.bad{color:#b00;font-weight:bold}.charts{display:flex;flex-wrap:wrap;gap:12px}pre{background:#f6f6f6;padding:8px}</style>
</head><body><h1>Weft bench report</h1>
<p><b>Adapter:</b> ${esc(`${a.vendor} ${a.architecture} ${a.device} ${a.description}`)}${a.software ? ' (software adapter)' : ''}
&nbsp; <b>Date:</b> ${esc(report.date)} &nbsp; <b>Weft:</b> ${esc(report.versions.weft)} ${report.versions.node ? ` &nbsp; <b>Node:</b> ${esc(report.versions.node)}` : ''}${report.versions.browser ? ` &nbsp; <b>Browser:</b> ${esc(report.versions.browser)}` : ''}
&nbsp; <b>Dawn options:</b> ${esc(a.toggles.join(' ') || 'defaults')}</p>
${report.anchors ? `<p><b>Anchors:</b> ${esc(`${report.anchors.tool} ${report.anchors.version} on ${report.anchors.device}`)}, measured in the same command.</p>` : ''}
<p><b>Command:</b></p><pre>${esc(report.command)}</pre>
<div class="charts">${charts.join('\n')}</div>
${
  traversals
    ? `<h2>Traversals under Graph500/GAP rules</h2><p>Each timed from several seeded sources with out-degree &gt; 0; HM MTEPS is the harmonic mean over sources of edges traversed (an undirected edge counted once) per second; ms / iteration is the median over sources of time / iterations (BFS: time per level).</p>${traversals}`
    : ''
}
${traces.length > 0 ? `<h2>Per iteration: frontier size and MTEPS</h2><div class="charts">${traces.join('\n')}</div>` : ''}
${report.notes?.length ? `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${report.graphs?.length ? `<h2>Graphs</h2><pre>${esc(JSON.stringify(report.graphs, null, 1))}</pre>` : ''}
<h2>All measurements</h2>${tableHtml}
</body></html>`;
}

function anchorFor(family: string, anchors: AnchorFile | undefined): string | undefined {
  const byFamily: Record<string, string> = {
    copy: 'torch copy int32',
    scan: 'torch cumsum int32',
    reduce: 'torch sum int32',
    sort: 'torch sort int32 (values + int64 indices)',
  };
  const name = byFamily[family];
  return name && anchors?.results.some((r) => r.name === name) ? name : undefined;
}
