import type { WeftDevice } from '@weft/gpu';
import gpuPackage from '@weft/gpu/package.json' with { type: 'json' };
import { type Measurement, measureCases } from '../harness.ts';
import { type BenchReport, withComparisons } from '../report.ts';
import { loadSuite } from '../suites/index.ts';
import { equivalentCommand, toQuery, type WebBenchOptions } from './params.ts';

export interface WebProgress {
  suite: string;
  done: number;
  total: number;
  label: string;
  /** Measurements finished so far, in every suite. */
  measurements: readonly Measurement[];
}

/**
 * Runs the suites as `weft bench` does, with the same defaults per adapter, and returns the same report.
 * Runs one case at a time so the page can show each finished measurement as it lands.
 */
export async function runWebBench(
  device: WeftDevice,
  o: WebBenchOptions,
  onProgress: (p: WebProgress) => void,
): Promise<BenchReport> {
  const software = device.adapter.software;
  const sizes =
    o.sizes.length > 0 ? o.sizes : software ? [2 ** 16, 2 ** 18, 2 ** 20] : [2 ** 16, 2 ** 20, 2 ** 24];
  const repeat = o.repeat ?? (software ? 3 : 10);
  const warmupMs = o.warmupMs ?? (software ? 0 : 1000);
  const filter = o.cases !== undefined ? new RegExp(o.cases) : undefined;
  const all: Measurement[] = [];
  for (const suite of o.suites) {
    const cases = (await loadSuite(suite)).filter((c) => !filter || filter.test(c.name));
    const plan = cases.flatMap((c) =>
      sizes.filter((n) => n <= (c.maxItems?.(device) ?? Infinity)).map((n) => ({ c, n })),
    );
    for (const [i, { c, n }] of plan.entries()) {
      onProgress({ suite, done: i, total: plan.length, label: `${c.name} n=${n}`, measurements: all });
      all.push(
        ...(await measureCases(device, suite, [c], [n], {
          repeat,
          seed: o.seed,
          warmupMs,
          batchMs: software ? 0 : 20,
          maxBatch: 400,
        })),
      );
    }
    onProgress({ suite, done: plan.length, total: plan.length, label: 'done', measurements: all });
  }
  return {
    command: `${equivalentCommand(o)}   (in the browser: ${location.pathname}${toQuery(o)})`,
    date: new Date().toISOString(),
    versions: { weft: gpuPackage.version, browser: navigator.userAgent },
    adapter: device.adapter,
    options: { sizes, repeat, seed: o.seed, warmupMs, suites: o.suites.join(','), cases: o.cases ?? null },
    measurements: withComparisons(all, undefined),
  };
}
