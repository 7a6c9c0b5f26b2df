import type { DeviceArray, ElementType } from './array.ts';
import { type ArrayAccess, type CaptureScalar, type Functor, linkFunctors } from './functor.ts';

/** A storage binding that a kernel template declares. */
export interface BindingDecl {
  /** The WGSL type, e.g. `array<u32>`, `array<atomic<u32>>`, `array<vec4<u32>>`. */
  readonly type: string;
  readonly access: 'read' | 'read_write';
}

/**
 * A kernel template: WGSL with named storage bindings, uniform parameters and injected functors.
 * The generator declares `params` (a uniform struct with the fields of `params` and any scalars captured by
 * functors), one storage variable per binding and per captured array, and each functor as `fn <name>`.
 */
export interface KernelDefinition {
  readonly label: string;
  readonly bindings?: Readonly<Record<string, BindingDecl>>;
  readonly params?: Readonly<Record<string, ElementType>>;
  readonly functors?: Readonly<Record<string, Functor>>;
  /** WGSL after the generated declarations: helpers and entry points. */
  readonly code: string;
  readonly entryPoints?: readonly string[];
  /** Values for `override` declarations in `code`. */
  readonly constants?: Readonly<Record<string, number>>;
  /** Emit `enable subgroups;` (the device must have the feature). */
  readonly subgroups?: boolean;
}

interface BindingSlot {
  readonly name: string;
  readonly binding: number;
  /** A `read_write` binding: WebGPU lets no other binding of one dispatch alias its buffer. */
  readonly writable: boolean;
  /** Set for functor captures: the array bound on every dispatch. */
  readonly array?: DeviceArray;
}

/** A compiled pipeline family shared by every kernel with the same WGSL text and constants. */
export interface CompiledKernel {
  readonly layout: GPUBindGroupLayout;
  readonly pipelines: ReadonlyMap<string, GPUComputePipeline>;
}

/** WGSL shared by every kernel. */
const PRELUDE = /* wgsl */ `
// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}
`;

/**
 * A kernel ready to dispatch: the generated WGSL, its compiled pipelines, and the arrays and scalar values
 * that its functors captured. Make one with `device.kernel(definition)`.
 */
export class Kernel {
  /** @internal */
  constructor(
    readonly label: string,
    readonly wgsl: string,
    /** @internal */
    readonly compiled: CompiledKernel,
    /** @internal */
    readonly slots: readonly BindingSlot[],
    /** Uniform fields in order: the template's params, then captured scalars (with their values). */
    readonly paramFields: readonly { name: string; type: ElementType; value?: number }[],
    readonly hasParams: boolean,
  ) {}

  /** Byte size of the uniform struct (a multiple of 16). */
  get paramsSize(): number {
    return Math.max(16, Math.ceil((this.paramFields.length * 4) / 16) * 16);
  }

  pipeline(entry = 'main'): GPUComputePipeline {
    const p = this.compiled.pipelines.get(entry);
    if (!p) throw new Error(`kernel '${this.label}' has no entry point '${entry}'`);
    return p;
  }
}

/** Generates the final WGSL text of a definition and the binding slots it needs. */
export function generateKernel(def: KernelDefinition): {
  wgsl: string;
  slots: BindingSlot[];
  paramFields: { name: string; type: ElementType; value?: number }[];
  hasParams: boolean;
  layoutEntries: { binding: number; kind: 'uniform' | ArrayAccess | BindingDecl['access'] }[];
} {
  const linked = linkFunctors(def.functors ?? {});
  const paramFields: { name: string; type: ElementType; value?: number }[] = Object.entries(
    def.params ?? {},
  ).map(([name, type]) => ({ name, type }));
  for (const s of linked.scalars as CaptureScalar[])
    paramFields.push({ name: s.name, type: s.type, value: s.value });
  const hasParams = paramFields.length > 0;

  const lines: string[] = [];
  // A functor may call subgroup built-ins (its author checked `device.hasSubgroups`): enable them, and allow
  // them under the kernel's bounds checks (non-uniform control flow; they then act on the active lanes).
  const functorSubgroups = !def.subgroups && /\bsubgroup[A-Z]\w*\s*\(/.test(linked.code);
  if (def.subgroups || functorSubgroups) lines.push('enable subgroups;');
  if (functorSubgroups) lines.push('diagnostic(off, subgroup_uniformity);');
  const slots: BindingSlot[] = [];
  const layoutEntries: { binding: number; kind: 'uniform' | ArrayAccess | BindingDecl['access'] }[] = [];
  let binding = 0;
  if (hasParams) {
    lines.push(`struct Params {\n${paramFields.map((f) => `  ${f.name}: ${f.type},`).join('\n')}\n}`);
    lines.push(`@group(0) @binding(0) var<uniform> params: Params;`);
    layoutEntries.push({ binding: 0, kind: 'uniform' });
    binding = 1;
  }
  for (const [name, decl] of Object.entries(def.bindings ?? {})) {
    lines.push(`@group(0) @binding(${binding}) var<storage, ${decl.access}> ${name}: ${decl.type};`);
    slots.push({ name, binding, writable: decl.access === 'read_write' });
    layoutEntries.push({ binding, kind: decl.access });
    binding++;
  }
  for (const cap of linked.bindings) {
    const elem = cap.array.type;
    const type = cap.access === 'atomic' ? `array<atomic<${elem}>>` : `array<${elem}>`;
    const access = cap.access === 'read' ? 'read' : 'read_write';
    lines.push(`@group(0) @binding(${binding}) var<storage, ${access}> ${cap.name}: ${type};`);
    slots.push({ name: cap.name, binding, writable: access === 'read_write', array: cap.array });
    layoutEntries.push({ binding, kind: access });
    binding++;
  }
  lines.push(PRELUDE);
  if (linked.code) lines.push(linked.code);
  lines.push(def.code);
  return { wgsl: lines.join('\n'), slots, paramFields, hasParams, layoutEntries };
}
