import type { KernelDefinition } from '@weft/gpu';
import { A_BUMP, ENTRY_ARGS, ENTRY_HEAD, THREAD_INDEX, tableWgsl } from './layout.ts';

/**
 * One thread per slab: every live key goes to its owner's CSR segment (`cursor` starts as the row offsets),
 * in no particular order within the segment; a sort by (source, target) follows.
 */
export function scatterEdgesKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic export edges${withValues ? ' (map)' : ''}`,
    bindings: {
      slabs: { type: 'array<u32>', access: 'read' },
      values: { type: 'array<u32>', access: 'read' },
      vertices: { type: 'array<u32>', access: 'read' },
      alloc: { type: 'array<u32>', access: 'read' },
      cursor: { type: 'array<atomic<u32>>', access: 'read_write' },
      out_src: { type: 'array<u32>', access: 'read_write' },
      out_dst: { type: 'array<u32>', access: 'read_write' },
      out_val: { type: 'array<u32>', access: 'read_write' },
    },
    params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    code: /* wgsl */ `
${tableWgsl(false, false)}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n || i >= alloc[${A_BUMP}u]) { return; }
  let base = i * 32u;
  let owner_word = slabs[base + OWNER_WORD];
  if (owner_word == NO_OWNER) { return; }
  let owner = owner_word & ~COLLISION;
  for (var lane = 0u; lane < KEY_SLOTS; lane++) {
    let k = slabs[base + lane];
    if (k < TOMBSTONE) {
      let at = atomicAdd(&cursor[owner], 1u);
      out_src[at] = owner;
      out_dst[at] = k;
      ${withValues ? 'out_val[at] = values[base + lane];' : ''}
    }
  }
}`,
  };
}

/**
 * Sorting edges by (source, target): `first` writes the targets as keys with the identity permutation, a stable
 * sort by target follows, `second` writes the sources in that order, a stable sort by source follows; then
 * `gather` (or the caller) reads the edges through `idx`.
 */
export function pairOrderKernel(): KernelDefinition {
  return {
    label: 'dynamic edge order',
    bindings: {
      src: { type: 'array<u32>', access: 'read' },
      dst: { type: 'array<u32>', access: 'read' },
      val: { type: 'array<u32>', access: 'read' },
      keys: { type: 'array<u32>', access: 'read_write' },
      idx: { type: 'array<u32>', access: 'read_write' },
      out_dst: { type: 'array<u32>', access: 'read_write' },
      out_val: { type: 'array<u32>', access: 'read_write' },
    },
    params: { n: 'u32', with_values: 'u32' },
    entryPoints: ['first', 'second', 'gather'],
    code: /* wgsl */ `
${ENTRY_HEAD}
fn first(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  keys[i] = dst[i];
  idx[i] = i;
}
${ENTRY_HEAD}
fn second(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  keys[i] = src[idx[i]];
}
${ENTRY_HEAD}
fn gather(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let j = idx[i];
  out_dst[i] = dst[j];
  if (params.with_values != 0u) { out_val[i] = val[j]; }
}`,
  };
}
