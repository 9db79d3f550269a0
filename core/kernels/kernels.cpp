// Run-time dispatch: every public kernel calls through the table of the current
// instruction set.
#include "kernels_table.h"

#include <new>

namespace icl {

namespace detail {

// The per-thread GEMM packing buffer, 64-byte aligned, grown on demand and kept, so
// a matmul does not allocate once the buffer is large enough.
float* scratch(size_t floats) {
    struct Buffer {
        float* data = nullptr;
        size_t size = 0;
        ~Buffer() { ::operator delete[](data, std::align_val_t{64}); }
    };
    thread_local Buffer b;
    if (b.size < floats) {
        ::operator delete[](b.data, std::align_val_t{64});
        b.data = static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64}));
        b.size = floats;
    }
    return b.data;
}

}  // namespace detail

namespace {

const detail::KernelTable kScalar = {
    ref::matmul_nn,         ref::matmul_nt,          ref::matmul_tn,
    ref::matmul_nt_lower,   ref::matmul_nn_lower,    ref::matmul_tn_lower,
    ref::attention_softmax, ref::attention_softmax_backward,
    ref::layernorm_forward, ref::layernorm_backward, ref::gelu_forward,
    ref::gelu_backward,     ref::crossentropy_forward, ref::crossentropy_backward,
    ref::adamw_update,      ref::sgd_momentum_update,
    ref::feature_map_forward, ref::feature_map_backward, ref::fast_weight_step,
};

Isa detect() {
#if defined(ICL_WASM)
    return Isa::sse41;  // SSE4.1 intrinsics lowered to SIMD128
#else
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
    if (__builtin_cpu_supports("sse4.1")) return Isa::sse41;
    return Isa::scalar;
#endif
}

// Constant-initialized, so kernels called from other files' static initializers
// already dispatch correctly (the first call picks the table).
const detail::KernelTable* g_table = nullptr;
Isa g_isa = Isa::scalar;

const detail::KernelTable& table_for(Isa isa) {
    switch (isa) {
        case Isa::sse41: return detail::kSse41;
#if !defined(ICL_WASM)
        case Isa::avx2: return detail::kAvx2;
        case Isa::avx512: return detail::kAvx512;
#endif
        default: return kScalar;
    }
}

const detail::KernelTable& table() {
    if (!g_table) set_isa(best_isa());
    return *g_table;
}

}  // namespace

Isa best_isa() {
    static const Isa best = detect();
    return best;
}
Isa current_isa() {
    table();
    return g_isa;
}
// Not synchronized: select the instruction set before starting threads that compute.
void set_isa(Isa isa) {
    g_isa = isa > best_isa() ? best_isa() : isa;
    g_table = &table_for(g_isa);
}

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::sse41: return "sse4.1";
        case Isa::avx2: return "avx2+fma";
        case Isa::avx512: return "avx512";
        default: return "scalar";
    }
}

void matmul_nn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    table().matmul_nn(C, A, B, M, K, N, accumulate);
}
void matmul_nt(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    table().matmul_nt(C, A, B, M, K, N, accumulate);
}
void matmul_tn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    table().matmul_tn(C, A, B, M, K, N, accumulate);
}
void matmul_nt_lower(float* S, const float* A, const float* B, int T, int K) {
    table().matmul_nt_lower(S, A, B, T, K);
}
void matmul_nn_lower(float* C, const float* L, const float* B, int T, int N) {
    table().matmul_nn_lower(C, L, B, T, N);
}
void matmul_tn_lower(float* C, const float* L, const float* B, int T, int N) {
    table().matmul_tn_lower(C, L, B, T, N);
}
void attention_softmax(float* P, const float* S, int T, float scale, AttentionMask mask) {
    table().attention_softmax(P, S, T, scale, mask);
}
void attention_softmax_backward(float* dS, const float* dP, const float* P, int T, float scale) {
    table().attention_softmax_backward(dS, dP, P, T, scale);
}
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int N, int C, float eps) {
    table().layernorm_forward(y, mean, rstd, x, gamma, beta, N, C, eps);
}
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int N, int C) {
    table().layernorm_backward(dx, dgamma, dbeta, dy, x, mean, rstd, gamma, N, C);
}
void gelu_forward(float* y, const float* x, size_t n) { table().gelu_forward(y, x, n); }
void gelu_backward(float* dx, const float* x, const float* dy, size_t n) {
    table().gelu_backward(dx, x, dy, n);
}
void crossentropy_forward(float* losses, float* probs, const float* logits, const int* targets,
                          int N, int V) {
    table().crossentropy_forward(losses, probs, logits, targets, N, V);
}
void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                           const float* dlosses, int N, int V) {
    table().crossentropy_backward(dlogits, probs, targets, dlosses, N, V);
}
void adamw_update(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, int t) {
    table().adamw_update(p, g, m, v, n, lr, beta1, beta2, eps, weight_decay, t);
}
void sgd_momentum_update(float* p, const float* g, float* buf, size_t n, float lr, float momentum,
                         float weight_decay) {
    table().sgd_momentum_update(p, g, buf, n, lr, momentum, weight_decay);
}

void feature_map_forward(float* y, const float* x, size_t n) { table().feature_map_forward(y, x, n); }
void feature_map_backward(float* dx, const float* x, const float* dy, size_t n) {
    table().feature_map_backward(dx, x, dy, n);
}
void fast_weight_step(float* W, float* y, const float* q, const float* k, const float* v,
                      float beta, bool delta, int rows, int dk) {
    table().fast_weight_step(W, y, q, k, v, beta, delta, rows, dk);
}

}  // namespace icl
