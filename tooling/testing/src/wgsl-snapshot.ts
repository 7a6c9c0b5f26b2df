import type { WeftDevice } from '@weft/gpu';
import { testSubgroups } from './device.ts';

/**
 * The snapshot file (relative to a test in `src/`) of `name`'s WGSL on the test device: the paths without
 * subgroups (`WEFT_TEST_SUBGROUPS=0`, or a `device` without the feature, as on wgpu) generate other kernels,
 * kept in their own `NAME.no-subgroups.wgsl`.
 */
export function wgslSnapshotFile(name: string, device?: WeftDevice): string {
  const subgroups = device ? device.hasSubgroups : testSubgroups();
  return `./__snapshots__/${name}${subgroups ? '' : '.no-subgroups'}.wgsl`;
}

/**
 * Records the WGSL of every shader module `device` creates from now on, for snapshot tests: a change to a
 * shared WGSL helper then shows in review as a diff of the committed snapshot. Call it before the first
 * kernel runs on the device (Weft caches compiled kernels per device, so a kernel compiled earlier is not
 * created again). The code may depend on the adapter (subgroup sizes, limits): snapshots are for the CI
 * adapter (lavapipe).
 */
export function recordShaders(device: WeftDevice): { readonly text: () => string } {
  const gpu = device.device;
  const original = gpu.createShaderModule.bind(gpu);
  const modules = new Map<string, { label: string; code: string }>();
  gpu.createShaderModule = (descriptor: GPUShaderModuleDescriptor): GPUShaderModule => {
    const label = descriptor.label ?? '(no label)';
    modules.set(`${label}\u0000${descriptor.code}`, { label, code: descriptor.code });
    return original(descriptor);
  };
  return {
    // Sorted by label, then code, so the order kernels first ran in does not matter.
    text: () =>
      [...modules.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, m]) => `// ===== kernel: ${m.label} =====\n${m.code.trim()}\n`)
        .join('\n'),
  };
}
