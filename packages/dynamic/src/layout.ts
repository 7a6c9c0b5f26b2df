/**
 * Memory layout of the dynamic graph, shared by the TypeScript that sizes arrays and the WGSL that walks them.
 *
 * A slab is 32 u32 words (128 bytes: one cache line on NVIDIA, a whole number of vectors everywhere):
 * words 0..29 hold keys (destination vertex ids, or EMPTY / TOMBSTONE), word 30 the owner (the vertex whose
 * table the slab belongs to, with COLLISION set for slabs from the allocator, NO_OWNER when free) and word 31
 * the next slab of the bucket's chain (NULL_SLAB at the end). Keys only: WebGPU has 32-bit atomics, so a key
 * is claimed with one compare-exchange and its value lives at the same index of a parallel `values` array.
 *
 * A fresh slab is all 0xffffffff: every key EMPTY, no owner, no next slab. Vertex ids must stay below 2^31 - 1
 * (bit 31 of the owner word is the COLLISION flag, 0xfffffffe and 0xffffffff are sentinels).
 */
export const SLAB_WORDS = 32;
export const KEY_SLOTS = 30;
export const OWNER_WORD = 30;
export const NEXT_WORD = 31;
export const EMPTY = 0xffffffff;
export const TOMBSTONE = 0xfffffffe;
export const NULL_SLAB = 0xffffffff;
export const NO_OWNER = 0xffffffff;
export const COLLISION = 0x80000000;
/** Largest vertex count: ids below 2^31 - 1 keep clear of the COLLISION bit and the sentinels. */
export const MAX_VERTICES = 0x7fffffff;

/** The vertex dictionary: 4 u32 per vertex, so growing it copies one array. */
export const VERTEX_WORDS = 4;
export const V_BASE = 0;
export const V_BUCKETS = 1;
export const V_DEGREE = 2;
export const V_FLAGS = 3;
export const ALIVE = 1;
const DELETING = 2;

/** Allocator state words (`alloc` array). */
export const A_BUMP = 0;
export const A_FREE = 1;
export const A_SPARE = 2;
export const A_OVERFLOW = 3;
/** Set by an insertion that linked a slab to a table holding more than {@link LONG_TABLE_LOAD} keys a base slot. */
export const A_LONG_TABLES = 4;
/** Set when a table that an insertion batch would make long could not grow first (no room in the pool). */
export const A_GROWTH_DENIED = 5;
/** Base buckets that tables grown on the GPU added since the host last read this word. */
export const A_BASE_GROWTH = 6;
export const ALLOC_WORDS = 7;
/** Keys per base slot above which a linked slab sets `A_LONG_TABLES` (above the rehash's default bound, 2 * loadFactor). */
export const LONG_TABLE_LOAD = 2;

export const WORKGROUP = 256;

/** The prologue of the table kernels' 1-D entry points (grids beyond 65,535 workgroups split in x * y). */
export const ENTRY_HEAD = /* wgsl */ `@compute @workgroup_size(${WORKGROUP})`;
export const ENTRY_ARGS = /* wgsl */ `@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32`;
export const THREAD_INDEX = /* wgsl */ `let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;`;

/** Binding declarations of the table kernels. */
export const READ = { type: 'array<u32>', access: 'read' } as const;
export const WRITE = { type: 'array<u32>', access: 'read_write' } as const;
export const ATOMIC = { type: 'array<atomic<u32>>', access: 'read_write' } as const;

/** Base buckets for a vertex expected to hold `hint` keys at `loadFactor` (one bucket without a hint). */
export function bucketsFor(hint: number, loadFactor: number): number {
  return Math.max(1, Math.ceil(hint / (KEY_SLOTS * loadFactor)));
}

// With plain loads (queries) loading the whole slab before comparing measured faster than comparing as it
// loads; with atomic loads (deletions) it measured slower, so kernels that modify the tables keep the early exit.
const FIND_KEY_WHOLE_SLAB = /* wgsl */ `
fn find_key(v: u32, k: u32) -> u32 { return find_key_from(bucket_slab(v, k), k); }

fn find_key_from(first: u32, k: u32) -> u32 {
  var slab = first;
  for (var hop = 0u; hop < chain_bound(); hop++) {
    let base = slab * 32u;
    let w = load_slab(base);
    for (var lane = 0u; lane < KEY_SLOTS; lane++) {
      if (w[lane] == k) { return base + lane; }
    }
    slab = w[NEXT_WORD];
    if (slab == NULL_SLAB) { return NOT_FOUND; }
  }
  return NOT_FOUND;
}`;

const FIND_KEY_EACH = /* wgsl */ `
fn find_key(v: u32, k: u32) -> u32 { return find_key_from(bucket_slab(v, k), k); }

fn find_key_from(first: u32, k: u32) -> u32 {
  var slab = first;
  for (var hop = 0u; hop < chain_bound(); hop++) {
    let base = slab * 32u;
    for (var lane = 0u; lane < KEY_SLOTS; lane++) {
      if (slab_word(base + lane) == k) { return base + lane; }
    }
    slab = slab_word(base + NEXT_WORD);
    if (slab == NULL_SLAB) { return NOT_FOUND; }
  }
  return NOT_FOUND;
}`;

/** The key hash of the buckets (`hash_key`), for kernels that place keys without walking the tables. */
export const HASH_WGSL = /* wgsl */ `
// lowbias32 (Wellons): a cheap mix so that consecutive ids spread over a vertex's buckets.
fn hash_key(k: u32) -> u32 {
  var x = k;
  x ^= x >> 16u; x *= 0x7feb352du;
  x ^= x >> 15u; x *= 0x846ca68bu;
  x ^= x >> 16u;
  return x;
}
`;

/**
 * WGSL shared by every kernel that walks the tables: constants, word access and the chain search.
 * `atomicSlabs` / `atomicVertices` say whether `slabs` / `vertices` are bound as `array<atomic<u32>>`
 * (kernels that modify them) or as read-only `array<u32>`. Kernels using it need the params
 * `vertex_count` and `slab_capacity`.
 */
export function tableWgsl(atomicSlabs: boolean, atomicVertices: boolean): string {
  const slabWord = atomicSlabs ? 'atomicLoad(&slabs[i])' : 'slabs[i]';
  const vertexWord = atomicVertices ? 'atomicLoad(&vertices[v * 4u + f])' : 'vertices[v * 4u + f]';
  return /* wgsl */ `
const EMPTY = ${EMPTY}u;
const TOMBSTONE = ${TOMBSTONE}u;
const NULL_SLAB = ${NULL_SLAB}u;
const NO_OWNER = ${NO_OWNER}u;
const NOT_FOUND = 0xffffffffu;
const COLLISION = ${COLLISION}u;
const KEY_SLOTS = ${KEY_SLOTS}u;
const OWNER_WORD = ${OWNER_WORD}u;
const NEXT_WORD = ${NEXT_WORD}u;
const ALIVE = ${ALIVE}u;
const DELETING = ${DELETING}u;

fn slab_word(i: u32) -> u32 { return ${slabWord}; }
fn vertex_word(v: u32, f: u32) -> u32 { return ${vertexWord}; }

fn is_alive(v: u32) -> bool {
  return v < params.vertex_count && (vertex_word(v, ${V_FLAGS}u) & ALIVE) != 0u;
}

${HASH_WGSL}

fn bucket_slab(v: u32, k: u32) -> u32 {
  return vertex_word(v, ${V_BASE}u) + hash_key(k) % vertex_word(v, ${V_BUCKETS}u);
}

// A chain never holds more slabs than the pool; the bound turns a corrupted chain into a miss, not a hang.
fn chain_bound() -> u32 { return params.slab_capacity + 1u; }

// A whole slab, every word loaded before any is looked at: the 32 loads are in flight together (a loop that
// compares as it loads waits for each word in turn: the compiler may not hoist a load above the exit).
fn load_slab(base: u32) -> array<u32, 32> {
  var w: array<u32, 32>;
  for (var lane = 0u; lane < 32u; lane++) { w[lane] = slab_word(base + lane); }
  return w;
}

// Word index of key k in v's table (from its bucket's first slab, when known), or NOT_FOUND. Claims start at a different lane per thread (to spread
// threads inserting into one bucket), so a key may sit behind an EMPTY slot: the search reads the whole chain.
${atomicSlabs ? FIND_KEY_EACH : FIND_KEY_WHOLE_SLAB}
`;
}
