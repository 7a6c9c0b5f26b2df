import { InputError } from '@weft/gpu';
import type { AbstractGraph } from 'graphology-types';

function checkLengths(keys: readonly string[], values: ArrayLike<number>): void {
  if (keys.length !== values.length) {
    throw new InputError(`values has ${values.length} entries but there are ${keys.length} keys`, 'values');
  }
}

/**
 * Per-vertex results as `{ [key]: value }`, the shape graphology's own algorithms return
 * (`pagerank(graph)`, `singleSourceLength(...)`).
 */
export function toKeyed(keys: readonly string[], values: ArrayLike<number>): Record<string, number> {
  checkLengths(keys, values);
  const out: Record<string, number> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // A plain assignment to '__proto__' would set the prototype instead of a property.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: values[i]!,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = values[i]!;
    }
  }
  return out;
}

/**
 * Writes per-vertex results into node attribute `attributeName`, as graphology's `algorithm.assign(graph)`
 * functions do. Throws graphology's NotFoundGraphError when a key is not a node of `graph`.
 */
export function assignAttributes(
  graph: AbstractGraph,
  keys: readonly string[],
  values: ArrayLike<number>,
  attributeName: string,
): void {
  checkLengths(keys, values);
  for (let i = 0; i < keys.length; i++) graph.setNodeAttribute(keys[i]!, attributeName, values[i]!);
}
