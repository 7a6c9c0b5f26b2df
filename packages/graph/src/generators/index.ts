/** Host edge lists, deterministic for a seed: Kronecker, uniform random, random geometric, grid, road-like. */
export { type GeometricGraph, type RandomGeometricOptions, randomGeometric } from './geometric.ts';
export { type GridOptions, grid } from './grid.ts';
export { type KroneckerOptions, kronecker, randomPermutation } from './kronecker.ts';
export { type RoadOptions, road } from './road.ts';
export { type UniformRandomOptions, uniformRandom } from './uniform.ts';
