// GEMM benchmark: C (n,n) = A (n,n) · B (n,n), GFLOP/s = 2 n³ / time.
// Natively icl (best ISA, and SSE4.1 for the wasm comparison) and OpenBLAS
// (single-threaded sgemm) are timed in alternation in the same process, so machine
// noise hits both alike; each figure is the median of the samples. In wasm only icl
// runs. Output lines are parsed by bench/run.
//
// Times are on bench/peak.h's clock: the thread's CPU time natively, the wall clock in
// wasm (that header says why).
//   icl_bench_gemm [--layouts]   (--layouts adds nt/tn timings)
//   icl_bench_gemm --shapes      only the products of lesson-sized training steps (each
//     linear layer's forward nt, input-gradient nn and weight-gradient tn product at the
//     widths the lessons train: induction_heads' 32 with 32 x 48 rows, config S's 64
//     with 16 x 64 rows; and one attention head's three causal products at config M,
//     counted over the triangle's flops), GFLOP/s at the best ISA and at SSE4.1 natively,
//     in wasm its one:
//   shape=<name> M=<m> K=<k> N=<n> best=<GFLOP/s> sse41=<GFLOP/s>
// Natively it also prints one core's ceilings (bench/peak.h), fma_peak_avx512=<GFLOP/s> and
// fma_peak_avx2=<GFLOP/s> (0 where the machine lacks the instructions); natively and in
// wasm the 128-bit one, peak_simd128=<GFLOP/s>.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "icl/kernels.h"
#include "icl/rng.h"
#include "peak.h"

#if defined(ICL_BENCH_OPENBLAS)
#include <cblas.h>
extern "C" char* openblas_get_corename(void);
#endif

namespace {

using icl_bench::median;
using icl_bench::seconds;

// Seconds per call of f, timed over `calls` calls.
template <class F>
double time_call(F&& f, int calls) {
    const double t0 = seconds();
    for (int i = 0; i < calls; ++i) f();
    return (seconds() - t0) / calls;
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
        // the same of config S (T = 64, hs = 16) and of induction_heads (T = 48, hs = 16)
        {"S_attn_qkT", "nt_lower", 64, 16, 64},
        {"S_attn_Pv", "nn_lower", 64, 64, 16},
        {"S_attn_PTdO", "tn_lower", 64, 64, 16},
        {"ind_attn_qkT", "nt_lower", 48, 16, 48},
        {"ind_attn_Pv", "nn_lower", 48, 48, 16},
        {"ind_attn_PTdO", "tn_lower", 48, 48, 16},
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
            C.assign((size_t)T * std::max(T, ld), 0.0f);  // S (T,T), or (T,hs) rows ld apart
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

}  // namespace


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
    std::printf("fma_peak_avx512=%.1f\n", icl_bench::fma_peak_avx512());
    std::printf("fma_peak_avx2=%.1f\n", icl_bench::fma_peak_avx2());
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
    std::printf("peak_simd128=%.1f\n", icl_bench::peak_simd128());
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
