// GEMM benchmark: C (n,n) = A (n,n) · B (n,n), GFLOP/s = 2 n³ / time.
// Natively icl (best ISA, and SSE4.1 for the wasm comparison) and OpenBLAS
// (single-threaded sgemm) are timed in alternation in the same process, so machine
// noise hits both alike; each figure is the median of the samples. In wasm only icl
// runs. Output lines are parsed by bench/run.
//   icl_bench_gemm [--layouts]   (--layouts adds nt/tn timings)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "icl/kernels.h"
#include "icl/rng.h"

#if defined(ICL_BENCH_OPENBLAS)
#include <cblas.h>
extern "C" char* openblas_get_corename(void);
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Seconds per call of f, timed over enough calls to fill ~10 ms.
template <class F>
double time_call(F&& f, int calls) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
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
    int calls() const { return std::max(1, (int)(2e7 / (2.0 * n * n * n))); }  // ~10 ms each
    double gflops(double seconds) const { return 2.0 * n * n * n / seconds * 1e-9; }
};

const int kSamples = 21;

}  // namespace

int main(int argc, char** argv) {
    const bool layouts = argc > 1 && std::strcmp(argv[1], "--layouts") == 0;
    const icl::Isa best = icl::best_isa();
    std::printf("icl_isa=%s\n", icl::isa_name(best));
#if defined(ICL_BENCH_OPENBLAS)
    std::printf("openblas_core=%s\n", openblas_get_corename());
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
    // icl alone: best ISA and SSE4.1 (natively), the only ISA (wasm).
    for (int n : {128, 256}) {
        Problem p(n);
        auto icl_run = [&] { icl::matmul_nn(p.C.data(), p.A.data(), p.B.data(), n, n, n, false); };
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
