import { requestDevice, type WeftDevice } from '@weft/gpu';
import { afterAll, type TestContext } from 'vitest';

let shared: Promise<WeftDevice> | undefined;

/**
 * `WEFT_TEST_MAX_STORAGE_BUFFERS=N` caps the test devices' `maxStorageBuffersPerShaderStage` at N (browsers
 * grant 8 or 10), so the whole suite runs the paths such devices take; unset, devices get the adapter's.
 */
function testLimits(): Record<string, number> {
  const v = process.env['WEFT_TEST_MAX_STORAGE_BUFFERS'];
  if (v === undefined || v === '') return {};
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`WEFT_TEST_MAX_STORAGE_BUFFERS must be a positive integer, got '${v}'`);
  }
  return { maxStorageBuffersPerShaderStage: n };
}

/**
 * `WEFT_TEST_SUBGROUPS=0` creates test devices without the `subgroups` feature, so the whole suite runs the
 * paths browsers without it take; unset or `1`, devices take it where the adapter offers it.
 */
export function testSubgroups(): boolean {
  const v = process.env['WEFT_TEST_SUBGROUPS'];
  if (v === undefined || v === '' || v === '1') return true;
  if (v === '0') return false;
  throw new Error(`WEFT_TEST_SUBGROUPS must be 0 or 1, got '${v}'`);
}

/**
 * The test file's WebGPU device (created once per file, destroyed after it). A missing adapter fails the
 * test run: tests never skip silently because no GPU was found.
 */
export function testDevice(): Promise<WeftDevice> {
  if (!shared) {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const features = testSubgroups() ? {} : { subgroups: false };
    shared = requestDevice({ label: 'weft test', features, limits: testLimits() }).catch((e: unknown) => {
      throw new Error(
        `no WebGPU adapter for the tests (${(e as Error).message}). Run 'bash tooling/setup.sh' to install the software Vulkan driver.`,
      );
    });
    afterAll(async () => {
      const d = await shared?.catch(() => undefined);
      d?.destroy();
      shared = undefined;
    });
  }
  return shared;
}

let sharedWithSubgroups: Promise<WeftDevice> | undefined;

/**
 * A device with the `subgroups` feature, for tests of subgroup code itself: the test device, or under
 * `WEFT_TEST_SUBGROUPS=0` a second one of the file's (the adapter must offer subgroups).
 */
export function subgroupTestDevice(): Promise<WeftDevice> {
  if (testSubgroups()) return testDevice();
  if (!sharedWithSubgroups) {
    sharedWithSubgroups = requestDevice({
      label: 'weft test (subgroups)',
      features: { subgroups: true },
      limits: testLimits(),
    });
    afterAll(async () => {
      const d = await sharedWithSubgroups?.catch(() => undefined);
      d?.destroy();
      sharedWithSubgroups = undefined;
    });
  }
  return sharedWithSubgroups;
}

/**
 * Whether the test adapter offers the `subgroups` feature (Dawn on lavapipe does; wgpu in Deno, Firefox and
 * Safari do not), read from the test device's adapter.
 */
async function adapterOffersSubgroups(): Promise<boolean> {
  const device = await testDevice();
  return device.adapter.adapterFeatures?.includes('subgroups') ?? device.hasSubgroups;
}

/**
 * For a test that needs the `subgroups` feature (directly, or through `@weft/sort`): skips it with a printed
 * line where the adapter does not offer the feature (wgpu in Deno), the only way a test skips for want of one.
 * Where the adapter offers it, the test runs.
 */
export async function skipWithoutSubgroups(context: TestContext, why = "needs 'subgroups'"): Promise<void> {
  if (await adapterOffersSubgroups()) return;
  const d = (await testDevice()).adapter;
  const note = `${why}; the WebGPU adapter (${d.description || d.device || d.vendor}, ${d.source}) does not offer 'subgroups'`;
  console.warn(`skipped '${context.task.name}': ${note}`);
  context.skip(note);
}

/**
 * Runs `fn` with the test device (with `subgroups`: {@link subgroupTestDevice}) inside validation and
 * out-of-memory error scopes, so a WebGPU error that nobody awaited still fails the test. With `subgroups`
 * and the test's `context`, an adapter without the feature skips the test ({@link skipWithoutSubgroups});
 * without `context` it fails the test.
 */
export async function gpuTest<T>(
  fn: (device: WeftDevice) => Promise<T>,
  { subgroups = false, context }: { subgroups?: boolean; context?: TestContext } = {},
): Promise<T> {
  if (subgroups && context) await skipWithoutSubgroups(context);
  const device = await (subgroups ? subgroupTestDevice() : testDevice());
  return device.scoped('test', () => fn(device));
}
