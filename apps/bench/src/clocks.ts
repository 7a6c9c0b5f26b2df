import type { DeviceArray, Kernel, WeftDevice } from '@weft/gpu';

/**
 * Host work longer than this before a timed submit (recording runs, rebuilding a case's state) leaves the GPU
 * idle long enough to lower its clocks.
 */
export const IDLE_MS = 10;

/** GPU work queued ahead of such a submit, so that it starts at the clocks sustained work runs at. */
const WARMUP_MS = 150;

const ELEMENTS = 2 ** 26;
const PER_THREAD = 8;
const WORKGROUP = 256;

interface Spinner {
  kernel: Kernel;
  array: DeviceArray<'u32'>;
  dispatches: number;
}

const spinners = new WeakMap<WeftDevice, Promise<Spinner>>();

async function spinner(device: WeftDevice): Promise<Spinner> {
  const kernel = await device.kernel({
    label: 'bench clock warm-up',
    bindings: { data: { type: 'array<u32>', access: 'read_write' } },
    code: /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * ${WORKGROUP}u;
  for (var k = 0u; k < ${PER_THREAD}u; k++) {
    let i = g.x + k * stride;
    data[i] = data[i] * 3u + 1u;
  }
}`,
  });
  const array = device.array('u32', ELEMENTS, { label: 'bench clock warm-up' });
  const s: Spinner = { kernel, array, dispatches: 16 };
  // Calibrated twice: the first timing may itself run at low clocks.
  for (let round = 0; round < 2; round++) {
    const rec = device.recorder({ label: 'bench clock calibration', timing: true });
    record(rec, s);
    const r = await rec.submit();
    const perDispatch = r.gpuNs !== undefined ? r.gpuNs / 1e6 / s.dispatches : 0.2;
    s.dispatches = Math.max(16, Math.min(4096, Math.ceil(WARMUP_MS / Math.max(perDispatch, 1e-3))));
  }
  return s;
}

function record(rec: ReturnType<WeftDevice['recorder']>, s: Spinner) {
  const workgroups = ELEMENTS / PER_THREAD / WORKGROUP;
  for (let i = 0; i < s.dispatches; i++) rec.dispatch(s.kernel, { bindings: { data: s.array }, workgroups });
}

/**
 * Queues about 150 ms of memory-bound GPU work without waiting for it, so that the submit that follows runs
 * at sustained clocks although the host kept the GPU idle before it. Not on software adapters (their
 * clocks do not move, and the work would cost real time).
 */
export async function queueClockWarmup(device: WeftDevice): Promise<void> {
  if (device.adapter.software) return;
  let s = spinners.get(device);
  if (!s) {
    s = spinner(device);
    spinners.set(device, s);
  }
  const rec = device.recorder({ label: 'bench clock warm-up' });
  record(rec, await s);
  await rec.submit({ wait: false });
}
