import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { build, type PreviewServer, preview } from 'vite';
import { afterAll, expect, test } from 'vitest';
import type { BenchReport } from '../src/report.ts';

/**
 * The bench page end to end: built with Vite, served on localhost, run in Debian's Chromium with WebGPU on
 * SwiftShader (flags from shared/WEBGPU-NOTES.md), a small primitives run that must validate throughout.
 */
// Debian's chromium (tooling/setup.sh installs it); WEFT_CHROMIUM points elsewhere on other machines.
const CHROMIUM = process.env['WEFT_CHROMIUM'] ?? '/usr/bin/chromium';
const appDir = fileURLToPath(new URL('..', import.meta.url));
const configFile = join(appDir, 'vite.config.ts');
const screenshot = join(appDir, 'test-results', 'browser-bench.png');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
  // The machines have no network: without these Chromium keeps trying (and failing) to reach Google.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function servePage(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'weft-bench-web-'));
  cleanups.push(() => rm(outDir, { recursive: true, force: true }));
  await build({ configFile, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const port = await freePort();
  const server: PreviewServer = await preview({
    configFile,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  cleanups.push(() => server.close());
  return `http://127.0.0.1:${port}/`;
}

test('the bench page runs the primitives suite in Chromium on WebGPU and every result validates', async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: the browser test needs Debian's chromium; run tooling/setup.sh (or apt-get install -y --no-install-recommends chromium)`,
    );
  }
  const url = await servePage();
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? '/tmp' },
  });
  cleanups.push(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const logs: string[] = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));

  await page.goto(`${url}?suite=primitives&sizes=10,12&repeat=1&warmup=0&autorun=1`);
  await page
    .locator('body[data-state="done"], body[data-state="error"]')
    .waitFor({ state: 'attached', timeout: 240_000 });
  await mkdir(join(appDir, 'test-results'), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });

  const state = await page.evaluate(() => document.body.dataset['state']);
  const error = await page.evaluate(() => window.__weftError);
  expect(error, `page error; console:\n${logs.join('\n')}`).toBeUndefined();
  expect(state).toBe('done');

  const report = (await page.evaluate(() => window.__weftResult)) as BenchReport;
  expect(report.adapter.source).toBe('navigator.gpu');
  expect(`${report.adapter.vendor}${report.adapter.architecture}${report.adapter.description}`).not.toBe('');
  expect(report.versions.browser).toMatch(/Chrome\//);
  expect(report.options['sizes']).toEqual([2 ** 10, 2 ** 12]);
  // Every primitives case at both sizes (no case limits itself below 2^12).
  const names = [...new Set(report.measurements.map((m) => m.name))];
  expect(names.length).toBeGreaterThanOrEqual(3);
  expect(names).toContain('copy kernel u32');
  expect(report.measurements).toHaveLength(names.length * 2);
  for (const m of report.measurements) {
    expect(m.valid, `${m.name} n=${m.n}: ${m.error ?? ''}`).toBe(true);
    expect(m.timeMs, `${m.name} n=${m.n}`).toBeGreaterThan(0);
    expect(m.itemsPerSec, `${m.name} n=${m.n}`).toBeGreaterThan(0);
  }

  // The rendered report: one chart per family, one table row per measurement, the adapter line.
  const families = new Set(report.measurements.map((m) => m.family)).size;
  const rendered = await page.evaluate(() => {
    const root = document.querySelector('#report')?.shadowRoot;
    return {
      charts: root?.querySelectorAll('svg').length ?? 0,
      rows: (root?.querySelectorAll('table tr').length ?? 1) - 1,
      text: root?.textContent ?? '',
    };
  });
  expect(rendered.charts).toBe(families);
  expect(rendered.rows).toBe(report.measurements.length);
  expect(rendered.text).toMatch(/[MGT]B\/s moved/); // an axis with its unit
  expect(rendered.text).not.toContain('FAILED');
  expect(await page.locator('#adapter').textContent()).toContain('Adapter:');
  expect(await page.locator('#download-json').getAttribute('href')).toMatch(/^blob:/);
});
