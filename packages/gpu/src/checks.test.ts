import { expectOptionsRefused, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  checkMaxIterations,
  checkOptionsObject,
  checkTolerance,
  copy,
  distanceOverflowError,
  InputError,
  map,
  requestDevice,
  requestDevices,
  transform,
  transformItemsPerWorkgroup,
  wgsl,
} from './index.ts';

/** The InputError message `check` throws, or undefined when it accepts. */
function refusal(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
}

describe('checkOptionsObject', () => {
  it('accepts an object or nothing, and names the function for anything else', () => {
    for (const ok of [undefined, {}, { a: 1 }, Object.create(null)]) {
      expect(refusal(() => checkOptionsObject('bfs', ok))).toBeUndefined();
    }
    const bad: [unknown, string][] = [
      [null, 'null'],
      [[], 'an array'],
      [5, 'a number'],
      ['fast', 'a string'],
      [true, 'a boolean'],
      [() => ({}), 'a function'],
    ];
    for (const [value, got] of bad) {
      expect(refusal(() => checkOptionsObject('bfs', value))).toBe(
        `options: bfs takes an options object (or none), got ${got}`,
      );
      expect(refusal(() => checkOptionsObject('kronecker', value, true))).toBe(
        `options: kronecker takes an options object, got ${got}`,
      );
    }
    // Required options: left out is refused too, an object accepted.
    expect(refusal(() => checkOptionsObject('kronecker', undefined, true))).toBe(
      'options: kronecker takes an options object, got undefined',
    );
    expect(refusal(() => checkOptionsObject('kronecker', { scale: 3 }, true))).toBeUndefined();
  });
});

describe('checkMaxIterations', () => {
  it('integers >= 0 always, Infinity only where asked, nothing else', () => {
    for (const infinite of [false, true]) {
      for (const ok of [0, 1, 7, 2 ** 40])
        expect(refusal(() => checkMaxIterations(ok, infinite))).toBeUndefined();
      for (const bad of [-1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, -0.5]) {
        const range = infinite ? 'an integer >= 0 or Infinity' : 'an integer >= 0';
        expect(refusal(() => checkMaxIterations(bad, infinite))).toBe(
          `maxIterations: maxIterations must be ${range}, got ${bad}`,
        );
      }
    }
    expect(refusal(() => checkMaxIterations(Number.POSITIVE_INFINITY, true))).toBeUndefined();
    expect(refusal(() => checkMaxIterations(Number.POSITIVE_INFINITY, false))).toBe(
      'maxIterations: maxIterations must be an integer >= 0, got Infinity',
    );
    expect(refusal(() => checkMaxIterations(-1, false, 'DynamicSssp options'))).toMatch(
      /^DynamicSssp options: /,
    );
  });
});

describe('checkTolerance', () => {
  it('finite numbers >= 0 only', () => {
    for (const ok of [0, 1e-9, 0.5, 1e30]) expect(refusal(() => checkTolerance(ok))).toBeUndefined();
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, -1e-9, Number.NEGATIVE_INFINITY]) {
      expect(refusal(() => checkTolerance(bad))).toBe(
        `tolerance: tolerance must be a finite number >= 0, got ${bad}`,
      );
    }
  });
});

describe('distanceOverflowError', () => {
  it('names the vertex and the bound of its encoding', () => {
    expect(distanceOverflowError(false, 3).message).toBe(
      'graph.weights: the distance of vertex 3 reached 2^32 - 2 (4294967294), the bound of u32 distances: ' +
        'scale the weights down',
    );
    expect(distanceOverflowError(true, 0).message).toMatch(
      /vertex 0 reached the largest finite f32 .* f32 distances/,
    );
  });
});

describe('@weft/gpu functions given null or non-object options', () => {
  // Each failed as a TypeError on the first option read (or, for requestDevice, took no options).
  it('throw an InputError naming the function', () =>
    gpuTest(async (device) => {
      const a = device.upload(Uint32Array.of(1, 2, 3, 4));
      const b = device.array('u32', 4);
      const rec = device.recorder();
      const none = wgsl`(i: u32) {}`;
      try {
        await expectOptionsRefused([
          ['requestDevice', (o) => requestDevice(o)],
          ['requestDevices', (o) => requestDevices(o)],
          ['device.array', (o) => device.array('u32', 4, o)],
          ['device.upload', (o) => device.upload(Uint32Array.of(1), o)],
          ['device.chunkedArray', (o) => device.chunkedArray('u32', 4, o)],
          ['device.uploadChunked', (o) => device.uploadChunked(Uint32Array.of(1), o)],
          ['device.recorder', (o) => device.recorder(o)],
          ['recorder.submit', (o) => rec.submit(o)],
          ['transformItemsPerWorkgroup', (o) => transformItemsPerWorkgroup(4, o)],
          ['transform', (o) => transform(device, 4, none, o)],
          ['map', (o) => map(device, 4, wgsl`(i: u32) -> u32 { return i; }`, b, o)],
          ['copy', (o) => copy(device, a, b, o)],
        ]);
        // A refused submit left the recorder as it was.
        await rec.submit();
      } finally {
        a.destroy();
        b.destroy();
      }
    }));
});
