import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { MAX_VERTEX_COUNT } from '../host-graph.ts';
import {
  budgetOption,
  checkDeclaredCount,
  checkGraphBytes,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  type LoadBudget,
} from './budget.ts';
import { capacityHint, Growable } from './growable.ts';
import { type ByteSource, firstNonBlank, forEachLine, LineTokens } from './lines.ts';

export interface DimacsOptions extends LoadBudget {
  /** Names the source in errors. */
  name?: string;
}

/**
 * Reads a DIMACS shortest-path file (`.gr`, 9th DIMACS challenge): 'c' comments, one `p sp n m` line, then
 * `a u v w` arcs with 1-based ids and non-negative integer lengths (stored as u32 weights). The number of
 * arcs must equal m. The graph is directed.
 */
export async function parseDimacs(source: ByteSource, options: DimacsOptions = {}): Promise<HostEdgeList> {
  checkOptionsObject('parseDimacs', options);
  const name = options.name ?? 'DIMACS input';
  const maxBytes = budgetOption(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxLineBytes = budgetOption(options.maxLineBytes, DEFAULT_MAX_LINE_BYTES, 'maxLineBytes');
  let n = -1;
  let m = -1;
  let arcs = 0;
  let lastLine = 0;
  let src = new Growable((k) => new Uint32Array(k));
  let dst = new Growable((k) => new Uint32Array(k));
  let weights = new Growable((k) => new Uint32Array(k));
  const tokens = new LineTokens(false);

  await forEachLine(
    source,
    (bytes, start, end, line) => {
      lastLine = line;
      const first = firstNonBlank(bytes, start, end);
      if (first === -1 || first === 99 /* c */) return;
      const where = `${name}:${line}`;
      tokens.split(bytes, start, end, where);
      const kind = tokens.text(0);
      if (kind === 'p') {
        if (n >= 0) throw new InputError("a second 'p' line", where);
        if (tokens.count !== 4 || tokens.text(1) !== 'sp') {
          throw new InputError("problem line must be 'p sp <vertices> <arcs>'", where);
        }
        n = tokens.unsigned(2, 'vertex count');
        m = tokens.unsigned(3, 'arc count');
        if (n > MAX_VERTEX_COUNT) throw new InputError(`${n} vertices exceed the u32 id range`, where);
        checkGraphBytes(n, m, true, maxBytes, `a graph of ${n} vertices and ${m} arcs`, where);
        // The shortest arc line is 'a 1 1 0'.
        checkDeclaredCount(m, 8, options.byteLength, 'arcs', where);
        src = new Growable((k) => new Uint32Array(k), capacityHint(m));
        dst = new Growable((k) => new Uint32Array(k), capacityHint(m));
        weights = new Growable((k) => new Uint32Array(k), capacityHint(m));
        return;
      }
      if (kind !== 'a') throw new InputError(`unknown line type '${kind}': expected 'c', 'p' or 'a'`, where);
      if (n < 0) throw new InputError("an arc before the 'p sp n m' line", where);
      if (tokens.count !== 4)
        throw new InputError(`an arc needs 'a u v w', found ${tokens.count} tokens`, where);
      if (arcs === m) throw new InputError(`more arcs than the ${m} the 'p' line declares`, where);
      arcs++;
      const u = tokens.unsigned(1, 'arc tail');
      const v = tokens.unsigned(2, 'arc head');
      if (u < 1 || u > n) throw new InputError(`arc tail ${u} is out of range [1, ${n}]`, where);
      if (v < 1 || v > n) throw new InputError(`arc head ${v} is out of range [1, ${n}]`, where);
      const w = tokens.unsigned(3, 'arc length');
      if (w > 2 ** 32 - 1) throw new InputError(`arc length ${w} does not fit in u32`, where);
      src.push(u - 1);
      dst.push(v - 1);
      weights.push(w);
    },
    maxLineBytes,
    name,
  );

  if (n < 0) throw new InputError("no 'p sp n m' line", `${name}:${Math.max(lastLine, 1)}`);
  if (arcs < m) {
    throw new InputError(
      `the file ends after ${arcs} of the ${m} arcs the 'p' line declares`,
      `${name}:${lastLine}`,
    );
  }
  return { vertexCount: n, src: src.finish(), dst: dst.finish(), weights: weights.finish(), directed: true };
}
