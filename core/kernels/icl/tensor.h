// xtensor at the API edge: shape-checked wrappers over the raw kernels. A shape
// mismatch comes back as an Error naming both shapes; nothing throws or aborts.
#pragma once
#include <xtensor/xtensor.hpp>

#include "icl/expected.h"
#include "icl/kernels.h"

namespace icl {

using Matrix = xt::xtensor<float, 2>;
using Vector = xt::xtensor<float, 1>;

// (M,K) · (K,N) -> (M,N)
Expected<Matrix> matmul(const Matrix& a, const Matrix& b);
// (M,K) · (N,K)ᵀ -> (M,N)
Expected<Matrix> matmul_nt(const Matrix& a, const Matrix& b);
// (K,M)ᵀ · (K,N) -> (M,N)
Expected<Matrix> matmul_tn(const Matrix& a, const Matrix& b);

// scores (T,T) -> masked row softmax of scale * scores (T,T)
Expected<Matrix> attention_softmax(const Matrix& scores, float scale, AttentionMask mask);

struct LayerNormOut {
    Matrix y;     // (N,C)
    Vector mean;  // (N)
    Vector rstd;  // (N)
};
// x (N,C), gamma (C), beta (C) -> y (N,C) and the per-row statistics
Expected<LayerNormOut> layernorm(const Matrix& x, const Vector& gamma, const Vector& beta,
                                 float eps = 1e-5f);

struct CrossEntropyOut {
    Vector losses;  // (N)
    Matrix probs;   // (N,V)
};
// logits (N,V), targets (N) each in [0, V) -> per-row losses and probabilities
Expected<CrossEntropyOut> cross_entropy(const Matrix& logits, const xt::xtensor<int, 1>& targets);

}  // namespace icl
