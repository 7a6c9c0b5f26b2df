#!/usr/bin/env python3
"""Anchors for Weft's primitives suite, measured on the same GPU in the same command: PyTorch (CUDA events).

Usage: python3 torch_anchors.py --sizes 16,20,24,27 --repeat 20 --out anchors.json
Each anchor is the median of --repeat runs after a warm-up, on int32 data (float32 for sum is not used).
"""
import argparse, json, statistics, sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="16,18,20,22,24,26,27", help="log2 sizes")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    import torch

    dev = torch.device("cuda")
    results = []

    def timed(fn, repeat):
        fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        return statistics.median(times), min(times), max(times)

    for lg in [int(x) for x in a.sizes.split(",")]:
        n = 1 << lg
        x = torch.randint(0, 2**31 - 1, (n,), dtype=torch.int32, device=dev)
        y = torch.empty_like(x)
        small = torch.randint(0, 16, (n,), dtype=torch.int32, device=dev)
        cases = [
            ("torch copy int32", lambda: y.copy_(x), 8 * n),
            ("torch cumsum int32", lambda: torch.cumsum(small, 0, out=y), 8 * n),
            ("torch sum int32", lambda: torch.sum(small), 4 * n),
            ("torch sort int32 (values + int64 indices)", lambda: torch.sort(x), 8 * n),
        ]
        for name, fn, bytes_ in cases:
            ms, lo, hi = timed(fn, a.repeat)
            results.append(dict(name=name, n=n, ms=ms, minMs=lo, maxMs=hi,
                                itemsPerSec=n / (ms / 1e3), bytesPerSec=bytes_ / (ms / 1e3)))
            print(f"{name:45s} 2^{lg:<3d} {ms:9.4f} ms  {n / ms / 1e6:8.2f} G items/s  {bytes_ / ms / 1e9:8.3f} TB/s",
                  file=sys.stderr)
        del x, y, small
        torch.cuda.empty_cache()

    info = dict(tool="torch", version=torch.__version__, cuda=torch.version.cuda,
                device=torch.cuda.get_device_name(0), results=results)
    with open(a.out, "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
