import { ConvergenceError, DeviceLimitError, InputError, NoAdapterError } from '@weft/gpu';

/** Codes of `node:util` `parseArgs` errors: an unknown flag, a missing or ambiguous value, a stray argument. */
const PARSE_ARGS_CODES = new Set([
  'ERR_PARSE_ARGS_UNKNOWN_OPTION',
  'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
  'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL',
]);

/** Codes of file-system errors a mistyped path gives. */
const FILE_CODES = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES']);

/**
 * The one line `weft` prints for an error the user made (bad input, bad flags, a missing file), or
 * undefined for anything else, which keeps its stack for a bug report.
 */
export function userErrorLine(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const code = (e as NodeJS.ErrnoException).code;
  const user =
    e instanceof InputError ||
    e instanceof DeviceLimitError ||
    // No GPU or no 'webgpu' package: the message says what to install; a stack would not help.
    e instanceof NoAdapterError ||
    e instanceof ConvergenceError ||
    // No GPU, or no 'webgpu' package: the message says what to install; a stack would not help.
    e instanceof NoAdapterError ||
    (code !== undefined && (PARSE_ARGS_CODES.has(code) || FILE_CODES.has(code)));
  return user ? e.message.replace(/\s*\n\s*/g, ' ') : undefined;
}

/** A CLI option's value as a vertex id: decimal digits only (no blank, sign, fraction or exponent). */
export function vertexIdOption(text: string, option: string): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InputError(`'${text}' is not a vertex id (a non-negative integer)`, option);
  }
  return Number(text);
}

/** A CLI option's value as a count of at least 1 (decimal digits only). */
export function countOption(text: string, option: string): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1) {
    throw new InputError(`'${text}' is not a count (a positive integer)`, option);
  }
  return Number(text);
}

/** Options every command that reads a graph file takes. */
export const GRAPH_OPTIONS = {
  undirected: { type: 'boolean', default: false },
  'one-based': { type: 'boolean', default: false },
  renumber: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export const GRAPH_FILE_HELP = `.mtx, .gr (DIMACS), .el/.txt/.wel/.tsv/.csv/.edges (edge lists), .wcsr (Weft binary CSR)`;

export const GRAPH_OPTIONS_HELP = `  --undirected      read the graph as undirected (each edge both ways), whatever the format says
  --one-based       edge-list ids start at 1
  --renumber        edge-list ids are names (any token, 64-bit numbers too): vertices are numbered in order
                    of first appearance, --source takes a name and the JSON gets "ids" (the name per index)
`;
