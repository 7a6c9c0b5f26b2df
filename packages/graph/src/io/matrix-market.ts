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
import { WeightColumn, type WeightType } from './weights.ts';

export interface MatrixMarketOptions extends LoadBudget {
  /** Names the source in errors (a file name or URL). */
  name?: string;
  /** How `integer` values are stored (default `'auto'`); `real` is always f32. */
  weightType?: WeightType;
}

type Field = 'real' | 'integer' | 'pattern';
type Symmetry = 'general' | 'symmetric' | 'skew-symmetric';

/**
 * Reads a Matrix Market coordinate file as a graph: entry (i, j) is the edge i-1 -> j-1 with the entry's value
 * as weight (`pattern` files have no weights). `vertexCount = max(rows, cols)`; isolated vertices are kept.
 * Symmetric files are mirrored (diagonal entries once) and marked undirected; skew-symmetric files are mirrored
 * with the negated value and stay directed (a_ji = -a_ij: the two arcs differ, so building them as undirected
 * would merge both into -|w|). Complex, hermitian and dense (`array`) files are rejected. Explicit zeros are kept as edges.
 */
export async function parseMatrixMarket(
  source: ByteSource,
  options: MatrixMarketOptions = {},
): Promise<HostEdgeList> {
  checkOptionsObject('parseMatrixMarket', options);
  const name = options.name ?? 'matrix market input';
  const maxBytes = budgetOption(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxLineBytes = budgetOption(options.maxLineBytes, DEFAULT_MAX_LINE_BYTES, 'maxLineBytes');
  let field: Field | undefined;
  let symmetry: Symmetry = 'general';
  let rows = -1;
  let cols = -1;
  let nnz = -1;
  let entries = 0;
  let lastLine = 0;
  let src = new Growable((n) => new Uint32Array(n));
  let dst = new Growable((n) => new Uint32Array(n));
  let values = new WeightColumn();
  const tokens = new LineTokens(false);

  const lines = await forEachLine(
    source,
    (bytes, start, end, line) => {
      lastLine = line;
      const where = `${name}:${line}`;
      if (line === 1) {
        [field, symmetry] = parseBanner(tokens.split(bytes, start, end, where));
        return;
      }
      const first = firstNonBlank(bytes, start, end);
      if (first === -1 || first === 37 /* % */) return;
      tokens.split(bytes, start, end, where);
      if (nnz < 0) {
        if (tokens.count !== 3) {
          throw new InputError(
            `size line must be 'rows columns entries', found ${tokens.count} tokens`,
            where,
          );
        }
        rows = tokens.unsigned(0, 'row count');
        cols = tokens.unsigned(1, 'column count');
        nnz = tokens.unsigned(2, 'entry count');
        if (Math.max(rows, cols) > MAX_VERTEX_COUNT) {
          throw new InputError(`${Math.max(rows, cols)} vertices exceed the u32 id range`, where);
        }
        const mirrored = symmetry === 'general' ? 1 : 2;
        checkGraphBytes(
          Math.max(rows, cols),
          nnz * mirrored,
          field !== 'pattern',
          maxBytes,
          `a ${rows} x ${cols} matrix with ${nnz} entries`,
          where,
        );
        checkDeclaredCount(nnz, field === 'pattern' ? 4 : 6, options.byteLength, 'entries', where);
        src = new Growable((n) => new Uint32Array(n), capacityHint(nnz * mirrored));
        dst = new Growable((n) => new Uint32Array(n), capacityHint(nnz * mirrored));
        if (field !== 'pattern') values = new WeightColumn(nnz * mirrored);
        return;
      }
      const want = field === 'pattern' ? 2 : 3;
      if (tokens.count !== want) {
        throw new InputError(`a ${field} entry needs ${want} values, found ${tokens.count}`, where);
      }
      if (entries === nnz) throw new InputError(`more entries than the ${nnz} the size line declares`, where);
      entries++;
      const i = tokens.unsigned(0, 'row index');
      const j = tokens.unsigned(1, 'column index');
      if (i < 1 || i > rows) throw new InputError(`row index ${i} is out of range [1, ${rows}]`, where);
      if (j < 1 || j > cols) throw new InputError(`column index ${j} is out of range [1, ${cols}]`, where);
      const v =
        field === 'pattern' ? 0 : field === 'integer' ? tokens.integer(2, 'value') : tokens.real(2, 'value');
      if (symmetry === 'skew-symmetric' && i === j) {
        throw new InputError(`a skew-symmetric matrix has no diagonal entries, found (${i}, ${j})`, where);
      }
      push(i - 1, j - 1, v, line);
      if (symmetry !== 'general' && i !== j) push(j - 1, i - 1, symmetry === 'skew-symmetric' ? -v : v, line);
    },
    maxLineBytes,
    name,
  );

  function push(s: number, d: number, v: number, line: number) {
    src.push(s);
    dst.push(d);
    if (field !== 'pattern') values.push(v, line);
  }

  if (lines === 0) throw new InputError('empty file: expected a %%MatrixMarket banner', `${name}:1`);
  if (nnz < 0) throw new InputError('the file ends before the size line', `${name}:${lastLine}`);
  if (entries < nnz) {
    throw new InputError(
      `the file ends after ${entries} of the ${nnz} entries the size line declares`,
      `${name}:${lastLine}`,
    );
  }
  const edges: HostEdgeList = {
    vertexCount: Math.max(rows, cols),
    src: src.finish(),
    dst: dst.finish(),
    directed: (symmetry as Symmetry) !== 'symmetric',
  };
  if (field === 'real') edges.weights = values.finish('f32', name);
  else if (field === 'integer') edges.weights = values.finish(options.weightType ?? 'auto', name);
  return edges;
}

function parseBanner(tokens: LineTokens): [Field, Symmetry] {
  const where = tokens.where;
  const words = Array.from({ length: tokens.count }, (_, i) => tokens.text(i).toLowerCase());
  if (words[0] !== '%%matrixmarket' || words.length !== 5) {
    throw new InputError(
      "bad banner: expected '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>'",
      where,
    );
  }
  const [, object, format, field, symmetry] = words as [string, string, string, string, string];
  if (object !== 'matrix') throw new InputError(`unsupported object '${object}': only 'matrix'`, where);
  if (format !== 'coordinate') {
    throw new InputError(`unsupported format '${format}': only sparse 'coordinate' files are graphs`, where);
  }
  if (field !== 'real' && field !== 'integer' && field !== 'pattern') {
    throw new InputError(`unsupported field '${field}': use real, integer or pattern`, where);
  }
  if (symmetry !== 'general' && symmetry !== 'symmetric' && symmetry !== 'skew-symmetric') {
    throw new InputError(
      `unsupported symmetry '${symmetry}': use general, symmetric or skew-symmetric`,
      where,
    );
  }
  if (field === 'pattern' && symmetry === 'skew-symmetric') {
    throw new InputError('a pattern matrix cannot be skew-symmetric', where);
  }
  return [field, symmetry];
}
