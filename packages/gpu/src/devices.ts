import { checkOptionsObject } from './checks.ts';
import { type RequestDeviceOptions, requestDevice, type WeftDevice } from './device.ts';
import { InputError, NoAdapterError } from './errors.ts';
import { deviceSelectLayerActive, listGpus, MISSING_LAYER, normalizePciBusId } from './gpu-placement.ts';

export interface RequestDevicesOptions extends Omit<RequestDeviceOptions, 'pciBusId'> {
  /** How many devices (default: one per GPU found, at least one). */
  count?: number;
  /** The GPUs to use, by PCI address, in order (default: every GPU found, in address order). */
  pciBusIds?: readonly string[];
  /**
   * Where fewer GPUs than `count` are found (a one-GPU host, a CPU adapter in tests), open the rest on the
   * default adapter rather than failing: each device is separate, but they share the hardware.
   */
  shareAdapter?: boolean;
}

/**
 * One device per GPU, for work partitioned across GPUs: device `i` is pinned to the `i`-th GPU by PCI
 * address (its `adapter.pciBusId` says which). In Node on Linux this uses Mesa's device-select Vulkan layer
 * (package `mesa-vulkan-drivers`), since Dawn cannot tell two GPUs of one model apart by name; elsewhere,
 * or with `shareAdapter`, devices beyond the GPUs found come from the default adapter.
 *
 * Errors: `InputError` for a bad `count` or address; `NoAdapterError` where fewer GPUs than `count` are
 * found without `shareAdapter`, or several are found but the layer that tells them apart is missing.
 */
export async function requestDevices(options: RequestDevicesOptions = {}): Promise<WeftDevice[]> {
  checkOptionsObject('requestDevices', options);
  const { count: wanted, pciBusIds, shareAdapter = false, ...deviceOptions } = options;
  const gpus = pciBusIds ? pciBusIds.map(normalizePciBusId) : listGpus();
  const count = wanted ?? Math.max(1, gpus.length);
  if (!Number.isInteger(count) || count < 1) {
    throw new InputError(`count must be a positive integer, got ${wanted}`, 'count');
  }
  const pinned = gpus.slice(0, count);
  if (pinned.length < count && !shareAdapter) {
    throw new NoAdapterError(
      `${count} devices asked for but ${gpus.length} GPU${gpus.length === 1 ? '' : 's'} found; pass shareAdapter: true to open several devices on one adapter`,
    );
  }
  // One device on the default GPU needs no pinning; several, or ones named by address, need the layer.
  const pin = pinned.length > 0 && (pinned.length > 1 || pciBusIds !== undefined);
  if (pin && !deviceSelectLayerActive()) throw new NoAdapterError(MISSING_LAYER);
  const label = deviceOptions.label ?? 'weft';
  const devices: WeftDevice[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const at = pin ? pinned[i] : undefined;
      devices.push(
        await requestDevice({
          ...deviceOptions,
          label: `${label} ${i}`,
          ...(at === undefined ? {} : { pciBusId: at }),
        }),
      );
    }
  } catch (e) {
    for (const d of devices) d.destroy();
    throw e;
  }
  return devices;
}
