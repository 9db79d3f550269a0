// GEMM benchmark: C (n,n) = A (n,n) · B (n,n), GFLOP/s = 2 n³ / time.
// Natively icl (best ISA, and SSE4.1 for the wasm comparison) and OpenBLAS
// (single-threaded sgemm) are timed in alternation in the same process, so machine
// noise hits both alike; each figure is the median of the samples. In wasm only icl
// runs. Output lines are parsed by bench/run.
//
// Natively, time is the thread's CPU time, not wall time: on a shared machine a
// 2 ms n = 512 product is often descheduled midway, which put most wall-clock
// samples (of both libraries) at a fraction of the real speed. Node has no thread
// CPU clock (process.cpuUsage also counts V8's compiler and GC threads), so wasm is
// timed by the wall clock over short samples; that can only overstate wasm's time.
//   icl_bench_gemm [--layouts]   (--layouts adds nt/tn timings)
//   icl_bench_gemm --shapes      only the products of lesson-sized training steps (each
//     linear layer's forward nt, input-gradient nn and weight-gradient tn product at the
//     widths the lessons train: induction_heads' 32 with 32 x 48 rows, config S's 64
//     with 16 x 64 rows; and one attention head's three causal products at config M,
//     counted over the triangle's flops), GFLOP/s at the best ISA and at SSE4.1 natively,
//     in wasm its one:
//   shape=<name> M=<m> K=<k> N=<n> best=<GFLOP/s> sse41=<GFLOP/s>
// Natively it also prints one core's ceiling, fma_peak_avx512=<GFLOP/s> (16 independent
// chains of AVX-512 FMAs; 0 without AVX-512); natively and in wasm the 128-bit one,
// peak_simd128=<GFLOP/s> (multiply-add chains, see peak_simd128).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(ICL_WASM)
#include <emscripten.h>
#else
#include <time.h>
#endif

#include <immintrin.h>  // SSE natively; lowered to SIMD128 in wasm (-msse4.1 -msimd128)

#include "icl/kernels.h"
#include "icl/rng.h"

#if defined(ICL_BENCH_OPENBLAS)
#include <cblas.h>
extern "C" char* openblas_get_corename(void);
#endif

namespace {

// Seconds on the benchmark's clock (see the top of the file).
double seconds() {
#if defined(ICL_WASM)
    return emscripten_get_now() * 1e-3;
#else
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
#endif
}

// Seconds per call of f, timed over `calls` calls.
template <class F>
double time_call(F&& f, int calls) {
    const double t0 = seconds();
    for (int i = 0; i < calls; ++i) f();
    return (seconds() - t0) / calls;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Problem {
    int n;
    std::vector<float> A, B, C;
    explicit Problem(int n_) : n(n_), A((size_t)n * n), B((size_t)n * n), C((size_t)n * n) {
        icl::Rng rng(n);
        for (float& x : A) x = rng.uniform(-1.0f, 1.0f);
        for (float& x : B) x = rng.uniform(-1.0f, 1.0f);
    }
    int calls() const { return std::max(2, (int)(2e7 / (2.0 * n * n * n))); }  // ~0.2 ms natively
    double gflops(double seconds) const { return 2.0 * n * n * n / seconds * 1e-9; }
};

const int kSamples = 21;

// Runs f for about 0.3 s, untimed, at every ISA the run compares. In wasm the first
// calls run V8's baseline code until the optimizing tier takes over: measured at once,
// the first product of a run came out at 12 instead of 42 GFLOP/s.
template <class F>
void warm_up(F&& f) {
    const icl::Isa best = icl::best_isa();
    for (icl::Isa isa : {best, icl::Isa::sse41}) {
        icl::set_isa(isa);
        for (const double t0 = seconds(); seconds() - t0 < 0.15;) f();
    }
    icl::set_isa(best);
}

// The products of lesson-sized steps (see the top of the file).
void shapes() {
    struct Shape { const char* name; const char* layout; int M, K, N; };  // layout as in matmul_<layout>
    const Shape list[] = {
        {"ind_fwd_qkv", "nt", 1536, 32, 96},   // out (BT,3C) = x (BT,C) · Wᵀ, W (3C,C)
        {"ind_bwd_dx_qkv", "nn", 1536, 96, 32},  // dx (BT,C) = dout (BT,3C) · W (3C,C)
        {"ind_bwd_dw_qkv", "tn", 96, 1536, 32},  // dW (3C,C) += doutᵀ · x
        {"ind_fwd_wo", "nt", 1536, 32, 32},
        {"ind_bwd_dw_wo", "tn", 32, 1536, 32},
        {"S_fwd_fc", "nt", 1024, 64, 256},
        {"S_bwd_dx_fc2", "nn", 1024, 64, 256},
        {"S_bwd_dw_fc", "tn", 256, 1024, 64},
        {"M_fwd_fc", "nt", 1024, 128, 512},
        {"M_bwd_dx_fc", "nn", 1024, 512, 128},
        {"M_bwd_dw_fc", "tn", 512, 1024, 128},
        {"M_bwd_dw_fc2", "tn", 128, 1024, 512},
        {"M_bwd_dw_qkv", "tn", 384, 1024, 128},
        // one attention head of config M (T = 128, hs = 32), its causal products read in
        // place from (T,3C) qkv rows (ld 384) and (T,C) rows (ld 128); GFLOP/s over the
        // triangle's T (T+1) / 2 pairs
        {"M_attn_qkT", "nt_lower", 128, 32, 128},  // S = q kᵀ; dP = dO vᵀ
        {"M_attn_Pv", "nn_lower", 128, 128, 32},   // O = P v; dq = dS k
        {"M_attn_PTdO", "tn_lower", 128, 128, 32}, // dv = Pᵀ dO; dk = dSᵀ q
    };
    for (const Shape& sh : list) {
        std::vector<float> A((size_t)sh.M * sh.K), B((size_t)sh.K * sh.N), C((size_t)sh.M * sh.N);
        icl::Rng rng(sh.M + sh.K + sh.N);
        for (float& x : A) x = rng.uniform(-1.0f, 1.0f);
        for (float& x : B) x = rng.uniform(-1.0f, 1.0f);
        const std::string layout = sh.layout;
        const int T = sh.M, ld3 = 384, ld = 128;  // the _lower ones: one head of config M
        if (layout.find("_lower") != std::string::npos) {
            A.assign((size_t)T * ld3, 0.0f);
            B.assign((size_t)T * ld3, 0.0f);
            C.assign((size_t)T * T, 0.0f);
            for (float& x : A) x = rng.uniform(-1.0f, 1.0f);
            for (float& x : B) x = rng.uniform(-1.0f, 1.0f);
            if (layout != "nt_lower")  // nn, tn: A is a lower-triangular (T,T), as P and dS are
                for (int i = 0; i < T; ++i)
                    for (int j = i + 1; j < T; ++j) A[(size_t)i * T + j] = 0.0f;
        }
        auto run = [&] {
            if (layout == "nt_lower") icl::matmul_nt_lower(C.data(), A.data(), B.data(), T, sh.K, ld3, ld3);
            if (layout == "nn_lower") icl::matmul_nn_lower(C.data(), A.data(), B.data(), T, sh.N, ld3, ld);
            if (layout == "tn_lower") icl::matmul_tn_lower(C.data(), A.data(), B.data(), T, sh.N, ld3, ld);
            if (layout == "nt") icl::matmul_nt(C.data(), A.data(), B.data(), sh.M, sh.K, sh.N, false);
            if (layout == "nn") icl::matmul_nn(C.data(), A.data(), B.data(), sh.M, sh.K, sh.N, false);
            if (layout == "tn")  // the weight-gradient product, its bias sum left out
                icl::linear_weight_grad(C.data(), nullptr, A.data(), B.data(), sh.K, sh.N, sh.M, true);
        };
        const double flop = layout.find("_lower") != std::string::npos
                                ? 2.0 * sh.M * sh.K * sh.N * (T + 1) / (2.0 * T)
                                : 2.0 * sh.M * sh.K * sh.N;
        const int calls = std::max(2, (int)(2e7 / flop));
        warm_up(run);
        std::vector<double> tb, ts;
        for (int s = 0; s < kSamples; ++s) {
            icl::set_isa(icl::best_isa());
            tb.push_back(time_call(run, calls));
            icl::set_isa(icl::Isa::sse41);
            ts.push_back(time_call(run, calls));
        }
        icl::set_isa(icl::best_isa());
        std::printf("shape=%s M=%d K=%d N=%d best=%.1f sse41=%.1f\n", sh.name, sh.M, sh.K, sh.N,
                    flop / median(tb) * 1e-9, flop / median(ts) * 1e-9);
    }
}

// The 128-bit ceiling that SSE4.1 natively and SIMD128 in wasm share (neither has a fused
// multiply-add): N independent chains a = a * m + c, a separate multiply and add, 4 lanes
// x 2 flops per step. A chain waits for its multiply and its add, so the units fill only
// with enough chains: on this kind of machine natively 8 / 12 / 14 chains gave 37 / 53 /
// 56 GFLOP/s; 14 (with m and c) fill the 16 vector registers, and V8 keeps one of them for
// itself. bench/ builds without -march, so the compiler has no FMA to fuse the two into.
// state (N x 4), iters steps.
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
// GFLOP/s of N chains on the benchmark's clock (median of kSamples)
template <int N>
double muladd_rate128() {
    std::vector<float> state(N * 4, 1.0f);
    const long iters = 4000000;
    muladd_chains128<N>(state.data(), iters / 4);  // warm-up (wasm: V8's optimizing tier)
    std::vector<double> t;
    for (int s = 0; s < kSamples; ++s) {
        const double t0 = seconds();
        muladd_chains128<N>(state.data(), iters);
        t.push_back(seconds() - t0);
    }
    return iters * N * 8.0 / median(t) * 1e-9;
}
// The best of 12 and 14 chains: what the SSE4.1 and wasm GEMM figures can be read
// against (issue 18's wasm goal is a figure of this kind).
double peak_simd128() { return std::max(muladd_rate128<12>(), muladd_rate128<14>()); }

}  // namespace

#if defined(ICL_BENCH_OPENBLAS)
#define ICL_EACH16(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define ICL_LOAD(i) __m512 a##i = _mm512_loadu_ps(state + 16 * i);
#define ICL_FMA(i) a##i = _mm512_fmadd_ps(a##i, m, c);
#define ICL_STORE(i) _mm512_storeu_ps(state + 16 * i, a##i);
// state (16 x 16) = iters steps of a = a * m + c, sixteen named accumulators with no call
// in the loop (an array of them, or a clock call beside them, puts them in memory)
__attribute__((target("avx512f"), noinline)) void fma_chains(float* state, long iters) {
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
    ICL_EACH16(ICL_LOAD)
    for (long it = 0; it < iters; ++it) { ICL_EACH16(ICL_FMA) }
    ICL_EACH16(ICL_STORE)
}
#undef ICL_EACH16
#undef ICL_LOAD
#undef ICL_FMA
#undef ICL_STORE
// One core's fp32 ceiling: 16 independent chains of AVX-512 fused multiply-adds (as many
// as icl's register tile keeps), 16 lanes x 2 flops each, in GFLOP/s on the same clock as
// the products — what every GFLOP/s figure above can be read against. 0 without AVX-512.
double fma_peak_avx512() {
    if (!__builtin_cpu_supports("avx512f")) return 0.0;
    std::vector<float> state(16 * 16, 1.0f);
    const long iters = 20000000;
    std::vector<double> t;
    for (int s = 0; s < kSamples; ++s) {
        const double t0 = seconds();
        fma_chains(state.data(), iters);
        t.push_back(seconds() - t0);
    }
    return iters * 16.0 * 32.0 / median(t) * 1e-9;
}
#endif

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--shapes") == 0) {
        shapes();
        return 0;
    }
    const bool layouts = argc > 1 && std::strcmp(argv[1], "--layouts") == 0;
    const icl::Isa best = icl::best_isa();
    std::printf("icl_isa=%s\n", icl::isa_name(best));
#if defined(ICL_BENCH_OPENBLAS)
    std::printf("openblas_core=%s\n", openblas_get_corename());
    std::printf("fma_peak_avx512=%.1f\n", fma_peak_avx512());
    for (int n : {64, 128, 256, 512}) {
        Problem p(n);
        auto icl_run = [&] { icl::matmul_nn(p.C.data(), p.A.data(), p.B.data(), n, n, n, false); };
        auto blas_run = [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, p.A.data(), n,
                        p.B.data(), n, 0.0f, p.C.data(), n);
        };
        icl_run();
        blas_run();
        std::vector<double> ti, tb;
        for (int s = 0; s < kSamples; ++s) {
            ti.push_back(time_call(icl_run, p.calls()));
            tb.push_back(time_call(blas_run, p.calls()));
        }
        const double gi = p.gflops(median(ti)), gb = p.gflops(median(tb));
        std::printf("n=%d icl=%.1f openblas=%.1f ratio=%.2f\n", n, gi, gb, gi / gb);
    }
#endif
    std::printf("peak_simd128=%.1f\n", peak_simd128());
    // icl alone: best ISA and SSE4.1 (natively), the only ISA (wasm).
    for (int n : {128, 256}) {
        Problem p(n);
        auto icl_run = [&] { icl::matmul_nn(p.C.data(), p.A.data(), p.B.data(), n, n, n, false); };
        warm_up(icl_run);
        std::vector<double> tbest, tsse;
        for (int s = 0; s < kSamples; ++s) {
            icl::set_isa(best);
            tbest.push_back(time_call(icl_run, p.calls()));
            icl::set_isa(icl::Isa::sse41);
            tsse.push_back(time_call(icl_run, p.calls()));
        }
        icl::set_isa(best);
        std::printf("icl_time n=%d best_s=%.4g sse41_s=%.4g gflops=%.1f\n", n, median(tbest),
                    median(tsse), p.gflops(median(tbest)));
    }
    if (layouts) {
        for (int n : {64, 128, 256, 512}) {
            Problem p(n);
            const float *A = p.A.data(), *B = p.B.data();
            float* C = p.C.data();
            std::vector<double> t[3];
            for (int s = 0; s < kSamples; ++s) {
                t[0].push_back(time_call([&] { icl::matmul_nn(C, A, B, n, n, n, false); }, p.calls()));
                t[1].push_back(time_call([&] { icl::matmul_nt(C, A, B, n, n, n, false); }, p.calls()));
                t[2].push_back(time_call([&] { icl::matmul_tn(C, A, B, n, n, n, false); }, p.calls()));
            }
            std::printf("layouts n=%d nn=%.1f nt=%.1f tn=%.1f GFLOP/s\n", n, p.gflops(median(t[0])),
                        p.gflops(median(t[1])), p.gflops(median(t[2])));
        }
    }
    return 0;
}
