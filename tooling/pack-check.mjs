// Installs the packages as a user would and checks they work: packs every publishable package, installs the
// tarballs with npm into a scratch app outside the workspace, runs the root README's examples in plain Node
// and type-checks a consumer under NodeNext and bundler resolution with skipLibCheck off.
// Usage: node tooling/pack-check.mjs [--keep]   (--keep leaves the scratch directory for a look)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  ],
  app,
);
console.log(`pack-check: installed with npm (webgpu@${webgpuVersion}, typescript@${typescriptVersion})`);

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

// 4. Plain Node, no tsx: every entry point loads, and the root README's examples give the right results.
writeFileSync(
  join(app, 'smoke.js'),
  `const entryPoints = ${JSON.stringify(entryPoints)};
for (const name of entryPoints) await import(name);

const { requestDevice, rw, transform, u32, wgsl } = await import('@weft/gpu');
const { exclusiveScan } = await import('@weft/scan');
const { hostCsrFromEdgeList, uploadGraph } = await import('@weft/graph');
const { kronecker } = await import('@weft/graph/generators');
const { bfs } = await import('@weft/algorithms');

const same = (what, got, want) => {
  if (got.length !== want.length || got.some((x, i) => x !== want[i])) {
    throw new Error(\`\${what}: got [\${got.slice(0, 8)}...], want [\${want.slice(0, 8)}...]\`);
  }
};
const device = await requestDevice();
const input = device.upload(new Uint32Array([1, 2, 3]));
const output = device.array('u32', 3);
await transform(device, 3, wgsl\`(i: u32) { \${rw(output)}[i] = \${input}[i] * \${u32(10)}; }\`);
same('transform', [...(await output.download())], [10, 20, 30]);

await exclusiveScan(device, input, output);
same('exclusiveScan', [...(await output.download())], [0, 1, 3]);

const { csr } = hostCsrFromEdgeList(kronecker({ scale: 10, seed: 1 }));
const graph = uploadGraph(device, csr, { csc: true });
const { depths } = await bfs(graph, 0);
const want = new Int32Array(csr.vertexCount).fill(-1);
const queue = [0];
want[0] = 0;
for (let head = 0; head < queue.length; head++) {
  const u = queue[head];
  for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
    const v = csr.targets[e];
    if (want[v] === -1) {
      want[v] = want[u] + 1;
      queue.push(v);
    }
  }
}
same('bfs depths', [...depths], [...want]);
device.destroy();
console.log(\`\${entryPoints.length} entry points loaded; transform, exclusiveScan, bfs on \${csr.vertexCount} vertices correct on \${device.adapter.description || device.adapter.device} (\${device.adapter.software ? 'software' : 'GPU'})\`);
process.exit(0);
`,
);
const smoke = sh('plain-Node examples', 'node', ['smoke.js'], app, {
  XDG_RUNTIME_DIR: '/tmp',
});
console.log(`pack-check: node: ${smoke.trim().split('\n').at(-1)}`);

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
console.log('pack-check: npx weft run bfs and weft info correct');

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

if (!process.argv.includes('--keep')) rmSync(scratch, { recursive: true, force: true });
console.log(`pack-check: ok in ${((Date.now() - started) / 1000).toFixed(0)} s`);
