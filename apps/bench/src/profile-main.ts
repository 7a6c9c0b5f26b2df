/**
 * `weft-profile`: where a bench case's GPU time goes, kernel by kernel. Each case is set up at each size,
 * warmed up (GPU clocks ramp slowly), then run alone several times with every dispatch in its own timed
 * compute pass; the table gives each kernel's median time per run and share. Validated like the bench.
 * Host-timed cases (loops that read back) are traced through every recorder they make, with their wall time.
 *
 *   node profile.mjs --suite primitives --cases 'sort keys' --sizes 24,27 [--runs 5] [--json out.json]
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  DeviceLimitError,
  type Recorder,
  requestDevice,
  type SubmitResult,
  type WeftDevice,
} from '@weft/gpu';
import { queueClockWarmup } from './clocks.ts';
import { provideWrittenGraphs } from './graphs-command.ts';
import { parseSizes } from './sizes.ts';
import { loadSuite } from './suites/index.ts';

interface KernelRow {
  label: string;
  calls: number;
  medianUs: number;
}

interface Profile {
  name: string;
  n: number;
  totalUs: number;
  kernels: KernelRow[];
  valid: boolean;
  error?: string;
  /** Host-timed cases: the run's wall time with every dispatch timed, and its submits. */
  wallMs?: number;
  submits?: number;
}

type DispatchTime = NonNullable<SubmitResult['dispatchNs']>[number];

interface SubmitTrace {
  label: string;
  dispatches: number;
  gpuMs: number;
  /** From the submit call to the GPU's completion (read-backs included). */
  wallMs: number;
}

/**
 * Runs `fn` with every recorder the device hands out timed (each dispatch alone, or each submit whole), and
 * returns the times: a host-timed case (a loop with read-backs) makes its own recorders, not the profiler's.
 */
async function traceSubmits(
  device: WeftDevice,
  timing: true | 'dispatches',
  fn: () => Promise<void>,
): Promise<{ times: DispatchTime[]; submits: SubmitTrace[] }> {
  const original = device.recorder;
  const times: DispatchTime[] = [];
  const submits: SubmitTrace[] = [];
  device.recorder = (options = {}) => {
    const rec: Recorder = original.call(device, { ...options, timing });
    const submit = rec.submit.bind(rec) as (o?: object) => Promise<SubmitResult>;
    rec.submit = (async (o?: object) => {
      const result = await submit(o);
      const gpuMs = (result.gpuNs ?? 0) / 1e6;
      submits.push({ label: rec.label, dispatches: result.dispatches, gpuMs, wallMs: result.wallMs });
      times.push(...(result.dispatchNs ?? []));
      return result;
    }) as Recorder['submit'];
    return rec;
  };
  try {
    await fn();
  } finally {
    device.recorder = original;
  }
  return { times, submits };
}

/**
 * The clock warm-up, waited for: a host-timed run's first submit would otherwise wait for it, and its wall
 * time count it. The GPU idles only for the round trip between the two.
 */
async function warmClocksFirst(device: WeftDevice) {
  await queueClockWarmup(device);
  await device.recorder({ label: 'wait for the clock warm-up' }).submit();
}

/** A host-timed case's submits, each timed whole: where its wall time goes between host and GPU. */
async function printSubmits(device: WeftDevice, run: () => Promise<void>) {
  await warmClocksFirst(device);
  const t0 = performance.now();
  const { submits } = await traceSubmits(device, true, run);
  const wall = performance.now() - t0;
  const sum = (f: (s: SubmitTrace) => number) => submits.reduce((a, s) => a + f(s), 0);
  console.log(
    `  submits timed whole: wall ${wall.toFixed(2)} ms = GPU ${sum((s) => s.gpuMs).toFixed(2)} ms + submit-to-done beyond it ${(sum((s) => s.wallMs) - sum((s) => s.gpuMs)).toFixed(2)} ms + host outside submits ${(wall - sum((s) => s.wallMs)).toFixed(2)} ms`,
  );
  for (const s of submits) {
    console.log(
      `    ${s.label.padEnd(40)} ${String(s.dispatches).padStart(5)} dispatches  GPU ${s.gpuMs.toFixed(3).padStart(8)} ms  wall ${s.wallMs.toFixed(3).padStart(8)} ms`,
    );
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[s.length >> 1]!;
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', default: 'primitives' },
      cases: { type: 'string', default: '.' },
      sizes: { type: 'string', default: '24' },
      runs: { type: 'string', default: '5' },
      'warmup-ms': { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      dawn: { type: 'string', multiple: true, default: [] },
      'graphs-dir': { type: 'string' },
    },
  });
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const device = await requestDevice({
    dawnOptions: [...values.dawn, 'disable-dawn-features=timestamp_quantization'],
  });
  // The graphs `weft graphs --out DIR` wrote, as `bench --graphs-dir` reads them (scale 22 takes a minute to generate).
  if (values['graphs-dir']) await provideWrittenGraphs(values['graphs-dir'], Number(values.seed));
  const filter = new RegExp(values.cases);
  const runs = Number(values.runs);
  const warmupMs = Number(values['warmup-ms']);
  const profiles: Profile[] = [];
  console.log(
    `adapter: ${device.adapter.vendor} / ${device.adapter.architecture}; dawn: ${values.dawn.join(' ')}`,
  );
  try {
    const all = await loadSuite(values.suite);
    const cases = all.filter((c) => filter.test(c.name));
    for (const c of cases) {
      for (const n of parseSizes(values.sizes)) {
        if (c.maxItems && n > c.maxItems(device)) continue;
        const instance = await c.setup(device, n, Number(values.seed));
        try {
          // A tuning that does not fit this device is reported and skipped, not the end of the sweep.
          const probe = device.recorder({ label: 'fit' });
          try {
            await instance.run(probe);
          } catch (e) {
            if (!(e instanceof DeviceLimitError)) throw e;
            console.log(`\n${c.name} n=${n}: skipped, ${e.message}`);
            continue;
          }
          await probe.submit();
          // Warm-up: whole batches of runs until the clock has had time to rise, as many a submit as the
          // case allows (a build into one graph allows one).
          const perSubmit = Math.min(8, instance.maxRunsPerSubmit ?? 8);
          const start = performance.now();
          do {
            const rec = device.recorder({ label: 'warm-up' });
            for (let i = 0; i < perSubmit; i++) await instance.run(rec);
            await rec.submit();
          } while (performance.now() - start < warmupMs);
          const perLabel = new Map<string, number[]>();
          const calls = new Map<string, number>();
          const totals: number[] = [];
          const walls: number[] = [];
          const submitCounts: number[] = [];
          for (let r = 0; r < runs; r++) {
            let dispatched: DispatchTime[];
            if (instance.hostTimed) {
              await warmClocksFirst(device);
              const t0 = performance.now();
              const traced = await traceSubmits(device, 'dispatches', () => instance.run(device.recorder()));
              walls.push(performance.now() - t0);
              submitCounts.push(traced.submits.length);
              dispatched = traced.times;
            } else {
              const rec = device.recorder({ label: c.name, timing: 'dispatches' });
              await instance.run(rec);
              await queueClockWarmup(device);
              dispatched = (await rec.submit()).dispatchNs ?? [];
            }
            const sums = new Map<string, number>();
            for (const d of dispatched) sums.set(d.label, (sums.get(d.label) ?? 0) + d.ns);
            if (r === 0) for (const d of dispatched) calls.set(d.label, (calls.get(d.label) ?? 0) + 1);
            for (const [label, ns] of sums) perLabel.set(label, [...(perLabel.get(label) ?? []), ns / 1e3]);
            totals.push([...sums.values()].reduce((a, b) => a + b, 0) / 1e3);
          }
          const error = await instance.validate();
          const kernels = [...perLabel].map(([label, us]) => ({
            label,
            calls: calls.get(label) ?? 0,
            medianUs: median(us),
          }));
          const profile: Profile = {
            name: c.name,
            n,
            totalUs: median(totals),
            kernels,
            valid: error === null,
            ...(error === null ? {} : { error }),
            ...(walls.length > 0 ? { wallMs: median(walls), submits: median(submitCounts) } : {}),
          };
          profiles.push(profile);
          console.log(
            `\n${c.name} n=${n}: ${profile.totalUs.toFixed(1)} us summed over kernels${profile.wallMs === undefined ? '' : ` (wall ${profile.wallMs.toFixed(2)} ms, ${profile.submits} submits, each dispatch timed alone)`}${profile.valid ? '' : `  INVALID: ${error}`}`,
          );
          for (const k of kernels) {
            const share = (100 * k.medianUs) / profile.totalUs;
            console.log(
              `  ${k.label.padEnd(40)} x${String(k.calls).padEnd(4)} ${k.medianUs.toFixed(1).padStart(9)} us  ${share.toFixed(1).padStart(5)}%`,
            );
          }
          if (instance.hostTimed) await printSubmits(device, () => instance.run(device.recorder()));
        } finally {
          instance.destroy();
        }
      }
    }
  } finally {
    device.destroy();
  }
  if (values.json)
    await writeFile(values.json, JSON.stringify({ adapter: device.adapter, profiles }, null, 2));
  return profiles.every((p) => p.valid) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
