# The next H100 run for issue #3 (sort keys <= 4 ms at 2^27), one device command. See README.md here.
# Before packing, on the workstation:
#   cd apps/bench && pnpm bundle && cp dist/bench.mjs /tmp/bench-head.mjs
#   cd ../.. && git apply docs/bench/2026-11-28-lavapipe/next-ballot-forms.patch
#   (cd apps/bench && pnpm bundle && cp dist/bench.mjs /tmp/bench-ballot.mjs) && git checkout packages/sort
#   cp /tmp/bench-head.mjs apps/bench/dist/bench.mjs
#   bash ../shared/device/pack.sh apps/bench/dist/bench.mjs /tmp/bench-ballot.mjs apps/bench/dist/profile.mjs \
#     apps/bench/anchors/torch_anchors.py apps/bench/tools/nvidia_shader_cache.py /usr/bin/zstd
#   cp docs/bench/2026-11-28-lavapipe/next-h100.sh .device/go.sh
# Then: run `bash .device/run.sh bash go.sh` with carry [".device"].
set -x
K='^sort keys u32( stable first)?( \((onesweep|reduce-then-scan)\))?$'
mkdir -p $OUT/nvc/a
# 1. The unstable first pass against the ballot-ranked one, same process, twice.
__GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$OUT/nvc/a __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
  node bench.mjs bench --suite primitives,tune --sizes 20,24,27 --cases "$K|^sort pairs u32/u32$" --json $OUT/n1-unstable.json 2>&1 | grep -E "ms,|invalid|rror"
node bench.mjs bench --suite primitives,tune --sizes 27 --cases "^sort keys u32( stable first)?$" --json $OUT/n1-again.json 2>&1 | grep -E "ms,|invalid|rror"
# Tile shapes again, now that the first pass ranks without ballots (kpt 12 / 20 / 24 were slower with ballots).
node bench.mjs bench --suite tune --sizes 27 --cases "^sort keys u32 (kpt (12|20|24)|wg 128)$" --json $OUT/n1-tiles.json 2>&1 | grep -E "ms,|invalid|rror"
node profile.mjs --suite primitives --cases "^sort keys u32$" --sizes 27 --runs 5 --json $OUT/n1-profile.json 2>&1 | tail -6
node profile.mjs --suite tune --cases "^sort keys u32 stable first$" --sizes 27 --runs 5 --json $OUT/n1-profile-stable.json 2>&1 | tail -6
# 2. The ballot loop written three other ways (the patch's WEFT_BALLOT), against the unpatched bundle.
for v in xor xor2 ifelse; do
  mkdir -p $OUT/nvc/$v
  WEFT_BALLOT=$v __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$OUT/nvc/$v __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
    node bench-ballot.mjs bench --suite primitives,tune --sizes 24,27 --cases "^sort (keys u32 stable first|pairs u32/u32)$" --json $OUT/n2-$v.json 2>&1 | grep -E "ms,|invalid|rror"
done
node bench.mjs bench --suite primitives,tune --sizes 24,27 --cases "^sort (keys u32 stable first|pairs u32/u32)$" --json $OUT/n2-head.json 2>&1 | grep -E "ms,|invalid|rror"
# 3. Machine code of every pipeline (instructions, BAR, LDS, STS, ATOMS, VOTE, SHFL, spills).
for v in a xor xor2 ifelse; do echo "== $v"; python3 nvidia_shader_cache.py $OUT/nvc/$v --code $OUT/code-$v --sass 2>&1 | tail -14; done
rm -rf $OUT/nvc
