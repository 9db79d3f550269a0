#!/usr/bin/env bash
# bench/run train: one tiny-GPT training step (forward, backward, AdamW) in icl vs
# PyTorch 1.13 (Debian's python3-torch, OpenBLAS), one thread each, for the configs
# S, M, L of TOOLCHAIN.md; then the same step in wasm under node for S and M.
# Per config the two sides run back to back, so machine noise hits both alike.
# Native steps (both sides) are timed by the process's CPU clock, median of the
# samples; the wasm ratios compare the fastest wall-clock sample in wasm with the
# fastest wall-clock sample natively (wasm has no usable CPU clock).
# Prints, each figure beside its goal (issue 21):
#   config=<S|M|L> icl_ms=<x> torch_ms=<y> speedup=<torch_ms/icl_ms> goal=>=<g>
#   wasm_config=<S|M> ms=<x> wasm_slowdown=<wasm/best native> wasm_slowdown_vs_sse=<wasm/native SSE4.1> goal=<=1.0
#   phase_change native_ms=<x> wasm_ms=<y> step=<s> goal_wasm_ms=<=10000
# (phase_change: the wall time until the induction_heads demo, stepped through the
# worker's JSON API in 25 ms slices as the page does, first reports its phase change)
# then where one native step spends its time, per phase (icl_bench_train --profile,
# whose header says more; bench/run profile [S M L] prints only that).
# Both build trees are configured with -DICL_PROFILE=ON: the timers are compiled in
# but stay off except in the --profile run (icl/profile.h).
# PyTorch runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (its best kernel);
# icl reads neither.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc)
build() {
  cmake --build "$1" -j "$jobs" --target icl_bench_train >"$1/bench-build.log" 2>&1 ||
    { cat "$1/bench-build.log" >&2; exit 1; }
}

profiled() { grep -q '^ICL_PROFILE:BOOL=ON' "$1/CMakeCache.txt" 2>/dev/null; }
profiled build/bench || cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DICL_BUILD_BENCH=ON -DICL_PROFILE=ON -DICL_BIN_DIR="$root/build/bench/bin" >/dev/null
build build/bench
if [ "${1:-}" = profile ]; then
  shift
  exec build/bench/bin/icl_bench_train --profile "$@"
fi
inc=build/wasm-include
mkdir -p "$inc"
for d in xtensor xtl xsimd nlohmann doctest; do ln -sfn "/usr/include/$d" "$inc/$d"; done
export NODE_PATH=/usr/share/nodejs
profiled build/bench-wasm || emcmake cmake -S . -B build/bench-wasm -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DICL_BUILD_BENCH=ON -DICL_PROFILE=ON -DICL_WASM_INCLUDE="$root/$inc" \
    -DICL_BIN_DIR="$root/build/bench-wasm/bin" >/dev/null 2>&1
build build/bench-wasm

# "train config=S isa=avx512 ms=1.2 wall_ms=1.3": a field of one isa's line, or of
# the first line (the best isa)
field() { sed -n "s/^train config=$2 isa=$3 \(.* \)\{0,1\}$4=\([^ ]*\).*/\2/p" <<<"$1" | head -1; }
best_ms() { field "$1" "$2" '[^ ]*' ms; }
declare -A native_out
for c in S M L; do
  native_out[$c]=$(build/bench/bin/icl_bench_train "$c")
  torch=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
      /usr/bin/python3 bench/train_torch.py "$c")
  [ "$c" = S ] && echo "icl_isa=$(sed -n 's/^train config=S isa=\([^ ]*\).*/\1/p' <<<"${native_out[$c]}" | head -1) torch_blas=$(sed -n 's/.*blas=\([^ ]*\).*/\1/p' <<<"$torch")"
  awk -v c="$c" -v i="$(best_ms "${native_out[$c]}" "$c")" -v t="$(sed -n 's/.*ms=\([^ ]*\).*/\1/p' <<<"$torch")" \
      -v g="$(case $c in S) echo 2.5;; M) echo 2;; L) echo 1.8;; esac)" \
      'BEGIN { printf "config=%s icl_ms=%.2f torch_ms=%.2f speedup=%.2f goal=>=%s\n", c, i, t, t / i, g }'
done
for c in S M; do
  wasm=$(node tests/run-wasm-tests.mjs build/bench-wasm/bin/icl_bench_train.js "$c")
  awk -v c="$c" -v w="$(best_ms "$wasm" "$c")" -v b="$(field "${native_out[$c]}" "$c" '[^ ]*' wall_ms)" \
      -v s="$(field "${native_out[$c]}" "$c" sse4.1 wall_ms)" \
      'BEGIN { printf "wasm_config=%s ms=%.2f wasm_slowdown=%.2f wasm_slowdown_vs_sse=%.2f goal=<=1.0\n", c, w, w / b, w / s }'
done
native=$(build/bench/bin/icl_bench_train --phase-change)
wasm=$(node tests/run-wasm-tests.mjs build/bench-wasm/bin/icl_bench_train.js --phase-change)
ms() { sed -n 's/^phase_change ms=\([^ ]*\).*/\1/p' <<<"$1"; }
echo "phase_change native_ms=$(ms "$native") wasm_ms=$(ms "$wasm") step=$(sed -n 's/.* step=\([^ ]*\).*/\1/p' <<<"$wasm") goal_wasm_ms=<=10000"
build/bench/bin/icl_bench_train --profile S M L
