import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InputError } from '@weft/gpu';

/**
 * Checks, before any computation, that `path` can be written: its directory exists and is writable, and
 * the path is not a directory (nor a read-only file).
 */
export async function checkOutputPath(path: string, option = '--out'): Promise<void> {
  const full = resolve(path);
  const existing = await stat(full).catch(() => undefined);
  if (existing?.isDirectory()) throw new InputError(`${path} is a directory`, option);
  const dir = dirname(full);
  const parent = await stat(dir).catch(() => undefined);
  if (parent === undefined) throw new InputError(`directory ${dirname(path)} does not exist`, option);
  if (!parent.isDirectory()) throw new InputError(`${dirname(path)} is not a directory`, option);
  try {
    await access(existing ? full : dir, constants.W_OK);
  } catch {
    throw new InputError(`${existing ? path : `directory ${dirname(path)}`} is not writable`, option);
  }
}

/** Values per write: a few hundred kilobytes of text, whatever the vertex count. */
const CHUNK = 1 << 16;

/** Rows of equal-length columns, written as `[[c0[i], c1[i], ...], ...]` (an MST's `[u, v, w]` edges). */
export interface Rows {
  readonly columns: readonly ArrayLike<number>[];
}

/**
 * Writes `{...scalars, name: [values], ...}` to `path`, each array streamed in chunks so that a result of tens
 * of millions of vertices never becomes one string. Non-finite numbers are written as `null`; strings (vertex
 * names) as JSON strings.
 */
export async function writeResultJson(
  path: string,
  scalars: Record<string, unknown>,
  arrays: Record<string, ArrayLike<number> | readonly string[] | Rows>,
): Promise<void> {
  const file = await open(path, 'w');
  try {
    const head = JSON.stringify(scalars).slice(0, -1);
    let separator = head.length > 1 ? ',' : '';
    await file.write(head);
    for (const [name, values] of Object.entries(arrays)) {
      await file.write(`${separator}${JSON.stringify(name)}:[`);
      separator = ',';
      const rows = 'columns' in values ? values.columns : undefined;
      const flat = rows ? undefined : (values as ArrayLike<number | string>);
      const length = rows ? (rows[0]?.length ?? 0) : flat!.length;
      for (let start = 0; start < length; start += CHUNK) {
        const end = Math.min(length, start + CHUNK);
        let text = start === 0 ? '' : ',';
        for (let i = start; i < end; i++) {
          const json = rows ? `[${rows.map((c) => jsonValue(c[i]!)).join(',')}]` : jsonValue(flat![i]!);
          text += `${i === start ? '' : ','}${json}`;
        }
        await file.write(text);
      }
      await file.write(']');
    }
    await file.write('}\n');
  } finally {
    await file.close();
  }
}

function jsonValue(x: number | string): string {
  return typeof x === 'string' ? JSON.stringify(x) : Number.isFinite(x) ? String(x) : 'null';
}
