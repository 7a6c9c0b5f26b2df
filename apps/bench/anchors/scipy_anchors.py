#!/usr/bin/env python3
"""CPU anchors for Weft's graph algorithms, measured on the same graphs in the same command: SciPy (csgraph)
and NumPy, on the GPU machine's host.

Usage: python3 scipy_anchors.py --manifest graphs/manifest.json --out scipy.json [--max-sources 8] [--triangles]
The manifest is written by `weft graphs --out DIR`: [{"graph": name, "n": items key, "file": "x.wcsr",
"sources": [...]}]. Graphs are read from Weft's .wcsr files (see packages/graph/src/io/binary-csr.ts).
Per graph: BFS and Dijkstra from each source (median), connected and strongly connected components, the
minimum spanning forest (weights >= 1 here: csgraph reads a zero weight as no edge), PageRank by power
iteration, and with --triangles, triangles of undirected graphs (SciPy sparse products over the
degree-oriented graph: 72 s at Kronecker scale 20 on a build machine core, so opt-in).
"""
import argparse, json, os, statistics, sys, time

import numpy as np


def read_wcsr(path):
    raw = np.fromfile(path, dtype=np.uint8)
    if raw[:8].tobytes() != b"WEFTCSR\x00":
        sys.exit(f"{path}: not a .wcsr file")
    version, flags = np.frombuffer(raw[8:16].tobytes(), dtype="<u4")
    n, m = (int(x) for x in np.frombuffer(raw[16:32].tobytes(), dtype="<u8"))
    at = 32
    offsets = np.frombuffer(raw[at:at + 4 * (n + 1)].tobytes(), dtype="<u4").astype(np.int64); at += 4 * (n + 1)
    targets = np.frombuffer(raw[at:at + 4 * m].tobytes(), dtype="<u4").astype(np.int32); at += 4 * m
    weights = None
    if flags & 1:
        wtype = ["<f4", "<u4", "<i4"][(flags >> 2) & 3]
        weights = np.frombuffer(raw[at:at + 4 * m].tobytes(), dtype=wtype).astype(np.float64)
    return n, m, offsets, targets, weights


def is_symmetric(offsets, targets, n):
    """Whether every arc has its reverse (an undirected graph), by comparing sorted arc lists."""
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    dst = targets.astype(np.int64)
    return bool(np.array_equal(np.sort(src * n + dst), np.sort(dst * n + src)))


def count_triangles(n, offsets, targets, degree):
    """Triangles of an undirected simple graph (both arcs stored): orient each edge from lower to higher
    (degree, id) rank, then sum over row blocks of (L @ L) masked by L: each triangle once."""
    from scipy.sparse import csr_matrix

    order = np.lexsort((np.arange(n), degree))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    src = rank[np.repeat(np.arange(n), np.diff(offsets))]
    dst = rank[targets]
    up = dst > src
    lower = csr_matrix((np.ones(int(up.sum()), dtype=np.int64), (src[up], dst[up])), shape=(n, n))
    count = 0
    # Row blocks bound the memory of the wedge products.
    block = max(1, n // 64)
    for start in range(0, n, block):
        rows = lower[start:start + block]
        count += int((rows @ lower).multiply(rows).sum(dtype=np.int64))
    return count


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--max-sources", type=int, default=8)
    p.add_argument("--triangles", action="store_true", help="also count triangles (slow: minutes from scale 21)")
    a = p.parse_args()
    import scipy
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components, dijkstra, minimum_spanning_tree

    manifest = json.load(open(a.manifest))
    base = os.path.dirname(a.manifest)
    results = []

    def add(name, entry, ms, items, extra=None):
        r = dict(name=name, n=entry["n"], graph=entry["graph"], ms=ms, itemsPerSec=items / (ms / 1e3) if ms > 0 else 0,
                 bytesPerSec=0)
        if extra:
            r.update(extra)
        results.append(r)
        print(f"{name:24s} {entry['graph']:28s} {ms:10.2f} ms  {items / ms / 1e3 if ms > 0 else 0:10.2f} M items/s",
              file=sys.stderr)

    for entry in manifest:
        n, m, offsets, targets, weights = read_wcsr(os.path.join(base, entry["file"]))
        ones = np.ones(m, dtype=np.float64)
        g = csr_matrix((ones, targets, offsets), shape=(n, n))
        gw = csr_matrix((weights if weights is not None else ones, targets, offsets), shape=(n, n))
        degree = np.diff(offsets)
        sources = entry["sources"][: a.max_sources]
        bfs_ms, bfs_edges = [], []
        for s in sources:
            t = time.perf_counter()
            order = breadth_first_order(g, s, directed=True, return_predecessors=False)
            bfs_ms.append((time.perf_counter() - t) * 1e3)
            bfs_edges.append(int(degree[order].sum()) / 2)
        if sources:
            # Items as the bench counts them (Graph500 TEPS): undirected edges of the reached component.
            add(f"scipy bfs {entry['graph']}", entry, statistics.median(bfs_ms), statistics.median(bfs_edges))
            dj_ms, dj_edges = [], []
            for s in sources[:2]:
                t = time.perf_counter()
                dist = dijkstra(gw, directed=True, indices=s)
                dj_ms.append((time.perf_counter() - t) * 1e3)
                dj_edges.append(int(degree[np.isfinite(dist)].sum()) / 2)
            add(f"scipy dijkstra {entry['graph']}", entry, statistics.median(dj_ms), statistics.median(dj_edges))
        t = time.perf_counter()
        connected_components(g, directed=False)
        add(f"scipy cc {entry['graph']}", entry, (time.perf_counter() - t) * 1e3, m / 2)
        # Strongly connected components (Pearce's algorithm in csgraph); items as the bench counts scc.
        t = time.perf_counter()
        connected_components(g, directed=True, connection="strong")
        add(f"scipy scc {entry['graph']}", entry, (time.perf_counter() - t) * 1e3,
            m if entry.get("directed") else m / 2)
        # Minimum spanning forest (Kruskal in csgraph) on the weighted graph read as undirected, as Weft's
        # mst reads it; items: edges, as the bench counts mst.
        t = time.perf_counter()
        minimum_spanning_tree(gw)
        add(f"scipy mst {entry['graph']}", entry, (time.perf_counter() - t) * 1e3,
            m if entry.get("directed") else m / 2)
        if a.triangles and is_symmetric(offsets, targets, n):
            t = time.perf_counter()
            triangles = count_triangles(n, offsets, targets, degree)
            add(f"scipy triangles {entry['graph']}", entry, (time.perf_counter() - t) * 1e3, m / 2,
                dict(triangles=triangles))
        # PageRank by power iteration (alpha 0.85, 20 iterations, dangling mass spread uniformly).
        gt = g.T.tocsr()
        out_deg = degree.astype(np.float64)
        inv = np.where(out_deg > 0, 1.0 / np.maximum(out_deg, 1), 0.0)
        r = np.full(n, 1.0 / n)
        t = time.perf_counter()
        for _ in range(20):
            dangling = r[out_deg == 0].sum()
            r = 0.15 / n + 0.85 * (gt @ (r * inv) + dangling / n)
        # Items: arcs x iterations, as the bench counts PageRank.
        add(f"numpy pagerank {entry['graph']}", entry, (time.perf_counter() - t) * 1e3, 20 * m)

    info = dict(tool="scipy", version=scipy.__version__, device="host CPU (" + (os.uname().machine) + ")",
                results=results)
    with open(a.out, "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
