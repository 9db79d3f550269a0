// Run-time dispatch: every public kernel calls through the table of the current
// instruction set.
#include "kernels_table.h"

namespace icl {

namespace {

const detail::KernelTable kScalar = {
    ref::matmul_nn,         ref::matmul_nt,          ref::matmul_tn,
    ref::attention_softmax, ref::attention_softmax_backward,
    ref::layernorm_forward, ref::layernorm_backward, ref::gelu_forward,
    ref::gelu_backward,     ref::crossentropy_forward, ref::crossentropy_backward,
    ref::adamw_update,      ref::sgd_momentum_update,
};

Isa g_isa = Isa::scalar;

const detail::KernelTable& table() { return kScalar; }

}  // namespace

Isa best_isa() { return Isa::scalar; }
Isa current_isa() { return g_isa; }
void set_isa(Isa isa) { g_isa = isa > best_isa() ? best_isa() : isa; }

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

}  // namespace icl
