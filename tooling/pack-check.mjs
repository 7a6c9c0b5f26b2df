// Installs the packages as a user would and checks they work: packs every publishable package, installs the
// tarballs with npm into a scratch app outside the workspace, runs the root README's examples and every package
// README's (tooling/readme-examples.mjs: each checked against the values its comments promise) in plain Node and,
// bundled with esbuild, in headless Chromium on WebGPU, and type-checks a consumer under NodeNext and bundler
// resolution with skipLibCheck off.
// Usage: node tooling/pack-check.mjs [--keep]   (--keep leaves the scratch directory for a look)
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { chromium } from 'playwright-core';
import { checkPrinted, formatSource, readmeExamples } from './readme-examples.mjs';

const root = new URL('..', import.meta.url).pathname;
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const started = Date.now();
const scratch = mkdtempSync(join(tmpdir(), 'weft-pack-check-'));
const tarballs = join(scratch, 'tarballs');
const app = join(scratch, 'app');
mkdirSync(tarballs);
mkdirSync(app);

function fail(message) {
  console.error(`pack-check: FAILED: ${message}`);
  console.error(`pack-check: scratch directory kept at ${scratch}`);
  process.exit(1);
}

function sh(step, command, args, cwd, defaults = {}) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      // Without the npm_* variables a package manager sets for its scripts: the app runs as a user's would.
      env: {
        ...defaults,
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
      },
      maxBuffer: 64 * 2 ** 20,
    });
  } catch (e) {
    process.stderr.write(`${e.stdout ?? ''}${e.stderr ?? ''}`);
    fail(`${step}: \`${command} ${args.join(' ')}\` exited with ${e.status ?? e.signal}`);
  }
}

const packages = readdirSync(join(root, 'packages'))
  .map((dir) => ({
    dir: join(root, 'packages', dir),
    json: readJson(join(root, 'packages', dir, 'package.json')),
  }))
  .filter((p) => !p.json.private);
const webgpuVersion = readJson(join(root, 'packages/gpu/package.json')).devDependencies.webgpu;
const typescriptVersion = readJson(join(root, 'package.json')).devDependencies.typescript;
// A graphology user brings graphology: the @weft/graphology README's examples import it.
const graphologyVersion = readJson(join(root, 'packages/graphology/package.json')).devDependencies.graphology;

// 1. Pack: pnpm replaces workspace:* and applies publishConfig; prepack builds dist.
for (const p of packages) sh(`pack ${p.json.name}`, 'pnpm', ['pack', '--pack-destination', tarballs], p.dir);
const files = readdirSync(tarballs).filter((f) => f.endsWith('.tgz'));
if (files.length !== packages.length) fail(`expected ${packages.length} tarballs, found ${files.length}`);
for (const file of files) {
  const entries = sh(`list ${file}`, 'tar', ['-tzf', join(tarballs, file)], tarballs)
    .split('\n')
    .filter(Boolean);
  for (const need of [
    'package/LICENSE',
    'package/README.md',
    'package/dist/index.js',
    'package/dist/index.d.ts',
  ]) {
    if (!entries.includes(need)) fail(`${file} lacks ${need}`);
  }
  const stray = entries.find((e) => /\.map$|(^|[/.-])test([.-])|^package\/src\//.test(e));
  if (stray) fail(`${file} ships ${stray} (source maps, tests and sources stay out)`);
}
console.log(`pack-check: packed ${files.length} packages`);

// 2. Install with npm, outside the workspace, as a user would.
sh('npm init', 'npm', ['init', '-y'], app);
sh('npm pkg set', 'npm', ['pkg', 'set', 'type=module'], app);
sh(
  'npm install',
  'npm',
  [
    'install',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...files.map((f) => join(tarballs, f)),
    `webgpu@${webgpuVersion}`,
    `typescript@${typescriptVersion}`,
    `graphology@${graphologyVersion}`,
  ],
  app,
);
console.log(
  `pack-check: installed with npm (webgpu@${webgpuVersion}, typescript@${typescriptVersion}, graphology@${graphologyVersion})`,
);

// 3. Every import in the shipped JS and declarations names the package itself, a dependency, a peer or a
//    Node builtin: nothing private (@weft/testing) and nothing only the workspace has.
function* shipped(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* shipped(path);
    else if (/\.(js|d\.ts)$/.test(entry)) yield path;
  }
}
const entryPoints = [];
for (const p of packages) {
  const dir = join(app, 'node_modules', p.json.name);
  const json = readJson(join(dir, 'package.json'));
  const allowed = new Set([
    json.name,
    ...Object.keys(json.dependencies ?? {}),
    ...Object.keys(json.peerDependencies ?? {}),
  ]);
  for (const file of shipped(join(dir, 'dist'))) {
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+|reference types=)['"]([^'"]+)['"]/gm,
    )) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (!allowed.has(name) && !builtinModules.includes(name)) {
        fail(`${file.slice(app.length + 1)} imports '${spec}', which ${json.name} does not depend on`);
      }
    }
  }
  for (const key of Object.keys(json.exports)) {
    if (key !== './package.json' && !key.includes('*')) entryPoints.push(json.name + key.slice(1));
  }
}

// 4. The root README's examples as one module, run in plain Node (no tsx) and, bundled, in Chromium. It checks
//    its own results (the Kronecker BFS against a host BFS) and returns what both runs must print.
writeFileSync(
  join(app, 'examples.js'),
  `import { bfs } from '@weft/algorithms';
import { requestDevice, rw, transform, u32, wgsl } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { exclusiveScan } from '@weft/scan';

function hostBfs(csr, source) {
  const depths = new Int32Array(csr.vertexCount).fill(-1);
  const queue = [source];
  depths[source] = 0;
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head];
    for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
      const v = csr.targets[e];
      if (depths[v] === -1) {
        depths[v] = depths[u] + 1;
        queue.push(v);
      }
    }
  }
  return depths;
}

export async function examples({ kronecker: withKronecker = true } = {}) {
  const device = await requestDevice();
  try {
    const input = device.upload(new Uint32Array([1, 2, 3]));
    const output = device.array('u32', 3);
    await transform(device, 3, wgsl\`(i: u32) { \${rw(output)}[i] = \${input}[i] * \${u32(10)}; }\`);
    const transformed = [...(await output.download())];

    await exclusiveScan(device, input, output);
    const scan = [...(await output.download())];

    const path = hostCsrFromEdgeList({
      vertexCount: 4,
      src: Uint32Array.of(0, 1, 2),
      dst: Uint32Array.of(1, 2, 3),
      directed: true,
    }).csr;
    const pathDepths = [...(await bfs(uploadGraph(device, path, { csc: true }), 0)).depths];

    let bfsKronecker;
    if (withKronecker) {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 10, seed: 1 }));
      // From the vertex of largest degree, so the search reaches most of the graph.
      let source = 0;
      const degree = (v) => csr.offsets[v + 1] - csr.offsets[v];
      for (let v = 1; v < csr.vertexCount; v++) if (degree(v) > degree(source)) source = v;
      const { depths } = await bfs(uploadGraph(device, csr, { csc: true }), source);
      const want = hostBfs(csr, source);
      const wrong = want.findIndex((d, v) => depths[v] !== d);
      if (wrong !== -1) throw new Error(\`bfs on kronecker: vertex \${wrong} at depth \${depths[wrong]}, want \${want[wrong]}\`);
      bfsKronecker = \`\${csr.vertexCount} vertices (\${want.filter((d) => d >= 0).length} reached)\`;
    }

    const { source, software, description, device: name, vendor, architecture } = device.adapter;
    return {
      transform: transformed,
      exclusiveScan: scan,
      bfsPath: pathDepths,
      bfsKronecker,
      adapter: \`\${description || name || \`\${vendor} \${architecture}\`} (\${software ? 'software' : 'GPU'}, \${source})\`,
      source,
    };
  } finally {
    device.destroy();
  }
}
`,
);
// The packages' README examples, each a module exporting run(log), beside the root README's.
const readme = readmeExamples(root);
mkdirSync(join(app, 'readme'));
for (const e of readme) writeFileSync(join(app, 'readme', `${e.name}.mjs`), e.module);
const readmeRunner = (
  names,
) => `${names.map((name, i) => `import { run as readme${i} } from './readme/${name}.mjs';`).join('\n')}
${formatSource}
async function readmeExamples() {
  const printed = {};
  for (const [name, run] of [${names.map((name, i) => `[${JSON.stringify(name)}, readme${i}]`).join(', ')}]) {
    const lines = [];
    try {
      await run((...args) => lines.push(args.map(weftFormat).join(' ')));
      printed[name] = lines;
    } catch (e) {
      printed[name] = { error: e instanceof Error ? e.name + ': ' + e.message : String(e) };
    }
  }
  return printed;
}
`;
// README examples that need more storage buffers a shader stage than Chromium gives (10): there they must
// stop with the library's DeviceLimitError, and nothing else.
const BROWSER_LIMITED = {
  'graph-1': "deviceGraphFromEdgeList's CSR build binds 13 storage buffers",
  'graph-2': "kroneckerOnDevice's CSR build binds 14 storage buffers",
};
function checkReadme(where, printed, examples) {
  const limited = [];
  for (const e of examples) {
    const lines = printed?.[e.name];
    if (!lines) fail(`${where}: the README example ${e.name} did not run`);
    const why = where === 'chromium' ? BROWSER_LIMITED[e.name] : undefined;
    if (why) {
      if (!/^DeviceLimitError: .*maxStorageBuffersPerShaderStage/.test(lines.error ?? '')) {
        fail(
          `${where}: README example ${e.name} was expected to stop at the storage-buffer limit (${why}); it gave ${JSON.stringify(lines).slice(0, 300)}`,
        );
      }
      limited.push(`${e.name}: ${why}`);
      continue;
    }
    if (lines.error) fail(`${where}: README example ${e.name} threw ${lines.error}`);
    const error = checkPrinted(e, lines);
    if (error) fail(`${where}: README example ${e.name}: ${error}`);
  }
  const stopped = limited.length ? `; stopped at the limit as expected: ${limited.join('; ')}` : '';
  return `${examples.length - limited.length} package README examples print what they say${stopped}`;
}

function checkExamples(where, printed, source) {
  let got;
  try {
    got = JSON.parse(printed);
  } catch {
    fail(`${where}: the examples printed ${JSON.stringify(printed.slice(0, 2000))}, not their results`);
  }
  const want = {
    transform: [10, 20, 30],
    exclusiveScan: [0, 1, 3],
    bfsPath: [0, 1, 2, 3],
    source,
  };
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(got[key]) !== JSON.stringify(value)) {
      fail(`${where}: ${key} is ${JSON.stringify(got[key])}, want ${JSON.stringify(value)}`);
    }
  }
  const graphs = got.bfsKronecker ? `a path and a Kronecker graph of ${got.bfsKronecker}` : 'a path';
  return `${got.entryPoints} entry points loaded; transform, exclusiveScan, bfs on ${graphs} correct on ${got.adapter}`;
}

// 4a. Plain Node: every entry point loads, then the examples.
writeFileSync(
  join(app, 'smoke.js'),
  `const entryPoints = ${JSON.stringify(entryPoints)};
for (const name of entryPoints) await import(name);
const { examples } = await import('./examples.js');
const { readmeExamples } = await import('./readme.js');
console.log(JSON.stringify({ entryPoints: entryPoints.length, ...(await examples()), readme: await readmeExamples() }));
process.exit(0);
`,
);
writeFileSync(
  join(app, 'readme.js'),
  `${readmeRunner(readme.map((e) => e.name))}export { readmeExamples };\n`,
);
const smoke = sh('plain-Node examples', 'node', ['smoke.js'], app, {
  XDG_RUNTIME_DIR: '/tmp',
});
const smokeLine = smoke.trim().split('\n').at(-1);
console.log(`pack-check: node: ${checkExamples('node', smokeLine, 'node-webgpu')}`);
console.log(`pack-check: node: ${checkReadme('node', JSON.parse(smokeLine).readme, readme)}`);
await runInChromium();

// 4b. The `weft` bin, as `npx` runs it: bfs on a small .mtx to a streamed JSON, and info on the same file.
writeFileSync(
  join(app, 'path.mtx'),
  '%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 2\n2 3\n3 4\n',
);
sh(
  'weft run',
  'npx',
  ['--no-install', 'weft', 'run', 'bfs', 'path.mtx', '--source', '0', '--out', 'out.json'],
  app,
  {
    XDG_RUNTIME_DIR: '/tmp',
  },
);
const result = readJson(join(app, 'out.json'));
if (result.algorithm !== 'bfs' || JSON.stringify(result.values) !== '[0,1,2,3]') {
  fail(`weft run bfs wrote ${JSON.stringify(result)}, want values [0,1,2,3]`);
}
const info = JSON.parse(
  sh('weft info', 'npx', ['--no-install', 'weft', 'info', 'path.mtx', '--json'], app, {
    XDG_RUNTIME_DIR: '/tmp',
  }),
);
if (info.vertices !== 4 || info.arcs !== 3 || info.components !== 1) {
  fail(`weft info printed ${JSON.stringify(info)}, want 4 vertices, 3 arcs, 1 component`);
}
// Every algorithm through the packed bin, on one small weighted graph (a triangle with a tail closed back
// into it: connected and not bipartite, so every power iteration converges) in each text format.
const edges = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
  [3, 4, 5],
  [4, 5, 1],
  [5, 1, 4],
];
writeFileSync(
  join(app, 'g.mtx'),
  `%%MatrixMarket matrix coordinate integer symmetric\n5 5 ${edges.length}\n${edges.map(([u, v, w]) => `${Math.max(u, v)} ${Math.min(u, v)} ${w}`).join('\n')}\n`,
);
writeFileSync(
  join(app, 'g.gr'),
  `p sp 5 ${2 * edges.length}\n${edges.flatMap(([u, v, w]) => [`a ${u} ${v} ${w}`, `a ${v} ${u} ${w}`]).join('\n')}\n`,
);
writeFileSync(join(app, 'g.el'), `${edges.map(([u, v, w]) => `${u - 1} ${v - 1} ${w}`).join('\n')}\n`);
const algorithms = [
  'bfs',
  'sssp',
  'pagerank',
  'cc',
  'triangles',
  'coloring',
  'mis',
  'bc',
  'scc',
  'kcore',
  'louvain',
  'leiden',
  'lpa',
  'mst',
  'ppr',
  'hits',
  'katz',
  'eigenvector',
  'jaccard',
];
for (const file of ['g.mtx', 'g.gr', 'g.el']) {
  for (const algorithm of algorithms) {
    const extra = algorithm === 'jaccard' ? ['--vertices', '0'] : [];
    sh(
      `weft run ${algorithm} ${file}`,
      'npx',
      ['--no-install', 'weft', 'run', algorithm, file, '--undirected', '--out', 'all.json', ...extra],
      app,
      { XDG_RUNTIME_DIR: '/tmp' },
    );
    const out = readJson(join(app, 'all.json'));
    if (out.algorithm !== algorithm || out.graph !== file) {
      fail(`weft run ${algorithm} ${file} wrote ${JSON.stringify(out).slice(0, 200)}`);
    }
  }
}
console.log(
  `pack-check: npx weft run bfs and weft info correct; all ${algorithms.length} algorithms run on .mtx, .gr and an edge list`,
);

// 5. The declarations stand alone: no `types`, no esnext.disposable, skipLibCheck off.
writeFileSync(
  join(app, 'consumer.ts'),
  `${entryPoints.map((name, i) => `import * as entry${i} from '${name}';`).join('\n')}
import { type DeviceArray, requestDevice, type WeftDevice } from '@weft/gpu';
import { bfs } from '@weft/algorithms';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';

export const entries = [${entryPoints.map((_, i) => `entry${i}`).join(', ')}];
const device: WeftDevice = await requestDevice();
// WebGPU types must resolve, not fall back to any: a wrong assignment below is an error only then.
const raw: GPUDevice = device.device;
// @ts-expect-error a GPUDevice is not a number
const notANumber: number = raw;
const array: DeviceArray<'u32'> = device.array('u32', 4);
const buffer: GPUBuffer = array.buffer;
const { depths } = await bfs(uploadGraph(device, hostCsrFromEdgeList(kronecker({ scale: 4, seed: 1 })).csr), 0);
const first: number | undefined = depths[0];
export { buffer, first, notANumber };
`,
);
const base = {
  target: 'ES2022',
  lib: ['ES2022', 'DOM'],
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  types: [],
};
const configs = {
  nodenext: { ...base, module: 'NodeNext', moduleResolution: 'NodeNext' },
  bundler: { ...base, module: 'ESNext', moduleResolution: 'Bundler', lib: ['ESNext', 'DOM'] },
};
for (const [name, compilerOptions] of Object.entries(configs)) {
  writeFileSync(
    join(app, `tsconfig.${name}.json`),
    JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
  );
  sh(`type-check (${name})`, 'npx', ['--no-install', 'tsc', '-p', `tsconfig.${name}.json`], app);
}
console.log('pack-check: consumer type-checks under NodeNext and Bundler, skipLibCheck off');

// 4c. Chromium: the examples and every entry point that runs in browsers, bundled by esbuild from the installed
//     tarballs (browser platform: `webgpu` stays out), served on localhost, run headless with WebGPU on
//     SwiftShader (flags from shared/WEBGPU-NOTES.md); the page prints the results, read back by playwright.
async function runInChromium() {
  // Debian's chromium (tooling/setup.sh installs it); WEFT_CHROMIUM points elsewhere on other machines.
  const executablePath = process.env.WEFT_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    fail(`${executablePath} not found: the browser step needs Debian's chromium; run tooling/setup.sh`);
  }
  // Node-only entry points: the CLI and the file helpers open files.
  const browserEntries = entryPoints.filter((name) => !['@weft/cli', '@weft/graph/node'].includes(name));
  const web = join(app, 'web');
  mkdirSync(web);
  writeFileSync(
    join(app, 'browser.js'),
    `${browserEntries.map((name, i) => `import * as entry${i} from '${name}';`).join('\n')}
import { examples } from './examples.js';
import { readmeExamples } from './readme-browser.js';

const out = document.getElementById('out');
try {
  const loaded = [${browserEntries.map((_, i) => `entry${i}`).join(', ')}].filter((m) => Object.keys(m).length > 0);
  out.textContent = JSON.stringify({ entryPoints: loaded.length, ...(await examples()), readme: await readmeExamples() });
  document.body.dataset.state = 'done';
} catch (e) {
  out.textContent = String(e?.stack ?? e);
  document.body.dataset.state = 'error';
}
`,
  );
  // Examples that open files or start the CLI stay in Node.
  const browserReadme = readme.filter((e) => !e.nodeOnly);
  writeFileSync(
    join(app, 'readme-browser.js'),
    `${readmeRunner(browserReadme.map((e) => e.name))}export { readmeExamples };\n`,
  );
  writeFileSync(
    join(web, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>weft pack-check</title><link rel="icon" href="data:,"><pre id="out"></pre><script type="module" src="bundle.js"></script>\n',
  );
  try {
    await esbuild({
      entryPoints: [join(app, 'browser.js')],
      outfile: join(web, 'bundle.js'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      logLevel: 'silent',
    });
  } catch (e) {
    fail(`esbuild bundle for the browser: ${e.message}`);
  }
  const bundle = readFileSync(join(web, 'bundle.js'));
  const server = createServer((req, res) => {
    const name = req.url === '/' ? 'index.html' : req.url.slice(1);
    if (!['index.html', 'bundle.js'].includes(name)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': name.endsWith('.js') ? 'text/javascript' : 'text/html' });
    res.end(readFileSync(join(web, name)));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
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
    ],
    env: { XDG_RUNTIME_DIR: '/tmp', ...process.env },
  });
  try {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page
      .locator('body[data-state]')
      .waitFor({ state: 'attached', timeout: 300_000 })
      .catch(() => fail(`chromium: the page never finished; console:\n${logs.join('\n')}`));
    const state = await page.evaluate(() => document.body.dataset.state);
    const printed = (await page.locator('#out').textContent()) ?? '';
    if (state !== 'done') fail(`chromium: ${printed}\nconsole:\n${logs.join('\n')}`);
    const summary = checkExamples('chromium', printed, 'navigator.gpu');
    console.log(
      `pack-check: chromium: ${checkReadme('chromium', JSON.parse(printed).readme, browserReadme)}`,
    );
    console.log(
      `pack-check: chromium ${browser.version()}: ${summary} (bundle ${(gzipSync(bundle).length / 1024).toFixed(1)} kB gzip)`,
    );
  } finally {
    await browser.close();
    server.close();
  }
}

if (!process.argv.includes('--keep')) rmSync(scratch, { recursive: true, force: true });
console.log(`pack-check: ok in ${((Date.now() - started) / 1000).toFixed(0)} s`);
