import { checkOptionsObject } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import type { LouvainOptions } from './community-reference.ts';
import type { LeidenResult } from './leiden-reference.ts';
import { communityLevels } from './louvain.ts';

/**
 * Leiden community detection on the GPU: each level's local moving is Louvain's (`louvain`), started from the
 * previous level's communities, plus moves to an empty community; then a refinement splits every community
 * into sub-communities: all vertices start alone and, in rounds, a seeded half of the unmerged singletons
 * (the joiners) each join the sub-community of their own community with the largest positive modularity gain
 * whose founder is not a joiner (a deterministic greedy variant of Traag et al.'s θ-random choice, without
 * their well-connectedness filter). The next level's graph aggregates the refined partition. Sub-communities
 * are connected by construction; after the levels come a pass of local moving on the original graph (as
 * Louvain's last) and a union-find over the arcs inside communities that splits each community into its
 * connected parts, so no returned community is disconnected. Two iterations, as leidenalg's default: the
 * second starts over on the original graph from the first's communities. Weighted, undirected; a directed
 * graph runs as its undirected graph.
 */
export async function leiden(graph: DeviceGraph, options: LouvainOptions = {}): Promise<LeidenResult> {
  checkOptionsObject('leiden', options);
  return communityLevels(graph, options, true);
}
