#!/usr/bin/env python3
"""CPU anchors from gapbs (the GAP Benchmark Suite's OpenMP kernels) on the graphs Weft runs on, in the same
command: BFS, SSSP (delta-stepping, the best of several deltas), CC and BC (Brandes).

Usage: python3 gapbs_anchors.py --manifest graphs/manifest.json --gapbs ../shared/anchors/gapbs --out gapbs.json
       [--max-sources 8] [--trials 8] [--deltas 1,2,4,...]
The manifest is written by `weft graphs --out DIR`. Each .wcsr is converted to gapbs's own .sg/.wsg (the same
CSR: no text parsing, the same arcs and weights; undirected graphs stay undirected), the kernels are built with
g++ -fopenmp (the Makefile's flags) and run with `-r SOURCE -n TRIALS`; gapbs's "Average Time" excludes its graph
build. Items are counted as the bench counts them (TEPS: undirected edges of the reached vertices), so the
report's ratios are ours / gapbs. Results are named `gapbs <algo> <graph>`, which the bench's --anchors matches.
BC runs `bc -r SOURCE -i 1` (one source an iteration, as the bench's `bc` case times a run) from the first
--bc-sources of the same sources: its time is per source, its items the TEPS edges of that source's traversal.
"""
import argparse, json, os, re, statistics, subprocess, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scipy_anchors import read_wcsr  # noqa: E402

KERNELS = ("bfs", "sssp", "cc", "bc")


def build(gapbs):
    """Builds the kernels beside their sources (the flags of gapbs's Makefile), in parallel."""
    procs = []
    for k in KERNELS:
        exe = os.path.join(gapbs, k)
        src = os.path.join(gapbs, "src", k + ".cc")
        if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
            continue
        procs.append(subprocess.Popen(["g++", "-std=c++11", "-O3", "-Wall", "-fopenmp", src, "-o", exe]))
    for p in procs:
        if p.wait() != 0:
            sys.exit("building gapbs failed")


def write_sg(path, n, offsets, targets, weights, directed):
    """gapbs's serialized graph: directed flag, arcs, vertices (int64), offsets (int64), then neighbours
    (int32, or int32 pairs with the weight for .wsg); a directed graph repeats both for its in-edges."""
    def body(offs, neigh, w):
        parts = [offs.astype("<i8").tobytes()]
        if w is None:
            parts.append(neigh.astype("<i4").tobytes())
        else:
            pairs = np.empty((len(neigh), 2), dtype="<i4")
            pairs[:, 0] = neigh
            pairs[:, 1] = w
            parts.append(pairs.tobytes())
        return parts

    with open(path, "wb") as f:
        f.write(np.array([1 if directed else 0], dtype=np.uint8).tobytes())
        f.write(np.array([len(targets), n], dtype="<i8").tobytes())
        for part in body(offsets, targets, weights):
            f.write(part)
        if directed:
            src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
            order = np.lexsort((src, targets))
            in_offsets = np.concatenate([[0], np.cumsum(np.bincount(targets, minlength=n))])
            for part in body(in_offsets, src[order], None if weights is None else weights[order]):
                f.write(part)


def average_seconds(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"Average Time:\s+([0-9.eE+-]+)", out)
    if not m:
        sys.exit(f"no 'Average Time' from {' '.join(cmd)}:\n{out}")
    return float(m.group(1))


def reached_edges(offsets, targets, n, source, directed):
    """TEPS edges of a traversal from `source`: arcs out of reached vertices, halved when undirected."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    g = csr_matrix((np.ones(len(targets)), targets, offsets), shape=(n, n))
    order = breadth_first_order(g, source, directed=True, return_predecessors=False)
    arcs = int(np.diff(offsets)[order].sum())
    return arcs if directed else arcs / 2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True)
    p.add_argument("--gapbs", required=True, help="the gapbs folder (Makefile and src/)")
    p.add_argument("--out", required=True)
    p.add_argument("--max-sources", type=int, default=8)
    p.add_argument("--trials", type=int, default=8)
    p.add_argument("--bc-sources", type=int, default=8, help="the bench's BC_SOURCES")
    p.add_argument("--deltas", default="1,2,4,8,16,32,64,128,256,512,1024,2048,4096,16384,65536")
    a = p.parse_args()
    build(a.gapbs)
    exe = {k: os.path.join(a.gapbs, k) for k in KERNELS}
    manifest = json.load(open(a.manifest))
    base = os.path.dirname(a.manifest)
    results = []

    def add(name, entry, seconds, items, extra=None):
        ms = seconds * 1e3
        r = dict(name=name, n=entry["n"], graph=entry["graph"], ms=ms,
                 itemsPerSec=items / seconds if seconds > 0 else 0, bytesPerSec=0)
        r.update(extra or {})
        results.append(r)
        print(f"{name:28s} n={entry['n']:<11d} {ms:10.3f} ms  {items / ms / 1e3 if ms > 0 else 0:10.2f} M items/s",
              file=sys.stderr)

    for entry in manifest:
        n, m, offsets, targets, weights = read_wcsr(os.path.join(base, entry["file"]))
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
        directed = not np.array_equal(np.sort(src * n + targets), np.sort(targets.astype(np.int64) * n + src))
        stem = os.path.join(base, os.path.splitext(entry["file"])[0])
        write_sg(stem + ".sg", n, offsets, targets, None, directed)
        w = (weights if weights is not None else np.ones(m)).astype(np.int64)
        write_sg(stem + ".wsg", n, offsets, targets, w, directed)
        sources = entry["sources"][: a.max_sources]
        trials = str(a.trials)
        if sources:
            times = [average_seconds([exe["bfs"], "-f", stem + ".sg", "-n", trials, "-r", str(s)]) for s in sources]
            edges = [reached_edges(offsets, targets, n, s, directed) for s in sources]
            add(f"gapbs bfs {entry['graph']}", entry, statistics.median(times), statistics.median(edges))
            # The best delta from the first source, then every source with it (GAP tunes delta per graph).
            deltas = [int(d) for d in a.deltas.split(",")]
            probe = {d: average_seconds([exe["sssp"], "-f", stem + ".wsg", "-n", "2", "-r", str(sources[0]),
                                         "-d", str(d)]) for d in deltas}
            best = min(probe, key=probe.get)
            times = [average_seconds([exe["sssp"], "-f", stem + ".wsg", "-n", trials, "-r", str(s), "-d", str(best)])
                     for s in sources]
            add(f"gapbs sssp {entry['graph']}", entry, statistics.median(times), statistics.median(edges),
                dict(delta=best))
            bc_sources = entry["sources"][: a.bc_sources]
            times = [average_seconds([exe["bc"], "-f", stem + ".sg", "-n", trials, "-r", str(s), "-i", "1"])
                     for s in bc_sources]
            bc_edges = [reached_edges(offsets, targets, n, s, directed) for s in bc_sources]
            add(f"gapbs bc {entry['graph']}", entry, statistics.median(times), statistics.median(bc_edges),
                dict(sources=len(bc_sources)))
        seconds = average_seconds([exe["cc"], "-f", stem + ".sg", "-n", trials])
        add(f"gapbs cc {entry['graph']}", entry, seconds, m if directed else m / 2)

    threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    info = dict(tool="gapbs", version="b5e3e19",
                device=f"host CPU ({os.uname().machine}, {threads} OpenMP threads)", results=results)
    with open(a.out, "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
