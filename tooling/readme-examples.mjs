// The packages' README examples as modules a scratch app can run: every ```ts block that starts with an
// import and asks for a device (blocks fenced ```ts illustrative are left out: they need files or a GPU's
// memory). Each becomes an ES module exporting `run(log)`, its console.log calls sent to `log`, and the
// values its `console.log(...); // value` comments promise are checked against what the run printed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';

const FENCE = /^```ts\n([\s\S]*?)^```$/gm;

/** The runnable examples under `root/packages/*` README.md, in package order. */
export function readmeExamples(root) {
  const examples = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    let text;
    try {
      text = readFileSync(join(root, 'packages', dir, 'README.md'), 'utf8');
    } catch {
      continue;
    }
    let index = 0;
    for (const match of text.matchAll(FENCE)) {
      const code = match[1];
      if (!code.startsWith('import') || !code.includes('requestDevice(')) continue;
      index++;
      examples.push({ name: `${dir}-${index}`, ...toModule(code) });
    }
  }
  return examples;
}

/** Splits the leading imports from the body, wraps the body in `run(log)`, and strips the types. */
function toModule(code) {
  const lines = code.split('\n');
  let end = 0;
  // The imports: lines up to the last one that closes an import statement before the first other statement.
  for (let i = 0, open = false; i < lines.length; i++) {
    const line = lines[i];
    if (open || line.startsWith('import ')) {
      open = !/from '[^']+';\s*$/.test(line);
      end = i + 1;
    } else if (line.trim() !== '') break;
  }
  const body = lines.slice(end);
  const expected = body.filter((l) => l.includes('console.log(')).map((l) => promised(l));
  const source = `${lines.slice(0, end).join('\n')}
export async function run(weftLog) {
${body.join('\n').replaceAll('console.log(', 'weftLog(')}
}
`;
  const js = transformSync(source, { loader: 'ts', format: 'esm', target: 'es2022' }).code;
  return { module: js, expected, nodeOnly: /from '(node:|@weft\/graph\/node|@weft\/cli)/.test(code) };
}

/** The numbers a `console.log(...); // value  (remark)` line promises, or undefined if its comment is prose. */
function promised(line) {
  const at = line.indexOf('// ');
  if (at < 0) return undefined;
  const value = line
    .slice(at + 3)
    .split(/\s{2,}\(|\s+\((?=[a-zA-Z])|\s+\/\/|\s+--\s/)[0]
    .trim();
  if (!/^([[{\-0-9]|(Uint|Int|Float)\d+Array|true|false)/.test(value)) return undefined;
  const numbers = numbersIn(value.replace(/\b(Uint|Int|Float)\d+Array(\(\d+\))?/g, ''));
  return numbers.length > 0 ? numbers : undefined;
}

const numbersIn = (text) => (text.match(/-?\d+(\.\d+)?(e[-+]?\d+)?/g) ?? []).map(Number);

/** How an example's `console.log` arguments print: typed arrays as plain arrays, objects as JSON. */
export const formatSource = `function weftFormat(x) {
  if (ArrayBuffer.isView(x) && !(x instanceof DataView)) return '[' + Array.from(x).join(', ') + ']';
  if (Array.isArray(x)) return '[' + x.map(weftFormat).join(', ') + ']';
  if (x !== null && typeof x === 'object') {
    return JSON.stringify(x, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : typeof v === 'bigint' ? String(v) : v));
  }
  return String(x);
}`;

/** Null when every value the example's comments promise is what it printed (numbers within 1e-4). */
export function checkPrinted(example, printed) {
  if (printed.length !== example.expected.length) {
    return `printed ${printed.length} lines, its console.log calls are ${example.expected.length}`;
  }
  for (let i = 0; i < printed.length; i++) {
    const want = example.expected[i];
    if (want === undefined) continue;
    const got = numbersIn(printed[i]);
    const same =
      got.length === want.length &&
      got.every((g, k) => Math.abs(g - want[k]) <= 1e-4 * Math.max(1, Math.abs(want[k])));
    if (!same) return `console.log #${i + 1} printed ${printed[i]}, its comment says ${want.join(', ')}`;
  }
  return null;
}
