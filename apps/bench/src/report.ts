import type { AdapterReport } from '@weft/gpu';
import { type AnchorFile, type Comparison, compare } from './anchors.ts';
import { fmtBytes, fmtItems, fmtMs, fmtN, textTable } from './format.ts';
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

const HEADER = ['case', 'n', 'time ms', 'clock', 'items/s', 'bandwidth', 'anchor', 'ratio', 'valid'];

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
        `<tr>${r.map((c, i) => `<td${i === 8 && c !== 'yes' ? ' class="bad"' : ''}>${e(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><tr>${HEADER.map((h) => `<th>${h}</th>`).join('')}</tr>\n${body}</table>`;
}
