// Checks that every `@weft/*` import in a workspace package's sources is declared in its package.json and
// allowed by tooling/layers.json, and that no declared `@weft/*` dependency breaks the layers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const config = JSON.parse(readFileSync(join(root, 'tooling/layers.json'), 'utf8'));
const layerOf = new Map(config.layers.flatMap((group, i) => group.map((name) => [name, i])));
const testOnly = new Set(config.testOnly);

/** Test code: a file whose name has a `test` word (`x.test.ts`, `test-support.ts`), or one under `test/`. */
const isTest = (rel) => /(^|[.-])test([.-]|$)/.test(basename(rel)) || /(^|\/)test\//.test(rel);

function* sources(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') continue;
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

/** Why `from` may not import `name` (undefined when it may). */
function forbidden(from, name, test) {
  if (config.anything.includes(from)) return undefined;
  const layer = layerOf.get(name);
  if (layer === undefined) return 'it is not in tooling/layers.json';
  if (testOnly.has(name)) return test ? undefined : 'it is test-only';
  if (test && config.testImports[from]?.includes(name)) return undefined;
  if (layer >= layerOf.get(from)) return `layer ${layer} is not below ${from}'s layer ${layerOf.get(from)}`;
  return undefined;
}

const problems = [];
let checked = 0;
for (const dir of ['packages', 'apps', 'tooling'].flatMap((top) =>
  readdirSync(join(root, top)).map((d) => join(root, top, d)),
)) {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  if (pkg.name === '@weft/tsconfig') continue;
  if (!layerOf.has(pkg.name) && !config.anything.includes(pkg.name)) {
    problems.push(`${pkg.name}: not in tooling/layers.json`);
    continue;
  }
  checked++;
  const runtime = new Set(Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }));
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  for (const file of [...sources(join(dir, 'src')), ...sources(join(dir, 'test'))]) {
    const rel = relative(dir, file);
    const test = isTest(rel);
    const text = readFileSync(file, 'utf8');
    const imports = text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](@weft\/[a-z0-9-]+)(?:\/[^'"]*)?['"]/g);
    for (const name of new Set([...imports].map((m) => m[1]))) {
      if (name === pkg.name) continue;
      const why = forbidden(pkg.name, name, test);
      if (why) problems.push(`${relative(root, file)}: imports ${name}, but ${why}`);
      else if (!runtime.has(name) && !(test && dev.has(name))) {
        problems.push(`${relative(root, file)}: imports ${name}, missing from ${pkg.name}'s package.json`);
      }
    }
  }
  for (const name of runtime) {
    const why = name.startsWith('@weft/') ? forbidden(pkg.name, name, false) : undefined;
    if (why) problems.push(`${pkg.name}: depends on ${name}, but ${why}`);
  }
}
if (problems.length > 0) {
  console.error(`Layering (tooling/layers.json):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`Layering: ${checked} workspaces follow tooling/layers.json`);
