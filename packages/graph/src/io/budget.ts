import { InputError } from '@weft/gpu';

/** Default {@link LoadBudget.maxBytes} of the parsers: 2 GiB, what a browser tab can usually hold. */
export const DEFAULT_MAX_BYTES = 2 ** 31;
/** Default {@link LoadBudget.maxLineBytes}: 1 MiB, far beyond any edge or header line. */
export const DEFAULT_MAX_LINE_BYTES = 2 ** 20;

/** Bounds a text parser enforces before it allocates, so a hostile file is refused instead of exhausting memory. */
export interface LoadBudget {
  /**
   * Memory budget in bytes for the graph and its CSR (default {@link DEFAULT_MAX_BYTES}; `loadGraph` defaults to a
   * quarter of the machine's memory). Declared sizes and ids whose graph would need more are an `InputError`.
   */
  maxBytes?: number;
  /** Longest line in bytes, line ending excluded (default {@link DEFAULT_MAX_LINE_BYTES}). */
  maxLineBytes?: number;
  /** The source's size in bytes when known: declared entry counts that cannot fit in it are refused. */
  byteLength?: number;
}

/**
 * Bytes a graph of `vertices` and `edges` costs while it is read and built into a CSR: 8 per vertex (offsets and
 * counts) and 12 per edge (ids and targets), 24 with weights (read as f64, stored as 4 bytes).
 */
function graphBytes(vertices: number, edges: number, weighted: boolean): number {
  return 8 * (vertices + 1) + edges * (weighted ? 24 : 12);
}

/** Validates a budget option (a positive integer or undefined) and returns it or its default. */
export function budgetOption(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InputError(`${option} must be a positive integer, got ${value}`, `options.${option}`);
  }
  return value;
}

/** Throws an InputError at `where` when a graph of this size exceeds `maxBytes`. */
export function checkGraphBytes(
  vertices: number,
  edges: number,
  weighted: boolean,
  maxBytes: number,
  what: string,
  where: string,
): void {
  const bytes = graphBytes(vertices, edges, weighted);
  if (bytes > maxBytes) {
    throw new InputError(
      `${what} needs about ${bytes} bytes, over the budget of ${maxBytes} (maxBytes)`,
      where,
    );
  }
}

/** Throws an InputError at `where` when `count` lines of at least `minBytes` bytes each cannot fit in the source. */
export function checkDeclaredCount(
  count: number,
  minBytes: number,
  byteLength: number | undefined,
  what: string,
  where: string,
): void {
  // The last line may lack its line ending.
  if (byteLength !== undefined && count > 0 && count * minBytes - 1 > byteLength) {
    throw new InputError(
      `${count} ${what} cannot fit in the file's ${byteLength} bytes (each needs at least ${minBytes})`,
      where,
    );
  }
}
