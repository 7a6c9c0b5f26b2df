import {
  atomic,
  checkOptionsObject,
  type Functor,
  load,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, deviceGraphFromEdgeList } from '@weft/graph';
import { enact } from '@weft/operators';
import { sortPairs } from '@weft/sort';
import { graphColoring } from './coloring.ts';
import type { RunOptions } from './common.ts';
import { edgeSource, idBits, recordRuns } from './community-gpu.ts';
import { CommunityWeights } from './community-hash.ts';
import {
  checkLabelPropagationOptions,
  denseLabels,
  type LabelPropagationOptions,
  type LabelPropagationResult,
} from './community-reference.ts';

/**
 * A colour class of at most this many vertices is counted by one workgroup per vertex in one dispatch;
 * larger ones by a thread per arc in four. Kronecker graphs' many late classes are few vertices of high
 * degree, where dispatches, not work, set the time.
 */
const WORKGROUP_CLASS_MAX = 4096;
/** Threads of a workgroup that counts one vertex's labels. */
const VERTEX_WORKGROUP = 128;

/** One colour class: its arcs `[arcStart, arcEnd)` in colour order and its vertices `[vertexStart, vertexEnd)`. */
interface ColourClass {
  arcStart: number;
  arcEnd: number;
  vertexStart: number;
  vertexEnd: number;
}

/**
 * Semi-synchronous label propagation on the GPU, with `labelPropagationReference`'s (networkx's) semantics
 * on the colour classes of {@link graphColoring}. The simple undirected graph (parallel edges merged, loops
 * kept, directed arcs both ways) is built once on the GPU and its arcs sorted by the colour of their source,
 * so each class's arcs are one range. Per class, each vertex counts its neighbours' labels in a hash table
 * of twice its degree (one workgroup per vertex for a class of few vertices, else a thread per arc), takes
 * the highest count and the largest label reaching it, and keeps its own label when that reaches it; with
 * `counting: 'sort'`, a stable sort of the class's arcs by label makes the (vertex, label) runs whose
 * lengths are the counts. One read-back of the changed count per sweep (the enactor's status).
 */
export async function labelPropagation(
  graph: DeviceGraph,
  options: LabelPropagationOptions & RunOptions = {},
): Promise<LabelPropagationResult> {
  checkOptionsObject('labelPropagation', options);
  checkDeviceGraph(graph);
  const { maxIterations, seed, counting } = checkLabelPropagationOptions(options);
  const device = graph.device;
  const n = graph.vertexCount;
  const m = graph.edgeCount;
  const undirected = graph.directed;
  if (m === 0) {
    return {
      ...denseLabels(Uint32Array.from({ length: n }, (_, i) => i)),
      iterations: 1,
      converged: true,
      undirected,
    };
  }
  const made: { destroy(): void }[] = [];
  const arr = (length: number, label: string) => {
    const a = device.array('u32', Math.max(1, length), { label: `label propagation ${label}` });
    made.push(a);
    return a;
  };
  try {
    const inSrc = arr(m, 'input sources');
    const inDst = arr(m, 'input targets');
    let rec = device.recorder({ label: 'label propagation edges' });
    const sourceOf = edgeSource(graph);
    await transform(
      rec,
      m,
      wgsl`(e: u32) { ${rw(inSrc)}[e] = ${sourceOf}(e); ${rw(inDst)}[e] = ${load(graph.chunkedTargets, 'e')}; }`,
    );
    await rec.submit();
    const { graph: simple } = await deviceGraphFromEdgeList(
      device,
      { src: inSrc, dst: inDst, vertexCount: n, directed: false },
      { keepSelfLoops: true, dedupe: 'first' },
    );
    made.push(simple);
    const arcs = simple.edgeCount;
    const { colors } = await graphColoring(simple, { seed });
    const offsets = await simple.offsets.download(0, n + 1);
    const classes = colourClasses(colors, offsets);
    const classVerts = arr(n, 'class vertices').upload(classes.vertices);
    const colourArr = arr(n, 'colours').upload(colors);
    const csrc = arr(arcs, 'class sources');
    const cdst = arr(arcs, 'class targets');
    const keys = arr(arcs, 'keys');
    const vals = arr(arcs, 'values');
    const label = arr(n, 'labels');
    const bestCount = arr(n, 'best count');
    const bestLabel = arr(n, 'best label');
    const own = arr(n, 'own label is best');
    const counts = arr(2, 'counts');
    const firstArc = arr(n, 'first arcs');
    // The tables need twice the arcs in one binding: beyond that, unless asked for, the sort path runs.
    const tablesFit = 2 * arcs * 4 <= device.limits.maxStorageBufferBindingSize!;
    let table: CommunityWeights | undefined;
    if (counting === 'hash' || (counting === undefined && tablesFit)) {
      table = new CommunityWeights(device, arcs);
      made.push(table);
    }
    // Run starts serve only the sort path.
    const starts = arr(table ? 1 : arcs, 'run starts');

    // Arcs of the simple graph grouped by the colour of their source (stable: by source within a class).
    rec = device.recorder({ label: 'label propagation classes' });
    const simpleSource = edgeSource(simple);
    await transform(
      rec,
      arcs,
      wgsl`(e: u32) { ${rw(keys)}[e] = ${colourArr}[${simpleSource}(e)]; ${rw(vals)}[e] = e; }`,
    );
    await sortPairs(rec, keys, vals, { count: arcs, bits: idBits(classes.colourBound) });
    await transform(
      rec,
      arcs,
      wgsl`(p: u32) {
  let e = ${vals}[p];
  let v = ${simpleSource}(e);
  ${rw(csrc)}[p] = v;
  ${rw(cdst)}[p] = ${load(simple.chunkedTargets, 'e')};
  if (e == ${simple.offsets}[v]) { ${rw(firstArc)}[v] = p; }
}`,
    );
    await rec.submit();

    const runs = { array: counts, index: 1 };
    const changed = { array: counts, index: 0 };
    /** A vertex's arcs in class order: its class's arcs are grouped by source, so they are contiguous. */
    const rowOf = wgsl`(v: u32) -> vec2<u32> {
  let first = ${firstArc}[v];
  return vec2<u32>(first, first + ${simple.offsets}[v + 1u] - ${simple.offsets}[v]);
}`;
    const recordClass = async (r: Recorder, c: ColourClass) => {
      const count = c.arcEnd - c.arcStart;
      const vertices = c.vertexEnd - c.vertexStart;
      if (table && vertices <= WORKGROUP_CLASS_MAX) {
        await recordClassByWorkgroups(r, table, vertices, {
          vertex: wgsl`(i: u32) -> vec3<u32> {
  let v = ${classVerts}[i + ${u32(c.vertexStart)}];
  return vec3<u32>(v, ${firstArc}[v], ${simple.offsets}[v + 1u] - ${simple.offsets}[v]);
}`,
          neighbourLabel: wgsl`(a: u32) -> u32 { return ${label}[${cdst}[a]]; }`,
          ownLabel: wgsl`(v: u32) -> u32 { return ${label}[v]; }`,
          finish: wgsl`(v: u32, l: u32) {
  ${rw(label)}[v] = l;
  atomicAdd(&${atomic(counts)}[0], 1u);
}`,
        });
        return;
      }
      if (table) {
        // A vertex's table counts each neighbouring label (loops included: a vertex is its own neighbour).
        const classArcs = { count, offset: c.arcStart, src: csrc, dst: cdst };
        await table.recordSums(r, classArcs, rowOf, label, undefined, true);
        await table.recordScore(
          r,
          classArcs,
          wgsl`(sum: f32, v: u32, l: u32) -> u32 {
  let f = u32(sum);
  atomicMax(&${atomic(bestCount)}[v], f);
  return f;
}`,
        );
        await table.recordPick(
          r,
          classArcs,
          wgsl`(f: u32, v: u32, l: u32) {
  if (f == atomicLoad(&${atomic(bestCount)}[v])) {
    atomicMax(&${atomic(bestLabel)}[v], l);
    if (l == ${label}[v]) { ${rw(own)}[v] = 1u; }
  }
}`,
        );
      } else {
        await transform(
          r,
          count,
          wgsl`(p: u32) { let a = p + ${u32(c.arcStart)}; ${rw(keys)}[p] = ${label}[${cdst}[a]]; ${rw(vals)}[p] = a; }`,
        );
        await sortPairs(r, keys, vals, { count, bits: idBits(n) });
        await recordRuns(
          r,
          count,
          wgsl`(p: u32) -> bool { return ${keys}[p] != ${keys}[p - 1u] || ${csrc}[${vals}[p]] != ${csrc}[${vals}[p - 1u]]; }`,
          starts,
          runs,
        );
        const run = wgsl`(s: u32) -> vec3<u32> {
  let p = ${starts}[s];
  let end = select(${u32(count)}, ${starts}[s + 1u], s + 1u < ${counts}[1]);
  return vec3<u32>(${csrc}[${vals}[p]], ${keys}[p], end - p);
}`;
        await transform(
          r,
          runs,
          wgsl`(s: u32) { let x = ${run}(s); atomicMax(&${atomic(bestCount)}[x.x], x.z); }`,
        );
        await transform(
          r,
          runs,
          wgsl`(s: u32) {
  let x = ${run}(s);
  if (x.z == atomicLoad(&${atomic(bestCount)}[x.x])) {
    atomicMax(&${atomic(bestLabel)}[x.x], x.y);
    if (x.y == ${label}[x.x]) { ${rw(own)}[x.x] = 1u; }
  }
}`,
        );
      }
      await transform(
        r,
        c.vertexEnd - c.vertexStart,
        wgsl`(i: u32) {
  let v = ${classVerts}[i + ${u32(c.vertexStart)}];
  if (${bestCount}[v] > 0u && ${own}[v] == 0u) {
    ${rw(label)}[v] = ${bestLabel}[v];
    atomicAdd(&${atomic(counts)}[0], 1u);
  }
  ${rw(bestCount)}[v] = 0u;
  ${rw(bestLabel)}[v] = 0u;
  ${rw(own)}[v] = 0u;
}`,
      );
    };

    rec = device.recorder({ label: 'label propagation reset' });
    await transform(rec, n, wgsl`(v: u32) { ${rw(label)}[v] = v; }`);
    rec.clear(bestCount).clear(bestLabel).clear(own);
    await rec.submit();
    const run = await enact(
      device,
      {
        step: async (r: Recorder) => {
          r.clear(counts);
          for (const c of classes.list) await recordClass(r, c);
        },
        active: () => changed,
      },
      { batch: 1, maxBatch: 1, ...options, maxIterations },
    );
    const dense = await label.read(denseLabels, 0, n);
    return { ...dense, iterations: run.iterations, converged: run.converged, undirected };
  } finally {
    for (const a of made) a.destroy();
  }
}

/** The functors of {@link recordClassByWorkgroups}. */
interface ClassFunctors {
  /** `(i: u32) -> vec3<u32>`: the class's i-th vertex, its first arc in class order and its degree. */
  vertex: Functor;
  /** `(a: u32) -> u32`: the label of arc a's target. */
  neighbourLabel: Functor;
  /** `(v: u32) -> u32`: v's label. */
  ownLabel: Functor;
  /** `(v: u32, l: u32)`: v takes label l. */
  finish: Functor;
}

/**
 * Records one class's update as one dispatch of a workgroup per vertex: its threads insert the neighbours'
 * labels into the vertex's table and count them, then find the highest count and the largest label reaching
 * it (and whether the vertex's own label does) over the table's slots, clearing them, with barriers between.
 * The class's vertices are pairwise non-adjacent, so a workgroup reads no label another one writes (a loop
 * reads the vertex's own, which only its workgroup writes, after the counts).
 */
async function recordClassByWorkgroups(
  rec: Recorder,
  table: CommunityWeights,
  vertices: number,
  f: ClassFunctors,
): Promise<void> {
  table.recordClearOnce(rec);
  const keys = atomic(table.keys);
  const sums = atomic(table.sums);
  const kernel = await rec.device.kernel({
    label: 'label propagation class',
    params: { n: 'u32' },
    functors: {
      weft_vertex: f.vertex,
      weft_insert: wgsl`(first: u32, degree: u32, a: u32) {
  let t = ${table.probe}(${f.neighbourLabel}(first + a) + 1u, 2u * first, 2u * degree);
  if (t != 0xffffffffu) { atomicAdd(&${sums}[t & 0x7fffffffu], 1u); }
}`,
      weft_slot: wgsl`(s: u32) -> vec2<u32> { return vec2<u32>(atomicLoad(&${keys}[s]), atomicLoad(&${sums}[s])); }`,
      weft_clear: wgsl`(s: u32) { atomicStore(&${keys}[s], 0u); atomicStore(&${sums}[s], 0u); }`,
      weft_own: f.ownLabel,
      weft_finish: f.finish,
    },
    code: /* wgsl */ `
var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_label: atomic<u32>;
var<workgroup> wg_own: atomic<u32>;

@compute @workgroup_size(${VERTEX_WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg);
  let live = i < params.n;
  var x = vec3<u32>(0u, 0u, 0u);
  if (live) { x = weft_vertex(i); }
  if (lid == 0u) {
    atomicStore(&wg_count, 0u);
    atomicStore(&wg_label, 0u);
    atomicStore(&wg_own, 0u);
  }
  for (var a = lid; a < x.z; a += ${VERTEX_WORKGROUP}u) { weft_insert(x.y, x.z, a); }
  storageBarrier();
  workgroupBarrier();
  let base = 2u * x.y;
  for (var s = lid; s < 2u * x.z; s += ${VERTEX_WORKGROUP}u) {
    let t = weft_slot(base + s);
    if (t.x != 0u) { atomicMax(&wg_count, t.y); }
  }
  workgroupBarrier();
  let best = atomicLoad(&wg_count);
  var own = 0u;
  if (live) { own = weft_own(x.x); }
  for (var s = lid; s < 2u * x.z; s += ${VERTEX_WORKGROUP}u) {
    let t = weft_slot(base + s);
    if (t.x != 0u) {
      if (t.y == best) {
        atomicMax(&wg_label, t.x - 1u);
        if (t.x - 1u == own) { atomicStore(&wg_own, 1u); }
      }
      weft_clear(base + s);
    }
  }
  workgroupBarrier();
  if (live && lid == 0u && best > 0u && atomicLoad(&wg_own) == 0u) { weft_finish(x.x, atomicLoad(&wg_label)); }
}`,
  });
  rec.dispatch(kernel, { params: { n: vertices }, workgroups: vertices });
}

/**
 * The colour classes in increasing colour order (those with arcs), their vertices in id order, from the
 * colours and the simple graph's offsets; `colourBound` exceeds every colour.
 */
function colourClasses(colors: Uint32Array, offsets: Uint32Array) {
  const n = colors.length;
  let colourBound = 1;
  for (const c of colors) colourBound = Math.max(colourBound, c + 1);
  const vertexCount = new Uint32Array(colourBound + 1);
  const arcCount = new Float64Array(colourBound + 1);
  for (let v = 0; v < n; v++) {
    vertexCount[colors[v]! + 1]!++;
    arcCount[colors[v]! + 1]! += offsets[v + 1]! - offsets[v]!;
  }
  for (let c = 0; c < colourBound; c++) {
    vertexCount[c + 1]! += vertexCount[c]!;
    arcCount[c + 1]! += arcCount[c]!;
  }
  const at = vertexCount.slice(0, colourBound);
  const vertices = new Uint32Array(n);
  for (let v = 0; v < n; v++) vertices[at[colors[v]!]!++] = v;
  const list: ColourClass[] = [];
  for (let c = 0; c < colourBound; c++) {
    if (arcCount[c + 1]! > arcCount[c]!) {
      list.push({
        arcStart: arcCount[c]!,
        arcEnd: arcCount[c + 1]!,
        vertexStart: vertexCount[c]!,
        vertexEnd: vertexCount[c + 1]!,
      });
    }
  }
  return { list, vertices, colourBound };
}
