/** Sizes as `--sizes` and the page's `sizes` read them: log2 (`10,12`) or counts (`1000000`). Throws on anything else. */
export function parseSizes(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || !Number.isInteger(v) || v < 0) throw new Error(`sizes: '${s}' is not a size`);
    return v <= 40 ? 2 ** v : v;
  });
}
