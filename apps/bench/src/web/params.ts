import { parseSizes } from '../sizes.ts';
import { SUITES } from '../suites/index.ts';

export { parseSizes };

/** What the browser page runs: the CLI's options that make sense in a page. */
export interface WebBenchOptions {
  suites: string[];
  /** Empty: the CLI's defaults for the adapter (smaller on software adapters). */
  sizes: number[];
  /** Empty: the CLI's default for the adapter. */
  repeat?: number;
  warmupMs?: number;
  cases?: string;
  seed: number;
  /** Start a run as soon as the page has loaded (for tests and shared links). */
  autorun: boolean;
}

function positiveInt(name: string, text: string | null, min: number): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const v = Number(text);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name}: '${text}' is not an integer >= ${min}`);
  return v;
}

/** Reads `?suite=primitives&sizes=10,12&repeat=2&warmup=0&cases=copy&seed=1&autorun=1`. */
export function parseQuery(search: string): WebBenchOptions {
  const q = new URLSearchParams(search);
  const suites = (q.get('suite') ?? 'primitives').split(',').filter((s) => s !== '');
  for (const s of suites) {
    if (!(SUITES as readonly string[]).includes(s)) {
      throw new Error(`suite: unknown suite '${s}' (known: ${SUITES.join(', ')})`);
    }
  }
  const options: WebBenchOptions = {
    suites: suites.length > 0 ? suites : ['primitives'],
    sizes: parseSizes(q.get('sizes') ?? ''),
    seed: positiveInt('seed', q.get('seed'), 0) ?? 1,
    autorun: q.get('autorun') === '1' || q.get('autorun') === 'true',
  };
  const repeat = positiveInt('repeat', q.get('repeat'), 1);
  if (repeat !== undefined) options.repeat = repeat;
  const warmupMs = positiveInt('warmup', q.get('warmup'), 0);
  if (warmupMs !== undefined) options.warmupMs = warmupMs;
  const cases = q.get('cases');
  if (cases) {
    new RegExp(cases); // throws a SyntaxError that names the bad pattern
    options.cases = cases;
  }
  return options;
}

/** The CLI command that measures the same thing in Node, for the report's reproduction line. */
export function equivalentCommand(o: WebBenchOptions): string {
  const parts = ['weft bench', `--suite ${o.suites.join(',')}`];
  if (o.sizes.length > 0) {
    parts.push(
      `--sizes ${o.sizes.map((n) => (Number.isInteger(Math.log2(n)) ? Math.log2(n) : n)).join(',')}`,
    );
  }
  if (o.cases !== undefined) parts.push(`--cases '${o.cases}'`);
  if (o.repeat !== undefined) parts.push(`--repeat ${o.repeat}`);
  if (o.warmupMs !== undefined) parts.push(`--warmup-ms ${o.warmupMs}`);
  if (o.seed !== 1) parts.push(`--seed ${o.seed}`);
  return parts.join(' ');
}

/** The query string that reproduces `o` (without autorun). */
export function toQuery(o: WebBenchOptions): string {
  const q = new URLSearchParams({ suite: o.suites.join(',') });
  if (o.sizes.length > 0) {
    q.set('sizes', o.sizes.map((n) => (Number.isInteger(Math.log2(n)) ? Math.log2(n) : n)).join(','));
  }
  if (o.repeat !== undefined) q.set('repeat', String(o.repeat));
  if (o.warmupMs !== undefined) q.set('warmup', String(o.warmupMs));
  if (o.cases !== undefined) q.set('cases', o.cases);
  if (o.seed !== 1) q.set('seed', String(o.seed));
  // Commas and bars left readable: `sizes=10,12`, not `sizes=10%2C12`.
  return `?${q.toString().replace(/%2C/gi, ',').replace(/%7C/gi, '|')}`;
}
