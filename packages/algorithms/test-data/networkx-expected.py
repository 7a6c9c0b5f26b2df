#!/usr/bin/env python3
"""Writes networkx-expected.json: networkx's answers on every .mtx file of this folder.

Run it by hand after adding or changing a graph (CI never runs it; src/networkx.test.ts reads the JSON):

    python3 packages/algorithms/test-data/networkx-expected.py

Needs networkx (3.6.1 was used) and SciPy. Each file is read as Weft's parseMatrixMarket and
hostCsrFromEdgeList read it, so networkx sees the graph Weft builds:

- `symmetric` files are undirected graphs, `general` files directed (entry "i j" is the arc i-1 -> j-1);
- `pattern` files are unweighted (weight 1), `real` values are f32, `integer` values exact;
- diagonal entries (self-loops) are dropped, and repeated (source, target) pairs merged keeping the smallest weight.

For each graph the JSON holds:

- `scc`: the strongly connected components (connected components of an undirected graph), each vertex
  labelled with the smallest vertex of its component, and their count;
- `core`: `core_number` of the undirected simple graph (each arc an edge), and its maximum;
- `betweenness`: `betweenness_centrality` (normalized, endpoints excluded, unweighted) on the graph as it is
  (directed or not), from every vertex, or on larger graphs from the listed `sources`, scaled as networkx
  scales a sample of that many sources (its `k`), so the test can run them on a software adapter;
- `mst`: `minimum_spanning_tree` of the undirected weighted graph (of two opposite arcs the smaller weight):
  total weight, edge count and tree count, checked against SciPy's `minimum_spanning_tree`.
"""

import json
import math
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
from networkx.algorithms.centrality.betweenness import (
    _accumulate_basic,
    _rescale,
    _single_source_shortest_path_basic,
)

HERE = Path(__file__).resolve().parent
# Betweenness from every vertex up to this many vertices; from SAMPLE_SOURCES spread ones above it.
ALL_SOURCES_UP_TO = 36
SAMPLE_SOURCES = 12


def read_mtx(path):
    """(vertex count, directed, {(u, v): weight}) as Weft builds the CSR (one key per arc or per edge)."""
    lines = path.read_text().splitlines()
    banner = lines[0].split()
    field, symmetry = banner[3].lower(), banner[4].lower()
    assert banner[2].lower() == "coordinate" and symmetry in ("general", "symmetric"), path
    body = [line for line in lines[1:] if line.strip() and not line.startswith("%")]
    rows, cols, _ = (int(x) for x in body[0].split())
    n = max(rows, cols)
    directed = symmetry == "general"
    arcs = {}
    for line in body[1:]:
        tokens = line.split()
        i, j = int(tokens[0]) - 1, int(tokens[1]) - 1
        if field == "pattern":
            w = 1
        elif field == "integer":
            w = int(tokens[2])
        else:
            w = float(np.float32(float(tokens[2])))
        if i == j:
            continue
        key = (i, j) if directed else (min(i, j), max(i, j))
        arcs[key] = min(w, arcs.get(key, w))
    return n, directed, arcs


def undirected_weighted(n, arcs):
    """The undirected simple graph of the arcs; of two opposite arcs the smaller weight."""
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for (u, v), w in arcs.items():
        if g.has_edge(u, v):
            g[u][v]["weight"] = min(g[u][v]["weight"], w)
        else:
            g.add_edge(u, v, weight=w)
    return g


def smallest_labels(n, components):
    labels = [0] * n
    for c in components:
        m = min(c)
        for v in c:
            labels[v] = m
    return labels


def betweenness(g, sources):
    """networkx's betweenness_centrality (normalized, no endpoints); `sources` as its sample of k sources."""
    if sources is None:
        return nx.betweenness_centrality(g, normalized=True, endpoints=False)
    bc = dict.fromkeys(g, 0.0)
    for s in sources:
        order, pred, sigma, _ = _single_source_shortest_path_basic(g, s)
        bc, _ = _accumulate_basic(bc, order, pred, sigma, s)
    return _rescale(
        bc,
        len(g),
        normalized=True,
        directed=g.is_directed(),
        endpoints=False,
        sampled_nodes=sources,
    )


def rounded(x):
    """Ten significant digits: far finer than the f32 tolerance the test allows."""
    return 0 if x == 0 else float(f"{x:.10g}")


def expected(path):
    n, directed, arcs = read_mtx(path)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(arcs)
    u = undirected_weighted(n, arcs)

    comps = nx.strongly_connected_components(g) if directed else nx.connected_components(g)
    comps = list(comps)

    core = nx.core_number(u)

    sources = None
    if n > ALL_SOURCES_UP_TO:
        step = n / SAMPLE_SOURCES
        sources = sorted({int(i * step) for i in range(SAMPLE_SOURCES)})
    bc = betweenness(g, sources)

    forest = nx.minimum_spanning_tree(u, weight="weight", algorithm="kruskal")
    weight = math.fsum(d["weight"] for _, _, d in forest.edges(data=True))
    trees = nx.number_connected_components(forest)
    # SciPy's MST drops zero weights (they mean "no edge" there): only compare where none is zero.
    if all(w > 0 for w in arcs.values()):
        rows = [a for a, _ in u.edges()]
        cols = [b for _, b in u.edges()]
        vals = [d["weight"] for _, _, d in u.edges(data=True)]
        m = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))
        t = scipy.sparse.csgraph.minimum_spanning_tree(m)
        assert math.isclose(t.sum(), weight, rel_tol=1e-12), (path.name, t.sum(), weight)
        assert t.nnz == forest.number_of_edges(), path.name

    return {
        "vertices": n,
        "directed": directed,
        "edges": len(arcs),
        "scc": {"count": len(comps), "labels": smallest_labels(n, comps)},
        "core": {"max": max(core.values(), default=0), "values": [core[v] for v in range(n)]},
        "betweenness": {"sources": sources, "values": [rounded(bc[v]) for v in range(n)]},
        "mst": {"weight": rounded(weight), "edges": forest.number_of_edges(), "trees": trees},
    }


def main():
    graphs = {p.name: expected(p) for p in sorted(HERE.glob("*.mtx"))}
    out = {
        "generator": "packages/algorithms/test-data/networkx-expected.py",
        "networkx": nx.__version__,
        "scipy": scipy.__version__,
        "graphs": graphs,
    }
    text = json.dumps(out, separators=(",", ":"))
    # One graph per line keeps diffs readable.
    for name in graphs:
        text = text.replace(f'"{name}":', f'\n"{name}":', 1)
    (HERE / "networkx-expected.json").write_text(text + "\n")
    for name, g in graphs.items():
        print(
            f"{name}: n={g['vertices']} directed={g['directed']} scc={g['scc']['count']}"
            f" maxcore={g['core']['max']} mst={g['mst']['weight']} trees={g['mst']['trees']}",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
