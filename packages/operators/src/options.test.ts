import { compactArray, compactFused, compactUpsweep } from '@weft/compact';
import { transformLbs } from '@weft/lbs';
import { exclusiveScan, inclusiveScan, reduce, transformScan, transformScanTo } from '@weft/scan';
import { segmentedReduce, transformSegreduce } from '@weft/segreduce';
import { intersectCount, radixTileConfig, sortedSearch, sortKeys, sortPairs } from '@weft/sort';
import { expectOptionsRefused, gpuTest } from '@weft/testing';
import { describe, it } from 'vitest';
import {
  advanceDirectionOptimized,
  advancePull,
  advancePush,
  advanceSmallFrontier,
  Cascade,
  compute,
  DisjointSets,
  enact,
  filter,
  GasLoop,
  gas,
  intersectionCount,
  neighborhoodReduce,
  SmallFrontierState,
} from './index.ts';

/** Arguments before the options: the check comes first, so they are never read. */
const unread = undefined as never;

describe('operator and primitive functions given null or non-object options', () => {
  // Each failed as a TypeError reading the first option.
  it('throw an InputError naming the function', () =>
    gpuTest(async (device) => {
      await expectOptionsRefused([
        ['advancePush', (o) => advancePush(device, unread, unread, unread, o)],
        ['advancePull', (o) => advancePull(device, unread, unread, unread, o)],
        ['filter', (o) => filter(device, unread, unread, unread, o)],
        ['enact', (o) => enact(device, unread, o)],
        ['compute', (o) => compute(device, unread, unread, o)],
        ['gas', (o) => gas(unread, unread, o)],
        ['new GasLoop', (o) => new GasLoop(unread, unread, o)],
        ['new Cascade', (o) => new Cascade(unread, unread, unread, o)],
        ['new DisjointSets', (o) => new DisjointSets(device, 4, o)],
        ['new SmallFrontierState', (o) => new SmallFrontierState(device, o)],
        ['intersectionCount', (o) => intersectionCount(device, unread, unread, unread, unread, unread, o)],
        ['neighborhoodReduce', (o) => neighborhoodReduce(device, unread, unread, unread, unread, o)],
        ['reduce', (o) => reduce(device, unread, unread, o)],
        ['exclusiveScan', (o) => exclusiveScan(device, unread, unread, o)],
        ['inclusiveScan', (o) => inclusiveScan(device, unread, unread, o)],
        ['transformScan', (o) => transformScan(device, unread, unread, unread, o)],
        ['transformSegreduce', (o) => transformSegreduce(device, unread, unread, unread, unread, unread, o)],
        ['segmentedReduce', (o) => segmentedReduce(device, unread, unread, unread, unread, o)],
        ['sortKeys', (o) => sortKeys(device, unread, o)],
        ['sortPairs', (o) => sortPairs(device, unread, unread, o)],
        ['radixTileConfig', (o) => radixTileConfig(device, o)],
        ['sortedSearch', (o) => sortedSearch(device, unread, unread, unread, o)],
        ['intersectCount', (o) => intersectCount(device, unread, unread, o)],
        ['transformLbs', (o) => transformLbs(device, unread, unread, unread, unread, o)],
        ['compactUpsweep', (o) => compactUpsweep(device, unread, unread, o)],
        ['compactFused', (o) => compactFused(device, unread, unread, unread, unread, o)],
        ['compactArray', (o) => compactArray(device, unread, unread, unread, unread, o)],
      ]);
    }));
});

describe('operators whose options are required, given none, null or a non-object', () => {
  it('throw an InputError naming the function', () =>
    gpuTest(async (device) => {
      await expectOptionsRefused(
        [
          [
            'advanceDirectionOptimized',
            (o) => advanceDirectionOptimized(device, unread, unread, unread, unread, o),
          ],
          ['advanceSmallFrontier', (o) => advanceSmallFrontier(device, unread, unread, unread, o)],
          ['transformScanTo', (o) => transformScanTo(device, unread, unread, unread, o)],
        ],
        true,
      );
    }));
});
