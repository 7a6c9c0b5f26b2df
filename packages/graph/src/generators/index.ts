/**
 * Host edge lists, deterministic for a seed: Kronecker, uniform random, random geometric, grid, road-like;
 * and counter-based generators that run on the GPU, with host twins that make the same edge lists.
 *
 * @module @weft/graph/generators
 */
export {
  type KroneckerOnDeviceOptions,
  multigraphCsr,
  pairWeight,
  pairWeightKey,
  philoxKronecker,
  philoxKroneckerMultigraph,
  philoxUniform,
  philoxUniformMultigraph,
  type UniformOnDeviceOptions,
  type WeightParameters,
} from './counter-based.ts';
export {
  checkDeviceBuildFits,
  type GeneratedEdges,
  kroneckerOnDevice,
  type OnDeviceBuildOptions,
  recordKroneckerEdges,
  recordUniformEdges,
  uniformOnDevice,
} from './device-generators.ts';
export {
  kroneckerMultigraphOnDevice,
  kroneckerMultigraphPartitioned,
  pairWeightFunctor,
  uniformMultigraphOnDevice,
  uniformMultigraphPartitioned,
} from './device-multigraph.ts';
export { type GeometricGraph, type RandomGeometricOptions, randomGeometric } from './geometric.ts';
export { type GridOptions, grid } from './grid.ts';
export { type KroneckerOptions, kronecker, randomPermutation } from './kronecker.ts';
export { philox2x32 } from './philox.ts';
export { type RoadOptions, road } from './road.ts';
export { type UniformRandomOptions, uniformRandom } from './uniform.ts';
