// Numeric kernels: raw pointers plus sizes, row-major, no allocation.
//
// Each kernel has a plain scalar reference in namespace icl::ref with the same
// signature; the tests hold the two together. The fast versions use xsimd batches
// on the widest instruction set the processor has (picked at run time natively;
// SSE4.1 lowered to WASM SIMD128 in wasm). set_isa() restricts the choice, for
// benchmarks and tests.
//
// Convention (as in llm.c): *_backward functions ACCUMULATE (+=) into every
// gradient buffer they are given; callers zero gradients before a backward pass.
#pragma once
#include <cstddef>
#include <cstdint>

namespace icl {

enum class Isa { scalar, sse41, avx2, avx512 };
Isa best_isa();                 // widest the processor and the build support
Isa current_isa();
void set_isa(Isa isa);          // clamps to best_isa()
const char* isa_name(Isa isa);  // "scalar" | "sse4.1" | "avx2+fma" | "avx512"

// Which key positions j a query at position i may attend to (always j <= i).
// banded needs window >= 1 and strided needs stride >= 1 (the xtensor-level
// wrappers check this); then j = i is always allowed, so no row is empty.
struct AttentionMask {
    enum Kind { causal, banded, strided } kind = causal;
    int window = 0;  // banded: j > i - window
    int stride = 0;  // strided: j > i - stride, or (i - j) % stride == 0
    bool allows(int i, int j) const {
        if (j > i) return false;
        switch (kind) {
            case banded: return i - j < window;
            case strided: return i - j < stride || (i - j) % stride == 0;
            default: return true;
        }
    }
};

// ---- matmul --------------------------------------------------------------------
// C (M,N) = A (M,K) · B (K,N)            [+= C if accumulate]
void matmul_nn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);
// C (M,N) = A (M,K) · B(N,K)ᵀ            [+= C if accumulate]
void matmul_nt(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);
// C (M,N) = A(K,M)ᵀ · B (K,N)            [+= C if accumulate]
void matmul_tn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);

// ---- causal matmuls: one attention head's (T,T) products, on and below the diagonal ----
// (every attention mask allows only j <= i, so the other half is never needed)
// S (T,T) = A (T,K) · B(T,K)ᵀ for j <= i, 0 above the diagonal          (q kᵀ, dO vᵀ)
void matmul_nt_lower(float* S, const float* A, const float* B, int T, int K);
// C (T,N) = L (T,T) · B (T,N) for L lower-triangular (0 above the diagonal, as a
// softmax's P and its dS are): the work skips the zero half       (P v, dS k)
void matmul_nn_lower(float* C, const float* L, const float* B, int T, int N);
// C (T,N) = L(T,T)ᵀ · B (T,N), L lower-triangular as above          (Pᵀ dO, dSᵀ q)
void matmul_tn_lower(float* C, const float* L, const float* B, int T, int N);

// ---- softmax over attention scores ----------------------------------------------
// P (T,T) = softmax_row(scale * S (T,T)) over the positions `mask` allows; entries
// it forbids are exactly 0. Row i is query position i.
void attention_softmax(float* P, const float* S, int T, float scale, AttentionMask mask);
// dS (T,T) += scale * P ∘ (dP − rowsum(dP ∘ P))      (masked entries get 0)
// P is a masked softmax: 0 above the diagonal (j > i), which the fast paths skip.
void attention_softmax_backward(float* dS, const float* dP, const float* P, int T, float scale);

// ---- layernorm ------------------------------------------------------------------
// y (N,C) = (x − mean) * rstd * gamma (C) + beta (C); writes mean (N), rstd (N)
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int N, int C, float eps = 1e-5f);
// dx (N,C) +=, dgamma (C) +=, dbeta (C) +=
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int N, int C);

// ---- GELU (tanh approximation, as GPT-2) -----------------------------------------
// y (n) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void gelu_forward(float* y, const float* x, size_t n);
// dx (n) += dy * gelu'(x)
void gelu_backward(float* dx, const float* x, const float* dy, size_t n);

// ---- cross-entropy --------------------------------------------------------------
// probs (N,V) = softmax(logits (N,V)); losses (N) = −log probs[n, targets[n]]
void crossentropy_forward(float* losses, float* probs, const float* logits, const int* targets,
                          int N, int V);
// dlogits (N,V) += dlosses[n] * (probs − onehot(targets[n]))
void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                           const float* dlosses, int N, int V);

// ---- linear attention and fast weights (Katharopoulos et al. 2020; Schlag et al. 2021) ----
// y (n) = φ(x) = elu(x) + 1 = x + 1 for x > 0, exp(x) otherwise: a positive feature map
void feature_map_forward(float* y, const float* x, size_t n);
// dx (n) += dy * φ'(x), φ'(x) = 1 for x > 0, exp(x) otherwise
void feature_map_backward(float* dx, const float* x, const float* dy, size_t n);
// One step of a fast-weight memory W (rows, dk), row-major, k and q (dk), v (rows):
//   u = beta (v − W k) if delta (the delta rule: one gradient step of size beta on
//       ½‖W k − v‖²), u = beta v otherwise (the sum rule of linear attention);
//   W += u ⊗ k;  y (rows) = W q   (read after the write).
void fast_weight_step(float* W, float* y, const float* q, const float* k, const float* v,
                      float beta, bool delta, int rows, int dk);

// ---- optimizer updates (elementwise over n parameters) ---------------------------
// AdamW (Loshchilov & Hutter): decoupled decay  p -= lr * (m̂ / (sqrt(v̂) + eps) + wd * p);
// t is the 1-based step count used for bias correction.
void adamw_update(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, int t);
// SGD with momentum (PyTorch's form): buf = momentum * buf + (g + wd * p); p -= lr * buf
void sgd_momentum_update(float* p, const float* g, float* buf, size_t n, float lr, float momentum,
                         float weight_decay);

namespace ref {
void matmul_nn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);
void matmul_nt(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);
void matmul_tn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate);
void matmul_nt_lower(float* S, const float* A, const float* B, int T, int K);
void matmul_nn_lower(float* C, const float* L, const float* B, int T, int N);
void matmul_tn_lower(float* C, const float* L, const float* B, int T, int N);
void attention_softmax(float* P, const float* S, int T, float scale, AttentionMask mask);
void attention_softmax_backward(float* dS, const float* dP, const float* P, int T, float scale);
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int N, int C, float eps = 1e-5f);
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int N, int C);
void gelu_forward(float* y, const float* x, size_t n);
void gelu_backward(float* dx, const float* x, const float* dy, size_t n);
void crossentropy_forward(float* losses, float* probs, const float* logits, const int* targets,
                          int N, int V);
void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                           const float* dlosses, int N, int V);
void adamw_update(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, int t);
void sgd_momentum_update(float* p, const float* g, float* buf, size_t n, float lr, float momentum,
                         float weight_decay);
void feature_map_forward(float* y, const float* x, size_t n);
void feature_map_backward(float* dx, const float* x, const float* dy, size_t n);
void fast_weight_step(float* W, float* y, const float* q, const float* k, const float* v,
                      float beta, bool delta, int rows, int dk);
}  // namespace ref

}  // namespace icl
