#!/usr/bin/env bash
# bench/run train: one tiny-GPT training step (forward, backward, AdamW) in icl vs
# PyTorch 1.13 (Debian's python3-torch, OpenBLAS), one thread each, for the configs
# S, M, L of TOOLCHAIN.md; then the same step in wasm under node for S and M.
# Per config the two sides run back to back, so machine noise hits both alike.
# Prints:
#   config=<S|M|L> icl_ms=<x> torch_ms=<y> speedup=<torch_ms/icl_ms>
#   wasm_config=<S|M> ms=<x> wasm_slowdown=<wasm/best native> wasm_slowdown_vs_sse=<wasm/native SSE4.1>
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

[ -f build/bench/build.ninja ] || cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DICL_BUILD_BENCH=ON -DICL_BIN_DIR="$root/build/bench/bin" >/dev/null
build build/bench
inc=build/wasm-include
mkdir -p "$inc"
for d in xtensor xtl xsimd nlohmann doctest; do ln -sfn "/usr/include/$d" "$inc/$d"; done
export NODE_PATH=/usr/share/nodejs
[ -f build/bench-wasm/build.ninja ] || emcmake cmake -S . -B build/bench-wasm -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DICL_BUILD_BENCH=ON -DICL_WASM_INCLUDE="$root/$inc" \
    -DICL_BIN_DIR="$root/build/bench-wasm/bin" >/dev/null 2>&1
build build/bench-wasm

# "train config=S isa=avx512 ms=1.2" -> the ms of one isa ("best" = the first line)
native_ms() { sed -n "s/^train config=$2 isa=$3 ms=\([^ ]*\).*/\1/p" <<<"$1" | head -1; }
best_ms() { sed -n "s/^train config=$2 isa=[^ ]* ms=\([^ ]*\).*/\1/p" <<<"$1" | head -1; }
declare -A native_out
for c in S M L; do
  native_out[$c]=$(build/bench/bin/icl_bench_train "$c")
  torch=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
      /usr/bin/python3 bench/train_torch.py "$c")
  [ "$c" = S ] && echo "icl_isa=$(sed -n 's/^train config=S isa=\([^ ]*\).*/\1/p' <<<"${native_out[$c]}" | head -1) torch_blas=$(sed -n 's/.*blas=\([^ ]*\).*/\1/p' <<<"$torch")"
  awk -v c="$c" -v i="$(best_ms "${native_out[$c]}" "$c")" -v t="$(sed -n 's/.*ms=\([^ ]*\).*/\1/p' <<<"$torch")" \
      'BEGIN { printf "config=%s icl_ms=%.2f torch_ms=%.2f speedup=%.2f\n", c, i, t, t / i }'
done
for c in S M; do
  wasm=$(node tests/run-wasm-tests.mjs build/bench-wasm/bin/icl_bench_train.js "$c")
  awk -v c="$c" -v w="$(best_ms "$wasm" "$c")" -v b="$(best_ms "${native_out[$c]}" "$c")" \
      -v s="$(native_ms "${native_out[$c]}" "$c" sse4.1)" \
      'BEGIN { printf "wasm_config=%s ms=%.2f wasm_slowdown=%.2f wasm_slowdown_vs_sse=%.2f\n", c, w, w / b, w / s }'
done
