/** Human units for the table. */
export const fmtItems = (perSec: number) =>
  perSec >= 1e9 || perSec === 0
    ? `${(perSec / 1e9).toFixed(perSec >= 1e10 ? 1 : 3)} G/s`
    : `${(perSec / 1e6).toFixed(perSec >= 1e7 ? 1 : 3)} M/s`;
export const fmtBytes = (perSec: number) =>
  perSec >= 1e12
    ? `${(perSec / 1e12).toFixed(2)} TB/s`
    : perSec >= 1e9 || perSec === 0
      ? `${(perSec / 1e9).toFixed(1)} GB/s`
      : `${(perSec / 1e6).toFixed(perSec >= 1e7 ? 1 : 2)} MB/s`;
export const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4));
export const fmtN = (n: number) => {
  const lg = Math.log2(n);
  return Number.isInteger(lg) && n >= 1024 ? `2^${lg}` : String(n);
};

/** A plain-text table with right-aligned numeric columns. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
