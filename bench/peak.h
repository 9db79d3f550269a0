// One core's fp32 ceiling for each instruction set icl runs, measured, and the clock the
// benchmarks read it on (bench/gemm.cpp, bench/train.cpp). A GFLOP/s figure means little
// without the ceiling beside it: icl's products are read against it, and a training
// step's products divided by it give the fastest that step could be on this machine.
//
// Every ceiling is N independent chains a = a * m + c kept in registers (no memory, no
// call in the loop), so the arithmetic units fill only with enough chains: a chain waits
// for its whole latency each step.
//   fma_peak_avx512()   16 chains of AVX-512 FMAs (16 lanes x 2 flops); 0 without AVX-512
//   fma_peak_avx2()     12 chains of AVX2 FMAs (8 lanes x 2 flops); 0 without AVX2 + FMA
//   peak_simd128()      12 or 14 chains of a separate 4-lane multiply and add: the ceiling
//                       SSE4.1 natively and SIMD128 in wasm share (neither has a fused
//                       multiply-add; bench/ builds without -march, so the compiler has no
//                       FMA to fuse the two into)
//   peak_gflops(isa)    the one of those that isa's kernels run on
#pragma once

#include <algorithm>
#include <vector>

#if defined(ICL_WASM)
#include <emscripten.h>
#else
#include <time.h>
#endif

#include <immintrin.h>  // SSE natively; lowered to SIMD128 in wasm (-msse4.1 -msimd128)

#include "icl/kernels.h"

namespace icl_bench {

// Seconds on the benchmarks' clock. Natively the thread's CPU time, not wall time: on a
// shared machine a 2 ms n = 512 product is often descheduled midway, which put most
// wall-clock samples (of icl and OpenBLAS alike) at a fraction of the real speed. Node has
// no thread CPU clock (process.cpuUsage also counts V8's compiler and GC threads), so wasm
// reads the wall clock over short samples; that can only overstate wasm's time.
inline double seconds() {
#if defined(ICL_WASM)
    return emscripten_get_now() * 1e-3;
#else
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
#endif
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

constexpr int kPeakSamples = 21;

// GFLOP/s of run(iters), which does iters steps of `flops_per_step` (median of the samples)
template <class F>
double chain_rate(F&& run, long iters, double flops_per_step) {
    run(iters / 4);  // warm-up (wasm: V8's optimizing tier)
    std::vector<double> t;
    for (int s = 0; s < kPeakSamples; ++s) {
        const double t0 = seconds();
        run(iters);
        t.push_back(seconds() - t0);
    }
    return iters * flops_per_step / median(t) * 1e-9;
}

// ---- 128 bits: SSE4.1 and SIMD128 ---------------------------------------------------
// On Zen 4 natively 8 / 12 / 14 chains gave 37 / 53 / 56 GFLOP/s; 14 (with m and c) fill
// the 16 vector registers, and V8 keeps one of them for itself. state (N x 4).
template <int N>
__attribute__((noinline)) void muladd_chains128(float* state, long iters) {
    const __m128 m = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-6f);
    __m128 a[N];
    for (int i = 0; i < N; ++i) a[i] = _mm_loadu_ps(state + 4 * i);
    for (long it = 0; it < iters; ++it) {
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 16
#endif
        for (int i = 0; i < N; ++i) a[i] = _mm_add_ps(_mm_mul_ps(a[i], m), c);
    }
    for (int i = 0; i < N; ++i) _mm_storeu_ps(state + 4 * i, a[i]);
}
template <int N>
double muladd_rate128() {
    std::vector<float> state(N * 4, 1.0f);
    return chain_rate([&](long iters) { muladd_chains128<N>(state.data(), iters); }, 4000000, N * 8.0);
}
// The best of 12 and 14 chains: what the SSE4.1 and wasm GEMM figures can be read against
// (the wasm memory goal is a figure of this kind).
inline double peak_simd128() { return std::max(muladd_rate128<12>(), muladd_rate128<14>()); }

#if !defined(ICL_WASM)
// Named accumulators, not an array: an array of them, or a clock call beside them, puts
// them in memory.
#define ICL_EACH12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ICL_EACH16(X) ICL_EACH12(X) X(12) X(13) X(14) X(15)

// ---- AVX-512 --------------------------------------------------------------------------
// state (16 x 16): as many chains as icl's AVX-512 register tile keeps
#define ICL_LOAD(i) __m512 a##i = _mm512_loadu_ps(state + 16 * i);
#define ICL_FMA(i) a##i = _mm512_fmadd_ps(a##i, m, c);
#define ICL_STORE(i) _mm512_storeu_ps(state + 16 * i, a##i);
__attribute__((target("avx512f"), noinline)) inline void fma_chains512(float* state, long iters) {
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
    ICL_EACH16(ICL_LOAD)
    for (long it = 0; it < iters; ++it) { ICL_EACH16(ICL_FMA) }
    ICL_EACH16(ICL_STORE)
}
#undef ICL_LOAD
#undef ICL_FMA
#undef ICL_STORE
// iters: steps of each sample (21 samples); the default is the benchmarks' (about 50 ms a
// sample), tests/unit/test_kernels.cpp's speed guard takes fewer
inline double fma_peak_avx512(long iters = 20000000) {
    if (!__builtin_cpu_supports("avx512f")) return 0.0;
    std::vector<float> state(16 * 16, 1.0f);
    return chain_rate([&](long n) { fma_chains512(state.data(), n); }, iters, 16 * 32.0);
}

// ---- AVX2 + FMA -----------------------------------------------------------------------
// state (12 x 8): 12 chains with m and c in 16 registers, as icl's AVX2 tile (12
// accumulators); enough for two FMA units of latency 4 or 5.
#define ICL_LOAD(i) __m256 a##i = _mm256_loadu_ps(state + 8 * i);
#define ICL_FMA(i) a##i = _mm256_fmadd_ps(a##i, m, c);
#define ICL_STORE(i) _mm256_storeu_ps(state + 8 * i, a##i);
__attribute__((target("avx2,fma"), noinline)) inline void fma_chains256(float* state, long iters) {
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
    ICL_EACH12(ICL_LOAD)
    for (long it = 0; it < iters; ++it) { ICL_EACH12(ICL_FMA) }
    ICL_EACH12(ICL_STORE)
}
#undef ICL_LOAD
#undef ICL_FMA
#undef ICL_STORE
#undef ICL_EACH12
#undef ICL_EACH16
inline double fma_peak_avx2(long iters = 20000000) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0.0;
    std::vector<float> state(12 * 8, 1.0f);
    return chain_rate([&](long n) { fma_chains256(state.data(), n); }, iters, 12 * 16.0);
}
#endif

// The ceiling of the arithmetic isa's kernels run (wasm: SIMD128's)
inline double peak_gflops(icl::Isa isa) {
#if !defined(ICL_WASM)
    if (isa == icl::Isa::avx512) return fma_peak_avx512();
    if (isa == icl::Isa::avx2) return fma_peak_avx2();
#endif
    (void)isa;
    return peak_simd128();
}

}  // namespace icl_bench
