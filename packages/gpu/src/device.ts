import {
  DeviceArray,
  type DeviceArrayOptions,
  type ElementType,
  elementTypeOf,
  type HostArray,
} from './array.ts';
import { checkOptionsObject } from './checks.ts';
import { allocateChunked, type ChunkedArray, type ChunkedArrayOptions } from './chunked.ts';
import {
  DeviceLimitError,
  DeviceLostError,
  GpuOutOfMemoryError,
  GpuValidationError,
  InputError,
  NoAdapterError,
  ShaderCompileError,
  WeftError,
} from './errors.ts';
import { functorShape } from './functor.ts';
import { normalizePciBusId, pinnedTo } from './gpu-placement.ts';
import { generateKernel, Kernel, type KernelDefinition } from './kernel.ts';
import { BufferPool } from './pool.ts';
import { Recorder, type RecorderOptions } from './recorder.ts';

/** Limits that Weft's primitives benefit from; each is requested at the adapter's maximum. */
const WANTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxBindingsPerBindGroup',
] as const;

const WANTED_FEATURES: readonly WeftFeature[] = ['subgroups', 'timestamp-query', 'shader-f16'];

/** The optional WebGPU features Weft uses where the device has them. */
export type WeftFeature = 'subgroups' | 'timestamp-query' | 'shader-f16';

/** What benchmarks record about the adapter. */
export interface AdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** True for CPU implementations (lavapipe, SwiftShader). */
  software: boolean;
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
  /** The device's features. */
  features: string[];
  /** The adapter's features, where Weft requested the device (a device may have fewer). */
  adapterFeatures?: string[];
  limits: Record<string, number>;
  /** Dawn toggles passed at creation (Node only). */
  toggles: string[];
  /** Where the device came from. */
  source: 'node-webgpu' | 'navigator.gpu' | 'caller';
  /** The GPU's PCI address, where the device was pinned to one (`requestDevice({ pciBusId })`). */
  pciBusId?: string;
}

export interface RequestDeviceOptions {
  powerPreference?: GPUPowerPreference;
  /** Node only: options for the `webgpu` package's `create()`, e.g. `enable-dawn-features=disable_robustness`. */
  dawnOptions?: readonly string[];
  /**
   * Node only: `false` turns Dawn's API validation off (its `skip_validation` toggle). Dawn validates every
   * indirect dispatch with an extra dispatch of its own, which costs more than many of Weft's kernels: a
   * traversal that sizes its levels on the GPU runs several times faster in wall-clock time without it.
   * Weft's kernels write their indirect arguments within the device's limits and its tests run with
   * validation on; leave it on while writing your own functors, since a mistake then goes unreported.
   * Default `true`; `false` in a browser is an `InputError` (browsers always validate).
   */
  validation?: boolean;
  /** Extra required limits, on top of the maxima Weft asks for. */
  requiredLimits?: Record<string, number>;
  /**
   * Caps on the limits Weft requests, applied after `requiredLimits`: the device gets the smaller of the cap and
   * the adapter's value, e.g. `{ maxStorageBuffersPerShaderStage: 10 }` to run as on a browser that grants 10.
   */
  limits?: Record<string, number>;
  label?: string;
  /** Bytes of released buffers the pool keeps for reuse (default 2 GiB; 0 destroys on release). */
  poolBytes?: number;
  /**
   * Per optional feature: `true` requires it (an error if the adapter lacks it), `false` leaves it off (to run
   * the paths without it, as on browsers that lack it), absent takes it where the adapter offers it.
   */
  features?: { readonly [F in WeftFeature]?: boolean };
  /**
   * Node on Linux: the GPU at this PCI address (`'0000:00:07.0'`, as `nvidia-smi` and `lspci -D` print it),
   * for hosts with several GPUs of one name, which Dawn cannot tell apart. Needs Mesa's device-select Vulkan
   * layer (see {@link requestDevices}); an `InputError` where it is missing or the address is malformed.
   */
  pciBusId?: string;
  /**
   * Bytes of one storage binding that chunked arrays fill before they start a new chunk (default and cap: the
   * device's `maxStorageBufferBindingSize`). Tests lower it (e.g. 4096) to split small arrays into several
   * chunks, since WebGPU grants no `maxStorageBufferBindingSize` below 128 MiB; plain arrays keep the limit.
   */
  bindingBudget?: number;
}

/**
 * `result` of a callback handed a mapped view, or an {@link InputError} where it is a Promise: the view is
 * unmapped before an async callback could resume (its later rejection is dropped, as the caller already failed).
 */
function synchronous<R>(result: R, where: string): R {
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    (result as PromiseLike<unknown>).then(undefined, () => undefined);
    throw new InputError(
      'the read callback returned a Promise: its view is valid only while it runs, so read synchronously',
      where,
    );
  }
  return result;
}

/** Bind groups a device keeps for reuse (least recently used dropped first). */
const BIND_GROUPS_KEPT = 4096;

// dawn.node instances must stay strongly referenced while their devices live (a collected instance crashes
// the process inside ProcessEvents); they are released when the device is destroyed.
const liveInstances = new Set<unknown>();

/**
 * How to install `pkg` with the package manager running this process, read from `npm_config_user_agent`
 * (set by npm, pnpm, yarn and bun when they run a script); npm's command, marked as one choice, otherwise.
 */
export function installHint(pkg: string, userAgent: string | undefined): string {
  const manager = userAgent?.match(/^(npm|pnpm|yarn|bun)\//)?.[1];
  if (manager === 'npm') return `install it with 'npm install ${pkg}'`;
  if (manager !== undefined) return `install it with '${manager} add ${pkg}'`;
  return `install it with 'npm install ${pkg}' (or your package manager's equivalent)`;
}

async function nodeGpu(options: readonly string[]): Promise<{ gpu: GPU; instance: unknown }> {
  const specifier = 'webgpu';
  let mod: { create: (opts: string[]) => GPU; globals: Record<string, unknown> };
  try {
    mod = await import(/* @vite-ignore */ specifier);
  } catch (e) {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    throw new NoAdapterError(
      `navigator.gpu is not available and the 'webgpu' package (Dawn for Node) could not be loaded: ${(e as Error).message}; ${installHint('webgpu', env?.['npm_config_user_agent'])}, or pass your own GPUDevice`,
    );
  }
  for (const [k, v] of Object.entries(mod.globals)) {
    if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  }
  const gpu = mod.create([...options]);
  return { gpu, instance: gpu };
}

/** `options` with `feature` added to its `enable-dawn-features=` list (dawn.node keeps the last of a key). */
function withDawnFeature(options: readonly string[], feature: string): string[] {
  const key = 'enable-dawn-features=';
  const at = options.findIndex((o) => o.startsWith(key));
  if (at < 0) return [...options, `${key}${feature}`];
  const features = options[at]!.slice(key.length)
    .split(',')
    .filter((f) => f !== '');
  const out = [...options];
  out[at] = `${key}${[...new Set([...features, feature])].join(',')}`;
  return out;
}

/**
 * Gets a WebGPU device with the limits and features Weft's primitives need: `navigator.gpu` in browsers,
 * the `webgpu` package (Dawn) in Node. The device is owned by Weft and destroyed by `destroy()`.
 */
export async function requestDevice(options: RequestDeviceOptions = {}): Promise<WeftDevice> {
  checkOptionsObject('requestDevice', options);
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (options.pciBusId !== undefined && nav?.gpu) {
    throw new InputError('pciBusId picks a GPU only in Node (the webgpu package)', 'pciBusId');
  }
  if (options.validation === false && nav?.gpu) {
    throw new InputError(
      'validation: false is for Node (the webgpu package); browsers always validate',
      'validation',
    );
  }
  const dawnOptions =
    options.validation === false
      ? withDawnFeature(options.dawnOptions ?? [], 'skip_validation')
      : [...(options.dawnOptions ?? [])];
  let gpu: GPU;
  let instance: unknown;
  let source: AdapterReport['source'];
  if (nav?.gpu) {
    gpu = nav.gpu;
    source = 'navigator.gpu';
  } else {
    ({ gpu, instance } = await nodeGpu(dawnOptions));
    source = 'node-webgpu';
    liveInstances.add(instance);
  }
  try {
    const adapter = await pinnedTo(options.pciBusId, () =>
      gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' }),
    );
    if (!adapter) {
      throw new NoAdapterError(
        'no WebGPU adapter found: on Linux without a GPU install a software Vulkan driver (Mesa lavapipe, see tooling/setup.sh)',
      );
    }
    const requiredLimits: Record<string, number> = {};
    for (const name of WANTED_LIMITS) {
      const v = (adapter.limits as unknown as Record<string, number>)[name];
      if (typeof v === 'number') requiredLimits[name] = v;
    }
    Object.assign(requiredLimits, options.requiredLimits);
    for (const [name, cap] of Object.entries(options.limits ?? {})) {
      const v = requiredLimits[name] ?? (adapter.limits as unknown as Record<string, number>)[name];
      if (typeof v !== 'number') throw new InputError(`the adapter has no limit named '${name}'`, 'limits');
      requiredLimits[name] = Math.min(v, cap);
    }
    const wanted = options.features ?? {};
    for (const f of WANTED_FEATURES) {
      if (wanted[f] === true && !adapter.features.has(f)) {
        throw new NoAdapterError(`the WebGPU adapter does not offer the '${f}' feature the device requires`);
      }
    }
    const requiredFeatures = WANTED_FEATURES.filter(
      (f) => wanted[f] !== false && adapter.features.has(f),
    ) as GPUFeatureName[];
    const device = await adapter.requestDevice({
      requiredLimits,
      requiredFeatures,
      label: options.label ?? 'weft',
    });
    const report = describeAdapter(adapter.info, device, source, dawnOptions);
    report.adapterFeatures = [...adapter.features].sort();
    if (options.pciBusId !== undefined) report.pciBusId = normalizePciBusId(options.pciBusId);
    const weft = new WeftDevice(device, report, true, instance, options.poolBytes);
    if (options.bindingBudget !== undefined) weft.bindingBudget = options.bindingBudget;
    return weft;
  } catch (e) {
    liveInstances.delete(instance);
    throw e;
  }
}

function describeAdapter(
  info: GPUAdapterInfo | undefined,
  device: GPUDevice,
  source: AdapterReport['source'],
  toggles: readonly string[],
): AdapterReport {
  const limits: Record<string, number> = {};
  for (const key in device.limits) {
    const v = (device.limits as unknown as Record<string, unknown>)[key];
    if (typeof v === 'number') limits[key] = v;
  }
  const i = (info ?? {}) as Partial<GPUAdapterInfo> & { subgroupMinSize?: number; subgroupMaxSize?: number };
  const text =
    `${i.vendor ?? ''} ${i.architecture ?? ''} ${i.device ?? ''} ${i.description ?? ''}`.toLowerCase();
  const report: AdapterReport = {
    vendor: i.vendor ?? '',
    architecture: i.architecture ?? '',
    device: i.device ?? '',
    description: i.description ?? '',
    software: /llvmpipe|lavapipe|swiftshader|software/.test(text),
    features: [...device.features].sort(),
    limits,
    toggles: [...toggles],
    source,
  };
  if (typeof i.subgroupMinSize === 'number') report.subgroupMinSize = i.subgroupMinSize;
  if (typeof i.subgroupMaxSize === 'number') report.subgroupMaxSize = i.subgroupMaxSize;
  return report;
}

/**
 * Wraps a caller's own `GPUDevice` (bring your own device). Weft never destroys a device it did not create.
 * For best results request the limits in `WANTED_LIMITS` at the adapter's maxima and the `subgroups` feature.
 */
export function wrapDevice(device: GPUDevice, info?: GPUAdapterInfo): WeftDevice {
  return new WeftDevice(
    device,
    describeAdapter(info ?? device.adapterInfo, device, 'caller', []),
    false,
    undefined,
  );
}

interface CompiledEntry {
  readonly layout: GPUBindGroupLayout;
  readonly pipelines: Map<string, GPUComputePipeline>;
}

/**
 * A GPU device with Weft's per-device state: buffer pool, pipeline cache, lost-device handling.
 */
export class WeftDevice {
  readonly pool: BufferPool;
  readonly #pipelineCache = new Map<string, Promise<CompiledEntry>>();
  /** Generated kernels by definition and functor shape: a repeat only rebinds captures. */
  readonly #generated = new Map<
    string,
    { gen: ReturnType<typeof generateKernel>; compiled: Promise<CompiledEntry> }
  >();
  #lost: DeviceLostError | undefined;
  /** The rejecters of guarded calls still pending: each leaves the set when its promise settles. */
  readonly #pending = new Set<(error: DeviceLostError) => void>();
  #instance: unknown;
  #destroyed = false;
  #bindingBudget: number | undefined;

  constructor(
    readonly device: GPUDevice,
    readonly adapter: AdapterReport,
    /** Whether Weft created the device (and so may destroy it). */
    readonly owned: boolean,
    instance: unknown,
    poolBytes?: number,
  ) {
    this.#instance = instance;
    this.pool = new BufferPool(device, device.limits.maxBufferSize, poolBytes);
    void device.lost.then((info) => {
      const lost = new DeviceLostError(info.reason, info.message);
      this.#lost = lost;
      for (const reject of this.#pending) reject(lost);
      this.#pending.clear();
    });
  }

  /** Bind groups by layout and bound buffer ranges, most recently used last (see {@link bindGroup}). */
  readonly #bindGroups = new Map<string, GPUBindGroup>();
  readonly #objectIds = new WeakMap<object, number>();
  #nextObjectId = 1;

  #idOf(o: object): number {
    let id = this.#objectIds.get(o);
    if (id === undefined) {
      id = this.#nextObjectId++;
      this.#objectIds.set(o, id);
    }
    return id;
  }

  /**
   * A bind group of `layout` over these buffer ranges, made once and kept: a traversal binds the same pooled
   * buffers level after level and call after call, and creating a bind group costs more host time than
   * many of the dispatches it serves. A kept group can only be met again by binding the same buffer objects,
   * which a destroyed buffer may not be, so keeping one past its buffers' lives is never wrong.
   */
  bindGroup(
    layout: GPUBindGroupLayout,
    entries: readonly { binding: number; buffer: GPUBuffer; offset: number; size: number }[],
    label: string,
  ): GPUBindGroup {
    let key = `${this.#idOf(layout)}`;
    for (const e of entries) key += `|${e.binding}:${this.#idOf(e.buffer)}:${e.offset}:${e.size}`;
    const kept = this.#bindGroups.get(key);
    if (kept) {
      this.#bindGroups.delete(key);
      this.#bindGroups.set(key, kept);
      return kept;
    }
    const group = this.device.createBindGroup({
      layout,
      entries: entries.map((e) => ({
        binding: e.binding,
        resource: { buffer: e.buffer, offset: e.offset, size: e.size },
      })),
      label,
    });
    this.#bindGroups.set(key, group);
    if (this.#bindGroups.size > BIND_GROUPS_KEPT)
      this.#bindGroups.delete(this.#bindGroups.keys().next().value!);
    return group;
  }

  get limits(): GPUSupportedLimits {
    return this.device.limits;
  }

  /**
   * Bytes of one binding that a chunked array's chunk may take: `maxStorageBufferBindingSize`, or less where
   * set (`requestDevice({ bindingBudget })`, or assigned here before arrays are made) to test chunking.
   */
  get bindingBudget(): number {
    return Math.min(this.#bindingBudget ?? Infinity, this.device.limits.maxStorageBufferBindingSize);
  }

  set bindingBudget(bytes: number) {
    if (!Number.isInteger(bytes) || bytes < 16) {
      throw new InputError(
        `the binding budget must be an integer of at least 16 bytes, got ${bytes}`,
        'bindingBudget',
      );
    }
    this.#bindingBudget = bytes;
  }

  get hasSubgroups(): boolean {
    return this.device.features.has('subgroups');
  }

  /**
   * Why this device lacks `feature`, for errors: the device was created without it although its adapter
   * offers it, or the adapter does not offer it.
   */
  missingFeature(feature: WeftFeature): string {
    const offered = this.adapter.adapterFeatures;
    if (offered === undefined) return `this device was created without the WebGPU '${feature}' feature`;
    return offered.includes(feature)
      ? `this device was created without the WebGPU '${feature}' feature, which its adapter offers`
      : `this device's adapter does not offer the WebGPU '${feature}' feature`;
  }

  get hasTimestamps(): boolean {
    return this.device.features.has('timestamp-query');
  }

  /** Set once the device is lost; every later operation throws it. */
  get lostError(): DeviceLostError | undefined {
    return this.#lost;
  }

  /** Rejects with {@link DeviceLostError} if the device is lost before `promise` settles. */
  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.#lost) return Promise.reject(this.#lost);
    // Not `Promise.race` with a never-settling lost promise: that keeps a reaction per call alive forever.
    return new Promise<T>((resolve, reject) => {
      this.#pending.add(reject);
      promise.then(
        (value) => {
          this.#pending.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(reject);
          reject(error);
        },
      );
    });
  }

  checkAlive(): void {
    if (this.#lost) throw this.#lost;
    if (this.#destroyed) throw new WeftError('the Weft device was destroyed');
  }

  /** A new device array of `length` elements (contents undefined: pooled memory is not cleared). */
  array<T extends ElementType>(type: T, length: number, options: DeviceArrayOptions = {}): DeviceArray<T> {
    checkOptionsObject('device.array', options);
    this.checkAlive();
    return new DeviceArray(this, type, length, options.label ?? `${type}[${length}]`, options);
  }

  /** A new device array holding a copy of `data`. */
  upload<A extends Uint32Array | Int32Array | Float32Array>(
    data: A,
    options: DeviceArrayOptions = {},
  ): DeviceArray<A extends Uint32Array ? 'u32' : A extends Int32Array ? 'i32' : 'f32'> {
    checkOptionsObject('device.upload', options);
    const type = elementTypeOf(data);
    const arr = this.array(type, data.length, options);
    arr.upload(data as HostArray<typeof type>);
    return arr as never;
  }

  /**
   * A new {@link ChunkedArray} of `length` elements (up to 2^32 − 1; contents undefined): one chunk when it
   * fits {@link bindingBudget}, else as many chunks of a power of two of elements as it takes.
   */
  chunkedArray<T extends ElementType>(
    type: T,
    length: number,
    options: ChunkedArrayOptions = {},
  ): ChunkedArray<T> {
    checkOptionsObject('device.chunkedArray', options);
    this.checkAlive();
    return allocateChunked(this, type, length, options);
  }

  /** A new {@link ChunkedArray} holding a copy of `data`. */
  uploadChunked<A extends Uint32Array | Int32Array | Float32Array>(
    data: A,
    options: ChunkedArrayOptions = {},
  ): ChunkedArray<A extends Uint32Array ? 'u32' : A extends Int32Array ? 'i32' : 'f32'> {
    checkOptionsObject('device.uploadChunked', options);
    const type = elementTypeOf(data);
    const arr = this.chunkedArray(type, data.length, options);
    arr.upload(data as HostArray<typeof type>);
    return arr as never;
  }

  /** A recorder that chains dispatches into one command encoder and submits them together. */
  recorder(options: RecorderOptions = {}): Recorder {
    checkOptionsObject('device.recorder', options);
    this.checkAlive();
    return new Recorder(this, options);
  }

  /**
   * Generates the kernel's WGSL and returns it with compiled pipelines, cached per device by
   * (final WGSL text, override constants). Compile errors become {@link ShaderCompileError}.
   */
  async kernel(def: KernelDefinition): Promise<Kernel> {
    this.checkAlive();
    const entries = def.entryPoints ?? ['main'];
    const shape = functorShape(def.functors ?? {});
    const shapeKey = [
      def.label,
      def.code,
      JSON.stringify(def.bindings ?? {}),
      JSON.stringify(def.params ?? {}),
      JSON.stringify(def.constants ?? {}),
      entries.join(','),
      def.subgroups ? 'sg' : '',
      shape.key,
    ].join('\u0000');
    let cached = this.#generated.get(shapeKey);
    if (!cached) {
      const gen = generateKernel(def);
      const storage = gen.layoutEntries.filter((e) => e.kind !== 'uniform').length;
      const limit = this.device.limits.maxStorageBuffersPerShaderStage;
      if (storage > limit) {
        throw new DeviceLimitError(
          `kernel '${def.label}' (storage buffers)`,
          storage,
          'maxStorageBuffersPerShaderStage',
          limit,
          'this kernel has no variant with fewer bindings; use an adapter with a larger limit',
        );
      }
      const key = `${gen.wgsl}\n//constants ${JSON.stringify(def.constants ?? {})} entries ${entries.join(',')}`;
      let compiled = this.#pipelineCache.get(key);
      if (!compiled) {
        compiled = this.#compile(def.label, gen.wgsl, gen.layoutEntries, entries, def.constants ?? {});
        this.#pipelineCache.set(key, compiled);
        compiled.catch(() => {
          this.#pipelineCache.delete(key);
          this.#generated.delete(shapeKey);
        });
      }
      // Bounded: definitions that never repeat must not grow the map without end.
      if (this.#generated.size >= 4096) this.#generated.clear();
      cached = { gen, compiled };
      this.#generated.set(shapeKey, cached);
    }
    const entry = await cached.compiled;
    const { gen } = cached;
    // Same shape, possibly other arrays and values: bind this call's captures in the order they were named.
    let a = 0;
    const slots = gen.slots.map((slot) => (slot.array ? { ...slot, array: shape.arrays[a++]! } : slot));
    let c = 0;
    const paramFields = gen.paramFields.map((f) =>
      f.value !== undefined ? { ...f, value: shape.scalars[c++]! } : f,
    );
    return new Kernel(def.label, gen.wgsl, entry, slots, paramFields, gen.hasParams);
  }

  async #compile(
    label: string,
    code: string,
    layoutEntries: { binding: number; kind: string }[],
    entries: readonly string[],
    constants: Record<string, number>,
  ): Promise<CompiledEntry> {
    const device = this.device;
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code, label });
    const info = await this.guard(module.getCompilationInfo());
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0) {
      await device.popErrorScope();
      const lines = code.split('\n');
      const messages = errors.map((m) => {
        const line = lines[m.lineNum - 1] ?? '';
        return `  line ${m.lineNum}:${m.linePos}: ${m.message}\n    ${line.trim()}`;
      });
      throw new ShaderCompileError(label, messages, code);
    }
    const layout = device.createBindGroupLayout({
      label,
      entries: layoutEntries.map((e) => ({
        binding: e.binding,
        visibility: 0x4, // GPUShaderStage.COMPUTE
        buffer:
          e.kind === 'uniform'
            ? { type: 'uniform', hasDynamicOffset: true }
            : { type: e.kind === 'read' ? 'read-only-storage' : 'storage' },
      })),
    });
    const pipelineLayout = device.createPipelineLayout({ label, bindGroupLayouts: [layout] });
    const pipelines = new Map<string, GPUComputePipeline>();
    try {
      await Promise.all(
        entries.map(async (entryPoint) => {
          const p = await this.guard(
            device.createComputePipelineAsync({
              label: `${label}:${entryPoint}`,
              layout: pipelineLayout,
              compute: { module, entryPoint, constants },
            }),
          );
          pipelines.set(entryPoint, p);
        }),
      );
    } catch (e) {
      const scoped = await device.popErrorScope();
      if (scoped) throw new GpuValidationError(label, scoped.message);
      throw e instanceof WeftError ? e : new GpuValidationError(label, (e as Error).message);
    }
    const scoped = await device.popErrorScope();
    if (scoped) throw new GpuValidationError(label, scoped.message);
    return { layout, pipelines };
  }

  /** Reads `size` bytes at `offset` of `buffer` back to the host (one round trip). */
  async readBytes(buffer: GPUBuffer, offset: number, size: number): Promise<ArrayBuffer> {
    return this.readMapped(buffer, offset, size, (bytes) => bytes.slice().buffer);
  }

  /**
   * Copies `size` bytes at `offset` (a multiple of 4) of `buffer` into a pooled staging buffer, maps it and
   * returns what `use` returns for a view of those bytes, then unmaps (one round trip, no host copy).
   * The view is valid only while `use` runs, so `use` must be synchronous: a returned Promise is an
   * {@link InputError}. Unmapping detaches the view, so one kept past `use` reads as empty, never as the
   * staging buffer's next contents. `where` names the data in that error (default: the buffer's label).
   */
  async readMapped<R>(
    buffer: GPUBuffer,
    offset: number,
    size: number,
    use: (bytes: Uint8Array<ArrayBuffer>) => R,
    where = `buffer '${buffer.label}'`,
  ): Promise<R> {
    this.checkAlive();
    if (size === 0) return synchronous(use(new Uint8Array(0)), where);
    const aligned = Math.ceil(size / 4) * 4;
    const staging = this.pool.acquire(aligned, 'readback', 'weft readback');
    try {
      const enc = this.device.createCommandEncoder({ label: 'weft readback' });
      enc.copyBufferToBuffer(buffer, offset, staging, 0, aligned);
      this.device.queue.submit([enc.finish()]);
      await this.guard(staging.mapAsync(0x1 /* GPUMapMode.READ */, 0, aligned));
      try {
        return synchronous(use(new Uint8Array(staging.getMappedRange(0, aligned), 0, size)), where);
      } finally {
        staging.unmap();
      }
    } finally {
      this.pool.release(staging);
    }
  }

  /** Sets every element of `array` to `value`. */
  async fill(array: DeviceArray, value: number): Promise<void> {
    const rec = this.recorder({ label: 'fill' });
    await rec.fill(array, value);
    await rec.submit();
  }

  /** Waits for all submitted work (rejects if the device is lost). */
  async idle(): Promise<void> {
    await this.guard(this.device.queue.onSubmittedWorkDone());
  }

  /**
   * Runs `fn` inside validation and out-of-memory error scopes. An error a scope caught is the real cause
   * of any failure inside `fn`, so it is thrown in preference to `fn`'s own.
   */
  async scoped<T>(label: string, fn: () => T | Promise<T>): Promise<T> {
    this.device.pushErrorScope('out-of-memory');
    this.device.pushErrorScope('validation');
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await fn() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const validation = await this.device.popErrorScope();
    const oom = await this.device.popErrorScope();
    if (validation) throw new GpuValidationError(label, validation.message);
    if (oom) throw new GpuOutOfMemoryError(label, oom.message);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /**
   * Releases pooled buffers and, when Weft created the device, destroys it and lets go of the Node WebGPU
   * instance (so the process can exit). A caller's own device is left alone.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.pool.trim();
    this.#bindGroups.clear();
    this.#pipelineCache.clear();
    this.#generated.clear();
    if (this.owned) this.device.destroy();
    if (this.#instance !== undefined) {
      const inst = this.#instance;
      this.#instance = undefined;
      // Let Dawn finish processing the destroy before the instance can be collected.
      setTimeout(() => liveInstances.delete(inst), 100);
    }
  }

  [Symbol.dispose](): void {
    this.destroy();
  }
}
