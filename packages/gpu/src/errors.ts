/**
 * Typed errors. Every message says what was asked, what the limit or problem is, and what to do.
 */
export class WeftError extends Error {
  override name = 'WeftError';
}

/** An array or dispatch exceeds what the adapter allows (binding size, buffer size, workgroup count). */
export class DeviceLimitError extends WeftError {
  override name = 'DeviceLimitError';
  constructor(
    /** What was asked for, e.g. `"column indices (u32 x 40000000)"`. */
    readonly what: string,
    readonly requested: number,
    /** The adapter limit's name, e.g. `maxStorageBufferBindingSize`. */
    readonly limitName: string,
    readonly limit: number,
    advice = 'use a smaller input or an adapter with a larger limit',
  ) {
    super(`${what} needs ${requested} but ${limitName} is ${limit}: ${advice}`);
  }
}

/** The device was lost (driver reset, destroy, out of memory at the driver level). Pending work is rejected. */
export class DeviceLostError extends WeftError {
  override name = 'DeviceLostError';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(`the GPU device was lost (${reason}): ${message || 'no message'}; create a new device to continue`);
  }
}

/** WGSL failed to compile; the message names the generated source line. */
export class ShaderCompileError extends WeftError {
  override name = 'ShaderCompileError';
  constructor(
    readonly label: string,
    readonly messages: readonly string[],
    readonly source: string,
  ) {
    super(`WGSL of kernel '${label}' does not compile:\n${messages.join('\n')}`);
  }
}

/** WebGPU reported a validation error for work Weft recorded: a bug in Weft or in a user functor. */
export class GpuValidationError extends WeftError {
  override name = 'GpuValidationError';
  constructor(
    readonly label: string,
    message: string,
  ) {
    super(`WebGPU rejected '${label}': ${message}`);
  }
}

/** The device ran out of memory while allocating or submitting. */
export class GpuOutOfMemoryError extends WeftError {
  override name = 'GpuOutOfMemoryError';
  constructor(
    readonly label: string,
    message: string,
  ) {
    super(
      `out of GPU memory in '${label}': ${message}; free arrays (destroy(), pool.trim()) or use smaller inputs`,
    );
  }
}

/** Bad input from the caller: malformed data, out-of-range ids, mismatched lengths. */
export class InputError extends WeftError {
  override name = 'InputError';
  constructor(
    message: string,
    /** Where: a file and line, or an argument name. */
    readonly where?: string,
  ) {
    super(where === undefined ? message : `${where}: ${message}`);
  }
}

/** An iterative method did not meet its tolerance within its iteration limit (networkx's PowerIterationFailedConvergence). */
export class ConvergenceError extends WeftError {
  override name = 'ConvergenceError';
  constructor(
    /** The method, e.g. `"katzCentrality"`. */
    readonly what: string,
    readonly iterations: number,
    /** Its residual after the last iteration. */
    readonly residual: number,
    readonly tolerance: number,
  ) {
    super(
      `${what} did not converge in ${iterations} iterations (residual ${residual} >= ${tolerance}): ` +
        'raise maxIterations or tolerance',
    );
  }
}

/** An array (a graph's, often) made on one device was given to work recorded on another. */
export class DeviceMismatchError extends WeftError {
  override name = 'DeviceMismatchError';
  constructor(
    /** The foreign array's label. */
    readonly array: string,
    /** What used it: a kernel, a clear or a copy. */
    readonly use: string,
  ) {
    super(
      `array '${array}' belongs to another device than ${use} runs on: ` +
        'upload the graph (or array) on the device that runs the work',
    );
  }
}

/** No WebGPU adapter could be found. */
export class NoAdapterError extends WeftError {
  override name = 'NoAdapterError';
}
