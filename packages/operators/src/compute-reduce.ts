import { type Functor, InputError, type Monoid, onTarget, type Target } from '@weft/gpu';

const WORKGROUP = 256;
/** Vertices a thread visits: few enough workgroups that one finishing workgroup folds their partials fast. */
const ITEMS = 4;

/**
 * Compute over every vertex `0 .. n` with two f32 reductions in the same pass: `f(v: u32) -> vec2<f32>`
 * runs once per vertex (its writes as `compute`'s) and returns two terms, combined by `monoids[0]` and
 * `monoids[1]`; then `finish(a: f32, b: f32)` runs once, on one thread, with the two totals (each the
 * identity when `n` is 0). Two dispatches in all, where a compute and two `reduce`s take five and read the
 * terms back from memory: a power iteration's update, its residual and its dangling mass.
 */
export async function computeReduce(
  target: Target,
  n: number,
  f: Functor,
  monoids: readonly [Monoid<'f32'>, Monoid<'f32'>],
  finish: Functor,
): Promise<void> {
  const who = 'computeReduce';
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new InputError(`n must be an integer in [0, 2^32), got ${n}`, who);
  }
  for (const m of monoids) {
    if (m.type !== 'f32') throw new InputError(`its monoids must be f32, got ${m.type}`, who);
  }
  const groups = Math.max(1, Math.ceil(n / (WORKGROUP * ITEMS)));
  await onTarget(target, who, async (rec) => {
    const kernel = await rec.device.kernel({
      label: 'compute reduce',
      params: { n: 'u32', groups: 'u32' },
      bindings: { partials: { type: 'array<vec2<f32>>', access: 'read_write' } },
      functors: {
        weft_op: f,
        weft_first: monoids[0].combine,
        weft_second: monoids[1].combine,
        weft_finish: finish,
      },
      code: /* wgsl */ `
var<workgroup> wg: array<vec2<f32>, ${WORKGROUP}>;

fn combine(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(weft_first(a.x, b.x), weft_second(a.y, b.y));
}

fn fold(lid: u32, mine: vec2<f32>) -> vec2<f32> {
  wg[lid] = mine;
  workgroupBarrier();
  for (var s = ${WORKGROUP / 2}u; s > 0u; s >>= 1u) {
    if (lid < s) { wg[lid] = combine(wg[lid], wg[lid + s]); }
    workgroupBarrier();
  }
  return wg[0];
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = weft_workgroup_index(wid, nwg);
  var acc = vec2<f32>(${monoids[0].identity}, ${monoids[1].identity});
  for (var k = 0u; k < ${ITEMS}u; k++) {
    let v = (g * ${ITEMS}u + k) * ${WORKGROUP}u + lid;
    if (v < params.n) { acc = combine(acc, weft_op(v)); }
  }
  let total = fold(lid, acc);
  if (lid == 0u) { partials[g] = total; }
}

@compute @workgroup_size(${WORKGROUP})
fn finish(@builtin(local_invocation_index) lid: u32) {
  var acc = vec2<f32>(${monoids[0].identity}, ${monoids[1].identity});
  for (var g = lid; g < params.groups; g += ${WORKGROUP}u) { acc = combine(acc, partials[g]); }
  let total = fold(lid, acc);
  if (lid == 0u) { weft_finish(total.x, total.y); }
}`,
      entryPoints: ['main', 'finish'],
    });
    const bindings = { partials: rec.scratch('f32', 2 * groups, 'compute reduce partials') };
    if (n > 0) rec.dispatch(kernel, { entry: 'main', bindings, params: { n, groups }, workgroups: groups });
    // With no vertices the finishing workgroup folds no partials: both totals are the identities.
    const folded = { n, groups: n > 0 ? groups : 0 };
    rec.dispatch(kernel, { entry: 'finish', bindings, params: folded, workgroups: [1, 1, 1] });
  });
}
