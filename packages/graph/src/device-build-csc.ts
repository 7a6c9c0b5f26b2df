import { type DeviceArray, type Recorder, rw, transform, wgsl } from '@weft/gpu';
import { sortPairs } from '@weft/sort';
import { idBitsFor, lowerBound } from './device-build-passes.ts';
import type { DeviceCsc } from './device-graph.ts';

export interface CscSource {
  vertexCount: number;
  edgeCount: number;
  offsets: DeviceArray<'u32'>;
  targets: DeviceArray<'u32'>;
  /** The source of every CSR edge, when at hand (a build has it); else found by search in `offsets`. */
  edgeSources?: DeviceArray<'u32'>;
}

/**
 * Records the in-edge view of a device CSR, as {@link hostCscFromCsr} builds it on the host: a stable sort of
 * the edge ids by target (CSR order is by source, so each vertex's in-edges keep ascending sources), then the
 * sources gathered through the ids and the offsets by lower bound. The returned arrays belong to the caller.
 */
export async function recordCsc(rec: Recorder, g: CscSource): Promise<DeviceCsc> {
  const { device } = rec;
  const n = g.vertexCount;
  const m = g.edgeCount;
  const csc: DeviceCsc = {
    inOffsets: device.array('u32', n + 1, { label: 'graph in-edge offsets' }),
    sources: device.array('u32', m, { label: 'graph in-edge sources' }),
    inEdgeIds: device.array('u32', m, { label: 'graph in-edge ids' }),
  };
  try {
    if (m === 0) {
      rec.clear(csc.inOffsets);
      return csc;
    }
    const keys = rec.scratch('u32', m, 'csc sort keys');
    rec.copy(g.targets, keys, m);
    await transform(rec, m, wgsl`(e: u32) { ${rw(csc.inEdgeIds)}[e] = e; }`);
    await sortPairs(rec, keys, csc.inEdgeIds, { bits: Math.max(1, idBitsFor(n)) });
    const sourceOf =
      g.edgeSources === undefined
        ? wgsl`(e: u32) -> u32 { return ${lowerBound(g.offsets, n + 1)}(e + 1u) - 1u; }`
        : wgsl`(e: u32) -> u32 { return ${g.edgeSources}[e]; }`;
    await transform(rec, m, wgsl`(k: u32) { ${rw(csc.sources)}[k] = ${sourceOf}(${csc.inEdgeIds}[k]); }`);
    await transform(rec, n + 1, wgsl`(v: u32) { ${rw(csc.inOffsets)}[v] = ${lowerBound(keys, m)}(v); }`);
    return csc;
  } catch (e) {
    csc.inOffsets.destroy();
    csc.sources.destroy();
    csc.inEdgeIds.destroy();
    throw e;
  }
}
