#!/usr/bin/env python3
"""PyTorch anchors for the PageRank family, on the .wcsr graph file Weft reads, in the same device command.

Usage: python3 torch_graph_anchors.py GRAPH.wcsr [--iterations 20] [--blocks 5] [--warmup-ms 1000] [--out FILE]

What a PyTorch user writes: the graph as a CSR sparse tensor (`torch.sparse_csr_tensor`, cuSPARSE SpMV), and
  - `spmv`: `torch.mv(A, x)` alone, the kernel every iteration of the family is built on;
  - `pagerank`: one power iteration, r' = a A^T (r / outdeg) + (1 - a + a * dangling mass) / n, with the
    dangling vertices' indices found once (no host synchronisation inside the loop).
Both are timed with CUDA events over `--iterations` back-to-back iterations, after `--warmup-ms` of the same
work (GPU clocks ramp up over about a second, as Weft's bench allows them), in `--blocks` blocks; the median
block gives the time per iteration. The file must hold a symmetric graph (A^T = A): Weft's Kronecker graphs do.
"""
import argparse, json, statistics, sys, time

import numpy as np


def read_wcsr(path):
    raw = np.fromfile(path, dtype=np.uint8)
    if raw[:8].tobytes() != b"WEFTCSR\x00":
        sys.exit(f"{path}: not a .wcsr file")
    n, m = (int(x) for x in np.frombuffer(raw[16:32].tobytes(), dtype="<u8"))
    at = 32
    offsets = np.frombuffer(raw[at:at + 4 * (n + 1)].tobytes(), dtype="<u4").astype(np.int64)
    at += 4 * (n + 1)
    targets = np.frombuffer(raw[at:at + 4 * m].tobytes(), dtype="<u4").astype(np.int64)
    return n, m, offsets, targets


def per_iteration_ms(torch, step, iterations, blocks, warmup_ms):
    """Median over blocks of the CUDA-event time of `iterations` steps, after `warmup_ms` of steps."""
    start = time.perf_counter()
    while (time.perf_counter() - start) * 1e3 < warmup_ms:
        for _ in range(iterations):
            step()
        torch.cuda.synchronize()
    times = []
    for _ in range(blocks):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iterations):
            step()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / iterations)
    return statistics.median(times), min(times), max(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--blocks", type=int, default=5)
    p.add_argument("--warmup-ms", type=float, default=1000)
    p.add_argument("--out")
    a = p.parse_args()
    n, m, offsets, targets = read_wcsr(a.graph)
    import torch

    dev = torch.device("cuda")
    crow = torch.from_numpy(offsets).to(dev)
    col = torch.from_numpy(targets).to(dev)
    A = torch.sparse_csr_tensor(crow, col, torch.ones(m, device=dev), size=(n, n))
    outdeg = (crow[1:] - crow[:-1]).to(torch.float32)
    inv = torch.where(outdeg > 0, 1.0 / outdeg, torch.zeros_like(outdeg))
    dangling = torch.nonzero(outdeg == 0).flatten()
    alpha = 0.85
    state = {"x": torch.full((n,), 1.0 / n, device=dev), "r": torch.full((n,), 1.0 / n, device=dev)}

    def spmv():
        state["y"] = torch.mv(A, state["x"])

    def pagerank():
        r = state["r"]
        d = r.index_select(0, dangling).sum()
        state["r"] = alpha * torch.mv(A, r * inv) + (1 - alpha + alpha * d) / n

    res = {"tool": "torch", "version": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "graph": a.graph, "n": n, "arcs": m}
    for name, step in (("spmv", spmv), ("pagerank", pagerank)):
        ms, lo, hi = per_iteration_ms(torch, step, a.iterations, a.blocks, a.warmup_ms)
        res[f"{name}_ms_per_iteration"] = ms
        res[f"{name}_ms_range"] = [lo, hi]
        print(f"torch {name:9s} {ms:8.4f} ms an iteration (blocks {lo:.4f} .. {hi:.4f}), "
              f"{m / ms / 1e6:7.2f} G arcs/s", file=sys.stderr)
    print(json.dumps(res))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
