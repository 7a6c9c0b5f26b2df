import { InputError } from './errors.ts';

/**
 * Pinning a device to one of several GPUs in Node. Dawn lists every Vulkan device but picks the first whose
 * name matches, so two GPUs of one model cannot be told apart through its options. Mesa's device-select
 * Vulkan layer moves the GPU named by `DRI_PRIME=pci-DDDD_BB_DD_F` to the front of Vulkan's list, and Dawn
 * reads that list when an instance first requests an adapter: setting the variable around that request
 * pins the device.
 */

interface NodeProcess {
  env: Record<string, string | undefined>;
  getBuiltinModule?: (name: string) => unknown;
}

interface NodeFs {
  existsSync(path: string): boolean;
  readdirSync(path: string): string[];
  readFileSync(path: string, encoding: 'utf8'): string;
}

function nodeProcess(): NodeProcess | undefined {
  return (globalThis as { process?: NodeProcess }).process;
}

function nodeFs(): NodeFs | undefined {
  return nodeProcess()?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
}

const PCI_ADDRESS = /^(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})\.([0-7])$/i;

/** `'00000000:00:07.0'` (nvidia-smi), `'0000:00:07.0'` (lspci -D) or `'00:07.0'` as `'0000:00:07.0'`. */
export function normalizePciBusId(id: string): string {
  const m = PCI_ADDRESS.exec(String(id).trim());
  if (!m) {
    throw new InputError(`'${id}' is not a PCI address like '0000:00:07.0'`, 'pciBusId');
  }
  const hex = (s: string | undefined, width: number) =>
    Number.parseInt(s ?? '0', 16)
      .toString(16)
      .padStart(width, '0');
  if (Number.parseInt(m[1] ?? '0', 16) > 0xffff) {
    throw new InputError(`'${id}' has a PCI domain above ffff`, 'pciBusId');
  }
  return `${hex(m[1], 4)}:${hex(m[2], 2)}:${hex(m[3], 2)}.${m[4]}`;
}

/** The device-select layer's tag for a normalized address: `'pci-0000_00_07_0'`. */
export function driPrimeTag(id: string): string {
  return `pci-${id.replace(/[:.]/g, '_')}`;
}

/**
 * The PCI addresses of the host's GPUs (display controllers), in address order; empty outside Node on Linux
 * and on hosts whose only adapter is a CPU one.
 */
export function listGpus(): string[] {
  const fs = nodeFs();
  const root = '/sys/bus/pci/devices';
  if (!fs?.existsSync(root)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(root)) {
    try {
      if (fs.readFileSync(`${root}/${entry}/class`, 'utf8').trim().startsWith('0x03')) {
        found.push(normalizePciBusId(entry));
      }
    } catch {
      // An entry without a readable class is not a device we can use.
    }
  }
  return found.sort();
}

const LAYER = 'VK_LAYER_MESA_device_select';
const LAYER_MANIFEST = 'VkLayer_MESA_device_select.json';

/** Whether Vulkan loads Mesa's device-select layer in this process (implicitly or through the environment). */
export function deviceSelectLayerActive(): boolean {
  const env = nodeProcess()?.env ?? {};
  if ((env['VK_INSTANCE_LAYERS'] ?? '').split(':').includes(LAYER)) return true;
  if (env['NODEVICE_SELECT'] === '1') return false;
  const fs = nodeFs();
  if (!fs) return false;
  const home = env['HOME'] ?? '';
  const dirs = [
    ...(env['VK_ADD_IMPLICIT_LAYER_PATH'] ?? '').split(':'),
    ...(env['VK_IMPLICIT_LAYER_PATH'] ?? '').split(':'),
    `${env['XDG_CONFIG_HOME'] ?? `${home}/.config`}/vulkan/implicit_layer.d`,
    '/etc/xdg/vulkan/implicit_layer.d',
    '/etc/vulkan/implicit_layer.d',
    `${env['XDG_DATA_HOME'] ?? `${home}/.local/share`}/vulkan/implicit_layer.d`,
    '/usr/local/share/vulkan/implicit_layer.d',
    '/usr/share/vulkan/implicit_layer.d',
  ];
  return dirs.some((d) => d !== '' && fs.existsSync(`${d}/${LAYER_MANIFEST}`));
}

const MISSING_LAYER =
  "pinning a device to a GPU needs Mesa's device-select Vulkan layer: install mesa-vulkan-drivers, or set VK_ADD_LAYER_PATH to its folder and VK_INSTANCE_LAYERS=VK_LAYER_MESA_device_select";

/** Runs `request` (an instance's first adapter request) with Vulkan's list led by the GPU at `pciBusId`. */
export async function pinnedTo<T>(pciBusId: string | undefined, request: () => Promise<T>): Promise<T> {
  if (pciBusId === undefined) return request();
  const id = normalizePciBusId(pciBusId);
  const gpus = listGpus();
  if (!gpus.includes(id)) {
    throw new InputError(
      `no GPU at PCI address ${id} (found: ${gpus.length > 0 ? gpus.join(', ') : 'none'})`,
      'pciBusId',
    );
  }
  if (!deviceSelectLayerActive()) throw new InputError(MISSING_LAYER, 'pciBusId');
  const env = nodeProcess()!.env;
  const before = env['DRI_PRIME'];
  env['DRI_PRIME'] = driPrimeTag(id);
  try {
    return await request();
  } finally {
    if (before === undefined) delete env['DRI_PRIME'];
    else env['DRI_PRIME'] = before;
  }
}

export { MISSING_LAYER };
