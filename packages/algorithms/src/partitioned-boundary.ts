import {
  atomic,
  type DeviceArray,
  load,
  onTarget,
  plus,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import type { GraphPart, PartitionedGraph } from '@weft/graph';
import { transformScanTo } from '@weft/scan';

/** One other part's run of a part's id list: `count` ids from `at`, the same run in what crosses the host. */
export interface Segment {
  /** The other part: the receiver of a sent run, the sender of a received one. */
  readonly part: number;
  readonly at: number;
  readonly count: number;
}

/**
 * The vertices whose values one part sends to each other part and receives from each, as sorted id lists
 * on its device: a sent run gathers values into what the host copies, a received run scatters them back
 * by the same ids on the receiving device. Made once a run by {@link boundaryLists}.
 */
export interface BoundaryLists {
  /** The ids whose values this part sends, one run per receiving part, in part order. */
  readonly sendIds: DeviceArray<'u32'>;
  readonly send: readonly Segment[];
  /** The ids of the values this part receives, one run per sending part, in part order. */
  readonly recvIds: DeviceArray<'u32'>;
  readonly recv: readonly Segment[];
  readonly sendCount: number;
  readonly recvCount: number;
  /** Per sent run, the host bitmap its ids were compacted from and the run's first word there, so the host
   * can count a run's ids below a vertex without the ids ({@link sentBelow}). */
  readonly sendMarks: readonly { readonly bits: Uint32Array; readonly from: number }[];
}

/**
 * Per part, which values cross to and from each other part for a vertex-value exchange that reads values
 * along arcs: `'sources'` (undirected PageRank's pull) sends the owned vertices that another part's arcs
 * reach, for it to read as sources; `'targets'` (directed PageRank's partial sums) sends the other parts'
 * vertices that this part's arcs reach, for their owners to add up. Each part marks the other parts'
 * vertices its arcs reach in a bitmap (one pass over its arcs); every bitmap goes through the host once, and
 * both ends of each pair compact the same words into the same sorted ids, so no id list crosses the host.
 */
export async function boundaryLists(
  graph: PartitionedGraph,
  reads: 'sources' | 'targets',
): Promise<BoundaryLists[]> {
  const words = Math.ceil(graph.vertexCount / 32);
  const parts = graph.parts;
  const ranges = parts.map((p) => ownedWords(p, words));
  const onDevice: DeviceArray<'u32'>[] = [];
  try {
    for (const p of parts) {
      onDevice.push(p.graph.device.array('u32', Math.max(1, words), { label: 'partitioned boundary marks' }));
    }
    const marks = await Promise.all(parts.map((p, x) => markRemoteTargets(p, onDevice[x]!, words)));
    // reached[a][b]: how many of b's vertices a's arcs reach.
    const reached = marks.map((m) => ranges.map(([from, to]) => popcountWords(m, from, to)));
    const settled = await Promise.allSettled(
      parts.map((p, x) => {
        // Own marks over another part's words: the ids this part reaches there; another part's marks over
        // this part's words: the owned ids it reaches.
        const own = others(parts.length, x).map((y) => ({
          part: y,
          count: reached[x]![y]!,
          words: ranges[y]!,
        }));
        const theirs = others(parts.length, x).map((y) => ({
          part: y,
          count: reached[y]![x]!,
          words: ranges[x]!,
        }));
        const [send, recv] = reads === 'sources' ? [theirs, own] : [own, theirs];
        return makeLists(p, x, onDevice[x]!, marks, send, recv, reads === 'sources' ? 'recv' : 'send');
      }),
    );
    const made = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) {
      for (const b of made) destroyLists(b);
      throw failed.reason;
    }
    return made;
  } finally {
    for (const m of onDevice) m.destroy();
  }
}

export function destroyLists(b: BoundaryLists): void {
  b.sendIds.destroy();
  b.recvIds.destroy();
}

/**
 * How many of the ids of `b`'s sent run `k` lie below `v` (a multiple of 32, or past the run's vertices): a
 * run is sorted by id, so the ids of a row range `[a, v)` are the run's entries from `sentBelow(a)` on.
 */
export function sentBelow(b: BoundaryLists, k: number, v: number): number {
  const { bits, from } = b.sendMarks[k]!;
  const to = Math.min(bits.length, Math.ceil(v / 32));
  return to > from ? Math.min(b.send[k]!.count, popcountWords(bits, from, to)) : 0;
}

/** Where the values that `sender` sends to `receiver` lie among the sender's sent values. */
export function sentAt(lists: readonly BoundaryLists[], sender: number, receiver: number): Segment {
  return lists[sender]!.send.find((s) => s.part === receiver)!;
}

interface Run {
  part: number;
  count: number;
  words: readonly [number, number];
}

/**
 * A part's id lists: the `ownSide` runs compacted from its own marks (`mine`, on its device), the others from
 * the other parts' marks over its own words, uploaded here.
 */
async function makeLists(
  p: GraphPart,
  self: number,
  mine: DeviceArray<'u32'>,
  marks: readonly Uint32Array[],
  send: Run[],
  recv: Run[],
  ownSide: 'send' | 'recv',
): Promise<BoundaryLists> {
  const { device } = p.graph;
  const total = (runs: Run[]) => runs.reduce((a, r) => a + r.count, 0);
  const sendCount = total(send);
  const recvCount = total(recv);
  const sendIds = device.array('u32', Math.max(1, sendCount), { label: 'partitioned boundary sent ids' });
  const recvIds = device.array('u32', Math.max(1, recvCount), { label: 'partitioned boundary received ids' });
  const [from, to] = ownedWords(p, marks[0]!.length);
  const theirRuns = ownSide === 'send' ? recv : send;
  const theirs = device.array('u32', Math.max(1, theirRuns.length * (to - from)), {
    label: 'partitioned boundary their marks',
  });
  try {
    theirRuns.forEach((r, k) => {
      if (to > from) theirs.upload(marks[r.part]!.subarray(from, to), k * (to - from));
    });
    const segments = (runs: Run[]): Segment[] => {
      let at = 0;
      return runs.map((r) => {
        const s = { part: r.part, at, count: r.count };
        at += r.count;
        return s;
      });
    };
    const sendSegs = segments(send);
    const recvSegs = segments(recv);
    await onTarget(device, 'partitioned boundary lists', async (rec) => {
      for (const [side, runs, segs, ids] of [
        ['send', send, sendSegs, sendIds],
        ['recv', recv, recvSegs, recvIds],
      ] as const) {
        for (const [k, r] of runs.entries()) {
          const [a, b] = r.words;
          const at = segs[k]!.at;
          if (side === ownSide) await recordBitIds(rec, mine, a, b - a, a, ids, at);
          else await recordBitIds(rec, theirs, k * (b - a), b - a, a, ids, at);
        }
      }
    });
    await device.idle();
    const sendMarks = send.map((r) => ({
      bits: ownSide === 'send' ? marks[self]! : marks[r.part]!,
      from: r.words[0],
    }));
    return { sendIds, send: sendSegs, recvIds, recv: recvSegs, sendCount, recvCount, sendMarks };
  } catch (e) {
    sendIds.destroy();
    recvIds.destroy();
    throw e;
  } finally {
    theirs.destroy();
  }
}

/** Marks, in a bitmap of every vertex, the other parts' vertices that the part's arcs reach; read back. */
async function markRemoteTargets(
  p: GraphPart,
  marks: DeviceArray<'u32'>,
  words: number,
): Promise<Uint32Array> {
  const { device, chunkedTargets: targets, edgeCount } = p.graph;
  const rec = device.recorder({ label: 'partitioned boundary marks' });
  await onTarget(rec, 'partitioned boundary marks', async (r) => {
    r.clear(marks);
    const bits = atomic(marks);
    // A load before the atomic: most arcs reach a vertex already marked (hubs), and loads are cheaper.
    await transform(
      r,
      edgeCount,
      wgsl`(k: u32) {
  let t = ${load(targets, 'k')};
  if (t >= ${u32(p.lo)} && t < ${u32(p.hi)}) { return; }
  let bit = 1u << (t & 31u);
  if ((atomicLoad(&${bits}[t >> 5u]) & bit) == 0u) { atomicOr(&${bits}[t >> 5u], bit); }
}`,
    );
  });
  const { downloaded } = await rec.submit({ download: marks });
  return downloaded.subarray(0, words);
}

/** ids from `ids[at]` = the set bits of `count` words of `bits` from `from`, word 0 being vertex word `first`. */
async function recordBitIds(
  rec: Recorder,
  bits: DeviceArray<'u32'>,
  from: number,
  count: number,
  first: number,
  ids: DeviceArray<'u32'>,
  at: number,
): Promise<void> {
  if (count === 0) return;
  await transformScanTo(
    rec,
    count,
    wgsl`(w: u32) -> u32 { return countOneBits(${bits}[${u32(from)} + w]); }`,
    wgsl`(w: u32, k: u32, c: u32) {
  var left = ${bits}[${u32(from)} + w];
  var j = ${u32(at)} + k;
  let base = (${u32(first)} + w) * 32u;
  while (left != 0u) {
    ${rw(ids)}[j] = base + weft_trailing_zeros(left);
    j++;
    left &= left - 1u;
  }
}`,
    { monoid: plus('u32') },
  );
}

function others(count: number, x: number): number[] {
  return Array.from({ length: count }, (_, i) => i).filter((i) => i !== x);
}

/** The bitmap words `[from, to)` of a part's owned vertices (whole words: boundaries are multiples of 32). */
export function ownedWords(p: { lo: number; hi: number }, words: number): [number, number] {
  if (p.lo === p.hi) return [0, 0];
  return [Math.min(words, p.lo >>> 5), Math.min(words, Math.ceil(p.hi / 32))];
}

/** Set bits in `bits[from, to)`. */
export function popcountWords(bits: Uint32Array, from: number, to: number): number {
  let n = 0;
  for (let w = from; w < to; w++) {
    let v = bits[w]!;
    if (v === 0) continue;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
  }
  return n;
}
