#!/usr/bin/env node
// Runs the packages' Vitest suites inside Deno, whose `navigator.gpu` is wgpu: the same tests as on Dawn,
// on the other WebGPU engine, so behaviour that only one engine has is caught.
// Usage: node tooling/test-deno.mjs [package ...]   (default: every suite listed below)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const deno = join(root, 'node_modules', '.bin', 'deno');

/**
 * The suites run on wgpu: every package's, every file. A suite may still list files left out there and why
 * (`exclude`), or the only ones run (`only`); `needs: 'subgroups'` leaves a file out only where the adapter
 * lacks the feature. Every file still runs on Dawn.
 */
const SUITES = [
  { name: 'gpu' },
  { name: 'scan' },
  { name: 'lbs' },
  { name: 'segreduce' },
  { name: 'compact' },
  { name: 'sort' },
  { name: 'graph' },
  { name: 'operators' },
  { name: 'dynamic' },
  { name: 'graphology' },
  { name: 'cli' },
  { name: 'algorithms' },
];

if (!existsSync(deno)) {
  console.error(`test:deno: ${deno} is missing; run 'pnpm install' (the deno package is a dev dependency)`);
  process.exit(1);
}
// Headless machines need a runtime directory for the Vulkan loader (CI exports one).
const env = { XDG_RUNTIME_DIR: '/tmp', ...process.env };

// The adapter, printed so a log shows what ran, and whether it offers subgroups.
const PROBE = `
const adapter = await navigator.gpu?.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('navigator.gpu has no adapter: install a Vulkan driver (see tooling/setup.sh)');
const { vendor, architecture, device, description } = adapter.info;
console.log(JSON.stringify({ info: { vendor, architecture, device, description }, features: [...adapter.features].sort() }));
`;
const probe = spawnSync(deno, ['eval', PROBE], { env, encoding: 'utf8' });
if (probe.status !== 0) {
  console.error(`test:deno: no WebGPU adapter in Deno:\n${probe.stderr}`);
  process.exit(1);
}
const adapter = JSON.parse(probe.stdout);
const version = spawnSync(deno, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
console.log(`test:deno: ${version}; adapter: ${JSON.stringify(adapter.info)}`);
console.log(`test:deno: adapter features: ${adapter.features.join(' ')}`);

// Without subgroups on the adapter only the paths without them can run, and the WGSL snapshots to compare
// with are the `.no-subgroups` ones: say so rather than run the default mode's subgroup snapshots.
const modes = adapter.features.includes('subgroups') ? ['1', '0'] : ['0'];
if (modes.length === 1) {
  console.log("test:deno: the adapter does not offer 'subgroups': running with WEFT_TEST_SUBGROUPS=0 only");
}

// `WEFT_DENO_WORKERS=N`: how many test files run at once (each with its own Deno worker and device).
const workers = Number(process.env.WEFT_DENO_WORKERS ?? 4);
if (!Number.isInteger(workers) || workers < 1) {
  console.error(
    `test:deno: WEFT_DENO_WORKERS must be a positive integer, got '${process.env.WEFT_DENO_WORKERS}'`,
  );
  process.exit(1);
}
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(
    `test:deno: no suite named ${unknown.join(', ')} (known: ${SUITES.map((s) => s.name).join(', ')})`,
  );
  process.exit(1);
}
const failed = [];
for (const suite of SUITES.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  const cwd = join(root, 'packages', suite.name);
  // Files in parallel: on wgpu a test file spends most of its time idle, waiting for Deno's device poll (a
  // timer per GPU round trip), so several files overlap their waits on the cores that one would leave idle.
  const args = [
    'run',
    '-A',
    join(cwd, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--fileParallelism',
    '--maxWorkers',
    String(workers),
  ];
  if (suite.only) {
    console.log(
      `test:deno: @weft/${suite.name}: only ${suite.only.files.join(', ')} on wgpu: ${suite.only.why}`,
    );
    args.push(...suite.only.files);
  }
  for (const [file, { why, needs }] of Object.entries(suite.exclude ?? {})) {
    if (needs !== undefined && adapter.features.includes(needs)) continue;
    const lacking = needs === undefined ? '' : ` (needs '${needs}', which the adapter lacks)`;
    console.log(`test:deno: @weft/${suite.name}: leaving out ${file} on wgpu: ${why}${lacking}`);
    args.push('--exclude', file);
  }
  for (const mode of modes) {
    const started = performance.now();
    console.log(`test:deno: @weft/${suite.name} (WEFT_TEST_SUBGROUPS=${mode})`);
    const run = spawnSync(deno, args, { cwd, stdio: 'inherit', env: { ...env, WEFT_TEST_SUBGROUPS: mode } });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(
      `test:deno: @weft/${suite.name} (WEFT_TEST_SUBGROUPS=${mode}): exit ${run.status} in ${seconds} s`,
    );
    if (run.status !== 0) failed.push(`@weft/${suite.name} (WEFT_TEST_SUBGROUPS=${mode})`);
  }
}
if (failed.length > 0) {
  console.error(`test:deno: failed on wgpu: ${failed.join(', ')}`);
  process.exit(1);
}
