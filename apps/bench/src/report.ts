import type { AdapterReport } from '@weft/gpu';
import { type AnchorFile, type Comparison, compare, PAPER_ANCHORS, paperAnchor } from './anchors.ts';
import { fmtBytes, fmtItems, fmtMs, fmtN, textTable } from './format.ts';
import type { GraphStats } from './graphs.ts';
import type { Measurement } from './harness.ts';

/** Everything needed to reproduce and read a bench run; written as JSON. */
export interface BenchReport {
  command: string;
  date: string;
  /** `node` from the CLI, `browser` (the user agent) from the web page. */
  versions: { weft: string; node?: string; webgpu?: string; browser?: string };
  adapter: AdapterReport;
  options: Record<string, unknown>;
  anchors?: AnchorFile;
  /** Graphs chosen with --graph, --kron, --urand, --rgg, --grid. */
  graphs?: GraphStats[];
  /** What was skipped or sampled, and why. */
  notes?: string[];
  measurements: (Measurement & { comparison?: Comparison })[];
}

export function withComparisons(
  ms: readonly Measurement[],
  anchors: AnchorFile | undefined,
): BenchReport['measurements'] {
  return ms.map((m) => {
    const c = compare(m, ms, anchors?.results ?? []);
    return c ? { ...m, comparison: c } : { ...m };
  });
}

// Traversals timed from several sources show the median time over sources, harmonic-mean TEPS as items/s,
// and in `sources` how many ran (and how many were validated, where a big graph was sampled).
const HEADER = [
  'case',
  'n',
  'time ms',
  'clock',
  'items/s',
  'bandwidth',
  'sources',
  'anchor',
  'ratio',
  'valid',
];
const VALID_COLUMN = HEADER.length - 1;

const sourcesCell = (m: Measurement) =>
  m.sources
    ? `${m.sources.count}${m.sources.validated < m.sources.count ? ` (${m.sources.validated} checked)` : ''}`
    : '';

function rows(report: BenchReport): string[][] {
  return report.measurements.map((m) => {
    const c = m.comparison;
    const anchor = c ? (c.metric === 'bytesPerSec' ? fmtBytes(c.anchorValue) : fmtItems(c.anchorValue)) : '';
    const ratio = c
      ? `${c.ratio.toFixed(2)}x${c.target !== undefined ? (c.ratio >= c.target ? ' ok' : ` <${c.target}`) : ''}`
      : '';
    return [
      m.name,
      fmtN(m.n),
      m.valid ? fmtMs(m.timeMs) : '-',
      m.clock,
      m.valid ? fmtItems(m.itemsPerSec) : '-',
      m.valid && m.bytes > 0 ? fmtBytes(m.bytesPerSec) : '-',
      sourcesCell(m),
      c ? `${c.anchor}: ${anchor}` : '',
      ratio,
      m.valid ? 'yes' : `FAILED: ${m.error ?? ''}`,
    ];
  });
}

export function summaryTable(report: BenchReport): string {
  return textTable(HEADER, rows(report));
}

export function summaryHtmlTable(report: BenchReport): string {
  const e = (s: string) => s.replace(/[&<>]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt' }[c]};`);
  const body = rows(report)
    .map(
      (r) =>
        `<tr>${r.map((c, i) => `<td${i === VALID_COLUMN && c !== 'yes' ? ' class="bad"' : ''}>${e(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><tr>${HEADER.map((h) => `<th>${h}</th>`).join('')}</tr>\n${body}</table>`;
}

const TRAVERSAL_HEADER = [
  'traversal',
  'graph',
  'sources',
  'checked',
  'median ms',
  'min ms',
  'max ms',
  'HM MTEPS',
  'median iters',
  'ms / iteration',
];

/** Graph500/GAP summary of the traversals timed from several sources (BFS time per level in the last column). */
function traversalRows(report: BenchReport): string[][] {
  return report.measurements
    .filter((m) => m.sources && m.valid)
    .map((m) => {
      const s = m.sources!;
      const its = s.iterations ? [...s.iterations].sort((a, b) => a - b) : undefined;
      return [
        m.name,
        m.graph?.name ?? fmtN(m.n),
        String(s.count),
        String(s.validated),
        fmtMs(s.medianMs),
        fmtMs(s.minMs),
        fmtMs(s.maxMs),
        (s.harmonicMeanTeps / 1e6).toFixed(s.harmonicMeanTeps >= 1e8 ? 0 : 2),
        its ? String(its[its.length >> 1]) : '',
        s.msPerIteration !== undefined ? fmtMs(s.msPerIteration) : '',
      ];
    });
}

export function traversalTable(report: BenchReport): string {
  const rows = traversalRows(report);
  if (rows.length === 0) return '';
  // What a case prepared untimed (SSSP's blocks) is printed under the times that leave it out.
  const setups = report.measurements
    .filter((m) => m.sources && m.valid && m.setup && !m.paperRow)
    .map((m) => `  ${m.name}: ${m.setup}`);
  return [textTable(TRAVERSAL_HEADER, rows), ...(setups.length > 0 ? ['Setups:', ...setups] : [])].join('\n');
}

export function traversalHtmlTable(report: BenchReport): string {
  const rows = traversalRows(report);
  if (rows.length === 0) return '';
  const e = (s: string) => s.replace(/[&<>]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt' }[c]};`);
  return `<table><tr>${TRAVERSAL_HEADER.map((h) => `<th>${h}</th>`).join('')}</tr>\n${rows
    .map((r) => `<tr>${r.map((c) => `<td>${e(c)}</td>`).join('')}</tr>`)
    .join('\n')}</table>`;
}

const PAPER_HEADER = ['paper row', "paper's setup and figure", 'case', 'n', 'ours', 'ratio'];

/**
 * The dynamic suite's measurements beside the paper's figures (PAPER_ANCHORS): one line per measurement of a
 * case naming a paper row, the row's figure where the paper has one at that batch size; then each
 * measurement's setup as run.
 */
export function paperTable(report: BenchReport): string {
  const ms = report.measurements.filter((m) => m.paperRow);
  if (ms.length === 0) return '';
  const rows = ms.map((m) => {
    const a = paperAnchor(m);
    const c = m.comparison;
    const ratio = c
      ? `${c.ratio.toFixed(2)}x${c.target !== undefined ? (c.ratio >= c.target ? ' ok' : ` <${c.target}`) : ''}`
      : '';
    return [
      m.paperRow!,
      a ? `${a.setup ?? ''} (${fmtItems(a.itemsPerSec)})` : 'no figure at this batch size',
      m.name,
      fmtN(m.n),
      m.valid ? `${fmtMs(m.timeMs)} ms, ${fmtItems(m.itemsPerSec)}` : `FAILED: ${m.error ?? ''}`,
      ratio,
    ];
  });
  const setups = ms.filter((m) => m.setup).map((m) => `  ${m.name} n=${fmtN(m.n)}: ${m.setup}`);
  const source = `${PAPER_ANCHORS.tool}: ${PAPER_ANCHORS.version}, ${PAPER_ANCHORS.device}`;
  return [source, textTable(PAPER_HEADER, rows), 'Setups as run:', ...setups].join('\n');
}
