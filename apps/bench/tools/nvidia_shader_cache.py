#!/usr/bin/env python3
"""Registers, occupancy and code of the compute pipelines in an NVIDIA driver shader cache.

Dawn exposes no register counts or occupancy, but the NVIDIA Vulkan driver caches every pipeline it
compiles. Run the bench with the cache in a folder of your own, bring the folder back, then read it here:

    mkdir -p $OUT/nvc && __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$OUT/nvc \
      __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 node bench.mjs bench ...
    python3 nvidia_shader_cache.py nvc [--code DIR]

For each pipeline it prints the workgroup memory in bytes, the workgroups per SM the driver plans for,
the registers per thread and the size of the machine code. `--code DIR` writes each pipeline's machine
code to DIR/<n>.bin for `nvdisasm -b SM90 DIR/<n>.bin` (the CUDA toolkit is on the GPU machine; data
follows the code, so nvdisasm reports illegal instructions past the last EXIT: cut the file there).
`--sass` (with `--code`) does that itself: it writes DIR/<n>.sass, cut at the first illegal address, and
prints per pipeline the instructions and the counts that bounded the radix sort's kernels (barriers,
workgroup-memory loads, stores and atomics, subgroup votes and shuffles, and local-memory spills; see
docs/decisions/sort-ranking.md).

The format is undocumented. What this reads was worked out on driver 580.159.04 (H100, 2026-11-25) and
checked against kernels of known workgroup memory and the register count nvdisasm printed:
- `<hash>.toc`: a 32-byte header, then 24-byte entries (16-byte key, u32 offset, u32 size) into `<hash>.bin`;
  an entry runs to the next one's offset, a zstd frame (magic 28 b5 2f fd) after a short header.
- The frame holds, from byte 8, an `NVuc` container: u32 size at byte 32 (code bytes = size - 560),
  registers as u32 at byte 360, machine code from byte 376; and text settings `<16 hex>: value`, among
  them f31b48291227d934 (workgroup memory bytes) and 7e41e1ade87c11cd (workgroups per SM).
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ZSTD_MAGIC = bytes.fromhex('28b52ffd')


def decompress(frame: bytes) -> bytes | None:
    try:
        import zstandard  # type: ignore

        return zstandard.ZstdDecompressor().decompressobj().decompress(frame)
    except ImportError:
        pass
    if not shutil.which('zstd'):
        sys.exit('needs the zstandard module or the zstd command')
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, 'x.zst'), os.path.join(d, 'x')
        with open(src, 'wb') as f:
            f.write(frame)
        if subprocess.run(['zstd', '-d', '-q', '-f', src, '-o', dst], capture_output=True).returncode:
            return None
        with open(dst, 'rb') as f:
            return f.read()


def entries(bin_path: str):
    with open(bin_path, 'rb') as f:
        data = f.read()
    with open(bin_path[:-4] + '.toc', 'rb') as f:
        toc = f.read()
    count = (len(toc) - 32) // 24
    offsets = [struct.unpack_from('<I', toc, 32 + 24 * k + 16)[0] for k in range(count)] + [len(data)]
    for k in range(count):
        entry = data[offsets[k] : offsets[k + 1]]
        z = entry.find(ZSTD_MAGIC)
        if z >= 0:
            raw = decompress(entry[z:])
            if raw:
                yield raw


# An instruction line of nvdisasm: /*0cc0*/  [@P0 | @!P0 | @!UP1 ...] OPCODE.MODIFIERS operands ;
INSTRUCTION = re.compile(r'^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9]*)')
# Opcodes counted per pipeline by --sass (LDL/STL: registers spilled to local memory).
COUNTED = ['BAR', 'LDS', 'STS', 'ATOMS', 'VOTE', 'SHFL', 'LDL', 'STL']


def opcode_counts(sass: str) -> dict[str, int]:
    """Instructions of an nvdisasm listing by opcode (modifiers dropped), plus their total under 'all'."""
    counts: dict[str, int] = {'all': 0}
    for line in sass.splitlines():
        m = INSTRUCTION.match(line)
        if m:
            counts['all'] += 1
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def disassemble(bin_path: str, nvdisasm: str) -> str:
    """nvdisasm's listing of bin_path, cut before the first address it cannot decode (the data after the code)."""
    run = subprocess.run([nvdisasm, '-b', 'SM90', bin_path], capture_output=True, text=True)
    bad = re.search(r'address (0x[0-9a-f]+)', run.stderr)
    if bad:
        with open(bin_path, 'rb') as f:
            code = f.read()[: int(bad.group(1), 16)]
        cut = bin_path[:-4] + '.cut'
        with open(cut, 'wb') as f:
            f.write(code)
        run = subprocess.run([nvdisasm, '-b', 'SM90', cut], capture_output=True, text=True)
        os.remove(cut)
    if run.returncode != 0:
        sys.exit(f'{nvdisasm} failed on {bin_path}: {run.stderr.strip()}')
    return run.stdout


def setting(text: str, key: str) -> int | None:
    m = re.search(key + r': (0x[0-9A-Fa-f]+)', text)
    return int(m.group(1), 16) if m else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cache', help='the folder given as __GL_SHADER_DISK_CACHE_PATH')
    ap.add_argument('--code', help='write each pipeline\'s machine code to this folder')
    ap.add_argument('--sass', action='store_true', help='with --code: disassemble each pipeline and count opcodes')
    ap.add_argument('--nvdisasm', default=shutil.which('nvdisasm') or '/usr/local/cuda/bin/nvdisasm')
    args = ap.parse_args()
    if args.sass and not args.code:
        ap.error('--sass needs --code DIR')
    if args.code:
        os.makedirs(args.code, exist_ok=True)
    n = 0
    print('pipeline  workgroup-memory  workgroups/SM  registers  code-bytes')
    for bin_path in sorted(glob.glob(os.path.join(args.cache, '**', '*.bin'), recursive=True)):
        for raw in entries(bin_path):
            if raw[8:12] != b'NVuc':
                continue
            text = raw.decode('latin1')
            size = struct.unpack_from('<I', raw, 32)[0]
            regs = struct.unpack_from('<I', raw, 360)[0]
            code = raw[376 : 376 + size - 560]
            shared = setting(text, 'f31b48291227d934')
            per_sm = setting(text, '7e41e1ade87c11cd')
            print(f'{n:8d}  {shared!s:>16}  {per_sm!s:>13}  {regs:9d}  {len(code):10d}')
            if args.code:
                with open(os.path.join(args.code, f'{n}.bin'), 'wb') as f:
                    f.write(code)
            n += 1
    if args.sass:
        print()
        print('pipeline  instructions  ' + '  '.join(f'{op:>5}' for op in COUNTED))
        for k in range(n):
            sass = disassemble(os.path.join(args.code, f'{k}.bin'), args.nvdisasm)
            with open(os.path.join(args.code, f'{k}.sass'), 'w') as f:
                f.write(sass)
            counts = opcode_counts(sass)
            print(f'{k:8d}  {counts["all"]:12d}  ' + '  '.join(f'{counts.get(op, 0):5d}' for op in COUNTED))


if __name__ == '__main__':
    main()
