import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { checkVertexCount, MAX_VERTEX_COUNT } from '../host-graph.ts';
import {
  budgetOption,
  checkGraphBytes,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  type LoadBudget,
} from './budget.ts';
import { Growable } from './growable.ts';
import { type ByteSource, firstNonBlank, forEachLine, LineTokens } from './lines.ts';
import { WeightColumn, type WeightType } from './weights.ts';

export interface EdgeListOptions extends LoadBudget {
  /** Names the source in errors. */
  name?: string;
  /** Ids in the file start at 1 (default false: ids are used as given). */
  oneBased?: boolean;
  /** Vertex count; ids must be below it. Default: largest id + 1. */
  vertexCount?: number;
  /** Default true. */
  directed?: boolean;
  /** Storage of the optional third column (default `'auto'`). */
  weightType?: WeightType;
  /**
   * Ids are names (any token: `alice`, `9007199254740993`, `-4`), numbered `0..n-1` in order of first
   * appearance; the result's `ids[v]` is vertex `v`'s name (cuGraph's renumbering). Not with `oneBased` or
   * `vertexCount`.
   */
  renumber?: boolean;
}

/**
 * Reads a SNAP-style edge list: one `source target [weight]` per line, separated by spaces, tabs or commas;
 * lines starting with '#' or '%' are comments. Either every edge line has a weight or none does.
 */
export async function parseEdgeList(
  source: ByteSource,
  options: EdgeListOptions = {},
): Promise<HostEdgeList> {
  checkOptionsObject('parseEdgeList', options);
  const name = options.name ?? 'edge list input';
  if (options.renumber && (options.oneBased || options.vertexCount !== undefined)) {
    throw new InputError(
      `renumber numbers the ids itself: leave out ${options.oneBased ? 'oneBased' : 'vertexCount'}`,
      'options.renumber',
    );
  }
  const base = options.oneBased ? 1 : 0;
  const limit = options.vertexCount;
  if (limit !== undefined) checkVertexCount(limit, 'options.vertexCount');
  const maxBytes = budgetOption(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxLineBytes = budgetOption(options.maxLineBytes, DEFAULT_MAX_LINE_BYTES, 'maxLineBytes');
  if (limit !== undefined) {
    checkGraphBytes(limit, 0, false, maxBytes, `a graph of ${limit} vertices`, 'options.vertexCount');
  }
  const src = new Growable((n) => new Uint32Array(n), 1 << 16);
  const dst = new Growable((n) => new Uint32Array(n), 1 << 16);
  const weights = new WeightColumn();
  const tokens = new LineTokens(true);
  let columns = 0;
  let maxId = -1;
  const numbers = new Map<string, number>();
  const names: string[] = [];

  const named = (i: number, what: string) => {
    const key = tokens.utf8(i, what);
    let v = numbers.get(key);
    if (v === undefined) {
      v = names.length;
      numbers.set(key, v);
      names.push(key);
      maxId = v;
    }
    return v;
  };

  const id = (i: number, what: string, where: string) => {
    if (options.renumber) return named(i, what);
    const raw = tokens.unsigned(i, what);
    if (raw < base) throw new InputError(`${what} ${raw} is below 1 in a one-based file`, where);
    const v = raw - base;
    if (limit !== undefined ? v >= limit : v >= MAX_VERTEX_COUNT) {
      const bound = limit ?? MAX_VERTEX_COUNT;
      throw new InputError(
        `${what} ${raw} is out of range (${bound} vertices${base ? ', one-based' : ''})`,
        where,
      );
    }
    if (v > maxId) maxId = v;
    return v;
  };

  await forEachLine(
    source,
    (bytes, start, end, line) => {
      const first = firstNonBlank(bytes, start, end);
      if (first === -1 || first === 35 /* # */ || first === 37 /* % */) return;
      const where = `${name}:${line}`;
      tokens.split(bytes, start, end, where);
      if (tokens.count === 0) return;
      if (columns === 0) {
        if (tokens.count !== 2 && tokens.count !== 3) {
          throw new InputError(`an edge needs 'source target [weight]', found ${tokens.count} values`, where);
        }
        columns = tokens.count;
      } else if (tokens.count !== columns) {
        throw new InputError(
          `found ${tokens.count} values but earlier edges have ${columns} (${columns === 3 ? 'weighted' : 'unweighted'})`,
          where,
        );
      }
      src.push(id(0, 'source id', where));
      dst.push(id(1, 'target id', where));
      if (columns === 3) weights.push(tokens.real(2, 'weight'), line);
      // Checked per edge, so an id near 2^32 is refused before the CSR builder allocates for it.
      const vertices = limit ?? maxId + 1;
      checkGraphBytes(
        vertices,
        src.length,
        columns === 3,
        maxBytes,
        `a graph of ${vertices} vertices and ${src.length} edges`,
        where,
      );
    },
    maxLineBytes,
    name,
  );

  const edges: HostEdgeList = {
    vertexCount: limit ?? maxId + 1,
    src: src.finish(),
    dst: dst.finish(),
    directed: options.directed ?? true,
  };
  if (columns === 3) edges.weights = weights.finish(options.weightType ?? 'auto', name);
  if (options.renumber) edges.ids = names;
  return edges;
}
